#!/usr/bin/env bash
# The cost of the per-partition traffic counters in instructions, which
# repeat to a few in a million where wall-clock and CPU time move by 10-30%
# on a shared machine: callgrind on a single-user backend (postgres
# --single, every statement its own transaction, as pgbench's are) running
# N calls of the get or the put of bench/traffic.sh against the bench's
# e-commerce table at 10,000 items (500 customers), once with N = SHORT and
# once with N = LONG; the difference divided by LONG - SHORT is one call,
# start-up, catalog loading and first-call costs cancelled out.  Each run
# with stdesign.track_traffic off and on (the library preloaded both
# times, so the setting is the only difference).
#
#   bench/traffic_instr.sh [--short N] [--long N] [--ops "get put"] [--keep DIR]
#
# Needs valgrind and the PostgreSQL binaries on PATH (pg_config's bindir
# first); builds a throwaway cluster in a temporary directory, run as the
# postgres user when started as root.  Prints instructions per call, off
# and on, and their ratio; --keep leaves the callgrind files in DIR (for
# callgrind_annotate --inclusive=yes: subtract per function the same way).
# A benchmark, not a test.
set -euo pipefail
short=200
long=2200
ops="get put"
keep=
while [ $# -gt 0 ]; do
	case "$1" in
		--short) short=$2; shift 2 ;;
		--long) long=$2; shift 2 ;;
		--ops) ops=$2; shift 2 ;;
		--keep) keep=$(realpath "$2"); shift 2 ;;
		*) echo "usage: $0 [--short N] [--long N] [--ops \"get put\"] [--keep DIR]"; exit 2 ;;
	esac
done
bindir=$(pg_config --bindir)
self=$(realpath "$0")
if [ "$(id -u)" = 0 ]; then
	dir=$(mktemp -d /tmp/stdesign_traffic_instr.XXXXXX)
	chown postgres: "$dir"
	cp -r "$(dirname "$self")/load.sql" "$(dirname "$self")/sql" "$dir/"
	chown -R postgres: "$dir"
	if [ -n "$keep" ]; then mkdir -p "$keep"; chown postgres: "$keep"; fi
	exec runuser -u postgres -- env PATH="$bindir:$PATH" TRAFFIC_INSTR_DIR="$dir" \
		bash "$self" --short "$short" --long "$long" --ops "$ops" ${keep:+--keep "$keep"}
fi
dir=${TRAFFIC_INSTR_DIR:-$(mktemp -d /tmp/stdesign_traffic_instr.XXXXXX)}
[ -f "$dir/load.sql" ] || cp -r "$(dirname "$self")/load.sql" "$(dirname "$self")/sql" "$dir/"
trap 'rm -rf "$dir"' EXIT
data=$dir/data
port=$((20000 + RANDOM % 10000))
"$bindir/initdb" -D "$data" -A trust -U postgres >/dev/null
cat >> "$data/postgresql.conf" <<CONF
shared_preload_libraries = 'stdesign'
listen_addresses = ''
unix_socket_directories = '$dir'
port = $port
fsync = off
CONF
"$bindir/pg_ctl" -D "$data" -l "$dir/log" -w start >/dev/null
psql -X -q -h "$dir" -p "$port" -U postgres -d postgres -c "CREATE DATABASE bench" >/dev/null
psql -X -q -h "$dir" -p "$port" -U postgres -d bench -v customers=500 -v orders_per=19 -f "$dir/load.sql" >/dev/null
"$bindir/pg_ctl" -D "$data" -w stop >/dev/null

# statements op n setting: a deterministic sequence of calls
statements() {
	local op=$1 n=$2 i c o sk
	RANDOM=42
	echo "SET stdesign.track_traffic = $3;"
	for i in $(seq 1 "$n"); do
		if [ "$op" = get ]; then
			c=$((1 + RANDOM % 500)); o=$((RANDOM % 20))
			if [ $o = 0 ]; then sk=PROFILE; else sk=$(printf 'ORDER#2026-%04d' $o); fi
			echo "SELECT st_get('CUST#$c', '$sk', 'Bench', typed => true);"
		else
			echo "SELECT st_put('{\"PK\": {\"S\": \"NEW#$3$n#$i\"}, \"SK\": {\"S\": \"ITEM\"}, \"v\": {\"N\": \"$i\"}, \"entity_type\": {\"S\": \"New\"}}', 'Bench', typed => true);"
		fi
	done
}

# instructions op n setting -> the run's total instructions (Ir)
instructions() {
	local out=$dir/cg.$1.$2.$3
	statements "$1" "$2" "$3" | valgrind --tool=callgrind --callgrind-out-file="$out" \
		"$bindir/postgres" --single -D "$data" -c shared_preload_libraries=stdesign \
		-c stdesign.traffic_max_partitions="$max_partitions" bench >/dev/null 2>"$out.log"
	grep -E '^(summary|totals):' "$out" | tail -n 1 | awk '{print $2}'
}

# The puts write new keys, as the bench's do: with room for 1,000
# partitions the shared table is full after the first few hundred and
# evicts a fifth every 200 new partitions, the steady state of such a load
# (at the default 10,000 the same every 2,000, each eviction ten times the
# work), which the measured calls then include.
max_partitions=1000
echo "traffic instructions: $short and $long calls, single-user backend, 10,000 items; $(date -u +%Y-%m-%d)"
printf '%-4s %22s %22s %8s\n' op "instructions/call off" "instructions/call on" "on/off"
for op in $ops; do
	# each run's puts write keys of their own (setting and count in the
	# key): every put is of a new item, as in the bench
	off_s=$(instructions "$op" "$short" off); off_l=$(instructions "$op" "$long" off)
	on_s=$(instructions "$op" "$short" on); on_l=$(instructions "$op" "$long" on)
	off=$(( (off_l - off_s) / (long - short) )); on=$(( (on_l - on_s) / (long - short) ))
	printf '%-4s %22d %22d %8.4f\n' "$op" "$off" "$on" "$(echo "$on / $off" | bc -l)"
	if [ -n "$keep" ]; then cp "$dir"/cg."$op".* "$keep"/; fi
done
