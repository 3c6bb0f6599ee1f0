#!/usr/bin/env bash
# Instructions per request of the HTTP endpoint (callgrind): the workers'
# own instruction count, which other work on the machine does not move, for
# comparing two builds where throughput is too noisy to (a change that
# costs a few percent on a shared two-core machine).
#
#   bench/http/instructions.sh [--ops Op,...] [--requests N] [--warmup N] [--auth trust|sigv4] [--sql] [--keep DIR]
#
# Operations: GetItem, Query, PutItem, UpdateItem, BatchGetItem (100 keys),
# TransactWriteItems (4 puts); --ops all for the six.  --auth sigv4 signs
# every request with an access key of the role.  --sql also counts the same
# bodies through SQL, a prepared SELECT st_api($1, $2::jsonb) in one session
# of the same role (its backend's instructions), and the ratio SQL/HTTP
# (1.0: the endpoint costs what the SQL call does).  --keep DIR keeps the
# callgrind files of the longer runs (http_<op>.<pid>, sql_<op>.<pid>) for
# callgrind_annotate.
#
# For the installed build: a throwaway cluster whose server runs under
# valgrind --tool=callgrind, two HTTP workers under trust, a table of 100
# items and a partition of 20; for each operation, the server is started
# twice, answers 300 requests (warming up) and then 300 + N, and the
# difference of the workers' instruction counts over N is the cost of one
# request (start-up, catalog loading and the idle loop cancel out).  Run it
# with each build installed (make install) and compare; see
# bench/RESULTS.md.  A benchmark, never part of make test.
set -euo pipefail
shopt -s inherit_errexit
here=$(dirname "$(realpath "$0")")
ops=GetItem,Query,PutItem
n=2000
warmup=300
auth=trust
sql=0
keep=""
while [ $# -gt 0 ]; do
	case "$1" in
		--ops) ops=$2; shift 2 ;;
		--requests) n=$2; shift 2 ;;
		--warmup) warmup=$2; shift 2 ;;
		--auth) auth=$2; shift 2 ;;
		--sql) sql=1; shift ;;
		--keep) keep=$(realpath "$2"); shift 2 ;;
		*) sed -n '7p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
	esac
done
[ "$ops" = all ] && ops=GetItem,Query,PutItem,UpdateItem,BatchGetItem,TransactWriteItems
case "$auth" in trust | sigv4) ;; *) echo "instructions.sh: --auth trust or sigv4" >&2; exit 2 ;; esac
command -v valgrind >/dev/null || { echo "instructions.sh: needs valgrind" >&2; exit 1; }

if [ -z "${INSTRUCTIONS_INSIDE:-}" ]; then
	port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	INSTRUCTIONS_INSIDE=1 HTTP_PORT=$port exec bash "$here/../../test/scripts/tmp_cluster.sh" \
		-o shared_preload_libraries=stdesign -o stdesign.http_port="$port" -o stdesign.http_workers=2 \
		-o stdesign.http_auth=trust -o stdesign.http_trust_role=stdesign_bench \
		bash "$0" --ops "$ops" --requests "$n" --warmup "$warmup" --auth "$auth" \
		$([ "$sql" = 1 ] && echo --sql) ${keep:+--keep "$keep"}
fi

ctl="bash $here/../../test/scripts/tmp_cluster.sh ctl"
as_owner() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
psql -X -q -v ON_ERROR_STOP=1 >/dev/null <<'SQL'
CREATE EXTENSION stdesign;
CREATE ROLE stdesign_bench LOGIN;
SELECT st_create_table('Bench');
GRANT USAGE ON SCHEMA stdesign, stdesign_data TO stdesign_bench;
GRANT SELECT ON stdesign.tables, stdesign.indexes TO stdesign_bench;
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA stdesign_data TO stdesign_bench;
SELECT st_put(jsonb_build_object('PK', 'K#' || i, 'SK', 'S', 'v', i, 'pad', repeat('x', 100)), 'Bench')
  FROM generate_series(0, 99) AS i;
SELECT st_put(jsonb_build_object('PK', 'Q', 'SK', lpad(i::text, 3, '0'), 'v', i, 'pad', repeat('x', 100)), 'Bench')
  FROM generate_series(1, 20) AS i;
SQL
credentials=""
if [ "$auth" = sigv4 ]; then
	credentials=$(psql -X -At -c "SELECT access_key_id || ' ' || secret_access_key FROM st_create_access_key('stdesign_bench')")
	psql -X -q -c "ALTER SYSTEM SET stdesign.http_auth = 'sigv4'"
fi
$ctl stop -m fast
out=$(mktemp -d)
chmod 777 "$out"
trap 'rm -rf "$out"' EXIT

# run <op> <requests> [sql]: the workers' (or the SQL session's backend's)
# instructions over a server's life
run() {
	local pids total=0 f
	rm -f "$out"/cg.* "$out/server.log"
	as_owner valgrind --tool=callgrind --callgrind-out-file="$out/cg.%p" \
		"$(dirname "$(command -v pg_ctl)")/postgres" -D "$PGDATA" >"$out/server.log" 2>&1 &
	for _ in $(seq 1 120); do
		curl -s -o /dev/null -X POST "http://127.0.0.1:$HTTP_PORT/" && break
		sleep 1
	done
	if [ "${3:-}" = sql ]; then
		pids=$(PGUSER=stdesign_bench python3 "$here/instructions_client.py" "$HTTP_PORT" "$1" $(($2 + warmup)) sql)
		$ctl stop -m fast
	else
		# shellcheck disable=SC2086
		python3 "$here/instructions_client.py" "$HTTP_PORT" "$1" "$warmup" $auth $credentials >/dev/null
		# shellcheck disable=SC2086
		python3 "$here/instructions_client.py" "$HTTP_PORT" "$1" "$2" $auth $credentials
		$ctl stop -m fast
		pids=$(sed -n 's/.*\[\([0-9]*\)\] LOG:  stdesign: HTTP worker .* listening.*/\1/p' "$out/server.log")
	fi
	# totals: the costs in the file; its summary line is, in a process
	# forked from the postmaster, the postmaster's at the fork
	for p in $pids; do
		f="$out/cg.$p"
		total=$((total + $(sed -n 's/^totals: \([0-9]*\).*/\1/p' "$f")))
		if [ -n "$keep" ] && [ "$2" -gt 0 ]; then
			cp "$f" "$keep/${3:-http}_$1.$p"
		fi
	done
	echo "$total"
}

[ -n "$keep" ] && mkdir -p "$keep" && chmod 777 "$keep"
if [ "$sql" = 1 ]; then
	echo "| operation | HTTP ($auth, $n requests) | SQL st_api | SQL / HTTP |"
	echo "| --- | ---: | ---: | ---: |"
else
	echo "| operation | instructions per request ($auth, $n requests) |"
	echo "| --- | ---: |"
fi
for op in ${ops//,/ }; do
	base=$(run "$op" 0 | tail -n 1)
	more=$(run "$op" "$n" | tail -n 1)
	h=$(((more - base) / n))
	if [ "$sql" = 1 ]; then
		base=$(run "$op" 0 sql | tail -n 1)
		more=$(run "$op" "$n" sql | tail -n 1)
		s=$(((more - base) / n))
		echo "| $op | $h | $s | $(python3 -c "print('%.2f' % ($s / $h))") |"
	else
		echo "| $op | $h |"
	fi
done
$ctl start
