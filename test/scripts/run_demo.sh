#!/usr/bin/env bash
# make demo: build, install, start a throwaway cluster, create the
# extension, load the seeds' e-commerce model and print the result of each
# of its six access patterns.
set -euo pipefail
cd "$(dirname "$0")/../.."

jobs=$(nproc 2>/dev/null || echo 2)
make -s -j"$jobs" >/dev/null
make -s install >/dev/null
bash test/scripts/tmp_cluster.sh psql -X -q -v ON_ERROR_STOP=1 -f test/scripts/demo.sql
