#!/usr/bin/env bash
# Index builds of a stdesign table while its relcache entry is invalidated.
#
# Heap's index build and validate scans insist on heap's own table AM
# routine; the stdesign AM lends it to the relation while they run
# (src/storage/tableam.c).  Another session's GRANT or REVOKE on the table
# invalidates the relation's cache entry, and the rebuilt entry must not
# lose the loan mid-scan ("only heap AM is supported", and an INVALID index
# left behind by CREATE INDEX CONCURRENTLY).  Here CREATE INDEX [CONCURRENTLY],
# REINDEX [CONCURRENTLY], st_create_gsi and UpdateTable run on a table of
# toasted items while another session GRANTs and REVOKEs in a loop; every
# build must succeed, and every index must be valid and pass amcheck.
#
# Runs in a throwaway cluster of its own (test/scripts/tmp_cluster.sh).  Needs the
# extension installed (make install).  Ends with one
# "index_build_invalidation: N passed, N failed" line; exits non-zero on
# any failure.
set -uo pipefail
cd "$(dirname "$0")/../.."

if [ -z "${INDEX_INVAL_INSIDE:-}" ]; then
	INDEX_INVAL_INSIDE=1 exec bash test/scripts/tmp_cluster.sh bash "$0" "$@"
fi

. test/scripts/checks.sh
q() { psql -X -q -v ON_ERROR_STOP=1 "$@"; }

q >/dev/null <<'SQL' || { echo "index_build_invalidation: set-up failed"; echo "index_build_invalidation: 0 passed, 1 failed"; exit 1; }
CREATE EXTENSION stdesign;
CREATE EXTENSION amcheck;
CREATE ROLE grantee;
SELECT st_create_table('Build') IS NOT NULL;
-- Items big enough to be TOASTed: reading them during a build opens the
-- TOAST relation, which is where pending invalidations are processed.
SELECT st_put_all(jsonb_build_object('PK', 'P' || (i / 10), 'SK', lpad(i::text, 6, '0'),
                                     'g', 'G' || (i % 7), 's', i,
                                     'pad', (SELECT string_agg(md5((i * 100 + j)::text), '')
                                               FROM generate_series(1, 80) AS j)), 'Build')
  FROM generate_series(1, 6000) AS i;
SQL

# Invalidations: GRANT and REVOKE on the table, each its own transaction.
stop=$(mktemp)
(
	while [ -e "$stop" ]; do
		for i in $(seq 1 200); do
			echo 'GRANT SELECT ON stdesign_data."Build" TO grantee;'
			echo 'REVOKE SELECT ON stdesign_data."Build" FROM grantee;'
		done | psql -X -q >/dev/null 2>&1
	done
) &
granter=$!

build() {
	# build "<what>" <sql>: must succeed
	local out
	if out=$(q -At -c "$2" 2>&1); then check "$1" 0; else check "$1 ($out)" 1; fi
}
for r in 1 2; do
	build "CREATE INDEX CONCURRENTLY (round $r)" \
		"CREATE INDEX CONCURRENTLY build_g$r ON stdesign_data.\"Build\" ((item #>> '{g,S}'), md5(item::text))"
	build "CREATE INDEX (round $r)" \
		"CREATE INDEX build_s$r ON stdesign_data.\"Build\" (((item #>> '{s,N}')::numeric), md5(item::text))"
	build "REINDEX INDEX CONCURRENTLY (round $r)" "REINDEX INDEX CONCURRENTLY stdesign_data.build_g$r"
	build "REINDEX TABLE (round $r)" "REINDEX TABLE stdesign_data.\"Build\""
	build "st_create_gsi (round $r)" "SELECT st_create_gsi('Build', 'ByG$r', 'g', 's', sk_type => 'N') IS NOT NULL"
	build "UpdateTable adding a GSI (round $r)" \
		"SELECT st_api('UpdateTable', '{\"TableName\": \"Build\",
		   \"AttributeDefinitions\": [{\"AttributeName\": \"s\", \"AttributeType\": \"N\"}],
		   \"GlobalSecondaryIndexUpdates\": [{\"Create\": {\"IndexName\": \"ByS$r\",
		     \"KeySchema\": [{\"AttributeName\": \"s\", \"KeyType\": \"HASH\"}],
		     \"Projection\": {\"ProjectionType\": \"ALL\"}}}]}') IS NOT NULL"
done

rm -f "$stop"
wait "$granter"

out=$(q -At -c "SELECT count(*) FILTER (WHERE NOT indisvalid) || ' invalid of ' || count(*)
                  FROM pg_index WHERE indrelid = 'stdesign_data.\"Build\"'::regclass")
[ "$out" = "0 invalid of 9" ]; check "every index valid ($out)" $?
out=$(q -At -c "SELECT count(*) FROM pg_index, LATERAL (SELECT bt_index_check(indexrelid, true)) AS c
                  WHERE indrelid = 'stdesign_data.\"Build\"'::regclass" 2>&1)
[ "$out" = "9" ]; check "amcheck of every index with heapallindexed ($out)" $?
out=$(q -At -c "SELECT count(*) FROM st_query('G3', \"table\" => 'Build', index => 'ByG1')")
[ "$out" = "857" ]; check "a GSI built under invalidations answers a query ($out items)" $?

echo "index_build_invalidation: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
