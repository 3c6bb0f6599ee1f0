-- The catalog is not a grant (docs/security.md): table administration
-- needs CREATE on schema stdesign_data (a new table) and the ownership of
-- the table's relation (every change), never a privilege on stdesign.*;
-- stdesign's functions write the catalog as its owner, and nobody else
-- may, whatever was granted.
--
-- Roles, with exactly the grants docs/security.md ("What to grant") names:
--   regress_cat_alice, regress_cat_mallory: table admins (CREATE on stdesign_data)
--   regress_cat_app: an ordinary role, granted alice's table
--   regress_cat_nobody: usage of the schemas and SELECT on the catalog only
CREATE ROLE regress_cat_alice;
CREATE ROLE regress_cat_mallory;
CREATE ROLE regress_cat_app;
CREATE ROLE regress_cat_nobody;
GRANT USAGE ON SCHEMA stdesign, stdesign_data
  TO regress_cat_alice, regress_cat_mallory, regress_cat_app, regress_cat_nobody;
GRANT SELECT ON stdesign.tables, stdesign.indexes
  TO regress_cat_alice, regress_cat_mallory, regress_cat_app, regress_cat_nobody;
GRANT CREATE ON SCHEMA stdesign_data TO regress_cat_alice, regress_cat_mallory;
\set VERBOSITY terse

-- 1. A table admin administers its own tables through the functions and
-- st_api, with no privilege on the catalog.
SET ROLE regress_cat_alice;
SELECT st_create_table('Alice') ->> 'TableName' AS created;
SELECT st_create_gsi('Alice', 'ByG', 'g', NULL) -> 'GlobalSecondaryIndexes' -> 0 ->> 'IndexName' AS gsi;
SELECT st_update_ttl('Alice', 'expires');
SELECT st_api('UpdateTimeToLive', '{"TableName": "Alice",
  "TimeToLiveSpecification": {"Enabled": false, "AttributeName": "expires"}}');
SELECT st_tag_table('Alice', '{"team": "a", "tmp": "x"}');
SELECT st_untag_table('Alice', '{tmp}');
SELECT st_api('TagResource', '{"ResourceArn": "arn:aws:dynamodb:local:000000000000:table/Alice",
  "Tags": [{"Key": "cost", "Value": "1"}]}');
SELECT st_api('UntagResource', '{"ResourceArn": "arn:aws:dynamodb:local:000000000000:table/Alice",
  "TagKeys": ["cost"]}');
SELECT st_table_tags('Alice');
SELECT st_set_model('Alice', '{"entities": {"Thing": {"keys": {"PK": "T#{id}", "SK": "T#{id}"}}}}') IS NOT NULL AS model_set;
SELECT st_api('UpdateTable', '{"TableName": "Alice", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [{"AttributeName": "h", "AttributeType": "S"}],
  "GlobalSecondaryIndexUpdates": [{"Create": {"IndexName": "ByH",
    "KeySchema": [{"AttributeName": "h", "KeyType": "HASH"}], "Projection": {"ProjectionType": "KEYS_ONLY"}}}]}')
  #>> '{TableDescription,BillingModeSummary,BillingMode}' AS billing;
SELECT st_api('UpdateTable', '{"TableName": "Alice", "GlobalSecondaryIndexUpdates": [{"Delete": {"IndexName": "ByH"}}]}')
  #>> '{TableDescription,TableName}' AS gsi_dropped;
SELECT st_api('UpdateTable', '{"TableName": "Alice", "DeletionProtectionEnabled": true}')
  #> '{TableDescription,DeletionProtectionEnabled}' AS protected;
SELECT st_api('UpdateTable', '{"TableName": "Alice", "DeletionProtectionEnabled": false}')
  #> '{TableDescription,DeletionProtectionEnabled}' AS protected;
SELECT st_api('UpdateContinuousBackups', '{"TableName": "Alice",
  "PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": true}}')
  #>> '{ContinuousBackupsDescription,PointInTimeRecoveryDescription,PointInTimeRecoveryStatus}' AS pitr;
SELECT st_drop_gsi('Alice', 'ByG');
SELECT st_api('CreateTable', '{"TableName": "Alice2", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}]}') #>> '{TableDescription,TableName}' AS created;
SELECT st_api('DeleteTable', '{"TableName": "Alice2"}') #>> '{TableDescription,TableStatus}' AS status;
SELECT st_create_table('Alice3') ->> 'TableName' AS created;
SELECT st_drop_table('Alice3');
SELECT st_put('{"PK": "a", "SK": "1", "v": "alice''s"}', 'Alice');
GRANT SELECT, INSERT, UPDATE, DELETE ON stdesign_data."Alice" TO regress_cat_app;
RESET ROLE;
SELECT table_name, relation_name, key_index, ttl_enabled, ttl_attribute FROM stdesign.tables ORDER BY 1;
SELECT table_name, index_name FROM stdesign.indexes ORDER BY 1, 2;

-- 2. Another table admin changes none of it: Postgres's "must be owner"
-- for every change, through every function and operation.
SET ROLE regress_cat_mallory;
SELECT st_create_table('Mallory') ->> 'TableName' AS created;
SELECT st_update_ttl('Alice', 'v');
SELECT st_api('UpdateTimeToLive', '{"TableName": "Alice",
  "TimeToLiveSpecification": {"Enabled": true, "AttributeName": "v"}}');
SELECT st_tag_table('Alice', '{"owner": "mallory"}');
SELECT st_untag_table('Alice', '{team}');
SELECT st_api('TagResource', '{"ResourceArn": "arn:aws:dynamodb:local:000000000000:table/Alice",
  "Tags": [{"Key": "owner", "Value": "mallory"}]}');
SELECT st_api('UntagResource', '{"ResourceArn": "arn:aws:dynamodb:local:000000000000:table/Alice",
  "TagKeys": ["team"]}');
SELECT st_set_model('Alice', NULL);
SELECT st_set_model('Alice', '{"entities": {}}');
SELECT st_create_gsi('Alice', 'Evil', 'v', NULL);
SELECT st_api('UpdateTable', '{"TableName": "Alice", "BillingMode": "PROVISIONED",
  "ProvisionedThroughput": {"ReadCapacityUnits": 1, "WriteCapacityUnits": 1}}');
SELECT st_api('UpdateTable', '{"TableName": "Alice", "DeletionProtectionEnabled": true}');
SELECT st_api('UpdateTable', '{"TableName": "Alice",
  "AttributeDefinitions": [{"AttributeName": "v", "AttributeType": "S"}],
  "GlobalSecondaryIndexUpdates": [{"Create": {"IndexName": "Evil",
    "KeySchema": [{"AttributeName": "v", "KeyType": "HASH"}], "Projection": {"ProjectionType": "ALL"}}}]}');
SELECT st_api('UpdateContinuousBackups', '{"TableName": "Alice",
  "PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": false}}');
SELECT st_drop_table('Alice');
SELECT st_api('DeleteTable', '{"TableName": "Alice"}');
-- reading what is not its own: the tags need SELECT on the relation
SELECT st_table_tags('Alice');
SELECT st_api('ListTagsOfResource', '{"ResourceArn": "arn:aws:dynamodb:local:000000000000:table/Alice"}');
RESET ROLE;
SET ROLE regress_cat_app;
-- granted alice's table (not its ownership): reads its tags, changes nothing
SELECT st_table_tags('Alice');
SELECT st_update_ttl('Alice', 'v');
SELECT st_tag_table('Alice', '{"owner": "app"}');
RESET ROLE;

-- 3. Creating a table needs CREATE on stdesign_data, checked before any
-- catalog row is written.
SET ROLE regress_cat_nobody;
SELECT st_create_table('Nobody');
SELECT st_api('CreateTable', '{"TableName": "Nobody", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}]}');
RESET ROLE;

-- 4. The attack of issue 26, finding 3: the grants the old README named
-- (INSERT, UPDATE, DELETE on stdesign.tables and stdesign.indexes), and
-- more, given anyway.  Every direct write of the catalog is refused: TTL
-- cannot be switched on for alice's table, nor the table repointed at a
-- relation of mallory's (relation_name, key_index, its index rows).
GRANT INSERT, UPDATE, DELETE, TRUNCATE ON stdesign.tables, stdesign.indexes, stdesign.tags TO regress_cat_mallory;
GRANT ALL ON stdesign.models TO regress_cat_mallory;
SET ROLE regress_cat_mallory;
UPDATE stdesign.tables SET ttl_enabled = true, ttl_attribute = 'v' WHERE table_name = 'Alice';
UPDATE stdesign.tables SET relation_name = 'Mallory', key_index = 'Mallory:key' WHERE table_name = 'Alice';
DELETE FROM stdesign.indexes WHERE table_name = 'Alice';
INSERT INTO stdesign.indexes (table_name, index_name, pk_name, pk_type, pg_index, definition)
  VALUES ('Alice', 'Evil', 'v', 'S', 'Mallory:key', '{}');
DELETE FROM stdesign.tables WHERE table_name = 'Alice';
INSERT INTO stdesign.tags VALUES ('Alice', 'owner', 'mallory');
TRUNCATE stdesign.tags;
INSERT INTO stdesign.models (table_name, model, updated_by) VALUES ('Mallory', '{}', 'x');
-- ... and through a table of its own: no more than through stdesign's functions
UPDATE stdesign.tables SET ttl_enabled = true, ttl_attribute = 'v' WHERE table_name = 'Mallory';
RESET ROLE;
SELECT table_name, relation_name, key_index, ttl_enabled, ttl_attribute FROM stdesign.tables ORDER BY 1;
SELECT table_name, index_name FROM stdesign.indexes ORDER BY 1, 2;
-- other roles' writes still land in alice's relation
SET ROLE regress_cat_app;
SELECT st_put('{"PK": "a", "SK": "2", "v": "app''s"}', 'Alice');
RESET ROLE;
SELECT pk, sk FROM stdesign_data."Alice" ORDER BY 1, 2;
SELECT count(*) AS mallorys_items FROM stdesign_data."Mallory";
REVOKE ALL ON stdesign.tables, stdesign.indexes, stdesign.tags, stdesign.models FROM regress_cat_mallory;
GRANT SELECT ON stdesign.tables, stdesign.indexes TO regress_cat_mallory;

-- 5. A trigger hung on a catalog table (TRIGGER granted by mistake) would
-- run as the catalog's owner when stdesign writes: stdesign writes nothing
-- while one is there.
CREATE TABLE cat_planted (who name);
GRANT INSERT ON cat_planted TO PUBLIC;
GRANT TRIGGER ON stdesign.tags TO regress_cat_mallory;
GRANT CREATE ON SCHEMA public TO regress_cat_mallory;
SET ROLE regress_cat_mallory;
CREATE FUNCTION cat_plant() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO public.cat_planted VALUES (current_user);
  RETURN NULL;
END $$;
CREATE TRIGGER planted AFTER INSERT ON stdesign.tags FOR EACH STATEMENT EXECUTE FUNCTION cat_plant();
RESET ROLE;
SET ROLE regress_cat_alice;
SELECT st_tag_table('Alice', '{"later": "1"}');
RESET ROLE;
SELECT count(*) AS planted_runs FROM cat_planted;
DROP TRIGGER planted ON stdesign.tags;
REVOKE TRIGGER ON stdesign.tags FROM regress_cat_mallory;
REVOKE CREATE ON SCHEMA public FROM regress_cat_mallory;
SET ROLE regress_cat_alice;
SELECT st_tag_table('Alice', '{"later": "1"}');
RESET ROLE;

-- 6. The extension's owner (here a superuser) may still write the catalog
-- (pg_restore of the configuration tables, repairs).
BEGIN;
UPDATE stdesign.tags SET tag_value = '2' WHERE table_name = 'Alice' AND tag_key = 'later';
SELECT tag_value FROM stdesign.tags WHERE table_name = 'Alice' AND tag_key = 'later';
ROLLBACK;

-- Dropping: each owner its own.
SET ROLE regress_cat_mallory;
DROP FUNCTION cat_plant();
SELECT st_drop_table('Mallory');
RESET ROLE;
SET ROLE regress_cat_alice;
SELECT st_drop_table('Alice');
RESET ROLE;
\set VERBOSITY default
SELECT count(*) AS tables_left FROM stdesign.tables;
DROP TABLE cat_planted;
REVOKE ALL ON SCHEMA stdesign, stdesign_data
  FROM regress_cat_alice, regress_cat_mallory, regress_cat_app, regress_cat_nobody;
REVOKE ALL ON stdesign.tables, stdesign.indexes
  FROM regress_cat_alice, regress_cat_mallory, regress_cat_app, regress_cat_nobody;
DROP ROLE regress_cat_alice, regress_cat_mallory, regress_cat_app, regress_cat_nobody;
