-- The seeds' GSI overloading: one GSI serves products by category sorted by
-- price and employees by department sorted by hire date.

SELECT st_create_table('OverloadTable') ->> 'TableName' AS created;
SELECT g->>'IndexName' AS index, g->>'IndexStatus' AS status, g->'KeySchema' AS key_schema
  FROM jsonb_array_elements(st_create_gsi('OverloadTable', 'GSI1', 'GSI1PK', 'GSI1SK')
                            -> 'GlobalSecondaryIndexes') AS g;

SELECT st_put(item::jsonb) FROM (VALUES
  ('{"PK": "PROD#SKU-ABC", "SK": "PROD#SKU-ABC", "GSI1PK": "CAT#electronics", "GSI1SK": "PRICE#00099.99", "entity_type": "Product", "name": "Wireless Headphones"}'),
  ('{"PK": "PROD#SKU-DEF", "SK": "PROD#SKU-DEF", "GSI1PK": "CAT#electronics", "GSI1SK": "PRICE#00019.50", "entity_type": "Product", "name": "USB-C Cable"}'),
  ('{"PK": "PROD#SKU-GHI", "SK": "PROD#SKU-GHI", "GSI1PK": "CAT#electronics", "GSI1SK": "PRICE#01299.00", "entity_type": "Product", "name": "Laptop"}'),
  ('{"PK": "PROD#SKU-JKL", "SK": "PROD#SKU-JKL", "GSI1PK": "CAT#books", "GSI1SK": "PRICE#00012.00", "entity_type": "Product", "name": "Novel"}'),
  ('{"PK": "EMP#1001", "SK": "EMP#1001", "GSI1PK": "DEPT#engineering", "GSI1SK": "HIRED#2024-03-15", "entity_type": "Employee", "name": "Alice Johnson"}'),
  ('{"PK": "EMP#1002", "SK": "EMP#1002", "GSI1PK": "DEPT#engineering", "GSI1SK": "HIRED#2021-11-01", "entity_type": "Employee", "name": "Bob Lee"}'),
  ('{"PK": "EMP#1003", "SK": "EMP#1003", "GSI1PK": "DEPT#sales", "GSI1SK": "HIRED#2025-01-07", "entity_type": "Employee", "name": "Carol King"}'),
  ('{"PK": "EMP#1004", "SK": "EMP#1004", "entity_type": "Employee", "name": "Dan (no department yet)"}')
) AS v(item);

-- Products in a category sorted by price (zero-padded, so text order is price order).
SELECT item->>'name' AS name, item->>'GSI1SK' AS price
  FROM st_query('CAT#electronics', 'PRICE#', index => 'GSI1') AS item;
-- Most expensive first.
SELECT item->>'name' AS name FROM st_query('CAT#electronics', 'PRICE#', index => 'GSI1', forward => false) AS item;
-- Employees in engineering sorted by hire date.
SELECT item->>'name' AS name, item->>'GSI1SK' AS hired
  FROM st_query('DEPT#engineering', 'HIRED#', index => 'GSI1') AS item;
-- Sparse: Dan has no GSI1 keys and is in no GSI1 partition.
SELECT count(*) AS employees_in_gsi FROM stdesign_data."OverloadTable"
 WHERE item ? 'GSI1PK' AND item->'entity_type'->>'S' = 'Employee';
-- A category with a price range.
SELECT item->>'name' AS name FROM st_query('CAT#electronics', index => 'GSI1',
                                           sk_from => 'PRICE#00010', sk_to => 'PRICE#00100') AS item;

SELECT st_drop_table('OverloadTable');
