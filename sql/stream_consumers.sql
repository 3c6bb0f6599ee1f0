-- DynamoDB Streams' consumers in SQL: a named checkpoint per role that
-- moves in the reader's transaction (exactly once with the reader's own
-- writes), the wait for records, st_stream_stats and the retention's trim.

SELECT st_create_table('Feed') IS NOT NULL AS created;
SELECT st_stream_enable('Feed', 'NEW_IMAGE') ->> 'StreamSpecification' AS enabled;
SELECT st_put(format('{"PK": "p", "SK": "%s", "n": %s}', i, i)::jsonb, 'Feed') IS NULL AS put
  FROM generate_series(1, 5) i;

-- A consumer from TRIM_HORIZON: batches in order, each record once
SELECT c - 'StreamArn' AS consumer, c ->> 'StreamArn' LIKE 'arn:aws:dynamodb:%:table/Feed/stream/%' AS arn
  FROM st_stream_consumer_create('agg', 'Feed') c;
SELECT r->>'eventName' AS event, r->'dynamodb'->'Keys'->'SK'->>'S' AS sk,
	   r->'dynamodb'->'NewImage'->'n'->>'N' AS n, r->'dynamodb'->>'StreamViewType' AS view
  FROM st_stream_read('agg', 'Feed', 2) r;
SELECT r->'dynamodb'->'Keys'->'SK'->>'S' AS sk FROM st_stream_read('agg', 'Feed', 2) r;
SELECT r->'dynamodb'->'Keys'->'SK'->>'S' AS sk FROM st_stream_read('agg') r;
SELECT count(*) AS nothing_left FROM st_stream_read('agg', 'Feed', 1000);
-- the records are GetRecords' own: the same JSON as st_stream_records
SELECT st_stream_consumer_reset('agg') ->> 'SequenceNumber' AS reset_to;
SELECT (SELECT array_agg(r) FROM st_stream_read('agg', 'Feed', 1000) r)
	 = (SELECT array_agg(r) FROM st_stream_records('Feed') r) AS same_as_get_records;

-- Exactly once with the reader's writes: a rollback keeps both as they were
CREATE TABLE feed_total (total numeric);
INSERT INTO feed_total VALUES (0);
SELECT st_put('{"PK": "p", "SK": "6", "n": 6}', 'Feed') IS NULL AS put;
SELECT st_put('{"PK": "p", "SK": "7", "n": 7}', 'Feed') IS NULL AS put;
BEGIN;
UPDATE feed_total SET total = total + (SELECT sum((r->'dynamodb'->'NewImage'->'n'->>'N')::numeric)
										 FROM st_stream_read('agg', 'Feed', 10) r);
SELECT total FROM feed_total;
ROLLBACK;
SELECT total AS after_rollback FROM feed_total;
BEGIN;
UPDATE feed_total SET total = total + (SELECT sum((r->'dynamodb'->'NewImage'->'n'->>'N')::numeric)
										 FROM st_stream_read('agg', 'Feed', 10) r);
COMMIT;
SELECT total AS after_commit FROM feed_total;
SELECT count(*) AS read_again FROM st_stream_read('agg', 'Feed', 10);
-- a savepoint rolled back moves the consumer back too
BEGIN;
SELECT st_put('{"PK": "p", "SK": "8", "n": 8}', 'Feed') IS NULL AS put;
COMMIT;
BEGIN;
SAVEPOINT s;
SELECT count(*) AS in_savepoint FROM st_stream_read('agg', 'Feed', 10);
ROLLBACK TO s;
SELECT count(*) AS after_savepoint FROM st_stream_read('agg', 'Feed', 10);
COMMIT;

-- LATEST: only what commits after the consumer is made
SELECT st_stream_consumer_create('late', 'Feed', 'LATEST') ->> 'SequenceNumber' <> '0' AS latest_not_zero;
SELECT count(*) AS at_latest FROM st_stream_read('late');
SELECT st_delete('p', '1', 'Feed') IS NULL AS deleted;
SELECT r->>'eventName' AS event, r->'dynamodb'->'Keys' AS keys FROM st_stream_read('late') r;
SELECT st_stream_consumer_reset('late', 'LATEST') IS NOT NULL AS reset_latest;
SELECT count(*) AS after_reset_latest FROM st_stream_read('late');

-- Waiting: records there answer at once, none waits the timeout out
SELECT st_stream_wait('late', 0) AS nothing_now;
SELECT st_stream_wait('late', 0.2) AS nothing_in_200ms;
SELECT st_put('{"PK": "p", "SK": "9"}', 'Feed') IS NULL AS put;
SELECT st_stream_wait('late', 5) AS records_there;
SELECT count(*) AS read_after_wait FROM st_stream_read('late');
-- interruptible: statement_timeout ends a wait
SET statement_timeout = '300ms';
SELECT st_stream_wait('late', 30);
RESET statement_timeout;
-- a transaction snapshot would never see a new record: refused
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT st_stream_wait('late', 1);
ROLLBACK;

-- Hostile input: NULLs, unknown names, limits out of range
SELECT st_stream_consumer_create(NULL, 'Feed');
SELECT st_stream_consumer_create('', 'Feed');
SELECT st_stream_consumer_create(repeat('c', 256), 'Feed');
SELECT st_stream_consumer_create('x', 'NoSuchTable');
SELECT st_stream_consumer_create('x', 'Feed', NULL);
SELECT st_stream_consumer_create('x', 'Feed', 'AT_SEQUENCE_NUMBER');
SELECT st_stream_consumer_create('x', 'Feed', repeat('L', 100000));
SELECT st_stream_consumer_create('agg', 'Feed');
SELECT * FROM st_stream_read(NULL);
SELECT * FROM st_stream_read('nobody');
SELECT * FROM st_stream_read('agg', 'Other');
SELECT * FROM st_stream_read('agg', 'Feed', 0);
SELECT * FROM st_stream_read('agg', 'Feed', -1);
SELECT * FROM st_stream_read('agg', 'Feed', 1001);
SELECT * FROM st_stream_read('agg', 'Feed', 2147483647);
SELECT * FROM st_stream_read('agg', 'Feed', NULL);
SELECT st_stream_wait('agg', -1);
SELECT st_stream_wait('agg', NULL);
SELECT st_stream_wait('agg', 'NaN');
SELECT st_stream_wait('agg', 'Infinity');
SELECT st_stream_wait('agg', 1e300);
SELECT st_stream_wait('nobody', 1);
SELECT st_stream_consumer_reset('nobody');
SELECT st_stream_consumer_reset('agg', 'NOW');
SELECT st_stream_consumer_drop(NULL);
SELECT st_stream_consumer_drop('nobody') AS dropped_none;
SELECT st_create_table('Quiet') IS NOT NULL AS created;
SELECT st_stream_consumer_create('q', 'Quiet');

-- Roles: a consumer is its role's; SELECT on the table, at every call
SELECT format('%I.%I', 'stdesign_data', relation_name) AS rel FROM stdesign.tables WHERE table_name = 'Feed' \gset
CREATE ROLE regress_st_consumer_reader;
CREATE ROLE regress_st_consumer_stranger;
GRANT SELECT ON :rel TO regress_st_consumer_reader;
GRANT USAGE ON SCHEMA stdesign, stdesign_data TO regress_st_consumer_reader, regress_st_consumer_stranger;
GRANT SELECT ON stdesign.tables, stdesign.indexes TO regress_st_consumer_reader, regress_st_consumer_stranger;
SET ROLE regress_st_consumer_stranger;
-- no SELECT on the table: no consumer, no stats
SELECT st_stream_consumer_create('mine', 'Feed');
SELECT count(*) AS stats_seen FROM st_stream_stats();
SELECT * FROM st_stream_stats('Feed');
-- another role's consumer is not found, not moved, not dropped
SELECT * FROM st_stream_read('agg', 'Feed');
SELECT st_stream_consumer_reset('agg');
SELECT st_stream_consumer_drop('agg') AS dropped_other;
SELECT st_stream_wait('agg', 0);
-- nor is the catalog readable or writable
SELECT count(*) FROM stdesign.stream_consumers;
UPDATE stdesign.stream_consumers SET position = 0;
RESET ROLE;
SET ROLE regress_st_consumer_reader;
SELECT st_stream_consumer_create('agg', 'Feed') ->> 'ConsumerName' AS own_agg;
SELECT count(*) AS reader_reads FROM st_stream_read('agg', 'Feed', 1000);
SELECT table_name, stream_status, records > 0 AS has_records FROM st_stream_stats();
RESET ROLE;
-- a consumer is its role's OID while the role keeps the name it had: a
-- dropped role's OID given to a new role (or a restore where OIDs differ)
-- hands it to nobody; simulated by renaming the row's role_name
SELECT role_name FROM stdesign.stream_consumers WHERE role = 'regress_st_consumer_reader'::regrole;
UPDATE stdesign.stream_consumers SET role_name = 'regress_st_consumer_gone'
 WHERE role = 'regress_st_consumer_reader'::regrole;
SET ROLE regress_st_consumer_reader;
SELECT * FROM st_stream_read('agg', 'Feed');
SELECT st_stream_wait('agg', 0);
SELECT st_stream_consumer_reset('agg');
SELECT st_stream_consumer_drop('agg') AS dropped_stale;
-- a new consumer of the name takes the stale row's place
SELECT st_stream_consumer_create('agg', 'Feed', 'LATEST') ->> 'ConsumerName' AS replaces_stale;
SELECT count(*) AS after_latest FROM st_stream_read('agg', 'Feed', 1000);
SELECT st_stream_consumer_create('agg', 'Feed');
RESET ROLE;
SELECT role_name, count(*) FROM stdesign.stream_consumers
 WHERE role = 'regress_st_consumer_reader'::regrole GROUP BY role_name;
-- the superuser's 'agg' did not move with the reader's
SELECT count(*) AS own_position_kept FROM st_stream_read('agg', 'Feed', 1000);
-- SELECT revoked: the next call is refused
REVOKE SELECT ON :rel FROM regress_st_consumer_reader;
SET ROLE regress_st_consumer_reader;
SELECT * FROM st_stream_read('agg', 'Feed');
SELECT st_stream_wait('agg', 0);
RESET ROLE;
-- row-level security applying to the reader: its stream is refused
GRANT SELECT ON :rel TO regress_st_consumer_reader;
ALTER TABLE :rel ENABLE ROW LEVEL SECURITY;
SET ROLE regress_st_consumer_reader;
SELECT * FROM st_stream_read('agg', 'Feed');
SELECT count(*) AS stats_under_rls FROM st_stream_stats('Feed');
RESET ROLE;
ALTER TABLE :rel DISABLE ROW LEVEL SECURITY;
SET ROLE regress_st_consumer_reader;
SELECT st_stream_consumer_drop('agg') AS dropped_own;
RESET ROLE;
REVOKE ALL ON :rel FROM regress_st_consumer_reader;
REVOKE ALL ON stdesign.tables, stdesign.indexes FROM regress_st_consumer_reader, regress_st_consumer_stranger;
REVOKE ALL ON SCHEMA stdesign, stdesign_data FROM regress_st_consumer_reader, regress_st_consumer_stranger;
DROP ROLE regress_st_consumer_reader;
DROP ROLE regress_st_consumer_stranger;

-- Stats: records, bytes, oldest and newest of each stream
SELECT table_name, stream_status, records, bytes > records * 50 AS bytes_plausible,
	   oldest <= newest AS ordered, newest > now() - interval '10 minutes' AS recent
  FROM st_stream_stats('Feed');

-- Retention: records older than stdesign.stream_retention are trimmed; a
-- disabled stream with none left is removed after it
SET stdesign.stream_retention = 3600;
SELECT stdesign.stream_trim() AS trimmed_none;
SET stdesign.stream_retention = 1;
SELECT pg_sleep(1.2);
SELECT st_put('{"PK": "p", "SK": "fresh"}', 'Feed') IS NULL AS put;
SELECT stdesign.stream_trim() > 0 AS trimmed;
SELECT records AS kept_fresh FROM st_stream_stats('Feed');
SELECT st_stream_disable('Feed') ->> 'StreamSpecification' AS disabled;
SELECT pg_sleep(1.2);
SELECT stdesign.stream_trim() AS trimmed_last;
SELECT count(*) AS streams_left FROM stdesign.streams WHERE table_name = 'Feed';
-- its consumers say so, and a reset finds no stream
SELECT * FROM st_stream_read('agg', 'Feed');
SELECT st_stream_consumer_reset('agg');
RESET stdesign.stream_retention;
-- not for every role
CREATE ROLE regress_st_trimmer;
GRANT USAGE ON SCHEMA stdesign TO regress_st_trimmer;
SET ROLE regress_st_trimmer;
SELECT stdesign.stream_trim();
RESET ROLE;
REVOKE USAGE ON SCHEMA stdesign FROM regress_st_trimmer;
DROP ROLE regress_st_trimmer;
SELECT st_stream_consumer_drop('agg') AS dropped, st_stream_consumer_drop('late') AS dropped;
SELECT count(*) AS consumers_left FROM stdesign.stream_consumers;
DROP TABLE feed_total;
SELECT st_drop_table('Feed');
SELECT st_drop_table('Quiet');
