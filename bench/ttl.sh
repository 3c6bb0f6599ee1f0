#!/usr/bin/env bash
# Time to live: what a round of expiry costs, and what its index costs the
# writes (a benchmark, not a test: nothing fails on a slow number).
#
#   bench/ttl.sh [--items N] [--rounds R] [--seconds S] [--clients C] [--parts "round write"]
#
# round  A table of N items (default 10^6, ~450 bytes each: two keys, the
#        expiry attribute "exp" an hour ahead, a pad), time to live enabled
#        on "exp" (the index build is timed).  For 0, 1 and 10^4 expired
#        items (spread over the table: every (N/E)-th item set an hour in
#        the past), one round of expiry, st_expire on the table -- the
#        worker's round runs the same query and deletes, in batches of 500
#        instead of 1000 -- timed two ways, alternating, best of R:
#          before  index scans and bitmap scans off for the round: the
#                  expiry query reads the whole table with the filter, as
#                  it did before the index existed;
#          after   the planner's choice: the range scan of the index.
#        The filter is now stdesign.ttl_expiry; before the index it was a
#        regular expression and a cast: that statement (one batch, no
#        expired item) is timed too, "before, old filter", so that the
#        "before" above can be read as the old round's cost.  VACUUM
#        between rounds (not timed) so that both read the same table; each
#        round in a new session, its caches warmed by a DescribeTimeToLive.
# write  pgbench -M prepared, C clients (default 2), S seconds (default 10)
#        per run, R runs (default 3) of each, tables with time to live on
#        and off alternating, best tps of each:
#          new        st_put of a new item (random key of 10^9), with "exp";
#          overwrite  st_put over one of 10^5 existing items, with "exp"
#                     (an update of the row: with the index over item it can
#                     no longer be heap-only, as with a GSI);
#          update     UpdateItem (st_api) of another attribute of one of
#                     those items, its "exp" unchanged.
#
# Runs in a throwaway cluster (test/scripts/tmp_cluster.sh, fsync off,
# shared_buffers=1GB, max_wal_size=4GB: sized for 2 cores and 24 GB) unless
# STDESIGN_BENCH_INNER=1, which uses the server the PG* variables name
# (with stdesign installed).
set -euo pipefail
self=$(realpath "$0")
cd "$(dirname "$self")"

items=1000000
rounds=3
seconds=10
clients=2
parts="round write"
while [ $# -gt 0 ]; do
	case "$1" in
		--items) items=$2; shift 2 ;;
		--rounds) rounds=$2; shift 2 ;;
		--seconds) seconds=$2; shift 2 ;;
		--clients) clients=$2; shift 2 ;;
		--parts) parts=$2; shift 2 ;;
		*) echo "usage: $0 [--items N] [--rounds R] [--seconds S] [--clients C] [--parts 'round write']" >&2; exit 2 ;;
	esac
done

if [ "${STDESIGN_BENCH_INNER:-}" != 1 ]; then
	exec env STDESIGN_BENCH_INNER=1 bash "$(dirname "$self")/../test/scripts/tmp_cluster.sh" \
		-o shared_buffers=1GB -o max_wal_size=4GB -o fsync=off \
		bash "$self" --items "$items" --rounds "$rounds" --seconds "$seconds" --clients "$clients" --parts "$parts"
fi

work=$(mktemp -d)
chmod 755 "$work"
trap 'rm -rf "$work"' EXIT
psql_() { psql -X -q -v ON_ERROR_STOP=1 "$@"; }

echo "stdesign time-to-live bench: $items items, $rounds rounds; writes $clients clients x ${seconds}s"
echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB; $(psql -X -At -c 'SHOW server_version'); $(date -u +%Y-%m-%d)"
psql_ -c 'CREATE EXTENSION IF NOT EXISTS stdesign'

round_part() {
	local step expired
	psql_ <<SQL
SELECT st_drop_table('Ttl') FROM st_list_tables() AS t WHERE t = 'Ttl';
SELECT st_create_table('Ttl') IS NOT NULL AS created \gset
SELECT extract(epoch FROM now())::bigint + 3600 AS later \gset
SELECT st_put_all(jsonb_build_object('PK', 'P' || (i / 10), 'SK', 'S' || i, 'exp', :later,
                                     'pad', repeat('x', 360 - length(i::text))), 'Ttl')
  FROM generate_series(1, $items) i \gset
VACUUM ANALYZE stdesign_data."Ttl";
SELECT pg_size_pretty(pg_table_size('stdesign_data."Ttl"')) AS size \gset
\echo table: :size
SELECT clock_timestamp() AS t0 \gset
SELECT st_update_ttl('Ttl', 'exp') IS NOT NULL AS enabled \gset
SELECT round(extract(epoch FROM clock_timestamp() - :'t0') * 1000) AS ms,
       pg_size_pretty(pg_relation_size('stdesign_data."Ttl:ttl"')) AS ixsize \gset
\echo enabling time to live (the index build): :ms ms, index :ixsize
ANALYZE stdesign_data."Ttl";

-- Items step, 2 step, ... (re)written to expire an hour ago, e of them.
CREATE OR REPLACE FUNCTION bench_expire_some(e int, n int) RETURNS void LANGUAGE plpgsql AS \$\$
DECLARE
  step int := n / greatest(e, 1);
BEGIN
  IF e = 0 THEN RETURN; END IF;
  PERFORM st_put_all(jsonb_build_object('PK', 'P' || ((g * step) / 10), 'SK', 'S' || (g * step),
                                        'exp', extract(epoch FROM now())::bigint - 3600,
                                        'pad', repeat('x', 360 - length((g * step)::text))), 'Ttl')
    FROM generate_series(1, e) g;
END \$\$;
SQL
	# one round, in a session of its own: before (no index paths) or after
	one_round() {
		local mode=$1 e=$2
		psql_ -c "SELECT bench_expire_some($e, $items)" >/dev/null
		psql_ -c 'VACUUM stdesign_data."Ttl"'
		psql_ -At <<SQL
$([ "$mode" = before ] && echo "SET enable_indexscan = off; SET enable_bitmapscan = off;")
SELECT st_describe_ttl('Ttl') IS NOT NULL AS warm \gset
SELECT clock_timestamp() AS t0 \gset
SELECT st_expire('Ttl') AS deleted \gset
SELECT round(extract(epoch FROM clock_timestamp() - :'t0') * 1000, 1) || ' ' || :deleted;
SQL
	}
	for expired in 0 1 10000; do
		local best_before="" best_after="" r res ms n
		for r in $(seq 1 "$rounds"); do
			for mode in $([ $((r % 2)) = 1 ] && echo "before after" || echo "after before"); do
				res=$(one_round "$mode" "$expired")
				ms=${res% *}
				n=${res#* }
				[ "$n" = "$expired" ] || { echo "round $mode deleted $n, not $expired" >&2; exit 1; }
				if [ "$mode" = before ]; then
					best_before=$(printf '%s\n' $best_before "$ms" | sort -g | head -1)
				else
					best_after=$(printf '%s\n' $best_after "$ms" | sort -g | head -1)
				fi
			done
		done
		printf 'round, %5d expired: before %9.1f ms   after %8.1f ms   (%.0fx)\n' "$expired" \
			"$best_before" "$best_after" "$(echo "$best_before / $best_after" | bc -l)"
	done
	# the statement of a batch before the index (regular expression and
	# cast), with nothing expired: one full read, rolled back
	local best="" ms
	for r in $(seq 1 "$rounds"); do
		ms=$(psql_ -At <<'SQL'
BEGIN;
SELECT clock_timestamp() AS t0 \gset
SELECT count(*) AS n FROM (SELECT item FROM stdesign_data."Ttl"
  WHERE CASE WHEN ((item -> 'exp') ->> 'N') ~ '^-?[0-9]*\.?[0-9]+([eE][-+]?[0-9]+)?$'
        THEN ((item -> 'exp') ->> 'N')::numeric < extract(epoch FROM now())::bigint
         AND ((item -> 'exp') ->> 'N')::numeric >= extract(epoch FROM now())::bigint - 157680000
        ELSE false END LIMIT 1000 FOR UPDATE SKIP LOCKED) s \gset
SELECT round(extract(epoch FROM clock_timestamp() - :'t0') * 1000, 1);
ROLLBACK;
SQL
)
		best=$(printf '%s\n' $best "$ms" | sort -g | head -1)
	done
	printf 'round,     0 expired: before, old filter %.1f ms (the statement alone)\n' "$best"
	psql_ -c "SELECT st_drop_table('Ttl'); DROP FUNCTION bench_expire_some(int, int)" >/dev/null
}

write_part() {
	local t
	for t in On Off; do
		psql_ <<SQL >/dev/null
SELECT st_drop_table('W$t') FROM st_list_tables() AS t WHERE t = 'W$t';
SELECT st_create_table('W$t') IS NOT NULL;
SELECT st_put_all(jsonb_build_object('PK', 'K' || i, 'SK', 'x', 'exp', extract(epoch FROM now())::bigint + 86400,
                                     'pad', repeat('x', 360)), 'W$t')
  FROM generate_series(1, 100000) i;
VACUUM ANALYZE stdesign_data."W$t";
SQL
	done
	psql_ -c "SELECT st_update_ttl('WOn', 'exp') IS NOT NULL" >/dev/null
	cat >"$work/new.sql" <<'SQL'
\set id random(1, 1000000000)
SELECT st_put(jsonb_build_object('PK', 'N' || :id, 'SK', 'x', 'exp', extract(epoch FROM now())::bigint + 86400, 'pad', repeat('x', 360)), :table) IS NULL;
SQL
	cat >"$work/overwrite.sql" <<'SQL'
\set id random(1, 100000)
SELECT st_put(jsonb_build_object('PK', 'K' || :id, 'SK', 'x', 'exp', extract(epoch FROM now())::bigint + 86400, 'pad', repeat('x', 360)), :table) IS NULL;
SQL
	# UpdateItem of another attribute: the expiry stays as it was
	cat >"$work/update.sql" <<'SQL'
\set id random(1, 100000)
\set v random(1, 1000000000)
SELECT st_api('UpdateItem', jsonb_build_object('TableName', :table::text,
  'Key', jsonb_build_object('PK', jsonb_build_object('S', 'K' || :id), 'SK', jsonb_build_object('S', 'x')),
  'UpdateExpression', 'SET v = ' || chr(58) || 'v',
  'ExpressionAttributeValues', jsonb_build_object(chr(58) || 'v', jsonb_build_object('N', :v::text)))) IS NULL;
SQL
	local op r best_on best_off tps
	for op in new overwrite update; do
		best_on=0
		best_off=0
		for r in $(seq 1 "$rounds"); do
			for t in $([ $((r % 2)) = 1 ] && echo "Off On" || echo "On Off"); do
				tps=$(pgbench -n -M prepared -c "$clients" -j "$clients" -T "$seconds" -D table="W$t" \
					-f "$work/$op.sql" 2>&1 | awk '/^tps = / {print $3; exit}')
				if [ "$t" = On ]; then
					best_on=$(printf '%s\n' "$best_on" "$tps" | sort -g | tail -1)
				else
					best_off=$(printf '%s\n' "$best_off" "$tps" | sort -g | tail -1)
				fi
			done
		done
		printf 'write, %-9s: ttl off %8.0f tps   ttl on %8.0f tps   on/off %.3f\n' "$op" \
			"$best_off" "$best_on" "$(echo "$best_on / $best_off" | bc -l)"
	done
	psql_ -c "SELECT st_drop_table('WOn'), st_drop_table('WOff')" >/dev/null
}

for part in $parts; do
	"${part}_part"
done
