-- A read-only transaction (BEGIN READ ONLY, SET TRANSACTION READ ONLY,
-- default_transaction_read_only, and every transaction of a hot standby)
-- refuses every stdesign write with Postgres's own error, SQLSTATE 25006,
-- as it refuses INSERT, UPDATE and DELETE: stdesign writes most rows
-- without an executor, so the storage layer checks first
-- (storage_prevent_write), before it reads, locks or writes anything.
-- Reads work as usual.  test/t/003_streaming_replica.pl does the same on a
-- standby.
SELECT st_create_table('RoItems') IS NOT NULL AS created;
SELECT st_create_gsi('RoItems', 'ByV', 'v', NULL, 'N') IS NOT NULL AS gsi;
SELECT st_update_ttl('RoItems', 'expires');
SELECT st_put(jsonb_build_object('PK', 'a', 'SK', i::text, 'v', i), 'RoItems') FROM generate_series(1, 3) AS i;
CREATE ROLE regress_ro_app;
GRANT USAGE ON SCHEMA stdesign, stdesign_data TO regress_ro_app;
GRANT SELECT ON stdesign.tables, stdesign.indexes TO regress_ro_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON stdesign_data."RoItems" TO regress_ro_app;

-- Each statement in a subtransaction: what it answered, or its error.
CREATE FUNCTION ro_try(stmt text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  r text;
BEGIN
  EXECUTE stmt INTO r;
  RETURN 'ok: ' || coalesce(left(r, 60), 'NULL');
EXCEPTION WHEN OTHERS THEN
  RETURN SQLSTATE || ': ' || SQLERRM;
END $$;
CREATE FUNCTION ro_items() RETURNS TABLE (pk text, sk text, item jsonb) LANGUAGE sql AS $$
  SELECT pk, sk, st_to_plain(item) FROM stdesign_data."RoItems" ORDER BY pk, sk
$$;
GRANT EXECUTE ON FUNCTION ro_try(text), ro_items() TO regress_ro_app;

-- Every item write, as an ordinary role, by every path: each refused,
-- whether it would have written or not (a Delete of a missing item, a
-- failed condition), as a DELETE matching no row is.
CREATE TABLE ro_writes (n serial, stmt text);
INSERT INTO ro_writes (stmt) VALUES
  ($$SELECT st_put('{"PK": "a", "SK": "9", "v": 9}', 'RoItems')$$),
  ($$SELECT st_put('{"PK": "a", "SK": "1", "v": 9}', 'RoItems', condition => 'attribute_not_exists(PK)')$$),
  ($$SELECT st_put('{"PK": "a", "SK": "1", "v": 9}', 'RoItems', return_values => 'ALL_OLD')$$),
  ($$SELECT st_update('a', '1', 'SET v = v + :one', 'RoItems', "values" => '{":one": 1}')$$),
  ($$SELECT st_update('a', '1', 'SET v = :one', 'RoItems', condition => 'v = :one', "values" => '{":one": 1000}')$$),
  ($$SELECT st_update('zz', '1', 'REMOVE v', 'RoItems')$$),
  ($$SELECT st_delete('a', '2', 'RoItems')$$),
  ($$SELECT st_delete('zz', 'missing', 'RoItems')$$),
  ($$SELECT st_delete('a', '2', 'RoItems', condition => 'attribute_exists(PK)')$$),
  ($$SELECT st_batch_write('{"RoItems": [{"PutRequest": {"Item": {"PK": {"S": "b"}, "SK": {"S": "1"}}}}]}')$$),
  ($$SELECT st_batch_write('{"RoItems": [{"DeleteRequest": {"Key": {"PK": {"S": "a"}, "SK": {"S": "3"}}}}]}')$$),
  ($$SELECT st_transact('[{"Put": {"TableName": "RoItems", "Item": {"PK": {"S": "b"}, "SK": {"S": "2"}}}}]')$$),
  ($$SELECT st_transact('[{"ConditionCheck": {"TableName": "RoItems", "Key": {"PK": {"S": "zz"}, "SK": {"S": "1"}}, "ConditionExpression": "attribute_not_exists(PK)"}}]')$$),
  ($$SELECT st_transact('[{"Delete": {"TableName": "RoItems", "Key": {"PK": {"S": "a"}, "SK": {"S": "1"}}}}]', 'ro-token')$$),
  ($$SELECT st_put_all(jsonb_build_object('PK', 'c', 'SK', i::text), 'RoItems')::text FROM generate_series(1, 3) AS i$$),
  ($$SELECT st_import('RoItems', '{"Item": {"PK": {"S": "d"}, "SK": {"S": "1"}}}')$$),
  ($$SELECT st_api('PutItem', '{"TableName": "RoItems", "Item": {"PK": {"S": "b"}, "SK": {"S": "3"}}}')$$),
  ($$SELECT st_api('UpdateItem', '{"TableName": "RoItems", "Key": {"PK": {"S": "a"}, "SK": {"S": "1"}}, "UpdateExpression": "SET w = :w", "ExpressionAttributeValues": {":w": {"S": "x"}}}')$$),
  ($$SELECT st_api('DeleteItem', '{"TableName": "RoItems", "Key": {"PK": {"S": "a"}, "SK": {"S": "1"}}, "ReturnValues": "ALL_OLD"}')$$),
  ($$SELECT st_api('BatchWriteItem', '{"RequestItems": {"RoItems": [{"PutRequest": {"Item": {"PK": {"S": "b"}, "SK": {"S": "4"}}}}]}}')$$),
  ($$SELECT st_api('TransactWriteItems', '{"TransactItems": [{"Update": {"TableName": "RoItems", "Key": {"PK": {"S": "a"}, "SK": {"S": "1"}}, "UpdateExpression": "SET w = :w", "ExpressionAttributeValues": {":w": {"S": "x"}}}}]}')$$),
  ($$SELECT st_api('ExecuteStatement', '{"Statement": "INSERT INTO \"RoItems\" VALUE {''PK'': ''b'', ''SK'': ''5''}"}')$$),
  ($$SELECT st_api('ExecuteStatement', '{"Statement": "UPDATE \"RoItems\" SET w = 1 WHERE PK = ''a'' AND SK = ''1''"}')$$),
  ($$SELECT st_api('ExecuteStatement', '{"Statement": "DELETE FROM \"RoItems\" WHERE PK = ''a'' AND SK = ''1''"}')$$),
  ($$SELECT st_api('BatchExecuteStatement', '{"Statements": [{"Statement": "DELETE FROM \"RoItems\" WHERE PK = ''a'' AND SK = ''1''"}]}')$$),
  ($$SELECT st_api('ExecuteTransaction', '{"TransactStatements": [{"Statement": "UPDATE \"RoItems\" SET w = 1 WHERE PK = ''a'' AND SK = ''1''"}]}')$$),
  ($$SELECT count(*) FROM st_partiql('DELETE FROM "RoItems" WHERE PK = ''a'' AND SK = ''1''')$$),
  ($$SELECT st_expire('RoItems')$$);

-- The reads, in the same transactions: all answer.
CREATE TABLE ro_reads (n serial, stmt text);
INSERT INTO ro_reads (stmt) VALUES
  ($$SELECT st_get('a', '1', 'RoItems')$$),
  ($$SELECT count(*) FROM st_query('a', NULL, 'RoItems')$$),
  ($$SELECT count(*) FROM st_query('2', NULL, 'RoItems', index => 'ByV')$$),
  ($$SELECT count(*) FROM st_scan('RoItems')$$),
  ($$SELECT st_api('GetItem', '{"TableName": "RoItems", "Key": {"PK": {"S": "a"}, "SK": {"S": "1"}}}')$$),
  ($$SELECT st_api('Query', '{"TableName": "RoItems", "KeyConditionExpression": "PK = :p", "ExpressionAttributeValues": {":p": {"S": "a"}}, "Select": "COUNT"}')$$),
  ($$SELECT st_api('TransactGetItems', '{"TransactItems": [{"Get": {"TableName": "RoItems", "Key": {"PK": {"S": "a"}, "SK": {"S": "2"}}}}]}')$$),
  ($$SELECT st_api('ExecuteStatement', '{"Statement": "SELECT v FROM \"RoItems\" WHERE PK = ''a'' AND SK = ''3''"}')$$),
  ($$SELECT st_describe_table('RoItems') ->> 'ItemCount'$$),
  ($$SELECT count(*) FROM st_export('RoItems')$$);

GRANT SELECT ON ro_writes, ro_reads TO regress_ro_app;

SET ROLE regress_ro_app;
BEGIN TRANSACTION READ ONLY;
SELECT n, ro_try(stmt) FROM ro_writes ORDER BY n;
SELECT n, ro_try(stmt) FROM ro_reads ORDER BY n;
COMMIT;
SELECT * FROM ro_items();

-- default_transaction_read_only: each statement its own transaction.
SET default_transaction_read_only = on;
SELECT st_put('{"PK": "a", "SK": "9"}', 'RoItems');
SELECT st_delete('a', '1', 'RoItems');
SELECT st_api('PutItem', '{"TableName": "RoItems", "Item": {"PK": {"S": "b"}, "SK": {"S": "3"}}}');
SELECT st_get('a', '1', 'RoItems');
RESET default_transaction_read_only;

-- Made read-only inside a function, after the transaction has started.
CREATE FUNCTION pg_temp.ro_then(stmt text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  SET LOCAL transaction_read_only = on;
  RETURN ro_try(stmt);
END $$;
BEGIN;
SELECT pg_temp.ro_then($$SELECT st_put('{"PK": "a", "SK": "9"}', 'RoItems')$$);
SELECT pg_temp.ro_then($$SELECT st_update('a', '1', 'SET v = :one', 'RoItems', "values" => '{":one": 7}')$$);
COMMIT;
SELECT * FROM ro_items();
RESET ROLE;

-- Table administration, access keys and the rest, as a superuser (whom
-- only read-only stops): each refused, nothing changed.
CREATE TABLE ro_admin (n serial, stmt text);
INSERT INTO ro_admin (stmt) VALUES
  ($$SELECT st_create_table('RoNew')$$),
  ($$SELECT st_api('CreateTable', '{"TableName": "RoNew2", "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}], "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}], "BillingMode": "PAY_PER_REQUEST"}')$$),
  ($$SELECT st_create_gsi('RoItems', 'ByW', 'w')$$),
  ($$SELECT st_drop_gsi('RoItems', 'ByV')$$),
  ($$SELECT st_api('UpdateTable', '{"TableName": "RoItems", "GlobalSecondaryIndexUpdates": [{"Delete": {"IndexName": "ByV"}}]}')$$),
  ($$SELECT st_drop_table('RoItems')$$),
  ($$SELECT st_api('DeleteTable', '{"TableName": "RoItems"}')$$),
  ($$SELECT st_update_ttl('RoItems', 'expires', false)$$),
  ($$SELECT st_api('UpdateTimeToLive', '{"TableName": "RoItems", "TimeToLiveSpecification": {"AttributeName": "expires", "Enabled": false}}')$$),
  ($$SELECT st_tag_table('RoItems', '{"team": "a"}')$$),
  ($$SELECT st_untag_table('RoItems', ARRAY['team'])$$),
  ($$SELECT st_api('TagResource', '{"ResourceArn": "arn:aws:dynamodb:local:000000000000:table/RoItems", "Tags": [{"Key": "k", "Value": "v"}]}')$$),
  ($$SELECT st_set_model('RoItems', NULL)$$),
  ($$SELECT access_key_id FROM st_create_access_key('regress_ro_app')$$),
  ($$SELECT st_disable_access_key('AKIDNONE')$$),
  ($$SELECT st_drop_access_key('AKIDNONE')$$),
  ($$SELECT st_partition_traffic_reset()$$),
  ($$SELECT st_api('UpdateContinuousBackups', '{"TableName": "RoItems", "PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": true}}')$$);
BEGIN TRANSACTION READ ONLY;
SELECT n, ro_try(stmt) FROM ro_admin ORDER BY n;
COMMIT;
SELECT table_name, ttl_enabled FROM stdesign.tables WHERE table_name LIKE 'Ro%' ORDER BY 1;
SELECT table_name, index_name FROM stdesign.indexes WHERE table_name LIKE 'Ro%' ORDER BY 1, 2;
SELECT count(*) AS tags FROM stdesign.tags WHERE table_name LIKE 'Ro%';
SELECT count(*) AS keys FROM stdesign.access_keys;
SELECT * FROM ro_items();

-- On-demand backups and resource policies in a read-only transaction:
-- CreateBackup, RestoreTableFromBackup, DeleteBackup, PutResourcePolicy
-- and DeleteResourcePolicy refused with SQLSTATE 25006 (the HTTP endpoint
-- answers them 503 ServiceUnavailableException: docs/errors.md);
-- DescribeBackup, ListBackups and GetResourcePolicy served.  (The policy
-- put again is another document: the same one again is no change, and no
-- write.)
SELECT st_api('CreateBackup', '{"TableName": "RoItems", "BackupName": "ro-backup"}')->'BackupDetails'->>'BackupArn' AS ro_arn \gset
SELECT jsonb_build_object('ResourceArn', 'arn:aws:dynamodb:local:000000000000:table/RoItems',
  'Policy', '{"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": {"AWS": "*"}, "Action": "dynamodb:GetItem", "Resource": "*"}]}') AS ro_policy \gset
SELECT st_api('PutResourcePolicy', :'ro_policy') ? 'RevisionId' AS policy_put;
CREATE TABLE ro_backups (n serial, stmt text);
INSERT INTO ro_backups (stmt) VALUES
  ($$SELECT st_api('CreateBackup', '{"TableName": "RoItems", "BackupName": "ro-backup-2"}')$$),
  (format($$SELECT st_api('RestoreTableFromBackup', '{"TargetTableName": "RoRestored", "BackupArn": "%s"}')$$, :'ro_arn')),
  (format($$SELECT st_api('DeleteBackup', '{"BackupArn": "%s"}')$$, :'ro_arn')),
  (format($$SELECT st_api('PutResourcePolicy', %L)$$, replace(:'ro_policy', 'GetItem', 'Query'))),
  ($$SELECT st_api('DeleteResourcePolicy', '{"ResourceArn": "arn:aws:dynamodb:local:000000000000:table/RoItems"}')$$),
  (format($$SELECT st_api('DescribeBackup', '{"BackupArn": "%s"}')->'BackupDescription'->'BackupDetails'->>'BackupName'$$, :'ro_arn')),
  ($$SELECT jsonb_array_length(st_api('ListBackups', '{"TableName": "RoItems"}')->'BackupSummaries')::text$$),
  ($$SELECT st_api('GetResourcePolicy', '{"ResourceArn": "arn:aws:dynamodb:local:000000000000:table/RoItems"}')->>'Policy' LIKE '%dynamodb:GetItem%'$$);
BEGIN TRANSACTION READ ONLY;
SELECT n, ro_try(stmt) FROM ro_backups ORDER BY n;
COMMIT;
SELECT backup_name FROM stdesign.backups WHERE table_name = 'RoItems' ORDER BY 1;
SELECT count(*) AS restored FROM st_list_tables() AS t WHERE t = 'RoRestored';
SELECT st_api('GetResourcePolicy', '{"ResourceArn": "arn:aws:dynamodb:local:000000000000:table/RoItems"}')->>'Policy' LIKE '%dynamodb:GetItem%' AS policy_kept;
SELECT st_api('DeleteBackup', format('{"BackupArn": "%s"}', :'ro_arn')::jsonb)->'BackupDescription'->'BackupDetails'->>'BackupStatus' AS deleted;
SELECT st_api('DeleteResourcePolicy', '{"ResourceArn": "arn:aws:dynamodb:local:000000000000:table/RoItems"}') ? 'RevisionId' AS policy_deleted;
DROP TABLE ro_backups;

-- Out of the read-only transaction, the same role writes as usual.
SET ROLE regress_ro_app;
SELECT st_put('{"PK": "a", "SK": "9", "v": 9}', 'RoItems');
SELECT st_delete('a', '9', 'RoItems', return_values => 'ALL_OLD');
RESET ROLE;

SELECT st_drop_table('RoItems');
DROP TABLE ro_writes, ro_reads, ro_admin;
DROP FUNCTION ro_try(text), ro_items();
DROP OWNED BY regress_ro_app;
DROP ROLE regress_ro_app;
