#!/usr/bin/env bash
# Backend memory over a long session (make bench): one session makes
# 10^6 calls (st_get, st_query, st_put, st_update with expressions, st_api
# GetItem and Query, PartiQL statements - one repeated, and thousands of
# distinct ones through the statement cache - and items loaded by
# st_put_all over existing and new keys) and reports the backend's total memory (pg_backend_memory_contexts) after
# a warm-up and at the end.  Flat means within 10%.
#
#   bench/memory.sh [--calls N]
set -euo pipefail
self=$(realpath "$0")
cd "$(dirname "$self")"
calls=1000000
[ "${1:-}" = "--calls" ] && calls=$2

if [ "${STDESIGN_BENCH_INNER:-}" != 1 ]; then
	exec env STDESIGN_BENCH_INNER=1 bash "$(dirname "$self")/../test/scripts/tmp_cluster.sh" bash "$self" --calls "$calls"
fi

per=$((calls / 5))
batches=$((per / 20000))
psql -X -q -v ON_ERROR_STOP=1 <<SQL
CREATE EXTENSION stdesign;
SELECT st_create_table('Mem') IS NOT NULL AS created;
SELECT count(st_put(jsonb_build_object('PK', 'P' || (i % 1000), 'SK', 'S' || i, 'v', i))) FROM generate_series(1, 20000) i;

CREATE FUNCTION backend_bytes() RETURNS bigint LANGUAGE sql AS
  \$\$ SELECT sum(total_bytes)::bigint FROM pg_backend_memory_contexts \$\$;
CREATE FUNCTION one_round(n int) RETURNS void LANGUAGE plpgsql AS \$\$
BEGIN
  PERFORM count(st_get('P' || (i % 1000), 'S' || i)) FROM generate_series(1, n) i;
  PERFORM count(*) FROM generate_series(1, n / 20) i, st_query('P' || (i % 1000), 'S1');
  PERFORM count(st_put(jsonb_build_object('PK', 'N' || (i % 5000), 'SK', 'x', 'v', i))) FROM generate_series(1, n) i;
  PERFORM count(st_update('P' || (i % 1000), 'S' || i, 'SET c = if_not_exists(c, :z) + :one',
                          "values" => '{":z": 0, ":one": 1}')) FROM generate_series(1, n) i;
  PERFORM count(st_api('GetItem', jsonb_build_object('TableName', 'Mem', 'Key',
                 jsonb_build_object('PK', jsonb_build_object('S', 'P' || (i % 1000)), 'SK', jsonb_build_object('S', 'S' || i)))))
    FROM generate_series(1, n) i;
  PERFORM count(st_api('Query', jsonb_build_object('TableName', 'Mem', 'KeyConditionExpression', 'PK = :p',
                 'ExpressionAttributeValues', jsonb_build_object(':p', jsonb_build_object('S', 'P' || (i % 1000))))))
    FROM generate_series(1, n / 20) i;
  PERFORM count(*) FROM generate_series(1, n / 20) i,
    st_partiql('SELECT * FROM "Mem" WHERE PK = ?', jsonb_build_array('P' || (i % 1000)));
  PERFORM count(*) FROM generate_series(1, n / 20) i,
    st_partiql(format('SELECT * FROM "Mem" WHERE PK = ''P%s'' AND SK = ''S%s''', i % 1000, i));
  PERFORM st_put_all(jsonb_build_object('PK', 'B' || (i % 1500), 'SK', 'y', 'v', i)) FROM generate_series(1, n / 10) i;
END \$\$;

SELECT one_round(20000);
SELECT backend_bytes() AS after_warmup \gset
DO \$\$ BEGIN FOR r IN 1..$batches LOOP PERFORM one_round(20000); END LOOP; END \$\$;
SELECT backend_bytes() AS after_all \gset
SELECT $calls AS calls, :after_warmup AS bytes_after_warmup, :after_all AS bytes_after_all,
       round(100.0 * (:after_all - :after_warmup) / :after_warmup, 1) AS growth_percent;
SQL
