#!/usr/bin/env bash
# The HTTP endpoint against real clients, in a throwaway cluster of its own
# with stdesign in shared_preload_libraries and the workers on a free port
# of 127.0.0.1:
#
#   1. 503 until CREATE EXTENSION, then served without a restart
#   2. aws-cli: create-table, wait table-exists, put/get/query/scan with
#      paging, update with conditions, a cancelled transact-write-items;
#      aws dynamodbstreams reading the records of put-item and delete-item
#   3. boto3 and raw HTTP (test/http/test_http.py trust); serialization
#      failures and deadlocks retried, the generic 500 (... conflict, failures);
#      a pool of keep-alive connections still answered while one of them
#      waits for a row lock, or while clients never read their responses
#      (... dispatch); ambiguous framing refused,
#      bodies without credentials cut at 64 kB, the bounds on buffered
#      bytes and connections (... bounds)
#   4. the JavaScript SDK (DocumentClient) running the seeds' e-commerce
#      access patterns, its writes read back through the SDK's DynamoDB
#      Streams client, and dynamodb-admin's table page (test/http/)
#   5. sigv4: access keys, bad/expired/missing signatures, presigned
#      requests, session tokens, the region, a role without privileges, a
#      request that tries to leave its role, the workers' key cache, the CPU
#      time counts (test/http/test_http.py sigv4); an unknown key's large
#      body not read, one role's workers and lock waits bounded while
#      another role is served (... roles)
#   6. cancel, per-request timeout and reload, kill -9 of a worker in the
#      middle of a request, fast shutdown during a request, a port taken,
#      too few max_worker_processes
#   7. the API fuzzer (test/fuzz/api_fuzz.py) for FUZZ_SECONDS (60)
#
# Needs the extension installed (make install).  Ends with one
# "http: N passed, N failed" line; exits non-zero on any failure.
set -uo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

if [ -z "${HTTP_TESTS_INSIDE:-}" ]; then
	port=$(free_port)
	HTTP_TESTS_INSIDE=1 HTTP_PORT=$port exec bash test/scripts/tmp_cluster.sh \
		-o shared_preload_libraries=stdesign -o stdesign.http_port="$port" \
		-o stdesign.http_workers=2 -o stdesign.http_cors_origin=http://admin.example \
		-o max_connections=60 -o max_prepared_transactions=2 bash "$0" "$@"
fi

. test/scripts/checks.sh
port=$HTTP_PORT
endpoint="http://127.0.0.1:$port"
work=$(mktemp -d)
chmod 777 "$work"
admin_pid=""
trap '[ -n "$admin_pid" ] && kill "$admin_pid" 2>/dev/null; rm -rf "$work"' EXIT
q() { psql -X -q -At -v ON_ERROR_STOP=1 "$@"; }
log=$ST_CLUSTER_LOG
export HTTP_SERVER_LOG=$log
export AWS_ACCESS_KEY_ID=AKIDEXAMPLE AWS_SECRET_ACCESS_KEY=secret AWS_DEFAULT_REGION=us-east-1
export AWS_PAGER="" AWS_MAX_ATTEMPTS=1
aws=/usr/bin/aws
[ -x "$aws" ] || aws=aws
ddb() { "$aws" dynamodb --endpoint-url "$endpoint" --output json "$@"; }
python=/usr/bin/python3
auth='AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20250101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=00'

# post OP BODY [curl args]: the HTTP status, the body in $work/body
post() {
	local op=$1 body=$2
	shift 2
	curl -s -o "$work/body" -w '%{http_code}' -X POST "$endpoint/" \
		-H "X-Amz-Target: DynamoDB_20120810.$op" -H 'Content-Type: application/x-amz-json-1.0' \
		-H "Authorization: $auth" --data-binary "$body" "$@"
}

# wait_for CMD...: up to 30 s for the command to succeed
wait_for() {
	for _ in $(seq 1 60); do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.5
	done
	return 1
}
workers_up() { [ "$(q -c "SELECT count(*) FROM stdesign.http_status() WHERE pid IS NOT NULL AND pid IN (SELECT pid FROM pg_stat_activity)" 2>/dev/null)" = "${1:-2}" ]; }
served() { [ "$(post ListTables '{}')" = 200 ]; }

# ---------- 1. before and after CREATE EXTENSION ----------

wait_for curl -s "$endpoint/"
code=$(post ListTables '{}')
check "503 before CREATE EXTENSION ($code)" $([ "$code" = 503 ] && grep -q ServiceUnavailable "$work/body"; echo $?)
q -c "CREATE EXTENSION stdesign"
code=$(post ListTables '{}')
check "trust: 503 while stdesign.http_trust_role (stdesign_http) does not exist, saying so ($code)" \
	$([ "$code" = 503 ] && grep -q 'ServiceUnavailableException' "$work/body" &&
		grep -q 'runs requests as role \\"stdesign_http\\" (stdesign.http_trust_role), which does not exist' "$work/body"; echo $?)
grep -q 'stdesign http: stdesign.http_auth = trust runs requests as role "stdesign_http"' "$log"
check "trust: ... and the server log says so" $?
# the role of every request under trust, as the tour of docs/http.md makes it
q >/dev/null <<'SQL'
CREATE ROLE stdesign_http;
GRANT USAGE ON SCHEMA stdesign TO stdesign_http;
GRANT USAGE, CREATE ON SCHEMA stdesign_data TO stdesign_http;
GRANT SELECT ON stdesign.tables, stdesign.indexes TO stdesign_http;
SQL
code=$(post ListTables '{}')
check "served once the extension and the role exist, without a restart ($code)" $([ "$code" = 200 ]; echo $?)
n=$(q -c "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'stdesign http worker'")
check "two workers in pg_stat_activity ($n)" $([ "$n" = 2 ]; echo $?)
grep -q "HTTP worker 1 listening on 127.0.0.1, ::1 port $port" "$log" || grep -q "HTTP worker 1 listening on 127.0.0.1 port $port" "$log"
check "the workers log where they listen" $?

# ---------- 2. aws-cli ----------

cat > "$work/table.json" <<'JSON'
{
  "TableName": "ECommerceTable",
  "AttributeDefinitions": [
    {"AttributeName": "PK", "AttributeType": "S"},
    {"AttributeName": "SK", "AttributeType": "S"},
    {"AttributeName": "GSI1PK", "AttributeType": "S"},
    {"AttributeName": "GSI1SK", "AttributeType": "S"}
  ],
  "KeySchema": [
    {"AttributeName": "PK", "KeyType": "HASH"},
    {"AttributeName": "SK", "KeyType": "RANGE"}
  ],
  "GlobalSecondaryIndexes": [
    {"IndexName": "GSI1",
     "KeySchema": [{"AttributeName": "GSI1PK", "KeyType": "HASH"}, {"AttributeName": "GSI1SK", "KeyType": "RANGE"}],
     "Projection": {"ProjectionType": "ALL"}}
  ],
  "BillingMode": "PAY_PER_REQUEST"
}
JSON
ddb create-table --cli-input-json "file://$work/table.json" > "$work/out" 2>&1
check "aws-cli: create-table" $(grep -q '"TableStatus": "ACTIVE"' "$work/out"; echo $?)
timeout 60 "$aws" dynamodb wait table-exists --endpoint-url "$endpoint" --table-name ECommerceTable
check "aws-cli: wait table-exists" $?
ok=0
for i in $(seq 1 12); do
	ddb put-item --table-name ECommerceTable \
		--item "{\"PK\": {\"S\": \"CUST#123\"}, \"SK\": {\"S\": \"ORDER#2026-07-$(printf %02d "$i")\"}, \"total\": {\"N\": \"$i\"}, \"status\": {\"S\": \"pending\"}}" || ok=1
done
check "aws-cli: put-item" $ok
ddb get-item --table-name ECommerceTable --key '{"PK": {"S": "CUST#123"}, "SK": {"S": "ORDER#2026-07-03"}}' > "$work/out"
check "aws-cli: get-item" $(python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1]))["Item"]["total"] != {"N": "3"})' "$work/out"; echo $?)
ddb query --table-name ECommerceTable --key-condition-expression 'PK = :c' \
	--expression-attribute-values '{":c": {"S": "CUST#123"}}' --page-size 5 > "$work/out"
check "aws-cli: query with paging (pages of 5, 12 items)" $(python3 -c 'import json,sys; d = json.load(open(sys.argv[1])); sys.exit(d["Count"] != 12 or len(d["Items"]) != 12)' "$work/out"; echo $?)
ddb query --table-name ECommerceTable --key-condition-expression 'PK = :c' \
	--expression-attribute-values '{":c": {"S": "CUST#123"}}' --max-items 5 > "$work/out"
token=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("NextToken", ""))' "$work/out")
ddb query --table-name ECommerceTable --key-condition-expression 'PK = :c' \
	--expression-attribute-values '{":c": {"S": "CUST#123"}}' --max-items 5 --starting-token "$token" > "$work/out2"
check "aws-cli: query --max-items / --starting-token" $(python3 -c '
import json,sys
a = json.load(open(sys.argv[1]))["Items"]; b = json.load(open(sys.argv[2]))["Items"]
sys.exit(len(a) != 5 or len(b) != 5 or a[-1]["SK"]["S"] >= b[0]["SK"]["S"])' "$work/out" "$work/out2"; echo $?)
ddb scan --table-name ECommerceTable --page-size 4 > "$work/out"
check "aws-cli: scan with paging" $(python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1]))["Count"] != 12)' "$work/out"; echo $?)
ddb update-item --table-name ECommerceTable --key '{"PK": {"S": "CUST#123"}, "SK": {"S": "ORDER#2026-07-01"}}' \
	--update-expression 'SET #s = :shipped' --condition-expression '#s = :pending' \
	--expression-attribute-names '{"#s": "status"}' \
	--expression-attribute-values '{":shipped": {"S": "shipped"}, ":pending": {"S": "pending"}}' \
	--return-values ALL_NEW > "$work/out"
check "aws-cli: update-item with a condition that holds" $(grep -q '"shipped"' "$work/out"; echo $?)
ddb update-item --table-name ECommerceTable --key '{"PK": {"S": "CUST#123"}, "SK": {"S": "ORDER#2026-07-01"}}' \
	--update-expression 'SET #s = :shipped' --condition-expression '#s = :pending' \
	--expression-attribute-names '{"#s": "status"}' \
	--expression-attribute-values '{":shipped": {"S": "shipped"}, ":pending": {"S": "pending"}}' > "$work/out" 2>&1
check "aws-cli: update-item with a failing condition: ConditionalCheckFailedException" $(grep -q ConditionalCheckFailedException "$work/out"; echo $?)
cat > "$work/tx.json" <<'JSON'
[
  {"Put": {"TableName": "ECommerceTable", "Item": {"PK": {"S": "CUST#999"}, "SK": {"S": "CUST#999"}}}},
  {"ConditionCheck": {"TableName": "ECommerceTable", "Key": {"PK": {"S": "CUST#123"}, "SK": {"S": "ORDER#2026-07-02"}},
                      "ConditionExpression": "attribute_not_exists(PK)"}}
]
JSON
ddb transact-write-items --transact-items "file://$work/tx.json" > "$work/out" 2>&1
check "aws-cli: transact-write-items cancelled: TransactionCanceledException [None, ConditionalCheckFailed]" \
	$(grep -q 'TransactionCanceledException' "$work/out" && grep -q 'None, ConditionalCheckFailed' "$work/out"; echo $?)
n=$(q -c "SELECT count(*) FROM st_query('CUST#999', NULL, 'ECommerceTable')")
check "aws-cli: the cancelled transaction wrote nothing ($n)" $([ "$n" = 0 ]; echo $?)
n=$(q -c "SELECT st_get('CUST#123', 'ORDER#2026-07-01', 'ECommerceTable')->>'status'")
check "aws-cli: the update is visible in SQL ($n)" $([ "$n" = shipped ]; echo $?)
ddb delete-table --table-name NoSuchTable > "$work/out" 2>&1
check "aws-cli: delete-table of a missing table: ResourceNotFoundException" $(grep -q ResourceNotFoundException "$work/out"; echo $?)

# aws dynamodbstreams: the records of put-item / delete-item, NEW_IMAGE view
dds() { "$aws" dynamodbstreams --endpoint-url "$endpoint" --output json "$@"; }
ddb create-table --table-name CliStreamed --billing-mode PAY_PER_REQUEST \
	--attribute-definitions AttributeName=PK,AttributeType=S AttributeName=SK,AttributeType=S \
	--key-schema AttributeName=PK,KeyType=HASH AttributeName=SK,KeyType=RANGE \
	--stream-specification StreamEnabled=true,StreamViewType=NEW_IMAGE > "$work/out" 2>&1
check "aws-cli: create-table --stream-specification" $(grep -q '"LatestStreamArn"' "$work/out"; echo $?)
ok=0
ddb put-item --table-name CliStreamed --item '{"PK": {"S": "CUST#123"}, "SK": {"S": "CUST#123"}, "name": {"S": "Jane Smith"}}' || ok=1
ddb put-item --table-name CliStreamed --item '{"PK": {"S": "CUST#123"}, "SK": {"S": "ORDER#2026-07-06#001"}, "status": {"S": "pending"}}' || ok=1
ddb put-item --table-name CliStreamed --item '{"PK": {"S": "CUST#123"}, "SK": {"S": "ORDER#2026-07-06#001"}, "status": {"S": "shipped"}}' || ok=1
ddb delete-item --table-name CliStreamed --key '{"PK": {"S": "CUST#123"}, "SK": {"S": "ORDER#2026-07-06#001"}}' || ok=1
check "aws-cli: put-item / delete-item on a table with a stream" $ok
dds list-streams --table-name CliStreamed > "$work/out" 2>&1
arn=$(python3 -c 'import json,sys; s = json.load(open(sys.argv[1]))["Streams"]; print(s[0]["StreamArn"] if len(s) == 1 else "")' "$work/out" 2>/dev/null)
check "aws dynamodbstreams list-streams ($arn)" $([[ "$arn" == *":table/CliStreamed/stream/"* ]]; echo $?)
dds describe-stream --stream-arn "$arn" > "$work/out" 2>&1
shard=$(python3 -c 'import json,sys; d = json.load(open(sys.argv[1]))["StreamDescription"]
assert d["StreamStatus"] == "ENABLED" and d["StreamViewType"] == "NEW_IMAGE" and d["TableName"] == "CliStreamed"
print(d["Shards"][0]["ShardId"])' "$work/out" 2>/dev/null)
check "aws dynamodbstreams describe-stream ($shard)" $([[ "$shard" == shardId-* ]]; echo $?)
it=$(dds get-shard-iterator --stream-arn "$arn" --shard-id "$shard" --shard-iterator-type TRIM_HORIZON \
	--query ShardIterator --output text 2>"$work/err")
check "aws dynamodbstreams get-shard-iterator TRIM_HORIZON" $([ -n "$it" ] && [ "$it" != None ]; echo $?)
dds get-records --shard-iterator "$it" --limit 2 > "$work/recs1" 2>&1
it2=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["NextShardIterator"])' "$work/recs1" 2>/dev/null)
dds get-records --shard-iterator "$it2" > "$work/recs2" 2>&1
check "aws dynamodbstreams get-records: INSERT, INSERT, MODIFY, REMOVE with NEW_IMAGE's images, in two pages" $(python3 -c '
import json,sys
a = json.load(open(sys.argv[1]))["Records"]; b = json.load(open(sys.argv[2]))["Records"]
r = [x["dynamodb"] for x in a + b]
assert len(a) == 2, a
assert [x["eventName"] for x in a + b] == ["INSERT", "INSERT", "MODIFY", "REMOVE"], a + b
assert [x["Keys"]["SK"]["S"] for x in r] == ["CUST#123", "ORDER#2026-07-06#001", "ORDER#2026-07-06#001", "ORDER#2026-07-06#001"], r
assert all(x["Keys"]["PK"] == {"S": "CUST#123"} and "OldImage" not in x and x["StreamViewType"] == "NEW_IMAGE" for x in r), r
assert r[0]["NewImage"]["name"] == {"S": "Jane Smith"} and r[2]["NewImage"]["status"] == {"S": "shipped"}, r
assert "NewImage" not in r[3], r[3]
s = [int(x["SequenceNumber"]) for x in r]
assert s == sorted(s) and len(set(s)) == 4, s' "$work/recs1" "$work/recs2" 2>"$work/err"; echo $?)
ddb delete-table --table-name CliStreamed > /dev/null

# ---------- 3. boto3 and raw HTTP ----------

"$python" test/http/test_http.py "$port" trust > "$work/py.out" 2>&1
cat "$work/py.out"
p=$(sed -n 's/^http trust: \([0-9]*\) passed, \([0-9]*\) failed$/\1/p' "$work/py.out")
f=$(sed -n 's/^http trust: \([0-9]*\) passed, \([0-9]*\) failed$/\2/p' "$work/py.out")
passed=$((passed + ${p:-0}))
failed=$((failed + ${f:-1}))

# trust runs as stdesign.http_trust_role, never as a superuser unless allowed
q -c "SELECT st_api('CreateTable', '{\"TableName\": \"SuperOnly\", \"AttributeDefinitions\": [{\"AttributeName\": \"PK\", \"AttributeType\": \"S\"}], \"KeySchema\": [{\"AttributeName\": \"PK\", \"KeyType\": \"HASH\"}], \"BillingMode\": \"PAY_PER_REQUEST\"}')" \
	-c "SELECT st_put('{\"PK\": \"secret\"}', 'SuperOnly')" >/dev/null
code=$(post GetItem '{"TableName": "SuperOnly", "Key": {"PK": {"S": "secret"}}}')
check "trust: a table of a superuser's, granted to nobody: AccessDeniedException naming stdesign_http ($code)" \
	$([ "$code" = 400 ] && grep -q 'AccessDeniedException' "$work/body" && grep -q 'User: stdesign_http ' "$work/body"; echo $?)
q -c "ALTER ROLE stdesign_http SUPERUSER"
code=$(post GetItem '{"TableName": "SuperOnly", "Key": {"PK": {"S": "secret"}}}')
check "trust: the role made superuser: 503, saying what to do ($code)" \
	$([ "$code" = 503 ] && grep -q 'stdesign.http_trust_role \\"stdesign_http\\" is a superuser' "$work/body" &&
		grep -q 'stdesign.http_trust_allow_superuser = on' "$work/body"; echo $?)
q -c "ALTER SYSTEM SET stdesign.http_trust_allow_superuser = on" -c "SELECT pg_reload_conf()" >/dev/null
sleep 1
code=$(post GetItem '{"TableName": "SuperOnly", "Key": {"PK": {"S": "secret"}}}')
check "trust: ... served as a superuser once stdesign.http_trust_allow_superuser = on ($code)" \
	$([ "$code" = 200 ] && grep -q '"secret"' "$work/body"; echo $?)
q -c "ALTER SYSTEM RESET stdesign.http_trust_allow_superuser" -c "SELECT pg_reload_conf()" -c "ALTER ROLE stdesign_http NOSUPERUSER" >/dev/null
q -c "ALTER SYSTEM SET stdesign.http_trust_role = ''" -c "SELECT pg_reload_conf()" >/dev/null
sleep 1
code=$(post ListTables '{}')
check "trust: stdesign.http_trust_role empty: 503, saying so ($code)" \
	$([ "$code" = 503 ] && grep -q 'needs stdesign.http_trust_role to name the role' "$work/body"; echo $?)
q -c "ALTER SYSTEM RESET stdesign.http_trust_role" -c "SELECT pg_reload_conf()" -c "SELECT st_drop_table('SuperOnly')" >/dev/null
sleep 1
code=$(post GetItem '{"TableName": "BotoTable", "Key": {"PK": {"S": "u#1"}, "SK": {"S": "p"}}}')
check "trust: settings reset: served as stdesign_http again ($code)" $([ "$code" = 200 ]; echo $?)

# serialization failures under repeatable read: retried, then a conflict
q -c "ALTER SYSTEM SET default_transaction_isolation = 'repeatable read'" -c "SELECT pg_reload_conf()" >/dev/null
sleep 1
"$python" test/http/test_http.py "$port" conflict > "$work/py.out" 2>&1
cat "$work/py.out"
p=$(sed -n 's/^http conflict: \([0-9]*\) passed, \([0-9]*\) failed$/\1/p' "$work/py.out")
f=$(sed -n 's/^http conflict: \([0-9]*\) passed, \([0-9]*\) failed$/\2/p' "$work/py.out")
passed=$((passed + ${p:-0}))
failed=$((failed + ${f:-1}))
q -c "ALTER SYSTEM RESET default_transaction_isolation" -c "SELECT pg_reload_conf()" >/dev/null
sleep 1

# the generic 500; failures retried then answered as conflicts; a deadlock
"$python" test/http/test_http.py "$port" failures > "$work/py.out" 2>&1
cat "$work/py.out"
p=$(sed -n 's/^http failures: \([0-9]*\) passed, \([0-9]*\) failed$/\1/p' "$work/py.out")
f=$(sed -n 's/^http failures: \([0-9]*\) passed, \([0-9]*\) failed$/\2/p' "$work/py.out")
passed=$((passed + ${p:-0}))
failed=$((failed + ${f:-1}))

# a pool of keep-alive connections while one request waits for a row lock
"$python" test/http/test_http.py "$port" dispatch > "$work/py.out" 2>&1
cat "$work/py.out"
p=$(sed -n 's/^http dispatch: \([0-9]*\) passed, \([0-9]*\) failed$/\1/p' "$work/py.out")
f=$(sed -n 's/^http dispatch: \([0-9]*\) passed, \([0-9]*\) failed$/\2/p' "$work/py.out")
passed=$((passed + ${p:-0}))
failed=$((failed + ${f:-1}))

# the bounds: framing, bodies without credentials, bytes and connections
"$python" test/http/test_http.py "$port" bounds > "$work/py.out" 2>&1
cat "$work/py.out"
p=$(sed -n 's/^http bounds: \([0-9]*\) passed, \([0-9]*\) failed$/\1/p' "$work/py.out")
f=$(sed -n 's/^http bounds: \([0-9]*\) passed, \([0-9]*\) failed$/\2/p' "$work/py.out")
passed=$((passed + ${p:-0}))
failed=$((failed + ${f:-1}))

# ---------- 4. the JavaScript SDK and dynamodb-admin ----------

if (cd test/http && npm ci --no-audit --no-fund --silent >"$work/npm.out" 2>&1); then
	node test/http/sdk_test.mjs "$endpoint" > "$work/js.out" 2>&1
	cat "$work/js.out"
	p=$(sed -n 's/^http js: \([0-9]*\) passed, \([0-9]*\) failed$/\1/p' "$work/js.out")
	f=$(sed -n 's/^http js: \([0-9]*\) passed, \([0-9]*\) failed$/\2/p' "$work/js.out")
	passed=$((passed + ${p:-0}))
	failed=$((failed + ${f:-1}))

	admin_port=$(free_port)
	node test/http/node_modules/dynamodb-admin/dist/dynamodb-admin.js --host 127.0.0.1 \
		--port "$admin_port" --dynamo-endpoint "$endpoint" > "$work/admin.out" 2>&1 &
	admin_pid=$!
	wait_for curl -sf "http://127.0.0.1:$admin_port/"
	curl -s "http://127.0.0.1:$admin_port/" > "$work/admin_index.html"
	check "dynamodb-admin: the table list names ECommerceTable" $(grep -q ECommerceTable "$work/admin_index.html"; echo $?)
	code=$(curl -s -o "$work/admin_table.html" -w '%{http_code}' "http://127.0.0.1:$admin_port/tables/ECommerceTable")
	check "dynamodb-admin: the table page ($code)" $([ "$code" = 200 ] && grep -q "ECommerceTable" "$work/admin_table.html"; echo $?)
	code=$(curl -s -o "$work/admin_items.json" -w '%{http_code}' "http://127.0.0.1:$admin_port/tables/ECommerceTable/items")
	check "dynamodb-admin: the table's items ($code)" $([ "$code" = 200 ] && grep -q "CUST#123" "$work/admin_items.json"; echo $?)
	code=$(curl -s -o "$work/admin_ttl.html" -w '%{http_code}' "http://127.0.0.1:$admin_port/tables/ECommerceTable/ttl")
	check "dynamodb-admin: the table's TTL page (DescribeTimeToLive) ($code)" $([ "$code" = 200 ]; echo $?)
	kill "$admin_pid" 2>/dev/null
	wait "$admin_pid" 2>/dev/null
	admin_pid=""
else
	cat "$work/npm.out"
	check "npm ci in test/http" 1
fi

# ---------- 5. sigv4 ----------

q >/dev/null <<'SQL'
ALTER SYSTEM SET stdesign.http_auth = 'sigv4';
SELECT pg_reload_conf();
CREATE ROLE stdesign_http_reader;
SQL
sleep 1
keys=$(q -F ' ' -c "SELECT access_key_id, secret_access_key FROM st_create_access_key(current_user::regrole)")
rkeys=$(q -F ' ' -c "SELECT access_key_id, secret_access_key FROM st_create_access_key('stdesign_http_reader')")
n=$(q -c "SELECT count(*) FROM st_list_access_keys() WHERE enabled")
check "st_create_access_key / st_list_access_keys ($n keys)" $([ "$n" = 2 ] && [[ "$keys" =~ ^STDK[A-Z0-9]{16}\ [A-Za-z0-9]{40}$ ]]; echo $?)
n=$(q -c "SET ROLE stdesign_http_reader; SELECT count(*) FROM stdesign.access_keys" 2>&1)
check "the key table is not readable by other roles" $([[ "$n" == *"permission denied"* ]]; echo $?)
code=$(post ListTables '{}')
check "sigv4: the fake signature is refused after the reload ($code)" $([ "$code" = 400 ] && grep -q IncompleteSignatureException "$work/body"; echo $?)
# shellcheck disable=SC2086
"$python" test/http/test_http.py "$port" sigv4 $keys $rkeys > "$work/py.out" 2>&1
cat "$work/py.out"
p=$(sed -n 's/^http sigv4: \([0-9]*\) passed, \([0-9]*\) failed$/\1/p' "$work/py.out")
f=$(sed -n 's/^http sigv4: \([0-9]*\) passed, \([0-9]*\) failed$/\2/p' "$work/py.out")
passed=$((passed + ${p:-0}))
failed=$((failed + ${f:-1}))
# real clients sign X-Amz-Target and every other x-amz-* header they send:
# aws-cli, the JavaScript SDK and dynamodb-admin with the key
read -r key_id key_secret <<<"$keys"
AWS_ACCESS_KEY_ID=$key_id AWS_SECRET_ACCESS_KEY=$key_secret ddb get-item --table-name ECommerceTable \
	--key '{"PK": {"S": "CUST#123"}, "SK": {"S": "ORDER#2026-07-03"}}' > "$work/out" 2>&1
check "sigv4: aws-cli get-item with a key" $(grep -q '"CUST#123"' "$work/out"; echo $?)
AWS_ACCESS_KEY_ID=$key_id AWS_SECRET_ACCESS_KEY=${key_secret}x ddb list-tables > "$work/out" 2>&1
check "sigv4: aws-cli with a wrong secret: InvalidSignatureException" $(grep -q InvalidSignatureException "$work/out"; echo $?)
if [ -d test/http/node_modules ]; then
	(cd test/http && node --input-type=module -e '
import { DynamoDBClient, ListTablesCommand, GetItemCommand } from "@aws-sdk/client-dynamodb";
const [endpoint, accessKeyId, secretAccessKey] = process.argv.slice(1);
const c = new DynamoDBClient({ endpoint, region: "us-east-1", maxAttempts: 1, credentials: { accessKeyId, secretAccessKey } });
const t = await c.send(new ListTablesCommand({}));
const g = await c.send(new GetItemCommand({ TableName: "ECommerceTable", Key: { PK: { S: "CUST#123" }, SK: { S: "ORDER#2026-07-03" } } }));
console.log(t.TableNames.includes("ECommerceTable") && g.Item ? "js ok" : "js wrong");
' "$endpoint" $keys) > "$work/js.out" 2>&1
	check "sigv4: the JavaScript SDK with a key" $(grep -q '^js ok$' "$work/js.out"; echo $?)
	# (by default dynamodb-admin sends a made-up session token, which keys refuse)
	admin_port=$(free_port)
	AWS_ACCESS_KEY_ID=$key_id AWS_SECRET_ACCESS_KEY=$key_secret AWS_REGION=us-east-1 \
		node test/http/node_modules/dynamodb-admin/dist/dynamodb-admin.js --skip-default-credentials \
		--host 127.0.0.1 --port "$admin_port" --dynamo-endpoint "$endpoint" > "$work/admin.out" 2>&1 &
	admin_pid=$!
	wait_for curl -sf "http://127.0.0.1:$admin_port/"
	code=$(curl -s -o "$work/admin_items.json" -w '%{http_code}' "http://127.0.0.1:$admin_port/tables/ECommerceTable/items")
	check "sigv4: dynamodb-admin with a key: the table's items ($code)" $([ "$code" = 200 ] && grep -q "CUST#123" "$work/admin_items.json"; echo $?)
	kill "$admin_pid" 2>/dev/null
	wait "$admin_pid" 2>/dev/null
	admin_pid=""
fi
# an unknown key's large body; one role's workers and lock waits bounded
# shellcheck disable=SC2086
"$python" test/http/test_http.py "$port" roles $keys > "$work/py.out" 2>&1
cat "$work/py.out"
p=$(sed -n 's/^http roles: \([0-9]*\) passed, \([0-9]*\) failed$/\1/p' "$work/py.out")
f=$(sed -n 's/^http roles: \([0-9]*\) passed, \([0-9]*\) failed$/\2/p' "$work/py.out")
passed=$((passed + ${p:-0}))
failed=$((failed + ${f:-1}))
q -c "SELECT st_drop_access_key(access_key_id) FROM st_list_access_keys() WHERE role = 'stdesign_http_reader'" >/dev/null
n=$(q -c "SELECT count(*) FROM st_list_access_keys()")
check "st_drop_access_key ($n left)" $([ "$n" = 2 ]; echo $?)
grep -qE "$(echo "$keys" | cut -d' ' -f2)|Authorization: AWS4" "$log"
check "no secret nor Authorization header in the server log" $([ $? -ne 0 ]; echo $?)
q -c "ALTER SYSTEM SET stdesign.http_auth = 'trust'" -c "SELECT pg_reload_conf()" >/dev/null
sleep 1

# ---------- 6. resilience ----------

# A request that waits: a session holds the table's relation locked.
relation=$(q -c "SELECT relation_name FROM stdesign.tables WHERE table_name = 'ECommerceTable'")
# hold_lock S: another session holds the table's relation in ACCESS
# EXCLUSIVE mode for S seconds; returns once the lock is granted (a busy
# machine, or a server just restarted, can take longer than a fixed sleep).
lock_held() {
	[ -n "$(q -c "SELECT 1 FROM pg_locks WHERE relation = 'stdesign_data.\"$relation\"'::regclass AND mode = 'AccessExclusiveLock' AND granted")" ]
}
hold_lock() {
	psql -X -q -c "BEGIN" -c "LOCK TABLE stdesign_data.\"$relation\" IN ACCESS EXCLUSIVE MODE" -c "SELECT pg_sleep($1)" >/dev/null 2>&1 &
	wait_for lock_held
}
blocked_put() {
	post PutItem '{"TableName": "ECommerceTable", "Item": {"PK": {"S": "BLOCKED"}, "SK": {"S": "'"$1"'"}}}' > "$work/code.$1"
}
active_worker() { q -c "SELECT pid FROM pg_stat_activity WHERE backend_type = 'stdesign http worker' AND state = 'active' AND query LIKE '%PutItem%'"; }
worker_active() { [ -n "$(active_worker)" ]; }

hold_lock 30
blocked_put cancel &
cpid=$!
wait_for worker_active
wpid=$(active_worker)
check "a running request shows in pg_stat_activity (pid $wpid)" $([ -n "$wpid" ]; echo $?)
q -c "SELECT pg_cancel_backend($wpid)" >/dev/null
wait $cpid
check "pg_cancel_backend: the request ends with 500 ($(cat "$work/code.cancel"))" $([ "$(cat "$work/code.cancel")" = 500 ]; echo $?)
code=$(post ListTables '{}')
check "pg_cancel_backend: the worker carries on" $([ "$code" = 200 ] && workers_up; echo $?)
q -c "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE query LIKE '%pg_sleep%' AND pid <> pg_backend_pid()" >/dev/null
sleep 0.5

q -c "ALTER SYSTEM SET stdesign.http_request_timeout = '1s'" -c "SELECT pg_reload_conf()" >/dev/null
sleep 1
hold_lock 30
start=$(date +%s)
blocked_put timeout
took=$(($(date +%s) - start))
check "reload: stdesign.http_request_timeout = 1s ends a blocked request (500 after ${took}s)" \
	$([ "$(cat "$work/code.timeout")" = 500 ] && [ "$took" -le 5 ]; echo $?)
q -c "ALTER SYSTEM RESET stdesign.http_request_timeout" -c "SELECT pg_reload_conf()" >/dev/null
q -c "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE query LIKE '%pg_sleep%' AND pid <> pg_backend_pid()" >/dev/null
sleep 1

# kill -9 of the worker in the middle of a request
hold_lock 30
blocked_put kill &
kpid=$!
wait_for worker_active
wpid=$(active_worker)
kill -9 "$wpid"
wait $kpid
check "kill -9 of a worker mid-request: the client sees the connection fail ($(cat "$work/code.kill"))" \
	$([ "$(cat "$work/code.kill")" != 200 ]; echo $?)
wait_for q -c "SELECT 1"
wait_for workers_up
check "kill -9: the workers come back (crash restart)" $?
wait_for served
check "kill -9: requests are served again" $?
n=$(q -c "SELECT count(*) FROM st_query('BLOCKED', NULL, 'ECommerceTable')")
check "kill -9: nothing of the killed request was written ($n)" $([ "$n" = 0 ]; echo $?)

# fast shutdown while a request waits: for a lock a prepared transaction
# holds, which the shutdown keeps (a session holding it would be ended by
# the same shutdown, and the request could go through before its own end)
q -c "BEGIN" -c "LOCK TABLE stdesign_data.\"$relation\" IN ACCESS EXCLUSIVE MODE" \
	-c "PREPARE TRANSACTION 'http_tests_hold'" >/dev/null
blocked_put shutdown &
spid=$!
wait_for worker_active
timeout 60 bash test/scripts/tmp_cluster.sh ctl stop -m fast
check "fast shutdown during a request: the server stops" $?
wait $spid
bash test/scripts/tmp_cluster.sh ctl start
wait_for workers_up
check "after the restart the workers are back" $?
q -c "ROLLBACK PREPARED 'http_tests_hold'" >/dev/null
n=$(q -c "SELECT count(*) FROM st_query('BLOCKED', NULL, 'ECommerceTable')")
check "fast shutdown: the interrupted request wrote nothing ($n)" $([ "$n" = 0 ]; echo $?)

# a port that another program holds: a loud error, never another port
taken=$(free_port)
python3 -c 'import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(); time.sleep(60)' "$taken" &
holder=$!
# listening before the restart (python starts slowly on a busy machine)
wait_for bash -c "exec 3<>/dev/tcp/127.0.0.1/$taken"
q -c "ALTER SYSTEM SET stdesign.http_port = $taken" >/dev/null
bash test/scripts/tmp_cluster.sh ctl restart
wait_for grep -q "could not bind the HTTP endpoint to 127.0.0.1 port $taken" "$log"
check "port taken: the server log says so" $?
n=$(q -c "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'stdesign http worker'")
check "port taken: no worker serves ($n)" $([ "$n" = 0 ]; echo $?)
kill "$holder"
wait "$holder" 2>/dev/null

# too few max_worker_processes
q -c "ALTER SYSTEM SET stdesign.http_port = $port" -c "ALTER SYSTEM SET max_worker_processes = 2" >/dev/null
bash test/scripts/tmp_cluster.sh ctl restart
grep -q "stdesign.http_workers = 2 but max_worker_processes = 2: starting 1 HTTP workers" "$log"
check "too few max_worker_processes: a clear log message" $?
wait_for served
check "too few max_worker_processes: the one worker that fits serves" $?
q -c "ALTER SYSTEM RESET max_worker_processes" >/dev/null

# ---------- 7. the API fuzzer ----------

# every member of every operation replaced by null, wrong types, empty and
# oversized values, and mutated PartiQL, through st_api, st_partiql and the
# endpoint (test/fuzz/api_fuzz.py; make fuzz-api runs it longer)
wait_for served
"$python" test/fuzz/api_fuzz.py --port "$port" --log "$log" --seconds "${FUZZ_SECONDS:-60}" \
	--seed "${FUZZ_SEED:-26}" > "$work/fuzz.out" 2>&1
rc=$?
cat "$work/fuzz.out"
check "API fuzzer: no crash and only DynamoDB's errors ($(tail -n 1 "$work/fuzz.out"))" $rc

[ "$failed" -eq 0 ] || tail -n 60 "$log"
echo "http: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
