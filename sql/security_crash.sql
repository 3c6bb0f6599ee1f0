-- Nothing a role can do to a stdesign table, or with stdesign's trigger
-- function, takes the server down: the set_keys trigger refuses relations
-- that are not a table's, a relation whose layout was changed is refused
-- when its definition is loaded (and the DDL event triggers refuse such
-- changes in the first place), NaN and Infinity never reach JSON, and long
-- requests are validated without quadratic loops (nested calls:
-- nested_calls.sql; a table dropped while waiting: the drop_wait spec).
--
-- A crash would restart the server and go through crash recovery, which
-- empties unlogged tables: the sentinel's row must still be there at the end.
CREATE UNLOGGED TABLE crash_sentinel (alive text);
INSERT INTO crash_sentinel VALUES ('before');
\set VERBOSITY terse

-- 1. stdesign.set_keys() on a relation that is not a table's.
CREATE ROLE regress_crash_user;
GRANT USAGE ON SCHEMA stdesign TO regress_crash_user;
SET ROLE regress_crash_user;
CREATE TEMP TABLE boom (pk text, item int);
-- Only stdesign attaches the trigger (EXECUTE is not granted to PUBLIC) ...
CREATE TRIGGER boom BEFORE INSERT ON boom FOR EACH ROW EXECUTE FUNCTION stdesign.set_keys('PK', 'S');
RESET ROLE;
-- ... the DDL guard refuses it on a relation that is not a table's ...
CREATE TRIGGER boom BEFORE INSERT ON pg_temp.boom FOR EACH ROW EXECUTE FUNCTION stdesign.set_keys('PK', 'S');
-- ... and when it is attached anyway (the guard disabled), the trigger
-- refuses to write the relation.
ALTER EVENT TRIGGER stdesign_layout_ddl DISABLE;
CREATE TRIGGER boom BEFORE INSERT ON pg_temp.boom FOR EACH ROW EXECUTE FUNCTION stdesign.set_keys('PK', 'S');
INSERT INTO pg_temp.boom VALUES ('x', 12345);
DROP TABLE pg_temp.boom;
CREATE TABLE public.boom2 (pk text COLLATE "C", item jsonb);
CREATE TRIGGER boom BEFORE INSERT ON public.boom2 FOR EACH ROW EXECUTE FUNCTION stdesign.set_keys('PK', 'S');
INSERT INTO public.boom2 VALUES ('x', '{"PK": {"S": "x"}}');
DROP TABLE public.boom2;
-- In stdesign_data, with the right columns, but no table's relation.
CREATE TABLE stdesign_data.boom3 (pk text COLLATE "C", item jsonb);
CREATE TRIGGER boom BEFORE INSERT ON stdesign_data.boom3 FOR EACH ROW EXECUTE FUNCTION stdesign.set_keys('PK', 'S');
INSERT INTO stdesign_data.boom3 VALUES ('x', '{"PK": {"S": "x"}}');
DROP TABLE stdesign_data.boom3;
-- Arguments that are no key, and a sort key the relation does not have.
CREATE TABLE stdesign_data.boom4 (pk text COLLATE "C", item jsonb);
CREATE TRIGGER boom BEFORE INSERT ON stdesign_data.boom4 FOR EACH ROW EXECUTE FUNCTION stdesign.set_keys('PK', 'X');
INSERT INTO stdesign_data.boom4 VALUES ('x', '{"PK": {"S": "x"}}');
DROP TRIGGER boom ON stdesign_data.boom4;
CREATE TRIGGER boom BEFORE INSERT ON stdesign_data.boom4 FOR EACH ROW EXECUTE FUNCTION stdesign.set_keys('PK', 'S', 'SK', 'N');
INSERT INTO stdesign_data.boom4 VALUES ('x', '{"PK": {"S": "x"}, "SK": {"N": "1"}}');
DROP TABLE stdesign_data.boom4;
ALTER EVENT TRIGGER stdesign_layout_ddl ENABLE;
-- A table created by an ordinary role still gets its trigger, and works.
GRANT USAGE, CREATE ON SCHEMA stdesign_data TO regress_crash_user;
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA stdesign TO regress_crash_user;
SET ROLE regress_crash_user;
SELECT st_create_table('ByUser') ->> 'TableName' AS created;
SELECT st_put('{"PK": "u", "SK": "1", "n": 1}', 'ByUser');
INSERT INTO stdesign_data."ByUser" (item) VALUES ('{"PK": {"S": "u"}, "SK": {"S": "2"}}');
SELECT pk, sk FROM stdesign_data."ByUser" ORDER BY sk;
SELECT st_drop_table('ByUser');
RESET ROLE;

-- 2. The layout of a table's relation.
SELECT st_create_table('Lay') ->> 'TableName' AS created;
SELECT st_put('{"PK": "a", "SK": "1", "G": "g", "GS": 1, "v": "one"}', 'Lay');
-- The event triggers refuse what would break it ...
ALTER TABLE stdesign_data."Lay" ALTER COLUMN item TYPE text;
ALTER TABLE stdesign_data."Lay" ALTER COLUMN item TYPE json;
ALTER TABLE stdesign_data."Lay" ALTER COLUMN pk TYPE bytea USING pk::bytea;
ALTER TABLE stdesign_data."Lay" ALTER COLUMN sk TYPE text COLLATE "POSIX";
ALTER TABLE stdesign_data."Lay" RENAME COLUMN item TO old_item;
ALTER TABLE stdesign_data."Lay" DROP COLUMN sk;
ALTER TABLE stdesign_data."Lay" DISABLE TRIGGER set_keys;
ALTER TABLE stdesign_data."Lay" RENAME TO "Lay2";
ALTER TABLE stdesign_data."Lay" SET SCHEMA public;
ALTER INDEX stdesign_data."Lay:key" RENAME TO "Lay:key2";
DROP INDEX stdesign_data."Lay:key";
DROP TRIGGER set_keys ON stdesign_data."Lay";
CREATE TRIGGER set_keys2 BEFORE INSERT OR UPDATE ON stdesign_data."Lay" FOR EACH ROW EXECUTE FUNCTION stdesign.set_keys('PK', 'S', 'SK', 'S');
DROP TABLE stdesign_data."Lay";
SELECT st_create_gsi('Lay', 'ByG', 'G', 'GS', sk_type => 'N') ->> 'TableName' AS gsi;
DROP INDEX stdesign_data."Lay/ByG";
ALTER INDEX stdesign_data."Lay/ByG" RENAME TO "Lay/ByG2";
-- ... and let through what does not: a column after item, row security,
-- an index and a trigger of one's own.
ALTER TABLE stdesign_data."Lay" ADD COLUMN note text;
ALTER TABLE stdesign_data."Lay" DROP COLUMN note;
ALTER TABLE stdesign_data."Lay" ENABLE ROW LEVEL SECURITY;
ALTER TABLE stdesign_data."Lay" DISABLE ROW LEVEL SECURITY;
CREATE INDEX lay_v ON stdesign_data."Lay" ((item #>> '{v,S}'));
DROP INDEX stdesign_data.lay_v;
CREATE FUNCTION lay_noop() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$;
CREATE TRIGGER lay_noop AFTER INSERT ON stdesign_data."Lay" FOR EACH ROW EXECUTE FUNCTION lay_noop();
DROP TRIGGER lay_noop ON stdesign_data."Lay";
DROP FUNCTION lay_noop();
SELECT st_get('a', '1', 'Lay');

-- With the event triggers disabled (a superuser can), the relation is
-- refused when its definition is loaded: InternalServerError, no crash.
SELECT pg_get_indexdef('stdesign_data."Lay:key"'::regclass) AS key_def,
       pg_get_indexdef('stdesign_data."Lay/ByG"'::regclass) AS gsi_def \gset
ALTER EVENT TRIGGER stdesign_layout_ddl DISABLE;
ALTER EVENT TRIGGER stdesign_layout_drop DISABLE;
-- the key index replaced by a non-unique one, then by one on other columns
DROP INDEX stdesign_data."Lay:key";
SELECT st_get('a', '1', 'Lay');
CREATE INDEX "Lay:key" ON stdesign_data."Lay" (stdesign.key_ix(pk), sk);
SELECT st_get('a', '1', 'Lay');
SELECT st_update('a', '1', 'SET v = :v', 'Lay', "values" => '{":v": "two"}');
DROP INDEX stdesign_data."Lay:key";
CREATE UNIQUE INDEX "Lay:key" ON stdesign_data."Lay" (pk, sk);
SELECT st_get('a', '1', 'Lay');
DROP INDEX stdesign_data."Lay:key";
:key_def;
SELECT st_update('a', '1', 'SET v = :v', 'Lay', "values" => '{":v": "two"}');
-- the GSI's btree replaced by one over other types, then dropped
DROP INDEX stdesign_data."Lay/ByG";
CREATE INDEX "Lay/ByG" ON stdesign_data."Lay" (((item -> 'G') ->> 'S'), ((item -> 'GS') ->> 'N'), pk, sk)
  WHERE item ? 'G' AND item ? 'GS';
SELECT * FROM st_query('g', "table" => 'Lay', index => 'ByG');
DROP INDEX stdesign_data."Lay/ByG";
SELECT * FROM st_query('g', "table" => 'Lay', index => 'ByG');
:gsi_def;
SELECT * FROM st_query('g', "table" => 'Lay', index => 'ByG');
SELECT st_drop_gsi('Lay', 'ByG');
-- the item column of another type
ALTER TABLE stdesign_data."Lay" ALTER COLUMN item TYPE text;
SELECT st_get('a', '1', 'Lay');
SELECT st_put('{"PK": "a", "SK": "2"}', 'Lay');
SELECT * FROM st_query('a', "table" => 'Lay');
SELECT st_delete('a', '1', 'Lay');
ALTER TABLE stdesign_data."Lay" ALTER COLUMN item TYPE json USING item::json;
SELECT st_get('a', '1', 'Lay');
ALTER TABLE stdesign_data."Lay" ALTER COLUMN item TYPE jsonb USING item::jsonb;
SELECT st_get('a', '1', 'Lay');
-- item renamed and another added in its place
ALTER TABLE stdesign_data."Lay" RENAME COLUMN item TO old_item;
ALTER TABLE stdesign_data."Lay" ADD COLUMN item jsonb;
SELECT st_get('a', '1', 'Lay');
SELECT st_update('a', '1', 'SET v = :v', 'Lay', "values" => '{":v": "three"}');
SELECT st_batch_write('{"Lay": [{"PutRequest": {"Item": {"PK": {"S": "a"}, "SK": {"S": "3"}}}}]}');
ALTER TABLE stdesign_data."Lay" DROP COLUMN item;
ALTER TABLE stdesign_data."Lay" RENAME COLUMN old_item TO item;
SELECT st_get('a', '1', 'Lay');
-- the set_keys trigger disabled
ALTER TABLE stdesign_data."Lay" DISABLE TRIGGER set_keys;
SELECT st_get('a', '1', 'Lay');
ALTER TABLE stdesign_data."Lay" ENABLE TRIGGER set_keys;
ALTER EVENT TRIGGER stdesign_layout_ddl ENABLE;
ALTER EVENT TRIGGER stdesign_layout_drop ENABLE;
SELECT pk, sk, item ->> 'v' AS v FROM stdesign_data."Lay" ORDER BY pk, sk;
-- A catalog row without key_index (a 0.1.0 dump's) means the key index
-- 0.1.0 named "<relation>_key": a fresh backend loads the table by that
-- name, and the guard protects that index.
ALTER EVENT TRIGGER stdesign_layout_ddl DISABLE;
ALTER INDEX stdesign_data."Lay:key" RENAME TO "Lay_key";
ALTER EVENT TRIGGER stdesign_layout_ddl ENABLE;
UPDATE stdesign.tables SET key_index = NULL WHERE table_name = 'Lay';
\c
\set VERBOSITY terse
SELECT st_get('a', '1', 'Lay');
DROP INDEX stdesign_data."Lay_key";
ALTER INDEX stdesign_data."Lay_key" RENAME TO "Lay:key";
ALTER EVENT TRIGGER stdesign_layout_ddl DISABLE;
ALTER INDEX stdesign_data."Lay_key" RENAME TO "Lay:key";
ALTER EVENT TRIGGER stdesign_layout_ddl ENABLE;
UPDATE stdesign.tables SET key_index = 'Lay:key' WHERE table_name = 'Lay';
\c
\set VERBOSITY terse
SELECT st_get('a', '1', 'Lay');

-- 3. NaN and Infinity written by plain SQL never come back as JSON.
INSERT INTO stdesign_data."Lay" (item) VALUES ('{"PK": {"S": "nan"}, "SK": {"S": "1"}, "x": {"N": "NaN"}}');
INSERT INTO stdesign_data."Lay" (item) VALUES ('{"PK": {"S": "nan"}, "SK": {"S": "2"}, "x": {"L": [{"N": "Infinity"}]}}');
INSERT INTO stdesign_data."Lay" (item) VALUES ('{"PK": {"S": "nan"}, "SK": {"S": "3"}, "x": {"M": {"y": {"NS": ["1", "-Infinity"]}}}}');
UPDATE stdesign_data."Lay" SET item = item || '{"x": {"N": "nan"}}' WHERE pk = 'a';
SELECT st_create_table('NumKey', pk_type => 'N', sk => NULL) ->> 'TableName' AS created;
INSERT INTO stdesign_data."NumKey" (item) VALUES ('{"PK": {"N": "NaN"}}');
INSERT INTO stdesign_data."NumKey" (item) VALUES ('{"PK": {"N": "Infinity"}}');
INSERT INTO stdesign_data."NumKey" (item) VALUES ('{"PK": {"N": "1e1000"}}');
SELECT count(*) AS rows FROM stdesign_data."NumKey";
-- A row that got in anyway (triggers off for replication) is refused when read in plain form.
SET session_replication_role = replica;
INSERT INTO stdesign_data."Lay" (pk, sk, item) VALUES ('nan', '9', '{"PK": {"S": "nan"}, "SK": {"S": "9"}, "x": {"N": "NaN"}}');
RESET session_replication_role;
SELECT st_get('nan', '9', 'Lay');
SELECT st_get('nan', '9', 'Lay', typed => true);
SELECT st_api('GetItem', '{"TableName": "Lay", "Key": {"PK": {"S": "nan"}, "SK": {"S": "9"}}}');
DELETE FROM stdesign_data."Lay" WHERE pk = 'nan';
SELECT st_drop_table('NumKey');

-- 4. Long request arrays are not validated in quadratic time: 150,000
-- AttributeDefinitions, or GlobalSecondaryIndexUpdates, are answered
-- within the statement timeout (a pairwise check of that many takes many
-- minutes, and never looked at the timeout; a linear one a second or two,
-- so the timeout leaves a slow or loaded machine a wide margin and no
-- elapsed time is compared).
SET statement_timeout = '60s';
SELECT st_create_table(jsonb_build_object('TableName', 'Big', 'BillingMode', 'PAY_PER_REQUEST',
  'KeySchema', '[{"AttributeName": "a1", "KeyType": "HASH"}]'::jsonb,
  'AttributeDefinitions', (SELECT jsonb_agg(jsonb_build_object('AttributeName', 'a' || i, 'AttributeType', 'S'))
                             FROM generate_series(1, 150000) AS i)));
SELECT st_create_table(jsonb_build_object('TableName', 'Big', 'BillingMode', 'PAY_PER_REQUEST',
  'KeySchema', '[{"AttributeName": "a1", "KeyType": "HASH"}]'::jsonb,
  'AttributeDefinitions', (SELECT jsonb_agg(jsonb_build_object('AttributeName', 'a' || (i % 149999), 'AttributeType', 'S'))
                             FROM generate_series(1, 150000) AS i)));
SELECT st_api('UpdateTable', jsonb_build_object('TableName', 'Lay',
  'GlobalSecondaryIndexUpdates', (SELECT jsonb_agg(jsonb_build_object('Delete', jsonb_build_object('IndexName', 'ix' || (i % 149999))))
                                    FROM generate_series(1, 150000) AS i)));
RESET statement_timeout;

-- stdesign.ttl_shard, the time-to-live index's shard, takes "any": a role
-- calls it with what it likes.  Values of variable length are hashed as
-- bytes (a record, an array, one expanded by PL/pgSQL, a toasted value), all
-- else is refused; no call reads past its argument.
SET ROLE regress_crash_user;
SELECT stdesign.ttl_shard(ROW(1, 'x')) BETWEEN 0 AND 15 AS "record",
       stdesign.ttl_shard(ARRAY[1, 2, 3], '{}'::jsonb) BETWEEN 0 AND 15 AS array_jsonb,
       stdesign.ttl_shard(''::bytea, ''::text) BETWEEN 0 AND 15 AS empty,
       stdesign.ttl_shard(repeat('x', 3000000)) BETWEEN 0 AND 15 AS long;
CREATE TEMP TABLE shard_toast (v text);
INSERT INTO shard_toast SELECT string_agg(md5(i::text), '') FROM generate_series(1, 20000) i;
SELECT stdesign.ttl_shard(v) BETWEEN 0 AND 15 AS toasted FROM shard_toast;
DO $$
DECLARE a int[] := ARRAY[1];
BEGIN
	FOR i IN 2 .. 1000 LOOP a[i] := i; END LOOP;
	RAISE NOTICE 'expanded: %', stdesign.ttl_shard(a) BETWEEN 0 AND 15;
END $$;
SELECT stdesign.ttl_shard(1::int2);
SELECT stdesign.ttl_shard(now());
SELECT stdesign.ttl_shard('(1,2)'::point);
SELECT stdesign.ttl_shard('x'::text, true);
SELECT stdesign.ttl_shard('x'::name);
SELECT stdesign.ttl_shard('x'::cstring);
SELECT stdesign.ttl_shard('a', 'b');
-- stdesign.ttl_second and ttl_expiry, the index's key and the expiry,
-- read an attribute of any jsonb a role passes: what ttl_expiry does not
-- read as a Number is NULL in both, never an error or a read past the
-- value, and the second is the expiry's floor below 10^18.
SELECT v AS item, stdesign.ttl_second(v::jsonb, 'e') AS second, stdesign.ttl_expiry(v::jsonb, 'e') AS expiry
  FROM (VALUES ('5'), ('"e"'), ('null'), ('[{"N": "1"}]'), ('{"e": 5}'), ('{"e": {"N": 5}}'),
               ('{"e": {"N": null}}'), ('{"e": {"N": ["1"]}}'), ('{"e": {"S": "1"}}'), ('{"e": {"N": ""}}'),
               ('{"e": {"N": "-"}}'), ('{"e": {"N": "1e"}}'), ('{"e": {"N": "1e99999999999999999999"}}'),
               ('{"e": {"N": "-1e-99999999999999999999"}}'), ('{"e": {"N": "9223372036854775808"}}'),
               ('{"e": {"N": "-9223372036854775809.5"}}'), ('{"e": {"N": " 1"}}'), ('{"e": {"N": "0x10"}}'),
               ('{"e": {"N": "1", "S": "2"}}'), ('{"e": {"e": {"N": "1"}}}')) AS t(v);
SELECT stdesign.ttl_second(jsonb_build_object('e', jsonb_build_object('N', repeat('9', 200000))), 'e') AS long_digits,
       stdesign.ttl_second(jsonb_build_object('e', jsonb_build_object('N', '0.' || repeat('0', 200000) || '1')), 'e') AS long_fraction,
       stdesign.ttl_second('{"": {"N": "7"}}', '') AS empty_name,
       stdesign.ttl_second(jsonb_build_object(repeat('k', 100000), jsonb_build_object('N', '7')), repeat('k', 100000)) AS long_name,
       stdesign.ttl_second('{"e": {"N": "7"}}', NULL) AS null_name;
CREATE TEMP TABLE second_toast (v jsonb);
INSERT INTO second_toast SELECT jsonb_build_object('e', jsonb_build_object('N', '1700000000.5'),
  'pad', string_agg(md5(i::text), '')) FROM generate_series(1, 20000) i;
SELECT stdesign.ttl_second(v, 'e') AS toasted FROM second_toast;
RESET ROLE;
DROP TABLE pg_temp.second_toast;
DROP TABLE pg_temp.shard_toast;

SELECT st_drop_table('Lay');
REVOKE ALL ON SCHEMA stdesign, stdesign_data FROM regress_crash_user;
REVOKE ALL ON ALL TABLES IN SCHEMA stdesign_data FROM regress_crash_user;
REVOKE ALL ON ALL TABLES IN SCHEMA stdesign FROM regress_crash_user;
DROP ROLE regress_crash_user;

-- The server never restarted: the unlogged sentinel kept its row.
SELECT alive FROM crash_sentinel;
DROP TABLE crash_sentinel;
