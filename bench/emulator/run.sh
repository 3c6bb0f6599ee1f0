#!/usr/bin/env bash
# stdesign's st_api against a local DynamoDB emulator (dynalite) and against
# hand-written SQL, all driven from one Node client (make bench-emulator).
#
#   bench/emulator/run.sh [--no-install] [--customers N] [--orders-per N]
#                         [--seconds S] [--slices K] [--warmup S] [--clients C]
#                         [--ops get,query,gsi,put,update,delete]
#
# Installs the Node dependencies when they are missing, installs the
# extension (make install, unless --no-install), starts a throwaway cluster,
# and runs bench.js in it; bench.js starts the emulator in memory on
# 127.0.0.1, loads the same items into both, and prints the table.
# A benchmark, not a test: nothing here fails on a slow number.
set -euo pipefail
self=$(realpath "$0")
here=$(dirname "$self")
root=$(realpath "$here/../..")

install=1
args=()
seconds=10; warmup=1; slices=5; nops=6
while [ $# -gt 0 ]; do
	case "$1" in
		--no-install) install=0; shift ;;
		--seconds) seconds=$2; args+=("$1" "$2"); shift 2 ;;
		--warmup) warmup=$2; args+=("$1" "$2"); shift 2 ;;
		--slices) slices=$2; args+=("$1" "$2"); shift 2 ;;
		--ops) nops=$(echo "$2" | tr ',' '\n' | wc -l); args+=("$1" "$2"); shift 2 ;;
		--customers|--orders-per|--clients) args+=("$1" "$2"); shift 2 ;;
		*) sed -n '5,7p' "$self" | sed 's/^# \{0,1\}//'; exit 2 ;;
	esac
done

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
	echo "run.sh: needs node (20 or later) and npm" >&2
	exit 1
fi
if [ ! -d "$here/node_modules/dynalite" ] || [ ! -d "$here/node_modules/pg" ] ||
	[ ! -d "$here/node_modules/@aws-sdk/client-dynamodb" ]; then
	echo "== npm ci"
	(cd "$here" && npm ci --no-audit --no-fund --loglevel=error)
fi

if [ "$install" = 1 ]; then
	echo "== make install"
	sudo=""
	[ "$(id -u)" = 0 ] || sudo=sudo
	make -C "$root" -s >/dev/null
	$sudo make -C "$root" -s install >/dev/null
fi

# Hard bound on the whole run: every loop is bounded by itself, this is the
# backstop (load, warm-ups, three systems per operation, loads between slices).
limit=$(awk -v n="$nops" -v k="$slices" -v s="$seconds" -v w="$warmup" \
	'BEGIN { printf "%d", n * 3 * (s + w + 5 * k) + 900 }')

# which source the installed extension was built from
source_id=unknown
if command -v git >/dev/null && git -C "$root" rev-parse --short HEAD >/dev/null 2>&1; then
	source_id=$(git -C "$root" rev-parse --short HEAD)
	if [ -n "$(git -C "$root" status --porcelain -- src sql 2>/dev/null)" ]; then
		source_id="$source_id with local changes to src/"
	fi
fi
export STDESIGN_SOURCE="$source_id"

cd "$here"
exec bash "$root/test/scripts/tmp_cluster.sh" -o shared_buffers=1GB -o max_wal_size=4GB -o synchronous_commit=on \
	-o 'listen_addresses=127.0.0.1 ' \
	bash -c 'export PGHOST=127.0.0.1; exec timeout '"$limit"' node bench.js "$@"' bench.js ${args[@]+"${args[@]}"}
