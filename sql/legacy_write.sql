-- st_api's legacy write parameters: Expected in all its forms (Value,
-- Exists, every ComparisonOperator, ConditionalOperator) on PutItem,
-- UpdateItem and DeleteItem; AttributeUpdates PUT / ADD / DELETE with every
-- ReturnValues; mixing them with expressions; malformed parameters.

SELECT st_api('CreateTable', '{
  "TableName": "LegacyWrite", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "SK", "AttributeType": "S"},
                           {"AttributeName": "kind", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
  "GlobalSecondaryIndexes": [
    {"IndexName": "ByKind", "KeySchema": [{"AttributeName": "kind", "KeyType": "HASH"}],
     "Projection": {"ProjectionType": "ALL"}}]
}') #>> '{TableDescription,TableStatus}' AS status;

-- The response of a request, or the name of the exception a failed condition raised.
CREATE FUNCTION try_api(op text, request jsonb) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  RETURN st_api(op, request)::text;
EXCEPTION WHEN SQLSTATE 'SD004' THEN
  RETURN 'ConditionalCheckFailedException';
END $$;

-- ---------- Expected: the Exists / Value forms ----------

-- {Exists: false} on the key: put only if the item is new.
SELECT st_api('PutItem', '{"TableName": "LegacyWrite",
  "Item": {"PK": {"S": "A"}, "SK": {"S": "1"}, "status": {"S": "NEW"}, "n": {"N": "10"}},
  "Expected": {"PK": {"Exists": false}}}');
SELECT st_api('PutItem', '{"TableName": "LegacyWrite",
  "Item": {"PK": {"S": "A"}, "SK": {"S": "1"}, "status": {"S": "OVERWRITTEN"}},
  "Expected": {"PK": {"Exists": false}}}');
-- {Value} alone is EQ; with Exists true it is the same.
SELECT st_api('PutItem', '{"TableName": "LegacyWrite", "ReturnValues": "ALL_OLD",
  "Item": {"PK": {"S": "A"}, "SK": {"S": "1"}, "status": {"S": "PAID"}, "n": {"N": "10"}},
  "Expected": {"status": {"Value": {"S": "NEW"}}}}');
SELECT try_api('PutItem', '{"TableName": "LegacyWrite",
  "Item": {"PK": {"S": "A"}, "SK": {"S": "1"}, "status": {"S": "SHIPPED"}},
  "Expected": {"status": {"Value": {"S": "NEW"}, "Exists": true}}}');
SELECT try_api('PutItem', '{"TableName": "LegacyWrite",
  "Item": {"PK": {"S": "A"}, "SK": {"S": "1"}, "status": {"S": "PAID"}, "n": {"N": "10"}, "flag": {"BOOL": false}},
  "Expected": {"status": {"Value": {"S": "PAID"}, "Exists": true}}}');
-- A value of another type never matches: {"S": "10"} is not {"N": "10"}.
SELECT try_api('PutItem', '{"TableName": "LegacyWrite", "Item": {"PK": {"S": "A"}, "SK": {"S": "1"}},
  "Expected": {"n": {"Value": {"S": "10"}}}}');
-- Exists false on an attribute that is there; then on one that is not.
SELECT try_api('PutItem', '{"TableName": "LegacyWrite", "Item": {"PK": {"S": "A"}, "SK": {"S": "1"}},
  "Expected": {"status": {"Exists": false}}}');
SELECT try_api('UpdateItem', '{"TableName": "LegacyWrite", "Key": {"PK": {"S": "A"}, "SK": {"S": "1"}},
  "AttributeUpdates": {"note": {"Value": {"S": "checked"}}}, "ReturnValues": "UPDATED_NEW",
  "Expected": {"note": {"Exists": false}, "flag": {"Value": {"BOOL": false}}}}');

-- ---------- Expected: every ComparisonOperator ----------

SELECT st_api('PutItem', '{"TableName": "LegacyWrite", "Item": {"PK": {"S": "OPS"}, "SK": {"S": "1"},
  "n": {"N": "10"}, "s": {"S": "hello world"}, "b": {"B": "AAEC"}, "ss": {"SS": ["a", "b"]}, "ns": {"NS": ["1", "2"]},
  "l": {"L": [{"S": "x"}, {"N": "2"}]}, "m": {"M": {"k": {"S": "v"}}}, "nul": {"NULL": true}}}');
-- Each row is a conditional UpdateItem that counts in "checks" when its Expected holds.
SELECT attr, op, vals,
       CASE WHEN try_api('UpdateItem', jsonb_build_object('TableName', 'LegacyWrite',
              'Key', '{"PK": {"S": "OPS"}, "SK": {"S": "1"}}'::jsonb,
              'AttributeUpdates', '{"checks": {"Action": "ADD", "Value": {"N": "1"}}}'::jsonb,
              'Expected', jsonb_build_object(attr, jsonb_build_object('ComparisonOperator', op) ||
                            CASE WHEN vals IS NULL THEN '{}' ELSE jsonb_build_object('AttributeValueList', vals) END)))
            = 'ConditionalCheckFailedException' THEN 'fails' ELSE 'holds' END AS outcome
  FROM (VALUES
    ('n', 'EQ', '[{"N": "10.0"}]'::jsonb),
    ('n', 'EQ', '[{"S": "10"}]'),
    ('ss', 'EQ', '[{"SS": ["b", "a"]}]'),
    ('m', 'EQ', '[{"M": {"k": {"S": "v"}}}]'),
    ('missing', 'EQ', '[{"S": "x"}]'),
    ('n', 'NE', '[{"N": "10"}]'),
    ('n', 'NE', '[{"N": "11"}]'),
    ('missing', 'NE', '[{"S": "x"}]'),
    ('n', 'LE', '[{"N": "10"}]'),
    ('n', 'LT', '[{"N": "10"}]'),
    ('s', 'GE', '[{"S": "hello"}]'),
    ('s', 'GT', '[{"S": "hello world"}]'),
    ('b', 'GT', '[{"B": "AAE="}]'),
    ('s', 'LT', '[{"N": "1"}]'),
    ('nul', 'NOT_NULL', NULL),
    ('missing', 'NOT_NULL', NULL),
    ('nul', 'NULL', NULL),
    ('missing', 'NULL', NULL),
    ('s', 'CONTAINS', '[{"S": "o w"}]'),
    ('ss', 'CONTAINS', '[{"S": "b"}]'),
    ('ns', 'CONTAINS', '[{"N": "3"}]'),
    ('l', 'CONTAINS', '[{"S": "x"}]'),
    ('b', 'CONTAINS', '[{"B": "AQI="}]'),
    ('missing', 'CONTAINS', '[{"S": "x"}]'),
    ('s', 'NOT_CONTAINS', '[{"S": "world"}]'),
    ('ss', 'NOT_CONTAINS', '[{"S": "c"}]'),
    ('missing', 'NOT_CONTAINS', '[{"S": "x"}]'),
    ('s', 'BEGINS_WITH', '[{"S": "hell"}]'),
    ('s', 'BEGINS_WITH', '[{"S": "world"}]'),
    ('b', 'BEGINS_WITH', '[{"B": "AA=="}]'),
    ('n', 'IN', '[{"N": "1"}, {"N": "10"}]'),
    ('s', 'IN', '[{"S": "hello"}]'),
    ('ss', 'IN', '[{"S": "a"}, {"S": "b"}]'),
    ('n', 'BETWEEN', '[{"N": "10"}, {"N": "20"}]'),
    ('n', 'BETWEEN', '[{"N": "-5"}, {"N": "9.5"}]'),
    ('s', 'BETWEEN', '[{"S": "a"}, {"S": "i"}]')
  ) AS t(attr, op, vals);
-- The item counted each condition that held.
SELECT st_api('GetItem', '{"TableName": "LegacyWrite", "Key": {"PK": {"S": "OPS"}, "SK": {"S": "1"}},
  "AttributesToGet": ["checks"]}');
-- The Value form of a ComparisonOperator: Value as its one value.
SELECT try_api('UpdateItem', '{"TableName": "LegacyWrite", "Key": {"PK": {"S": "OPS"}, "SK": {"S": "1"}},
  "AttributeUpdates": {"checks": {"Action": "ADD", "Value": {"N": "1"}}}, "ReturnValues": "UPDATED_NEW",
  "Expected": {"n": {"ComparisonOperator": "GT", "Value": {"N": "5"}}}}');

-- ---------- ConditionalOperator ----------

-- n = 10 holds, s = "nope" does not: AND fails, OR holds.
SELECT try_api('UpdateItem', '{"TableName": "LegacyWrite", "Key": {"PK": {"S": "OPS"}, "SK": {"S": "1"}},
  "AttributeUpdates": {"checks": {"Action": "ADD", "Value": {"N": "1"}}}, "ReturnValues": "UPDATED_NEW",
  "Expected": {"n": {"Value": {"N": "10"}}, "s": {"Value": {"S": "nope"}}}}');
SELECT try_api('UpdateItem', '{"TableName": "LegacyWrite", "Key": {"PK": {"S": "OPS"}, "SK": {"S": "1"}},
  "AttributeUpdates": {"checks": {"Action": "ADD", "Value": {"N": "1"}}}, "ReturnValues": "UPDATED_NEW",
  "ConditionalOperator": "AND", "Expected": {"n": {"Value": {"N": "10"}}, "s": {"Value": {"S": "nope"}}}}');
SELECT try_api('UpdateItem', '{"TableName": "LegacyWrite", "Key": {"PK": {"S": "OPS"}, "SK": {"S": "1"}},
  "AttributeUpdates": {"checks": {"Action": "ADD", "Value": {"N": "1"}}}, "ReturnValues": "UPDATED_NEW",
  "ConditionalOperator": "OR", "Expected": {"n": {"Value": {"N": "10"}}, "s": {"Value": {"S": "nope"}}}}');
SELECT try_api('UpdateItem', '{"TableName": "LegacyWrite", "Key": {"PK": {"S": "OPS"}, "SK": {"S": "1"}},
  "AttributeUpdates": {"checks": {"Action": "ADD", "Value": {"N": "1"}}}, "ReturnValues": "UPDATED_NEW",
  "ConditionalOperator": "OR",
  "Expected": {"n": {"ComparisonOperator": "LT", "AttributeValueList": [{"N": "0"}]}, "s": {"Exists": false}}}');

-- ---------- Expected against an item that does not exist ----------

SELECT try_api('UpdateItem', '{"TableName": "LegacyWrite", "Key": {"PK": {"S": "NEW"}, "SK": {"S": "1"}},
  "AttributeUpdates": {"v": {"Value": {"N": "1"}}}, "Expected": {"v": {"Value": {"N": "1"}}}}');
SELECT try_api('UpdateItem', '{"TableName": "LegacyWrite", "Key": {"PK": {"S": "NEW"}, "SK": {"S": "1"}},
  "AttributeUpdates": {"v": {"Value": {"N": "1"}}}, "ReturnValues": "ALL_NEW",
  "Expected": {"v": {"ComparisonOperator": "NE", "AttributeValueList": [{"N": "1"}]}}}');
SELECT try_api('PutItem', '{"TableName": "LegacyWrite", "Item": {"PK": {"S": "NEW"}, "SK": {"S": "2"}},
  "Expected": {"PK": {"ComparisonOperator": "NULL"}, "SK": {"ComparisonOperator": "NULL"}}}');

-- ---------- DeleteItem ----------

SELECT try_api('DeleteItem', '{"TableName": "LegacyWrite", "Key": {"PK": {"S": "NEW"}, "SK": {"S": "1"}},
  "ReturnValues": "ALL_OLD", "Expected": {"v": {"ComparisonOperator": "GT", "AttributeValueList": [{"N": "1"}]}}}');
-- The item that failed the condition comes back in the error's DETAIL when asked for.
SELECT st_api('DeleteItem', '{"TableName": "LegacyWrite", "Key": {"PK": {"S": "NEW"}, "SK": {"S": "1"}},
  "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
  "Expected": {"v": {"ComparisonOperator": "GT", "AttributeValueList": [{"N": "1"}]}}}');
SELECT st_api('DeleteItem', '{"TableName": "LegacyWrite", "Key": {"PK": {"S": "NEW"}, "SK": {"S": "1"}},
  "ReturnValues": "ALL_OLD", "Expected": {"v": {"ComparisonOperator": "BETWEEN", "AttributeValueList": [{"N": "0"}, {"N": "1"}]}}}');
SELECT st_api('DeleteItem', '{"TableName": "LegacyWrite", "Key": {"PK": {"S": "NEW"}, "SK": {"S": "2"}},
  "ReturnValues": "ALL_OLD", "Expected": {"PK": {"Value": {"S": "NEW"}}}}');

-- ---------- AttributeUpdates ----------

-- On an item that does not exist: it is created from its key. PUT is the
-- default Action; ADD of a number starts from 0, ADD of a set creates it.
SELECT st_api('UpdateItem', '{"TableName": "LegacyWrite", "Key": {"PK": {"S": "U"}, "SK": {"S": "1"}},
  "ReturnValues": "ALL_NEW",
  "AttributeUpdates": {"name": {"Value": {"S": "first"}}, "count": {"Action": "ADD", "Value": {"N": "5"}},
                       "tags": {"Action": "ADD", "Value": {"SS": ["a"]}}, "gone": {"Action": "DELETE"}}}');
-- Every ReturnValues, each on its own update.
SELECT st_api('UpdateItem', '{"TableName": "LegacyWrite", "Key": {"PK": {"S": "U"}, "SK": {"S": "1"}},
  "ReturnValues": "NONE", "AttributeUpdates": {"count": {"Action": "ADD", "Value": {"N": "1.50"}}}}');
SELECT st_api('UpdateItem', '{"TableName": "LegacyWrite", "Key": {"PK": {"S": "U"}, "SK": {"S": "1"}},
  "ReturnValues": "ALL_OLD", "AttributeUpdates": {"count": {"Action": "ADD", "Value": {"N": "-0.5"}}}}');
SELECT st_api('UpdateItem', '{"TableName": "LegacyWrite", "Key": {"PK": {"S": "U"}, "SK": {"S": "1"}},
  "ReturnValues": "UPDATED_OLD",
  "AttributeUpdates": {"tags": {"Action": "ADD", "Value": {"SS": ["b", "a"]}}, "name": {"Action": "PUT", "Value": {"S": "second"}},
                       "fresh": {"Action": "PUT", "Value": {"BOOL": true}}}}');
SELECT st_api('UpdateItem', '{"TableName": "LegacyWrite", "Key": {"PK": {"S": "U"}, "SK": {"S": "1"}},
  "ReturnValues": "UPDATED_NEW",
  "AttributeUpdates": {"ids": {"Action": "ADD", "Value": {"NS": ["3", "1"]}}, "log": {"Action": "ADD", "Value": {"L": [{"S": "one"}]}},
                       "fresh": {"Action": "DELETE"}}}');
-- ADD of a list appends; DELETE takes members out of a set, and a set left
-- empty disappears; DELETE of an absent attribute changes nothing.
SELECT st_api('UpdateItem', '{"TableName": "LegacyWrite", "Key": {"PK": {"S": "U"}, "SK": {"S": "1"}},
  "ReturnValues": "ALL_NEW",
  "AttributeUpdates": {"log": {"Action": "ADD", "Value": {"L": [{"S": "two"}, {"N": "3"}]}},
                       "tags": {"Action": "DELETE", "Value": {"SS": ["a", "zzz"]}},
                       "ids": {"Action": "DELETE", "Value": {"NS": ["1.0", "3"]}},
                       "nothing": {"Action": "DELETE", "Value": {"SS": ["x"]}}}}');
-- An empty AttributeUpdates changes nothing, but still writes the item (here: creates it).
SELECT st_api('UpdateItem', '{"TableName": "LegacyWrite", "Key": {"PK": {"S": "U"}, "SK": {"S": "2"}},
  "ReturnValues": "ALL_NEW", "AttributeUpdates": {}}');
-- Conditional AttributeUpdates with UPDATED_OLD.
SELECT st_api('UpdateItem', '{"TableName": "LegacyWrite", "Key": {"PK": {"S": "U"}, "SK": {"S": "1"}},
  "ReturnValues": "UPDATED_OLD", "AttributeUpdates": {"name": {"Value": {"S": "third"}}},
  "Expected": {"count": {"ComparisonOperator": "EQ", "AttributeValueList": [{"N": "6"}]}}}');
-- The secondary index follows legacy updates: kind is ByKind's key.
SELECT st_api('UpdateItem', '{"TableName": "LegacyWrite", "Key": {"PK": {"S": "U"}, "SK": {"S": "1"}},
  "AttributeUpdates": {"kind": {"Value": {"S": "user"}}}}');
SELECT st_api('Query', '{"TableName": "LegacyWrite", "IndexName": "ByKind", "AttributesToGet": ["PK", "name"],
  "KeyConditions": {"kind": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "user"}]}}}');

-- Bad AttributeUpdates.
SELECT st_api('UpdateItem', '{"TableName": "LegacyWrite", "Key": {"PK": {"S": "U"}, "SK": {"S": "1"}},
  "AttributeUpdates": {"SK": {"Value": {"S": "2"}}}}');
SELECT st_api('UpdateItem', '{"TableName": "LegacyWrite", "Key": {"PK": {"S": "U"}, "SK": {"S": "1"}},
  "AttributeUpdates": {"kind": {"Value": {"N": "1"}}}}');
SELECT st_api('UpdateItem', '{"TableName": "LegacyWrite", "Key": {"PK": {"S": "U"}, "SK": {"S": "1"}},
  "AttributeUpdates": {"name": {"Action": "PUT"}}}');
SELECT st_api('UpdateItem', '{"TableName": "LegacyWrite", "Key": {"PK": {"S": "U"}, "SK": {"S": "1"}},
  "AttributeUpdates": {"count": {"Action": "ADD"}}}');
SELECT st_api('UpdateItem', '{"TableName": "LegacyWrite", "Key": {"PK": {"S": "U"}, "SK": {"S": "1"}},
  "AttributeUpdates": {"name": {"Action": "DELETE", "Value": {"S": "third"}}}}');
SELECT st_api('UpdateItem', '{"TableName": "LegacyWrite", "Key": {"PK": {"S": "U"}, "SK": {"S": "1"}},
  "AttributeUpdates": {"name": {"Action": "ADD", "Value": {"S": "x"}}}}');
SELECT st_api('UpdateItem', '{"TableName": "LegacyWrite", "Key": {"PK": {"S": "U"}, "SK": {"S": "1"}},
  "AttributeUpdates": {"flag": {"Action": "ADD", "Value": {"BOOL": true}}}}');
SELECT st_api('UpdateItem', '{"TableName": "LegacyWrite", "Key": {"PK": {"S": "U"}, "SK": {"S": "1"}},
  "AttributeUpdates": {"name": {"Action": "REPLACE", "Value": {"S": "x"}}}}');
SELECT st_api('UpdateItem', '{"TableName": "LegacyWrite", "Key": {"PK": {"S": "U"}, "SK": {"S": "1"}},
  "AttributeUpdates": {"name": {"Action": ["PUT"], "Value": {"S": "x"}}}}');
SELECT st_api('UpdateItem', '{"TableName": "LegacyWrite", "Key": {"PK": {"S": "U"}, "SK": {"S": "1"}},
  "AttributeUpdates": {"name": {"Value": {"SS": []}}}}');
SELECT st_api('UpdateItem', '{"TableName": "LegacyWrite", "Key": {"PK": {"S": "U"}, "SK": {"S": "1"}},
  "AttributeUpdates": {"name": "x"}}');
-- Types that do not match the item: the legacy wording.
SELECT st_api('UpdateItem', '{"TableName": "LegacyWrite", "Key": {"PK": {"S": "U"}, "SK": {"S": "1"}},
  "AttributeUpdates": {"name": {"Action": "ADD", "Value": {"N": "1"}}}}');
SELECT st_api('UpdateItem', '{"TableName": "LegacyWrite", "Key": {"PK": {"S": "U"}, "SK": {"S": "1"}},
  "AttributeUpdates": {"count": {"Action": "ADD", "Value": {"SS": ["a"]}}}}');
SELECT st_api('UpdateItem', '{"TableName": "LegacyWrite", "Key": {"PK": {"S": "U"}, "SK": {"S": "1"}},
  "AttributeUpdates": {"count": {"Action": "ADD", "Value": {"L": [{"N": "1"}]}}}}');
SELECT st_api('UpdateItem', '{"TableName": "LegacyWrite", "Key": {"PK": {"S": "U"}, "SK": {"S": "1"}},
  "AttributeUpdates": {"count": {"Action": "DELETE", "Value": {"NS": ["6"]}}}}');
-- Nothing of the failed updates was written.
SELECT st_api('GetItem', '{"TableName": "LegacyWrite", "Key": {"PK": {"S": "U"}, "SK": {"S": "1"}}}');

-- ---------- mixing with expressions ----------

SELECT st_api('UpdateItem', '{"TableName": "LegacyWrite", "Key": {"PK": {"S": "U"}, "SK": {"S": "1"}},
  "AttributeUpdates": {"name": {"Value": {"S": "x"}}}, "UpdateExpression": "SET #n = :v",
  "ExpressionAttributeNames": {"#n": "name"}, "ExpressionAttributeValues": {":v": {"S": "y"}}}');
SELECT st_api('UpdateItem', '{"TableName": "LegacyWrite", "Key": {"PK": {"S": "U"}, "SK": {"S": "1"}},
  "AttributeUpdates": {"name": {"Value": {"S": "x"}}}, "ConditionExpression": "attribute_exists(PK)"}');
SELECT st_api('UpdateItem', '{"TableName": "LegacyWrite", "Key": {"PK": {"S": "U"}, "SK": {"S": "1"}},
  "UpdateExpression": "SET note = :v", "ExpressionAttributeValues": {":v": {"S": "y"}},
  "Expected": {"name": {"Exists": true, "Value": {"S": "third"}}}, "ConditionalOperator": "AND"}');
SELECT st_api('PutItem', '{"TableName": "LegacyWrite", "Item": {"PK": {"S": "U"}, "SK": {"S": "9"}},
  "Expected": {"PK": {"Exists": false}}, "ConditionExpression": "attribute_not_exists(PK)"}');
SELECT st_api('DeleteItem', '{"TableName": "LegacyWrite", "Key": {"PK": {"S": "U"}, "SK": {"S": "9"}},
  "ConditionalOperator": "OR", "ConditionExpression": "attribute_exists(PK)"}');
-- ExpressionAttributeValues belong to expressions only.
SELECT st_api('UpdateItem', '{"TableName": "LegacyWrite", "Key": {"PK": {"S": "U"}, "SK": {"S": "1"}},
  "AttributeUpdates": {"name": {"Value": {"S": "x"}}}, "ExpressionAttributeValues": {":v": {"S": "y"}}}');
-- ConditionalOperator needs an Expected, and is AND or OR.
SELECT st_api('PutItem', '{"TableName": "LegacyWrite", "Item": {"PK": {"S": "U"}, "SK": {"S": "9"}},
  "ConditionalOperator": "OR"}');
SELECT st_api('PutItem', '{"TableName": "LegacyWrite", "Item": {"PK": {"S": "U"}, "SK": {"S": "9"}},
  "ConditionalOperator": "or", "Expected": {"PK": {"Exists": false}}}');

-- ---------- malformed Expected ----------

SELECT st_api('PutItem', '{"TableName": "LegacyWrite", "Item": {"PK": {"S": "U"}, "SK": {"S": "9"}},
  "Expected": {"a": {"Exists": true}}}');
SELECT st_api('PutItem', '{"TableName": "LegacyWrite", "Item": {"PK": {"S": "U"}, "SK": {"S": "9"}},
  "Expected": {"a": {}}}');
SELECT st_api('PutItem', '{"TableName": "LegacyWrite", "Item": {"PK": {"S": "U"}, "SK": {"S": "9"}},
  "Expected": {"a": {"Exists": false, "Value": {"S": "x"}}}}');
SELECT st_api('PutItem', '{"TableName": "LegacyWrite", "Item": {"PK": {"S": "U"}, "SK": {"S": "9"}},
  "Expected": {"a": {"Value": {"S": "x"}, "ComparisonOperator": "EQ", "AttributeValueList": [{"S": "x"}]}}}');
SELECT st_api('PutItem', '{"TableName": "LegacyWrite", "Item": {"PK": {"S": "U"}, "SK": {"S": "9"}},
  "Expected": {"a": {"Exists": true, "ComparisonOperator": "NOT_NULL"}}}');
SELECT st_api('PutItem', '{"TableName": "LegacyWrite", "Item": {"PK": {"S": "U"}, "SK": {"S": "9"}},
  "Expected": {"a": {"AttributeValueList": [{"S": "x"}]}}}');
SELECT st_api('PutItem', '{"TableName": "LegacyWrite", "Item": {"PK": {"S": "U"}, "SK": {"S": "9"}},
  "Expected": {"a": {"ComparisonOperator": "GE"}}}');
SELECT st_api('PutItem', '{"TableName": "LegacyWrite", "Item": {"PK": {"S": "U"}, "SK": {"S": "9"}},
  "Expected": {"a": {"ComparisonOperator": "NOT_NULL", "AttributeValueList": [{"S": "x"}]}}}');
SELECT st_api('PutItem', '{"TableName": "LegacyWrite", "Item": {"PK": {"S": "U"}, "SK": {"S": "9"}},
  "Expected": {"a": {"ComparisonOperator": "BETWEEN", "AttributeValueList": [{"N": "1"}, {"N": "2"}, {"N": "3"}]}}}');
SELECT st_api('PutItem', '{"TableName": "LegacyWrite", "Item": {"PK": {"S": "U"}, "SK": {"S": "9"}},
  "Expected": {"a": {"ComparisonOperator": "IN", "AttributeValueList": []}}}');
SELECT st_api('PutItem', '{"TableName": "LegacyWrite", "Item": {"PK": {"S": "U"}, "SK": {"S": "9"}},
  "Expected": {"a": {"ComparisonOperator": "GT", "AttributeValueList": [{"NS": ["1"]}]}}}');
SELECT st_api('PutItem', '{"TableName": "LegacyWrite", "Item": {"PK": {"S": "U"}, "SK": {"S": "9"}},
  "Expected": {"a": {"ComparisonOperator": "BEGINS_WITH", "Value": {"BOOL": true}}}}');
SELECT st_api('PutItem', '{"TableName": "LegacyWrite", "Item": {"PK": {"S": "U"}, "SK": {"S": "9"}},
  "Expected": {"a": {"ComparisonOperator": "IN", "AttributeValueList": [{"S": "x"}, {"B": "eA=="}]}}}');
SELECT st_api('PutItem', '{"TableName": "LegacyWrite", "Item": {"PK": {"S": "U"}, "SK": {"S": "9"}},
  "Expected": {"a": {"ComparisonOperator": "BETWEEN", "AttributeValueList": [{"N": "2"}, {"N": "1"}]}}}');
SELECT st_api('PutItem', '{"TableName": "LegacyWrite", "Item": {"PK": {"S": "U"}, "SK": {"S": "9"}},
  "Expected": {"a": {"ComparisonOperator": "GREATER", "AttributeValueList": [{"N": "2"}]}}}');
SELECT st_api('PutItem', '{"TableName": "LegacyWrite", "Item": {"PK": {"S": "U"}, "SK": {"S": "9"}},
  "Expected": {"a": {"Exists": "yes", "Value": {"S": "x"}}}}');
SELECT st_api('PutItem', '{"TableName": "LegacyWrite", "Item": {"PK": {"S": "U"}, "SK": {"S": "9"}},
  "Expected": {"a": {"Value": {"S": "x", "N": "1"}}}}');
SELECT st_api('PutItem', '{"TableName": "LegacyWrite", "Item": {"PK": {"S": "U"}, "SK": {"S": "9"}},
  "Expected": {"a": {"Value": "x"}}}');
SELECT st_api('PutItem', '{"TableName": "LegacyWrite", "Item": {"PK": {"S": "U"}, "SK": {"S": "9"}},
  "Expected": ["a"]}');
-- An empty Expected expects nothing.
SELECT st_api('PutItem', '{"TableName": "LegacyWrite", "Item": {"PK": {"S": "U"}, "SK": {"S": "9"}},
  "ReturnValues": "ALL_OLD", "Expected": {}}');
-- The table: none of the refused writes happened.
SELECT pk, sk, item FROM stdesign_data."LegacyWrite" ORDER BY pk, sk;

DROP FUNCTION try_api(text, jsonb);
SELECT st_drop_table('LegacyWrite');
