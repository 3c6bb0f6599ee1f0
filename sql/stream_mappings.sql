-- Stream mappings (Lambda's event source mappings, in SQL): registration,
-- its checks, and who sees, changes and drops a mapping.  The stream
-- worker that runs them needs the library preloaded: test/t/013_stream_mappings.pl.

SELECT st_create_table('Shipments') IS NOT NULL AS created;
SELECT st_stream_enable('Shipments', 'NEW_AND_OLD_IMAGES') ->> 'StreamSpecification' AS enabled;
SELECT st_put('{"PK": "o", "SK": "1", "n": 1}', 'Shipments') IS NULL AS put;
SELECT st_create_table('NoStream') IS NOT NULL AS created;

CREATE TABLE order_log (sk text, n numeric);
CREATE FUNCTION order_sink(batch jsonb) RETURNS void LANGUAGE sql
	AS $$ INSERT INTO order_log SELECT r->'dynamodb'->'Keys'->'SK'->>'S', (r->'dynamodb'->'NewImage'->'n'->>'N')::numeric
			FROM jsonb_array_elements(batch->'Records') r $$;
CREATE FUNCTION two_args(a jsonb, b jsonb) RETURNS void LANGUAGE sql AS 'SELECT';
CREATE FUNCTION text_arg(a text) RETURNS void LANGUAGE sql AS 'SELECT';
CREATE FUNCTION set_returning(a jsonb) RETURNS SETOF int LANGUAGE sql AS 'SELECT 1';
CREATE PROCEDURE a_procedure(a jsonb) LANGUAGE sql AS 'SELECT';

-- Created: the answer as CreateEventSourceMapping gives it
SELECT m - 'UUID' - 'EventSourceArn' - 'LastModified' AS mapping,
	   m ->> 'EventSourceArn' LIKE 'arn:aws:dynamodb:%:table/Shipments/stream/%' AS arn,
	   (m ->> 'UUID')::uuid IS NOT NULL AS has_uuid
  FROM st_stream_mapping_create('Shipments', 'order_sink(jsonb)', 10, 'TRIM_HORIZON', 3) m;
SELECT st_stream_mapping_create('Shipments', 'order_sink(jsonb)') ->> 'UUID' AS latest \gset
SELECT table_name, function, batch_size, starting_position, maximum_retry_attempts, dead_letter,
	   state, state_transition_reason, sequence_number > 0 AS at_latest, retries, last_error, last_run
  FROM st_stream_mappings() ORDER BY created_at, starting_position;
-- no dead letters yet
SELECT count(*) AS dead_letters FROM st_stream_dead_letters();

-- Bad arguments: clear errors, nothing registered
SELECT st_stream_mapping_create('Shipments', 'order_sink(jsonb)', 0);
SELECT st_stream_mapping_create('Shipments', 'order_sink(jsonb)', 1001);
SELECT st_stream_mapping_create('Shipments', 'order_sink(jsonb)', -5);
SELECT st_stream_mapping_create('Shipments', 'order_sink(jsonb)', NULL);
SELECT st_stream_mapping_create('Shipments', 'order_sink(jsonb)', 10, 'AT_TIMESTAMP');
SELECT st_stream_mapping_create('Shipments', 'order_sink(jsonb)', 10, NULL);
SELECT st_stream_mapping_create('Shipments', 'order_sink(jsonb)', 10, repeat('L', 100000));
SELECT st_stream_mapping_create('Shipments', 'order_sink(jsonb)', 10, 'LATEST', -2);
SELECT st_stream_mapping_create('Shipments', 'order_sink(jsonb)', 10, 'LATEST', 10001);
SELECT st_stream_mapping_create('Shipments', 'order_sink(jsonb)', 10, 'LATEST', NULL);
SELECT st_stream_mapping_create(NULL, 'order_sink(jsonb)');
SELECT st_stream_mapping_create('Shipments', NULL);
SELECT st_stream_mapping_create('Nowhere', 'order_sink(jsonb)');
SELECT st_stream_mapping_create(repeat('T', 300), 'order_sink(jsonb)');
SELECT st_stream_mapping_create('NoStream', 'order_sink(jsonb)');
-- a function of another signature, a set, a procedure, none at all
SELECT st_stream_mapping_create('Shipments', 'two_args(jsonb, jsonb)');
SELECT st_stream_mapping_create('Shipments', 'text_arg(text)');
SELECT st_stream_mapping_create('Shipments', 'set_returning(jsonb)');
SELECT st_stream_mapping_create('Shipments', 'a_procedure(jsonb)');
SELECT st_stream_mapping_create('Shipments', 0::regprocedure);
SELECT st_stream_mapping_create('Shipments', 4242424::oid::regprocedure);
SELECT count(*) AS still_two FROM st_stream_mappings();

-- Update: disable, enable, change the batch size and the retries
SELECT m ->> 'State' AS state, m ->> 'StateTransitionReason' AS reason
  FROM st_stream_mapping_update(:'latest', enabled => false) m;
SELECT m ->> 'State' AS state, m ->> 'BatchSize' AS batch, m ->> 'MaximumRetryAttempts' AS retries,
	   m -> 'DestinationConfig' AS destination
  FROM st_stream_mapping_update(:'latest', enabled => true, batch_size => 1000,
								maximum_retry_attempts => 0, dead_letter => false) m;
SELECT st_stream_mapping_update(:'latest', batch_size => 0);
SELECT st_stream_mapping_update(:'latest', maximum_retry_attempts => -7);
SELECT st_stream_mapping_update('00000000-0000-0000-0000-000000000000');
SELECT st_stream_mapping_update(NULL);
SELECT st_stream_mapping_update('not a uuid');
SELECT batch_size, maximum_retry_attempts, dead_letter, state FROM st_stream_mappings()
 WHERE mapping = :'latest';

-- Roles: a mapping is its role's; EXECUTE on the function and SELECT on
-- the table, checked at creation (and by the worker at every batch)
SELECT format('%I.%I', 'stdesign_data', relation_name) AS rel FROM stdesign.tables WHERE table_name = 'Shipments' \gset
CREATE ROLE regress_st_mapper;
CREATE ROLE regress_st_mapping_stranger;
GRANT USAGE ON SCHEMA stdesign, stdesign_data TO regress_st_mapper, regress_st_mapping_stranger;
GRANT SELECT ON stdesign.tables, stdesign.indexes TO regress_st_mapper, regress_st_mapping_stranger;
SET ROLE regress_st_mapper;
-- no SELECT on the table
SELECT st_stream_mapping_create('Shipments', 'order_sink(jsonb)');
RESET ROLE;
REVOKE EXECUTE ON FUNCTION order_sink(jsonb) FROM PUBLIC;
GRANT SELECT ON :rel TO regress_st_mapper;
SET ROLE regress_st_mapper;
-- no EXECUTE on the function
SELECT st_stream_mapping_create('Shipments', 'order_sink(jsonb)');
RESET ROLE;
GRANT EXECUTE ON FUNCTION order_sink(jsonb) TO regress_st_mapper;
SET ROLE regress_st_mapper;
SELECT st_stream_mapping_create('Shipments', 'order_sink(jsonb)', 5) ->> 'UUID' AS mine \gset
SELECT table_name, function, batch_size, state FROM st_stream_mappings();
-- the superuser's mapping: not seen, not changed, not dropped
SELECT st_stream_mapping_update(:'latest', enabled => false);
SELECT st_stream_mapping_drop(:'latest') AS dropped_other;
-- nor is the catalog readable or writable
SELECT count(*) FROM stdesign.stream_mappings;
UPDATE stdesign.stream_mappings SET role = 'regress_st_mapper';
SELECT count(*) FROM stdesign.stream_dead_letters;
RESET ROLE;
-- row-level security applying to the role on the relation: refused
ALTER TABLE :rel ENABLE ROW LEVEL SECURITY;
SET ROLE regress_st_mapper;
SELECT st_stream_mapping_create('Shipments', 'order_sink(jsonb)');
SELECT st_stream_mapping_update(:'mine', enabled => true);
RESET ROLE;
ALTER TABLE :rel DISABLE ROW LEVEL SECURITY;
-- a stranger sees none of them
SET ROLE regress_st_mapping_stranger;
SELECT count(*) AS strangers_mappings FROM st_stream_mappings();
SELECT count(*) AS strangers_letters FROM st_stream_dead_letters(:'mine');
SELECT st_stream_mapping_update(:'mine', enabled => false);
SELECT st_stream_mapping_drop(:'mine') AS dropped_others;
RESET ROLE;
-- a mapping and its dead letters are its role's OID while the role keeps
-- the name it had: a dropped role's OID given to a new role hands them
-- (the records themselves) to nobody; simulated by renaming the row's
-- role_name, a dead letter written as the worker writes one
INSERT INTO stdesign.stream_dead_letters (mapping, role, table_name, first_sequence, last_sequence,
										  records, error, attempts, failed_at)
SELECT uuid, role, table_name, 1, 1, '{"Records": [{"secret": 1}]}', 'failed', 1, now()
  FROM stdesign.stream_mappings WHERE uuid = :'mine';
SET ROLE regress_st_mapper;
SELECT count(*) AS own_letters FROM st_stream_dead_letters(:'mine');
RESET ROLE;
UPDATE stdesign.stream_mappings SET role_name = 'regress_st_mapper_gone' WHERE uuid = :'mine';
SET ROLE regress_st_mapper;
SELECT count(*) AS stale_mappings FROM st_stream_mappings();
SELECT count(*) AS stale_letters FROM st_stream_dead_letters();
SELECT count(*) AS stale_letters_by_id FROM st_stream_dead_letters(:'mine');
SELECT st_stream_mapping_update(:'mine', enabled => false);
SELECT st_stream_mapping_drop(:'mine') AS dropped_stale;
SELECT st_stream_dead_letter_delete(:'mine', 1) AS deleted_stale;
RESET ROLE;
UPDATE stdesign.stream_mappings SET role_name = 'regress_st_mapper' WHERE uuid = :'mine';
-- A dead letter goes when its role removes it (once handled), only its
-- own, or once older than stdesign.stream_dead_letter_retention
SET ROLE regress_st_mapping_stranger;
SELECT st_stream_dead_letter_delete(:'mine', 1) AS strangers_delete;
RESET ROLE;
SET ROLE regress_st_mapper;
SELECT st_stream_dead_letter_delete(:'mine', 2) AS wrong_sequence;
SELECT st_stream_dead_letter_delete(:'mine', NULL);
SELECT st_stream_dead_letter_delete(NULL, 1);
SELECT count(*) AS letters_before FROM st_stream_dead_letters(:'mine');
SELECT st_stream_dead_letter_delete(:'mine', 1) AS deleted;
SELECT st_stream_dead_letter_delete(:'mine', 1) AS deleted_again;
SELECT count(*) AS letters_after FROM st_stream_dead_letters(:'mine');
RESET ROLE;
-- four days by default; the trim (the time-to-live worker's, here called
-- at once) deletes those older, and a shorter setting takes more
SHOW stdesign.stream_dead_letter_retention;
INSERT INTO stdesign.stream_dead_letters (mapping, role, table_name, first_sequence, last_sequence,
										  records, error, attempts, failed_at)
SELECT uuid, role, table_name, s, s, '{"Records": []}', 'failed', 1, now() - a::interval
  FROM stdesign.stream_mappings, (VALUES (10, '5 days'), (11, '3 days'), (12, '0')) v(s, a)
 WHERE uuid = :'mine';
SELECT stdesign.stream_trim() >= 0 AS trimmed;
SELECT first_sequence AS kept FROM stdesign.stream_dead_letters WHERE mapping = :'mine' ORDER BY 1;
SET stdesign.stream_dead_letter_retention = '1h';
SELECT stdesign.stream_trim() >= 0 AS trimmed;
SELECT first_sequence AS kept FROM stdesign.stream_dead_letters WHERE mapping = :'mine' ORDER BY 1;
RESET stdesign.stream_dead_letter_retention;
DELETE FROM stdesign.stream_dead_letters WHERE mapping = :'mine';
-- The function is kept by its OID, qualified name and owner (no
-- regprocedure: pg_upgrade refuses one, and functions get new OIDs through
-- it and through restores): made again by its owner, it is found again; made
-- by another role under the same name, it never is
CREATE FUNCTION resink(batch jsonb) RETURNS void LANGUAGE sql AS 'SELECT';
SELECT st_stream_mapping_create('Shipments', 'resink(jsonb)', 7, enabled => false) ->> 'UUID' AS refound \gset
SELECT function_name, function_owner = current_user::regrole AS owner_kept
  FROM stdesign.stream_mappings WHERE uuid = :'refound';
DROP FUNCTION resink(jsonb);
SELECT function IS NULL AS gone FROM st_stream_mappings() WHERE mapping = :'refound';
SELECT st_stream_mapping_update(:'refound', enabled => true);
CREATE FUNCTION resink(batch jsonb) RETURNS void LANGUAGE sql AS 'SELECT';
SELECT function FROM st_stream_mappings() WHERE mapping = :'refound';
SELECT m ->> 'State' AS state, m ->> 'FunctionName' AS function
  FROM st_stream_mapping_update(:'refound', enabled => true) m;
SELECT st_stream_mapping_update(:'refound', enabled => false) ->> 'State' AS state;
-- renamed, or given to another owner: still the mapping's (its OID)
ALTER FUNCTION resink(jsonb) RENAME TO resink_renamed;
SELECT function FROM st_stream_mappings() WHERE mapping = :'refound';
ALTER FUNCTION resink_renamed(jsonb) RENAME TO resink;
ALTER FUNCTION resink(jsonb) OWNER TO regress_st_mapping_stranger;
SELECT function FROM st_stream_mappings() WHERE mapping = :'refound';
ALTER FUNCTION resink(jsonb) OWNER TO CURRENT_USER;
DROP FUNCTION resink(jsonb);
GRANT CREATE ON SCHEMA public TO regress_st_mapping_stranger;
SET ROLE regress_st_mapping_stranger;
CREATE FUNCTION resink(batch jsonb) RETURNS void LANGUAGE sql AS 'SELECT';
RESET ROLE;
SELECT function IS NULL AS not_the_strangers FROM st_stream_mappings() WHERE mapping = :'refound';
SELECT st_stream_mapping_update(:'refound', enabled => true);
DROP FUNCTION resink(jsonb);
REVOKE CREATE ON SCHEMA public FROM regress_st_mapping_stranger;
SELECT st_stream_mapping_drop(:'refound') AS dropped;
-- EXECUTE revoked: enabling again is refused (the worker disables it)
REVOKE EXECUTE ON FUNCTION order_sink(jsonb) FROM regress_st_mapper;
SET ROLE regress_st_mapper;
SELECT st_stream_mapping_update(:'mine', enabled => true);
SELECT st_stream_mapping_drop(:'mine') AS dropped_own;
SELECT st_stream_mapping_drop(:'mine') AS dropped_again;
RESET ROLE;
-- a bound on each role's mappings
GRANT EXECUTE ON FUNCTION order_sink(jsonb) TO regress_st_mapper;
SET ROLE regress_st_mapper;
SELECT count(st_stream_mapping_create('Shipments', 'order_sink(jsonb)')) AS made FROM generate_series(1, 100);
SELECT st_stream_mapping_create('Shipments', 'order_sink(jsonb)');
SELECT count(st_stream_mapping_drop(mapping)) AS dropped FROM st_stream_mappings();
RESET ROLE;
REVOKE ALL ON :rel FROM regress_st_mapper;
REVOKE ALL ON FUNCTION order_sink(jsonb) FROM regress_st_mapper;
REVOKE ALL ON stdesign.tables, stdesign.indexes FROM regress_st_mapper, regress_st_mapping_stranger;
REVOKE ALL ON SCHEMA stdesign, stdesign_data FROM regress_st_mapper, regress_st_mapping_stranger;
DROP ROLE regress_st_mapper;
DROP ROLE regress_st_mapping_stranger;

-- Dropped: the mapping and its dead letters
SELECT count(st_stream_mapping_drop(mapping)) AS dropped FROM st_stream_mappings();
SELECT count(*) AS left_over FROM st_stream_mappings();
SELECT st_stream_mapping_drop(NULL);
SELECT st_drop_table('Shipments');
SELECT st_drop_table('NoStream');
DROP TABLE order_log;
DROP FUNCTION order_sink(jsonb), two_args(jsonb, jsonb), text_arg(text), set_returning(jsonb);
DROP PROCEDURE a_procedure(jsonb);
