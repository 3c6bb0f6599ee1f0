-- PartiQL's errors: syntax (with the token and its line:column:length),
-- unsupported constructs, planning rules, parameters, limits, and the
-- errors of BatchExecuteStatement and ExecuteTransaction.

SELECT st_create_table('Err', 'pk', 'sk') IS NOT NULL AS created;
SELECT st_create_table('Hash', 'id', NULL, 'N') IS NOT NULL AS created;
SELECT count(*) FROM st_partiql($$INSERT INTO "Err" VALUE {'pk': 'a', 'sk': '1', 'n': 1}$$);
SELECT count(*) FROM st_partiql($$INSERT INTO "Err" VALUE {'pk': 'a', 'sk': '2', 'n': 2}$$);
SELECT count(*) FROM st_partiql($$INSERT INTO "Hash" VALUE {'id': 7, 'n': 1}$$);

-- Syntax errors.
SELECT st_partiql($$SELEC * FROM "Err"$$);
SELECT st_partiql($$SELECT * "Err"$$);
SELECT st_partiql($$SELECT * FROM$$);
SELECT st_partiql($$SELECT * FROM "Err" WHERE$$);
SELECT st_partiql($$SELECT * FROM "Err" WHERE pk = 'a' AND$$);
SELECT st_partiql($$SELECT * FROM "Err" WHERE pk = 'a' AND sk = 1.2.3$$);
SELECT st_partiql($$SELECT * FROM "Err" WHERE pk = 'a$$);
SELECT st_partiql($$SELECT * FROM "Err" WHERE pk = "a$$);
SELECT st_partiql($$SELECT * FROM "Err" WHERE pk == 'a'$$);
SELECT st_partiql($$SELECT * FROM "Err"
WHERE pk = 'a' AND # = 1$$);
SELECT st_partiql($$SELECT * FROM "Err" WHERE pk = `a`$$);
SELECT st_partiql($$SELECT * FROM "Err" WHERE (pk = 'a'$$);
SELECT st_partiql($$SELECT * FROM "Err" WHERE pk = 'a' ORDER sk$$);
SELECT st_partiql($$SELECT * FROM "Err" WHERE n IS 'x'$$);
SELECT st_partiql($$SELECT * FROM "Err" WHERE 'x' IS MISSING$$);
SELECT st_partiql($$SELECT * FROM "Err" WHERE pk$$);
SELECT st_partiql($$SELECT * FROM "Err" WHERE a[x] = 1$$);
SELECT st_partiql($$SELECT * FROM "Err" WHERE a[99999999999] = 1$$);
SELECT st_partiql($$SELECT * FROM "Err" WHERE n = -'x'$$);
SELECT st_partiql($$SELECT * FROM "Err" WHERE n = 1e999$$);
SELECT st_partiql($$SELECT * FROM select WHERE n = 1$$);
SELECT st_partiql($$INSERT INTO "Err" VALUE {'pk': 'a', 'sk': '3', 'pk': 'b'}$$);
SELECT st_partiql($$INSERT INTO "Err" VALUE {pk: 'a'}$$);
SELECT st_partiql($$INSERT INTO "Err" VALUE ['a']$$);
SELECT st_partiql($$INSERT INTO "Err" VALUES {'pk': 'a', 'sk': '3'}$$);
SELECT st_partiql($$INSERT INTO "Err" VALUE {'pk': 'a', 'sk': '3'} WHERE n = 1$$);
SELECT st_partiql($$UPDATE "Err" WHERE pk = 'a' AND sk = '1'$$);
SELECT st_partiql($$UPDATE "Err" SET n = 1$$);
SELECT st_partiql($$UPDATE "Err" SET n = 1 WHERE pk = 'a' AND sk = '1' RETURNING ALL OLD$$);
SELECT st_partiql($$UPDATE "Err" SET n = 1 WHERE pk = 'a' AND sk = '1' RETURNING SOME OLD *$$);
SELECT st_partiql($$DELETE "Err" WHERE pk = 'a' AND sk = '1'$$);
SELECT st_partiql($$SELECT * FROM "Err";$$) IS NULL AS trailing_semicolon_is_fine;
SELECT st_partiql($$SELECT * FROM "Err"; SELECT * FROM "Err"$$);
SELECT st_partiql('');
SELECT st_partiql(NULL);
SELECT st_partiql(E'SELECT * FROM "Err" WHERE pk = \'a\' -- a comment\n AND sk = \'1\'') ->> 'n' AS comment_ok;

-- Unsupported constructs.
SELECT st_partiql($$SELECT * FROM "Err" WHERE pk = 'a' LIMIT 1$$);
SELECT st_partiql($$SELECT COUNT(*) FROM "Err"$$);
SELECT st_partiql($$SELECT * FROM "Err" WHERE foo(n) = 1$$);
SELECT st_partiql($$SELECT * FROM "Err" WHERE begins_with(pk) = 1$$);
SELECT st_partiql($$SELECT * FROM "Err" WHERE size(n)$$);
SELECT st_partiql($$SELECT * FROM "Err" WHERE n = list_append(a, b)$$);
SELECT st_partiql($$SELECT * FROM "Err" WHERE n = set_add(a, <<1>>)$$);
SELECT st_partiql($$SELECT * FROM "Err" WHERE n = [a]$$);
SELECT st_partiql($$EXISTS(SELECT * FROM "Err" WHERE pk = 'a' AND sk = '1')$$);
SELECT st_partiql($$UPDATE "Err" SET n = set_add(m, <<1>>) WHERE pk = 'a' AND sk = '1'$$);

-- Planning rules.
SELECT st_partiql($$SELECT * FROM "Err" WHERE n = 1 ORDER BY sk$$);
SELECT st_partiql($$SELECT * FROM "Err" WHERE pk = 'a' ORDER BY n$$);
SELECT st_partiql($$SELECT * FROM "Err" WHERE pk = 'a' ORDER BY sk.x$$);
SELECT st_partiql($$UPDATE "Err" SET n = 1 WHERE pk = 'a'$$);
SELECT st_partiql($$UPDATE "Err" SET n = 1 WHERE pk = 'a' AND sk > '1'$$);
SELECT st_partiql($$UPDATE "Err" SET n = 1 WHERE pk = 'a' OR sk = '1'$$);
SELECT st_partiql($$DELETE FROM "Err" WHERE sk = '1'$$);
SELECT st_partiql($$DELETE FROM "Err" WHERE pk = 'a' AND sk = '1' RETURNING ALL NEW *$$);
SELECT st_partiql($$DELETE FROM "Err" WHERE pk = 'a' AND sk = '1' RETURNING MODIFIED OLD *$$);
SELECT st_partiql($$UPDATE "Err" SET pk = 'b' WHERE pk = 'a' AND sk = '1'$$);
SELECT st_partiql($$UPDATE "Err" SET n = 1, n = 2 WHERE pk = 'a' AND sk = '1'$$);
SELECT st_partiql($$UPDATE "Hash" SET n = n + 1 WHERE id = 7 RETURNING MODIFIED NEW *$$);
SELECT st_partiql($$UPDATE "Hash" SET n = n + 'x' WHERE id = 7$$);

-- Tables, indexes, keys and items.
SELECT st_partiql($$SELECT * FROM "Nope"$$);
SELECT st_partiql($$SELECT * FROM "Err"."Nope" WHERE pk = 'a'$$);
SELECT st_partiql($$SELECT * FROM "Err"."Nope" WHERE pk = 'a'$$);
SELECT st_partiql($$INSERT INTO "Err" VALUE {'pk': 'c'}$$);
SELECT st_partiql($$INSERT INTO "Err" VALUE {'pk': 'c', 'sk': 1}$$);
SELECT st_partiql($$INSERT INTO "Err" VALUE {'pk': '', 'sk': '1'}$$);
SELECT st_partiql($$INSERT INTO "Err" VALUE {'pk': 'c', 'sk': '1', 's': <<>>}$$);
SELECT st_partiql($$INSERT INTO "Err" VALUE {'pk': 'c', 'sk': '1', 's': <<1, 1>>}$$);
SELECT st_partiql($$INSERT INTO "Err" VALUE {'pk': 'c', 'sk': '1', 's': <<1, 'a'>>}$$);
SELECT st_partiql($$INSERT INTO "Err" VALUE {'pk': 'c', 'sk': '1', 's': <<[1]>>}$$);
SELECT st_partiql($$INSERT INTO "Err" VALUE ?$$, '["x"]');
SELECT st_partiql($$UPDATE "Err" SET n = 1 WHERE pk = 1 AND sk = '1'$$);
SELECT st_partiql($$INSERT INTO "Err" VALUE {'pk': 'c', 'sk': '1', 'deep': [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}$$);

-- Parameters: the count must match; values are checked.
SELECT st_partiql($$SELECT * FROM "Err" WHERE pk = ?$$);
SELECT st_partiql($$SELECT * FROM "Err" WHERE pk = ?$$, '["a", "b"]');
SELECT st_partiql($$SELECT * FROM "Err" WHERE pk = 'a'$$, '["a"]');
SELECT st_partiql($$SELECT * FROM "Err" WHERE pk = ?$$, '{"a": 1}');
SELECT st_partiql($$SELECT * FROM "Err" WHERE pk = ?$$, '[{"S": "a", "N": "1"}]', typed => true);
SELECT st_partiql($$SELECT * FROM "Err" WHERE pk = ?$$, '[{"N": "x"}]', typed => true);
SELECT st_api('ExecuteStatement', '{"Statement": "SELECT * FROM \"Err\" WHERE pk = ?", "Parameters": []}');
SELECT st_api('ExecuteStatement', '{"Statement": "SELECT * FROM \"Err\" WHERE pk = ?", "Parameters": "a"}');
SELECT st_api('ExecuteStatement', '{"Statement": "SELECT * FROM \"Err\" WHERE pk = ?", "Parameters": ["a"]}');

-- Request limits and types.
SELECT st_api('ExecuteStatement', '{}');
SELECT st_api('ExecuteStatement', '{"Statement": ""}');
SELECT st_api('ExecuteStatement', '{"Statement": 1}');
CREATE FUNCTION api_error(op text, request jsonb) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	PERFORM st_api(op, request);
	RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
	RETURN left(SQLERRM, 90) || ' ... ' || right(SQLERRM, 60);
END $$;
SELECT api_error('ExecuteStatement', jsonb_build_object('Statement', 'SELECT * FROM "Err" WHERE n = ''' || repeat('x', 8200) || ''''));
SELECT st_partiql('SELECT * FROM "Err" WHERE n = ''' || repeat('x', 8200) || '''');
SELECT count(*) AS at_the_limit FROM st_partiql('SELECT * FROM "Err" WHERE n = ''' || repeat('x', 8192 - 32) || '''');
SELECT api_error('ExecuteStatement', jsonb_build_object('Statement', 'SELECT * FROM "Err" WHERE n = ''' || repeat('x', 8192 - 32) || ''''));
SELECT st_api('ExecuteStatement', '{"Statement": "SELECT * FROM \"Err\"", "Limit": 0}');
SELECT st_api('ExecuteStatement', '{"Statement": "SELECT * FROM \"Err\"", "Limit": "1"}');
SELECT st_api('ExecuteStatement', '{"Statement": "SELECT * FROM \"Err\"", "ConsistentRead": "yes"}');
SELECT st_api('ExecuteStatement', '{"Statement": "SELECT * FROM \"Err\"", "NextToken": ""}');
SELECT st_api('ExecuteStatement', '{"Statement": "SELECT * FROM \"Err\"", "ReturnConsumedCapacity": "ALL"}');
SELECT st_api('ExecuteStatement', '{"Statement": "UPDATE \"Err\" SET n = 9 WHERE pk = ''a'' AND sk = ''1'' AND n = 0", "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}');
SELECT st_api('ExecuteStatement', '{"Statement": "UPDATE \"Err\" SET n = 9 WHERE pk = ''a'' AND sk = ''1''", "ReturnValuesOnConditionCheckFailure": "SOME"}');
-- deep nesting is refused, not a crash
SELECT st_partiql('SELECT * FROM "Err" WHERE ' || repeat('(', 2000) || 'n = 1' || repeat(')', 2000));
SELECT st_partiql('SELECT * FROM "Err" WHERE ' || repeat('NOT ', 2000) || 'n = 1');

-- BatchExecuteStatement: per-statement errors, reads and writes apart.
SELECT st_api('BatchExecuteStatement', $${"Statements": [
  {"Statement": "SELECT * FROM \"Err\" WHERE pk = 'a' AND sk = '1'"},
  {"Statement": "SELECT * FROM \"Err\" WHERE pk = ? AND sk = ?", "Parameters": [{"S": "a"}, {"S": "9"}]},
  {"Statement": "SELECT * FROM \"Err\" WHERE pk = 'a'"},
  {"Statement": "SELECT n FROM \"Hash\" WHERE id = 7", "ConsistentRead": true},
  {"Statement": "SELECT * FROM \"Nope\" WHERE pk = 'a' AND sk = '1'"},
  {"Statement": "SELECT * FROM \"Err\" WHERE pk = ?"}]}$$);
SELECT st_api('BatchExecuteStatement', $${"Statements": [
  {"Statement": "INSERT INTO \"Err\" VALUE {'pk': 'b', 'sk': '1'}"},
  {"Statement": "INSERT INTO \"Err\" VALUE {'pk': 'a', 'sk': '1'}"},
  {"Statement": "UPDATE \"Err\" SET n = 5 WHERE pk = 'zz' AND sk = '1'"},
  {"Statement": "UPDATE \"Err\" SET n = 5 WHERE pk = 'a' AND sk = '2' RETURNING ALL NEW *"},
  {"Statement": "DELETE FROM \"Err\" WHERE pk = 'zz' AND sk = '2' AND n = 99"},
  {"Statement": "SELEC"},
  {"Statement": "DELETE FROM \"Nope\" WHERE pk = 'a' AND sk = '1'"},
  {"Statement": "EXISTS(SELECT * FROM \"Err\" WHERE pk = 'a' AND sk = '1')"}],
  "ReturnConsumedCapacity": "TOTAL"}$$);
-- a failed condition returns the item when the statement asks for it
SELECT st_api('BatchExecuteStatement', $${"Statements": [
  {"Statement": "UPDATE \"Err\" SET n = 7 WHERE pk = 'a' AND sk = '2' AND n = 0", "ReturnValuesOnConditionCheckFailure": "ALL_OLD"},
  {"Statement": "DELETE FROM \"Err\" WHERE pk = 'a' AND sk = '1' AND n = 0"}]}$$);
-- (two statements on one item refuse the whole batch: fidelity_diff)
-- the failed statements changed nothing, the others did
SELECT item FROM st_partiql($$SELECT * FROM "Err" WHERE pk IN ['a', 'b']$$) AS item;
SELECT st_api('BatchExecuteStatement', $${"Statements": [
  {"Statement": "SELECT * FROM \"Err\" WHERE pk = 'a' AND sk = '1'"},
  {"Statement": "DELETE FROM \"Err\" WHERE pk = 'a' AND sk = '1'"}]}$$);
SELECT st_api('BatchExecuteStatement', '{"Statements": []}');
SELECT st_api('BatchExecuteStatement', jsonb_build_object('Statements',
  (SELECT jsonb_agg(jsonb_build_object('Statement', 'SELECT * FROM "Err" WHERE pk = ''a'' AND sk = ''1''')) FROM generate_series(1, 26))));
SELECT st_api('BatchExecuteStatement', '{"Statements": [{"Parameters": [{"S": "a"}]}]}');
SELECT st_api('BatchExecuteStatement', '{}');

-- ExecuteTransaction: all or nothing, CancellationReasons in order.
SELECT st_api('ExecuteTransaction', $${"TransactStatements": [
  {"Statement": "INSERT INTO \"Err\" VALUE {'pk': 't', 'sk': '1'}"},
  {"Statement": "INSERT INTO \"Err\" VALUE {'pk': 'a', 'sk': '1'}"},
  {"Statement": "UPDATE \"Err\" SET n = 1 WHERE pk = 'zz' AND sk = '1'"},
  {"Statement": "EXISTS(SELECT * FROM \"Err\" WHERE pk = 'a' AND sk = '2' AND n = 99)"},
  {"Statement": "DELETE FROM \"Err\" WHERE pk = 'b' AND sk = '1'"}]}$$);
SELECT count(*) AS nothing_written FROM st_partiql($$SELECT * FROM "Err" WHERE pk = 't'$$);
SELECT st_api('ExecuteTransaction', $${"TransactStatements": [
  {"Statement": "INSERT INTO \"Err\" VALUE {'pk': 't', 'sk': '1'}"},
  {"Statement": "UPDATE \"Err\" SET n = n + ? WHERE pk = ? AND sk = ?", "Parameters": [{"N": "10"}, {"S": "a"}, {"S": "1"}]},
  {"Statement": "EXISTS(SELECT * FROM \"Err\" WHERE pk = 'a' AND sk = '2' AND n = 5)"},
  {"Statement": "DELETE FROM \"Err\" WHERE pk = 'b' AND sk = '1'"}],
  "ReturnConsumedCapacity": "TOTAL", "ClientRequestToken": "partiql-tok-1"}$$);
SELECT item FROM st_partiql($$SELECT * FROM "Err" WHERE pk IN ['a', 'b', 't']$$) AS item;
-- the same request with the same token changes nothing; another request with it is refused
SELECT st_api('ExecuteTransaction', $${"TransactStatements": [
  {"Statement": "INSERT INTO \"Err\" VALUE {'pk': 't', 'sk': '1'}"},
  {"Statement": "UPDATE \"Err\" SET n = n + ? WHERE pk = ? AND sk = ?", "Parameters": [{"N": "10"}, {"S": "a"}, {"S": "1"}]},
  {"Statement": "EXISTS(SELECT * FROM \"Err\" WHERE pk = 'a' AND sk = '2' AND n = 5)"},
  {"Statement": "DELETE FROM \"Err\" WHERE pk = 'b' AND sk = '1'"}],
  "ReturnConsumedCapacity": "TOTAL", "ClientRequestToken": "partiql-tok-1"}$$);
SELECT st_partiql($$SELECT n FROM "Err" WHERE pk = 'a' AND sk = '1'$$) AS unchanged;
SELECT st_api('ExecuteTransaction', $${"TransactStatements": [
  {"Statement": "INSERT INTO \"Err\" VALUE {'pk': 't', 'sk': '2'}"}], "ClientRequestToken": "partiql-tok-1"}$$);
-- reads: each a whole key
SELECT st_api('ExecuteTransaction', $${"TransactStatements": [
  {"Statement": "SELECT * FROM \"Err\" WHERE pk = 'a' AND sk = '1'"},
  {"Statement": "SELECT n FROM \"Err\" WHERE pk = 'a' AND sk = '9'"},
  {"Statement": "SELECT n FROM \"Hash\" WHERE id = ?", "Parameters": [{"N": "7"}]}], "ReturnConsumedCapacity": "TOTAL"}$$);
SELECT st_api('ExecuteTransaction', $${"TransactStatements": [
  {"Statement": "SELECT * FROM \"Err\" WHERE pk = 'a' AND sk = '1'"},
  {"Statement": "SELECT * FROM \"Err\" WHERE pk = 'a'"}]}$$);
SELECT st_api('ExecuteTransaction', $${"TransactStatements": [
  {"Statement": "SELECT * FROM \"Err\" WHERE pk = 'a' AND sk = '1'"},
  {"Statement": "DELETE FROM \"Err\" WHERE pk = 'a' AND sk = '1'"}]}$$);
SELECT st_api('ExecuteTransaction', $${"TransactStatements": [
  {"Statement": "DELETE FROM \"Err\" WHERE pk = 'a' AND sk = '1'"},
  {"Statement": "UPDATE \"Err\" SET n = 1 WHERE pk = 'a' AND sk = '1'"}]}$$);
SELECT st_api('ExecuteTransaction', $${"TransactStatements": [
  {"Statement": "DELETE FROM \"Err\" WHERE pk = ? AND sk = '1'"}]}$$);
SELECT st_api('ExecuteTransaction', $${"TransactStatements": [
  {"Statement": "SELEC"}]}$$);
SELECT st_api('ExecuteTransaction', '{"TransactStatements": []}');
SELECT st_api('ExecuteTransaction', jsonb_build_object('TransactStatements',
  (SELECT jsonb_agg(jsonb_build_object('Statement', format('INSERT INTO "Err" VALUE {''pk'': ''m'', ''sk'': ''%s''}', i))) FROM generate_series(1, 101) i)));
SELECT st_api('ExecuteTransaction', jsonb_build_object('TransactStatements',
  (SELECT jsonb_agg(jsonb_build_object('Statement', format('INSERT INTO "Err" VALUE {''pk'': ''m'', ''sk'': ''%s''}', i))) FROM generate_series(1, 100) i)));
SELECT count(*) AS hundred FROM st_partiql($$SELECT * FROM "Err" WHERE pk = 'm'$$);
SELECT st_api('ExecuteTransaction', $${"TransactStatements": [{"Statement": "INSERT INTO \"Err\" VALUE {'pk': 'u', 'sk': '1'}"}],
  "ClientRequestToken": ""}$$);

DROP FUNCTION api_error(text, jsonb);
SELECT st_drop_table('Err');
SELECT st_drop_table('Hash');
