# Direct writes while the relation's cache entries are invalidated.
#
# The writes that bypass the executor (st_put_all and BatchWriteItem's
# upserts, UpdateItem's replacement, DeleteItem) hold on to what they read
# from the relation's cache entry while they write.  Postgres rebuilds that
# entry, freeing parts of it (its trigger descriptor, the access method's
# cache), whenever this backend processes an invalidation of the relation,
# which any lock taken while writing may do: another session's ANALYZE
# sends one.  Here one session loads, reloads, updates and deletes items
# while another ANALYZEs the table (and its indexes) in a loop; then no
# backend may have crashed, and the table, its GSI and its indexes must be
# exactly what the writes say.  Then four writers at once over the same
# keys (bulk loads, batches, updates, deletes): none fails, no key doubles.
#
#   INVAL_STRESS_ROUNDS    rounds of writes under ANALYZE (default 6)
#   INVAL_STRESS_SECONDS   seconds of concurrent writers (default 10)

use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep);

$ENV{PGOPTIONS} = '-c client_min_messages=warning';
my $rounds = $ENV{INVAL_STRESS_ROUNDS} || 6;
my $seconds = $ENV{INVAL_STRESS_SECONDS} || 10;

my $node = PostgreSQL::Test::Cluster->new('inval');
$node->init;
$node->append_conf('postgresql.conf', "log_statement = none\n");
$node->start;
my @conn = ('-X', '-q', '-h', $node->host, '-p', $node->port, '-d', 'postgres');

$node->safe_psql('postgres', q{
CREATE EXTENSION stdesign;
CREATE EXTENSION amcheck;
SELECT st_create_table('Inval') IS NOT NULL;
SELECT st_create_gsi('Inval', 'ByG', 'g', 's') IS NOT NULL;
CREATE TABLE items AS
  SELECT i, jsonb_build_object('PK', 'P' || (i / 2), 'SK', lpad(i::text, 6, '0'), 'g', 'G' || (i % 7),
                               's', lpad(i::text, 6, '0'), 'n', 0) AS item
    FROM generate_series(1, 20000) AS i;
});

# Invalidations: ANALYZE of the table (and so of its indexes), over and
# over, each from a new connection, until the stop file is removed.
my $analyze_count_sql = q{SELECT analyze_count FROM pg_stat_user_tables WHERE relid = 'stdesign_data."Inval"'::regclass};
my $stop = $node->basedir . '/analyze.run';
append_to_file($stop, '');
my $psql = join(' ', map { "'$_'" } 'psql', @conn);
my $analyzer = IPC::Run::start([ 'bash', '-c',
	"while [ -e '$stop' ]; do $psql -c 'ANALYZE stdesign_data.\"Inval\"' >/dev/null 2>&1; done" ]);
# Precondition: the loop runs (its ANALYZEs are counted by the server).
$node->poll_query_until('postgres', "SELECT coalesce(($analyze_count_sql), 0) >= 2")
  or diag('the ANALYZE loop has not started');
my $analyzed_before = $node->safe_psql('postgres', $analyze_count_sql);
cmp_ok($analyzed_before, '>=', 2, "the ANALYZE loop runs ($analyzed_before so far)");

my ($errors, $ran) = (0, 0);
for my $r (1 .. $rounds)
{
	my ($rc, $out, $err) = $node->psql('postgres', qq{
TRUNCATE stdesign_data."Inval";
SELECT st_put_all(item, 'Inval') FROM items;
SELECT st_put_all(item || jsonb_build_object('n', $r), 'Inval') FROM items WHERE i % 2 = 0;
SELECT st_batch_write(jsonb_build_object('Inval', jsonb_agg(jsonb_build_object('PutRequest',
         jsonb_build_object('Item', st_to_typed(item || '{"n": 100}')))))) IS NOT NULL
  FROM items WHERE i % 1000 = 7;
SELECT count(st_update('P' || (i / 2), lpad(i::text, 6, '0'), 'SET n = n + :one', 'Inval',
                       "values" => '{":one": 1}', return_values => 'NONE'))
  FROM items WHERE i % 3 = 0;
SELECT count(st_delete('P' || (i / 2), lpad(i::text, 6, '0'), 'Inval')) FROM items WHERE i % 5 = 0;
SELECT count(st_get('P' || (i / 2), lpad(i::text, 6, '0'), 'Inval')) FROM items WHERE i % 11 = 0;
SELECT count(*) FROM items, LATERAL st_query('P' || (i / 2), "table" => 'Inval') AS q WHERE i % 13 = 0;
SELECT count(st_transact(jsonb_build_array(jsonb_build_object('Update', jsonb_build_object('TableName', 'Inval',
         'Key', jsonb_build_object('PK', jsonb_build_object('S', 'P' || (i / 2)), 'SK', jsonb_build_object('S', lpad(i::text, 6, '0'))),
         'UpdateExpression', 'SET n = n + :z', 'ExpressionAttributeValues', '{":z": {"N": "0"}}'::jsonb)))))
  FROM items WHERE i % 17 = 1 AND i % 5 <> 0;
SELECT 'round done';
});
	$ran++ if $out =~ /round done$/;
	if ($rc != 0)
	{
		$errors++;
		diag("round $r: $err");
	}
}
my $analyzed_after = $node->safe_psql('postgres', $analyze_count_sql);
unlink $stop;
$analyzer->finish;

is($ran, $rounds, "all $rounds rounds of writes ran to their end");
is($errors, 0, 'every round ran without an error');
cmp_ok($analyzed_after - $analyzed_before, '>=', $rounds,
	'ANALYZE ran over and over while the rounds wrote (' . ($analyzed_after - $analyzed_before) . ' times)');

# the server log: it is the right file, and no backend crashed
my $log = slurp_file($node->logfile);
like($log, qr/database system is ready to accept connections/, 'the server log is read');
unlike($log, qr/terminated by signal/, 'no backend crashed');

# What the last round leaves: items not divisible by 5; n = the round
# number for even i, else 0; 100 for i % 1000 = 7 (odd, so put as 100);
# plus one for i % 3 = 0.
my $want = $node->safe_psql('postgres', qq{
SELECT count(*) || ' ' || sum(CASE WHEN i % 1000 = 7 THEN 100 WHEN i % 2 = 0 THEN $rounds ELSE 0 END
                              + CASE WHEN i % 3 = 0 THEN 1 ELSE 0 END)
  FROM items WHERE i % 5 <> 0});
like($want, qr/^16000 /, 'the expected state has 16000 items');
is($node->safe_psql('postgres', q{SELECT count(*) || ' ' || sum((item #>> '{n,N}')::int) FROM stdesign_data."Inval"}),
	$want, 'items and their counters are what the writes say');
is($node->safe_psql('postgres', q{
SELECT sum((SELECT count(*) FROM st_query('G' || g, index => 'ByG', "table" => 'Inval'))) FROM generate_series(0, 6) AS g}),
	'16000', 'the GSI has every item, once');
my $index_check_sql = q{
SELECT count(*) FROM pg_index, LATERAL (SELECT bt_index_check(indexrelid, true)) AS c
 WHERE indrelid = 'stdesign_data."Inval"'::regclass};
my ($rc, $out, $err) = $node->psql('postgres', $index_check_sql);
is("$rc|$out|$err", '0|2|', 'every index (key and GSI) has every row version (amcheck heapallindexed)');

# Then four writers at once over the same 200 keys: BatchWriteItem and
# st_put_all (speculative insertions finding each other's rows), updates
# and deletes; none may fail, and no key may be doubled.  (An update of a
# deleted key creates an item without the GSI's attributes, as UpdateItem
# does.)
my $dir = $node->basedir;
append_to_file("$dir/batch.sql", q{
\set base random(0, 180)
SELECT st_batch_write(jsonb_build_object('Inval', jsonb_agg(jsonb_build_object('PutRequest', jsonb_build_object('Item',
  jsonb_build_object('PK', jsonb_build_object('S', 'R' || ((:base + i) % 20)), 'SK', jsonb_build_object('S', lpad((:base + i)::text, 6, '0')),
                     'g', jsonb_build_object('S', 'G' || (i % 7)), 's', jsonb_build_object('S', 'c' || :client_id)))))))
  FROM generate_series(0, 24) AS i;
});
append_to_file("$dir/load.sql", q{
\set base random(0, 100)
SELECT st_put_all(jsonb_build_object('PK', 'R' || ((:base + i) % 20), 'SK', lpad((:base + i)::text, 6, '0'),
                                     'g', 'G' || (i % 7), 's', 'l' || :client_id), 'Inval')
  FROM generate_series(0, 99) AS i;
});
append_to_file("$dir/update.sql", q{
\set k random(0, 205)
SELECT st_update('R' || (:k % 20), lpad(:k::text, 6, '0'), 'SET n = if_not_exists(n, :z) + :one', 'Inval',
                 "values" => '{":z": 0, ":one": 1}', return_values => 'NONE');
});
append_to_file("$dir/delete.sql", q{
\set k random(0, 205)
SELECT st_delete('R' || (:k % 20), lpad(:k::text, 6, '0'), 'Inval');
});
my ($pgbench_out, $pgbench_err) = ('', '');
my $pgbench_ok = IPC::Run::run([ 'pgbench', '-n', '-c', '4', '-j', '2', '-T', $seconds,
		'-h', $node->host, '-p', $node->port,
		'-f', "$dir/batch.sql\@3", '-f', "$dir/load.sql\@1", '-f', "$dir/update.sql\@2", '-f', "$dir/delete.sql\@2",
		'postgres' ],
	'>', \$pgbench_out, '2>', \$pgbench_err);
my ($txns) = $pgbench_out =~ /^number of transactions actually processed: (\d+)/m;
my ($failed) = $pgbench_out =~ /^number of failed transactions: (\d+)/m;
ok($pgbench_ok, 'concurrent writers: pgbench ran to its end') or diag($pgbench_err);
cmp_ok($txns // 0, '>', 0, 'concurrent writers: transactions ran (' . ($txns // 0) . ')');
is($failed // 'none reported', 0, 'concurrent writers: no transaction failed');
my $items = $node->safe_psql('postgres', q{SELECT count(*) FROM stdesign_data."Inval" WHERE pk LIKE 'R%'});
cmp_ok($items, '>', 0, "concurrent writers: items written ($items)");
is($node->safe_psql('postgres', q{SELECT count(*) = count(DISTINCT (pk, sk)) FROM stdesign_data."Inval"}),
	't', 'concurrent writers: no key doubled');
is($node->safe_psql('postgres', q{
SELECT (SELECT count(*) FROM stdesign_data."Inval" WHERE item ? 'g' AND item ? 's')
     = (SELECT sum((SELECT count(*) FROM st_query('G' || g, index => 'ByG', "table" => 'Inval'))) FROM generate_series(0, 6) AS g)}),
	't', 'concurrent writers: the GSI has every item, once');
($rc, $out, $err) = $node->psql('postgres', $index_check_sql);
is("$rc|$out|$err", '0|2|', 'concurrent writers: every index has every row version');
unlike(slurp_file($node->logfile), qr/terminated by signal/, 'concurrent writers: no backend crashed');

$node->stop;
done_testing();
