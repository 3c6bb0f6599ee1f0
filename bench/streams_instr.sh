#!/usr/bin/env bash
# DynamoDB Streams' cost to writers in instructions per call (callgrind),
# which repeat to a few in a million whatever else the machine runs: the
# same writes to a table without a stream and to one with a
# NEW_AND_OLD_IMAGES stream.  Each write is run N and N + D times in a
# single-user backend (postgres --single: every statement its own
# transaction, commit and stream records included) under callgrind; the
# difference of the two totals over D is one call, start-up cancelled.
# WAL is not flushed (fsync=off): this is the CPU side only; bench/streams.sh
# gives tps and WAL bytes.
#   put      st_put over an existing item
#   update   st_update (SET n = n + :one)
#   import   st_import of 100 new items (one transaction)
#   transact st_transact: an Update of an item and a Put of a new one
#   batch    BatchWriteItem of 25 new items
#
#   bench/streams_instr.sh [--calls N] [--ops "put update import transact batch"]
#
# Runs as the postgres user when started as root (initdb refuses root).
# Uses the PostgreSQL on PATH (pg_config), with stdesign installed there.
# A benchmark, not a test.
set -euo pipefail
self=$(realpath "$0")
calls=100
ops="put update import transact batch"
while [ $# -gt 0 ]; do
	case "$1" in
		--calls) calls=$2; shift 2 ;;
		--ops) ops=$2; shift 2 ;;
		*) echo "usage: $0 [--calls N] [--ops \"put update import transact batch\"]"; exit 2 ;;
	esac
done
if [ "$(id -u)" -eq 0 ]; then
	tmp=$(mktemp -d -t stdesign_streams_instr.XXXXXX)
	cp "$self" "$tmp/"
	chown -R postgres: "$tmp"
	rc=0
	runuser -u postgres -- env PATH="$PATH" bash "$tmp/streams_instr.sh" --calls "$calls" --ops "$ops" || rc=$?
	rm -rf "$tmp"
	exit $rc
fi

bindir=$(pg_config --bindir)
work=$(mktemp -d -t stdesign_streams_instr_data.XXXXXX)
trap 'pg_ctl -D "$work/data" -m fast stop >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
initdb -D "$work/data" -A trust >/dev/null
port=$((20000 + RANDOM % 10000))
pg_ctl -D "$work/data" -o "-p $port -k $work -c listen_addresses=''" -l "$work/log" -w start >/dev/null
export PGHOST=$work PGPORT=$port PGDATABASE=postgres
psql -X -q -v ON_ERROR_STOP=1 -o /dev/null <<'SQL'
CREATE EXTENSION stdesign;
SELECT st_create_table('Plain') IS NOT NULL;
SELECT st_create_table('Streamed') IS NOT NULL;
SELECT st_stream_enable('Streamed', 'NEW_AND_OLD_IMAGES') IS NOT NULL;
SELECT count(st_put(jsonb_build_object('PK', 'p' || (i % 100), 'SK', 's' || i, 'n', i, 'name', 'item ' || i), t))
  FROM generate_series(1, 5000) i, (VALUES ('Plain'), ('Streamed')) v(t);
VACUUM ANALYZE;
SQL
pg_ctl -D "$work/data" -m fast -w stop >/dev/null

statements() {
	local kind=$1 t=$2 n=$3 from=$4
	for i in $(seq "$from" $((from + n - 1))); do
		case $kind in
			put) echo "SELECT st_put('{\"PK\": \"p$((i % 100))\", \"SK\": \"s$i\", \"n\": $((i * 3)), \"name\": \"item $i\"}', '$t');" ;;
			update) echo "SELECT st_update('p$((i % 100))', 's$i', 'SET n = n + :one', '$t', \"values\" => '{\":one\": 1}');" ;;
			import) echo "SELECT st_import('$t', (SELECT string_agg(format('{\"Item\": {\"PK\": {\"S\": \"i$i\"}, \"SK\": {\"S\": \"%s\"}, \"n\": {\"N\": \"%s\"}, \"name\": {\"S\": \"item %s\"}}}', k, k, k), E'\\n') FROM generate_series(1, 100) k));" ;;
			transact) echo "SELECT st_transact('[{\"Update\": {\"TableName\": \"$t\", \"Key\": {\"PK\": \"p$((i % 100))\", \"SK\": \"s$i\"}, \"UpdateExpression\": \"SET n = n + :one\", \"ExpressionAttributeValues\": {\":one\": 1}}}, {\"Put\": {\"TableName\": \"$t\", \"Item\": {\"PK\": \"p$((i % 100))\", \"SK\": \"t$i\", \"n\": $i, \"name\": \"item $i\"}}}]', plain => true);" ;;
			batch) echo "SELECT st_api('BatchWriteItem', jsonb_build_object('RequestItems', jsonb_build_object('$t', (SELECT jsonb_agg(jsonb_build_object('PutRequest', jsonb_build_object('Item', jsonb_build_object('PK', jsonb_build_object('S', 'b$i'), 'SK', jsonb_build_object('S', 's' || k), 'n', jsonb_build_object('N', k::text), 'name', jsonb_build_object('S', 'item ' || k))))) FROM generate_series(1, 25) k))));" ;;
		esac
	done
}
instructions() {
	local out="$work/cg.out"
	statements "$@" > "$work/stmts"
	valgrind --tool=callgrind --callgrind-out-file="$out" \
		"$bindir/postgres" --single -D "$work/data" -c fsync=off postgres < "$work/stmts" >/dev/null 2>&1
	awk '/^(summary|totals):/ { print $2; exit }' "$out"
}
echo "instructions per call (callgrind, $calls and $((2 * calls)) calls); $(date -u +%Y-%m-%d)"
printf '%-8s %12s %12s %7s\n' op none stream ratio
for op in $ops; do
	n=$calls; [ "$op" = import ] && n=$((calls / 10)); [ "$op" = batch ] && n=$((calls / 4))
	for t in Plain Streamed; do
		# different items each run: 1..n, then n+1..3n
		a=$(instructions "$op" "$t" "$n" 1)
		b=$(instructions "$op" "$t" $((2 * n)) $((n + 1)))
		eval "per_$t=$(( (b - a) / n ))"
	done
	printf '%-8s %12d %12d %7.3f\n' "$op" "$per_Plain" "$per_Streamed" \
		"$(awk -v p="$per_Plain" -v s="$per_Streamed" 'BEGIN { print p / s }')"
done
