-- Row-level security: for a role that a policy keeps from an item, the item
-- is missing, as it is for that role's SQL statements.  Every operation on
-- a hidden item answers as on a missing one, wherever DynamoDB's semantics
-- allow it; where Postgres itself tells the key exists (creating an item
-- whose key a hidden row holds: the unique key index knows no policy), the
-- write is refused with insufficient_privilege (42501), as a policy's
-- refusal, and docs/security.md says so.
SELECT st_create_table('Rls') IS NOT NULL AS created;
SELECT st_put(jsonb_build_object('PK', 'have', 'SK', sk, 'owner', owner, 'v', 1), 'Rls')
  FROM (VALUES ('mine', 'regress_rls_app'), ('hidden', 'regress_rls_other')) AS i (sk, owner);
CREATE ROLE regress_rls_app;
GRANT USAGE ON SCHEMA stdesign, stdesign_data TO regress_rls_app;
GRANT SELECT ON stdesign.tables, stdesign.indexes TO regress_rls_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON stdesign_data."Rls" TO regress_rls_app;
ALTER TABLE stdesign_data."Rls" ENABLE ROW LEVEL SECURITY;
CREATE POLICY own ON stdesign_data."Rls"
  USING (item #>> '{owner,S}' = current_user) WITH CHECK (item #>> '{owner,S}' = current_user);

-- A statement's answer (or error, with its DETAIL), its writes undone.
CREATE FUNCTION rls_try(stmt text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  r text;
  d text;
BEGIN
  BEGIN
    EXECUTE stmt INTO r;
    RAISE EXCEPTION USING ERRCODE = 'ZZ999', MESSAGE = coalesce(r, 'NULL');
  EXCEPTION WHEN SQLSTATE 'ZZ999' THEN
    RETURN SQLERRM;
  WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS d = PG_EXCEPTION_DETAIL;
    RETURN SQLSTATE || ' ' || SQLERRM || coalesce(nullif(' DETAIL ' || d, ' DETAIL '), '');
  END;
END $$;
GRANT EXECUTE ON FUNCTION rls_try(text) TO regress_rls_app;

-- Each case once on the hidden item's key, once on a missing key (@SK@).
CREATE TABLE rls_cases (n serial, name text, stmt text);
INSERT INTO rls_cases (name, stmt) VALUES
  -- TransactWriteItems (finding: a hidden key was "Transaction is ongoing for the item")
  ('tx ConditionCheck not_exists', $$SELECT st_api('TransactWriteItems', '{"TransactItems": [{"ConditionCheck": {"TableName": "Rls", "Key": {"PK": {"S": "have"}, "SK": {"S": "@SK@"}}, "ConditionExpression": "attribute_not_exists(PK)"}}]}')$$),
  ('tx ConditionCheck exists', $$SELECT st_api('TransactWriteItems', '{"TransactItems": [{"ConditionCheck": {"TableName": "Rls", "Key": {"PK": {"S": "have"}, "SK": {"S": "@SK@"}}, "ConditionExpression": "attribute_exists(PK)", "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}}]}')$$),
  ('tx Delete', $$SELECT st_api('TransactWriteItems', '{"TransactItems": [{"Delete": {"TableName": "Rls", "Key": {"PK": {"S": "have"}, "SK": {"S": "@SK@"}}}}], "ReturnConsumedCapacity": "TOTAL"}')$$),
  ('tx Delete exists', $$SELECT st_api('TransactWriteItems', '{"TransactItems": [{"Delete": {"TableName": "Rls", "Key": {"PK": {"S": "have"}, "SK": {"S": "@SK@"}}, "ConditionExpression": "attribute_exists(PK)"}}]}')$$),
  ('tx Update exists', $$SELECT st_api('TransactWriteItems', '{"TransactItems": [{"Update": {"TableName": "Rls", "Key": {"PK": {"S": "have"}, "SK": {"S": "@SK@"}}, "UpdateExpression": "SET v = :v", "ConditionExpression": "attribute_exists(PK)", "ExpressionAttributeValues": {":v": {"N": "2"}}}}]}')$$),
  ('tx Update REMOVE', $$SELECT st_api('TransactWriteItems', '{"TransactItems": [{"Update": {"TableName": "Rls", "Key": {"PK": {"S": "have"}, "SK": {"S": "@SK@"}}, "UpdateExpression": "REMOVE v"}}]}')$$),
  ('st_transact Delete', $$SELECT st_transact('[{"Delete": {"TableName": "Rls", "Key": {"PK": {"S": "have"}, "SK": {"S": "@SK@"}}}}, {"ConditionCheck": {"TableName": "Rls", "Key": {"PK": {"S": "have"}, "SK": {"S": "mine"}}, "ConditionExpression": "attribute_exists(PK)"}}]')$$),
  ('PartiQL tx UPDATE', $$SELECT st_api('ExecuteTransaction', '{"TransactStatements": [{"Statement": "UPDATE \"Rls\" SET v = 3 WHERE PK = ''have'' AND SK = ''@SK@''"}]}')$$),
  ('PartiQL tx DELETE', $$SELECT st_api('ExecuteTransaction', '{"TransactStatements": [{"Statement": "DELETE FROM \"Rls\" WHERE PK = ''have'' AND SK = ''@SK@''"}]}')$$),
  -- single-item writes
  ('PutItem exists', $$SELECT st_api('PutItem', '{"TableName": "Rls", "Item": {"PK": {"S": "have"}, "SK": {"S": "@SK@"}, "owner": {"S": "regress_rls_app"}}, "ConditionExpression": "attribute_exists(PK)", "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}')$$),
  ('UpdateItem exists', $$SELECT st_api('UpdateItem', '{"TableName": "Rls", "Key": {"PK": {"S": "have"}, "SK": {"S": "@SK@"}}, "UpdateExpression": "SET v = :v", "ConditionExpression": "attribute_exists(PK)", "ExpressionAttributeValues": {":v": {"N": "2"}}, "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}')$$),
  ('UpdateItem REMOVE ALL_OLD', $$SELECT st_api('UpdateItem', '{"TableName": "Rls", "Key": {"PK": {"S": "have"}, "SK": {"S": "@SK@"}}, "UpdateExpression": "REMOVE v", "ReturnValues": "ALL_OLD"}')$$),
  ('DeleteItem ALL_OLD', $$SELECT st_api('DeleteItem', '{"TableName": "Rls", "Key": {"PK": {"S": "have"}, "SK": {"S": "@SK@"}}, "ReturnValues": "ALL_OLD", "ReturnConsumedCapacity": "TOTAL"}')$$),
  ('DeleteItem exists', $$SELECT st_api('DeleteItem', '{"TableName": "Rls", "Key": {"PK": {"S": "have"}, "SK": {"S": "@SK@"}}, "ConditionExpression": "attribute_exists(PK)", "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}')$$),
  ('st_delete condition', $$SELECT st_delete('have', '@SK@', 'Rls', condition => 'attribute_exists(PK)')$$),
  ('BatchWriteItem Delete', $$SELECT st_api('BatchWriteItem', '{"RequestItems": {"Rls": [{"DeleteRequest": {"Key": {"PK": {"S": "have"}, "SK": {"S": "@SK@"}}}}]}, "ReturnConsumedCapacity": "TOTAL"}')$$),
  ('PartiQL UPDATE', $$SELECT st_api('ExecuteStatement', '{"Statement": "UPDATE \"Rls\" SET v = 3 WHERE PK = ''have'' AND SK = ''@SK@''"}')$$),
  ('PartiQL DELETE', $$SELECT st_api('ExecuteStatement', '{"Statement": "DELETE FROM \"Rls\" WHERE PK = ''have'' AND SK = ''@SK@''"}')$$),
  -- reads
  ('GetItem', $$SELECT st_api('GetItem', '{"TableName": "Rls", "Key": {"PK": {"S": "have"}, "SK": {"S": "@SK@"}}, "ReturnConsumedCapacity": "TOTAL"}')$$),
  ('TransactGetItems', $$SELECT st_api('TransactGetItems', '{"TransactItems": [{"Get": {"TableName": "Rls", "Key": {"PK": {"S": "have"}, "SK": {"S": "@SK@"}}}}]}')$$),
  ('BatchGetItem', $$SELECT st_api('BatchGetItem', '{"RequestItems": {"Rls": {"Keys": [{"PK": {"S": "have"}, "SK": {"S": "@SK@"}}]}}}')$$),
  ('PartiQL SELECT', $$SELECT st_api('ExecuteStatement', '{"Statement": "SELECT * FROM \"Rls\" WHERE PK = ''have'' AND SK = ''@SK@''"}')$$),
  ('Query on the key', $$SELECT st_api('Query', '{"TableName": "Rls", "KeyConditionExpression": "PK = :p AND SK = :s", "ExpressionAttributeValues": {":p": {"S": "have"}, ":s": {"S": "@SK@"}}, "ReturnConsumedCapacity": "TOTAL"}')$$),
  -- the writes that create the item, where a hidden key cannot answer as a missing one
  ('tx Update', $$SELECT st_api('TransactWriteItems', '{"TransactItems": [{"Update": {"TableName": "Rls", "Key": {"PK": {"S": "have"}, "SK": {"S": "@SK@"}}, "UpdateExpression": "SET #o = :o", "ExpressionAttributeNames": {"#o": "owner"}, "ExpressionAttributeValues": {":o": {"S": "regress_rls_app"}}}}]}')$$),
  ('tx Put not_exists', $$SELECT st_api('TransactWriteItems', '{"TransactItems": [{"Put": {"TableName": "Rls", "Item": {"PK": {"S": "have"}, "SK": {"S": "@SK@"}, "owner": {"S": "regress_rls_app"}}, "ConditionExpression": "attribute_not_exists(PK)"}}]}')$$),
  ('PutItem not_exists', $$SELECT st_api('PutItem', '{"TableName": "Rls", "Item": {"PK": {"S": "have"}, "SK": {"S": "@SK@"}, "owner": {"S": "regress_rls_app"}}, "ConditionExpression": "attribute_not_exists(PK)"}')$$),
  ('UpdateItem', $$SELECT st_api('UpdateItem', '{"TableName": "Rls", "Key": {"PK": {"S": "have"}, "SK": {"S": "@SK@"}}, "UpdateExpression": "SET #o = :o", "ExpressionAttributeNames": {"#o": "owner"}, "ExpressionAttributeValues": {":o": {"S": "regress_rls_app"}}}')$$),
  ('PartiQL INSERT', $$SELECT st_api('ExecuteStatement', '{"Statement": "INSERT INTO \"Rls\" VALUE {''PK'': ''have'', ''SK'': ''@SK@'', ''owner'': ''regress_rls_app''}"}')$$),
  ('PutItem', $$SELECT st_api('PutItem', '{"TableName": "Rls", "Item": {"PK": {"S": "have"}, "SK": {"S": "@SK@"}, "owner": {"S": "regress_rls_app"}}}')$$);
GRANT SELECT ON rls_cases TO regress_rls_app;

SET ROLE regress_rls_app;
CREATE TEMP TABLE rls_answers AS
  SELECT n, name, rls_try(replace(stmt, '@SK@', 'hidden')) AS hidden,
         rls_try(replace(stmt, '@SK@', 'missing')) AS missing
    FROM rls_cases;
SELECT n, name, hidden = missing AS same, hidden AS answer FROM rls_answers ORDER BY n;
-- where they differ, the missing key's answer
SELECT n, name, missing FROM rls_answers WHERE hidden <> missing ORDER BY n;

-- In REPEATABLE READ, the hidden item was not "committed since the snapshot" either.
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT rls_try(replace(stmt, '@SK@', 'hidden')) = rls_try(replace(stmt, '@SK@', 'missing')) AS same,
       rls_try(replace(stmt, '@SK@', 'hidden')) AS answer
  FROM rls_cases WHERE name IN ('tx ConditionCheck not_exists', 'tx Delete') ORDER BY n;
COMMIT;

-- Query and Scan count what the role sees, ScannedCount included.
SELECT st_api('Query', '{"TableName": "Rls", "KeyConditionExpression": "PK = :p", "ExpressionAttributeValues": {":p": {"S": "have"}}, "Select": "COUNT", "ReturnConsumedCapacity": "TOTAL"}');
SELECT st_api('Scan', '{"TableName": "Rls", "Select": "COUNT", "ReturnConsumedCapacity": "TOTAL"}');
SELECT st_api('Scan', '{"TableName": "Rls", "FilterExpression": "v = :z", "ExpressionAttributeValues": {":z": {"N": "0"}}}');

-- The role's own item is read and written as usual.
SELECT st_update('have', 'mine', 'SET v = v + :one', 'Rls', "values" => '{":one": 1}') ->> 'v' AS v;
RESET ROLE;

-- Nothing of another's changed.
SELECT pk, sk, st_to_plain(item) AS item FROM stdesign_data."Rls" ORDER BY pk, sk;

SELECT st_drop_table('Rls');
DROP TABLE rls_cases;
DROP FUNCTION rls_try(text);
DROP OWNED BY regress_rls_app;
DROP ROLE regress_rls_app;
