#!/usr/bin/env bash
# stdesign against hand-written SQL on the same data (make bench).
#
#   bench/run.sh [--items N] [--seconds S] [--clients C] [--rounds R] [--ops '...'] [--server]
#
# Loads the seeds' e-commerce shape (customers with 19 orders each, orders
# in GSI1; 10^5 items by default) into a stdesign table and into an
# equivalent hand-made table, then runs each operation through pgbench
# (-M prepared, fixed duration), alternating stdesign and SQL, and prints
# a table: operation, stdesign tps, SQL tps, ratio, p50/p99 latency (ms).
# A benchmark, not a test: nothing here fails on a slow number.
#
# By default it runs in a throwaway cluster of the installed PostgreSQL
# (test/scripts/tmp_cluster.sh, for the PostgreSQL of PG_CONFIG, stdesign installed there).  --server runs against the
# server the environment names instead (PGHOST, PGPORT, PGUSER; a database
# with nothing of the bench in it yet, stdesign installable), e.g. a
# cluster of another installation started with the settings the throwaway cluster
# gets (fsync=off, shared_buffers=1GB, max_wal_size=4GB,
# synchronous_commit=on).
set -euo pipefail
self=$(realpath "$0")
cd "$(dirname "$self")"

items=100000
seconds=10
clients=2
rounds=2
ops="get getplain query gsi put update transact delete"
server=0
while [ $# -gt 0 ]; do
	case "$1" in
		--ops) ops=$2; shift 2 ;;
		--items) items=$2; shift 2 ;;
		--seconds) seconds=$2; shift 2 ;;
		--clients) clients=$2; shift 2 ;;
		--rounds) rounds=$2; shift 2 ;;
		--server) server=1; shift ;;
		*) echo "usage: $0 [--items N] [--seconds S] [--clients C] [--rounds R] [--ops 'get query ...'] [--server]"; exit 2 ;;
	esac
done

if [ "$server" = 0 ] && { [ -z "${PGPORT:-}" ] || [ "${STDESIGN_BENCH_INNER:-}" != 1 ]; }; then
	# run ourselves again inside a throwaway cluster
	exec env STDESIGN_BENCH_INNER=1 bash "$(dirname "$self")/../test/scripts/tmp_cluster.sh" -o shared_buffers=1GB -o max_wal_size=4GB \
		-o synchronous_commit=on bash "$self" --items "$items" --seconds "$seconds" \
		--clients "$clients" --rounds "$rounds" --ops "$ops"
fi

pgbench=$(command -v pgbench)
orders_per=19
customers=$((items / (orders_per + 1)))
deletable=$((clients * seconds * 20000))
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "stdesign bench: $items items ($customers customers x $((orders_per + 1))), $clients clients, ${seconds}s x $rounds rounds per operation"
echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB; $(date -u +%Y-%m-%d)"
echo
echo "== load"
psql -X -q -v customers="$customers" -v orders_per="$orders_per" -f load.sql 2>&1 | sed 's/^/   /'
psql -X -q -c "SELECT count(st_put(jsonb_build_object('PK', 'DEL#' || i, 'SK', 'X'), 'Bench')) FROM generate_series(1, $deletable) i" >/dev/null
psql -X -q -c "INSERT INTO hand SELECT 'DEL#' || i, 'X', jsonb_build_object('PK', jsonb_build_object('S', 'DEL#' || i), 'SK', '{\"S\": \"X\"}'::jsonb) FROM generate_series(1, $deletable) i" >/dev/null
psql -X -q -c "CHECKPOINT" >/dev/null

# run_one script -> "tps p50 p99"
run_one() {
	local script=$1 prefix="$work/log.$1"
	rm -f "$prefix".*
	local out
	out=$("$pgbench" -n -M prepared -c "$clients" -j "$clients" -T "$seconds" \
		-D customers="$customers" -D orders_per="$orders_per" -D deletable="$deletable" \
		-l --log-prefix="$prefix" -f "scripts/$script.sql" 2>&1)
	local tps
	tps=$(echo "$out" | sed -n 's/^tps = \([0-9.]*\) .*/\1/p' | head -n 1)
	if [ -z "$tps" ]; then
		echo "$out" >&2
		echo "0 0 0"
		return
	fi
	cat "$prefix".* | awk '{print $3}' | sort -n > "$prefix.sorted"
	local n p50 p99
	n=$(wc -l < "$prefix.sorted")
	p50=$(awk -v n="$n" 'NR == int(n * 0.50) + 1 {printf "%.3f", $1 / 1000; exit}' "$prefix.sorted")
	p99=$(awk -v n="$n" 'NR == int(n * 0.99) + 1 {printf "%.3f", $1 / 1000; exit}' "$prefix.sorted")
	echo "$tps $p50 $p99"
}

printf '\n%-14s %12s %12s %7s %19s %19s\n' operation "stdesign tps" "SQL tps" ratio "stdesign p50/p99" "SQL p50/p99"
for op in $ops; do
	st_sum=0; sql_sum=0; st_lat=""; sql_lat=""
	for r in $(seq 1 "$rounds"); do
		read -r tps p50 p99 <<< "$(run_one "${op}_st")"
		st_sum=$(echo "$st_sum + $tps" | bc -l); st_lat="$p50/$p99"
		read -r tps p50 p99 <<< "$(run_one "${op}_sql")"
		sql_sum=$(echo "$sql_sum + $tps" | bc -l); sql_lat="$p50/$p99"
	done
	st=$(echo "$st_sum / $rounds" | bc -l)
	sql=$(echo "$sql_sum / $rounds" | bc -l)
	ratio=$(echo "$st / $sql" | bc -l)
	printf '%-14s %12.0f %12.0f %7.2f %19s %19s\n' "$op" "$st" "$sql" "$ratio" "$st_lat" "$sql_lat"
done
