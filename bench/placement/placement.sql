-- Placement benchmark: 3,000 customers x 20 orders, inserted interleaved
-- (every customer's first order, then every second order, ...), into a
-- stdesign table and into a heap table with the same columns and indexes.
-- Run by run.sh; psql variables: customers, orders, rounds.
\set ON_ERROR_STOP on
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS stdesign;
SELECT st_drop_table(t) FROM st_list_tables() t WHERE t IN ('BenchPlaced', 'BenchHeap');
SELECT st_create_table('BenchPlaced') IS NOT NULL AS created;
SELECT st_create_table('BenchHeap') IS NOT NULL AS created;
-- Same table, same indexes, heap storage (set while empty).
ALTER TABLE stdesign_data."BenchHeap" SET ACCESS METHOD heap;

-- One load: every customer's order r, for r = 1..orders, as typed items;
-- through st_put or plain INSERT.  Returns the seconds it took.
CREATE OR REPLACE FUNCTION pg_temp.load(tbl text, via text, customers int, orders int)
RETURNS double precision LANGUAGE plpgsql AS $$
DECLARE
	t0 timestamptz;
	items text := format($q$
		SELECT jsonb_build_object(
			'PK', jsonb_build_object('S', 'CUST#' || lpad((i %% %1$s)::text, 5, '0')),
			'SK', jsonb_build_object('S', 'ORDER#2026-' || lpad((i / %1$s)::text, 3, '0')),
			'entity_type', jsonb_build_object('S', 'Order'),
			'status', jsonb_build_object('S', 'PLACED'),
			'total', jsonb_build_object('N', ((i %% 997) + 0.99)::text),
			'shipping', jsonb_build_object('S', 'Somewhere street ' || i)) AS item
		FROM generate_series(0, %1$s * %2$s - 1) i$q$, customers, orders);
BEGIN
	EXECUTE format('TRUNCATE stdesign_data.%I', tbl);
	t0 := clock_timestamp();
	IF via = 'st_put' THEN
		EXECUTE format('SELECT count(st_put(item, %L, typed => true)) FROM (%s) s', tbl, items);
	ELSE
		EXECUTE format('INSERT INTO stdesign_data.%I (item) %s', tbl, items);
	END IF;
	RETURN extract(epoch FROM clock_timestamp() - t0);
END $$;

CREATE TEMP TABLE timing (tbl text, via text, run int, seconds double precision);
-- Alternate the two tables so that neither profits from a warmer cache.
CREATE OR REPLACE FUNCTION pg_temp.run_all(customers int, orders int, rounds int)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	via text;
BEGIN
	FOR run IN 1..rounds LOOP
		FOREACH via IN ARRAY ARRAY['st_put', 'insert'] LOOP
			INSERT INTO timing SELECT 'BenchHeap', via, run, pg_temp.load('BenchHeap', via, customers, orders);
			INSERT INTO timing SELECT 'BenchPlaced', via, run, pg_temp.load('BenchPlaced', via, customers, orders);
		END LOOP;
	END LOOP;
END $$;
SELECT pg_temp.run_all(:customers, :orders, :rounds);
-- The measured tables are those of the last st_put load.
SELECT pg_temp.load('BenchHeap', 'st_put', :customers, :orders) IS NOT NULL AS reloaded;
SELECT pg_temp.load('BenchPlaced', 'st_put', :customers, :orders) IS NOT NULL AS reloaded;
VACUUM ANALYZE stdesign_data."BenchHeap";
VACUUM ANALYZE stdesign_data."BenchPlaced";

-- Buffers one st_query of a whole partition touches (plan root of EXPLAIN:
-- it counts the function's inner index scan), averaged over 200 customers.
CREATE OR REPLACE FUNCTION pg_temp.query_buffers(tbl text, customers int)
RETURNS numeric LANGUAGE plpgsql AS $$
DECLARE
	plan json;
	total numeric := 0;
	n int := 0;
	c int;
BEGIN
	PERFORM count(*) FROM st_query('CUST#00000', 'ORDER#', tbl);	-- warm the catalog
	FOR c IN SELECT (g * 7919) % customers FROM generate_series(1, 200) g LOOP
		EXECUTE format('EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) SELECT * FROM st_query(%L, %L, %L)',
					   'CUST#' || lpad(c::text, 5, '0'), 'ORDER#', tbl) INTO plan;
		total := total + (plan -> 0 -> 'Plan' ->> 'Shared Hit Blocks')::numeric
					   + (plan -> 0 -> 'Plan' ->> 'Shared Read Blocks')::numeric;
		n := n + 1;
	END LOOP;
	RETURN round(total / n, 1);
END $$;

\echo
\echo 'pages per partition, table size, st_query buffers:'
SELECT tbl AS "table", am,
	   round(avg(pages), 2) AS avg_pages_per_customer, max(pages) AS max_pages,
	   pg_relation_size(format('stdesign_data.%I', tbl)) / 8192 AS table_pages,
	   pg_temp.query_buffers(tbl, :customers) AS st_query_buffers
FROM (SELECT 'BenchHeap' AS tbl, 'heap' AS am, pk, count(DISTINCT (ctid::text::point)[0]) AS pages
	  FROM stdesign_data."BenchHeap" GROUP BY pk
	  UNION ALL
	  SELECT 'BenchPlaced', 'stdesign', pk, count(DISTINCT (ctid::text::point)[0])
	  FROM stdesign_data."BenchPlaced" GROUP BY pk) s
GROUP BY tbl, am ORDER BY am;

\echo 'insert throughput (items/s of the best run of each; ratio = stdesign / heap; the'
\echo 'median ratio pairs each run of the heap with the stdesign run that followed it):'
SELECT via,
	   round(:customers * :orders / min(seconds) FILTER (WHERE tbl = 'BenchHeap')) AS heap,
	   round(:customers * :orders / min(seconds) FILTER (WHERE tbl = 'BenchPlaced')) AS stdesign,
	   round((min(seconds) FILTER (WHERE tbl = 'BenchHeap')
			  / min(seconds) FILTER (WHERE tbl = 'BenchPlaced'))::numeric, 2) AS best_ratio,
	   (SELECT round(percentile_cont(0.5) WITHIN GROUP (ORDER BY h.seconds / p.seconds)::numeric, 2)
		  FROM timing h JOIN timing p USING (via, run)
		 WHERE h.tbl = 'BenchHeap' AND p.tbl = 'BenchPlaced' AND h.via = t.via) AS median_ratio
FROM timing t GROUP BY via ORDER BY via DESC;

\echo 'ratios stdesign / heap:'
SELECT round(pg_relation_size('stdesign_data."BenchPlaced"')::numeric
			 / pg_relation_size('stdesign_data."BenchHeap"'), 2) AS table_size_ratio;
