-- UpdateItem on an item that does not exist: DynamoDB creates it from its
-- key when the update writes something (SET, ADD, or no action at all),
-- and leaves it missing when the update only removes (REMOVE, DELETE, or
-- AttributeUpdates with DELETE) - then ReturnValues ALL_NEW returns no
-- Attributes and nothing is an error.  Legacy Expected: NOT_CONTAINS and an
-- empty map.

SELECT st_api('CreateTable', '{"TableName": "Missing", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}]}')
  #>> '{TableDescription,TableName}' AS created;
SET stdesign.default_table = 'Missing';

-- Only REMOVE / DELETE: no item, no Attributes, no error (even a REMOVE
-- through a map that does not exist).
SELECT st_api('UpdateItem', '{"TableName": "Missing", "Key": {"PK": {"S": "r1"}},
  "UpdateExpression": "REMOVE a.b, c", "ReturnValues": "ALL_NEW"}') AS remove_only;
SELECT st_api('UpdateItem', '{"TableName": "Missing", "Key": {"PK": {"S": "r2"}},
  "UpdateExpression": "DELETE tags :t", "ExpressionAttributeValues": {":t": {"SS": ["a"]}},
  "ReturnValues": "ALL_NEW"}') AS delete_only;
SELECT st_api('UpdateItem', '{"TableName": "Missing", "Key": {"PK": {"S": "r3"}},
  "UpdateExpression": "REMOVE a DELETE tags :t", "ExpressionAttributeValues": {":t": {"SS": ["a"]}},
  "ReturnValues": "UPDATED_NEW"}') AS remove_and_delete;
SELECT st_api('UpdateItem', '{"TableName": "Missing", "Key": {"PK": {"S": "r4"}},
  "AttributeUpdates": {"a": {"Action": "DELETE"}, "tags": {"Action": "DELETE", "Value": {"SS": ["x"]}}},
  "ReturnValues": "ALL_NEW"}') AS legacy_delete_only;
SELECT st_update('r5', NULL, 'REMOVE a[0]') AS sql_remove_only;
-- A condition that holds on the missing item: still nothing written.
SELECT st_api('UpdateItem', '{"TableName": "Missing", "Key": {"PK": {"S": "r6"}},
  "UpdateExpression": "REMOVE a", "ConditionExpression": "attribute_not_exists(PK)",
  "ReturnValues": "ALL_OLD"}') AS conditional_remove;
SELECT st_api('UpdateItem', '{"TableName": "Missing", "Key": {"PK": {"S": "r7"}},
  "UpdateExpression": "REMOVE a", "ConditionExpression": "attribute_exists(PK)"}');
SELECT count(*) AS items_after_removes FROM st_scan();

-- Writing actions, or none at all: the item is created from its key.
SELECT st_api('UpdateItem', '{"TableName": "Missing", "Key": {"PK": {"S": "c1"}},
  "UpdateExpression": "SET a = :v REMOVE b", "ExpressionAttributeValues": {":v": {"N": "1"}},
  "ReturnValues": "ALL_NEW"}') AS set_and_remove;
SELECT st_api('UpdateItem', '{"TableName": "Missing", "Key": {"PK": {"S": "c2"}},
  "UpdateExpression": "ADD n :v DELETE s :s",
  "ExpressionAttributeValues": {":v": {"N": "1"}, ":s": {"SS": ["a"]}}, "ReturnValues": "ALL_NEW"}') AS add_and_delete;
SELECT st_api('UpdateItem', '{"TableName": "Missing", "Key": {"PK": {"S": "c3"}}, "ReturnValues": "ALL_NEW"}') AS no_actions;
SELECT st_api('UpdateItem', '{"TableName": "Missing", "Key": {"PK": {"S": "c4"}},
  "AttributeUpdates": {"a": {"Action": "DELETE"}, "n": {"Action": "ADD", "Value": {"N": "2"}}},
  "ReturnValues": "ALL_NEW"}') AS legacy_add;
SELECT st_api('UpdateItem', '{"TableName": "Missing", "Key": {"PK": {"S": "c5"}}, "AttributeUpdates": {},
  "ReturnValues": "ALL_NEW"}') AS legacy_empty;
SELECT item FROM st_scan() AS item ORDER BY item ->> 'PK';

-- On an existing item, REMOVE and DELETE apply as usual.
SELECT st_api('UpdateItem', '{"TableName": "Missing", "Key": {"PK": {"S": "c2"}},
  "UpdateExpression": "REMOVE n", "ReturnValues": "ALL_NEW"}') AS removed_on_existing;

-- Legacy Expected: NOT_CONTAINS holds when the value is not in the string
-- or set, and for an attribute that is absent; an empty Expected expects
-- nothing.
SELECT st_put('{"PK": "e", "s": "hello", "tags": ["a", "b"]}', typed => false);
SELECT st_api('PutItem', '{"TableName": "Missing", "Item": {"PK": {"S": "e"}, "s": {"S": "hello"}, "v": {"N": "1"}},
  "Expected": {"s": {"ComparisonOperator": "NOT_CONTAINS", "AttributeValueList": [{"S": "xyz"}]},
               "nope": {"ComparisonOperator": "NOT_CONTAINS", "AttributeValueList": [{"S": "x"}]}}}') AS not_contains_holds;
SELECT st_api('PutItem', '{"TableName": "Missing", "Item": {"PK": {"S": "e"}},
  "Expected": {"s": {"ComparisonOperator": "NOT_CONTAINS", "AttributeValueList": [{"S": "ell"}]}}}');
SELECT st_api('DeleteItem', '{"TableName": "Missing", "Key": {"PK": {"S": "e"}},
  "Expected": {"s": {"ComparisonOperator": "NOT_CONTAINS", "AttributeValueList": [{"SS": ["h"]}]}}}');
SELECT st_api('PutItem', '{"TableName": "Missing", "Item": {"PK": {"S": "e"}, "v": {"N": "2"}}, "Expected": {},
  "ReturnValues": "ALL_OLD"}') AS empty_expected;
SELECT st_api('PutItem', '{"TableName": "Missing", "Item": {"PK": {"S": "e"}}, "Expected": {},
  "ConditionalOperator": "AND"}');

-- In a transaction too: an Update that only removes leaves a missing item
-- missing; one that sets creates it.
SELECT st_transact('[{"Update": {"TableName": "Missing", "Key": {"PK": {"S": "t1"}}, "UpdateExpression": "REMOVE a"}},
  {"Update": {"TableName": "Missing", "Key": {"PK": {"S": "t2"}}, "UpdateExpression": "SET a = :v",
              "ExpressionAttributeValues": {":v": {"N": "1"}}}}]') AS transact_updates;
SELECT st_get('t1', "table" => 'Missing') AS t1_still_missing, st_get('t2', "table" => 'Missing') AS t2_created;

SELECT st_drop_table('Missing');
