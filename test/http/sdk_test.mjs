// The seeds' e-commerce access patterns through the AWS SDK for JavaScript
// v3 (DynamoDBDocumentClient) against stdesign's HTTP endpoint, and the
// same writes read back through DynamoDB Streams' client
// (@aws-sdk/client-dynamodb-streams).
//
//   node sdk_test.mjs ENDPOINT
//
// Prints one line per check and "http js: N passed, N failed".
import {
  DynamoDBClient, CreateTableCommand, DescribeTableCommand, UpdateTableCommand,
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
