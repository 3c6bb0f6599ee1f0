#!/usr/bin/env bash
# stdesign through a Citus coordinator with two workers against one node,
# all on this machine (make bench-citus; needs Citus installed: make
# test-citus builds it).  A benchmark, not a test.
#
#   bench/citus/run.sh [--items N] [--seconds S] [--clients C] [--shards "2 8 32"] [--parts "ops fanout"]
#
# 1. GetItem, Query (one partition, 10 items) and PutItem through pgbench
#    on the single node and through the coordinator (the table distributed
#    with 32 shards); GetItem and Query through the coordinator as routed
#    statements (stdesign.citus_delegate_reads = off), as delegated reads
#    (the default) and through the table's per-table functions; and the
#    same read run straight on a worker against the statement Citus sends
#    it (the per-shard cost of a routed read).
# 2. The fan-out GSI query (one GSI partition, 10 items spread over every
#    shard) and a table Query, as the number of shards grows.
#
# The nodes are initdb'd in a temporary directory on ports BENCH_PORT ..
# BENCH_PORT+3 (default 7720) from the PostgreSQL on PATH (or PG_CONFIG's),
# and stopped at the end.
set -euo pipefail
items=20000
seconds=10
clients=4
shards_list="2 8 32 64"
halves="ops fanout"
while [ $# -gt 0 ]; do
	case "$1" in
		--parts) halves=$2; shift 2 ;;
		--items) items=$2; shift 2 ;;
		--seconds) seconds=$2; shift 2 ;;
		--clients) clients=$2; shift 2 ;;
		--shards) shards_list=$2; shift 2 ;;
		*) echo "usage: $0 [--items N] [--seconds S] [--clients C] [--shards '2 8 32']"; exit 2 ;;
	esac
done
PG_CONFIG=${PG_CONFIG:-pg_config}
bindir=$("$PG_CONFIG" --bindir)
if [ ! -f "$("$PG_CONFIG" --pkglibdir)/citus.so" ]; then
	echo "bench-citus: Citus is not installed (make test-citus builds it)"; exit 1
fi
port0=${BENCH_PORT:-7720}
work=$(mktemp -d -t stdesign_bench_citus.XXXXXX)
chmod 755 "$work"
as_pg=()
[ "$(id -u)" -eq 0 ] && { chown postgres: "$work"; as_pg=(runuser -u postgres --); }
names=(single coord worker1 worker2)

cleanup()
{
	for i in 0 1 2 3; do
		[ -f "$work/${names[$i]}/postmaster.pid" ] &&
			"${as_pg[@]}" "$bindir/pg_ctl" -D "$work/${names[$i]}" -m immediate -w stop >/dev/null 2>&1 || true
	done
	rm -rf "$work"
}
trap cleanup EXIT

for i in 0 1 2 3; do
	d="$work/${names[$i]}"
	"${as_pg[@]}" "$bindir/initdb" -D "$d" -A trust -U postgres >/dev/null
	{
		echo "port = $((port0 + i))"
		echo "listen_addresses = '127.0.0.1'"
		echo "unix_socket_directories = '$work'"
		echo "max_connections = 100"
		echo "max_prepared_transactions = 100"
		echo "shared_buffers = 256MB"
		[ "$i" -gt 0 ] && echo "shared_preload_libraries = 'citus'"
	} >> "$d/postgresql.conf"
	"${as_pg[@]}" "$bindir/pg_ctl" -D "$d" -l "$work/${names[$i]}.log" -w start >/dev/null
done
sql() { "$bindir/psql" -X -q -At -h "$work" -U postgres -p "$1" -d postgres -v ON_ERROR_STOP=1 -c "$2"; }
single=$port0 coord=$((port0 + 1)) w1=$((port0 + 2)) w2=$((port0 + 3))
for p in $coord $w1 $w2; do sql $p "CREATE EXTENSION citus"; done
sql $coord "SELECT citus_set_coordinator_host('127.0.0.1', $coord)" >/dev/null
sql $coord "SELECT citus_add_node('127.0.0.1', $w1)" >/dev/null
sql $coord "SELECT citus_add_node('127.0.0.1', $w2)" >/dev/null
for p in $single $coord; do sql $p "CREATE EXTENSION stdesign"; done

# customers with 9 orders each (GSI1: STATUS#<n> of 100 statuses)
parts=$((items / 10))
load()
{
	local port=$1 table=$2 shards=$3
	sql $port "SET stdesign.citus_shard_count = $shards;
		SELECT st_create_table('{\"TableName\": \"$table\",
		  \"KeySchema\": [{\"AttributeName\": \"PK\", \"KeyType\": \"HASH\"}, {\"AttributeName\": \"SK\", \"KeyType\": \"RANGE\"}],
		  \"AttributeDefinitions\": [{\"AttributeName\": \"PK\", \"AttributeType\": \"S\"}, {\"AttributeName\": \"SK\", \"AttributeType\": \"S\"},
		    {\"AttributeName\": \"GSI1PK\", \"AttributeType\": \"S\"}, {\"AttributeName\": \"GSI1SK\", \"AttributeType\": \"S\"}],
		  \"GlobalSecondaryIndexes\": [{\"IndexName\": \"GSI1\", \"KeySchema\": [{\"AttributeName\": \"GSI1PK\", \"KeyType\": \"HASH\"},
		    {\"AttributeName\": \"GSI1SK\", \"KeyType\": \"RANGE\"}], \"Projection\": {\"ProjectionType\": \"ALL\"}}], \"BillingMode\": \"PAY_PER_REQUEST\"}'::jsonb) IS NOT NULL;
		SELECT st_put_all(jsonb_build_object('PK', 'CUSTOMER#' || c, 'SK', CASE WHEN o = 0 THEN 'PROFILE' ELSE 'ORDER#' || o END,
		                                     'name', 'customer ' || c, 'total', c + o,
		                                     'GSI1PK', 'STATUS#' || ((c * 10 + o) % $((items / 10))), 'GSI1SK', 'ORDER#' || c || '#' || o), '$table')
		  FROM generate_series(1, $parts) AS c, generate_series(0, 9) AS o;" >/dev/null
}

cat > "$work/get.sql" <<SQL
\set c random(1, $parts)
SELECT st_get('CUSTOMER#' || :c, 'PROFILE', :t);
SQL
cat > "$work/query.sql" <<SQL
\set c random(1, $parts)
SELECT count(*) FROM st_query('CUSTOMER#' || :c, NULL, :t);
SQL
cat > "$work/put.sql" <<SQL
\set c random(1, $parts)
\set o random(1, 9)
\set g (:c * 10 + :o) % $((items / 10))
SELECT st_put(jsonb_build_object('PK', 'CUSTOMER#' || :c, 'SK', 'ORDER#' || :o, 'total', :o::int,
  'GSI1PK', 'STATUS#' || :g, 'GSI1SK', 'ORDER#' || :c || '#' || :o), :t) IS NOT NULL;
SQL
cat > "$work/gsi.sql" <<SQL
\set st random(0, $((items / 10 - 1)))
SELECT count(*) FROM st_query('STATUS#' || :st, NULL, :t, index => 'GSI1');
SQL
chmod 644 "$work"/*.sql

# run <port> <script> <table> [clients]: "tps avg_ms"
run()
{
	local out
	out=$("$bindir/pgbench" -n -M "${MODE:-prepared}" -h "$work" -U postgres -p "$1" -c "${4:-$clients}" -j 2 -T "$seconds" \
		-D t="$3" -f "$work/$2.sql" postgres 2>&1)
	grep -q '^tps = ' <<<"$out" || grep -i 'error' <<<"$out" | head -n 3 >&2
	echo "$(sed -n 's/^tps = \([0-9.]*\) .*/\1/p' <<<"$out" | xargs printf '%.0f') $(sed -n 's/^latency average = \([0-9.]*\) ms/\1/p' <<<"$out")"
}

echo "# stdesign on Citus: $items items ($parts partitions of 10), $clients clients, ${seconds}s per run"
echo "# $(nproc) cores on this machine; every node on it"
load $single Bench 0
if [[ " $halves " == *" ops "* ]]; then
load $coord Bench 32
echo
echo "| operation | one node tps | one node ms | coordinator + 2 workers tps | ms | ratio |"
echo "| --- | ---: | ---: | ---: | ---: | ---: |"
for op in get query put; do
	read -r s_tps s_ms <<<"$(run $single $op Bench)"
	read -r c_tps c_ms <<<"$(run $coord $op Bench)"
	echo "| $op | $s_tps | $s_ms | $c_tps | $c_ms | $(awk -v a="$c_tps" -v b="$s_tps" 'BEGIN { printf "%.2f", a / b }') |"
done

# st_get and st_query through the coordinator: routed statements
# (stdesign.citus_delegate_reads off, as before delegated reads) against
# delegated reads (the default), and the table's per-table functions
# (simple protocol: the key a constant in the statement, which Citus needs
# to delegate a call made by the client)
cat > "$work/get_delegated.sql" <<SQL
\set c random(1, $parts)
SELECT stdesign_data."Bench_get"('CUSTOMER#:c', 'PROFILE');
SQL
cat > "$work/query_delegated.sql" <<SQL
\set c random(1, $parts)
SELECT jsonb_array_length(stdesign_data."Bench_query"('CUSTOMER#:c'));
SQL
chmod 644 "$work"/*.sql
echo
echo "| through the coordinator | routed statement tps | ms | delegated read tps | ms | per-table function tps | ms |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
for op in get query; do
	read -r r_tps r_ms <<<"$(PGOPTIONS='-c stdesign.citus_delegate_reads=off' run $coord $op Bench)"
	read -r d_tps d_ms <<<"$(run $coord $op Bench)"
	read -r f_tps f_ms <<<"$(MODE=simple run $coord ${op}_delegated Bench)"
	echo "| $op | $r_tps | $r_ms | $d_tps | $d_ms | $f_tps | $f_ms |"
done

# the statement a routed GetItem becomes, run on a worker against its shard
shard=$(sql $coord "SELECT shardid FROM pg_dist_shard WHERE logicalrelid = 'stdesign_data.\"Bench\"'::regclass
	AND get_shard_id_for_distribution_column('stdesign_data.\"Bench\"', 'CUSTOMER#1') = shardid")
wport=$(sql $coord "SELECT nodeport FROM pg_dist_placement JOIN pg_dist_node USING (groupid) WHERE shardid = $shard")
cat > "$work/shard_get.sql" <<SQL
SELECT item FROM stdesign_data."Bench_$shard" WHERE pk = 'CUSTOMER#1' AND stdesign.key_ix(pk) = stdesign.key_ix('CUSTOMER#1') AND sk = 'PROFILE';
SQL
chmod 644 "$work/shard_get.sql"
read -r w_tps w_ms <<<"$(run $wport shard_get x)"
echo
echo "| per shard: a routed GetItem's statement on its worker | $w_tps tps | $w_ms ms |"

fi

[[ " $halves " == *" fanout "* ]] || exit 0
echo
echo "| shards | GSI query (fan-out) tps | ms | the same, one connection per worker: tps | ms | table Query tps | ms |"
echo "| ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
read -r g_tps g_ms <<<"$(run $single gsi Bench 1)"
read -r q_tps q_ms <<<"$(run $single query Bench 1)"
echo "| one node | $g_tps | $g_ms | | | $q_tps | $q_ms |"
for n in $shards_list; do
	sql $coord "SELECT st_drop_table('Fan')" >/dev/null 2>&1 || true
	load $coord Fan "$n"
	read -r g_tps g_ms <<<"$(run $coord gsi Fan 1)"
	# Citus's executor opens up to 16 connections per worker for a
	# multi-shard query, new ones beyond citus.max_cached_conns_per_worker
	read -r g1_tps g1_ms <<<"$(PGOPTIONS='-c citus.max_adaptive_executor_pool_size=1' run $coord gsi Fan 1)"
	read -r q_tps q_ms <<<"$(run $coord query Fan 1)"
	echo "| $n | $g_tps | $g_ms | $g1_tps | $g1_ms | $q_tps | $q_ms |"
done
