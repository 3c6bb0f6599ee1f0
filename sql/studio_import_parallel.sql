-- st_import_file reads a large file (8 MB or more) in a parallel worker
-- while the backend writes the items, when the table is empty and the
-- import builds its indexes at the end; max_parallel_maintenance_workers
-- = 0 turns the worker off, as for CREATE INDEX.  Both ways import the
-- same items; a bad line stops either with its number (the worker's error
-- says "parallel worker" too), nothing written.

SET max_parallel_maintenance_workers = 2;
CREATE EXTENSION amcheck;
SELECT st_create_table('{
  "TableName": "ParA",
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "SK", "AttributeType": "S"},
                           {"AttributeName": "G", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
  "GlobalSecondaryIndexes": [{"IndexName": "ByG", "KeySchema": [{"AttributeName": "G", "KeyType": "HASH"},
                                                                {"AttributeName": "SK", "KeyType": "RANGE"}],
                              "Projection": {"ProjectionType": "ALL"}}],
  "BillingMode": "PAY_PER_REQUEST"}'::jsonb) IS NOT NULL AS created;
SELECT st_create_table(jsonb_set(st_table_create_json('ParA'), '{TableName}', '"ParB"')) IS NOT NULL AS created;
SELECT st_create_table(jsonb_set(st_table_create_json('ParA'), '{TableName}', '"ParC"')) IS NOT NULL AS created;

-- 40,000 lines (about 10 MB) in no key order; line i's key repeats line
-- i - 20,000's for every i above 39,000 (keys written again 20 chunks
-- later: the later line wins); every third item in the GSI.
SELECT '/tmp/stdesign_regress_parallel_' || pg_backend_pid() || '.jsonl' AS path \gset
SELECT '/tmp/stdesign_regress_parallel_bad_' || pg_backend_pid() || '.jsonl' AS badpath \gset
CREATE TEMP TABLE par_lines AS
SELECT i, k, jsonb_build_object('Item',
         jsonb_build_object('PK', jsonb_build_object('S', 'P#' || (k % 997)),
                            'SK', jsonb_build_object('S', 'S#' || lpad(k::text, 6, '0')),
                            'line', jsonb_build_object('N', i::text),
                            'pad', jsonb_build_object('S', repeat('x', 150)))
         || CASE WHEN i % 3 = 0 THEN jsonb_build_object('G', jsonb_build_object('S', 'g' || (k % 7))) ELSE '{}' END)::text AS line
  FROM generate_series(1, 40000) AS i,
       LATERAL (SELECT (CASE WHEN i > 39000 THEN i - 20000 ELSE i END) * 7919 % 40009 AS k) AS kk;
COPY (SELECT line FROM par_lines ORDER BY i) TO :'path';
SELECT (pg_stat_file(:'path')).size > 8 * 1024 * 1024 AS large_enough;

-- With the worker, and without: the same rows.  The 1,000 keys written
-- again are found at the end of the load: their earlier rows deleted.
BEGIN;
SELECT st_import_file('ParA', :'path') AS read;
SELECT n_tup_ins, n_tup_del FROM pg_stat_xact_user_tables WHERE relname = 'ParA';
COMMIT;
SET max_parallel_maintenance_workers = 0;
SELECT st_import_file('ParB', :'path') AS read;
SET max_parallel_maintenance_workers = 2;
SELECT (SELECT count(*) FROM stdesign_data."ParA") AS a, (SELECT count(*) FROM stdesign_data."ParB") AS b,
       (SELECT count(DISTINCT k) FROM par_lines) AS distinct_keys;
SELECT count(*) AS differing_rows
  FROM ((SELECT pk, sk, item FROM stdesign_data."ParA" EXCEPT ALL SELECT pk, sk, item FROM stdesign_data."ParB")
        UNION ALL
        (SELECT pk, sk, item FROM stdesign_data."ParB" EXCEPT ALL SELECT pk, sk, item FROM stdesign_data."ParA")) AS d;
-- each key holds its last line, the GSI the last lines that have G
SELECT count(*) AS not_the_last_line
  FROM st_scan('ParA') AS item
  JOIN (SELECT 'S#' || lpad(k::text, 6, '0') AS sk, max(i) AS last FROM par_lines GROUP BY k) AS l ON l.sk = item ->> 'SK'
 WHERE (item ->> 'line')::int <> l.last;
SELECT (SELECT count(*) FROM st_scan('ParA', 'ByG')) AS in_gsi,
       (SELECT count(*) FROM (SELECT DISTINCT ON (k) i FROM par_lines ORDER BY k, i DESC) AS last WHERE i % 3 = 0) AS expected_in_gsi;
SELECT array_agg(item ->> 'SK') AS first_of_g3
  FROM (SELECT item FROM st_query('g3', "table" => 'ParA', index => 'ByG', "limit" => 3) AS item) AS q;
SELECT bool_and(bt_index_parent_check(indexrelid, true, true) IS NOT NULL) AS checked, count(*) AS indexes
  FROM pg_index WHERE indrelid = 'stdesign_data."ParA"'::regclass;

-- A bad line near the end (line 39,990: an empty partition key): the
-- worker's error names it; nothing is written and the table stays usable.
COPY (SELECT CASE WHEN i = 39990 THEN '{"Item": {"PK": {"S": ""}, "SK": {"S": "x"}}}' ELSE line END
        FROM par_lines ORDER BY i) TO :'badpath';
SELECT st_import_file('ParC', :'badpath');
SET max_parallel_maintenance_workers = 0;
SELECT st_import_file('ParC', :'badpath');
SET max_parallel_maintenance_workers = 2;
SELECT count(*) AS items_after_the_bad_line FROM st_scan('ParC');
SELECT st_put('{"PK": "P#1", "SK": "S#000001", "G": "g1"}', 'ParC') IS NULL AS put;
SELECT st_query('g1', "table" => 'ParC', index => 'ByG') AS in_gsi;
SELECT bool_and(bt_index_parent_check(indexrelid, true, true) IS NOT NULL) AS checked
  FROM pg_index WHERE indrelid = 'stdesign_data."ParC"'::regclass;

-- Into a table that has items: no worker, each line replaces or adds.
SELECT st_import_file('ParC', :'path') AS read;
SELECT count(*) AS items FROM st_scan('ParC');
SELECT count(*) AS differing_rows
  FROM ((SELECT pk, sk, item FROM stdesign_data."ParA" EXCEPT ALL SELECT pk, sk, item FROM stdesign_data."ParC")
        UNION ALL
        (SELECT pk, sk, item FROM stdesign_data."ParC" EXCEPT ALL SELECT pk, sk, item FROM stdesign_data."ParA")) AS d;

SELECT st_drop_table(t) FROM unnest(ARRAY['ParA', 'ParB', 'ParC']) AS t;
DROP TABLE par_lines;
RESET max_parallel_maintenance_workers;
DROP EXTENSION amcheck;
