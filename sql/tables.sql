-- Tables: both forms of st_create_table, key types, hash-only tables,
-- st_describe_table, st_list_tables, st_drop_table, GSIs added and dropped,
-- and every bad input with its DynamoDB error.

-- Short form: PK/SK strings, on-demand billing.
SELECT st_create_table('Short') -> 'KeySchema' AS key_schema;
-- Hash-only, numeric key.
SELECT st_create_table('HashOnly', 'id', NULL, 'N') -> 'KeySchema' AS key_schema;
-- Binary partition key, numeric sort key.
SELECT st_create_table('Typed', 'bin', 'num', 'B', 'N') -> 'AttributeDefinitions' AS defs;
-- Names: 3-255 of [A-Za-z0-9_.-], case sensitive.
SELECT st_create_table('a.b-c_D') ->> 'TableName' AS name;
SELECT st_create_table('A.B-C_D') ->> 'TableName' AS name;
SELECT st_create_table(repeat('x', 255)) ->> 'TableName' = repeat('x', 255) AS long_name_ok;
SELECT relation_name, length(relation_name) FROM stdesign.tables
 WHERE table_name = repeat('x', 255);
SELECT st_list_tables();

-- A CreateTable request with a local secondary index and INCLUDE projection.
SELECT st_create_table('{
  "TableName": "WithIndexes",
  "AttributeDefinitions": [
    {"AttributeName": "PK", "AttributeType": "S"},
    {"AttributeName": "SK", "AttributeType": "S"},
    {"AttributeName": "created", "AttributeType": "N"},
    {"AttributeName": "email", "AttributeType": "S"}
  ],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
  "LocalSecondaryIndexes": [{
    "IndexName": "ByCreated",
    "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "created", "KeyType": "RANGE"}],
    "Projection": {"ProjectionType": "KEYS_ONLY"}}],
  "GlobalSecondaryIndexes": [{
    "IndexName": "ByEmail",
    "KeySchema": [{"AttributeName": "email", "KeyType": "HASH"}],
    "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["name"]}}],
  "BillingMode": "PAY_PER_REQUEST"
}'::jsonb) - 'CreationDateTime' - 'BillingModeSummary' - 'AttributeDefinitions'
           - 'ProvisionedThroughput' - 'TableArn' - 'TableId' AS description;

-- A GSI added to a table that holds data is backfilled, and is sparse.
SELECT st_put('{"PK": "u#1", "SK": "profile", "tenant": "t1", "joined": "2026-01-01"}', 'Short');
SELECT st_put('{"PK": "u#2", "SK": "profile", "tenant": "t1", "joined": "2025-06-30"}', 'Short');
SELECT st_put('{"PK": "u#3", "SK": "profile"}', 'Short');
SELECT st_create_gsi('Short', 'ByTenant', 'tenant', 'joined') #> '{GlobalSecondaryIndexes,0,ItemCount}' AS backfilled;
SELECT item->>'PK' FROM st_query('t1', "table" => 'Short', index => 'ByTenant') AS item;
-- Maintained on later writes, including plain SQL on the relation.
INSERT INTO stdesign_data."Short" (item)
  VALUES ('{"PK": {"S": "u#4"}, "SK": {"S": "profile"}, "tenant": {"S": "t1"}, "joined": {"S": "2024-01-01"}}');
UPDATE stdesign_data."Short" SET item = item || '{"tenant": {"S": "t2"}}' WHERE pk = 'u#1';
DELETE FROM stdesign_data."Short" WHERE pk = 'u#2';
SELECT item->>'PK' FROM st_query('t1', "table" => 'Short', index => 'ByTenant') AS item;
SELECT item->>'PK' FROM st_query('t2', "table" => 'Short', index => 'ByTenant') AS item;
-- The key columns follow the item whichever path wrote it; a plain write
-- cannot set them apart from the item, nor store an item without its key.
UPDATE stdesign_data."Short" SET pk = 'forged' WHERE pk = 'u#3';
SELECT pk, sk FROM stdesign_data."Short" ORDER BY pk;
INSERT INTO stdesign_data."Short" (item) VALUES ('{"SK": {"S": "profile"}}');
INSERT INTO stdesign_data."Short" (item) VALUES ('{"PK": {"N": "1"}, "SK": {"S": "profile"}}');
-- A second GSI without a sort key, KEYS_ONLY.
SELECT jsonb_array_length(st_create_gsi('Short', 'ByJoined', 'joined', projection => 'KEYS_ONLY')
                          -> 'GlobalSecondaryIndexes') AS gsis;
SELECT st_drop_gsi('Short', 'ByJoined');
SELECT st_describe_table('Short') #>> '{GlobalSecondaryIndexes,0,IndexName}' AS remaining;

-- Describe: counts and sizes.
SELECT d->'ItemCount' AS items, d->'TableSizeBytes' AS bytes, d->>'TableStatus' AS status
  FROM st_describe_table('Short') AS d;

-- Bad inputs ---------------------------------------------------------------
SELECT st_create_table('Short');
SELECT st_create_table('ab');
SELECT st_create_table(repeat('x', 256));
SELECT st_create_table('bad name');
SELECT st_create_table('Bad', 'PK', 'SK', 'X');
SELECT st_create_table('Bad', 'PK', 'PK');
SELECT st_create_table('{"KeySchema": [], "AttributeDefinitions": []}'::jsonb);
SELECT st_create_table('{"TableName": "Bad", "AttributeDefinitions": []}'::jsonb);
SELECT st_create_table('{"TableName": "Bad", "KeySchema": [], "AttributeDefinitions": [], "BillingMode": "PAY_PER_REQUEST"}'::jsonb);
SELECT st_create_table('{"TableName": "Bad", "BillingMode": "PAY_PER_REQUEST",
  "KeySchema": [{"AttributeName": "PK", "KeyType": "RANGE"}],
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}]}'::jsonb);
SELECT st_create_table('{"TableName": "Bad", "BillingMode": "PAY_PER_REQUEST",
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "HASH"}],
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "SK", "AttributeType": "S"}]}'::jsonb);
SELECT st_create_table('{"TableName": "Bad", "BillingMode": "PAY_PER_REQUEST",
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}],
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "X", "AttributeType": "S"}]}'::jsonb);
SELECT st_create_table('{"TableName": "Bad", "BillingMode": "PAY_PER_REQUEST",
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}]}'::jsonb);
SELECT st_create_table('{"TableName": "Bad", "BillingMode": "PAY_PER_REQUEST",
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}],
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "BOOL"}]}'::jsonb);
SELECT st_create_table('{"TableName": "Bad",
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}],
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}]}'::jsonb);
SELECT st_create_table('{"TableName": "Bad", "BillingMode": "PAY_PER_REQUEST",
  "ProvisionedThroughput": {"ReadCapacityUnits": 1, "WriteCapacityUnits": 1},
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}],
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}]}'::jsonb);
SELECT st_create_table('{"TableName": "Bad", "BillingMode": "SOMETIMES",
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}],
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}]}'::jsonb);
SELECT st_create_table('{"TableName": "Bad", "ProvisionedThroughput": {"ReadCapacityUnits": 0, "WriteCapacityUnits": 1},
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}],
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}]}'::jsonb);
SELECT st_create_table('{"TableName": "Bad", "BillingMode": "PAY_PER_REQUEST",
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}],
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "G", "AttributeType": "S"}],
  "GlobalSecondaryIndexes": [{"IndexName": "GSI1", "KeySchema": [{"AttributeName": "G", "KeyType": "HASH"}]}]}'::jsonb);
SELECT st_create_table('{"TableName": "Bad", "BillingMode": "PAY_PER_REQUEST",
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}],
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "G", "AttributeType": "S"}],
  "GlobalSecondaryIndexes": [
    {"IndexName": "GSI1", "KeySchema": [{"AttributeName": "G", "KeyType": "HASH"}], "Projection": {"ProjectionType": "ALL"}},
    {"IndexName": "GSI1", "KeySchema": [{"AttributeName": "G", "KeyType": "HASH"}], "Projection": {"ProjectionType": "ALL"}}]}'::jsonb);
SELECT st_create_table('{"TableName": "Bad", "BillingMode": "PAY_PER_REQUEST",
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}],
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "G", "AttributeType": "S"}],
  "GlobalSecondaryIndexes": [{"IndexName": "GSI1", "KeySchema": [{"AttributeName": "G", "KeyType": "HASH"}],
    "Projection": {"ProjectionType": "INCLUDE"}}]}'::jsonb);
SELECT st_create_table('{"TableName": "Bad", "BillingMode": "PAY_PER_REQUEST",
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}],
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "L", "AttributeType": "S"}],
  "LocalSecondaryIndexes": [{"IndexName": "LSI1", "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "L", "KeyType": "RANGE"}],
    "Projection": {"ProjectionType": "ALL"}}]}'::jsonb);
SELECT st_create_table('{"TableName": "Bad", "KeySchema": "PK", "AttributeDefinitions": []}'::jsonb);
SELECT st_create_table('[1, 2]'::jsonb);
SELECT st_create_table('{"Resources": {}}'::jsonb);
SELECT st_create_gsi('Short', 'ByTenant', 'tenant');
SELECT st_create_gsi('Short', 'x', 'tenant');
SELECT st_create_gsi('Nope', 'Idx', 'tenant');
SELECT st_create_gsi('Short', 'Idx2', 'tenant', pk_type => 'Q');
SELECT st_drop_gsi('Short', 'Nope');
SELECT st_describe_table('Nope');
SELECT st_drop_table('Nope');
SELECT count(*) AS unchanged FROM st_list_tables();

-- Dropping a table drops its relation.
SELECT st_drop_table('Short');
SELECT to_regclass('stdesign_data."Short"') IS NULL AS relation_gone;
SELECT st_drop_table(t) FROM st_list_tables() AS t;
SELECT count(*) FROM st_list_tables();
