-- DynamoDB checks a request in layers and answers with the first that
-- fails: (1) each field's JSON type against the API model
-- (SerializationException), (2) the model's constraints on every field (one
-- ValidationException listing every violation), (3) the operation's own
-- checks, (4) the table and the stored item.

SELECT st_api('CreateTable', '{"TableName": "FidVal", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}]}')
  #>> '{TableDescription,TableName}' AS created;

-- Layer 1: a field of the wrong JSON type, with DynamoDB's wording.
-- String fields
SELECT st_api('GetItem', '{"TableName": 5, "Key": {"PK": {"S": "a"}}}');
SELECT st_api('GetItem', '{"TableName": 1.5, "Key": {"PK": {"S": "a"}}}');
SELECT st_api('GetItem', '{"TableName": true, "Key": {"PK": {"S": "a"}}}');
SELECT st_api('GetItem', '{"TableName": false, "Key": {"PK": {"S": "a"}}}');
SELECT st_api('GetItem', '{"TableName": {"a": 1}, "Key": {"PK": {"S": "a"}}}');
SELECT st_api('GetItem', '{"TableName": ["FidVal"], "Key": {"PK": {"S": "a"}}}');
SELECT st_api('PutItem', '{"TableName": "FidVal", "Item": {"PK": {"S": "a"}}, "ConditionExpression": 7}');
-- Integer and Long fields
SELECT st_api('Scan', '{"TableName": "FidVal", "Limit": "10"}');
SELECT st_api('Scan', '{"TableName": "FidVal", "Limit": true}');
SELECT st_api('Scan', '{"TableName": "FidVal", "Segment": [0], "TotalSegments": 2}');
SELECT st_api('Scan', '{"TableName": "FidVal", "TotalSegments": {"n": 2}, "Segment": 0}');
SELECT st_api('CreateTable', '{"TableName": "FidValT", "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}],
  "ProvisionedThroughput": {"ReadCapacityUnits": "5", "WriteCapacityUnits": 5}}');
-- Boolean fields
SELECT st_api('GetItem', '{"TableName": "FidVal", "Key": {"PK": {"S": "a"}}, "ConsistentRead": "true"}');
SELECT st_api('GetItem', '{"TableName": "FidVal", "Key": {"PK": {"S": "a"}}, "ConsistentRead": 1}');
-- Structures, maps and lists
SELECT st_api('CreateTable', '{"TableName": "FidValT", "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}], "ProvisionedThroughput": "5"}');
SELECT st_api('CreateTable', '{"TableName": "FidValT", "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}], "ProvisionedThroughput": [5]}');
SELECT st_api('GetItem', '{"TableName": "FidVal", "Key": "a"}');
SELECT st_api('GetItem', '{"TableName": "FidVal", "Key": [{"PK": {"S": "a"}}]}');
SELECT st_api('GetItem', '{"TableName": "FidVal", "Key": {"PK": {"S": "a"}}, "ExpressionAttributeNames": 3}');
SELECT st_api('GetItem', '{"TableName": "FidVal", "Key": {"PK": {"S": "a"}}, "ExpressionAttributeNames": {"#a": 3}}');
SELECT st_api('GetItem', '{"TableName": "FidVal", "Key": {"PK": {"S": "a"}}, "AttributesToGet": "PK"}');
SELECT st_api('GetItem', '{"TableName": "FidVal", "Key": {"PK": {"S": "a"}}, "AttributesToGet": {"PK": 1}}');
SELECT st_api('GetItem', '{"TableName": "FidVal", "Key": {"PK": {"S": "a"}}, "AttributesToGet": ["PK", 1]}');
-- AttributeValues: the value and each type descriptor
SELECT st_api('PutItem', '{"TableName": "FidVal", "Item": {"PK": "a"}}');
SELECT st_api('PutItem', '{"TableName": "FidVal", "Item": {"PK": {"S": 5}}}');
SELECT st_api('PutItem', '{"TableName": "FidVal", "Item": {"PK": {"S": "a"}, "n": {"N": 5}}}');
SELECT st_api('PutItem', '{"TableName": "FidVal", "Item": {"PK": {"S": "a"}, "l": {"L": {"a": 1}}}}');
SELECT st_api('PutItem', '{"TableName": "FidVal", "Item": {"PK": {"S": "a"}, "m": {"M": [1]}}}');
SELECT st_api('PutItem', '{"TableName": "FidVal", "Item": {"PK": {"S": "a"}, "b": {"BOOL": "yes"}}}');
SELECT st_api('PutItem', '{"TableName": "FidVal", "Item": {"PK": {"S": "a"}, "z": {"NULL": 1}}}');
SELECT st_api('PutItem', '{"TableName": "FidVal", "Item": {"PK": {"S": "a"}, "ss": {"SS": "a"}}}');
SELECT st_api('PutItem', '{"TableName": "FidVal", "Item": {"PK": {"S": "a"}, "ns": {"NS": [1, 2]}}}');
SELECT st_api('PutItem', '{"TableName": "FidVal", "Item": {"PK": {"S": "a"}, "deep": {"M": {"x": {"L": [{"S": true}]}}}}}');
SELECT st_api('PutItem', '{"TableName": "FidVal", "Item": {"PK": {"S": "a"}}, "ExpressionAttributeValues": {":v": {"N": 1}}}');
-- Blobs: base64 text, read in this layer too
SELECT st_api('PutItem', '{"TableName": "FidVal", "Item": {"PK": {"S": "a"}, "b": {"B": 5}}}');
SELECT st_api('PutItem', '{"TableName": "FidVal", "Item": {"PK": {"S": "a"}, "b": {"B": "abc"}}}');
SELECT st_api('PutItem', '{"TableName": "FidVal", "Item": {"PK": {"S": "a"}, "bs": {"BS": ["AAAA", "a*=="]}}}');
SELECT st_api('PutItem', '{"Item": {"PK": {"S": "a"}, "b": {"B": "abc"}}}');
SELECT st_api('PutItem', '{"TableName": "FidVal", "Item": {"PK": {"S": "blob"}, "b": {"B": "AAE="}, "bs": {"BS": ["AAAA", "AQ=="]}}}');
SELECT st_api('GetItem', '{"TableName": "FidVal", "Key": {"PK": {"S": "blob"}}}');
-- a JSON null is an absent field
SELECT st_api('GetItem', '{"TableName": "FidVal", "Key": {"PK": {"S": "a"}}, "ConsistentRead": null, "ProjectionExpression": null}');

-- Layer 1 before layer 2: a type error wins over missing and invalid fields.
SELECT st_api('PutItem', '{"Item": {"PK": {"S": 5}}}');
SELECT st_api('PutItem', '{"TableName": "a;", "ReturnValues": "hi", "Item": {"PK": {"S": "a"}}, "ConditionExpression": 1}');
SELECT st_api('Query', '{"TableName": "x", "Limit": 0, "ScanIndexForward": "no"}');

-- Layer 2: every violation, in one message.
SELECT st_api('PutItem', '{"TableName": "a;", "ReturnValues": "hi", "Item": {"PK": {"S": "a"}}}');
SELECT st_api('PutItem', '{}');
SELECT st_api('UpdateItem', '{"TableName": "ab", "ReturnValues": "ALL", "ReturnConsumedCapacity": "SOME",
  "ReturnItemCollectionMetrics": "ALL"}');
SELECT st_api('Scan', '{"TableName": "FidVal", "Limit": 0, "Segment": -1, "TotalSegments": 1000001, "Select": "ALL"}');
SELECT st_api('CreateTable', '{}');
SELECT st_api('CreateTable', '{"TableName": "FidValT", "BillingMode": "FREE",
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "X"}, {"AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "", "KeyType": "HASH"}, {"AttributeName": "PK", "KeyType": "MAIN"}, {"KeyType": "RANGE"}],
  "ProvisionedThroughput": {"ReadCapacityUnits": 0}}');
-- names: one violation per field, the pattern before the length
SELECT st_api('DescribeTable', '{"TableName": "a;"}');
SELECT st_api('DescribeTable', '{"TableName": "ab"}');
SELECT st_api('DescribeTable', jsonb_build_object('TableName', repeat('t', 256)));
SELECT st_api('ListTables', '{"Limit": 101, "ExclusiveStartTableName": "x y"}');
-- nested paths: <list>.<n>.member, <map>.<key>.member
SELECT st_api('TransactWriteItems', '{"TransactItems": [
  {"Put": {"TableName": "FidVal", "Item": {"PK": {"S": "a"}}}},
  {"Update": {"TableName": "no", "Key": {"PK": {"S": "a"}}, "ReturnValuesOnConditionCheckFailure": "ALL_NEW"}},
  {"Delete": {"Key": {"PK": {"S": "a"}}}}]}');
SELECT st_api('BatchWriteItem', '{"RequestItems": {"FidVal": [{"PutRequest": {}}, {"DeleteRequest": {}}]}}');
SELECT st_api('BatchGetItem', '{"RequestItems": {"FidVal": {"Keys": [], "AttributesToGet": []}}}');
SELECT st_api('Query', '{"TableName": "FidVal", "KeyConditions": {"PK": {"ComparisonOperator": "EQUALS"}},
  "QueryFilter": {"x": {}}}');
-- map keys and values break their shapes' constraints: one violation each
SELECT st_api('BatchGetItem', '{"RequestItems": {"ab": {"Keys": [{"PK": {"S": "a"}}]}}}');
SELECT st_api('BatchWriteItem', jsonb_build_object('RequestItems', jsonb_build_object('FidVal',
  (SELECT jsonb_agg(jsonb_build_object('DeleteRequest', jsonb_build_object('Key', jsonb_build_object('PK', jsonb_build_object('S', 'k' || i)))))
   FROM generate_series(1, 26) i))));
-- at most ten violations are listed
SELECT st_api('TransactGetItems', jsonb_build_object('TransactItems',
  (SELECT jsonb_agg('{"Get": {}}'::jsonb) FROM generate_series(1, 6))));
-- the friendly batch functions are checked alike
SELECT st_batch_get('{"FidVal": {"Keys": []}}');
SELECT st_batch_write('{"FidVal": "x"}');

-- Layers 3 and 4: the operation's own checks, then the table.
-- An invalid item is reported before a missing table.
SELECT st_api('PutItem', '{"TableName": "FidMissing", "Item": {"PK": {}}}');
SELECT st_api('PutItem', '{"TableName": "FidMissing", "Item": {"PK": {"S": "a"}, "n": {"N": "x"}}}');
SELECT st_api('GetItem', '{"TableName": "FidMissing", "Key": {"PK": {"S": "a", "N": "1"}}}');
SELECT st_api('DeleteItem', '{"TableName": "FidMissing", "Key": {"PK": {"S": "a"}}, "ReturnValues": "ALL_NEW"}');
SELECT st_api('UpdateItem', '{"TableName": "FidMissing", "Key": {"PK": {"S": "a"}}, "UpdateExpression": "SET"}');
SELECT st_api('Scan', '{"TableName": "FidMissing", "Segment": 3, "TotalSegments": 2}');
-- a valid request on a missing table
SELECT st_api('PutItem', '{"TableName": "FidMissing", "Item": {"PK": {"S": "a"}}}');
SELECT st_api('GetItem', '{"TableName": "FidMissing", "Key": {"PK": {"S": "a"}}}');
-- and the table's own checks after that
SELECT st_api('PutItem', '{"TableName": "FidVal", "Item": {"PK": {"N": "1"}}}');
-- valid requests still work
SELECT st_api('PutItem', '{"TableName": "FidVal", "Item": {"PK": {"S": "ok"}, "v": {"L": [{"M": {"a": {"NULL": true}}}]}}}');
SELECT st_api('GetItem', '{"TableName": "FidVal", "Key": {"PK": {"S": "ok"}}, "ConsistentRead": true}');

SELECT st_api('DeleteTable', '{"TableName": "FidVal"}') #>> '{TableDescription,TableStatus}' AS deleted;
