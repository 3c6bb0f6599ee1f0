-- st_api PutItem, GetItem, UpdateItem, DeleteItem: DynamoDB's request and
-- response JSON, return values, conditions, and bad requests.

SELECT st_api('CreateTable', '{"TableName": "ApiItems", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "SK", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}]}')
  #>> '{TableDescription,TableName}' AS created;

-- PutItem: {} by default, Attributes with ReturnValues ALL_OLD.
SELECT st_api('PutItem', '{"TableName": "ApiItems", "Item": {"PK": {"S": "u#1"}, "SK": {"S": "profile"},
  "name": {"S": "Ada"}, "tags": {"SS": ["b", "a"]}, "n": {"N": "01.50"}}}');
SELECT st_api('PutItem', '{"TableName": "ApiItems", "Item": {"PK": {"S": "u#1"}, "SK": {"S": "profile"},
  "name": {"S": "Ada L."}, "n": {"N": "2"}}, "ReturnValues": "ALL_OLD"}');
SELECT st_api('PutItem', '{"TableName": "ApiItems", "Item": {"PK": {"S": "u#2"}, "SK": {"S": "profile"}},
  "ReturnValues": "ALL_OLD"}');
-- Conditional put: create only if absent.
SELECT st_api('PutItem', '{"TableName": "ApiItems", "Item": {"PK": {"S": "u#1"}, "SK": {"S": "profile"}},
  "ConditionExpression": "attribute_not_exists(PK)"}');
-- (its SQLSTATE, then its message and the old item as DETAIL)
\set VERBOSITY sqlstate
SELECT st_api('PutItem', '{"TableName": "ApiItems", "Item": {"PK": {"S": "u#1"}, "SK": {"S": "profile"}},
  "ConditionExpression": "attribute_not_exists(PK)", "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}');
\set VERBOSITY default
SELECT st_api('PutItem', '{"TableName": "ApiItems", "Item": {"PK": {"S": "u#1"}, "SK": {"S": "profile"}},
  "ConditionExpression": "attribute_not_exists(PK)", "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}');

-- GetItem: Item, or {} when absent; ProjectionExpression with names.
SELECT st_api('GetItem', '{"TableName": "ApiItems", "Key": {"PK": {"S": "u#1"}, "SK": {"S": "profile"}}}');
SELECT st_api('GetItem', '{"TableName": "ApiItems", "Key": {"PK": {"S": "u#9"}, "SK": {"S": "profile"}}}');
SELECT st_api('GetItem', '{"TableName": "ApiItems", "Key": {"PK": {"S": "u#1"}, "SK": {"S": "profile"}},
  "ProjectionExpression": "#n", "ExpressionAttributeNames": {"#n": "name"}, "ConsistentRead": true}');

-- UpdateItem: every ReturnValues, creating an absent item, conditions.
SELECT st_api('UpdateItem', '{"TableName": "ApiItems", "Key": {"PK": {"S": "u#1"}, "SK": {"S": "profile"}},
  "UpdateExpression": "SET n = n + :one, visits = if_not_exists(visits, :zero) + :one",
  "ExpressionAttributeValues": {":one": {"N": "1"}, ":zero": {"N": "0"}}}');
SELECT st_api('UpdateItem', '{"TableName": "ApiItems", "Key": {"PK": {"S": "u#1"}, "SK": {"S": "profile"}},
  "UpdateExpression": "SET n = n + :one", "ExpressionAttributeValues": {":one": {"N": "1"}},
  "ReturnValues": "UPDATED_OLD"}');
SELECT st_api('UpdateItem', '{"TableName": "ApiItems", "Key": {"PK": {"S": "u#1"}, "SK": {"S": "profile"}},
  "UpdateExpression": "SET n = n + :one", "ExpressionAttributeValues": {":one": {"N": "1"}},
  "ReturnValues": "UPDATED_NEW"}');
SELECT st_api('UpdateItem', '{"TableName": "ApiItems", "Key": {"PK": {"S": "u#1"}, "SK": {"S": "profile"}},
  "UpdateExpression": "REMOVE visits", "ReturnValues": "ALL_NEW"}');
SELECT st_api('UpdateItem', '{"TableName": "ApiItems", "Key": {"PK": {"S": "u#1"}, "SK": {"S": "profile"}},
  "UpdateExpression": "ADD tags :t", "ExpressionAttributeValues": {":t": {"SS": ["z"]}}, "ReturnValues": "ALL_OLD"}');
SELECT st_api('UpdateItem', '{"TableName": "ApiItems", "Key": {"PK": {"S": "u#3"}, "SK": {"S": "profile"}},
  "UpdateExpression": "SET created = :t", "ExpressionAttributeValues": {":t": {"S": "2026-11-30"}},
  "ReturnValues": "ALL_NEW"}');
SELECT st_api('UpdateItem', '{"TableName": "ApiItems", "Key": {"PK": {"S": "u#1"}, "SK": {"S": "profile"}},
  "UpdateExpression": "SET n = :v", "ConditionExpression": "n > :v",
  "ExpressionAttributeValues": {":v": {"N": "100"}}}');
SELECT st_api('UpdateItem', '{"TableName": "ApiItems", "Key": {"PK": {"S": "u#1"}, "SK": {"S": "profile"}},
  "UpdateExpression": "SET PK = :v", "ExpressionAttributeValues": {":v": {"S": "x"}}}');
-- UpdateItem without an UpdateExpression creates the key-only item.
SELECT st_api('UpdateItem', '{"TableName": "ApiItems", "Key": {"PK": {"S": "u#4"}, "SK": {"S": "profile"}},
  "ReturnValues": "ALL_NEW"}');

-- DeleteItem.
SELECT st_api('DeleteItem', '{"TableName": "ApiItems", "Key": {"PK": {"S": "u#4"}, "SK": {"S": "profile"}}}');
SELECT st_api('DeleteItem', '{"TableName": "ApiItems", "Key": {"PK": {"S": "u#3"}, "SK": {"S": "profile"}},
  "ReturnValues": "ALL_OLD"}');
SELECT st_api('DeleteItem', '{"TableName": "ApiItems", "Key": {"PK": {"S": "u#1"}, "SK": {"S": "profile"}},
  "ConditionExpression": "#n = :x", "ExpressionAttributeNames": {"#n": "name"},
  "ExpressionAttributeValues": {":x": {"S": "nobody"}}}');
SELECT st_api('GetItem', '{"TableName": "ApiItems", "Key": {"PK": {"S": "u#1"}, "SK": {"S": "profile"}}}') #>> '{Item,name,S}' AS still_there;
-- The operation name as the X-Amz-Target header carries it.
SELECT st_api('DynamoDB_20120810.GetItem', '{"TableName": "ApiItems", "Key": {"PK": {"S": "u#2"}, "SK": {"S": "profile"}}}');

-- Bad requests ---------------------------------------------------------------
SELECT st_api('PutItem', '{"Item": {"PK": {"S": "a"}, "SK": {"S": "b"}}}');
SELECT st_api('PutItem', '{"TableName": "ApiItems"}');
SELECT st_api('PutItem', '{"TableName": "ApiItems", "Item": {"PK": "a", "SK": {"S": "b"}}}');
SELECT st_api('PutItem', '{"TableName": "ApiItems", "Item": {"PK": {"S": "a"}, "SK": {"S": "b"}}, "ReturnValues": "ALL_NEW"}');
SELECT st_api('PutItem', '{"TableName": "ApiItems", "Item": {"PK": {"S": "a"}, "SK": {"S": "b"}}, "ReturnValues": "SOME"}');
SELECT st_api('PutItem', '{"TableName": "ApiItems", "Item": {"PK": {"S": "a"}, "SK": {"S": "b"}}, "Expected": {},
  "ConditionExpression": "attribute_not_exists(PK)"}');
SELECT st_api('PutItem', '{"TableName": "ApiItems", "Item": {"PK": {"S": "a"}, "SK": {"S": "b"}},
  "ConditionExpression": "attribute_not_exists(PK)", "ReturnValuesOnConditionCheckFailure": "ALL_NEW"}');
SELECT st_api('PutItem', '{"TableName": "Nope", "Item": {"PK": {"S": "a"}, "SK": {"S": "b"}}}');
SELECT st_api('GetItem', '{"TableName": "ApiItems", "Key": {"PK": {"S": "a"}}}');
SELECT st_api('GetItem', '{"TableName": "ApiItems", "Key": {"PK": {"S": "a"}, "SK": {"S": "b"}, "x": {"S": "c"}}}');
SELECT st_api('GetItem', '{"TableName": "ApiItems", "Key": {"PK": {"N": "1"}, "SK": {"S": "b"}}}');
SELECT st_api('GetItem', '{"TableName": "ApiItems", "Key": {"PK": {"S": "a"}, "SK": {"S": "b"}}, "ConsistentRead": "yes"}');
SELECT st_api('GetItem', '{"TableName": "ApiItems", "Key": {"PK": {"S": "a"}, "SK": {"S": "b"}}, "AttributesToGet": ["a"],
  "ProjectionExpression": "a"}');
SELECT st_api('UpdateItem', '{"TableName": "ApiItems", "Key": {"PK": {"S": "a"}, "SK": {"S": "b"}},
  "UpdateExpression": "SET a = :v"}');
SELECT st_api('UpdateItem', '{"TableName": "ApiItems", "Key": {"PK": {"S": "a"}, "SK": {"S": "b"}},
  "UpdateExpression": "SET a = :v", "ExpressionAttributeValues": {":v": {"Q": "1"}}}');
SELECT st_api('DeleteItem', '{"TableName": "ApiItems"}');
SELECT st_api(NULL, '{}');
SELECT count(*) AS items FROM stdesign_data."ApiItems";

SELECT st_api('DeleteTable', '{"TableName": "ApiItems"}') #>> '{TableDescription,TableStatus}' AS status;
