-- A hostile role: a role that may create objects in schema public plants
-- functions and operators there that stdesign's own SQL would resolve to if
-- it named them without their schema (a better match for an unknown-typed
-- literal, an exact match for a polymorphic built-in, or, with pg_catalog
-- put last in search_path, the same signature as the built-in).  Each one
-- records its call and tries to make its owner superuser.  A superuser then
-- runs every operation of stdesign, with the default search_path and with
-- pg_catalog last: nothing planted may ever run.

CREATE ROLE regress_st_planter;
GRANT CREATE ON SCHEMA public TO regress_st_planter;
CREATE TABLE public.planted_calls (what text);
GRANT INSERT ON public.planted_calls TO PUBLIC;

SET ROLE regress_st_planter;
-- Records a call; when the caller is a superuser, makes the planter one.
CREATE FUNCTION public.planted(what text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO public.planted_calls VALUES (what);
  BEGIN
    EXECUTE 'ALTER ROLE regress_st_planter SUPERUSER';
  EXCEPTION WHEN OTHERS THEN NULL;
  END;
END $$;

-- Functions: the three of the report, and more of the kind.
CREATE FUNCTION public.convert_to(t text, enc text) RETURNS bytea LANGUAGE plpgsql AS $$
BEGIN PERFORM public.planted('convert_to'); RETURN pg_catalog.convert_to(t, enc::pg_catalog.name); END $$;
CREATE FUNCTION public.jsonb_set(j jsonb, p text, v jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
BEGIN PERFORM public.planted('jsonb_set'); RETURN pg_catalog.jsonb_set(j, p::pg_catalog.text[], v); END $$;
CREATE FUNCTION public.unnest(a jsonb[]) RETURNS SETOF jsonb LANGUAGE plpgsql AS $$
BEGIN PERFORM public.planted('unnest'); RETURN QUERY SELECT pg_catalog.unnest(a); END $$;
CREATE FUNCTION public.sha256(b bytea) RETURNS bytea LANGUAGE plpgsql AS $$
BEGIN PERFORM public.planted('sha256'); RETURN pg_catalog.sha256(b); END $$;
CREATE FUNCTION public.now() RETURNS timestamptz LANGUAGE plpgsql AS $$
BEGIN PERFORM public.planted('now'); RETURN pg_catalog.now(); END $$;
CREATE FUNCTION public.decode(t text, f text) RETURNS bytea LANGUAGE plpgsql AS $$
BEGIN PERFORM public.planted('decode'); RETURN pg_catalog.decode(t, f); END $$;
CREATE FUNCTION public.hashtext(t text) RETURNS integer LANGUAGE plpgsql AS $$
BEGIN PERFORM public.planted('hashtext'); RETURN pg_catalog.hashtext(t); END $$;
CREATE FUNCTION public.round(n numeric, d integer) RETURNS numeric LANGUAGE plpgsql AS $$
BEGIN PERFORM public.planted('round'); RETURN pg_catalog.round(n, d); END $$;
CREATE FUNCTION public.left(t text, n integer) RETURNS text LANGUAGE plpgsql AS $$
BEGIN PERFORM public.planted('left'); RETURN pg_catalog.left(t, n); END $$;
CREATE FUNCTION public.lower(t text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN PERFORM public.planted('lower'); RETURN pg_catalog.lower(t); END $$;
CREATE FUNCTION public.length(t text) RETURNS integer LANGUAGE plpgsql AS $$
BEGIN PERFORM public.planted('length'); RETURN pg_catalog.length(t); END $$;
CREATE FUNCTION public.to_jsonb(t text) RETURNS jsonb LANGUAGE plpgsql AS $$
BEGIN PERFORM public.planted('to_jsonb'); RETURN pg_catalog.to_jsonb(t); END $$;
CREATE FUNCTION public.jsonb_build_object(k text, v jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
BEGIN PERFORM public.planted('jsonb_build_object'); RETURN pg_catalog.jsonb_build_object(k, v); END $$;
CREATE FUNCTION public.sum_step(s numeric, v bigint) RETURNS numeric LANGUAGE plpgsql AS $$
BEGIN PERFORM public.planted('sum'); RETURN s OPERATOR(pg_catalog.+) v; END $$;
CREATE AGGREGATE public.sum(bigint) (SFUNC = public.sum_step, STYPE = numeric, INITCOND = '0');
CREATE FUNCTION public.count_step(s bigint) RETURNS bigint LANGUAGE plpgsql AS $$
BEGIN PERFORM public.planted('count'); RETURN s OPERATOR(pg_catalog.+) 1; END $$;
CREATE AGGREGATE public.count(*) (SFUNC = public.count_step, STYPE = bigint, INITCOND = '0');

-- Operators on the types stdesign's statements compare and combine.
CREATE FUNCTION public.op_text_eq(a text, b text) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN PERFORM public.planted('text = text'); RETURN pg_catalog.texteq(a, b); END $$;
CREATE OPERATOR public.= (LEFTARG = text, RIGHTARG = text, FUNCTION = public.op_text_eq);
CREATE FUNCTION public.op_text_gt(a text, b text) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN PERFORM public.planted('text > text'); RETURN pg_catalog.text_gt(a, b); END $$;
CREATE OPERATOR public.> (LEFTARG = text, RIGHTARG = text, FUNCTION = public.op_text_gt);
CREATE FUNCTION public.op_bytea_eq(a bytea, b bytea) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN PERFORM public.planted('bytea = bytea'); RETURN pg_catalog.byteaeq(a, b); END $$;
CREATE OPERATOR public.= (LEFTARG = bytea, RIGHTARG = bytea, FUNCTION = public.op_bytea_eq);
CREATE FUNCTION public.op_numeric_eq(a numeric, b numeric) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN PERFORM public.planted('numeric = numeric'); RETURN pg_catalog.numeric_eq(a, b); END $$;
CREATE OPERATOR public.= (LEFTARG = numeric, RIGHTARG = numeric, FUNCTION = public.op_numeric_eq);
CREATE FUNCTION public.op_tid_eq(a tid, b tid) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN PERFORM public.planted('tid = tid'); RETURN pg_catalog.tideq(a, b); END $$;
CREATE OPERATOR public.= (LEFTARG = tid, RIGHTARG = tid, FUNCTION = public.op_tid_eq);
CREATE FUNCTION public.op_int_eq(a integer, b integer) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN PERFORM public.planted('int = int'); RETURN pg_catalog.int4eq(a, b); END $$;
CREATE OPERATOR public.= (LEFTARG = integer, RIGHTARG = integer, FUNCTION = public.op_int_eq);
CREATE FUNCTION public.op_jsonb_get(j jsonb, k text) RETURNS jsonb LANGUAGE plpgsql AS $$
BEGIN PERFORM public.planted('jsonb -> text'); RETURN pg_catalog.jsonb_object_field(j, k); END $$;
CREATE OPERATOR public.-> (LEFTARG = jsonb, RIGHTARG = text, FUNCTION = public.op_jsonb_get);
CREATE FUNCTION public.op_jsonb_get_text(j jsonb, k text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN PERFORM public.planted('jsonb ->> text'); RETURN pg_catalog.jsonb_object_field_text(j, k); END $$;
CREATE OPERATOR public.->> (LEFTARG = jsonb, RIGHTARG = text, FUNCTION = public.op_jsonb_get_text);
CREATE FUNCTION public.op_jsonb_exists(j jsonb, k text) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN PERFORM public.planted('jsonb ? text'); RETURN pg_catalog.jsonb_exists(j, k); END $$;
CREATE OPERATOR public.? (LEFTARG = jsonb, RIGHTARG = text, FUNCTION = public.op_jsonb_exists);
CREATE FUNCTION public.op_jsonb_concat(a jsonb, b jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
BEGIN PERFORM public.planted('jsonb || jsonb'); RETURN pg_catalog.jsonb_concat(a, b); END $$;
CREATE OPERATOR public.|| (LEFTARG = jsonb, RIGHTARG = jsonb, FUNCTION = public.op_jsonb_concat);
CREATE FUNCTION public.op_jsonb_minus(a jsonb, k text) RETURNS jsonb LANGUAGE plpgsql AS $$
BEGIN PERFORM public.planted('jsonb - text'); RETURN pg_catalog.jsonb_delete(a, k); END $$;
CREATE OPERATOR public.- (LEFTARG = jsonb, RIGHTARG = text, FUNCTION = public.op_jsonb_minus);
CREATE FUNCTION public.op_jsonb_contains(a jsonb, b jsonb) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN PERFORM public.planted('jsonb @> jsonb'); RETURN pg_catalog.jsonb_contains(a, b); END $$;
CREATE OPERATOR public.@> (LEFTARG = jsonb, RIGHTARG = jsonb, FUNCTION = public.op_jsonb_contains);
CREATE FUNCTION public.op_ts_lt(a timestamptz, b timestamptz) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN PERFORM public.planted('timestamptz < timestamptz'); RETURN pg_catalog.timestamptz_lt(a, b); END $$;
CREATE OPERATOR public.< (LEFTARG = timestamptz, RIGHTARG = timestamptz, FUNCTION = public.op_ts_lt);
CREATE FUNCTION public.op_ts_minus(a timestamptz, b interval) RETURNS timestamptz LANGUAGE plpgsql AS $$
BEGIN PERFORM public.planted('timestamptz - interval'); RETURN pg_catalog.timestamptz_mi_interval(a, b); END $$;
CREATE OPERATOR public.- (LEFTARG = timestamptz, RIGHTARG = interval, FUNCTION = public.op_ts_minus);
RESET ROLE;

-- A no-op trigger: a table with a trigger of its own is written through SQL
-- statements (INSERT ... ON CONFLICT, UPDATE, DELETE) instead of directly.
CREATE FUNCTION hostile_noop() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$;

-- Every operation, on a table written directly, one written through SQL,
-- and one with number and binary keys.  Only literals and stdesign's
-- functions: the planted objects are there for stdesign's SQL alone.
CREATE FUNCTION hostile_battery() RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  n bigint;
  r jsonb;
  tbl text;
BEGIN
  PERFORM st_create_table('HostileA');
  PERFORM st_create_table('HostileN', pk => 'id', sk => 'bin', pk_type => 'N', sk_type => 'B');
  PERFORM st_api('CreateTable', '{
    "TableName": "HostileT", "ProvisionedThroughput": {"ReadCapacityUnits": 1, "WriteCapacityUnits": 1},
    "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "SK", "AttributeType": "S"},
      {"AttributeName": "g", "AttributeType": "S"}, {"AttributeName": "n", "AttributeType": "N"}],
    "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
    "GlobalSecondaryIndexes": [{"IndexName": "ByG", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"},
      {"AttributeName": "SK", "KeyType": "RANGE"}], "Projection": {"ProjectionType": "ALL"},
      "ProvisionedThroughput": {"ReadCapacityUnits": 1, "WriteCapacityUnits": 1}}],
    "LocalSecondaryIndexes": [{"IndexName": "ByN", "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"},
      {"AttributeName": "n", "KeyType": "RANGE"}], "Projection": {"ProjectionType": "KEYS_ONLY"}}]}');
  EXECUTE 'CREATE TRIGGER noop AFTER INSERT OR UPDATE OR DELETE ON stdesign_data."HostileT"'
          ' FOR EACH ROW EXECUTE FUNCTION hostile_noop()';
  PERFORM st_create_gsi('HostileN', 'ByBin', 'b2', 'n2', pk_type => 'B', sk_type => 'N');
  PERFORM st_create_gsi('HostileA', 'ByNum', 'num', pk_type => 'N');

  FOREACH tbl IN ARRAY ARRAY['HostileA', 'HostileT'] LOOP
    PERFORM st_put('{"PK": "p", "SK": "a", "g": "G", "n": 1, "num": 1}', tbl);
    PERFORM st_put('{"PK": "p", "SK": "b", "g": "G", "n": 2, "num": 2}', tbl, return_values => 'ALL_OLD');
    PERFORM st_put('{"PK": "p", "SK": "c", "g": "G", "n": 3}', tbl, condition => 'attribute_not_exists(PK)');
    PERFORM st_get('p', 'a', tbl, projection => '#n', names => '{"#n": "n"}');
    PERFORM st_update('p', 'a', 'SET n = n + :one', tbl, "values" => '{":one": 1}');
    PERFORM st_update('p', 'z', 'SET n = :one', tbl, "values" => '{":one": 1}');
    PERFORM st_delete('p', 'z', tbl, return_values => 'ALL_OLD');
    PERFORM st_delete('p', 'missing', tbl);
    PERFORM st_query('p', 'a', tbl);
    PERFORM st_query('p', "table" => tbl, sk_from => 'a', sk_to => 'b', forward => false, "limit" => 2);
    PERFORM st_query('G', "table" => tbl, index => CASE WHEN tbl OPERATOR(pg_catalog.=) 'HostileT' THEN 'ByG' END);
    PERFORM st_query_index(tbl, CASE WHEN tbl OPERATOR(pg_catalog.=) 'HostileT' THEN 'ByG' END, '["G"]',
                           sk_from => '"a"', forward => false, "limit" => 2);
    PERFORM st_scan(tbl, filter => 'n > :z', "values" => '{":z": 0}');
    PERFORM st_put_all(item, tbl) FROM pg_catalog.jsonb_array_elements(
      '[{"PK": "bulk", "SK": "1"}, {"PK": "bulk", "SK": "2"}, {"PK": "bulk", "SK": "2", "v": 1}]') AS item;
    PERFORM st_batch_write(pg_catalog.jsonb_build_object(tbl, '[{"PutRequest": {"Item": {"PK": {"S": "bw"}, "SK": {"S": "1"}}}},
      {"DeleteRequest": {"Key": {"PK": {"S": "bulk"}, "SK": {"S": "1"}}}}]'::jsonb));
    PERFORM st_batch_get(pg_catalog.jsonb_build_object(tbl, '{"Keys": [{"PK": {"S": "p"}, "SK": {"S": "a"}}]}'::jsonb));
    PERFORM st_transact(pg_catalog.jsonb_build_array(
      pg_catalog.jsonb_build_object('Put', pg_catalog.jsonb_build_object('TableName', tbl, 'Item', '{"PK": {"S": "t"}, "SK": {"S": "1"}}'::jsonb)),
      pg_catalog.jsonb_build_object('Update', pg_catalog.jsonb_build_object('TableName', tbl, 'Key', '{"PK": {"S": "p"}, "SK": {"S": "b"}}'::jsonb,
        'UpdateExpression', 'SET w = :w', 'ExpressionAttributeValues', '{":w": {"S": "x"}}'::jsonb)),
      pg_catalog.jsonb_build_object('Delete', pg_catalog.jsonb_build_object('TableName', tbl, 'Key', '{"PK": {"S": "bw"}, "SK": {"S": "1"}}'::jsonb)),
      pg_catalog.jsonb_build_object('ConditionCheck', pg_catalog.jsonb_build_object('TableName', tbl, 'Key', '{"PK": {"S": "p"}, "SK": {"S": "a"}}'::jsonb,
        'ConditionExpression', 'attribute_exists(PK)'))),
      client_request_token => 'hostile-' OPERATOR(pg_catalog.||) tbl);
    -- the same request again: answered from its token
    PERFORM st_transact(pg_catalog.jsonb_build_array(
      pg_catalog.jsonb_build_object('Put', pg_catalog.jsonb_build_object('TableName', tbl, 'Item', '{"PK": {"S": "t"}, "SK": {"S": "1"}}'::jsonb)),
      pg_catalog.jsonb_build_object('Update', pg_catalog.jsonb_build_object('TableName', tbl, 'Key', '{"PK": {"S": "p"}, "SK": {"S": "b"}}'::jsonb,
        'UpdateExpression', 'SET w = :w', 'ExpressionAttributeValues', '{":w": {"S": "x"}}'::jsonb)),
      pg_catalog.jsonb_build_object('Delete', pg_catalog.jsonb_build_object('TableName', tbl, 'Key', '{"PK": {"S": "bw"}, "SK": {"S": "1"}}'::jsonb)),
      pg_catalog.jsonb_build_object('ConditionCheck', pg_catalog.jsonb_build_object('TableName', tbl, 'Key', '{"PK": {"S": "p"}, "SK": {"S": "a"}}'::jsonb,
        'ConditionExpression', 'attribute_exists(PK)'))),
      client_request_token => 'hostile-' OPERATOR(pg_catalog.||) tbl);
    PERFORM st_transact_get(pg_catalog.jsonb_build_array(pg_catalog.jsonb_build_object('Get',
      pg_catalog.jsonb_build_object('TableName', tbl, 'Key', '{"PK": {"S": "p"}, "SK": {"S": "a"}}'::jsonb))));
    -- st_api: items, pages resumed from a position, segments, batches, transactions
    PERFORM st_api('PutItem', pg_catalog.jsonb_build_object('TableName', tbl, 'Item', '{"PK": {"S": "api"}, "SK": {"S": "1"}, "g": {"S": "G"}}'::jsonb));
    PERFORM st_api('GetItem', pg_catalog.jsonb_build_object('TableName', tbl, 'Key', '{"PK": {"S": "api"}, "SK": {"S": "1"}}'::jsonb,
      'ConsistentRead', true, 'ReturnConsumedCapacity', 'INDEXES'));
    PERFORM st_api('UpdateItem', pg_catalog.jsonb_build_object('TableName', tbl, 'Key', '{"PK": {"S": "api"}, "SK": {"S": "1"}}'::jsonb,
      'AttributeUpdates', '{"c": {"Action": "ADD", "Value": {"N": "1"}}}'::jsonb, 'ReturnValues', 'ALL_NEW'));
    PERFORM st_api('DeleteItem', pg_catalog.jsonb_build_object('TableName', tbl, 'Key', '{"PK": {"S": "api"}, "SK": {"S": "1"}}'::jsonb,
      'Expected', '{"c": {"Value": {"N": "1"}}}'::jsonb, 'ReturnValues', 'ALL_OLD'));
    PERFORM st_api('Query', pg_catalog.jsonb_build_object('TableName', tbl, 'KeyConditionExpression', 'PK = :p AND SK > :s',
      'ExpressionAttributeValues', '{":p": {"S": "p"}, ":s": {"S": "0"}}'::jsonb,
      'ExclusiveStartKey', '{"PK": {"S": "p"}, "SK": {"S": "a"}}'::jsonb, 'ScanIndexForward', false, 'Limit', 1));
    PERFORM st_api('Query', pg_catalog.jsonb_build_object('TableName', tbl, 'KeyConditions',
      '{"PK": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "p"}]}}'::jsonb,
      'ExclusiveStartKey', '{"PK": {"S": "p"}, "SK": {"S": "a"}}'::jsonb));
    PERFORM st_api('Scan', pg_catalog.jsonb_build_object('TableName', tbl, 'Segment', 1, 'TotalSegments', 3, 'Limit', 2));
    PERFORM st_api('Scan', pg_catalog.jsonb_build_object('TableName', tbl, 'ExclusiveStartKey', '{"PK": {"S": "p"}, "SK": {"S": "a"}}'::jsonb,
      'Segment', 0, 'TotalSegments', 2, 'Select', 'COUNT'));
    PERFORM st_api('BatchWriteItem', pg_catalog.jsonb_build_object('RequestItems', pg_catalog.jsonb_build_object(tbl,
      '[{"PutRequest": {"Item": {"PK": {"S": "bw2"}, "SK": {"S": "1"}}}}]'::jsonb)));
    PERFORM st_api('BatchGetItem', pg_catalog.jsonb_build_object('RequestItems', pg_catalog.jsonb_build_object(tbl,
      '{"Keys": [{"PK": {"S": "bw2"}, "SK": {"S": "1"}}]}'::jsonb)));
    PERFORM st_api('TransactWriteItems', pg_catalog.jsonb_build_object('ClientRequestToken', 'hostile-api-' OPERATOR(pg_catalog.||) tbl,
      'TransactItems', pg_catalog.jsonb_build_array(pg_catalog.jsonb_build_object('Put',
        pg_catalog.jsonb_build_object('TableName', tbl, 'Item', '{"PK": {"S": "t"}, "SK": {"S": "2"}}'::jsonb)))));
    PERFORM st_api('TransactGetItems', pg_catalog.jsonb_build_object('TransactItems', pg_catalog.jsonb_build_array(
      pg_catalog.jsonb_build_object('Get', pg_catalog.jsonb_build_object('TableName', tbl, 'Key', '{"PK": {"S": "t"}, "SK": {"S": "2"}}'::jsonb)))));
    PERFORM st_api('DescribeTable', pg_catalog.jsonb_build_object('TableName', tbl));
    PERFORM stdesign.query_sql(tbl, NULL, 1, 2, true);
  END LOOP;

  -- number and binary keys, and their index
  PERFORM st_put('{"id": {"N": "7"}, "bin": {"B": "AAEC"}, "b2": {"B": "AAEC"}, "n2": {"N": "1"}}', 'HostileN', typed => true);
  PERFORM st_get('7', 'AAEC', 'HostileN');
  PERFORM st_query('7', "table" => 'HostileN', sk_from => 'AAAA');
  PERFORM st_query('AAEC', "table" => 'HostileN', index => 'ByBin', sk_from => '1');
  PERFORM st_api('Query', '{"TableName": "HostileN", "IndexName": "ByBin", "KeyConditionExpression": "b2 = :b",
    "ExpressionAttributeValues": {":b": {"B": "AAEC"}},
    "ExclusiveStartKey": {"id": {"N": "1"}, "bin": {"B": "AAEC"}, "b2": {"B": "AAEC"}, "n2": {"N": "0"}}}');
  PERFORM st_api('Scan', '{"TableName": "HostileN", "IndexName": "ByBin", "Segment": 0, "TotalSegments": 2}');
  PERFORM st_delete('7', 'AAEC', 'HostileN', return_values => 'ALL_OLD');
  PERFORM st_drop_gsi('HostileN', 'ByBin');

  -- UpdateTable: a GSI created (and backfilled), its throughput, billing, deleted
  PERFORM st_api('UpdateTable', '{"TableName": "HostileT",
    "AttributeDefinitions": [{"AttributeName": "h", "AttributeType": "S"}],
    "GlobalSecondaryIndexUpdates": [{"Create": {"IndexName": "ByH", "KeySchema": [{"AttributeName": "h", "KeyType": "HASH"}],
      "Projection": {"ProjectionType": "KEYS_ONLY"},
      "ProvisionedThroughput": {"ReadCapacityUnits": 1, "WriteCapacityUnits": 1}}}]}');
  PERFORM st_api('UpdateTable', '{"TableName": "HostileT",
    "GlobalSecondaryIndexUpdates": [{"Update": {"IndexName": "ByH",
      "ProvisionedThroughput": {"ReadCapacityUnits": 2, "WriteCapacityUnits": 2}}}]}');
  PERFORM st_api('UpdateTable', '{"TableName": "HostileT", "ProvisionedThroughput": {"ReadCapacityUnits": 3, "WriteCapacityUnits": 3}}');
  PERFORM st_api('UpdateTable', '{"TableName": "HostileT", "BillingMode": "PAY_PER_REQUEST"}');
  PERFORM st_api('UpdateTable', '{"TableName": "HostileT", "GlobalSecondaryIndexUpdates": [{"Delete": {"IndexName": "ByH"}}]}');
  PERFORM st_api('ListTables', '{"ExclusiveStartTableName": "Aaa", "Limit": 2}');
  PERFORM st_list_tables();
  PERFORM st_describe_table('HostileN');
  PERFORM st_to_plain(st_to_typed('{"a": [1, "x", {"b": null}]}'));
  PERFORM st_item_size('{"a": 1}');
  PERFORM stdesign.cache_stats();
  -- plain SQL through the key trigger
  INSERT INTO stdesign_data."HostileA" (item) VALUES ('{"PK": {"S": "sql"}, "SK": {"S": "1"}}');
  SELECT pg_catalog.count(*) INTO n FROM st_scan('HostileA');
  r := st_api('DeleteTable', '{"TableName": "HostileA"}');
  PERFORM st_drop_table('HostileT');
  PERFORM st_drop_table('HostileN');
  RETURN 'HostileA held ' OPERATOR(pg_catalog.||) n::pg_catalog.text OPERATOR(pg_catalog.||) ' items';
END $$;

-- A superuser with the default search_path.
SHOW search_path;
SELECT hostile_battery();
-- And with pg_catalog searched last: a planted operator with the built-in's
-- own signature now comes first for any statement that does not name its
-- schema.  (The transactions' ClientRequestTokens are those of the first run:
-- they apply nothing this time, which leaves HostileA one item fewer.)
SET search_path = "$user", public, pg_catalog;
SELECT hostile_battery();
RESET search_path;

-- Nothing planted ran, and the planter is no superuser.
SELECT what, count(*) FROM public.planted_calls GROUP BY what ORDER BY what;
SELECT rolsuper FROM pg_roles WHERE rolname = 'regress_st_planter';

-- The planted objects are callable (so the test would see them if stdesign used them).
SELECT public.convert_to('x', 'UTF8') = '\x78'::bytea AS planted_convert_to_works;
SELECT what FROM public.planted_calls;
DELETE FROM public.planted_calls;
DELETE FROM stdesign.transact_tokens WHERE token LIKE 'hostile-%';

DROP FUNCTION hostile_battery();
DROP FUNCTION hostile_noop();
DROP OWNED BY regress_st_planter;
DROP TABLE public.planted_calls;
REVOKE CREATE ON SCHEMA public FROM regress_st_planter;
DROP ROLE regress_st_planter;
