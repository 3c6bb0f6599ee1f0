#!/usr/bin/env bash
# DynamoDB Streams' cost to writers: the same writes to a table without a
# stream (the ceiling) and to one with a NEW_AND_OLD_IMAGES stream, through
# pgbench (-M prepared, C clients), in a throwaway cluster of the installed
# PostgreSQL, in R rounds that alternate the two tables (a noisy machine
# then weighs on both alike).  Prints per operation the median tps of each
# table, their ratio (stream / none; the target is >= 0.8) and the lowest
# and highest ratio of one round, and the median WAL bytes per transaction:
#   insert    PutItem of new items
#   put       PutItem over existing items
#   update    UpdateItem (SET n = n + :one)
#   transact  TransactWriteItems (an Update and a Put of another item)
#   batch     BatchWriteItem of 25 new items
#   import    st_import of 500 new items in one transaction
# Writers of one stream take turns at commit (src/storage/stream_capture.c):
# with several clients the ratio says what that costs.
# A benchmark, not a test.
#
#   bench/streams.sh [--seconds S] [--clients C] [--rounds R] [--ops "insert put ..."]
set -euo pipefail
self=$(realpath "$0")
seconds=5
clients=2
rounds=3
ops="insert put update transact batch import"
while [ $# -gt 0 ]; do
	case "$1" in
		--seconds) seconds=$2; shift 2 ;;
		--clients) clients=$2; shift 2 ;;
		--rounds) rounds=$2; shift 2 ;;
		--ops) ops=$2; shift 2 ;;
		*) echo "usage: $0 [--seconds S] [--clients C] [--rounds R] [--ops \"insert put ...\"]"; exit 2 ;;
	esac
done
if [ "${STDESIGN_BENCH_INNER:-}" != 1 ]; then
	exec env STDESIGN_BENCH_INNER=1 bash "$(dirname "$self")/../test/scripts/tmp_cluster.sh" \
		-o shared_buffers=512MB -o max_wal_size=4GB -o synchronous_commit=on \
		bash "$self" --seconds "$seconds" --clients "$clients" --rounds "$rounds" --ops "$ops"
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
	cat > "$work/transact_$t.sql" <<SQL
\set i random(1, 20000)
\set j random(1, 20000)
SELECT st_transact(jsonb_build_array(
  jsonb_build_object('Update', jsonb_build_object('TableName', '$t',
    'Key', jsonb_build_object('PK', 'p' || (:i % 1000), 'SK', 's' || :i),
    'UpdateExpression', 'SET n = n + ' || chr(58) || 'one',
    'ExpressionAttributeValues', jsonb_build_object(chr(58) || 'one', 1))),
  jsonb_build_object('Put', jsonb_build_object('TableName', '$t',
    'Item', jsonb_build_object('PK', 'p' || (:j % 1000), 'SK', 't' || :j, 'n', random()))))
  , plain => true);
SQL
	cat > "$work/batch_$t.sql" <<SQL
SELECT st_api('BatchWriteItem', jsonb_build_object('RequestItems', jsonb_build_object('$t',
  (SELECT jsonb_agg(jsonb_build_object('PutRequest', jsonb_build_object('Item', jsonb_build_object(
           'PK', jsonb_build_object('S', 'b' || :client_id),
           'SK', jsonb_build_object('S', r || '-' || i),
           'n', jsonb_build_object('N', i::text)))))
     FROM generate_series(1, 25) i, (SELECT random()::text AS r) x))));
SQL
	cat > "$work/import_$t.sql" <<SQL
SELECT st_import('$t', (SELECT string_agg(jsonb_build_object('Item', jsonb_build_object(
           'PK', jsonb_build_object('S', 'imp' || :client_id || '-' || (i % 20)),
           'SK', jsonb_build_object('S', r || '-' || i),
           'n', jsonb_build_object('N', i::text)))::text, E'\n')
     FROM generate_series(1, 500) i, (SELECT random()::text AS r) x));
SQL
done
# tps, and the WAL bytes per transaction (an exact measure of the extra
# work a record is, where the machine's noise blurs the tps)
tps() {
	local lsn out n
	lsn=$(psql -X -At -c "SELECT pg_current_wal_insert_lsn()")
	out=$(pgbench -n -M prepared -c "$clients" -j "$clients" -T "$seconds" -f "$1" 2>/dev/null)
	n=$(echo "$out" | sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p')
	echo "$(echo "$out" | sed -n 's/^tps = \([0-9.]*\).*/\1/p')" \
		"$(psql -X -At -c "SELECT round((pg_current_wal_insert_lsn() - '$lsn') / greatest($n, 1))")"
}
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
echo "streams bench: ${clients} clients, ${seconds}s x ${rounds} rounds (alternating); $(nproc) cores; $(date -u +%Y-%m-%d)"
printf '%-9s %10s %10s %7s %7s %7s %11s %11s\n' op none stream ratio min max 'WAL/tx none' 'WAL/tx str'
for op in $ops; do
	: > "$work/a"; : > "$work/b"; : > "$work/r"; : > "$work/wa"; : > "$work/wb"
	for r in $(seq "$rounds"); do
		# alternate which goes first, so that neither always follows the other
		if [ $((r % 2)) -eq 1 ]; then
			read -r a wa < <(tps "$work/${op}_Plain.sql"); read -r b wb < <(tps "$work/${op}_Streamed.sql")
		else
			read -r b wb < <(tps "$work/${op}_Streamed.sql"); read -r a wa < <(tps "$work/${op}_Plain.sql")
		fi
		echo "$a" >> "$work/a"; echo "$b" >> "$work/b"
		echo "$wa" >> "$work/wa"; echo "$wb" >> "$work/wb"
		echo "$b / $a" | bc -l >> "$work/r"
	done
	ma=$(median < "$work/a"); mb=$(median < "$work/b")
	printf '%-9s %10.0f %10.0f %7.2f %7.2f %7.2f %11.0f %11.0f\n' "$op" "$ma" "$mb" "$(echo "$mb / $ma" | bc -l)" \
		"$(sort -g "$work/r" | head -n1)" "$(sort -g "$work/r" | tail -n1)" \
		"$(median < "$work/wa")" "$(median < "$work/wb")"
done
psql -X -At -c "SELECT 'records written: ' || count(*) FROM stdesign.streams s, stdesign.stream_record_rows(s.stream_id) r"
