-- Replacing a locked row's item without an executor (src/storage/row_update.c):
-- index entries stay exact, HOT updates still happen, and whenever an UPDATE
-- statement would do more (a user's trigger, a CHECK constraint, row-level
-- security) or is not permitted, the UPDATE statement runs instead.
CREATE EXTENSION amcheck;

SELECT st_create_table('{"TableName": "Rows", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "SK", "AttributeType": "S"},
                           {"AttributeName": "G", "AttributeType": "S"}, {"AttributeName": "GS", "AttributeType": "N"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
  "GlobalSecondaryIndexes": [{"IndexName": "ByG",
    "KeySchema": [{"AttributeName": "G", "KeyType": "HASH"}, {"AttributeName": "GS", "KeyType": "RANGE"}],
    "Projection": {"ProjectionType": "ALL"}}]}'::jsonb) IS NOT NULL AS created;
SELECT st_create_table('{"TableName": "NoGsi", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}]}'::jsonb) IS NOT NULL AS created;

SELECT count(*) AS written FROM (
  SELECT st_put(jsonb_build_object('PK', 'p' || (i % 10), 'SK', 's' || i, 'n', 0)
                || CASE WHEN i % 2 = 0 THEN jsonb_build_object('G', 'g' || (i % 3), 'GS', i) ELSE '{}' END, 'Rows')
    FROM generate_series(1, 200) AS i) AS puts;

-- 600 updates: counters, items entering, leaving and moving within the GSI.
SELECT count(*) AS updates FROM (
  SELECT st_update('p' || ((i % 200 + 1) % 10), 's' || (i % 200 + 1),
                   CASE i % 3 WHEN 0 THEN 'SET n = n + :one'
                              WHEN 1 THEN 'SET G = :g, GS = :gs'
                              ELSE 'REMOVE G' END,
                   'Rows', "values" => CASE i % 3 WHEN 0 THEN '{":one": 1}'::jsonb
                                                  WHEN 1 THEN jsonb_build_object(':g', 'g' || (i % 4), ':gs', i) END,
                   condition => 'attribute_exists(PK)', return_values => 'NONE')
    FROM generate_series(1, 600) AS i) AS u;

-- Every row version's entries are in both indexes (heapallindexed), and
-- the GSI answers exactly what the items say.
SELECT count(*) AS indexes_checked
  FROM pg_index, LATERAL (SELECT bt_index_check(indexrelid, true)) AS c
 WHERE indrelid = 'stdesign_data."Rows"'::regclass;
SELECT g, count(*) AS by_index,
       (SELECT count(*) FROM stdesign_data."Rows" WHERE item #>> '{G,S}' = g AND item ? 'GS') AS by_items
  FROM (VALUES ('g0'), ('g1'), ('g2'), ('g3')) AS v (g),
       LATERAL st_query(g, index => 'ByG', "table" => 'Rows') AS q
 GROUP BY g ORDER BY g;
SELECT sum((item #>> '{n,N}')::int) AS increments FROM stdesign_data."Rows";

-- A table without GSIs: the item is in no index, so updates are HOT.
SELECT st_put('{"PK": "hot", "n": 0}', 'NoGsi') IS NULL AS put;
BEGIN;
SELECT count(st_update('hot', NULL, 'SET n = n + :one', 'NoGsi', "values" => '{":one": 1}')) AS updates
  FROM generate_series(1, 20);
SELECT n_tup_upd AS updated, n_tup_hot_upd > 0 AS some_hot
  FROM pg_stat_xact_user_tables WHERE relid = 'stdesign_data."NoGsi"'::regclass;
COMMIT;
SELECT st_get('hot', NULL, 'NoGsi');

-- The indexes' definitions are kept per session (src/storage/index_cache.c):
-- a GSI created, rebuilt or dropped between two updates is seen by the next.
SELECT st_update('hot', NULL, 'SET G = :g, GS = :gs', 'NoGsi', "values" => '{":g": "a", ":gs": "1"}', return_values => 'UPDATED_NEW');
SELECT st_create_gsi('NoGsi', 'ByG', 'G', 'GS') IS NOT NULL AS gsi_created;
SELECT st_update('hot', NULL, 'SET GS = :gs', 'NoGsi', "values" => '{":gs": "2"}', return_values => 'UPDATED_NEW');
SELECT item->'GS' AS gs FROM st_query('a', index => 'ByG', "table" => 'NoGsi') AS q(item);
SELECT indexrelid::regclass::text AS gsi_index FROM pg_index
 WHERE indrelid = 'stdesign_data."NoGsi"'::regclass AND NOT indisunique \gset
REINDEX INDEX CONCURRENTLY :gsi_index;
SELECT st_update('hot', NULL, 'SET GS = :gs', 'NoGsi', "values" => '{":gs": "3"}', return_values => 'UPDATED_NEW');
SELECT item->'GS' AS gs FROM st_query('a', index => 'ByG', "table" => 'NoGsi') AS q(item);
SELECT count(*) AS indexes_checked
  FROM pg_index, LATERAL (SELECT bt_index_check(indexrelid, true)) AS c
 WHERE indrelid = 'stdesign_data."NoGsi"'::regclass;
SELECT st_drop_gsi('NoGsi', 'ByG');
SELECT st_update('hot', NULL, 'REMOVE G, GS', 'NoGsi', return_values => 'ALL_NEW');

-- A user's trigger on the data relation: it fires (the UPDATE statement runs).
CREATE TABLE audit (pk text, n text);
CREATE FUNCTION audit_row() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO audit VALUES (NEW.pk, NEW.item #>> '{n,N}');
  RETURN NEW;
END $$;
CREATE TRIGGER audit_row AFTER UPDATE ON stdesign_data."NoGsi" FOR EACH ROW EXECUTE FUNCTION audit_row();
SELECT st_update('hot', NULL, 'SET n = n + :one', 'NoGsi', "values" => '{":one": 1}');
SELECT * FROM audit;
DROP TRIGGER audit_row ON stdesign_data."NoGsi";

-- A CHECK constraint: it is checked, and a violating update changes nothing.
ALTER TABLE stdesign_data."NoGsi" ADD CONSTRAINT small_n CHECK ((item #>> '{n,N}')::int < 100);
SELECT st_update('hot', NULL, 'SET n = :big', 'NoGsi', "values" => '{":big": 100}');
SELECT st_get('hot', NULL, 'NoGsi');
ALTER TABLE stdesign_data."NoGsi" DROP CONSTRAINT small_n;

-- A user without UPDATE privilege reads, but may not update.
CREATE ROLE regress_row_user;
GRANT USAGE ON SCHEMA stdesign, stdesign_data TO regress_row_user;
GRANT SELECT ON ALL TABLES IN SCHEMA stdesign TO regress_row_user;
GRANT SELECT ON stdesign_data."NoGsi" TO regress_row_user;
SET ROLE regress_row_user;
SELECT st_get('hot', NULL, 'NoGsi');
SELECT st_update('hot', NULL, 'SET n = :z', 'NoGsi', "values" => '{":z": 0}');
RESET ROLE;
SELECT st_get('hot', NULL, 'NoGsi');

-- Row-level security applies to reads, locking reads and writes alike.
GRANT UPDATE ON stdesign_data."NoGsi" TO regress_row_user;
SELECT st_put('{"PK": "secret", "n": 1}', 'NoGsi') IS NULL AS put, st_put('{"PK": "locked", "n": 1}', 'NoGsi') IS NULL AS put;
ALTER TABLE stdesign_data."NoGsi" ENABLE ROW LEVEL SECURITY;
CREATE POLICY readable ON stdesign_data."NoGsi" FOR SELECT USING (pk <> 'secret');
CREATE POLICY updatable ON stdesign_data."NoGsi" FOR UPDATE USING (pk <> 'locked');
SET ROLE regress_row_user;
SELECT st_get('secret', NULL, 'NoGsi') AS secret, st_get('locked', NULL, 'NoGsi') AS locked;
SELECT count(*) AS secret_rows FROM st_query('secret', "table" => 'NoGsi');
SELECT st_update('hot', NULL, 'SET n = :z', 'NoGsi', "values" => '{":z": 0}');
-- the locked row is invisible to FOR UPDATE: UpdateItem would create it, which this user may not do
SELECT st_update('locked', NULL, 'SET n = :z', 'NoGsi', "values" => '{":z": 0}');
RESET ROLE;
SELECT st_get('locked', NULL, 'NoGsi') AS locked, st_get('hot', NULL, 'NoGsi') AS hot;
DROP POLICY readable ON stdesign_data."NoGsi";
DROP POLICY updatable ON stdesign_data."NoGsi";
ALTER TABLE stdesign_data."NoGsi" DISABLE ROW LEVEL SECURITY;

-- A transaction's updates take the same path, and roll back with it.
BEGIN;
SELECT st_transact('[{"Update": {"TableName": "NoGsi", "Key": {"PK": {"S": "hot"}},
                                 "UpdateExpression": "SET n = :z", "ExpressionAttributeValues": {":z": {"N": "-1"}}}}]');
SELECT st_get('hot', NULL, 'NoGsi');
ROLLBACK;
SELECT st_get('hot', NULL, 'NoGsi');

-- Deletes are direct too (table_tuple_delete of the version read), under
-- the same conditions: a user's trigger fires, a user needs DELETE, row
-- security applies, a published table needs a replica identity, and a
-- transaction's delete rolls back.
SELECT st_put(jsonb_build_object('PK', 'd' || i, 'n', i), 'NoGsi') IS NULL AS put FROM generate_series(1, 6) AS i;
SELECT st_delete('d1', NULL, 'NoGsi', return_values => 'ALL_OLD') AS deleted,
       st_delete('d1', NULL, 'NoGsi', return_values => 'ALL_OLD') AS again,
       st_delete('d2', NULL, 'NoGsi', condition => 'n = :n', "values" => '{":n": 2}', return_values => 'ALL_OLD') AS conditional;
BEGIN;
SELECT st_delete('d3', NULL, 'NoGsi') AS deleted;
SELECT st_get('d3', NULL, 'NoGsi') AS in_transaction;
ROLLBACK;
SELECT st_get('d3', NULL, 'NoGsi') AS after_rollback;
CREATE FUNCTION audit_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO audit VALUES (OLD.pk, OLD.item #>> '{n,N}');
  RETURN OLD;
END $$;
CREATE TRIGGER audit_delete AFTER DELETE ON stdesign_data."NoGsi" FOR EACH ROW EXECUTE FUNCTION audit_delete();
DELETE FROM audit;
SELECT st_delete('d3', NULL, 'NoGsi') AS deleted;
SELECT * FROM audit;
DROP TRIGGER audit_delete ON stdesign_data."NoGsi";
SET ROLE regress_row_user;
SELECT st_delete('d4', NULL, 'NoGsi');
RESET ROLE;
GRANT DELETE ON stdesign_data."NoGsi" TO regress_row_user;
ALTER TABLE stdesign_data."NoGsi" ENABLE ROW LEVEL SECURITY;
CREATE POLICY readable ON stdesign_data."NoGsi" FOR SELECT USING (true);
CREATE POLICY deletable ON stdesign_data."NoGsi" FOR DELETE USING (pk <> 'd4');
SET ROLE regress_row_user;
SELECT st_delete('d4', NULL, 'NoGsi', return_values => 'ALL_OLD') AS not_deleted,
       st_delete('d5', NULL, 'NoGsi', return_values => 'ALL_OLD') AS deleted;
RESET ROLE;
DROP POLICY readable ON stdesign_data."NoGsi";
DROP POLICY deletable ON stdesign_data."NoGsi";
ALTER TABLE stdesign_data."NoGsi" DISABLE ROW LEVEL SECURITY;
SET client_min_messages = error;
CREATE PUBLICATION nogsi_pub FOR TABLE stdesign_data."NoGsi";
RESET client_min_messages;
SELECT st_delete('d6', NULL, 'NoGsi');
DROP PUBLICATION nogsi_pub;
SELECT pk FROM stdesign_data."NoGsi" WHERE pk LIKE 'd%' ORDER BY pk;

REVOKE ALL ON stdesign_data."NoGsi" FROM regress_row_user;
REVOKE ALL ON ALL TABLES IN SCHEMA stdesign FROM regress_row_user;
REVOKE ALL ON SCHEMA stdesign, stdesign_data FROM regress_row_user;
DROP ROLE regress_row_user;
DROP TABLE audit;
DROP FUNCTION audit_row();
DROP FUNCTION audit_delete();
SELECT st_drop_table('Rows') IS NOT NULL AS dropped, st_drop_table('NoGsi') IS NOT NULL AS dropped;
DROP EXTENSION amcheck;
