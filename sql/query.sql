-- st_query: key conditions, order (S by UTF-8 bytes, N numerically, B by
-- unsigned bytes), direction, "limit", indexes, the plans it runs, and bad
-- input.

SELECT st_create_table('Qry') ->> 'TableName' AS created;
SELECT st_create_gsi('Qry', 'ByScore', 'game', 'score', sk_type => 'N') ->> 'TableName' AS with_gsi;
SET stdesign.default_table = 'Qry';

-- Sort keys whose byte order differs from most collations' order.
SELECT count(*) FROM (SELECT st_put(jsonb_build_object('PK', 'p', 'SK', s))
  FROM unnest(ARRAY['a', 'B', 'b', 'Z', 'é', 'e', 'ab', 'a#', 'a~', '😀', 'ü', '10', '9', '_']) AS s) AS puts;
-- Byte order: digits < upper case < '_' < lower case < '~' < multi-byte.
SELECT string_agg(item->>'SK', ' ') FROM st_query('p') AS item;
SELECT string_agg(item->>'SK', ' ') FROM st_query('p', forward => false) AS item;
SELECT string_agg(item->>'SK', ' ') FROM st_query('p', 'a') AS item;
SELECT string_agg(item->>'SK', ' ') FROM st_query('p', sk_from => 'a', sk_to => 'b') AS item;
SELECT string_agg(item->>'SK', ' ') FROM st_query('p', sk_from => 'b') AS item;
SELECT string_agg(item->>'SK', ' ') FROM st_query('p', sk_to => 'B') AS item;
SELECT string_agg(item->>'SK', ' ') FROM st_query('p', sk_from => 'é', sk_to => 'é') AS item;
-- "limit" is the number of items read, from the start of the direction.
SELECT string_agg(item->>'SK', ' ') FROM st_query('p', "limit" => 3) AS item;
SELECT string_agg(item->>'SK', ' ') FROM st_query('p', 'a', forward => false, "limit" => 2) AS item;
-- A partition that does not exist.
SELECT count(*) FROM st_query('nobody');

-- Numeric sort keys through the GSI: numeric order, not text order.
SELECT count(*) FROM (SELECT st_put(jsonb_build_object('PK', 'g' || i, 'SK', 'x', 'game', 'chess', 'score', v))
  FROM unnest(ARRAY[10, 9, -1, 100, 2.5, 0, -20.75]) WITH ORDINALITY AS u(v, i)) AS puts;
SELECT string_agg(item->>'score', ' ') FROM st_query('chess', index => 'ByScore') AS item;
SELECT string_agg(item->>'score', ' ') FROM st_query('chess', index => 'ByScore', sk_from => '0', sk_to => '1E1') AS item;
SELECT string_agg(item->>'score', ' ') FROM st_query('chess', index => 'ByScore', forward => false, "limit" => 2) AS item;
-- An item whose GSI key has the wrong type is rejected, as DynamoDB does.
SELECT st_put('{"PK": "g99", "SK": "x", "game": "chess", "score": "high"}');
SELECT st_put('{"PK": "g99", "SK": "x", "game": "", "score": 1}');

-- Binary keys: unsigned byte order (0x80 and 0xff after 0x7f).
SELECT st_create_table('QryB', 'pk', 'sk', 'S', 'B') ->> 'TableName' AS created;
SELECT count(*) FROM (SELECT st_put(jsonb_build_object('pk', jsonb_build_object('S', 'b'),
                                                       'sk', jsonb_build_object('B', encode(b, 'base64'))),
                                    'QryB', typed => true)
  FROM unnest(ARRAY['\x00'::bytea, '\x7f', '\x80', '\xff', '\x0001', '\xff00']) AS b) AS puts;
SELECT string_agg(encode(decode(item->>'sk', 'base64'), 'hex'), ' ') FROM st_query('b', "table" => 'QryB') AS item;
SELECT string_agg(encode(decode(item->>'sk', 'base64'), 'hex'), ' ')
  FROM st_query('b', encode('\xff'::bytea, 'base64'), "table" => 'QryB') AS item;

-- Numeric partition keys on a hash-only table.
SELECT st_create_table('QryN', 'id', NULL, 'N') ->> 'TableName' AS created;
SELECT st_put('{"id": 1.50, "v": "x"}', 'QryN');
SELECT st_query('1.5', "table" => 'QryN'), st_query('15E-1', "table" => 'QryN');

-- The plans: index range scans in key order, no Sort, no Seq Scan.
SET plan_cache_mode = force_generic_plan;
SELECT stdesign.query_sql('Qry', NULL, 1, 2, false) AS sql \gset
\echo :sql
PREPARE table_query(text, text, text, bigint) AS :sql;
EXPLAIN (COSTS OFF) EXECUTE table_query('p', 'a', 'b', NULL);
SELECT stdesign.query_sql('Qry', 'ByScore', 1, 1, true) AS sql \gset
\echo :sql
PREPARE gsi_query(text, numeric, numeric, bigint) AS :sql;
EXPLAIN (COSTS OFF) EXECUTE gsi_query('chess', 0, 10, 5);
RESET plan_cache_mode;

-- Bad inputs ---------------------------------------------------------------
SELECT * FROM st_query(NULL);
SELECT * FROM st_query('p', index => 'Nope');
SELECT * FROM st_query('p', "table" => 'Nope');
SELECT * FROM st_query('chess', 'x', index => 'ByScore');
SELECT * FROM st_query('chess', index => 'ByScore', sk_from => 'ten');
SELECT * FROM st_query('p', 'a', sk_from => 'a');
SELECT * FROM st_query('p', sk_from => 'b', sk_to => 'a');
SELECT * FROM st_query('p', "limit" => 0);
SELECT * FROM st_query('p', "limit" => -5);
SELECT * FROM st_query('1', 'x', "table" => 'QryN');
SELECT * FROM st_query('', "table" => 'Qry');
SELECT * FROM st_query('abc', "table" => 'QryN');

RESET stdesign.default_table;
SELECT st_drop_table(t) FROM st_list_tables() AS t;
