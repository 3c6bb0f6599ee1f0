# The stdesign table access method outside pg_regress: crash recovery
# (committed items survive, a transaction open at the crash vanishes, the
# key index agrees with the table), a pg_dump/pg_restore round trip, and
# logical replication from one server's stdesign table to another's.

use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

$ENV{PGOPTIONS} = '-c client_min_messages=warning';

# A digest of a table's contents, identical across servers when the items are.
sub digest_sql
{
	my ($table) = @_;
	return qq{SELECT count(*) || ' ' || md5(coalesce(string_agg(pk || '|' || sk || '|' || item::text, ',' ORDER BY pk, sk), ''))
	            FROM stdesign_data."$table"};
}

my $pub = PostgreSQL::Test::Cluster->new('pub');
my $sub = PostgreSQL::Test::Cluster->new('sub');
for my $node ($pub, $sub)
{
	$node->init(allows_streaming => 'logical');
	$node->append_conf('postgresql.conf', "log_statement = none\n");
	$node->start;
}

# ---- crash recovery ----
$pub->safe_psql('postgres', q{
CREATE EXTENSION stdesign; CREATE EXTENSION amcheck;
SELECT st_create_table('Crash') IS NOT NULL;
});
# 200 customers x 10 orders, interleaved, committed; then a checkpoint.
is($pub->safe_psql('postgres', q{
SELECT st_put_all(jsonb_build_object('PK', 'CUST#' || (i % 200), 'SK', 'ORDER#' || lpad((i / 200)::text, 3, '0'), 'n', i), 'Crash')
  FROM generate_series(0, 1999) i}),
	'2000', 'before the crash: 2000 items written');
$pub->safe_psql('postgres', 'CHECKPOINT');
# More committed after the checkpoint (replayed from WAL), one st_put each.
is($pub->safe_psql('postgres', q{
SELECT count(*) FROM generate_series(0, 399) i,
  LATERAL (SELECT st_put(jsonb_build_object('PK', 'CUST#' || (i % 200), 'SK', 'LATE#' || i), 'Crash')) AS p;
SELECT count(*) FROM stdesign_data."Crash" WHERE sk LIKE 'LATE#%'}),
	"400\n400", 'before the crash: 400 more items written after the checkpoint');

# A transaction still open at the crash: it wrote an item, which it sees
# and no one else does; it must vanish.
my $open = $pub->background_psql('postgres', on_error_stop => 1);
$open->query_safe(q{BEGIN});
$open->query_safe(q{SELECT st_put('{"PK": "CUST#1", "SK": "UNCOMMITTED"}', 'Crash')});
is($open->query_safe(q{SELECT count(*) FROM stdesign_data."Crash" WHERE sk = 'UNCOMMITTED'}),
	'1', 'the open transaction sees its uncommitted item');
is($pub->safe_psql('postgres', q{
SELECT count(*) FROM pg_stat_activity WHERE state = 'idle in transaction' AND backend_xid IS NOT NULL}),
	'1', 'the transaction is open, with a transaction id, at the crash');
is($pub->safe_psql('postgres', q{SELECT count(*) FROM stdesign_data."Crash" WHERE sk = 'UNCOMMITTED'}),
	'0', 'other sessions do not see the uncommitted item');

my $before = $pub->safe_psql('postgres', digest_sql('Crash'));
like($before, qr/^2400 /, 'the digest before the crash covers 2400 items');
$pub->stop('immediate');
eval { $open->quit; };
$pub->start;
like(slurp_file($pub->logfile), qr/database system was not properly shut down; automatic recovery in progress/,
	'the restart ran crash recovery');
is($pub->safe_psql('postgres', digest_sql('Crash')), $before, 'committed items survive a crash');
is($pub->safe_psql('postgres', q{SELECT count(*) FROM stdesign_data."Crash" WHERE sk = 'UNCOMMITTED'}),
	'0', 'the uncommitted item is gone after the crash');
# amcheck raises an error when the index disagrees: its status is the check
# (its output, a void, is empty either way).
is($pub->safe_psql('postgres', q{
SELECT count(*) FROM pg_index WHERE indrelid = 'stdesign_data."Crash"'::regclass
   AND indexrelid = 'stdesign_data."Crash:key"'::regclass}),
	'1', 'the key index checked is the table\'s');
my ($rc, $out, $err) = $pub->psql('postgres',
	q{SELECT 'checked' FROM (SELECT bt_index_parent_check('stdesign_data."Crash:key"'::regclass, true)) AS c});
is("$rc|$out|$err", '0|checked|', 'the key index matches the table after recovery (amcheck, heapallindexed)');
is($pub->safe_psql('postgres', q{SELECT count(*) FROM st_query('CUST#7', 'ORDER#', 'Crash')}),
	'10', 'st_query after recovery');
$pub->safe_psql('postgres', q{SELECT st_put('{"PK": "CUST#7", "SK": "NEW"}', 'Crash')});
is($pub->safe_psql('postgres', q{
SELECT (SELECT (ctid::text::point)[0] FROM stdesign_data."Crash" WHERE pk = 'CUST#7' AND sk = 'NEW')
       IN (SELECT (ctid::text::point)[0] FROM stdesign_data."Crash" WHERE pk = 'CUST#7' AND sk <> 'NEW')}),
	't', 'placement after recovery: a new item joins its partition\'s page');

# ---- pg_dump / pg_restore round trip ----
# The table's design-studio model and a price row of one's own go along
# (configuration tables); the shipped price row is not doubled.
$pub->safe_psql('postgres', q{
SELECT st_set_model('Crash', '{"entities": {"Order": {"keys": {"PK": "CUST#{id}", "SK": "ORDER#{n}"}}},
                               "patterns": {"orders": {"op": "Query", "pk": "CUST#{id}", "sk": {"begins_with": "ORDER#"}}}}');
INSERT INTO stdesign.prices VALUES ('mine', 1, 2, 3, 4, 5, 'test', '2026-01-01');
});
my $dump = $pub->basedir . '/dump';
command_ok([ 'pg_dump', '-h', $pub->host, '-p', $pub->port, '-Fc', '-f', $dump, 'postgres' ],
	'pg_dump of a database with a stdesign table');
ok(-s $dump, 'the dump is not empty');
$pub->safe_psql('postgres', 'CREATE DATABASE restored');
my ($restore_out, $restore_err) = ('', '');
my $restored = IPC::Run::run([ 'pg_restore', '-h', $pub->host, '-p', $pub->port, '-d', 'restored', $dump ],
	'>', \$restore_out, '2>', \$restore_err);
ok($restored, 'pg_restore succeeds');
is($restore_err, '', 'pg_restore reports no error');
is($pub->safe_psql('restored', q{
SELECT amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE c.oid = 'stdesign_data."Crash"'::regclass}),
	'stdesign', 'the restored table uses the stdesign access method');
my $dumped = $pub->safe_psql('postgres', digest_sql('Crash'));
like($dumped, qr/^2401 /, 'the dumped table has its 2401 items');
is($pub->safe_psql('restored', digest_sql('Crash')), $dumped, 'the restored items are the dumped ones');
is($pub->safe_psql('restored', q{SELECT count(*) FROM st_query('CUST#7', 'ORDER#', 'Crash')}),
	'10', 'st_query on the restored table');
is($pub->safe_psql('restored', q{SELECT count(*) FROM st_run_pattern('orders', '{"id": "7"}', 'Crash')}),
	'10', 'the model is restored: st_run_pattern on the restored table');
is($pub->safe_psql('restored', q{SELECT string_agg(name, ',' ORDER BY name) FROM stdesign.prices}),
	'mine,us-east-1', 'the price row of one\'s own is restored, the shipped one not doubled');

# ---- pg_dump --schema-only, and DROP EXTENSION ----
# The catalog's rows (stdesign.tables, stdesign.indexes) are the extension's
# configuration data, which pg_dump writes only with data: a schema-only
# copy adds them with --data-only --table, as docs/security.md says, between the
# relations and their indexes and triggers (the layout guard accepts a
# set_keys trigger only on a relation the catalog holds).
my $schema = $pub->basedir . '/schema.sql';
my $catalog = $pub->basedir . '/catalog.sql';
my $post = $pub->basedir . '/post.sql';
command_ok([ 'pg_dump', '-h', $pub->host, '-p', $pub->port, '--section=pre-data', '-f', $schema, 'postgres' ],
	'pg_dump --section=pre-data');
command_ok([ 'pg_dump', '-h', $pub->host, '-p', $pub->port, '--data-only', '--table=stdesign.tables',
		'--table=stdesign.indexes', '-f', $catalog, 'postgres' ],
	'pg_dump --data-only of the catalog\'s rows');
command_ok([ 'pg_dump', '-h', $pub->host, '-p', $pub->port, '--section=post-data', '-f', $post, 'postgres' ],
	'pg_dump --section=post-data');
$pub->safe_psql('postgres', 'CREATE DATABASE schema_only');
command_ok([ 'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-h', $pub->host, '-p', $pub->port,
		'-d', 'schema_only', '-f', $schema, '-f', $catalog, '-f', $post ],
	'a schema-only dump plus the catalog\'s rows restores');
is($pub->safe_psql('schema_only', q{SELECT string_agg(t, ',') FROM st_list_tables() t}),
	'Crash', 'the schema-only copy knows its tables');
is($pub->safe_psql('schema_only', q{SELECT count(*) FROM st_scan('Crash')}), '0', 'the schema-only copy is empty');
$pub->safe_psql('schema_only', q{SELECT st_put('{"PK": "a", "SK": "b"}', 'Crash')});
is($pub->safe_psql('schema_only', q{SELECT count(*) FROM st_query('a', NULL, 'Crash')}), '1',
	'the schema-only copy takes items');
# DROP EXTENSION refuses while tables exist, and names what CASCADE drops.
my ($drc, $dout, $derr) = $pub->psql('restored', 'DROP EXTENSION stdesign');
ok($drc != 0 && $derr =~ /cannot drop extension stdesign because other objects depend on it/
	  && $derr =~ /table stdesign_data."Crash" depends on/,
	'DROP EXTENSION without CASCADE is refused, naming the tables') or diag($derr);
is($pub->safe_psql('restored', digest_sql('Crash')), $dumped, 'the refused DROP EXTENSION kept the items');
$pub->safe_psql('schema_only', 'DROP EXTENSION stdesign CASCADE');
is($pub->safe_psql('schema_only', q{SELECT count(*) FROM pg_namespace WHERE nspname IN ('stdesign', 'stdesign_data')}),
	'0', 'DROP EXTENSION CASCADE drops the tables and both schemas');

# ---- logical replication: stdesign table -> another server's stdesign table ----
# Without a primary key constraint (the key index is on expressions), UPDATE
# and DELETE are published with the whole old row.
$pub->safe_psql('postgres', q{
SELECT st_create_table('Repl') IS NOT NULL;
ALTER TABLE stdesign_data."Repl" REPLICA IDENTITY FULL;
SELECT st_put_all(jsonb_build_object('PK', 'C' || (i % 50), 'SK', 'O' || lpad((i / 50)::text, 3, '0')), 'Repl')
  FROM generate_series(0, 499) i;
CREATE PUBLICATION repl FOR TABLE stdesign_data."Repl";
});
$sub->safe_psql('postgres', q{CREATE EXTENSION stdesign; SELECT st_create_table('Repl') IS NOT NULL;});
my $pub_conn = 'host=' . $pub->host . ' port=' . $pub->port . ' dbname=postgres';
$sub->safe_psql('postgres', "CREATE SUBSCRIPTION repl CONNECTION '$pub_conn' PUBLICATION repl");
$sub->wait_for_subscription_sync($pub, 'repl');
my $want = $pub->safe_psql('postgres', digest_sql('Repl'));
like($want, qr/^500 /, 'the published table has its 500 items');
is($sub->safe_psql('postgres', digest_sql('Repl')), $want, 'initial copy to the subscriber (COPY: multi_insert)');

# After the initial copy: inserts (interleaved), upserts, updates, deletes.
$pub->safe_psql('postgres', q{
SELECT st_put_all(jsonb_build_object('PK', 'C' || (i % 50), 'SK', 'P' || lpad((i / 50)::text, 3, '0')), 'Repl')
  FROM generate_series(0, 499) i;
SELECT st_put('{"PK": "C1", "SK": "O001", "v": "upserted"}', 'Repl');
UPDATE stdesign_data."Repl" SET item = item || '{"u": {"BOOL": true}}' WHERE pk = 'C2';
SELECT st_delete('C3', 'O000', 'Repl');
DELETE FROM stdesign_data."Repl" WHERE pk = 'C4';
});
$pub->wait_for_catchup('repl');
$want = $pub->safe_psql('postgres', digest_sql('Repl'));
like($want, qr/^979 /, 'the publisher has 979 items after the changes');
is($sub->safe_psql('postgres', digest_sql('Repl')), $want, 'the subscriber\'s stdesign table matches the publisher\'s');
is($sub->safe_psql('postgres', q{
SELECT amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE c.oid = 'stdesign_data."Repl"'::regclass}),
	'stdesign', 'the subscriber\'s table uses the stdesign access method');
# The 10 items each partition received through the apply worker, interleaved
# with the other 49 partitions' (a heap would spread them over ~8 pages).
is($sub->safe_psql('postgres', q{
SELECT count(*) || ' ' || (avg(n) <= 2) FROM (SELECT count(DISTINCT (ctid::text::point)[0]) n
  FROM stdesign_data."Repl" WHERE sk LIKE 'P%' GROUP BY pk) s}),
	'49 true', 'replicated items are stored together on the subscriber');
is($sub->safe_psql('postgres', q{SELECT count(*) FROM st_query('C7', NULL, 'Repl')}),
	'20', 'st_query on the subscriber');
$sub->safe_psql('postgres', 'DROP SUBSCRIPTION repl');

# ---- logical decoding sees only what a transaction writes ----
# A ConditionCheck or a Delete of a missing item writes nothing (its key is
# held by a lock, not by a row inserted and deleted): no change is decoded.
# A Put of a missing item is one INSERT of the item.
$pub->safe_psql('postgres', q{SELECT 'cdc' FROM pg_create_logical_replication_slot('cdc', 'test_decoding')});
$pub->safe_psql('postgres', q{SELECT st_put('{"PK": "C9", "SK": "X"}', 'Repl')});
$pub->safe_psql('postgres', q{SELECT st_transact('[{"ConditionCheck": {"TableName": "Repl", "Key": {"PK": {"S": "C9"}, "SK": {"S": "Y"}}, "ConditionExpression": "attribute_not_exists(PK)"}},
	{"Delete": {"TableName": "Repl", "Key": {"PK": {"S": "C9"}, "SK": {"S": "Z"}}}},
	{"ConditionCheck": {"TableName": "Repl", "Key": {"PK": {"S": "C9"}, "SK": {"S": "X"}}, "ConditionExpression": "attribute_exists(PK)"}}]')});
$pub->safe_psql('postgres', q{SELECT st_transact('[{"Put": {"TableName": "Repl", "Item": {"PK": {"S": "C9"}, "SK": {"S": "W"}}, "ConditionExpression": "attribute_not_exists(PK)"}}]')});
is($pub->safe_psql('postgres', q{
SELECT string_agg(substring(data from ': ([A-Z]+):') || ' ' || substring(data from 'sk\[text\]:''([A-Z])'''), '|' ORDER BY lsn)
  FROM pg_logical_slot_get_changes('cdc', NULL, NULL, 'skip-empty-xacts', '1') WHERE data LIKE 'table %'}),
	'INSERT X|INSERT W',
	'decoded: the INSERT of st_put, nothing for checks and a Delete of missing items, one INSERT for a Put');
$pub->safe_psql('postgres', q{SELECT pg_drop_replication_slot('cdc')});

# ---- contrib tools (informational: which refuse a non-heap table) ----
for my $probe (
	[ 'pgstattuple', 'pgstattuple', q{SELECT * FROM pgstattuple('stdesign_data."Crash"')} ],
	[ 'pgstattuple_approx', 'pgstattuple', q{SELECT * FROM pgstattuple_approx('stdesign_data."Crash"')} ],
	[ 'amcheck', 'amcheck', q{SELECT count(*) FROM verify_heapam('stdesign_data."Crash"')} ],
	[ 'pgrowlocks', 'pgrowlocks', q{SELECT count(*) FROM pgrowlocks('stdesign_data."Crash"')} ],
	[ 'pg_visibility', 'pg_visibility', q{SELECT count(*) FROM pg_visibility('stdesign_data."Crash"')} ],
	[ 'pageinspect', 'pageinspect', q{SELECT count(*) FROM heap_page_items(get_raw_page('stdesign_data."Crash"', 0))} ])
{
	my ($name, $ext, $sql) = @$probe;
	$pub->psql('postgres', "CREATE EXTENSION IF NOT EXISTS $ext");
	my ($prc, $pout, $perr) = $pub->psql('postgres', $sql);
	note($prc == 0 ? "$name works on a stdesign table" : "$name refuses a stdesign table: " . (split /\n/, $perr)[0]);
}

$pub->stop;
$sub->stop;
done_testing();
