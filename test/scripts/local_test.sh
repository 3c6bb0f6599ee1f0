#!/usr/bin/env bash
# stdesign-local, as a user gets it: the installed one (pg_config --bindir
# of PG_CONFIG), started in the background on free ports with its data in a
# private directory, driven by aws-cli, boto3 and psql:
#
#   1. the default data directory (./stdesign-local-data), the banner, the
#      printed aws line in a fresh shell (no AWS configuration: the env line
#      gives the region and credentials) and the printed psql line
#   2. aws-cli (create-table, put-item, query, list-tables) and boto3
#      (put_item, get_item, a condition that fails); a table made in SQL
#      by postgres is reachable over HTTP
#   3. refusals: a busy HTTP port, a busy PostgreSQL port, a second start on
#      a data directory whose server runs, -inMemory with -dbPath
#   4. Ctrl-C (SIGINT to its process group): exits 0, the cluster stopped
#   5. a restart on the same -dbPath with other ports: the items are
#      there (aws get-item, psql); -seed loads the e-commerce model (st_query,
#      GSI1 over HTTP), and says it is there on the next start
#   6. -inMemory: its directory is gone after Ctrl-C; started as root, also
#      run as the postgres user (a user who is not root)
#   7. hostile input: option values (a missing one, octal-looking ports,
#      quotes in -cors and -dbPath), a PG* environment and a PostgreSQL
#      whose bindir has a space in it, a lock on the data directory,
#      Ctrl-C while the server starts, a pre-existing -dbPath on failure;
#      as root, a -dbPath others can change, and symlinks planted in one of
#      postgres's (server.log -> a file of root's, pgdata -> a directory)
#
# Needs the extension installed (make install).  Ends with one
# "local: N passed, N failed" line; exits non-zero on any failure.
set -uo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
. test/scripts/checks.sh

PG_CONFIG=${PG_CONFIG:-pg_config}
bindir=$("$PG_CONFIG" --bindir)
local=$bindir/stdesign-local
if [ ! -x "$local" ]; then
	check "stdesign-local is installed in $bindir (make install)" 1
	echo "local: $passed passed, $failed failed"
	exit 1
fi

work=$(mktemp -d -t stdesign_local.XXXXXX)
# as root the cluster runs as postgres, which must reach the data directory
chmod 755 "$work"
mkdir "$work/home"
# -inMemory's directories go in here (a /tmp of its own, for postgres
# too), where the clean-up finds them
mkdir -m 1777 "$work/mem"
export TMPDIR=$work/mem
# each start is a job of its own (its own process group, SIGINT not ignored
# as it is for background commands without job control), as in a terminal
set -m
jobs_started=()
cleanup() {
	local p d
	for p in ${jobs_started[@]+"${jobs_started[@]}"}; do
		kill -TERM -- "-$p" 2>/dev/null
	done
	for p in ${jobs_started[@]+"${jobs_started[@]}"}; do
		wait "$p" 2>/dev/null
	done
	# a server whose stdesign-local failed to stop it (pg_ctl puts the
	# postmaster in a session of its own) must not outlive the test and
	# hold its ports for the next run
	while IFS= read -r d; do
		as_postgres "$bindir/pg_ctl" -D "${d%/postmaster.pid}" -m immediate -w stop >/dev/null 2>&1
	done < <(find "$work" -path '*/pgdata/postmaster.pid' 2>/dev/null)
	rm -rf "$work"
}
trap cleanup EXIT

export AWS_ACCESS_KEY_ID=local AWS_SECRET_ACCESS_KEY=local AWS_DEFAULT_REGION=us-east-1
export AWS_PAGER="" AWS_MAX_ATTEMPTS=1 AWS_CONFIG_FILE=$work/home/config AWS_SHARED_CREDENTIALS_FILE=$work/home/credentials
aws=/usr/bin/aws
[ -x "$aws" ] || aws=aws
python=/usr/bin/python3
[ -x "$python" ] || python=python3

free_port() { "$python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
port_free() { ! timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$1" 2>/dev/null; }
as_postgres() {
	if [ "$(id -u)" -eq 0 ]; then
		(cd / && runuser -u postgres -- "$@")
	else
		"$@"
	fi
}

# start NAME ARGS: stdesign-local in the background (in $work, through the
# command in the array "launcher" if any), its output in $work/NAME.out and
# .err, its pid in pid_NAME; waits up to 90 s for the banner's last line or
# for the end of it.
launcher=()
start() {
	local name=$1
	shift
	(cd "$work" && exec ${launcher[@]+"${launcher[@]}"} "$local" "$@") >"$work/$name.out" 2>"$work/$name.err" &
	local pid=$!
	jobs_started+=("$pid")
	printf -v "pid_$name" '%s' "$pid"
	for _ in $(seq 1 180); do
		grep -q '^Ctrl-C stops it\.$' "$work/$name.out" && return 0
		kill -0 "$pid" 2>/dev/null || return 1
		sleep 0.5
	done
	return 1
}
# interrupt NAME: Ctrl-C (SIGINT to its process group); 0 when it exited 0
# within 30 s
interrupt() {
	local pid_var=pid_$1 pid rc
	pid=${!pid_var}
	kill -INT -- "-$pid" 2>/dev/null
	for _ in $(seq 1 60); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.5
	done
	if kill -0 "$pid" 2>/dev/null; then
		echo "        still running 30 s after SIGINT"
		return 1
	fi
	wait "$pid"
	rc=$?
	[ "$rc" -eq 0 ] || { echo "        exit status $rc"; cat "$work/$1.err"; }
	return "$rc"
}
# line NAME LABEL: the text after "LABEL:" in NAME's banner
line() { sed -n "s/^$2: *//p" "$work/$1.out" | head -n 1; }
show() { sed 's/^/        /' "$work/$1.out" "$work/$1.err"; }

http_port=$(free_port)
pg_port=$(free_port)
while [ "$pg_port" = "$http_port" ]; do pg_port=$(free_port); done
endpoint=http://localhost:$http_port
ddb() { "$aws" dynamodb --endpoint-url "$endpoint" --output json "$@"; }
data=$work/stdesign-local-data

# ---------- 1. the default data directory, the banner, the printed lines ----------

start a -port "$http_port" -pgPort "$pg_port"
started=$?
check "starts with its data in ./stdesign-local-data, and prints its banner" $started
show a
# every check below needs that server (the refusals take its ports as busy)
if [ "$started" -ne 0 ]; then
	echo "local: $passed passed, $failed failed (stopped: the first start failed)"
	exit 1
fi
grep -qx "stdesign-local: DynamoDB endpoint $endpoint (any credentials; requests run as role stdesign_http)" "$work/a.out"
check "the banner: the endpoint, any credentials, the role" $?
[ "$(line a data)" = "$data (new, kept; server log: $data/server.log)" ] && [ -f "$data/pgdata/PG_VERSION" ]
check "the banner: the data directory, new and kept, and its log" $?

# the printed lines in a fresh shell: no AWS variables, no configuration
env_line=$(line a env)
try_line=$(line a try)
env -i PATH="/usr/bin:/bin:$PATH" HOME="$work/home" bash -c "$try_line" >"$work/fresh.out" 2>&1
check "the try line alone fails in a fresh shell (aws needs a region and credentials)" $([ $? -ne 0 ]; echo $?)
env -i PATH="/usr/bin:/bin:$PATH" HOME="$work/home" bash -c "$env_line; $try_line" >"$work/fresh.out" 2>&1
check "the env line, then the try line, in a fresh shell: list-tables answers" $(grep -q '"TableNames"' "$work/fresh.out"; echo $?)
psql_line=$(line a psql)
[ "$(env -i PATH="/usr/bin:/bin:$PATH" HOME="$work/home" bash -c "$psql_line -X -At -c 'SELECT current_user, extversion FROM pg_extension WHERE extname = '\''stdesign'\'''" 2>&1)" = "postgres|$(sed -n "s/^default_version = '\(.*\)'/\1/p" stdesign.control)" ]
check "the psql line connects as postgres, stdesign created" $?
psql_a() { bash -c "$psql_line -X -q -At -v ON_ERROR_STOP=1 \"\$@\"" psql "$@"; }
[ "$(psql_a -c "SHOW stdesign.http_port")" = "$http_port" ] && [ "$(psql_a -c "SHOW port")" = "$pg_port" ]
check "the server runs with the ports given" $?

# ---------- 2. aws-cli, boto3, a table made in SQL ----------

ddb create-table --table-name Orders \
	--attribute-definitions AttributeName=PK,AttributeType=S AttributeName=SK,AttributeType=S \
	--key-schema AttributeName=PK,KeyType=HASH AttributeName=SK,KeyType=RANGE \
	--billing-mode PAY_PER_REQUEST >"$work/out" 2>&1
check "aws-cli: create-table" $(grep -q '"TableStatus": "ACTIVE"' "$work/out"; echo $?)
ddb put-item --table-name Orders \
	--item '{"PK": {"S": "CUST#1"}, "SK": {"S": "ORDER#2026-07-06"}, "total": {"N": "42.5"}}' >"$work/out" 2>&1
check "aws-cli: put-item" $?
ddb query --table-name Orders --key-condition-expression 'PK = :c' \
	--expression-attribute-values '{":c": {"S": "CUST#1"}}' >"$work/out" 2>&1
check "aws-cli: query" $("$python" -c 'import json,sys; d = json.load(open(sys.argv[1])); sys.exit(d["Count"] != 1 or d["Items"][0]["total"] != {"N": "42.5"})' "$work/out"; echo $?)
ddb list-tables >"$work/out" 2>&1
check "aws-cli: list-tables" $("$python" -c 'import json,sys; sys.exit(json.load(open(sys.argv[1]))["TableNames"] != ["Orders"])' "$work/out"; echo $?)

"$python" - "$endpoint" >"$work/boto3.out" 2>&1 <<'PY'
import sys
import boto3
ddb = boto3.client("dynamodb", endpoint_url=sys.argv[1])
ddb.put_item(TableName="Orders", Item={"PK": {"S": "CUST#1"}, "SK": {"S": "CUST#1"}, "name": {"S": "Jane"}})
got = ddb.get_item(TableName="Orders", Key={"PK": {"S": "CUST#1"}, "SK": {"S": "CUST#1"}})
print("get_item", got["Item"]["name"]["S"])
try:
    ddb.put_item(TableName="Orders", Item={"PK": {"S": "CUST#1"}, "SK": {"S": "CUST#1"}},
                 ConditionExpression="attribute_not_exists(PK)")
    print("condition held")
except ddb.exceptions.ConditionalCheckFailedException:
    print("condition failed")
PY
check "boto3: put_item, then get_item" $(grep -qx 'get_item Jane' "$work/boto3.out"; echo $?)
check "boto3: a condition that fails is ConditionalCheckFailedException" $(grep -qx 'condition failed' "$work/boto3.out"; echo $?)
[ $failed -eq 0 ] || cat "$work/boto3.out"

psql_a -c "SELECT st_create_table('{\"TableName\": \"SqlMade\",
	\"AttributeDefinitions\": [{\"AttributeName\": \"id\", \"AttributeType\": \"S\"}],
	\"KeySchema\": [{\"AttributeName\": \"id\", \"KeyType\": \"HASH\"}],
	\"BillingMode\": \"PAY_PER_REQUEST\"}') IS NOT NULL" >/dev/null &&
	ddb put-item --table-name SqlMade --item '{"id": {"S": "x"}, "n": {"N": "1"}}' >"$work/out" 2>&1 &&
	[ "$(psql_a -c "SELECT st_get('x', NULL, 'SqlMade') ->> 'n'")" = 1 ]
check "a table made in SQL by postgres: written over HTTP, read in SQL" $?

# ---------- 3. refusals ----------

other_http=$(free_port)
other_pg=$(free_port)
(cd "$work" && timeout 60 "$local" -port "$http_port" -pgPort "$other_pg" -inMemory) >"$work/busy.out" 2>&1
rc=$?
check "a busy HTTP port: non-zero, says so and how to pick another ($rc)" \
	$([ $rc -ne 0 ] && grep -q "port $http_port is in use" "$work/busy.out" && grep -q -- "-port" "$work/busy.out"; echo $?)
(cd "$work" && timeout 60 "$local" -port "$other_http" -pgPort "$pg_port" -inMemory) >"$work/busy.out" 2>&1
rc=$?
check "a busy PostgreSQL port: non-zero, says so and how to pick another ($rc)" \
	$([ $rc -ne 0 ] && grep -q "port $pg_port (PostgreSQL's) is in use" "$work/busy.out" && grep -q -- "-pgPort" "$work/busy.out"; echo $?)
(cd "$work" && timeout 60 "$local" -port "$other_http" -pgPort "$other_pg" -dbPath "$data") >"$work/busy.out" 2>&1
rc=$?
check "a second start on a running -dbPath: non-zero, says so ($rc)" \
	$([ $rc -ne 0 ] && grep -q "a server is already running on $data" "$work/busy.out"; echo $?)
(cd "$work" && timeout 60 "$local" -inMemory -dbPath "$work/x") >"$work/busy.out" 2>&1
rc=$?
check "-inMemory with -dbPath: an error ($rc)" $([ $rc -ne 0 ] && [ ! -e "$work/x" ]; echo $?)
port_free "$other_http" && port_free "$other_pg"
check "... none of them started anything" $?

# ---------- 4. Ctrl-C ----------

interrupt a
check "SIGINT: exits 0 within 30 s" $?
as_postgres "$bindir/pg_ctl" -D "$data/pgdata" status >/dev/null 2>&1
check "... the cluster is stopped (pg_ctl status)" $([ $? -eq 3 ]; echo $?)
port_free "$http_port" && port_free "$pg_port" && [ ! -e "$data/pgdata/postmaster.pid" ]
check "... both ports are free, the data directory is kept" $([ $? -eq 0 ] && [ -f "$data/pgdata/PG_VERSION" ]; echo $?)

# ---------- 5. a restart on the same -dbPath, other ports; -seed ----------

http_port=$(free_port)
pg_port=$(free_port)
while [ "$pg_port" = "$http_port" ]; do pg_port=$(free_port); done
endpoint=http://localhost:$http_port
start b -dbPath "$data" -port "$http_port" -pgPort "$pg_port" -seed
check "restarts on the same -dbPath with other ports, with -seed" $?
show b
[ "$(line b data)" = "$data (kept; server log: $data/server.log)" ]
check "the banner: the data directory, kept (not new)" $?
ddb get-item --table-name Orders --key '{"PK": {"S": "CUST#1"}, "SK": {"S": "ORDER#2026-07-06"}}' >"$work/out" 2>&1
check "aws-cli: get-item finds the item written before the restart, on the new port" \
	$("$python" -c 'import json,sys; sys.exit(json.load(open(sys.argv[1]))["Item"]["total"] != {"N": "42.5"})' "$work/out"; echo $?)
psql_line=$(line b psql)
[ "$(psql_a -c "SELECT st_get('CUST#1', 'CUST#1', 'Orders') ->> 'name'")" = Jane ]
check "psql (the new port): finds the item boto3 wrote" $?
[ "$(psql_a -c "SELECT string_agg(item ->> 'SK', ' ' ORDER BY item ->> 'SK') FROM st_query('ORDER#001', 'ITEM#', 'ECommerceTable') AS item")" = "ITEM#SKU-ABC ITEM#SKU-XYZ" ]
check "-seed: st_query returns the order's items" $?
ddb query --table-name ECommerceTable --index-name GSI1 --key-condition-expression 'GSI1PK = :o AND begins_with(GSI1SK, :s)' \
	--expression-attribute-values '{":o": {"S": "ORDER#001"}, ":s": {"S": "STATUS#"}}' >"$work/out" 2>&1
check "-seed: a query of GSI1 over HTTP finds the order" \
	$("$python" -c 'import json,sys; d = json.load(open(sys.argv[1])); sys.exit(d["Count"] != 1 or d["Items"][0]["SK"] != {"S": "ORDER#2026-07-06#001"})' "$work/out"; echo $?)
ddb put-item --table-name ECommerceTable --item '{"PK": {"S": "CUST#124"}, "SK": {"S": "CUST#124"}}' >"$work/out" 2>&1
check "-seed: the endpoint writes to the seeded table" $?
interrupt b
check "SIGINT: exits 0" $?
start c -dbPath "$data" -port "$http_port" -pgPort "$pg_port" -seed
check "-seed again on that -dbPath: starts" $?
grep -q "^seed: *ECommerceTable is there already" "$work/c.out"
check "... saying ECommerceTable is there already" $?
interrupt c
check "SIGINT: exits 0" $?

# ---------- 6. -inMemory; a user who is not root ----------

start d -inMemory -port "$http_port" -pgPort "$pg_port"
check "-inMemory: starts" $?
mem=$(sed -n 's/^data: *in memory (removed on exit; server log: \(.*\)\/server\.log)$/\1/p' "$work/d.out")
[ -n "$mem" ] && [ -f "$mem/pgdata/PG_VERSION" ] && ddb list-tables >"$work/out" 2>&1 &&
	"$python" -c 'import json,sys; sys.exit(json.load(open(sys.argv[1]))["TableNames"] != [])' "$work/out"
check "-inMemory: a new cluster, no tables" $?
interrupt d
check "-inMemory: SIGINT exits 0" $?
[ -n "$mem" ] && [ ! -e "$mem" ]
check "-inMemory: its directory is gone" $?

if [ "$(id -u)" -eq 0 ]; then
	# setpriv execs stdesign-local as postgres: runuser would stay as its
	# parent, catch the Ctrl-C itself and SIGKILL the script 2 s later, in
	# the middle of its server's stop
	launcher=(env HOME="$(getent passwd postgres | cut -d: -f6)" USER=postgres LOGNAME=postgres
		setpriv --reuid=postgres --regid=postgres --init-groups --)
	start e -inMemory -port "$http_port" -pgPort "$pg_port"
	launcher=()
	check "as the postgres user (not root): starts" $?
	ddb list-tables >"$work/out" 2>&1
	check "... and serves" $?
	mem=$(sed -n 's/^data: *in memory (removed on exit; server log: \(.*\)\/server\.log)$/\1/p' "$work/e.out")
	interrupt e
	check "... SIGINT exits 0, its directory gone" $([ $? -eq 0 ] && [ -n "$mem" ] && [ ! -e "$mem" ]; echo $?)

	# root in a directory postgres cannot enter (a checkout in /root): the
	# default data directory is postgres's home's.  Only when that
	# directory is not there already (it could hold someone's tables).
	home=$(getent passwd postgres | cut -d: -f6)
	if [ -n "$home" ] && [ ! -e "$home/stdesign-local-data" ]; then
		mkdir -m 700 "$work/closed"
		launcher=(env -C "$work/closed")
		start f -port "$http_port" -pgPort "$pg_port"
		launcher=()
		check "root in a directory postgres cannot enter: starts" $?
		[ "$(line f data)" = "$home/stdesign-local-data (new, kept; server log: $home/stdesign-local-data/server.log)" ] &&
			grep -q "the postgres user cannot enter $work/closed: the data directory is $home/stdesign-local-data" "$work/f.err"
		check "... its data in postgres's home, saying why" $?
		interrupt f
		check "... SIGINT exits 0" $?
		rm -rf "$home/stdesign-local-data"
	fi
fi

# ---------- 7. hostile input ----------

# refused NAME RC TEXT ARGS: exits RC (within 60 s, not serving), saying TEXT
refused() {
	local name=$1 want=$2 text=$3 rc
	shift 3
	(cd "$work" && timeout 60 "$local" "$@") >"$work/$name.out" 2>&1
	rc=$?
	[ "$rc" -eq "$want" ] && grep -qF -- "$text" "$work/$name.out" || { show "$name"; return 1; }
}
refused opt1 2 "-port needs a value" -port -inMemory
check "-port -inMemory: -port needs a value (not -inMemory)" $?
refused opt2 2 "-port and -pgPort must differ (both are 8000)" -port 08000 -pgPort 8000 -inMemory
check "-port 08000: the decimal 8000 (not octal)" $?
refused opt3 2 "-cors: an origin has no quote" -cors $'http://a\nlisten_addresses = *' -inMemory
check "-cors with a newline: refused" $?
refused opt4 2 "-cors: an origin has no quote" -cors 'http://a\' -inMemory
check "-cors with a backslash: refused" $?
refused opt5 2 "-dbPath: no quote" -dbPath "$work/x\$(touch $work/pwned)" -port "$other_http" -pgPort "$other_pg"
check "-dbPath with \$( ): refused (pg_ctl hands it to a shell), nothing made" $([ $? -eq 0 ] && [ ! -e "$work/pwned" ] && [ ! -e "$work/x\$(touch $work/pwned)" ]; echo $?)
mkdir -p "$work/pre/pgdata" && touch "$work/pre/pgdata/junk"
[ "$(id -u)" -ne 0 ] || chown -R postgres: "$work/pre"
refused pre 1 "is not empty and holds no cluster" -dbPath "$work/pre" -port "$other_http" -pgPort "$other_pg"
check "a failed start on a -dbPath that was there: the directory is kept" $([ $? -eq 0 ] && [ -f "$work/pre/pgdata/junk" ]; echo $?)
timeout 60 flock -o "$data" "$local" -dbPath "$data" -port "$other_http" -pgPort "$other_pg" >"$work/lock.out" 2>&1
check "a data directory locked by another start: refused" \
	$([ $? -eq 1 ] && grep -q "a server is already running on $data (another stdesign-local)" "$work/lock.out"; echo $?)

# a PG* environment aimed elsewhere, and a bindir with a space in it with
# no psql on PATH: the banner's psql line quotes it
spaced="$work/pg bin"
mkdir -p "$spaced" "$work/nopsql"
cp "$local" "$spaced/" && for b in pg_ctl initdb postgres psql; do ln -s "$bindir/$b" "$spaced/$b"; done
for f in /usr/bin/* /bin/* /usr/sbin/* /sbin/*; do
	[ "${f##*/}" = psql ] || [ -e "$work/nopsql/${f##*/}" ] || ln -s "$f" "$work/nopsql/${f##*/}"
done
launcher=(env PATH="$work/nopsql" PGHOSTADDR=192.0.2.1 PGHOST=192.0.2.1 PGPORT=1 PGUSER=nobody PGDATABASE=nowhere PGOPTIONS=-cnot.valid)
local_saved=$local
local="$spaced/stdesign-local"
start g -inMemory -port "$http_port" -pgPort "$pg_port"
check "with PGHOSTADDR, PGHOST, PGPORT, PGUSER, PGDATABASE, PGOPTIONS aimed elsewhere: starts" $?
local=$local_saved
launcher=()
psql_line=$(line g psql)
[ "$(env -i bash -c "$psql_line -X -At -c 'SELECT 1'" 2>&1)" = 1 ]
check "a bindir with a space, no psql on PATH: the psql line ($psql_line) runs" $?
interrupt g
check "... SIGINT exits 0" $?

# Ctrl-C while the server starts (it has a pid, the endpoint is not up):
# nothing left running, the -inMemory directory gone
mkdir -m 755 "$work/tmpdir"
(cd "$work" && exec env TMPDIR="$work/tmpdir" "$local" -inMemory -port "$http_port" -pgPort "$pg_port") >"$work/h.out" 2>"$work/h.err" &
pid_h=$!
jobs_started+=("$pid_h")
for _ in $(seq 1 200); do
	compgen -G "$work/tmpdir/*/pgdata/postmaster.pid" >/dev/null && break
	sleep 0.1
done
interrupt h
rc=$?
sleep 1
! grep -q '^Ctrl-C stops it' "$work/h.out" && [ "$rc" -eq 0 ] && [ -z "$(ls -A "$work/tmpdir")" ] &&
	! ps -eo args | grep -v grep | grep -qF "$work/tmpdir" && port_free "$http_port" && port_free "$pg_port"
check "SIGINT while starting: exits 0, no server left, its directory gone" $?

if [ "$(id -u)" -eq 0 ]; then
	# root: a -dbPath another user could change is refused, nothing touched
	victim=$work/victim
	echo secret >"$victim" && chmod 600 "$victim"
	mkdir -m 755 "$work/victimdir"
	mkdir "$work/evil" && chown nobody "$work/evil"
	ln -s "$victim" "$work/evil/server.log" && ln -s "$work/victimdir" "$work/evil/pgdata"
	refused evil 1 "refuses $work/evil" -dbPath "$work/evil" -port "$other_http" -pgPort "$other_pg"
	check "root, a -dbPath of another user's: refused" $?
	mkdir -m 777 "$work/open"
	refused open 1 "$work/open is open to users other than root" -dbPath "$work/open/data" -port "$other_http" -pgPort "$other_pg"
	check "root, a -dbPath in a world-writable directory without the sticky bit: refused, not made" $([ $? -eq 0 ] && [ ! -e "$work/open/data" ]; echo $?)
	# one of postgres's (as it may own one): the symlinks in it are
	# followed as postgres, never as root
	mkdir "$work/pgown" && chown postgres: "$work/pgown"
	ln -s "$victim" "$work/pgown/server.log" && ln -s "$work/victimdir" "$work/pgown/pgdata"
	chown -h postgres: "$work/pgown/server.log" "$work/pgown/pgdata"
	(cd "$work" && timeout 60 "$local" -dbPath "$work/pgown" -port "$other_http" -pgPort "$other_pg") >"$work/pgown.out" 2>&1
	rc=$?
	[ "$rc" -ne 0 ] && [ "$(stat -c '%U %a' "$victim")" = "root 600" ] && [ "$(cat "$victim")" = secret ] &&
		[ "$(stat -c '%U %a' "$work/victimdir")" = "root 755" ] && [ -z "$(ls -A "$work/victimdir")" ] &&
		[ -L "$work/pgown/server.log" ] && [ -L "$work/pgown/pgdata" ]
	check "root, symlinks planted in postgres's -dbPath: fails ($rc), the file and directory they point to untouched" $?
	port_free "$other_http" && port_free "$other_pg"
	check "... none of them started anything" $?
fi

[ $failed -eq 0 ] || for f in "$work"/*/server.log; do [ -f "$f" ] && { echo "--- $f"; tail -n 30 "$f"; }; done
echo "local: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
