#!/usr/bin/env bash
# The lag from a write's commit to a waiting SQL consumer seeing its stream
# record (st_stream_wait, then st_stream_read), under a steady write load.
#
#   bench/stream_lag.sh [--rate R] [--seconds S] [--clients C]
#
# pgbench writes R items a second (C clients, autocommit, one st_put per
# transaction, each item holding the clock at its write) for S seconds on
# a table with a NEW_IMAGE stream; one consumer loops on st_stream_wait
# and st_stream_read, committing each batch, and notes for each record the
# clock when it read it less the clock in the item.  Prints the p50, p90,
# p99 and max of that lag, and the writes and records seen.  The lag
# includes the rest of the write's statement and its commit (a few tens
# of microseconds).  Runs in a throwaway cluster with stdesign preloaded
# (test/scripts/tmp_cluster.sh), unless STDESIGN_BENCH_INNER=1, which uses
# the server the PG* variables name.  A benchmark, not a test.
set -euo pipefail
self=$(realpath "$0")

rate=200
seconds=20
clients=4
while [ $# -gt 0 ]; do
	case "$1" in
		--rate) rate=$2; shift 2 ;;
		--seconds) seconds=$2; shift 2 ;;
		--clients) clients=$2; shift 2 ;;
		*) echo "usage: $0 [--rate R] [--seconds S] [--clients C]" >&2; exit 2 ;;
	esac
done

if [ "${STDESIGN_BENCH_INNER:-}" != 1 ]; then
	exec env STDESIGN_BENCH_INNER=1 bash "$(dirname "$self")/../test/scripts/tmp_cluster.sh" \
		-o shared_preload_libraries=stdesign -o max_connections=50 \
		bash "$self" --rate "$rate" --seconds "$seconds" --clients "$clients"
fi

work=$(mktemp -d)
chmod 777 "$work"
trap 'rm -rf "$work"' EXIT
psql_() { psql -X -q -v ON_ERROR_STOP=1 "$@"; }

echo "stdesign stream lag bench: $rate writes/s by $clients clients for $seconds s, one waiting consumer"
echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB; $(psql -X -At -c 'SHOW server_version'); $(date -u +%Y-%m-%d)"
psql_ <<'SQL'
CREATE EXTENSION IF NOT EXISTS stdesign;
SELECT st_create_table('Lag') IS NOT NULL AS created \gset
SELECT st_stream_enable('Lag', 'NEW_IMAGE') IS NOT NULL AS enabled \gset
SELECT st_stream_consumer_create('lag', 'Lag', 'LATEST') IS NOT NULL AS consumer \gset
CREATE TABLE lag_samples (lag_ms float8);
SQL

cat >"$work/write.sql" <<'SQL'
\set i random(1, 1000000000)
SELECT st_put(jsonb_build_object('PK', 'w', 'SK', :i::text, 't', extract(epoch FROM clock_timestamp())), 'Lag');
SQL

# the consumer: wait, read, note each record's lag, commit; until told to stop
psql_ <<SQL >"$work/consumer.log" 2>&1 &
DO \$\$
DECLARE
	stop timestamptz := clock_timestamp() + make_interval(secs => $seconds + 3);
BEGIN
	WHILE clock_timestamp() < stop LOOP
		IF st_stream_wait('lag', 1) THEN
			INSERT INTO lag_samples
			SELECT 1000 * (extract(epoch FROM clock_timestamp())
						   - (r -> 'dynamodb' -> 'NewImage' -> 't' ->> 'N')::float8)
			  FROM st_stream_read('lag', 'Lag', 1000) r;
		END IF;
		COMMIT;
	END LOOP;
END \$\$;
SQL
consumer=$!
sleep 1
pgbench -n -c "$clients" -j "$clients" -R "$rate" -T "$seconds" -f "$work/write.sql" >"$work/pgbench.log" 2>&1 ||
	{ cat "$work/pgbench.log"; exit 1; }
wait "$consumer" || { cat "$work/consumer.log"; exit 1; }
grep -E "number of transactions actually processed|^tps|latency average" "$work/pgbench.log" | sed 's/^/pgbench: /' || true
psql -X -At -F ' ' <<'SQL' | awk '{ printf "records seen: %d; lag ms: p50 %.2f, p90 %.2f, p99 %.2f, max %.2f\n", $1, $2, $3, $4, $5 }'
SELECT count(*), percentile_cont(0.5) WITHIN GROUP (ORDER BY lag_ms),
       percentile_cont(0.9) WITHIN GROUP (ORDER BY lag_ms),
       percentile_cont(0.99) WITHIN GROUP (ORDER BY lag_ms), max(lag_ms)
  FROM lag_samples;
SQL
