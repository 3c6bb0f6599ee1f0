-- Per-backend caches: once a table's definition is read, calls on it read no
-- catalog; once an expression is parsed, calls with the same text (and any
-- names or values) parse nothing; DDL invalidates the table's entry.

SELECT st_create_table('Cached') ->> 'TableName' AS created;
SELECT st_put('{"PK": "a", "SK": "1", "n": 1}', 'Cached');
SELECT stdesign.cache_stats() AS before \gset

-- 500 calls of each kind, with the same expressions and varying values.
SELECT count(st_get('a', '1', 'Cached')) AS gets FROM generate_series(1, 500);
SELECT count(*) AS rows FROM generate_series(1, 500) i, st_query('a', '1', 'Cached');
SELECT count(st_update('a', '1', 'SET n = n + :d', 'Cached', condition => 'n >= :z',
                       "values" => jsonb_build_object(':d', i, ':z', 0))) AS updates
  FROM generate_series(1, 500) i;
SELECT count(*) AS filtered FROM generate_series(1, 500) i,
       st_query('a', "table" => 'Cached', filter => 'n > :v', "values" => jsonb_build_object(':v', i));

-- No catalog read at all, and exactly three parses (the update, its condition, the filter).
SELECT (stdesign.cache_stats() ->> 'catalog_loads')::int - (:'before'::jsonb ->> 'catalog_loads')::int AS catalog_reads,
       (stdesign.cache_stats() ->> 'expression_parses')::int - (:'before'::jsonb ->> 'expression_parses')::int AS parses;

-- A new GSI invalidates the table's entry: it is read again (once in the DDL's own
-- transaction, once when the invalidation comes back after commit), then cached.
SELECT stdesign.cache_stats() AS before \gset
SELECT st_create_gsi('Cached', 'ByN', 'n', sk => NULL, pk_type => 'N') IS NOT NULL AS gsi_created;
SELECT count(*) AS in_index FROM st_query('125251', "table" => 'Cached', index => 'ByN');
SELECT count(st_get('a', '1', 'Cached')) AS gets FROM generate_series(1, 100);
SELECT (stdesign.cache_stats() ->> 'catalog_loads')::int - (:'before'::jsonb ->> 'catalog_loads')::int AS catalog_reads;

SELECT st_drop_table('Cached');
