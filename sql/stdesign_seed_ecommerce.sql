-- The seeds' e-commerce model (single-table design guides): ECommerceTable
-- with GSI1, one customer, three orders and two order items.  Installed
-- beside the extension's scripts; loaded by stdesign-local -seed and by
-- make demo (test/scripts/demo.sql), with psql -f into a database with
-- stdesign created.  Each statement prints one line: the table's status,
-- then the number of items written.

-- The table, from the guide's create-table definition
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

SELECT count(*) AS items_written FROM (SELECT st_put(item::jsonb, 'ECommerceTable') FROM (VALUES
  ('{"PK": "CUST#123", "SK": "CUST#123", "entity_type": "Customer", "name": "Jane Smith", "email": "jane@example.com", "created_at": "2026-01-15T10:30:00Z"}'),
  ('{"PK": "CUST#123", "SK": "ORDER#2026-07-06#001", "GSI1PK": "ORDER#001", "GSI1SK": "STATUS#pending", "entity_type": "Order", "order_id": "001", "total": 149.99, "status": "pending", "created_at": "2026-07-06T14:00:00Z"}'),
  ('{"PK": "CUST#123", "SK": "ORDER#2026-06-20#000", "GSI1PK": "ORDER#000", "GSI1SK": "STATUS#shipped", "entity_type": "Order", "order_id": "000", "total": 20, "status": "shipped", "created_at": "2026-06-20T08:00:00Z"}'),
  ('{"PK": "CUST#123", "SK": "ORDER#2026-07-28#002", "GSI1PK": "ORDER#002", "GSI1SK": "STATUS#shipped", "entity_type": "Order", "order_id": "002", "total": 35.5, "status": "shipped", "created_at": "2026-07-28T16:45:00Z"}'),
  ('{"PK": "ORDER#001", "SK": "ITEM#SKU-ABC", "GSI1PK": "PROD#SKU-ABC", "GSI1SK": "ORDER#001", "entity_type": "OrderItem", "product_name": "Wireless Headphones", "quantity": 1, "price": 99.99}'),
  ('{"PK": "ORDER#001", "SK": "ITEM#SKU-XYZ", "GSI1PK": "PROD#SKU-XYZ", "GSI1SK": "ORDER#001", "entity_type": "OrderItem", "product_name": "USB-C Cable", "quantity": 2, "price": 25.00}')
) AS v(item)) AS puts;
