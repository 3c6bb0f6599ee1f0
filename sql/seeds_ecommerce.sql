-- The seeds' e-commerce model (single-table-design-patterns): the
-- create-table definition as CreateTable JSON, customers, orders and order
-- items, and access patterns 1-6.

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
      "Projection": {"ProjectionType": "ALL"},
      "ProvisionedThroughput": {"ReadCapacityUnits": 5, "WriteCapacityUnits": 5}
    }
  ],
  "ProvisionedThroughput": {"ReadCapacityUnits": 5, "WriteCapacityUnits": 5}
}'::jsonb) - 'CreationDateTime' - 'TableId' AS description \gset
SELECT jsonb_pretty(:'description'::jsonb);

-- The only table is the default table: "table" may be left out.
SELECT st_put('{"PK": "CUST#123", "SK": "CUST#123", "entity_type": "Customer",
                "name": "Jane Smith", "email": "jane@example.com",
                "created_at": "2026-01-15T10:30:00Z"}');
SELECT st_put('{"PK": "CUST#456", "SK": "CUST#456", "entity_type": "Customer",
                "name": "Rahul Rao", "email": "rahul@example.com",
                "created_at": "2026-02-01T09:00:00Z"}');

-- Orders under their customer's partition, dated in the sort key.
SELECT st_put('{"PK": "CUST#123", "SK": "ORDER#2026-07-06#001", "GSI1PK": "ORDER#001",
                "GSI1SK": "STATUS#pending", "entity_type": "Order", "order_id": "001",
                "total": 149.99, "status": "pending", "created_at": "2026-07-06T14:00:00Z"}');
SELECT st_put('{"PK": "CUST#123", "SK": "ORDER#2026-06-20#000", "GSI1PK": "ORDER#000",
                "GSI1SK": "STATUS#shipped", "entity_type": "Order", "order_id": "000",
                "total": 20, "status": "shipped", "created_at": "2026-06-20T08:00:00Z"}');
SELECT st_put('{"PK": "CUST#123", "SK": "ORDER#2026-07-28#002", "GSI1PK": "ORDER#002",
                "GSI1SK": "STATUS#shipped", "entity_type": "Order", "order_id": "002",
                "total": 35.5, "status": "shipped", "created_at": "2026-07-28T16:45:00Z"}');
SELECT st_put('{"PK": "CUST#123", "SK": "ORDER#2026-08-02#003", "GSI1PK": "ORDER#003",
                "GSI1SK": "STATUS#pending", "entity_type": "Order", "order_id": "003",
                "total": 12.00, "status": "pending", "created_at": "2026-08-02T11:10:00Z"}');
SELECT st_put('{"PK": "CUST#456", "SK": "ORDER#2026-07-10#004", "GSI1PK": "ORDER#004",
                "GSI1SK": "STATUS#delivered", "entity_type": "Order", "order_id": "004",
                "total": 99, "status": "delivered", "created_at": "2026-07-10T10:00:00Z"}');

-- Order items under their order's partition.
SELECT st_put('{"PK": "ORDER#001", "SK": "ITEM#SKU-ABC", "GSI1PK": "PROD#SKU-ABC",
                "GSI1SK": "ORDER#001", "entity_type": "OrderItem",
                "product_name": "Wireless Headphones", "quantity": 1, "price": 99.99}');
SELECT st_put('{"PK": "ORDER#001", "SK": "ITEM#SKU-XYZ", "GSI1PK": "PROD#SKU-XYZ",
                "GSI1SK": "ORDER#001", "entity_type": "OrderItem",
                "product_name": "USB-C Cable", "quantity": 2, "price": 25.00}');
SELECT st_put('{"PK": "ORDER#002", "SK": "ITEM#SKU-ABC", "GSI1PK": "PROD#SKU-ABC",
                "GSI1SK": "ORDER#002", "entity_type": "OrderItem",
                "product_name": "Wireless Headphones", "quantity": 1, "price": 35.5}');

-- Pattern 1: get a customer by id.
SELECT st_get('CUST#123', 'CUST#123');

-- Pattern 2: all orders of a customer (begins_with on SK), in date order;
-- the customer item itself (SK CUST#123) is not an order.
SELECT item->>'SK' AS sk, item->'total' AS total FROM st_query('CUST#123', 'ORDER#') AS item;

-- Pattern 3: a specific order.
SELECT st_get('CUST#123', 'ORDER#2026-07-06#001') ->> 'order_id' AS order_id;

-- Pattern 4: all items of an order.
SELECT item->>'SK' AS sk, item->>'product_name' AS product, item->'quantity' AS qty
  FROM st_query('ORDER#001', 'ITEM#') AS item;

-- Pattern 5: orders in a date range (BETWEEN on SK): July 2026 only.
SELECT item->>'SK' AS sk FROM st_query('CUST#123', sk_from => 'ORDER#2026-07-01',
                                       sk_to => 'ORDER#2026-07-31') AS item;
-- The range's ends, with an order placed on 1 July and one on 31 July.  The
-- guide's upper bound, 'ORDER#2026-07-31', sorts before every sort key of
-- 31 July ('ORDER#2026-07-31#005' is longer, so greater): BETWEEN is
-- inclusive, yet that day's orders are left out.  A bound past every order
-- id of the day ('ORDER#2026-07-31#~': '~' sorts after the digits) or the
-- next day's prefix ('ORDER#2026-08-01', which no sort key equals) takes
-- the whole of July and nothing of August.
SELECT count(*) AS placed
  FROM unnest(ARRAY['ORDER#2026-07-01#006', 'ORDER#2026-07-31#005']) AS sk,
       LATERAL st_put(jsonb_build_object('PK', 'CUST#123', 'SK', sk, 'entity_type', 'Order')) AS p;
SELECT item->>'SK' AS guide_bound_misses_31_july FROM st_query('CUST#123', sk_from => 'ORDER#2026-07-01',
                                       sk_to => 'ORDER#2026-07-31') AS item;
SELECT item->>'SK' AS whole_of_july FROM st_query('CUST#123', sk_from => 'ORDER#2026-07-01',
                                       sk_to => 'ORDER#2026-07-31#~') AS item;
SELECT item->>'SK' AS whole_of_july FROM st_query('CUST#123', sk_from => 'ORDER#2026-07-01',
                                       sk_to => 'ORDER#2026-08-01') AS item;
-- The same through DynamoDB's API: Query with BETWEEN in the key condition.
SELECT i->'SK'->>'S' AS whole_of_july
  FROM jsonb_array_elements(st_api('Query', '{"TableName": "ECommerceTable",
    "KeyConditionExpression": "PK = :pk AND SK BETWEEN :from AND :to",
    "ExpressionAttributeValues": {":pk": {"S": "CUST#123"}, ":from": {"S": "ORDER#2026-07-01"},
                                  ":to": {"S": "ORDER#2026-07-31#~"}}}') -> 'Items') AS i;
SELECT count(*) AS cancelled
  FROM unnest(ARRAY['ORDER#2026-07-01#006', 'ORDER#2026-07-31#005']) AS sk,
       LATERAL st_delete('CUST#123', sk) AS d;
SELECT count(*) AS july_orders_left FROM st_query('CUST#123', sk_from => 'ORDER#2026-07-01',
                                       sk_to => 'ORDER#2026-08-01');

-- Pattern 6: an order by status, through GSI1.
SELECT item->>'SK' AS sk, item->>'GSI1SK' AS status
  FROM st_query('ORDER#001', 'STATUS#', index => 'GSI1') AS item;

-- GSI1 also answers "which orders contain product SKU-ABC".
SELECT item->>'PK' AS order_pk FROM st_query('PROD#SKU-ABC', index => 'GSI1') AS item;

-- The relation is plain SQL: the key columns are derived from the item.
SELECT pk, sk, item->'total' AS total FROM stdesign_data."ECommerceTable"
 WHERE pk = 'CUST#123' ORDER BY sk;

SELECT (st_describe_table('ECommerceTable') -> 'ItemCount') AS items,
       (st_describe_table('ECommerceTable') #> '{GlobalSecondaryIndexes,0,ItemCount}') AS gsi_items;

SELECT st_drop_table('ECommerceTable');
SELECT count(*) FROM st_list_tables();
