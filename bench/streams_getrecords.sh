#!/usr/bin/env bash
# DynamoDB Streams' GetRecords through stdesign's HTTP endpoint against
# DynamoDB Local, under the same client: records per second draining a
# stream of CHANGES changes (target: 5x DynamoDB Local).
#
#   bench/streams_getrecords.sh [--no-install] [--changes N] [--rounds R]
#
# Installs the extension (make install, unless --no-install) and the
# client's Node packages (test/http's pinned AWS SDK, npm ci, when they are
# missing); starts a throwaway cluster with stdesign's HTTP workers (trust,
# as docs/http.md sets them up) and DynamoDB Local in memory (the jar that
# the npm package amplify-dynamodb-simulator ships, fetched with npm pack
# into a temporary directory; needs java), both on 127.0.0.1; then
# streams_getrecords.js loads the changes into each and drains the two
# streams in alternation, R rounds (default 3), with the AWS SDK's client,
# a raw JSON client, a raw client that does not parse GetRecords' answers,
# and a client in C (streams_getrecords_client.c, compiled here with cc:
# plain sockets, one keep-alive connection, the answers' text searched, not
# parsed), the best of each counting.
# It fails when either system drains other than exactly the changes
# written.  A benchmark, not a test: nothing fails on a slow number.
set -euo pipefail
self=$(realpath "$0")
here=$(dirname "$self")
root=$(realpath "$here/..")
# the DynamoDB Local that amplify-dynamodb-simulator 2.9.30 ships
SIMULATOR=amplify-dynamodb-simulator@2.9.30

install=1
changes=100000
rounds=3
while [ $# -gt 0 ]; do
	case "$1" in
		--no-install) install=0; shift ;;
		--changes) changes=$2; shift 2 ;;
		--rounds) rounds=$2; shift 2 ;;
		*) sed -n '6p' "$self" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
	esac
done

if [ "${STDESIGN_BENCH_INNER:-}" != 1 ]; then
	for tool in node npm java cc; do
		command -v "$tool" >/dev/null || { echo "streams_getrecords.sh: needs $tool" >&2; exit 1; }
	done
	if [ ! -d "$root/test/http/node_modules/@aws-sdk/client-dynamodb-streams" ]; then
		(cd "$root/test/http" && npm ci --no-audit --no-fund --loglevel=error)
	fi
	if [ "$install" = 1 ]; then
		make -C "$root" -s >/dev/null
		make -C "$root" -s install >/dev/null
	fi
	port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	exec env STDESIGN_BENCH_INNER=1 BENCH_HTTP_PORT="$port" bash "$root/test/scripts/tmp_cluster.sh" \
		-o shared_preload_libraries=stdesign -o stdesign.http_port="$port" -o listen_addresses=127.0.0.1 \
		bash "$self" --changes "$changes" --rounds "$rounds"
fi

work=$(mktemp -d)
local_pid=""
cleanup() {
	[ -z "$local_pid" ] || kill "$local_pid" 2>/dev/null || true
	[ -z "$local_pid" ] || wait "$local_pid" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
psql_() { psql -X -q -v ON_ERROR_STOP=1 "$@"; }

echo "stdesign GetRecords bench against DynamoDB Local"
echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB; $(psql -X -At -c 'SHOW server_version'); $(date -u +%Y-%m-%d)"

# the role of every request under trust, as docs/http.md makes it
psql_ <<'SQL'
CREATE EXTENSION stdesign;
CREATE ROLE stdesign_http;
GRANT USAGE ON SCHEMA stdesign TO stdesign_http;
GRANT USAGE, CREATE ON SCHEMA stdesign_data TO stdesign_http;
GRANT SELECT ON stdesign.tables, stdesign.indexes TO stdesign_http;
SQL

(cd "$work" && npm pack --silent "$SIMULATOR" >/dev/null && tar xzf ./*.tgz)
jar_dir=$work/package/emulator
local_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
(cd "$jar_dir" && exec java -Djava.library.path=./DynamoDBLocal_lib -jar DynamoDBLocal.jar \
	-inMemory -port "$local_port" >"$work/local.log" 2>&1) &
local_pid=$!
echo "DynamoDB Local $(cd "$jar_dir" && java -jar DynamoDBLocal.jar -version 2>&1 | tail -n1) (from $SIMULATOR), in memory; $(java -version 2>&1 | head -1)"

# both answer before the client starts (DynamoDB Local wants a signed request;
# any answer will do)
for url in "http://127.0.0.1:$BENCH_HTTP_PORT/" "http://127.0.0.1:$local_port/"; do
	for _ in $(seq 1 300); do
		curl -s -o /dev/null "$url" && break
		sleep 0.1
	done
	curl -s -o /dev/null "$url" || { echo "no answer from $url" >&2; cat "$work/local.log" >&2; exit 1; }
done

cc -O2 -o "$work/client" "$here/streams_getrecords_client.c"
node "$here/streams_getrecords.js" "http://127.0.0.1:$BENCH_HTTP_PORT" "http://127.0.0.1:$local_port" "$changes" "$rounds" "$work/client"
