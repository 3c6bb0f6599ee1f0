-- BatchGetItem and BatchWriteItem through st_api, st_batch_get and
-- st_batch_write: requests across tables, projections, capacity, and every
-- rule DynamoDB checks before anything runs (sizes, duplicates, schemas).

SELECT st_api('CreateTable', '{"TableName": "BatchA", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "SK", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}]}')
  #>> '{TableDescription,TableStatus}' AS status;
SELECT st_api('CreateTable', '{"TableName": "BatchB", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "N"}],
  "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}]}')
  #>> '{TableDescription,TableStatus}' AS status;

-- BatchWriteItem: puts and deletes across two tables.
SELECT st_api('BatchWriteItem', '{"RequestItems": {
  "BatchA": [
    {"PutRequest": {"Item": {"PK": {"S": "u1"}, "SK": {"S": "a"}, "n": {"N": "1"}, "tags": {"SS": ["x", "y"]}}}},
    {"PutRequest": {"Item": {"PK": {"S": "u1"}, "SK": {"S": "b"}, "n": {"N": "2"}, "deep": {"M": {"k": {"L": [{"BOOL": true}]}}}}}},
    {"PutRequest": {"Item": {"PK": {"S": "u2"}, "SK": {"S": "a"}, "n": {"N": "3"}}}}],
  "BatchB": [
    {"PutRequest": {"Item": {"id": {"N": "1"}, "name": {"S": "one"}}}},
    {"PutRequest": {"Item": {"id": {"N": "2"}, "name": {"S": "two"}}}},
    {"DeleteRequest": {"Key": {"id": {"N": "3"}}}}]}}');
SELECT pk, sk, item FROM stdesign_data."BatchA" ORDER BY pk, sk;
SELECT pk, item FROM stdesign_data."BatchB" ORDER BY pk;

-- A delete and a put in one batch; ConsumedCapacity (one entry per table).
SELECT st_api('BatchWriteItem', '{"ReturnConsumedCapacity": "TOTAL", "RequestItems": {
  "BatchB": [{"DeleteRequest": {"Key": {"id": {"N": "2"}}}},
             {"PutRequest": {"Item": {"id": {"N": "4"}, "name": {"S": "four"}}}}],
  "BatchA": [{"DeleteRequest": {"Key": {"PK": {"S": "u2"}, "SK": {"S": "a"}}}}]}}');
SELECT pk FROM stdesign_data."BatchB" ORDER BY pk;

-- BatchGetItem: found items per table (typed), missing keys left out.
SELECT jsonb_pretty(st_api('BatchGetItem', '{"RequestItems": {
  "BatchA": {"Keys": [{"PK": {"S": "u1"}, "SK": {"S": "a"}}, {"PK": {"S": "u9"}, "SK": {"S": "a"}}]},
  "BatchB": {"Keys": [{"id": {"N": "1"}}, {"id": {"N": "4"}}]}}}')) AS batch_get;
-- Nothing found: the table is still in Responses, with no items.
SELECT st_api('BatchGetItem', '{"RequestItems": {"BatchB": {"Keys": [{"id": {"N": "99"}}]}}}');
-- Projections: ProjectionExpression with names, or AttributesToGet.
SELECT st_api('BatchGetItem', '{"RequestItems": {"BatchA": {
  "Keys": [{"PK": {"S": "u1"}, "SK": {"S": "b"}}],
  "ProjectionExpression": "#d.k[0], n", "ExpressionAttributeNames": {"#d": "deep"}}}}');
SELECT st_api('BatchGetItem', '{"RequestItems": {"BatchB": {
  "Keys": [{"id": {"N": "1"}}, {"id": {"N": "4"}}], "AttributesToGet": ["name"], "ConsistentRead": true}}}');
-- Capacity: each item rounded up on its own; eventually consistent by default.
SELECT st_api('BatchGetItem', '{"ReturnConsumedCapacity": "TOTAL", "RequestItems": {
  "BatchA": {"Keys": [{"PK": {"S": "u1"}, "SK": {"S": "a"}}, {"PK": {"S": "u1"}, "SK": {"S": "b"}}]},
  "BatchB": {"Keys": [{"id": {"N": "1"}}], "ConsistentRead": true}}}') -> 'ConsumedCapacity' AS capacity;

-- st_batch_get and st_batch_write take RequestItems alone.
SELECT st_batch_write('{"BatchB": [{"PutRequest": {"Item": {"id": {"N": "5"}, "name": {"S": "five"}}}}]}');
SELECT st_batch_get('{"BatchB": {"Keys": [{"id": {"N": "5"}}]}}');
SELECT st_batch_get(NULL);
SELECT st_batch_write('{}');

-- BatchGetItem errors.
SELECT st_api('BatchGetItem', '{}');
SELECT st_api('BatchGetItem', '{"RequestItems": []}');
SELECT st_api('BatchGetItem', '{"RequestItems": {}}');
SELECT st_api('BatchGetItem', '{"RequestItems": {"BatchB": {}}}');
SELECT st_api('BatchGetItem', '{"RequestItems": {"BatchB": {"Keys": []}}}');
SELECT st_api('BatchGetItem', '{"RequestItems": {"BatchB": {"Keys": [{"id": {"N": "1"}}, {"id": {"N": "1.0"}}]}}}');
SELECT st_api('BatchGetItem', '{"RequestItems": {"Missing": {"Keys": [{"id": {"N": "1"}}]}}}');
SELECT st_api('BatchGetItem', '{"RequestItems": {"ab": {"Keys": [{"id": {"N": "1"}}]}}}');
SELECT st_api('BatchGetItem', '{"RequestItems": {"BatchB": {"Keys": [{"id": {"S": "1"}}]}}}');
SELECT st_api('BatchGetItem', '{"RequestItems": {"BatchA": {"Keys": [{"PK": {"S": "u1"}}]}}}');
SELECT st_api('BatchGetItem', '{"RequestItems": {"BatchB": {"Keys": [{"id": {"N": "1"}}],
  "AttributesToGet": ["name"], "ProjectionExpression": "name"}}}');
SELECT st_api('BatchGetItem', '{"RequestItems": {"BatchB": {"Keys": [{"id": {"N": "1"}}],
  "AttributesToGet": ["name", "name"]}}}');
SELECT st_api('BatchGetItem', '{"RequestItems": {"BatchB": {"Keys": [{"id": {"N": "1"}}],
  "ExpressionAttributeNames": {"#n": "name"}}}}');
SELECT st_api('BatchGetItem', '{"RequestItems": {"BatchB": {"Keys": [{"id": {"N": "1"}}],
  "ProjectionExpression": "#n"}}}');
SELECT st_api('BatchGetItem', '{"RequestItems": {"BatchB": {"Keys": [{"id": {"N": "1"}}], "ConsistentRead": "yes"}}}');
SELECT st_api('BatchGetItem', '{"ReturnConsumedCapacity": "ALL", "RequestItems": {"BatchB": {"Keys": [{"id": {"N": "1"}}]}}}');
-- At most 100 keys: in one table, then across tables.
SELECT st_api('BatchGetItem', jsonb_build_object('RequestItems', jsonb_build_object('BatchB', jsonb_build_object(
  'Keys', (SELECT jsonb_agg(jsonb_build_object('id', jsonb_build_object('N', i::text))) FROM generate_series(1, 101) i)))));
SELECT st_api('BatchGetItem', jsonb_build_object('RequestItems', jsonb_build_object(
  'BatchB', jsonb_build_object('Keys',
    (SELECT jsonb_agg(jsonb_build_object('id', jsonb_build_object('N', i::text))) FROM generate_series(1, 60) i)),
  'BatchA', jsonb_build_object('Keys',
    (SELECT jsonb_agg(jsonb_build_object('PK', jsonb_build_object('S', 'p' || i), 'SK', jsonb_build_object('S', 's')))
       FROM generate_series(1, 41) i)))));
-- Exactly 100 is fine.
SELECT jsonb_array_length(st_api('BatchGetItem', jsonb_build_object('RequestItems', jsonb_build_object(
  'BatchB', jsonb_build_object('Keys',
    (SELECT jsonb_agg(jsonb_build_object('id', jsonb_build_object('N', i::text))) FROM generate_series(1, 100) i))))) #> '{Responses,BatchB}') AS found;

-- BatchWriteItem errors: nothing is written when any element is wrong.
SELECT st_api('BatchWriteItem', '{}');
SELECT st_api('BatchWriteItem', '{"RequestItems": {}}');
SELECT st_api('BatchWriteItem', '{"RequestItems": {"BatchB": []}}');
SELECT st_api('BatchWriteItem', '{"RequestItems": {"BatchB": {}}}');
SELECT st_api('BatchWriteItem', '{"RequestItems": {"BatchB": [{}]}}');
SELECT st_api('BatchWriteItem', '{"RequestItems": {"BatchB": [
  {"PutRequest": {"Item": {"id": {"N": "7"}}}, "DeleteRequest": {"Key": {"id": {"N": "7"}}}}]}}');
SELECT st_api('BatchWriteItem', '{"RequestItems": {"BatchB": [{"PutRequest": {}}]}}');
SELECT st_api('BatchWriteItem', '{"RequestItems": {"BatchB": [{"DeleteRequest": {}}]}}');
SELECT st_api('BatchWriteItem', '{"RequestItems": {"BatchB": [
  {"PutRequest": {"Item": {"id": {"N": "8"}}}},
  {"DeleteRequest": {"Key": {"id": {"N": "8"}}}}]}}');
SELECT st_api('BatchWriteItem', '{"RequestItems": {"BatchB": [
  {"PutRequest": {"Item": {"id": {"N": "8"}}}},
  {"PutRequest": {"Item": {"id": {"N": "8"}, "x": {"S": "other"}}}}]}}');
-- The same key in two tables is two items.
SELECT st_api('BatchWriteItem', '{"RequestItems": {
  "BatchB": [{"PutRequest": {"Item": {"id": {"N": "8"}}}}],
  "BatchA": [{"PutRequest": {"Item": {"PK": {"S": "8"}, "SK": {"S": "8"}}}}]}}');
SELECT st_api('BatchWriteItem', '{"RequestItems": {"BatchB": [
  {"PutRequest": {"Item": {"id": {"N": "9"}}}},
  {"PutRequest": {"Item": {"name": {"S": "no key"}}}}]}}');
SELECT st_api('BatchWriteItem', '{"RequestItems": {"BatchB": [
  {"PutRequest": {"Item": {"id": {"N": "9"}}}},
  {"DeleteRequest": {"Key": {"id": {"N": "10"}, "name": {"S": "extra"}}}}]}}');
SELECT st_api('BatchWriteItem', '{"RequestItems": {"BatchB": [
  {"PutRequest": {"Item": {"id": {"N": "9"}}}}],
  "Missing": [{"PutRequest": {"Item": {"id": {"N": "9"}}}}]}}');
SELECT st_api('BatchWriteItem', '{"RequestItems": {"BatchB": [
  {"PutRequest": {"Item": {"id": {"N": "9"}, "big": {"S": "x"}}}}]}, "ReturnItemCollectionMetrics": "ALL"}');
SELECT count(*) AS nothing_written FROM stdesign_data."BatchB" WHERE pk = 9;
-- At most 25 requests: in one table, then across tables.
SELECT st_api('BatchWriteItem', jsonb_build_object('RequestItems', jsonb_build_object('BatchB',
  (SELECT jsonb_agg(jsonb_build_object('PutRequest', jsonb_build_object('Item',
     jsonb_build_object('id', jsonb_build_object('N', i::text))))) FROM generate_series(101, 126) i))));
SELECT st_api('BatchWriteItem', jsonb_build_object('RequestItems', jsonb_build_object(
  'BatchB', (SELECT jsonb_agg(jsonb_build_object('PutRequest', jsonb_build_object('Item',
     jsonb_build_object('id', jsonb_build_object('N', i::text))))) FROM generate_series(101, 115) i),
  'BatchA', (SELECT jsonb_agg(jsonb_build_object('PutRequest', jsonb_build_object('Item',
     jsonb_build_object('PK', jsonb_build_object('S', 'p' || i), 'SK', jsonb_build_object('S', 's')))))
     FROM generate_series(1, 11) i))));
-- Exactly 25 is fine.
SELECT st_api('BatchWriteItem', jsonb_build_object('RequestItems', jsonb_build_object('BatchB',
  (SELECT jsonb_agg(jsonb_build_object('PutRequest', jsonb_build_object('Item',
     jsonb_build_object('id', jsonb_build_object('N', i::text))))) FROM generate_series(101, 125) i))));
SELECT count(*) AS written FROM stdesign_data."BatchB" WHERE pk > 100;

-- A batch is part of the caller's transaction.
BEGIN;
SELECT st_batch_write('{"BatchB": [{"DeleteRequest": {"Key": {"id": {"N": "1"}}}}]}');
ROLLBACK;
SELECT st_batch_get('{"BatchB": {"Keys": [{"id": {"N": "1"}}]}}') #> '{Responses,BatchB}' AS still_there;

SELECT st_api('DeleteTable', '{"TableName": "BatchA"}') #>> '{TableDescription,TableStatus}' AS status;
SELECT st_api('DeleteTable', '{"TableName": "BatchB"}') #>> '{TableDescription,TableStatus}' AS status;
