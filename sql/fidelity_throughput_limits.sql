-- The table settings DynamoDB added since 2022: OnDemandThroughput
-- (MaxReadRequestUnits, MaxWriteRequestUnits; -1 for no maximum; for
-- PAY_PER_REQUEST tables and their GSIs) and WarmThroughput
-- (ReadUnitsPerSecond, WriteUnitsPerSecond; described ACTIVE, never below
-- 12,000 and 4,000 nor below what it was), on CreateTable and UpdateTable,
-- for the table and each GSI, stored and described by DescribeTable.

\set defs '"AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "G", "AttributeType": "S"}], "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}]'
\set gsi '"IndexName": "ByG", "KeySchema": [{"AttributeName": "G", "KeyType": "HASH"}], "Projection": {"ProjectionType": "ALL"}'

-- An on-demand table with maxima on the table and its index, and warm
-- throughput asked above the starting values: described as asked, the
-- missing maximum -1.
SELECT st_api('CreateTable', format('{"TableName": "Limits", "BillingMode": "PAY_PER_REQUEST", %s,
  "OnDemandThroughput": {"MaxReadRequestUnits": 100, "MaxWriteRequestUnits": 50},
  "WarmThroughput": {"ReadUnitsPerSecond": 15000, "WriteUnitsPerSecond": 5000},
  "GlobalSecondaryIndexes": [{%s, "OnDemandThroughput": {"MaxReadRequestUnits": 10}}]}', :'defs', :'gsi')::jsonb)
  #> '{TableDescription}' -> 'OnDemandThroughput' AS created_on_demand;
SELECT d->'OnDemandThroughput' AS table_on_demand, d->'WarmThroughput' AS table_warm,
       d#>'{GlobalSecondaryIndexes,0,OnDemandThroughput}' AS gsi_on_demand,
       d#>'{GlobalSecondaryIndexes,0,WarmThroughput}' AS gsi_warm
  FROM st_describe_table('Limits') AS d;

-- A table without them: on demand, -1 (no maximum) and the starting warm
-- values; provisioned, no OnDemandThroughput at all.
SELECT st_api('CreateTable', format('{"TableName": "Plain", "BillingMode": "PAY_PER_REQUEST", %s, "GlobalSecondaryIndexes": [{%s}]}', :'defs', :'gsi')::jsonb) IS NOT NULL AS created;
SELECT d->'OnDemandThroughput' AS table_on_demand, d->'WarmThroughput' AS table_warm,
       d#>'{GlobalSecondaryIndexes,0,OnDemandThroughput}' AS gsi_on_demand
  FROM st_describe_table('Plain') AS d;
SELECT st_api('CreateTable', format('{"TableName": "Prov", %s, "ProvisionedThroughput": {"ReadCapacityUnits": 5, "WriteCapacityUnits": 5},
  "GlobalSecondaryIndexes": [{%s, "ProvisionedThroughput": {"ReadCapacityUnits": 1, "WriteCapacityUnits": 1}, "WarmThroughput": {"ReadUnitsPerSecond": 20000}}]}', :'defs', :'gsi')::jsonb) IS NOT NULL AS created;
SELECT d ? 'OnDemandThroughput' AS has_on_demand, d->'WarmThroughput' AS table_warm,
       d#>'{GlobalSecondaryIndexes,0}' ? 'OnDemandThroughput' AS gsi_has_on_demand,
       d#>'{GlobalSecondaryIndexes,0,WarmThroughput}' AS gsi_warm
  FROM st_describe_table('Prov') AS d;

-- Bad requests, nothing created: OnDemandThroughput on a PROVISIONED table
-- or index; empty; 0 or below -1; not integers; past a long; WarmThroughput
-- empty, 0, negative, of another type.
SELECT st_api('CreateTable', format('{"TableName": "Bad", %s, "ProvisionedThroughput": {"ReadCapacityUnits": 5, "WriteCapacityUnits": 5}, "OnDemandThroughput": {"MaxReadRequestUnits": 5}}', :'defs')::jsonb);
SELECT st_api('CreateTable', format('{"TableName": "Bad", %s, "ProvisionedThroughput": {"ReadCapacityUnits": 5, "WriteCapacityUnits": 5},
  "GlobalSecondaryIndexes": [{%s, "ProvisionedThroughput": {"ReadCapacityUnits": 1, "WriteCapacityUnits": 1}, "OnDemandThroughput": {"MaxReadRequestUnits": 5}}]}', :'defs', :'gsi')::jsonb);
SELECT st_api('CreateTable', format('{"TableName": "Bad", "BillingMode": "PAY_PER_REQUEST", %s, "OnDemandThroughput": {}}', :'defs')::jsonb);
SELECT st_api('CreateTable', format('{"TableName": "Bad", "BillingMode": "PAY_PER_REQUEST", %s, "OnDemandThroughput": {"MaxReadRequestUnits": 0}}', :'defs')::jsonb);
SELECT st_api('CreateTable', format('{"TableName": "Bad", "BillingMode": "PAY_PER_REQUEST", %s, "OnDemandThroughput": {"MaxWriteRequestUnits": -2}}', :'defs')::jsonb);
SELECT st_api('CreateTable', format('{"TableName": "Bad", "BillingMode": "PAY_PER_REQUEST", %s, "OnDemandThroughput": {"MaxWriteRequestUnits": 1.5}}', :'defs')::jsonb);
SELECT st_api('CreateTable', format('{"TableName": "Bad", "BillingMode": "PAY_PER_REQUEST", %s, "OnDemandThroughput": {"MaxWriteRequestUnits": "5"}}', :'defs')::jsonb);
SELECT st_api('CreateTable', format('{"TableName": "Bad", "BillingMode": "PAY_PER_REQUEST", %s, "OnDemandThroughput": {"MaxWriteRequestUnits": 99999999999999999999}}', :'defs')::jsonb);
SELECT st_api('CreateTable', format('{"TableName": "Bad", "BillingMode": "PAY_PER_REQUEST", %s, "OnDemandThroughput": [5]}', :'defs')::jsonb);
SELECT st_api('CreateTable', format('{"TableName": "Bad", "BillingMode": "PAY_PER_REQUEST", %s, "GlobalSecondaryIndexes": [{%s, "OnDemandThroughput": {"MaxReadRequestUnits": 0}}]}', :'defs', :'gsi')::jsonb);
SELECT st_api('CreateTable', format('{"TableName": "Bad", "BillingMode": "PAY_PER_REQUEST", %s, "WarmThroughput": {}}', :'defs')::jsonb);
SELECT st_api('CreateTable', format('{"TableName": "Bad", "BillingMode": "PAY_PER_REQUEST", %s, "WarmThroughput": {"ReadUnitsPerSecond": 0}}', :'defs')::jsonb);
SELECT st_api('CreateTable', format('{"TableName": "Bad", "BillingMode": "PAY_PER_REQUEST", %s, "WarmThroughput": {"WriteUnitsPerSecond": -1}}', :'defs')::jsonb);
SELECT st_api('CreateTable', format('{"TableName": "Bad", "BillingMode": "PAY_PER_REQUEST", %s, "WarmThroughput": {"WriteUnitsPerSecond": true}}', :'defs')::jsonb);
SELECT st_api('CreateTable', format('{"TableName": "Bad", "BillingMode": "PAY_PER_REQUEST", %s, "WarmThroughput": "fast"}', :'defs')::jsonb);
SELECT st_api('CreateTable', format('{"TableName": "Bad", "BillingMode": "PAY_PER_REQUEST", %s, "GlobalSecondaryIndexes": [{%s, "WarmThroughput": {"ReadUnitsPerSecond": -5}}]}', :'defs', :'gsi')::jsonb);
SELECT count(*) AS bad_tables FROM stdesign.tables WHERE table_name = 'Bad';

-- UpdateTable: the table's maxima merge with what is set (one given, the
-- other kept; -1 removes one); warm throughput goes up, never down; the
-- index's alike through GlobalSecondaryIndexUpdates' Update, which needs
-- no ProvisionedThroughput any more.
SELECT st_api('UpdateTable', '{"TableName": "Limits", "OnDemandThroughput": {"MaxWriteRequestUnits": 75}}') #> '{TableDescription,OnDemandThroughput}' AS merged;
SELECT st_api('UpdateTable', '{"TableName": "Limits", "OnDemandThroughput": {"MaxReadRequestUnits": -1}}') #> '{TableDescription,OnDemandThroughput}' AS removed;
SELECT st_api('UpdateTable', '{"TableName": "Limits", "WarmThroughput": {"ReadUnitsPerSecond": 20000}}') #> '{TableDescription,WarmThroughput}' AS warmer;
SELECT st_api('UpdateTable', '{"TableName": "Limits", "WarmThroughput": {"ReadUnitsPerSecond": 13000, "WriteUnitsPerSecond": 1}}') #> '{TableDescription,WarmThroughput}' AS never_down;
SELECT (st_api('UpdateTable', '{"TableName": "Limits", "GlobalSecondaryIndexUpdates": [{"Update": {"IndexName": "ByG",
  "OnDemandThroughput": {"MaxWriteRequestUnits": 7}, "WarmThroughput": {"WriteUnitsPerSecond": 9000}}}]}')
  #> '{TableDescription,GlobalSecondaryIndexes,0}') - 'IndexSizeBytes' - 'ItemCount' - 'IndexArn' - 'KeySchema' - 'Projection' AS gsi_updated;
-- A new index through UpdateTable's Create, with its own settings.
SELECT st_api('UpdateTable', format('{"TableName": "Plain", "AttributeDefinitions": [{"AttributeName": "H", "AttributeType": "S"}],
  "GlobalSecondaryIndexUpdates": [{"Create": {"IndexName": "ByH", "KeySchema": [{"AttributeName": "H", "KeyType": "HASH"}],
  "Projection": {"ProjectionType": "KEYS_ONLY"}, "OnDemandThroughput": {"MaxReadRequestUnits": 3}, "WarmThroughput": {"ReadUnitsPerSecond": 30000}}}]}')::jsonb)
  IS NOT NULL AS created_index;
SELECT jsonb_path_query(st_describe_table('Plain'), '$.GlobalSecondaryIndexes[*] ? (@.IndexName == "ByH")') - 'IndexSizeBytes' - 'ItemCount' - 'IndexArn' - 'KeySchema' - 'Projection' AS new_index;
-- Refused: maxima on a provisioned table or index; turning the table
-- PAY_PER_REQUEST in the same request allows them.  An Update with none of
-- the three; bad values; an unknown index.
SELECT st_api('UpdateTable', '{"TableName": "Prov", "OnDemandThroughput": {"MaxReadRequestUnits": 5}}');
SELECT st_api('UpdateTable', '{"TableName": "Prov", "GlobalSecondaryIndexUpdates": [{"Update": {"IndexName": "ByG", "OnDemandThroughput": {"MaxReadRequestUnits": 5}}}]}');
SELECT st_api('UpdateTable', '{"TableName": "Prov", "GlobalSecondaryIndexUpdates": [{"Update": {"IndexName": "ByG"}}]}');
SELECT st_api('UpdateTable', '{"TableName": "Prov", "GlobalSecondaryIndexUpdates": [{"Update": {"IndexName": "Nope", "WarmThroughput": {"ReadUnitsPerSecond": 5}}}]}');
SELECT st_api('UpdateTable', '{"TableName": "Prov", "OnDemandThroughput": {"MaxReadRequestUnits": 0}}');
SELECT st_api('UpdateTable', '{"TableName": "Prov", "WarmThroughput": {}}');
SELECT st_api('UpdateTable', '{"TableName": "Prov", "WarmThroughput": {"ReadUnitsPerSecond": 9223372036854775808}}');
SELECT st_api('UpdateTable', '{"TableName": "Prov", "BillingMode": "PAY_PER_REQUEST", "OnDemandThroughput": {"MaxReadRequestUnits": 5}}') #> '{TableDescription,OnDemandThroughput}' AS now_on_demand;
-- The warm throughput of the provisioned index rose on its own update.
SELECT st_api('UpdateTable', '{"TableName": "Prov", "GlobalSecondaryIndexUpdates": [{"Update": {"IndexName": "ByG", "WarmThroughput": {"WriteUnitsPerSecond": 4500}}}]}')
  #> '{TableDescription,GlobalSecondaryIndexes,0,WarmThroughput}' AS gsi_warm;

-- Only the owner of a table changes them.
CREATE ROLE limits_stranger;
GRANT USAGE ON SCHEMA stdesign, stdesign_data TO limits_stranger;
\set VERBOSITY terse
SET ROLE limits_stranger;
SELECT st_api('UpdateTable', '{"TableName": "Limits", "OnDemandThroughput": {"MaxWriteRequestUnits": 1}}');
SELECT st_api('UpdateTable', '{"TableName": "Limits", "WarmThroughput": {"WriteUnitsPerSecond": 100000}}');
RESET ROLE;
\set VERBOSITY default
REVOKE ALL ON SCHEMA stdesign, stdesign_data FROM limits_stranger;
DROP ROLE limits_stranger;
SELECT d->'OnDemandThroughput' AS unchanged, d->'WarmThroughput' AS warm_unchanged FROM st_describe_table('Limits') AS d;

SELECT st_drop_table('Limits'), st_drop_table('Plain'), st_drop_table('Prov');
