-- TableDescription's TableId (a UUID kept for the table's life), DeleteTable's
-- description as DynamoDB answers it, and ExclusiveStartKeys that do not fit
-- the request.

SELECT st_api('CreateTable', '{"TableName": "Described", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "SK", "AttributeType": "S"},
                           {"AttributeName": "G", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
  "GlobalSecondaryIndexes": [{"IndexName": "ByG", "KeySchema": [{"AttributeName": "G", "KeyType": "HASH"}],
                              "Projection": {"ProjectionType": "ALL"}}]}')
  #>> '{TableDescription,TableId}' AS table_id \gset
SELECT :'table_id' ~ '^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$' AS is_uuid;
SELECT st_api('DescribeTable', '{"TableName": "Described"}') #>> '{Table,TableId}' = :'table_id' AS same_when_described,
       st_describe_table('Described') ->> 'TableId' = :'table_id' AS same_in_sql;
SELECT st_api('UpdateTable', '{"TableName": "Described", "BillingMode": "PROVISIONED",
  "ProvisionedThroughput": {"ReadCapacityUnits": 5, "WriteCapacityUnits": 2},
  "GlobalSecondaryIndexUpdates": [{"Update": {"IndexName": "ByG",
    "ProvisionedThroughput": {"ReadCapacityUnits": 1, "WriteCapacityUnits": 1}}}]}')
  #>> '{TableDescription,TableId}' = :'table_id' AS same_after_update;
-- Another table has another id; a table created again under the same name too.
SELECT st_create_table('Other', sk => NULL) ->> 'TableId' <> :'table_id' AS other_differs;
SELECT st_put(jsonb_build_object('PK', 'p', 'SK', i::text, 'G', 'g'), "table" => 'Described') IS NULL AS put,
       st_put(jsonb_build_object('PK', 'h' || i), "table" => 'Other') IS NULL AS put_other
  FROM generate_series(1, 4) AS i;

-- DeleteTable: TableName, TableId, TableArn, TableStatus DELETING, billing,
-- throughput with NumberOfDecreasesToday, ItemCount, TableSizeBytes; no
-- KeySchema, AttributeDefinitions, CreationDateTime or indexes.
SELECT st_api('DeleteTable', '{"TableName": "Described"}') -> 'TableDescription' AS d \gset
SELECT (:'d'::jsonb ->> 'TableId') = :'table_id' AS same_when_deleted,
       jsonb_pretty(:'d'::jsonb - 'TableId') AS deleted;
SELECT st_api('CreateTable', '{"TableName": "Described", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}]}')
  #>> '{TableDescription,TableId}' <> :'table_id' AS new_table_new_id;
SELECT st_api('DeleteTable', '{"TableName": "Described"}') #> '{TableDescription,BillingModeSummary,BillingMode}' AS on_demand;

-- ExclusiveStartKey that does not fit: a sort key given to a hash-only
-- table, a key attribute missing, a key outside the queried partition or
-- the sort-key condition, a parallel Scan's key in another segment.
SELECT st_create_table('Paged') ->> 'TableName' AS created;
SELECT count(*) AS put FROM generate_series(1, 10) AS i,
       st_put(jsonb_build_object('PK', 'p', 'SK', lpad(i::text, 2, '0')), "table" => 'Paged');
SELECT st_api('Query', '{"TableName": "Other", "KeyConditionExpression": "PK = :p",
  "ExpressionAttributeValues": {":p": {"S": "h1"}},
  "ExclusiveStartKey": {"PK": {"S": "h1"}, "SK": {"S": "x"}}}');
SELECT st_api('Query', '{"TableName": "Paged", "KeyConditionExpression": "PK = :p",
  "ExpressionAttributeValues": {":p": {"S": "p"}}, "ExclusiveStartKey": {"PK": {"S": "p"}}}');
SELECT st_api('Query', '{"TableName": "Paged", "KeyConditionExpression": "PK = :p",
  "ExpressionAttributeValues": {":p": {"S": "p"}}, "ExclusiveStartKey": {"PK": {"S": "q"}, "SK": {"S": "01"}}}');
SELECT st_api('Query', '{"TableName": "Paged", "KeyConditionExpression": "PK = :p AND SK > :s",
  "ExpressionAttributeValues": {":p": {"S": "p"}, ":s": {"S": "05"}},
  "ExclusiveStartKey": {"PK": {"S": "p"}, "SK": {"S": "03"}}}');
SELECT st_api('Query', '{"TableName": "Paged", "KeyConditionExpression": "PK = :p AND begins_with(SK, :s)",
  "ExpressionAttributeValues": {":p": {"S": "p"}, ":s": {"S": "0"}},
  "ExclusiveStartKey": {"PK": {"S": "p"}, "SK": {"S": "10"}}}');
-- Keys that fit: the page goes on after them.
SELECT st_api('Query', '{"TableName": "Paged", "KeyConditionExpression": "PK = :p AND SK BETWEEN :a AND :b",
  "ExpressionAttributeValues": {":p": {"S": "p"}, ":a": {"S": "03"}, ":b": {"S": "06"}},
  "ExclusiveStartKey": {"PK": {"S": "p"}, "SK": {"S": "04"}}}') -> 'Items' AS after_04;
SELECT st_api('Scan', '{"TableName": "Other", "ExclusiveStartKey": {"PK": {"S": "h1"}, "SK": {"S": "x"}}}');
SELECT st_api('Scan', '{"TableName": "Other", "ExclusiveStartKey": {"PK": {"S": "h1"}}}') -> 'Count' AS after_h1;

-- Parallel scans: a key from segment s is accepted by segment s only.
SELECT s, count(*) AS items
  FROM generate_series(0, 1) AS s,
       jsonb_array_elements(st_api('Scan', jsonb_build_object('TableName', 'Other', 'Segment', s, 'TotalSegments', 2)) -> 'Items')
 GROUP BY s ORDER BY s;
SELECT s, k, st_api('Scan', jsonb_build_object('TableName', 'Other', 'Segment', s, 'TotalSegments', 2,
                                               'ExclusiveStartKey', jsonb_build_object('PK', k))) -> 'Count' AS count
  FROM (SELECT s, item -> 'PK' AS k
          FROM generate_series(0, 1) AS s,
               jsonb_array_elements(st_api('Scan', jsonb_build_object('TableName', 'Other', 'Segment', s,
                                                                      'TotalSegments', 2, 'Limit', 1)) -> 'Items') AS item) AS first
 ORDER BY s;
SELECT st_api('Scan', jsonb_build_object('TableName', 'Other', 'Segment', 1 - s, 'TotalSegments', 2,
                                         'ExclusiveStartKey', jsonb_build_object('PK', k)))
  FROM (SELECT s, item -> 'PK' AS k
          FROM generate_series(0, 0) AS s,
               jsonb_array_elements(st_api('Scan', jsonb_build_object('TableName', 'Other', 'Segment', s,
                                                                      'TotalSegments', 2, 'Limit', 1)) -> 'Items') AS item) AS first;

-- ItemCount and TableSizeBytes are approximate in DynamoDB ("updated
-- approximately every six hours"): a table over stdesign.describe_exact_pages
-- pages is counted from a sample of that many pages (the same each time),
-- scaled up, so DescribeTable does not read a large table whole.
SELECT st_create_table('{"TableName": "Sampled", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "G", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}],
  "GlobalSecondaryIndexes": [{"IndexName": "ByG", "KeySchema": [{"AttributeName": "G", "KeyType": "HASH"}],
    "Projection": {"ProjectionType": "KEYS_ONLY"}}]}'::jsonb) IS NOT NULL AS created;
SELECT count(*) FILTER (WHERE st_put(jsonb_build_object('PK', 'p' || i, 'pad', repeat('x', 300))
                    || CASE WHEN i % 2 = 0 THEN jsonb_build_object('G', 'g') ELSE '{}' END, 'Sampled') IS NULL) AS put
  FROM generate_series(1, 2000) i;
SELECT pg_relation_size('stdesign_data."Sampled"') / 8192 > 40 AS over_40_pages;
SELECT (d -> 'ItemCount')::int AS exact_count, (d #>> '{GlobalSecondaryIndexes,0,ItemCount}')::int AS exact_index_count
  FROM st_describe_table('Sampled') d;
SET stdesign.describe_exact_pages = 20;
SELECT (d -> 'ItemCount')::int BETWEEN 1400 AND 2600 AS estimated_count,
       (d -> 'ItemCount')::int <> 2000 OR (d -> 'TableSizeBytes')::bigint <> (SELECT sum(stdesign.item_size(item)) FROM stdesign_data."Sampled") AS not_a_full_pass,
       (d #>> '{GlobalSecondaryIndexes,0,ItemCount}')::int BETWEEN 600 AND 1400 AS estimated_index_count,
       (d -> 'TableSizeBytes')::bigint BETWEEN 0.7 * (SELECT sum(stdesign.item_size(item)) FROM stdesign_data."Sampled")
                                           AND 1.3 * (SELECT sum(stdesign.item_size(item)) FROM stdesign_data."Sampled") AS estimated_size,
       d -> 'ItemCount' = st_describe_table('Sampled') -> 'ItemCount' AS same_sample_each_time
  FROM st_describe_table('Sampled') d;
SET stdesign.describe_exact_pages = 0;
SELECT (st_describe_table('Sampled') -> 'ItemCount')::int AS exact_again;
RESET stdesign.describe_exact_pages;
SELECT st_drop_table('Sampled');

SELECT st_drop_table('Other'), st_drop_table('Paged');
