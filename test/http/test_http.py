#!/usr/bin/python3
"""stdesign's HTTP endpoint seen by boto3 and by raw HTTP.

    test_http.py PORT trust
    test_http.py PORT conflict
    test_http.py PORT failures
    test_http.py PORT dispatch
    test_http.py PORT bounds
    test_http.py PORT sigv4 KEY SECRET READER_KEY READER_SECRET
    test_http.py PORT roles KEY SECRET

HTTP_SERVER_LOG names the server's log file (the checks that read it fail
without it).

Run by test/scripts/http_tests.sh against a server whose workers listen on
127.0.0.1:PORT.  Prints one line per check and ends with
"http <mode>: N passed, N failed" (exit status 1 on any failure).
"""
import datetime
import gzip
import hashlib
import hmac
import http.client
import json
import os
import re
import select
import urllib.parse
import socket
import subprocess
import sys
import threading
import time
import zlib

import boto3
import botocore.config
import botocore.exceptions

PORT = int(sys.argv[1])
MODE = sys.argv[2]
ENDPOINT = "http://127.0.0.1:%d" % PORT
passed = 0
failed = 0


def check(name, ok, info=""):
    global passed, failed
    if ok:
        passed += 1
        print("ok      %s" % name)
    else:
        failed += 1
        print("FAILED  %s %s" % (name, info))


def client(key="AKIDEXAMPLE", secret="secret"):
    return boto3.client(
        "dynamodb", endpoint_url=ENDPOINT, region_name="us-east-1",
        aws_access_key_id=key, aws_secret_access_key=secret,
        config=botocore.config.Config(retries={"max_attempts": 1}))


def error_code(fn):
    try:
        fn()
    except botocore.exceptions.ClientError as e:
        return e.response["Error"]["Code"], e.response
    return None, None


def sql(query):
    return subprocess.run(["psql", "-X", "-At", "-c", query], capture_output=True,
                          text=True).stdout.strip()


def server_log():
    path = os.environ.get("HTTP_SERVER_LOG")
    if not path:
        return ""
    with open(path, errors="replace") as f:
        return f.read()


def relation(table):
    return sql("SELECT relation_name FROM stdesign.tables WHERE table_name = '%s'" % table)


def signature(secret, now, region, creq, key_date=None):
    """key_date: derive the signing key for another date than the scope's (a wrong signature)."""
    scope = "%s/%s/dynamodb/aws4_request" % (now[:8], region)
    sts = "AWS4-HMAC-SHA256\n%s\n%s\n%s" % (now, scope, hashlib.sha256(creq.encode()).hexdigest())
    k = ("AWS4" + secret).encode()
    for part in (key_date or now[:8], region, "dynamodb", "aws4_request"):
        k = hmac.new(k, part.encode(), hashlib.sha256).digest()
    return scope, hmac.new(k, sts.encode(), hashlib.sha256).hexdigest()


def sign(headers, body, key, secret, amz_date=None, region="us-east-1", only=None):
    """SigV4 as the SDKs compute it (for requests the SDKs cannot send);
    only: sign those headers alone (lower case), but send them all."""
    now = amz_date or datetime.datetime.utcnow().strftime("%Y%m%dT%H%M%SZ")
    headers = dict(headers)
    headers["X-Amz-Date"] = now
    headers["Host"] = "127.0.0.1:%d" % PORT
    names = sorted(only if only is not None else (h.lower() for h in headers))
    canon = "".join("%s:%s\n" % (n, [v for k, v in headers.items() if k.lower() == n][0].strip())
                    for n in names)
    signed = ";".join(names)
    creq = "POST\n/\n\n%s\n%s\n%s" % (canon, signed, hashlib.sha256(body).hexdigest())
    scope, sig = signature(secret, now, region, creq)
    headers["Authorization"] = "AWS4-HMAC-SHA256 Credential=%s/%s, SignedHeaders=%s, Signature=%s" % (
        key, scope, signed, sig)
    return headers


def presign(headers, body, key, secret, expires=300, amz_date=None, extra=None, key_date=None, only=None):
    """A presigned request: the signature in the query string (its path);
    only: sign those headers alone (lower case), but send them all."""
    now = amz_date or datetime.datetime.utcnow().strftime("%Y%m%dT%H%M%SZ")
    headers = dict(headers, Host="127.0.0.1:%d" % PORT)
    names = sorted(only if only is not None else (h.lower() for h in headers))
    canon = "".join("%s:%s\n" % (n, [v for k, v in headers.items() if k.lower() == n][0].strip())
                    for n in names)
    q = {"X-Amz-Algorithm": "AWS4-HMAC-SHA256",
         "X-Amz-Credential": "%s/%s/us-east-1/dynamodb/aws4_request" % (key, now[:8]),
         "X-Amz-Date": now, "X-Amz-SignedHeaders": ";".join(names)}
    if expires is not None:
        q["X-Amz-Expires"] = str(expires)
    q.update(extra or {})
    enc = lambda v: urllib.parse.quote(v, safe="-_.~")
    cq = "&".join("%s=%s" % (enc(k), enc(v)) for k, v in sorted(q.items()))
    creq = "POST\n/\n%s\n%s\n%s\n%s" % (cq, canon, ";".join(names), hashlib.sha256(body).hexdigest())
    _, sig = signature(secret, now, "us-east-1", creq, key_date)
    return headers, "/?" + cq + "&X-Amz-Signature=" + sig


FAKE_AUTH = "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20250101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=00"


def raw(op, body, headers=None, conn=None, method="POST", auth=True, path="/"):
    h = {"Content-Type": "application/x-amz-json-1.0"}
    if op:
        h["X-Amz-Target"] = "DynamoDB_20120810." + op
    if auth:
        h["Authorization"] = FAKE_AUTH
    h.update(headers or {})
    if isinstance(body, str):
        body = body.encode()
    c = conn or http.client.HTTPConnection("127.0.0.1", PORT, timeout=30)
    c.request(method, path, body=body, headers=h)
    r = c.getresponse()
    data = r.read()
    if conn is None:
        c.close()
    return r, data


def err_type(data):
    try:
        return json.loads(data).get("__type")
    except Exception:
        return None


def make_table(c, name):
    try:
        c.create_table(TableName=name,
                       AttributeDefinitions=[{"AttributeName": "PK", "AttributeType": "S"},
                                             {"AttributeName": "SK", "AttributeType": "S"}],
                       KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"},
                                  {"AttributeName": "SK", "KeyType": "RANGE"}],
                       BillingMode="PAY_PER_REQUEST")
    except botocore.exceptions.ClientError as e:
        if e.response["Error"]["Code"] != "ResourceInUseException":
            raise


# ---------------------------------------------------------------- DynamoDB Streams

def streams_tests():
    """The e-commerce writes of a cart read back with boto3's dynamodbstreams client."""
    c = client()
    st = boto3.client("dynamodbstreams", endpoint_url=ENDPOINT, region_name="us-east-1",
                      aws_access_key_id="AKIDEXAMPLE", aws_secret_access_key="secret",
                      config=botocore.config.Config(retries={"max_attempts": 1}))
    try:
        c.delete_table(TableName="BotoStreamed")
    except botocore.exceptions.ClientError:
        pass
    d = c.create_table(TableName="BotoStreamed",
                       AttributeDefinitions=[{"AttributeName": "PK", "AttributeType": "S"},
                                             {"AttributeName": "SK", "AttributeType": "S"}],
                       KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"},
                                  {"AttributeName": "SK", "KeyType": "RANGE"}],
                       BillingMode="PAY_PER_REQUEST",
                       StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"})
    arn = d["TableDescription"].get("LatestStreamArn")
    check("streams: CreateTable answers with the stream", arn is not None and
          d["TableDescription"].get("StreamSpecification") ==
          {"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"}, d["TableDescription"])
    c.put_item(TableName="BotoStreamed", Item={"PK": {"S": "CUST#123"}, "SK": {"S": "ORDER#2026-07-01"},
                                               "status": {"S": "PLACED"}})
    c.update_item(TableName="BotoStreamed", Key={"PK": {"S": "CUST#123"}, "SK": {"S": "ORDER#2026-07-01"}},
                  UpdateExpression="SET #s = :s", ExpressionAttributeNames={"#s": "status"},
                  ExpressionAttributeValues={":s": {"S": "SHIPPED"}})
    c.delete_item(TableName="BotoStreamed", Key={"PK": {"S": "CUST#123"}, "SK": {"S": "ORDER#2026-07-01"}})
    streams = st.list_streams(TableName="BotoStreamed")["Streams"]
    check("streams: ListStreams", [s["StreamArn"] for s in streams] == [arn], streams)
    desc = st.describe_stream(StreamArn=arn)["StreamDescription"]
    check("streams: DescribeStream", desc["StreamStatus"] == "ENABLED" and desc["TableName"] == "BotoStreamed"
          and len(desc["Shards"]) == 1 and desc["KeySchema"][0]["AttributeName"] == "PK", desc)
    shard = desc["Shards"][0]["ShardId"]
    it = st.get_shard_iterator(StreamArn=arn, ShardId=shard, ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
    page = st.get_records(ShardIterator=it)
    events = [r["eventName"] for r in page["Records"]]
    check("streams: GetRecords gives the writes in order", events == ["INSERT", "MODIFY", "REMOVE"], events)
    mod = page["Records"][1]["dynamodb"]
    check("streams: a MODIFY's images", mod["NewImage"]["status"] == {"S": "SHIPPED"}
          and mod["OldImage"]["status"] == {"S": "PLACED"} and mod["StreamViewType"] == "NEW_AND_OLD_IMAGES", mod)
    seq = page["Records"][0]["dynamodb"]["SequenceNumber"]
    after = st.get_shard_iterator(StreamArn=arn, ShardId=shard, ShardIteratorType="AFTER_SEQUENCE_NUMBER",
                                  SequenceNumber=seq)["ShardIterator"]
    events = [r["eventName"] for r in st.get_records(ShardIterator=after, Limit=1)["Records"]]
    check("streams: AFTER_SEQUENCE_NUMBER, Limit", events == ["MODIFY"], events)
    nxt = page.get("NextShardIterator")
    check("streams: an open shard's next iterator, no records yet",
          nxt is not None and st.get_records(ShardIterator=nxt)["Records"] == [])
    code, _ = error_code(lambda: st.get_records(ShardIterator=it[:-1] + ("0" if it[-1] != "0" else "1")))
    check("streams: a changed iterator is refused", code == "ValidationException", code)
    code, _ = error_code(lambda: st.describe_stream(StreamArn=arn.rsplit("/", 1)[0] + "/2000-01-01T00:00:00.000"))
    check("streams: an unknown stream", code == "ResourceNotFoundException", code)
    code, _ = error_code(lambda: st.get_shard_iterator(StreamArn=arn, ShardId=shard,
                                                       ShardIteratorType="AT_SEQUENCE_NUMBER",
                                                       SequenceNumber="9" * 30))
    check("streams: a sequence number outside the shard", code == "ValidationException", code)
    code, _ = error_code(lambda: c.update_table(TableName="BotoStreamed", StreamSpecification={
        "StreamEnabled": True, "StreamViewType": "KEYS_ONLY"}))
    check("streams: enabling an enabled stream", code == "ValidationException", code)
    # The endpoint writes GetRecords' text itself (ops/stream_read.c): the
    # same text as st_api's answer printed by jsonb, for images with every
    # kind of value and strings that need escapes (the role is trust's)
    c.put_item(TableName="BotoStreamed", Item={
        "PK": {"S": "CUST#123"}, "SK": {"S": "ESCAPES"},
        "q": {"S": 'say "hi"\\ back\n\ttab\u0001\u001f \u00e9 \u6f22 \U0001f600 </x>'},
        'we"ird\\key': {"S": ""},
        "m": {"M": {"zz": {"L": [{"N": "1.50"}, {"BOOL": True}, {"NULL": True}, {"L": []}]},
                    "a": {"SS": ["x", "y"]}, "e": {"M": {}}}},
        "b": {"B": b"\x00\x01\x02"}, "n": {"N": "-12.5e3"}})
    after = st.get_shard_iterator(StreamArn=arn, ShardId=shard, ShardIteratorType="AFTER_SEQUENCE_NUMBER",
                                  SequenceNumber=page["Records"][2]["dynamodb"]["SequenceNumber"])["ShardIterator"]
    r, data = raw(None, json.dumps({"ShardIterator": after}),
                  headers={"X-Amz-Target": "DynamoDBStreams_20120810.GetRecords"})
    text = data.decode()
    want = sql("SET ROLE stdesign_http; SELECT st_api('GetRecords', jsonb_build_object('ShardIterator', '%s'))::text"
               % after.replace("'", "''")).splitlines()[-1]
    cut = ', "NextShardIterator": '
    check("streams: GetRecords' text is jsonb's text of the answer (escapes, every type)",
          r.status == 200 and '"ESCAPES"' in text and cut in text and cut in want and
          text.split(cut)[0] == want.split(cut)[0], (text, want))
    r, data = raw("GetRecords", json.dumps({"ShardIterator": it}))
    check("streams: GetRecords is no DynamoDB_20120810 operation", r.status == 400
          and "UnknownOperation" in data.decode(), data)
    c.delete_table(TableName="BotoStreamed")
    # the cart's three writes and the item of escapes
    check("streams: a deleted table's stream stays readable",
          len(st.get_records(ShardIterator=st.get_shard_iterator(
              StreamArn=arn, ShardId=shard, ShardIteratorType="TRIM_HORIZON")["ShardIterator"])["Records"]) == 4)


# ---------------------------------------------------------------- trust mode

def trust_tests():
    streams_tests()
    c = client()
    make_table(c, "BotoTable")
    c.put_item(TableName="BotoTable", Item={"PK": {"S": "u#1"}, "SK": {"S": "p"}, "n": {"N": "1"}})
    got = c.get_item(TableName="BotoTable", Key={"PK": {"S": "u#1"}, "SK": {"S": "p"}})
    check("boto3: put then get", got.get("Item", {}).get("n") == {"N": "1"}, got)
    check("boto3: what HTTP wrote is visible in SQL",
          sql("""SELECT st_get('u#1', 'p', 'BotoTable')->>'n'""") == "1")
    sql("""SELECT st_put('{"PK": "u#2", "SK": "p", "from": "sql"}', 'BotoTable')""")
    got = c.get_item(TableName="BotoTable", Key={"PK": {"S": "u#2"}, "SK": {"S": "p"}})
    check("boto3: what SQL wrote is visible over HTTP", got.get("Item", {}).get("from") == {"S": "sql"})

    code, _ = error_code(lambda: c.get_item(TableName="NoSuchTable", Key={"PK": {"S": "x"}}))
    check("boto3: ResourceNotFoundException", code == "ResourceNotFoundException", code)
    code, _ = error_code(lambda: c.put_item(TableName="BotoTable", Item={"PK": {"S": "u#1"}, "SK": {"S": "p"}},
                                            ConditionExpression="attribute_not_exists(PK)"))
    check("boto3: ConditionalCheckFailedException", code == "ConditionalCheckFailedException", code)
    # (this boto3 predates ReturnValuesOnConditionCheckFailure: sent raw)
    r, data = raw("PutItem", json.dumps({"TableName": "BotoTable", "Item": {"PK": {"S": "u#1"}, "SK": {"S": "p"}},
                                         "ConditionExpression": "attribute_not_exists(PK)",
                                         "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}))
    check("raw: ConditionalCheckFailed returns the item when asked",
          r.status == 400 and json.loads(data).get("Item", {}).get("n") == {"N": "1"}, data)
    code, _ = error_code(lambda: c.get_item(TableName="BotoTable", Key={"PK": {"S": "x"}}))
    check("boto3: ValidationException", code == "ValidationException", code)
    code, resp = error_code(lambda: c.transact_write_items(TransactItems=[
        {"ConditionCheck": {"TableName": "BotoTable", "Key": {"PK": {"S": "u#1"}, "SK": {"S": "p"}},
                            "ConditionExpression": "n = :two", "ExpressionAttributeValues": {":two": {"N": "2"}}}},
        {"Put": {"TableName": "BotoTable", "Item": {"PK": {"S": "u#3"}, "SK": {"S": "p"}}}}]))
    reasons = [r.get("Code") for r in (resp or {}).get("CancellationReasons", [])]
    check("boto3: TransactionCanceledException with CancellationReasons",
          code == "TransactionCanceledException" and reasons == ["ConditionalCheckFailed", "None"], resp)
    got = c.get_item(TableName="BotoTable", Key={"PK": {"S": "u#3"}, "SK": {"S": "p"}})
    check("boto3: the cancelled transaction wrote nothing", "Item" not in got)

    # paging
    for i in range(25):
        c.put_item(TableName="BotoTable", Item={"PK": {"S": "page"}, "SK": {"S": "%03d" % i}})
    pages = list(c.get_paginator("query").paginate(
        TableName="BotoTable", KeyConditionExpression="PK = :p",
        ExpressionAttributeValues={":p": {"S": "page"}}, PaginationConfig={"PageSize": 10}))
    check("boto3: query pages of 10 (paginator)",
          [p["Count"] for p in pages][:3] == [10, 10, 5] and
          sum(p["Count"] for p in pages) == 25, [p["Count"] for p in pages])

    # PartiQL: ExecuteStatement with paging, BatchExecuteStatement, ExecuteTransaction
    for i in range(5):
        c.execute_statement(Statement="DELETE FROM \"BotoTable\" WHERE PK = 'pq' AND SK = ?",
                            Parameters=[{"S": "%02d" % i}])
        c.execute_statement(Statement="INSERT INTO \"BotoTable\" VALUE {'PK': 'pq', 'SK': ?, 'n': ?}",
                            Parameters=[{"S": "%02d" % i}, {"N": str(i)}])
    items, token, calls = [], None, 0
    while True:
        kw = {"NextToken": token} if token else {}
        r = c.execute_statement(Statement="SELECT SK FROM \"BotoTable\" WHERE PK = ?",
                                Parameters=[{"S": "pq"}], Limit=2, **kw)
        items += [i["SK"]["S"] for i in r["Items"]]
        token, calls = r.get("NextToken"), calls + 1
        if token is None or calls > 10:
            break
    check("boto3: ExecuteStatement pages with NextToken", items == ["00", "01", "02", "03", "04"], items)
    code, _ = error_code(lambda: c.execute_statement(
        Statement="INSERT INTO \"BotoTable\" VALUE {'PK': 'pq', 'SK': '00'}"))
    check("boto3: ExecuteStatement INSERT of an existing key: DuplicateItemException",
          code == "DuplicateItemException", code)
    code, _ = error_code(lambda: c.execute_statement(Statement="SELECT * FROM \"BotoTable\"", NextToken="bad"))
    check("boto3: ExecuteStatement with a bad NextToken: ValidationException", code == "ValidationException", code)
    r = c.batch_execute_statement(Statements=[
        {"Statement": "UPDATE \"BotoTable\" SET n = 9 WHERE PK = 'pq' AND SK = '00'"},
        {"Statement": "INSERT INTO \"BotoTable\" VALUE {'PK': 'pq', 'SK': '01'}"}])["Responses"]
    check("boto3: BatchExecuteStatement with a per-statement error",
          "Error" not in r[0] and r[1].get("Error", {}).get("Code") == "DuplicateItem", r)
    code, resp = error_code(lambda: c.execute_transaction(TransactStatements=[
        {"Statement": "UPDATE \"BotoTable\" SET n = 10 WHERE PK = 'pq' AND SK = '00'"},
        {"Statement": "DELETE FROM \"BotoTable\" WHERE PK = 'pq' AND SK = '01' AND n = 99"}]))
    reasons = [r.get("Code") for r in (resp or {}).get("CancellationReasons", [])]
    check("boto3: ExecuteTransaction cancelled with CancellationReasons",
          code == "TransactionCanceledException" and reasons == ["None", "ConditionalCheckFailed"], resp)
    r = c.execute_transaction(TransactStatements=[
        {"Statement": "SELECT n FROM \"BotoTable\" WHERE PK = 'pq' AND SK = '00'"}])["Responses"]
    check("boto3: ExecuteTransaction reads", r == [{"Item": {"n": {"N": "9"}}}], r)

    # the operations tools call on connect
    ttl = c.describe_time_to_live(TableName="BotoTable")
    check("DescribeTimeToLive: DISABLED", ttl["TimeToLiveDescription"]["TimeToLiveStatus"] == "DISABLED")
    code, _ = error_code(lambda: c.describe_time_to_live(TableName="NoSuchTable"))
    check("DescribeTimeToLive of a missing table: ResourceNotFoundException", code == "ResourceNotFoundException")
    spec = c.update_time_to_live(TableName="BotoTable",
                                 TimeToLiveSpecification={"Enabled": True, "AttributeName": "expires"})
    check("UpdateTimeToLive: the specification back",
          spec["TimeToLiveSpecification"] == {"Enabled": True, "AttributeName": "expires"}, spec)
    ttl = c.describe_time_to_live(TableName="BotoTable")["TimeToLiveDescription"]
    check("DescribeTimeToLive: ENABLED on the attribute",
          ttl == {"TimeToLiveStatus": "ENABLED", "AttributeName": "expires"}, ttl)
    code, msg = error_code(lambda: c.update_time_to_live(
        TableName="BotoTable", TimeToLiveSpecification={"Enabled": True, "AttributeName": "expires"}))
    check("UpdateTimeToLive twice: TimeToLive is already enabled",
          code == "ValidationException" and msg["Error"]["Message"] == "TimeToLive is already enabled", msg)
    c.update_time_to_live(TableName="BotoTable", TimeToLiveSpecification={"Enabled": False, "AttributeName": "expires"})
    check("DescribeTimeToLive: DISABLED again",
          c.describe_time_to_live(TableName="BotoTable")["TimeToLiveDescription"]["TimeToLiveStatus"] == "DISABLED")
    # Contributor Insights, per table and per GSI (boto3 of any age knows
    # these three operations; the newer ContributorInsightsMode, and
    # OnDemandThroughput / WarmThroughput, go through raw requests).
    ci = c.describe_contributor_insights(TableName="BotoTable")
    check("DescribeContributorInsights: DISABLED", ci["ContributorInsightsStatus"] == "DISABLED", ci)
    up = c.update_contributor_insights(TableName="BotoTable", ContributorInsightsAction="ENABLE")
    check("UpdateContributorInsights: ENABLING", up["ContributorInsightsStatus"] == "ENABLING", up)
    ci = c.describe_contributor_insights(TableName="BotoTable")
    check("DescribeContributorInsights: ENABLED with its rules and time",
          ci["ContributorInsightsStatus"] == "ENABLED" and len(ci["ContributorInsightsRuleList"]) == 4
          and hasattr(ci["LastUpdateDateTime"], "year"), ci)
    code, _ = error_code(lambda: c.update_contributor_insights(TableName="NoSuchTable", ContributorInsightsAction="ENABLE"))
    check("UpdateContributorInsights of a missing table: ResourceNotFoundException", code == "ResourceNotFoundException", code)
    code, _ = error_code(lambda: c.describe_contributor_insights(TableName="BotoTable", IndexName="NoSuchIndex"))
    check("DescribeContributorInsights of a missing index: ResourceNotFoundException", code == "ResourceNotFoundException", code)
    listed = c.list_contributor_insights(TableName="BotoTable", MaxResults=1)
    check("ListContributorInsights: the table, enabled",
          listed["ContributorInsightsSummaries"][0]["ContributorInsightsStatus"] == "ENABLED", listed)
    r, data = raw("UpdateContributorInsights", json.dumps({"TableName": "BotoTable", "ContributorInsightsAction": "ENABLE",
                                                           "ContributorInsightsMode": "THROTTLED_KEYS"}))
    check("raw: UpdateContributorInsights with ContributorInsightsMode",
          r.status == 200 and json.loads(data).get("ContributorInsightsMode") == "THROTTLED_KEYS", data)
    r, data = raw("UpdateContributorInsights", json.dumps({"TableName": "BotoTable", "ContributorInsightsAction": "ON"}))
    check("raw: UpdateContributorInsights with a bad action: ValidationException",
          r.status == 400 and (err_type(data) or "").endswith("ValidationException"), data)
    c.update_contributor_insights(TableName="BotoTable", ContributorInsightsAction="DISABLE")
    r, data = raw("UpdateTable", json.dumps({"TableName": "BotoTable", "OnDemandThroughput": {"MaxReadRequestUnits": 50},
                                             "WarmThroughput": {"WriteUnitsPerSecond": 5000}}))
    table = json.loads(data).get("TableDescription", {})
    check("raw: UpdateTable with OnDemandThroughput and WarmThroughput, described",
          r.status == 200 and table.get("OnDemandThroughput") == {"MaxReadRequestUnits": 50, "MaxWriteRequestUnits": -1}
          and table.get("WarmThroughput", {}).get("WriteUnitsPerSecond") == 5000, data)
    arn = c.describe_table(TableName="BotoTable")["Table"]["TableArn"]
    # Resource-based policies (raw: boto3 of this age has no such operations)
    policy = json.dumps({"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": {"AWS": "*"},
                                                                 "Action": "dynamodb:GetItem", "Resource": arn}]})
    r, data = raw("GetResourcePolicy", json.dumps({"ResourceArn": arn}))
    check("raw: GetResourcePolicy without a policy: PolicyNotFoundException",
          r.status == 400 and err_type(data) == "com.amazonaws.dynamodb.v20120810#PolicyNotFoundException"
          and json.loads(data)["message"] == "Resource-based policy not found for the provided ResourceArn: " + arn, data)
    r, data = raw("PutResourcePolicy", json.dumps({"ResourceArn": arn, "Policy": policy}))
    rev = json.loads(data).get("RevisionId", "")
    check("raw: PutResourcePolicy: a RevisionId of epoch milliseconds", r.status == 200 and rev.isdigit(), data)
    r, data = raw("GetResourcePolicy", json.dumps({"ResourceArn": arn}))
    check("raw: GetResourcePolicy: the policy and its revision",
          r.status == 200 and json.loads(data) == {"Policy": policy, "RevisionId": rev}, data)
    r, data = raw("PutResourcePolicy", json.dumps({"ResourceArn": arn + "/index/GSI1", "Policy": policy}))
    check("raw: PutResourcePolicy on an index: ValidationException",
          r.status == 400 and (err_type(data) or "").endswith("#ValidationException"), data)
    r, data = raw("PutResourcePolicy", json.dumps({"ResourceArn": arn, "Policy": "x" * 20481}))
    check("raw: PutResourcePolicy over 20480 bytes: ValidationException",
          r.status == 400 and "Maximum policy size of 20480 bytes exceeded" in data.decode(), data)
    r, data = raw("DeleteResourcePolicy", json.dumps({"ResourceArn": arn, "ExpectedRevisionId": "1"}))
    check("raw: DeleteResourcePolicy of another revision: PolicyNotFoundException",
          r.status == 400 and (err_type(data) or "").endswith("#PolicyNotFoundException"), data)
    r, data = raw("DeleteResourcePolicy", json.dumps({"ResourceArn": arn, "ExpectedRevisionId": rev}))
    check("raw: DeleteResourcePolicy: the deletion's revision",
          r.status == 200 and json.loads(data).get("RevisionId", "") > rev, data)
    r, data = raw("DeleteResourcePolicy", json.dumps({"ResourceArn": arn}))
    check("raw: DeleteResourcePolicy again: no error, no revision", r.status == 200 and json.loads(data) == {}, data)
    # an operation of today's API that stdesign does not serve: as DynamoDB answers an unknown one
    r, data = raw("SearchVectors", json.dumps({"TableName": "BotoTable"}))
    check("raw: SearchVectors: UnknownOperationException",
          r.status == 400 and err_type(data) == "com.amazon.coral.service#UnknownOperationException", data)
    check("ListTagsOfResource: no tags", c.list_tags_of_resource(ResourceArn=arn)["Tags"] == [])
    c.tag_resource(ResourceArn=arn, Tags=[{"Key": "env", "Value": "test"}, {"Key": "team", "Value": "data"}])
    c.untag_resource(ResourceArn=arn, TagKeys=["team"])
    check("TagResource, UntagResource, ListTagsOfResource",
          c.list_tags_of_resource(ResourceArn=arn)["Tags"] == [{"Key": "env", "Value": "test"}])
    code, _ = error_code(lambda: c.tag_resource(ResourceArn=arn, Tags=[{"Key": "aws:x", "Value": "y"}]))
    check("TagResource of an aws: key: ValidationException", code == "ValidationException")
    check("GetItem by the table's ARN",
          c.get_item(TableName=arn, Key={"PK": {"S": "u#1"}, "SK": {"S": "p"}}).get("Item", {}).get("PK") == {"S": "u#1"})
    code, _ = error_code(lambda: c.list_tags_of_resource(ResourceArn=arn.replace("BotoTable", "NoSuchTable")))
    check("ListTagsOfResource of a missing table: ResourceNotFoundException", code == "ResourceNotFoundException")
    code, _ = error_code(lambda: c.list_tags_of_resource(ResourceArn="nonsense"))
    check("ListTagsOfResource of a bad ARN: ValidationException", code == "ValidationException")
    cb = c.describe_continuous_backups(TableName="BotoTable")["ContinuousBackupsDescription"]
    check("DescribeContinuousBackups: ENABLED, point-in-time recovery DISABLED",
          cb["ContinuousBackupsStatus"] == "ENABLED" and
          cb["PointInTimeRecoveryDescription"]["PointInTimeRecoveryStatus"] == "DISABLED")
    cb = c.update_continuous_backups(TableName="BotoTable", PointInTimeRecoverySpecification={
        "PointInTimeRecoveryEnabled": True})["ContinuousBackupsDescription"]["PointInTimeRecoveryDescription"]
    check("UpdateContinuousBackups: ENABLED with its window",
          cb["PointInTimeRecoveryStatus"] == "ENABLED" and
          cb["EarliestRestorableDateTime"] <= cb["LatestRestorableDateTime"], cb)
    code, _ = error_code(lambda: c.describe_continuous_backups(TableName="NoSuchTable"))
    check("DescribeContinuousBackups of a missing table: TableNotFoundException", code == "TableNotFoundException")
    # a multi-attribute GSI through boto3: orders by status, then date and id, without a synthetic key
    c.create_table(TableName="BotoOrders", BillingMode="PAY_PER_REQUEST",
                   AttributeDefinitions=[{"AttributeName": a, "AttributeType": "S"}
                                         for a in ("PK", "SK", "status", "created_at", "order_id")],
                   KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
                   GlobalSecondaryIndexes=[{"IndexName": "ByStatus", "Projection": {"ProjectionType": "KEYS_ONLY"},
                                            "KeySchema": [{"AttributeName": "status", "KeyType": "HASH"},
                                                          {"AttributeName": "created_at", "KeyType": "RANGE"},
                                                          {"AttributeName": "order_id", "KeyType": "RANGE"}]}])
    gsi = c.describe_table(TableName="BotoOrders")["Table"]["GlobalSecondaryIndexes"][0]
    check("boto3: a multi-attribute GSI described with its three key attributes",
          [k["AttributeName"] for k in gsi["KeySchema"]] == ["status", "created_at", "order_id"], gsi)
    for i, (st, day) in enumerate([("shipped", "2026-07-06"), ("shipped", "2026-07-01"), ("placed", "2026-07-02"),
                                   ("shipped", "2026-07-01"), ("shipped", "2026-08-01")]):
        c.put_item(TableName="BotoOrders", Item={"PK": {"S": "C#1"}, "SK": {"S": "O#%d" % i}, "status": {"S": st},
                                                 "created_at": {"S": day}, "order_id": {"S": "%03d" % (9 - i)}})
    c.put_item(TableName="BotoOrders", Item={"PK": {"S": "C#1"}, "SK": {"S": "O#sparse"}, "status": {"S": "shipped"}})
    r = c.query(TableName="BotoOrders", IndexName="ByStatus", ScanIndexForward=False,
                KeyConditionExpression="#s = :s AND created_at BETWEEN :a AND :b",
                ExpressionAttributeNames={"#s": "status"},
                ExpressionAttributeValues={":s": {"S": "shipped"}, ":a": {"S": "2026-07-01"}, ":b": {"S": "2026-07-31"}})
    check("boto3: Query of a multi-attribute GSI, newest first, by date then order id, sparse",
          [i["SK"]["S"] for i in r["Items"]] == ["O#0", "O#1", "O#3"], r["Items"])
    r = c.query(TableName="BotoOrders", IndexName="ByStatus", Limit=1,
                KeyConditions={"status": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "shipped"}]},
                               "created_at": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "2026-07-01"}]}})
    check("boto3: KeyConditions on a multi-attribute GSI, paged with every key attribute",
          [i["SK"]["S"] for i in r["Items"]] == ["O#3"] and
          sorted(r["LastEvaluatedKey"]) == ["PK", "SK", "created_at", "order_id", "status"], r)
    code, _ = error_code(lambda: c.query(TableName="BotoOrders", IndexName="ByStatus",
                                         KeyConditionExpression="#s = :s AND order_id = :o",
                                         ExpressionAttributeNames={"#s": "status"},
                                         ExpressionAttributeValues={":s": {"S": "shipped"}, ":o": {"S": "006"}}))
    check("boto3: a Query skipping a sort-key attribute: ValidationException", code == "ValidationException", code)
    c.delete_table(TableName="BotoOrders")
    # on-demand backups: a round trip through boto3's own shapes (datetimes parsed, ARNs as DynamoDB's)
    before = c.scan(TableName="BotoTable")["Items"]
    bd = c.create_backup(TableName="BotoTable", BackupName="boto-backup")["BackupDetails"]
    check("CreateBackup: AVAILABLE, USER, DynamoDB's ARN",
          bd["BackupStatus"] == "AVAILABLE" and bd["BackupType"] == "USER" and
          re.match(r"^arn:aws:dynamodb:local:000000000000:table/BotoTable/backup/[0-9]{14}-[0-9a-f]{8}$",
                   bd["BackupArn"]) is not None and bd["BackupCreationDateTime"].year >= 2024, bd)
    c.put_item(TableName="BotoTable", Item={"PK": {"S": "after#backup"}, "SK": {"S": "x"}})
    desc = c.describe_backup(BackupArn=bd["BackupArn"])["BackupDescription"]
    check("DescribeBackup: the source table's details",
          desc["SourceTableDetails"]["TableName"] == "BotoTable" and
          desc["SourceTableDetails"]["ItemCount"] == len(before), desc)
    summaries = c.list_backups(TableName="BotoTable")["BackupSummaries"]
    check("ListBackups: the backup", [b["BackupArn"] for b in summaries] == [bd["BackupArn"]], summaries)
    td = c.restore_table_from_backup(TargetTableName="BotoRestored", BackupArn=bd["BackupArn"])["TableDescription"]
    check("RestoreTableFromBackup: RestoreSummary", td["RestoreSummary"]["SourceBackupArn"] == bd["BackupArn"] and
          td["RestoreSummary"]["RestoreInProgress"] is False, td)
    after = c.scan(TableName="BotoRestored")["Items"]
    key = lambda i: (i["PK"]["S"], i["SK"]["S"])
    check("RestoreTableFromBackup: the items at the backup, not the later put",
          sorted(after, key=key) == sorted(before, key=key), (len(before), len(after)))
    code, _ = error_code(lambda: c.restore_table_from_backup(TargetTableName="BotoTable", BackupArn=bd["BackupArn"]))
    check("RestoreTableFromBackup onto a table: TableAlreadyExistsException", code == "TableAlreadyExistsException")
    code, _ = error_code(lambda: c.create_backup(TableName="NoSuchTable", BackupName="nope"))
    check("CreateBackup of a missing table: TableNotFoundException", code == "TableNotFoundException")
    c.delete_table(TableName="BotoRestored")
    deleted = c.delete_backup(BackupArn=bd["BackupArn"])["BackupDescription"]["BackupDetails"]
    check("DeleteBackup: DELETED", deleted["BackupStatus"] == "DELETED")
    code, _ = error_code(lambda: c.describe_backup(BackupArn=bd["BackupArn"]))
    check("DescribeBackup of a deleted backup: BackupNotFoundException", code == "BackupNotFoundException")
    c.delete_item(TableName="BotoTable", Key={"PK": {"S": "after#backup"}, "SK": {"S": "x"}})
    lim = c.describe_limits()
    check("DescribeLimits", lim["TableMaxReadCapacityUnits"] == 40000 and lim["AccountMaxWriteCapacityUnits"] == 80000)
    ep = c.describe_endpoints()["Endpoints"]
    check("DescribeEndpoints: this server", ep[0]["Address"] == "127.0.0.1:%d" % PORT, ep)

    raw_protocol_tests()


def raw_protocol_tests():
    body = json.dumps({"TableName": "BotoTable", "Key": {"PK": {"S": "u#1"}, "SK": {"S": "p"}}})
    r, data = raw("GetItem", body)
    check("raw: 200 and DynamoDB's content type", r.status == 200 and
          r.getheader("Content-Type") == "application/x-amz-json-1.0")
    check("raw: x-amz-crc32 is zlib.crc32 of the body", int(r.getheader("x-amz-crc32")) == zlib.crc32(data))
    check("raw: request id of 52 upper-case letters and digits",
          re.fullmatch(r"[A-Z0-9]{52}", r.getheader("x-amzn-RequestId") or "") is not None)
    # answers of 128 bytes and more take the folding path of the CRC-32
    # (src/common/st_crc32.c): lengths around its blocks, and a large one
    for n in (20, 59, 60, 61, 140, 1000, 70000):
        raw("PutItem", json.dumps({"TableName": "BotoTable", "Item": {
            "PK": {"S": "u#crc"}, "SK": {"S": "p"}, "pad": {"S": "x" * n}}}))
        r, data = raw("GetItem", json.dumps({"TableName": "BotoTable", "Key": {"PK": {"S": "u#crc"}, "SK": {"S": "p"}}}))
        check("raw: x-amz-crc32 of an answer of %d bytes" % len(data),
              r.status == 200 and int(r.getheader("x-amz-crc32")) == zlib.crc32(data), (r.status, len(data)))
    raw("DeleteItem", json.dumps({"TableName": "BotoTable", "Key": {"PK": {"S": "u#crc"}, "SK": {"S": "p"}}}))
    # a request's headers: 10 kB of them are served, 20 kB are refused with
    # 431 (a connection's read buffer, 16 kB, src/http/http_server.h)
    r, data = raw("GetItem", body, {"X-Amz-Security-Token": "t" * 10000})
    check("raw: 10 kB of headers are served", r.status == 200, (r.status, data[:80]))
    # (the endpoint answers 431 and closes with the rest of the headers
    # unread, so that the kernel may reset the connection before the client
    # reads the answer: either is a refusal; the server serves on)
    s = socket.create_connection(("127.0.0.1", PORT), timeout=10)
    head = b""
    try:
        s.sendall(b"POST / HTTP/1.1\r\nHost: x\r\nX-Amz-Target: DynamoDB_20120810.GetItem\r\n"
                  b"Content-Type: application/x-amz-json-1.0\r\nX-Amz-Security-Token: " + b"t" * 20000 +
                  b"\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body.encode()))
        head = s.recv(4096)
    except ConnectionResetError:
        head = b"reset"
    s.close()
    check("raw: 20 kB of headers: refused", head.startswith(b"HTTP/1.1 431") or head == b"reset", head[:60])
    r, data = raw("GetItem", body)
    check("raw: ... and the next request is served", r.status == 200, r.status)

    r, data = raw("GetItem", gzip.compress(body.encode()), {"Content-Encoding": "gzip"})
    check("raw: gzip request body", r.status == 200 and json.loads(data).get("Item", {}).get("n") == {"N": "1"},
          data)
    r, data = raw("GetItem", gzip.compress(body.encode())[:20], {"Content-Encoding": "gzip"})
    check("raw: truncated gzip body: SerializationException", r.status == 400 and
          err_type(data) == "com.amazon.coral.service#SerializationException", data)

    r, data = raw("PutItem", gzip.compress(b" " * (17 << 20)), {"Content-Encoding": "gzip"})
    check("raw: gzip body over 16 MB once decompressed: 413", r.status == 413, r.status)

    r, data = raw(None, body)
    check("raw: no target: UnknownOperationException", r.status == 400 and
          err_type(data) == "com.amazon.coral.service#UnknownOperationException", data)
    r, data = raw("NoSuchOperation", body)
    check("raw: unknown target: UnknownOperationException", r.status == 400 and
          err_type(data) == "com.amazon.coral.service#UnknownOperationException", data)
    r, data = raw("GetItem", "{not json")
    check("raw: bad JSON: SerializationException", r.status == 400 and
          err_type(data) == "com.amazon.coral.service#SerializationException" and
          r.getheader("Content-Type") == "application/x-amz-json-1.0", data)
    r, data = raw("GetItem", "[1, 2]")
    check("raw: JSON not an object: SerializationException", r.status == 400 and
          err_type(data) == "com.amazon.coral.service#SerializationException", data)
    r, data = raw("GetItem", "")
    check("raw: empty body: SerializationException", r.status == 400 and
          err_type(data) == "com.amazon.coral.service#SerializationException", data)
    r, data = raw("PutItem", '{"TableName": "BotoTable", "Item": {"PK": {"S": "a\\u0000b"}, "SK": {"S": "x"}}}')
    check("raw: NUL in a string: ValidationException", r.status == 400 and
          err_type(data) == "com.amazon.coral.validate#ValidationException", data)
    r, data = raw("GetItem", b'{"TableName": "Bot\x00oTable"}')
    check("raw: NUL byte in the body: SerializationException", r.status == 400 and
          err_type(data) == "com.amazon.coral.service#SerializationException", data)
    r, data = raw("GetItem", body, auth=False)
    check("raw: no Authorization: MissingAuthenticationTokenException", r.status == 400 and
          err_type(data) == "com.amazon.coral.service#MissingAuthenticationTokenException" and
          json.loads(data).get("message") == "Request is missing Authentication Token", data)
    r, data = raw("GetItem", body, {"Content-Type": "text/plain"})
    check("raw: wrong content type: 404", r.status == 404 and data == b"<UnknownOperationException/>\n", data)
    r, data = raw("GetItem", body, method="PUT")
    check("raw: PUT: 404", r.status == 404, r.status)
    r, data = raw(None, "", method="GET", auth=False)
    check("raw: GET /: healthy", r.status == 200 and data.startswith(b"healthy: "), data)
    r, data = raw("ListTables", "{}", {"Origin": "http://admin.example"}, method="OPTIONS")
    check("raw: CORS preflight", r.status == 200 and
          r.getheader("Access-Control-Allow-Origin") == "http://admin.example", r.getheaders())
    r, data = raw("ListTables", "{}", {"Origin": "http://evil.example"}, method="OPTIONS")
    check("raw: CORS preflight from another origin: no CORS header",
          r.getheader("Access-Control-Allow-Origin") is None, r.getheaders())

    # oversize: 413 from the Content-Length alone, before the body is sent
    s = socket.create_connection(("127.0.0.1", PORT), timeout=10)
    s.sendall(b"POST / HTTP/1.1\r\nHost: x\r\nX-Amz-Target: DynamoDB_20120810.PutItem\r\n"
              b"Content-Type: application/x-amz-json-1.0\r\nContent-Length: 16777217\r\n\r\n")
    head = s.recv(4096)
    s.close()
    check("raw: body over 16 MB: 413 before it is read", head.startswith(b"HTTP/1.1 413"), head[:60])
    # 16 MB of chunked body with no Content-Length: 413 once past the limit
    # (with credentials: without, the body is not read past 64 kB, see bounds)
    s = socket.create_connection(("127.0.0.1", PORT), timeout=10)
    s.sendall(b"POST / HTTP/1.1\r\nHost: x\r\nX-Amz-Target: DynamoDB_20120810.PutItem\r\n"
              b"Authorization: " + FAKE_AUTH.encode() + b"\r\n"
              b"Content-Type: application/x-amz-json-1.0\r\nTransfer-Encoding: chunked\r\n\r\n")
    chunk = b"%x\r\n%s\r\n" % (1 << 20, b" " * (1 << 20))
    head = b""
    try:
        # 17 MB, then wait for the answer (sending more after the server has
        # closed would reset the connection and lose the answer)
        for _ in range(17):
            s.sendall(chunk)
        head = s.recv(4096)
    except OSError as e:
        head = str(e).encode()
    s.close()
    # closing with unread data resets the connection, which may destroy the
    # 413 before the client reads it: either is a refusal
    r, _ = raw(None, "", method="GET", auth=False)
    check("raw: chunked body over 16 MB: refused (413 or reset), the server unharmed",
          (head.startswith(b"HTTP/1.1 413") or b"reset" in head) and r.status == 200, head[:60])

    # truncated body: the client goes away; the server carries on
    s = socket.create_connection(("127.0.0.1", PORT), timeout=10)
    s.sendall(b"POST / HTTP/1.1\r\nHost: x\r\nX-Amz-Target: DynamoDB_20120810.PutItem\r\n"
              b"Content-Type: application/x-amz-json-1.0\r\nContent-Length: 100\r\n\r\n{\"TableName\"")
    s.close()
    r, _ = raw(None, "", method="GET", auth=False)
    check("raw: truncated body, then the server still answers", r.status == 200)

    # slow client: half a request sent, another client is not held up
    slow = socket.create_connection(("127.0.0.1", PORT), timeout=10)
    slow.sendall(b"POST / HTTP/1.1\r\nHost: x\r\nX-Amz-Tar")
    t0 = time.time()
    for _ in range(10):
        r, _ = raw("GetItem", body)
    check("raw: a slow client holds nobody up", r.status == 200 and time.time() - t0 < 5, time.time() - t0)
    slow.sendall(b"get: DynamoDB_20120810.ListTables\r\nContent-Type: application/x-amz-json-1.0\r\n"
                 b"Authorization: " + FAKE_AUTH.encode() + b"\r\nContent-Length: 2\r\n\r\n{}")
    resp = slow.recv(4096)
    slow.close()
    check("raw: the slow client is answered in the end", resp.startswith(b"HTTP/1.1 200"), resp[:60])

    # keep-alive: one connection, many requests
    conn = http.client.HTTPConnection("127.0.0.1", PORT, timeout=10)
    conn.connect()
    sock = conn.sock
    ok = True
    for _ in range(5):
        r, data = raw("GetItem", body, conn=conn)
        ok = ok and r.status == 200 and conn.sock is sock
    check("raw: keep-alive: five requests on one connection", ok)
    r, data = raw("GetItem", body, {"Connection": "close"}, conn=conn)
    check("raw: Connection: close is honoured", r.status == 200 and
          (r.getheader("Connection") or "").lower() == "close" and (conn.sock is None or r.will_close))
    conn.close()

    # boto3 reuses its connections
    c = client()
    for _ in range(3):
        c.get_item(TableName="BotoTable", Key={"PK": {"S": "u#1"}, "SK": {"S": "p"}})
    pool = list(c._endpoint.http_session._manager.connection_from_url(ENDPOINT).pool.queue)
    check("boto3: keep-alive connection reused", sum(1 for x in pool if x is not None) == 1, pool)

    # 500 idle connections, then a request still answered and counted
    idle = []
    for _ in range(500):
        idle.append(socket.create_connection(("127.0.0.1", PORT), timeout=10))
    time.sleep(0.5)
    r, _ = raw("GetItem", body)
    opened = sql("SELECT sum(open_connections) FROM stdesign.http_status()")
    check("raw: 500 idle connections open, a request still answered",
          r.status == 200 and int(opened or 0) >= 500, opened)
    for s in idle[:5]:
        s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
    check("raw: idle connections answered too", all(s.recv(64).startswith(b"HTTP/1.1 200") for s in idle[:5]))
    for s in idle:
        s.close()

    st = sql("SELECT sum(requests_served) > 0 AND sum(requests_failed) > 0 AND "
             "bool_or(by_operation ? 'GetItem') FROM stdesign.http_status()")
    check("http_status: requests served and failed by operation", st == "t", st)


# ---------------------------------------------------------------- sigv4 mode

def sigv4_tests(key, secret, rkey, rsecret):
    c = client(key, secret)
    make_table(c, "SignedTable")
    c.put_item(TableName="SignedTable", Item={"PK": {"S": "s"}, "SK": {"S": "1"}})
    got = c.get_item(TableName="SignedTable", Key={"PK": {"S": "s"}, "SK": {"S": "1"}})
    check("sigv4: boto3 with a valid key", "Item" in got)
    code, resp = error_code(lambda: client(key, secret + "x").list_tables())
    check("sigv4: wrong secret: InvalidSignatureException", code == "InvalidSignatureException", code)
    code, _ = error_code(lambda: client("STDKNOSUCHKEY0000000", secret).list_tables())
    check("sigv4: unknown key: UnrecognizedClientException", code == "UnrecognizedClientException", code)

    body = json.dumps({"TableName": "SignedTable", "Key": {"PK": {"S": "s"}, "SK": {"S": "1"}}}).encode()
    base = {"Content-Type": "application/x-amz-json-1.0", "X-Amz-Target": "DynamoDB_20120810.GetItem"}
    h = sign(base, body, key, secret)
    r, data = raw(None, body, h, auth=False)
    check("sigv4: own signer agrees", r.status == 200, data)
    h = sign(base, body, key, secret)
    r, data = raw(None, body + b" ", h, auth=False)
    check("sigv4: body changed after signing: InvalidSignatureException", r.status == 400 and
          err_type(data) == "com.amazon.coral.service#InvalidSignatureException", data)
    old = (datetime.datetime.utcnow() - datetime.timedelta(minutes=20)).strftime("%Y%m%dT%H%M%SZ")
    r, data = raw(None, body, sign(base, body, key, secret, old), auth=False)
    check("sigv4: expired signature", r.status == 400 and
          err_type(data) == "com.amazon.coral.service#InvalidSignatureException" and
          json.loads(data)["message"].startswith("Signature expired: " + old), data)
    r, data = raw(None, body, base, auth=False)
    check("sigv4: missing signature: MissingAuthenticationTokenException",
          err_type(data) == "com.amazon.coral.service#MissingAuthenticationTokenException", data)
    r, data = raw(None, body, dict(base, Authorization="AWS4-HMAC-SHA256 Credential=x"), auth=False)
    check("sigv4: incomplete Authorization: IncompleteSignatureException",
          err_type(data) == "com.amazon.coral.service#IncompleteSignatureException", data)

    # a key of a role without privileges on the table
    rc = client(rkey, rsecret)
    code, _ = error_code(lambda: rc.get_item(TableName="SignedTable", Key={"PK": {"S": "s"}, "SK": {"S": "1"}}))
    check("sigv4: unprivileged role cannot read: AccessDeniedException", code == "AccessDeniedException", code)
    code, _ = error_code(lambda: rc.put_item(TableName="SignedTable", Item={"PK": {"S": "s"}, "SK": {"S": "2"}}))
    check("sigv4: unprivileged role cannot write: AccessDeniedException", code == "AccessDeniedException", code)
    check("sigv4: nothing written by the unprivileged role",
          sql("SELECT st_get('s', '2', 'SignedTable') IS NULL") == "t")

    # a role granted the table's privileges reads and writes through its key
    rel = sql("SELECT relation_name FROM stdesign.tables WHERE table_name = 'SignedTable'")
    sql("CREATE ROLE stdesign_http_writer; "
        "GRANT USAGE ON SCHEMA stdesign, stdesign_data TO stdesign_http_writer; "
        "GRANT SELECT ON stdesign.tables, stdesign.indexes TO stdesign_http_writer; "
        "GRANT SELECT, INSERT, UPDATE, DELETE ON stdesign_data.\"%s\" TO stdesign_http_writer" % rel)
    wkey, wsecret = sql("SELECT access_key_id || ' ' || secret_access_key "
                        "FROM st_create_access_key('stdesign_http_writer')").split()
    wc = client(wkey, wsecret)
    code, _ = error_code(lambda: wc.put_item(TableName="SignedTable", Item={"PK": {"S": "w"}, "SK": {"S": "1"}}))
    got = wc.get_item(TableName="SignedTable", Key={"PK": {"S": "w"}, "SK": {"S": "1"}}) if code is None else {}
    check("sigv4: a role with the table's privileges writes and reads", code is None and "Item" in got, code)
    code, _ = error_code(lambda: wc.create_table(
        TableName="NotAllowed", AttributeDefinitions=[{"AttributeName": "PK", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"}], BillingMode="PAY_PER_REQUEST"))
    check("sigv4: the same role cannot create a table: AccessDeniedException", code == "AccessDeniedException", code)
    # resource-based policies: the owner's to put and delete, a reader's to read
    arn = "arn:aws:dynamodb:local:000000000000:table/SignedTable"
    pbody = json.dumps({"ResourceArn": arn, "Policy": json.dumps({"Statement": [{
        "Effect": "Deny", "Principal": "*", "Action": "dynamodb:*", "Resource": arn}]})}).encode()
    pbase = dict(base, **{"X-Amz-Target": "DynamoDB_20120810.PutResourcePolicy"})
    r, data = raw(None, pbody, sign(pbase, pbody, wkey, wsecret), auth=False)
    check("sigv4: a role not owning the table cannot put its policy: AccessDeniedException",
          r.status == 400 and (err_type(data) or "").endswith("AccessDeniedException"), data)
    r, data = raw(None, pbody, sign(pbase, pbody, key, secret), auth=False)
    check("sigv4: the owner puts the policy", r.status == 200, data)
    gbody = json.dumps({"ResourceArn": arn}).encode()
    gbase = dict(base, **{"X-Amz-Target": "DynamoDB_20120810.GetResourcePolicy"})
    r, data = raw(None, gbody, sign(gbase, gbody, wkey, wsecret), auth=False)
    check("sigv4: a role that may read the table reads its policy", r.status == 200 and "Policy" in json.loads(data), data)
    r, data = raw(None, gbody, sign(gbase, gbody, rkey, rsecret), auth=False)
    check("sigv4: an unprivileged role cannot read the policy: AccessDeniedException",
          r.status == 400 and (err_type(data) or "").endswith("AccessDeniedException"), data)
    # the Deny is stored, not enforced (docs/security.md): the writer still writes
    code, _ = error_code(lambda: wc.put_item(TableName="SignedTable", Item={"PK": {"S": "w"}, "SK": {"S": "2"}}))
    check("sigv4: a stored Deny policy is not enforced; Postgres privileges are", code is None, code)

    escape_tests(key, secret, wkey, wsecret, rkey, rsecret)
    presigned_tests(key, secret, body, base)
    unsigned_header_tests(key, secret)
    key_cache_tests(body, base)
    timing_tests(key, secret)

    sql("SELECT st_disable_access_key('%s')" % rkey)
    code, _ = error_code(lambda: rc.list_tables())
    check("sigv4: disabled key: UnrecognizedClientException", code == "UnrecognizedClientException", code)
    # the key was used (and cached by the workers) above: disabling it is
    # seen at once by every worker, on new connections and on kept ones
    code, _ = error_code(lambda: client(rkey, rsecret).list_tables())
    check("sigv4: disabled key refused on a new connection too", code == "UnrecognizedClientException", code)
    dkey, dsecret = sql("SELECT access_key_id || ' ' || secret_access_key "
                        "FROM st_create_access_key('stdesign_http_writer')").split()
    dc = client(dkey, dsecret)
    code, _ = error_code(lambda: dc.list_tables())
    sql("SELECT st_drop_access_key('%s')" % dkey)
    code2, _ = error_code(lambda: dc.list_tables())
    check("sigv4: a key used, then dropped: UnrecognizedClientException at once",
          code is None and code2 == "UnrecognizedClientException", (code, code2))


def unsigned_header_tests(key, secret):
    """The operation (X-Amz-Target) and every other x-amz-* header sent must
    be signed: a signed GetItem replayed as a DeleteItem with the same body
    is refused, in the Authorization header and presigned."""
    c = client(key, secret)
    item = {"PK": {"S": "replay"}, "SK": {"S": "1"}}
    c.put_item(TableName="SignedTable", Item=item)
    body = json.dumps({"TableName": "SignedTable", "Key": item}).encode()
    get = {"Content-Type": "application/x-amz-json-1.0", "X-Amz-Target": "DynamoDB_20120810.GetItem"}
    still_there = lambda: sql("SELECT st_get('replay', '1', 'SignedTable') IS NOT NULL") == "t"
    refused = lambda r, data, name: (r.status == 400 and
                                     err_type(data) == "com.amazon.coral.service#InvalidSignatureException" and
                                     json.loads(data).get("message") ==
                                     "'%s' must be a 'SignedHeader' in the AWS Authorization." % name)

    # the Authorization header, signing host, content-type and x-amz-date only
    h = sign(get, body, key, secret, only=["content-type", "host", "x-amz-date"])
    r, data = raw(None, body, h, auth=False)
    check("unsigned X-Amz-Target: a GetItem refused (InvalidSignatureException)",
          refused(r, data, "X-Amz-Target"), data)
    r, data = raw(None, body, dict(h, **{"X-Amz-Target": "DynamoDB_20120810.DeleteItem"}), auth=False)
    check("unsigned X-Amz-Target: the GetItem's signature replayed as a DeleteItem is refused, the item kept",
          refused(r, data, "X-Amz-Target") and still_there(), data)
    # a target signed as GetItem and sent as DeleteItem: the signature differs
    h = sign(get, body, key, secret)
    r, data = raw(None, body, dict(h, **{"X-Amz-Target": "DynamoDB_20120810.DeleteItem"}), auth=False)
    check("signed X-Amz-Target changed to DeleteItem: the signature does not match, the item kept",
          r.status == 400 and err_type(data) == "com.amazon.coral.service#InvalidSignatureException" and
          "does not match" in json.loads(data).get("message", "") and still_there(), data)

    # presigned: X-Amz-SignedHeaders=host, the target sent unsigned
    h, path = presign(get, body, key, secret, only=["host"])
    r, data = raw(None, body, h, auth=False, path=path)
    check("presigned, unsigned X-Amz-Target: refused", refused(r, data, "X-Amz-Target"), data)
    r, data = raw(None, body, dict(h, **{"X-Amz-Target": "DynamoDB_20120810.DeleteItem"}), auth=False, path=path)
    check("presigned, unsigned X-Amz-Target: replayed as a DeleteItem, refused, the item kept",
          refused(r, data, "X-Amz-Target") and still_there(), data)
    h, path = presign(get, body, key, secret, only=["host", "x-amz-target"])
    r, data = raw(None, body, h, auth=False, path=path)
    check("presigned with X-Amz-Target signed: served", r.status == 200 and "Item" in json.loads(data), data)

    # every other x-amz-* header too: X-Amz-Date, and one of no meaning
    h = sign(get, body, key, secret, only=["content-type", "host", "x-amz-target"])
    r, data = raw(None, body, h, auth=False)
    check("unsigned X-Amz-Date: refused", refused(r, data, "X-Amz-Date"), data)
    h = sign(dict(get, **{"X-Amz-Whatever": "1"}), body, key, secret,
             only=["content-type", "host", "x-amz-date", "x-amz-target"])
    r, data = raw(None, body, h, auth=False)
    check("an unsigned X-Amz-Whatever header: refused", refused(r, data, "X-Amz-Whatever"), data)
    h = sign(dict(get, **{"X-Amz-Whatever": "1"}), body, key, secret)
    r, data = raw(None, body, h, auth=False)
    check("the same header signed: served", r.status == 200, data)
    # names in any case (HTTP's are case-insensitive); x-amzn-* is not x-amz-*
    h = sign({"Content-Type": "application/x-amz-json-1.0", "x-amz-target": "DynamoDB_20120810.GetItem"},
             body, key, secret)
    h["X-Amzn-Trace-Id"] = "Root=1-00000000-000000000000000000000000"
    r, data = raw(None, body, h, auth=False)
    check("lower-case x-amz-target signed, an unsigned X-Amzn-Trace-Id: served", r.status == 200, data)
    c.delete_item(TableName="SignedTable", Key=item)


def key_cache_tests(body, base):
    """Each worker keeps the keys it used and their signing keys: a change
    to a key or its role is seen by the very next request, on a connection
    (so a worker) that has just used the cached key."""
    sql("CREATE ROLE stdesign_http_cached; "
        "GRANT USAGE ON SCHEMA stdesign, stdesign_data TO stdesign_http_cached; "
        "GRANT SELECT ON stdesign.tables, stdesign.indexes TO stdesign_http_cached")
    ckey, csecret = sql("SELECT access_key_id || ' ' || secret_access_key "
                        "FROM st_create_access_key('stdesign_http_cached')").split()
    conn = http.client.HTTPConnection("127.0.0.1", PORT, timeout=30)
    first = signed("ListTables", {}, ckey, csecret, conn)
    second = signed("ListTables", {}, ckey, csecret, conn)
    check("key cache: a key used twice on one connection (its signing key cached)",
          first[0] == 200 and second[0] == 200, (first, second))

    sql("SELECT st_disable_access_key('%s')" % ckey)
    st = signed("ListTables", {}, ckey, csecret, conn)
    check("key cache: disabled key refused by the very next request: UnrecognizedClientException",
          st[0] == 400 and st[1] == "com.amazon.coral.service#UnrecognizedClientException", st)
    sql("UPDATE stdesign.access_keys SET enabled = true WHERE key_id = '%s'" % ckey)
    st = signed("ListTables", {}, ckey, csecret, conn)
    check("key cache: enabled again, served again", st[0] == 200, st)

    # dropped, then created again with the same id but another secret
    sql("SELECT st_drop_access_key('%s')" % ckey)
    sql("INSERT INTO stdesign.access_keys (key_id, secret, role_name, role_oid) "
        "VALUES ('%s', 'NewSecretOfTheSameKeyId0000000000000000', 'stdesign_http_cached', "
        "'stdesign_http_cached'::regrole)" % ckey)
    st = signed("ListTables", {}, ckey, csecret, conn)
    check("key cache: re-created with a new secret: the old secret is refused (InvalidSignatureException)",
          st[0] == 400 and st[1] == "com.amazon.coral.service#InvalidSignatureException", st)
    st = signed("ListTables", {}, ckey, "NewSecretOfTheSameKeyId0000000000000000", conn)
    check("key cache: re-created with a new secret: the new secret is accepted", st[0] == 200, st)
    csecret = "NewSecretOfTheSameKeyId0000000000000000"

    # the key's role renamed away and back: refused, then served
    sql("ALTER ROLE stdesign_http_cached RENAME TO stdesign_http_cached2")
    st = signed("ListTables", {}, ckey, csecret, conn)
    check("key cache: the key's role renamed away: UnrecognizedClientException at once",
          st[0] == 400 and st[1] == "com.amazon.coral.service#UnrecognizedClientException", st)
    sql("ALTER ROLE stdesign_http_cached2 RENAME TO stdesign_http_cached")
    st = signed("ListTables", {}, ckey, csecret, conn)
    check("key cache: the role back: served again", st[0] == 200, st)

    # another date: a presigned request dated yesterday (valid for 2 days)
    # needs yesterday's signing key, derived anew after today's was cached
    yesterday = (datetime.datetime.utcnow() - datetime.timedelta(days=1)).strftime("%Y%m%dT%H%M%SZ")
    today = datetime.datetime.utcnow().strftime("%Y%m%d")
    lbody = b"{}"
    lbase = {"Content-Type": "application/x-amz-json-1.0", "X-Amz-Target": "DynamoDB_20120810.ListTables"}
    h, path = presign(lbase, lbody, ckey, csecret, expires=172800, amz_date=yesterday)
    r, data = raw(None, lbody, h, conn=conn, auth=False, path=path)
    check("key cache: another date derives its own signing key (yesterday's, presigned)", r.status == 200, data)
    st = signed("ListTables", {}, ckey, csecret, conn)
    check("key cache: and today's again", st[0] == 200, st)
    h, path = presign(lbase, lbody, ckey, csecret, expires=172800, amz_date=yesterday, key_date=today)
    r, data = raw(None, lbody, h, conn=conn, auth=False, path=path)
    check("key cache: yesterday's scope signed with today's key: InvalidSignatureException",
          r.status == 400 and err_type(data) == "com.amazon.coral.service#InvalidSignatureException", data)
    h, path = presign(lbase, lbody, ckey, csecret, expires=172800, amz_date=yesterday)
    r, data = raw(None, lbody, h, conn=conn, auth=False, path=path)
    check("key cache: yesterday's again, after today's", r.status == 200, data)
    conn.close()
    sql("SELECT st_drop_access_key('%s')" % ckey)
    sql("DROP OWNED BY stdesign_http_cached; DROP ROLE stdesign_http_cached")
    heir_tests()


def heir_tests():
    """A key's role dropped, and another created under its name with the
    same grants: the new role is not the old one's heir."""
    grants = ("GRANT USAGE ON SCHEMA stdesign, stdesign_data TO stdesign_http_heir; "
              "GRANT SELECT ON stdesign.tables, stdesign.indexes TO stdesign_http_heir")
    sql("CREATE ROLE stdesign_http_heir; " + grants)
    hkey, hsecret = sql("SELECT access_key_id || ' ' || secret_access_key "
                        "FROM st_create_access_key('stdesign_http_heir')").split()
    conn = http.client.HTTPConnection("127.0.0.1", PORT, timeout=30)
    st = signed("ListTables", {}, hkey, hsecret, conn)
    check("heir: the key serves its role (and is cached)", st[0] == 200, st)
    sql("DROP OWNED BY stdesign_http_heir; DROP ROLE stdesign_http_heir")
    st = signed("ListTables", {}, hkey, hsecret, conn)
    check("heir: the key's role dropped: UnrecognizedClientException at once",
          st[0] == 400 and st[1] == "com.amazon.coral.service#UnrecognizedClientException", st)
    sql("CREATE ROLE stdesign_http_heir; " + grants)
    st = signed("ListTables", {}, hkey, hsecret, conn)
    st2 = signed("ListTables", {}, hkey, hsecret, None)
    check("heir: a new role of the dropped one's name: the old key is refused (UnrecognizedClientException), "
          "on a kept and a new connection",
          st[0] == 400 and st[1] == "com.amazon.coral.service#UnrecognizedClientException" and
          st2[0] == 400 and st2[1] == "com.amazon.coral.service#UnrecognizedClientException", (st, st2))
    check("heir: st_list_access_keys shows the old key disabled",
          sql("SELECT enabled FROM st_list_access_keys() WHERE access_key_id = '%s'" % hkey) == "f")
    conn.close()
    sql("SELECT st_drop_access_key('%s')" % hkey)
    sql("DROP OWNED BY stdesign_http_heir; DROP ROLE stdesign_http_heir")


def timing_tests(key, secret):
    """stdesign.http_track_timing: the CPU time of requests and of their
    authentication, in stdesign.http_status()."""
    totals = ("SELECT sum(requests_served) || ' ' || sum(requests_timed) || ' ' || "
              "sum(request_cpu_us) || ' ' || sum(auth_cpu_us) FROM stdesign.http_status()")
    bad = subprocess.run(["psql", "-X", "-At", "-c", "ALTER SYSTEM SET stdesign.http_track_timing = 'often'"],
                         capture_output=True, text=True).stderr
    check("timing: stdesign.http_track_timing takes a boolean", "requires a Boolean value" in bad, bad)
    sql("ALTER SYSTEM SET stdesign.http_track_timing = on")
    sql("SELECT pg_reload_conf()")
    time.sleep(1)
    conn = http.client.HTTPConnection("127.0.0.1", PORT, timeout=30)
    before = [int(x) for x in sql(totals).split()]
    for _ in range(20):
        signed("GetItem", {"TableName": "SignedTable", "Key": {"PK": {"S": "s"}, "SK": {"S": "1"}}}, key, secret, conn)
    after = [int(x) for x in sql(totals).split()]
    d = [b - a for a, b in zip(before, after)]
    check("timing: 20 signed GetItems counted as timed (%d)" % d[1], d[0] == 20 and d[1] == 20, d)
    check("timing: their CPU time and their authentication's (%d us, %d us)" % (d[2], d[3]),
          d[2] > 0 and 0 < d[3] < d[2], d)
    op = sql("SELECT bool_and(by_operation->'GetItem' ?& array['timed', 'request_cpu_us', 'auth_cpu_us']) "
             "FROM stdesign.http_status() WHERE (by_operation->'GetItem'->>'timed')::bigint > 0")
    check("timing: by_operation has GetItem's timed requests and CPU times", op == "t", op)
    sql("ALTER SYSTEM RESET stdesign.http_track_timing")
    sql("SELECT pg_reload_conf()")
    time.sleep(1)
    before = [int(x) for x in sql(totals).split()]
    for _ in range(5):
        signed("ListTables", {}, key, secret, conn)
    after = [int(x) for x in sql(totals).split()]
    d = [b - a for a, b in zip(before, after)]
    check("timing: off again: requests served, none timed", d[0] == 5 and d[1] == 0 and d[2] == 0, d)
    conn.close()


def signed(op, payload, key, secret, conn):
    body = json.dumps(payload).encode()
    h = sign({"Content-Type": "application/x-amz-json-1.0", "X-Amz-Target": "DynamoDB_20120810." + op},
             body, key, secret)
    r, data = raw(None, body, h, conn=conn, auth=False)
    return r.status, err_type(data), data


def escape_tests(key, secret, wkey, wsecret, rkey, rsecret):
    """A request runs as its key's role and cannot leave it: code planted in
    its path (a trigger, a column default, an index expression, a rule) that
    tries SET ROLE, set_config('role'), RESET ROLE or SET SESSION
    AUTHORIZATION fails the request; code that swallows the failure carries
    on as the same role; and the next request on the same connection (the
    same worker) runs as its own key's role, after a commit and after an
    abort."""
    su = sql("SELECT rolname FROM pg_roles WHERE oid = 10")
    rel = relation("SignedTable")
    sql("DROP TABLE IF EXISTS public.esc_log; "
        "CREATE TABLE public.esc_log (who name, sess name, pid int, what text); "
        "GRANT INSERT, SELECT ON public.esc_log TO PUBLIC")
    conn = http.client.HTTPConnection("127.0.0.1", PORT, timeout=30)
    put = lambda k, s, pk: signed("PutItem", {"TableName": "SignedTable",
                                              "Item": {"PK": {"S": pk}, "SK": {"S": "e"}}}, k, s, conn)
    logged = lambda what: sql("SELECT string_agg(who || ' ' || pid, ',') FROM public.esc_log WHERE what = '%s'" % what)

    def plant_trigger(body):
        sql("CREATE OR REPLACE FUNCTION public.esc_fn() RETURNS trigger LANGUAGE plpgsql AS $f$ "
            "BEGIN %s; INSERT INTO public.esc_log VALUES (current_user, session_user, pg_backend_pid(), TG_ARGV[0]); "
            "RETURN NEW; END $f$; "
            "DROP TRIGGER IF EXISTS esc ON stdesign_data.\"%s\"; "
            "CREATE TRIGGER esc BEFORE INSERT OR UPDATE ON stdesign_data.\"%s\" FOR EACH ROW "
            "EXECUTE FUNCTION public.esc_fn('%s')" % (body, rel, rel, body.replace("'", "''")))

    # before: the writer's request, logged with its worker's pid
    plant_trigger("NULL")
    status, _, data = put(wkey, wsecret, "esc-before")
    first = logged("NULL")
    check("escape: a logging trigger sees the key's role", status == 200 and
          first.startswith("stdesign_http_writer "), (status, data, first))
    pid = first.split(" ")[-1] if first else "?"

    attempts = [("SET ROLE", "EXECUTE 'SET ROLE %s'" % su),
                ("set_config('role')", "PERFORM set_config('role', '%s', false)" % su),
                ("set_config('role', local)", "PERFORM set_config('role', '%s', true)" % su),
                ("RESET ROLE", "EXECUTE 'RESET ROLE'"),
                ("SET SESSION AUTHORIZATION", "EXECUTE 'SET SESSION AUTHORIZATION %s'" % su),
                ("SET LOCAL ROLE", "EXECUTE 'SET LOCAL ROLE %s'" % su)]
    for i, (label, attempt) in enumerate(attempts):
        plant_trigger(attempt)
        status, etype, data = put(wkey, wsecret, "esc-%d" % i)
        check("escape: a trigger doing %s fails the request (%s)" % (label, etype),
              status == 400 and etype == "com.amazon.coral.service#AccessDeniedException" and
              not logged(attempt.replace("'", "''")) and
              sql("SELECT st_get('esc-%d', 'e', 'SignedTable') IS NULL" % i) == "t", (status, data))
        # the next request on the same connection, after that abort
        status, etype, _ = put(rkey, rsecret, "esc-reader")
        check("escape: after the abort, the next request (unprivileged key) runs as its role",
              etype == "com.amazon.coral.service#AccessDeniedException", etype)

    # the failure swallowed: the request carries on, as the same role
    plant_trigger("BEGIN EXECUTE 'SET ROLE %s'; EXCEPTION WHEN OTHERS THEN NULL; END" % su)
    status, _, data = put(wkey, wsecret, "esc-swallowed")
    who = sql("SELECT string_agg(who::text, ',') FROM public.esc_log WHERE what LIKE 'BEGIN%'")
    check("escape: SET ROLE refused and the refusal swallowed: the request stays the key's role (%s)" % who,
          status == 200 and who == "stdesign_http_writer", (status, data, who))
    status, etype, _ = put(rkey, rsecret, "esc-reader")
    check("escape: after the commit, the next request (unprivileged key) runs as its role",
          etype == "com.amazon.coral.service#AccessDeniedException", etype)
    status, etype, _ = put(key, secret, "esc-super")
    check("escape: ... and the next one as its own (superuser) role", status == 200, etype)
    plant_trigger("NULL")
    sql("DELETE FROM public.esc_log")
    status, _, _ = put(wkey, wsecret, "esc-after")
    after = logged("NULL")
    check("escape: the same worker (pid %s), later, runs the writer's request as the writer" % pid,
          status == 200 and after == "stdesign_http_writer " + pid, after)
    sql("DROP TRIGGER esc ON stdesign_data.\"%s\"" % rel)

    # a column default and an index expression calling set_config('role')
    # (only for the key esc-ddl: CREATE INDEX runs it on the rows there are)
    sql("CREATE OR REPLACE FUNCTION public.esc_imm(text) RETURNS text LANGUAGE plpgsql IMMUTABLE AS $f$ "
        "BEGIN IF $1 = 'esc-ddl' THEN PERFORM set_config('role', '%s', false); END IF; RETURN $1; END $f$" % su)
    for what, ddl, undo in [
            ("a column default",
             "ALTER TABLE stdesign_data.\"%s\" ADD COLUMN esc text DEFAULT public.esc_imm('esc-ddl')",
             "ALTER TABLE stdesign_data.\"%s\" DROP COLUMN esc"),
            ("an index expression", "CREATE INDEX esc_idx ON stdesign_data.\"%s\" (public.esc_imm(pk::text))",
             "DROP INDEX stdesign_data.esc_idx -- %s")]:
        planted = sql((ddl + "; SELECT 'planted'") % rel).endswith("planted")
        status, etype, data = put(wkey, wsecret, "esc-ddl")
        check("escape: %s calling set_config('role') fails the request (%s)" % (what, etype),
              planted and status == 400 and
              etype == "com.amazon.coral.service#AccessDeniedException", (planted, status, data))
        status, etype, _ = put(rkey, rsecret, "esc-reader")
        check("escape: ... and the next request runs as its role",
              etype == "com.amazon.coral.service#AccessDeniedException", etype)
        sql(undo % rel)
    # a rule: stdesign's writes refuse tables with rules, so it never runs
    sql("CREATE RULE esc_rule AS ON INSERT TO stdesign_data.\"%s\" DO ALSO SELECT public.esc_imm('x')" % rel)
    status, etype, data = put(wkey, wsecret, "esc-rule")
    check("escape: a rule on the table: the request fails (%s)" % etype, status in (400, 500) and
          sql("SELECT st_get('esc-rule', 'e', 'SignedTable') IS NULL") == "t", (status, data))
    sql("DROP RULE esc_rule ON stdesign_data.\"%s\"" % rel)
    status, etype, _ = put(wkey, wsecret, "esc-norule")
    check("escape: all planted code removed, the writer writes again", status == 200, etype)
    conn.close()
    sql("DROP TABLE public.esc_log; DROP FUNCTION public.esc_fn(); DROP FUNCTION public.esc_imm(text)")


def presigned_tests(key, secret, body, base):
    """SigV4 in the query string, session tokens, the region."""
    h, path = presign(base, body, key, secret)
    r, data = raw(None, body, h, auth=False, path=path)
    check("presigned: a valid presigned request", r.status == 200, data)
    r, data = raw(None, body + b" ", h, auth=False, path=path)
    check("presigned: the body changed: InvalidSignatureException",
          err_type(data) == "com.amazon.coral.service#InvalidSignatureException", data)
    old = (datetime.datetime.utcnow() - datetime.timedelta(seconds=120)).strftime("%Y%m%dT%H%M%SZ")
    h, path = presign(base, body, key, secret, expires=60, amz_date=old)
    r, data = raw(None, body, h, auth=False, path=path)
    check("presigned: past X-Amz-Expires: Signature expired", r.status == 400 and
          err_type(data) == "com.amazon.coral.service#InvalidSignatureException" and
          json.loads(data)["message"].startswith("Signature expired: " + old), data)
    h, path = presign(base, body, key, secret, expires=600, amz_date=old)
    r, data = raw(None, body, h, auth=False, path=path)
    check("presigned: within X-Amz-Expires", r.status == 200, data)
    for bad in ("0", "604801", "abc", ""):
        h, path = presign(base, body, key, secret, expires=bad)
        r, data = raw(None, body, h, auth=False, path=path)
        check("presigned: X-Amz-Expires=%r: IncompleteSignatureException" % bad,
              err_type(data) == "com.amazon.coral.service#IncompleteSignatureException", data)
    h, path = presign(base, body, key, secret)
    r, data = raw(None, body, dict(h, Authorization=sign(base, body, key, secret)["Authorization"]),
                  auth=False, path=path)
    check("presigned and an Authorization header: InvalidSignatureException (Found both)",
          err_type(data) == "com.amazon.coral.service#InvalidSignatureException" and
          "Found both" in json.loads(data)["message"], data)
    r, data = raw(None, body, h, auth=False, path=re.sub(r"&X-Amz-Signature=[0-9a-f]+", "", path))
    check("presigned without X-Amz-Signature: IncompleteSignatureException",
          err_type(data) == "com.amazon.coral.service#IncompleteSignatureException" and
          "AWS query-string parameters must include 'X-Amz-Signature'" in json.loads(data)["message"], data)
    h, path = presign(base, body, key, secret, extra={"X-Amz-Security-Token": "FQoGZXIvYXdzEXAMPLE"})
    r, data = raw(None, body, h, auth=False, path=path)
    check("presigned with a session token: UnrecognizedClientException",
          err_type(data) == "com.amazon.coral.service#UnrecognizedClientException", data)

    # a session token in the header, signed (as the SDKs send it)
    c = boto3.client("dynamodb", endpoint_url=ENDPOINT, region_name="us-east-1", aws_access_key_id=key,
                     aws_secret_access_key=secret, aws_session_token="FQoGZXIvYXdzEXAMPLE",
                     config=botocore.config.Config(retries={"max_attempts": 1}))
    code, resp = error_code(lambda: c.list_tables())
    check("session token: UnrecognizedClientException (stdesign has no STS)",
          code == "UnrecognizedClientException" and
          resp["Error"]["Message"] == "The security token included in the request is invalid", resp)
    code, _ = error_code(lambda: client(key, secret + "x").list_tables())
    check("session token: a wrong signature is still InvalidSignatureException", code == "InvalidSignatureException")

    # the region: any, until stdesign.http_region names one
    c = boto3.client("dynamodb", endpoint_url=ENDPOINT, region_name="eu-west-3", aws_access_key_id=key,
                     aws_secret_access_key=secret, config=botocore.config.Config(retries={"max_attempts": 1}))
    code, _ = error_code(lambda: c.list_tables())
    check("region: any region is accepted by default", code is None, code)
    sql("ALTER SYSTEM SET stdesign.http_region = 'us-east-1'")
    sql("SELECT pg_reload_conf()")
    time.sleep(1)
    code, resp = error_code(lambda: c.list_tables())
    check("region: stdesign.http_region = us-east-1 refuses eu-west-3: InvalidSignatureException",
          code == "InvalidSignatureException" and
          resp["Error"]["Message"] == "Credential should be scoped to a valid region, not 'eu-west-3'.", resp)
    code, _ = error_code(lambda: client(key, secret).list_tables())
    check("region: ... and serves us-east-1", code is None, code)
    sql("ALTER SYSTEM RESET stdesign.http_region")
    sql("SELECT pg_reload_conf()")
    time.sleep(1)


def failure_tests():
    """The generic 500, and serialization failures and deadlocks: retried a
    bounded number of times, then answered as DynamoDB answers a conflict.
    The failures are real: a superuser plants a trigger that fails the way
    asked on the table's relation, and a SQL session deadlocks with a
    request."""
    c = client()
    make_table(c, "BotoTable")
    rel = relation("BotoTable")
    item = {"TableName": "BotoTable", "Item": {"PK": {"S": "fail"}, "SK": {"S": "1"}}}
    c.delete_item(TableName="BotoTable", Key=item["Item"])

    def plant(raise_stmt):
        sql("DROP SEQUENCE IF EXISTS public.fail_attempts; CREATE SEQUENCE public.fail_attempts; "
            "GRANT USAGE ON SEQUENCE public.fail_attempts TO PUBLIC; "
            "CREATE OR REPLACE FUNCTION public.fail_fn() RETURNS trigger LANGUAGE plpgsql AS $f$ "
            "BEGIN PERFORM nextval('public.fail_attempts'); %s; RETURN NEW; END $f$; "
            "DROP TRIGGER IF EXISTS fail ON stdesign_data.\"%s\"; "
            "CREATE TRIGGER fail BEFORE INSERT OR UPDATE ON stdesign_data.\"%s\" FOR EACH ROW "
            "EXECUTE FUNCTION public.fail_fn()" % (raise_stmt, rel, rel))

    def attempts():
        return sql("SELECT last_value FROM public.fail_attempts")

    # an error the API has no answer for: 500, generic, the cause in the log only
    plant("RAISE EXCEPTION 'planted failure %', 'detail-7f3a'")
    r, data = raw("PutItem", json.dumps(item))
    rid = r.getheader("x-amzn-RequestId") or "?"
    body = json.loads(data) if data else {}
    check("500: InternalServerError with the generic message", r.status == 500 and
          body.get("__type") == "com.amazonaws.dynamodb.v20120810#InternalServerError" and
          body.get("message") == "Internal server error" and b"detail-7f3a" not in data, data)
    check("500: DynamoDB's content type, a request id and the CRC-32",
          r.getheader("Content-Type") == "application/x-amz-json-1.0" and
          re.fullmatch(r"[A-Z0-9]{52}", rid) is not None and int(r.getheader("x-amz-crc32")) == zlib.crc32(data))
    time.sleep(0.3)
    log = server_log()
    check("500: the server log has the cause under the request id",
          re.search(r"request %s \(PutItem\) failed: planted failure detail-7f3a \(SQLSTATE P0001\)" % rid, log)
          is not None, rid)
    check("500: not retried, nothing written", attempts() == "1" and
          sql("SELECT st_get('fail', '1', 'BotoTable') IS NULL") == "t", attempts())

    # a serialization failure every time: retried, then a conflict
    plant("RAISE EXCEPTION 'planted' USING ERRCODE = 'serialization_failure'")
    code, resp = error_code(lambda: c.put_item(**item))
    check("serialization failure every time: TransactionConflictException after 6 attempts (%s)" % attempts(),
          code == "TransactionConflictException" and attempts() == "6" and
          resp["Error"]["Message"] == "Transaction is ongoing for the item", resp)
    plant("RAISE EXCEPTION 'planted' USING ERRCODE = 'deadlock_detected'")
    tx = [{"Put": {"TableName": "BotoTable", "Item": {"PK": {"S": "fail"}, "SK": {"S": "%d" % i}}}}
          for i in (2, 3)]
    code, resp = error_code(lambda: c.transact_write_items(TransactItems=tx))
    reasons = [x.get("Code") for x in (resp or {}).get("CancellationReasons", [])]
    check("deadlock every time: TransactionCanceledException, reasons [TransactionConflict] x2, after 6 attempts (%s)"
          % attempts(), code == "TransactionCanceledException" and reasons == ["TransactionConflict"] * 2 and
          attempts() == "6", resp)
    time.sleep(0.3)
    check("the retries are in the server log",
          re.search(r"\(TransactWriteItems\): deadlock detected, retrying \(attempt 6 of 6\)", server_log())
          is not None)
    sql("DROP TRIGGER fail ON stdesign_data.\"%s\"; DROP FUNCTION public.fail_fn(); "
        "DROP SEQUENCE public.fail_attempts" % rel)
    check("the table serves again", error_code(lambda: c.put_item(**item))[0] is None)

    # a server that cannot write now (a standby, default_transaction_read_only):
    # a write is DynamoDB's 503 ServiceUnavailable with the cause, not a 500;
    # reads are served as before (docs/errors.md)
    set_and_reload("SET default_transaction_read_only = on")
    ro = {"TableName": "BotoTable", "Item": {"PK": {"S": "fail"}, "SK": {"S": "ro"}}}
    r, data = raw("PutItem", json.dumps(ro))
    body = json.loads(data) if data else {}
    check("read-only: PutItem: 503 ServiceUnavailableException saying why", r.status == 503 and
          body.get("__type") == "com.amazonaws.dynamodb.v20120810#ServiceUnavailableException" and
          body.get("message") == "The server accepts no writes now (a standby, or default_transaction_read_only): "
          "cannot execute INSERT in a read-only transaction", data)
    code, resp = error_code(lambda: c.update_item(TableName="BotoTable", Key=item["Item"],
                                                  UpdateExpression="SET n = :n",
                                                  ExpressionAttributeValues={":n": {"N": "1"}}))
    check("read-only: boto3 UpdateItem: ServiceUnavailableException, HTTP 503",
          code == "ServiceUnavailableException" and resp["ResponseMetadata"]["HTTPStatusCode"] == 503, resp)
    code, resp = error_code(lambda: c.create_table(
        TableName="ReadOnlyTable", BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": "PK", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"}]))
    check("read-only: CreateTable: ServiceUnavailableException", code == "ServiceUnavailableException", resp)
    got = c.get_item(TableName="BotoTable", Key=item["Item"]).get("Item")
    check("read-only: GetItem and Query served", got == item["Item"] and
          c.query(TableName="BotoTable", KeyConditionExpression="PK = :p",
                  ExpressionAttributeValues={":p": {"S": "fail"}})["Count"] == 1, got)
    set_and_reload("RESET default_transaction_read_only")
    check("read-only: nothing written", sql("SELECT st_get('fail', 'ro', 'BotoTable') IS NULL") == "t" and
          sql("SELECT count(*) FROM st_list_tables() t WHERE t = 'ReadOnlyTable'") == "0")
    check("read-only: writes served again once reset", error_code(lambda: c.put_item(**ro))[0] is None)
    c.delete_item(TableName="BotoTable", Key=ro["Item"])

    # a real deadlock: a SQL session holds item b; the request locks a, then
    # waits for b; the session asks for a.  The request's deadlock_timeout
    # (1 s) is the shorter: it is the one chosen, and is retried.
    for sk in ("a", "b"):
        c.put_item(TableName="BotoTable", Item={"PK": {"S": "dl"}, "SK": {"S": sk}, "n": {"N": "0"}})
    session = subprocess.Popen(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=0"], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    session.stdin.write("SET deadlock_timeout = '60s';\nBEGIN;\n"
                        "SELECT 1 FROM stdesign_data.\"%s\" WHERE pk = 'dl' AND sk = 'b' FOR UPDATE;\n" % rel)
    session.stdin.flush()
    time.sleep(0.5)
    result = {}

    def request():
        c2 = client()
        add = lambda sk: {"Update": {"TableName": "BotoTable", "Key": {"PK": {"S": "dl"}, "SK": {"S": sk}},
                                     "UpdateExpression": "ADD n :one",
                                     "ExpressionAttributeValues": {":one": {"N": "1"}}}}
        result["code"], result["resp"] = error_code(lambda: c2.transact_write_items(
            TransactItems=[add("b"), add("a")]))

    t = threading.Thread(target=request)
    t.start()
    waiting = False
    for _ in range(50):
        if sql("SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'stdesign http worker' "
               "AND wait_event_type = 'Lock'") == "1":
            waiting = True
            break
        time.sleep(0.1)
    session.stdin.write("SELECT 1 FROM stdesign_data.\"%s\" WHERE pk = 'dl' AND sk = 'a' FOR UPDATE;\n"
                        "SELECT pg_sleep(0.5);\nCOMMIT;\n" % rel)
    session.stdin.close()
    session.wait(60)
    err = session.stderr.read()
    t.join(60)
    time.sleep(0.3)
    n = sql("SELECT string_agg(st_get('dl', sk, 'BotoTable')->>'n', ',' ORDER BY sk) FROM (VALUES ('a'), ('b')) v(sk)")
    check("deadlock with a SQL session: the request waited for the session's lock", waiting)
    check("deadlock with a SQL session: the request succeeds once retried (%s)" % result.get("code"),
          result.get("code") is None and n == "1,1", (result, n))
    check("deadlock with a SQL session: the session was not the one chosen", "deadlock" not in err, err)
    check("deadlock with a SQL session: the retry is in the server log",
          re.search(r"\(TransactWriteItems\): deadlock detected, retrying \(attempt 2 of 6\)", server_log())
          is not None)


def conflict_tests():
    """Run under default_transaction_isolation = repeatable read: concurrent
    updates of one item fail to serialize; the endpoint retries them, and
    what is still in conflict after that is a TransactionConflictException,
    never a 500, and never a lost update."""
    make_table(client(), "BotoTable")
    client().put_item(TableName="BotoTable", Item={"PK": {"S": "hot"}, "SK": {"S": "c"}, "n": {"N": "0"}})
    results = []

    def worker():
        c = client()
        for _ in range(25):
            code, _ = error_code(lambda: c.update_item(
                TableName="BotoTable", Key={"PK": {"S": "hot"}, "SK": {"S": "c"}},
                UpdateExpression="ADD n :one", ExpressionAttributeValues={":one": {"N": "1"}}))
            results.append(code)

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    ok = results.count(None)
    other = set(results) - {None, "TransactionConflictException"}
    n = int(client().get_item(TableName="BotoTable", Key={"PK": {"S": "hot"}, "SK": {"S": "c"}})["Item"]["n"]["N"])
    check("conflicts: only successes and TransactionConflictException (%d ok of %d)" % (ok, len(results)),
          not other and ok > 0, other)
    check("conflicts: every success counted, nothing lost or doubled (%d)" % n, n == ok, (n, ok))


# ---------------------------------------------------------------- dispatch

def dispatch_tests():
    """A pool of keep-alive connections, as the SDKs keep: one request
    waits for a row lock a SQL session holds; every other connection of the
    pool is still answered at once, whichever worker accepted it (requests
    move to an idle worker), and the waiting request completes once the
    lock is released."""
    c = client()
    make_table(c, "PoolTable")
    for i in range(12):
        c.put_item(TableName="PoolTable", Item={"PK": {"S": "pool"}, "SK": {"S": "%02d" % i}, "n": {"N": "0"}})
    get = lambda i: json.dumps({"TableName": "PoolTable", "Key": {"PK": {"S": "pool"}, "SK": {"S": "%02d" % i}}})
    # 12 connections: the kernel spreads them over the workers, so the
    # blocked one's worker has others of the pool (all but surely)
    conns = [http.client.HTTPConnection("127.0.0.1", PORT, timeout=30) for _ in range(12)]
    ok = True
    for i, conn in enumerate(conns):
        r, _ = raw("GetItem", get(i), conn=conn)
        ok = ok and r.status == 200
    socks = [conn.sock for conn in conns]
    check("dispatch: 12 keep-alive connections open", ok)

    rel = relation("PoolTable")
    held = lambda: sql("SELECT count(*) FROM pg_stat_activity WHERE state = 'active' "
                       "AND query LIKE '%pg_sleep(60) /* pool lock */%' AND pid <> pg_backend_pid()") == "1"
    holder = hold_pool_lock('SELECT 1 FROM stdesign_data."%s" FOR UPDATE' % rel, held)
    check("dispatch: a SQL session holds the rows locked", held())

    update = json.dumps({"TableName": "PoolTable", "Key": {"PK": {"S": "pool"}, "SK": {"S": "00"}},
                         "UpdateExpression": "SET n = :one", "ExpressionAttributeValues": {":one": {"N": "1"}}})
    conns[0].request("POST", "/", body=update.encode(), headers={
        "Content-Type": "application/x-amz-json-1.0", "X-Amz-Target": "DynamoDB_20120810.UpdateItem",
        "Authorization": FAKE_AUTH})
    waiting = lambda: sql("SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'stdesign http worker' "
                          "AND state = 'active' AND query LIKE '%UpdateItem%' AND wait_event_type = 'Lock'") == "1"
    for _ in range(100):
        if waiting():
            break
        time.sleep(0.1)
    check("dispatch: the UpdateItem waits for the row lock", waiting())

    results = {}

    def other(i):
        conns[i].sock.settimeout(5)
        t0 = time.monotonic()
        try:
            r, data = raw("GetItem", get(i), conn=conns[i])
            results[i] = (r.status, time.monotonic() - t0, conns[i].sock is socks[i])
        except Exception as e:
            results[i] = (repr(e), time.monotonic() - t0, False)

    threads = [threading.Thread(target=other, args=(i,)) for i in range(1, 12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    slow = {i: v for i, v in results.items() if v[0] != 200 or v[1] > 3 or not v[2]}
    check("dispatch: the 11 other connections of the pool answered within 3 s, on their kept connections",
          len(results) == 11 and not slow, slow)
    socks[0].setblocking(False)
    try:
        early = socks[0].recv(1, socket.MSG_PEEK)
    except BlockingIOError:
        early = None
    socks[0].setblocking(True)
    check("dispatch: the blocked request still waits", early is None and waiting(), early)
    # and a second round: a worker that answered others is free again
    results.clear()
    threads = [threading.Thread(target=other, args=(i,)) for i in range(1, 12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    slow = {i: v for i, v in results.items() if v[0] != 200 or v[1] > 3 or not v[2]}
    check("dispatch: and again, while the request still waits", len(results) == 11 and not slow, slow)

    release_pool_lock(holder)
    t0 = time.monotonic()
    r = conns[0].getresponse()
    data = r.read()
    took = time.monotonic() - t0
    check("dispatch: the lock released, the blocked UpdateItem completes (%.1fs)" % took,
          r.status == 200 and took < 10, (r.status, data))
    n = c.get_item(TableName="PoolTable", Key={"PK": {"S": "pool"}, "SK": {"S": "00"}})["Item"]["n"]["N"]
    check("dispatch: its update is written", n == "1", n)
    r, _ = raw("GetItem", get(0), conn=conns[0])
    check("dispatch: its connection is kept and serves the next request", r.status == 200 and conns[0].sock is socks[0])
    for conn in conns:
        conn.close()

    # more requests at once than a worker has queue slots (64): those past
    # them wait in its I/O thread, and all are answered, in order
    holder = hold_pool_lock('LOCK TABLE stdesign_data."%s" IN ACCESS EXCLUSIVE MODE' % rel, held)
    many = [http.client.HTTPConnection("127.0.0.1", PORT, timeout=60) for _ in range(150)]
    for i, conn in enumerate(many):
        conn.request("POST", "/", body=json.dumps({"TableName": "PoolTable", "Item": {"PK": {"S": "many"}, "SK": {"S": "%03d" % i}}}).encode(),
                     headers={"Content-Type": "application/x-amz-json-1.0", "X-Amz-Target": "DynamoDB_20120810.PutItem",
                              "Authorization": FAKE_AUTH})
    time.sleep(1)
    release_pool_lock(holder)
    codes = {}
    for conn in many:
        try:
            r = conn.getresponse()
            r.read()
            codes[r.status] = codes.get(r.status, 0) + 1
        except Exception as e:
            codes[repr(e)] = codes.get(repr(e), 0) + 1
        conn.close()
    n = sql("SELECT count(*) FROM st_query('many', NULL, 'PoolTable')")
    check("dispatch: 150 requests at once, past the queue's slots: all answered and written",
          codes == {200: 150} and n == "150", (codes, n))
    fast_path_tests(c, rel, get, held)
    handoff_tests(get, rel, held)


def open_connections():
    """Open connections by worker: {worker: open_connections}."""
    out = {}
    for line in sql("SELECT worker, open_connections FROM stdesign.http_status()").splitlines():
        w, n = line.split("|")
        out[int(w)] = int(n)
    return out


def owned_connections(get, want):
    """Keep-alive connections opened one at a time, each with the worker
    whose I/O thread accepted it (the one whose count of open connections
    rose), until one worker holds want of them: (worker, its connections,
    all the others)."""
    by = {}
    for _ in range(60):
        before = open_connections()
        conn = http.client.HTTPConnection("127.0.0.1", PORT, timeout=30)
        r, _ = raw("GetItem", get(1), conn=conn)
        rose = []
        for _ in range(20):
            after = open_connections()
            rose = [w for w in after if after[w] > before.get(w, 0)]
            if rose:
                break
            time.sleep(0.05)
        if r.status == 200 and len(rose) == 1:
            by.setdefault(rose[0], []).append(conn)
            if len(by[rose[0]]) == want:
                others = [x for w, cs in by.items() if w != rose[0] for x in cs]
                return rose[0], by[rose[0]], others
        else:
            conn.close()
    return None, [], [x for cs in by.values() for x in cs]


def hold_pool_lock(lock, held, role=None, label="pool lock", seconds=60):
    """A SQL session (as role, when given) that runs lock (a statement) in a
    transaction and then sleeps, its statement marked with label, holding
    what it took; back once held() sees it sleeping."""
    sleep = "pg_sleep(%d) /* %s */" % (seconds, label)
    holder = subprocess.Popen(["psql", "-X", "-q"] + (["-c", "SET ROLE " + role] if role else []) +
                              ["-c", "BEGIN", "-c", lock, "-c", "SELECT " + sleep],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    holder.sleep_statement = sleep
    for _ in range(100):
        if held():
            break
        time.sleep(0.1)
    return holder


def release_pool_lock(holder):
    """hold_pool_lock's session cancelled, its transaction ended."""
    sql("SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE query LIKE '%%%s%%' "
        "AND pid <> pg_backend_pid()" % holder.sleep_statement)
    holder.wait(timeout=30)


def fast_path_tests(c, rel, get, held):
    """The fast path: a worker whose main thread is idle takes the requests
    of its own connections itself, without the queue.  While such a request
    waits for a row lock, the worker's other connections must still be
    answered: its I/O thread takes them back, and queues their requests for
    the other worker."""
    time.sleep(1)   # the connections closed above are gone from the counts
    worker, mine, others = owned_connections(get, 3)
    check("fast path: three keep-alive connections held by one worker", worker is not None and len(mine) == 3,
          open_connections())
    if worker is None:
        return
    for conn in others:
        conn.close()
    socks = [conn.sock for conn in mine]
    pid = sql("SELECT pid FROM stdesign.http_status() WHERE worker = %d" % worker)
    holder = hold_pool_lock('SELECT 1 FROM stdesign_data."%s" FOR UPDATE' % rel, held)
    check("fast path: a SQL session holds the rows locked", held())
    update = json.dumps({"TableName": "PoolTable", "Key": {"PK": {"S": "pool"}, "SK": {"S": "01"}},
                         "UpdateExpression": "SET n = :two", "ExpressionAttributeValues": {":two": {"N": "2"}}})
    mine[0].request("POST", "/", body=update.encode(), headers={
        "Content-Type": "application/x-amz-json-1.0", "X-Amz-Target": "DynamoDB_20120810.UpdateItem",
        "Authorization": FAKE_AUTH})
    waiter = lambda: sql("SELECT string_agg(pid::text, ',') FROM pg_stat_activity "
                         "WHERE backend_type = 'stdesign http worker' AND state = 'active' "
                         "AND query LIKE '%UpdateItem%' AND wait_event_type = 'Lock'")
    for _ in range(100):
        if waiter():
            break
        time.sleep(0.1)
    # idle, the worker that holds the connection runs the request itself
    check("fast path: the UpdateItem waits for the row lock on the worker that holds its connection",
          waiter() == pid, (waiter(), pid))

    def timed(conn, i):
        conn.sock.settimeout(5)
        t0 = time.monotonic()
        try:
            r, _ = raw("GetItem", get(i), conn=conn)
            return r.status, time.monotonic() - t0, conn.sock is socks[mine.index(conn)]
        except Exception as e:
            return repr(e), time.monotonic() - t0, False

    # one at a time, then both at once, then again: the worker's main
    # thread is held, its I/O thread serves them
    got = [timed(mine[1], 2), timed(mine[2], 3)]
    results = {}
    threads = [threading.Thread(target=lambda i=i: results.__setitem__(i, timed(mine[i], i))) for i in (1, 2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    got += list(results.values())
    got += [timed(mine[1], 4), timed(mine[2], 5)]
    slow = [g for g in got if g[0] != 200 or g[1] > 3 or not g[2]]
    check("fast path: the worker's two other connections answered within 3 s while its request waits (%d requests)"
          % len(got), len(got) == 6 and not slow, slow or got)
    # promptly, not by the I/O thread's periodic wake-up (once a second):
    # ten in a row, one after the other, within 2 s in all
    t0 = time.monotonic()
    got = [timed(mine[1 + k % 2], k % 12) for k in range(10)]
    took = time.monotonic() - t0
    check("fast path: and ten in a row within 2 s (%.2fs)" % took,
          took < 2 and all(g[0] == 200 and g[2] for g in got), got)
    socks[0].setblocking(False)
    try:
        early = socks[0].recv(1, socket.MSG_PEEK)
    except BlockingIOError:
        early = None
    socks[0].setblocking(True)
    check("fast path: the blocked request still waits", early is None and waiter() == pid, early)

    release_pool_lock(holder)
    t0 = time.monotonic()
    r = mine[0].getresponse()
    data = r.read()
    took = time.monotonic() - t0
    check("fast path: the lock released, the UpdateItem completes (%.1fs)" % took,
          r.status == 200 and took < 10, (r.status, data))
    n = c.get_item(TableName="PoolTable", Key={"PK": {"S": "pool"}, "SK": {"S": "01"}})["Item"]["n"]["N"]
    check("fast path: its update is written", n == "2", n)

    # back and forth between the paths: each connection in turn, and all
    # three at once, answered on their kept connections
    bad = []
    for k in range(30):
        i = k % 3
        r, data = raw("GetItem", get(i), conn=mine[i])
        if r.status != 200 or json.loads(data)["Item"]["SK"]["S"] != "%02d" % i or mine[i].sock is not socks[i]:
            bad.append((i, r.status, data))
    results = {}

    def burst(i):
        out = []
        for k in range(20):
            r, data = raw("GetItem", get((i + k) % 12), conn=mine[i])
            out.append(r.status == 200 and json.loads(data)["Item"]["SK"]["S"] == "%02d" % ((i + k) % 12))
        results[i] = all(out) and mine[i].sock is socks[i]

    threads = [threading.Thread(target=burst, args=(i,)) for i in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    check("fast path: 30 requests in turn and 60 at once on the kept connections, each its own item",
          not bad and results == {0: True, 1: True, 2: True}, (bad, results))

    # turned off by a reload, then on again: every request through the
    # queue, then the fast path again, on the same connections
    bad = []
    for setting in ("off", "on"):
        sql("ALTER SYSTEM SET stdesign.http_fast_path = %s" % setting)
        sql("SELECT pg_reload_conf()")
        time.sleep(1)
        for k in range(12):
            i = k % 3
            r, data = raw("GetItem", get(i), conn=mine[i])
            if r.status != 200 or json.loads(data)["Item"]["SK"]["S"] != "%02d" % i or mine[i].sock is not socks[i]:
                bad.append((setting, i, r.status, data))
    sql("ALTER SYSTEM RESET stdesign.http_fast_path")
    sql("SELECT pg_reload_conf()")
    check("fast path: stdesign.http_fast_path off then on again by a reload, the same connections served",
          not bad, bad)
    unread_responses_tests(mine, get)
    for conn in mine:
        conn.close()


def handoff_tests(get, rel, held):
    """Two connections of a client that the kernel put on one worker: when
    a request arrives on one while that worker's main thread runs the
    other's (here an UpdateItem that waits for a row lock a SQL session
    holds), the connection is handed to the idle worker (src/http/
    http_dispatch.c, conn_handoff) and served there; the client sees the
    same connection throughout."""
    time.sleep(1)   # the connections closed above are gone from the counts
    worker, mine, others = owned_connections(get, 2)
    for conn in others:
        conn.close()
    check("hand-off: two keep-alive connections held by one worker", worker is not None and len(mine) == 2,
          open_connections())
    if worker is None:
        return
    time.sleep(0.5)
    before = open_connections()
    socks = [conn.sock for conn in mine]
    holder = hold_pool_lock('SELECT 1 FROM stdesign_data."%s" FOR UPDATE' % rel, held)
    update = json.dumps({"TableName": "PoolTable", "Key": {"PK": {"S": "pool"}, "SK": {"S": "03"}},
                         "UpdateExpression": "SET n = :n", "ExpressionAttributeValues": {":n": {"N": "3"}}})
    mine[0].request("POST", "/", body=update.encode(), headers={
        "Content-Type": "application/x-amz-json-1.0", "X-Amz-Target": "DynamoDB_20120810.UpdateItem",
        "Authorization": FAKE_AUTH})
    time.sleep(0.5)
    mine[1].sock.settimeout(5)
    r, data = raw("GetItem", get(4), conn=mine[1])
    moved = open_connections()
    check("hand-off: while one waits for a lock, the other's request is answered on its kept connection",
          r.status == 200 and json.loads(data)["Item"]["SK"]["S"] == "04" and mine[1].sock is socks[1], data)
    # handed over only to a worker with fewer connections by two or more
    # (others of the test's may be open there): then it moved
    other = min((n for w, n in before.items() if w != worker), default=None)
    if other is not None and before.get(worker, 0) - other >= 2:
        check("hand-off: ... by the other worker, which now holds that connection (open connections %s -> %s)"
              % (before, moved), moved.get(worker, 0) == before.get(worker, 0) - 1 and
              sum(moved.values()) == sum(before.values()), (before, moved))
    release_pool_lock(holder)
    r = mine[0].getresponse()
    r.read()
    check("hand-off: the lock released, the waiting request completes", r.status == 200, r.status)
    for conn in mine:
        conn.close()

def unread_responses_tests(mine, get):
    """Clients that never read their responses (Query pages of about 1 MB,
    three pipelined per connection, a small receive buffer) hold up neither the
    worker whose main thread sends them (the fast path) nor its I/O thread:
    the other connections are answered at once, and the workers serve on
    once those clients are gone."""
    big = "x" * 300000
    ok = True
    for i in range(8):
        r, _ = raw("PutItem", json.dumps({"TableName": "PoolTable", "Item": {
            "PK": {"S": "unread"}, "SK": {"S": "%02d" % i}, "v": {"S": big}}}))
        ok = ok and r.status == 200
    body = json.dumps({"TableName": "PoolTable", "KeyConditionExpression": "PK = :p",
                       "ExpressionAttributeValues": {":p": {"S": "unread"}}}).encode()
    one = (b"POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-amz-json-1.0\r\n"
           b"X-Amz-Target: DynamoDB_20120810.Query\r\nAuthorization: " + FAKE_AUTH.encode() +
           b"\r\nContent-Length: %d\r\n\r\n" % len(body) + body)
    unread = []
    for _ in range(4):
        s = socket.socket()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.connect(("127.0.0.1", PORT))
        s.sendall(one * 3)
        unread.append(s)
    time.sleep(1)
    t0 = time.time()
    bad = []
    for k in range(30):
        r, data = raw("GetItem", get(k % 3), conn=mine[k % 3])
        if r.status != 200:
            bad.append((r.status, data))
    took = time.time() - t0
    check("fast path: 30 requests answered within 3 s while four clients never read their 1 MB responses (%.2fs)"
          % took, ok and not bad and took < 3, bad)
    for s in unread:
        s.close()
    time.sleep(0.5)
    codes = [raw("GetItem", get(1))[0].status for _ in range(10)]
    check("fast path: served on once those clients are gone", codes == [200] * 10, codes)


# ---------------------------------------------------------------- bounds

def exchange(data, timeout=5):
    """Send raw bytes; what comes back until the server closes (or the timeout)."""
    s = socket.create_connection(("127.0.0.1", PORT), timeout=timeout)
    got = b""
    try:
        s.sendall(data)
        while True:
            part = s.recv(65536)
            if not part:
                break
            got += part
    except OSError as e:
        got += b"<" + str(e).encode() + b">"
    s.close()
    return got


def stream_upload(head, total, results, key):
    """Send head, then total bytes of body as the server takes them, watching
    for an answer; results[key] = (bytes of body sent, the answer's start)."""
    s = socket.create_connection(("127.0.0.1", PORT), timeout=10)
    sent = 0
    answer = b""
    chunk = b" " * 65536
    try:
        s.sendall(head)
        while sent < total:
            if select.select([s], [], [], 0)[0]:
                break
            sent += s.send(chunk[:min(len(chunk), total - sent)])
        answer = s.recv(4096)
    except OSError as e:
        try:
            answer = s.recv(4096)
        except OSError:
            pass
        answer = answer or ("<%s>" % e).encode()
    s.close()
    results[key] = (sent, answer)


def worker_pids():
    return [int(p) for p in sql("SELECT string_agg(pid::text, ' ') FROM stdesign.http_status() "
                                "WHERE pid IS NOT NULL").split()]


def rss_kb(pids):
    total = 0
    for pid in pids:
        try:
            with open("/proc/%d/status" % pid) as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
        except OSError:
            pass
    return total


def uploads_rss(heads, total):
    """Run one stream_upload per head at once; the results, and the most the
    workers' resident memory grew meanwhile (kB)."""
    pids = worker_pids()
    before = rss_kb(pids)
    results = {}
    threads = [threading.Thread(target=stream_upload, args=(h, total, results, i)) for i, h in enumerate(heads)]
    for t in threads:
        t.start()
    peak = before
    while any(t.is_alive() for t in threads):
        peak = max(peak, rss_kb(pids))
        time.sleep(0.05)
    for t in threads:
        t.join()
    return results, peak - before


def set_and_reload(*settings):
    for setting in settings:
        sql("ALTER SYSTEM " + setting)
    sql("SELECT pg_reload_conf()")
    time.sleep(1)


def bounds_tests():
    """Under trust: ambiguous request framing refused; a body without
    credentials not read past 64 kB; the bounds on bytes held and on
    connections."""
    c = client()
    make_table(c, "BoundsTable")
    head = (b"POST / HTTP/1.1\r\nHost: x\r\nX-Amz-Target: DynamoDB_20120810.ListTables\r\n"
            b"Content-Type: application/x-amz-json-1.0\r\nAuthorization: " + FAKE_AUTH.encode() + b"\r\n")
    got = exchange(head + b"Transfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    check("framing: a chunked request is served (and the next one on its connection)",
          got.startswith(b"HTTP/1.1 200") and got.count(b"HTTP/1.1 200") == 2, got[:200])
    for name, data in [
            ("two different Content-Length headers", b"Content-Length: 2\r\nContent-Length: 40\r\n\r\n{}"),
            ("two equal Content-Length headers", b"Content-Length: 2\r\nContent-Length: 2\r\n\r\n{}"),
            ("'Transfer-Encoding : chunked' (a space before the colon)",
             b"Transfer-Encoding : chunked\r\nContent-Length: 2\r\n\r\n{}"),
            ("Transfer-Encoding: gzip, chunked", b"Transfer-Encoding: gzip, chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n"),
            ("Transfer-Encoding: identity", b"Transfer-Encoding: identity\r\nContent-Length: 2\r\n\r\n{}"),
            ("two Transfer-Encoding: chunked headers",
             b"Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n"),
            ("Transfer-Encoding and Content-Length",
             b"Transfer-Encoding: chunked\r\nContent-Length: 2\r\n\r\n2\r\n{}\r\n0\r\n\r\n"),
            ("a Content-Length that is not digits", b"Content-Length: 2x\r\n\r\n{}")]:
        got = exchange(head + data)
        check("framing: %s: 400, connection closed" % name,
              got.startswith(b"HTTP/1.1 400") and b"\r\nConnection: close\r\n" in got
              and b"HTTP/1.1 200" not in got, got[:200])
    got = exchange(head.replace(b"HTTP/1.1", b"HTTP/1.0") + b"Transfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n")
    check("framing: Transfer-Encoding in HTTP/1.0: 400", got.startswith(b"HTTP/1.0 400") or got.startswith(b"HTTP/1.1 400"),
          got[:200])

    # 20 uploads of 15 MB without credentials: each answered after 64 kB
    # (and what the kernel buffers), none read whole, the workers' memory flat
    total = 15 << 20
    bare = (b"POST / HTTP/1.1\r\nHost: x\r\nX-Amz-Target: DynamoDB_20120810.PutItem\r\n"
            b"Content-Type: application/x-amz-json-1.0\r\nContent-Length: %d\r\n\r\n" % total)
    results, grew = uploads_rss([bare] * 20, total)
    refused = [r for r in results.values() if r[0] < total and
               (b"MissingAuthenticationTokenException" in r[1] or b"reset" in r[1] or b"Broken pipe" in r[1])]
    check("bounds: 20 uploads of 15 MB without credentials: refused before being read whole",
          len(refused) == 20, [(r[0], r[1][:40]) for r in results.values() if r not in refused][:3])
    check("bounds: ... and the workers' memory did not grow with them (%d kB)" % grew, grew < 40 * 1024, grew)
    r, _ = raw(None, "", method="GET", auth=False)
    check("bounds: the server still answers", r.status == 200)

    # a body over 64 kB with credentials is read whole (after the check)
    item = {"PK": {"S": "big"}, "SK": {"S": "1"}, "pad": {"S": "x" * 300000}}
    r, data = raw("PutItem", json.dumps({"TableName": "BoundsTable", "Item": item}))
    check("bounds: a 300 kB PutItem with credentials is served", r.status == 200, data[:200])
    got = exchange(head + b"Transfer-Encoding: chunked\r\n\r\n" +
                   b"%x\r\n{%s}\r\n0\r\n\r\n" % (200002, b" " * 200000), timeout=10)
    check("bounds: and a chunked one of 200 kB", got.startswith(b"HTTP/1.1 200"), got[:200])

    # stdesign.http_max_buffer: bodies held at once, by all the workers
    set_and_reload("SET stdesign.http_max_buffer = '16MB'")
    big = 10 << 20
    bighead = (b"POST / HTTP/1.1\r\nHost: x\r\nX-Amz-Target: DynamoDB_20120810.ListTables\r\n"
               b"Content-Type: application/x-amz-json-1.0\r\nAuthorization: " + FAKE_AUTH.encode() +
               b"\r\nContent-Length: %d\r\n\r\n{" % big)
    a = socket.create_connection(("127.0.0.1", PORT), timeout=30)
    a.sendall(bighead + b" " * (6 << 20))
    time.sleep(1)
    # the second one asks before sending its body (Expect: 100-continue)
    b = socket.create_connection(("127.0.0.1", PORT), timeout=30)
    b.sendall(bighead[:-3] + b"Expect: 100-continue\r\n\r\n")
    got = b.recv(4096)
    b.close()
    check("bounds: stdesign.http_max_buffer = 16MB: a second 10 MB body at once gets 503, not 100 Continue",
          got.startswith(b"HTTP/1.1 503") and b"ServiceUnavailableException" in got, got[:200])
    a.sendall(b" " * (big - 2 - (6 << 20)) + b"}")
    got = a.recv(4096)
    a.close()
    check("bounds: ... while the first one is served", got.startswith(b"HTTP/1.1 200"), got[:200])
    set_and_reload("RESET stdesign.http_max_buffer")

    # stdesign.http_max_connections: past it a 503 and the connection
    # closed, then connections refused at once
    set_and_reload("SET stdesign.http_max_connections = 5")
    conns = [socket.create_connection(("127.0.0.1", PORT), timeout=10) for _ in range(200)]
    time.sleep(0.5)
    seen = {}
    for s in conns:
        try:
            s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            got = s.recv(4096)
        except OSError as e:
            got = b"<%s>" % str(e).encode()
        kind = got[:12] if got.startswith(b"HTTP/1.1") else b"closed"
        seen[kind] = seen.get(kind, 0) + 1
    for s in conns:
        s.close()
    check("bounds: stdesign.http_max_connections = 5, 200 connections: 503s, then refusals",
          seen.get(b"HTTP/1.1 503", 0) > 0 and seen.get(b"closed", 0) > 0 and
          seen.get(b"HTTP/1.1 200", 0) <= 10, seen)
    set_and_reload("RESET stdesign.http_max_connections")
    time.sleep(0.5)
    r, _ = raw("ListTables", "{}")
    check("bounds: the connections closed, requests are served again", r.status == 200, r.status)
    wire_tests()


def wire_tests():
    """The endpoint's own HTTP/1.1 (src/http/http_wire.c, http_dispatch.c):
    what clients may send is served, what RFC 9112 lets a server refuse is
    refused and the connection closed, and random damage to requests
    crashes nothing."""
    import random
    body = b'{}'
    head = (b"POST / HTTP/1.1\r\nHost: x\r\nX-Amz-Target: DynamoDB_20120810.ListTables\r\n"
            b"Content-Type: application/x-amz-json-1.0\r\nAuthorization: " + FAKE_AUTH.encode() + b"\r\n")
    req = head + b"Content-Length: 2\r\n\r\n" + body
    pids = worker_pids()

    got = exchange(req * 3 + b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    check("wire: four pipelined requests, four answers in order",
          got.count(b"HTTP/1.1 200") == 4 and got.rfind(b"TableNames") < got.rfind(b"healthy"), got[:120])
    s = socket.create_connection(("127.0.0.1", PORT), timeout=10)
    for i in range(len(req)):
        s.sendall(req[i:i + 1])
        if i % 20 == 0:
            time.sleep(0.002)
    got = s.recv(4096)
    s.close()
    check("wire: a request sent a byte at a time", got.startswith(b"HTTP/1.1 200") and b"TableNames" in got, got[:80])
    got = exchange(b"\r\n" + req.replace(b"\r\n", b"\n")[:-2].replace(b"Host: x", b"Connection: close\nHost: x") + body)
    check("wire: an empty line before the request, lines ending in a bare LF",
          got.startswith(b"HTTP/1.1 200") and b"TableNames" in got, got[:80])
    got = exchange(b"HEAD / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    check("wire: HEAD: the head alone, with the body's length",
          got.startswith(b"HTTP/1.1 200") and b"Content-Length: " in got and got.endswith(b"\r\n\r\n"), got[:200])
    got = exchange(head + b"Expect: 100-continue\r\nConnection: close\r\nContent-Length: 2\r\n\r\n")
    check("wire: Expect: 100-continue answered before the body", got.startswith(b"HTTP/1.1 100 Continue\r\n\r\n"), got[:80])
    got = exchange(b"GET / HTTP/1.0\r\n\r\n")
    check("wire: HTTP/1.0: served, then closed", got.startswith(b"HTTP/1.1 200") and b"Connection: close" in got, got[:120])
    for name, data in [
            ("a request line of garbage", b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n"),
            ("HTTP/2.0", b"GET / HTTP/2.0\r\nHost: x\r\n\r\n"),
            ("a header line folded", b"GET / HTTP/1.1\r\nHost: x\r\n y\r\n\r\n"),
            ("a NUL in a header value", b"GET / HTTP/1.1\r\nHost: x\x00y\r\n\r\n"),
            ("a bare CR in a header value", b"GET / HTTP/1.1\r\nHost: x\ry\r\n\r\n"),
            ("a header without a colon", b"GET / HTTP/1.1\r\nHost x\r\n\r\n"),
            ("a malformed chunk size", head + b"Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n"),
            ("a chunk without its CRLF", head + b"Transfer-Encoding: chunked\r\n\r\n2\r\n{}XX0\r\n\r\n"),
            ("a chunk-size line ending in a bare LF", head + b"Transfer-Encoding: chunked\r\n\r\n2\n{}\r\n0\r\n\r\n"),
            ("an HTTP/1.1 request without Host", b"GET / HTTP/1.1\r\nAccept: */*\r\n\r\n"),
            ("a head of 300 header fields", b"GET / HTTP/1.1\r\nHost: x\r\n" + b"A: b\r\n" * 300 + b"\r\n")]:
        got = exchange(data)
        check("wire: %s: 400, connection closed" % name,
              got.startswith(b"HTTP/1.1 400") and b"\r\nConnection: close\r\n" in got and got.count(b"HTTP/1.1") == 1,
              got[:160])

    # random damage: bytes flipped, cut, doubled, inserted, sent in pieces
    rng = random.Random(20261203)
    samples = [req, head + b"Transfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n",
               b"GET /studio/index.html?a=%41&b HTTP/1.1\r\nHost: localhost\r\nOrigin: http://a\r\n\r\n",
               b"OPTIONS / HTTP/1.1\r\nHost: x\r\nOrigin: http://admin.example\r\n"
               b"Access-Control-Request-Headers: x-amz-target\r\n\r\n"]
    shapes = set()
    bad_answers = []
    for n in range(300):
        data = bytearray(rng.choice(samples) * rng.choice((1, 1, 2)))
        for _ in range(rng.randint(1, 6)):
            if not data:
                break
            i = rng.randrange(len(data))
            k = rng.random()
            if k < 0.3:
                data[i] = rng.randrange(256)
            elif k < 0.5:
                del data[i:i + rng.randint(1, 8)]
            elif k < 0.7:
                data[i:i] = bytes(rng.choice((b"\r", b"\n", b":", b" ", b"\x00", b";", b"%", b"0")) * rng.randint(1, 3))
            elif k < 0.85:
                data[i:i] = data[max(0, i - 10):i]
            else:
                data = data[:i]
        s = socket.create_connection(("127.0.0.1", PORT), timeout=2)
        got = b""
        try:
            pos = 0
            while pos < len(data):
                step = rng.randint(1, len(data) - pos)
                s.sendall(bytes(data[pos:pos + step]))
                pos += step
            s.shutdown(socket.SHUT_WR)
            while True:
                part = s.recv(65536)
                if not part:
                    break
                got += part
        except OSError:
            pass
        s.close()
        if got:
            shapes.add(got[:12])
            if not re.match(rb"HTTP/1\.1 [1-5][0-9][0-9] ", got):
                bad_answers.append(bytes(got[:60]))
    check("wire: 300 damaged requests: every answer an HTTP/1.1 status line",
          not bad_answers, (bad_answers[:3], sorted(shapes)))
    r, _ = raw(None, "", method="GET", auth=False)
    check("wire: ... the workers unharmed (the same processes) and serving",
          r.status == 200 and worker_pids() == pids, (pids, worker_pids()))


def roles_tests(key, secret):
    """Under sigv4: a large body of an unknown key is not read; the workers
    one role may take (stdesign.http_max_workers_per_role) and the lock wait
    bound (stdesign.http_lock_timeout)."""
    total = 15 << 20
    base = {"Content-Type": "application/x-amz-json-1.0", "X-Amz-Target": "DynamoDB_20120810.PutItem",
            "Content-Length": str(total)}
    h = sign(base, b"", "STDKNOSUCHKEY0000000", "x")
    head = b"POST / HTTP/1.1\r\n" + b"".join(b"%s: %s\r\n" % (k.encode(), v.encode()) for k, v in h.items()) + b"\r\n"
    results, grew = uploads_rss([head] * 10, total)
    refused = [r for r in results.values() if r[0] < total and
               (b"UnrecognizedClientException" in r[1] or b"reset" in r[1] or b"Broken pipe" in r[1])]
    check("roles: 10 uploads of 15 MB signed with an unknown key: refused before being read whole",
          len(refused) == 10 and any(b"UnrecognizedClientException" in r[1] for r in refused),
          [(r[0], r[1][:60]) for r in results.values()][:3])
    check("roles: ... and the workers' memory did not grow with them (%d kB)" % grew, grew < 40 * 1024, grew)

    c = client(key, secret)
    make_table(c, "RoleTableA")
    make_table(c, "RoleTableB")
    item = {"PK": {"S": "a"}, "SK": {"S": "1"}, "pad": {"S": "x" * 300000}}
    code, _ = error_code(lambda: c.put_item(TableName="RoleTableA", Item=item))
    check("roles: a 300 kB PutItem with a valid key is served", code is None, code)
    c.put_item(TableName="RoleTableA", Item={"PK": {"S": "a"}, "SK": {"S": "1"}, "n": {"N": "0"}})
    c.put_item(TableName="RoleTableB", Item={"PK": {"S": "b"}, "SK": {"S": "1"}})
    rela, relb = relation("RoleTableA"), relation("RoleTableB")
    sql("DROP ROLE IF EXISTS stdesign_bounds_a; DROP ROLE IF EXISTS stdesign_bounds_b; "
        "CREATE ROLE stdesign_bounds_a; CREATE ROLE stdesign_bounds_b; "
        "GRANT USAGE ON SCHEMA stdesign, stdesign_data TO stdesign_bounds_a, stdesign_bounds_b; "
        "GRANT SELECT ON stdesign.tables, stdesign.indexes TO stdesign_bounds_a, stdesign_bounds_b; "
        "GRANT SELECT, INSERT, UPDATE ON stdesign_data.\"%s\" TO stdesign_bounds_a; "
        "GRANT SELECT ON stdesign_data.\"%s\" TO stdesign_bounds_b" % (rela, relb))
    akey, asecret = sql("SELECT access_key_id || ' ' || secret_access_key FROM st_create_access_key('stdesign_bounds_a')").split()
    bkey, bsecret = sql("SELECT access_key_id || ' ' || secret_access_key FROM st_create_access_key('stdesign_bounds_b')").split()
    set_and_reload("SET stdesign.http_max_workers_per_role = 1", "SET stdesign.http_lock_timeout = '3s'")

    # role a holds the item's row lock from SQL, and sends two UpdateItems
    held = lambda: sql("SELECT count(*) FROM pg_stat_activity WHERE state = 'active' "
                       "AND query LIKE '%pg_sleep(40) /* role lock */%' AND pid <> pg_backend_pid()") == "1"
    row_lock = 'SELECT 1 FROM stdesign_data."%s" FOR UPDATE' % rela
    holder = hold_pool_lock(row_lock, held, role="stdesign_bounds_a", label="role lock", seconds=40)
    check("roles: role a holds the row lock from SQL", held())
    update = {"TableName": "RoleTableA", "Key": {"PK": {"S": "a"}, "SK": {"S": "1"}},
              "UpdateExpression": "SET n = :one", "ExpressionAttributeValues": {":one": {"N": "1"}}}
    updates = {}

    def send_update(i):
        t0 = time.monotonic()
        conn = http.client.HTTPConnection("127.0.0.1", PORT, timeout=60)
        try:
            status, etype, _ = signed("UpdateItem", update, akey, asecret, conn)
        except Exception as e:
            status, etype = repr(e), None
        updates[i] = (status, etype, time.monotonic() - t0)
        conn.close()

    t_start = time.monotonic()
    threads = [threading.Thread(target=send_update, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    waiting = lambda: sql("SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'stdesign http worker' "
                          "AND state = 'active' AND query LIKE '%UpdateItem%' AND wait_event_type = 'Lock'")
    for _ in range(20):
        if waiting() != "0":
            break
        time.sleep(0.05)
    time.sleep(0.3)
    busy = waiting()
    t0 = time.monotonic()
    conn = http.client.HTTPConnection("127.0.0.1", PORT, timeout=60)
    status, etype, data = signed("GetItem", {"TableName": "RoleTableB", "Key": {"PK": {"S": "b"}, "SK": {"S": "1"}}},
                                 bkey, bsecret, conn)
    took = time.monotonic() - t0
    conn.close()
    check("roles: http_max_workers_per_role = 1: one of role a's UpdateItems waits for the lock (%s)" % busy,
          busy == "1", busy)
    check("roles: another role's GetItem is answered at once (%.1fs)" % took, status == 200 and took < 2,
          (status, etype, took))
    for t in threads:
        t.join()
    took = time.monotonic() - t_start
    check("roles: role a's UpdateItems end by the lock wait bound (3s): TransactionConflictException (%.1fs)" % took,
          [u[:2] for u in updates.values()] ==
          [(400, "com.amazonaws.dynamodb.v20120810#TransactionConflictException")] * 2 and took < 15,
          updates)
    check("roles: one after the other (the second waited for the first's worker)",
          sorted(u[2] for u in updates.values())[1] > 5, updates)
    release_pool_lock(holder)
    conn = http.client.HTTPConnection("127.0.0.1", PORT, timeout=60)
    status, etype, data = signed("UpdateItem", update, akey, asecret, conn)
    conn.close()
    check("roles: the lock released, role a's UpdateItem is served", status == 200, (status, data))

    # past half the queue's slots waiting for the role's worker: throttled
    holder = hold_pool_lock(row_lock, held, role="stdesign_bounds_a", label="role lock", seconds=40)
    nworkers = int(sql("SELECT count(*) FROM stdesign.http_status()"))
    many = nworkers * 64 // 2 + 6
    updates.clear()
    threads = [threading.Thread(target=send_update, args=(i,)) for i in range(many)]
    for t in threads:
        t.start()
    time.sleep(2)
    early = dict(updates)
    release_pool_lock(holder)
    for t in threads:
        t.join()
    throttled = [u for u in early.values() if u[1] == "com.amazonaws.dynamodb.v20120810#RequestLimitExceeded"]
    check("roles: %d UpdateItems of one role at once: those past half the queue throttled (RequestLimitExceeded)"
          % many, len(throttled) >= 4 and all(u[0] == 400 for u in throttled), early)
    served = [u for u in updates.values() if u[0] == 200]
    check("roles: ... the others all served once the lock is released",
          len(served) + len(throttled) == many and len(updates) == many,
          {k: v for k, v in updates.items() if v[0] != 200 and v not in throttled})
    set_and_reload("RESET stdesign.http_max_workers_per_role", "RESET stdesign.http_lock_timeout")
    sql("SELECT st_drop_access_key(access_key_id) FROM st_list_access_keys() "
        "WHERE role IN ('stdesign_bounds_a', 'stdesign_bounds_b')")


if MODE == "trust":
    trust_tests()
elif MODE == "conflict":
    conflict_tests()
elif MODE == "failures":
    failure_tests()
elif MODE == "dispatch":
    dispatch_tests()
elif MODE == "bounds":
    bounds_tests()
elif MODE == "roles":
    roles_tests(*sys.argv[3:5])
else:
    sigv4_tests(*sys.argv[3:7])
print("http %s: %d passed, %d failed" % (MODE, passed, failed))
sys.exit(1 if failed else 0)
