-- st_query_index: st_query for a key of several attributes (a GSI's
-- multi-attribute key; a single-attribute index or the table too).  Every
-- partition-key value, sort-key values with = from the first, and an
-- optional prefix or range on the next sort-key attribute; the rules, the
-- messages and the order are the KeyConditionExpression's.
\set VERBOSITY terse

SELECT st_api('CreateTable', '{"TableName": "MqI", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "SK", "AttributeType": "S"},
    {"AttributeName": "region", "AttributeType": "S"}, {"AttributeName": "tier", "AttributeType": "N"},
    {"AttributeName": "day", "AttributeType": "N"}, {"AttributeName": "kind", "AttributeType": "S"},
    {"AttributeName": "blob", "AttributeType": "B"}, {"AttributeName": "g", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
  "GlobalSecondaryIndexes": [
    {"IndexName": "ByRegion", "Projection": {"ProjectionType": "ALL"},
     "KeySchema": [{"AttributeName": "region", "KeyType": "HASH"}, {"AttributeName": "tier", "KeyType": "HASH"},
       {"AttributeName": "day", "KeyType": "RANGE"}, {"AttributeName": "kind", "KeyType": "RANGE"},
       {"AttributeName": "blob", "KeyType": "RANGE"}]},
    {"IndexName": "ByG", "Projection": {"ProjectionType": "KEYS_ONLY"},
     "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}]}]}') IS NOT NULL;

-- Days 9, 10 and 100 (numbers order as numbers, not as text), kinds, and
-- blobs (bytes: 0x01 < 0x7f < 0x80); two items outside the partition
-- (another tier, another region) and one without blob (not in the index).
SELECT count(st_put(jsonb_strip_nulls(jsonb_build_object('PK', jsonb_build_object('S', pk), 'SK', jsonb_build_object('S', sk),
    'region', jsonb_build_object('S', region), 'tier', jsonb_build_object('N', tier::text),
    'day', jsonb_build_object('N', day::text), 'kind', jsonb_build_object('S', kind),
    'blob', CASE WHEN blob IS NOT NULL THEN jsonb_build_object('B', blob) END,
    'g', CASE WHEN g IS NOT NULL THEN jsonb_build_object('S', g) END)), 'MqI', typed => true))
  FROM (VALUES
  ('i1', 'x', 'eu', 2, 10, 'ab', 'gA==', 'G'),
  ('i2', 'x', 'eu', 2, 10, 'ab', 'AQ==', 'G'),
  ('i3', 'x', 'eu', 2, 9, 'zz', 'AQ==', 'G'),
  ('i4', 'x', 'eu', 2, 100, 'aa', 'AQ==', NULL),
  ('i5', 'x', 'eu', 2, 10, 'b', 'fw==', NULL),
  ('i6', 'x', 'eu', 2, 10, 'a', 'fw==', NULL),
  ('i7', 'x', 'eu', 3, 10, 'ab', 'AQ==', NULL),
  ('i8', 'x', 'us', 2, 10, 'ab', 'AQ==', NULL),
  ('i9', 'x', 'eu', 2, 10, 'ab', NULL, NULL)) AS i(pk, sk, region, tier, day, kind, blob, g);
SELECT st_put('{"PK": "i1", "SK": "y", "g": "G"}', 'MqI');

-- The ids of a call's items, in order.
CREATE FUNCTION ids(items jsonb[]) RETURNS text LANGUAGE sql AS $$
  SELECT COALESCE(string_agg(COALESCE(i ->> 'PK', i #>> '{PK,S}'), ' ' ORDER BY o), '(none)')
    FROM unnest(items) WITH ORDINALITY AS x(i, o)
$$;

-- The partition: every partition-key value (an array in key order, or an
-- object by name); items by day (as numbers), kind, then blob (as bytes).
SELECT ids(array(SELECT st_query_index('MqI', 'ByRegion', '["eu", 2]')));
SELECT ids(array(SELECT st_query_index('MqI', 'ByRegion', '{"tier": 2, "region": "eu"}')));
-- a number's text for an N attribute, as st_query reads its text arguments
SELECT ids(array(SELECT st_query_index('MqI', 'ByRegion', '["eu", "2.0"]')));
SELECT ids(array(SELECT st_query_index('MqI', 'ByRegion', '["eu", 3]')));
SELECT ids(array(SELECT st_query_index('MqI', 'ByRegion', '["eu", 4]')));
-- sort-key values left to right, with =
SELECT ids(array(SELECT st_query_index('MqI', 'ByRegion', '["eu", 2]', '[10]')));
SELECT ids(array(SELECT st_query_index('MqI', 'ByRegion', '["eu", 2]', '{"day": 10, "kind": "ab"}')));
SELECT ids(array(SELECT st_query_index('MqI', 'ByRegion', '["eu", 2]', '[10, "ab", "AQ=="]')));
-- the next sort-key attribute by prefix or range (sk_prefix, sk_from, sk_to)
SELECT ids(array(SELECT st_query_index('MqI', 'ByRegion', '["eu", 2]', '[10]', sk_prefix => '"a"')));
SELECT ids(array(SELECT st_query_index('MqI', 'ByRegion', '["eu", 2]', sk_from => '10', sk_to => '99')));
SELECT ids(array(SELECT st_query_index('MqI', 'ByRegion', '["eu", 2]', sk_from => '10')));
SELECT ids(array(SELECT st_query_index('MqI', 'ByRegion', '["eu", 2]', sk_to => '"10"')));
SELECT ids(array(SELECT st_query_index('MqI', 'ByRegion', '["eu", 2]', '[10, "ab"]', sk_from => '"fw=="')));
-- backward, limited, filtered, projected
SELECT ids(array(SELECT st_query_index('MqI', 'ByRegion', '["eu", 2]', forward => false)));
SELECT ids(array(SELECT st_query_index('MqI', 'ByRegion', '["eu", 2]', '[10]', forward => false, "limit" => 2)));
SELECT ids(array(SELECT st_query_index('MqI', 'ByRegion', '["eu", 2]', filter => 'attribute_exists(g)')));
SELECT st_query_index('MqI', 'ByRegion', '["eu", 2]', '[9]', projection => 'PK, #d', names => '{"#d": "day"}');
-- typed => true: AttributeValues in, typed items out
SELECT st_query_index('MqI', 'ByRegion', '[{"S": "eu"}, {"N": "2"}]', '[{"N": "9"}]', typed => true);
-- the same items in the same order as the Query API's
SELECT array(SELECT st_query_index('MqI', 'ByRegion', '[{"S": "eu"}, {"N": "2"}]', '[{"N": "10"}]', sk_prefix => '{"S": "a"}',
                                    forward => false, typed => true))
  = array(SELECT jsonb_array_elements(st_api('Query', '{"TableName": "MqI", "IndexName": "ByRegion", "ScanIndexForward": false,
      "KeyConditionExpression": "#r = :r AND tier = :t AND #d = :d AND begins_with(kind, :k)",
      "ExpressionAttributeNames": {"#r": "region", "#d": "day"},
      "ExpressionAttributeValues": {":r": {"S": "eu"}, ":t": {"N": "2"}, ":d": {"N": "10"}, ":k": {"S": "a"}}}') -> 'Items')) AS same;
-- a single-attribute index and the table (index NULL): st_query's results
SELECT ids(array(SELECT st_query_index('MqI', 'ByG', '["G"]', sk_from => '"x"')))
  = ids(array(SELECT st_query('G', "table" => 'MqI', index => 'ByG', sk_from => 'x'))) AS same,
  ids(array(SELECT st_query_index('MqI', 'ByG', '["G"]', sk_from => '"x"')));
SELECT ids(array(SELECT st_query_index('MqI', NULL, '{"PK": "i1"}', sk_prefix => '"y"')));
SELECT ids(array(SELECT st_query_index('MqI', NULL, '["i1"]', '["x"]')));

-- The partitions of the index (st_partitions): by all of its HASH
-- attributes, a JSON array of their texts; an item without every key
-- attribute (i9) is not in the index.
SELECT index_name, partition_key, items FROM st_partitions('MqI') WHERE index_name = 'ByRegion' ORDER BY partition_key;

-- Bad input: DynamoDB's messages where a KeyConditionExpression has them.
-- a partition-key attribute missing (array, object, null)
SELECT st_query_index('MqI', 'ByRegion', '["eu"]');
SELECT st_query_index('MqI', 'ByRegion', '{"region": "eu"}');
SELECT st_query_index('MqI', 'ByRegion', '["eu", null]');
SELECT st_query_index('MqI', 'ByRegion', '[]');
SELECT st_query_index('MqI', 'ByG', '{}');
-- a sort-key attribute skipped (by name, or null in the array)
SELECT st_query_index('MqI', 'ByRegion', '["eu", 2]', '{"kind": "ab"}');
SELECT st_query_index('MqI', 'ByRegion', '["eu", 2]', '[null, "ab"]');
SELECT st_query_index('MqI', 'ByRegion', '["eu", 2]', '{"day": 10, "blob": "AQ=="}');
SELECT st_query_index('MqI', 'ByRegion', '["eu", 2]', '{"kind": "ab"}', sk_prefix => '"AQ=="');
-- wrong types: a string for N, a boolean, typed values of another type,
-- an untyped value with typed => true, a bad number, bad base64
SELECT st_query_index('MqI', 'ByRegion', '["eu", true]');
SELECT st_query_index('MqI', 'ByRegion', '[1, 2]');
SELECT st_query_index('MqI', 'ByRegion', '["eu", {"N": "2"}]');
SELECT st_query_index('MqI', 'ByRegion', '[{"S": "eu"}, {"S": "2"}]', typed => true);
SELECT st_query_index('MqI', 'ByRegion', '["eu", 2]', typed => true);
SELECT st_query_index('MqI', 'ByRegion', '["eu", "two"]');
SELECT st_query_index('MqI', 'ByRegion', '["eu", 2]', '[10, "ab", "%%"]');
SELECT st_query_index('MqI', 'ByRegion', '["eu", 2]', sk_from => '"x"');
SELECT st_query_index('MqI', 'ByRegion', '["eu", 2]', sk_from => 'null');
SELECT st_query_index('MqI', 'ByRegion', '["eu", 2]', sk_from => '[1]');
-- attributes that are not of the key, or not of that part of it
SELECT st_query_index('MqI', 'ByRegion', '{"region": "eu", "tier": 2, "day": 10}');
SELECT st_query_index('MqI', 'ByRegion', '{"region": "eu", "tier": 2, "PK": "i1"}');
SELECT st_query_index('MqI', 'ByRegion', '["eu", 2]', '{"tier": 2}');
SELECT st_query_index('MqI', 'ByRegion', '["eu", 2, 3]');
SELECT st_query_index('MqI', 'ByRegion', '["eu", 2]', '[10, "ab", "AQ==", 1]');
-- not an array or object
SELECT st_query_index('MqI', 'ByRegion', '"eu"');
SELECT st_query_index('MqI', 'ByRegion', '["eu", 2]', '10');
SELECT st_query_index('MqI', 'ByRegion', NULL);
-- conditions on the bounded attribute: begins_with on N, two at once, none
-- left, BETWEEN upside down, a key without a sort key
SELECT st_query_index('MqI', 'ByRegion', '["eu", 2]', sk_prefix => '"1"');
SELECT st_query_index('MqI', 'ByRegion', '["eu", 2]', '[10]', sk_prefix => '"a"', sk_to => '"b"');
SELECT st_query_index('MqI', 'ByRegion', '["eu", 2]', '[10, "ab", "AQ=="]', sk_prefix => '"a"');
SELECT st_query_index('MqI', 'ByRegion', '["eu", 2]', sk_from => '10', sk_to => '9');
SELECT st_create_gsi('MqI', 'HashOnly', 'g') IS NOT NULL;
SELECT st_query_index('MqI', 'HashOnly', '["G"]', sk_from => '"a"');
SELECT st_drop_gsi('MqI', 'HashOnly');
-- no such table or index; a bad limit
SELECT st_query_index('MqNone', 'ByRegion', '["eu", 2]');
SELECT st_query_index('MqI', 'Nope', '["eu", 2]');
SELECT st_query_index('MqI', 'ByRegion', '["eu", 2]', "limit" => 0);
-- huge values: a 2048-byte partition-key attribute is just not found, a
-- longer one and a number past DynamoDB's range are refused, as Query
-- refuses them; a huge sort-key prefix finds nothing
SELECT ids(array(SELECT st_query_index('MqI', 'ByRegion', jsonb_build_array(repeat('x', 2048), 2))));
SELECT st_query_index('MqI', 'ByRegion', jsonb_build_array(repeat('x', 2049), 2));
SELECT st_query_index('MqI', 'ByRegion', jsonb_build_array('eu', repeat('9', 100000)));
SELECT st_query_index('MqI', 'ByRegion', '["eu", 2]', sk_prefix => to_jsonb(repeat('x', 100000)), sk_values => '[10]');

-- One index range scan: the partition's key values and day's bounds are
-- the btree's conditions (the statement st_query_index runs for sk_from
-- and sk_to on the first sort-key attribute, as stdesign.query_sql shows).
SELECT stdesign.query_sql('MqI', 'ByRegion', 1, 1, false) AS qi_sql \gset
PREPARE qi_plan(jsonb, numeric, numeric, int8, jsonb) AS :qi_sql;
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) EXECUTE qi_plan('{"region": {"S": "eu"}, "tier": {"N": "2"}}', 10, 99, 10, NULL);
RESET enable_seqscan;
DEALLOCATE qi_plan;

-- A role without SELECT on the table's relation is refused (it may use the
-- schemas and read the catalog); granted SELECT, it reads.
CREATE ROLE regress_qi_reader;
GRANT USAGE ON SCHEMA stdesign, stdesign_data TO regress_qi_reader;
GRANT SELECT ON stdesign.tables, stdesign.indexes TO regress_qi_reader;
SET ROLE regress_qi_reader;
SELECT st_query_index('MqI', 'ByRegion', '["eu", 2]');
SELECT st_query_index('MqI', NULL, '["i1"]');
RESET ROLE;
GRANT SELECT ON stdesign_data."MqI" TO regress_qi_reader;
SET ROLE regress_qi_reader;
SELECT ids(array(SELECT st_query_index('MqI', 'ByRegion', '["eu", 2]', '[9]')));
RESET ROLE;
DROP OWNED BY regress_qi_reader;
DROP ROLE regress_qi_reader;

SELECT st_drop_table('MqI');
DROP FUNCTION ids(jsonb[]);
