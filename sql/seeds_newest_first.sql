-- The guide's "list a user's orders, newest first":
-- Query(PK=USER#123, begins_with(SK, "ORDER#"), ScanIndexForward=false).

SELECT st_create_table('GuideTable') ->> 'TableName' AS created;

SELECT st_put('{"PK": "USER#123", "SK": "PROFILE", "type": "User", "name": "Ada"}');
SELECT st_put('{"PK": "USER#123", "SK": "ORDER#2026-05-20#B7", "type": "Order", "total": 12}');
SELECT st_put('{"PK": "USER#123", "SK": "ORDER#2026-06-01#A1", "type": "Order", "total": 30}');
SELECT st_put('{"PK": "USER#123", "SK": "ORDER#2025-12-24#C3", "type": "Order", "total": 99}');
SELECT st_put('{"PK": "USER#999", "SK": "ORDER#2026-07-01#Z9", "type": "Order", "total": 1}');

-- Newest first.
SELECT item->>'SK' AS sk FROM st_query('USER#123', 'ORDER#', forward => false) AS item;
-- Oldest first, for comparison.
SELECT item->>'SK' AS sk FROM st_query('USER#123', 'ORDER#') AS item;
-- The last two orders: "limit" counts from the newest end.
SELECT item->>'SK' AS sk FROM st_query('USER#123', 'ORDER#', forward => false, "limit" => 2) AS item;
-- Get the user: GetItem(PK=USER#123, SK=PROFILE).
SELECT st_get('USER#123', 'PROFILE');

SELECT st_drop_table('GuideTable');
