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

-- Pages whose items go out as stored are written by copying each stored
-- item's bytes into the response.  Items of every type (nested maps and
-- lists, numbers after odd-length strings, sets, binary, 40 attributes), 70
-- of them so the Items array needs more than two offset strides.
SELECT st_api('CreateTable', '{"TableName": "Shapes", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "SK", "AttributeType": "N"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}]}') IS NOT NULL AS created;
CREATE FUNCTION shape(pk text, i integer) RETURNS jsonb LANGUAGE sql AS $$
  SELECT jsonb_build_object(
           'PK', jsonb_build_object('S', pk), 'SK', jsonb_build_object('N', i::text),
           's', jsonb_build_object('S', repeat('x', i % 5)), 'n', jsonb_build_object('N', (i * 1.5)::text),
           'm', jsonb_build_object('M', jsonb_build_object('a', jsonb_build_object('S', repeat('y', i % 3)),
                                                          'b', jsonb_build_object('N', '-' || i),
                                                          'c', jsonb_build_object('L', jsonb_build_array(
                                                                 jsonb_build_object('N', '7'), jsonb_build_object('BOOL', i % 2 = 0),
                                                                 jsonb_build_object('NULL', true))))),
           'ns', jsonb_build_object('NS', jsonb_build_array('1', (i + 2)::text)),
           'ss', jsonb_build_object('SS', jsonb_build_array('é', 'zz')),
           'bin', jsonb_build_object('B', encode(convert_to(repeat('z', i % 4 + 1), 'UTF8'), 'base64')))
         || (SELECT jsonb_object_agg('a' || j, jsonb_build_object('N', j::text)) FROM generate_series(1, 33) j)
$$;
SELECT count(*) AS written
  FROM (SELECT st_put(shape('p', i), 'Shapes', typed => true) FROM generate_series(1, 70) AS i) AS puts;
-- Read capacity and the 1 MB page come from sizes read straight off the
-- stored bytes.  Two items padded to exactly 4,096 and 4,097 bytes by
-- st_item_size: reading the first is 0.5 read units, the second 1.0.
SELECT count(*) AS written
  FROM (SELECT st_put(shape(pk, 5) || jsonb_build_object('pad', jsonb_build_object('S',
                        repeat('q', target - 3 - st_item_size(shape(pk, 5), typed => true)))),
                      'Shapes', typed => true)
          FROM (VALUES ('q4096', 4096), ('q4097', 4097)) AS v (pk, target)) AS puts;
SELECT pk, st_item_size(st_get(pk, '5', 'Shapes', typed => true), typed => true) AS bytes,
       st_api('Query', jsonb_build_object('TableName', 'Shapes', 'KeyConditionExpression', 'PK = :p',
                                          'ExpressionAttributeValues', jsonb_build_object(':p', jsonb_build_object('S', pk)),
                                          'ReturnConsumedCapacity', 'TOTAL')) #>> '{ConsumedCapacity,CapacityUnits}' AS units
  FROM (VALUES ('q4096'), ('q4097')) AS v (pk);
SELECT count(*) AS items, count(*) FILTER (WHERE stdesign.item_size(item) = st_item_size(item, typed => true)) AS same_size
  FROM stdesign_data."Shapes";
WITH q AS (SELECT st_api('Query', '{"TableName": "Shapes", "KeyConditionExpression": "PK = :p",
                                    "ExpressionAttributeValues": {":p": {"S": "p"}}, "ReturnConsumedCapacity": "TOTAL"}') AS r)
SELECT r = r::text::jsonb AS same_as_reparsed,
       pg_column_size(r) = pg_column_size(r::text::jsonb) AS same_size_as_reparsed,
       r->>'Count' AS count, r->>'ScannedCount' AS scanned, r #>> '{ConsumedCapacity,CapacityUnits}' AS units,
       r #>> '{Items,69,SK,N}' AS last_sk, r #>> '{Items,40,m,M,c,L,1,BOOL}' AS nested_bool,
       jsonb_path_query_first(r, '$.Items[33].a33.N') AS a33,
       r @> '{"Items": [{"SK": {"N": "64"}, "ns": {"NS": ["1", "66"]}}]}' AS contains_item,
       (SELECT bool_and(e = st_get('p', e #>> '{SK,N}', 'Shapes', typed => true))
          FROM jsonb_array_elements(r->'Items') AS e) AS items_as_stored
  FROM q;
SELECT st_drop_table('Shapes') IS NOT NULL AS dropped;
DROP FUNCTION shape(text, integer);

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
