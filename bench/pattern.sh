#!/usr/bin/env bash
# st_run_pattern against the equivalent st_get / st_query, in instructions
# per call (callgrind), which repeat to a few in a million whatever else
# the machine runs.
#
# A throwaway cluster holds the e-commerce shape of bench/run.sh (load.sql:
# customers with a profile and 19 orders each, orders in GSI1) and a model
# whose patterns are the three reads of the benchmark: the profile
# (GetItem), a customer's orders (Query, begins_with ORDER#), the orders of
# one status and group (Query of GSI1).  Each call is run N and N + 1000
# times in a single-user backend (postgres --single: every statement its own
# transaction, as pgbench's) under callgrind; the difference of the two
# totals over 1000 is one call, start-up and first-call costs cancelled.
# Each statement is SQL text (parsed and planned every time, the same for
# both), reading a different customer or group each time.
#
#   bench/pattern.sh [--customers C] [--calls N]
#
# Runs as the postgres user when started as root (initdb refuses root).
# Uses the PostgreSQL on PATH (pg_config), with stdesign installed there.
# A benchmark, not a test: nothing here fails on a slow number.
set -euo pipefail
self=$(realpath "$0")
bench=$(dirname "$self")

customers=500
calls=200
while [ $# -gt 0 ]; do
	case "$1" in
		--customers) customers=$2; shift 2 ;;
		--calls) calls=$2; shift 2 ;;
		*) echo "usage: $0 [--customers C] [--calls N]"; exit 2 ;;
	esac
done

if [ "$(id -u)" -eq 0 ]; then
	tmp=$(mktemp -d -t stdesign_pattern.XXXXXX)
	cp "$self" "$bench/load.sql" "$tmp/"
	mkdir "$tmp/sql" && cp "$bench"/sql/*.sql "$tmp/sql/"
	chown -R postgres: "$tmp"
	runuser -u postgres -- env PATH="$PATH" bash "$tmp/pattern.sh" --customers "$customers" --calls "$calls"
	rc=$?
	rm -rf "$tmp"
	exit $rc
fi

bindir=$(pg_config --bindir)
work=$(mktemp -d -t stdesign_pattern_data.XXXXXX)
trap 'pg_ctl -D "$work/data" -m fast stop >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
initdb -D "$work/data" -A trust >/dev/null
port=$((20000 + RANDOM % 10000))
pg_ctl -D "$work/data" -o "-p $port -k $work -c listen_addresses=''" -l "$work/log" -w start >/dev/null
export PGHOST=$work PGPORT=$port PGDATABASE=postgres
psql -X -q -v customers="$customers" -v orders_per=19 -f "$bench/load.sql" >/dev/null
psql -X -q -v ON_ERROR_STOP=1 <<'SQL'
SELECT st_set_model('Bench', '{
  "entities": {
    "Customer": {"keys": {"PK": "CUST#{c}", "SK": "PROFILE"}},
    "Order": {"keys": {"PK": "CUST#{c}", "SK": "ORDER#{d}", "GSI1PK": "STATUS#{status}#{g}", "GSI1SK": "ORDER#{c6}#{o}"}}},
  "patterns": {
    "profile": {"op": "GetItem", "pk": "CUST#{c}", "sk": "PROFILE"},
    "orders": {"op": "Query", "pk": "CUST#{c}", "sk": {"begins_with": "ORDER#"}},
    "by_status": {"op": "Query", "index": "GSI1", "pk": "STATUS#{status}#{g}"}}}') IS NOT NULL AS stored \gset
VACUUM ANALYZE;
SQL
pg_ctl -D "$work/data" -m fast -w stop >/dev/null

# statements: kind, n -> file of n calls, customer/group varying
statements() {
	local kind=$1 n=$2
	for i in $(seq 1 "$n"); do
		local c=$((1 + (i * 7919) % customers)) g=$((i % 500))
		case $kind in
			get_query) echo "SELECT count(*) FROM st_get('CUST#$c', 'PROFILE', 'Bench') AS i;" ;;
			get_pattern) echo "SELECT count(*) FROM st_run_pattern('profile', '{\"c\": \"$c\"}', 'Bench') AS i;" ;;
			query_query) echo "SELECT count(*) FROM st_query('CUST#$c', 'ORDER#', 'Bench') AS i;" ;;
			query_pattern) echo "SELECT count(*) FROM st_run_pattern('orders', '{\"c\": \"$c\"}', 'Bench') AS i;" ;;
			gsi_query) echo "SELECT count(*) FROM st_query('STATUS#pending#$g', \"table\" => 'Bench', index => 'GSI1') AS i;" ;;
			gsi_pattern) echo "SELECT count(*) FROM st_run_pattern('by_status', '{\"status\": \"pending\", \"g\": \"$g\"}', 'Bench') AS i;" ;;
		esac
	done
}

# Instructions of a single-user backend running the statements: the
# total, and those inside the SQL function called (callgrind_annotate
# --inclusive: its C function, callees included), "total function".
instructions() {
	local kind=$1 n=$2 fn=$3 out="$work/cg.$1.$2"
	statements "$kind" "$n" > "$work/stmts"
	valgrind --tool=callgrind --callgrind-out-file="$out" \
		"$bindir/postgres" --single -D "$work/data" -c fsync=off postgres < "$work/stmts" >/dev/null 2>&1
	echo "$(awk '/^(summary|totals):/ { print $2; exit }' "$out") $(callgrind_annotate --inclusive=yes --threshold=100 "$out" 2>/dev/null |
		awk -v fn="$fn" '{ for (i = 2; i <= NF; i++) if ($i ~ (":" fn "$")) { gsub(",", "", $1); print $1; exit } }')"
}

per_call() { echo $(( ($2 - $1) / 1000 )); }
ratio() { awk -v p="$1" -v q="$2" 'BEGIN { printf "%.3f", p / q }'; }

echo "instructions per call (the statement / inside the function called)"
printf '| call | equivalent: statement | st_run_pattern: statement | ratio | equivalent: function | st_run_pattern: function | ratio |\n'
printf '| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n'
for op in get query gsi; do
	fn=st_query
	[ "$op" = get ] && fn=st_get
	read -r q1 qf1 <<<"$(instructions ${op}_query "$calls" $fn)"
	read -r q2 qf2 <<<"$(instructions ${op}_query $((calls + 1000)) $fn)"
	read -r p1 pf1 <<<"$(instructions ${op}_pattern "$calls" st_run_pattern)"
	read -r p2 pf2 <<<"$(instructions ${op}_pattern $((calls + 1000)) st_run_pattern)"
	q=$(per_call "$q1" "$q2"); p=$(per_call "$p1" "$p2")
	qf=$(per_call "${qf1:-0}" "${qf2:-0}"); pf=$(per_call "${pf1:-0}" "${pf2:-0}")
	printf '| %s | %d | %d | %s | %d | %d | %s |\n' "$op" "$q" "$p" "$(ratio "$p" "$q")" \
		"$qf" "$pf" "$( [ "$qf" -gt 0 ] && ratio "$pf" "$qf" || echo -)"
done
