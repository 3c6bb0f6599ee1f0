-- ClientRequestToken for ordinary roles: a role granted what docs/security.md
-- says (USAGE on the schemas, SELECT on the catalog tables, the data
-- privileges on the table's relation) can use tokens, and tokens are its
-- own: another role's token of the same text is another token, and no role
-- can read, remove or plant tokens with SQL.

CREATE ROLE regress_tok_alice;
CREATE ROLE regress_tok_bob;
SELECT st_create_table('TokTable') IS NOT NULL AS created;
GRANT USAGE ON SCHEMA stdesign, stdesign_data TO regress_tok_alice, regress_tok_bob;
GRANT SELECT ON stdesign.tables, stdesign.indexes TO regress_tok_alice, regress_tok_bob;
GRANT SELECT, INSERT, UPDATE, DELETE ON stdesign_data."TokTable" TO regress_tok_alice, regress_tok_bob;

-- Add :n to one counter, under a token.
CREATE FUNCTION tok_add(n int, token text) RETURNS jsonb LANGUAGE sql AS $$
  SELECT st_transact(jsonb_build_array(jsonb_build_object('Update', jsonb_build_object(
    'TableName', 'TokTable', 'Key', '{"PK": {"S": "C"}, "SK": {"S": "1"}}'::jsonb,
    'UpdateExpression', 'ADD n :n', 'ExpressionAttributeValues',
    jsonb_build_object(':n', jsonb_build_object('N', n::text))))), client_request_token => token)
$$;

SET ROLE regress_tok_alice;
SELECT tok_add(1, 'shared-token');
-- the same request again applies nothing
SELECT tok_add(1, 'shared-token');
SELECT st_get('C', '1', 'TokTable') ->> 'n' AS n;
-- through st_api as well
SELECT st_api('TransactWriteItems', '{"ClientRequestToken": "api-token", "TransactItems": [
  {"Put": {"TableName": "TokTable", "Item": {"PK": {"S": "A"}, "SK": {"S": "1"}}}}]}');
SELECT st_api('TransactWriteItems', '{"ClientRequestToken": "api-token", "TransactItems": [
  {"Put": {"TableName": "TokTable", "Item": {"PK": {"S": "A"}, "SK": {"S": "1"}}}}]}');
-- a different request under alice's token is refused
SELECT tok_add(5, 'shared-token');
-- the token table is nobody's to read or write
SELECT count(*) FROM stdesign.transact_tokens;
DELETE FROM stdesign.transact_tokens;
INSERT INTO stdesign.transact_tokens (role_id, token, request_hash) VALUES (0, 'x', '\x00');

-- Bob's token of the same text is his own: his different request runs.
SET ROLE regress_tok_bob;
SELECT tok_add(5, 'shared-token');
SELECT tok_add(5, 'shared-token');
SELECT st_get('C', '1', 'TokTable') ->> 'n' AS n;
-- nor can bob plant a token for alice, or remove hers
INSERT INTO stdesign.transact_tokens (role_id, token, request_hash)
  SELECT oid, 'planted', '\x00' FROM pg_roles WHERE rolname = 'regress_tok_alice';
DELETE FROM stdesign.transact_tokens WHERE token = 'shared-token';
RESET ROLE;

-- Alice's token still answers her request, and still refuses another.
SET ROLE regress_tok_alice;
SELECT tok_add(1, 'shared-token');
SELECT tok_add(7, 'shared-token');
SELECT st_get('C', '1', 'TokTable') ->> 'n' AS n;
RESET ROLE;

-- Granted the whole schema by mistake, a role still sees and writes only
-- its own tokens (row-level security on the token table).
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA stdesign TO regress_tok_bob;
SET ROLE regress_tok_bob;
SELECT token FROM stdesign.transact_tokens ORDER BY token;
INSERT INTO stdesign.transact_tokens (role_id, token, request_hash)
  SELECT oid, 'planted', '\x00' FROM pg_roles WHERE rolname = 'regress_tok_alice';
DELETE FROM stdesign.transact_tokens WHERE token = 'api-token';
RESET ROLE;
REVOKE ALL ON ALL TABLES IN SCHEMA stdesign FROM regress_tok_bob;

-- What is stored: one token per role and text.
SELECT r.rolname, t.token
  FROM stdesign.transact_tokens t JOIN pg_roles r ON r.oid = t.role_id
 WHERE r.rolname LIKE 'regress_tok%'
 ORDER BY r.rolname, t.token;

-- Table administration is DDL: an ordinary role cannot create a table; a
-- role granted what docs/security.md says for it can create, change and drop one.
SET ROLE regress_tok_alice;
SELECT st_create_table('AliceTable');
RESET ROLE;
CREATE ROLE regress_tok_admin;
GRANT USAGE, CREATE ON SCHEMA stdesign_data TO regress_tok_admin;
GRANT USAGE ON SCHEMA stdesign TO regress_tok_admin;
GRANT SELECT ON stdesign.tables, stdesign.indexes TO regress_tok_admin;
SET ROLE regress_tok_admin;
SELECT st_create_table('AdminTable') ->> 'TableName' AS created;
SELECT st_put('{"PK": "a", "SK": "1", "g": "x"}', 'AdminTable') IS NULL AS put;
SELECT st_create_gsi('AdminTable', 'ByG', 'g') #>> '{GlobalSecondaryIndexes,0,ItemCount}' AS backfilled;
SELECT st_api('UpdateTable', '{"TableName": "AdminTable", "BillingMode": "PROVISIONED",
  "ProvisionedThroughput": {"ReadCapacityUnits": 1, "WriteCapacityUnits": 1},
  "GlobalSecondaryIndexUpdates": [{"Delete": {"IndexName": "ByG"}}]}') #>> '{TableDescription,ProvisionedThroughput,ReadCapacityUnits}' AS rcu;
SELECT st_drop_table('AdminTable');
RESET ROLE;

DELETE FROM stdesign.transact_tokens
 WHERE role_id IN (SELECT oid FROM pg_roles WHERE rolname LIKE 'regress_tok%');
DROP FUNCTION tok_add(int, text);
SELECT st_drop_table('TokTable');
DROP OWNED BY regress_tok_alice;
DROP OWNED BY regress_tok_bob;
DROP OWNED BY regress_tok_admin;
DROP ROLE regress_tok_alice;
DROP ROLE regress_tok_bob;
DROP ROLE regress_tok_admin;
