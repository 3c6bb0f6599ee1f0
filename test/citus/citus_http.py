#!/usr/bin/python3
"""The HTTP endpoint and PartiQL of one server, driven by boto3, for
test/citus/001_citus.pl: run against a single node and against a Citus
coordinator, whose outputs must be the same.

    citus_http.py HTTP_PORT [PG_PORT]

With PG_PORT (the coordinator), the table is distributed right after
CreateTable (st_distribute_table over psql, 4 shards).  Prints one line per
request: its label and its answer (the response without ResponseMetadata,
or the error's code and message), as JSON with sorted keys.
"""
import json
import subprocess
import sys

import boto3
import botocore.config
import botocore.exceptions

HTTP_PORT = int(sys.argv[1])
PG_PORT = sys.argv[2] if len(sys.argv) > 2 else None
ddb = boto3.client(
    "dynamodb", endpoint_url="http://127.0.0.1:%d" % HTTP_PORT, region_name="us-east-1",
    aws_access_key_id="AKIDEXAMPLE", aws_secret_access_key="secret",
    config=botocore.config.Config(retries={"max_attempts": 1}))


def show(label, fn, **kw):
    try:
        r = fn(**kw)
        r.pop("ResponseMetadata", None)
    except botocore.exceptions.ClientError as e:
        r = {"error": e.response["Error"].get("Code"), "message": e.response["Error"].get("Message"),
             "reasons": e.response.get("CancellationReasons")}
    print(label, json.dumps(r, sort_keys=True, default=str))
    return r


def s(v):
    return {"S": v}


def n(v):
    return {"N": str(v)}


r = show("create", lambda **kw: {k: v for k, v in ddb.create_table(**kw)["TableDescription"].items()
                                 if k in ("KeySchema", "TableStatus", "ItemCount")}, TableName="Shop",
         KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
         AttributeDefinitions=[{"AttributeName": a, "AttributeType": "S"} for a in ("PK", "SK", "GPK", "GSK")],
         GlobalSecondaryIndexes=[{"IndexName": "GSI1", "Projection": {"ProjectionType": "ALL"},
                                  "KeySchema": [{"AttributeName": "GPK", "KeyType": "HASH"},
                                                {"AttributeName": "GSK", "KeyType": "RANGE"}]}],
         BillingMode="PAY_PER_REQUEST")
if PG_PORT:
    out = subprocess.run(["psql", "-X", "-At", "-h", "127.0.0.1", "-p", PG_PORT, "-d", "postgres",
                          "-c", "SELECT st_distribute_table('Shop', 4)"], capture_output=True, text=True)
    print("distributed", out.stdout.strip(), out.stderr.strip(), file=sys.stderr)

for c in range(1, 13):
    show("put customer %d" % c, ddb.put_item, TableName="Shop",
         Item={"PK": s("C#%d" % c), "SK": s("PROFILE"), "name": s("Customer %d" % c)})
    for o in range(1, 6):
        show("put order %d-%d" % (c, o), ddb.put_item, TableName="Shop", ReturnConsumedCapacity="TOTAL",
             Item={"PK": s("C#%d" % c), "SK": s("O#%02d" % o), "total": n(c * 10 + o),
                   "GPK": s("ST#%d" % ((c + o) % 3)), "GSK": s("O#%d-%02d" % (c, o))})

show("get", ddb.get_item, TableName="Shop", Key={"PK": s("C#3"), "SK": s("PROFILE")},
     ConsistentRead=True, ReturnConsumedCapacity="TOTAL")
show("get missing", ddb.get_item, TableName="Shop", Key={"PK": s("C#300"), "SK": s("PROFILE")})
show("get projected", ddb.get_item, TableName="Shop", Key={"PK": s("C#4"), "SK": s("O#02")},
     ProjectionExpression="#t", ExpressionAttributeNames={"#t": "total"})
show("get no such table", ddb.get_item, TableName="Nope", Key={"PK": s("C#3"), "SK": s("PROFILE")})
show("get bad key", ddb.get_item, TableName="Shop", Key={"PK": s("C#3")})

# a partition in pages of 2
start = None
for page in range(5):
    kw = {"TableName": "Shop", "KeyConditionExpression": "PK = :p AND begins_with(SK, :o)", "Limit": 2,
          "ExpressionAttributeValues": {":p": s("C#5"), ":o": s("O#")}, "ReturnConsumedCapacity": "TOTAL"}
    if start:
        kw["ExclusiveStartKey"] = start
    r = show("query page %d" % page, ddb.query, **kw)
    start = r.get("LastEvaluatedKey")
    if not start:
        break
show("query backward filtered", ddb.query, TableName="Shop", KeyConditionExpression="PK = :p",
     ScanIndexForward=False, FilterExpression="#t > :t", ExpressionAttributeNames={"#t": "total"},
     ExpressionAttributeValues={":p": s("C#7"), ":t": n(72)})
show("query count", ddb.query, TableName="Shop", KeyConditionExpression="PK = :p", Select="COUNT",
     ExpressionAttributeValues={":p": s("C#8")})
show("query GSI", ddb.query, TableName="Shop", IndexName="GSI1", KeyConditionExpression="GPK = :g",
     ExpressionAttributeValues={":g": s("ST#1")}, Limit=7)

show("transact write", ddb.transact_write_items, TransactItems=[
    {"Put": {"TableName": "Shop", "Item": {"PK": s("C#20"), "SK": s("PROFILE")},
             "ConditionExpression": "attribute_not_exists(PK)"}},
    {"Update": {"TableName": "Shop", "Key": {"PK": s("C#1"), "SK": s("PROFILE")},
                "UpdateExpression": "SET visits = :one", "ExpressionAttributeValues": {":one": n(1)}}},
    {"Delete": {"TableName": "Shop", "Key": {"PK": s("C#2"), "SK": s("O#01")}}},
    {"ConditionCheck": {"TableName": "Shop", "Key": {"PK": s("C#9"), "SK": s("PROFILE")},
                        "ConditionExpression": "attribute_exists(PK)"}}])
show("transact write cancelled", ddb.transact_write_items, TransactItems=[
    {"Put": {"TableName": "Shop", "Item": {"PK": s("C#21"), "SK": s("PROFILE")}}},
    {"Update": {"TableName": "Shop", "Key": {"PK": s("C#1"), "SK": s("PROFILE")},
                "UpdateExpression": "SET visits = :two", "ExpressionAttributeValues": {":two": n(2)}}},
    {"ConditionCheck": {"TableName": "Shop", "Key": {"PK": s("C#99"), "SK": s("PROFILE")},
                        "ConditionExpression": "attribute_exists(PK)"}}])
show("after the transactions", ddb.batch_get_item, RequestItems={"Shop": {"Keys": [
    {"PK": s("C#%d" % c), "SK": s(k)} for c, k in ((1, "PROFILE"), (2, "O#01"), (20, "PROFILE"), (21, "PROFILE"))]}})
show("transact get", ddb.transact_get_items, TransactItems=[
    {"Get": {"TableName": "Shop", "Key": {"PK": s("C#1"), "SK": s("PROFILE")}}},
    {"Get": {"TableName": "Shop", "Key": {"PK": s("C#6"), "SK": s("O#03")}}}])
show("conditional put fails", ddb.put_item, TableName="Shop", Item={"PK": s("C#1"), "SK": s("PROFILE")},
     ConditionExpression="attribute_not_exists(PK)")
show("update", ddb.update_item, TableName="Shop", Key={"PK": s("C#4"), "SK": s("PROFILE")},
     UpdateExpression="ADD visits :one", ExpressionAttributeValues={":one": n(1)}, ReturnValues="ALL_NEW")

# the whole table in pages of 7, and a segment
start, pages, items = None, 0, []
while True:
    kw = {"TableName": "Shop", "Limit": 7}
    if start:
        kw["ExclusiveStartKey"] = start
    r = ddb.scan(**kw)
    pages += 1
    items += r["Items"]
    start = r.get("LastEvaluatedKey")
    if not start:
        break
print("scan", json.dumps({"pages": pages, "items": items}, sort_keys=True))
show("scan segment", ddb.scan, TableName="Shop", Segment=1, TotalSegments=3, Select="COUNT")
show("scan GSI", ddb.scan, TableName="Shop", IndexName="GSI1", Limit=9)

# PartiQL
show("partiql select", ddb.execute_statement, Statement="SELECT * FROM Shop WHERE PK = ? AND SK >= ?",
     Parameters=[s("C#6"), s("O#03")], ReturnConsumedCapacity="TOTAL")
show("partiql select one", ddb.execute_statement, Statement="SELECT name FROM Shop WHERE PK = 'C#6' AND SK = 'PROFILE'")
show("partiql insert", ddb.execute_statement, Statement="INSERT INTO Shop VALUE {'PK': 'C#30', 'SK': 'PROFILE', 'n': 1}")
show("partiql insert again", ddb.execute_statement,
     Statement="INSERT INTO Shop VALUE {'PK': 'C#30', 'SK': 'PROFILE', 'n': 2}")
show("partiql update", ddb.execute_statement,
     Statement="UPDATE Shop SET n = n + 5 SET tag = 'x' WHERE PK = 'C#30' AND SK = 'PROFILE' RETURNING ALL NEW *")
show("partiql delete", ddb.execute_statement, Statement="DELETE FROM Shop WHERE PK = 'C#12' AND SK = 'O#05'")
show("partiql select after", ddb.execute_statement, Statement="SELECT * FROM Shop WHERE PK IN ['C#30', 'C#12']")
show("partiql select GSI", ddb.execute_statement, Statement='SELECT PK, SK FROM "Shop"."GSI1" WHERE GPK = \'ST#2\'')
show("partiql transaction", ddb.execute_transaction, TransactStatements=[
    {"Statement": "UPDATE Shop SET n = 9 WHERE PK = 'C#30' AND SK = 'PROFILE'"},
    {"Statement": "INSERT INTO Shop VALUE {'PK': 'C#31', 'SK': 'PROFILE'}"}])
show("partiql batch", ddb.batch_execute_statement, Statements=[
    {"Statement": "SELECT * FROM Shop WHERE PK = 'C#31' AND SK = 'PROFILE'"},
    {"Statement": "SELECT * FROM Shop WHERE PK = 'C#30' AND SK = 'PROFILE'"}])
show("describe", lambda: {k: v for k, v in ddb.describe_table(TableName="Shop")["Table"].items()
                          if k in ("ItemCount", "KeySchema", "TableStatus")})

# on-demand backups of the (distributed) table, restored by the endpoint:
# the stable fields only (ARNs and times differ between the servers)
bk = ddb.create_backup(TableName="Shop", BackupName="shop-backup")["BackupDetails"]
print("backup", json.dumps({k: bk[k] for k in ("BackupName", "BackupStatus", "BackupType", "BackupSizeBytes")},
                           sort_keys=True))
ddb.put_item(TableName="Shop", Item={"PK": s("C#40"), "SK": s("PROFILE")})
show("list backups", lambda: {"names": [b["BackupName"] for b in ddb.list_backups(TableName="Shop")["BackupSummaries"]]})
show("restore", lambda: {k: v for k, v in ddb.restore_table_from_backup(
    TargetTableName="ShopRestored", BackupArn=bk["BackupArn"])["TableDescription"].items()
    if k in ("ItemCount", "KeySchema", "TableStatus", "TableName")})
items = []
start = None
while True:
    kw = {"TableName": "ShopRestored", "Limit": 25}
    if start:
        kw["ExclusiveStartKey"] = start
    r = ddb.scan(**kw)
    items += r["Items"]
    start = r.get("LastEvaluatedKey")
    if not start:
        break
print("restored scan", json.dumps(sorted(items, key=lambda i: (i["PK"]["S"], i["SK"]["S"])), sort_keys=True))
show("restored GSI", ddb.query, TableName="ShopRestored", IndexName="GSI1", KeyConditionExpression="GPK = :g",
     ExpressionAttributeValues={":g": s("ST#2")})
show("restored no later put", ddb.get_item, TableName="ShopRestored", Key={"PK": s("C#40"), "SK": s("PROFILE")})
show("delete backup", lambda: {"status": ddb.delete_backup(BackupArn=bk["BackupArn"])
                                ["BackupDescription"]["BackupDetails"]["BackupStatus"]})
try:
    ddb.describe_backup(BackupArn=bk["BackupArn"])
    print("describe deleted backup: found")
except botocore.exceptions.ClientError as e:
    print("describe deleted backup:", e.response["Error"]["Code"])
show("delete restored", lambda: {"status": ddb.delete_table(TableName="ShopRestored")["TableDescription"]["TableStatus"]})
