-- DynamoDB Streams, what the review found: TRUNCATE of a relation with a
-- stream, records too large for a stream, the capture trigger known by its
-- function only, a change made by a deferred trigger at commit, and a
-- buffer that failed to keep a record (a savepoint must not hide the loss).

SELECT st_create_table('Rev') IS NOT NULL AS created;
SELECT format('%I.%I', 'stdesign_data', relation_name) AS rel FROM stdesign.tables WHERE table_name = 'Rev' \gset
SELECT st_stream_enable('Rev', 'NEW_AND_OLD_IMAGES') -> 'StreamSpecification' AS enabled;
SELECT st_put('{"PK": "a", "SK": "1", "n": 1}', 'Rev') IS NULL AS put;
SELECT st_put('{"PK": "a", "SK": "2", "n": 2}', 'Rev') IS NULL AS put;

-- TRUNCATE: DynamoDB has none; the items stay, and so does the stream's
-- account of them (as session_replication_role = replica too)
TRUNCATE :rel;
SET session_replication_role = replica;
TRUNCATE :rel;
RESET session_replication_role;
SELECT count(*) AS items FROM st_query('a', "table" => 'Rev');
-- a DELETE is a change the stream records
DELETE FROM :rel WHERE item->'SK'->>'S' = '2';
SELECT r->>'eventName' AS event, r->'dynamodb'->'Keys' AS keys
  FROM st_stream_records('Rev', 0) r ORDER BY (r->'dynamodb'->>'SequenceNumber')::numeric;
-- disabled, the relation truncates again
SELECT st_stream_disable('Rev') -> 'StreamSpecification' AS disabled;
SELECT count(*) AS capture_triggers FROM pg_trigger WHERE tgrelid = :'rel'::regclass
   AND tgfoid = 'stdesign.stream_capture'::regproc;
TRUNCATE :rel;
SELECT count(*) AS items FROM st_query('a', "table" => 'Rev');

-- The capture trigger is known by its function, not its name: a trigger of
-- the owner's named stream_capture is not dropped in its stead, and the
-- stream's, renamed, is still dropped by a disabling
SELECT st_stream_enable('Rev', 'KEYS_ONLY') -> 'StreamSpecification' AS enabled;
ALTER TRIGGER stream_capture ON :rel RENAME TO renamed_capture;
CREATE FUNCTION rev_noop() RETURNS trigger LANGUAGE plpgsql AS $$BEGIN RETURN NULL; END$$;
CREATE TRIGGER stream_capture AFTER INSERT ON :rel FOR EACH ROW EXECUTE FUNCTION rev_noop();
SELECT st_stream_disable('Rev') -> 'StreamSpecification' AS disabled;
SELECT tgname, tgfoid::regproc FROM pg_trigger WHERE tgrelid = :'rel'::regclass AND NOT tgisinternal
 ORDER BY tgname;
-- a put after the disabling is in no stream
SELECT st_put('{"PK": "a", "SK": "3"}', 'Rev') IS NULL AS put;
SELECT count(*) AS records_of_disabled FROM stdesign.streams s, stdesign.stream_record_rows(s.stream_id) r
 WHERE s.table_name = 'Rev' AND s.view_type = 'KEYS_ONLY';
DROP TRIGGER stream_capture ON :rel;
DROP FUNCTION rev_noop();

-- Too large for a stream: an item written by plain SQL past 400 KB, the
-- largest item DynamoDB stores, is refused with DynamoDB's message when
-- the stream would keep its image (so that a record stays below ~800 KB),
-- in the statement, not at commit
SELECT st_stream_enable('Rev', 'NEW_AND_OLD_IMAGES') -> 'StreamSpecification' AS enabled;
SELECT stream_id AS big_stream FROM stdesign.streams WHERE table_name = 'Rev' AND disabled_at IS NULL \gset
INSERT INTO :rel (item) VALUES (jsonb_build_object('PK', '{"S": "big"}'::jsonb, 'SK', '{"S": "1"}'::jsonb,
	'blob', jsonb_build_object('S', repeat('x', 500000))));
BEGIN;
INSERT INTO :rel (item) VALUES (jsonb_build_object('PK', '{"S": "big"}'::jsonb, 'SK', '{"S": "2"}'::jsonb,
	'blob', jsonb_build_object('S', repeat('x', 300000))));
-- just below the limit in each image: a record of two such images commits
UPDATE :rel SET item = jsonb_set(item, '{blob,S}', to_jsonb(repeat('y', 300000)))
 WHERE item->'SK'->>'S' = '2';
COMMIT;
SELECT r->>'eventName' AS event, (r->'dynamodb'->>'SizeBytes')::int > 600000 AS over_600k,
	   (r->'dynamodb'->>'SizeBytes')::int < 820000 AS under_820k
  FROM st_stream_records('Rev', 0) r
 WHERE r->'dynamodb'->'Keys'->'PK'->>'S' = 'big'
 ORDER BY (r->'dynamodb'->>'SequenceNumber')::numeric;
-- an item too large from before the stream: its deletion is refused while
-- the stream would keep it (nothing lost), and goes once the stream is off
SELECT st_stream_disable('Rev') -> 'StreamSpecification' AS disabled;
INSERT INTO :rel (item) VALUES (jsonb_build_object('PK', '{"S": "big"}'::jsonb, 'SK', '{"S": "3"}'::jsonb,
	'blob', jsonb_build_object('S', repeat('x', 500000))));
SELECT st_stream_enable('Rev', 'OLD_IMAGE') -> 'StreamSpecification' AS enabled;
DELETE FROM :rel WHERE item->'SK'->>'S' = '3' AND item->'PK'->>'S' = 'big';
-- KEYS_ONLY keeps no image: nothing to refuse
SELECT st_stream_disable('Rev') -> 'StreamSpecification' AS disabled;
SELECT st_stream_enable('Rev', 'KEYS_ONLY') -> 'StreamSpecification' AS enabled;
DELETE FROM :rel WHERE item->'SK'->>'S' = '3' AND item->'PK'->>'S' = 'big';
SELECT r->>'eventName' AS event, r->'dynamodb'->'Keys' AS keys FROM st_stream_records('Rev', 0) r;
SELECT st_stream_disable('Rev') -> 'StreamSpecification' AS disabled;

-- A deferred constraint trigger that writes the table at commit: its
-- change is in the stream, numbered after the transaction's others
SELECT st_stream_enable('Rev', 'NEW_IMAGE') -> 'StreamSpecification' AS enabled;
CREATE TABLE rev_audit (id int);
CREATE FUNCTION rev_deferred() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	PERFORM st_put('{"PK": "deferred", "SK": "1"}', 'Rev');
	EXECUTE format('INSERT INTO %s (item) VALUES (%L)', TG_ARGV[0], '{"PK": {"S": "deferred"}, "SK": {"S": "2"}}');
	RETURN NULL;
END $$;
SELECT format('CREATE CONSTRAINT TRIGGER rev_deferred AFTER INSERT ON rev_audit DEFERRABLE INITIALLY DEFERRED'
	' FOR EACH ROW EXECUTE FUNCTION rev_deferred(%L)', :'rel') \gexec
BEGIN;
SELECT st_put('{"PK": "deferred", "SK": "0"}', 'Rev') IS NULL AS put;
INSERT INTO rev_audit VALUES (1);
COMMIT;
SELECT r->>'eventName' AS event, r->'dynamodb'->'Keys' AS keys
  FROM st_stream_records('Rev', 0) r ORDER BY (r->'dynamodb'->>'SequenceNumber')::numeric;
DROP TABLE rev_audit;
DROP FUNCTION rev_deferred();

-- A record that could not be kept (its temporary file refused past
-- temp_file_limit) fails the transaction even when a savepoint catches
-- the error: the records kept are out of step with the buffer's account
SET work_mem = '64kB';
SET temp_file_limit = '64kB';
BEGIN;
SELECT st_put('{"PK": "spill", "SK": "kept"}', 'Rev') IS NULL AS put;
SAVEPOINT s;
-- (the message's words differ between versions: its code only)
\set VERBOSITY sqlstate
SELECT count(st_put(jsonb_build_object('PK', 'spill', 'SK', i::text, 'pad', repeat('p', 200)), 'Rev'))
  FROM generate_series(1, 2000) i;
\set VERBOSITY default
ROLLBACK TO SAVEPOINT s;
SELECT st_put('{"PK": "spill", "SK": "after"}', 'Rev') IS NULL AS put_after;
COMMIT;
RESET temp_file_limit;
RESET work_mem;
SELECT count(*) AS spill_items FROM st_query('spill', "table" => 'Rev');
SELECT count(*) AS spill_records FROM st_stream_records('Rev', 0) r
 WHERE r->'dynamodb'->'Keys'->'PK'->>'S' = 'spill';

SELECT st_drop_table('Rev');
