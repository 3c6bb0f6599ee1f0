#!/usr/bin/env bash
# DynamoDB Streams' cost to writers: the same writes to a table without a
# stream and to one with a NEW_AND_OLD_IMAGES stream, through pgbench
# (-M prepared, C clients, alternating, R rounds), in a throwaway cluster
# of the installed PostgreSQL.  Prints tps per table and the ratio
# (stream / none): puts of new items, puts over existing ones, updates.
# Writers of one stream take turns at commit (src/storage/stream_capture.c):
# with several clients the ratio says what that costs.
# A benchmark, not a test.
#
#   bench/streams.sh [--seconds S] [--clients C] [--rounds R]
set -euo pipefail
self=$(realpath "$0")
seconds=10
clients=2
rounds=2
while [ $# -gt 0 ]; do
	case "$1" in
		--seconds) seconds=$2; shift 2 ;;
		--clients) clients=$2; shift 2 ;;
		--rounds) rounds=$2; shift 2 ;;
		*) echo "usage: $0 [--seconds S] [--clients C] [--rounds R]"; exit 2 ;;
	esac
done
if [ "${STDESIGN_BENCH_INNER:-}" != 1 ]; then
	exec env STDESIGN_BENCH_INNER=1 bash "$(dirname "$self")/../test/scripts/tmp_cluster.sh" \
		-o shared_buffers=512MB -o max_wal_size=4GB -o synchronous_commit=on \
		bash "$self" --seconds "$seconds" --clients "$clients" --rounds "$rounds"
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
psql -X -q -o /dev/null <<'SQL'
CREATE EXTENSION stdesign;
SELECT st_create_table('Plain') IS NOT NULL;
SELECT st_create_table('Streamed') IS NOT NULL;
SELECT st_stream_enable('Streamed', 'NEW_AND_OLD_IMAGES') IS NOT NULL;
SELECT count(st_put(jsonb_build_object('PK', 'p' || (i % 1000), 'SK', 's' || i, 'n', i), t))
  FROM generate_series(1, 20000) i, (VALUES ('Plain'), ('Streamed')) v(t);
SQL
for t in Plain Streamed; do
	cat > "$work/insert_$t.sql" <<SQL
SELECT st_put(jsonb_build_object('PK', 'new' || :client_id, 'SK', random()::text, 'n', 1), '$t');
SQL
	cat > "$work/put_$t.sql" <<SQL
\set i random(1, 20000)
SELECT st_put(jsonb_build_object('PK', 'p' || (:i % 1000), 'SK', 's' || :i, 'n', random()), '$t');
SQL
	cat > "$work/update_$t.sql" <<SQL
\set i random(1, 20000)
SELECT st_update('p' || (:i % 1000), 's' || :i, 'SET n = n + ' || chr(58) || 'one', '$t',
                 "values" => jsonb_build_object(chr(58) || 'one', 1));
SQL
done
tps() {
	pgbench -n -M prepared -c "$clients" -j "$clients" -T "$seconds" -f "$1" 2>/dev/null |
		sed -n 's/^tps = \([0-9.]*\).*/\1/p'
}
echo "streams bench: ${clients} clients, ${seconds}s x ${rounds} rounds; $(nproc) cores; $(date -u +%Y-%m-%d)"
printf '%-8s %12s %12s %7s\n' op none stream ratio
for op in insert put update; do
	a=0; b=0
	for r in $(seq "$rounds"); do
		a=$(echo "$a + $(tps "$work/${op}_Plain.sql")" | bc -l)
		b=$(echo "$b + $(tps "$work/${op}_Streamed.sql")" | bc -l)
	done
	printf '%-8s %12.0f %12.0f %7.2f\n' "$op" "$(echo "$a / $rounds" | bc -l)" \
		"$(echo "$b / $rounds" | bc -l)" "$(echo "$b / $a" | bc -l)"
done
psql -X -At -c "SELECT 'records written: ' || count(*) FROM stdesign.stream_records"
