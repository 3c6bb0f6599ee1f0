-- The design studio's partitions: item collections per partition key value
-- (table and each GSI) by DynamoDB's size rules, the largest ones, skew,
-- sampling of large tables; the traffic functions without
-- shared_preload_libraries (pg_regress runs without it: the counters
-- themselves are tested in test/t/008_studio_traffic.pl); CreateTable JSON
-- and CloudFormation of a table.

-- The seeds' write-sharding table: one hot day of events, a few quiet ones,
-- users in a GSI with a KEYS_ONLY projection, an LSI on the table.
SELECT st_create_table('{
  "TableName": "Studio",
  "AttributeDefinitions": [
    {"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "SK", "AttributeType": "S"},
    {"AttributeName": "GSI1PK", "AttributeType": "S"}, {"AttributeName": "GSI1SK", "AttributeType": "S"},
    {"AttributeName": "user_id", "AttributeType": "N"}, {"AttributeName": "LSK", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
  "GlobalSecondaryIndexes": [
    {"IndexName": "GSI1", "KeySchema": [{"AttributeName": "GSI1PK", "KeyType": "HASH"}, {"AttributeName": "GSI1SK", "KeyType": "RANGE"}],
     "Projection": {"ProjectionType": "ALL"}},
    {"IndexName": "ByUser", "KeySchema": [{"AttributeName": "user_id", "KeyType": "HASH"}],
     "Projection": {"ProjectionType": "KEYS_ONLY"}}],
  "LocalSecondaryIndexes": [
    {"IndexName": "ByLsk", "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "LSK", "KeyType": "RANGE"}],
     "Projection": {"ProjectionType": "KEYS_ONLY"}}],
  "BillingMode": "PAY_PER_REQUEST"
}'::jsonb) IS NOT NULL AS created;

-- 60 events on the hot day, 10 on each of two quiet days; 7 users; GSI1
-- only on every other event (sparse).
SELECT st_put_all(jsonb_build_object(
         'PK', 'EVENTS#' || d, 'SK', 'TS#' || lpad(i::text, 4, '0'),
         'user_id', i % 7, 'payload', repeat('x', 100)) ||
       CASE WHEN i % 2 = 0 THEN jsonb_build_object('GSI1PK', 'TYPE#click', 'GSI1SK', d || '#' || i) ELSE '{}' END,
       'Studio')
  FROM (SELECT '2026-07-06' AS d, i FROM generate_series(1, 60) AS i
        UNION ALL SELECT '2026-07-05', i FROM generate_series(1, 10) AS i
        UNION ALL SELECT '2026-07-04', i FROM generate_series(1, 10) AS i) AS e;

-- Sizes by DynamoDB's rules: the hot partition's 60 items, each
-- PK (2+17) + SK (2+7) + user_id (7+1 or 2) + payload (7+100) [+ GSI keys].
SELECT st_item_size(st_get('EVENTS#2026-07-06', 'TS#0001', 'Studio')) AS one_item;
SELECT * FROM st_partitions('Studio');
SELECT sum(st_item_size(i)) AS hot_bytes_by_hand
  FROM st_query('EVENTS#2026-07-06', "table" => 'Studio') AS i;
-- KEYS_ONLY: an entry is the table's keys and the index key only.
SELECT index_name, partition_key, items, bytes FROM st_partitions('Studio', 2) WHERE index_name = 'ByUser';
SELECT index_name, partitions, items, bytes, largest_partition, largest_bytes,
       round(largest_share::numeric, 4) AS largest_share, round(max_over_mean::numeric, 4) AS max_over_mean,
       round(gini::numeric, 4) AS gini, sampled
  FROM st_partition_skew('Studio');

-- Past sample_items the table is sampled, and the counts scaled up: the
-- rows say so.  (The estimate comes from the statistics: ANALYZE first.)
ANALYZE stdesign_data."Studio";
SELECT bool_and(sampled) AS sampled, sum(items) BETWEEN 20 AND 200 AS items_plausible
  FROM st_partitions('Studio', 100, 20) WHERE index_name IS NULL;
SELECT sampled FROM st_partition_skew('Studio', 20) WHERE index_name IS NULL;
SELECT bool_or(sampled) AS sampled FROM st_partitions('Studio', 100, 1000);

-- Partition keys of type N and B show as text: the number, base64.
SELECT st_create_table('StudioBin', 'K', NULL, 'B') IS NOT NULL AS created;
SELECT st_put('{"K": {"B": "AAEC"}, "v": {"S": "x"}}', 'StudioBin', typed => true) IS NULL AS put;
SELECT partition_key, items, bytes FROM st_partitions('StudioBin');
SELECT st_create_table('StudioNum', 'K', NULL, 'N') IS NOT NULL AS created;
SELECT st_put('{"K": 12.50}', 'StudioNum') IS NULL AS put;
SELECT partition_key, items, bytes FROM st_partitions('StudioNum');
-- An empty table: no partitions, a skew row with nothing in it.
SELECT st_create_table('StudioEmpty') IS NOT NULL AS created;
SELECT * FROM st_partitions('StudioEmpty');
SELECT * FROM st_partition_skew('StudioEmpty');

-- Bad inputs.
SELECT * FROM st_partitions('NoSuchTable');
SELECT * FROM st_partitions('Studio', -1);
SELECT * FROM st_partitions('Studio', 10, 0);
SELECT * FROM st_partition_skew('Studio', -5);
SELECT * FROM st_hot_partitions('Studio', -1);
SELECT * FROM st_partition_traffic('NoSuchTable');

-- Without shared_preload_libraries the counters are off, and say so.
SELECT * FROM st_partition_traffic('Studio');
SELECT * FROM st_hot_partitions('Studio');
SELECT st_partition_traffic_reset();
SHOW stdesign.track_traffic;
-- (the size of the shared table exists only when there is one)
SHOW stdesign.traffic_max_partitions;
-- Resetting is not for everyone.
CREATE ROLE regress_studio_user;
SET ROLE regress_studio_user;
SELECT st_partition_traffic_reset();
SET stdesign.track_traffic = off;
RESET ROLE;
DROP ROLE regress_studio_user;

-- CreateTable JSON of a table, and a table created from it is the same table.
SELECT jsonb_pretty(st_table_create_json('Studio'));
SELECT st_create_table(jsonb_set(st_table_create_json('Studio'), '{TableName}', '"StudioCopy"')) IS NOT NULL AS created;
SELECT (st_describe_table('Studio') - '{TableName,TableId,TableArn,CreationDateTime,ItemCount,TableSizeBytes,BillingModeSummary,GlobalSecondaryIndexes,LocalSecondaryIndexes}'::text[])
     = (st_describe_table('StudioCopy') - '{TableName,TableId,TableArn,CreationDateTime,ItemCount,TableSizeBytes,BillingModeSummary,GlobalSecondaryIndexes,LocalSecondaryIndexes}'::text[]) AS same_table,
       st_table_create_json('StudioCopy') - 'TableName' = st_table_create_json('Studio') - 'TableName' AS same_definition;

-- The seeds' CloudFormation table (two GSIs, PAY_PER_REQUEST), provisioned
-- capacity kept, and the template of an existing table.
SELECT st_create_table('{"TableName": "StudioProvisioned",
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "G", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}],
  "GlobalSecondaryIndexes": [{"IndexName": "GIdx", "KeySchema": [{"AttributeName": "G", "KeyType": "HASH"}],
    "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["a", "b"]},
    "ProvisionedThroughput": {"ReadCapacityUnits": 3, "WriteCapacityUnits": 4}}],
  "ProvisionedThroughput": {"ReadCapacityUnits": 5, "WriteCapacityUnits": 6}}'::jsonb) IS NOT NULL AS created;
SELECT jsonb_pretty(st_table_create_json('StudioProvisioned'));
SELECT jsonb_pretty(st_table_cloudformation('StudioProvisioned'));
SELECT jsonb_pretty(st_table_cloudformation('Studio', 'SingleTable') #> '{Resources}') IS NOT NULL AS has_resources,
       st_table_cloudformation('Studio', 'SingleTable') #>> '{Resources,SingleTable,Type}' AS type;
-- Its Properties are accepted by st_create_table, as the CloudFormation seed's are.
SELECT st_create_table(jsonb_set(st_table_cloudformation('StudioProvisioned') #> '{Resources,StudioProvisionedTable,Properties}',
                                 '{TableName}', '"StudioFromTemplate"')) ->> 'TableStatus' AS status;
SELECT st_table_create_json('NoSuchTable');
SELECT st_table_create_json(NULL) IS NULL AS null_in_null_out;

-- Later files list every table: leave none behind.
SELECT count(st_drop_table(t)) AS dropped FROM unnest(ARRAY['Studio', 'StudioBin', 'StudioCopy', 'StudioEmpty',
  'StudioFromTemplate', 'StudioNum', 'StudioProvisioned']) AS t;
