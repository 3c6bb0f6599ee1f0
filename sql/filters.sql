-- FilterExpression on st_query and st_scan: applied to the items that
-- "limit" read (a page of 3 with a filter holds at most 3 items, possibly
-- fewer), never to key attributes of the queried key space, with the same
-- language as conditions (conditions.sql covers every operator), and bad
-- input reported as "Invalid FilterExpression".
\set VERBOSITY terse

SELECT st_create_table('Filt') ->> 'TableName' AS created;
SELECT st_create_gsi('Filt', 'ByKind', 'kind', 'n', sk_type => 'N') ->> 'TableName' AS gsi;
SET stdesign.default_table = 'Filt';

-- Ten items in partition p (n = 1..10, kinds alternating), three in q.
SELECT st_put(jsonb_build_object('PK', 'p', 'SK', lpad(i::text, 2, '0'), 'n', i,
                                 'kind', CASE WHEN i % 2 = 0 THEN 'even' ELSE 'odd' END,
                                 'tags', CASE WHEN i % 3 = 0 THEN jsonb_build_array('three') ELSE '[]'::jsonb END))
  FROM generate_series(1, 10) AS i;
SELECT st_put('{"PK": {"S": "q"}, "SK": {"S": "a"}, "kind": {"S": "odd"}, "n": {"N": "11"}, "ss": {"SS": ["x", "y"]}}', typed => true);
SELECT st_put('{"PK": "q", "SK": "b", "kind": "even", "n": 12, "name": "bee"}');
SELECT st_put('{"PK": "q", "SK": "c", "other": true}');

-- A filter keeps the items for which it holds.
SELECT item ->> 'SK' AS sk FROM st_query('p', filter => 'n > :v', "values" => '{":v": 7}') AS item;
SELECT item ->> 'SK' AS sk FROM st_query('p', filter => 'kind = :k AND n BETWEEN :lo AND :hi',
                                         "values" => '{":k": "odd", ":lo": 2, ":hi": 8}') AS item;
SELECT item ->> 'SK' AS sk FROM st_query('p', filter => 'contains(tags, :t) OR n IN (:a, :b)',
                                         "values" => '{":t": "three", ":a": 1, ":b": 10}') AS item;
SELECT item ->> 'SK' AS sk FROM st_query('p', filter => 'size(tags) > :z', "values" => '{":z": 0}') AS item;
SELECT item ->> 'SK' AS sk FROM st_query('p', filter => 'NOT begins_with(kind, :e)', "values" => '{":e": "e"}',
                                         sk_from => '03', sk_to => '07') AS item;
SELECT count(*) AS none FROM st_query('p', filter => 'attribute_exists(nope)');

-- "limit" counts the items read before the filter: at most that many come
-- back, possibly fewer, possibly none although later items would match.
SELECT item ->> 'SK' AS sk FROM st_query('p', "limit" => 3, filter => 'n >= :v', "values" => '{":v": 2}') AS item;
SELECT count(*) AS from_first_3 FROM st_query('p', "limit" => 3, filter => 'n > :v', "values" => '{":v": 3}');
SELECT count(*) AS without_limit FROM st_query('p', filter => 'n > :v', "values" => '{":v": 3}');
SELECT item ->> 'SK' AS sk FROM st_query('p', "limit" => 3, forward => false, filter => 'kind = :k',
                                         "values" => '{":k": "odd"}') AS item;
SELECT item ->> 'SK' AS sk FROM st_query('p', "limit" => 3, filter => 'kind = :k', "values" => '{":k": "odd"}',
                                         sk_from => '04') AS item;
SELECT count(*) AS "limit_1" FROM st_query('p', "limit" => 1, filter => 'kind = :k', "values" => '{":k": "even"}');

-- Scan: the filter may use any attribute, key attributes included.
SELECT item ->> 'PK' AS pk, item ->> 'SK' AS sk
  FROM st_scan(filter => 'kind = :k AND PK = :q', "values" => '{":k": "even", ":q": "q"}') AS item;
SELECT count(*) AS scanned FROM st_scan(filter => 'attribute_not_exists(kind) OR n >= :v', "values" => '{":v": 9}');
SELECT count(*) AS "limit_3" FROM st_scan("limit" => 3, filter => 'n > :v', "values" => '{":v": 1}');
SELECT count(*) AS "limit_5" FROM st_scan("limit" => 5, filter => 'n > :v', "values" => '{":v": 1}');
SELECT count(*) AS "limit_100" FROM st_scan("limit" => 100, filter => 'n > :v', "values" => '{":v": 1}');
SELECT item ->> 'SK' AS sk FROM st_scan(filter => 'SK > :s AND begins_with(PK, :p)',
                                        "values" => '{":s": "08", ":p": "p"}') AS item;

-- On an index: a query's filter may use the table's keys (they are not the
-- index's), but not the index's own.
SELECT item ->> 'SK' AS sk FROM st_query('odd', index => 'ByKind', filter => 'PK = :p AND SK >= :s',
                                         "values" => '{":p": "p", ":s": "05"}') AS item;
SELECT count(*) AS odd_scan FROM st_scan(index => 'ByKind', filter => 'kind = :k', "values" => '{":k": "odd"}');
SELECT st_query('odd', index => 'ByKind', filter => 'n > :v', "values" => '{":v": 1}');
SELECT st_query('odd', index => 'ByKind', filter => '#k = :v', names => '{"#k": "kind"}', "values" => '{":v": "odd"}');

-- Placeholders, typed values, and a projection alongside the filter (the
-- filter sees the whole item, the projection shapes what is returned).
SELECT item FROM st_query('q', filter => '#n = :v', names => '{"#n": "name"}', "values" => '{":v": "bee"}') AS item;
SELECT item FROM st_query('q', filter => 'contains(ss, :x)', "values" => '{":x": {"S": "y"}}', typed => true) AS item;
SELECT item FROM st_query('q', filter => 'attribute_type(ss, :t)', "values" => '{":t": {"S": "SS"}}',
                          projection => 'n', typed => true) AS item;
SELECT item FROM st_scan(filter => 'n = :v', "values" => '{":v": 12}', projection => 'SK, #n',
                         names => '{"#n": "name"}') AS item;

-- Bad input: the filter is checked before anything is read.
SELECT st_query('p', filter => 'SK = :s', "values" => '{":s": "01"}');
SELECT st_query('p', filter => '#k = :s', names => '{"#k": "PK"}', "values" => '{":s": "p"}');
SELECT st_query('p', filter => 'size(PK) > :s', "values" => '{":s": 1}');
SELECT st_query('p', filter => 'n >', "values" => '{":v": 1}');
SELECT st_query('p', filter => '');
SELECT st_query('p', filter => 'name = :v', "values" => '{":v": 1}');
SELECT st_query('p', filter => 'n = :v');
SELECT st_query('p', filter => 'n = :v', "values" => '{":v": 1, ":w": 2}');
SELECT st_query('p', filter => 'n = :v', names => '{"#x": "x"}', "values" => '{":v": 1}');
SELECT st_query('p', "values" => '{":v": 1}');
SELECT st_query('p', filter => 'begins_with(kind, :v)', "values" => '{":v": 1}');
SELECT st_query('p', filter => 'n BETWEEN :b AND :a', "values" => '{":a": 1, ":b": 2}');
SELECT st_query('p', filter => 'n IN (' || string_agg(':v', ',') || ')', "values" => '{":v": 1}')
  FROM generate_series(1, 101);
SELECT st_query('p', filter => repeat('(', 40) || 'n = :v' || repeat(')', 40), "values" => '{":v": 1}');
SELECT st_query('p', filter => 'n = :v' || repeat(' ', 4097), "values" => '{":v": 1}');
SELECT st_scan(filter => 'n = :v SET x = :v', "values" => '{":v": 1}');
SELECT st_scan(filter => 'if_not_exists(n, :v)', "values" => '{":v": 1}');
SELECT st_scan("limit" => 0, filter => 'n = :v', "values" => '{":v": 1}');

SELECT st_drop_table(t) FROM st_list_tables() AS t;
