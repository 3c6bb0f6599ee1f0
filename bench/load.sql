-- The seeds' e-commerce shape, in a stdesign table and in an equivalent
-- hand-made table: customers (one profile item and ORDERS_PER orders each,
-- orders carrying GSI1 keys), so that each customer partition holds
-- ORDERS_PER + 1 items.  psql variables: :customers, :orders_per.
\set ON_ERROR_STOP 1
CREATE EXTENSION IF NOT EXISTS stdesign;
SELECT st_create_table('{
  "TableName": "Bench", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [
    {"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "SK", "AttributeType": "S"},
    {"AttributeName": "GSI1PK", "AttributeType": "S"}, {"AttributeName": "GSI1SK", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
  "GlobalSecondaryIndexes": [{"IndexName": "GSI1",
    "KeySchema": [{"AttributeName": "GSI1PK", "KeyType": "HASH"}, {"AttributeName": "GSI1SK", "KeyType": "RANGE"}],
    "Projection": {"ProjectionType": "ALL"}}]
}'::jsonb) IS NOT NULL AS created \gset

-- The hand-written equivalent: text COLLATE "C" keys, jsonb item, btree on
-- (pk, sk), the GSI as a partial expression index.
CREATE TABLE hand (pk text COLLATE "C" NOT NULL, sk text COLLATE "C" NOT NULL, item jsonb NOT NULL,
                   PRIMARY KEY (pk, sk));
CREATE INDEX hand_gsi1 ON hand (((item -> 'GSI1PK') ->> 'S') COLLATE "C", ((item -> 'GSI1SK') ->> 'S') COLLATE "C")
  WHERE item ? 'GSI1PK' AND item ? 'GSI1SK';

-- The items, typed, generated once.
CREATE TEMP TABLE items AS
SELECT jsonb_build_object(
         'PK', jsonb_build_object('S', 'CUST#' || c),
         'SK', jsonb_build_object('S', CASE WHEN o = 0 THEN 'PROFILE' ELSE 'ORDER#2026-' || lpad(o::text, 4, '0') END),
         'entity_type', jsonb_build_object('S', CASE WHEN o = 0 THEN 'Customer' ELSE 'Order' END),
         'total', jsonb_build_object('N', ((c * 7 + o * 13) % 10000 / 100.0)::text),
         'status', jsonb_build_object('S', CASE WHEN o % 3 = 0 THEN 'shipped' ELSE 'pending' END))
       || CASE WHEN o = 0 THEN '{}'::jsonb ELSE jsonb_build_object(
            'GSI1PK', jsonb_build_object('S', 'STATUS#' || CASE WHEN o % 3 = 0 THEN 'shipped' ELSE 'pending' END || '#' || (c % 500)),
            'GSI1SK', jsonb_build_object('S', 'ORDER#' || lpad(c::text, 6, '0') || '#' || o)) END AS item
  FROM generate_series(1, :customers) AS c, generate_series(0, :orders_per) AS o;

-- Bulk load: st_put_all over every item, against one INSERT ... SELECT into
-- the hand-made table.  Three loads of each into the emptied tables, in
-- alternating order; the best of each is compared (one load is at the mercy
-- of a checkpoint or the machine's other work).
CREATE TEMP TABLE bulk_times (load text, ms float8, items bigint);
\ir sql/bulk_st.sql
\ir sql/bulk_hand.sql
\ir sql/bulk_empty.sql
\ir sql/bulk_hand.sql
\ir sql/bulk_st.sql
\ir sql/bulk_empty.sql
\ir sql/bulk_st.sql
\ir sql/bulk_hand.sql
SELECT load, max(items) AS items, round(min(ms)) AS best_ms, string_agg(round(ms)::text, ' ') AS runs_ms
  FROM bulk_times GROUP BY load ORDER BY load DESC;
SELECT round(((SELECT min(ms) FROM bulk_times WHERE load = 'INSERT ... SELECT')
              / (SELECT min(ms) FROM bulk_times WHERE load = 'st_put_all'))::numeric, 2) AS "bulk load ratio (stdesign/SQL)";
VACUUM ANALYZE hand;
VACUUM ANALYZE stdesign_data."Bench";
