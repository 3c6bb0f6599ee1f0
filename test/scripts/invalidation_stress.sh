#!/usr/bin/env bash
# Direct writes while the relation's cache entries are invalidated.
#
# The writes that bypass the executor (st_put_all and BatchWriteItem's
# upserts, UpdateItem's replacement, DeleteItem) hold on to what they read
# from the relation's cache entry while they write.  Postgres rebuilds that
# entry, freeing parts of it (its trigger descriptor, the access method's
# cache), whenever this backend processes an invalidation of the relation,
# which any lock taken while writing may do: another session's ANALYZE
# sends one.  Here one session loads, reloads, updates and deletes items
# while others ANALYZE the table (and its indexes) in a loop; then no
# backend may have crashed, and the table, its GSI and its indexes must be
# exactly what the writes say.  Then four writers at once over the same
# keys (bulk loads, batches, updates, deletes): none fails, no key doubles.
#
# Runs in a throwaway cluster of its own (pg_virtualenv -t).  Needs the
# extension installed (make install).  Ends with one
# "invalidation_stress: N passed, N failed" line; exits non-zero on any
# failure.
set -uo pipefail
cd "$(dirname "$0")/../.."

if [ -z "${INVAL_STRESS_INSIDE:-}" ]; then
	INVAL_STRESS_INSIDE=1 exec pg_virtualenv -t bash "$0" "$@"
fi

rounds=${INVAL_STRESS_ROUNDS:-6}
. test/scripts/checks.sh
q() { psql -X -q -v ON_ERROR_STOP=1 "$@"; }
expect() {
	# expect "<what>" "<want>" <sql>
	local out
	out=$(q -At -c "$3" 2>&1)
	[ "$out" = "$2" ]; check "$1 (got ${out:-nothing})" $?
}

q >/dev/null <<'SQL' || { echo "invalidation_stress: set-up failed"; echo "invalidation_stress: 0 passed, 1 failed"; exit 1; }
CREATE EXTENSION stdesign;
CREATE EXTENSION amcheck;
SELECT st_create_table('Inval') IS NOT NULL;
SELECT st_create_gsi('Inval', 'ByG', 'g', 's') IS NOT NULL;
CREATE TABLE items AS
  SELECT i, jsonb_build_object('PK', 'P' || (i / 2), 'SK', lpad(i::text, 6, '0'), 'g', 'G' || (i % 7),
                               's', lpad(i::text, 6, '0'), 'n', 0) AS item
    FROM generate_series(1, 20000) AS i;
SQL

# Invalidations: ANALYZE of the table (and so of its indexes), over and over.
stop=$(mktemp)
(
	while [ -e "$stop" ]; do
		psql -X -q -c 'ANALYZE stdesign_data."Inval"' >/dev/null 2>&1
	done
) &
analyzer=$!

errors=0
for r in $(seq 1 "$rounds"); do
	q >/dev/null <<SQL || errors=$((errors + 1))
TRUNCATE stdesign_data."Inval";
SELECT st_put_all(item, 'Inval') FROM items;
SELECT st_put_all(item || jsonb_build_object('n', $r), 'Inval') FROM items WHERE i % 2 = 0;
SELECT st_batch_write(jsonb_build_object('Inval', jsonb_agg(jsonb_build_object('PutRequest',
         jsonb_build_object('Item', st_to_typed(item || '{"n": 100}')))))) IS NOT NULL
  FROM items WHERE i % 1000 = 7;
SELECT count(st_update('P' || (i / 2), lpad(i::text, 6, '0'), 'SET n = n + :one', 'Inval',
                       "values" => '{":one": 1}', return_values => 'NONE'))
  FROM items WHERE i % 3 = 0;
SELECT count(st_delete('P' || (i / 2), lpad(i::text, 6, '0'), 'Inval')) FROM items WHERE i % 5 = 0;
SELECT count(st_get('P' || (i / 2), lpad(i::text, 6, '0'), 'Inval')) FROM items WHERE i % 11 = 0;
SELECT count(*) FROM items, LATERAL st_query('P' || (i / 2), "table" => 'Inval') AS q WHERE i % 13 = 0;
SELECT count(st_transact(jsonb_build_array(jsonb_build_object('Update', jsonb_build_object('TableName', 'Inval',
         'Key', jsonb_build_object('PK', jsonb_build_object('S', 'P' || (i / 2)), 'SK', jsonb_build_object('S', lpad(i::text, 6, '0'))),
         'UpdateExpression', 'SET n = n + :z', 'ExpressionAttributeValues', '{":z": {"N": "0"}}'::jsonb)))))
  FROM items WHERE i % 17 = 1 AND i % 5 <> 0;
SQL
done
rm -f "$stop"
wait "$analyzer"

check "every round ran without an error ($errors failed)" "$errors"
# the cluster's server log, beside its data directory
datadir=$(q -At -c "SHOW data_directory")
crashes=$(cat "$datadir"/../../../log/*.log 2>/dev/null | grep -c "terminated by signal" || true)
[ "${crashes:-0}" -eq 0 ]; check "no backend crashed (${crashes:-0} in the server log)" $?

# What the last round leaves: items not divisible by 5; n = the round
# number for even i, else 0; 100 for i % 1000 = 7 (odd, so put as 100);
# plus one for i % 3 = 0.
want_sql="SELECT count(*) || ' ' || sum(CASE WHEN i % 1000 = 7 THEN 100 WHEN i % 2 = 0 THEN $rounds ELSE 0 END
                                        + CASE WHEN i % 3 = 0 THEN 1 ELSE 0 END)
            FROM items WHERE i % 5 <> 0"
want=$(q -At -c "$want_sql")
expect "items and their counters are what the writes say" "$want" \
	"SELECT count(*) || ' ' || sum((item #>> '{n,N}')::int) FROM stdesign_data.\"Inval\""
expect "the GSI has every item, once" "$(q -At -c "SELECT count(*) FROM items WHERE i % 5 <> 0")" \
	"SELECT sum((SELECT count(*) FROM st_query('G' || g, index => 'ByG', \"table\" => 'Inval'))) FROM generate_series(0, 6) AS g"
expect "every index has every row version (amcheck heapallindexed)" "2" \
	"SELECT count(*) FROM pg_index, LATERAL (SELECT bt_index_check(indexrelid, true)) AS c
	  WHERE indrelid = 'stdesign_data.\"Inval\"'::regclass"

# Then four writers at once over the same 200 keys: BatchWriteItem and
# st_put_all (speculative insertions finding each other's rows), updates
# and deletes; none may fail, and no key may be doubled.  (An update of a
# deleted key creates an item without the GSI's attributes, as UpdateItem
# does.)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat > "$work/batch.sql" <<'SQL'
\set base random(0, 180)
SELECT st_batch_write(jsonb_build_object('Inval', jsonb_agg(jsonb_build_object('PutRequest', jsonb_build_object('Item',
  jsonb_build_object('PK', jsonb_build_object('S', 'R' || ((:base + i) % 20)), 'SK', jsonb_build_object('S', lpad((:base + i)::text, 6, '0')),
                     'g', jsonb_build_object('S', 'G' || (i % 7)), 's', jsonb_build_object('S', 'c' || :client_id)))))))
  FROM generate_series(0, 24) AS i;
SQL
cat > "$work/load.sql" <<'SQL'
\set base random(0, 100)
SELECT st_put_all(jsonb_build_object('PK', 'R' || ((:base + i) % 20), 'SK', lpad((:base + i)::text, 6, '0'),
                                     'g', 'G' || (i % 7), 's', 'l' || :client_id), 'Inval')
  FROM generate_series(0, 99) AS i;
SQL
cat > "$work/update.sql" <<'SQL'
\set k random(0, 205)
SELECT st_update('R' || (:k % 20), lpad(:k::text, 6, '0'), 'SET n = if_not_exists(n, :z) + :one', 'Inval',
                 "values" => '{":z": 0, ":one": 1}', return_values => 'NONE');
SQL
cat > "$work/delete.sql" <<'SQL'
\set k random(0, 205)
SELECT st_delete('R' || (:k % 20), lpad(:k::text, 6, '0'), 'Inval');
SQL
out=$("$("${PG_CONFIG:-pg_config}" --bindir)/pgbench" -n -c 4 -j 2 -T "${INVAL_STRESS_SECONDS:-10}" \
	-f "$work/batch.sql@3" -f "$work/load.sql@1" -f "$work/update.sql@2" -f "$work/delete.sql@2" 2>&1)
rc=$?
txns=$(echo "$out" | sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p')
bad=$(echo "$out" | sed -n 's/^number of failed transactions: \([0-9]*\).*/\1/p' | head -n 1)
[ "$rc" -eq 0 ] && [ "${bad:-1}" -eq 0 ] && [ "${txns:-0}" -gt 0 ]
check "concurrent writers: ${txns:-0} transactions, ${bad:-?} failed (pgbench exit $rc)" $?
expect "concurrent writers: no key doubled" "t" \
	"SELECT count(*) = count(DISTINCT (pk, sk)) FROM stdesign_data.\"Inval\""
expect "concurrent writers: the GSI has every item, once" "t" \
	"SELECT (SELECT count(*) FROM stdesign_data.\"Inval\" WHERE item ? 'g' AND item ? 's')
	        = (SELECT sum((SELECT count(*) FROM st_query('G' || g, index => 'ByG', \"table\" => 'Inval'))) FROM generate_series(0, 6) AS g)"
expect "concurrent writers: every index has every row version" "2" \
	"SELECT count(*) FROM pg_index, LATERAL (SELECT bt_index_check(indexrelid, true)) AS c
	  WHERE indrelid = 'stdesign_data.\"Inval\"'::regclass"
crashes=$(cat "$datadir"/../../../log/*.log 2>/dev/null | grep -c "terminated by signal" || true)
[ "${crashes:-0}" -eq 0 ]; check "concurrent writers: no backend crashed" $?

echo "invalidation_stress: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
