-- st_api Query and Scan: key conditions, pages (Limit and 1 MB), exclusive
-- start keys, Select, index projections, segments, and bad requests.

SELECT st_api('CreateTable', '{
  "TableName": "Pages", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "SK", "AttributeType": "S"},
                           {"AttributeName": "G", "AttributeType": "S"}, {"AttributeName": "GS", "AttributeType": "N"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
  "GlobalSecondaryIndexes": [
    {"IndexName": "ByG", "KeySchema": [{"AttributeName": "G", "KeyType": "HASH"}, {"AttributeName": "GS", "KeyType": "RANGE"}],
     "Projection": {"ProjectionType": "ALL"}},
    {"IndexName": "ByGKeys", "KeySchema": [{"AttributeName": "G", "KeyType": "HASH"}],
     "Projection": {"ProjectionType": "KEYS_ONLY"}}]
}') #>> '{TableDescription,TableStatus}' AS status;

-- 200 items of about 20 KB in one partition: over 3 MB. GS repeats (i % 7),
-- so the GSI has many ties, broken by the table key.
SELECT count(*) AS written FROM (
  SELECT st_put(jsonb_build_object('PK', 'big', 'SK', lpad(i::text, 4, '0'), 'G', 'g', 'GS', i % 7,
                                   'xpad', repeat('x', 20000)), 'Pages')
    FROM generate_series(1, 200) AS i) AS puts;
SELECT sum(st_item_size(st_to_plain(item))) > 3 * 1024 * 1024 AS over_3_mb FROM stdesign_data."Pages";

-- Read every page of a request, following LastEvaluatedKey.
CREATE FUNCTION all_pages(op text, request jsonb)
RETURNS TABLE (page integer, count integer, scanned integer, last_key jsonb, items jsonb)
LANGUAGE plpgsql AS $$
DECLARE
  r jsonb;
  start jsonb := NULL;
BEGIN
  page := 0;
  LOOP
    page := page + 1;
    r := st_api(op, CASE WHEN start IS NULL THEN request
                          ELSE request || jsonb_build_object('ExclusiveStartKey', start) END);
    count := (r->>'Count')::int;
    scanned := (r->>'ScannedCount')::int;
    last_key := r->'LastEvaluatedKey';
    items := r->'Items';
    RETURN NEXT;
    start := r->'LastEvaluatedKey';
    EXIT WHEN start IS NULL OR page > 100;
  END LOOP;
END $$;

-- Forward on the table with 1 MB pages: 4 pages, every item once, in order.
SELECT page, count, scanned, last_key FROM all_pages('Query',
  '{"TableName": "Pages", "KeyConditionExpression": "PK = :p", "ProjectionExpression": "SK",
    "ExpressionAttributeValues": {":p": {"S": "big"}}}');
WITH got AS (
  SELECT (e #>> '{SK,S}') AS sk, row_number() OVER () AS n
    FROM all_pages('Query', '{"TableName": "Pages", "KeyConditionExpression": "PK = :p", "ProjectionExpression": "SK",
                              "ExpressionAttributeValues": {":p": {"S": "big"}}}') AS p,
         jsonb_array_elements(p.items) AS e)
SELECT count(*) AS items, count(DISTINCT sk) AS distinct_items,
       bool_and(sk = lpad(n::text, 4, '0')) AS in_order FROM got;
-- Backward with Limit 30: 7 pages (the last one has 20 items), in reverse order.
SELECT page, count, last_key FROM all_pages('Query',
  '{"TableName": "Pages", "KeyConditionExpression": "PK = :p", "ProjectionExpression": "SK", "Limit": 30,
    "ScanIndexForward": false, "ExpressionAttributeValues": {":p": {"S": "big"}}}');
WITH got AS (
  SELECT (e #>> '{SK,S}') AS sk, row_number() OVER () AS n
    FROM all_pages('Query', '{"TableName": "Pages", "KeyConditionExpression": "PK = :p", "ProjectionExpression": "SK",
                              "Limit": 30, "ScanIndexForward": false,
                              "ExpressionAttributeValues": {":p": {"S": "big"}}}') AS p,
         jsonb_array_elements(p.items) AS e)
SELECT count(*) AS items, count(DISTINCT sk) AS distinct_items,
       bool_and(sk = lpad((201 - n)::text, 4, '0')) AS in_order FROM got;
-- Limit exactly the partition size: a LastEvaluatedKey, then an empty page (as DynamoDB).
SELECT page, count, last_key FROM all_pages('Query',
  '{"TableName": "Pages", "KeyConditionExpression": "PK = :p AND SK > :s", "ProjectionExpression": "SK", "Limit": 3,
    "ExpressionAttributeValues": {":p": {"S": "big"}, ":s": {"S": "0197"}}}');

-- The GSI, forward and backward, through the ties of GS.
WITH got AS (
  SELECT (e #>> '{GS,N}')::int AS gs, (e #>> '{SK,S}') AS sk, row_number() OVER () AS n
    FROM all_pages('Query', '{"TableName": "Pages", "IndexName": "ByG", "KeyConditionExpression": "G = :g",
                              "ProjectionExpression": "GS, SK", "Limit": 45,
                              "ExpressionAttributeValues": {":g": {"S": "g"}}}') AS p,
         jsonb_array_elements(p.items) AS e)
SELECT count(*) AS items, count(DISTINCT sk) AS distinct_items,
       bool_and(n = expected) AS in_index_order
  FROM got JOIN (SELECT lpad(i::text, 4, '0') AS sk, row_number() OVER (ORDER BY i % 7, i) AS expected
                   FROM generate_series(1, 200) AS i) AS e USING (sk);
WITH got AS (
  SELECT (e #>> '{SK,S}') AS sk, row_number() OVER () AS n
    FROM all_pages('Query', '{"TableName": "Pages", "IndexName": "ByG", "KeyConditionExpression": "G = :g",
                              "ProjectionExpression": "GS, SK", "ScanIndexForward": false,
                              "ExpressionAttributeValues": {":g": {"S": "g"}}}') AS p,
         jsonb_array_elements(p.items) AS e)
SELECT count(*) AS items, count(DISTINCT sk) AS distinct_items,
       bool_and(n = expected) AS in_index_order
  FROM got JOIN (SELECT lpad(i::text, 4, '0') AS sk, row_number() OVER (ORDER BY i % 7 DESC, i DESC) AS expected
                   FROM generate_series(1, 200) AS i) AS e USING (sk);
-- An index page's LastEvaluatedKey holds the index's keys and the table's.
SELECT st_api('Query', '{"TableName": "Pages", "IndexName": "ByG", "KeyConditionExpression": "G = :g AND GS = :z",
                         "ProjectionExpression": "SK", "Limit": 2,
                         "ExpressionAttributeValues": {":g": {"S": "g"}, ":z": {"N": "0"}}}');

-- A filter applies after Limit: Count <= ScannedCount.
SELECT r - 'Items' FROM st_api('Query', '{"TableName": "Pages", "KeyConditionExpression": "PK = :p",
  "FilterExpression": "GS = :z", "ProjectionExpression": "SK", "Limit": 20,
  "ExpressionAttributeValues": {":p": {"S": "big"}, ":z": {"N": "3"}}}') AS r;
-- Select COUNT, ALL_PROJECTED_ATTRIBUTES on a KEYS_ONLY index.
SELECT st_api('Query', '{"TableName": "Pages", "KeyConditionExpression": "PK = :p AND begins_with(SK, :s)",
  "Select": "COUNT", "ExpressionAttributeValues": {":p": {"S": "big"}, ":s": {"S": "01"}}}');
SELECT r->'Items'->0 AS first_item, r->'Count' AS count FROM st_api('Query', '{"TableName": "Pages", "IndexName": "ByGKeys",
  "KeyConditionExpression": "G = :g", "Limit": 1, "ExpressionAttributeValues": {":g": {"S": "g"}}}') AS r;

-- Parallel scan: 4 segments, disjoint and together complete.
SELECT count(*) AS written FROM (SELECT st_put(jsonb_build_object('PK', 'p' || i, 'SK', 's', 'v', i), 'Pages') FROM generate_series(1, 100) AS i) AS puts;
WITH seg AS (
  SELECT s, (e #>> '{PK,S}') || '/' || (e #>> '{SK,S}') AS k
    FROM generate_series(0, 3) AS s,
         LATERAL all_pages('Scan', jsonb_build_object('TableName', 'Pages', 'Segment', s, 'TotalSegments', 4,
                                                      'ProjectionExpression', 'PK, SK', 'Limit', 50)) AS p,
         jsonb_array_elements(p.items) AS e)
SELECT count(*) AS items, count(DISTINCT k) AS distinct_items, count(DISTINCT s) AS segments_used,
       (SELECT count(*) FROM stdesign_data."Pages") AS in_table
  FROM seg;
-- A whole scan in pages of 64, every item once.
SELECT count(*) AS items, count(DISTINCT (e #>> '{PK,S}') || '/' || (e #>> '{SK,S}')) AS distinct_items
  FROM all_pages('Scan', '{"TableName": "Pages", "ProjectionExpression": "PK, SK", "Limit": 64}') AS p,
       jsonb_array_elements(p.items) AS e;

-- Bad requests ---------------------------------------------------------------
SELECT st_api('Query', '{"TableName": "Pages"}');
SELECT st_api('Query', '{"TableName": "Pages", "KeyConditionExpression": "SK = :s", "ExpressionAttributeValues": {":s": {"S": "x"}}}');
SELECT st_api('Query', '{"TableName": "Pages", "KeyConditionExpression": "PK = :p OR SK = :s", "ExpressionAttributeValues": {":p": {"S": "x"}, ":s": {"S": "x"}}}');
SELECT st_api('Query', '{"TableName": "Pages", "KeyConditionExpression": "PK = :p", "ExpressionAttributeValues": {":p": {"N": "1"}}}');
SELECT st_api('Query', '{"TableName": "Pages", "KeyConditionExpression": "PK = :p", "FilterExpression": "SK = :p", "ExpressionAttributeValues": {":p": {"S": "x"}}}');
SELECT st_api('Query', '{"TableName": "Pages", "KeyConditionExpression": "PK = :p", "Limit": 0, "ExpressionAttributeValues": {":p": {"S": "x"}}}');
SELECT st_api('Query', '{"TableName": "Pages", "IndexName": "Nope", "KeyConditionExpression": "PK = :p", "ExpressionAttributeValues": {":p": {"S": "x"}}}');
SELECT st_api('Query', '{"TableName": "Pages", "IndexName": "ByG", "ConsistentRead": true, "KeyConditionExpression": "G = :p", "ExpressionAttributeValues": {":p": {"S": "x"}}}');
SELECT st_api('Query', '{"TableName": "Pages", "IndexName": "ByGKeys", "Select": "ALL_ATTRIBUTES", "KeyConditionExpression": "G = :p", "ExpressionAttributeValues": {":p": {"S": "x"}}}');
SELECT st_api('Query', '{"TableName": "Pages", "IndexName": "ByGKeys", "ProjectionExpression": "xpad", "KeyConditionExpression": "G = :p", "ExpressionAttributeValues": {":p": {"S": "x"}}}');
SELECT st_api('Query', '{"TableName": "Pages", "Select": "ALL_PROJECTED_ATTRIBUTES", "KeyConditionExpression": "PK = :p", "ExpressionAttributeValues": {":p": {"S": "x"}}}');
SELECT st_api('Query', '{"TableName": "Pages", "Select": "SPECIFIC_ATTRIBUTES", "KeyConditionExpression": "PK = :p", "ExpressionAttributeValues": {":p": {"S": "x"}}}');
SELECT st_api('Query', '{"TableName": "Pages", "Select": "ALL_ATTRIBUTES", "ProjectionExpression": "SK", "KeyConditionExpression": "PK = :p", "ExpressionAttributeValues": {":p": {"S": "x"}}}');
SELECT st_api('Query', '{"TableName": "Pages", "Select": "EVERYTHING", "KeyConditionExpression": "PK = :p", "ExpressionAttributeValues": {":p": {"S": "x"}}}');
SELECT st_api('Query', '{"TableName": "Pages", "KeyConditionExpression": "PK = :p", "ExclusiveStartKey": {"PK": {"S": "x"}}, "ExpressionAttributeValues": {":p": {"S": "x"}}}');
SELECT st_api('Query', '{"TableName": "Pages", "KeyConditionExpression": "PK = :p", "ExclusiveStartKey": {"PK": {"S": "other"}, "SK": {"S": "1"}}, "ExpressionAttributeValues": {":p": {"S": "x"}}}');
SELECT st_api('Query', '{"TableName": "Pages", "KeyConditions": {}}');
SELECT st_api('Scan', '{"TableName": "Pages", "Segment": 1}');
SELECT st_api('Scan', '{"TableName": "Pages", "Segment": 4, "TotalSegments": 4}');
SELECT st_api('Scan', '{"TableName": "Pages", "Segment": 0, "TotalSegments": 0}');
SELECT st_api('Scan', '{"TableName": "Nope"}');
SELECT st_api('Scan', '{"TableName": "Pages", "Limit": "ten"}');
SELECT st_api('Scan', '[]');
SELECT st_api('Explode', '{}');

DROP FUNCTION all_pages(text, jsonb);
SELECT st_drop_table('Pages');
