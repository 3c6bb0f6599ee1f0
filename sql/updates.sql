-- st_update (UpdateItem): SET with + and -, if_not_exists, list_append,
-- nested paths and list indexes, REMOVE, ADD, DELETE, every return_values,
-- creation of a missing item, key attributes refused, GSI movement, number
-- limits, and bad input of every kind, each leaving the item unchanged.
\set VERBOSITY terse

SELECT st_create_table('{"TableName": "Upd",
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"},
    {"AttributeName": "SK", "AttributeType": "S"},
    {"AttributeName": "GSI1PK", "AttributeType": "S"},
    {"AttributeName": "GSI1SK", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
  "GlobalSecondaryIndexes": [{"IndexName": "GSI1",
    "KeySchema": [{"AttributeName": "GSI1PK", "KeyType": "HASH"}, {"AttributeName": "GSI1SK", "KeyType": "RANGE"}],
    "Projection": {"ProjectionType": "ALL"}}],
  "BillingMode": "PAY_PER_REQUEST"}') ->> 'TableName' AS created;
SET stdesign.default_table = 'Upd';

-- A missing item is created from its key (the default return_values is
-- ALL_NEW), unless the update only removes: then nothing is written.
SELECT st_update('u', 'new', 'SET a = :v', "values" => '{":v": "created"}');
SELECT st_update('u', 'new2', 'REMOVE nothing');
SELECT st_get('u', 'new2');
-- No UpdateExpression at all: the item is left as it is (or created from its key).
SELECT st_update('u', 'new3', NULL);
SELECT st_update('u', 'new3', NULL, return_values => 'UPDATED_NEW') IS NULL AS nothing_updated;

-- SET: values, + and - on numbers, if_not_exists, paths as operands.
SELECT st_put('{"PK": "u", "SK": "main", "n": 10, "s": "text", "l": [0, 1, 2],
                "m": {"a": {"b": 1}, "list": [{"x": 1}]}}');
SELECT st_update('u', 'main', 'SET n = n + :one', "values" => '{":one": 1}') -> 'n' AS n_plus_1;
SELECT st_update('u', 'main', 'SET n = n - :d', "values" => '{":d": 20.5}') -> 'n' AS n_minus;
SELECT st_update('u', 'main', 'SET n = :a - n', "values" => '{":a": 0.5}') -> 'n' AS a_minus_n;
SELECT st_update('u', 'main', 'SET x = :a + :b, y = n + n', "values" => '{":a": 1e2, ":b": 0.001}') - 'l' - 'm';
SELECT st_update('u', 'main', 'SET c = if_not_exists(c, :zero) + :one',
                 "values" => '{":zero": 0, ":one": 1}') -> 'c' AS counter;
SELECT st_update('u', 'main', 'SET c = if_not_exists(c, :zero) + :one',
                 "values" => '{":zero": 0, ":one": 1}') -> 'c' AS counter;
SELECT st_update('u', 'main', 'SET s = if_not_exists(s, :v), s2 = if_not_exists(nope, s)',
                 "values" => '{":v": "ignored"}') - 'l' - 'm';
-- Every operand is read from the item as it was before the update: a swap.
SELECT st_update('u', 'main', 'SET x = y, y = x') - 'l' - 'm';
SELECT st_update('u', 'main', 'set x = :v, #y = :w', names => '{"#y": "y"}',
                 "values" => '{":v": 1, ":w": 2}') - 'l' - 'm';

-- list_append: append, prepend, onto a list that may not exist yet.
SELECT st_update('u', 'main', 'SET l = list_append(l, :more)', "values" => '{":more": [3, 4]}') -> 'l';
SELECT st_update('u', 'main', 'SET l = list_append(:more, l)', "values" => '{":more": ["first"]}') -> 'l';
SELECT st_update('u', 'main', 'SET nl = list_append(if_not_exists(nl, :empty), :more)',
                 "values" => '{":empty": [], ":more": [1]}') -> 'nl';
SELECT st_update('u', 'main', 'SET nl = list_append(if_not_exists(nl, :empty), :more)',
                 "values" => '{":empty": [], ":more": [2]}') -> 'nl';
SELECT st_update('u', 'main', 'SET l2 = list_append(l, nl)') -> 'l2';

-- Nested SET: into maps and lists; an index past the end appends.
SELECT st_update('u', 'main', 'SET m.a.b = :v, m.a.c = :w, m.#list[0].x = :w',
                 names => '{"#list": "list"}', "values" => '{":v": 2, ":w": "new"}') -> 'm';
SELECT st_update('u', 'main', 'SET l[1] = :v', "values" => '{":v": "replaced"}') -> 'l';
SELECT st_update('u', 'main', 'SET l[100] = :v', "values" => '{":v": "appended"}') -> 'l';
SELECT st_update('u', 'main', 'SET l[100] = :v, l[200] = :w', "values" => '{":v": "p1", ":w": "p2"}') -> 'l';
SELECT st_update('u', 'main', 'SET m.#list[5] = :v', names => '{"#list": "list"}',
                 "values" => '{":v": {"y": 2}}') -> 'm';

-- REMOVE: attributes, nested members, list elements (the indexes refer to
-- the list before the update), and what is absent (no error).
SELECT st_update('u', 'main', 'REMOVE x, y, m.a.c, nope') - 'l' - 'm' - 'l2' - 'nl';
SELECT st_update('u', 'main', 'REMOVE l[0], l[2], l[99]') -> 'l';
SELECT st_update('u', 'main', 'REMOVE m.#list[0].x, m.#list[1]', names => '{"#list": "list"}') -> 'm';
SELECT st_update('u', 'main', 'REMOVE l2, nl, s2, l[10]') - 'm';

-- ADD: numbers (absent counts as zero), sets (union, created when absent).
SELECT st_update('u', 'main', 'ADD n :v, cnt :v', "values" => '{":v": {"N": "5"}}', typed => true)
       -> 'cnt' AS cnt;
SELECT st_update('u', 'main', 'ADD cnt :v', "values" => '{":v": {"N": "-7.5"}}', typed => true) -> 'cnt' AS cnt;
SELECT st_update('u', 'main', 'ADD tags :t, nums :n, bins :b',
                 "values" => '{":t": {"SS": ["b", "a"]}, ":n": {"NS": ["1", "2"]}, ":b": {"BS": ["AQ=="]}}',
                 typed => true) - 'l' - 'm' - 'PK' - 'SK' - 'n' - 's' - 'c' - 'cnt';
SELECT st_update('u', 'main', 'ADD tags :t, nums :n, bins :b, m.a.#count :one', names => '{"#count": "count"}',
                 "values" => '{":t": {"SS": ["c", "a"]}, ":n": {"NS": ["2.0", "3"]}, ":b": {"BS": ["AQ==", "Ag=="]},
                              ":one": {"N": "1"}}',
                 typed => true) - 'l' - 'PK' - 'SK' - 'n' - 's' - 'c' - 'cnt';

-- DELETE: set members go; a set left empty disappears; absent is no error.
SELECT st_update('u', 'main', 'DELETE tags :t, nums :n, nope :t',
                 "values" => '{":t": {"SS": ["a", "zzz"]}, ":n": {"NS": ["1", "2", "3"]}}',
                 typed => true) - 'l' - 'm' - 'PK' - 'SK' - 'n' - 's' - 'c' - 'cnt';
SELECT st_update('u', 'main', 'DELETE bins :b', "values" => '{":b": {"BS": ["AQ==", "Ag=="]}}',
                 typed => true) ? 'bins' AS bins_still_there;

-- Several clauses, in any order, each keyword once.
SELECT st_update('u', 'main', 'REMOVE c ADD more :t SET z = :z DELETE tags :d',
                 "values" => '{":t": {"SS": ["q"]}, ":z": {"BOOL": true}, ":d": {"SS": ["b"]}}',
                 typed => true) - 'l' - 'm';

-- return_values: NONE, ALL_OLD, UPDATED_OLD, ALL_NEW, UPDATED_NEW.
SELECT st_put('{"PK": "u", "SK": "rv", "a": 1, "b": {"c": 2, "d": 3}, "keep": "k"}');
SELECT st_update('u', 'rv', 'SET a = a + :one', "values" => '{":one": 1}', return_values => 'NONE') IS NULL AS none;
SELECT st_update('u', 'rv', 'SET a = a + :one', "values" => '{":one": 1}', return_values => 'ALL_OLD');
SELECT st_update('u', 'rv', 'SET a = a + :one', "values" => '{":one": 1}', return_values => 'ALL_NEW');
SELECT st_update('u', 'rv', 'SET a = a + :one, b.c = :v REMOVE b.d ADD e :one',
                 "values" => '{":one": 1, ":v": "new"}', return_values => 'UPDATED_OLD');
SELECT st_update('u', 'rv', 'SET a = a + :one, b.c = :v REMOVE keep ADD e :one',
                 "values" => '{":one": 1, ":v": "newer"}', return_values => 'UPDATED_NEW');
SELECT st_update('u', 'rv', 'REMOVE e', return_values => 'UPDATED_NEW') IS NULL AS nothing_left_to_return;
SELECT st_update('u', 'rv', 'SET f = :v', "values" => '{":v": 1}', return_values => 'UPDATED_OLD') IS NULL AS f_was_absent;
SELECT st_update('u', 'rv', 'SET a = :v', "values" => '{":v": {"N": "9"}}', return_values => 'UPDATED_NEW', typed => true);
SELECT st_get('u', 'rv');
-- On an item that did not exist: no old attributes.
SELECT st_update('u', 'rv-new1', 'SET a = :v', "values" => '{":v": 1}', return_values => 'ALL_OLD') IS NULL AS all_old;
SELECT st_update('u', 'rv-new2', 'SET a = :v', "values" => '{":v": 1}', return_values => 'UPDATED_OLD') IS NULL AS updated_old;
SELECT st_update('u', 'rv-new3', 'SET a = :v', "values" => '{":v": 1}', return_values => 'UPDATED_NEW');
SELECT st_update('u', 'rv-new4', 'SET a = :v', "values" => '{":v": 1}', return_values => 'ALL_NEW');
SELECT st_update('u', 'rv', 'SET a = :v', "values" => '{":v": 1}', return_values => 'all_new');
SELECT st_update('u', 'rv', 'SET a = :v', "values" => '{":v": 1}', return_values => 'ALL');
SELECT st_put('{"PK": "u", "SK": "rv"}', return_values => 'ALL_NEW');
SELECT st_delete('u', 'rv', return_values => 'UPDATED_OLD');

-- Conditions on updates (see conditions.sql for the whole language).
SELECT st_update('u', 'rv', 'SET a = a - :d', condition => 'a >= :d', "values" => '{":d": 1}') -> 'a' AS a;
SELECT st_update('u', 'rv', 'SET a = a - :d', condition => 'a >= :d', "values" => '{":d": 1}');
SELECT st_update('u', 'rv-cond', 'SET a = :v', condition => 'attribute_not_exists(PK)', "values" => '{":v": 1}');
SELECT st_update('u', 'rv-cond', 'SET a = :v', condition => 'attribute_not_exists(PK)', "values" => '{":v": 2}');
SELECT st_get('u', 'rv-cond');

-- Key attributes cannot be updated, however they are named.
SELECT st_update('u', 'main', 'SET PK = :v', "values" => '{":v": "x"}');
SELECT st_update('u', 'main', 'SET #k = :v', names => '{"#k": "SK"}', "values" => '{":v": "x"}');
SELECT st_update('u', 'main', 'REMOVE SK');
SELECT st_update('u', 'main', 'ADD PK :v', "values" => '{":v": {"SS": ["x"]}}', typed => true);
SELECT st_update('u', 'main', 'SET PK.x = :v', "values" => '{":v": "x"}');
SELECT st_update('u', 'absent', 'SET PK = :v', "values" => '{":v": "u"}');
SELECT st_get('u', 'absent') IS NULL AS not_created;
-- Keys given as text are checked like any key.
SELECT st_update('u', '', 'SET a = :v', "values" => '{":v": 1}');

-- GSI key attributes can change: the item moves within the index.
SELECT st_put('{"PK": "u", "SK": "g", "GSI1PK": "G#1", "GSI1SK": "S#2", "v": "moving"}');
SELECT st_put('{"PK": "u", "SK": "h", "GSI1PK": "G#1", "GSI1SK": "S#3", "v": "staying"}');
SELECT item ->> 'v' AS v, item ->> 'GSI1SK' AS gsi1sk FROM st_query('G#1', index => 'GSI1') AS item;
SELECT st_update('u', 'g', 'SET GSI1SK = :s', "values" => '{":s": "S#9"}') ->> 'GSI1SK';
SELECT item ->> 'v' AS v, item ->> 'GSI1SK' AS gsi1sk FROM st_query('G#1', index => 'GSI1') AS item;
SELECT st_update('u', 'g', 'SET GSI1PK = :p', "values" => '{":p": "G#2"}') ->> 'GSI1PK';
SELECT item ->> 'v' AS v FROM st_query('G#1', index => 'GSI1') AS item;
SELECT item ->> 'v' AS v FROM st_query('G#2', index => 'GSI1') AS item;
-- Removing a GSI key attribute takes the item out of the (sparse) index.
SELECT st_update('u', 'g', 'REMOVE GSI1SK') ? 'GSI1SK' AS has_gsi1sk;
SELECT count(*) AS in_g2 FROM st_query('G#2', index => 'GSI1');
SELECT st_update('u', 'g', 'SET GSI1SK = :s', "values" => '{":s": "S#1"}') ->> 'GSI1SK';
SELECT item ->> 'v' AS v FROM st_query('G#2', index => 'GSI1', sk_prefix => 'S#') AS item;
-- An index key of the wrong type or empty is refused, and nothing moves.
SELECT st_update('u', 'g', 'SET GSI1PK = :p', "values" => '{":p": 5}');
SELECT st_update('u', 'g', 'SET GSI1SK = :p', "values" => '{":p": ""}');
SELECT item ->> 'v' AS v, item ->> 'GSI1PK' AS gsi1pk FROM st_query('G#2', index => 'GSI1') AS item;
-- A brand-new item created by an update enters the index at once.
SELECT st_update('u', 'created', 'SET GSI1PK = :p, GSI1SK = :s, v = :v',
                 "values" => '{":p": "G#2", ":s": "S#0", ":v": "created"}', return_values => 'NONE');
SELECT item ->> 'v' AS v FROM st_query('G#2', index => 'GSI1') AS item;

-- Number limits: 38 significant digits, magnitude 1E-130 to below 1E+126.
SELECT st_put('{"PK": "u", "SK": "num", "big": 9.9999999999999999999999999999999999999E+125,
                "tiny": 1E-130, "prec": 12345678901234567890123456789012345678}');
SELECT st_update('u', 'num', 'SET r = big + big');
SELECT st_update('u', 'num', 'SET r = :a - big', "values" => '{":a": -9e125}');
SELECT st_update('u', 'num', 'ADD big :v', "values" => '{":v": {"N": "1E+125"}}', typed => true);
SELECT st_update('u', 'num', 'SET r = tiny - :v', "values" => '{":v": 0.5E-130}');
SELECT st_update('u', 'num', 'SET r = prec + :v', "values" => '{":v": 0.1}');
SELECT st_update('u', 'num', 'SET r = prec + :v', "values" => '{":v": 1}') ->> 'r' AS r;
SELECT st_update('u', 'num', 'SET r = tiny - tiny') ->> 'r' AS r;
SELECT st_update('u', 'num', 'SET r = big - big, q = tiny + tiny') - 'big' - 'prec' - 'tiny';

-- Item limits hold for the updated item: 400 KB (UpdateItem's own wording)
-- and 32 levels of nesting, however the update reaches them.
SELECT st_put(jsonb_build_object('PK', 'u', 'SK', 'big', 's', repeat('x', 409000))) IS NULL AS put;
SELECT st_update('u', 'big', 'SET t = :v', "values" => jsonb_build_object(':v', repeat('y', 1000)));
SELECT st_update('u', 'big', 'SET t = s');
SELECT length(st_get('u', 'big') ->> 's') AS s_length, st_get('u', 'big') ? 't' AS has_t;
SELECT st_put(jsonb_build_object('PK', 'u', 'SK', 'deep', 'm',
       (SELECT repeat('{"a": ', 31) || '1' || repeat('}', 31))::jsonb)) IS NULL AS put_32_levels;
SELECT st_update('u', 'deep', 'SET m' || repeat('.a', 30) || ' = :v', "values" => '{":v": {"x": 1}}',
                 return_values => 'NONE') IS NULL AS level_32_ok;
SELECT st_update('u', 'deep', 'SET m' || repeat('.a', 31) || ' = :v', "values" => '{":v": {"x": 1}}');
SELECT st_update('u', 'deep', 'SET m' || repeat('.a', 31) || ' = :v', "values" => '{":v": [1]}');
SELECT st_update('u', 'deep', 'SET c = m', return_values => 'NONE') IS NULL AS copy_at_same_level_ok;
SELECT st_update('u', 'deep', 'SET c.x = m');
SELECT st_get('u', 'deep') -> 'c' ? 'x' AS c_has_x;

-- Bad input: ValidationException, and the item stays exactly as it was.
CREATE TEMP TABLE snapshot AS SELECT st_get('u', 'main', typed => true) AS item;
SELECT st_get('u', 'main');
-- A path through a missing parent, or into the wrong type.
SELECT st_update('u', 'main', 'SET nope.x = :v', "values" => '{":v": 1}');
SELECT st_update('u', 'main', 'SET nope[0] = :v', "values" => '{":v": 1}');
SELECT st_update('u', 'main', 'SET s.x = :v', "values" => '{":v": 1}');
SELECT st_update('u', 'main', 'SET m[0] = :v', "values" => '{":v": 1}');
SELECT st_update('u', 'main', 'SET l.x = :v', "values" => '{":v": 1}');
SELECT st_update('u', 'main', 'SET m.a.b.c = :v', "values" => '{":v": 1}');
SELECT st_update('u', 'main', 'SET m.nope.x = :v, ok = :v', "values" => '{":v": 1}');
SELECT st_update('u', 'main', 'REMOVE nope.x');
SELECT st_update('u', 'main', 'REMOVE s[0]');
SELECT st_update('u', 'main', 'ADD nope.x :v', "values" => '{":v": {"N": "1"}}', typed => true);
SELECT st_update('u', 'main', 'DELETE nope.x :v', "values" => '{":v": {"SS": ["a"]}}', typed => true);
-- Operands that do not exist or have the wrong type.
SELECT st_update('u', 'main', 'SET a = nope');
SELECT st_update('u', 'main', 'SET a = nope + :v', "values" => '{":v": 1}');
SELECT st_update('u', 'main', 'SET a = list_append(nope, :v)', "values" => '{":v": [1]}');
SELECT st_update('u', 'main', 'SET a = s + :v', "values" => '{":v": 1}');
SELECT st_update('u', 'main', 'SET a = :v + :w', "values" => '{":v": 1, ":w": "x"}');
SELECT st_update('u', 'main', 'SET a = :v - :w', "values" => '{":v": [1], ":w": 1}');
SELECT st_update('u', 'main', 'SET a = list_append(:v, l)', "values" => '{":v": 1}');
SELECT st_update('u', 'main', 'SET a = list_append(l, s)');
SELECT st_update('u', 'main', 'SET a = list_append(m, l)');
SELECT st_update('u', 'main', 'ADD s :v', "values" => '{":v": {"N": "1"}}', typed => true);
SELECT st_update('u', 'main', 'ADD tags :v', "values" => '{":v": {"NS": ["1"]}}', typed => true);
SELECT st_update('u', 'main', 'ADD n :v', "values" => '{":v": {"SS": ["1"]}}', typed => true);
SELECT st_update('u', 'main', 'ADD n :v', "values" => '{":v": {"S": "1"}}', typed => true);
SELECT st_update('u', 'main', 'ADD l :v', "values" => '{":v": {"L": [{"N": "1"}]}}', typed => true);
SELECT st_update('u', 'main', 'DELETE tags :v', "values" => '{":v": {"N": "1"}}', typed => true);
SELECT st_update('u', 'main', 'DELETE tags :v', "values" => '{":v": {"NS": ["1"]}}', typed => true);
SELECT st_update('u', 'main', 'DELETE n :v', "values" => '{":v": {"NS": ["1"]}}', typed => true);
-- Functions where they do not belong.
SELECT st_update('u', 'main', 'SET a = size(s)');
SELECT st_update('u', 'main', 'SET a = attribute_exists(s)');
SELECT st_update('u', 'main', 'SET a = if_not_exists(:v, :v)', "values" => '{":v": 1}');
SELECT st_update('u', 'main', 'SET a = if_not_exists(s)');
SELECT st_update('u', 'main', 'SET a = list_append(:v)', "values" => '{":v": [1]}');
SELECT st_update('u', 'main', 'SET a = foo(s)');
-- Syntax.
SELECT st_update('u', 'main', 'SET a = :v,', "values" => '{":v": 1}');
SELECT st_update('u', 'main', 'SET a :v', "values" => '{":v": 1}');
SELECT st_update('u', 'main', 'SET a = :v + :v + :v', "values" => '{":v": 1}');
SELECT st_update('u', 'main', 'SET a = :v, REMOVE b', "values" => '{":v": 1}');
SELECT st_update('u', 'main', 'UPDATE a = :v', "values" => '{":v": 1}');
SELECT st_update('u', 'main', 'SET');
SELECT st_update('u', 'main', 'REMOVE');
SELECT st_update('u', 'main', 'REMOVE :v', "values" => '{":v": 1}');
SELECT st_update('u', 'main', 'ADD n', "values" => '{":v": 1}');
SELECT st_update('u', 'main', 'ADD n n');
SELECT st_update('u', 'main', 'ADD n :v + :v', "values" => '{":v": {"N": "1"}}', typed => true);
SELECT st_update('u', 'main', 'SET l[x] = :v', "values" => '{":v": 1}');
SELECT st_update('u', 'main', 'SET :v = n', "values" => '{":v": 1}');
SELECT st_update('u', 'main', '');
SELECT st_update('u', 'main', '  ');
-- Each clause once; paths may not overlap or conflict.
SELECT st_update('u', 'main', 'SET a = :v SET b = :v', "values" => '{":v": 1}');
SELECT st_update('u', 'main', 'REMOVE a remove b');
SELECT st_update('u', 'main', 'SET a = :v, a = :v', "values" => '{":v": 1}');
SELECT st_update('u', 'main', 'SET m = :v, m.a = :v', "values" => '{":v": 1}');
SELECT st_update('u', 'main', 'SET #a = :v REMOVE a', names => '{"#a": "a"}', "values" => '{":v": 1}');
SELECT st_update('u', 'main', 'SET l[0] = :v REMOVE l[0]', "values" => '{":v": 1}');
SELECT st_update('u', 'main', 'SET l[0] = :v, l.x = :v', "values" => '{":v": 1}');
SELECT st_update('u', 'main', 'ADD tags :s DELETE tags :s', "values" => '{":s": {"SS": ["x"]}}', typed => true);
-- Reserved words, placeholders undefined or unused.
SELECT st_update('u', 'main', 'SET name = :v', "values" => '{":v": 1}');
SELECT st_update('u', 'main', 'SET a = :nope', "values" => '{":v": 1}');
SELECT st_update('u', 'main', 'SET #nope = :v', "values" => '{":v": 1}');
SELECT st_update('u', 'main', 'SET a = :v', "values" => '{":v": 1, ":w": 2}');
SELECT st_update('u', 'main', 'SET a = :v', names => '{"#a": "a"}', "values" => '{":v": 1}');
SELECT st_update('u', 'main', 'SET a = :v', condition => 'b = :w', "values" => '{":v": 1, ":w": 1, ":x": 1}');
-- Limits.
SELECT st_update('u', 'main', 'SET a = :v' || repeat(' ', 4097 - 10), "values" => '{":v": 1}');
SELECT st_update('u', 'main', 'SET a' || repeat('.a', 32) || ' = :v', "values" => '{":v": 1}');
SELECT st_update('u', 'main', 'SET ' || string_agg('a' || i || '=:v+:v', ','), "values" => '{":v": 1}')
  FROM generate_series(1, 301) AS i;
SELECT st_update('u', 'main', 'SET a = :v', condition => repeat('NOT ', 300) || 'attribute_exists(a)',
                 "values" => '{":v": 1}');
SELECT st_get('u', 'main', typed => true) = (SELECT item FROM snapshot) AS unchanged;

-- Many distinct expressions in one statement (the parse cache is recycled
-- while requests are in flight): every update applies.
SELECT count(st_update('u', 'many', 'SET a' || i || ' = :v', condition => 'attribute_not_exists(z' || i || ')',
                       "values" => '{":v": 1}', return_values => 'NONE') IS NULL) AS calls
  FROM generate_series(1, 1500) AS i;
SELECT count(*) AS attributes FROM jsonb_object_keys(st_get('u', 'many'));

SELECT st_drop_table(t) FROM st_list_tables() AS t;
