-- Item collections of tables with a local secondary index: ItemCollectionMetrics
-- when ReturnItemCollectionMetrics is SIZE (PutItem, UpdateItem, DeleteItem,
-- BatchWriteItem, TransactWriteItems), and the limit on a collection's size
-- (DynamoDB's 10 GB, lowered here with stdesign.item_collection_size_limit):
-- the items of a partition key value plus their LSI entries (keys and
-- projected attributes, plus 100 bytes each).

SELECT st_api('CreateTable', '{"TableName": "Collected", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "SK", "AttributeType": "S"},
                           {"AttributeName": "L", "AttributeType": "S"}, {"AttributeName": "G", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
  "LocalSecondaryIndexes": [{"IndexName": "ByL", "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"},
                                                               {"AttributeName": "L", "KeyType": "RANGE"}],
                             "Projection": {"ProjectionType": "KEYS_ONLY"}}],
  "GlobalSecondaryIndexes": [{"IndexName": "ByG", "KeySchema": [{"AttributeName": "G", "KeyType": "HASH"}],
                              "Projection": {"ProjectionType": "ALL"}}]}') IS NOT NULL AS created;
SELECT st_api('CreateTable', '{"TableName": "NoLsi", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "SK", "AttributeType": "S"},
                           {"AttributeName": "G", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
  "GlobalSecondaryIndexes": [{"IndexName": "ByG", "KeySchema": [{"AttributeName": "G", "KeyType": "HASH"}],
                              "Projection": {"ProjectionType": "ALL"}}]}') IS NOT NULL AS created;

SELECT current_setting('stdesign.item_collection_size_limit') AS default_limit;

-- The metrics: the collection's partition key (typed) and its size in GB
-- as a range.
SELECT st_api('PutItem', '{"TableName": "Collected", "ReturnItemCollectionMetrics": "SIZE",
  "Item": {"PK": {"S": "a"}, "SK": {"S": "1"}, "L": {"S": "x"}, "d": {"S": "0123456789"}}}');
SELECT st_api('UpdateItem', '{"TableName": "Collected", "ReturnItemCollectionMetrics": "SIZE", "ReturnValues": "UPDATED_NEW",
  "Key": {"PK": {"S": "a"}, "SK": {"S": "2"}}, "UpdateExpression": "SET d = :d",
  "ExpressionAttributeValues": {":d": {"S": "abc"}}}');
SELECT st_api('DeleteItem', '{"TableName": "Collected", "ReturnItemCollectionMetrics": "SIZE",
  "Key": {"PK": {"S": "a"}, "SK": {"S": "2"}}}');
-- NONE, or not asked: none.
SELECT st_api('PutItem', '{"TableName": "Collected", "ReturnItemCollectionMetrics": "NONE",
  "Item": {"PK": {"S": "a"}, "SK": {"S": "2"}}}');
SELECT st_api('DeleteItem', '{"TableName": "Collected", "Key": {"PK": {"S": "a"}, "SK": {"S": "2"}}}');
-- A table without an LSI has no item collections: none either.
SELECT st_api('PutItem', '{"TableName": "NoLsi", "ReturnItemCollectionMetrics": "SIZE",
  "Item": {"PK": {"S": "a"}, "SK": {"S": "1"}}}');
-- Batches and transactions: per table with an LSI, one per write, in order.
SELECT st_api('BatchWriteItem', '{"ReturnItemCollectionMetrics": "SIZE", "RequestItems": {
  "Collected": [{"PutRequest": {"Item": {"PK": {"S": "b"}, "SK": {"S": "1"}}}},
                {"DeleteRequest": {"Key": {"PK": {"S": "a"}, "SK": {"S": "9"}}}}],
  "NoLsi": [{"PutRequest": {"Item": {"PK": {"S": "b"}, "SK": {"S": "1"}}}}]}}');
SELECT st_api('BatchWriteItem', '{"ReturnItemCollectionMetrics": "SIZE", "RequestItems": {
  "NoLsi": [{"PutRequest": {"Item": {"PK": {"S": "c"}, "SK": {"S": "1"}}}}]}}');
SELECT st_api('TransactWriteItems', '{"ReturnItemCollectionMetrics": "SIZE", "TransactItems": [
  {"Put": {"TableName": "Collected", "Item": {"PK": {"S": "c"}, "SK": {"S": "1"}}}},
  {"ConditionCheck": {"TableName": "Collected", "Key": {"PK": {"S": "b"}, "SK": {"S": "1"}},
                      "ConditionExpression": "attribute_exists(PK)"}},
  {"Update": {"TableName": "Collected", "Key": {"PK": {"S": "a"}, "SK": {"S": "1"}}, "UpdateExpression": "SET n = :n",
              "ExpressionAttributeValues": {":n": {"N": "1"}}}},
  {"Delete": {"TableName": "NoLsi", "Key": {"PK": {"S": "c"}, "SK": {"S": "1"}}}}]}');
SELECT st_api('TransactWriteItems', '{"TransactItems": [
  {"Put": {"TableName": "Collected", "Item": {"PK": {"S": "c"}, "SK": {"S": "2"}}}}]}');
-- Bad input (the model's enum).
SELECT st_api('PutItem', '{"TableName": "Collected", "ReturnItemCollectionMetrics": "size",
  "Item": {"PK": {"S": "a"}, "SK": {"S": "1"}}}');
SELECT st_api('BatchWriteItem', '{"ReturnItemCollectionMetrics": "ALL", "RequestItems": {
  "Collected": [{"PutRequest": {"Item": {"PK": {"S": "b"}, "SK": {"S": "1"}}}}]}}');
SELECT st_api('TransactWriteItems', '{"ReturnItemCollectionMetrics": 1, "TransactItems": [
  {"Put": {"TableName": "Collected", "Item": {"PK": {"S": "c"}, "SK": {"S": "1"}}}}]}');
SET stdesign.item_collection_size_limit = -1;
SET stdesign.item_collection_size_limit = 'big';

-- The limit.  Partition "full" starts empty; an item {PK: "full", SK: "1",
-- L: "x", d: n characters} is 12 + n bytes, its LSI entry (PK, SK, L) 11
-- bytes plus 100: 123 + n in all.  With a limit of 1 kB (1024 bytes),
-- n = 901 fits exactly and one byte more does not.
SET stdesign.item_collection_size_limit = '1kB';
SELECT st_api('PutItem', jsonb_build_object('TableName', 'Collected',
  'Item', jsonb_build_object('PK', '{"S": "full"}'::jsonb, 'SK', '{"S": "1"}'::jsonb, 'L', '{"S": "x"}'::jsonb,
                             'd', jsonb_build_object('S', repeat('z', 902)))));
SELECT st_api('PutItem', jsonb_build_object('TableName', 'Collected',
  'Item', jsonb_build_object('PK', '{"S": "full"}'::jsonb, 'SK', '{"S": "1"}'::jsonb, 'L', '{"S": "x"}'::jsonb,
                             'd', jsonb_build_object('S', repeat('z', 901)))));
SELECT count(*) AS items_in_full FROM stdesign_data."Collected" WHERE pk = 'full';
-- Any write that grows it is refused: a new item, an update, a friendly
-- st_put, a batch, a transaction (cancelled with the reason), st_put_all.
SELECT st_api('PutItem', '{"TableName": "Collected", "Item": {"PK": {"S": "full"}, "SK": {"S": "2"}}}');
SELECT st_api('UpdateItem', '{"TableName": "Collected", "Key": {"PK": {"S": "full"}, "SK": {"S": "1"}},
  "UpdateExpression": "SET e = :e", "ExpressionAttributeValues": {":e": {"S": "y"}}}');
SELECT st_put('{"PK": "full", "SK": "3"}', 'Collected');
SELECT st_api('BatchWriteItem', '{"RequestItems": {"Collected": [
  {"PutRequest": {"Item": {"PK": {"S": "other"}, "SK": {"S": "1"}}}},
  {"PutRequest": {"Item": {"PK": {"S": "full"}, "SK": {"S": "4"}}}}]}}');
SELECT st_api('TransactWriteItems', '{"TransactItems": [
  {"Put": {"TableName": "Collected", "Item": {"PK": {"S": "other"}, "SK": {"S": "1"}}}},
  {"Put": {"TableName": "Collected", "Item": {"PK": {"S": "full"}, "SK": {"S": "5"}}}}]}');
SELECT st_put_all('{"PK": "full", "SK": "6"}'::jsonb, 'Collected');
SELECT count(*) AS still_one, count(*) FILTER (WHERE pk = 'other') AS no_other
  FROM stdesign_data."Collected" WHERE pk IN ('full', 'other');
-- An item without the LSI's sort key has no LSI entry: the collection is
-- now 12 + 901 - 2 = 911 bytes; the 113 bytes freed fit an item of 113
-- bytes ({PK: "full", SK: "2", p: 103 characters}), not one of 114.
SELECT st_api('UpdateItem', '{"TableName": "Collected", "Key": {"PK": {"S": "full"}, "SK": {"S": "1"}},
  "UpdateExpression": "REMOVE L", "ReturnValues": "NONE", "ReturnItemCollectionMetrics": "SIZE"}');
SELECT st_item_size(jsonb_build_object('PK', 'full', 'SK', '2', 'p', repeat('p', 103))) AS size;
SELECT st_api('PutItem', jsonb_build_object('TableName', 'Collected', 'Item',
  jsonb_build_object('PK', '{"S": "full"}'::jsonb, 'SK', '{"S": "2"}'::jsonb, 'p', jsonb_build_object('S', repeat('p', 104)))));
SELECT st_api('PutItem', jsonb_build_object('TableName', 'Collected', 'ReturnItemCollectionMetrics', 'SIZE', 'Item',
  jsonb_build_object('PK', '{"S": "full"}'::jsonb, 'SK', '{"S": "2"}'::jsonb, 'p', jsonb_build_object('S', repeat('p', 103)))));
-- Deletes are always allowed; other partitions are
-- not affected; a table without an LSI has no limit.
SELECT st_api('DeleteItem', '{"TableName": "Collected", "Key": {"PK": {"S": "full"}, "SK": {"S": "2"}}}');
SELECT st_api('PutItem', '{"TableName": "Collected", "Item": {"PK": {"S": "other"}, "SK": {"S": "1"}, "L": {"S": "x"}}}');
SELECT st_api('PutItem', jsonb_build_object('TableName', 'NoLsi',
  'Item', jsonb_build_object('PK', '{"S": "full"}'::jsonb, 'SK', '{"S": "1"}'::jsonb,
                             'd', jsonb_build_object('S', repeat('z', 5000)))));
-- 0: no limit.
SET stdesign.item_collection_size_limit = 0;
SELECT st_put(jsonb_build_object('PK', 'full', 'SK', '7', 'L', 'x', 'd', repeat('z', 5000)), 'Collected') IS NULL AS no_limit;
SELECT st_api('PutItem', '{"TableName": "Collected", "ReturnItemCollectionMetrics": "SIZE",
  "Item": {"PK": {"S": "full"}, "SK": {"S": "8"}}}');
SET stdesign.item_collection_size_limit = '1kB';
SELECT st_put('{"PK": "full", "SK": "3"}', 'Collected');
RESET stdesign.item_collection_size_limit;
SELECT st_put('{"PK": "full", "SK": "3"}', 'Collected') IS NULL AS fits_again;

SELECT st_drop_table('Collected'), st_drop_table('NoLsi');
