-- ConditionExpression on st_put, st_delete and st_update: every comparator,
-- BETWEEN, IN, AND / OR / NOT precedence, parentheses, the six functions,
-- nested paths, #name and :value placeholders (plain and typed), type
-- mismatches that are false rather than errors, and bad input of every
-- kind, each leaving the item unchanged.
\set VERBOSITY terse

SELECT st_create_table('Cond') ->> 'TableName' AS created;
SET stdesign.default_table = 'Cond';

-- One item holding all ten types, nested documents and awkward names.
SELECT st_put('{"PK": {"S": "c"}, "SK": {"S": "all"},
  "s": {"S": "hello world"}, "w": {"S": "world"}, "n": {"N": "42"},
  "bin": {"B": "AAECAw=="}, "t": {"BOOL": true}, "nul": {"NULL": true},
  "l": {"L": [{"N": "1"}, {"S": "two"}, {"M": {"c": {"S": "deep"}}}]},
  "m": {"M": {"a": {"M": {"b": {"L": [{"N": "10"}, {"M": {"c": {"S": "x"}}}]}}}}},
  "ss": {"SS": ["red", "green"]}, "ns": {"NS": ["1", "2", "3"]}, "bs": {"BS": ["AA==", "AQ=="]},
  "name": {"S": "reserved"}, "dotted.name": {"S": "dot"}, "u": {"S": "é"}}', typed => true);

-- holds(condition, values, names, typed): does the ConditionExpression of a
-- DeleteItem on (c, all) hold?  The delete runs in a subtransaction that is
-- always rolled back, so the item stays; errors other than
-- ConditionalCheckFailedException (SD004) propagate.
CREATE FUNCTION holds(cond text, vals jsonb DEFAULT NULL, nms jsonb DEFAULT NULL,
                      typ boolean DEFAULT false, key text DEFAULT 'all') RETURNS boolean
LANGUAGE plpgsql AS $$
BEGIN
  BEGIN
    PERFORM st_delete('c', key, condition => cond, names => nms, "values" => vals, typed => typ);
    RAISE EXCEPTION 'condition held' USING ERRCODE = 'SDZ99';
  EXCEPTION
    WHEN SQLSTATE 'SD004' THEN RETURN false;
    WHEN SQLSTATE 'SDZ99' THEN RETURN true;
  END;
END $$;

-- The members of a values map that condition c uses (DynamoDB refuses unused ones).
CREATE FUNCTION used(c text, v jsonb) RETURNS jsonb LANGUAGE sql AS
  $$ SELECT jsonb_object_agg(k, x) FROM jsonb_each(v) AS e(k, x) WHERE c ~ (k || '\M') $$;

CREATE TEMP TABLE snapshot AS SELECT st_get('c', 'all', typed => true) AS item;
CREATE FUNCTION unchanged() RETURNS boolean LANGUAGE sql AS
  $$ SELECT st_get('c', 'all', typed => true) = (SELECT item FROM snapshot) $$;

-- Comparators on N (numeric, not textual), S (UTF-8 byte order) and B.
SELECT c AS condition, v AS "values", holds(c, v::jsonb) AS holds FROM (VALUES
  ('n = :v', '{":v": 42}'), ('n = :v', '{":v": 42.000}'), ('n = :v', '{":v": 4.2e1}'),
  ('n = :v', '{":v": 41}'), ('n <> :v', '{":v": 42}'), ('n <> :v', '{":v": 7}'),
  ('n < :v', '{":v": 43}'), ('n < :v', '{":v": 42}'), ('n < :v', '{":v": 100}'),
  ('n <= :v', '{":v": 42}'), ('n <= :v', '{":v": 41.99}'),
  ('n > :v', '{":v": 41}'), ('n > :v', '{":v": 42}'), ('n > :v', '{":v": -1000}'),
  ('n >= :v', '{":v": 42}'), ('n >= :v', '{":v": 42.01}'),
  ('s = :v', '{":v": "hello world"}'), ('s < :v', '{":v": "hellp"}'),
  ('s > :v', '{":v": "hello"}'), ('s < :v', '{":v": "Hello world"}'),
  ('u > :v', '{":v": "z"}'),
  (':v < n', '{":v": 5}'), ('n > size(s)', NULL), ('size(s) < n', NULL),
  ('t = :v', '{":v": true}'), ('t <> :v', '{":v": false}'), ('nul = :v', '{":v": null}'),
  ('l = :v', '{":v": [1, "two", {"c": "deep"}]}'), ('l = :v', '{":v": [1, "two"]}'),
  ('m = :v', '{":v": {"a": {"b": [10, {"c": "x"}]}}}')
) AS d(c, v);

-- Binary compares by unsigned bytes; sets compare as sets (order ignored).
SELECT c AS condition, v AS "values", holds(c, v::jsonb, typ => true) AS holds FROM (VALUES
  ('bin = :v', '{":v": {"B": "AAECAw=="}}'), ('bin < :v', '{":v": {"B": "AAEDAA=="}}'),
  ('bin > :v', '{":v": {"B": "AA=="}}'), ('bin < :v', '{":v": {"B": "/w=="}}'),
  ('ss = :v', '{":v": {"SS": ["green", "red"]}}'), ('ns = :v', '{":v": {"NS": ["3", "2", "1.0"]}}'),
  ('ns = :v', '{":v": {"NS": ["1", "2"]}}'), ('bs = :v', '{":v": {"BS": ["AQ==", "AA=="]}}'),
  ('n = :v', '{":v": {"N": "42"}}'), ('s = :v', '{":v": {"S": "hello world"}}')
) AS d(c, v);

-- Type mismatches with the stored item and absent attributes make a
-- comparison false, never an error; <> is true whenever the two sides are
-- not equal.  (A :value of a type < cannot take is refused for the request:
-- see fidelity_expr.)
SELECT c AS condition, v AS "values", holds(c, v::jsonb) AS holds FROM (VALUES
  ('n = :v', '{":v": "42"}'), ('n <> :v', '{":v": "42"}'), ('n < :v', '{":v": "43"}'),
  ('NOT n < :v', '{":v": "43"}'), ('s > :v', '{":v": 1}'), ('t < :v', '{":v": 1}'),
  ('t >= :v', '{":v": "a"}'), ('l < :v', '{":v": 2}'), ('nul <= :v', '{":v": "x"}'),
  ('nope = :v', '{":v": 1}'), ('nope <> :v', '{":v": 1}'), ('nope < :v', '{":v": 1}'),
  ('nope >= :v', '{":v": 1}'), ('NOT nope > :v', '{":v": 1}'),
  ('n BETWEEN :lo AND :hi', '{":lo": "a", ":hi": "z"}'), ('n IN (:a, :b)', '{":a": "42", ":b": [42]}')
) AS d(c, v);

-- BETWEEN (inclusive) and IN.
SELECT c AS condition, v AS "values", holds(c, v::jsonb) AS holds FROM (VALUES
  ('n BETWEEN :lo AND :hi', '{":lo": 40, ":hi": 50}'), ('n BETWEEN :lo AND :hi', '{":lo": 42, ":hi": 42}'),
  ('n BETWEEN :lo AND :hi', '{":lo": 43, ":hi": 50}'), ('n BETWEEN :lo AND :hi', '{":lo": 1, ":hi": 41.9}'),
  ('s BETWEEN :lo AND :hi', '{":lo": "a", ":hi": "i"}'),
  ('s BETWEEN :lo AND :hi', '{":lo": "hello world", ":hi": "hello world"}'),
  ('NOT n BETWEEN :lo AND :hi', '{":lo": 43, ":hi": 50}'),
  ('nope BETWEEN :lo AND :hi', '{":lo": 1, ":hi": 2}'),
  ('size(l) BETWEEN :lo AND :hi', '{":lo": 3, ":hi": 3}'),
  ('n IN (:a)', '{":a": 42}'), ('n IN (:a, :b, :c)', '{":a": 1, ":b": 2, ":c": 42.0}'),
  ('n IN (:a, :b)', '{":a": 1, ":b": 2}'), ('s IN (:a, :b)', '{":a": "x", ":b": "hello world"}'),
  ('l IN (:a, :b)', '{":a": [1], ":b": [1, "two", {"c": "deep"}]}'),
  ('nope IN (:a)', '{":a": 1}'), ('NOT nope IN (:a)', '{":a": 1}'),
  ('n IN (size(s), :a)', '{":a": 42}'), ('size(s) IN (n, :a)', '{":a": 11}')
) AS d(c, v);

-- Precedence: comparisons, then NOT, then AND, then OR; keywords in any case.
-- Each line is built so that another precedence would give the other answer.
SELECT c AS condition, holds(c, used(c, '{":a": 42, ":b": 1, ":c": 1}')) AS holds FROM (VALUES
  ('n = :a OR n = :b AND n = :c'),			-- a OR (b AND c): true
  ('(n = :a OR n = :b) AND n = :c'),		-- false
  ('n = :b AND n = :c OR n = :a'),			-- (b AND c) OR a: true
  ('n = :b AND (n = :c OR n = :a)'),		-- false
  ('NOT n = :a AND n = :b'),				-- (NOT a) AND b: false
  ('NOT (n = :a AND n = :b)'),				-- true
  ('NOT n = :a OR n = :a'),					-- (NOT a) OR a: true
  ('NOT (n = :a OR n = :a)'),				-- false
  ('NOT NOT n = :a'),						-- true
  ('NOT NOT NOT n = :a'),					-- false
  ('n = :b or n = :a and not n = :b'),		-- true
  ('n = :a AnD nOt n = :b'),				-- true
  ('(n = :a)'),
  ('(n = :b OR (n = :c OR (n = :a AND (s = s1 OR n = :a))))'),
  ('((n = :a OR n = :b) AND (n = :c OR n = :a))')
) AS d(c);

-- attribute_exists / attribute_not_exists, top level and nested.
SELECT c AS condition, holds(c) AS holds FROM (VALUES
  ('attribute_exists(n)'), ('attribute_exists(nope)'), ('attribute_exists(nul)'),
  ('attribute_exists(m.a.b[1].c)'), ('attribute_exists(m.a.b[2])'), ('attribute_exists(m.a.b.c)'),
  ('attribute_exists(l[2].c)'), ('attribute_exists(l[0].c)'), ('attribute_exists(s[0])'),
  ('attribute_not_exists(nope)'), ('attribute_not_exists(n)'), ('attribute_not_exists(m.a.x)'),
  ('attribute_exists(PK) AND attribute_exists(SK)'), ('NOT attribute_exists(n)')
) AS d(c);

-- attribute_type: each of the ten types, and a mismatch.
SELECT a AS attribute, t AS "type",
       holds('attribute_type(' || a || ', :t)', jsonb_build_object(':t', t)) AS holds
  FROM (VALUES ('s', 'S'), ('n', 'N'), ('bin', 'B'), ('t', 'BOOL'), ('nul', 'NULL'),
               ('m', 'M'), ('l', 'L'), ('ss', 'SS'), ('ns', 'NS'), ('bs', 'BS'),
               ('n', 'S'), ('ss', 'L'), ('m.a', 'M'), ('m.a.b[0]', 'N'), ('l[1]', 'S'),
               ('nope', 'N')) AS d(a, t);
SELECT holds('attribute_type(n, :t)', '{":t": {"S": "N"}}', typ => true) AS typed_type_name;

-- begins_with on S and B; anything else is false.
SELECT c AS condition, v AS "values", holds(c, v::jsonb, typ => true) AS holds FROM (VALUES
  ('begins_with(s, :p)', '{":p": {"S": "hell"}}'), ('begins_with(s, :p)', '{":p": {"S": "hello world"}}'),
  ('begins_with(s, :p)', '{":p": {"S": "world"}}'), ('begins_with(s, :p)', '{":p": {"S": "Hell"}}'),
  ('begins_with(s, :p)', '{":p": {"S": "hello world!"}}'),
  ('begins_with(bin, :p)', '{":p": {"B": "AAE="}}'), ('begins_with(bin, :p)', '{":p": {"B": "AQ=="}}'),
  ('begins_with(bin, :p)', '{":p": {"S": "AA"}}'), ('begins_with(s, :p)', '{":p": {"B": "aGVsbA=="}}'),
  ('begins_with(n, :p)', '{":p": {"S": "4"}}'), ('begins_with(l, :p)', '{":p": {"S": "1"}}'),
  ('begins_with(nope, :p)', '{":p": {"S": "a"}}'), ('begins_with(l[1], :p)', '{":p": {"S": "tw"}}'),
  ('begins_with(s, w)', NULL), ('begins_with(m.a.b[1].c, :p)', '{":p": {"S": "x"}}')
) AS d(c, v);

-- contains: substring of S, member of SS/NS/BS, element of L, bytes of B.
SELECT c AS condition, v AS "values", holds(c, v::jsonb, typ => true) AS holds FROM (VALUES
  ('contains(s, :v)', '{":v": {"S": "lo w"}}'), ('contains(s, :v)', '{":v": {"S": "xyz"}}'),
  ('contains(s, :v)', '{":v": {"N": "1"}}'), ('contains(s, w)', NULL),
  ('contains(ss, :v)', '{":v": {"S": "red"}}'), ('contains(ss, :v)', '{":v": {"S": "re"}}'),
  ('contains(ss, :v)', '{":v": {"S": "blue"}}'), ('contains(ns, :v)', '{":v": {"N": "2.0"}}'),
  ('contains(ns, :v)', '{":v": {"S": "2"}}'), ('contains(bs, :v)', '{":v": {"B": "AQ=="}}'),
  ('contains(bs, :v)', '{":v": {"B": "Ag=="}}'),
  ('contains(l, :v)', '{":v": {"S": "two"}}'), ('contains(l, :v)', '{":v": {"N": "1"}}'),
  ('contains(l, :v)', '{":v": {"M": {"c": {"S": "deep"}}}}'), ('contains(l, :v)', '{":v": {"S": "tw"}}'),
  ('contains(l, :v)', '{":v": {"N": "3"}}'),
  ('contains(bin, :v)', '{":v": {"B": "AgM="}}'), ('contains(bin, :v)', '{":v": {"B": "AwI="}}'),
  ('contains(n, :v)', '{":v": {"N": "4"}}'), ('contains(m, :v)', '{":v": {"S": "a"}}'),
  ('contains(nope, :v)', '{":v": {"S": "a"}}'), ('NOT contains(ss, :v)', '{":v": {"S": "blue"}}')
) AS d(c, v);

-- size: bytes of S and B, members of sets, elements of L and M; no size for
-- N, BOOL, NULL or an absent attribute (the comparison is then false).
SELECT c AS condition, holds(c, used(c, '{":v": 0}'::jsonb || v::jsonb)) AS holds FROM (VALUES
  ('size(s) = :n', '{":n": 11}'), ('size(bin) = :n', '{":n": 4}'), ('size(ss) = :n', '{":n": 2}'),
  ('size(ns) = :n', '{":n": 3}'), ('size(bs) = :n', '{":n": 2}'), ('size(l) = :n', '{":n": 3}'),
  ('size(m) = :n', '{":n": 1}'), ('size(m.a.b) = :n', '{":n": 2}'), ('size(l[2].c) = :n', '{":n": 4}'),
  ('size(s) > size(w)', '{}'), ('size(n) >= :v', '{}'), ('size(t) >= :v', '{}'),
  ('size(nul) >= :v', '{}'), ('size(nope) >= :v', '{}'), ('NOT size(nope) >= :v', '{}')
) AS d(c, v);

-- Placeholders: #names (whole attribute names, dots included) and :values.
SELECT c AS condition, nm AS names, holds(c, v::jsonb, nm::jsonb) AS holds FROM (VALUES
  ('#s = :v', '{"#s": "s"}', '{":v": "hello world"}'),
  ('#m.#a.b[1].#c = :v', '{"#m": "m", "#a": "a", "#c": "c"}', '{":v": "x"}'),
  ('#n = :v', '{"#n": "name"}', '{":v": "reserved"}'),
  ('#d = :v', '{"#d": "dotted.name"}', '{":v": "dot"}'),
  ('attribute_exists(#d)', '{"#d": "dotted.name"}', NULL),
  ('attribute_exists(#d)', '{"#d": "dotted"}', NULL),
  ('#s = :v AND #s <> :w', '{"#s": "s"}', '{":v": "hello world", ":w": "x"}'),
  ('#k = :v', '{"#k": "PK"}', '{":v": "c"}')
) AS d(c, nm, v);

-- Conditions on writes: a failed condition raises
-- ConditionalCheckFailedException (SQLSTATE SD004) and changes nothing.
SELECT st_put('{"PK": "c", "SK": "new", "v": 1}', condition => 'attribute_not_exists(PK)');
SELECT st_put('{"PK": "c", "SK": "new", "v": 2}', condition => 'attribute_not_exists(PK)');
SELECT st_get('c', 'new');
SELECT st_put('{"PK": "c", "SK": "new", "v": 3}', condition => 'v = :old',
              "values" => '{":old": 1}', return_values => 'ALL_OLD');
SELECT st_put('{"PK": "c", "SK": "new", "v": 4}', condition => 'v = :old', "values" => '{":old": 1}');
SELECT st_get('c', 'new');
SELECT st_put('{"PK": "c", "SK": "absent"}', condition => 'attribute_exists(PK)');
SELECT st_get('c', 'absent') IS NULL AS still_absent;
DO $$ BEGIN
  PERFORM st_put('{"PK": "c", "SK": "new"}', condition => 'attribute_not_exists(SK)');
EXCEPTION WHEN SQLSTATE 'SD004' THEN RAISE NOTICE 'caught by SQLSTATE: %', SQLERRM;
END $$;
-- DeleteItem: a false condition keeps the item; a true one deletes it.
SELECT st_delete('c', 'new', condition => 'v > :v', "values" => '{":v": 3}');
SELECT st_get('c', 'new');
SELECT st_delete('c', 'new', condition => 'v >= :v', "values" => '{":v": 3}', return_values => 'ALL_OLD');
SELECT st_get('c', 'new') IS NULL AS deleted;
-- A condition on an absent item sees no attributes at all.
SELECT st_delete('c', 'new', condition => 'attribute_exists(PK)');
SELECT st_delete('c', 'new', condition => 'attribute_not_exists(PK)', return_values => 'ALL_OLD') IS NULL AS nothing_deleted;
SELECT holds('attribute_not_exists(v) AND NOT v = :v AND v <> :v', '{":v": 1}', key => 'new') AS on_absent_item;
-- UpdateItem: a false condition neither changes nor creates the item.
SELECT st_update('c', 'all', 'SET n = :v', condition => 'n < :v', "values" => '{":v": 1}');
SELECT st_update('c', 'gone', 'SET n = :v', condition => 'attribute_exists(PK)', "values" => '{":v": 1}');
SELECT st_get('c', 'gone') IS NULL AS not_created, unchanged();

-- Bad input: ValidationException (SQLSTATE SD001), and the item is unchanged.
-- Syntax errors quote the offending token and its neighbours.
SELECT holds('n =', '{":v": 1}');
SELECT holds('n == :v', '{":v": 1}');
SELECT holds('n = :v :v', '{":v": 1}');
SELECT holds('n = :v AND', '{":v": 1}');
SELECT holds('n = :v OR OR n = :v', '{":v": 1}');
SELECT holds('(n = :v', '{":v": 1}');
SELECT holds('n = :v)', '{":v": 1}');
SELECT holds('n ! :v', '{":v": 1}');
SELECT holds('n BETWEEN :v', '{":v": 1}');
SELECT holds('n IN :v', '{":v": 1}');
SELECT holds('n IN ()', '{":v": 1}');
SELECT holds('l[-1] = :v', '{":v": 1}');
SELECT holds('l[x] = :v', '{":v": 1}');
SELECT holds('m..a = :v', '{":v": 1}');
SELECT holds('1abc = :v', '{":v": 1}');
SELECT holds('n = :v + :v', '{":v": 1}');
SELECT holds('n', NULL);
SELECT holds('NOT', NULL);
SELECT holds(':v', '{":v": true}');
-- Empty expressions.
SELECT holds('', NULL);
SELECT holds('   ', NULL);
-- Reserved words must go through #names; function names are case sensitive.
SELECT holds('name = :v', '{":v": "reserved"}');
SELECT holds('attribute_exists(size)', NULL);
SELECT holds('m.status = :v', '{":v": 1}');
SELECT holds('ATTRIBUTE_EXISTS(n)', NULL);
SELECT holds('foo(n)', NULL);
-- Functions used the wrong way.
SELECT holds('size(s)', NULL);
SELECT holds('attribute_exists(n) = :v', '{":v": true}');
SELECT holds('attribute_exists(:v)', '{":v": 1}');
SELECT holds('attribute_type(:v, :v)', '{":v": "N"}');
SELECT holds('begins_with(s)', NULL);
SELECT holds('contains(s, :v, :v)', '{":v": "x"}');
SELECT holds('n = if_not_exists(n, :v)', '{":v": 1}');
SELECT holds('l = list_append(l, :v)', '{":v": [1]}');
SELECT holds('n = n', NULL);
SELECT holds('contains(#a, a)', NULL, '{"#a": "a"}');
-- Operands of the wrong type.
SELECT holds('begins_with(s, :v)', '{":v": 4}');
SELECT holds('begins_with(s, :v)', '{":v": ["h"]}');
SELECT holds('attribute_type(n, :t)', '{":t": 1}');
SELECT holds('attribute_type(n, :t)', '{":t": "NUMBER"}');
SELECT holds('size(:v) = :v', '{":v": 1}');
SELECT holds('size(:v) = :n', '{":v": true, ":n": 1}');
SELECT holds('n BETWEEN :hi AND :lo', '{":lo": 40, ":hi": 50}');
SELECT holds('s BETWEEN :hi AND :lo', '{":lo": "a", ":hi": "b"}');
-- Placeholders undefined or unused, and maps that are malformed.
SELECT holds('n = :x', '{":v": 1}');
SELECT holds('#x = :v', '{":v": 1}', '{"#n": "n"}');
SELECT holds('#x = :v', '{":v": 1}');
SELECT holds('n = :v', '{":v": 1, ":extra": 2, ":more": 3}');
SELECT holds('n = :v', '{":v": 1}', '{"#unused": "n"}');
SELECT holds('n = :v', '{}');
SELECT holds('n = :v', '{":v": 1}', '{}');
SELECT holds('n = :v', '{"v": 1}');
SELECT holds('n = :v', '{":v-1": 1}');
SELECT holds('#n = :v', '{":v": 1}', '{"n": "n"}');
SELECT holds('#n = :v', '{":v": 1}', '{"#n": ""}');
SELECT holds('#n = :v', '{":v": 1}', '{"#n": 1}');
SELECT holds('n = :v', '{":v": {"X": "1"}}', typ => true);
SELECT holds('n = :v', '{":v": 42}', typ => true);
SELECT holds('n = :v', '{":v": {"N": "4x"}}', typ => true);
SELECT holds('n = :v', '{":v": {"SS": []}}', typ => true);
SELECT st_put('{"PK": "c", "SK": "x"}', "values" => '{":v": 1}');
SELECT st_put('{"PK": "c", "SK": "x"}', names => '{"#n": "n"}');
SELECT st_delete('c', 'x', "values" => '{":v": 1}');
-- Limits: 4 KB of text, 100 operands of IN, 300 operators, 32 path
-- levels, and nesting that no input can use to exhaust the stack.
SELECT holds('n = :v' || repeat(' ', 4096 - 6), '{":v": 42}') AS at_4096_bytes;
SELECT holds('n = :v' || repeat(' ', 4097 - 6), '{":v": 42}');
SELECT holds('n IN (' || string_agg(':v', ', ') || ')', '{":v": 42}') AS in_100
  FROM generate_series(1, 100);
SELECT holds('n IN (' || string_agg(':v', ', ') || ')', '{":v": 42}')
  FROM generate_series(1, 101);
SELECT holds('n = :v' || repeat(' OR n = :v', 149), '{":v": 42}') AS operators_299;
SELECT holds('n = :v' || repeat(' OR n = :v', 150), '{":v": 42}');
SELECT holds(repeat('(', 40) || 'n = :v' || repeat(')', 40), '{":v": 42}');
SELECT holds(repeat('(n = :v AND ', 40) || 'n = :v' || repeat(')', 40), '{":v": 42}') AS nested_40;
SELECT holds(repeat('(n = :v AND ', 100) || 'n = :v' || repeat(')', 100), '{":v": 42}');
SELECT holds(repeat('NOT ', 1000) || 'n = :v', '{":v": 42}');
SELECT holds(repeat('(', 2000) || 'n = :v' || repeat(')', 2000), '{":v": 42}');
SELECT holds('size(' || repeat('size(', 100) || 's' || repeat(')', 101) || ' = :v', '{":v": 42}');
SELECT holds('attribute_exists(a' || repeat('.a', 31) || ')') AS path_32;
SELECT holds('attribute_exists(a' || repeat('.a', 32) || ')');
SELECT holds('attribute_exists(a' || repeat('[0]', 32) || ')');
SELECT holds(repeat('#', 4000), NULL);
SELECT holds(repeat(':', 4000) || ' = n', NULL);
SELECT holds('n = :v @', '{":v": 42}');
SELECT holds('n = :v; DROP TABLE x', '{":v": 42}');
SELECT unchanged();

SELECT st_drop_table(t) FROM st_list_tables() AS t;
DROP FUNCTION holds, unchanged, used;
