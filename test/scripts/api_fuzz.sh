#!/usr/bin/env bash
# The API fuzzer (test/fuzz/api_fuzz.py) on its own, for as long as asked:
# a throwaway cluster with the HTTP endpoint (trust mode) on a free port,
# the extension created, then the fuzzer through st_api, st_partiql and the
# endpoint.  make fuzz-api FUZZ_SECONDS=600 [FUZZ_SEED=n].  (make test runs
# it for a bounded time inside test/scripts/http_tests.sh.)
#
# Needs the extension installed (make install).
set -uo pipefail
cd "$(dirname "$0")/../.."

if [ -z "${API_FUZZ_INSIDE:-}" ]; then
	port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	API_FUZZ_INSIDE=1 HTTP_PORT=$port exec bash test/scripts/tmp_cluster.sh \
		-o shared_preload_libraries=stdesign -o stdesign.http_port="$port" \
		-o stdesign.http_workers=2 bash "$0" "$@"
fi

log=$ST_CLUSTER_LOG
psql -X -q -c "CREATE EXTENSION stdesign" || exit 1
# the role of every request under trust, as docs/http.md's tour makes it
psql -X -q <<'SQL' || exit 1
CREATE ROLE stdesign_http;
GRANT USAGE ON SCHEMA stdesign TO stdesign_http;
GRANT USAGE, CREATE ON SCHEMA stdesign_data TO stdesign_http;
GRANT SELECT ON stdesign.tables, stdesign.indexes TO stdesign_http;
SQL
# the workers serve once the extension exists
for _ in $(seq 1 60); do
	curl -s -o /dev/null -X POST "http://127.0.0.1:$HTTP_PORT/" && break
	sleep 0.5
done
/usr/bin/python3 test/fuzz/api_fuzz.py --port "$HTTP_PORT" --log "$log" \
	--seconds "${FUZZ_SECONDS:-60}" --seed "${FUZZ_SEED:-26}" --out "${FUZZ_OUT:-/dev/null}" "$@"
