-- Differences found by comparing stdesign's HTTP answers with another
-- implementation of DynamoDB's API request by request
-- (test/http/diff_dynamodb_local.py), fixed where DynamoDB's documentation
-- or its observed messages say so.

SELECT st_api('CreateTable', '{"TableName": "FidDiff", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "SK", "AttributeType": "N"},
                           {"AttributeName": "L", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
  "LocalSecondaryIndexes": [
    {"IndexName": "LKeys", "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "L", "KeyType": "RANGE"}],
     "Projection": {"ProjectionType": "KEYS_ONLY"}},
    {"IndexName": "LInc", "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "L", "KeyType": "RANGE"}],
     "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["inc"]}},
    {"IndexName": "LAll", "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "L", "KeyType": "RANGE"}],
     "Projection": {"ProjectionType": "ALL"}}]}')
  #>> '{TableDescription,TableName}' AS created;

-- 1. A problem with one of ExpressionAttributeValues names its key.
SELECT st_api('PutItem', '{"TableName": "FidDiff", "Item": {"PK": {"S": "a"}, "SK": {"N": "1"}},
  "ConditionExpression": "attribute_not_exists(x) OR x = :x", "ExpressionAttributeValues": {":x": {"SS": []}}}');
SELECT st_api('PutItem', '{"TableName": "FidDiff", "Item": {"PK": {"S": "a"}, "SK": {"N": "1"}},
  "ConditionExpression": "x = :x", "ExpressionAttributeValues": {":x": {"NS": ["1", "1.0"]}}}');
SELECT st_api('PutItem', '{"TableName": "FidDiff", "Item": {"PK": {"S": "a"}, "SK": {"N": "1"}},
  "ConditionExpression": "x = :ok OR x = :bad", "ExpressionAttributeValues": {":ok": {"N": "1"}, ":bad": {"N": "one"}}}');
SELECT st_api('UpdateItem', '{"TableName": "FidDiff", "Key": {"PK": {"S": "a"}, "SK": {"N": "1"}},
  "UpdateExpression": "SET x = :x", "ExpressionAttributeValues": {":x": {"NULL": false}}}');
SELECT st_api('Query', '{"TableName": "FidDiff", "KeyConditionExpression": "PK = :p",
  "ExpressionAttributeValues": {":p": {}}}');
-- a value that is wrong JSON for its type stays a SerializationException
SELECT st_api('Query', '{"TableName": "FidDiff", "KeyConditionExpression": "PK = :p",
  "ExpressionAttributeValues": {":p": {"S": 5}}}');

-- 2. Values without any expression: the message names the operation's
-- expressions that could have used them.
SELECT st_api('PutItem', '{"TableName": "FidDiff", "Item": {"PK": {"S": "a"}, "SK": {"N": "1"}},
  "ExpressionAttributeValues": {":x": {"N": "1"}}}');
SELECT st_api('DeleteItem', '{"TableName": "FidDiff", "Key": {"PK": {"S": "a"}, "SK": {"N": "1"}},
  "ExpressionAttributeValues": {":x": {"N": "1"}}}');
SELECT st_api('UpdateItem', '{"TableName": "FidDiff", "Key": {"PK": {"S": "a"}, "SK": {"N": "1"}},
  "AttributeUpdates": {"x": {"Value": {"N": "1"}}}, "ExpressionAttributeValues": {":x": {"N": "1"}}}');
SELECT st_api('Query', '{"TableName": "FidDiff", "ExpressionAttributeValues": {":x": {"N": "1"}},
  "KeyConditions": {"PK": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "a"}]}}}');
SELECT st_api('Scan', '{"TableName": "FidDiff", "ExpressionAttributeValues": {":x": {"N": "1"}}}');
SELECT st_api('TransactWriteItems', '{"TransactItems": [{"Delete": {"TableName": "FidDiff",
  "Key": {"PK": {"S": "a"}, "SK": {"N": "1"}}, "ExpressionAttributeValues": {":x": {"N": "1"}}}}]}');
-- names without expressions keep their shorter message
SELECT st_api('PutItem', '{"TableName": "FidDiff", "Item": {"PK": {"S": "a"}, "SK": {"N": "1"}},
  "ExpressionAttributeNames": {"#x": "x"}}');

-- 3. "Attribute names must be at least one character long" (Developer
-- Guide, naming rules): an item with an empty attribute name is refused,
-- whichever way it is written; inside a map an empty key is a value.
SELECT st_api('PutItem', '{"TableName": "FidDiff", "Item": {"PK": {"S": "a"}, "SK": {"N": "1"}, "": {"S": "x"}}}');
SELECT st_api('UpdateItem', '{"TableName": "FidDiff", "Key": {"PK": {"S": "a"}, "SK": {"N": "1"}},
  "AttributeUpdates": {"": {"Action": "PUT", "Value": {"N": "1"}}}}');
SELECT st_api('BatchWriteItem', '{"RequestItems": {"FidDiff": [
  {"PutRequest": {"Item": {"PK": {"S": "a"}, "SK": {"N": "1"}, "": {"N": "1"}}}}]}}');
SELECT st_api('TransactWriteItems', '{"TransactItems": [{"Put": {"TableName": "FidDiff",
  "Item": {"PK": {"S": "a"}, "SK": {"N": "1"}, "": {"N": "1"}}}}]}');
SELECT st_api('GetItem', '{"TableName": "FidDiff", "Key": {"PK": {"S": "a"}, "SK": {"N": "1"}}}') AS nothing_written;
SELECT st_api('PutItem', '{"TableName": "FidDiff", "Item": {"PK": {"S": "a"}, "SK": {"N": "1"},
  "m": {"M": {"": {"S": "empty key"}}}}}') AS map_key_ok;

-- 4. A document path too deep: the message counts the whole path.
SELECT st_api('UpdateItem', jsonb_build_object('TableName', 'FidDiff',
  'Key', '{"PK": {"S": "a"}, "SK": {"N": "1"}}'::jsonb,
  'UpdateExpression', 'SET l' || repeat('[0]', 33) || ' = :v',
  'ExpressionAttributeValues', '{":v": {"N": "1"}}'::jsonb));
SELECT st_api('GetItem', jsonb_build_object('TableName', 'FidDiff',
  'Key', '{"PK": {"S": "a"}, "SK": {"N": "1"}}'::jsonb,
  'ProjectionExpression', 'm' || repeat('.m', 39)));
-- 32 levels are fine
SELECT st_api('GetItem', jsonb_build_object('TableName', 'FidDiff',
  'Key', '{"PK": {"S": "a"}, "SK": {"N": "1"}}'::jsonb,
  'ProjectionExpression', 'm' || repeat('.m', 31))) AS at_32_levels;

-- 5. A local secondary index that does not project what a Query or Scan
-- returns fetches each item from the table, which costs read capacity on
-- the table: each item rounded up to 4 KB on its own, halved for an
-- eventually consistent read ("ALL_ATTRIBUTES ... If you query a local
-- secondary index, then for each matching item in the index, DynamoDB
-- fetches the entire item from the parent table", API Reference, Query).
SELECT st_api('BatchWriteItem', jsonb_build_object('RequestItems', jsonb_build_object('FidDiff',
  (SELECT jsonb_agg(jsonb_build_object('PutRequest', jsonb_build_object('Item', jsonb_build_object(
     'PK', '{"S": "q"}'::jsonb, 'SK', jsonb_build_object('N', i::text), 'L', jsonb_build_object('S', 'l' || i),
     'inc', '{"S": "i"}'::jsonb, 'payload', jsonb_build_object('S', repeat('o', CASE WHEN i = 1 THEN 5000 ELSE 10 END))))))
   FROM generate_series(1, 4) i)))) AS loaded;
CREATE FUNCTION lsi_cc(body jsonb) RETURNS jsonb LANGUAGE sql AS $$
  SELECT st_api('Query', '{"TableName": "FidDiff", "KeyConditionExpression": "PK = :p",
    "ExpressionAttributeValues": {":p": {"S": "q"}}, "ReturnConsumedCapacity": "INDEXES"}'::jsonb || body)
    -> 'ConsumedCapacity'
$$;
-- the index's keys only: no fetch (4 small entries: one 4 KB unit, halved)
SELECT lsi_cc('{"IndexName": "LKeys"}') AS keys_projected;
-- every attribute: a fetch per item, the 5 KB item costing two units
SELECT lsi_cc('{"IndexName": "LKeys", "Select": "ALL_ATTRIBUTES"}') AS all_eventual;
SELECT lsi_cc('{"IndexName": "LKeys", "Select": "ALL_ATTRIBUTES", "ConsistentRead": true}') AS all_strong;
-- a projection inside the index reads the index alone; one outside fetches
SELECT lsi_cc('{"IndexName": "LInc", "ProjectionExpression": "inc, L"}') AS include_projected;
SELECT lsi_cc('{"IndexName": "LInc", "ProjectionExpression": "inc, payload"}') AS include_fetches;
SELECT lsi_cc('{"IndexName": "LInc", "ProjectionExpression": "#o", "ExpressionAttributeNames": {"#o": "payload"}}')
  AS include_fetches_by_name;
-- COUNT fetches nothing; an index projecting everything never fetches
SELECT lsi_cc('{"IndexName": "LKeys", "Select": "COUNT"}') AS count_only;
SELECT lsi_cc('{"IndexName": "LAll", "Select": "ALL_ATTRIBUTES"}') AS all_projected;
-- the items fetched are the items returned, whole
SELECT jsonb_array_length(st_api('Query', '{"TableName": "FidDiff", "IndexName": "LKeys",
  "KeyConditionExpression": "PK = :p", "ExpressionAttributeValues": {":p": {"S": "q"}},
  "Select": "ALL_ATTRIBUTES"}') -> 'Items') AS items,
  st_api('Query', '{"TableName": "FidDiff", "IndexName": "LKeys", "Limit": 1, "ScanIndexForward": false,
  "KeyConditionExpression": "PK = :p", "ExpressionAttributeValues": {":p": {"S": "q"}},
  "Select": "ALL_ATTRIBUTES"}') #>> '{Items,0,payload,S}' AS fetched_attribute;
-- a Scan of the index fetches the same way
SELECT st_api('Scan', '{"TableName": "FidDiff", "IndexName": "LKeys", "Select": "ALL_ATTRIBUTES",
  "ReturnConsumedCapacity": "INDEXES"}') -> 'ConsumedCapacity' AS scan_fetches;

-- 6. BatchExecuteStatement runs on BatchGetItem and BatchWriteItem: two
-- statements on one item refuse the whole batch, and nothing is written.
SELECT st_api('BatchExecuteStatement', '{"Statements": [
  {"Statement": "SELECT * FROM FidDiff WHERE PK = ''q'' AND SK = 1"},
  {"Statement": "SELECT * FROM FidDiff WHERE PK = ? AND SK = ?", "Parameters": [{"S": "q"}, {"N": "1.0"}]}]}');
SELECT st_api('BatchExecuteStatement', '{"Statements": [
  {"Statement": "UPDATE FidDiff SET inc = ''changed'' WHERE PK = ''q'' AND SK = 2"},
  {"Statement": "DELETE FROM FidDiff WHERE PK = ''q'' AND SK = 2"}]}');
SELECT st_api('BatchExecuteStatement', '{"Statements": [
  {"Statement": "INSERT INTO FidDiff VALUE {''PK'': ''q'', ''SK'': 9}"},
  {"Statement": "UPDATE FidDiff SET inc = ''x'' WHERE PK = ''q'' AND SK = 9"}]}');
SELECT st_api('GetItem', '{"TableName": "FidDiff", "Key": {"PK": {"S": "q"}, "SK": {"N": "2"}},
  "ProjectionExpression": "inc"}') AS unchanged,
  st_api('GetItem', '{"TableName": "FidDiff", "Key": {"PK": {"S": "q"}, "SK": {"N": "9"}}}') AS not_inserted;
-- other items, and statements that fail on their own, run as before
SELECT st_api('BatchExecuteStatement', '{"Statements": [
  {"Statement": "UPDATE FidDiff SET inc = ''changed'' WHERE PK = ''q'' AND SK = 2"},
  {"Statement": "UPDATE FidDiff SET inc = ''changed'' WHERE PK = ''q'' AND SK = 3"},
  {"Statement": "DELETE FROM FidMissing WHERE PK = ''q'' AND SK = 2"},
  {"Statement": "DELETE FROM FidMissing WHERE PK = ''q'' AND SK = 2"}]}');

-- 7. KeyConditionExpression's own checks, in DynamoDB's words (without
-- the "Invalid KeyConditionExpression:" prefix) and order.
CREATE FUNCTION kc(cond text) RETURNS jsonb LANGUAGE sql AS $$
  SELECT st_api('Query', jsonb_build_object('TableName', 'FidDiff', 'KeyConditionExpression', cond,
    'ExpressionAttributeValues', (SELECT jsonb_object_agg(k, v)
      FROM jsonb_each('{":p": {"S": "q"}, ":a": {"N": "1"}, ":b": {"N": "3"}}') AS e(k, v)
      WHERE strpos(cond, k) > 0))
    || CASE WHEN cond LIKE '%#k%' THEN '{"ExpressionAttributeNames": {"#k": "SK"}}'::jsonb ELSE '{}' END)
    - 'Items'
$$;
SELECT kc('PK = :p AND size(SK) = :a');
SELECT kc('PK = :p AND SK BETWEEN :a AND size(L)');
SELECT kc('PK = :p AND :a BETWEEN SK AND :b');
SELECT kc('PK = :p AND SK.x = :a');
SELECT kc('PK = :p AND :a = :b');
SELECT kc('PK = :p AND SK = L');
SELECT kc('PK = :p AND begins_with(SK, L)');
-- the same attribute on both sides: operands must be distinct (first)
SELECT kc('PK = :p AND SK = SK');
SELECT kc('PK = :p AND begins_with(SK, SK)');
-- BETWEEN's operands are not checked so: two attribute names
SELECT kc('PK = :p AND SK BETWEEN SK AND :b');
-- a key twice is found before too many terms, and through a name
SELECT kc('PK = :p AND SK = :a AND SK = :b');
SELECT kc('PK = :p AND #k > :a AND SK < :b');
SELECT kc('PK = :p AND SK > :a AND L = :b');
-- what was fine stays fine
SELECT kc(':p = PK AND :b > SK') AS value_on_the_left;
SELECT kc('PK = :p AND #k BETWEEN :a AND :b') AS between_by_name;
DROP FUNCTION kc(text);

-- 8. A document path into a key attribute of the table or of an index is
-- refused in every expression ("Key attributes must be scalars ...").
SELECT st_api('GetItem', '{"TableName": "FidDiff", "Key": {"PK": {"S": "q"}, "SK": {"N": "1"}},
  "ProjectionExpression": "#p.x", "ExpressionAttributeNames": {"#p": "PK"}}');
SELECT st_api('GetItem', '{"TableName": "FidDiff", "Key": {"PK": {"S": "q"}, "SK": {"N": "1"}},
  "ProjectionExpression": "inc, L[0]"}');
SELECT st_api('Query', '{"TableName": "FidDiff", "KeyConditionExpression": "PK = :p",
  "FilterExpression": "attribute_exists(L.x)", "ExpressionAttributeValues": {":p": {"S": "q"}}}');
SELECT st_api('Scan', '{"TableName": "FidDiff", "FilterExpression": "SK[0] = :v",
  "ExpressionAttributeValues": {":v": {"N": "1"}}}');
SELECT st_api('PutItem', '{"TableName": "FidDiff", "Item": {"PK": {"S": "q"}, "SK": {"N": "8"}},
  "ConditionExpression": "attribute_not_exists(PK.x)"}');
SELECT st_api('DeleteItem', '{"TableName": "FidDiff", "Key": {"PK": {"S": "q"}, "SK": {"N": "8"}},
  "ConditionExpression": "L[1] = :v", "ExpressionAttributeValues": {":v": {"N": "1"}}}');
SELECT st_api('UpdateItem', '{"TableName": "FidDiff", "Key": {"PK": {"S": "q"}, "SK": {"N": "1"}},
  "UpdateExpression": "SET L.x = :v", "ExpressionAttributeValues": {":v": {"N": "1"}}}');
SELECT st_api('UpdateItem', '{"TableName": "FidDiff", "Key": {"PK": {"S": "q"}, "SK": {"N": "1"}},
  "UpdateExpression": "SET y = L[0]"}');
SELECT st_api('BatchGetItem', '{"RequestItems": {"FidDiff": {"Keys": [{"PK": {"S": "q"}, "SK": {"N": "1"}}],
  "ProjectionExpression": "SK.x"}}}');
SELECT st_api('TransactGetItems', '{"TransactItems": [{"Get": {"TableName": "FidDiff",
  "Key": {"PK": {"S": "q"}, "SK": {"N": "1"}}, "ProjectionExpression": "L[0]"}}]}');
-- a key attribute itself is updated: that message comes first
SELECT st_api('UpdateItem', '{"TableName": "FidDiff", "Key": {"PK": {"S": "q"}, "SK": {"N": "1"}},
  "UpdateExpression": "SET PK.x = :v", "ExpressionAttributeValues": {":v": {"N": "1"}}}');
-- a Query's filter naming a primary key attribute: that message comes first
SELECT st_api('Query', '{"TableName": "FidDiff", "KeyConditionExpression": "PK = :p",
  "FilterExpression": "SK[1] = :v", "ExpressionAttributeValues": {":p": {"S": "q"}, ":v": {"N": "1"}}}');
-- a map's member with a key attribute's name is no key
SELECT st_api('GetItem', '{"TableName": "FidDiff", "Key": {"PK": {"S": "q"}, "SK": {"N": "1"}},
  "ProjectionExpression": "m.PK, SK"}') AS member_named_like_a_key;

-- 9. Throughput values above 10^12 are out of DynamoDB's bounds (read first).
SELECT st_api('CreateTable', '{"TableName": "FidDiffPT", "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}],
  "ProvisionedThroughput": {"ReadCapacityUnits": 1000000000001, "WriteCapacityUnits": 1000000000001}}');
SELECT st_api('CreateTable', '{"TableName": "FidDiffPT", "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}],
  "ProvisionedThroughput": {"ReadCapacityUnits": 1000000000000, "WriteCapacityUnits": 1000000000001}}');
SELECT st_api('CreateTable', '{"TableName": "FidDiffPT", "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}],
  "ProvisionedThroughput": {"ReadCapacityUnits": 1000000000000, "WriteCapacityUnits": 1000000000000}}')
  #> '{TableDescription,ProvisionedThroughput}' AS at_the_bound;
SELECT st_api('UpdateTable', '{"TableName": "FidDiffPT",
  "ProvisionedThroughput": {"ReadCapacityUnits": 5, "WriteCapacityUnits": 1000000000001}}');
SELECT st_api('DeleteTable', '{"TableName": "FidDiffPT"}') #>> '{TableDescription,TableStatus}' AS deleted;

-- 10. A global index holds only what it projects: a Query's filter on
-- anything else is refused (names sorted, through #names too); a local
-- index, which fetches from its table, and Scan are not refused.
SELECT st_api('CreateTable', '{"TableName": "FidDiffG", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "G", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}],
  "GlobalSecondaryIndexes": [{"IndexName": "GInc", "KeySchema": [{"AttributeName": "G", "KeyType": "HASH"}],
    "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["a"]}}]}') #>> '{TableDescription,TableName}' AS created;
SELECT st_api('PutItem', '{"TableName": "FidDiffG", "Item": {"PK": {"S": "1"}, "G": {"S": "g"}, "a": {"N": "1"}, "z": {"N": "2"}}}');
SELECT st_api('Query', '{"TableName": "FidDiffG", "IndexName": "GInc", "KeyConditionExpression": "G = :g",
  "FilterExpression": "z > :v OR #y.x = :v", "ExpressionAttributeNames": {"#y": "y"},
  "ExpressionAttributeValues": {":g": {"S": "g"}, ":v": {"N": "0"}}}');
SELECT st_api('Query', '{"TableName": "FidDiffG", "IndexName": "GInc",
  "KeyConditions": {"G": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "g"}]}},
  "QueryFilter": {"z": {"ComparisonOperator": "GT", "AttributeValueList": [{"N": "0"}]}}}');
SELECT st_api('Query', '{"TableName": "FidDiffG", "IndexName": "GInc", "KeyConditionExpression": "G = :g",
  "FilterExpression": "a > :v AND PK = :p", "ExpressionAttributeValues": {":g": {"S": "g"}, ":v": {"N": "0"}, ":p": {"S": "1"}}}')
  AS projected_and_keys;
SELECT st_api('Scan', '{"TableName": "FidDiffG", "IndexName": "GInc", "FilterExpression": "z > :v",
  "ExpressionAttributeValues": {":v": {"N": "0"}}}') AS scan_not_refused;
SELECT st_api('Query', '{"TableName": "FidDiff", "IndexName": "LKeys", "KeyConditionExpression": "PK = :p",
  "FilterExpression": "payload = :x", "ExpressionAttributeValues": {":p": {"S": "q"}, ":x": {"S": "oooooooooo"}},
  "Select": "COUNT"}') AS local_index_fetches;
SELECT st_api('DeleteTable', '{"TableName": "FidDiffG"}') #>> '{TableDescription,TableStatus}' AS deleted;

DROP FUNCTION lsi_cc(jsonb);
SELECT st_api('DeleteTable', '{"TableName": "FidDiff"}') #>> '{TableDescription,TableStatus}' AS deleted;
