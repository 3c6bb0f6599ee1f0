#!/usr/bin/env bash
# A multi-attribute GSI against the synthetic concatenated-key GSI it
# replaces, holding the same items (issue 31's targets: >= 0.9x).
#
#   bench/mgsi.sh [--items N] [--queries Q] [--writes W] [--rounds R]
#
# Two tables of the e-commerce model's orders: MgMulti with GSI "ByStatus"
# on status (HASH) and created_at, order_id (RANGE); MgSynth with GSI
# "GSI2" on GSI2PK = status and GSI2SK = created_at#order_id, the key the
# application keeps in sync.  N orders are loaded into each (20 statuses).
# Then R rounds, alternating which table goes first: Q Queries through
# st_api (one status, a date range, Limit 25) on each index, and W
# PutItems of new orders into each table; prints the best rate of each and
# the ratios multi / synthetic, from the same run.
# Runs in a throwaway cluster (test/scripts/tmp_cluster.sh, fsync off)
# unless STDESIGN_BENCH_INNER=1, which uses the server the PG* variables
# name (with stdesign installed).  A benchmark, not a test.
set -euo pipefail
self=$(realpath "$0")

items=200000
queries=2000
writes=5000
rounds=3
while [ $# -gt 0 ]; do
	case "$1" in
		--items) items=$2; shift 2 ;;
		--queries) queries=$2; shift 2 ;;
		--writes) writes=$2; shift 2 ;;
		--rounds) rounds=$2; shift 2 ;;
		*) echo "usage: $0 [--items N] [--queries Q] [--writes W] [--rounds R]" >&2; exit 2 ;;
	esac
done

if [ "${STDESIGN_BENCH_INNER:-}" != 1 ]; then
	exec env STDESIGN_BENCH_INNER=1 bash "$(dirname "$self")/../test/scripts/tmp_cluster.sh" \
		-o shared_buffers=512MB -o max_wal_size=4GB -o fsync=off \
		bash "$self" --items "$items" --queries "$queries" --writes "$writes" --rounds "$rounds"
fi

psql_() { psql -X -q -v ON_ERROR_STOP=1 "$@"; }

echo "stdesign mgsi bench: $items items, $queries queries, $writes writes, $rounds rounds"
echo "machine: $(nproc) cores; $(psql -X -At -c 'SHOW server_version'); $(date -u +%Y-%m-%d)"
psql_ <<SQL
CREATE EXTENSION IF NOT EXISTS stdesign;
SELECT st_api('CreateTable', '{"TableName": "MgMulti", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "SK", "AttributeType": "S"},
    {"AttributeName": "status", "AttributeType": "S"}, {"AttributeName": "created_at", "AttributeType": "S"},
    {"AttributeName": "order_id", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
  "GlobalSecondaryIndexes": [{"IndexName": "ByStatus", "KeySchema": [{"AttributeName": "status", "KeyType": "HASH"},
    {"AttributeName": "created_at", "KeyType": "RANGE"}, {"AttributeName": "order_id", "KeyType": "RANGE"}],
    "Projection": {"ProjectionType": "ALL"}}]}') IS NOT NULL AS created \gset
SELECT st_api('CreateTable', '{"TableName": "MgSynth", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "SK", "AttributeType": "S"},
    {"AttributeName": "GSI2PK", "AttributeType": "S"}, {"AttributeName": "GSI2SK", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
  "GlobalSecondaryIndexes": [{"IndexName": "GSI2", "KeySchema": [{"AttributeName": "GSI2PK", "KeyType": "HASH"},
    {"AttributeName": "GSI2SK", "KeyType": "RANGE"}], "Projection": {"ProjectionType": "ALL"}}]}') IS NOT NULL AS created \gset
-- the same orders; the synthetic table also holds the attributes its key is made of
CREATE FUNCTION mg_order_item(i bigint, synth boolean) RETURNS jsonb LANGUAGE sql AS \$\$
  SELECT jsonb_build_object('PK', 'CUST#' || (i / 10), 'SK', 'ORDER#' || lpad(i::text, 9, '0'),
    'status', 'S' || (i % 20), 'created_at', to_char(timestamp '2026-01-01' + (i % 100000) * interval '5 minutes', 'YYYY-MM-DD"T"HH24:MI:SS'),
    'order_id', lpad(i::text, 9, '0'), 'total', i % 1000)
    || CASE WHEN synth THEN jsonb_build_object('GSI2PK', 'S' || (i % 20),
         'GSI2SK', to_char(timestamp '2026-01-01' + (i % 100000) * interval '5 minutes', 'YYYY-MM-DD"T"HH24:MI:SS') || '#' || lpad(i::text, 9, '0'))
       ELSE '{}' END
\$\$;
SELECT count(st_put(mg_order_item(i, false), 'MgMulti')) FROM generate_series(1, $items) i \gset
SELECT count(st_put(mg_order_item(i, true), 'MgSynth')) FROM generate_series(1, $items) i \gset
VACUUM ANALYZE stdesign_data."MgMulti";
VACUUM ANALYZE stdesign_data."MgSynth";
SQL

# One timed run: queries or writes on one table, as a rate per second.
run() {
	local what=$1 table=$2 round=$3
	psql -X -At -v ON_ERROR_STOP=1 2>&1 <<SQL | sed -n 's/^NOTICE: *//p'
DO \$\$
DECLARE
	t0 timestamptz := clock_timestamp();
	n int := CASE WHEN '$what' = 'query' THEN $queries ELSE $writes END;
	r jsonb;
BEGIN
	FOR i IN 1 .. n LOOP
		IF '$what' = 'query' AND '$table' = 'MgMulti' THEN
			r := st_api('Query', jsonb_build_object('TableName', 'MgMulti', 'IndexName', 'ByStatus', 'Limit', 25,
				'KeyConditionExpression', '#s = :s AND created_at BETWEEN :a AND :b',
				'ExpressionAttributeNames', '{"#s": "status"}'::jsonb,
				'ExpressionAttributeValues', jsonb_build_object(':s', jsonb_build_object('S', 'S' || (i % 20)),
					':a', jsonb_build_object('S', '2026-02-' || lpad((1 + i % 27)::text, 2, '0')),
					':b', jsonb_build_object('S', '2026-03-01'))));
		ELSIF '$what' = 'query' THEN
			r := st_api('Query', jsonb_build_object('TableName', 'MgSynth', 'IndexName', 'GSI2', 'Limit', 25,
				'KeyConditionExpression', 'GSI2PK = :s AND GSI2SK BETWEEN :a AND :b',
				'ExpressionAttributeValues', jsonb_build_object(':s', jsonb_build_object('S', 'S' || (i % 20)),
					':a', jsonb_build_object('S', '2026-02-' || lpad((1 + i % 27)::text, 2, '0')),
					':b', jsonb_build_object('S', '2026-03-01'))));
		ELSE
			PERFORM st_put(mg_order_item(($items + $round * $writes + i)::bigint, '$table' = 'MgSynth'), '$table');
		END IF;
	END LOOP;
	RAISE NOTICE '%', round(n / extract(epoch FROM clock_timestamp() - t0));
END \$\$;
SQL
}

best() { printf '%s\n' "$@" | sort -g | tail -n1; }
declare -a qm qs wm ws
for r in $(seq 1 "$rounds"); do
	# alternate which table goes first, so that neither always runs warm
	if [ $((r % 2)) -eq 1 ]; then
		qm+=("$(run query MgMulti "$r")"); qs+=("$(run query MgSynth "$r")")
		wm+=("$(run write MgMulti "$r")"); ws+=("$(run write MgSynth "$r")")
	else
		qs+=("$(run query MgSynth "$r")"); qm+=("$(run query MgMulti "$r")")
		ws+=("$(run write MgSynth "$r")"); wm+=("$(run write MgMulti "$r")")
	fi
	echo "round $r: query/s multi ${qm[-1]} synthetic ${qs[-1]}; put/s multi ${wm[-1]} synthetic ${ws[-1]}"
done
bq_m=$(best "${qm[@]}"); bq_s=$(best "${qs[@]}"); bw_m=$(best "${wm[@]}"); bw_s=$(best "${ws[@]}")
echo "best: Query $bq_m/s multi-attribute, $bq_s/s synthetic: $(echo "scale=2; $bq_m / $bq_s" | bc)x"
echo "best: PutItem $bw_m/s multi-attribute, $bw_s/s synthetic: $(echo "scale=2; $bw_m / $bw_s" | bc)x"
