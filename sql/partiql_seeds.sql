-- The seeds' e-commerce access patterns (seeds_ecommerce.sql) once more, in
-- PartiQL: each gives the same items as st_query / st_get.

SELECT st_create_table('{
  "TableName": "ECommerceTable",
  "AttributeDefinitions": [
    {"AttributeName": "PK", "AttributeType": "S"},
    {"AttributeName": "SK", "AttributeType": "S"},
    {"AttributeName": "GSI1PK", "AttributeType": "S"},
    {"AttributeName": "GSI1SK", "AttributeType": "S"}
  ],
  "KeySchema": [
    {"AttributeName": "PK", "KeyType": "HASH"},
    {"AttributeName": "SK", "KeyType": "RANGE"}
  ],
  "GlobalSecondaryIndexes": [
    {
      "IndexName": "GSI1",
      "KeySchema": [
        {"AttributeName": "GSI1PK", "KeyType": "HASH"},
        {"AttributeName": "GSI1SK", "KeyType": "RANGE"}
      ],
      "Projection": {"ProjectionType": "ALL"}
    }
  ],
  "BillingMode": "PAY_PER_REQUEST"
}'::jsonb) IS NOT NULL AS created;

-- The items, written with INSERT (a ? per value; the customers as literals).
SELECT count(*) = 1 AS both_customers_inserted FROM (VALUES (1)) AS v
 WHERE NOT EXISTS (SELECT FROM st_partiql($$INSERT INTO "ECommerceTable" VALUE {'PK': 'CUST#123', 'SK': 'CUST#123',
    'entity_type': 'Customer', 'name': 'Jane Smith', 'email': 'jane@example.com', 'created_at': '2026-01-15T10:30:00Z'}$$))
   AND NOT EXISTS (SELECT FROM st_partiql($$INSERT INTO "ECommerceTable" VALUE {'PK': 'CUST#456', 'SK': 'CUST#456',
    'entity_type': 'Customer', 'name': 'Rahul Rao', 'email': 'rahul@example.com', 'created_at': '2026-02-01T09:00:00Z'}$$));
SELECT count(*) AS orders FROM (VALUES
    ('CUST#123', 'ORDER#2026-07-06#001', 'ORDER#001', 'STATUS#pending', '001', 149.99, 'pending', '2026-07-06T14:00:00Z'),
    ('CUST#123', 'ORDER#2026-06-20#000', 'ORDER#000', 'STATUS#shipped', '000', 20, 'shipped', '2026-06-20T08:00:00Z'),
    ('CUST#123', 'ORDER#2026-07-28#002', 'ORDER#002', 'STATUS#shipped', '002', 35.5, 'shipped', '2026-07-28T16:45:00Z'),
    ('CUST#123', 'ORDER#2026-08-02#003', 'ORDER#003', 'STATUS#pending', '003', 12.00, 'pending', '2026-08-02T11:10:00Z'),
    ('CUST#456', 'ORDER#2026-07-10#004', 'ORDER#004', 'STATUS#delivered', '004', 99, 'delivered', '2026-07-10T10:00:00Z'))
    AS o(pk, sk, g1pk, g1sk, id, total, status, created)
 WHERE NOT EXISTS (SELECT FROM st_partiql($$INSERT INTO "ECommerceTable" VALUE {'PK': ?, 'SK': ?, 'GSI1PK': ?,
    'GSI1SK': ?, 'entity_type': 'Order', 'order_id': ?, 'total': ?, 'status': ?, 'created_at': ?}$$,
    jsonb_build_array(pk, sk, g1pk, g1sk, id, total, status, created)));
SELECT count(*) AS order_items FROM (VALUES
    ('ORDER#001', 'ITEM#SKU-ABC', 'PROD#SKU-ABC', 'ORDER#001', 'Wireless Headphones', 1, 99.99),
    ('ORDER#001', 'ITEM#SKU-XYZ', 'PROD#SKU-XYZ', 'ORDER#001', 'USB-C Cable', 2, 25.00),
    ('ORDER#002', 'ITEM#SKU-ABC', 'PROD#SKU-ABC', 'ORDER#002', 'Wireless Headphones', 1, 35.5))
    AS i(pk, sk, g1pk, g1sk, name, qty, price)
 WHERE NOT EXISTS (SELECT FROM st_partiql($$INSERT INTO "ECommerceTable" VALUE {'PK': ?, 'SK': ?, 'GSI1PK': ?,
    'GSI1SK': ?, 'entity_type': 'OrderItem', 'product_name': ?, 'quantity': ?, 'price': ?}$$,
    jsonb_build_array(pk, sk, g1pk, g1sk, name, qty, price)));

-- Each pattern: the PartiQL result, then whether st_query / st_get gives
-- the same items in the same order.
CREATE FUNCTION same(a jsonb[], b jsonb[]) RETURNS boolean LANGUAGE sql AS
	$$ SELECT a IS NOT DISTINCT FROM b AND cardinality(a) > 0 $$;

-- Pattern 1: a customer by id (GetItem).
SELECT item FROM st_partiql($$SELECT * FROM "ECommerceTable" WHERE PK = 'CUST#123' AND SK = 'CUST#123'$$) AS item;
SELECT same(ARRAY(SELECT st_partiql($$SELECT * FROM "ECommerceTable" WHERE PK = 'CUST#123' AND SK = 'CUST#123'$$)),
            ARRAY[st_get('CUST#123', 'CUST#123')]) AS pattern_1;

-- Pattern 2: all orders of a customer, in date order (begins_with on SK).
SELECT item->>'SK' AS sk, item->'total' AS total
  FROM st_partiql($$SELECT * FROM "ECommerceTable" WHERE PK = ? AND begins_with(SK, ?)$$, '["CUST#123", "ORDER#"]') AS item;
SELECT same(ARRAY(SELECT st_partiql($$SELECT * FROM "ECommerceTable" WHERE PK = ? AND begins_with(SK, ?)$$, '["CUST#123", "ORDER#"]')),
            ARRAY(SELECT st_query('CUST#123', 'ORDER#'))) AS pattern_2;

-- Pattern 3: a specific order.
SELECT item->>'order_id' AS order_id
  FROM st_partiql($$SELECT order_id FROM "ECommerceTable" WHERE PK = 'CUST#123' AND SK = 'ORDER#2026-07-06#001'$$) AS item;
SELECT same(ARRAY(SELECT st_partiql($$SELECT * FROM "ECommerceTable" WHERE PK = 'CUST#123' AND SK = 'ORDER#2026-07-06#001'$$)),
            ARRAY[st_get('CUST#123', 'ORDER#2026-07-06#001')]) AS pattern_3;

-- Pattern 4: all items of an order.
SELECT item->>'SK' AS sk, item->>'product_name' AS product, item->'quantity' AS qty
  FROM st_partiql($$SELECT * FROM "ECommerceTable" WHERE PK = 'ORDER#001' AND begins_with(SK, 'ITEM#')$$) AS item;
SELECT same(ARRAY(SELECT st_partiql($$SELECT * FROM "ECommerceTable" WHERE PK = 'ORDER#001' AND begins_with(SK, 'ITEM#')$$)),
            ARRAY(SELECT st_query('ORDER#001', 'ITEM#'))) AS pattern_4;

-- Pattern 5: orders in a date range (BETWEEN on SK), newest first too.
SELECT item->>'SK' AS sk
  FROM st_partiql($$SELECT * FROM "ECommerceTable" WHERE PK = 'CUST#123' AND SK BETWEEN 'ORDER#2026-07-01' AND 'ORDER#2026-08-01'$$) AS item;
SELECT same(ARRAY(SELECT st_partiql($$SELECT * FROM "ECommerceTable" WHERE PK = 'CUST#123' AND SK BETWEEN 'ORDER#2026-07-01' AND 'ORDER#2026-08-01'$$)),
            ARRAY(SELECT st_query('CUST#123', sk_from => 'ORDER#2026-07-01', sk_to => 'ORDER#2026-08-01'))) AS pattern_5;
SELECT same(ARRAY(SELECT st_partiql($$SELECT * FROM "ECommerceTable" WHERE PK = 'CUST#123' AND SK BETWEEN 'ORDER#2026-07-01' AND 'ORDER#2026-08-01' ORDER BY SK DESC$$)),
            ARRAY(SELECT st_query('CUST#123', sk_from => 'ORDER#2026-07-01', sk_to => 'ORDER#2026-08-01', forward => false))) AS pattern_5_newest_first;
-- and through st_api: ExecuteStatement against Query, item for item
SELECT (st_api('ExecuteStatement', '{"Statement": "SELECT * FROM \"ECommerceTable\" WHERE PK = ? AND SK BETWEEN ? AND ?",
          "Parameters": [{"S": "CUST#123"}, {"S": "ORDER#2026-07-01"}, {"S": "ORDER#2026-08-01"}]}') -> 'Items')
     = (st_api('Query', '{"TableName": "ECommerceTable", "KeyConditionExpression": "PK = :pk AND SK BETWEEN :a AND :b",
          "ExpressionAttributeValues": {":pk": {"S": "CUST#123"}, ":a": {"S": "ORDER#2026-07-01"}, ":b": {"S": "ORDER#2026-08-01"}}}') -> 'Items')
       AS pattern_5_api;

-- Pattern 6: an order by status, through GSI1.
SELECT item->>'SK' AS sk, item->>'GSI1SK' AS status
  FROM st_partiql($$SELECT * FROM "ECommerceTable"."GSI1" WHERE GSI1PK = 'ORDER#001' AND begins_with(GSI1SK, 'STATUS#')$$) AS item;
SELECT same(ARRAY(SELECT st_partiql($$SELECT * FROM "ECommerceTable"."GSI1" WHERE GSI1PK = 'ORDER#001' AND begins_with(GSI1SK, 'STATUS#')$$)),
            ARRAY(SELECT st_query('ORDER#001', 'STATUS#', index => 'GSI1'))) AS pattern_6;
-- GSI1 also answers "which orders contain product SKU-ABC".
SELECT item->>'PK' AS order_pk FROM st_partiql($$SELECT PK FROM "ECommerceTable"."GSI1" WHERE GSI1PK = 'PROD#SKU-ABC'$$) AS item;
SELECT same(ARRAY(SELECT st_partiql($$SELECT * FROM "ECommerceTable"."GSI1" WHERE GSI1PK = 'PROD#SKU-ABC'$$)),
            ARRAY(SELECT st_query('PROD#SKU-ABC', index => 'GSI1'))) AS product_orders;

-- Writes: an order ships (UPDATE with a condition), is cancelled (DELETE),
-- and a transaction places an order with its item.
SELECT item FROM st_partiql($$UPDATE "ECommerceTable" SET status = 'shipped', GSI1SK = 'STATUS#shipped'
    WHERE PK = 'CUST#123' AND SK = 'ORDER#2026-08-02#003' AND status = 'pending' RETURNING MODIFIED NEW *$$) AS item;
SELECT item->>'SK' AS sk FROM st_partiql($$SELECT * FROM "ECommerceTable"."GSI1" WHERE GSI1PK = 'ORDER#003' AND GSI1SK = 'STATUS#shipped'$$) AS item;
SELECT item->>'order_id' AS cancelled FROM st_partiql($$DELETE FROM "ECommerceTable" WHERE PK = 'CUST#456' AND SK = 'ORDER#2026-07-10#004' RETURNING ALL OLD *$$) AS item;
SELECT st_api('ExecuteTransaction', $${"TransactStatements": [
  {"Statement": "EXISTS(SELECT * FROM \"ECommerceTable\" WHERE PK = 'CUST#456' AND SK = 'CUST#456')"},
  {"Statement": "INSERT INTO \"ECommerceTable\" VALUE {'PK': 'CUST#456', 'SK': 'ORDER#2026-09-01#005', 'GSI1PK': 'ORDER#005', 'GSI1SK': 'STATUS#pending', 'entity_type': 'Order', 'total': 10}"},
  {"Statement": "INSERT INTO \"ECommerceTable\" VALUE {'PK': 'ORDER#005', 'SK': 'ITEM#SKU-XYZ', 'GSI1PK': 'PROD#SKU-XYZ', 'GSI1SK': 'ORDER#005', 'entity_type': 'OrderItem', 'quantity': 1, 'price': 10}"}]}$$);
SELECT item->>'PK' AS pk, item->>'SK' AS sk
  FROM st_partiql($$SELECT * FROM "ECommerceTable" WHERE PK IN ['CUST#456', 'ORDER#005']$$) AS item;

DROP FUNCTION same(jsonb[], jsonb[]);
SELECT st_drop_table('ECommerceTable');
