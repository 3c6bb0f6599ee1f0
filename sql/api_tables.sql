-- st_api table operations: CreateTable, DescribeTable, ListTables,
-- UpdateTable (GSI create with backfill, delete, throughput, billing) and
-- DeleteTable, with DynamoDB's request and response JSON and its errors.

-- Creation times and TableIds vary: show them as "<time>" and "<uuid>".
CREATE FUNCTION masked(j jsonb) RETURNS jsonb LANGUAGE sql AS $$
  SELECT regexp_replace(regexp_replace(j::text,
           '"(CreationDateTime|LastUpdateToPayPerRequestDateTime)": [0-9.]+', '"\1": "<time>"', 'g'),
           '"TableId": "[0-9a-f-]{36}"', '"TableId": "<uuid>"', 'g')::jsonb
$$;

-- A provisioned table with a GSI and an LSI: the whole response.
SELECT jsonb_pretty(masked(st_api('CreateTable', '{
  "TableName": "ApiOrders",
  "AttributeDefinitions": [
    {"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "SK", "AttributeType": "S"},
    {"AttributeName": "status", "AttributeType": "S"}, {"AttributeName": "total", "AttributeType": "N"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
  "GlobalSecondaryIndexes": [{
    "IndexName": "ByStatus",
    "KeySchema": [{"AttributeName": "status", "KeyType": "HASH"}],
    "Projection": {"ProjectionType": "KEYS_ONLY"},
    "ProvisionedThroughput": {"ReadCapacityUnits": 2, "WriteCapacityUnits": 3}}],
  "LocalSecondaryIndexes": [{
    "IndexName": "ByTotal",
    "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "total", "KeyType": "RANGE"}],
    "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["note"]}}],
  "ProvisionedThroughput": {"ReadCapacityUnits": 5, "WriteCapacityUnits": 5}
}'))) AS create_table;

-- The operation may be named as the X-Amz-Target header names it.
SELECT st_api('DynamoDB_20120810.CreateTable', '{
  "TableName": "ApiHash", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "N"}],
  "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}]
}') -> 'TableDescription' -> 'BillingModeSummary' ? 'BillingMode' AS on_demand;

-- Members DynamoDB does not use are ignored (a request is never taken for a
-- CloudFormation template).
SELECT st_api('CreateTable', '{"TableName": "ApiExtra", "BillingMode": "PAY_PER_REQUEST", "Resources": {},
  "Tags": [{"Key": "team", "Value": "orders"}],
  "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}]}') #>> '{TableDescription,TableName}' AS created;
SELECT st_api('DeleteTable', '{"TableName": "ApiExtra"}') #>> '{TableDescription,TableStatus}' AS status;

-- CreateTable errors.
SELECT st_api('CreateTable', '{"TableName": "ApiHash", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "N"}],
  "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}]}');
SELECT st_api('CreateTable', '{"KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}]}');
SELECT st_api('CreateTable', '{"TableName": "no", "KeySchema": []}');
SELECT st_api('CreateTable', '{"TableName": "Bad Name", "KeySchema": []}');
SELECT st_api('CreateTable', '{"TableName": "ApiBad", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}],
  "LocalSecondaryIndexes": [{"IndexName": "Lsi1",
    "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}, {"AttributeName": "x", "KeyType": "RANGE"}],
    "Projection": {"ProjectionType": "ALL"}}]}');
-- An LSI must share the table's partition key.
SELECT st_api('CreateTable', '{"TableName": "ApiBad", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "SK", "AttributeType": "S"},
                           {"AttributeName": "other", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
  "LocalSecondaryIndexes": [{"IndexName": "Lsi",
    "KeySchema": [{"AttributeName": "other", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
    "Projection": {"ProjectionType": "ALL"}}]}');
-- Up to 5 LSIs: a sixth is refused.
SELECT st_api('CreateTable', jsonb_build_object(
  'TableName', 'ApiBad', 'BillingMode', 'PAY_PER_REQUEST',
  'AttributeDefinitions', '[{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "SK", "AttributeType": "S"}]'::jsonb
    || (SELECT jsonb_agg(jsonb_build_object('AttributeName', 'a' || i, 'AttributeType', 'S')) FROM generate_series(1, 6) i),
  'KeySchema', '[{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}]'::jsonb,
  'LocalSecondaryIndexes', (SELECT jsonb_agg(jsonb_build_object(
      'IndexName', 'Lsi' || i,
      'KeySchema', jsonb_build_array(jsonb_build_object('AttributeName', 'PK', 'KeyType', 'HASH'),
                                     jsonb_build_object('AttributeName', 'a' || i, 'KeyType', 'RANGE')),
      'Projection', '{"ProjectionType": "KEYS_ONLY"}'::jsonb)) FROM generate_series(1, 6) i)));
SELECT st_api('CreateTable', '[]');

-- DescribeTable: {"Table": TableDescription}.
SELECT jsonb_pretty(masked(st_api('DescribeTable', '{"TableName": "ApiHash"}'))) AS describe_table;
SELECT st_api('DescribeTable', '{"TableName": "Missing"}');
SELECT st_api('DescribeTable', '{}');
SELECT st_api('DescribeTable', '{"TableName": 7}');

-- ListTables: byte order (upper case first), pages of Limit names.
SELECT st_api('CreateTable', '{"TableName": "api_lower", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}]}') IS NOT NULL AS created;
SELECT st_api('ListTables', '{}');
SELECT st_api('ListTables', NULL);
SELECT st_api('ListTables', '{"Limit": 2}');
SELECT st_api('ListTables', '{"Limit": 2, "ExclusiveStartTableName": "ApiOrders"}');
SELECT st_api('ListTables', '{"Limit": 1, "ExclusiveStartTableName": "ApiOrders"}');
SELECT st_api('ListTables', '{"ExclusiveStartTableName": "api_lower"}');
-- The start name need not exist.
SELECT st_api('ListTables', '{"ExclusiveStartTableName": "ApiI"}');
SELECT st_api('ListTables', '{"Limit": 0}');
SELECT st_api('ListTables', '{"Limit": 101}');
SELECT st_api('ListTables', '{"Limit": "2"}');
SELECT st_api('ListTables', '{"ExclusiveStartTableName": "ab"}');

-- UpdateTable: a GSI added to a table that holds items is filled at once.
SELECT st_put('{"PK": "C#1", "SK": "O#1", "status": "open", "total": 10}', 'ApiOrders') IS NULL AS put;
SELECT st_put('{"PK": "C#1", "SK": "O#2", "status": "shipped", "total": 20, "when": "2026-07-01"}', 'ApiOrders') IS NULL AS put;
SELECT st_put('{"PK": "C#2", "SK": "O#3", "total": 30, "when": "2026-07-02"}', 'ApiOrders') IS NULL AS put;
SELECT jsonb_pretty(masked(st_api('UpdateTable', '{
  "TableName": "ApiOrders",
  "AttributeDefinitions": [{"AttributeName": "when", "AttributeType": "S"}],
  "GlobalSecondaryIndexUpdates": [{"Create": {
    "IndexName": "ByWhen",
    "KeySchema": [{"AttributeName": "when", "KeyType": "HASH"}],
    "Projection": {"ProjectionType": "ALL"},
    "ProvisionedThroughput": {"ReadCapacityUnits": 1, "WriteCapacityUnits": 1}}}]
}') #- '{TableDescription,LocalSecondaryIndexes}'
    #- '{TableDescription,AttributeDefinitions}')) AS update_table;
SELECT * FROM st_query('2026-07-02', "table" => 'ApiOrders', index => 'ByWhen');

-- Throughput of the table and of a GSI: accepted, stored, described.
SELECT st_api('UpdateTable', '{"TableName": "ApiOrders",
  "ProvisionedThroughput": {"ReadCapacityUnits": 7, "WriteCapacityUnits": 8},
  "GlobalSecondaryIndexUpdates": [{"Update": {"IndexName": "ByStatus",
    "ProvisionedThroughput": {"ReadCapacityUnits": 4, "WriteCapacityUnits": 4}}}]}')
  -> 'TableDescription' -> 'ProvisionedThroughput' AS table_throughput;
SELECT g -> 'IndexName' AS index, g -> 'ProvisionedThroughput' AS throughput
  FROM jsonb_array_elements(st_api('DescribeTable', '{"TableName": "ApiOrders"}')
                            #> '{Table,GlobalSecondaryIndexes}') AS g;
-- The same throughput again is refused, as DynamoDB does.
SELECT st_api('UpdateTable', '{"TableName": "ApiOrders",
  "ProvisionedThroughput": {"ReadCapacityUnits": 7, "WriteCapacityUnits": 8}}');

-- Deleting a GSI: the response still describes it, DELETING.
SELECT g ->> 'IndexName' AS index, g ->> 'IndexStatus' AS status
  FROM jsonb_array_elements(st_api('UpdateTable', '{"TableName": "ApiOrders",
         "GlobalSecondaryIndexUpdates": [{"Delete": {"IndexName": "ByWhen"}}]}')
         #> '{TableDescription,GlobalSecondaryIndexes}') AS g;
SELECT st_api('DescribeTable', '{"TableName": "ApiOrders"}') #> '{Table,GlobalSecondaryIndexes}' @? '$[*] ? (@.IndexName == "ByWhen")' AS still_there;

-- Switching billing modes.
SELECT st_api('UpdateTable', '{"TableName": "ApiOrders", "BillingMode": "PAY_PER_REQUEST"}')
  #> '{TableDescription,BillingModeSummary,BillingMode}' AS billing;
SELECT st_api('UpdateTable', '{"TableName": "ApiOrders", "BillingMode": "PROVISIONED"}');
SELECT st_api('UpdateTable', '{"TableName": "ApiOrders", "BillingMode": "PROVISIONED",
  "ProvisionedThroughput": {"ReadCapacityUnits": 1, "WriteCapacityUnits": 1}}');
SELECT st_api('UpdateTable', '{"TableName": "ApiOrders", "BillingMode": "PROVISIONED",
  "ProvisionedThroughput": {"ReadCapacityUnits": 1, "WriteCapacityUnits": 1},
  "GlobalSecondaryIndexUpdates": [{"Update": {"IndexName": "ByStatus",
    "ProvisionedThroughput": {"ReadCapacityUnits": 1, "WriteCapacityUnits": 1}}}]}')
  #> '{TableDescription,ProvisionedThroughput}' AS provisioned_again;
SELECT st_api('DescribeTable', '{"TableName": "ApiOrders"}') -> 'Table' ? 'BillingModeSummary' AS has_summary;

-- UpdateTable errors.
SELECT st_api('UpdateTable', '{"TableName": "ApiOrders"}');
SELECT st_api('UpdateTable', '{"TableName": "ApiOrders", "GlobalSecondaryIndexUpdates": []}');
SELECT st_api('UpdateTable', '{"TableName": "Missing", "BillingMode": "PAY_PER_REQUEST"}');
SELECT st_api('UpdateTable', '{"TableName": "ApiOrders", "BillingMode": "FREE"}');
SELECT st_api('UpdateTable', '{"TableName": "ApiOrders", "GlobalSecondaryIndexUpdates": [{}]}');
SELECT st_api('UpdateTable', '{"TableName": "ApiOrders", "GlobalSecondaryIndexUpdates": [{"Create": {"IndexName": "x",
  "KeySchema": [{"AttributeName": "status", "KeyType": "HASH"}], "Projection": {"ProjectionType": "ALL"}}}],
  "AttributeDefinitions": [{"AttributeName": "status", "AttributeType": "S"}]}');
SELECT st_api('UpdateTable', '{"TableName": "ApiOrders", "GlobalSecondaryIndexUpdates": [{"Create": {"IndexName": "NoProjection",
  "KeySchema": [{"AttributeName": "status", "KeyType": "HASH"}]}}],
  "AttributeDefinitions": [{"AttributeName": "status", "AttributeType": "S"}]}');
SELECT st_api('UpdateTable', '{"TableName": "ApiOrders", "GlobalSecondaryIndexUpdates": [
  {"Delete": {"IndexName": "ByStatus"}}, {"Create": {"IndexName": "Other",
    "KeySchema": [{"AttributeName": "status", "KeyType": "HASH"}], "Projection": {"ProjectionType": "ALL"}}}],
  "AttributeDefinitions": [{"AttributeName": "status", "AttributeType": "S"}]}');
SELECT st_api('UpdateTable', '{"TableName": "ApiOrders", "GlobalSecondaryIndexUpdates": [
  {"Delete": {"IndexName": "ByStatus"}}, {"Update": {"IndexName": "ByStatus",
    "ProvisionedThroughput": {"ReadCapacityUnits": 1, "WriteCapacityUnits": 1}}}]}');
SELECT st_api('UpdateTable', '{"TableName": "ApiOrders", "GlobalSecondaryIndexUpdates": [
  {"Delete": {"IndexName": "NoSuchIndex"}}]}');
SELECT st_api('UpdateTable', '{"TableName": "ApiOrders", "GlobalSecondaryIndexUpdates": [
  {"Delete": {"IndexName": "ByTotal"}}]}');
SELECT st_api('UpdateTable', '{"TableName": "ApiOrders", "GlobalSecondaryIndexUpdates": [
  {"Delete": {}}]}');
SELECT st_api('UpdateTable', '{"TableName": "ApiOrders", "GlobalSecondaryIndexUpdates": [
  {"Update": {"IndexName": "ByStatus", "ProvisionedThroughput": {"ReadCapacityUnits": 0, "WriteCapacityUnits": 1}}}]}');
SELECT st_api('UpdateTable', '{"TableName": "ApiOrders", "GlobalSecondaryIndexUpdates": [{"Create": {
    "IndexName": "ByStatus", "KeySchema": [{"AttributeName": "status", "KeyType": "HASH"}],
    "Projection": {"ProjectionType": "ALL"},
    "ProvisionedThroughput": {"ReadCapacityUnits": 1, "WriteCapacityUnits": 1}}}],
  "AttributeDefinitions": [{"AttributeName": "status", "AttributeType": "S"}]}');
SELECT st_api('UpdateTable', '{"TableName": "ApiOrders", "GlobalSecondaryIndexUpdates": [{"Create": {
    "IndexName": "ByNote", "KeySchema": [{"AttributeName": "note", "KeyType": "HASH"}],
    "Projection": {"ProjectionType": "ALL"},
    "ProvisionedThroughput": {"ReadCapacityUnits": 1, "WriteCapacityUnits": 1}}}]}');
-- A PAY_PER_REQUEST table's GSI takes no throughput.
SELECT st_api('UpdateTable', '{"TableName": "ApiHash", "GlobalSecondaryIndexUpdates": [{"Create": {
    "IndexName": "ByName", "KeySchema": [{"AttributeName": "name", "KeyType": "HASH"}],
    "Projection": {"ProjectionType": "ALL"},
    "ProvisionedThroughput": {"ReadCapacityUnits": 1, "WriteCapacityUnits": 1}}}],
  "AttributeDefinitions": [{"AttributeName": "name", "AttributeType": "S"}]}');
SELECT st_api('UpdateTable', '{"TableName": "ApiHash", "ProvisionedThroughput": {"ReadCapacityUnits": 1, "WriteCapacityUnits": 1}}');

-- DeleteTable: DynamoDB's description of a table being deleted (no key schema,
-- attribute definitions or creation time); then it is gone.
SELECT masked(st_api('DeleteTable', '{"TableName": "ApiHash"}')) AS delete_table;
SELECT st_api('DeleteTable', '{"TableName": "ApiHash"}');
SELECT st_api('DeleteTable', '{}');
SELECT st_api('DeleteTable', '{"TableName": "ApiOrders"}') #>> '{TableDescription,TableStatus}' AS status;
SELECT st_api('DeleteTable', '{"TableName": "api_lower"}') #>> '{TableDescription,TableStatus}' AS status;
SELECT st_api('ListTables', '{}');

-- Unknown operations and requests that are not objects.
SELECT st_api('RestoreTableToPointInTime', '{}');
SELECT st_api(NULL, '{}');
SELECT st_api('ListTables', '"x"');

DROP FUNCTION masked(jsonb);
