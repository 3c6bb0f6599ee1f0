-- The e-commerce model's "orders by status and date" two ways: the guide's
-- synthetic GSI key (GSI2PK = "STATUS#<status>", GSI2SK = "<created_at>#<order
-- id>", written into every order) and a GSI with a multi-attribute key over
-- the orders' own attributes (status; created_at, order_id), added to the
-- table after the orders were written (no backfill of synthetic keys).
-- Both answer every query item for item, in the same order.
\set VERBOSITY terse
SELECT st_api('CreateTable', '{
  "TableName": "ECommerceMulti", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [
    {"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "SK", "AttributeType": "S"},
    {"AttributeName": "GSI2PK", "AttributeType": "S"}, {"AttributeName": "GSI2SK", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
  "GlobalSecondaryIndexes": [{"IndexName": "GSI2",
    "KeySchema": [{"AttributeName": "GSI2PK", "KeyType": "HASH"}, {"AttributeName": "GSI2SK", "KeyType": "RANGE"}],
    "Projection": {"ProjectionType": "ALL"}}]}') -> 'TableDescription' ->> 'TableStatus';

-- 3 customers, 60 orders over three statuses and two months, and their
-- customer items (no status: in neither index)
SELECT count(st_put(jsonb_build_object('PK', 'CUST#' || c, 'SK', 'CUST#' || c, 'entity_type', 'Customer'), 'ECommerceMulti') IS NULL)
  FROM generate_series(1, 3) AS c;
SELECT count(st_put(jsonb_build_object(
    'PK', 'CUST#' || (n % 3 + 1), 'SK', 'ORDER#' || d || '#' || lpad(n::text, 3, '0'),
    'GSI2PK', 'STATUS#' || s, 'GSI2SK', d || '#' || lpad(n::text, 3, '0'),
    'entity_type', 'Order', 'order_id', lpad(n::text, 3, '0'), 'status', s, 'created_at', d, 'total', n * 1.5),
    'ECommerceMulti') IS NULL)
  FROM generate_series(1, 60) AS n,
       LATERAL (SELECT (ARRAY['pending', 'shipped', 'delivered'])[n % 3 + 1] AS s,
                       to_char(date '2026-06-01' + (n * 7 % 61), 'YYYY-MM-DD') || 'T' || lpad((n % 24)::text, 2, '0') || ':00:00Z' AS d) AS x;

SELECT st_api('UpdateTable', '{"TableName": "ECommerceMulti",
  "AttributeDefinitions": [{"AttributeName": "status", "AttributeType": "S"}, {"AttributeName": "created_at", "AttributeType": "S"},
    {"AttributeName": "order_id", "AttributeType": "S"}],
  "GlobalSecondaryIndexUpdates": [{"Create": {"IndexName": "ByStatusDate",
    "KeySchema": [{"AttributeName": "status", "KeyType": "HASH"}, {"AttributeName": "created_at", "KeyType": "RANGE"},
      {"AttributeName": "order_id", "KeyType": "RANGE"}],
    "Projection": {"ProjectionType": "ALL"}}}]}') -> 'TableDescription' -> 'GlobalSecondaryIndexes' @> '[{"IndexName": "ByStatusDate", "ItemCount": 60}]';

-- The keys of a Query's items in order, following LastEvaluatedKey page by page.
CREATE FUNCTION ecm_all(req jsonb) RETURNS text[] LANGUAGE plpgsql AS $$
DECLARE
  out text[] := '{}';
  r jsonb;
  start jsonb := NULL;
BEGIN
  LOOP
    r := st_api('Query', CASE WHEN start IS NULL THEN req ELSE req || jsonb_build_object('ExclusiveStartKey', start) END);
    out := out || ARRAY(SELECT (i -> 'PK' ->> 'S') || '/' || (i -> 'SK' ->> 'S')
                          FROM jsonb_array_elements(r -> 'Items') WITH ORDINALITY AS x(i, o) ORDER BY o);
    start := r -> 'LastEvaluatedKey';
    EXIT WHEN start IS NULL;
  END LOOP;
  RETURN out;
END $$;
CREATE FUNCTION ecm_synthetic(status text, cond text, vals jsonb, forward boolean, lim int) RETURNS text[] LANGUAGE sql AS $$
  SELECT ecm_all(jsonb_build_object('TableName', 'ECommerceMulti', 'IndexName', 'GSI2',
    'KeyConditionExpression', 'GSI2PK = :p' || cond, 'ScanIndexForward', forward, 'Limit', lim,
    'ExpressionAttributeValues', jsonb_build_object(':p', jsonb_build_object('S', 'STATUS#' || status)) || vals))
$$;
CREATE FUNCTION ecm_multi(status text, cond text, vals jsonb, forward boolean, lim int) RETURNS text[] LANGUAGE sql AS $$
  SELECT ecm_all(jsonb_build_object('TableName', 'ECommerceMulti', 'IndexName', 'ByStatusDate',
    'KeyConditionExpression', '#s = :p' || cond, 'ScanIndexForward', forward, 'Limit', lim,
    'ExpressionAttributeNames', jsonb_build_object('#s', 'status') ||
      CASE WHEN cond LIKE '%#d%' THEN '{"#d": "created_at"}'::jsonb ELSE '{}' END,
    'ExpressionAttributeValues', jsonb_build_object(':p', jsonb_build_object('S', status)) || vals))
$$;

-- every status, both directions, pages of 7: the same items in the same order
SELECT s, forward, cardinality(ecm_multi(s, '', '{}', forward, 7)) AS orders,
       ecm_multi(s, '', '{}', forward, 7) = ecm_synthetic(s, '', '{}', forward, 7) AS same
  FROM unnest(ARRAY['pending', 'shipped', 'delivered']) AS s, (VALUES (true), (false)) AS f(forward)
 ORDER BY s, forward;
-- orders of a status in July: BETWEEN on the date (synthetic: on the key's prefix)
SELECT cardinality(ecm_multi('shipped', ' AND #d BETWEEN :a AND :b', '{":a": {"S": "2026-07-01"}, ":b": {"S": "2026-07-31T99"}}', true, 5)) AS orders,
       ecm_multi('shipped', ' AND #d BETWEEN :a AND :b', '{":a": {"S": "2026-07-01"}, ":b": {"S": "2026-07-31T99"}}', true, 5)
     = ecm_synthetic('shipped', ' AND GSI2SK BETWEEN :a AND :b', '{":a": {"S": "2026-07-01"}, ":b": {"S": "2026-07-31T99"}}', true, 5) AS same;
-- since a date, newest first; begins_with a month
SELECT ecm_multi('pending', ' AND #d >= :a', '{":a": {"S": "2026-07-15"}}', false, 4)
     = ecm_synthetic('pending', ' AND GSI2SK >= :a', '{":a": {"S": "2026-07-15"}}', false, 4) AS same_since,
       ecm_multi('delivered', ' AND begins_with(#d, :m)', '{":m": {"S": "2026-06"}}', true, 100)
     = ecm_synthetic('delivered', ' AND begins_with(GSI2SK, :m)', '{":m": {"S": "2026-06"}}', true, 100) AS same_month;
-- the first orders of one status, as the application shows them
SELECT unnest(ecm_multi('shipped', '', '{}', true, 3))  LIMIT 4;

DROP FUNCTION ecm_multi(text, text, jsonb, boolean, int);
DROP FUNCTION ecm_synthetic(text, text, jsonb, boolean, int);
DROP FUNCTION ecm_all(jsonb);
SELECT st_drop_table('ECommerceMulti');
