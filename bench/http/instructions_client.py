#!/usr/bin/python3
"""Client of bench/http/instructions.sh: N requests of one operation, each
of which must succeed, either over one keep-alive HTTP connection or, with
"sql", through one libpq session calling a prepared
SELECT st_api($1, $2::jsonb) with the same bodies (the in-database call the
endpoint is compared with); that session's backend process id is printed.

    instructions_client.py PORT OP N [trust | sigv4 KEY SECRET | sql]

Under trust any AWS4- Authorization header serves; under sigv4 every
request is signed (the signing key derived per request, as the SDKs do)."""
import ctypes
import datetime
import hashlib
import hmac
import http.client
import json
import sys

port, op, n = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
mode = sys.argv[4] if len(sys.argv) > 4 else "trust"


def key(i):
    return {"PK": {"S": "K#%d" % (i % 100)}, "SK": {"S": "S"}}


def body(i):
    if op == "GetItem":
        b = {"TableName": "Bench", "Key": key(i)}
    elif op == "Query":
        b = {"TableName": "Bench", "KeyConditionExpression": "PK = :q",
             "ExpressionAttributeValues": {":q": {"S": "Q"}}}
    elif op == "PutItem":
        b = {"TableName": "Bench", "Item": dict(key(i), v={"N": str(i)}, pad={"S": "x" * 100})}
    elif op == "UpdateItem":
        b = {"TableName": "Bench", "Key": key(i), "UpdateExpression": "ADD c :one",
             "ExpressionAttributeValues": {":one": {"N": "1"}}}
    elif op == "BatchGetItem":
        b = {"RequestItems": {"Bench": {"Keys": [key(j) for j in range(100)]}}}
    elif op == "TransactWriteItems":
        b = {"TransactItems": [{"Put": {"TableName": "Bench",
                                        "Item": dict(key(4 * i + j), v={"N": str(i)}, pad={"S": "x" * 100})}}
                               for j in range(4)]}
    else:
        sys.exit("instructions_client: no request for " + op)
    return json.dumps(b, separators=(",", ":"))


def sign(headers, text, key_id, secret):
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    h = {"content-type": headers["Content-Type"], "host": "127.0.0.1:%d" % port,
         "x-amz-date": now, "x-amz-target": headers["X-Amz-Target"]}
    names = sorted(h)
    creq = "POST\n/\n\n%s\n%s\n%s" % ("".join("%s:%s\n" % (k, h[k]) for k in names), ";".join(names),
                                     hashlib.sha256(text.encode()).hexdigest())
    scope = "%s/us-east-1/dynamodb/aws4_request" % now[:8]
    sts = "AWS4-HMAC-SHA256\n%s\n%s\n%s" % (now, scope, hashlib.sha256(creq.encode()).hexdigest())
    k = ("AWS4" + secret).encode()
    for p in (now[:8], "us-east-1", "dynamodb", "aws4_request"):
        k = hmac.new(k, p.encode(), hashlib.sha256).digest()
    sig = hmac.new(k, sts.encode(), hashlib.sha256).hexdigest()
    out = dict(headers)
    out["X-Amz-Date"] = now
    out["Authorization"] = "AWS4-HMAC-SHA256 Credential=%s/%s, SignedHeaders=%s, Signature=%s" % (
        key_id, scope, ";".join(names), sig)
    return out


def over_sql():
    pq = ctypes.CDLL("libpq.so.5")
    pq.PQconnectdb.restype = ctypes.c_void_p
    pq.PQconnectdb.argtypes = [ctypes.c_char_p]
    pq.PQstatus.argtypes = [ctypes.c_void_p]
    pq.PQbackendPID.argtypes = [ctypes.c_void_p]
    pq.PQerrorMessage.restype = ctypes.c_char_p
    pq.PQerrorMessage.argtypes = [ctypes.c_void_p]
    pq.PQprepare.restype = ctypes.c_void_p
    pq.PQprepare.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int, ctypes.c_void_p]
    pq.PQexecPrepared.restype = ctypes.c_void_p
    pq.PQexecPrepared.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int, ctypes.c_void_p,
                                  ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int]
    pq.PQresultStatus.argtypes = [ctypes.c_void_p]
    pq.PQclear.argtypes = [ctypes.c_void_p]
    pq.PQfinish.argtypes = [ctypes.c_void_p]
    conn = pq.PQconnectdb(b"")
    if pq.PQstatus(conn) != 0:
        sys.exit("instructions_client: " + pq.PQerrorMessage(conn).decode())
    res = pq.PQprepare(conn, b"q", b"SELECT st_api($1, $2::jsonb)", 2, None)
    if pq.PQresultStatus(res) != 1:     # PGRES_COMMAND_OK
        sys.exit("instructions_client: " + pq.PQerrorMessage(conn).decode())
    pq.PQclear(res)
    args = (ctypes.c_char_p * 2)()
    for i in range(n):
        args[0] = op.encode()
        args[1] = body(i).encode()
        res = pq.PQexecPrepared(conn, b"q", 2, args, None, None, 0)
        if pq.PQresultStatus(res) != 2:     # PGRES_TUPLES_OK
            sys.exit("instructions_client: %s failed: %s" % (op, pq.PQerrorMessage(conn).decode()))
        pq.PQclear(res)
    print(pq.PQbackendPID(conn))
    pq.PQfinish(conn)


if mode == "sql":
    over_sql()
    sys.exit(0)
conn = http.client.HTTPConnection("127.0.0.1", port)
base = {"Content-Type": "application/x-amz-json-1.0", "X-Amz-Target": "DynamoDB_20120810." + op,
        "Authorization": "AWS4-HMAC-SHA256 Credential=AKID/20260101/us-east-1/dynamodb/aws4_request, "
                         "SignedHeaders=host, Signature=00"}
for i in range(n):
    text = body(i)
    headers = sign(base, text, sys.argv[5], sys.argv[6]) if mode == "sigv4" else base
    conn.request("POST", "/", text, headers)
    resp = conn.getresponse()
    answer = resp.read()
    if resp.status != 200:
        sys.exit("instructions_client: %s answered %d: %s" % (op, resp.status, answer[:300]))
