# Stream mappings run by the stream worker (the library preloaded):
#
#   1. Exactly once: a role's function writes each record of a table's
#      stream to a relational table (a primary key: a record given twice
#      would fail), as that role, the checkpoint moving with its writes.
#   2. A failing batch is rolled back whole (the function's writes and the
#      checkpoint), retried maximum_retry_attempts times after a delay,
#      then set aside in the dead letters with the checkpoint moved past
#      it, and the records after it are processed.
#   3. The restricted operation: a function that tries SET ROLE, SET
#      SESSION AUTHORIZATION or a SET role clause fails; what a batch sets
#      (set_config) is gone in the next.
#   4. Rights revoked, a role dropped: the mapping goes Disabled, the
#      reason kept, and nothing runs.
#   5. A restart (immediate: a crash) in the middle of a backlog: the
#      worker goes on from the committed checkpoint, each record once.
#   6. A function that never returns (it catches the statement timeout's
#      cancel): the worker ended in its batch (as its hard limit ends it)
#      records that batch as failed when it starts again, and the other
#      mappings run; it does not run the same batch first again forever.

use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

$ENV{PGOPTIONS} = '-c client_min_messages=warning';

my $node = PostgreSQL::Test::Cluster->new('stream_mappings');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'stdesign'
stdesign.stream_mapping_retry_delay = 200
log_statement = none
});
$node->start;

$node->safe_psql('postgres', q{
CREATE EXTENSION stdesign;
SELECT st_create_table('Feed') IS NOT NULL;
SELECT st_stream_enable('Feed', 'NEW_IMAGE') IS NOT NULL;
CREATE ROLE app;
GRANT USAGE ON SCHEMA stdesign, stdesign_data TO app;
GRANT SELECT ON stdesign.tables, stdesign.indexes TO app;
DO $$ BEGIN EXECUTE format('GRANT SELECT ON stdesign_data.%I TO app',
	(SELECT relation_name FROM stdesign.tables WHERE table_name = 'Feed')); END $$;
CREATE TABLE seen (sk text, n numeric, as_role text, path text, mapping text, PRIMARY KEY (sk, mapping));
GRANT ALL ON seen TO app;
-- the mappings' functions, the role's own
CREATE FUNCTION sink(batch jsonb) RETURNS void LANGUAGE plpgsql AS $f$
BEGIN
	INSERT INTO seen SELECT r->'dynamodb'->'Keys'->'SK'->>'S', (r->'dynamodb'->'NewImage'->'n'->>'N')::numeric,
		   current_user, current_setting('search_path'), 'sink'
	  FROM jsonb_array_elements(batch->'Records') r;
	-- a session setting of this batch, which must not reach the next
	PERFORM set_config('search_path', 'planted', false);
END $f$;
CREATE FUNCTION flaky(batch jsonb) RETURNS void LANGUAGE plpgsql AS $f$
BEGIN
	INSERT INTO seen SELECT r->'dynamodb'->'Keys'->'SK'->>'S', 0, current_user, '', 'flaky'
	  FROM jsonb_array_elements(batch->'Records') r;
	IF jsonb_path_exists(batch, '$.Records[*].dynamodb.NewImage.poison') THEN
		RAISE EXCEPTION 'poison in the batch';
	END IF;
END $f$;
CREATE FUNCTION set_role(batch jsonb) RETURNS void LANGUAGE plpgsql AS $f$
BEGIN SET ROLE postgres; END $f$;
CREATE FUNCTION set_session(batch jsonb) RETURNS void LANGUAGE plpgsql AS $f$
BEGIN SET SESSION AUTHORIZATION postgres; END $f$;
CREATE FUNCTION role_clause(batch jsonb) RETURNS void LANGUAGE sql AS 'SELECT' SET role = postgres;
ALTER FUNCTION sink(jsonb) OWNER TO app;
ALTER FUNCTION flaky(jsonb) OWNER TO app;
ALTER FUNCTION set_role(jsonb) OWNER TO app;
ALTER FUNCTION set_session(jsonb) OWNER TO app;
ALTER FUNCTION role_clause(jsonb) OWNER TO app;
});

# 1. exactly once, as the role
$node->safe_psql('postgres', q{
SET ROLE app;
SELECT st_stream_mapping_create('Feed', 'sink(jsonb)', 7, 'TRIM_HORIZON') IS NOT NULL;
RESET ROLE;
SELECT count(st_put(jsonb_build_object('PK', 'a', 'SK', 'a' || i, 'n', i), 'Feed')) FROM generate_series(1, 30) i;
BEGIN;
SELECT count(st_put(jsonb_build_object('PK', 'a', 'SK', 'b' || i, 'n', i), 'Feed')) FROM generate_series(1, 20) i;
COMMIT;
});
ok($node->poll_query_until('postgres', q{SELECT count(*) = 50 FROM seen WHERE mapping = 'sink'}),
	'every record of the stream processed');
is($node->safe_psql('postgres', q{
SELECT count(*), count(DISTINCT sk), sum(n), string_agg(DISTINCT as_role, ','), string_agg(DISTINCT path, ',')
  FROM seen WHERE mapping = 'sink'}),
	'50|50|675|app|"$user", public', 'each once, as the role, every batch with the server\'s search_path');
is($node->safe_psql('postgres', q{
SET ROLE app;
SELECT m.sequence_number = (SELECT max((r->'dynamodb'->>'SequenceNumber')::bigint) FROM st_stream_records('Feed') r),
	   m.state, m.retries, m.last_processing_result
  FROM st_stream_mappings() m}),
	't|Enabled|0|OK', 'the checkpoint is the last record\'s');

# 2. a failing batch: rolled back, retried, dead-lettered, and on
my $flaky = $node->safe_psql('postgres', q{
SET ROLE app;
SELECT st_stream_mapping_update(mapping, enabled => false) IS NOT NULL FROM st_stream_mappings();
SELECT st_stream_mapping_create('Feed', 'flaky(jsonb)', 10, 'LATEST', 2) ->> 'UUID';
});
$flaky = (split /\n/, $flaky)[-1];
my $before = $node->safe_psql('postgres',
	qq{SET ROLE app; SELECT sequence_number FROM st_stream_mappings() WHERE mapping = '$flaky'});
$node->safe_psql('postgres', q{
BEGIN;
SELECT st_put('{"PK": "f", "SK": "f1"}', 'Feed') IS NULL;
SELECT st_put('{"PK": "f", "SK": "f2", "poison": true}', 'Feed') IS NULL;
SELECT st_put('{"PK": "f", "SK": "f3"}', 'Feed') IS NULL;
COMMIT;
});
ok($node->poll_query_until('postgres',
	qq{SELECT retries = 2 FROM stdesign.stream_mappings WHERE uuid = '$flaky'}),
	'the failed attempts are counted');
is($node->safe_psql('postgres', qq{
SET ROLE app;
SELECT sequence_number = $before, last_error, last_processing_result,
	   (SELECT count(*) FROM seen WHERE mapping = 'flaky')
  FROM st_stream_mappings() WHERE mapping = '$flaky'}),
	"t|poison in the batch|PROBLEM: Function call failed|0",
	'a failed batch is rolled back whole: no write of the function, the checkpoint where it was');
ok($node->poll_query_until('postgres',
	qq{SELECT count(*) = 1 FROM stdesign.stream_dead_letters WHERE mapping = '$flaky'}),
	'past its retries the batch goes to the dead letters');
is($node->safe_psql('postgres', qq{
SET ROLE app;
SELECT jsonb_array_length(records->'Records'), attempts, error, last_sequence > first_sequence,
	   last_sequence = (SELECT sequence_number FROM st_stream_mappings() WHERE mapping = '$flaky'),
	   (SELECT retries FROM st_stream_mappings() WHERE mapping = '$flaky')
  FROM st_stream_dead_letters('$flaky')}),
	'3|3|poison in the batch|t|t|0', 'the dead letter: the batch, its 3 attempts, the error; the checkpoint past it');
is($node->safe_psql('postgres', q{SELECT count(*) FROM stdesign.stream_dead_letters}), '1',
	'one dead letter');
$node->safe_psql('postgres', q{SELECT st_put('{"PK": "f", "SK": "f4"}', 'Feed')});
ok($node->poll_query_until('postgres', q{SELECT count(*) = 1 FROM seen WHERE sk = 'f4'}),
	'the records after the dead letter are processed');
is($node->safe_psql('postgres', q{SELECT string_agg(sk, ',') FROM seen WHERE mapping = 'flaky'}),
	'f4', 'and only they');
like(slurp_file($node->logfile), qr/poison in the batch/, 'the failures are logged');

# 3. the restricted operation: the worker's switch to the role is a local
# one (SECURITY_LOCAL_USERID_CHANGE, as a SECURITY DEFINER function's), so
# that Postgres names it so when it refuses the role switches
$node->safe_psql('postgres', q{
SET ROLE app;
SELECT st_stream_mapping_update(mapping, enabled => false) IS NOT NULL FROM st_stream_mappings();
SELECT st_stream_mapping_create('Feed', f::regprocedure, 10, 'LATEST', 0) IS NOT NULL
  FROM unnest(ARRAY['set_role(jsonb)', 'set_session(jsonb)', 'role_clause(jsonb)']) f;
RESET ROLE;
SELECT st_put('{"PK": "r", "SK": "r1"}', 'Feed') IS NULL;
});
ok($node->poll_query_until('postgres',
	q{SELECT count(*) = 4 FROM stdesign.stream_dead_letters}),
	'the functions that switch roles fail');
is($node->safe_psql('postgres', q{
SET ROLE app;
SELECT string_agg(m.function::text || ': ' || d.error, E'\n' ORDER BY m.function::text)
  FROM st_stream_dead_letters() d JOIN st_stream_mappings() m USING (mapping)
 WHERE m.function::text <> 'flaky(jsonb)'}),
	qq{role_clause(jsonb): cannot set parameter "role" within security-definer function
set_role(jsonb): cannot set parameter "role" within security-definer function
set_session(jsonb): cannot set parameter "session_authorization" within security-definer function},
	'SET ROLE, SET SESSION AUTHORIZATION and a SET role clause are refused');

# 4. rights revoked, a role dropped: disabled, the reason kept
$node->safe_psql('postgres', q{
SET ROLE app;
SELECT st_stream_mapping_drop(mapping) FROM st_stream_mappings() WHERE function::text <> 'sink(jsonb)';
SELECT st_stream_mapping_update(mapping, enabled => true) IS NOT NULL FROM st_stream_mappings();
RESET ROLE;
ALTER FUNCTION sink(jsonb) OWNER TO postgres;
REVOKE EXECUTE ON FUNCTION sink(jsonb) FROM PUBLIC;
SELECT st_put('{"PK": "v", "SK": "v1", "n": 1}', 'Feed') IS NULL;
});
ok($node->poll_query_until('postgres',
	q{SELECT state = 'Disabled' FROM stdesign.stream_mappings}),
	'EXECUTE revoked: the mapping is disabled');
is($node->safe_psql('postgres', q{
SET ROLE app;
SELECT state_transition_reason, (SELECT count(*) FROM seen WHERE sk = 'v1') FROM st_stream_mappings()}),
	'permission denied for function sink|0', 'the reason is kept; nothing ran');
$node->safe_psql('postgres', q{
GRANT EXECUTE ON FUNCTION sink(jsonb) TO app;
CREATE ROLE gone;
GRANT USAGE ON SCHEMA stdesign, stdesign_data TO gone;
GRANT SELECT ON stdesign.tables, stdesign.indexes TO gone;
DO $$ BEGIN EXECUTE format('GRANT SELECT ON stdesign_data.%I TO gone',
	(SELECT relation_name FROM stdesign.tables WHERE table_name = 'Feed')); END $$;
GRANT EXECUTE ON FUNCTION sink(jsonb) TO gone;
SET ROLE gone;
SELECT st_stream_mapping_create('Feed', 'sink(jsonb)', 10, 'LATEST', 0, enabled => false) IS NOT NULL;
RESET ROLE;
DROP OWNED BY gone;
DROP ROLE gone;
UPDATE stdesign.stream_mappings SET state = 'Enabled' WHERE role_name = 'gone';
SELECT st_put('{"PK": "v", "SK": "v2", "n": 2}', 'Feed') IS NULL;
});
ok($node->poll_query_until('postgres',
	q{SELECT state = 'Disabled' FROM stdesign.stream_mappings WHERE role_name = 'gone'}),
	'a dropped role\'s mapping is disabled');
is($node->safe_psql('postgres', q{
SELECT state_transition_reason, (SELECT count(*) FROM seen WHERE sk = 'v2')
  FROM stdesign.stream_mappings WHERE role_name = 'gone'}),
	'the role gone that created the mapping no longer exists|0', 'never run as another role');
$node->safe_psql('postgres', q{DELETE FROM stdesign.stream_mappings WHERE role_name = 'gone'});

# 5. a crash in the middle of a backlog: on from the checkpoint, each record once
$node->safe_psql('postgres', q{
CREATE OR REPLACE FUNCTION sink(batch jsonb) RETURNS void LANGUAGE plpgsql AS $f$
BEGIN
	INSERT INTO seen SELECT r->'dynamodb'->'Keys'->'SK'->>'S', (r->'dynamodb'->'NewImage'->'n'->>'N')::numeric,
		   current_user, '', 'crash'
	  FROM jsonb_array_elements(batch->'Records') r;
	PERFORM pg_sleep(0.05);
END $f$;
SET ROLE app;
SELECT st_stream_mapping_update(mapping, enabled => false, batch_size => 5) IS NOT NULL FROM st_stream_mappings();
RESET ROLE;
SELECT count(st_put(jsonb_build_object('PK', 'c', 'SK', 'c' || i, 'n', i), 'Feed')) FROM generate_series(1, 200) i;
SET ROLE app;
SELECT st_stream_mapping_update(mapping, enabled => true) IS NOT NULL FROM st_stream_mappings();
});
ok($node->poll_query_until('postgres', q{SELECT count(*) >= 20 FROM seen WHERE mapping = 'crash' AND sk LIKE 'c%'}),
	'the backlog is being processed');
$node->stop('immediate');
$node->start;
my $after = $node->safe_psql('postgres', q{SELECT count(*) FROM seen WHERE mapping = 'crash' AND sk LIKE 'c%'});
cmp_ok($after, '<', 200, "the crash came in the middle ($after of 200 done)");
ok($node->poll_query_until('postgres', q{SELECT count(*) = 200 FROM seen WHERE mapping = 'crash' AND sk LIKE 'c%'}),
	'after the restart the worker goes on');
is($node->safe_psql('postgres', q{
SET ROLE app;
SELECT count(DISTINCT sk), (SELECT count(*) FROM st_stream_dead_letters() d JOIN st_stream_mappings() m USING (mapping)
							  WHERE m.function::text = 'sink(jsonb)'), min(m.retries), min(m.state)
  FROM seen, st_stream_mappings() m WHERE seen.mapping = 'crash' AND seen.sk LIKE 'c%'}),
	'200|0|0|Enabled', 'each record once: no duplicate, no failure');

# 6. a batch that never ends: the worker ended in it records it as failed
$node->safe_psql('postgres', q{
CREATE FUNCTION hog(batch jsonb) RETURNS void LANGUAGE plpgsql AS $f$
BEGIN
	LOOP
		BEGIN
			PERFORM pg_sleep(1000);
		EXCEPTION WHEN query_canceled THEN
			NULL;
		END;
	END LOOP;
END $f$;
ALTER FUNCTION hog(jsonb) OWNER TO app;
});
my $hog = $node->safe_psql('postgres', q{
SET ROLE app;
SELECT st_stream_mapping_create('Feed', 'hog(jsonb)', 10, 'LATEST', 0) ->> 'UUID';
});
$hog = (split /\n/, $hog)[-1];
$node->safe_psql('postgres', q{SELECT st_put('{"PK": "h", "SK": "h1", "n": 1}', 'Feed')});
ok($node->poll_query_until('postgres', qq{
SELECT count(*) = 1 FROM pg_stat_activity
 WHERE backend_type = 'stdesign stream worker' AND query LIKE '%$hog%'}),
	'the worker runs the batch that never ends');
# what the hard limit does after two minutes (ProcDiePending), now
$node->safe_psql('postgres', q{
SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE backend_type = 'stdesign stream worker'});
ok($node->poll_query_until('postgres',
	qq{SELECT count(*) = 1 FROM stdesign.stream_dead_letters WHERE mapping = '$hog'}),
	'the worker started again records the unfinished batch as failed (past its retries: a dead letter)');
is($node->safe_psql('postgres', qq{
SET ROLE app;
SELECT d.error, d.attempts, jsonb_array_length(d.records->'Records'), m.retries, m.state
  FROM st_stream_dead_letters('$hog') d JOIN st_stream_mappings() m USING (mapping)}),
	'the batch did not end: the stream worker was ended while the function ran (a batch is cancelled after 60 seconds, the worker ended after 120)|1|1|0|Enabled',
	'the dead letter says why');
ok($node->poll_query_until('postgres', q{SELECT count(*) = 1 FROM seen WHERE mapping = 'crash' AND sk = 'h1'}),
	'the other mapping runs');
like(slurp_file($node->logfile), qr/stream mapping $hog: the worker was ended during its batch/,
	'the unfinished batch is logged');

$node->stop;
done_testing();
