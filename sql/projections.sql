-- ProjectionExpression on st_get, st_query and st_scan: top-level and
-- nested paths come back inside their containers, list elements are packed
-- in list order, absent paths are left out; #names; and bad input.
\set VERBOSITY terse

SELECT st_create_table('Proj') ->> 'TableName' AS created;
SET stdesign.default_table = 'Proj';

SELECT st_put('{"PK": "p", "SK": "1", "a": 1, "b": "two", "name": "reserved",
                "l": [10, {"x": 11, "y": 12}, [13, 14], 15],
                "m": {"k1": {"deep": {"deeper": "bottom", "other": 0}}, "k2": [1, 2, 3], "k3": "v3"},
                "dotted.attr": "dot"}');
SELECT st_put('{"PK": {"S": "p"}, "SK": {"S": "2"}, "a": {"N": "2"}, "ss": {"SS": ["s1", "s2"]},
                "bin": {"B": "AAE="}, "m": {"M": {"k3": {"S": "other"}}}}', typed => true);
SELECT st_put('{"PK": "r", "SK": "1", "a": 3, "l": [{"x": 31}]}');

-- st_get: top level (keys only when asked for), nested maps, list elements.
SELECT st_get('p', '1', projection => 'a');
SELECT st_get('p', '1', projection => 'a, b, PK');
SELECT st_get('p', '1', projection => 'm.k1.deep.deeper');
SELECT st_get('p', '1', projection => 'm.k1.deep.deeper, m.k3, a');
SELECT st_get('p', '1', projection => 'l[1]');
SELECT st_get('p', '1', projection => 'l[3], l[0]');
SELECT st_get('p', '1', projection => 'l[1].y, l[2][1]');
SELECT st_get('p', '1', projection => 'm.k2[2], m.k1.deep');
SELECT st_get('p', '1', projection => 'l[1].x, l[1].y');
-- Absent paths are left out; so is a container nothing was found in.
SELECT st_get('p', '1', projection => 'a, nope, m.nope, l[9], l[0].x, m.k3.x, b[0]');
SELECT st_get('p', '1', projection => 'nope');
SELECT st_get('p', 'absent', projection => 'a') IS NULL AS absent_item;
-- #names: reserved words, names with dots, placeholders inside paths.
SELECT st_get('p', '1', projection => '#n, #d', names => '{"#n": "name", "#d": "dotted.attr"}');
SELECT st_get('p', '1', projection => '#m.#k.deep', names => '{"#m": "m", "#k": "k1"}');
SELECT st_get('p', '1', projection => 'dotted.attr');
-- Typed output keeps every type; sets and binary are whole values.
SELECT st_get('p', '2', projection => 'ss, bin, a, m.k3', typed => true);
SELECT st_get('p', '1', projection => 'l[2], m.k1.deep.#o', names => '{"#o": "other"}', typed => true);

-- st_query and st_scan: each item projected the same way; an item with
-- none of the paths comes back as an empty map.
SELECT item FROM st_query('p', projection => 'a, m.k3') AS item;
SELECT item FROM st_query('p', projection => 'SK, l[1].x, ss') AS item;
SELECT item FROM st_query('p', sk_prefix => '1', projection => 'm.k2[0], m.k2[2], l[2][0]', typed => true) AS item;
SELECT item FROM st_scan(projection => 'PK, SK, l[0].x') AS item;
SELECT item FROM st_scan(projection => 'a', "limit" => 2) AS item;
SELECT item FROM st_scan(projection => '#a', names => '{"#a": "a"}', filter => '#a > :v', "values" => '{":v": 1}') AS item;

-- Bad input.
SELECT st_get('p', '1', projection => '');
SELECT st_get('p', '1', projection => 'a,');
SELECT st_get('p', '1', projection => ',a');
SELECT st_get('p', '1', projection => 'a b');
SELECT st_get('p', '1', projection => 'a.');
SELECT st_get('p', '1', projection => 'l[]');
SELECT st_get('p', '1', projection => 'l[-1]');
SELECT st_get('p', '1', projection => '[1]');
SELECT st_get('p', '1', projection => ':v');
SELECT st_get('p', '1', projection => 'size(a)');
SELECT st_get('p', '1', projection => 'name');
SELECT st_get('p', '1', projection => 'm.status');
SELECT st_get('p', '1', projection => '#x');
SELECT st_get('p', '1', projection => 'a', names => '{"#x": "x"}');
SELECT st_get('p', '1', projection => 'a', names => '{}');
SELECT st_get('p', '1', names => '{"#x": "x"}');
SELECT st_get('p', '1', projection => 'a, a');
SELECT st_get('p', '1', projection => 'm, m.k1');
SELECT st_get('p', '1', projection => 'm.k1.deep, m.k1');
SELECT st_get('p', '1', projection => '#a, a', names => '{"#a": "a"}');
SELECT st_get('p', '1', projection => 'l[0], l.x');
SELECT st_get('p', '1', projection => 'l[1], l[1]');
SELECT st_get('p', '1', projection => 'a' || repeat('.a', 32));
SELECT st_get('p', '1', projection => 'a' || repeat(',a', 2000));
SELECT st_get('p', '1', projection => 'a' || repeat(',a', 2048));
SELECT st_get('p', '1', projection => string_agg('a' || i, ', ')) IS NULL AS many_paths
  FROM generate_series(1, 500) AS i;
SELECT st_query('p', projection => 'a AND b');
SELECT st_scan(projection => 'a = :v');

SELECT st_drop_table(t) FROM st_list_tables() AS t;
