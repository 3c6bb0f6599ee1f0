-- From 0.1.0 to 0.2.0: a table created by 0.1.0 keeps its relation and key
-- index names ("<relation>_key", recorded in the catalog by the upgrade),
-- tokens become per role, st_list_tables gets its search_path, and a new
-- table whose readable name an old index holds takes its hashed name.
\set test_db :DBNAME
CREATE DATABASE regress_st_upgrade;
\c regress_st_upgrade
CREATE EXTENSION stdesign VERSION '0.1.0';
-- A table as 0.1.0 made it: relation "Old", key index "Old_key".
CREATE TABLE stdesign_data."Old" (pk text COLLATE "C" NOT NULL, sk text COLLATE "C" NOT NULL, item jsonb NOT NULL)
  USING stdesign;
CREATE TRIGGER set_keys BEFORE INSERT OR UPDATE ON stdesign_data."Old"
  FOR EACH ROW EXECUTE FUNCTION stdesign.set_keys('PK', 'S', 'SK', 'S');
CREATE UNIQUE INDEX "Old_key" ON stdesign_data."Old" (stdesign.key_ix(pk), sk);
INSERT INTO stdesign.tables (table_name, relation_name, pk_name, pk_type, sk_name, sk_type, definition)
  VALUES ('Old', 'Old', 'PK', 'S', 'SK', 'S', '{"TableName": "Old"}');
INSERT INTO stdesign_data."Old" (item) VALUES ('{"PK": {"S": "p"}, "SK": {"S": "1"}}');

ALTER EXTENSION stdesign UPDATE TO '0.2.0';
SELECT extversion FROM pg_extension WHERE extname = 'stdesign';
SELECT table_name, relation_name, key_index FROM stdesign.tables;
SELECT proconfig FROM pg_proc WHERE proname = 'st_list_tables';
SELECT attname FROM pg_attribute WHERE attrelid = 'stdesign.transact_tokens'::regclass AND attnum > 0 ORDER BY attnum;

-- The old table works, through its key index.
SELECT st_get('p', '1', 'Old');
SELECT st_put('{"PK": "p", "SK": "1", "v": 2}', 'Old', return_values => 'ALL_OLD');
SELECT st_put('{"PK": "p", "SK": "2"}', 'Old');
SELECT item FROM st_query('p', "table" => 'Old') AS item;
SELECT count(*) AS rows FROM stdesign_data."Old";
-- A new table named like the old key index: its readable name is taken.
SELECT st_create_table('Old_key') ->> 'TableName' AS created;
SELECT table_name, relation_name ~ '^Old_key#[0-9a-f]{32}$' AS hashed, key_index FROM stdesign.tables ORDER BY 1;
SELECT st_put('{"PK": "q", "SK": "1"}', 'Old_key');
SELECT st_get('q', '1', 'Old_key');
-- The catalog rows of a 0.1.0 dump, restored into 0.2.0, have no key_index:
-- NULL stands for 0.1.0's name.  In the order pg_restore runs them: the
-- relation, the catalog's rows (data), the key index, then the trigger
-- (which the layout guard accepts only on a relation the catalog holds,
-- with its key index: the one NULL names).
CREATE TABLE stdesign_data."Dumped" (pk text COLLATE "C" NOT NULL, item jsonb NOT NULL) USING stdesign;
INSERT INTO stdesign.tables (table_name, relation_name, pk_name, pk_type, definition)
  VALUES ('Dumped', 'Dumped', 'PK', 'S', '{"TableName": "Dumped"}');
CREATE UNIQUE INDEX "Dumped_key" ON stdesign_data."Dumped" (stdesign.key_ix(pk));
CREATE TRIGGER set_keys BEFORE INSERT OR UPDATE ON stdesign_data."Dumped"
  FOR EACH ROW EXECUTE FUNCTION stdesign.set_keys('PK', 'S');
SELECT st_put('{"PK": "d", "v": 1}', 'Dumped');
SELECT st_put('{"PK": "d", "v": 2}', 'Dumped', return_values => 'ALL_OLD');
SELECT st_get('d', NULL, 'Dumped');
-- Tokens work after the upgrade.
SELECT st_transact('[{"Put": {"TableName": "Old", "Item": {"PK": {"S": "t"}, "SK": {"S": "1"}}}}]', 'upgraded-token');
SELECT st_transact('[{"Put": {"TableName": "Old", "Item": {"PK": {"S": "t"}, "SK": {"S": "1"}}}}]', 'upgraded-token');
\c :test_db
DROP DATABASE regress_st_upgrade;
