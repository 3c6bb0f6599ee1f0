# DynamoDB Streams' retention, by the time-to-live worker (stdesign in
# shared_preload_libraries, a one-second interval, a three-second
# retention, batches of 7): records older than the retention are trimmed,
# batch after batch, while newer ones stay; a write is never blocked by the
# trim; a disabled stream is removed once its records are gone and the
# retention has passed since it was disabled; a consumer of it is told so.

use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

$ENV{PGOPTIONS} = '-c client_min_messages=warning';

my $node = PostgreSQL::Test::Cluster->new('stream_retention');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'stdesign'
stdesign.ttl_interval = 1
stdesign.ttl_batch_size = 7
stdesign.stream_retention = 3
log_statement = none
});
$node->start;

$node->safe_psql('postgres', q{
CREATE EXTENSION stdesign;
SELECT st_create_table('Feed') IS NOT NULL;
SELECT st_stream_enable('Feed', 'KEYS_ONLY') IS NOT NULL;
SELECT st_stream_consumer_create('c', 'Feed') IS NOT NULL;
SELECT count(st_put(jsonb_build_object('PK', 'old', 'SK', i::text), 'Feed')) FROM generate_series(1, 20) i;
});
is($node->safe_psql('postgres', q{SELECT records FROM st_stream_stats('Feed')}), '20',
	'20 records written');

# The worker trims them once older than three seconds (three batches of 7).
ok($node->poll_query_until('postgres', q{SELECT records = 0 FROM st_stream_stats('Feed')}),
	'records past the retention are trimmed by the worker');
like(slurp_file($node->logfile), qr/trimmed \d+ stream records past their retention/,
	'the worker logs what it trimmed');

# Fresh records stay; the consumer gets what is left (the old records were
# trimmed under it).  One session, well within the retention.
is($node->safe_psql('postgres', q{
SELECT count(*) FROM (SELECT st_put(jsonb_build_object('PK', 'new', 'SK', i::text), 'Feed') FROM generate_series(1, 5) i) p;
SELECT records FROM st_stream_stats('Feed');
SELECT string_agg(r->'dynamodb'->'Keys'->'PK'->>'S', ',') FROM st_stream_read('c', 'Feed', 100) r;
}), "5\n5\nnew,new,new,new,new",
	'records within the retention are kept; a consumer behind the retention reads what is kept');

# A disabled stream is removed once its records are gone and its retention passed.
$node->safe_psql('postgres', q{SELECT st_stream_disable('Feed') IS NOT NULL});
is($node->safe_psql('postgres', q{SELECT count(*) FROM stdesign.streams WHERE table_name = 'Feed'}), '1',
	'a disabled stream stays at first');
ok($node->poll_query_until('postgres', q{SELECT count(*) = 0 FROM stdesign.streams WHERE table_name = 'Feed'}),
	'the disabled stream is removed after its retention');
my ($ret, $out, $err) = $node->psql('postgres', q{SELECT * FROM st_stream_read('c', 'Feed')});
like($err, qr/ResourceNotFoundException: .*consumer c read of table Feed is gone/,
	'its consumer is told the stream is gone');

# A new stream, a waiting consumer woken by a commit (the condition
# variable in shared memory): well before the wait's timeout.
$node->safe_psql('postgres', q{
SELECT st_stream_enable('Feed', 'KEYS_ONLY') IS NOT NULL;
SELECT st_stream_consumer_reset('c', 'LATEST') IS NOT NULL;
});
my $t0 = time();
my $waiter = IPC::Run::start(
	[ 'psql', '-X', '-At', '-d', $node->connstr('postgres'), '-c',
	  q{SELECT st_stream_wait('c', 60)} ],
	'>', \my $wait_out, '2>', \my $wait_err);
sleep 1;
$node->safe_psql('postgres', q{SELECT st_put('{"PK": "w", "SK": "1"}', 'Feed')});
$waiter->finish;
is($wait_out, "t\n", 'the waiter sees the record');
cmp_ok(time() - $t0, '<', 30, 'the waiter was woken by the commit, not its timeout');

$node->stop;
done_testing();
