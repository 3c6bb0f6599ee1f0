#!/usr/bin/env bash
# The HTTP endpoint under load (make bench-http): wrk sending prepared
# requests over keep-alive, 2 connections, against the endpoint (trust and
# sigv4), against pgbench calling st_api with the same requests (the
# in-database ceiling), and against dynalite (bench/emulator's copy).
#
#   bench/http/run.sh [--no-install] [--seconds S] [--ops Op,...] [--systems trust,sigv4,pgbench,dynalite] [--rounds N] [--timing] [--existing HTTP_PORT]
#
# --rounds N: trust and sigv4 run N times each, alternating, summed.
# --timing: stdesign.http_track_timing on; adds the workers' own CPU time per
# request and SigV4's share of it (stdesign.http_status()), which other work
# on the machine does not move (the clock readings cost both modes alike).
# --existing: no throwaway cluster; use the server psql reaches (PG*
# variables), whose workers listen on 127.0.0.1:HTTP_PORT (its Bench table
# is recreated; stdesign.http_auth is reset at the end).
# A benchmark, not a test: prints a table (see bench/RESULTS.md).
set -euo pipefail
here=$(dirname "$(realpath "$0")")
root=$(realpath "$here/../..")
install=1
seconds=10
existing=""
export BENCH_OPS=GetItem,Query,PutItem,UpdateItem BENCH_SYSTEMS=trust,sigv4,pgbench,dynalite BENCH_ROUNDS=1 BENCH_TIMING=0
while [ $# -gt 0 ]; do
	case "$1" in
		--no-install) install=0; shift ;;
		--seconds) seconds=$2; shift 2 ;;
		--ops) BENCH_OPS=$2; shift 2 ;;
		--systems) BENCH_SYSTEMS=$2; shift 2 ;;
		--rounds) BENCH_ROUNDS=$2; shift 2 ;;
		--timing) BENCH_TIMING=1; shift ;;
		--existing) existing=$2; install=0; shift 2 ;;
		*) sed -n '7p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
	esac
done
command -v wrk >/dev/null || { echo "run.sh: needs wrk (apt-get install wrk)" >&2; exit 1; }
if [[ ",$BENCH_SYSTEMS," == *,dynalite,* ]] && [ ! -d "$root/bench/emulator/node_modules/dynalite" ]; then
	(cd "$root/bench/emulator" && npm ci --no-audit --no-fund --loglevel=error)
fi
if [ "$install" = 1 ]; then
	make -C "$root" -s >/dev/null
	make -C "$root" -s install >/dev/null
fi
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cd "$here"
if [ -n "$existing" ]; then
	BENCH_EXISTING=1 exec /usr/bin/python3 bench.py "$existing" "$seconds" "$root/bench/emulator/dynalite_server.js"
fi
# One application role sends every request here: the per-role worker bound
# is lifted, as docs/http.md advises for an endpoint that serves one role.
exec bash "$root/test/scripts/tmp_cluster.sh" -o shared_preload_libraries=stdesign -o stdesign.http_port="$port" \
	-o stdesign.http_workers=2 -o shared_buffers=256MB -o synchronous_commit=on \
	-o stdesign.http_max_workers_per_role=0 \
	-o stdesign.http_track_timing=$([ "$BENCH_TIMING" = 1 ] && echo on || echo off) \
	/usr/bin/python3 bench.py "$port" "$seconds" "$root/bench/emulator/dynalite_server.js"
