-- The guide's "get an order with its line items": one query returns the
-- order's items: Query(PK=ORDER#A1, begins_with(SK, "ITEM#")).

SELECT st_create_table('GuideTable') ->> 'TableName' AS created;

SELECT st_put('{"PK": "ORDER#A1", "SK": "ORDER", "type": "Order", "user": "USER#123", "placed": "2026-06-01"}');
SELECT st_put('{"PK": "ORDER#A1", "SK": "ITEM#sku-9", "type": "OrderItem", "qty": 2, "price": 4.5}');
SELECT st_put('{"PK": "ORDER#A1", "SK": "ITEM#sku-1", "type": "OrderItem", "qty": 1, "price": 120}');
SELECT st_put('{"PK": "ORDER#A1", "SK": "ITEM#sku-10", "type": "OrderItem", "qty": 3, "price": 0.99}');
SELECT st_put('{"PK": "ORDER#B7", "SK": "ITEM#sku-9", "type": "OrderItem", "qty": 5, "price": 4.5}');

-- The line items only, in sort-key (byte) order: sku-1 < sku-10 < sku-9.
SELECT item->>'SK' AS sk, item->'qty' AS qty, item->'price' AS price
  FROM st_query('ORDER#A1', 'ITEM#') AS item;
-- The order and its items in one query (the whole item collection).
SELECT item->>'SK' AS sk, item->>'type' AS type FROM st_query('ORDER#A1') AS item;
-- The order total, computed in SQL from the one query.
SELECT sum((item->>'qty')::numeric * (item->>'price')::numeric) AS total
  FROM st_query('ORDER#A1', 'ITEM#') AS item;

SELECT st_drop_table('GuideTable');
