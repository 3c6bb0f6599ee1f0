-- The stdesign table access method: every write path and maintenance command
-- on a stdesign table gives the same results as on a heap table with the
-- same columns and indexes, and a partition's items are stored together.

SELECT st_create_table('AmPlaced') ->> 'TableName' AS created;
SELECT st_create_table('AmHeap') ->> 'TableName' AS created;
-- The reference: the same table, stored in a plain heap.
ALTER TABLE stdesign_data."AmHeap" SET ACCESS METHOD heap;

SELECT c.relname, a.amname, ta.amname AS toast_am
  FROM pg_class c JOIN pg_am a ON a.oid = c.relam
  JOIN pg_class t ON t.oid = c.reltoastrelid JOIN pg_am ta ON ta.oid = t.relam
 WHERE c.relnamespace = 'stdesign_data'::regnamespace AND c.relname IN ('AmPlaced', 'AmHeap')
 ORDER BY 1;

-- A digest of a table's contents, and the check that both tables agree.
CREATE FUNCTION pg_temp.digest(tbl text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	d text;
BEGIN
	EXECUTE format('SELECT count(*) || '' items, '' || md5(coalesce(string_agg(pk || ''|'' || sk || ''|'' || item::text, '','' ORDER BY pk, sk), ''''))
					  FROM stdesign_data.%I', tbl) INTO d;
	RETURN d;
END $$;
CREATE FUNCTION pg_temp.same() RETURNS text LANGUAGE sql AS $$
	SELECT CASE WHEN pg_temp.digest('AmPlaced') = pg_temp.digest('AmHeap')
				THEN 'same: ' || split_part(pg_temp.digest('AmPlaced'), ',', 1)
				ELSE 'DIFFERENT: ' || pg_temp.digest('AmPlaced') || ' vs ' || pg_temp.digest('AmHeap') END
$$;
-- Run the same statement on both tables (%I is the table).
CREATE FUNCTION pg_temp.both(sql text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format(sql, 'AmPlaced');
	EXECUTE format(sql, 'AmHeap');
END $$;

-- INSERT: 40 customers x 12 orders, interleaved (every customer's first
-- order, then every second order, ...), as plain SQL over typed items.
SELECT pg_temp.both($q$INSERT INTO stdesign_data.%I (item)
	SELECT jsonb_build_object('PK', jsonb_build_object('S', 'CUST#' || lpad((i %% 40)::text, 3, '0')),
							  'SK', jsonb_build_object('S', 'ORDER#' || lpad((i / 40)::text, 3, '0')),
							  'total', jsonb_build_object('N', (i %% 97)::text),
							  'note', jsonb_build_object('S', repeat('n', 150)))
	FROM generate_series(0, 479) i$q$);
SELECT pg_temp.same();

-- Stored together: a customer's 12 orders on few pages (a heap spreads them).
SELECT tbl, avg(pages) <= 3 AS at_most_3_pages, avg(pages) >= 6 AS at_least_6_pages
  FROM (SELECT 'AmPlaced' AS tbl, pk, count(DISTINCT (ctid::text::point)[0]) AS pages
		  FROM stdesign_data."AmPlaced" GROUP BY pk
		UNION ALL
		SELECT 'AmHeap', pk, count(DISTINCT (ctid::text::point)[0])
		  FROM stdesign_data."AmHeap" GROUP BY pk) s
 GROUP BY tbl ORDER BY tbl;

-- The st_* functions: put (INSERT ... ON CONFLICT), get, update, delete, query.
SELECT pg_temp.both($q$SELECT st_put(jsonb_build_object('PK', 'CUST#' || lpad(c::text, 3, '0'), 'SK', 'PROFILE', 'name', 'n' || c), %L)
	FROM generate_series(0, 49) c$q$);
SELECT pg_temp.both($q$SELECT st_put('{"PK": "CUST#001", "SK": "PROFILE", "name": "overwritten"}', %L)$q$);
SELECT pg_temp.both($q$SELECT st_update('CUST#002', 'PROFILE', 'SET visits = :one', %L, "values" => '{":one": 1}')$q$);
SELECT pg_temp.both($q$SELECT st_delete('CUST#003', 'PROFILE', %L)$q$);
SELECT st_get('CUST#001', 'PROFILE', 'AmPlaced') AS placed, st_get('CUST#001', 'PROFILE', 'AmHeap') AS heap;
SELECT (SELECT array_agg(i ->> 'SK') FROM st_query('CUST#007', 'ORDER#00', 'AmPlaced') i)
	 = (SELECT array_agg(i ->> 'SK') FROM st_query('CUST#007', 'ORDER#00', 'AmHeap') i) AS same_query,
	   (SELECT count(*) FROM st_query('CUST#007', 'ORDER#', 'AmPlaced')) AS orders;
SELECT pg_temp.same();

-- INSERT ... ON CONFLICT in SQL: DO NOTHING and DO UPDATE (speculative insertion).
SELECT pg_temp.both($q$INSERT INTO stdesign_data.%I (item)
	SELECT jsonb_build_object('PK', jsonb_build_object('S', 'CUST#' || lpad(c::text, 3, '0')),
							  'SK', jsonb_build_object('S', 'ORDER#000'), 'dup', jsonb_build_object('BOOL', true))
	FROM generate_series(30, 59) c
	ON CONFLICT DO NOTHING$q$);
SELECT pg_temp.both($q$INSERT INTO stdesign_data.%I AS t (item)
	SELECT jsonb_build_object('PK', jsonb_build_object('S', 'CUST#' || lpad(c::text, 3, '0')),
							  'SK', jsonb_build_object('S', 'ORDER#001'), 'upserted', jsonb_build_object('N', c::text))
	FROM generate_series(35, 45) c
	ON CONFLICT (stdesign.key_ix(pk), sk) DO UPDATE SET item = t.item || excluded.item$q$);
SELECT pg_temp.same();

-- COPY (multi_insert): a batch of new partitions and of known ones.
CREATE TEMP TABLE copy_src AS
	SELECT jsonb_build_object('PK', jsonb_build_object('S', 'CUST#' || lpad((i % 70)::text, 3, '0')),
							  'SK', jsonb_build_object('S', 'COPY#' || lpad(i::text, 4, '0'))) AS item
	FROM generate_series(0, 1399) i;
-- (through a file in the throwaway cluster's data directory)
DO $$
DECLARE
	f text := current_setting('data_directory') || '/tableam_copy.data';
BEGIN
	EXECUTE format('COPY copy_src TO %L', f);
	EXECUTE format('COPY stdesign_data."AmPlaced" (item) FROM %L', f);
	EXECUTE format('COPY stdesign_data."AmHeap" (item) FROM %L', f);
END $$;
SELECT pg_temp.same();

-- UPDATE and DELETE in SQL; a big item goes to the (heap) TOAST table.
SELECT pg_temp.both($q$UPDATE stdesign_data.%I SET item = item || '{"seen": {"BOOL": true}}' WHERE sk LIKE 'ORDER#00%%'$q$);
SELECT pg_temp.both($q$DELETE FROM stdesign_data.%I WHERE sk LIKE 'COPY#1%%'$q$);
SELECT pg_temp.both($q$SELECT st_put(jsonb_build_object('PK', 'BIG', 'SK', 'ITEM', 'blob', (SELECT string_agg(md5(g::text), '') FROM generate_series(1, 3000) g)), %L)$q$);
SELECT length(st_get('BIG', 'ITEM', 'AmPlaced') ->> 'blob') AS big_length,
	   pg_relation_size(reltoastrelid) > 0 AS toasted
  FROM pg_class WHERE oid = 'stdesign_data."AmPlaced"'::regclass;
SELECT pg_temp.same();

-- Maintenance: VACUUM, ANALYZE, CREATE INDEX (also CONCURRENTLY), REINDEX
-- (also CONCURRENTLY), VACUUM FULL, CLUSTER; every index still finds every item.
VACUUM stdesign_data."AmPlaced";
VACUUM (ANALYZE) stdesign_data."AmPlaced";
ANALYZE stdesign_data."AmPlaced";
SELECT reltuples > 0 AS analyzed FROM pg_class WHERE oid = 'stdesign_data."AmPlaced"'::regclass;
CREATE INDEX am_total ON stdesign_data."AmPlaced" (((item -> 'total') ->> 'N'));
CREATE INDEX CONCURRENTLY am_note ON stdesign_data."AmPlaced" (((item -> 'note') ->> 'S'));
REINDEX TABLE stdesign_data."AmPlaced";
REINDEX TABLE CONCURRENTLY stdesign_data."AmPlaced";
SELECT indexrelid::regclass AS index, indisvalid FROM pg_index
 WHERE indrelid = 'stdesign_data."AmPlaced"'::regclass ORDER BY indexrelid::regclass::text COLLATE "C";
-- The counts through each index equal the table's (the plans show that each
-- count reads its index).
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF)
SELECT count(*) AS by_total_index FROM stdesign_data."AmPlaced" WHERE ((item -> 'total') ->> 'N') IS NOT NULL;
SELECT count(*) AS by_total_index FROM stdesign_data."AmPlaced" WHERE ((item -> 'total') ->> 'N') IS NOT NULL;
EXPLAIN (COSTS OFF)
SELECT count(*) AS by_key_index FROM stdesign_data."AmPlaced" WHERE stdesign.key_ix(pk) >= '\x00'::bytea;
SELECT count(*) AS by_key_index FROM stdesign_data."AmPlaced" WHERE stdesign.key_ix(pk) >= '\x00'::bytea;
RESET enable_seqscan;
RESET enable_bitmapscan;
EXPLAIN (COSTS OFF)
SELECT count(*) FILTER (WHERE ((item -> 'total') ->> 'N') IS NOT NULL) AS with_total, count(*) AS items
  FROM stdesign_data."AmPlaced";
SELECT count(*) FILTER (WHERE ((item -> 'total') ->> 'N') IS NOT NULL) AS with_total, count(*) AS items
  FROM stdesign_data."AmPlaced";
SELECT pg_temp.same();
VACUUM FULL stdesign_data."AmPlaced";
SELECT pg_temp.same();
CLUSTER stdesign_data."AmPlaced" USING "AmPlaced:key";
SELECT pg_temp.same();
-- After CLUSTER a customer's items are contiguous: at most 2 pages.
SELECT max(pages) <= 2 AS clustered
  FROM (SELECT pk, count(DISTINCT (ctid::text::point)[0]) AS pages
		  FROM stdesign_data."AmPlaced" WHERE pk LIKE 'CUST#%' GROUP BY pk) s;
SELECT a.amname, ta.amname AS toast_am
  FROM pg_class c JOIN pg_am a ON a.oid = c.relam
  JOIN pg_class t ON t.oid = c.reltoastrelid JOIN pg_am ta ON ta.oid = t.relam
 WHERE c.oid = 'stdesign_data."AmPlaced"'::regclass;
DROP INDEX stdesign_data.am_total, stdesign_data.am_note;

-- New items after the rewrites still land next to their partition.
SELECT count(p) AS returned_values, count(*) AS calls
  FROM generate_series(10, 14) g, LATERAL st_put(jsonb_build_object('PK', 'CUST#005', 'SK', 'ORDER#9' || g), 'AmPlaced') AS p;
SELECT count(*) AS written FROM stdesign_data."AmPlaced" WHERE pk = 'CUST#005' AND sk BETWEEN 'ORDER#910' AND 'ORDER#914';
SELECT count(DISTINCT (ctid::text::point)[0]) <= 2 AS new_items_together
  FROM stdesign_data."AmPlaced" WHERE pk = 'CUST#005' AND sk >= 'ORDER#900';
SELECT count(*) AS calls FROM generate_series(10, 14) g, LATERAL st_delete('CUST#005', 'ORDER#9' || g, 'AmPlaced') AS d;
SELECT count(*) AS left_after_delete FROM stdesign_data."AmPlaced" WHERE pk = 'CUST#005' AND sk BETWEEN 'ORDER#910' AND 'ORDER#914';

-- Table rewrites through the insert callbacks: a column with a volatile
-- default, and ALTER TABLE ... SET ACCESS METHOD both ways.
ALTER TABLE stdesign_data."AmPlaced" ADD COLUMN rewritten float8 DEFAULT random();
ALTER TABLE stdesign_data."AmPlaced" DROP COLUMN rewritten;
SELECT pg_temp.same();
ALTER TABLE stdesign_data."AmPlaced" SET ACCESS METHOD heap;
SELECT pg_temp.same();
ALTER TABLE stdesign_data."AmPlaced" SET ACCESS METHOD stdesign;
SELECT a.amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam
 WHERE c.oid = 'stdesign_data."AmPlaced"'::regclass;
SELECT pg_temp.same();
SELECT st_get('CUST#001', 'PROFILE', 'AmPlaced') ->> 'name' AS name_after_rewrites;

-- TRUNCATE, then the table fills again.
TRUNCATE stdesign_data."AmPlaced";
SELECT count(*) AS after_truncate FROM stdesign_data."AmPlaced";
SELECT st_put('{"PK": "again", "SK": "1"}', 'AmPlaced');
SELECT count(*) AS refilled FROM st_query('again', NULL, 'AmPlaced');

-- A rolled-back insert leaves nothing behind.
BEGIN;
SELECT st_put('{"PK": "again", "SK": "2"}', 'AmPlaced');
ROLLBACK;
SELECT count(*) AS after_rollback FROM st_query('again', NULL, 'AmPlaced');

-- A hash-only table (one item per partition) is stored as heap stores it.
SELECT st_create_table('AmHashOnly', sk => NULL) ->> 'TableName' AS created;
SELECT count(*) AS calls FROM generate_series(1, 300) g, LATERAL st_put(jsonb_build_object('PK', 'K' || g), 'AmHashOnly') AS p;
SELECT st_get('K42', NULL, 'AmHashOnly');
SELECT count(*) AS items, pg_relation_size('stdesign_data."AmHashOnly"') / 8192 <= 3 AS dense
  FROM stdesign_data."AmHashOnly";

-- Any table can use the access method; without pk/sk columns it is a heap.
CREATE TABLE pg_temp.plain_am (a int, b text) USING stdesign;
INSERT INTO pg_temp.plain_am SELECT g, 'x' || g FROM generate_series(1, 1000) g;
SELECT count(*), sum(a) FROM pg_temp.plain_am;

-- Placement without the per-backend cache: each round of items arrives in a
-- new session (an empty cache), so every item finds its partition through
-- the key index.  The first item of each partition has the highest sort key
-- (PROFILE > ORDER#...), yet later items must follow the partition's newest
-- page, not the page of that first item.
SELECT st_create_table('AmProbe') ->> 'TableName' AS created;
SELECT count(*) AS calls FROM generate_series(1, 200) c,
  LATERAL st_put(jsonb_build_object('PK', 'C' || c, 'SK', 'PROFILE', 'pad', repeat('p', 120)), 'AmProbe') AS p;
SELECT count(*) AS written FROM stdesign_data."AmProbe" WHERE sk = 'PROFILE';
\c
SELECT count(*) AS calls FROM generate_series(1, 200) c,
  LATERAL st_put(jsonb_build_object('PK', 'C' || c, 'SK', 'ORDER#1', 'pad', repeat('o', 120)), 'AmProbe') AS p;
SELECT count(*) AS written FROM stdesign_data."AmProbe" WHERE sk = 'ORDER#1';
\c
SELECT count(*) AS calls FROM generate_series(1, 200) c,
  LATERAL st_put(jsonb_build_object('PK', 'C' || c, 'SK', 'ORDER#2', 'pad', repeat('o', 120)), 'AmProbe') AS p;
SELECT count(*) AS written FROM stdesign_data."AmProbe" WHERE sk = 'ORDER#2';
\c
SELECT count(*) AS calls FROM generate_series(1, 200) c,
  LATERAL st_put(jsonb_build_object('PK', 'C' || c, 'SK', 'ORDER#3', 'pad', repeat('o', 120)), 'AmProbe') AS p;
SELECT count(*) AS written FROM stdesign_data."AmProbe" WHERE sk = 'ORDER#3';
\c
SELECT count(*) AS calls FROM generate_series(1, 200) c,
  LATERAL st_put(jsonb_build_object('PK', 'C' || c, 'SK', 'ORDER#4', 'pad', repeat('o', 120)), 'AmProbe') AS p;
SELECT count(*) AS written FROM stdesign_data."AmProbe" WHERE sk = 'ORDER#4';
-- (Following the first item's page instead put 5 pages per partition and
-- 268 pages in all; following the newest page, 2 and 74.)
SELECT count(*) AS partitions, sum(items) AS items, max(pages) <= 3 AS at_most_3_pages_each,
       pg_relation_size('stdesign_data."AmProbe"') / 8192 < 150 AS not_bloated
  FROM (SELECT pk, count(*) AS items, count(DISTINCT (ctid::text::point)[0]) AS pages
		  FROM stdesign_data."AmProbe" GROUP BY pk) s;

SELECT st_drop_table('AmPlaced');
SELECT st_drop_table('AmHeap');
SELECT st_drop_table('AmHashOnly');
SELECT st_drop_table('AmProbe');
