-- Puts of many items without an executor (src/storage/row_write.c): what
-- st_put_all and BatchWriteItem write is what INSERT ... ON CONFLICT DO
-- UPDATE would write -- key columns as the set_keys trigger computes them,
-- index entries exact, existing items replaced -- and whenever that
-- statement would do more (a user's trigger, a CHECK constraint, another
-- unique index, a column with a default, row-level security) or is not
-- permitted, the statement runs instead.
CREATE EXTENSION amcheck;

SELECT st_create_table('{"TableName": "Ups", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "SK", "AttributeType": "S"},
                           {"AttributeName": "G", "AttributeType": "S"}, {"AttributeName": "GS", "AttributeType": "N"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
  "GlobalSecondaryIndexes": [{"IndexName": "ByG",
    "KeySchema": [{"AttributeName": "G", "KeyType": "HASH"}, {"AttributeName": "GS", "KeyType": "RANGE"}],
    "Projection": {"ProjectionType": "ALL"}}]}'::jsonb) IS NOT NULL AS created;

-- The expected contents, kept by hand in a plain table.
CREATE TABLE want (pk text COLLATE "C", sk text COLLATE "C", item jsonb, PRIMARY KEY (pk, sk));
CREATE FUNCTION ups_item(i int, round int) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
  SELECT jsonb_build_object('PK', jsonb_build_object('S', 'P' || (i % 40)), 'SK', jsonb_build_object('S', 'S' || i),
                            'round', jsonb_build_object('N', round::text))
         || CASE WHEN (i + round) % 3 <> 0
                 THEN jsonb_build_object('G', jsonb_build_object('S', 'g' || ((i + round) % 5)),
                                         'GS', jsonb_build_object('N', (i * 10 + round)::text))
                 ELSE '{}' END
$$;
CREATE FUNCTION ups_matches() RETURNS TABLE (items bigint, same_as_wanted boolean, gsi_exact boolean, indexes_checked bigint)
LANGUAGE sql AS $$
  SELECT (SELECT count(*) FROM stdesign_data."Ups"),
         NOT EXISTS (SELECT pk, sk, item FROM stdesign_data."Ups" EXCEPT SELECT pk, sk, item FROM want)
           AND NOT EXISTS (SELECT pk, sk, item FROM want EXCEPT SELECT pk, sk, item FROM stdesign_data."Ups"),
         (SELECT bool_and(n_index = n_items) FROM (
            SELECT (SELECT count(*) FROM st_query('g' || g, index => 'ByG', "table" => 'Ups')) AS n_index,
                   (SELECT count(*) FROM want WHERE item #>> '{G,S}' = 'g' || g AND item ? 'GS') AS n_items
              FROM generate_series(0, 4) AS g) AS c),
         (SELECT count(*) FROM pg_index, LATERAL (SELECT bt_index_check(indexrelid, true)) AS c
           WHERE indrelid = 'stdesign_data."Ups"'::regclass)
$$;

-- A load into an empty table: 2500 new items in three chunks.
SELECT st_put_all(ups_item(i, 1), 'Ups', true) AS loaded FROM generate_series(1, 2500) AS i;
INSERT INTO want SELECT item #>> '{PK,S}', item #>> '{SK,S}', item FROM (SELECT ups_item(i, 1) AS item FROM generate_series(1, 2500) AS i) AS s;
SELECT * FROM ups_matches();

-- A reload over it, half of the keys existing, half new: existing items are
-- replaced (moving in, out and within the GSI), none doubled.
SELECT st_put_all(ups_item(i, 2), 'Ups', true) AS loaded FROM generate_series(1251, 3750) AS i;
INSERT INTO want SELECT item #>> '{PK,S}', item #>> '{SK,S}', item FROM (SELECT ups_item(i, 2) AS item FROM generate_series(1251, 3750) AS i) AS s
  ON CONFLICT (pk, sk) DO UPDATE SET item = excluded.item;
SELECT * FROM ups_matches();

-- BatchWriteItem's puts take the same path.
SELECT st_batch_write(jsonb_build_object('Ups', jsonb_agg(jsonb_build_object('PutRequest', jsonb_build_object('Item', ups_item(i, 3)))))) AS unprocessed
  FROM generate_series(3740, 3760) AS i;
INSERT INTO want SELECT item #>> '{PK,S}', item #>> '{SK,S}', item FROM (SELECT ups_item(i, 3) AS item FROM generate_series(3740, 3760) AS i) AS s
  ON CONFLICT (pk, sk) DO UPDATE SET item = excluded.item;
SELECT * FROM ups_matches();

-- A transaction's load rolls back with it.
BEGIN;
SELECT st_put_all(ups_item(i, 4), 'Ups', true) AS loaded FROM generate_series(3000, 5000) AS i;
ROLLBACK;
SELECT * FROM ups_matches();

-- A bad item stops the load: nothing of it is written.
SELECT st_put_all(item, 'Ups', true)
  FROM (SELECT ups_item(i, 5) AS item FROM generate_series(1, 1500) AS i
        UNION ALL SELECT '{"PK": {"S": "P1"}, "SK": {"N": "1"}}') AS s;
SELECT * FROM ups_matches();

-- Key columns: as the set_keys trigger computes them, for every key type.
SELECT st_create_table('{"TableName": "UpsTypes", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [{"AttributeName": "N", "AttributeType": "N"}, {"AttributeName": "B", "AttributeType": "B"}],
  "KeySchema": [{"AttributeName": "N", "KeyType": "HASH"}, {"AttributeName": "B", "KeyType": "RANGE"}]}'::jsonb) IS NOT NULL AS created;
SELECT st_create_table('{"TableName": "UpsHash", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}]}'::jsonb) IS NOT NULL AS created;
SELECT st_put_all(jsonb_build_object('N', jsonb_build_object('N', (i / 4.0)::text),
                                     'B', jsonb_build_object('B', encode(int4send(i), 'base64')), 'v', jsonb_build_object('N', '1')),
                  'UpsTypes', true) AS loaded
  FROM generate_series(1, 40) AS i;
SELECT st_put_all(jsonb_build_object('N', jsonb_build_object('N', (i / 4.0)::text),
                                     'B', jsonb_build_object('B', encode(int4send(i), 'base64')), 'v', jsonb_build_object('N', '2')),
                  'UpsTypes', true) AS reloaded
  FROM generate_series(21, 60) AS i;
SELECT count(*) AS items, count(DISTINCT (pk, sk)) AS keys,
       bool_and(pk = (item #>> '{N,N}')::numeric AND sk = decode(item #>> '{B,B}', 'base64')) AS keys_match_items,
       sum((item #>> '{v,N}')::int) AS v_sum
  FROM stdesign_data."UpsTypes";
SELECT st_api('GetItem', jsonb_build_object('TableName', 'UpsTypes', 'Key', jsonb_build_object(
         'N', jsonb_build_object('N', '5.25'), 'B', jsonb_build_object('B', encode(int4send(21), 'base64'))))) AS by_key;
SELECT st_put_all(jsonb_build_object('id', 'k' || (i % 7), 'v', i), 'UpsHash') AS loaded FROM generate_series(1, 20) AS i;
SELECT pk, item FROM stdesign_data."UpsHash" ORDER BY pk;

-- Where the statement does more, it runs: a user's trigger fires for each row ...
CREATE TABLE audit (pk text, sk text, op text);
CREATE FUNCTION audit_row() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO audit VALUES (NEW.pk, NEW.sk, TG_OP);
  RETURN NEW;
END $$;
CREATE TRIGGER audit_row AFTER INSERT OR UPDATE ON stdesign_data."Ups" FOR EACH ROW EXECUTE FUNCTION audit_row();
SELECT st_put_all(ups_item(i, 6), 'Ups', true) AS loaded FROM generate_series(3759, 3762) AS i;
SELECT * FROM audit ORDER BY sk;
DROP TRIGGER audit_row ON stdesign_data."Ups";
INSERT INTO want SELECT item #>> '{PK,S}', item #>> '{SK,S}', item FROM (SELECT ups_item(i, 6) AS item FROM generate_series(3759, 3762) AS i) AS s
  ON CONFLICT (pk, sk) DO UPDATE SET item = excluded.item;

-- ... a CHECK constraint is checked, and the failing load writes nothing ...
ALTER TABLE stdesign_data."Ups" ADD CONSTRAINT small_round CHECK ((item #>> '{round,N}')::int < 7);
SELECT st_put_all(ups_item(i, 7), 'Ups', true) AS loaded FROM generate_series(1, 10) AS i;
ALTER TABLE stdesign_data."Ups" DROP CONSTRAINT small_round;
SELECT * FROM ups_matches();

-- ... another unique index is enforced (item 4 has GS 41) ...
CREATE UNIQUE INDEX ups_unique_gs ON stdesign_data."Ups" (((item #>> '{GS,N}')));
SELECT item #>> '{GS,N}' AS gs FROM stdesign_data."Ups" WHERE sk = 'S4';
SELECT st_put_all(item, 'Ups', true)
  FROM (VALUES ('{"PK": {"S": "dup"}, "SK": {"S": "1"}, "GS": {"N": "41"}}'::jsonb)) AS v(item);
DROP INDEX stdesign_data.ups_unique_gs;
SELECT * FROM ups_matches();

-- ... and a column a user added gets its default.
ALTER TABLE stdesign_data."UpsHash" ADD COLUMN loaded_at text DEFAULT 'by default';
SELECT st_put_all(jsonb_build_object('id', 'k' || i, 'v', 100 + i), 'UpsHash') AS loaded FROM generate_series(6, 8) AS i;
SELECT pk, item #>> '{v,N}' AS v, loaded_at FROM stdesign_data."UpsHash" ORDER BY pk;

-- A user without UPDATE privilege may not put (an existing item could be replaced).
CREATE ROLE regress_ups_user;
GRANT USAGE ON SCHEMA stdesign, stdesign_data TO regress_ups_user;
GRANT SELECT ON ALL TABLES IN SCHEMA stdesign TO regress_ups_user;
GRANT SELECT, INSERT ON stdesign_data."Ups" TO regress_ups_user;
SET ROLE regress_ups_user;
SELECT st_put_all(ups_item(i, 8), 'Ups', true) AS loaded FROM generate_series(5000, 5002) AS i;
RESET ROLE;

-- Row-level security: a policy refusing some rows refuses the load.
GRANT UPDATE ON stdesign_data."Ups" TO regress_ups_user;
ALTER TABLE stdesign_data."Ups" ENABLE ROW LEVEL SECURITY;
CREATE POLICY readable ON stdesign_data."Ups" FOR SELECT USING (true);
CREATE POLICY insertable ON stdesign_data."Ups" FOR INSERT WITH CHECK (pk <> 'P2');
CREATE POLICY updatable ON stdesign_data."Ups" FOR UPDATE USING (true);
SET ROLE regress_ups_user;
SELECT st_put_all(ups_item(i, 8), 'Ups', true) AS loaded FROM generate_series(5001, 5002) AS i;
SELECT st_put_all(ups_item(i, 8), 'Ups', true) AS loaded FROM generate_series(5000, 5001) AS i;
RESET ROLE;
DROP POLICY readable ON stdesign_data."Ups";
DROP POLICY insertable ON stdesign_data."Ups";
DROP POLICY updatable ON stdesign_data."Ups";
ALTER TABLE stdesign_data."Ups" DISABLE ROW LEVEL SECURITY;
INSERT INTO want SELECT item #>> '{PK,S}', item #>> '{SK,S}', item FROM (SELECT ups_item(i, 8) AS item FROM generate_series(5000, 5001) AS i) AS s;
SELECT * FROM ups_matches();

-- A table published for logical replication without a replica identity:
-- new items are written, replacing one is refused as an UPDATE would be;
-- with REPLICA IDENTITY FULL (docs/storage.md) both are written.
SET client_min_messages = error;
CREATE PUBLICATION ups_pub FOR TABLE stdesign_data."Ups";
RESET client_min_messages;
SELECT st_put_all(ups_item(i, 9), 'Ups', true) AS loaded FROM generate_series(6000, 6001) AS i;
SELECT st_put_all(ups_item(i, 9), 'Ups', true) AS loaded FROM generate_series(6001, 6002) AS i;
SELECT st_update('P1', 'S6001', 'SET round = :r', 'Ups', "values" => '{":r": 10}');
ALTER TABLE stdesign_data."Ups" REPLICA IDENTITY FULL;
SELECT st_put_all(ups_item(i, 9), 'Ups', true) AS loaded FROM generate_series(6001, 6002) AS i;
SELECT st_update('P1', 'S6001', 'SET round = :r', 'Ups', "values" => '{":r": 9}', return_values => 'UPDATED_NEW');
DROP PUBLICATION ups_pub;
INSERT INTO want SELECT item #>> '{PK,S}', item #>> '{SK,S}', item FROM (SELECT ups_item(i, 9) AS item FROM generate_series(6000, 6002) AS i) AS s;
SELECT * FROM ups_matches();

REVOKE ALL ON stdesign_data."Ups" FROM regress_ups_user;
REVOKE ALL ON ALL TABLES IN SCHEMA stdesign FROM regress_ups_user;
REVOKE ALL ON SCHEMA stdesign, stdesign_data FROM regress_ups_user;
DROP ROLE regress_ups_user;
DROP TABLE audit, want;
DROP FUNCTION audit_row();
DROP FUNCTION ups_matches();
DROP FUNCTION ups_item(int, int);
SELECT st_drop_table('Ups') IS NOT NULL AS dropped, st_drop_table('UpsTypes') IS NOT NULL AS dropped,
       st_drop_table('UpsHash') IS NOT NULL AS dropped;
DROP EXTENSION amcheck;
