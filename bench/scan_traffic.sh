#!/usr/bin/env bash
# What the traffic counters add to a Scan, in instructions per scanned item
# (callgrind), which repeat whatever else the machine runs.
#
# A throwaway cluster holds the e-commerce shape of bench/run.sh (load.sql;
# 500 customers: 10,000 items in 500 partitions).  A single-user backend
# with stdesign in shared_preload_libraries runs `SELECT count(*) FROM
# st_scan('Bench')` N and N + 20 times under callgrind, with
# stdesign.track_traffic off and on; the difference over 20 is one scan,
# start-up cancelled.  Also printed: what the counting's parts cost
# (callgrind_annotate --inclusive of the counting run).
#
#   bench/scan_traffic.sh [--customers C] [--scans N]
#
# Runs as the postgres user when started as root (initdb refuses root).
# Uses the PostgreSQL on PATH (pg_config), with stdesign installed there.
# A benchmark, not a test: nothing here fails on a slow number.
set -euo pipefail
self=$(realpath "$0")
bench=$(dirname "$self")

customers=500
scans=5
while [ $# -gt 0 ]; do
	case "$1" in
		--customers) customers=$2; shift 2 ;;
		--scans) scans=$2; shift 2 ;;
		*) echo "usage: $0 [--customers C] [--scans N]"; exit 2 ;;
	esac
done

if [ "$(id -u)" -eq 0 ]; then
	tmp=$(mktemp -d -t stdesign_scan.XXXXXX)
	cp "$self" "$bench/load.sql" "$tmp/"
	mkdir "$tmp/sql" && cp "$bench"/sql/*.sql "$tmp/sql/"
	chown -R postgres: "$tmp"
	rc=0
	runuser -u postgres -- env PATH="$PATH" bash "$tmp/scan_traffic.sh" --customers "$customers" --scans "$scans" || rc=$?
	rm -rf "$tmp"
	exit $rc
fi

bindir=$(pg_config --bindir)
work=$(mktemp -d -t stdesign_scan_data.XXXXXX)
trap 'pg_ctl -D "$work/data" -m fast stop >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
initdb -D "$work/data" -A trust >/dev/null
port=$((20000 + RANDOM % 10000))
pg_ctl -D "$work/data" -o "-p $port -k $work -c listen_addresses=''" -l "$work/log" -w start >/dev/null
export PGHOST=$work PGPORT=$port PGDATABASE=postgres
psql -X -q -v customers="$customers" -v orders_per=19 -f "$bench/load.sql" >/dev/null
psql -X -q -c "VACUUM ANALYZE"
items=$(psql -X -A -t -c "SELECT count(*) FROM stdesign_data.\"Bench\"")
pg_ctl -D "$work/data" -m fast -w stop >/dev/null

instructions() {
	local n=$1 track=$2 out="$work/cg.$1.$2"
	for _ in $(seq 1 "$n"); do echo "SELECT count(*) FROM st_scan('Bench');"; done > "$work/stmts"
	valgrind --tool=callgrind --callgrind-out-file="$out" \
		"$bindir/postgres" --single -D "$work/data" -c fsync=off \
		-c shared_preload_libraries=stdesign -c stdesign.track_traffic="$track" postgres \
		< "$work/stmts" >/dev/null 2>&1
	awk '/^(summary|totals):/ { print $2; exit }' "$out"
}

off=$(( ($(instructions $((scans + 20)) off) - $(instructions "$scans" off)) / 20 ))
on=$(( ($(instructions $((scans + 20)) on) - $(instructions "$scans" on)) / 20 ))
echo "items per scan: $items"
printf '| st_scan | instructions per scan | per item |\n| --- | ---: | ---: |\n'
printf '| counters off | %d | %d |\n' "$off" $((off / items))
printf '| counters on | %d | %d |\n' "$on" $((on / items))
printf '| on/off | %s | +%d |\n' "$(awk -v a="$on" -v b="$off" 'BEGIN { printf "%.3f", a / b }')" $(((on - off) / items))
echo "inside the counting run (all $((scans + 20)) scans), inclusive:"
callgrind_annotate --inclusive=yes "$work/cg.$((scans + 20)).on" 2>/dev/null |
	grep -E ':(av_stored_item_size|getKeyJsonValueFromContainer|ops_traffic_read_slow) ' | head -5
