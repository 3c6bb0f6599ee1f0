// The seeds' e-commerce access patterns through the AWS SDK for JavaScript
// v3 (DynamoDBDocumentClient) against stdesign's HTTP endpoint.
//
//   node sdk_test.mjs ENDPOINT
//
// Prints one line per check and "http js: N passed, N failed".
import { DynamoDBClient, CreateTableCommand, DescribeTableCommand } from "@aws-sdk/client-dynamodb";
import {
  DynamoDBDocumentClient, PutCommand, GetCommand, QueryCommand, UpdateCommand,
  TransactWriteCommand, BatchWriteCommand,
} from "@aws-sdk/lib-dynamodb";

const endpoint = process.argv[2];
const base = new DynamoDBClient({
  endpoint, region: "us-east-1", maxAttempts: 1,
  credentials: { accessKeyId: "AKIDEXAMPLE", secretAccessKey: "secret" },
});
const doc = DynamoDBDocumentClient.from(base);
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
  }));
  check("CreateTable", created.TableDescription.TableStatus === "ACTIVE", created.TableDescription);

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
}

main().catch((e) => { failed++; console.log(`FAILED  unexpected error ${e.name}: ${e.message}`); })
  .finally(() => { console.log(`http js: ${passed} passed, ${failed} failed`); process.exit(failed ? 1 : 0); });
