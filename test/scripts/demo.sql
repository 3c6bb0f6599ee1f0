-- The seeds' e-commerce model, end to end (make demo).
\pset footer off
CREATE EXTENSION IF NOT EXISTS stdesign;

\echo '== CreateTable ECommerceTable (PK/SK + GSI1), from the guide''s create-table definition'
SELECT st_create_table('{
  "TableName": "ECommerceTable",
  "AttributeDefinitions": [
    {"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "SK", "AttributeType": "S"},
    {"AttributeName": "GSI1PK", "AttributeType": "S"}, {"AttributeName": "GSI1SK", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
  "GlobalSecondaryIndexes": [{
    "IndexName": "GSI1",
    "KeySchema": [{"AttributeName": "GSI1PK", "KeyType": "HASH"}, {"AttributeName": "GSI1SK", "KeyType": "RANGE"}],
    "Projection": {"ProjectionType": "ALL"},
    "ProvisionedThroughput": {"ReadCapacityUnits": 5, "WriteCapacityUnits": 5}}],
  "ProvisionedThroughput": {"ReadCapacityUnits": 5, "WriteCapacityUnits": 5}
}'::jsonb) ->> 'TableStatus' AS table_status;

\echo '== Customers, orders and order items'
SELECT count(*) AS items_written FROM (SELECT st_put(item::jsonb) FROM (VALUES
  ('{"PK": "CUST#123", "SK": "CUST#123", "entity_type": "Customer", "name": "Jane Smith", "email": "jane@example.com", "created_at": "2026-01-15T10:30:00Z"}'),
  ('{"PK": "CUST#123", "SK": "ORDER#2026-07-06#001", "GSI1PK": "ORDER#001", "GSI1SK": "STATUS#pending", "entity_type": "Order", "order_id": "001", "total": 149.99, "status": "pending", "created_at": "2026-07-06T14:00:00Z"}'),
  ('{"PK": "CUST#123", "SK": "ORDER#2026-06-20#000", "GSI1PK": "ORDER#000", "GSI1SK": "STATUS#shipped", "entity_type": "Order", "order_id": "000", "total": 20, "status": "shipped", "created_at": "2026-06-20T08:00:00Z"}'),
  ('{"PK": "CUST#123", "SK": "ORDER#2026-07-28#002", "GSI1PK": "ORDER#002", "GSI1SK": "STATUS#shipped", "entity_type": "Order", "order_id": "002", "total": 35.5, "status": "shipped", "created_at": "2026-07-28T16:45:00Z"}'),
  ('{"PK": "ORDER#001", "SK": "ITEM#SKU-ABC", "GSI1PK": "PROD#SKU-ABC", "GSI1SK": "ORDER#001", "entity_type": "OrderItem", "product_name": "Wireless Headphones", "quantity": 1, "price": 99.99}'),
  ('{"PK": "ORDER#001", "SK": "ITEM#SKU-XYZ", "GSI1PK": "PROD#SKU-XYZ", "GSI1SK": "ORDER#001", "entity_type": "OrderItem", "product_name": "USB-C Cable", "quantity": 2, "price": 25.00}')
) AS v(item)) AS puts;

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
