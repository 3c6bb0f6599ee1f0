#!/usr/bin/env bash
# What time to live costs a write, in instructions (callgrind), which
# repeat to a few in a million where throughput moves by 10-30% on a shared
# machine: a single-user backend (postgres --single, every statement its
# own transaction, as pgbench's are) runs N writes through st_api into a
# table with time to live on "exp" and into the same table without, once
# with N = SHORT and once with N = LONG; the difference divided by
# LONG - SHORT is one write, start-up and first-call costs cancelled out.
#
#   bench/ttl_instr.sh [--short N] [--long N] [--ops "new put put_same update noexp"] [--keep DIR]
#
# Tables of 10,000 items (two keys, "exp" a day ahead, "n", a 360-byte
# pad), VACUUMed; the writes, st_api's PutItem and UpdateItem:
#   new       PutItem of a new item carrying "exp";
#   put       PutItem over an existing item, "exp" moved (an item whose
#             time to live is renewed on every write);
#   put_same  PutItem over an existing item, "exp" as it was, "n" changed
#             (items of their own: put's are the other half);
#   update    UpdateItem SET n = n + 1 (the expiry untouched);
#   noexp     PutItem of a new item without "exp".
# Prints instructions per write, off and on, and on/off as a throughput
# ratio would read it (off/on instructions).  Needs valgrind and the
# PostgreSQL binaries on PATH (pg_config's bindir first); run as the
# postgres user when started as root.  A benchmark, not a test.
set -euo pipefail
short=200
long=1200
ops="new put put_same update noexp"
keep=
while [ $# -gt 0 ]; do
	case "$1" in
		--short) short=$2; shift 2 ;;
		--long) long=$2; shift 2 ;;
		--ops) ops=$2; shift 2 ;;
		--keep) keep=$(realpath "$2"); shift 2 ;;
		*) echo "usage: $0 [--short N] [--long N] [--ops \"new put put_same update noexp\"] [--keep DIR]"; exit 2 ;;
	esac
done
bindir=$(pg_config --bindir)
self=$(realpath "$0")
if [ "$(id -u)" = 0 ]; then
	dir=$(mktemp -d /tmp/stdesign_ttl_instr.XXXXXX)
	chown postgres: "$dir"
	if [ -n "$keep" ]; then mkdir -p "$keep"; chown postgres: "$keep"; fi
	exec runuser -u postgres -- env PATH="$bindir:$PATH" TTL_INSTR_DIR="$dir" \
		bash "$self" --short "$short" --long "$long" --ops "$ops" ${keep:+--keep "$keep"}
fi
dir=${TTL_INSTR_DIR:-$(mktemp -d /tmp/stdesign_ttl_instr.XXXXXX)}
trap 'rm -rf "$dir"' EXIT
data=$dir/data
port=$((20000 + RANDOM % 10000))
"$bindir/initdb" -D "$data" -A trust -U postgres >/dev/null
cat >> "$data/postgresql.conf" <<CONF
listen_addresses = ''
unix_socket_directories = '$dir'
port = $port
fsync = off
CONF
"$bindir/pg_ctl" -D "$data" -l "$dir/log" -w start >/dev/null
psql -X -q -v ON_ERROR_STOP=1 -h "$dir" -p "$port" -U postgres -d postgres <<'SQL' >/dev/null
CREATE DATABASE bench;
\c bench
CREATE EXTENSION stdesign;
SELECT st_create_table('TtlOn'), st_create_table('TtlOff');
SELECT st_put_all(jsonb_build_object('PK', 'K' || i, 'SK', 'x', 'exp', 1900000000, 'n', 0,
                                     'pad', repeat('x', 360)), t)
  FROM generate_series(1, 10000) i, (VALUES ('TtlOn'), ('TtlOff')) AS v(t);
SELECT st_update_ttl('TtlOn', 'exp');
VACUUM ANALYZE;
SQL
"$bindir/pg_ctl" -D "$data" -w stop >/dev/null

# statements op n table: a deterministic sequence of writes (the keys of
# put, put_same and update spread over the 10,000 items; new keys carry
# the run's count so that each run writes its own)
statements() {
	local op=$1 n=$2 t=$3 i k pad
	pad=$(printf 'x%.0s' $(seq 1 360))
	for i in $(seq 1 "$n"); do
		# put's keys in the first half, put_same's in the second, so that
		# put_same's items keep the expiry they were loaded with whatever
		# ran before (put moves the expiry of its items)
		k=$(( (i * 7919) % 5000 + 1 ))
		[ "$op" = put_same ] && k=$((k + 5000))
		case "$op" in
			new) echo "SELECT st_api('PutItem', '{\"TableName\": \"$t\", \"Item\": {\"PK\": {\"S\": \"N$n-$i\"}, \"SK\": {\"S\": \"x\"}, \"exp\": {\"N\": \"$((1900000000 + i))\"}, \"n\": {\"N\": \"0\"}, \"pad\": {\"S\": \"$pad\"}}}');" ;;
			noexp) echo "SELECT st_api('PutItem', '{\"TableName\": \"$t\", \"Item\": {\"PK\": {\"S\": \"M$n-$i\"}, \"SK\": {\"S\": \"x\"}, \"n\": {\"N\": \"0\"}, \"pad\": {\"S\": \"$pad\"}}}');" ;;
			put) echo "SELECT st_api('PutItem', '{\"TableName\": \"$t\", \"Item\": {\"PK\": {\"S\": \"K$k\"}, \"SK\": {\"S\": \"x\"}, \"exp\": {\"N\": \"$((1900000000 + n * 10000 + i))\"}, \"n\": {\"N\": \"0\"}, \"pad\": {\"S\": \"$pad\"}}}');" ;;
			put_same) echo "SELECT st_api('PutItem', '{\"TableName\": \"$t\", \"Item\": {\"PK\": {\"S\": \"K$k\"}, \"SK\": {\"S\": \"x\"}, \"exp\": {\"N\": \"1900000000\"}, \"n\": {\"N\": \"$i\"}, \"pad\": {\"S\": \"$pad\"}}}');" ;;
			update) echo "SELECT st_api('UpdateItem', '{\"TableName\": \"$t\", \"Key\": {\"PK\": {\"S\": \"K$k\"}, \"SK\": {\"S\": \"x\"}}, \"UpdateExpression\": \"SET n = n + :one\", \"ExpressionAttributeValues\": {\":one\": {\"N\": \"1\"}}}');" ;;
		esac
	done
}

# instructions op n table -> the run's total instructions (Ir)
instructions() {
	local out=$dir/cg.$1.$2.$3
	statements "$1" "$2" "$3" | valgrind --tool=callgrind --callgrind-out-file="$out" \
		"$bindir/postgres" --single -D "$data" bench >"$out.out" 2>"$out.log"
	if grep -q ERROR "$out.out" "$out.log"; then
		echo "errors in the $1 run on $3:" >&2
		grep -h ERROR "$out.out" "$out.log" | head -3 >&2
		exit 1
	fi
	grep -E '^(summary|totals):' "$out" | tail -n 1 | awk '{print $2}'
}

echo "time-to-live instructions: $short and $long writes, single-user backend, 10,000 items; $("$bindir/postgres" --version); $(date -u +%Y-%m-%d)"
printf '%-9s %16s %16s %8s\n' write "instr/write off" "instr/write on" "on/off"
for op in $ops; do
	off_s=$(instructions "$op" "$short" TtlOff); off_l=$(instructions "$op" "$long" TtlOff)
	on_s=$(instructions "$op" "$short" TtlOn); on_l=$(instructions "$op" "$long" TtlOn)
	off=$(( (off_l - off_s) / (long - short) )); on=$(( (on_l - on_s) / (long - short) ))
	printf '%-9s %16d %16d %8.3f\n' "$op" "$off" "$on" "$(echo "$off / $on" | bc -l)"
	if [ -n "$keep" ]; then cp "$dir"/cg."$op".* "$keep"/; fi
done
