# The time-to-live worker (stdesign in shared_preload_libraries, a one-second
# interval): expired items are deleted, with their GSI entries; items not yet
# expired, without a Number attribute, or expired more than five years ago
# stay; the extension may be created after the server starts; the worker
# shows in pg_stat_activity, comes back after it is killed (kill -9: the
# postmaster restarts every backend, then the worker), and an item locked by
# another transaction is skipped until it is free.

use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

$ENV{PGOPTIONS} = '-c client_min_messages=warning';

my $node = PostgreSQL::Test::Cluster->new('ttl');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'stdesign'
stdesign.ttl_interval = 1
stdesign.ttl_batch_size = 7
restart_after_crash = on
log_statement = none
});
$node->start;

# The worker runs before the extension exists, and says where it serves.
ok($node->poll_query_until('postgres', q{
SELECT count(*) = 1 FROM pg_stat_activity
 WHERE backend_type = 'stdesign ttl worker' AND datname = 'postgres'}),
	'the worker runs (pg_stat_activity) before the extension is created');
like(slurp_file($node->logfile), qr/time-to-live worker serving database "postgres" every 1 s/,
	'the worker logs the database it serves');

# Now the extension, a table with a GSI, and items: 20 expired a minute
# ago, 5 expiring in an hour, 3 with a string, 2 without the attribute, 2
# expired six years ago.
$node->safe_psql('postgres', q{
CREATE EXTENSION stdesign;
SELECT st_create_table('Sessions') IS NOT NULL;
SELECT st_create_gsi('Sessions', 'ByUser', 'user') IS NOT NULL;
CREATE TABLE deleted_log (sk text);
CREATE FUNCTION log_delete() RETURNS trigger LANGUAGE plpgsql AS
  $$ BEGIN INSERT INTO deleted_log VALUES (OLD.item->'SK'->>'S'); RETURN OLD; END $$;
CREATE TRIGGER log_delete AFTER DELETE ON stdesign_data."Sessions" FOR EACH ROW EXECUTE FUNCTION log_delete();
});
my $now = 'extract(epoch FROM now())::bigint';
$node->safe_psql('postgres', qq{
SELECT count(st_put(jsonb_build_object('PK', 'S', 'SK', 'old#' || lpad(i::text, 2, '0'), 'user', 'u1',
                                        'expires', $now - 60), 'Sessions')) FROM generate_series(1, 20) i;
SELECT count(st_put(jsonb_build_object('PK', 'S', 'SK', 'new#' || i, 'user', 'u1', 'expires', $now + 3600), 'Sessions'))
  FROM generate_series(1, 5) i;
SELECT count(st_put(jsonb_build_object('PK', 'S', 'SK', 'str#' || i, 'user', 'u1', 'expires', '1'), 'Sessions'))
  FROM generate_series(1, 3) i;
SELECT count(st_put(jsonb_build_object('PK', 'S', 'SK', 'none#' || i, 'user', 'u1'), 'Sessions'))
  FROM generate_series(1, 2) i;
SELECT count(st_put(jsonb_build_object('PK', 'S', 'SK', 'ancient#' || i, 'user', 'u1',
                                        'expires', $now - 6 * 365 * 86400), 'Sessions')) FROM generate_series(1, 2) i;
});
is($node->safe_psql('postgres', q{SELECT count(*) FROM st_query('u1', "table" => 'Sessions', index => 'ByUser')}),
	'32', 'all 32 items are in the GSI');
sleep(2);
is($node->safe_psql('postgres', q{SELECT count(*) FROM stdesign_data."Sessions"}),
	'32', 'nothing is deleted while time to live is disabled');

# One expired item is locked by an open transaction: it is skipped, not waited for.
my $locker = $node->background_psql('postgres', on_error_stop => 1);
$locker->query_safe(q{BEGIN});
$locker->query_safe(q{SELECT 1 FROM stdesign_data."Sessions" WHERE sk = 'old#01' FOR UPDATE});

$node->safe_psql('postgres', q{SELECT st_update_ttl('Sessions', 'expires')});
ok($node->poll_query_until('postgres', q{SELECT count(*) = 13 FROM stdesign_data."Sessions"}),
	'the worker deletes the 19 expired items it can lock (batches of 7)');
is($node->safe_psql('postgres', q{SELECT string_agg(sk, ',' ORDER BY sk) FROM stdesign_data."Sessions" WHERE sk LIKE 'old#%'}),
	'old#01', 'the locked expired item is skipped');
is($node->safe_psql('postgres', q{SELECT count(*) FROM st_query('u1', "table" => 'Sessions', index => 'ByUser')}),
	'13', 'the GSI lost the deleted items');
is($node->safe_psql('postgres', q{SELECT count(*), count(DISTINCT sk) FROM deleted_log}),
	'19|19', 'a delete trigger fired once per deleted item');
ok($node->wait_for_log(qr/stdesign: time to live deleted 19 expired items: Sessions 19\n/),
	'the round that deleted them says so in the log, with the count of each table');
is($node->safe_psql('postgres', q{
SELECT string_agg(split_part(sk, '#', 1), ',' ORDER BY sk) FROM (SELECT DISTINCT split_part(sk, '#', 1) || '#' AS sk FROM stdesign_data."Sessions") s}),
	'ancient,new,none,old,str', 'unexpired, non-number, missing and six-year-old expiries stay');

# The lock is released: the item goes in a later round.  Meanwhile one item
# is given a later expiry and must stay.
$node->safe_psql('postgres', qq{
SELECT st_update('S', 'new#1', 'SET expires = :e', 'Sessions', "values" => jsonb_build_object(':e', $now - 1)) IS NOT NULL;
SELECT st_update('S', 'new#1', 'SET expires = :e', 'Sessions', "values" => jsonb_build_object(':e', $now + 7200)) IS NOT NULL;
});
$locker->query_safe(q{COMMIT});
ok($node->poll_query_until('postgres', q{SELECT count(*) = 12 FROM stdesign_data."Sessions"}),
	'the item locked before is deleted once free');
ok($node->wait_for_log(qr/stdesign: time to live deleted 1 expired item: Sessions 1\n/),
	'and that round logs its one item');
is($node->safe_psql('postgres', q{SELECT count(*) FROM stdesign_data."Sessions" WHERE sk LIKE 'new#%'}),
	'5', 'items with a future expiry stay');

# Expiry by update: an item updated to a past time goes.
$node->safe_psql('postgres', qq{
SELECT st_update('S', 'new#2', 'SET expires = :e', 'Sessions', "values" => jsonb_build_object(':e', $now - 5)) IS NOT NULL});
ok($node->poll_query_until('postgres', q{SELECT count(*) = 0 FROM stdesign_data."Sessions" WHERE sk = 'new#2'}),
	'an item updated to a past expiry is deleted');

# kill -9 of the worker: the postmaster restarts the backends and the worker.
my $pid = $node->safe_psql('postgres', q{SELECT pid FROM pg_stat_activity WHERE backend_type = 'stdesign ttl worker'});
ok($pid =~ /^\d+$/, 'the worker has a process id');
kill 'KILL', $pid;
ok($node->poll_query_until('postgres', qq{
SELECT count(*) = 1 FROM pg_stat_activity WHERE backend_type = 'stdesign ttl worker' AND pid <> $pid}),
	'the worker is back after kill -9');
$node->safe_psql('postgres', qq{
SELECT st_update('S', 'new#3', 'SET expires = :e', 'Sessions', "values" => jsonb_build_object(':e', $now - 5)) IS NOT NULL});
ok($node->poll_query_until('postgres', q{SELECT count(*) = 0 FROM stdesign_data."Sessions" WHERE sk = 'new#3'}),
	'the restarted worker deletes expired items');

# Disabled again: nothing more is deleted.
$node->safe_psql('postgres', qq{
SELECT st_update_ttl('Sessions', 'expires', false);
SELECT st_update('S', 'new#4', 'SET expires = :e', 'Sessions', "values" => jsonb_build_object(':e', $now - 5)) IS NOT NULL});
sleep(3);
is($node->safe_psql('postgres', q{SELECT count(*) FROM stdesign_data."Sessions" WHERE sk = 'new#4'}),
	'1', 'nothing is deleted once time to live is disabled');

# A table owned by an ordinary role: the worker deletes as that role.
$node->safe_psql('postgres', q{
CREATE ROLE app LOGIN;
GRANT USAGE, CREATE ON SCHEMA stdesign_data TO app;
GRANT USAGE ON SCHEMA stdesign TO app;
GRANT SELECT ON stdesign.tables, stdesign.indexes TO app;
});
$node->safe_psql('postgres', qq{
SET ROLE app;
SELECT st_create_table('AppTable') IS NOT NULL;
SELECT st_update_ttl('AppTable', 'ttl');
SELECT st_put(jsonb_build_object('PK', 'a', 'SK', 'b', 'ttl', $now - 1), 'AppTable');
});
ok($node->poll_query_until('postgres', q{SELECT count(*) = 0 FROM stdesign_data."AppTable"}),
	'the expired item of a table owned by an ordinary role is deleted');

# SIGTERM ends the worker cleanly (then the postmaster starts it again).
$pid = $node->safe_psql('postgres', q{SELECT pid FROM pg_stat_activity WHERE backend_type = 'stdesign ttl worker'});
$node->safe_psql('postgres', qq{SELECT pg_terminate_backend($pid)});
ok($node->poll_query_until('postgres', qq{
SELECT count(*) = 1 FROM pg_stat_activity WHERE backend_type = 'stdesign ttl worker' AND pid <> $pid}),
	'after pg_terminate_backend the worker starts again');
unlike(slurp_file($node->logfile), qr/stdesign.*(PANIC|TRAP)/, 'no PANIC or assertion in the log');

$node->stop('fast');
ok(1, 'the server stops with the worker running');
done_testing();
