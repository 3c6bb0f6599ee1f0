#!/usr/bin/env bash
# The cost of the per-partition traffic counters on the get and put
# benchmarks: the same pgbench scripts as bench/run.sh, with
# stdesign.track_traffic off and on, alternating.
#
#   bench/traffic.sh [--items N] [--seconds S] [--clients C] [--rounds R]
#
# The counters need stdesign in shared_preload_libraries: run without
# PGPORT set and the script starts a throwaway cluster so configured
# (pg_virtualenv); with PGPORT set it uses that server (which must preload
# stdesign) and a database of its own, bench_traffic, made afresh.
# A benchmark, not a test: nothing here fails on a slow number.
set -euo pipefail
self=$(realpath "$0")
cd "$(dirname "$self")"

items=100000
seconds=10
clients=2
rounds=3
ops="get put"
while [ $# -gt 0 ]; do
	case "$1" in
		--items) items=$2; shift 2 ;;
		--seconds) seconds=$2; shift 2 ;;
		--clients) clients=$2; shift 2 ;;
		--rounds) rounds=$2; shift 2 ;;
		--ops) ops=$2; shift 2 ;;
		*) echo "usage: $0 [--items N] [--seconds S] [--clients C] [--rounds R] [--ops 'get put']"; exit 2 ;;
	esac
done

if [ -z "${PGPORT:-}" ]; then
	exec env PGPORT= pg_virtualenv -t -o shared_buffers=1GB -o max_wal_size=4GB \
		-o synchronous_commit=on -o shared_preload_libraries=stdesign \
		bash "$self" --items "$items" --seconds "$seconds" --clients "$clients" --rounds "$rounds" --ops "$ops"
fi

pgbench=$(command -v pgbench || ls /usr/lib/postgresql/*/bin/pgbench | tail -n 1)
orders_per=19
customers=$((items / (orders_per + 1)))
export PGDATABASE=bench_traffic
psql -X -q -d postgres -c "DROP DATABASE IF EXISTS bench_traffic" -c "CREATE DATABASE bench_traffic"
psql -X -q -v customers="$customers" -v orders_per="$orders_per" -f load.sql >/dev/null
loaded=$(psql -X -At -c "SELECT count(*) FROM st_partition_traffic('Bench')" 2>&1)
echo "traffic bench: $items items, $clients clients, ${seconds}s x $rounds rounds per setting; $(nproc) cores; $(date -u +%Y-%m-%d)"
echo "partitions counted after the load: $loaded"

run_one() {
	PGOPTIONS="-c stdesign.track_traffic=$2" "$pgbench" -n -M prepared -c "$clients" -j "$clients" -T "$seconds" \
		-D customers="$customers" -D orders_per="$orders_per" -f "scripts/$1_st.sql" 2>&1 |
		sed -n 's/^tps = \([0-9.]*\) .*/\1/p' | head -n 1
}

printf '\n%-6s %12s %12s %7s\n' op "tps off" "tps on" "on/off"
for op in $ops; do
	off=0; on=0
	for r in $(seq 1 "$rounds"); do
		off=$(echo "$off + $(run_one "$op" off)" | bc -l)
		on=$(echo "$on + $(run_one "$op" on)" | bc -l)
	done
	printf '%-6s %12.0f %12.0f %7.3f\n' "$op" "$(echo "$off / $rounds" | bc -l)" \
		"$(echo "$on / $rounds" | bc -l)" "$(echo "$on / $off" | bc -l)"
done
psql -X -q -c "SELECT count(*) AS partitions_counted, sum(writes) AS writes, sum(reads) AS reads FROM st_partition_traffic('Bench')"
