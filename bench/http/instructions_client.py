#!/usr/bin/python3
"""Client of bench/http/instructions.sh: N requests of one operation over
one keep-alive connection, under trust (any AWS4- Authorization header
serves), each of which must succeed."""
import http.client
import json
import sys

port, op, n = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
conn = http.client.HTTPConnection("127.0.0.1", port)
headers = {"Content-Type": "application/x-amz-json-1.0", "X-Amz-Target": "DynamoDB_20120810." + op,
           "Authorization": "AWS4-HMAC-SHA256 Credential=AKID/20260101/us-east-1/dynamodb/aws4_request, "
                            "SignedHeaders=host, Signature=00"}
for i in range(n):
    key = {"PK": {"S": "K#%d" % (i % 100)}, "SK": {"S": "S"}}
    if op == "GetItem":
        body = {"TableName": "Bench", "Key": key}
    elif op == "Query":
        body = {"TableName": "Bench", "KeyConditionExpression": "PK = :q",
                "ExpressionAttributeValues": {":q": {"S": "Q"}}}
    elif op == "PutItem":
        body = {"TableName": "Bench", "Item": dict(key, v={"N": str(i)}, pad={"S": "x" * 100})}
    else:
        sys.exit("instructions_client: no request for " + op)
    conn.request("POST", "/", json.dumps(body), headers)
    resp = conn.getresponse()
    text = resp.read()
    if resp.status != 200:
        sys.exit("instructions_client: %s answered %d: %s" % (op, resp.status, text[:300]))
