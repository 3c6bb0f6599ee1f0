-- st_put_all: an aggregate that loads the items of a query, validated as
-- st_put validates them, 1000 per statement.

SELECT st_create_table('Bulk') ->> 'TableName' AS created;
SELECT st_create_gsi('Bulk', 'ByG', 'g', 's') IS NOT NULL AS gsi;

-- 2500 items: three chunks, GSI maintained.
SELECT st_put_all(jsonb_build_object('PK', 'P' || (i % 50), 'SK', lpad(i::text, 5, '0'), 'g', 'G' || (i % 7),
                                     's', lpad(i::text, 5, '0'), 'n', i * 1.50), 'Bulk') AS loaded
  FROM generate_series(1, 2500) AS i;
SELECT count(*) AS items FROM stdesign_data."Bulk";
SELECT count(*) AS in_gsi FROM st_query('G3', "table" => 'Bulk', index => 'ByG');
SELECT st_get('P7', '00007', 'Bulk');
-- Typed input; numbers are stored canonical.
SELECT st_put_all(item, 'Bulk', true) AS loaded
  FROM (VALUES ('{"PK": {"S": "T"}, "SK": {"S": "1"}, "n": {"N": "007.50"}}'::jsonb),
               ('{"PK": {"S": "T"}, "SK": {"S": "2"}, "ss": {"SS": ["b", "a"]}}')) AS v(item);
SELECT st_get('T', '1', 'Bulk', typed => true), st_get('T', '2', 'Bulk', typed => true);
-- The same key twice: the later item wins, as two st_put calls would.
SELECT st_put_all(jsonb_build_object('PK', 'D', 'SK', 'x', 'v', i), 'Bulk') AS loaded
  FROM generate_series(1, 3) AS i;
SELECT st_get('D', 'x', 'Bulk');
-- No rows: nothing written, 0.
SELECT st_put_all(jsonb_build_object('PK', 'Z', 'SK', 'x'), 'Bulk') AS loaded FROM generate_series(1, 0);
-- The default table.
SELECT st_put_all(jsonb_build_object('PK', 'E', 'SK', 'x')) AS loaded;

-- Bad items stop the statement and write nothing of it.
SELECT count(*) AS before FROM stdesign_data."Bulk" \gset
SELECT st_put_all(item, 'Bulk') FROM (VALUES ('{"PK": "ok", "SK": "1"}'::jsonb), ('{"PK": "no"}')) AS v(item);
SELECT st_put_all(item, 'Bulk') FROM (VALUES ('{"PK": "ok", "SK": "1", "g": 1}'::jsonb)) AS v(item);
SELECT st_put_all(NULL::jsonb, 'Bulk');
SELECT st_put_all('{"PK": "a", "SK": "b"}'::jsonb, 'Nope');
SELECT st_put_all('{"PK": {"S": "a"}, "SK": {"S": "b"}, "n": {"N": "1e200"}}'::jsonb, 'Bulk', true);
SELECT count(*) = :before AS nothing_written FROM stdesign_data."Bulk";

-- Sizes read from stored items agree with sizes of their trees.
SELECT count(*) AS items, bool_and(stdesign.item_size(item) = st_item_size(item, true)) AS sizes_agree
  FROM stdesign_data."Bulk";

SELECT st_drop_table('Bulk');
