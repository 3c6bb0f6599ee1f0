-- ReturnConsumedCapacity checked against the worked examples of DynamoDB's
-- documentation: reads in 4 KB units (halved when eventually consistent,
-- doubled in transactions; Query sums item sizes before rounding,
-- BatchGetItem rounds each item), writes in 1 KB units of the larger of the
-- old and the new item (doubled in transactions), plus the writes of every
-- secondary index the change touches.

SELECT st_api('CreateTable', '{"TableName": "CapT", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "SK", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}]}')
  #>> '{TableDescription,TableStatus}' AS status;

-- An item of exactly n bytes: PK and SK take 3 bytes each, "pad" 3 + its length.
CREATE FUNCTION sized(pk text, sk text, n integer) RETURNS jsonb LANGUAGE sql AS $$
  SELECT jsonb_build_object('PK', jsonb_build_object('S', pk), 'SK', jsonb_build_object('S', sk),
                            'pad', jsonb_build_object('S', repeat('x', n - 3 - length(pk) - 2 - length(sk) - 2)))
$$;
CREATE FUNCTION put_cc(item jsonb, mode text DEFAULT 'TOTAL') RETURNS jsonb LANGUAGE sql AS $$
  SELECT st_api('PutItem', jsonb_build_object('TableName', 'CapT', 'Item', item,
                                               'ReturnConsumedCapacity', mode)) -> 'ConsumedCapacity'
$$;
SELECT st_item_size(sized('a', '5k', 5120), typed => true) AS five_kb,
       st_item_size(sized('a', '3.5k', 3584), typed => true) AS three_and_a_half_kb;

-- Writes: a 3.5 KB item costs 4 WCU; 1 KB exactly 1, one byte more 2.
SELECT put_cc(sized('a', '3.5k', 3584)) AS put_3_5_kb;
SELECT put_cc(sized('a', '1k', 1024)) AS put_1024_bytes;
SELECT put_cc(sized('a', '1k+', 1025)) AS put_1025_bytes;
-- Overwriting: the larger of old and new (3.5 KB replaced by 100 bytes: 4).
SELECT put_cc(sized('a', '3.5k', 100)) AS overwrite_smaller;
-- A delete of the 1 KB item, and of an item that is not there (still 1).
SELECT st_api('DeleteItem', '{"TableName": "CapT", "Key": {"PK": {"S": "a"}, "SK": {"S": "1k"}},
  "ReturnConsumedCapacity": "TOTAL"}') AS delete_1k;
SELECT st_api('DeleteItem', '{"TableName": "CapT", "Key": {"PK": {"S": "a"}, "SK": {"S": "none"}},
  "ReturnConsumedCapacity": "TOTAL"}') AS delete_missing;

-- Reads: a 5 KB item, strongly consistent 2 RCU, eventually consistent 1.
SELECT put_cc(sized('a', '5k', 5120)) IS NOT NULL AS put;
SELECT st_api('GetItem', '{"TableName": "CapT", "Key": {"PK": {"S": "a"}, "SK": {"S": "5k"}},
  "ConsistentRead": true, "ReturnConsumedCapacity": "TOTAL", "ProjectionExpression": "PK"}') AS get_strong;
SELECT st_api('GetItem', '{"TableName": "CapT", "Key": {"PK": {"S": "a"}, "SK": {"S": "5k"}},
  "ReturnConsumedCapacity": "TOTAL", "ProjectionExpression": "PK"}') AS get_eventual;
-- An 8 KB item: 2 strong, 1 eventual, 4 transactional; a 10 KB item rounds to 12 KB: 3.
SELECT put_cc(sized('a', '8k', 8192)) IS NOT NULL AS put, put_cc(sized('a', '10k', 10240)) IS NOT NULL AS put;
SELECT (SELECT st_api('GetItem', jsonb_build_object('TableName', 'CapT', 'ConsistentRead', c,
          'Key', jsonb_build_object('PK', '{"S": "a"}'::jsonb, 'SK', jsonb_build_object('S', k)),
          'ReturnConsumedCapacity', 'TOTAL')) #> '{ConsumedCapacity,CapacityUnits}') AS units, k AS item, c AS consistent
  FROM (VALUES ('8k'), ('10k')) AS s(k), (VALUES (true), (false)) AS t(c) ORDER BY k DESC, c DESC;
SELECT st_api('TransactGetItems', '{"ReturnConsumedCapacity": "TOTAL", "TransactItems": [
  {"Get": {"TableName": "CapT", "Key": {"PK": {"S": "a"}, "SK": {"S": "8k"}}}}]}') -> 'ConsumedCapacity' AS transact_get_8k;
-- A miss still reads one unit (half when eventually consistent).
SELECT st_api('GetItem', '{"TableName": "CapT", "Key": {"PK": {"S": "a"}, "SK": {"S": "none"}},
  "ReturnConsumedCapacity": "TOTAL"}') AS get_missing;

-- Transactional writes double: the 3.5 KB item in a transaction is 8 WCU.
SELECT st_api('TransactWriteItems', jsonb_build_object('ReturnConsumedCapacity', 'TOTAL', 'TransactItems',
  jsonb_build_array(jsonb_build_object('Put', jsonb_build_object('TableName', 'CapT', 'Item', sized('t', '3.5k', 3584))))))
  AS transact_put_3_5_kb;

-- Query: item sizes summed, then rounded. Partition "q": 1.5 KB + 2.5 KB + 3 KB = 7 KB -> 2 RCU.
SELECT put_cc(sized('q', '1', 1536)) IS NOT NULL AS put, put_cc(sized('q', '2', 2560)) IS NOT NULL AS put,
       put_cc(sized('q', '3', 3072)) IS NOT NULL AS put;
SELECT st_api('Query', '{"TableName": "CapT", "KeyConditionExpression": "PK = :p",
  "ExpressionAttributeValues": {":p": {"S": "q"}}, "ConsistentRead": true, "Select": "COUNT",
  "ReturnConsumedCapacity": "TOTAL"}') AS query_7_kb_strong;
SELECT st_api('Query', '{"TableName": "CapT", "KeyConditionExpression": "PK = :p",
  "ExpressionAttributeValues": {":p": {"S": "q"}}, "Select": "COUNT",
  "ReturnConsumedCapacity": "TOTAL"}') AS query_7_kb_eventual;
-- BatchGetItem rounds each item first: 1.5 KB + 6.5 KB reads as 4 KB + 8 KB = 12 KB -> 3 RCU.
SELECT put_cc(sized('b', '1.5k', 1536)) IS NOT NULL AS put, put_cc(sized('b', '6.5k', 6656)) IS NOT NULL AS put;
SELECT st_api('BatchGetItem', '{"ReturnConsumedCapacity": "TOTAL", "RequestItems": {"CapT": {"ConsistentRead": true,
  "Keys": [{"PK": {"S": "b"}, "SK": {"S": "1.5k"}}, {"PK": {"S": "b"}, "SK": {"S": "6.5k"}}],
  "ProjectionExpression": "SK"}}}') AS batch_get_12_kb;
-- BatchWriteItem: each write on its own.
SELECT st_api('BatchWriteItem', jsonb_build_object('ReturnConsumedCapacity', 'TOTAL', 'RequestItems',
  jsonb_build_object('CapT', jsonb_build_array(
    jsonb_build_object('PutRequest', jsonb_build_object('Item', sized('w', '1', 1500))),
    jsonb_build_object('PutRequest', jsonb_build_object('Item', sized('w', '2', 500))),
    jsonb_build_object('DeleteRequest', jsonb_build_object('Key', '{"PK": {"S": "b"}, "SK": {"S": "6.5k"}}'::jsonb))))))
  AS batch_write;
-- NONE, or no ReturnConsumedCapacity: no ConsumedCapacity.
SELECT put_cc(sized('a', 'n', 10), 'NONE') AS none;

-- Secondary indexes.  GAll projects everything, GKeys only keys, LInc the
-- LSI one attribute: each index write is the size of that index's entry.
SELECT st_api('CreateTable', '{"TableName": "CapIdx", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "SK", "AttributeType": "S"},
    {"AttributeName": "G", "AttributeType": "S"}, {"AttributeName": "L", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
  "GlobalSecondaryIndexes": [
    {"IndexName": "GAll", "KeySchema": [{"AttributeName": "G", "KeyType": "HASH"}], "Projection": {"ProjectionType": "ALL"}},
    {"IndexName": "GKeys", "KeySchema": [{"AttributeName": "G", "KeyType": "HASH"}], "Projection": {"ProjectionType": "KEYS_ONLY"}}],
  "LocalSecondaryIndexes": [
    {"IndexName": "LInc", "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "L", "KeyType": "RANGE"}],
     "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["note"]}}]}')
  #>> '{TableDescription,TableStatus}' AS status;
CREATE FUNCTION upd_cc(update_expr text, vals jsonb DEFAULT NULL) RETURNS jsonb LANGUAGE sql AS $$
  SELECT st_api('UpdateItem', jsonb_build_object('TableName', 'CapIdx', 'Key', '{"PK": {"S": "i"}, "SK": {"S": "1"}}'::jsonb,
                'UpdateExpression', update_expr, 'ReturnConsumedCapacity', 'INDEXES')
                || CASE WHEN vals IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('ExpressionAttributeValues', vals) END)
         -> 'ConsumedCapacity'
$$;
-- Not in any index: the table alone.
SELECT st_api('PutItem', '{"TableName": "CapIdx", "ReturnConsumedCapacity": "INDEXES",
  "Item": {"PK": {"S": "i"}, "SK": {"S": "1"}, "note": {"S": "n"}}}') -> 'ConsumedCapacity' AS outside;
-- INDEXES without indexes touched, and TOTAL: no per-index figures.
SELECT st_api('PutItem', '{"TableName": "CapIdx", "ReturnConsumedCapacity": "TOTAL",
  "Item": {"PK": {"S": "i"}, "SK": {"S": "1"}, "note": {"S": "n"}}}') -> 'ConsumedCapacity' AS total_only;
-- The item enters both GSIs: one write each.
SELECT upd_cc('SET G = :g', '{":g": {"S": "g1"}}') AS enters_gsis;
-- It moves within them (its index key changes): a delete and a put, two each.
SELECT upd_cc('SET G = :g', '{":g": {"S": "g2"}}') AS moves_in_gsis;
-- A non-key attribute changes: GAll rewrites its copy, GKeys holds none.
SELECT upd_cc('SET shade = :o', '{":o": {"S": "x"}}') AS projected_change;
-- Nothing changes at all: no index write (the table write stays).
SELECT upd_cc('SET shade = :o', '{":o": {"S": "x"}}') AS no_change;
-- It enters the LSI (GAll's copy changes too); then "note", which LInc
-- projects, changes.
SELECT upd_cc('SET L = :l', '{":l": {"S": "l1"}}') AS enters_lsi;
SELECT upd_cc('SET note = :n', '{":n": {"S": "changed"}}') AS lsi_projected_change;
-- A 3.5 KB attribute: 4 WCU for the table and for GAll's copy; GKeys's
-- entry (keys only) does not change, so it costs nothing.
SELECT upd_cc('SET big = :b', jsonb_build_object(':b', jsonb_build_object('S', repeat('b', 3500)))) AS big_item;
-- It leaves the GSIs: one write each, of the entry as it was (4 KB in GAll,
-- the keys alone in GKeys).
SELECT upd_cc('REMOVE G') AS leaves_gsis;
-- A delete takes it out of the LSI too.
SELECT st_api('DeleteItem', '{"TableName": "CapIdx", "Key": {"PK": {"S": "i"}, "SK": {"S": "1"}},
  "ReturnConsumedCapacity": "INDEXES"}') -> 'ConsumedCapacity' AS delete_from_lsi;
-- In a transaction every write doubles, the index writes too.
SELECT st_api('TransactWriteItems', '{"ReturnConsumedCapacity": "INDEXES", "TransactItems": [
  {"Put": {"TableName": "CapIdx", "Item": {"PK": {"S": "t"}, "SK": {"S": "1"}, "G": {"S": "g"}}}}]}') -> 'ConsumedCapacity'
  AS transact_indexes;
-- Reading through an index: the index's figure, none for the table.
SELECT st_api('Query', '{"TableName": "CapIdx", "IndexName": "GKeys", "KeyConditionExpression": "G = :g",
  "ExpressionAttributeValues": {":g": {"S": "g"}}, "ReturnConsumedCapacity": "INDEXES"}') -> 'ConsumedCapacity' AS query_gsi;

DROP FUNCTION upd_cc(text, jsonb);
DROP FUNCTION put_cc(jsonb, text);
DROP FUNCTION sized(text, text, integer);
SELECT st_api('DeleteTable', '{"TableName": "CapT"}') #>> '{TableDescription,TableStatus}' AS status;
SELECT st_api('DeleteTable', '{"TableName": "CapIdx"}') #>> '{TableDescription,TableStatus}' AS status;
