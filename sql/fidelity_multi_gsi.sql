-- Global secondary indexes with multi-attribute keys (DynamoDB, November
-- 2025: up to 4 HASH then up to 4 RANGE attributes, each typed by
-- AttributeDefinitions): CreateTable and UpdateTable accept them and
-- DescribeTable describes them; bad key schemas get a ValidationException;
-- the btree holds an item only with every key attribute of its type, and a
-- write with a wrongly typed key attribute is refused.
\set VERBOSITY terse

-- Tables and LSIs keep one HASH and at most one RANGE attribute.
SELECT st_api('CreateTable', '{"TableName": "MgA", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "a", "AttributeType": "S"},
    {"AttributeName": "b", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "a", "KeyType": "HASH"}, {"AttributeName": "b", "KeyType": "RANGE"}]}');
SELECT st_api('CreateTable', '{"TableName": "MgA", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "SK", "AttributeType": "S"},
    {"AttributeName": "a", "AttributeType": "S"}, {"AttributeName": "b", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
  "LocalSecondaryIndexes": [{"IndexName": "Lx1", "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"},
    {"AttributeName": "a", "KeyType": "RANGE"}, {"AttributeName": "b", "KeyType": "RANGE"}], "Projection": {"ProjectionType": "ALL"}}]}');

-- GSI key schemas that break the rules: a RANGE first, a HASH after a
-- RANGE, 5 HASH, 5 RANGE, more than 8 elements, a name twice (HASH and
-- RANGE: DynamoDB's own message; two HASH), an undefined attribute.
CREATE FUNCTION mg_try(ks jsonb, defs jsonb) RETURNS jsonb LANGUAGE sql AS $$
  SELECT st_api('CreateTable', jsonb_build_object('TableName', 'MgA', 'BillingMode', 'PAY_PER_REQUEST',
    'AttributeDefinitions', '[{"AttributeName": "PK", "AttributeType": "S"}]'::jsonb || defs,
    'KeySchema', '[{"AttributeName": "PK", "KeyType": "HASH"}]'::jsonb,
    'GlobalSecondaryIndexes', jsonb_build_array(jsonb_build_object('IndexName', 'Gx1', 'KeySchema', ks,
      'Projection', '{"ProjectionType": "ALL"}'::jsonb))))
$$;
CREATE FUNCTION mg_ks(spec text) RETURNS jsonb LANGUAGE sql AS $$
  -- 'a:H b:R' -> KeySchema
  SELECT jsonb_agg(jsonb_build_object('AttributeName', split_part(e, ':', 1),
         'KeyType', CASE split_part(e, ':', 2) WHEN 'H' THEN 'HASH' ELSE 'RANGE' END) ORDER BY o)
    FROM unnest(string_to_array(spec, ' ')) WITH ORDINALITY AS x(e, o)
$$;
CREATE FUNCTION mg_defs(names text) RETURNS jsonb LANGUAGE sql AS $$
  SELECT jsonb_agg(jsonb_build_object('AttributeName', n, 'AttributeType', 'S'))
    FROM unnest(string_to_array(names, ' ')) AS n
$$;
SELECT mg_try(mg_ks('a:R b:H'), mg_defs('a b'));
SELECT mg_try(mg_ks('a:H b:R c:H'), mg_defs('a b c'));
SELECT mg_try(mg_ks('a:H b:H c:H d:H e:H'), mg_defs('a b c d e'));
SELECT mg_try(mg_ks('a:H b:R c:R d:R e:R f:R'), mg_defs('a b c d e f'));
SELECT mg_try(mg_ks('a:H b:H c:H d:H e:R f:R g:R h:R i:R'), mg_defs('a b c d e f g h i'));
SELECT mg_try(mg_ks('a:H a:R'), mg_defs('a'));
SELECT mg_try(mg_ks('a:H b:H a:H'), mg_defs('a b'));
SELECT mg_try(mg_ks('a:H b:R a:R'), mg_defs('a b'));
SELECT mg_try(mg_ks('a:H b:H c:R'), mg_defs('a b'));
-- a definition no key uses
SELECT mg_try(mg_ks('a:H b:H'), mg_defs('a b c'));
SELECT count(*) FROM stdesign.tables WHERE table_name = 'MgA';

-- 4 HASH and 4 RANGE attributes of every type: the limit, accepted.
SELECT jsonb_pretty(st_api('CreateTable', '{"TableName": "MgA", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"},
    {"AttributeName": "h1", "AttributeType": "S"}, {"AttributeName": "h2", "AttributeType": "N"},
    {"AttributeName": "h3", "AttributeType": "B"}, {"AttributeName": "h4", "AttributeType": "S"},
    {"AttributeName": "r1", "AttributeType": "N"}, {"AttributeName": "r2", "AttributeType": "S"},
    {"AttributeName": "r3", "AttributeType": "B"}, {"AttributeName": "r4", "AttributeType": "N"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}],
  "GlobalSecondaryIndexes": [{"IndexName": "Big", "KeySchema": [
    {"AttributeName": "h1", "KeyType": "HASH"}, {"AttributeName": "h2", "KeyType": "HASH"},
    {"AttributeName": "h3", "KeyType": "HASH"}, {"AttributeName": "h4", "KeyType": "HASH"},
    {"AttributeName": "r1", "KeyType": "RANGE"}, {"AttributeName": "r2", "KeyType": "RANGE"},
    {"AttributeName": "r3", "KeyType": "RANGE"}, {"AttributeName": "r4", "KeyType": "RANGE"}],
    "Projection": {"ProjectionType": "KEYS_ONLY"}}]}')
  #- '{TableDescription,CreationDateTime}' #- '{TableDescription,TableId}'
  #- '{TableDescription,BillingModeSummary,LastUpdateToPayPerRequestDateTime}');
SELECT index_name, pk_name, pk_type, sk_name, sk_type, key_schema FROM stdesign.indexes WHERE table_name = 'MgA';
-- the btree: key_ix of the HASH attributes, each RANGE attribute typed, the table's key
SELECT regexp_replace(pg_get_indexdef(format('stdesign_data.%I', pg_index)::regclass), 'OPERATOR\(pg_catalog\.([^)]*)\)', '\1', 'g')
  FROM stdesign.indexes WHERE table_name = 'MgA';

-- Writes: an item with every key attribute is in the index; one without
-- some is not (sparse); a key attribute of another type is refused, as
-- are an empty string and range attributes over 1024 bytes together.
CREATE FUNCTION mg_put(item jsonb) RETURNS jsonb LANGUAGE sql AS $$
  SELECT st_api('PutItem', jsonb_build_object('TableName', 'MgA', 'Item', item))
$$;
SELECT mg_put('{"PK": {"S": "i1"}, "h1": {"S": "x"}, "h2": {"N": "1"}, "h3": {"B": "AQ=="}, "h4": {"S": "y"},
  "r1": {"N": "2"}, "r2": {"S": "s"}, "r3": {"B": "Ag=="}, "r4": {"N": "3"}}');
SELECT mg_put('{"PK": {"S": "i2"}, "h1": {"S": "x"}, "h2": {"N": "1"}, "h3": {"B": "AQ=="}, "h4": {"S": "y"},
  "r1": {"N": "2"}, "r2": {"S": "s"}, "r3": {"B": "Ag=="}}');
SELECT mg_put('{"PK": {"S": "i3"}, "h1": {"S": "x"}}');
SELECT mg_put('{"PK": {"S": "i4"}, "h1": {"S": "x"}, "h2": {"S": "1"}}');
SELECT mg_put('{"PK": {"S": "i4"}, "r4": {"S": "3"}}');
SELECT mg_put('{"PK": {"S": "i4"}, "h3": {"N": "3"}}');
SELECT mg_put('{"PK": {"S": "i4"}, "h4": {"S": ""}}');
SELECT mg_put('{"PK": {"S": "i4"}, "r3": {"B": ""}}');
SELECT mg_put(jsonb_build_object('PK', '{"S": "i4"}'::jsonb, 'r2', jsonb_build_object('S', repeat('s', 1025))));
SELECT mg_put(jsonb_build_object('PK', '{"S": "i4"}'::jsonb, 'h1', jsonb_build_object('S', repeat('s', 2049))));
-- range attributes over 1024 bytes together
SELECT mg_put(jsonb_build_object('PK', '{"S": "i4"}'::jsonb, 'h1', '{"S": "x"}'::jsonb, 'h2', '{"N": "1"}'::jsonb,
  'h3', '{"B": "AQ=="}'::jsonb, 'h4', '{"S": "y"}'::jsonb, 'r1', '{"N": "2"}'::jsonb, 'r2', jsonb_build_object('S', repeat('s', 1000)),
  'r3', jsonb_build_object('B', encode(convert_to(repeat('b', 25), 'UTF8'), 'base64')), 'r4', '{"N": "3"}'::jsonb));
-- each at its limit is fine when the range attributes fit together
SELECT mg_put(jsonb_build_object('PK', '{"S": "i5"}'::jsonb, 'h1', jsonb_build_object('S', repeat('h', 2048)), 'h2', '{"N": "-1.5E+3"}'::jsonb,
  'h3', jsonb_build_object('B', translate(encode(convert_to(repeat('z', 2048), 'UTF8'), 'base64'), E'\n', '')), 'h4', jsonb_build_object('S', repeat('g', 2048)),
  'r1', '{"N": "99999999999999999999999999999999999999"}'::jsonb, 'r2', jsonb_build_object('S', repeat('s', 1000)),
  'r3', jsonb_build_object('B', encode(convert_to(repeat('b', 24), 'UTF8'), 'base64')), 'r4', '{"N": "-1E-130"}'::jsonb));
SELECT st_api('UpdateItem', '{"TableName": "MgA", "Key": {"PK": {"S": "i1"}}, "UpdateExpression": "SET r2 = :v",
  "ExpressionAttributeValues": {":v": {"N": "5"}}}');
SELECT st_api('BatchWriteItem', '{"RequestItems": {"MgA": [{"PutRequest": {"Item": {"PK": {"S": "i6"}, "h3": {"S": "not binary"}}}}]}}');
SELECT st_api('TransactWriteItems', '{"TransactItems": [{"Put": {"TableName": "MgA", "Item": {"PK": {"S": "i6"}, "r1": {"S": "x"}}}}]}');
SELECT st_api('ExecuteStatement', '{"Statement": "INSERT INTO \"MgA\" VALUE {''PK'': ''i6'', ''h2'': ''one''}"}');
-- updating a key attribute of the index in a nested path is refused as for one-attribute keys
SELECT st_api('UpdateItem', '{"TableName": "MgA", "Key": {"PK": {"S": "i1"}}, "UpdateExpression": "SET r3.x = :v",
  "ExpressionAttributeValues": {":v": {"N": "5"}}}');
-- in the index: i1 and i5, the items with every key attribute
SELECT (st_api('DescribeTable', '{"TableName": "MgA"}')->'Table'->'GlobalSecondaryIndexes'->0)->>'ItemCount' AS in_index,
       (st_api('DescribeTable', '{"TableName": "MgA"}')->'Table')->>'ItemCount' AS in_table;
-- capacity: the index entry is written for i1, not for a sparse item
SELECT st_api('PutItem', '{"TableName": "MgA", "Item": {"PK": {"S": "i1"}, "h1": {"S": "x"}, "h2": {"N": "1"}, "h3": {"B": "AQ=="},
  "h4": {"S": "y"}, "r1": {"N": "2"}, "r2": {"S": "s"}, "r3": {"B": "Ag=="}, "r4": {"N": "4"}}, "ReturnConsumedCapacity": "INDEXES"}');
SELECT st_api('PutItem', '{"TableName": "MgA", "Item": {"PK": {"S": "i7"}, "h1": {"S": "x"}}, "ReturnConsumedCapacity": "INDEXES"}');

-- Query: every HASH attribute with =, RANGE attributes left to right, the
-- last one used with any key operator; results in the order of the RANGE
-- attributes (each its type's: r1 numeric, r2 bytes), then the table key.
CREATE FUNCTION mg_q(cond text, vals jsonb, extra jsonb DEFAULT '{}') RETURNS jsonb LANGUAGE sql AS $$
  SELECT st_api('Query', jsonb_build_object('TableName', 'MgA', 'IndexName', 'Big', 'KeyConditionExpression', cond,
    'ExpressionAttributeValues', vals) || extra)
$$;
CREATE FUNCTION mg_pks(r jsonb) RETURNS text LANGUAGE sql AS $$
  SELECT string_agg(i -> 'PK' ->> 'S', ' ' ORDER BY o) || ' (' || (r ->> 'Count') || ')'
         || COALESCE(' last ' || (r -> 'LastEvaluatedKey')::text, '')
    FROM jsonb_array_elements(r -> 'Items') WITH ORDINALITY AS x(i, o)
$$;
SELECT mg_put(jsonb_build_object('PK', jsonb_build_object('S', 'q' || n), 'h1', '{"S": "x"}'::jsonb, 'h2', '{"N": "1"}'::jsonb,
  'h3', '{"B": "AQ=="}'::jsonb, 'h4', '{"S": "y"}'::jsonb, 'r1', jsonb_build_object('N', (n % 3)::text),
  'r2', jsonb_build_object('S', chr(ascii('a') + n % 4)), 'r3', '{"B": "AA=="}'::jsonb, 'r4', jsonb_build_object('N', (10 - n)::text)))
  FROM generate_series(1, 10) AS n;
-- the HASH values as numbers compare as numbers: 1.0 is 1
SELECT mg_pks(mg_q('h1 = :a AND h2 = :b AND h3 = :c AND h4 = :d',
  '{":a": {"S": "x"}, ":b": {"N": "1.0"}, ":c": {"B": "AQ=="}, ":d": {"S": "y"}}'));
SELECT mg_pks(mg_q('h1 = :a AND h2 = :b AND h3 = :c AND h4 = :d AND r1 = :r1',
  '{":a": {"S": "x"}, ":b": {"N": "1"}, ":c": {"B": "AQ=="}, ":d": {"S": "y"}, ":r1": {"N": "1"}}'));
SELECT mg_pks(mg_q('h1 = :a AND h2 = :b AND h3 = :c AND h4 = :d AND r1 = :r1 AND r2 BETWEEN :lo AND :hi',
  '{":a": {"S": "x"}, ":b": {"N": "1"}, ":c": {"B": "AQ=="}, ":d": {"S": "y"}, ":r1": {"N": "1"}, ":lo": {"S": "b"}, ":hi": {"S": "c"}}'));
SELECT mg_pks(mg_q('h1 = :a AND h2 = :b AND h3 = :c AND h4 = :d AND r1 >= :r1',
  '{":a": {"S": "x"}, ":b": {"N": "1"}, ":c": {"B": "AQ=="}, ":d": {"S": "y"}, ":r1": {"N": "2"}}', '{"ScanIndexForward": false}'));
SELECT mg_pks(mg_q('h1 = :a AND h2 = :b AND h3 = :c AND h4 = :d AND r1 = :r1 AND begins_with(r2, :p)',
  '{":a": {"S": "x"}, ":b": {"N": "1"}, ":c": {"B": "AQ=="}, ":d": {"S": "y"}, ":r1": {"N": "1"}, ":p": {"S": "a"}}'));
-- pages: Limit, LastEvaluatedKey with every key attribute, ExclusiveStartKey
SELECT mg_pks(mg_q('h1 = :a AND h2 = :b AND h3 = :c AND h4 = :d AND r1 = :r1',
  '{":a": {"S": "x"}, ":b": {"N": "1"}, ":c": {"B": "AQ=="}, ":d": {"S": "y"}, ":r1": {"N": "1"}}', '{"Limit": 2}'));
SELECT mg_pks(mg_q('h1 = :a AND h2 = :b AND h3 = :c AND h4 = :d AND r1 = :r1',
  '{":a": {"S": "x"}, ":b": {"N": "1"}, ":c": {"B": "AQ=="}, ":d": {"S": "y"}, ":r1": {"N": "1"}}',
  jsonb_build_object('Limit', 2, 'ExclusiveStartKey', mg_q('h1 = :a AND h2 = :b AND h3 = :c AND h4 = :d AND r1 = :r1',
  '{":a": {"S": "x"}, ":b": {"N": "1"}, ":c": {"B": "AQ=="}, ":d": {"S": "y"}, ":r1": {"N": "1"}}', '{"Limit": 2}') -> 'LastEvaluatedKey')));
-- a start key missing an attribute, or outside the condition
SELECT mg_q('h1 = :a AND h2 = :b AND h3 = :c AND h4 = :d', '{":a": {"S": "x"}, ":b": {"N": "1"}, ":c": {"B": "AQ=="}, ":d": {"S": "y"}}',
  '{"ExclusiveStartKey": {"PK": {"S": "q1"}, "h1": {"S": "x"}}}');
SELECT mg_q('h1 = :a AND h2 = :b AND h3 = :c AND h4 = :d', '{":a": {"S": "x"}, ":b": {"N": "1"}, ":c": {"B": "AQ=="}, ":d": {"S": "y"}}',
  '{"ExclusiveStartKey": {"PK": {"S": "q1"}, "h1": {"S": "other"}, "h2": {"N": "1"}, "h3": {"B": "AQ=="}, "h4": {"S": "y"},
    "r1": {"N": "1"}, "r2": {"S": "b"}, "r3": {"B": "AA=="}, "r4": {"N": "9"}}}');
-- conditions that break the rules: a HASH attribute missing or not with =,
-- a RANGE attribute skipped, an inequality before the last one, a key
-- attribute twice, a value of the wrong type, a filter on a key attribute
SELECT mg_q('h1 = :a AND h2 = :b AND h3 = :c', '{":a": {"S": "x"}, ":b": {"N": "1"}, ":c": {"B": "AQ=="}}');
SELECT mg_q('h1 = :a AND h2 = :b AND h3 = :c AND h4 > :d', '{":a": {"S": "x"}, ":b": {"N": "1"}, ":c": {"B": "AQ=="}, ":d": {"S": "y"}}');
SELECT mg_q('h1 = :a AND h2 = :b AND h3 = :c AND h4 = :d AND r2 = :e', '{":a": {"S": "x"}, ":b": {"N": "1"}, ":c": {"B": "AQ=="}, ":d": {"S": "y"}, ":e": {"S": "a"}}');
SELECT mg_q('h1 = :a AND h2 = :b AND h3 = :c AND h4 = :d AND r1 > :e AND r2 = :f',
  '{":a": {"S": "x"}, ":b": {"N": "1"}, ":c": {"B": "AQ=="}, ":d": {"S": "y"}, ":e": {"N": "0"}, ":f": {"S": "a"}}');
SELECT mg_q('h1 = :a AND h1 = :b', '{":a": {"S": "x"}, ":b": {"S": "y"}}');
SELECT mg_q('h1 = :a AND h2 = :b AND h3 = :c AND h4 = :d AND zz = :d', '{":a": {"S": "x"}, ":b": {"N": "1"}, ":c": {"B": "AQ=="}, ":d": {"S": "y"}}');
SELECT mg_q('h1 = :a AND h2 = :b AND h3 = :c AND h4 = :d', '{":a": {"S": "x"}, ":b": {"S": "1"}, ":c": {"B": "AQ=="}, ":d": {"S": "y"}}');
SELECT mg_q('h1 = :a AND h2 = :b AND h3 = :c AND h4 = :d AND r1 < :e', '{":a": {"S": "x"}, ":b": {"N": "1"}, ":c": {"B": "AQ=="}, ":d": {"S": "y"}, ":e": {"S": "1"}}');
SELECT mg_q('h1 = :a AND h2 = :b AND h3 = :c AND h4 = :d', '{":a": {"S": "x"}, ":b": {"N": "1"}, ":c": {"B": "AQ=="}, ":d": {"S": "y"}, ":e": {"N": "1"}}',
  '{"FilterExpression": "r3 = :e"}');
-- The legacy KeyConditions: the expression's rules (every HASH attribute
-- with EQ, the RANGE attributes from the first), the same items.
SELECT st_api('Query', '{"TableName": "MgA", "IndexName": "Big", "KeyConditions": {"h1": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "x"}]}}}');
SELECT mg_pks(st_api('Query', '{"TableName": "MgA", "IndexName": "Big", "KeyConditions": {
  "r1": {"ComparisonOperator": "BETWEEN", "AttributeValueList": [{"N": "1"}, {"N": "2"}]},
  "h4": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "y"}]}, "h3": {"ComparisonOperator": "EQ", "AttributeValueList": [{"B": "AQ=="}]},
  "h2": {"ComparisonOperator": "EQ", "AttributeValueList": [{"N": "1"}]}, "h1": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "x"}]}}}')) AS legacy,
       mg_pks(mg_q('h1 = :a AND h2 = :b AND h3 = :c AND h4 = :d AND r1 BETWEEN :e AND :f',
         '{":a": {"S": "x"}, ":b": {"N": "1"}, ":c": {"B": "AQ=="}, ":d": {"S": "y"}, ":e": {"N": "1"}, ":f": {"N": "2"}}')) AS expression;
SELECT st_api('Query', '{"TableName": "MgA", "IndexName": "Big", "KeyConditions": {
  "h1": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "x"}]}, "h2": {"ComparisonOperator": "EQ", "AttributeValueList": [{"N": "1"}]},
  "h3": {"ComparisonOperator": "EQ", "AttributeValueList": [{"B": "AQ=="}]}, "h4": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "y"}]},
  "r2": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "a"}]}}}');
SELECT st_api('Query', '{"TableName": "MgA", "IndexName": "Big", "KeyConditions": {
  "h1": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "x"}]}, "h2": {"ComparisonOperator": "EQ", "AttributeValueList": [{"N": "1"}]},
  "h3": {"ComparisonOperator": "EQ", "AttributeValueList": [{"B": "AQ=="}]}, "h4": {"ComparisonOperator": "NE", "AttributeValueList": [{"S": "y"}]}}}');
-- hostile: a huge value is just not found; a value of every wrong type is refused
SELECT mg_pks(mg_q('h1 = :a AND h2 = :b AND h3 = :c AND h4 = :d',
  jsonb_build_object(':a', jsonb_build_object('S', repeat('x', 2048)), ':b', '{"N": "1"}'::jsonb, ':c', '{"B": "AQ=="}'::jsonb, ':d', '{"S": "y"}'::jsonb)));
SELECT mg_q('h1 = :a AND h2 = :b AND h3 = :c AND h4 = :d',
  jsonb_build_object(':a', jsonb_build_object('S', repeat('x', 2049)), ':b', '{"N": "1"}'::jsonb, ':c', '{"B": "AQ=="}'::jsonb, ':d', '{"S": "y"}'::jsonb));
SELECT mg_q('h1 = :a AND h2 = :b AND h3 = :c AND h4 = :d', '{":a": {"L": []}, ":b": {"N": "1"}, ":c": {"B": "AQ=="}, ":d": {"S": "y"}}');
-- One index range scan: the partition column and r1's bound are the
-- btree's conditions (the SQL stdesign.query_sql shows, as Query runs it).
SELECT stdesign.query_sql('MgA', 'Big', 1, 2, false) AS mg_sql \gset
PREPARE mg_plan(jsonb, numeric, numeric, int8, jsonb) AS :mg_sql;
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) EXECUTE mg_plan('{"h1": {"S": "x"}, "h2": {"N": "1"}, "h3": {"B": "AQ=="}, "h4": {"S": "y"}}', 1, 2, 10, NULL);
RESET enable_seqscan;
DEALLOCATE mg_plan;
-- st_query takes one partition-key value: not such an index
SELECT st_query('x', "table" => 'MgA', index => 'Big');
-- PartiQL: a SELECT giving every partition-key attribute with = is a Query
-- of the index: the same items in the same order as the Query API's; the
-- sort-key attributes narrow it left to right (= up to the last one used,
-- which may have a range or begins_with); what the key range does not take
-- is the filter.  One without them reads the whole index in its order.
SELECT jsonb_array_length(st_api('ExecuteStatement', '{"Statement": "SELECT PK FROM \"MgA\".\"Big\""}') -> 'Items');
CREATE FUNCTION mg_pql(stmt text, extra jsonb DEFAULT '{}') RETURNS jsonb LANGUAGE sql AS $$
  SELECT st_api('ExecuteStatement', jsonb_build_object('Statement', 'SELECT * FROM "MgA"."Big" WHERE ' || stmt,
    'Parameters', '[{"B": "AQ=="}]'::jsonb) || extra)
$$;
CREATE FUNCTION mg_items(r jsonb) RETURNS text LANGUAGE sql AS $$
  SELECT COALESCE(string_agg(i -> 'PK' ->> 'S', ' ' ORDER BY o), '') || ' (' || jsonb_array_length(r -> 'Items') || ')'
         || COALESCE(' next ' || (r ? 'NextToken')::text, '')
    FROM jsonb_array_elements(r -> 'Items') WITH ORDINALITY AS x(i, o)
$$;
-- the Query's items, those with r2 = r2 only when given (a filter on a key
-- attribute is refused by Query: compared here in SQL)
CREATE FUNCTION mg_same(pql jsonb, q jsonb, r2 text DEFAULT NULL) RETURNS text LANGUAGE sql AS $$
  SELECT mg_items(pql) || CASE WHEN pql -> 'Items' = qi THEN ' = Query' ELSE ' <> Query ' || qi::text END
    FROM (SELECT COALESCE(jsonb_agg(i ORDER BY o), '[]') AS qi
            FROM jsonb_array_elements(q -> 'Items') WITH ORDINALITY AS x(i, o)
           WHERE r2 IS NULL OR i -> 'r2' ->> 'S' = r2) AS f
$$;
SELECT mg_same(mg_pql('h1 = ''x'' AND h2 = 1.0 AND h3 = ? AND h4 = ''y'''),
  mg_q('h1 = :a AND h2 = :b AND h3 = :c AND h4 = :d', '{":a": {"S": "x"}, ":b": {"N": "1"}, ":c": {"B": "AQ=="}, ":d": {"S": "y"}}'));
-- in any order in the WHERE, the value on either side
SELECT mg_same(mg_pql('r1 = 1 AND ''y'' = h4 AND r2 BETWEEN ''b'' AND ''c'' AND h3 = ? AND h2 = 1 AND h1 = ''x'''),
  mg_q('h1 = :a AND h2 = :b AND h3 = :c AND h4 = :d AND r1 = :r1 AND r2 BETWEEN :lo AND :hi',
    '{":a": {"S": "x"}, ":b": {"N": "1"}, ":c": {"B": "AQ=="}, ":d": {"S": "y"}, ":r1": {"N": "1"}, ":lo": {"S": "b"}, ":hi": {"S": "c"}}'));
SELECT mg_same(mg_pql('h1 = ''x'' AND h2 = 1 AND h3 = ? AND h4 = ''y'' AND r1 = 1 AND begins_with(r2, ''a'')'),
  mg_q('h1 = :a AND h2 = :b AND h3 = :c AND h4 = :d AND r1 = :r1 AND begins_with(r2, :p)',
    '{":a": {"S": "x"}, ":b": {"N": "1"}, ":c": {"B": "AQ=="}, ":d": {"S": "y"}, ":r1": {"N": "1"}, ":p": {"S": "a"}}'));
-- ORDER BY a key attribute DESC: ScanIndexForward false
SELECT mg_same(mg_pql('h1 = ''x'' AND h2 = 1 AND h3 = ? AND h4 = ''y'' AND 2 <= r1 ORDER BY r1 DESC'),
  mg_q('h1 = :a AND h2 = :b AND h3 = :c AND h4 = :d AND r1 >= :r1',
    '{":a": {"S": "x"}, ":b": {"N": "1"}, ":c": {"B": "AQ=="}, ":d": {"S": "y"}, ":r1": {"N": "2"}}', '{"ScanIndexForward": false}'));
-- a sort-key attribute after a range, or after one not given: the filter
SELECT mg_same(mg_pql('h1 = ''x'' AND h2 = 1 AND h3 = ? AND h4 = ''y'' AND r1 > 0 AND r2 = ''b'''),
  mg_q('h1 = :a AND h2 = :b AND h3 = :c AND h4 = :d AND r1 > :r1',
    '{":a": {"S": "x"}, ":b": {"N": "1"}, ":c": {"B": "AQ=="}, ":d": {"S": "y"}, ":r1": {"N": "0"}}'), 'b');
SELECT mg_same(mg_pql('h1 = ''x'' AND h2 = 1 AND h3 = ? AND h4 = ''y'' AND r2 = ''b'''),
  mg_q('h1 = :a AND h2 = :b AND h3 = :c AND h4 = :d',
    '{":a": {"S": "x"}, ":b": {"N": "1"}, ":c": {"B": "AQ=="}, ":d": {"S": "y"}}'), 'b');
-- pages: Limit and NextToken go through the Query's range
SELECT mg_items(mg_pql('h1 = ''x'' AND h2 = 1 AND h3 = ? AND h4 = ''y'' AND r1 = 1', '{"Limit": 2}'))
       AS first_page,
       mg_items(mg_pql('h1 = ''x'' AND h2 = 1 AND h3 = ? AND h4 = ''y'' AND r1 = 1',
         jsonb_build_object('NextToken', mg_pql('h1 = ''x'' AND h2 = 1 AND h3 = ? AND h4 = ''y'' AND r1 = 1', '{"Limit": 2}') -> 'NextToken')))
       AS rest;
-- a value of another type, a BETWEEN with reversed bounds, begins_with on a
-- number: no item matches
SELECT mg_items(mg_pql('h1 = ''x'' AND h2 = ''1'' AND h3 = ? AND h4 = ''y''')) = ' (0) next false' AS none,
       mg_items(mg_pql('h1 = ''x'' AND h2 = 1 AND h3 = ? AND h4 = ''y'' AND r1 BETWEEN 2 AND 1')) = ' (0) next false' AS none_reversed,
       mg_items(mg_pql('h1 = ''x'' AND h2 = 1 AND h3 = ? AND h4 = ''y'' AND begins_with(r1, 1)')) = ' (0) next false' AS none_begins;
-- without every partition-key attribute (h4 missing, h4 with IN or <): a Scan
-- of the index, the WHERE as its filter
SELECT mg_items(mg_pql('h1 = ''x'' AND h2 = 1 AND h3 = ? AND r4 > 7'));
SELECT mg_items(mg_pql('h1 = ''x'' AND h2 = 1 AND h3 = ? AND h4 IN [''y''] AND r4 > 7'));
SELECT mg_items(mg_pql('h1 = ''x'' AND h2 = 1 AND h3 = ? AND h4 >= ''y'' AND r4 > 7'));
-- errors as the Query API's: a key value it refuses; an ORDER BY that is
-- not an index key attribute; ORDER BY on a Scan
SELECT mg_pql('h1 = ''x'' AND h2 = 1 AND h3 = ? AND h4 = ''''');
SELECT mg_pql('h1 = ''x'' AND h2 = 1 AND h3 = ? AND h4 = ''y'' ORDER BY PK');
SELECT mg_pql('h1 = ''x'' AND h2 = 1 AND h3 = ? ORDER BY r1');
SELECT mg_pql('h1 = ''x'' AND h2 = 1 AND h3 = ? AND h4 = ''y''', '{"ConsistentRead": true}');
-- a role without SELECT on the table's data reads nothing by key either
CREATE ROLE regress_st_mgsi_reader;
GRANT USAGE ON SCHEMA stdesign TO regress_st_mgsi_reader;
SET ROLE regress_st_mgsi_reader;
SELECT mg_pql('h1 = ''x'' AND h2 = 1 AND h3 = ? AND h4 = ''y''');
RESET ROLE;
REVOKE USAGE ON SCHEMA stdesign FROM regress_st_mgsi_reader;
DROP ROLE regress_st_mgsi_reader;
DROP FUNCTION mg_same(jsonb, jsonb, text);
DROP FUNCTION mg_items(jsonb);
DROP FUNCTION mg_pql(text, jsonb);

-- Scan of the index: in index order, every key attribute in LastEvaluatedKey
SELECT mg_pks(st_api('Scan', '{"TableName": "MgA", "IndexName": "Big", "Limit": 3}'));
SELECT mg_pks(st_api('Scan', jsonb_build_object('TableName', 'MgA', 'IndexName', 'Big', 'Limit', 30,
  'ExclusiveStartKey', st_api('Scan', '{"TableName": "MgA", "IndexName": "Big", "Limit": 3}') -> 'LastEvaluatedKey')));
-- A parallel Scan: the segments split the index's items by their table
-- partition key (as a Scan of the table), each in the index's order; a
-- segment's LastEvaluatedKey goes on in that segment only.
WITH s AS (SELECT seg, i -> 'PK' ->> 'S' AS pk
             FROM generate_series(0, 2) AS seg,
                  jsonb_array_elements(st_api('Scan', jsonb_build_object('TableName', 'MgA', 'IndexName', 'Big',
                    'Segment', seg, 'TotalSegments', 3)) -> 'Items') AS i)
SELECT count(*) AS items, count(DISTINCT pk) AS distinct_items, count(DISTINCT seg) AS segments_with_items,
       (SELECT jsonb_array_length(st_api('Scan', '{"TableName": "MgA", "IndexName": "Big"}') -> 'Items')) AS whole
  FROM s;
SELECT st_api('Scan', '{"TableName": "MgA", "IndexName": "Big", "Segment": 1, "TotalSegments": 3, "Limit": 1}') -> 'LastEvaluatedKey' AS seg_last \gset
SELECT (SELECT count(*) FROM jsonb_array_elements(st_api('Scan', jsonb_build_object('TableName', 'MgA', 'IndexName', 'Big', 'Segment', 1,
          'TotalSegments', 3, 'ExclusiveStartKey', :'seg_last'::jsonb)) -> 'Items')) + 1
     = (SELECT count(*) FROM jsonb_array_elements(st_api('Scan', '{"TableName": "MgA", "IndexName": "Big", "Segment": 1, "TotalSegments": 3}') -> 'Items'))
       AS segment_paged;
SELECT st_api('Scan', jsonb_build_object('TableName', 'MgA', 'IndexName', 'Big', 'Segment', 0, 'TotalSegments', 3,
  'ExclusiveStartKey', :'seg_last'::jsonb)) ? 'Items' AS other_segment;

-- UpdateTable: a multi-attribute GSI added to a table with items is filled
-- (backfill), sparse; its attributes' types must agree with the other keys'.
SELECT st_create_table('MgB', 'PK', 'SK') IS NOT NULL;
SELECT st_put("table" => 'MgB', item => '{"PK": "c1", "SK": "o1", "status": "OPEN", "day": 20251101, "n": 1}');
SELECT st_put("table" => 'MgB', item => '{"PK": "c1", "SK": "o2", "status": "OPEN", "day": 20251102}');
SELECT st_put("table" => 'MgB', item => '{"PK": "c2", "SK": "o3", "status": "SHIPPED", "day": "not a number"}');
SELECT st_put("table" => 'MgB', item => '{"PK": "c2", "SK": "o4", "status": "SHIPPED"}');
SELECT st_api('UpdateTable', '{"TableName": "MgB", "AttributeDefinitions": [{"AttributeName": "status", "AttributeType": "S"},
    {"AttributeName": "SK", "AttributeType": "N"}],
  "GlobalSecondaryIndexUpdates": [{"Create": {"IndexName": "Bad", "KeySchema": [{"AttributeName": "status", "KeyType": "HASH"},
    {"AttributeName": "SK", "KeyType": "HASH"}], "Projection": {"ProjectionType": "ALL"}}}]}');
SELECT st_api('UpdateTable', '{"TableName": "MgB", "AttributeDefinitions": [{"AttributeName": "status", "AttributeType": "S"},
    {"AttributeName": "day", "AttributeType": "N"}],
  "GlobalSecondaryIndexUpdates": [{"Create": {"IndexName": "Bad", "KeySchema": [{"AttributeName": "status", "KeyType": "HASH"},
    {"AttributeName": "day", "KeyType": "HASH"}, {"AttributeName": "status", "KeyType": "RANGE"}], "Projection": {"ProjectionType": "ALL"}}}]}');
SELECT st_api('UpdateTable', '{"TableName": "MgB", "AttributeDefinitions": [{"AttributeName": "status", "AttributeType": "S"},
    {"AttributeName": "day", "AttributeType": "N"}, {"AttributeName": "SK", "AttributeType": "S"}],
  "GlobalSecondaryIndexUpdates": [{"Create": {"IndexName": "ByStatusDay", "KeySchema": [{"AttributeName": "status", "KeyType": "HASH"},
    {"AttributeName": "day", "KeyType": "RANGE"}, {"AttributeName": "SK", "KeyType": "RANGE"}], "Projection": {"ProjectionType": "ALL"}}}]}')
  -> 'TableDescription' -> 'GlobalSecondaryIndexes' -> 0;
SELECT jsonb_pretty(st_api('DescribeTable', '{"TableName": "MgB"}') -> 'Table' -> 'AttributeDefinitions');
-- another index may not give "day" another type
SELECT st_api('UpdateTable', '{"TableName": "MgB", "AttributeDefinitions": [{"AttributeName": "day", "AttributeType": "S"}],
  "GlobalSecondaryIndexUpdates": [{"Create": {"IndexName": "ByDay", "KeySchema": [{"AttributeName": "day", "KeyType": "HASH"}],
    "Projection": {"ProjectionType": "ALL"}}}]}');
SELECT st_put("table" => 'MgB', item => '{"PK": "c3", "SK": "o5", "status": "OPEN", "day": "20251103"}');
-- the layout check passes with the new btree (a cached definition reloads)
SELECT st_get('c1', 'o1', 'MgB');
SELECT st_api('UpdateTable', '{"TableName": "MgB", "GlobalSecondaryIndexUpdates": [{"Delete": {"IndexName": "ByStatusDay"}}]}')
  -> 'TableDescription' -> 'GlobalSecondaryIndexes';
SELECT count(*) FROM stdesign.indexes WHERE table_name = 'MgB';

SELECT st_drop_table('MgA'), st_drop_table('MgB');
DROP FUNCTION mg_try(jsonb, jsonb);
DROP FUNCTION mg_ks(text);
DROP FUNCTION mg_defs(text);
DROP FUNCTION mg_put(jsonb);
DROP FUNCTION mg_q(text, jsonb, jsonb);
DROP FUNCTION mg_pks(jsonb);
