// The seeds' e-commerce access patterns through the AWS SDK for JavaScript
// v3 (DynamoDBDocumentClient) against stdesign's HTTP endpoint, and the
// same writes read back through DynamoDB Streams' client
// (@aws-sdk/client-dynamodb-streams); then, with the low-level client, a
// multi-attribute GSI, on-demand backups and resource policies, errors
// caught by the SDK's own exception classes.
//
//   node sdk_test.mjs ENDPOINT
//
// Prints one line per check and "http js: N passed, N failed".
import {
  DynamoDBClient, CreateTableCommand, DescribeTableCommand, UpdateTableCommand, DeleteTableCommand,
  PutItemCommand, QueryCommand as RawQueryCommand, ScanCommand as RawScanCommand,
  CreateBackupCommand, DescribeBackupCommand, ListBackupsCommand, RestoreTableFromBackupCommand, DeleteBackupCommand,
  PutResourcePolicyCommand, GetResourcePolicyCommand, DeleteResourcePolicyCommand,
  BackupNotFoundException, PolicyNotFoundException, TableAlreadyExistsException, TableNotFoundException,
  DynamoDBServiceException,
} from "@aws-sdk/client-dynamodb";
import {
  DynamoDBStreamsClient, ListStreamsCommand, DescribeStreamCommand, GetShardIteratorCommand,
  GetRecordsCommand,
} from "@aws-sdk/client-dynamodb-streams";
import {
  DynamoDBDocumentClient, PutCommand, GetCommand, QueryCommand, UpdateCommand,
  TransactWriteCommand, BatchWriteCommand, DeleteCommand,
} from "@aws-sdk/lib-dynamodb";

const endpoint = process.argv[2];
const base = new DynamoDBClient({
  endpoint, region: "us-east-1", maxAttempts: 1,
  credentials: { accessKeyId: "AKIDEXAMPLE", secretAccessKey: "secret" },
});
const doc = DynamoDBDocumentClient.from(base);
const streams = new DynamoDBStreamsClient({
  endpoint, region: "us-east-1", maxAttempts: 1,
  credentials: { accessKeyId: "AKIDEXAMPLE", secretAccessKey: "secret" },
});
const T = "ECommerceJs";
let passed = 0;
let failed = 0;

function check(name, ok, info) {
  if (ok) { passed++; console.log(`ok      ${name}`); }
  else { failed++; console.log(`FAILED  ${name} ${info === undefined ? "" : JSON.stringify(info)}`); }
}

async function errorName(p) {
  try { await p; return null; } catch (e) { return e.name; }
}

// the error a call threw (null when it did not)
async function thrown(p) {
  try { await p; return null; } catch (e) { return e; }
}

async function main() {
  const created = await base.send(new CreateTableCommand({
    TableName: T,
    AttributeDefinitions: [
      { AttributeName: "PK", AttributeType: "S" }, { AttributeName: "SK", AttributeType: "S" },
      { AttributeName: "GSI1PK", AttributeType: "S" }, { AttributeName: "GSI1SK", AttributeType: "S" },
    ],
    KeySchema: [{ AttributeName: "PK", KeyType: "HASH" }, { AttributeName: "SK", KeyType: "RANGE" }],
    GlobalSecondaryIndexes: [{
      IndexName: "GSI1",
      KeySchema: [{ AttributeName: "GSI1PK", KeyType: "HASH" }, { AttributeName: "GSI1SK", KeyType: "RANGE" }],
      Projection: { ProjectionType: "ALL" },
    }],
    BillingMode: "PAY_PER_REQUEST",
    StreamSpecification: { StreamEnabled: true, StreamViewType: "NEW_AND_OLD_IMAGES" },
  }));
  check("CreateTable", created.TableDescription.TableStatus === "ACTIVE", created.TableDescription);
  check("CreateTable with a stream: LatestStreamArn", typeof created.TableDescription.LatestStreamArn === "string" &&
    created.TableDescription.StreamSpecification?.StreamViewType === "NEW_AND_OLD_IMAGES", created.TableDescription);

  await doc.send(new PutCommand({ TableName: T, Item: {
    PK: "CUST#123", SK: "CUST#123", entity_type: "Customer", name: "Jane Smith", email: "jane@example.com" } }));
  const orders = [
    ["CUST#123", "ORDER#2026-07-06#001", "ORDER#001", "STATUS#pending", 149.99],
    ["CUST#123", "ORDER#2026-06-20#000", "ORDER#000", "STATUS#shipped", 20],
    ["CUST#123", "ORDER#2026-07-28#002", "ORDER#002", "STATUS#shipped", 35.5],
    ["CUST#123", "ORDER#2026-08-02#003", "ORDER#003", "STATUS#pending", 12],
  ];
  await doc.send(new BatchWriteCommand({ RequestItems: { [T]: orders.map(([PK, SK, GSI1PK, GSI1SK, total]) => ({
    PutRequest: { Item: { PK, SK, GSI1PK, GSI1SK, entity_type: "Order", total, status: GSI1SK.slice(7) } } })) } }));
  await doc.send(new PutCommand({ TableName: T, Item: {
    PK: "ORDER#001", SK: "ITEM#SKU-ABC", GSI1PK: "PROD#SKU-ABC", GSI1SK: "ORDER#001",
    entity_type: "OrderItem", product_name: "Wireless Headphones", quantity: 1, price: 99.99,
    tags: new Set(["audio", "wireless"]), dims: { w: 10, h: [1, 2] } } }));
  await doc.send(new PutCommand({ TableName: T, Item: {
    PK: "ORDER#001", SK: "ITEM#SKU-XYZ", GSI1PK: "PROD#SKU-XYZ", GSI1SK: "ORDER#001",
    entity_type: "OrderItem", product_name: "USB-C Cable", quantity: 2, price: 25 } }));
  await doc.send(new PutCommand({ TableName: T, Item: {
    PK: "ORDER#002", SK: "ITEM#SKU-ABC", GSI1PK: "PROD#SKU-ABC", GSI1SK: "ORDER#002",
    entity_type: "OrderItem", product_name: "Wireless Headphones", quantity: 1, price: 35.5 } }));

  // 1: a customer by id
  const cust = await doc.send(new GetCommand({ TableName: T, Key: { PK: "CUST#123", SK: "CUST#123" } }));
  check("pattern 1: customer by id", cust.Item?.name === "Jane Smith", cust.Item);
  // 2: the orders of a customer, in date order
  const o = await doc.send(new QueryCommand({ TableName: T, KeyConditionExpression: "PK = :c AND begins_with(SK, :o)",
    ExpressionAttributeValues: { ":c": "CUST#123", ":o": "ORDER#" } }));
  check("pattern 2: orders of a customer in date order",
    o.Items.map((i) => i.SK.slice(6, 16)).join(",") === "2026-06-20,2026-07-06,2026-07-28,2026-08-02", o.Items);
  // 3: one order
  const one = await doc.send(new GetCommand({ TableName: T, Key: { PK: "CUST#123", SK: "ORDER#2026-07-06#001" } }));
  check("pattern 3: a specific order", one.Item?.total === 149.99, one.Item);
  // 4: the items of an order, with native JS types back
  const items = await doc.send(new QueryCommand({ TableName: T, KeyConditionExpression: "PK = :o AND begins_with(SK, :i)",
    ExpressionAttributeValues: { ":o": "ORDER#001", ":i": "ITEM#" } }));
  const abc = items.Items.find((i) => i.SK === "ITEM#SKU-ABC");
  check("pattern 4: the items of an order", items.Count === 2 && abc.tags instanceof Set && abc.tags.has("audio") &&
    abc.dims.h[1] === 2, items.Items);
  // 5: orders in a date range
  const july = await doc.send(new QueryCommand({ TableName: T, KeyConditionExpression: "PK = :c AND SK BETWEEN :a AND :b",
    ExpressionAttributeValues: { ":c": "CUST#123", ":a": "ORDER#2026-07-01", ":b": "ORDER#2026-07-31" } }));
  check("pattern 5: orders in July", july.Count === 2, july.Items);
  // 6: an order by status through GSI1
  const st = await doc.send(new QueryCommand({ TableName: T, IndexName: "GSI1",
    KeyConditionExpression: "GSI1PK = :o AND begins_with(GSI1SK, :s)",
    ExpressionAttributeValues: { ":o": "ORDER#001", ":s": "STATUS#" } }));
  check("pattern 6: order status through GSI1", st.Count === 1 && st.Items[0].status === "pending", st.Items);
  const prod = await doc.send(new QueryCommand({ TableName: T, IndexName: "GSI1",
    KeyConditionExpression: "GSI1PK = :p", ExpressionAttributeValues: { ":p": "PROD#SKU-ABC" } }));
  check("GSI1: the orders of a product", prod.Count === 2, prod.Items);

  // writes with conditions, and a cancelled transaction
  const up = await doc.send(new UpdateCommand({ TableName: T, Key: { PK: "CUST#123", SK: "ORDER#2026-07-06#001" },
    UpdateExpression: "SET #s = :shipped, GSI1SK = :g", ConditionExpression: "#s = :pending",
    ExpressionAttributeNames: { "#s": "status" },
    ExpressionAttributeValues: { ":shipped": "shipped", ":pending": "pending", ":g": "STATUS#shipped" },
    ReturnValues: "ALL_NEW" }));
  check("UpdateCommand with a condition", up.Attributes.status === "shipped", up.Attributes);
  const again = await errorName(doc.send(new UpdateCommand({ TableName: T, Key: { PK: "CUST#123", SK: "ORDER#2026-07-06#001" },
    UpdateExpression: "SET #s = :shipped", ConditionExpression: "#s = :pending",
    ExpressionAttributeNames: { "#s": "status" }, ExpressionAttributeValues: { ":shipped": "shipped", ":pending": "pending" } })));
  check("UpdateCommand with a failing condition: ConditionalCheckFailedException",
    again === "ConditionalCheckFailedException", again);
  let reasons = null;
  try {
    await doc.send(new TransactWriteCommand({ TransactItems: [
      { Put: { TableName: T, Item: { PK: "CUST#777", SK: "CUST#777" } } },
      { ConditionCheck: { TableName: T, Key: { PK: "CUST#123", SK: "CUST#123" }, ConditionExpression: "attribute_not_exists(PK)" } },
    ] }));
  } catch (e) {
    reasons = e.name === "TransactionCanceledException" ? e.CancellationReasons.map((r) => r.Code) : e.name;
  }
  check("TransactWriteCommand cancelled with CancellationReasons", JSON.stringify(reasons) ===
    JSON.stringify(["None", "ConditionalCheckFailed"]), reasons);
  const none = await doc.send(new GetCommand({ TableName: T, Key: { PK: "CUST#777", SK: "CUST#777" } }));
  check("the cancelled transaction wrote nothing", none.Item === undefined, none.Item);
  const missing = await errorName(doc.send(new GetCommand({ TableName: "NoSuchTable", Key: { PK: "x", SK: "y" } })));
  check("ResourceNotFoundException", missing === "ResourceNotFoundException", missing);
  const d = await base.send(new DescribeTableCommand({ TableName: T }));
  check("DescribeTable counts the items", d.Table.ItemCount === 8, d.Table.ItemCount);

  // a delete, then every write read back through DynamoDB Streams
  await doc.send(new DeleteCommand({ TableName: T, Key: { PK: "ORDER#002", SK: "ITEM#SKU-ABC" } }));
  await streamTests(d.Table.LatestStreamArn);
  await multiAttributeTests();
  await backupTests();
  await policyTests();
}

const S = (s) => ({ S: s });
const N = (n) => ({ N: String(n) });

// A GSI keyed by several attributes (two partition, two sort), DynamoDB's
// multi-attribute keys: no synthetic concatenated key.
async function multiAttributeTests() {
  const M = "OrdersJs";
  const created = await base.send(new CreateTableCommand({
    TableName: M, BillingMode: "PAY_PER_REQUEST",
    AttributeDefinitions: [
      { AttributeName: "PK", AttributeType: "S" }, { AttributeName: "SK", AttributeType: "S" },
      { AttributeName: "status", AttributeType: "S" }, { AttributeName: "region", AttributeType: "S" },
      { AttributeName: "day", AttributeType: "N" }, { AttributeName: "order_id", AttributeType: "S" },
    ],
    KeySchema: [{ AttributeName: "PK", KeyType: "HASH" }, { AttributeName: "SK", KeyType: "RANGE" }],
    GlobalSecondaryIndexes: [{
      IndexName: "ByStatusRegion", Projection: { ProjectionType: "ALL" },
      KeySchema: [
        { AttributeName: "status", KeyType: "HASH" }, { AttributeName: "region", KeyType: "HASH" },
        { AttributeName: "day", KeyType: "RANGE" }, { AttributeName: "order_id", KeyType: "RANGE" },
      ],
    }],
  }));
  const gsi = created.TableDescription.GlobalSecondaryIndexes?.[0];
  check("multi-attribute GSI: CreateTable describes its four key attributes in order",
    gsi?.IndexName === "ByStatusRegion" && gsi.IndexStatus === "ACTIVE" &&
    gsi.KeySchema.map((k) => `${k.AttributeName}:${k.KeyType}`).join(",") ===
      "status:HASH,region:HASH,day:RANGE,order_id:RANGE", gsi);
  // C#1..C#3, O#1..O#4: shipped when the order's number is even, eu for C#2
  for (let c = 1; c <= 3; c++) {
    for (let o = 1; o <= 4; o++) {
      await base.send(new PutItemCommand({ TableName: M, Item: {
        PK: S(`C#${c}`), SK: S(`O#${o}`), status: S(o % 2 ? "placed" : "shipped"), region: S(c === 2 ? "eu" : "us"),
        day: N(20260700 + o), order_id: S(`${c}${o}`), total: N(c * 10 + o) } }));
    }
  }
  // without the sort attributes: in the table, not in the index (sparse)
  await base.send(new PutItemCommand({ TableName: M, Item: {
    PK: S("C#1"), SK: S("O#draft"), status: S("shipped"), region: S("us") } }));
  const bad = await thrown(base.send(new PutItemCommand({ TableName: M, Item: {
    PK: S("C#1"), SK: S("O#bad"), status: S("shipped"), region: S("us"), day: S("soon") } })));
  check("multi-attribute GSI: a key attribute of the wrong type: ValidationException",
    bad instanceof DynamoDBServiceException && bad.name === "ValidationException" &&
    bad.$metadata.httpStatusCode === 400 &&
    bad.message === "One or more parameter values were invalid: Type mismatch for Index Key day Expected: N Actual: S IndexName: ByStatusRegion",
    bad && bad.message);
  const q = {
    TableName: M, IndexName: "ByStatusRegion", ScanIndexForward: false,
    KeyConditionExpression: "#s = :s AND #r = :r AND #d BETWEEN :a AND :b",
    ExpressionAttributeNames: { "#s": "status", "#r": "region", "#d": "day" },
    ExpressionAttributeValues: { ":s": S("shipped"), ":r": S("us"), ":a": N(20260701), ":b": N(20260704) },
  };
  const all = await base.send(new RawQueryCommand(q));
  check("multi-attribute GSI: Query by both partition attributes and a range of the first sort attribute, newest first",
    all.Items.map((i) => `${i.PK.S}/${i.SK.S}`).join(",") === "C#3/O#4,C#1/O#4,C#3/O#2,C#1/O#2", all.Items);
  // paging: one item a page, each LastEvaluatedKey naming every key attribute
  const pages = [];
  const keys = [];
  let start;
  do {
    const page = await base.send(new RawQueryCommand({ ...q, Limit: 1, ExclusiveStartKey: start }));
    pages.push(...page.Items.map((i) => `${i.PK.S}/${i.SK.S}`));
    start = page.LastEvaluatedKey;
    if (start) keys.push(Object.keys(start).sort().join(","));
  } while (start && pages.length < 10);
  check("multi-attribute GSI: paged one by one, the same items",
    pages.join(",") === "C#3/O#4,C#1/O#4,C#3/O#2,C#1/O#2", pages);
  check("multi-attribute GSI: every LastEvaluatedKey holds the table's and the index's key attributes",
    keys.length >= 4 && keys.every((k) => k === "PK,SK,day,order_id,region,status"), keys);
  const eq = await base.send(new RawQueryCommand({
    TableName: M, IndexName: "ByStatusRegion",
    KeyConditionExpression: "#s = :s AND #r = :r AND #d = :d AND order_id >= :o",
    ExpressionAttributeNames: { "#s": "status", "#r": "region", "#d": "day" },
    ExpressionAttributeValues: { ":s": S("placed"), ":r": S("us"), ":d": N(20260703), ":o": S("2") },
  }));
  check("multi-attribute GSI: equality on the first sort attribute, a range on the second",
    eq.Items.map((i) => i.order_id.S).join(",") === "33", eq.Items);
  const skip = await thrown(base.send(new RawQueryCommand({
    TableName: M, IndexName: "ByStatusRegion", KeyConditionExpression: "#s = :s AND #r = :r AND order_id = :o",
    ExpressionAttributeNames: { "#s": "status", "#r": "region" },
    ExpressionAttributeValues: { ":s": S("shipped"), ":r": S("us"), ":o": S("12") },
  })));
  check("multi-attribute GSI: a condition skipping a sort attribute: ValidationException",
    skip?.name === "ValidationException" && skip.$metadata.httpStatusCode === 400, skip && skip.message);
  const scan = await base.send(new RawScanCommand({ TableName: M, IndexName: "ByStatusRegion", Select: "COUNT" }));
  check("multi-attribute GSI: Scan of the index leaves out the sparse item", scan.Count === 12, scan);
  const badSchema = await thrown(base.send(new CreateTableCommand({
    TableName: "BadSchemaJs", BillingMode: "PAY_PER_REQUEST",
    AttributeDefinitions: [{ AttributeName: "PK", AttributeType: "S" }, { AttributeName: "a", AttributeType: "S" },
      { AttributeName: "b", AttributeType: "S" }],
    KeySchema: [{ AttributeName: "PK", KeyType: "HASH" }],
    GlobalSecondaryIndexes: [{ IndexName: "Bad", Projection: { ProjectionType: "ALL" },
      KeySchema: [{ AttributeName: "a", KeyType: "RANGE" }, { AttributeName: "b", KeyType: "HASH" }] }],
  })));
  check("multi-attribute GSI: a KeySchema not starting with HASH: ValidationException",
    badSchema?.name === "ValidationException" &&
    badSchema.message === "Invalid KeySchema: The first KeySchemaElement is not a HASH key type", badSchema && badSchema.message);
  await base.send(new DeleteTableCommand({ TableName: M }));
}

// On-demand backups, their errors as the SDK's classes.
async function backupTests() {
  const B = "BackupJs";
  await base.send(new CreateTableCommand({
    TableName: B, BillingMode: "PAY_PER_REQUEST",
    AttributeDefinitions: [{ AttributeName: "PK", AttributeType: "S" }, { AttributeName: "SK", AttributeType: "S" }],
    KeySchema: [{ AttributeName: "PK", KeyType: "HASH" }, { AttributeName: "SK", KeyType: "RANGE" }],
  }));
  for (let i = 1; i <= 5; i++) {
    await base.send(new PutItemCommand({ TableName: B, Item: { PK: S("P"), SK: S(`S${i}`), n: N(i) } }));
  }
  const made = (await base.send(new CreateBackupCommand({ TableName: B, BackupName: "js-backup" }))).BackupDetails;
  check("CreateBackup: AVAILABLE, USER, the backup's ARN, a Date",
    made.BackupStatus === "AVAILABLE" && made.BackupType === "USER" && made.BackupName === "js-backup" &&
    /^arn:aws:dynamodb:[^:]+:[0-9]+:table\/BackupJs\/backup\/[0-9]{14}-[0-9a-f]{8}$/.test(made.BackupArn) &&
    made.BackupCreationDateTime instanceof Date && made.BackupSizeBytes > 0, made);
  // a write after the backup: not in what it restores
  await base.send(new PutItemCommand({ TableName: B, Item: { PK: S("P"), SK: S("S6"), n: N(6) } }));
  const desc = (await base.send(new DescribeBackupCommand({ BackupArn: made.BackupArn }))).BackupDescription;
  check("DescribeBackup: the backup and its source table",
    desc.BackupDetails.BackupArn === made.BackupArn && desc.SourceTableDetails.TableName === B &&
    desc.SourceTableDetails.ItemCount === 5 &&
    desc.SourceTableDetails.KeySchema.map((k) => k.AttributeName).join(",") === "PK,SK", desc);
  const listed = (await base.send(new ListBackupsCommand({ TableName: B }))).BackupSummaries;
  check("ListBackups: the table's backup", listed.length === 1 && listed[0].BackupArn === made.BackupArn &&
    listed[0].TableName === B && listed[0].BackupName === "js-backup", listed);
  const restored = (await base.send(new RestoreTableFromBackupCommand({
    TargetTableName: "BackupJsRestored", BackupArn: made.BackupArn }))).TableDescription;
  check("RestoreTableFromBackup: the new table, its RestoreSummary",
    restored.TableName === "BackupJsRestored" && restored.RestoreSummary?.SourceBackupArn === made.BackupArn &&
    restored.RestoreSummary.RestoreInProgress === false && restored.RestoreSummary.RestoreDateTime instanceof Date,
    restored);
  const items = (await base.send(new RawScanCommand({ TableName: "BackupJsRestored" }))).Items;
  check("RestoreTableFromBackup: the items as they were at the backup",
    items.map((i) => `${i.SK.S}=${i.n.N}`).sort().join(",") === "S1=1,S2=2,S3=3,S4=4,S5=5", items);
  const again = await thrown(base.send(new RestoreTableFromBackupCommand({
    TargetTableName: B, BackupArn: made.BackupArn })));
  check("RestoreTableFromBackup onto an existing table: TableAlreadyExistsException",
    again instanceof TableAlreadyExistsException && again.$metadata.httpStatusCode === 400, again && again.name);
  const noTable = await thrown(base.send(new CreateBackupCommand({ TableName: "NoSuchTableJs", BackupName: "nope" })));
  check("CreateBackup of a missing table: TableNotFoundException", noTable instanceof TableNotFoundException,
    noTable && noTable.name);
  const deleted = (await base.send(new DeleteBackupCommand({ BackupArn: made.BackupArn }))).BackupDescription;
  check("DeleteBackup: DELETED", deleted.BackupDetails.BackupStatus === "DELETED" &&
    deleted.BackupDetails.BackupArn === made.BackupArn, deleted);
  const gone = await thrown(base.send(new DescribeBackupCommand({ BackupArn: made.BackupArn })));
  check("DescribeBackup of a deleted backup: BackupNotFoundException",
    gone instanceof BackupNotFoundException && gone.$metadata.httpStatusCode === 400, gone && gone.name);
  const goneDelete = await thrown(base.send(new DeleteBackupCommand({ BackupArn: made.BackupArn })));
  check("DeleteBackup again: BackupNotFoundException", goneDelete instanceof BackupNotFoundException,
    goneDelete && goneDelete.name);
  const goneRestore = await thrown(base.send(new RestoreTableFromBackupCommand({
    TargetTableName: "BackupJsRestored2", BackupArn: made.BackupArn })));
  check("RestoreTableFromBackup of a deleted backup: BackupNotFoundException",
    goneRestore instanceof BackupNotFoundException, goneRestore && goneRestore.name);
  const none = (await base.send(new ListBackupsCommand({ TableName: B }))).BackupSummaries;
  check("ListBackups: none left", none.length === 0, none);
  await base.send(new DeleteTableCommand({ TableName: "BackupJsRestored" }));
  await base.send(new DeleteTableCommand({ TableName: B }));
}

// Resource-based policies: put, read, replaced by revision, deleted.
async function policyTests() {
  const P = "PolicyJs";
  const arn = (await base.send(new CreateTableCommand({
    TableName: P, BillingMode: "PAY_PER_REQUEST",
    AttributeDefinitions: [{ AttributeName: "PK", AttributeType: "S" }],
    KeySchema: [{ AttributeName: "PK", KeyType: "HASH" }],
  }))).TableDescription.TableArn;
  const missing = await thrown(base.send(new GetResourcePolicyCommand({ ResourceArn: arn })));
  check("GetResourcePolicy without a policy: PolicyNotFoundException",
    missing instanceof PolicyNotFoundException && missing.$metadata.httpStatusCode === 400 &&
    missing.message === `Resource-based policy not found for the provided ResourceArn: ${arn}`, missing && missing.message);
  const policy = JSON.stringify({ Version: "2012-10-17", Statement: [{ Effect: "Allow",
    Principal: { AWS: "arn:aws:iam::111122223333:root" }, Action: ["dynamodb:GetItem", "dynamodb:Query"], Resource: arn }] });
  const put = await base.send(new PutResourcePolicyCommand({ ResourceArn: arn, Policy: policy }));
  check("PutResourcePolicy: a RevisionId", /^[0-9]+$/.test(put.RevisionId), put);
  const got = await base.send(new GetResourcePolicyCommand({ ResourceArn: arn }));
  check("GetResourcePolicy: the policy as put and its revision", got.Policy === policy &&
    got.RevisionId === put.RevisionId, got);
  const stale = await thrown(base.send(new PutResourcePolicyCommand({ ResourceArn: arn, Policy: policy,
    ExpectedRevisionId: "1" })));
  check("PutResourcePolicy with another ExpectedRevisionId: PolicyNotFoundException",
    stale instanceof PolicyNotFoundException, stale && stale.name);
  const del = await base.send(new DeleteResourcePolicyCommand({ ResourceArn: arn, ExpectedRevisionId: got.RevisionId }));
  check("DeleteResourcePolicy: a RevisionId", typeof del.RevisionId === "string" && del.RevisionId.length > 0, del);
  const after = await thrown(base.send(new GetResourcePolicyCommand({ ResourceArn: arn })));
  check("GetResourcePolicy after the delete: PolicyNotFoundException", after instanceof PolicyNotFoundException,
    after && after.name);
  const table = await thrown(base.send(new GetResourcePolicyCommand({ ResourceArn: arn.replace(P, "NoSuchTableJs") })));
  check("GetResourcePolicy of a missing table: ResourceNotFoundException", table?.name === "ResourceNotFoundException",
    table && table.name);
  await base.send(new DeleteTableCommand({ TableName: P }));
}

// every record of a stream from TRIM_HORIZON, shard by shard, in pages of
// `limit`; an open shard's last page is empty and still has a next iterator
async function readStream(arn, limit) {
  const desc = (await streams.send(new DescribeStreamCommand({ StreamArn: arn }))).StreamDescription;
  const records = [];
  let next = null;
  for (const shard of desc.Shards) {
    let it = (await streams.send(new GetShardIteratorCommand({
      StreamArn: arn, ShardId: shard.ShardId, ShardIteratorType: "TRIM_HORIZON" }))).ShardIterator;
    while (it) {
      const page = await streams.send(new GetRecordsCommand({ ShardIterator: it, Limit: limit }));
      records.push(...page.Records);
      next = page.NextShardIterator;
      if (page.Records.length === 0) break;
      it = page.NextShardIterator;
    }
  }
  return { desc, records, next };
}

const key = (r) => `${r.dynamodb.Keys.PK.S}|${r.dynamodb.Keys.SK.S}`;
const seq = (r) => BigInt(r.dynamodb.SequenceNumber);

async function streamTests(arn) {
  const listed = await streams.send(new ListStreamsCommand({ TableName: T }));
  check("streams: ListStreams names the table's stream", listed.Streams.length === 1 &&
    listed.Streams[0].StreamArn === arn && listed.Streams[0].TableName === T, listed.Streams);
  const { desc, records, next } = await readStream(arn, 3);
  check("streams: DescribeStream", desc.StreamStatus === "ENABLED" && desc.StreamViewType === "NEW_AND_OLD_IMAGES" &&
    desc.TableName === T && desc.Shards.length >= 1 &&
    desc.KeySchema.map((k) => `${k.AttributeName}:${k.KeyType}`).join(",") === "PK:HASH,SK:RANGE", desc);
  // the customer, the four orders of one BatchWriteItem (in any order), the
  // three items, the update, the delete; the failed conditions and the
  // cancelled transaction wrote nothing
  const names = records.map((r) => r.eventName).join(",");
  check("streams: GetRecords until no more: INSERT x8, MODIFY, REMOVE",
    names === "INSERT,INSERT,INSERT,INSERT,INSERT,INSERT,INSERT,INSERT,MODIFY,REMOVE", names);
  const keys = records.map(key);
  check("streams: the Keys of every record", keys[0] === "CUST#123|CUST#123" &&
    JSON.stringify(keys.slice(1, 5).sort()) === JSON.stringify([
      "CUST#123|ORDER#2026-06-20#000", "CUST#123|ORDER#2026-07-06#001",
      "CUST#123|ORDER#2026-07-28#002", "CUST#123|ORDER#2026-08-02#003"]) &&
    keys.slice(5).join(",") === "ORDER#001|ITEM#SKU-ABC,ORDER#001|ITEM#SKU-XYZ,ORDER#002|ITEM#SKU-ABC," +
      "CUST#123|ORDER#2026-07-06#001,ORDER#002|ITEM#SKU-ABC" &&
    records.every((r) => Object.keys(r.dynamodb.Keys).sort().join(",") === "PK,SK"), keys);
  check("streams: SequenceNumber grows", records.length > 0 && records.every((r, i) => i === 0 || seq(r) > seq(records[i - 1])),
    records.map((r) => r.dynamodb.SequenceNumber));
  check("streams: eventSource, StreamViewType, SizeBytes", records.every((r) => r.eventSource === "aws:dynamodb" &&
    r.dynamodb.StreamViewType === "NEW_AND_OLD_IMAGES" && r.dynamodb.SizeBytes > 0 &&
    r.dynamodb.ApproximateCreationDateTime instanceof Date), records[0]);
  const ins = records[5].dynamodb;
  check("streams: an INSERT has its NewImage and no OldImage", ins.OldImage === undefined &&
    ins.NewImage.product_name?.S === "Wireless Headphones" && ins.NewImage.quantity?.N === "1" &&
    JSON.stringify([...ins.NewImage.tags.SS].sort()) === JSON.stringify(["audio", "wireless"]) &&
    ins.NewImage.dims?.M?.h?.L?.[1]?.N === "2", ins);
  const mod = records[8].dynamodb;
  check("streams: a MODIFY has both images", mod.OldImage?.status?.S === "pending" &&
    mod.NewImage?.status?.S === "shipped" && mod.NewImage?.GSI1SK?.S === "STATUS#shipped" &&
    mod.NewImage?.total?.N === "149.99", mod);
  const rem = records[9].dynamodb;
  check("streams: a REMOVE has its OldImage and no NewImage", rem.NewImage === undefined &&
    rem.OldImage?.price?.N === "35.5", rem);

  // AFTER_SEQUENCE_NUMBER continues after the given record; the open
  // shard's next iterator sees a later write
  const shardId = desc.Shards[desc.Shards.length - 1].ShardId;
  const after = (await streams.send(new GetShardIteratorCommand({ StreamArn: arn, ShardId: shardId,
    ShardIteratorType: "AFTER_SEQUENCE_NUMBER", SequenceNumber: records[7].dynamodb.SequenceNumber }))).ShardIterator;
  const rest = await streams.send(new GetRecordsCommand({ ShardIterator: after }));
  check("streams: AFTER_SEQUENCE_NUMBER continues with the next records",
    rest.Records.map(key).join(",") === keys.slice(8).join(","), rest.Records.map(key));
  await doc.send(new PutCommand({ TableName: T, Item: { PK: "CUST#124", SK: "CUST#124", name: "John Doe" } }));
  const later = await streams.send(new GetRecordsCommand({ ShardIterator: next }));
  check("streams: the last page's NextShardIterator gives the next write",
    later.Records.length === 1 && later.Records[0].eventName === "INSERT" && key(later.Records[0]) === "CUST#124|CUST#124" &&
    seq(later.Records[0]) > seq(records[9]), later.Records);
  const latest = (await streams.send(new GetShardIteratorCommand({ StreamArn: arn, ShardId: shardId,
    ShardIteratorType: "LATEST" }))).ShardIterator;
  const nothing = await streams.send(new GetRecordsCommand({ ShardIterator: latest }));
  check("streams: LATEST: nothing yet", nothing.Records.length === 0 && nothing.NextShardIterator, nothing);

  // the view type: disabled, then enabled again as KEYS_ONLY (a new stream)
  await base.send(new UpdateTableCommand({ TableName: T, StreamSpecification: { StreamEnabled: false } }));
  const up = await base.send(new UpdateTableCommand({ TableName: T,
    StreamSpecification: { StreamEnabled: true, StreamViewType: "KEYS_ONLY" } }));
  const arn2 = up.TableDescription.LatestStreamArn;
  check("streams: enabled again: a new stream", typeof arn2 === "string" && arn2 !== arn, up.TableDescription);
  await doc.send(new UpdateCommand({ TableName: T, Key: { PK: "CUST#124", SK: "CUST#124" },
    UpdateExpression: "SET #n = :n", ExpressionAttributeNames: { "#n": "name" }, ExpressionAttributeValues: { ":n": "J. Doe" } }));
  await doc.send(new DeleteCommand({ TableName: T, Key: { PK: "CUST#124", SK: "CUST#124" } }));
  const ko = await readStream(arn2, 100);
  check("streams: KEYS_ONLY records: Keys, no images", ko.desc.StreamViewType === "KEYS_ONLY" &&
    ko.records.map((r) => r.eventName).join(",") === "MODIFY,REMOVE" &&
    ko.records.every((r) => key(r) === "CUST#124|CUST#124" && r.dynamodb.NewImage === undefined &&
      r.dynamodb.OldImage === undefined && r.dynamodb.StreamViewType === "KEYS_ONLY"), ko.records);
  const old = await readStream(arn, 100);
  check("streams: the disabled stream stays readable", old.desc.StreamStatus === "DISABLED" &&
    old.records.length === 11, old.desc);
  const both = await streams.send(new ListStreamsCommand({ TableName: T }));
  check("streams: ListStreams gives both streams", both.Streams.length === 2 &&
    both.Streams.map((s) => s.StreamArn).sort().join(" ") === [arn, arn2].sort().join(" "), both.Streams);
  const bad = await errorName(streams.send(new DescribeStreamCommand({ StreamArn: `${arn.slice(0, arn.lastIndexOf("/") + 1)}2000-01-01T00:00:00.000` })));
  check("streams: an unknown stream: ResourceNotFoundException", bad === "ResourceNotFoundException", bad);
}

main().catch((e) => { failed++; console.log(`FAILED  unexpected error ${e.name}: ${e.message}`); })
  .finally(() => { console.log(`http js: ${passed} passed, ${failed} failed`); process.exit(failed ? 1 : 0); });
