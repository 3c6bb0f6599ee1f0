-- Secondary indexes as DynamoDB defines, fills and pages them: CreateTable
-- and UpdateTable validation with DynamoDB's messages, index key limits on
-- writes, the backfill of a GSI added to a table with items, and paging an
-- index whose key shares attributes with the table's.

-- An attribute defined twice; two indexes can only give one attribute two
-- types that way, so that is the message for them too.
SELECT st_api('CreateTable', '{"TableName": "FidIx", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "PK", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}]}');
SELECT st_api('CreateTable', '{"TableName": "FidIx", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"},
    {"AttributeName": "xyz", "AttributeType": "S"}, {"AttributeName": "xyz", "AttributeType": "N"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}],
  "GlobalSecondaryIndexes": [
    {"IndexName": "index1", "KeySchema": [{"AttributeName": "xyz", "KeyType": "HASH"}], "Projection": {"ProjectionType": "ALL"}},
    {"IndexName": "index2", "KeySchema": [{"AttributeName": "xyz", "KeyType": "HASH"}], "Projection": {"ProjectionType": "ALL"}}]}');
-- Projection without ProjectionType; INCLUDE without NonKeyAttributes; duplicates.
SELECT st_api('CreateTable', '{"TableName": "FidIx", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "g", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}],
  "GlobalSecondaryIndexes": [{"IndexName": "ByG", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}], "Projection": {}}]}');
SELECT st_api('CreateTable', '{"TableName": "FidIx", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "g", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}],
  "GlobalSecondaryIndexes": [{"IndexName": "ByG", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
    "Projection": {"ProjectionType": "INCLUDE"}}]}');
SELECT st_api('CreateTable', '{"TableName": "FidIx", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "g", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}],
  "GlobalSecondaryIndexes": [{"IndexName": "ByG", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
    "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["a", "b", "a"]}}]}');
-- Attribute names: key and projected names 1 to 255 characters (checked
-- with the request's other constraints, before the request's own rules).
SELECT st_api('CreateTable', jsonb_build_object('TableName', 'FidIx', 'BillingMode', 'PAY_PER_REQUEST',
  'AttributeDefinitions', jsonb_build_array(jsonb_build_object('AttributeName', repeat('k', 256), 'AttributeType', 'S')),
  'KeySchema', jsonb_build_array(jsonb_build_object('AttributeName', repeat('k', 256), 'KeyType', 'HASH'))));
SELECT st_api('CreateTable', '{"TableName": "FidIx", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [{"AttributeName": "", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "", "KeyType": "HASH"}]}');
SELECT st_api('CreateTable', jsonb_build_object('TableName', 'FidIx', 'BillingMode', 'PAY_PER_REQUEST',
  'AttributeDefinitions', '[{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "g", "AttributeType": "S"}]'::jsonb,
  'KeySchema', '[{"AttributeName": "PK", "KeyType": "HASH"}]'::jsonb,
  'GlobalSecondaryIndexes', jsonb_build_array(jsonb_build_object('IndexName', 'ByG',
    'KeySchema', '[{"AttributeName": "g", "KeyType": "HASH"}]'::jsonb,
    'Projection', jsonb_build_object('ProjectionType', 'INCLUDE', 'NonKeyAttributes', jsonb_build_array('', repeat('n', 256)))))));
-- 255 characters is fine
SELECT st_api('CreateTable', jsonb_build_object('TableName', 'FidIxLong', 'BillingMode', 'PAY_PER_REQUEST',
  'AttributeDefinitions', jsonb_build_array(jsonb_build_object('AttributeName', repeat('k', 255), 'AttributeType', 'S')),
  'KeySchema', jsonb_build_array(jsonb_build_object('AttributeName', repeat('k', 255), 'KeyType', 'HASH'))))
  #>> '{TableDescription,TableStatus}' AS status;
SELECT st_api('DeleteTable', '{"TableName": "FidIxLong"}') #>> '{TableDescription,TableStatus}' AS status;
-- other attribute names up to 65535 characters
SELECT st_api('PutItem', jsonb_build_object('TableName', 'FidIxMissing',
  'Item', jsonb_build_object('PK', '{"S": "a"}'::jsonb, repeat('n', 65536), '{"S": "v"}'::jsonb)));

-- The table of the rest: GSI ByPK shares the table's partition key, LSI ByL.
SELECT st_api('CreateTable', '{"TableName": "FidIx", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "SK", "AttributeType": "S"},
    {"AttributeName": "g", "AttributeType": "S"}, {"AttributeName": "l", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
  "GlobalSecondaryIndexes": [{"IndexName": "ByPK", "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"},
    {"AttributeName": "g", "KeyType": "RANGE"}], "Projection": {"ProjectionType": "KEYS_ONLY"}}],
  "LocalSecondaryIndexes": [{"IndexName": "ByL", "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"},
    {"AttributeName": "l", "KeyType": "RANGE"}], "Projection": {"ProjectionType": "ALL"}}]}')
  #>> '{TableDescription,TableStatus}' AS status;

-- Writes: index key values over DynamoDB's key length limits.
SELECT st_api('PutItem', jsonb_build_object('TableName', 'FidIx',
  'Item', jsonb_build_object('PK', '{"S": "p"}'::jsonb, 'SK', '{"S": "s"}'::jsonb, 'g', jsonb_build_object('S', repeat('g', 1025)))));
SELECT st_api('PutItem', jsonb_build_object('TableName', 'FidIx',
  'Item', jsonb_build_object('PK', '{"S": "p"}'::jsonb, 'SK', '{"S": "s"}'::jsonb, 'l', jsonb_build_object('S', repeat('l', 1025)))));
SELECT st_api('UpdateItem', jsonb_build_object('TableName', 'FidIx', 'Key', '{"PK": {"S": "p"}, "SK": {"S": "s"}}'::jsonb,
  'UpdateExpression', 'SET g = :g', 'ExpressionAttributeValues', jsonb_build_object(':g', jsonb_build_object('S', repeat('g', 1025)))));
-- at the limit is fine
SELECT st_api('PutItem', jsonb_build_object('TableName', 'FidIx',
  'Item', jsonb_build_object('PK', '{"S": "p"}'::jsonb, 'SK', '{"S": "s"}'::jsonb, 'g', jsonb_build_object('S', repeat('g', 1024)))));

-- Paging an index whose key shares the table's partition key:
-- LastEvaluatedKey holds PK once, and is accepted back.
SELECT st_api('PutItem', format('{"TableName": "FidIx", "Item": {"PK": {"S": "q"}, "SK": {"S": "s%s"}, "g": {"S": "g%s"}, "l": {"S": "l%s"}}}', i, 4 - i, i)::jsonb)
FROM generate_series(1, 3) i;
SELECT st_api('Query', '{"TableName": "FidIx", "IndexName": "ByPK", "Limit": 2,
  "KeyConditionExpression": "PK = :p", "ExpressionAttributeValues": {":p": {"S": "q"}}}');
SELECT st_api('Query', '{"TableName": "FidIx", "IndexName": "ByPK", "Limit": 2,
  "KeyConditionExpression": "PK = :p", "ExpressionAttributeValues": {":p": {"S": "q"}},
  "ExclusiveStartKey": {"PK": {"S": "q"}, "SK": {"S": "s2"}, "g": {"S": "g2"}}}');
SELECT st_api('Scan', '{"TableName": "FidIx", "IndexName": "ByPK", "Limit": 1,
  "ExclusiveStartKey": {"PK": {"S": "q"}, "SK": {"S": "s3"}, "g": {"S": "g1"}}}');
SELECT st_api('Query', '{"TableName": "FidIx", "IndexName": "ByL", "Limit": 1, "ProjectionExpression": "SK",
  "KeyConditionExpression": "PK = :p", "ExpressionAttributeValues": {":p": {"S": "q"}},
  "ExclusiveStartKey": {"PK": {"S": "q"}, "SK": {"S": "s1"}, "l": {"S": "l1"}}}');
-- a key with an attribute too many, or one missing, is still refused
SELECT st_api('Query', '{"TableName": "FidIx", "IndexName": "ByPK", "Limit": 2,
  "KeyConditionExpression": "PK = :p", "ExpressionAttributeValues": {":p": {"S": "q"}},
  "ExclusiveStartKey": {"PK": {"S": "q"}, "SK": {"S": "s2"}, "g": {"S": "g2"}, "x": {"S": "x"}}}');
SELECT st_api('Query', '{"TableName": "FidIx", "IndexName": "ByPK", "Limit": 2,
  "KeyConditionExpression": "PK = :p", "ExpressionAttributeValues": {":p": {"S": "q"}},
  "ExclusiveStartKey": {"PK": {"S": "q"}, "g": {"S": "g2"}}}');

-- UpdateTable: an empty GlobalSecondaryIndexUpdates element (before the table lookup)
SELECT st_api('UpdateTable', '{"TableName": "FidIx", "GlobalSecondaryIndexUpdates": [{}]}');
SELECT st_api('UpdateTable', '{"TableName": "FidIxMissing", "GlobalSecondaryIndexUpdates": [{}]}');
-- a new GSI may not give a key attribute another type than the table or an index gives it
SELECT st_api('UpdateTable', '{"TableName": "FidIx", "AttributeDefinitions": [{"AttributeName": "g", "AttributeType": "N"}],
  "GlobalSecondaryIndexUpdates": [{"Create": {"IndexName": "ByGNum", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
    "Projection": {"ProjectionType": "ALL"}}}]}');
SELECT st_api('UpdateTable', '{"TableName": "FidIx", "AttributeDefinitions": [{"AttributeName": "SK", "AttributeType": "B"}],
  "GlobalSecondaryIndexUpdates": [{"Create": {"IndexName": "BySK", "KeySchema": [{"AttributeName": "SK", "KeyType": "HASH"}],
    "Projection": {"ProjectionType": "ALL"}}}]}');
SELECT st_api('UpdateTable', '{"TableName": "FidIx", "AttributeDefinitions": [{"AttributeName": "g", "AttributeType": "S"}, {"AttributeName": "g", "AttributeType": "S"}],
  "GlobalSecondaryIndexUpdates": [{"Create": {"IndexName": "ByG", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
    "Projection": {"ProjectionType": "ALL"}}}]}');
SELECT st_api('UpdateTable', '{"TableName": "FidIx", "AttributeDefinitions": [{"AttributeName": "g", "AttributeType": "S"}],
  "GlobalSecondaryIndexUpdates": [{"Create": {"IndexName": "ByG", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
    "Projection": {}}}]}');

-- Backfill: a GSI added to a table with items leaves out the items whose
-- key attribute is missing, of another type, empty or too long.
SELECT st_api('CreateTable', '{"TableName": "FidFill", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}]}') #>> '{TableDescription,TableStatus}' AS status;
SELECT st_api('PutItem', jsonb_build_object('TableName', 'FidFill', 'Item', item))
FROM (VALUES ('{"PK": {"S": "good1"}, "x": {"S": "a"}, "n": {"N": "1"}}'::jsonb),
             ('{"PK": {"S": "good2"}, "x": {"S": "b"}, "n": {"N": "2"}}'),
             ('{"PK": {"S": "missing"}, "n": {"N": "3"}}'),
             ('{"PK": {"S": "number"}, "x": {"N": "7"}, "n": {"N": "4"}}'),
             ('{"PK": {"S": "empty"}, "x": {"S": ""}, "n": {"N": "5"}}'),
             ('{"PK": {"S": "list"}, "x": {"L": []}, "n": {"S": "text"}}')) v(item);
SELECT st_api('PutItem', jsonb_build_object('TableName', 'FidFill',
  'Item', jsonb_build_object('PK', '{"S": "long"}'::jsonb, 'x', jsonb_build_object('S', repeat('x', 2049)), 'n', '{"N": "6"}'::jsonb)));
SELECT st_api('UpdateTable', '{"TableName": "FidFill", "AttributeDefinitions": [{"AttributeName": "x", "AttributeType": "S"}],
  "GlobalSecondaryIndexUpdates": [{"Create": {"IndexName": "ByX", "KeySchema": [{"AttributeName": "x", "KeyType": "HASH"}],
    "Projection": {"ProjectionType": "ALL"}}}]}') #> '{TableDescription,GlobalSecondaryIndexes,0,ItemCount}' AS indexed;
SELECT jsonb_path_query(st_api('Scan', '{"TableName": "FidFill", "IndexName": "ByX"}'), '$.Items[*].PK.S') AS pk ORDER BY 1;
SELECT st_api('Query', '{"TableName": "FidFill", "IndexName": "ByX", "KeyConditionExpression": "x = :x",
  "ExpressionAttributeValues": {":x": {"S": "b"}}}') -> 'Items' AS items;
-- a sort key too: N on "n" leaves out the item whose n is a string
SELECT st_api('UpdateTable', '{"TableName": "FidFill", "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "n", "AttributeType": "N"}],
  "GlobalSecondaryIndexUpdates": [{"Create": {"IndexName": "ByPKN", "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"},
    {"AttributeName": "n", "KeyType": "RANGE"}], "Projection": {"ProjectionType": "KEYS_ONLY"}}}]}') IS NOT NULL AS added;
SELECT st_api('Scan', '{"TableName": "FidFill", "IndexName": "ByPKN", "Select": "COUNT"}') -> 'Count' AS count;
-- from now on the index's key attribute is checked on writes
SELECT st_api('PutItem', '{"TableName": "FidFill", "Item": {"PK": {"S": "later"}, "x": {"N": "1"}}}');
SELECT st_api('PutItem', '{"TableName": "FidFill", "Item": {"PK": {"S": "later"}, "x": {"S": ""}}}');
SELECT st_api('PutItem', jsonb_build_object('TableName', 'FidFill',
  'Item', jsonb_build_object('PK', '{"S": "later"}'::jsonb, 'x', jsonb_build_object('S', repeat('x', 2049)))));

-- the limits exactly: a partition key of 2048 bytes and a sort key of 1024 are indexed
SELECT st_api('CreateTable', '{"TableName": "FidLimits", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [{"AttributeName": "p", "AttributeType": "S"}, {"AttributeName": "c", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "p", "KeyType": "HASH"}, {"AttributeName": "c", "KeyType": "RANGE"}]}') IS NOT NULL AS created;
SELECT st_api('PutItem', jsonb_build_object('TableName', 'FidLimits', 'Item', jsonb_build_object(
  'p', jsonb_build_object('S', 'p' || n), 'c', '{"S": "c"}'::jsonb, 'x', jsonb_build_object('S', repeat('é', n / 2)))))
FROM unnest(ARRAY[1024, 1026, 2048, 2050]) n;
SELECT st_api('UpdateTable', '{"TableName": "FidLimits", "AttributeDefinitions": [{"AttributeName": "x", "AttributeType": "S"}],
  "GlobalSecondaryIndexUpdates": [{"Create": {"IndexName": "index1", "KeySchema": [{"AttributeName": "x", "KeyType": "HASH"}],
    "Projection": {"ProjectionType": "KEYS_ONLY"}}}]}') #> '{TableDescription,GlobalSecondaryIndexes,0,ItemCount}' AS index1;
SELECT st_api('UpdateTable', '{"TableName": "FidLimits", "AttributeDefinitions": [{"AttributeName": "x", "AttributeType": "S"}, {"AttributeName": "c", "AttributeType": "S"}],
  "GlobalSecondaryIndexUpdates": [{"Create": {"IndexName": "index2", "KeySchema": [{"AttributeName": "c", "KeyType": "HASH"},
    {"AttributeName": "x", "KeyType": "RANGE"}], "Projection": {"ProjectionType": "KEYS_ONLY"}}}]}') IS NOT NULL AS added;
SELECT jsonb_path_query(st_api('Scan', '{"TableName": "FidLimits", "IndexName": "index1"}'), '$.Items[*].p.S') AS index1 ORDER BY 1;
SELECT jsonb_path_query(st_api('Scan', '{"TableName": "FidLimits", "IndexName": "index2"}'), '$.Items[*].p.S') AS index2 ORDER BY 1;
SELECT st_api('DeleteTable', '{"TableName": "FidLimits"}') #>> '{TableDescription,TableStatus}' AS status;

SELECT st_api('DeleteTable', '{"TableName": "FidFill"}') #>> '{TableDescription,TableStatus}' AS status;
SELECT st_api('DeleteTable', '{"TableName": "FidIx"}') #>> '{TableDescription,TableStatus}' AS status;
