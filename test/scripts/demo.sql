-- The seeds' e-commerce model, end to end (make demo).
\pset footer off
CREATE EXTENSION IF NOT EXISTS stdesign;

\echo '== CreateTable ECommerceTable (PK/SK + GSI1), from the guide''s create-table definition, then its customers, orders and order items'
-- the file stdesign-local -seed loads too (installed beside the extension)
\ir ../../sql/stdesign_seed_ecommerce.sql

\echo '== 1. Get customer by ID'
SELECT st_get('CUST#123', 'CUST#123') AS customer;

\echo '== 2. All orders for a customer (begins_with(SK, ''ORDER#''))'
SELECT item->>'SK' AS sk, item->'total' AS total, item->>'status' AS status
  FROM st_query('CUST#123', 'ORDER#') AS item;

\echo '== 3. A specific order'
SELECT st_get('CUST#123', 'ORDER#2026-07-06#001') AS "order";

\echo '== 4. All items in an order'
SELECT item->>'SK' AS sk, item->>'product_name' AS product, item->'quantity' AS quantity, item->'price' AS price
  FROM st_query('ORDER#001', 'ITEM#') AS item;

\echo '== 5. Orders in a date range (SK BETWEEN ORDER#2026-07-01 AND ORDER#2026-07-31)'
SELECT item->>'SK' AS sk, item->'total' AS total
  FROM st_query('CUST#123', sk_from => 'ORDER#2026-07-01', sk_to => 'ORDER#2026-07-31') AS item;

\echo '== 6. Orders by status (GSI1: GSI1PK = ORDER#001, begins_with(GSI1SK, ''STATUS#''))'
SELECT item->>'GSI1PK' AS gsi1pk, item->>'GSI1SK' AS gsi1sk, item->>'SK' AS sk
  FROM st_query('ORDER#001', 'STATUS#', index => 'GSI1') AS item;

\echo '== The same items, as plain SQL'
SELECT pk, sk, item->'entity_type'->>'S' AS entity FROM stdesign_data."ECommerceTable" ORDER BY pk, sk;
