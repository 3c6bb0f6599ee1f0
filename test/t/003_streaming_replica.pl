# A physical streaming replica of a primary written through stdesign's
# direct paths.  Puts, updates, deletes, bulk loads, batches and
# transactions write tuples and index entries without the executor
# (storage's row writes and the table access method), so their WAL records
# are stdesign's responsibility.  The primary runs with
# wal_consistency_checking (a primary setting: every record carries full-page
# images of the pages it touched, and the standby, after replaying the
# record, compares its pages with them and stops on any difference).  The
# standby must then hold the primary's items, its GSIs and LSIs must answer
# as the primary's do, and amcheck must find every index consistent there.

use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

$ENV{PGOPTIONS} = '-c client_min_messages=warning';

my $primary = PostgreSQL::Test::Cluster->new('primary');
$primary->init(allows_streaming => 1);
$primary->append_conf('postgresql.conf', q{
log_statement = none
wal_consistency_checking = 'heap,heap2,btree'
});
$primary->start;
# A slot reserved before the backup keeps every WAL segment the standby has
# yet to receive: the full-page images of wal_consistency_checking fill
# segments fast, and a busy machine can otherwise recycle one before the
# standby streams it.
$primary->safe_psql('postgres', "SELECT pg_create_physical_replication_slot('standby', true)");
$primary->backup('base');
my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($primary, 'base', has_streaming => 1);
$standby->append_conf('postgresql.conf', "log_statement = none\nprimary_slot_name = 'standby'\n");
$standby->start;

is($primary->safe_psql('postgres', 'SHOW wal_consistency_checking'), 'heap,heap2,btree',
	'the primary writes full-page images for heap and btree records');
is($standby->safe_psql('postgres', 'SELECT pg_is_in_recovery()'), 't', 'the standby is a standby');

# Everything below runs on the primary after the standby started: the
# tables' creation is replayed too.
$primary->safe_psql('postgres', q{
CREATE EXTENSION stdesign;
SELECT st_create_table('{
  "TableName": "Shop",
  "AttributeDefinitions": [
    {"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "SK", "AttributeType": "S"},
    {"AttributeName": "status", "AttributeType": "S"}, {"AttributeName": "total", "AttributeType": "N"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
  "GlobalSecondaryIndexes": [{"IndexName": "ByStatus",
    "KeySchema": [{"AttributeName": "status", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
    "Projection": {"ProjectionType": "ALL"}}],
  "LocalSecondaryIndexes": [{"IndexName": "ByTotal",
    "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "total", "KeyType": "RANGE"}],
    "Projection": {"ProjectionType": "KEYS_ONLY"}}],
  "BillingMode": "PAY_PER_REQUEST"}') IS NOT NULL;
SELECT st_create_table('Plain') IS NOT NULL;
});

# The direct write paths, each several times over the same pages.
my @steps = (
	[ 'st_put_all (bulk upserts)', q{
SELECT st_put_all(jsonb_build_object('PK', 'CUST#' || (i % 50), 'SK', 'ORDER#' || lpad(i::text, 5, '0'),
                                     'status', CASE WHEN i % 3 = 0 THEN 'SHIPPED' ELSE 'PLACED' END, 'total', i), 'Shop')
  FROM generate_series(1, 3000) AS i} ],
	[ 'st_put_all over existing keys (replacements)', q{
SELECT st_put_all(jsonb_build_object('PK', 'CUST#' || (i % 50), 'SK', 'ORDER#' || lpad(i::text, 5, '0'),
                                     'status', 'RETURNED', 'total', i * 2), 'Shop')
  FROM generate_series(1, 3000, 7) AS i} ],
	[ 'st_put', q{
SELECT count(st_put(jsonb_build_object('PK', 'CUST#' || (i % 50), 'SK', 'NOTE#' || i, 'status', 'NOTE', 'total', i), 'Shop'))
  FROM generate_series(1, 300) AS i} ],
	[ 'st_update (in place and moving between GSI partitions)', q{
SELECT count(st_update('CUST#' || (i % 50), 'ORDER#' || lpad(i::text, 5, '0'), 'SET #s = :s, #t = #t + :one', 'Shop',
                       names => '{"#s": "status", "#t": "total"}', "values" => '{":s": "SHIPPED", ":one": 1}', return_values => 'NONE'))
  FROM generate_series(1, 3000, 5) AS i} ],
	[ 'st_update creating items', q{
SELECT count(st_update('NEW#' || i, 'X', 'SET n = :one', 'Plain', "values" => '{":one": 1}', return_values => 'NONE'))
  FROM generate_series(1, 200) AS i} ],
	[ 'st_delete', q{
SELECT count(st_delete('CUST#' || (i % 50), 'ORDER#' || lpad(i::text, 5, '0'), 'Shop'))
  FROM generate_series(1, 3000, 11) AS i} ],
	[ 'st_batch_write (puts and deletes)', q{
SELECT count(st_batch_write(jsonb_build_object('Shop', jsonb_build_array(
         jsonb_build_object('PutRequest', jsonb_build_object('Item', jsonb_build_object(
           'PK', jsonb_build_object('S', 'BATCH#' || b), 'SK', jsonb_build_object('S', 'A'),
           'status', jsonb_build_object('S', 'BATCH'), 'total', jsonb_build_object('N', b::text)))),
         jsonb_build_object('DeleteRequest', jsonb_build_object('Key', jsonb_build_object(
           'PK', jsonb_build_object('S', 'CUST#' || (b % 50)), 'SK', jsonb_build_object('S', 'NOTE#' || b))))))))
  FROM generate_series(1, 100) AS b} ],
	[ 'st_transact', q{
SELECT count(st_transact(jsonb_build_array(
    jsonb_build_object('Update', jsonb_build_object('TableName', 'Shop',
      'Key', jsonb_build_object('PK', 'CUST#' || (t * 2 % 50), 'SK', 'ORDER#' || lpad((t * 2)::text, 5, '0')),
      'UpdateExpression', 'SET paid = :y', 'ExpressionAttributeValues', jsonb_build_object(':y', true))),
    jsonb_build_object('Put', jsonb_build_object('TableName', 'Plain',
      'Item', jsonb_build_object('PK', 'TX#' || t, 'SK', 'X'), 'ConditionExpression', 'attribute_not_exists(PK)')),
    jsonb_build_object('Delete', jsonb_build_object('TableName', 'Plain',
      'Key', jsonb_build_object('PK', 'NEW#' || t, 'SK', 'X')))),
  client_request_token => 'tx-' || t, plain => true))
  FROM generate_series(1, 100) AS t} ],
	[ 'SQL INSERT, UPDATE and DELETE on the data relation', q{
INSERT INTO stdesign_data."Plain" (item)
  SELECT jsonb_build_object('PK', jsonb_build_object('S', 'SQL#' || i), 'SK', jsonb_build_object('S', 'X'))
    FROM generate_series(1, 200) AS i;
UPDATE stdesign_data."Plain" SET item = item || '{"u": {"BOOL": true}}' WHERE pk LIKE 'SQL#1%';
DELETE FROM stdesign_data."Plain" WHERE pk LIKE 'SQL#2%'} ],
	[ 'COPY into the data relation (multi_insert)', q{
COPY stdesign_data."Plain" (item) FROM PROGRAM 'seq 1 300 | sed ''s/.*/{"PK": {"S": "COPY#&"}, "SK": {"S": "X"}}/'''} ],
	[ 'a GSI created and backfilled on a loaded table, another dropped', q{
SELECT st_create_gsi('Shop', 'ByTotalAll', 'status', 'total', sk_type => 'N') IS NOT NULL;
SELECT st_create_gsi('Plain', 'Dropped', 'n', pk_type => 'N') IS NOT NULL;
SELECT st_drop_gsi('Plain', 'Dropped')} ],
	[ 'VACUUM (pruning and freezing the written pages)', q{VACUUM (FREEZE) stdesign_data."Shop"} ],
	[ 'writes after VACUUM reuse the freed space', q{
SELECT st_put_all(jsonb_build_object('PK', 'CUST#' || (i % 50), 'SK', 'LATE#' || i, 'status', 'LATE', 'total', i), 'Shop')
  FROM generate_series(1, 500) AS i} ],
);
for my $step (@steps)
{
	my ($what, $sql) = @$step;
	my ($rc, $out, $err) = $primary->psql('postgres', $sql);
	is("$rc $err", '0 ', "primary: $what");
}
cmp_ok($primary->safe_psql('postgres', 'SELECT wal_fpi FROM pg_stat_wal'), '>', 1000,
	'the primary wrote full-page images for the standby to compare');

$primary->wait_for_catchup($standby, 'replay');
is($standby->safe_psql('postgres', 'SELECT pg_is_in_recovery()'), 't', 'the standby replayed everything and is still a standby');
my $standby_log = slurp_file($standby->logfile);
like($standby_log, qr/started streaming WAL/, 'the standby streamed from the primary');
unlike($standby_log, qr/inconsistent page found|PANIC|startup process .* exited/, 'the standby found no page differing from its full-page image');

# Items: each table's rows, and the answers of each index.
for my $table ('Shop', 'Plain')
{
	my $sql = qq{SELECT count(*) || ' ' || md5(coalesce(string_agg(pk || '|' || sk || '|' || item::text, ',' ORDER BY pk, sk), ''))
	               FROM stdesign_data."$table"};
	my $want = $primary->safe_psql('postgres', $sql);
	like($want, qr/^[1-9][0-9]+ /, "primary: table $table has items ($want)");
	is($standby->safe_psql('postgres', $sql), $want, "standby: table $table has the primary's items");
}
for my $index ([ 'Shop', 'ByStatus' ], [ 'Shop', 'ByTotal' ], [ 'Shop', 'ByTotalAll' ])
{
	my ($table, $name) = @$index;
	# st_scan of an index reads it in its key order, through the index.
	my $sql = qq{SELECT count(*) || ' ' || md5(coalesce(string_agg(i::text, ',' ORDER BY n), ''))
	               FROM st_scan('$table', index => '$name') WITH ORDINALITY AS s(i, n)};
	my $want = $primary->safe_psql('postgres', $sql);
	like($want, qr/^[1-9][0-9]+ /, "primary: index $name has entries ($want)");
	is($standby->safe_psql('postgres', $sql), $want, "standby: index $name answers as the primary's");
}
is($standby->safe_psql('postgres', q{SELECT count(*) FROM st_query('SHIPPED', index => 'ByStatus', "table" => 'Shop')}),
	$primary->safe_psql('postgres', q{SELECT count(*) FROM st_query('SHIPPED', index => 'ByStatus', "table" => 'Shop')}),
	'standby: st_query of a GSI partition as on the primary');

# amcheck on the standby (bt_index_check only reads: it runs in recovery).
$primary->safe_psql('postgres', 'CREATE EXTENSION amcheck');
$primary->wait_for_catchup($standby, 'replay');
my $indexes_sql = q{SELECT count(*) FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid
                     WHERE c.relnamespace = 'stdesign_data'::regnamespace};
my $indexes = $primary->safe_psql('postgres', $indexes_sql);
cmp_ok($indexes, '>=', 5, "the data relations have their key, GSI and LSI indexes ($indexes)");
is($standby->safe_psql('postgres', $indexes_sql), $indexes, 'the standby has as many indexes');
my ($rc, $out, $err) = $standby->psql('postgres', q{
SELECT count(*) FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid,
       LATERAL (SELECT bt_index_check(i.indexrelid, true)) AS checked
 WHERE c.relnamespace = 'stdesign_data'::regnamespace});
is("$rc|$out|$err", "0|$indexes|", 'amcheck on the standby: every index has every row version (heapallindexed)');

# Every stdesign write on the standby is refused with Postgres's own error
# for a write in recovery (SQLSTATE 25006, as an INSERT there is), before
# anything is written; the standby keeps running, its items unchanged, and
# reads go on.
my $items_sql = q{SELECT count(*) || ' ' || md5(string_agg(pk || '|' || sk || '|' || item::text, ',' ORDER BY pk, sk))
                    FROM stdesign_data."Plain"};
my $items_before = $standby->safe_psql('postgres', $items_sql);
my @standby_writes = (
	q{SELECT st_put('{"PK": "SB", "SK": "X"}', 'Plain')},
	q{SELECT st_put('{"PK": "SB", "SK": "X"}', 'Plain', condition => 'attribute_not_exists(PK)')},
	q{SELECT st_update('TX#1', 'X', 'SET n = :one', 'Plain', "values" => '{":one": 1}')},
	q{SELECT st_delete('TX#1', 'X', 'Plain')},
	q{SELECT st_delete('NOSUCH', 'X', 'Plain')},
	q{SELECT st_batch_write('{"Plain": [{"PutRequest": {"Item": {"PK": {"S": "SB"}, "SK": {"S": "Y"}}}}]}')},
	q{SELECT st_transact('[{"ConditionCheck": {"TableName": "Plain", "Key": {"PK": {"S": "SB"}, "SK": {"S": "Z"}}, "ConditionExpression": "attribute_not_exists(PK)"}}]')},
	q{SELECT st_put_all(jsonb_build_object('PK', 'SB' || i, 'SK', 'X'), 'Plain') FROM generate_series(1, 10) AS i},
	q{SELECT st_import('Plain', '{"Item": {"PK": {"S": "SBI"}, "SK": {"S": "X"}}}')},
	q{SELECT st_api('PutItem', '{"TableName": "Plain", "Item": {"PK": {"S": "SB"}, "SK": {"S": "X"}}}')},
	q{SELECT st_api('UpdateItem', '{"TableName": "Plain", "Key": {"PK": {"S": "TX#1"}, "SK": {"S": "X"}}, "UpdateExpression": "REMOVE n"}')},
	q{SELECT st_api('DeleteItem', '{"TableName": "Plain", "Key": {"PK": {"S": "TX#1"}, "SK": {"S": "X"}}}')},
	q{SELECT st_api('BatchWriteItem', '{"RequestItems": {"Plain": [{"DeleteRequest": {"Key": {"PK": {"S": "TX#1"}, "SK": {"S": "X"}}}}]}}')},
	q{SELECT st_api('TransactWriteItems', '{"TransactItems": [{"Delete": {"TableName": "Plain", "Key": {"PK": {"S": "TX#1"}, "SK": {"S": "X"}}}}]}')},
	q{SELECT st_api('ExecuteStatement', '{"Statement": "INSERT INTO \"Plain\" VALUE {''PK'': ''SB'', ''SK'': ''P''}"}')},
	q{SELECT st_api('ExecuteTransaction', '{"TransactStatements": [{"Statement": "DELETE FROM \"Plain\" WHERE PK = ''TX#1'' AND SK = ''X''"}]}')},
	q{SELECT st_create_table('OnStandby')},
	q{SELECT st_create_gsi('Plain', 'ByN', 'n', pk_type => 'N')},
	q{SELECT st_drop_gsi('Shop', 'ByTotalAll')},
	q{SELECT st_drop_table('Plain')},
	q{SELECT st_api('UpdateTable', '{"TableName": "Shop", "GlobalSecondaryIndexUpdates": [{"Delete": {"IndexName": "ByTotalAll"}}]}')},
	q{SELECT st_update_ttl('Plain', 'expires')},
	q{SELECT st_tag_table('Plain', '{"team": "a"}')},
	q{SELECT st_set_model('Plain', NULL)},
	q{SELECT st_create_access_key('postgres')},
	q{SELECT st_drop_access_key('AKIDNONE')},
	q{SELECT st_partition_traffic_reset()},
);
for my $sql (@standby_writes)
{
	my ($wrc, $wout, $werr) = $standby->psql('postgres', $sql, extra_params => [ '-v', 'VERBOSITY=verbose' ]);
	like("$wrc $werr", qr/^[1-9] psql:<stdin>:1: ERROR:  25006: cannot execute [A-Z ()a-z_]+ (in a read-only transaction|during recovery)/,
		"standby refuses: $sql");
}
is($standby->safe_psql('postgres', $items_sql), $items_before, 'standby: the items are unchanged');
is($standby->safe_psql('postgres', q{SELECT st_get('TX#1', 'X', 'Plain') ->> 'PK'}), 'TX#1', 'standby: reads still answer');
is($standby->safe_psql('postgres', 'SELECT pg_is_in_recovery()'), 't', 'standby: still running, still a standby');
unlike(slurp_file($standby->logfile), qr/terminated by signal|PANIC/, 'standby: no backend crashed');

$standby->stop;
$primary->stop;
done_testing();
