-- The guide's "list all orders with status SHIPPED": a GSI with
-- GSI1PK = STATUS#SHIPPED and GSI1SK = ORDER#<ts>#<id>.

SELECT st_create_table('GuideTable') ->> 'TableName' AS created;
SELECT st_create_gsi('GuideTable', 'GSI1', 'GSI1PK', 'GSI1SK') #>> '{GlobalSecondaryIndexes,0,IndexStatus}' AS status;

SELECT st_put('{"PK": "USER#123", "SK": "ORDER#2026-06-01#A1", "type": "Order",
                "GSI1PK": "STATUS#SHIPPED", "GSI1SK": "ORDER#2026-06-01T09:00:00#A1"}');
SELECT st_put('{"PK": "USER#123", "SK": "ORDER#2026-05-20#B7", "type": "Order",
                "GSI1PK": "STATUS#SHIPPED", "GSI1SK": "ORDER#2026-05-20T17:30:00#B7"}');
SELECT st_put('{"PK": "USER#456", "SK": "ORDER#2026-06-03#C9", "type": "Order",
                "GSI1PK": "STATUS#PENDING", "GSI1SK": "ORDER#2026-06-03T08:15:00#C9"}');
SELECT st_put('{"PK": "USER#789", "SK": "ORDER#2026-04-11#D2", "type": "Order",
                "GSI1PK": "STATUS#SHIPPED", "GSI1SK": "ORDER#2026-04-11T12:00:00#D2"}');

-- Shipped orders by date.
SELECT item->>'PK' AS pk, item->>'GSI1SK' AS gsi1sk
  FROM st_query('STATUS#SHIPPED', index => 'GSI1') AS item;
-- Shipped in May or later.
SELECT item->>'GSI1SK' AS gsi1sk
  FROM st_query('STATUS#SHIPPED', index => 'GSI1', sk_from => 'ORDER#2026-05') AS item;

-- Shipping C9 moves it between GSI partitions (a put replaces the whole item).
SELECT st_put('{"PK": "USER#456", "SK": "ORDER#2026-06-03#C9", "type": "Order",
                "GSI1PK": "STATUS#SHIPPED", "GSI1SK": "ORDER#2026-06-03T08:15:00#C9"}');
SELECT item->>'GSI1SK' AS gsi1sk FROM st_query('STATUS#SHIPPED', index => 'GSI1') AS item;
SELECT count(*) AS pending FROM st_query('STATUS#PENDING', index => 'GSI1');

SELECT st_drop_table('GuideTable');
