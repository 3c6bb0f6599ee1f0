-- An import into a table that is empty when it begins builds the table's
-- btree indexes at its end (as REINDEX builds them): the entries of each
-- index whose columns all order as their bytes (S and B keys) kept by the
-- load, sorted (spilled to temporary files past maintenance_work_mem) and
-- fed to the build; the others (N keys, a user's numeric expression) built
-- from a scan of the table.  The key index's kept entries find keys the
-- import writes twice: the last line's row stays, the others are deleted.
-- After each import amcheck verifies every btree index of the table against
-- the table (bt_index_parent_check: structure, order, and every row of the
-- table found in the index).

CREATE EXTENSION amcheck;

-- Every btree index of a table checked; their names in order.
CREATE FUNCTION rb_check(tab text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  ix regclass;
  names text[] := '{}';
BEGIN
  FOR ix IN SELECT i.indexrelid::regclass
              FROM pg_index AS i JOIN pg_class AS c ON c.oid = i.indexrelid JOIN pg_am AS a ON a.oid = c.relam
             WHERE i.indrelid = format('stdesign_data.%I', (SELECT relation_name FROM stdesign.tables WHERE table_name = tab))::regclass
               AND a.amname = 'btree'
             ORDER BY c.relname
  LOOP
    PERFORM bt_index_parent_check(ix, heapallindexed => true);
    names := names || ix::text;
  END LOOP;
  RETURN array_to_string(names, ', ');
END $$;

-- Rows inserted, updated and deleted since rb_mark, in one transaction
-- (pg_stat_xact_user_tables also counts, until they are flushed, those of
-- transactions before: rb_mark notes them first).
CREATE TEMP TABLE rb_marked (ins bigint, upd bigint, del bigint);
CREATE FUNCTION rb_counts(tab text) RETURNS TABLE (ins bigint, upd bigint, del bigint) LANGUAGE sql AS $$
  SELECT n_tup_ins, n_tup_upd, n_tup_del FROM pg_stat_xact_user_tables
   WHERE relid = format('stdesign_data.%I', (SELECT relation_name FROM stdesign.tables WHERE table_name = tab))::regclass
$$;
CREATE FUNCTION rb_mark(tab text) RETURNS void LANGUAGE sql AS $$
  DELETE FROM rb_marked;
  INSERT INTO rb_marked SELECT * FROM rb_counts(tab);
$$;
CREATE FUNCTION rb_writes(tab text) RETURNS TABLE (ins bigint, upd bigint, del bigint) LANGUAGE sql AS $$
  SELECT c.ins - m.ins, c.upd - m.upd, c.del - m.del FROM rb_counts(tab) AS c, rb_marked AS m
$$;

-- ---------------------------------------------------------------------------
-- 1. S keys, a GSI on S keys (sparse: a third of the items lack G, a fifth
-- GS) and one whose sort key is N (built from a scan of the table).
-- 5,000 lines in no key order (k = i * 7919 mod 5003: distinct for i < 5003);
-- lines 4001-4200 repeat the keys of lines 1-200 (in the fifth chunk of
-- 1,000 lines); line 1's key is written four times (lines 1, 2500, 4001
-- and 4999: three chunks), and line 4500 repeats line 4300's key in the
-- same chunk (the chunk keeps the later line; so it does 4999 over 4001).
SELECT st_create_table('{
  "TableName": "RbStr",
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "SK", "AttributeType": "S"},
                           {"AttributeName": "G", "AttributeType": "S"}, {"AttributeName": "GS", "AttributeType": "S"},
                           {"AttributeName": "GN", "AttributeType": "N"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
  "GlobalSecondaryIndexes": [{"IndexName": "ByG", "KeySchema": [{"AttributeName": "G", "KeyType": "HASH"},
                                                                {"AttributeName": "GS", "KeyType": "RANGE"}],
                              "Projection": {"ProjectionType": "ALL"}},
                             {"IndexName": "ByGN", "KeySchema": [{"AttributeName": "G", "KeyType": "HASH"},
                                                                 {"AttributeName": "GN", "KeyType": "RANGE"}],
                              "Projection": {"ProjectionType": "KEYS_ONLY"}}],
  "BillingMode": "PAY_PER_REQUEST"}'::jsonb) IS NOT NULL AS created;
CREATE TEMP TABLE str_lines AS
SELECT i, k, jsonb_build_object('Item',
         jsonb_build_object('PK', jsonb_build_object('S', 'P#' || (k % 37)),
                            'SK', jsonb_build_object('S', 'S#' || k),
                            'v', jsonb_build_object('S', 'line ' || i))
         || CASE WHEN i % 3 <> 0 THEN jsonb_build_object('G', jsonb_build_object('S', 'g' || (k % 7))) ELSE '{}' END
         || CASE WHEN i % 5 <> 0 THEN jsonb_build_object('GS', jsonb_build_object('S', 'gs' || (k % 101) || '#' || i)) ELSE '{}' END
         || jsonb_build_object('GN', jsonb_build_object('N', ((k % 50) - 25)::text || '.5')))::text AS line
  FROM generate_series(1, 5000) AS i,
       LATERAL (SELECT CASE WHEN i BETWEEN 4001 AND 4200 THEN (i - 4000) * 7919 % 5003
                            WHEN i IN (2500, 4999) THEN 7919 % 5003
                            WHEN i = 4500 THEN 4300 * 7919 % 5003
                            ELSE i * 7919 % 5003 END AS k) AS kk;
-- The lines that stay: the last of each key.
CREATE TEMP TABLE str_last AS
SELECT DISTINCT ON (k) i, k, line::jsonb -> 'Item' AS item FROM str_lines ORDER BY k, i DESC;
SELECT count(*) AS distinct_keys, count(*) FILTER (WHERE item ? 'G') AS with_g,
       count(*) FILTER (WHERE item ? 'G' AND item ? 'GS') AS in_by_g FROM str_last;

BEGIN;
SELECT rb_mark('RbStr');
SELECT st_import('RbStr', string_agg(line, E'\n' ORDER BY i)) AS imported FROM str_lines;
-- 4,998 rows inserted (lines 4001 and 4300 dropped within their chunk),
-- 201 deleted at the end (the rows of lines 1 and 2500, of lines 2-200):
-- none updated, as an import that replaced keys by looking first would.
SELECT * FROM rb_writes('RbStr');
COMMIT;
SELECT rb_check('RbStr');
SELECT (SELECT count(*) FROM st_scan('RbStr')) AS items,
       (SELECT count(*) FROM st_scan('RbStr', 'ByG')) AS in_by_g,
       (SELECT count(*) FROM st_scan('RbStr', 'ByGN')) AS in_by_gn;
-- The stored items are exactly the last lines.
SELECT count(*) AS differing
  FROM ((SELECT item FROM str_last EXCEPT ALL SELECT st_scan('RbStr', typed => true))
        UNION ALL
        (SELECT st_scan('RbStr', typed => true) EXCEPT ALL SELECT item FROM str_last)) AS d;
-- Keys written two and three times: the last line's item.
SELECT st_get('P#' || (7919 % 5003 % 37), 'S#' || (7919 % 5003), 'RbStr') ->> 'v' AS line_1s_key,
       st_get('P#' || (2 * 7919 % 5003 % 37), 'S#' || (2 * 7919 % 5003), 'RbStr') ->> 'v' AS line_2s_key,
       st_get('P#' || (200 * 7919 % 5003 % 37), 'S#' || (200 * 7919 % 5003), 'RbStr') ->> 'v' AS line_200s_key,
       st_get('P#' || (201 * 7919 % 5003 % 37), 'S#' || (201 * 7919 % 5003), 'RbStr') ->> 'v' AS line_201s_key,
       st_get('P#' || (4300 * 7919 % 5003 % 37), 'S#' || (4300 * 7919 % 5003), 'RbStr') ->> 'v' AS line_4300s_key;
-- The keys lines 2500 and 4999 would have had were never written.
SELECT st_get('P#' || (2500 * 7919 % 5003 % 37), 'S#' || (2500 * 7919 % 5003), 'RbStr') AS not_written,
       st_get('P#' || (4999 * 7919 % 5003 % 37), 'S#' || (4999 * 7919 % 5003), 'RbStr') AS not_written_either;
-- Each GSI partition in its sort-key order (byte order; GN numerically),
-- with the items of the last lines only.
SELECT g, count(*) AS items,
       bool_and(gs_in_order) AS in_order,
       count(*) = (SELECT count(*) FROM str_last AS l WHERE l.item -> 'G' ->> 'S' = g AND l.item ? 'GS') AS all_there
  FROM (SELECT 'g' || n AS g FROM generate_series(0, 6) AS n) AS p,
       LATERAL (SELECT q.item ->> 'GS' >= lag(q.item ->> 'GS') OVER (ORDER BY q.ord) COLLATE "C"
                       OR lag(q.item ->> 'GS') OVER (ORDER BY q.ord) IS NULL AS gs_in_order
                  FROM st_query(g, "table" => 'RbStr', index => 'ByG') WITH ORDINALITY AS q(item, ord)) AS o
 GROUP BY g ORDER BY g;
SELECT array_agg(item ->> 'GS' ORDER BY ord) AS first_gs_of_g3
  FROM st_query('g3', "table" => 'RbStr', index => 'ByG', "limit" => 6) WITH ORDINALITY AS q(item, ord);
SELECT array_agg(item ->> 'GS' ORDER BY ord) AS last_gs_of_g3
  FROM st_query('g3', "table" => 'RbStr', index => 'ByG', forward => false, "limit" => 4) WITH ORDINALITY AS q(item, ord);
SELECT (SELECT array_agg(l.item -> 'GS' ->> 'S' ORDER BY l.item -> 'GS' ->> 'S' COLLATE "C") FROM str_last AS l
         WHERE l.item -> 'G' ->> 'S' = 'g3' AND l.item ? 'GS')
       = (SELECT array_agg(q.item ->> 'GS' ORDER BY q.ord)
            FROM st_query('g3', "table" => 'RbStr', index => 'ByG') WITH ORDINALITY AS q(item, ord)) AS g3_exact;
SELECT (SELECT array_agg((l.item -> 'GN' ->> 'N')::numeric ORDER BY (l.item -> 'GN' ->> 'N')::numeric, l.item -> 'PK' ->> 'S' COLLATE "C", l.item -> 'SK' ->> 'S' COLLATE "C")
          FROM str_last AS l WHERE l.item -> 'G' ->> 'S' = 'g5')
       = (SELECT array_agg((q.item ->> 'GN')::numeric ORDER BY q.ord)
            FROM st_query('g5', "table" => 'RbStr', index => 'ByGN') WITH ORDINALITY AS q(item, ord)) AS g5_by_gn_exact;
-- A table partition, in sort-key order.
SELECT array_agg(item ->> 'SK' ORDER BY ord) AS p0_first
  FROM st_query('P#0', "table" => 'RbStr', "limit" => 8) WITH ORDINALITY AS q(item, ord);
SELECT (SELECT array_agg(l.item -> 'SK' ->> 'S' ORDER BY l.item -> 'SK' ->> 'S' COLLATE "C") FROM str_last AS l
         WHERE l.item -> 'PK' ->> 'S' = 'P#5')
       = (SELECT array_agg(q.item ->> 'SK' ORDER BY q.ord) FROM st_query('P#5', "table" => 'RbStr') WITH ORDINALITY AS q(item, ord)) AS p5_exact;
-- The table has items now: a second import looks first (rows updated).
BEGIN;
SELECT rb_mark('RbStr');
SELECT st_import('RbStr', string_agg(line, E'\n' ORDER BY i)) AS imported FROM str_lines WHERE i BETWEEN 4001 AND 4010;
SELECT upd FROM rb_writes('RbStr');
COMMIT;
SELECT rb_check('RbStr');
SELECT count(*) AS items FROM st_scan('RbStr');

-- ---------------------------------------------------------------------------
-- 2. B keys (base64): values with zero bytes, prefixes of one another.
-- DynamoDB orders binary as unsigned bytes, a value before the longer ones
-- it begins: 00 < 00 00 < 00 01 < 01 < 01 00 < 80 < ff.
SELECT st_create_table('{
  "TableName": "RbBin",
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "B"}, {"AttributeName": "SK", "AttributeType": "B"},
                           {"AttributeName": "GB", "AttributeType": "B"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
  "GlobalSecondaryIndexes": [{"IndexName": "ByGB", "KeySchema": [{"AttributeName": "GB", "KeyType": "HASH"},
                                                                 {"AttributeName": "SK", "KeyType": "RANGE"}],
                              "Projection": {"ProjectionType": "ALL"}}],
  "BillingMode": "PAY_PER_REQUEST"}'::jsonb) IS NOT NULL AS created;
CREATE TEMP TABLE bin_vals (n int, v bytea);
INSERT INTO bin_vals VALUES (1, '\xff'), (2, '\x0001'), (3, '\x01'), (4, '\x80'), (5, '\x00'), (6, '\x0100'), (7, '\x0000');
-- Every (PK, SK) pair of the seven values, shuffled, then 2,000 more items
-- whose sort keys are 4-byte big-endian numbers (zero bytes in most) in
-- the partitions 00 and 00 00, then the pairs again with other values (a
-- later chunk: they replace the first ones).
CREATE TEMP TABLE bin_lines AS
SELECT row_number() OVER (ORDER BY o, ord) AS i, line FROM (
  SELECT 1 AS o, md5(p.n || '/' || s.n) AS ord,
         jsonb_build_object('Item', jsonb_build_object('PK', jsonb_build_object('B', encode(p.v, 'base64')),
                                                       'SK', jsonb_build_object('B', encode(s.v, 'base64')),
                                                       'GB', jsonb_build_object('B', encode(s.v || p.v, 'base64')),
                                                       'v', jsonb_build_object('S', 'first')))::text AS line
    FROM bin_vals AS p, bin_vals AS s
  UNION ALL
  SELECT 2, md5(j::text), jsonb_build_object('Item', jsonb_build_object('PK', jsonb_build_object('B', CASE WHEN j % 2 = 0 THEN 'AA==' ELSE 'AAA=' END),
                                                                          'SK', jsonb_build_object('B', encode(int4send(j * 65521), 'base64')),
                                                                          'v', jsonb_build_object('N', j::text)))::text
    FROM generate_series(1, 2000) AS j
  UNION ALL
  SELECT 3, md5(p.n || '/' || s.n),
         jsonb_build_object('Item', jsonb_build_object('PK', jsonb_build_object('B', encode(p.v, 'base64')),
                                                       'SK', jsonb_build_object('B', encode(s.v, 'base64')),
                                                       'GB', jsonb_build_object('B', encode(p.v, 'base64')),
                                                       'v', jsonb_build_object('S', 'again')))::text
    FROM bin_vals AS p, bin_vals AS s) AS l;
SELECT count(*) AS lines FROM bin_lines;
BEGIN;
SELECT rb_mark('RbBin');
SELECT st_import('RbBin', string_agg(line, E'\n' ORDER BY i)) AS imported FROM bin_lines;
SELECT * FROM rb_writes('RbBin');
COMMIT;
SELECT rb_check('RbBin');
SELECT (SELECT count(*) FROM st_scan('RbBin')) AS items, (SELECT count(*) FROM st_scan('RbBin', 'ByGB')) AS in_by_gb,
       (SELECT count(*) FROM st_scan('RbBin') AS item WHERE item ->> 'v' = 'first') AS first_left;
-- Partition 01: its seven sort keys in DynamoDB's order.
SELECT item ->> 'SK' AS sk, encode(decode(item ->> 'SK', 'base64'), 'hex') AS sk_hex, item ->> 'v' AS v
  FROM st_query('AQ==', "table" => 'RbBin') AS item;
-- Partition 00 00 backwards: the 1,000 numbers and the seven values, mixed
-- (00 00 before 00 00 ff f1 before 00 01).
SELECT encode(decode(item ->> 'SK', 'base64'), 'hex') AS sk_hex
  FROM st_query('AAA=', "table" => 'RbBin', forward => false, "limit" => 3) AS item;
SELECT array_agg(encode(decode(item ->> 'SK', 'base64'), 'hex') ORDER BY ord) AS last_seven_backwards
  FROM (SELECT * FROM st_query('AAA=', "table" => 'RbBin', forward => false) WITH ORDINALITY AS q(item, ord)
         ORDER BY ord DESC LIMIT 7) AS q;
-- Each partition's order is bytea's (memcmp, then length) with no exception.
SELECT pk_hex, count(*) AS items, bool_and(in_order) AS in_order
  FROM (SELECT encode(p.v, 'hex') AS pk_hex,
               decode(q.item ->> 'SK', 'base64') > lag(decode(q.item ->> 'SK', 'base64')) OVER (PARTITION BY p.n ORDER BY q.ord)
               OR q.ord = 1 AS in_order
          FROM bin_vals AS p, LATERAL st_query(encode(p.v, 'base64'), "table" => 'RbBin') WITH ORDINALITY AS q(item, ord)) AS o
 GROUP BY pk_hex ORDER BY pk_hex;
-- The GSI: GB 00 (the items of partition 00) in sort-key order.
SELECT array_agg(encode(decode(item ->> 'SK', 'base64'), 'hex') ORDER BY ord) AS gb_00
  FROM st_query('AA==', "table" => 'RbBin', index => 'ByGB') WITH ORDINALITY AS q(item, ord);
SELECT st_get('AA==', 'AAE=', 'RbBin', typed => true) AS item_00_0001;
SELECT st_get('AAA=', 'AA==', 'RbBin') ->> 'v' AS v, st_get('AA==', 'AAA=', 'RbBin') ->> 'v' AS v2,
       st_get('AA==', 'AAAAAA==', 'RbBin') AS zero_number_never_written;

-- ---------------------------------------------------------------------------
-- 3. An N sort key: the key index is built from a scan of the table, keys
-- written again found by the Bloom filter (the load ends, then the item is
-- replaced); the GSI (S key) kept and fed.
SELECT st_create_table('{
  "TableName": "RbNum",
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "SK", "AttributeType": "N"},
                           {"AttributeName": "G", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
  "GlobalSecondaryIndexes": [{"IndexName": "ByG", "KeySchema": [{"AttributeName": "G", "KeyType": "HASH"}],
                              "Projection": {"ProjectionType": "KEYS_ONLY"}}],
  "BillingMode": "PAY_PER_REQUEST"}'::jsonb) IS NOT NULL AS created;
-- 3,000 lines: numbers negative, fractional, large; lines 2501-2600
-- repeat lines 1-100's keys (without G: they leave the GSI).
CREATE TEMP TABLE num_lines AS
SELECT i, jsonb_build_object('Item',
         jsonb_build_object('PK', jsonb_build_object('S', 'N#' || (k % 3)),
                            'SK', jsonb_build_object('N', CASE k % 4 WHEN 0 THEN (k - 1500)::text
                                                                     WHEN 1 THEN (k - 1500)::text || '.125'
                                                                     WHEN 2 THEN k::text || 'E+20'
                                                                     ELSE '-0.' || lpad(k::text, 5, '0') END),
                            'v', jsonb_build_object('S', 'line ' || i))
         || CASE WHEN i <= 2500 AND i % 2 = 0 THEN jsonb_build_object('G', jsonb_build_object('S', 'g' || (k % 5))) ELSE '{}' END)::text AS line
  FROM generate_series(1, 3000) AS i,
       LATERAL (SELECT (CASE WHEN i BETWEEN 2501 AND 2600 THEN i - 2500 ELSE i END) * 1031 % 3001 AS k) AS kk;
BEGIN;
SELECT rb_mark('RbNum');
SELECT st_import('RbNum', string_agg(line, E'\n' ORDER BY i)) AS imported FROM num_lines;
-- the 100 keys written again replaced as st_put_all replaces (rows updated)
SELECT upd FROM rb_writes('RbNum');
COMMIT;
SELECT rb_check('RbNum');
SELECT (SELECT count(*) FROM st_scan('RbNum')) AS items, (SELECT count(*) FROM st_scan('RbNum', 'ByG')) AS in_by_g,
       (SELECT count(*) FILTER (WHERE line::jsonb #> '{Item,G}' IS NOT NULL) FROM num_lines WHERE i > 100) AS lines_with_g;
SELECT st_get('N#' || (1031 % 3), '-0.01031', 'RbNum') AS line_1s_key, st_get('N#' || (2062 % 3), '2062E+20', 'RbNum') AS line_2s_key;
SELECT item ->> 'SK' AS sk FROM st_query('N#1', "table" => 'RbNum', "limit" => 3) AS item;
SELECT item ->> 'SK' AS sk FROM st_query('N#1', "table" => 'RbNum', sk_from => '-1', sk_to => '1', "limit" => 4) AS item;
SELECT item ->> 'SK' AS sk FROM st_query('N#1', "table" => 'RbNum', forward => false, "limit" => 2) AS item;
SELECT p, bool_and(in_order) AS in_order, count(*) AS items,
       (SELECT count(DISTINCT line::jsonb #> '{Item,SK}') FROM num_lines WHERE line::jsonb #>> '{Item,PK,S}' = p) AS keys
  FROM (SELECT p, (q.item ->> 'SK')::numeric > lag((q.item ->> 'SK')::numeric) OVER (PARTITION BY p ORDER BY q.ord) OR q.ord = 1 AS in_order
          FROM unnest(ARRAY['N#0', 'N#1', 'N#2']) AS p, LATERAL st_query(p, "table" => 'RbNum') WITH ORDINALITY AS q(item, ord)) AS o
 GROUP BY p ORDER BY p;

-- Tables with a partition key only, of each type: S and B keys' key index
-- (stdesign.key_ix(pk)) kept and deduplicating, N's (pk) built from a scan
-- (the Bloom path).  Lines 1,501-3,000 write lines 1-1,500's keys again.
SELECT st_create_table(jsonb_build_object('TableName', 'RbHash' || t,
         'AttributeDefinitions', jsonb_build_array(jsonb_build_object('AttributeName', 'PK', 'AttributeType', t)),
         'KeySchema', '[{"AttributeName": "PK", "KeyType": "HASH"}]'::jsonb, 'BillingMode', 'PAY_PER_REQUEST')) IS NOT NULL AS created
  FROM unnest(ARRAY['S', 'B', 'N']) AS t;
SELECT t, st_import('RbHash' || t, string_agg(jsonb_build_object('Item', jsonb_build_object(
         'PK', jsonb_build_object(t, CASE t WHEN 'S' THEN 'k' || (i % 1500) WHEN 'B' THEN encode(int4send(i % 1500), 'base64') ELSE (i % 1500)::text END),
         'v', jsonb_build_object('N', i::text)))::text, E'\n' ORDER BY i)) AS imported
  FROM unnest(ARRAY['S', 'B', 'N']) AS t, generate_series(1, 3000) AS i GROUP BY t ORDER BY t;
SELECT t, rb_check('RbHash' || t), (SELECT count(*) FROM st_scan('RbHash' || t)) AS items,
       (SELECT min((item ->> 'v')::int) FROM st_scan('RbHash' || t) AS item) AS first_line
  FROM unnest(ARRAY['S', 'B', 'N']) AS t ORDER BY t;
SELECT st_get('k7', NULL, 'RbHashS') ->> 'v' AS s_k7, st_get('AAAAAA==', NULL, 'RbHashB') ->> 'v' AS b_zero,
       st_get('AAAF2w==', NULL, 'RbHashB') ->> 'v' AS b_1499, st_get('0', NULL, 'RbHashN') ->> 'v' AS n_zero;

-- ---------------------------------------------------------------------------
-- 4. Spilling: with 1 MB of maintenance_work_mem each kept index holds 4 MB
-- (its least) of entries at a time and writes the rest as sorted runs to
-- temporary files, merged by the build.  100,000 lines with long sort keys,
-- 600 keys written again across runs (lines 99,401-100,000 repeat lines
-- 1-600), a GSI.
SELECT st_create_table('{
  "TableName": "RbSpill",
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "SK", "AttributeType": "S"},
                           {"AttributeName": "G", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
  "GlobalSecondaryIndexes": [{"IndexName": "ByG", "KeySchema": [{"AttributeName": "G", "KeyType": "HASH"},
                                                                {"AttributeName": "SK", "KeyType": "RANGE"}],
                              "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["v"]}}],
  "BillingMode": "PAY_PER_REQUEST"}'::jsonb) IS NOT NULL AS created;
CREATE TEMP TABLE spill_keys AS
SELECT i, k, 'P#' || (k % 500) AS pk, 'order#' || md5(k::text) || '#' || lpad(k::text, 6, '0') AS sk, 'G#' || (k % 10) AS g
  FROM generate_series(1, 100000) AS i,
       LATERAL (SELECT (CASE WHEN i > 99400 THEN i - 99400 ELSE i END) * 7919 % 100003 AS k) AS kk;
CREATE TEMP TABLE spill_lines AS
SELECT string_agg(jsonb_build_object('Item', jsonb_build_object('PK', jsonb_build_object('S', pk), 'SK', jsonb_build_object('S', sk),
         'G', jsonb_build_object('S', g), 'v', jsonb_build_object('N', i::text)))::text, E'\n' ORDER BY i) AS lines
  FROM spill_keys;
-- Temporary files are counted per database (flushed when the session is idle).
SELECT pg_stat_force_next_flush();
SELECT temp_files AS temp_files_before FROM pg_stat_database WHERE datname = current_database() \gset
SET maintenance_work_mem = '1MB';
BEGIN;
SELECT rb_mark('RbSpill');
SELECT st_import('RbSpill', lines) AS imported FROM spill_lines;
SELECT * FROM rb_writes('RbSpill');
COMMIT;
RESET maintenance_work_mem;
SELECT pg_stat_force_next_flush();
-- Each index's entries take some 10 MB (none spills with 64 MB); the
-- builds' own sorts write one temporary file each: at least four runs.
SELECT temp_files - :temp_files_before >= 6 AS spilled FROM pg_stat_database WHERE datname = current_database();
SELECT rb_check('RbSpill');
SELECT (SELECT count(*) FROM st_scan('RbSpill')) AS items, (SELECT count(*) FROM st_scan('RbSpill', 'ByG')) AS in_by_g;
-- Keys of lines 1, 600 and 601: the first two written again by the last lines.
SELECT st_get('P#' || (7919 % 500), 'order#' || md5('7919') || '#007919', 'RbSpill') ->> 'v' AS line_1s_key,
       st_get('P#' || (600 * 7919 % 100003 % 500), 'order#' || md5((600 * 7919 % 100003)::text) || '#' || lpad((600 * 7919 % 100003)::text, 6, '0'),
              'RbSpill') ->> 'v' AS line_600s_key,
       st_get('P#' || (601 * 7919 % 100003 % 500), 'order#' || md5((601 * 7919 % 100003)::text) || '#' || lpad((601 * 7919 % 100003)::text, 6, '0'),
              'RbSpill') ->> 'v' AS line_601s_key;
SELECT item ->> 'SK' AS sk, item ->> 'v' AS v FROM st_query('P#7', 'order#00', 'RbSpill') AS item;
SELECT i, sk FROM spill_keys WHERE pk = 'P#7' AND sk LIKE 'order#00%';
SELECT count(*) AS items, bool_and(in_order) AS in_order
  FROM (SELECT q.item ->> 'SK' > lag(q.item ->> 'SK') OVER (ORDER BY q.ord) COLLATE "C" OR q.ord = 1 AS in_order
          FROM st_query('G#3', "table" => 'RbSpill', index => 'ByG') WITH ORDINALITY AS q(item, ord)) AS o;
SELECT item ->> 'SK' AS sk, item ->> 'PK' AS pk FROM st_query('G#3', "table" => 'RbSpill', index => 'ByG', "limit" => 3) AS item;
SELECT (SELECT array_agg(sk ORDER BY sk COLLATE "C") FROM spill_keys WHERE g = 'G#7' AND i <= 99400)
       = (SELECT array_agg(q.item ->> 'SK' ORDER BY q.ord) FROM st_query('G#7', "table" => 'RbSpill', index => 'ByG') WITH ORDINALITY AS q(item, ord))
       AS g7_exact;
SELECT (SELECT array_agg(sk ORDER BY sk COLLATE "C") FROM spill_keys WHERE pk = 'P#123' AND i <= 99400)
       = (SELECT array_agg(q.item ->> 'SK' ORDER BY q.ord) FROM st_query('P#123', "table" => 'RbSpill') WITH ORDINALITY AS q(item, ord))
       AS p123_exact;

-- ---------------------------------------------------------------------------
-- 5. Partition keys of 1,000 bytes sharing their first 300 (the key index
-- holds stdesign.key_ix(pk): a long key's tail hashed), 12 partitions of
-- 150 items, the GSI's keys long too; lines 1,501-1,800 repeat lines 1-300.
SELECT st_create_table('{
  "TableName": "RbLong",
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "SK", "AttributeType": "S"},
                           {"AttributeName": "G", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
  "GlobalSecondaryIndexes": [{"IndexName": "ByG", "KeySchema": [{"AttributeName": "G", "KeyType": "HASH"}],
                              "Projection": {"ProjectionType": "ALL"}}],
  "BillingMode": "PAY_PER_REQUEST"}'::jsonb) IS NOT NULL AS created;
CREATE TEMP TABLE long_lines AS
SELECT i, k, repeat('p', 300) || lpad((k % 12)::text, 2, '0') || repeat('-', 698) AS pk, lpad((k / 12)::text, 3, '0') AS sk,
       repeat('g', 300) || (k % 3) || repeat('.', 599) AS g
  FROM generate_series(1, 1800) AS i, LATERAL (SELECT (CASE WHEN i > 1500 THEN i - 1500 ELSE i END) * 617 % 1801 AS k) AS kk;
SELECT st_import('RbLong', string_agg(jsonb_build_object('Item', jsonb_build_object(
         'PK', jsonb_build_object('S', pk), 'SK', jsonb_build_object('S', sk), 'G', jsonb_build_object('S', g),
         'v', jsonb_build_object('N', i::text)))::text, E'\n' ORDER BY i)) AS imported FROM long_lines;
SELECT rb_check('RbLong');
SELECT octet_length(pk) AS pk_bytes, count(*) AS items, bool_and(in_order) AS in_order, bool_and(last_line) AS last_lines
  FROM (SELECT l.pk, q.item ->> 'SK' > lag(q.item ->> 'SK') OVER (PARTITION BY l.pk ORDER BY q.ord) OR q.ord = 1 AS in_order,
               (q.item ->> 'v')::int = (SELECT max(i) FROM long_lines AS m WHERE m.pk = l.pk AND m.sk = q.item ->> 'SK') AS last_line
          FROM (SELECT DISTINCT pk FROM long_lines) AS l, LATERAL st_query(l.pk, "table" => 'RbLong') WITH ORDINALITY AS q(item, ord)) AS o
 GROUP BY pk ORDER BY pk;
SELECT left(item ->> 'G', 1) || octet_length(item ->> 'G') AS g, count(*) AS items
  FROM st_scan('RbLong', 'ByG') AS item GROUP BY 1 ORDER BY 1;
SELECT count(*) AS in_g1, (SELECT count(DISTINCT k) FROM long_lines WHERE k % 3 = 1) AS keys_with_g1
  FROM st_query(repeat('g', 300) || '1' || repeat('.', 599), "table" => 'RbLong', index => 'ByG');
-- Partition keys of 256 bytes (the longest the key index holds whole), 257
-- and 300 bytes beginning with it; sort keys in UTF-8 byte order (DynamoDB
-- orders S by bytes): Z < z < e-acute < the euro sign < an emoji.  Lines
-- h and i repeat b's and a's keys, 1,001 lines later (another chunk).
SELECT st_create_table('RbQ') IS NOT NULL AS created;
SELECT st_import('RbQ', string_agg(jsonb_build_object('Item', jsonb_build_object(
         'PK', jsonb_build_object('S', pk), 'SK', jsonb_build_object('S', sk), 'v', jsonb_build_object('S', v)))::text, E'\n' ORDER BY n)) AS imported
  FROM (SELECT n, pk, sk, v FROM (VALUES
          (1, repeat('q', 256), '€', 'a'), (2, repeat('q', 256) || 'r', 'Z', 'b'), (3, repeat('q', 300), 'z', 'c'),
          (4, repeat('q', 256), 'é', 'd'), (2000, repeat('q', 256), '😀', 'e'), (2001, repeat('q', 256), 'Z', 'f'),
          (2002, repeat('q', 256), 'z', 'g'), (2003, repeat('q', 256) || 'r', 'Z', 'h'), (2004, repeat('q', 256), '€', 'i')) AS v(n, pk, sk, v)
        UNION ALL
        SELECT 4 + j, 'filler', lpad(j::text, 4, '0'), 'filler' FROM generate_series(1, 1001) AS j) AS l;
SELECT n AS pk_bytes, string_agg((item ->> 'SK') || '=' || (item ->> 'v'), ' ' ORDER BY ord) AS items
  FROM unnest(ARRAY[256, 257, 300]) AS n,
       LATERAL st_query(repeat('q', 256) || CASE n WHEN 257 THEN 'r' WHEN 300 THEN repeat('q', 44) ELSE '' END, "table" => 'RbQ')
               WITH ORDINALITY AS q(item, ord)
 GROUP BY n ORDER BY n;
SELECT count(*) AS fillers FROM st_query('filler', "table" => 'RbQ');
SELECT rb_check('RbQ');

-- ---------------------------------------------------------------------------
-- 6. Indexes a user adds on the data table: a btree over a number and one
-- in descending order (built from a scan of the table), btrees over "C"
-- text (kept and fed: one partial, one with nulls, which sort last), a
-- hash index (written row by row during the load).
SELECT st_create_table('RbUser') IS NOT NULL AS created;
CREATE INDEX rb_user_num ON stdesign_data."RbUser" ((((item -> 'n') ->> 'N')::numeric));
CREATE INDEX rb_user_text ON stdesign_data."RbUser" ((((item -> 't') ->> 'S') COLLATE "C")) WHERE item ? 't';
CREATE INDEX rb_user_hash ON stdesign_data."RbUser" USING hash (((item -> 'h') ->> 'S'));
CREATE INDEX rb_user_nulls ON stdesign_data."RbUser" ((((item -> 't') ->> 'S') COLLATE "C"), sk);
CREATE INDEX rb_user_desc ON stdesign_data."RbUser" (sk DESC);
CREATE INDEX rb_user_gin ON stdesign_data."RbUser" USING gin (item jsonb_path_ops);
BEGIN;
SELECT rb_mark('RbUser');
SELECT st_import('RbUser', string_agg(jsonb_build_object('Item', jsonb_build_object(
         'PK', jsonb_build_object('S', 'u' || (k % 10)), 'SK', jsonb_build_object('S', k::text),
         'n', jsonb_build_object('N', ((k % 200) - 100)::text || '.' || (i % 10)),
         'h', jsonb_build_object('S', 'h' || (k % 50) || CASE WHEN i > 2800 THEN 'x' ELSE '' END))
         || CASE WHEN k % 4 = 0 THEN jsonb_build_object('t', jsonb_build_object('S', 't' || k)) ELSE '{}' END)::text,
         E'\n' ORDER BY i)) AS imported
  FROM generate_series(1, 3000) AS i, LATERAL (SELECT (CASE WHEN i > 2800 THEN i - 2800 ELSE i END) * 13 % 3001 AS k) AS kk;
SELECT * FROM rb_writes('RbUser');
COMMIT;
SELECT rb_check('RbUser');
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM stdesign_data."RbUser" WHERE ((item -> 'n') ->> 'N')::numeric BETWEEN -0.5 AND 0.5;
SELECT count(*), min(((item -> 'n') ->> 'N')::numeric), max(((item -> 'n') ->> 'N')::numeric)
  FROM stdesign_data."RbUser" WHERE ((item -> 'n') ->> 'N')::numeric BETWEEN -0.5 AND 0.5;
SELECT sk, item -> 'n' ->> 'N' AS n FROM stdesign_data."RbUser" WHERE ((item -> 'n') ->> 'N')::numeric BETWEEN -0.5 AND 0.5 ORDER BY sk COLLATE "C";
EXPLAIN (COSTS OFF) SELECT sk FROM stdesign_data."RbUser" WHERE ((item -> 't') ->> 'S') COLLATE "C" < 't12' AND item ? 't';
SELECT array_agg(sk ORDER BY sk COLLATE "C") AS t_below_t12 FROM stdesign_data."RbUser" WHERE ((item -> 't') ->> 'S') COLLATE "C" < 't12' AND item ? 't';
-- (the keys k = i * 13 mod 3001 of lines 1-2800 with k % 4 = 0 and 't' || k < 't12')
SELECT array_agg(k::text ORDER BY k::text COLLATE "C") AS expected
  FROM generate_series(1, 2800) AS i, LATERAL (SELECT i * 13 % 3001 AS k) AS kk WHERE k % 4 = 0 AND 't' || k < 't12' COLLATE "C";
EXPLAIN (COSTS OFF) SELECT sk FROM stdesign_data."RbUser" WHERE ((item -> 't') ->> 'S') COLLATE "C" IS NULL ORDER BY ((item -> 't') ->> 'S') COLLATE "C", sk LIMIT 3;
SELECT sk FROM stdesign_data."RbUser" WHERE ((item -> 't') ->> 'S') COLLATE "C" IS NULL ORDER BY ((item -> 't') ->> 'S') COLLATE "C", sk LIMIT 3;
SELECT count(*) AS without_t, (SELECT count(*) FROM generate_series(1, 2800) AS i WHERE i * 13 % 3001 % 4 <> 0) AS expected
  FROM stdesign_data."RbUser" WHERE ((item -> 't') ->> 'S') COLLATE "C" IS NULL;
EXPLAIN (COSTS OFF) SELECT sk FROM stdesign_data."RbUser" ORDER BY sk DESC LIMIT 3;
SELECT sk FROM stdesign_data."RbUser" ORDER BY sk DESC LIMIT 3;
EXPLAIN (COSTS OFF) SELECT count(*) FROM stdesign_data."RbUser" WHERE ((item -> 'h') ->> 'S') = 'h7x';
-- h7x: keys of lines 1-200 written again (k = i * 13 mod 3001 with k % 50 = 7);
-- h7: the other keys with k % 50 = 7 (the replaced rows' entries lead nowhere).
SELECT (SELECT count(*) FROM stdesign_data."RbUser" WHERE ((item -> 'h') ->> 'S') = 'h7x') AS h7x,
       (SELECT count(*) FROM stdesign_data."RbUser" WHERE ((item -> 'h') ->> 'S') = 'h7') AS h7,
       (SELECT count(*) FILTER (WHERE i <= 200) FROM generate_series(1, 2800) AS i WHERE i * 13 % 3001 % 50 = 7) AS expected_h7x,
       (SELECT count(*) FILTER (WHERE i > 200) FROM generate_series(1, 2800) AS i WHERE i * 13 % 3001 % 50 = 7) AS expected_h7;
EXPLAIN (COSTS OFF) SELECT count(*) FROM stdesign_data."RbUser" WHERE item @> '{"h": {"S": "h9x"}}';
SELECT count(*) AS h9x, (SELECT count(*) FILTER (WHERE i <= 200) FROM generate_series(1, 2800) AS i WHERE i * 13 % 3001 % 50 = 9) AS expected
  FROM stdesign_data."RbUser" WHERE item @> '{"h": {"S": "h9x"}}';
RESET enable_seqscan;

-- Large items (stored out of line): 1,000 small lines, then 50 lines of
-- 60 kB writing the keys of lines 1-50 again, and 50 new ones; a GSI on an
-- attribute of the large items, a user's numeric index.
SELECT st_create_table('{
  "TableName": "RbBig",
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "SK", "AttributeType": "S"},
                           {"AttributeName": "G", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
  "GlobalSecondaryIndexes": [{"IndexName": "ByG", "KeySchema": [{"AttributeName": "G", "KeyType": "HASH"},
                                                                {"AttributeName": "SK", "KeyType": "RANGE"}],
                              "Projection": {"ProjectionType": "ALL"}}],
  "BillingMode": "PAY_PER_REQUEST"}'::jsonb) IS NOT NULL AS created;
CREATE INDEX rb_big_len ON stdesign_data."RbBig" ((octet_length((item -> 'blob') ->> 'S')::numeric));
SELECT st_import('RbBig', string_agg(jsonb_build_object('Item', jsonb_build_object(
         'PK', jsonb_build_object('S', 'b' || (k % 3)), 'SK', jsonb_build_object('S', lpad(k::text, 4, '0')))
         || CASE WHEN i > 1000 THEN jsonb_build_object('G', jsonb_build_object('S', 'big'),
                                                       'blob', jsonb_build_object('S', (SELECT string_agg(md5(i || '/' || j), '')
                                                                                          FROM generate_series(1, 1875 + i % 7) AS j)))
                 ELSE '{}' END)::text, E'\n' ORDER BY i)) AS imported
  FROM generate_series(1, 1100) AS i, LATERAL (SELECT CASE WHEN i BETWEEN 1001 AND 1050 THEN i - 1000 ELSE i END AS k) AS kk;
SELECT rb_check('RbBig');
SELECT (SELECT count(*) FROM st_scan('RbBig')) AS items, (SELECT count(*) FROM st_query('big', "table" => 'RbBig', index => 'ByG')) AS in_by_g,
       (SELECT count(*) FROM stdesign_data."RbBig" WHERE octet_length((item -> 'blob') ->> 'S')::numeric > 60000) AS blobs,
       pg_total_relation_size(format('stdesign_data.%I', 'RbBig')::regclass) > 1000000 AS stored_out_of_line;
SELECT item ->> 'SK' AS sk, octet_length(item ->> 'blob') AS blob_bytes, left(item ->> 'blob', 8) AS blob_begins,
       left(item ->> 'blob', 32) = md5((1000 + (item ->> 'SK')::int) || '/1') AS from_the_last_line
  FROM st_query('big', "table" => 'RbBig', index => 'ByG', "limit" => 4) AS item;

-- ---------------------------------------------------------------------------
-- 7. Transactions.  An import rolled back to a savepoint (its indexes built
-- anew, then given back), another import: only the second one's items.
SELECT st_create_table('{
  "TableName": "RbTx",
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "SK", "AttributeType": "S"},
                           {"AttributeName": "G", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
  "GlobalSecondaryIndexes": [{"IndexName": "ByG", "KeySchema": [{"AttributeName": "G", "KeyType": "HASH"}],
                              "Projection": {"ProjectionType": "ALL"}}],
  "BillingMode": "PAY_PER_REQUEST"}'::jsonb) IS NOT NULL AS created;
CREATE FUNCTION rb_tx_lines(who text, n int, repeat_from int) RETURNS text LANGUAGE sql AS $$
  SELECT string_agg(jsonb_build_object('Item', jsonb_build_object(
           'PK', jsonb_build_object('S', who || (k % 4)), 'SK', jsonb_build_object('S', lpad(k::text, 4, '0')),
           'G', jsonb_build_object('S', 'by ' || who), 'line', jsonb_build_object('N', i::text)))::text, E'\n' ORDER BY i)
    FROM generate_series(1, n) AS i, LATERAL (SELECT CASE WHEN i > repeat_from THEN i - repeat_from ELSE i END AS k) AS kk
$$;
BEGIN;
SAVEPOINT a;
SELECT st_import('RbTx', rb_tx_lines('first', 2500, 2000)) AS imported;
SELECT count(*) AS items_in_the_savepoint FROM st_scan('RbTx');
ROLLBACK TO SAVEPOINT a;
SELECT count(*) AS items_after_the_rollback FROM st_scan('RbTx');
SELECT st_import('RbTx', rb_tx_lines('second', 1500, 1200)) AS imported;
SELECT count(*) AS items_in_the_transaction, count(*) FILTER (WHERE item ->> 'G' = 'by second') AS by_second FROM st_scan('RbTx') AS item;
SELECT rb_check('RbTx');
COMMIT;
SELECT rb_check('RbTx');
SELECT item ->> 'G' AS g, count(*) AS items FROM st_scan('RbTx') AS item GROUP BY 1;
SELECT count(*) AS in_by_g FROM st_query('by second', "table" => 'RbTx', index => 'ByG');
SELECT count(*) AS first_in_by_g FROM st_query('by first', "table" => 'RbTx', index => 'ByG');
SELECT st_get('second1', '0001', 'RbTx') ->> 'line' AS line_1s_key, st_get('second0', '0300', 'RbTx') ->> 'line' AS line_300s_key,
       st_get('second1', '0301', 'RbTx') ->> 'line' AS line_301s_key;
-- Two imports in one transaction: the second finds items (the first's) and looks first.
SELECT st_drop_table('RbTx') IS NOT NULL AS dropped;
SELECT st_create_table('{"TableName": "RbTx", "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "SK", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
  "BillingMode": "PAY_PER_REQUEST"}'::jsonb) IS NOT NULL AS created;
BEGIN;
SELECT rb_mark('RbTx');
SELECT st_import('RbTx', rb_tx_lines('x', 1500, 1000)) AS imported;
SELECT * FROM rb_writes('RbTx');
SELECT rb_mark('RbTx');
SELECT st_import('RbTx', rb_tx_lines('x', 1200, 0)) AS imported;
SELECT upd FROM rb_writes('RbTx');
SELECT rb_check('RbTx');
COMMIT;
SELECT count(*) AS items, min((item ->> 'line')::int) AS min_line, max((item ->> 'line')::int) AS max_line FROM st_scan('RbTx') AS item;
SELECT rb_check('RbTx');
-- An st_put first (the table is not empty when the import begins): the
-- import looks for each key, indexes written row by row.
SELECT st_drop_table('RbTx') IS NOT NULL AS dropped;
SELECT st_create_table('{
  "TableName": "RbTx",
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "SK", "AttributeType": "S"},
                           {"AttributeName": "G", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
  "GlobalSecondaryIndexes": [{"IndexName": "ByG", "KeySchema": [{"AttributeName": "G", "KeyType": "HASH"}],
                              "Projection": {"ProjectionType": "ALL"}}],
  "BillingMode": "PAY_PER_REQUEST"}'::jsonb) IS NOT NULL AS created;
BEGIN;
SELECT rb_mark('RbTx');
SELECT st_put('{"PK": "third1", "SK": "0005", "G": "by put", "line": 0}', 'RbTx') IS NULL AS new_item;
SELECT st_import('RbTx', rb_tx_lines('third', 1500, 1200)) AS imported;
SELECT upd FROM rb_writes('RbTx');
COMMIT;
SELECT rb_check('RbTx');
SELECT (SELECT count(*) FROM st_scan('RbTx')) AS items, (SELECT count(*) FROM st_query('by third', "table" => 'RbTx', index => 'ByG')) AS by_third,
       (SELECT count(*) FROM st_query('by put', "table" => 'RbTx', index => 'ByG')) AS by_put,
       st_get('third1', '0005', 'RbTx') ->> 'line' AS line_5s_key;

-- ---------------------------------------------------------------------------
-- 8. A bad line after several chunks, and after runs were spilled: the
-- error names it, nothing is written, the table and its indexes stay usable.
SELECT st_drop_table('RbTx') IS NOT NULL AS dropped;
SELECT st_create_table('{
  "TableName": "RbTx",
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "SK", "AttributeType": "S"},
                           {"AttributeName": "G", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
  "GlobalSecondaryIndexes": [{"IndexName": "ByG", "KeySchema": [{"AttributeName": "G", "KeyType": "HASH"}],
                              "Projection": {"ProjectionType": "ALL"}}],
  "BillingMode": "PAY_PER_REQUEST"}'::jsonb) IS NOT NULL AS created;
SELECT st_import('RbTx', rb_tx_lines('bad', 3500, 3000) || E'\n{"Item": {"PK": {"S": "bad"}, "SK": {"N": "1"}}}');
SELECT count(*) AS items_after_the_bad_line FROM st_scan('RbTx');
SELECT rb_check('RbTx');
SET maintenance_work_mem = '1MB';
SELECT st_import('RbTx', string_agg(jsonb_build_object('Item', jsonb_build_object(
         'PK', jsonb_build_object('S', 'P' || (i % 100)), 'SK', jsonb_build_object('S', md5(i::text) || md5(i::text)),
         'G', jsonb_build_object('S', md5(i::text))))::text, E'\n' ORDER BY i) || E'\n{"Item": {"PK": {"S": "bad"}, "SK": {"S": "1"}, "G": {"N": "1"}}}')
  FROM generate_series(1, 60000) AS i;
RESET maintenance_work_mem;
SELECT count(*) AS items_after_the_bad_line FROM st_scan('RbTx');
SELECT st_put('{"PK": "ok", "SK": "1", "G": "g"}', 'RbTx') IS NULL AS new_item;
SELECT st_get('ok', '1', 'RbTx') AS got, (SELECT count(*) FROM st_query('g', "table" => 'RbTx', index => 'ByG')) AS in_by_g;
SELECT rb_check('RbTx');
-- Emptied by a delete: the deleted row's entry in the key index makes the
-- import keep the indexes, unless a read marked it dead to every
-- transaction (then the indexes are built anew): the same items either way.
SELECT st_delete('ok', '1', 'RbTx') AS deleted;
SELECT count(*) AS items FROM st_scan('RbTx');
SELECT st_import('RbTx', rb_tx_lines('after', 1500, 1200)) AS imported;
SELECT rb_check('RbTx');
SELECT count(*) AS items, count(*) FILTER (WHERE item ->> 'G' = 'by after') AS by_after FROM st_scan('RbTx') AS item;

-- ---------------------------------------------------------------------------
-- 9. An error while the indexes are built (a user's index over an integer
-- expression, built from a scan of the table at the end, fails on line
-- 1,500's item): nothing is written; caught in a block, the indexes
-- built so far are given back with the block, the table stays usable.
SELECT st_create_table('RbErr') IS NOT NULL AS created;
CREATE INDEX rb_err_int ON stdesign_data."RbErr" ((((item -> 'n') ->> 'N')::int));
CREATE TEMP TABLE err_lines AS
SELECT string_agg(jsonb_build_object('Item', jsonb_build_object('PK', jsonb_build_object('S', 'p' || (i % 7)), 'SK', jsonb_build_object('S', 's' || (i % 2000)),
         'n', jsonb_build_object('N', CASE WHEN i = 1500 THEN '1e12' ELSE i::text END)))::text, E'\n' ORDER BY i) AS lines
  FROM generate_series(1, 3000) AS i;
SELECT st_import('RbErr', lines) FROM err_lines;
SELECT count(*) AS items FROM st_scan('RbErr');
DO $$
BEGIN
  PERFORM st_import('RbErr', lines) FROM err_lines;
EXCEPTION WHEN numeric_value_out_of_range THEN
  RAISE NOTICE 'caught: %', SQLERRM;
END $$;
SELECT rb_check('RbErr');
SELECT st_import('RbErr', E'{"Item": {"PK": {"S": "a"}, "SK": {"S": "b"}, "n": {"N": "5"}}}\n{"Item": {"PK": {"S": "a"}, "SK": {"S": "c"}, "n": {"N": "6"}}}') AS imported;
SELECT * FROM st_query('a', "table" => 'RbErr');
SELECT rb_check('RbErr');

-- Later files list every table: leave none behind.
SELECT count(st_drop_table(t)) AS dropped FROM unnest(ARRAY['RbStr', 'RbBin', 'RbNum', 'RbHashS', 'RbHashB', 'RbHashN', 'RbSpill', 'RbLong', 'RbQ', 'RbUser', 'RbBig', 'RbTx', 'RbErr']) AS t;
DROP FUNCTION rb_check(text);
DROP FUNCTION rb_writes(text);
DROP FUNCTION rb_mark(text);
DROP FUNCTION rb_counts(text);
DROP FUNCTION rb_tx_lines(text, int, int);
DROP EXTENSION amcheck;
