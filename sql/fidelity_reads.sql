-- Read your own writes: a read sees every write made before it in the
-- transaction, also by an earlier call of the same SQL statement (DynamoDB:
-- a strongly consistent read returns the result of every write that
-- succeeded before it).  Every read path: st_get, st_query, st_scan,
-- st_transact_get, st_batch_get and st_api, direct and through SPI.

SELECT st_create_table('Reads') ->> 'TableName' AS created;
SELECT st_create_table('ReadsHash', sk => NULL) ->> 'TableName' AS created;
SET stdesign.default_table = 'Reads';

-- A put, then a get of the same key, in one statement.
SELECT st_put('{"PK": "b", "SK": "b"}'), st_get('b', 'b');

-- A transaction, then each kind of read, in one statement.
SELECT st_transact('[{"Put": {"TableName": "Reads", "Item": {"PK": {"S": "t"}, "SK": {"S": "1"}, "v": {"N": "1"}}}},
                     {"Put": {"TableName": "ReadsHash", "Item": {"PK": {"S": "h"}}}}]') AS tx,
       st_get('t', '1') AS get,
       (SELECT count(*) FROM st_query('t')) AS query,
       (SELECT count(*) FROM st_query('t', sk_from => '0', sk_to => '2')) AS query_range,
       (SELECT count(*) FROM st_scan()) AS scan,
       st_get('h', "table" => 'ReadsHash') AS get_hash;

SELECT st_delete('t', '1'),
       st_transact_get('[{"Get": {"TableName": "Reads", "Key": {"PK": {"S": "t"}, "SK": {"S": "1"}}}}]') AS transact_get,
       st_batch_get('{"Reads": {"Keys": [{"PK": {"S": "b"}, "SK": {"S": "b"}}, {"PK": {"S": "t"}, "SK": {"S": "1"}}]}}') AS batch_get;

SELECT st_update('b', 'b', 'SET n = :n', "values" => '{":n": 5}', return_values => 'NONE'),
       st_api('GetItem', '{"TableName": "Reads", "Key": {"PK": {"S": "b"}, "SK": {"S": "b"}}}') AS get_item,
       st_api('Query', '{"TableName": "Reads", "KeyConditionExpression": "PK = :p",
                         "ExpressionAttributeValues": {":p": {"S": "b"}}}') -> 'Items' AS query_items,
       st_api('Scan', '{"TableName": "Reads"}') -> 'Count' AS scan_count;

-- Each call sees the ones before: a row per call, read after its own put
-- (the query's limit depends on the row, so that it runs for each row).
SELECT i, st_put(jsonb_build_object('PK', 'seq', 'SK', i::text)) IS NULL AS put,
       (SELECT count(*) FROM st_query('seq', "limit" => 100 + i)) AS seen
  FROM generate_series(1, 3) AS i;

-- Paging with ExclusiveStartKey reads through SPI: also sees the put.
SELECT st_put('{"PK": "seq", "SK": "4"}'),
       st_api('Query', '{"TableName": "Reads", "KeyConditionExpression": "PK = :p",
                         "ExpressionAttributeValues": {":p": {"S": "seq"}},
                         "ExclusiveStartKey": {"PK": {"S": "seq"}, "SK": {"S": "2"}}}') -> 'Count' AS after_2;

-- REPEATABLE READ: own writes seen, and the transaction's snapshot kept.
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT st_put('{"PK": "rr", "SK": "1"}'), st_get('rr', '1');
SELECT st_delete('rr', '1'), st_get('rr', '1');
COMMIT;

-- Inside a PL/pgSQL function and a savepoint rolled back: the reads follow.
DO $$
BEGIN
	PERFORM st_put('{"PK": "fn", "SK": "1"}');
	RAISE NOTICE 'after put: %', st_get('fn', '1');
	BEGIN
		PERFORM st_delete('fn', '1');
		RAISE NOTICE 'after delete: %', st_get('fn', '1');
		RAISE EXCEPTION 'roll back';
	EXCEPTION WHEN raise_exception THEN
		RAISE NOTICE 'after rollback: %', st_get('fn', '1');
	END;
END $$;

-- Reads alone (no write in the statement) are unchanged.
SELECT count(st_get('b', 'b')) FROM generate_series(1, 1000);

SELECT st_drop_table('Reads'), st_drop_table('ReadsHash');
