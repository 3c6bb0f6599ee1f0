-- Design studio: write sharding (single-table-design-patterns): events of
-- a hot day written to ten shards of its partition key, read back one shard
-- per call; the text form shows the partitions evenly filled.
SELECT st_create_table('EventsTable') ->> 'TableName' AS created;
SELECT st_set_model('EventsTable', '{
  "type_attribute": null,
  "entities": {
    "Event": {"keys": {"PK": "EVENTS#{day}#SHARD{shard}", "SK": "TS#{ts}"},
              "attributes": {"day": "S", "shard": "N", "ts": "S", "seq": "N"},
              "required": ["day", "shard", "ts"]}
  },
  "patterns": {
    "events_of_shard": {"op": "Query", "pk": "EVENTS#{day}#SHARD{shard}", "sk": {"begins_with": "TS#"}, "rate": 100},
    "events_since": {"op": "Query", "pk": "EVENTS#{day}#SHARD{shard}", "sk": {">=": "TS#{from}"}, "limit": 5,
                     "example": {"day": "2026-07-06", "shard": 3, "from": "2026-07-06T10:02"}},
    "write_event": {"op": "PutItem", "entity": "Event", "rate": 500}
  }
}') IS NOT NULL AS stored;

SELECT count(*) AS written FROM (
  SELECT st_put_entity('Event', jsonb_build_object(
           'day', '2026-07-06', 'shard', (i * 7) % 10,
           'ts', format('2026-07-06T10:%s:%s', lpad((i / 60)::text, 2, '0'), lpad((i % 60)::text, 2, '0')),
           'seq', i), 'EventsTable')
    FROM generate_series(1, 200) AS i) AS puts;
-- a number fills a template as its text
SELECT pk, count(*) FROM (SELECT i ->> 'PK' AS pk FROM st_scan('EventsTable') AS i) AS x GROUP BY pk ORDER BY pk;

-- all shards, merged in sort-key order, are the events in write order
WITH merged AS (
  SELECT (item ->> 'seq')::int AS seq,
         row_number() OVER (ORDER BY item ->> 'SK' COLLATE "C") AS position
    FROM generate_series(0, 9) AS shard,
         LATERAL st_run_pattern('events_of_shard', jsonb_build_object('day', '2026-07-06', 'shard', shard), 'EventsTable') AS item
)
SELECT count(*) AS events, bool_and(seq = position) AS in_write_order FROM merged;
SELECT i ->> 'SK' AS sk FROM st_run_pattern('events_since', '{"day": "2026-07-06", "shard": 3, "from": "2026-07-06T10:02"}', 'EventsTable') AS i;

SELECT name, operation, entities, read_per_call, returned_per_call, ok, findings FROM st_check_model('EventsTable');
SELECT pattern, calls_per_second, read_units, write_units, on_demand_monthly, provisioned_monthly, note
  FROM st_model_cost('EventsTable');
SELECT * FROM st_studio_text('EventsTable');

SELECT st_drop_table('EventsTable');
