#!/usr/bin/env bash
# Placement benchmark of the stdesign table access method (a benchmark, not
# a test: it prints numbers and checks nothing).  Connects with the usual
# libpq environment (PGHOST, PGPORT, PGDATABASE, ...), e.g. inside
#   bash test/scripts/tmp_cluster.sh bash bench/placement/run.sh
# CUSTOMERS, ORDERS and ROUNDS (timed loads per table and path) can be set.
set -euo pipefail
cd "$(dirname "$0")"
psql -X -q -v customers="${CUSTOMERS:-3000}" -v orders="${ORDERS:-20}" \
	-v rounds="${ROUNDS:-3}" -f placement.sql
