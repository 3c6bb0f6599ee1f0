-- st_api's legacy read parameters: KeyConditions on a table, a GSI and an
-- LSI; QueryFilter and ScanFilter with every ComparisonOperator and
-- ConditionalOperator; AttributesToGet on GetItem, Query and Scan, with
-- Select; mixing them with expressions; malformed parameters.

SELECT st_api('CreateTable', '{
  "TableName": "LegacyShop", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "SK", "AttributeType": "S"},
                           {"AttributeName": "GSI1PK", "AttributeType": "S"}, {"AttributeName": "GSI1SK", "AttributeType": "N"},
                           {"AttributeName": "orderDate", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
  "GlobalSecondaryIndexes": [
    {"IndexName": "GSI1", "KeySchema": [{"AttributeName": "GSI1PK", "KeyType": "HASH"}, {"AttributeName": "GSI1SK", "KeyType": "RANGE"}],
     "Projection": {"ProjectionType": "ALL"}},
    {"IndexName": "KeysOnly", "KeySchema": [{"AttributeName": "GSI1PK", "KeyType": "HASH"}],
     "Projection": {"ProjectionType": "KEYS_ONLY"}}],
  "LocalSecondaryIndexes": [
    {"IndexName": "ByDate", "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "orderDate", "KeyType": "RANGE"}],
     "Projection": {"ProjectionType": "KEYS_ONLY"}}]
}') #>> '{TableDescription,TableStatus}' AS status;
SELECT st_api('CreateTable', '{
  "TableName": "LegacyHash", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "N"}],
  "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}]
}') #>> '{TableDescription,TableStatus}' AS status;

SELECT count(st_api('PutItem', jsonb_build_object('TableName', 'LegacyShop', 'Item', item))) AS written FROM (VALUES
  ('{"PK": {"S": "CUST#1"}, "SK": {"S": "PROFILE"}, "name": {"S": "Ann"}, "city": {"S": "Oslo"}}'::jsonb),
  ('{"PK": {"S": "CUST#1"}, "SK": {"S": "ORDER#001"}, "status": {"S": "SHIPPED"}, "total": {"N": "25"},
     "tags": {"SS": ["gift", "sale"]}, "orderDate": {"S": "2026-01-05"}, "GSI1PK": {"S": "SHIPPED"}, "GSI1SK": {"N": "25"},
     "a.b": {"S": "dotted"}, "size": {"N": "3"}, "note": {"S": "fragile box"}}'),
  ('{"PK": {"S": "CUST#1"}, "SK": {"S": "ORDER#002"}, "status": {"S": "PENDING"}, "total": {"N": "140.5"},
     "tags": {"SS": ["sale"]}, "orderDate": {"S": "2026-02-10"}, "GSI1PK": {"S": "PENDING"}, "GSI1SK": {"N": "140.5"},
     "size": {"N": "1"}, "lines": {"L": [{"S": "pen"}, {"N": "2"}]}}'),
  ('{"PK": {"S": "CUST#1"}, "SK": {"S": "ORDER#003"}, "status": {"S": "SHIPPED"}, "total": {"N": "60"},
     "orderDate": {"S": "2026-03-01"}, "GSI1PK": {"S": "SHIPPED"}, "GSI1SK": {"N": "60"}, "note": {"NULL": true}, "size": {"N": "7"}}'),
  ('{"PK": {"S": "CUST#1"}, "SK": {"S": "ORDER#004"}, "status": {"S": "CANCELLED"}, "total": {"N": "9.99"},
     "orderDate": {"S": "2026-03-15"}, "bin": {"B": "AAEC"}}'),
  ('{"PK": {"S": "CUST#2"}, "SK": {"S": "ORDER#005"}, "status": {"S": "SHIPPED"}, "total": {"N": "300"},
     "orderDate": {"S": "2026-01-20"}, "GSI1PK": {"S": "SHIPPED"}, "GSI1SK": {"N": "300"}}')
) AS v(item);
SELECT count(st_api('PutItem', jsonb_build_object('TableName', 'LegacyHash', 'Item', item))) AS written FROM (VALUES
  ('{"id": {"N": "1"}, "v": {"S": "one"}}'::jsonb), ('{"id": {"N": "2"}, "v": {"S": "two"}}')) AS v(item);

-- A page in short: Count, ScannedCount and the sort keys (or an index key) in order.
CREATE FUNCTION page(op text, request jsonb, key text DEFAULT 'SK') RETURNS text LANGUAGE sql AS $$
  SELECT format('%s/%s: %s', r->>'Count', r->>'ScannedCount',
                coalesce((SELECT string_agg(coalesce(e->key->>'S', e->key->>'N'), ' ' ORDER BY n)
                            FROM jsonb_array_elements(r->'Items') WITH ORDINALITY AS x(e, n)), '-'))
    FROM (SELECT st_api(op, request) AS r) AS s
$$;

-- ---------- KeyConditions ----------

-- EQ on the partition key: the whole item collection, in sort-key order.
SELECT jsonb_pretty(st_api('Query', '{"TableName": "LegacyShop", "AttributesToGet": ["SK", "status"],
  "KeyConditions": {"PK": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "CUST#1"}]}}}'));
-- Each sort-key operator.
SELECT op, page('Query', jsonb_build_object('TableName', 'LegacyShop', 'KeyConditions', jsonb_build_object(
         'PK', '{"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "CUST#1"}]}'::jsonb,
         'SK', jsonb_build_object('ComparisonOperator', op, 'AttributeValueList', vals))))
  FROM (VALUES ('EQ', '[{"S": "ORDER#002"}]'::jsonb), ('LE', '[{"S": "ORDER#002"}]'), ('LT', '[{"S": "ORDER#002"}]'),
               ('GE', '[{"S": "ORDER#003"}]'), ('GT', '[{"S": "ORDER#003"}]'), ('BEGINS_WITH', '[{"S": "ORDER#"}]'),
               ('BEGINS_WITH', '[{"S": "PRO"}]'), ('BETWEEN', '[{"S": "ORDER#002"}, {"S": "ORDER#004"}]')) AS t(op, vals);
-- Backward, with Limit and the start key it gives back.
SELECT st_api('Query', '{"TableName": "LegacyShop", "ScanIndexForward": false, "Limit": 2, "AttributesToGet": ["SK"],
  "KeyConditions": {"PK": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "CUST#1"}]},
                    "SK": {"ComparisonOperator": "BEGINS_WITH", "AttributeValueList": [{"S": "ORDER#"}]}}}');
SELECT st_api('Query', '{"TableName": "LegacyShop", "ScanIndexForward": false, "Limit": 2, "AttributesToGet": ["SK"],
  "ExclusiveStartKey": {"PK": {"S": "CUST#1"}, "SK": {"S": "ORDER#003"}},
  "KeyConditions": {"PK": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "CUST#1"}]},
                    "SK": {"ComparisonOperator": "BEGINS_WITH", "AttributeValueList": [{"S": "ORDER#"}]}}}');
-- A GSI with a number sort key (numeric order), and an LSI.
SELECT page('Query', '{"TableName": "LegacyShop", "IndexName": "GSI1",
  "KeyConditions": {"GSI1PK": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "SHIPPED"}]}}}');
SELECT page('Query', '{"TableName": "LegacyShop", "IndexName": "GSI1",
  "KeyConditions": {"GSI1PK": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "SHIPPED"}]},
                    "GSI1SK": {"ComparisonOperator": "BETWEEN", "AttributeValueList": [{"N": "30"}, {"N": "300"}]}}}');
SELECT page('Query', '{"TableName": "LegacyShop", "IndexName": "GSI1", "ScanIndexForward": false,
  "KeyConditions": {"GSI1PK": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "SHIPPED"}]},
                    "GSI1SK": {"ComparisonOperator": "LT", "AttributeValueList": [{"N": "300"}]}}}');
SELECT st_api('Query', '{"TableName": "LegacyShop", "IndexName": "ByDate",
  "KeyConditions": {"PK": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "CUST#1"}]},
                    "orderDate": {"ComparisonOperator": "BETWEEN", "AttributeValueList": [{"S": "2026-02-01"}, {"S": "2026-03-31"}]}}}');
-- An LSI fetches what it does not project from the table.
SELECT page('Query', '{"TableName": "LegacyShop", "IndexName": "ByDate", "AttributesToGet": ["SK", "total"],
  "KeyConditions": {"PK": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "CUST#1"}]},
                    "orderDate": {"ComparisonOperator": "GE", "AttributeValueList": [{"S": "2026-03-01"}]}}}', 'total');
-- A hash-only table.
SELECT st_api('Query', '{"TableName": "LegacyHash",
  "KeyConditions": {"id": {"ComparisonOperator": "EQ", "AttributeValueList": [{"N": "2.0"}]}}}');
-- KeyConditions go with a FilterExpression and a ProjectionExpression (only
-- KeyConditionExpression is their counterpart).
SELECT st_api('Query', '{"TableName": "LegacyShop",
  "KeyConditions": {"PK": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "CUST#1"}]}},
  "FilterExpression": "#t > :min", "ProjectionExpression": "SK, #t",
  "ExpressionAttributeNames": {"#t": "total"}, "ExpressionAttributeValues": {":min": {"N": "50"}}}');

-- Bad KeyConditions.
SELECT st_api('Query', '{"TableName": "LegacyShop"}');
SELECT st_api('Query', '{"TableName": "LegacyShop", "KeyConditions": {}}');
SELECT st_api('Query', '{"TableName": "LegacyShop", "KeyConditions": {
  "PK": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "CUST#1"}]}, "SK": {"ComparisonOperator": "NOT_NULL"},
  "x": {"ComparisonOperator": "NULL"}}}');
SELECT st_api('Query', '{"TableName": "LegacyShop", "KeyConditions": {
  "PK": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "CUST#1"}]},
  "SK": {"ComparisonOperator": "NE", "AttributeValueList": [{"S": "PROFILE"}]}}}');
SELECT st_api('Query', '{"TableName": "LegacyShop", "KeyConditions": {
  "PK": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "CUST#1"}]},
  "SK": {"ComparisonOperator": "CONTAINS", "AttributeValueList": [{"S": "ORDER"}]}}}');
SELECT st_api('Query', '{"TableName": "LegacyShop", "KeyConditions": {
  "PK": {"ComparisonOperator": "BEGINS_WITH", "AttributeValueList": [{"S": "CUST"}]}}}');
SELECT st_api('Query', '{"TableName": "LegacyShop", "KeyConditions": {
  "SK": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "PROFILE"}]}}}');
SELECT st_api('Query', '{"TableName": "LegacyShop", "KeyConditions": {
  "PK": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "CUST#1"}]},
  "status": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "SHIPPED"}]}}}');
SELECT st_api('Query', '{"TableName": "LegacyShop", "IndexName": "GSI1", "KeyConditions": {
  "PK": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "CUST#1"}]}}}');
SELECT st_api('Query', '{"TableName": "LegacyHash", "KeyConditions": {
  "id": {"ComparisonOperator": "EQ", "AttributeValueList": [{"N": "1"}]},
  "v": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "one"}]}}}');
SELECT st_api('Query', '{"TableName": "LegacyHash", "KeyConditions": {
  "id": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "1"}]}}}');
SELECT st_api('Query', '{"TableName": "LegacyShop", "KeyConditions": {
  "PK": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "CUST#1"}, {"S": "CUST#2"}]}}}');
SELECT st_api('Query', '{"TableName": "LegacyShop", "KeyConditions": {
  "PK": {"ComparisonOperator": "EQUALS", "AttributeValueList": [{"S": "CUST#1"}]}}}');
SELECT st_api('Query', '{"TableName": "LegacyShop", "KeyConditions": {
  "PK": {"AttributeValueList": [{"S": "CUST#1"}]}}}');
SELECT st_api('Query', '{"TableName": "LegacyShop", "KeyConditions": {
  "PK": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "CUST#1"}]},
  "SK": {"ComparisonOperator": "BETWEEN", "AttributeValueList": [{"S": "ORDER#9"}, {"S": "ORDER#1"}]}}}');
SELECT st_api('Query', '{"TableName": "LegacyShop", "KeyConditions": {
  "PK": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "CUST#1"}]},
  "SK": {"ComparisonOperator": "BETWEEN", "AttributeValueList": [{"S": "ORDER#1"}, {"N": "2"}]}}}');
SELECT st_api('Query', '{"TableName": "LegacyShop", "KeyConditions": {
  "PK": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": 1}]}}}');
SELECT st_api('Query', '{"TableName": "LegacyShop", "KeyConditions": {"PK": "CUST#1"}}');
-- KeyConditions and KeyConditionExpression are one or the other.
SELECT st_api('Query', '{"TableName": "LegacyShop", "KeyConditionExpression": "PK = :p",
  "ExpressionAttributeValues": {":p": {"S": "CUST#1"}},
  "KeyConditions": {"PK": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "CUST#1"}]}}}');

-- ---------- QueryFilter ----------

-- Every operator, on CUST#1's five items (ScannedCount stays 5: the filter
-- runs after the read).
SELECT attr, op, vals, page('Query', jsonb_build_object('TableName', 'LegacyShop',
         'KeyConditions', '{"PK": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "CUST#1"}]}}'::jsonb,
         'QueryFilter', jsonb_build_object(attr, jsonb_build_object('ComparisonOperator', op) ||
                                                  CASE WHEN vals IS NULL THEN '{}' ELSE jsonb_build_object('AttributeValueList', vals) END)))
  FROM (VALUES
    ('status', 'EQ', '[{"S": "SHIPPED"}]'::jsonb),
    ('status', 'NE', '[{"S": "SHIPPED"}]'),
    ('total', 'LE', '[{"N": "60"}]'),
    ('total', 'LT', '[{"N": "60"}]'),
    ('total', 'GE', '[{"N": "60.0"}]'),
    ('total', 'GT', '[{"N": "60"}]'),
    ('note', 'NOT_NULL', NULL),
    ('note', 'NULL', NULL),
    ('tags', 'CONTAINS', '[{"S": "sale"}]'),
    ('note', 'CONTAINS', '[{"S": "box"}]'),
    ('lines', 'CONTAINS', '[{"N": "2"}]'),
    ('bin', 'CONTAINS', '[{"B": "AQ=="}]'),
    ('tags', 'NOT_CONTAINS', '[{"S": "gift"}]'),
    ('status', 'BEGINS_WITH', '[{"S": "SHIP"}]'),
    ('status', 'IN', '[{"S": "PENDING"}, {"S": "CANCELLED"}]'),
    ('total', 'BETWEEN', '[{"N": "10"}, {"N": "100"}]'),
    ('a.b', 'EQ', '[{"S": "dotted"}]'),
    ('size', 'GT', '[{"N": "2"}]')
  ) AS t(attr, op, vals);
-- Several conditions: AND by default, OR with ConditionalOperator.
SELECT page('Query', '{"TableName": "LegacyShop",
  "KeyConditions": {"PK": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "CUST#1"}]}},
  "QueryFilter": {"status": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "SHIPPED"}]},
                  "total": {"ComparisonOperator": "GT", "AttributeValueList": [{"N": "50"}]}}}');
SELECT page('Query', '{"TableName": "LegacyShop", "ConditionalOperator": "AND",
  "KeyConditions": {"PK": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "CUST#1"}]}},
  "QueryFilter": {"status": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "SHIPPED"}]},
                  "total": {"ComparisonOperator": "GT", "AttributeValueList": [{"N": "50"}]}}}');
SELECT page('Query', '{"TableName": "LegacyShop", "ConditionalOperator": "OR",
  "KeyConditions": {"PK": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "CUST#1"}]}},
  "QueryFilter": {"status": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "SHIPPED"}]},
                  "total": {"ComparisonOperator": "GT", "AttributeValueList": [{"N": "50"}]}}}');
-- Limit counts items read, before the filter.
SELECT st_api('Query', '{"TableName": "LegacyShop", "Limit": 2, "AttributesToGet": ["SK"],
  "KeyConditions": {"PK": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "CUST#1"}]}},
  "QueryFilter": {"status": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "SHIPPED"}]}}}');
-- On a GSI, the filter may use the table's keys (only the queried keys are refused).
SELECT page('Query', '{"TableName": "LegacyShop", "IndexName": "GSI1",
  "KeyConditions": {"GSI1PK": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "SHIPPED"}]}},
  "QueryFilter": {"PK": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "CUST#2"}]}}}');

-- Bad QueryFilters.
SELECT st_api('Query', '{"TableName": "LegacyShop",
  "KeyConditions": {"PK": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "CUST#1"}]}},
  "QueryFilter": {"SK": {"ComparisonOperator": "BEGINS_WITH", "AttributeValueList": [{"S": "ORDER#"}]}}}');
SELECT st_api('Query', '{"TableName": "LegacyShop", "IndexName": "GSI1",
  "KeyConditions": {"GSI1PK": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "SHIPPED"}]}},
  "QueryFilter": {"GSI1SK": {"ComparisonOperator": "GT", "AttributeValueList": [{"N": "1"}]}}}');
SELECT st_api('Query', '{"TableName": "LegacyShop",
  "KeyConditions": {"PK": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "CUST#1"}]}},
  "QueryFilter": {"total": {"ComparisonOperator": "GT"}}}');
SELECT st_api('Query', '{"TableName": "LegacyShop",
  "KeyConditions": {"PK": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "CUST#1"}]}},
  "QueryFilter": {"note": {"ComparisonOperator": "NULL", "AttributeValueList": [{"S": "x"}]}}}');
SELECT st_api('Query', '{"TableName": "LegacyShop",
  "KeyConditions": {"PK": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "CUST#1"}]}},
  "QueryFilter": {"tags": {"ComparisonOperator": "CONTAINS", "AttributeValueList": [{"SS": ["sale"]}]}}}');
SELECT st_api('Query', '{"TableName": "LegacyShop",
  "KeyConditions": {"PK": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "CUST#1"}]}},
  "QueryFilter": {"total": {"ComparisonOperator": "IN", "AttributeValueList": [{"N": "1"}, {"S": "1"}]}}}');
SELECT st_api('Query', '{"TableName": "LegacyShop",
  "KeyConditions": {"PK": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "CUST#1"}]}},
  "QueryFilter": {"total": {"ComparisonOperator": "BETWEEN", "AttributeValueList": [{"N": "100"}, {"N": "10"}]}}}');
SELECT st_api('Query', '{"TableName": "LegacyShop",
  "KeyConditions": {"PK": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "CUST#1"}]}},
  "QueryFilter": {"total": {"ComparisonOperator": "between", "AttributeValueList": [{"N": "1"}, {"N": "10"}]}}}');
SELECT st_api('Query', '{"TableName": "LegacyShop",
  "KeyConditions": {"PK": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "CUST#1"}]}},
  "QueryFilter": {"total": {"ComparisonOperator": "GT", "AttributeValueList": [{"N": "ten"}]}}}');
SELECT st_api('Query', '{"TableName": "LegacyShop", "ConditionalOperator": "XOR",
  "KeyConditions": {"PK": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "CUST#1"}]}},
  "QueryFilter": {"total": {"ComparisonOperator": "GT", "AttributeValueList": [{"N": "1"}]}}}');
SELECT st_api('Query', '{"TableName": "LegacyShop", "ConditionalOperator": "OR",
  "KeyConditions": {"PK": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "CUST#1"}]}}}');
-- Mixed with expressions.
SELECT st_api('Query', '{"TableName": "LegacyShop", "FilterExpression": "total > :t",
  "ExpressionAttributeValues": {":t": {"N": "1"}},
  "KeyConditions": {"PK": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "CUST#1"}]}},
  "QueryFilter": {"total": {"ComparisonOperator": "GT", "AttributeValueList": [{"N": "1"}]}}}');
SELECT st_api('Query', '{"TableName": "LegacyShop", "KeyConditionExpression": "PK = :p",
  "ExpressionAttributeValues": {":p": {"S": "CUST#1"}}, "ConditionalOperator": "OR", "AttributesToGet": ["SK"],
  "QueryFilter": {"total": {"ComparisonOperator": "GT", "AttributeValueList": [{"N": "1"}]}}}');
-- Legacy parameters are not expressions: ExpressionAttributeValues need one.
SELECT st_api('Query', '{"TableName": "LegacyShop", "ExpressionAttributeValues": {":t": {"N": "1"}},
  "KeyConditions": {"PK": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "CUST#1"}]}}}');

-- ---------- ScanFilter ----------

SELECT attr, op, vals, page('Scan', jsonb_build_object('TableName', 'LegacyShop',
         'ScanFilter', jsonb_build_object(attr, jsonb_build_object('ComparisonOperator', op) ||
                                                CASE WHEN vals IS NULL THEN '{}' ELSE jsonb_build_object('AttributeValueList', vals) END)))
  FROM (VALUES
    ('status', 'EQ', '[{"S": "SHIPPED"}]'::jsonb),
    ('status', 'NE', '[{"S": "SHIPPED"}]'),
    ('total', 'LE', '[{"N": "25"}]'),
    ('total', 'LT', '[{"N": "25"}]'),
    ('total', 'GE', '[{"N": "140.5"}]'),
    ('total', 'GT', '[{"N": "140.5"}]'),
    ('city', 'NOT_NULL', NULL),
    ('status', 'NULL', NULL),
    ('tags', 'CONTAINS', '[{"S": "gift"}]'),
    ('tags', 'NOT_CONTAINS', '[{"S": "gift"}]'),
    ('SK', 'BEGINS_WITH', '[{"S": "PRO"}]'),
    ('PK', 'IN', '[{"S": "CUST#2"}, {"S": "CUST#9"}]'),
    ('orderDate', 'BETWEEN', '[{"S": "2026-01-01"}, {"S": "2026-01-31"}]')
  ) AS t(attr, op, vals);
SELECT page('Scan', '{"TableName": "LegacyShop", "ConditionalOperator": "OR",
  "ScanFilter": {"city": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "Oslo"}]},
                 "total": {"ComparisonOperator": "GE", "AttributeValueList": [{"N": "300"}]}}}');
-- A Scan of a GSI, with a filter and AttributesToGet; and of a hash table.
SELECT st_api('Scan', '{"TableName": "LegacyShop", "IndexName": "GSI1", "AttributesToGet": ["SK", "GSI1SK"],
  "ScanFilter": {"GSI1SK": {"ComparisonOperator": "LT", "AttributeValueList": [{"N": "100"}]}}}') - 'Items' AS counts;
SELECT st_api('Scan', '{"TableName": "LegacyHash", "Select": "COUNT",
  "ScanFilter": {"v": {"ComparisonOperator": "BEGINS_WITH", "AttributeValueList": [{"S": "t"}]}}}');
-- Bad ScanFilters.
SELECT st_api('Scan', '{"TableName": "LegacyShop",
  "ScanFilter": {"total": {"ComparisonOperator": "LT", "AttributeValueList": [{"N": "1"}, {"N": "2"}]}}}');
SELECT st_api('Scan', '{"TableName": "LegacyShop",
  "ScanFilter": {"total": {"ComparisonOperator": "BEGINS_WITH", "AttributeValueList": [{"N": "1"}]}}}');
SELECT st_api('Scan', '{"TableName": "LegacyShop",
  "ScanFilter": {"total": {"ComparisonOperator": "GT", "AttributeValueList": [{"S": "1", "N": "1"}]}}}');
SELECT st_api('Scan', '{"TableName": "LegacyShop",
  "ScanFilter": {"total": {"ComparisonOperator": "GT", "AttributeValueList": {"N": "1"}}}}');
SELECT st_api('Scan', '{"TableName": "LegacyShop", "ScanFilter": {"total": {"ComparisonOperator": 5}}}');
SELECT st_api('Scan', '{"TableName": "LegacyShop", "FilterExpression": "total > :t",
  "ExpressionAttributeValues": {":t": {"N": "1"}},
  "ScanFilter": {"total": {"ComparisonOperator": "GT", "AttributeValueList": [{"N": "1"}]}}}');
SELECT st_api('Scan', '{"TableName": "LegacyShop", "ProjectionExpression": "SK", "ConditionalOperator": "AND"}');

-- ---------- AttributesToGet and Select ----------

-- GetItem: names are whole attributes (a dot is part of the name); missing ones are left out.
SELECT st_api('GetItem', '{"TableName": "LegacyShop", "Key": {"PK": {"S": "CUST#1"}, "SK": {"S": "ORDER#001"}},
  "AttributesToGet": ["status", "a.b", "size", "nothere"]}');
SELECT st_api('GetItem', '{"TableName": "LegacyShop", "Key": {"PK": {"S": "CUST#1"}, "SK": {"S": "ORDER#001"}},
  "AttributesToGet": ["nothere"]}');
SELECT st_api('GetItem', '{"TableName": "LegacyShop", "Key": {"PK": {"S": "CUST#1"}, "SK": {"S": "NONE"}},
  "AttributesToGet": ["status"]}');
SELECT st_api('GetItem', '{"TableName": "LegacyShop", "Key": {"PK": {"S": "CUST#1"}, "SK": {"S": "ORDER#001"}},
  "AttributesToGet": ["status"], "ProjectionExpression": "total"}');
SELECT st_api('GetItem', '{"TableName": "LegacyShop", "Key": {"PK": {"S": "CUST#1"}, "SK": {"S": "ORDER#001"}},
  "AttributesToGet": ["status", "total", "status"]}');
SELECT st_api('GetItem', '{"TableName": "LegacyShop", "Key": {"PK": {"S": "CUST#1"}, "SK": {"S": "ORDER#001"}},
  "AttributesToGet": []}');
SELECT st_api('GetItem', '{"TableName": "LegacyShop", "Key": {"PK": {"S": "CUST#1"}, "SK": {"S": "ORDER#001"}},
  "AttributesToGet": ["status", 7]}');
SELECT st_api('GetItem', '{"TableName": "LegacyShop", "Key": {"PK": {"S": "CUST#1"}, "SK": {"S": "ORDER#001"}},
  "AttributesToGet": ["status"], "ExpressionAttributeNames": {"#s": "status"}}');
-- Query and Select.
SELECT st_api('Query', '{"TableName": "LegacyShop", "Select": "SPECIFIC_ATTRIBUTES", "AttributesToGet": ["total"],
  "KeyConditions": {"PK": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "CUST#2"}]}}}');
SELECT st_api('Query', '{"TableName": "LegacyShop", "Select": "COUNT", "AttributesToGet": ["total"],
  "KeyConditions": {"PK": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "CUST#2"}]}}}');
SELECT st_api('Query', '{"TableName": "LegacyShop", "Select": "ALL_ATTRIBUTES", "AttributesToGet": ["total"],
  "KeyConditions": {"PK": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "CUST#2"}]}}}');
SELECT st_api('Query', '{"TableName": "LegacyShop", "Select": "SPECIFIC_ATTRIBUTES",
  "KeyConditions": {"PK": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "CUST#2"}]}}}');
SELECT st_api('Query', '{"TableName": "LegacyShop", "Select": "COUNT",
  "KeyConditions": {"PK": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "CUST#1"}]}}}');
-- A keys-only GSI holds only the keys.
SELECT st_api('Query', '{"TableName": "LegacyShop", "IndexName": "KeysOnly", "AttributesToGet": ["PK", "SK"],
  "KeyConditions": {"GSI1PK": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "PENDING"}]}}}');
SELECT st_api('Query', '{"TableName": "LegacyShop", "IndexName": "KeysOnly", "AttributesToGet": ["total"],
  "KeyConditions": {"GSI1PK": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "PENDING"}]}}}');
-- Scan with AttributesToGet, and mixed with a ProjectionExpression.
SELECT page('Scan', '{"TableName": "LegacyHash", "AttributesToGet": ["v"]}', 'v');
SELECT st_api('Scan', '{"TableName": "LegacyHash", "AttributesToGet": ["v"], "ProjectionExpression": "id"}');
SELECT st_api('Scan', '{"TableName": "LegacyHash", "Select": "COUNT", "AttributesToGet": ["v"]}');

DROP FUNCTION page(text, jsonb, text);
SELECT st_drop_table('LegacyShop');
SELECT st_drop_table('LegacyHash');
