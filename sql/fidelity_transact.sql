-- TransactWriteItems: an action whose key or item fails validation cancels
-- the transaction (TransactionCanceledException, ValidationError on that
-- action, None on the others); request-level errors stay a plain
-- ValidationException; a transaction's items may add up to 4 MB.  And
-- U+0000 in a request.
-- VERBOSITY default: a cancellation's DETAIL carries the reasons.
\set VERBOSITY default

SELECT st_create_table('TxV') ->> 'TableName' AS created;
SET stdesign.default_table = 'TxV';
SELECT st_put('{"PK": "a", "SK": "1", "n": 1}');

-- A key of the wrong type, in a Put's item and in an Update's key.
SELECT st_transact('[
  {"Put": {"TableName": "TxV", "Item": {"PK": {"S": "b"}, "SK": {"S": "1"}}}},
  {"Put": {"TableName": "TxV", "Item": {"PK": {"N": "1"}, "SK": {"S": "1"}}}}
]');
SELECT st_api('TransactWriteItems', '{"TransactItems": [
  {"Update": {"TableName": "TxV", "Key": {"PK": {"S": "a"}, "SK": {"N": "1"}}, "UpdateExpression": "SET n = :v",
              "ExpressionAttributeValues": {":v": {"N": "2"}}}},
  {"ConditionCheck": {"TableName": "TxV", "Key": {"PK": {"S": "a"}, "SK": {"S": "1"}},
                      "ConditionExpression": "attribute_exists(PK)"}},
  {"Delete": {"TableName": "TxV", "Key": {"PK": {"S": ""}, "SK": {"S": "1"}}}}
]}');
-- A missing key attribute, and an item over 400 KB.
SELECT st_transact(jsonb_build_array(
  '{"Delete": {"TableName": "TxV", "Key": {"PK": {"S": "a"}}}}'::jsonb,
  jsonb_build_object('Put', jsonb_build_object('TableName', 'TxV', 'Item',
    jsonb_build_object('PK', '{"S": "c"}'::jsonb, 'SK', '{"S": "1"}'::jsonb,
                       'big', jsonb_build_object('S', repeat('x', 410000)))))));
-- Nothing was written.
SELECT count(*) AS items FROM st_scan();

-- Errors of the request itself come first, as a plain ValidationException.
SELECT st_transact('[
  {"Put": {"TableName": "TxV", "Item": {"PK": {"N": "1"}, "SK": {"S": "1"}}}},
  {"Update": {"TableName": "TxV", "Key": {"PK": {"S": "a"}, "SK": {"S": "1"}}, "UpdateExpression": "SET n = = :v",
              "ExpressionAttributeValues": {":v": {"N": "2"}}}}
]');

-- The aggregate size of the items: up to 4 MB (4,194,304 bytes).
SELECT st_transact((SELECT jsonb_agg(jsonb_build_object('Put', jsonb_build_object('TableName', 'TxV', 'Item',
         jsonb_build_object('PK', jsonb_build_object('S', 'big'), 'SK', jsonb_build_object('S', i::text),
                            'v', jsonb_build_object('S', repeat('x', 390000))))))
                      FROM generate_series(1, 11) AS i));
SELECT st_transact((SELECT jsonb_agg(jsonb_build_object('Put', jsonb_build_object('TableName', 'TxV', 'Item',
         jsonb_build_object('PK', jsonb_build_object('S', 'big'), 'SK', jsonb_build_object('S', i::text),
                            'v', jsonb_build_object('S', repeat('x', 390000))))))
                      FROM generate_series(1, 10) AS i));
SELECT count(*) AS big_items FROM st_query('big');

SELECT st_drop_table('TxV');

-- U+0000 cannot be stored (jsonb cannot hold it): a request holding it in a
-- string or a name is a ValidationException that says so.  An escaped
-- backslash followed by "u0000" is no NUL.
\set VERBOSITY terse
SELECT st_create_table('NulTable') ->> 'TableName' AS created;
SELECT st_api('PutItem', '{"TableName": "NulTable", "Item": {"PK": {"S": "a\u0000b"}, "SK": {"S": "x"}}}');
SELECT st_api('PutItem', '{"TableName": "NulTable", "Item": {"PK": {"S": "a"}, "SK": {"S": "x"}, "n\u0000": {"S": "v"}}}');
SELECT st_api('UpdateItem', '{"TableName": "NulTable", "Key": {"PK": {"S": "a"}, "SK": {"S": "x"}},
  "UpdateExpression": "SET #a = :v", "ExpressionAttributeNames": {"#a": "x"},
  "ExpressionAttributeValues": {":v": {"SS": ["ok", "b\u0000"]}}}');
SELECT st_api('PutItem', '{"TableName": "NulTable", "Item": {"PK": {"S": "a\\u0000"}, "SK": {"S": "x"}}}');
SELECT st_get('a\u0000', 'x', "table" => 'NulTable');
SELECT st_drop_table('NulTable');
