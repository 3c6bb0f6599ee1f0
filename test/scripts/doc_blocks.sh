#!/usr/bin/env bash
# Run the code blocks of the documentation as a user would paste them:
#
#   doc_blocks.sh [FILE...]        (default: README.md docs/*.md)
#
# For each document, a fresh server: the installed stdesign-local
# ($(pg_config --bindir)/stdesign-local, PG_CONFIG honoured; STDESIGN_LOCAL
# names another) with -inMemory, its HTTP endpoint and Postgres on two free
# ports of 127.0.0.1, stopped with SIGINT once the document is done.  The
# documents speak of the ports `make run` uses, 8000 (the HTTP endpoint)
# and 8432 (Postgres): every block is run with ":8000" rewritten to the
# chosen HTTP port and "8432" to the chosen Postgres port.
#
# The blocks of a document run in order:
#   ```sh / ```bash   in one shell session per document: exports and the
#                     current directory carry over from block to block;
#                     each block runs under set -e
#   ```sql            psql postgresql://postgres@localhost:8432/postgres
#                     -X -v ON_ERROR_STOP=1, a new psql per block
#   ```python         python3, with the session's exports
# Any other block (json, text, none) is not code and is skipped.  Each runs
# as a fresh user would: HOME and the first current directory are empty
# directories of their own, PATH has the PostgreSQL bindir first, and
# nothing else of the caller's environment is kept (no AWS_*, no PG*): a
# block must export what a user must export.  A block gets 120 s, then it
# and what it started are killed.
#
# Markers, on the line right before a block's opening fence:
#   <!-- not run: REASON -->   the block is skipped and REASON printed (what
#                              a test cannot do: a foreground server, a
#                              package build, other machines)
#   <!-- fails: TEXT -->       the block must fail, its output holding TEXT
#                              (an example that shows an error)
#
# Prints "ok|FAIL - FILE:LINE lang" per block (a failure's output below it)
# and "not run - FILE:LINE lang: REASON", then
# "docs: N passed, N failed, N not run"; exits non-zero on any failure.
# DOC_BLOCKS_VERBOSE=1 prints every block's output (to check what the text
# says of it).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)

PG_CONFIG=${PG_CONFIG:-pg_config}
bindir=$("$PG_CONFIG" --bindir)
server=${STDESIGN_LOCAL:-$bindir/stdesign-local}
block_timeout=${DOC_BLOCK_TIMEOUT:-120}
if [ $# -eq 0 ]; then
	set -- README.md docs/*.md
fi

work=$(mktemp -d -t stdesign_docs.XXXXXX)
chmod 755 "$work"
server_pid=""
server_dir=""
block_pid=""
passed=0
failed=0
notrun=0

stop_server() {
	[ -n "$server_pid" ] || return 0
	kill -INT "$server_pid" 2>/dev/null || true
	for _ in $(seq 1 120); do
		kill -0 "$server_pid" 2>/dev/null || break
		sleep 0.5
	done
	if kill -0 "$server_pid" 2>/dev/null; then
		echo "(the server did not stop on SIGINT within 60 s: killed)"
		kill -KILL -- "-$server_pid" 2>/dev/null || true
		# its postmaster runs on, detached: stop it too (the -inMemory
		# directory is under server_dir, as TMPDIR)
		for pgdata in "$server_dir"/stdesign-local.*/pgdata; do
			[ -f "$pgdata/postmaster.pid" ] || continue
			if [ "$(id -u)" -eq 0 ]; then
				(cd / && runuser -u postgres -- "$bindir/pg_ctl" -D "$pgdata" -m immediate stop) || true
			else
				"$bindir/pg_ctl" -D "$pgdata" -m immediate stop || true
			fi
		done
	fi
	wait "$server_pid" 2>/dev/null || true
	server_pid=""
}
cleanup() {
	# a block still running (interrupted): it and what it started
	[ -z "$block_pid" ] || kill -KILL -- "-$block_pid" 2>/dev/null || true
	stop_server
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# start_server DIR: stdesign-local on free ports (http_port, pg_port), ready
# when Postgres has the extension and the endpoint answers a request
start_server() {
	local dir=$1 status
	http_port=$(free_port)
	pg_port=$(free_port)
	while [ "$pg_port" = "$http_port" ]; do pg_port=$(free_port); done
	# job control on: a background job of a script would start with SIGINT
	# ignored (and could not stop on it); with it, the server starts in a
	# process group of its own with SIGINT as a terminal would deliver it
	set -m
	server_dir=$dir/server
	mkdir -m 755 "$server_dir"
	TMPDIR=$server_dir "$server" -inMemory -port "$http_port" -pgPort "$pg_port" >"$dir/server.log" 2>&1 &
	server_pid=$!
	set +m
	for _ in $(seq 1 120); do
		if ! kill -0 "$server_pid" 2>/dev/null; then
			server_pid=""
			return 1
		fi
		status=$(curl -s -o /dev/null -w '%{http_code}' -X POST "http://127.0.0.1:$http_port/" \
			-H 'X-Amz-Target: DynamoDB_20120810.ListTables' -H 'Content-Type: application/x-amz-json-1.0' \
			-H 'Authorization: AWS4-HMAC-SHA256 Credential=ready/20250101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=00' \
			--data-binary '{}' 2>/dev/null || true)
		if [ "$status" = 200 ] &&
			[ "$("$bindir/psql" "postgresql://postgres@127.0.0.1:$pg_port/postgres" -X -At \
				-c "SELECT count(*) FROM pg_extension WHERE extname = 'stdesign'" 2>/dev/null)" = 1 ]; then
			return 0
		fi
		sleep 0.5
	done
	return 1
}

# extract FILE DIR: each fenced block of FILE into DIR/N, and DIR/index with
# one line per block: N<TAB>line<TAB>lang<TAB>marker<TAB>marker text.  A
# fence may be indented (a block in a list item): the indentation is taken
# off its lines.
extract() {
	python3 - "$1" "$2" <<'EOF'
import re, sys
path, out = sys.argv[1], sys.argv[2]
lines = open(path, encoding="utf-8").read().split("\n")
index = []
i = 0
n = 0
while i < len(lines):
    m = re.match(r"^( *)(```+)\s*([A-Za-z0-9_+-]*)", lines[i])
    if not m:
        i += 1
        continue
    indent, fence, lang = len(m.group(1)), m.group(2), m.group(3).lower()
    start = i
    marker, text = "", ""
    if i > 0:
        mk = re.match(r"^\s*<!--\s*(not run|fails):\s*(.*?)\s*-->\s*$", lines[i - 1])
        if mk:
            marker, text = mk.group(1), mk.group(2)
    body = []
    i += 1
    while i < len(lines) and not re.match(r"^ *" + fence + r"\s*$", lines[i]):
        body.append(lines[i][indent:] if lines[i][:indent].strip() == "" else lines[i])
        i += 1
    i += 1
    n += 1
    with open("%s/%d" % (out, n), "w", encoding="utf-8") as f:
        f.write("\n".join(body) + "\n")
    index.append("%d\t%d\t%s\t%s\t%s" % (n, start + 1, lang, marker.replace(" ", "_"), text))
with open(out + "/index", "w", encoding="utf-8") as f:
    f.write("".join(l + "\n" for l in index))
EOF
}

# The environment of a fresh user: nothing of the caller's but PATH (the
# PostgreSQL bindir first) and the locale.
user_env=(env -i "PATH=$bindir:$PATH" "SHELL=/bin/bash" "USER=$(id -un)" "LOGNAME=$(id -un)"
	"LANG=${LANG:-C.UTF-8}" "TERM=dumb")
[ -n "${LC_ALL:-}" ] && user_env+=("LC_ALL=$LC_ALL")
[ -n "${PYENV_ROOT:-}" ] && user_env+=("PYENV_ROOT=$PYENV_ROOT")

# The shell of a block: the session's state in, the block run, the state
# out (exports and the current directory, for the next block).
cat >"$work/session.sh" <<'EOF'
# session.sh STATE KIND FILE PGURL
state=$1 kind=$2 file=$3 pgurl=$4
cd "$(cat "$state/cwd")"
. "$state/env"
case "$kind" in
sh)
	trap 'export -p > "$state/env"; pwd > "$state/cwd"' EXIT
	set -e
	. "$file"
	;;
sql) exec psql "$pgurl" -X -v ON_ERROR_STOP=1 -f "$file" ;;
python) exec python3 "$file" ;;
esac
EOF

# run_doc FILE
run_doc() {
	local doc=$1 dir n line lang marker text kind body out rc ok
	dir=$(mktemp -d "$work/doc.XXXXXX")
	chmod 755 "$dir"
	mkdir "$dir/blocks" "$dir/state" "$dir/home" "$dir/cwd"
	extract "$doc" "$dir/blocks"
	# nothing to run: no server
	if ! awk -F '\t' '$3 ~ /^(sh|bash|sql|python|python3)$/ && $4 != "not_run" { f = 1 } END { exit !f }' \
		"$dir/blocks/index"; then
		while IFS=$'\t' read -r n line lang marker text; do
			if [ "$marker" = not_run ] && [[ "$lang" =~ ^(sh|bash|sql|python|python3)$ ]]; then
				echo "not run - $doc:$line $lang: $text"
				notrun=$((notrun + 1))
			fi
		done <"$dir/blocks/index"
		return 0
	fi
	if ! start_server "$dir"; then
		echo "FAIL - $doc: stdesign-local did not start ($server)"
		sed 's/^/    /' "$dir/server.log" 2>/dev/null | tail -n 40
		failed=$((failed + 1))
		stop_server
		return 0
	fi
	# the session: empty HOME and directory, no variable of its own yet
	echo "$dir/cwd" >"$dir/state/cwd"
	: >"$dir/state/env"
	chmod -R 777 "$dir/cwd"
	while IFS=$'\t' read -r n line lang marker text; do
		case "$lang" in
		sh | bash) kind=sh ;;
		sql) kind=sql ;;
		python | python3) kind=python ;;
		*) continue ;;
		esac
		if [ "$marker" = not_run ]; then
			echo "not run - $doc:$line $lang: $text"
			notrun=$((notrun + 1))
			continue
		fi
		body="$dir/blocks/$n.$kind"
		sed -e "s/:8000\\b/:$http_port/g" -e "s/8432/$pg_port/g" "$dir/blocks/$n" >"$body"
		set +e
		"${user_env[@]}" "HOME=$dir/home" timeout -k 10 "$block_timeout" \
			bash "$work/session.sh" "$dir/state" "$kind" "$body" \
			"postgresql://postgres@localhost:$pg_port/postgres" >"$dir/out" 2>&1 </dev/null &
		block_pid=$!
		wait "$block_pid"
		rc=$?
		# what the block left running (timeout made it a process group)
		kill -TERM -- "-$block_pid" 2>/dev/null
		block_pid=""
		set -e
		if [ "$marker" = fails ]; then
			ok=0
			[ "$rc" -ne 0 ] && grep -qF -- "$text" "$dir/out" && ok=1
		else
			ok=$((rc == 0))
		fi
		if [ "$ok" = 1 ]; then
			echo "ok - $doc:$line $lang"
			[ -n "${DOC_BLOCKS_VERBOSE:-}" ] && sed 's/^/    /' "$dir/out"
			passed=$((passed + 1))
		else
			echo "FAIL - $doc:$line $lang"
			if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
				echo "    (timed out after $block_timeout s)"
			elif [ "$marker" = fails ]; then
				echo "    (expected to fail with: $text; exit status $rc)"
			fi
			sed 's/^/    /' "$dir/out" | head -n 200
			failed=$((failed + 1))
		fi
	done <"$dir/blocks/index"
	stop_server
	rm -rf "$dir"
}

for doc in "$@"; do
	if [ ! -f "$doc" ]; then
		echo "FAIL - $doc: no such file"
		failed=$((failed + 1))
		continue
	fi
	run_doc "$doc"
done
echo "docs: $passed passed, $failed failed, $notrun not run"
[ "$failed" -eq 0 ]
