#!/usr/bin/env bash
# The same get / query / put at 10^4, 10^5 and 10^6 items (make bench):
# latency at 10^6 should stay within 1.5x of 10^4.
#
#   bench/scaling.sh [--seconds S]
set -euo pipefail
self=$(realpath "$0")
cd "$(dirname "$self")"
seconds=10
[ "${1:-}" = "--seconds" ] && seconds=$2

for items in 10000 100000 1000000; do
	echo "== $items items"
	bash run.sh --items "$items" --seconds "$seconds" --rounds 1 --ops "get query put" | tail -n 4
done
