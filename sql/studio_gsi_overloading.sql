-- Design studio: GSI overloading (single-table-design-patterns): products
-- by category sorted by price and employees by department sorted by hire
-- date, from one GSI; an employee without a department stays out of it
-- (a sparse index: the index's templates are left out).
SELECT st_create_table('OverloadTable') ->> 'TableName' AS created;
SELECT st_create_gsi('OverloadTable', 'GSI1', 'GSI1PK', 'GSI1SK') -> 'GlobalSecondaryIndexes' -> 0 ->> 'IndexName' AS gsi;
SELECT st_set_model('OverloadTable', '{
  "entities": {
    "Product": {"keys": {"PK": "PROD#{sku}", "SK": "PROD#{sku}", "GSI1PK": "CAT#{category}", "GSI1SK": "PRICE#{price}"},
                "attributes": {"sku": "S", "category": "S", "price": "S", "name": "S"},
                "required": ["category", "price"]},
    "Employee": {"keys": {"PK": "EMP#{emp_id}", "SK": "EMP#{emp_id}", "GSI1PK": "DEPT#{department}", "GSI1SK": "HIRED#{hired}"},
                 "attributes": {"emp_id": "S", "department": "S", "hired": "S", "name": "S"}}
  },
  "patterns": {
    "products_by_category": {"op": "Query", "index": "GSI1", "pk": "CAT#{category}", "sk": {"begins_with": "PRICE#"}, "rate": 40},
    "products_in_price_range": {"op": "Query", "index": "GSI1", "pk": "CAT#{category}",
                                "sk": {"between": ["PRICE#{low}", "PRICE#{high}"]}, "forward": false,
                                "example": {"category": "electronics", "low": "00010", "high": "00100"}},
    "employees_by_department": {"op": "Query", "index": "GSI1", "pk": "DEPT#{department}", "sk": {"begins_with": "HIRED#"}, "rate": 2},
    "product": {"op": "GetItem", "pk": "PROD#{sku}", "sk": "PROD#{sku}", "rate": 100},
    "employee": {"op": "GetItem", "pk": "EMP#{emp_id}", "sk": "EMP#{emp_id}", "consistent": true, "rate": 1}
  }
}') IS NOT NULL AS stored;

SELECT e ->> 'PK' AS pk, e ->> 'GSI1PK' AS gsi1pk, e ->> 'GSI1SK' AS gsi1sk
  FROM (VALUES
  ('Product', '{"sku": "SKU-ABC", "category": "electronics", "price": "00099.99", "name": "Wireless Headphones"}'),
  ('Product', '{"sku": "SKU-DEF", "category": "electronics", "price": "00019.50", "name": "USB-C Cable"}'),
  ('Product', '{"sku": "SKU-GHI", "category": "electronics", "price": "01299.00", "name": "Laptop"}'),
  ('Product', '{"sku": "SKU-JKL", "category": "books", "price": "00012.00", "name": "Novel"}'),
  ('Employee', '{"emp_id": "1001", "department": "engineering", "hired": "2024-03-15", "name": "Alice Johnson"}'),
  ('Employee', '{"emp_id": "1002", "department": "engineering", "hired": "2021-11-01", "name": "Bob Lee"}'),
  ('Employee', '{"emp_id": "1003", "department": "sales", "hired": "2025-01-07", "name": "Carol King"}'),
  ('Employee', '{"emp_id": "1004", "name": "Dan (no department yet)"}')) AS v(entity, attrs),
       LATERAL st_put_entity(entity, attrs::jsonb, 'OverloadTable') AS e;
-- half of an index key is an error: the item would be in no index
\set VERBOSITY terse
SELECT st_put_entity('Employee', '{"emp_id": "1005", "department": "sales"}', 'OverloadTable');
\set VERBOSITY default

SELECT i ->> 'name' AS name, i ->> 'GSI1SK' AS price
  FROM st_run_pattern('products_by_category', '{"category": "electronics"}', 'OverloadTable') AS i;
SELECT i ->> 'name' AS name
  FROM st_run_pattern('products_in_price_range', '{"category": "electronics", "low": "00010", "high": "00100"}', 'OverloadTable') AS i;
SELECT i ->> 'name' AS name, i ->> 'GSI1SK' AS hired
  FROM st_run_pattern('employees_by_department', '{"department": "engineering"}', 'OverloadTable') AS i;
SELECT i ->> 'name' AS name FROM st_run_pattern('employee', '{"emp_id": "1004"}', 'OverloadTable') AS i;
SELECT count(*) AS employees_in_gsi FROM st_scan('OverloadTable', index => 'GSI1') AS i
 WHERE st_entity_of(i, 'OverloadTable') = 'Employee';

-- one index, two entities: each pattern reads only its own
SELECT kind, name, index_name, entities, read_per_call, returned_per_call, ok, findings FROM st_check_model('OverloadTable');
-- the consistent GetItem costs a whole unit, the others half
SELECT pattern, calls_per_second, read_units, on_demand_monthly, provisioned_monthly, note FROM st_model_cost('OverloadTable');

SELECT st_drop_table('OverloadTable');
