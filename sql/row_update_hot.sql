-- An update that leaves every indexed value alone is a heap-only (HOT)
-- update on every PostgreSQL major (src/storage/row_write.c): 1000 updates
-- of a non-key attribute, each in a transaction of its own, are all HOT,
-- and the key index does not grow.  (PostgreSQL 16 reports which indexes
-- an update needs as TU_UpdateIndexes, 15 as a bool: src/common/st_compat.h.)
SELECT st_create_table('{"TableName": "Hot", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}]}'::jsonb) IS NOT NULL AS created;
SELECT st_put('{"PK": "h", "n": 0, "note": "x"}', 'Hot') IS NULL AS put;

SELECT sum(pg_relation_size(indexrelid)) AS index_bytes_before
  FROM pg_index WHERE indrelid = 'stdesign_data."Hot"'::regclass \gset
SELECT pg_stat_force_next_flush();
SELECT n_tup_upd AS upd_before, n_tup_hot_upd AS hot_before
  FROM pg_stat_user_tables WHERE relid = 'stdesign_data."Hot"'::regclass \gset

DO $$
BEGIN
  FOR i IN 1..1000 LOOP
    PERFORM st_update('h', NULL, 'SET n = n + :one', 'Hot', "values" => '{":one": 1}');
    COMMIT;
  END LOOP;
END $$;

SELECT pg_stat_force_next_flush();
SELECT n_tup_upd - :upd_before AS updated, n_tup_hot_upd - :hot_before AS hot_updated
  FROM pg_stat_user_tables WHERE relid = 'stdesign_data."Hot"'::regclass;
SELECT sum(pg_relation_size(indexrelid)) = :index_bytes_before AS indexes_same_size
  FROM pg_index WHERE indrelid = 'stdesign_data."Hot"'::regclass;
SELECT st_get('h', NULL, 'Hot');

SELECT st_drop_table('Hot');
