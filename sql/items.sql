-- Items: st_put, st_get, st_delete in plain and typed JSON; all ten
-- AttributeValue types; number canonical form and limits; sets; sizes;
-- key validation; conversions; and bad input of every kind.

SELECT st_create_table('Items') ->> 'TableName' AS created;
SET stdesign.default_table = 'Items';
SELECT st_create_table('Other') ->> 'TableName' AS created;  -- the GUC keeps "Items" the default

-- Plain JSON: string, number, boolean, null, list, map.
SELECT st_put('{"PK": "p", "SK": "plain", "s": "text", "n": 7.50, "b": true,
                "z": null, "l": [1, "two", [3]], "m": {"a": {"b": 1}}}');
SELECT st_get('p', 'plain');
SELECT st_get('p', 'plain', typed => true);

-- Typed JSON: all ten types, including sets and binary.
SELECT st_put('{"PK": {"S": "p"}, "SK": {"S": "typed"}, "s": {"S": ""}, "n": {"N": "-0.000100"},
                "bin": {"B": "AAEC/w=="}, "t": {"BOOL": false}, "nul": {"NULL": true},
                "l": {"L": [{"N": "1"}, {"S": "x"}]}, "m": {"M": {"k": {"SS": ["b", "a"]}}},
                "ss": {"SS": ["x", "y"]}, "ns": {"NS": ["1", "1.5", "10"]}, "bs": {"BS": ["AA==", "AQ=="]}}',
              typed => true);
SELECT st_get('p', 'typed', typed => true);
-- Plain output of sets and binary: arrays and base64 strings.
SELECT st_get('p', 'typed');

-- Number canonical form: stored and returned canonical.
SELECT v AS sent, st_to_typed(jsonb_build_object('v', v::numeric)) #>> '{v,N}' AS stored
  FROM (VALUES ('007.50'), ('1e3'), ('-0'), ('0.000'), ('1.0E-5'), ('123456789012345678901234567890.12345678')) AS d(v);
SELECT v AS sent, st_to_plain(jsonb_build_object('v', jsonb_build_object('N', v))) -> 'v' AS plain
  FROM (VALUES ('+5'), ('.5'), ('5.'), ('1E-130'), ('9.9999999999999999999999999999999999999E+125')) AS d(v);

-- Overwrite and ALL_OLD.
SELECT st_put('{"PK": "p", "SK": "plain", "s": "second"}', return_values => 'ALL_OLD') ->> 's' AS old_s;
SELECT st_get('p', 'plain');
SELECT st_put('{"PK": "p", "SK": "new"}', return_values => 'ALL_OLD') IS NULL AS no_old_item;

-- Delete: NONE, ALL_OLD, and deleting what is not there.
SELECT st_delete('p', 'new');
SELECT st_delete('p', 'plain', return_values => 'ALL_OLD');
SELECT st_delete('p', 'plain', return_values => 'ALL_OLD') IS NULL AS already_gone;
SELECT st_get('p', 'plain') IS NULL AS absent;

-- Another table by name; hash-only and N/B keys.
SELECT st_put('{"PK": "o", "SK": "o", "x": 1}', 'Other');
SELECT st_get('o', 'o', 'Other');
SELECT st_create_table('Num', 'id', NULL, 'N') ->> 'TableName' AS created;
SELECT st_put('{"id": 42.0, "v": "answer"}', 'Num');
SELECT st_get('42', NULL, 'Num'), st_get('4.2e1', "table" => 'Num') ->> 'v' AS same_number;
SELECT st_create_table('Bin', 'b', 'r', 'B', 'N') ->> 'TableName' AS created;
SELECT st_put('{"b": {"B": "3q2+7w=="}, "r": {"N": "1"}, "v": {"S": "x"}}', 'Bin', typed => true);
SELECT st_get('3q2+7w==', '1', 'Bin', typed => true);
SELECT pk, sk FROM stdesign_data."Bin";

-- Sizes by DynamoDB's rules.
SELECT st_item_size('{"PK": "abc", "n": 12345, "b": true, "z": null}');
SELECT st_item_size('{"l": [1, 2], "m": {"a": "b"}}');
SELECT st_item_size('{"s": {"SS": ["ab", "c"]}, "b": {"B": "AAEC"}}', typed => true);
-- The size read straight from a stored item equals the size of its tree.
SELECT count(*) AS items, bool_and(stdesign.item_size(item) = st_item_size(item, true)) AS sizes_agree
  FROM stdesign_data."Items";
-- 400 KB: the largest item that fits, and one byte more.
SELECT st_put(jsonb_build_object('PK', 'big', 'SK', 'ok', 'v', repeat('x', 409600 - 2 - 3 - 2 - 2 - 1)));
SELECT st_item_size(st_get('big', 'ok'));
SELECT st_put(jsonb_build_object('PK', 'big', 'SK', 'no', 'v', repeat('x', 409600 - 2 - 3 - 2 - 2)));
-- Longest keys: 2048-byte partition key, 1024-byte sort key.
SELECT st_put(jsonb_build_object('PK', repeat('p', 2048), 'SK', repeat('s', 1024), 'v', 1));
SELECT st_get(repeat('p', 2048), repeat('s', 1024)) -> 'v' AS long_keys;
SELECT st_put(jsonb_build_object('PK', repeat('é', 1024), 'SK', repeat('ü', 512), 'v', 2));
SELECT st_get(repeat('é', 1024), repeat('ü', 512)) -> 'v' AS long_multibyte_keys;

-- Bad inputs -----------------------------------------------------------------
-- Keys.
SELECT st_put('{"SK": "x"}');
SELECT st_put('{"PK": "x"}');
SELECT st_put('{"PK": 1, "SK": "x"}');
SELECT st_put('{"PK": "", "SK": "x"}');
SELECT st_put('{"PK": "x", "SK": ""}');
SELECT st_put(jsonb_build_object('PK', repeat('p', 2049), 'SK', 'x'));
SELECT st_put(jsonb_build_object('PK', 'x', 'SK', repeat('s', 1025)));
SELECT st_put('{"id": "not a number"}', 'Num');
SELECT st_get('x');
SELECT st_get('x', 'y', 'Num');
SELECT st_get('abc', NULL, 'Num');
SELECT st_get(NULL, 'x');
SELECT st_get('x', '');
SELECT st_get('!!!', '1', 'Bin');
SELECT st_delete('x');
-- Numbers.
SELECT st_to_typed('{"v": 1e126}');
SELECT st_to_typed('{"v": 1e-131}');
SELECT st_to_typed('{"v": 1.23456789012345678901234567890123456789}');
SELECT st_to_plain('{"v": {"N": "abc"}}');
SELECT st_to_plain('{"v": {"N": ""}}');
SELECT st_to_plain('{"v": {"N": " 1"}}');
SELECT st_to_plain('{"v": {"N": "0x10"}}');
SELECT st_to_plain('{"v": {"N": "Infinity"}}');
SELECT st_to_plain('{"v": {"N": 5}}');
-- AttributeValue shapes.
SELECT st_to_plain('{"v": {}}');
SELECT st_to_plain('{"v": {"S": "a", "N": "1"}}');
SELECT st_to_plain('{"v": {"X": "a"}}');
SELECT st_to_plain('{"v": "bare"}');
SELECT st_to_plain('{"v": {"S": 1}}');
SELECT st_to_plain('{"v": {"BOOL": "true"}}');
SELECT st_to_plain('{"v": {"NULL": false}}');
SELECT st_to_plain('{"v": {"L": {}}}');
SELECT st_to_plain('{"v": {"M": []}}');
SELECT st_to_plain('{"v": {"SS": "a"}}');
SELECT st_to_plain('{"v": {"SS": [1]}}');
SELECT st_to_plain('{"v": {"B": "not base64!"}}');
SELECT st_to_plain('[1, 2]');
SELECT st_to_typed('"scalar"');
-- Sets.
SELECT st_to_plain('{"v": {"SS": []}}');
SELECT st_to_plain('{"v": {"NS": []}}');
SELECT st_to_plain('{"v": {"BS": []}}');
SELECT st_to_plain('{"v": {"SS": ["a", "b", "a"]}}');
SELECT st_to_plain('{"v": {"NS": ["1", "1.0"]}}');
SELECT st_to_plain('{"v": {"BS": ["AA==", "AA=="]}}');
-- Nesting: 32 levels are allowed, 33 are not.
SELECT st_item_size((repeat('{"a": ', 32) || '1' || repeat('}', 32))::jsonb) AS depth_32_ok;
SELECT st_item_size((repeat('{"a": ', 33) || '1' || repeat('}', 33))::jsonb);
SELECT st_item_size(('{"a": ' || repeat('[', 5000) || repeat(']', 5000) || '}')::jsonb);
SELECT st_to_plain(('{"a": ' || repeat('{"L": [', 40) || repeat(']}', 40) || '}')::jsonb);
-- U+0000 cannot be stored: jsonb itself refuses it, before stdesign sees it.
SELECT st_to_plain('{"v": {"S": "a\u0000b"}}');
-- Other arguments.
SELECT st_put(NULL);
SELECT st_put('{"PK": "a", "SK": "b"}', return_values => 'ALL_NEW');
SELECT st_put('{"PK": "a", "SK": "b"}', return_values => 'SOMETIMES');
SELECT st_put('{"PK": "a", "SK": "b"}', 'NoSuchTable');
SELECT st_put('{"PK": "a", "SK": "b"}', names => '{"#a": "x"}');
SELECT st_put('{"PK": "a", "SK": "b"}', "values" => '{":a": 1}');
SELECT st_delete('a', 'b', return_values => 'UPDATED_NEW');
-- The server is still there, and nothing was written by the failures.
SELECT count(*) AS items FROM stdesign_data."Items";

RESET stdesign.default_table;
SELECT st_get('o', 'o');  -- two tables and no default
SELECT st_drop_table(t) FROM st_list_tables() AS t;
