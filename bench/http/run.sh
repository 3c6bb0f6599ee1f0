#!/usr/bin/env bash
# The HTTP endpoint under load (make bench-http) against its honest ceiling:
# wrk sending DynamoDB requests with random keys over keep-alive to the
# endpoint (trust and sigv4), and pgbench -M prepared calling st_api with the
# same bodies, built from the same random keys, over TCP with the same number
# of connections and threads (the ceiling: what the endpoint's requests cost
# when a client hands them to Postgres directly). 100,000 items of about 200
# bytes in 5,000 partitions of 20; bench.py says how each load is made.
#
#   bench/http/run.sh [--no-install] [--seconds S] [--rounds N] [--ops Op,...] [--systems trust,queue,sigv4,ceiling,dynalite] [--connections C,...] [--threads T] [--workers W,...] [--timing] [--prepared-trust] [--memory N] [--existing HTTP_PORT]
#
# --systems queue: trust with stdesign.http_fast_path off (every request
# through the queue), to compare the two paths in the same run.
# --rounds N: every system runs N slices of S seconds per operation, the
# systems alternating (their order rotates each round); the best slice of
# each is reported (default 3 rounds of 5 s).
# --connections 2,8,64: the same run at each connection count (default 2);
# wrk and pgbench both use min(T, C) threads (--threads, default 2).
# --workers 1,2,4: stdesign.http_workers; the server restarts for each
# (default 2).
# --timing: stdesign.http_track_timing on; adds the workers' own CPU time per
# request and SigV4's share of it (stdesign.http_status()), which other work
# on the machine does not move (the clock readings cost both modes alike).
# --prepared-trust: trust cycles requests drawn in advance, as sigv4 does,
# instead of drawing each request's keys in Lua.
# --memory N: no comparison; the six operations in turn (trust, 2
# connections, slices of S seconds) until the workers have served N
# requests, and their private memory (RssAnon) after a tenth of them and at
# the end: flat means within 10%.
# --existing: no throwaway cluster; use the server psql reaches (PG*
# variables), whose workers listen on 127.0.0.1:HTTP_PORT (its Bench table
# is recreated; stdesign.http_auth is reset at the end; pgbench connects to
# 127.0.0.1 on PGPORT; --workers is refused).
# A benchmark, not a test: prints tables (see bench/RESULTS.md).
set -euo pipefail
here=$(dirname "$(realpath "$0")")
root=$(realpath "$here/../..")
install=1
existing=""
export BENCH_SECONDS=5 BENCH_ROUNDS=3 BENCH_OPS=GetItem,Query,PutItem,UpdateItem,BatchGetItem,TransactWriteItems \
	BENCH_SYSTEMS=trust,sigv4,ceiling BENCH_CONNECTIONS=2 BENCH_THREADS=2 BENCH_WORKERS=2 BENCH_TIMING=0 BENCH_PREPARED_TRUST=0 BENCH_MEMORY=0
while [ $# -gt 0 ]; do
	case "$1" in
		--no-install) install=0; shift ;;
		--seconds) BENCH_SECONDS=$2; shift 2 ;;
		--rounds) BENCH_ROUNDS=$2; shift 2 ;;
		--ops) BENCH_OPS=$2; shift 2 ;;
		--systems) BENCH_SYSTEMS=$2; shift 2 ;;
		--connections) BENCH_CONNECTIONS=$2; shift 2 ;;
		--threads) BENCH_THREADS=$2; shift 2 ;;
		--workers) BENCH_WORKERS=$2; shift 2 ;;
		--timing) BENCH_TIMING=1; shift ;;
		--prepared-trust) BENCH_PREPARED_TRUST=1; shift ;;
		--memory) BENCH_MEMORY=$2; shift 2 ;;
		--existing) existing=$2; install=0; shift 2 ;;
		*) sed -n '10p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
	esac
done
command -v wrk >/dev/null || { echo "run.sh: needs wrk (apt-get install wrk)" >&2; exit 1; }
if [ -n "$existing" ] && [ "$BENCH_WORKERS" != 2 ]; then
	echo "run.sh: --workers restarts the server; not with --existing" >&2
	exit 2
fi
if [[ ",$BENCH_SYSTEMS," == *,dynalite,* ]] && [ ! -d "$root/bench/emulator/node_modules/dynalite" ]; then
	(cd "$root/bench/emulator" && npm ci --no-audit --no-fund --loglevel=error)
fi
if [ "$install" = 1 ]; then
	make -C "$root" -s >/dev/null
	make -C "$root" -s install >/dev/null
fi
export BENCH_DYNALITE=$root/bench/emulator/dynalite_server.js BENCH_CLUSTER=$root/test/scripts/tmp_cluster.sh
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cd "$here"
if [ -n "$existing" ]; then
	BENCH_EXISTING=1 exec /usr/bin/python3 bench.py "$existing"
fi
# One application role sends every request here: the per-role worker bound
# is lifted, as docs/http.md advises for an endpoint that serves one role.
# max_connections leaves room for 64 pgbench clients and the workers.
exec bash "$root/test/scripts/tmp_cluster.sh" -o shared_preload_libraries=stdesign -o stdesign.http_port="$port" \
	-o stdesign.http_workers="${BENCH_WORKERS%%,*}" -o shared_buffers=256MB -o synchronous_commit=on \
	-o max_connections=150 -o stdesign.http_max_workers_per_role=0 \
	-o stdesign.http_track_timing=$([ "$BENCH_TIMING" = 1 ] && echo on || echo off) \
	/usr/bin/python3 bench.py "$port"
