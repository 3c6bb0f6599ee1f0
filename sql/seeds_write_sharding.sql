-- The seeds' write sharding: events of a hot day written to N shards and
-- read back merged in sort-key order.

SELECT st_create_table('EventsTable') ->> 'TableName' AS created;

-- 10 shards; event i goes to shard (i * 7) % 10, as a random choice would
-- scatter them; timestamps increase with i.
SELECT count(*) AS written FROM (
  SELECT st_put(jsonb_build_object(
           'PK', format('EVENTS#2026-07-06#SHARD%s', (i * 7) % 10),
           'SK', format('TS#2026-07-06T10:%s:%s', lpad((i / 60)::text, 2, '0'), lpad((i % 60)::text, 2, '0')),
           'seq', i))
    FROM generate_series(1, 200) AS i) AS puts;

-- Each shard holds 20 events.
SELECT shard, count(*) FROM generate_series(0, 9) AS shard,
       LATERAL st_query(format('EVENTS#2026-07-06#SHARD%s', shard)) AS item
 GROUP BY shard ORDER BY shard;

-- Read all shards and merge by sort key: the merged order is the write order.
WITH merged AS (
  SELECT (item->>'seq')::int AS seq,
         row_number() OVER (ORDER BY item->>'SK' COLLATE "C") AS position
    FROM generate_series(0, 9) AS shard,
         LATERAL st_query(format('EVENTS#2026-07-06#SHARD%s', shard)) AS item
)
SELECT count(*) AS events, bool_and(seq = position) AS in_write_order FROM merged;

-- The first five events of the merged stream.
(SELECT item->>'SK' AS sk, item->'seq' AS seq FROM generate_series(0, 9) AS shard,
        LATERAL st_query(format('EVENTS#2026-07-06#SHARD%s', shard)) AS item
  ORDER BY item->>'SK' COLLATE "C" LIMIT 5);

SELECT st_drop_table('EventsTable');
