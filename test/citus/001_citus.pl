# stdesign on a Citus cluster: a coordinator and two workers on this
# machine, against a single node without Citus (make test-citus, through
# test/scripts/citus.sh; not part of make prove: it needs Citus).
#
#   1. Set-up: Citus on three nodes, stdesign created on the coordinator
#      (Citus creates it on the workers); a single node without Citus.
#   2. Regression files against both: sql/ files run by psql as
#      pg_regress runs them, on the single node and on the coordinator with
#      stdesign.citus_shard_count set (every table they create is
#      distributed); the outputs must be the same, but for the lines listed
#      in %known_differences.
#   3. The seeds' e-commerce table created and loaded on the coordinator,
#      then distributed with its items (st_distribute_table): every access
#      pattern gives the single node's answer; an item collection sits on
#      one shard; the catalog is the same on every node, also after a GSI
#      is added; an undistributed table keeps working beside it.
#   4. Concurrency (pgbench): transfers between accounts on both workers by
#      st_transact with a condition, and conditional increments of
#      counters: totals conserved, no lost update, no prepared transaction
#      left behind.
#   5. A worker killed (SIGKILL to its postmaster) in the middle of a load
#      of puts, and restarted: every put that returned success is there.
#   6. The HTTP endpoint and PartiQL of the coordinator (stdesign preloaded
#      after Citus) driven by boto3 (test/citus/citus_http.py): a table
#      created and distributed, items, queries with paging, a GSI,
#      transactions, scans, PartiQL; the same answers as the single node's.
#      Time to live on a distributed table: st_expire and the worker.
#      On-demand backups through the endpoint: a distributed table backed
#      up and restored.
#   7. A multi-attribute GSI on a distributed table: writes (a sparse item,
#      a key of the wrong type refused), Query by its partition attributes
#      and a prefix of its sort attributes, both orders, paged, Scan: the
#      single node's answers.  CreateBackup of the distributed Bank table
#      while transfers run: every backup holds one state of the cluster
#      (the total conserved, no half transfer); RestoreTableFromBackup
#      distributed (stdesign.citus_shard_count) or not; ListBackups and
#      DeleteBackup.
#
#   CITUS_TEST_PORT  first of six consecutive ports to use (default: free ones)

use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use Time::HiRes qw(usleep);

$ENV{PGOPTIONS} = '-c client_min_messages=warning';
my $base_port = $ENV{CITUS_TEST_PORT};
my $srcdir = $ENV{STDESIGN_SRCDIR} || '.';

# ---------- 1. set-up ----------

# new_node <name> <port offset> <citus> [<HTTP port>]: with an HTTP port,
# stdesign is preloaded too (after Citus: Citus must come first), with its
# endpoint on that port and its time-to-live worker every second.
sub new_node
{
	my ($name, $i, $citus, $http) = @_;
	my $node = PostgreSQL::Test::Cluster->new($name, $base_port ? (port => $base_port + $i) : ());
	my @preload = (($citus ? ('citus') : ()), ($http ? ('stdesign') : ()));
	$node->init;
	$node->append_conf('postgresql.conf', qq{
listen_addresses = '127.0.0.1'
max_connections = 100
max_prepared_transactions = 100
log_statement = none
fsync = off
} . (@preload ? "shared_preload_libraries = '" . join(',', @preload) . "'\n" : '')
  . ($citus ? qq{citus.max_cached_conns_per_worker = 4
} : '') . ($http ? qq{stdesign.http_port = $http
stdesign.http_workers = 2
stdesign.ttl_interval = 1
} : ''));
	$node->start;
	return $node;
}

# the single node and the coordinator serve the HTTP endpoint (section 6)
my $single_http = $base_port ? $base_port + 4 : PostgreSQL::Test::Cluster::get_free_port();
my $coord_http = $base_port ? $base_port + 5 : PostgreSQL::Test::Cluster::get_free_port();
my $single = new_node('single', 0, 0, $single_http);
my $coord = new_node('coord', 1, 1, $coord_http);
my @workers = (new_node('worker1', 2, 1), new_node('worker2', 3, 1));
my @all = ($coord, @workers);

$_->safe_psql('postgres', 'CREATE EXTENSION citus') for @all;
$coord->safe_psql('postgres', "SELECT citus_set_coordinator_host('127.0.0.1', " . $coord->port . ")");
$coord->safe_psql('postgres', "SELECT citus_add_node('127.0.0.1', " . $_->port . ")") for @workers;
$coord->safe_psql('postgres', 'CREATE EXTENSION stdesign');
$single->safe_psql('postgres', 'CREATE EXTENSION stdesign');
# The endpoints (section 6) compare a single node with a cluster as the
# superuser that runs the SQL sections, as before trust had a role of its
# own: trust runs as it only when told so explicitly.
for my $node ($single, $coord)
{
	my $su = $node->safe_psql('postgres', 'SELECT current_user');
	$node->append_conf('postgresql.conf', qq{stdesign.http_trust_role = '$su'
stdesign.http_trust_allow_superuser = on
});
	$node->reload;
}
is($coord->safe_psql('postgres', 'SELECT count(*) FROM citus_get_active_worker_nodes()'), 2,
	'set-up: the coordinator has two workers');
is(join(',', map { $_->safe_psql('postgres', "SELECT extversion FROM pg_extension WHERE extname = 'stdesign'") } @workers),
	'0.2.0,0.2.0', 'set-up: CREATE EXTENSION stdesign reached both workers');

# ---------- 2. regression files, single node against the cluster ----------

# Lines that differ for a reason docs/citus.md documents, by file:
# a regex of lines to drop from both outputs before comparing.
my %known_differences = (
	# plain SQL on the data relation: a self-join on other columns than pk
	# is a join Citus does not run
	'seeds_many_to_many' => qr/^$|one_way_only|^-+$|^\s+0$|^\(1 row\)$|complex joins are only supported/,
	# stdesign.query_sql names pk for Citus to route the query, and the
	# EXPLAIN of a generic plan fails on Citus outside its fast path
	'query' => qr/^$|stdesign_data\."Qry" WHERE|QUERY PLAN|^-+$|^\s*(Limit|->|Index Cond|Filter|Sort|Order)|^\(\d+ rows?\)|could not create distributed plan|Possibly this is caused|Consider using PL\/pgSQL/,
);

my @regress = qw(
  seeds_ecommerce seeds_cloudformation seeds_composite_sort_keys seeds_many_to_many
  seeds_gsi_overloading seeds_write_sharding seeds_newest_first seeds_order_with_items
  seeds_orders_by_status seeds_type_attribute
  items query conditions filters projections updates transact api_items api_query
  api_batch api_transact fidelity_reads fidelity_transact fidelity_update_missing);

# run_file <node> <file> <shards>: the file's output as pg_regress's psql makes it
sub run_file
{
	my ($node, $file, $shards) = @_;
	local $ENV{PGOPTIONS} = "-c intervalstyle=postgres_verbose -c client_min_messages=notice"
	  . ($shards ? " -c stdesign.citus_shard_count=$shards -c citus.enable_repartition_joins=on" : '');
	local $ENV{PGTZ} = 'PST8PDT';
	local $ENV{PGDATESTYLE} = 'Postgres, MDY';
	local $ENV{LC_MESSAGES} = 'C';
	# a fresh start: no tables of an earlier file
	$node->safe_psql('postgres', 'SELECT count(st_drop_table(t)) FROM st_list_tables() AS t');
	my ($out, $err);
	IPC::Run::run([ 'psql', '-X', '-a', '-q', '-h', $node->host, '-p', $node->port,
		'-v', 'HIDE_TABLEAM=on', '-v', 'HIDE_TOAST_COMPRESSION=on', 'postgres' ],
		'<', "$srcdir/sql/$file.sql", '>&', \$out);
	return $out;
}

sub normalised
{
	my ($text, $file) = @_;
	my @drop = grep { defined } ($known_differences{'*'}, $known_differences{$file});
	my @lines = split /\n/, $text;
	for my $re (@drop)
	{
		@lines = grep { $_ !~ $re } @lines;
	}
	return join("\n", @lines);
}

# The regression files' tables are distributed: the setting works.
is($coord->safe_psql('postgres', q{SET stdesign.citus_shard_count = 4;
	SELECT st_create_table('Probe') IS NOT NULL;
	SELECT count(*) FROM pg_dist_partition WHERE logicalrelid = 'stdesign_data."Probe"'::regclass;
	SELECT count(*) FROM pg_dist_shard WHERE logicalrelid = 'stdesign_data."Probe"'::regclass;
	SELECT st_drop_table('Probe')}), "t\n1\n4\n", 'stdesign.citus_shard_count: CreateTable distributes the new table');

for my $file (@regress)
{
	next unless -e "$srcdir/sql/$file.sql";
	next if $ENV{CITUS_ONLY_REGRESS} && $file !~ /$ENV{CITUS_ONLY_REGRESS}/;
	my $one = normalised(run_file($single, $file, 0), $file);
	my $dist = normalised(run_file($coord, $file, 4), $file);
	my $ok = ok($dist eq $one, "regression $file: the cluster's output is the single node's");
	if (!$ok)
	{
		my $d = PostgreSQL::Test::Utils::tempdir;
		append_to_file("$d/one", $one);
		append_to_file("$d/dist", $dist);
		my ($diff) = run_log_diff("$d/one", "$d/dist");
		diag($diff);
	}
}

sub run_log_diff
{
	my ($a, $b) = @_;
	my $out = '';
	IPC::Run::run([ 'diff', '-u', $a, $b ], '>', \$out);
	return (substr($out, 0, 6000));
}

# ---------- 3. the e-commerce table distributed with its items ----------

my $ecommerce_setup = q{
SELECT st_create_table('{"TableName": "ECommerce",
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "SK", "AttributeType": "S"},
                           {"AttributeName": "GSI1PK", "AttributeType": "S"}, {"AttributeName": "GSI1SK", "AttributeType": "S"}],
  "GlobalSecondaryIndexes": [{"IndexName": "GSI1",
    "KeySchema": [{"AttributeName": "GSI1PK", "KeyType": "HASH"}, {"AttributeName": "GSI1SK", "KeyType": "RANGE"}],
    "Projection": {"ProjectionType": "ALL"}}],
  "BillingMode": "PAY_PER_REQUEST"}'::jsonb) IS NOT NULL;
SELECT count(st_put(jsonb_build_object('PK', 'CUSTOMER#' || c, 'SK', 'PROFILE', 'name', 'Customer ' || c,
                                       'entity_type', 'Customer'), 'ECommerce'))
  FROM generate_series(1, 40) AS c;
SELECT count(st_put(jsonb_build_object('PK', 'CUSTOMER#' || c, 'SK', 'ORDER#2024-0' || (1 + o % 9) || '-1' || o || '#' || c || '-' || o,
                                       'entity_type', 'Order', 'status', s, 'total', c * 10 + o,
                                       'GSI1PK', 'STATUS#' || s, 'GSI1SK', 'ORDER#2024-0' || (1 + o % 9) || '-1' || o || '#' || c || '-' || o),
                    'ECommerce'))
  FROM generate_series(1, 40) AS c, generate_series(1, 6) AS o,
       LATERAL (SELECT (ARRAY['PENDING', 'SHIPPED', 'DELIVERED'])[1 + (c + o) % 3] AS s) AS st;
SELECT count(st_put(jsonb_build_object('PK', 'ORDER#' || c || '-' || o, 'SK', 'ITEM#' || i, 'entity_type', 'OrderItem',
                                       'qty', i, 'price', 5 * i), 'ECommerce'))
  FROM generate_series(1, 40) AS c, generate_series(1, 6) AS o, generate_series(1, 3) AS i;
};
$single->safe_psql('postgres', $ecommerce_setup);
$coord->safe_psql('postgres', $ecommerce_setup);
is($coord->safe_psql('postgres', q{SELECT st_distribute_table('ECommerce', 8)}), 8,
	'st_distribute_table: 8 shards, the items copied into them');
is($coord->safe_psql('postgres', q{SELECT count(*) FROM stdesign_data."ECommerce"}), 40 + 240 + 720,
	'st_distribute_table: every item is in the distributed table');
is($coord->safe_psql('postgres', q{SELECT pg_relation_size('stdesign_data."ECommerce"')}), 0,
	'st_distribute_table: no copy of the items is left in the coordinator\'s relation');
is($coord->safe_psql('postgres', q{SELECT count(DISTINCT nodeport) FROM citus_shards WHERE table_name::text LIKE '%ECommerce%'}),
	2, 'st_distribute_table: shards on both workers');
is($coord->safe_psql('postgres', q{SELECT st_distribute_table('ECommerce', 8)}), 8,
	'st_distribute_table again: only the catalog copied again');

# The access patterns of the seeds' e-commerce model, and more: each
# query's result (a jsonb) on the single node and on the cluster.
my @patterns = (
	[ 'get customer', q{SELECT st_get('CUSTOMER#7', 'PROFILE', 'ECommerce')} ],
	[ 'missing item', q{SELECT st_get('CUSTOMER#700', 'PROFILE', 'ECommerce')} ],
	[ 'a customer\'s orders (begins_with)', q{SELECT jsonb_agg(x) FROM st_query('CUSTOMER#7', 'ORDER#', 'ECommerce') x} ],
	[ 'an order', q{SELECT st_get('CUSTOMER#7', 'ORDER#2024-03-12#7-2', 'ECommerce')} ],
	[ 'an order\'s items', q{SELECT jsonb_agg(x) FROM st_query('ORDER#7-2', 'ITEM#', 'ECommerce') x} ],
	[ 'orders in a date range (BETWEEN)', q{SELECT st_api('Query', '{"TableName": "ECommerce",
		"KeyConditionExpression": "PK = :pk AND SK BETWEEN :a AND :b",
		"ExpressionAttributeValues": {":pk": {"S": "CUSTOMER#9"}, ":a": {"S": "ORDER#2024-02"}, ":b": {"S": "ORDER#2024-05"}}}')} ],
	[ 'orders by status (GSI1)', q{SELECT st_api('Query', '{"TableName": "ECommerce", "IndexName": "GSI1",
		"KeyConditionExpression": "GSI1PK = :s", "ExpressionAttributeValues": {":s": {"S": "STATUS#SHIPPED"}}}')} ],
	[ 'orders by status, newest first, paged', q{SELECT st_api('Query', '{"TableName": "ECommerce", "IndexName": "GSI1",
		"KeyConditionExpression": "GSI1PK = :s AND begins_with(GSI1SK, :p)", "ScanIndexForward": false, "Limit": 7,
		"ExclusiveStartKey": {"GSI1PK": {"S": "STATUS#PENDING"}, "GSI1SK": {"S": "ORDER#2024-05-14#20-4"}, "PK": {"S": "CUSTOMER#20"}, "SK": {"S": "ORDER#2024-05-14#20-4"}},
		"ExpressionAttributeValues": {":s": {"S": "STATUS#PENDING"}, ":p": {"S": "ORDER#2024-0"}}}')} ],
	[ 'newest first with a filter on type', q{SELECT st_api('Query', '{"TableName": "ECommerce",
		"KeyConditionExpression": "PK = :pk", "ScanIndexForward": false, "FilterExpression": "entity_type = :t",
		"ExpressionAttributeValues": {":pk": {"S": "CUSTOMER#3"}, ":t": {"S": "Order"}}}')} ],
	[ 'scan, paged', q{SELECT st_api('Scan', '{"TableName": "ECommerce", "Limit": 25,
		"ExclusiveStartKey": {"PK": {"S": "CUSTOMER#17"}, "SK": {"S": "ORDER#2024-03-12#17-2"}}}')} ],
	[ 'scan of a segment', q{SELECT st_api('Scan', '{"TableName": "ECommerce", "Segment": 2, "TotalSegments": 5, "Select": "COUNT"}')} ],
	[ 'scan of GSI1 with a filter', q{SELECT st_api('Scan', '{"TableName": "ECommerce", "IndexName": "GSI1", "Limit": 30,
		"FilterExpression": "#t > :t", "ExpressionAttributeNames": {"#t": "total"},
		"ExpressionAttributeValues": {":t": {"N": "300"}}}')} ],
	[ 'count of the whole table', q{SELECT st_api('Scan', '{"TableName": "ECommerce", "Select": "COUNT"}')} ],
	[ 'batch get', q{SELECT st_api('BatchGetItem', '{"RequestItems": {"ECommerce": {"Keys": [
		{"PK": {"S": "CUSTOMER#1"}, "SK": {"S": "PROFILE"}}, {"PK": {"S": "CUSTOMER#2"}, "SK": {"S": "PROFILE"}},
		{"PK": {"S": "ORDER#5-5"}, "SK": {"S": "ITEM#2"}}, {"PK": {"S": "NOPE"}, "SK": {"S": "PROFILE"}}]}}}')} ],
	[ 'transact get', q{SELECT st_api('TransactGetItems', '{"TransactItems": [
		{"Get": {"TableName": "ECommerce", "Key": {"PK": {"S": "CUSTOMER#31"}, "SK": {"S": "PROFILE"}}}},
		{"Get": {"TableName": "ECommerce", "Key": {"PK": {"S": "ORDER#1-1"}, "SK": {"S": "ITEM#1"}}}}]}')} ],
	[ 'update with a condition', q{SELECT st_api('UpdateItem', '{"TableName": "ECommerce",
		"Key": {"PK": {"S": "CUSTOMER#4"}, "SK": {"S": "PROFILE"}}, "UpdateExpression": "SET visits = if_not_exists(visits, :z) + :one",
		"ConditionExpression": "attribute_exists(PK)", "ReturnValues": "ALL_NEW",
		"ExpressionAttributeValues": {":z": {"N": "0"}, ":one": {"N": "1"}}}')} ],
	[ 'failed condition', q{SELECT st_api('PutItem', '{"TableName": "ECommerce",
		"Item": {"PK": {"S": "CUSTOMER#4"}, "SK": {"S": "PROFILE"}}, "ConditionExpression": "attribute_not_exists(PK)"}')} ],
	[ 'conditional put of a new item', q{SELECT st_api('PutItem', '{"TableName": "ECommerce",
		"Item": {"PK": {"S": "CUSTOMER#400"}, "SK": {"S": "PROFILE"}, "name": {"S": "new"}}, "ConditionExpression": "attribute_not_exists(PK)"}')} ],
	[ 'delete with return values', q{SELECT st_api('DeleteItem', '{"TableName": "ECommerce",
		"Key": {"PK": {"S": "ORDER#9-1"}, "SK": {"S": "ITEM#3"}}, "ReturnValues": "ALL_OLD"}')} ],
	[ 'conditional delete', q{SELECT st_api('DeleteItem', '{"TableName": "ECommerce",
		"Key": {"PK": {"S": "ORDER#9-1"}, "SK": {"S": "ITEM#2"}}, "ConditionExpression": "qty = :q",
		"ExpressionAttributeValues": {":q": {"N": "2"}}, "ReturnValues": "ALL_OLD"}')} ],
	[ 'the order after the deletes', q{SELECT jsonb_agg(x) FROM st_query('ORDER#9-1', NULL, 'ECommerce') x} ],
	[ 'batch write across shards', q{SELECT st_api('BatchWriteItem', '{"RequestItems": {"ECommerce": [
		{"PutRequest": {"Item": {"PK": {"S": "CUSTOMER#501"}, "SK": {"S": "PROFILE"}}}},
		{"PutRequest": {"Item": {"PK": {"S": "CUSTOMER#502"}, "SK": {"S": "PROFILE"}}}},
		{"DeleteRequest": {"Key": {"PK": {"S": "CUSTOMER#40"}, "SK": {"S": "PROFILE"}}}}]}}')} ],
	[ 'transact write across shards', q{SELECT st_api('TransactWriteItems', '{"TransactItems": [
		{"Put": {"TableName": "ECommerce", "Item": {"PK": {"S": "CUSTOMER#601"}, "SK": {"S": "PROFILE"}}, "ConditionExpression": "attribute_not_exists(PK)"}},
		{"Update": {"TableName": "ECommerce", "Key": {"PK": {"S": "CUSTOMER#1"}, "SK": {"S": "PROFILE"}}, "UpdateExpression": "SET n = :n", "ExpressionAttributeValues": {":n": {"N": "1"}}}},
		{"Delete": {"TableName": "ECommerce", "Key": {"PK": {"S": "CUSTOMER#2"}, "SK": {"S": "PROFILE"}}}},
		{"ConditionCheck": {"TableName": "ECommerce", "Key": {"PK": {"S": "CUSTOMER#3"}, "SK": {"S": "PROFILE"}}, "ConditionExpression": "attribute_exists(PK)"}}]}')} ],
	[ 'transact write cancelled: nothing written', q{SELECT st_api('TransactWriteItems', '{"TransactItems": [
		{"Put": {"TableName": "ECommerce", "Item": {"PK": {"S": "CUSTOMER#602"}, "SK": {"S": "PROFILE"}}}},
		{"Update": {"TableName": "ECommerce", "Key": {"PK": {"S": "CUSTOMER#5"}, "SK": {"S": "PROFILE"}}, "UpdateExpression": "SET n = :n", "ExpressionAttributeValues": {":n": {"N": "1"}}}},
		{"ConditionCheck": {"TableName": "ECommerce", "Key": {"PK": {"S": "CUSTOMER#999"}, "SK": {"S": "PROFILE"}}, "ConditionExpression": "attribute_exists(PK)"}}]}')} ],
	[ 'after the transactions', q{SELECT jsonb_agg(st_get('CUSTOMER#' || c, 'PROFILE', 'ECommerce') ORDER BY c) FROM unnest(ARRAY[1, 2, 3, 5, 40, 501, 502, 601, 602]) AS c} ],
	[ 'put_all and the count after it', q{SELECT st_put_all(jsonb_build_object('PK', 'BULK#' || i, 'SK', 'X', 'i', i), 'ECommerce')
		FROM generate_series(1, 200) AS i} ],
	[ 'the whole table, scanned in pages of 97', q{WITH RECURSIVE p(n, r) AS (
		SELECT 1, st_api('Scan', '{"TableName": "ECommerce", "Limit": 97}')
		UNION ALL
		SELECT n + 1, st_api('Scan', jsonb_build_object('TableName', 'ECommerce', 'Limit', 97, 'ExclusiveStartKey', r->'LastEvaluatedKey'))
		  FROM p WHERE r ? 'LastEvaluatedKey')
		SELECT jsonb_build_object('pages', count(*), 'items', sum((r->>'Count')::int), 'digest', md5(string_agg(r->>'Items', '' ORDER BY n))) FROM p} ],
);
for my $p (@patterns)
{
	my ($label, $sql) = @$p;
	my ($ret1, $out1, $err1) = $single->psql('postgres', $sql);
	my ($ret2, $out2, $err2) = $coord->psql('postgres', $sql);
	$err1 =~ s/^.*?ERROR/ERROR/s;
	$err2 =~ s/^.*?ERROR/ERROR/s;
	is("$ret2 $out2 $err2", "$ret1 $out1 $err1", "e-commerce distributed: $label");
	# the single node's answer is one (not an error both gave), but where a condition fails
	my $fails = $label =~ /failed condition|cancelled/;
	ok(($fails ? $ret1 != 0 : $ret1 == 0) && ($out1 . $err1 ne '' || $label =~ /missing/),
		"e-commerce on one node: $label answers" . ($fails ? ' with an error' : ''))
	  or diag($err1);
}
like($single->safe_psql('postgres', q{SELECT jsonb_agg(x->>'SK') FROM st_query('CUSTOMER#7', 'ORDER#', 'ECommerce') x}),
	qr/^\["ORDER#2024-0\d-1\d#7-\d"(, "ORDER#2024-0\d-1\d#7-\d"){5}\]$/, 'e-commerce on one node: the patterns read the items loaded');

# Delegation: the table's functions run at the worker holding the shard,
# where st_get and st_query read the shard directly.
my ($dret, $dout, $derr) = $coord->psql('postgres', q{SET citus.log_remote_commands = on;
	SET client_min_messages = notice;
	SELECT stdesign_data."ECommerce_get"('CUSTOMER#7', 'PROFILE')});
is($dout, $single->safe_psql('postgres', q{SELECT st_get('CUSTOMER#7', 'PROFILE', 'ECommerce')}),
	'delegated GetItem: the item');
like($derr, qr/NOTICE:  issuing SELECT stdesign_data\."ECommerce_get"\('CUSTOMER#7'/,
	'delegated GetItem: the call itself was sent to a worker');
is($coord->safe_psql('postgres', q{SELECT stdesign_data."ECommerce_query"('CUSTOMER#7', 'ORDER#')}),
	$single->safe_psql('postgres', q{SELECT jsonb_agg(x) FROM st_query('CUSTOMER#7', 'ORDER#', 'ECommerce') x}),
	'delegated Query: the partition');
is($coord->safe_psql('postgres', q{SELECT stdesign_data."ECommerce_query"('CUSTOMER#7', 'ORDER#', 2)}),
	$single->safe_psql('postgres', q{SELECT jsonb_agg(x) FROM st_query('CUSTOMER#7', 'ORDER#', 'ECommerce', "limit" => 2) x}),
	'delegated Query: with a limit');
# On each worker: its own partitions are read from the shard directly, the
# others routed; the answers are the single node's either way.
my $expect = $single->safe_psql('postgres', q{SELECT jsonb_agg(st_get('CUSTOMER#' || c, 'PROFILE', 'ECommerce') ORDER BY c)
	FROM generate_series(1, 39) AS c});
my $expect_q = $single->safe_psql('postgres', q{SELECT jsonb_agg((SELECT jsonb_agg(x) FROM st_query('CUSTOMER#' || c, 'ORDER#', 'ECommerce') x) ORDER BY c)
	FROM generate_series(1, 39) AS c});
for my $w (0 .. 1)
{
	my $out = $workers[$w]->safe_psql('postgres', q{SELECT jsonb_agg(st_get('CUSTOMER#' || c, 'PROFILE', 'ECommerce') ORDER BY c)
		FROM generate_series(1, 39) AS c;
	SELECT jsonb_agg((SELECT jsonb_agg(x) FROM st_query('CUSTOMER#' || c, 'ORDER#', 'ECommerce') x) ORDER BY c)
		FROM generate_series(1, 39) AS c;
	SELECT (stdesign.cache_stats()->>'shard_direct_reads')::int});
	my ($gets, $queries, $direct) = split /\n/, $out;
	is($gets, $expect, "worker " . ($w + 1) . ": GetItems from the worker give the single node's items");
	is($queries, $expect_q, "worker " . ($w + 1) . ": Queries from the worker give the single node's items");
	cmp_ok($direct, '>', 10, "worker " . ($w + 1) . ": its own partitions read from its shards directly ($direct of 78)");
}

# The plain calls on the coordinator (st_get, st_query, st_api's GetItem
# and Query) are delegated too: Citus sends the table's delegated read
# function to the worker holding the partition, which reads its shard by
# the direct paths and says so (cache_stats().shard_delegated_reads counts
# the reads a worker answered that way for this session).
my @plain = (
	[ 'st_get', q{SELECT st_get('CUSTOMER#12', 'PROFILE', 'ECommerce')} ],
	[ 'st_get of a missing item', q{SELECT st_get('CUSTOMER#12', 'NOPE', 'ECommerce')} ],
	[ 'st_query', q{SELECT jsonb_agg(x) FROM st_query('CUSTOMER#12', 'ORDER#', 'ECommerce') x} ],
	[ 'st_query with a limit', q{SELECT jsonb_agg(x) FROM st_query('CUSTOMER#12', 'ORDER#', 'ECommerce', "limit" => 2) x} ],
	[ 'st_query of an empty partition', q{SELECT jsonb_agg(x) FROM st_query('CUSTOMER#9999', NULL, 'ECommerce') x} ],
	[ 'GetItem, consistent, with its capacity', q{SELECT st_api('GetItem', '{"TableName": "ECommerce", "ConsistentRead": true,
		"Key": {"PK": {"S": "CUSTOMER#13"}, "SK": {"S": "PROFILE"}}, "ReturnConsumedCapacity": "TOTAL",
		"ProjectionExpression": "#n", "ExpressionAttributeNames": {"#n": "name"}}')} ],
	[ 'Query, backward, filtered, with its capacity', q{SELECT st_api('Query', '{"TableName": "ECommerce",
		"KeyConditionExpression": "PK = :pk AND SK > :s", "ScanIndexForward": false, "Limit": 4,
		"FilterExpression": "#t > :t", "ExpressionAttributeNames": {"#t": "total"}, "ReturnConsumedCapacity": "INDEXES",
		"ExpressionAttributeValues": {":pk": {"S": "CUSTOMER#14"}, ":s": {"S": "ORDER#2024-02"}, ":t": {"N": "142"}}}')} ],
	[ 'Query with Select COUNT', q{SELECT st_api('Query', '{"TableName": "ECommerce", "Select": "COUNT",
		"KeyConditionExpression": "PK = :pk", "ExpressionAttributeValues": {":pk": {"S": "ORDER#15-3"}}}')} ],
);
for my $p (@plain)
{
	my ($label, $sql) = @$p;
	my (undef, $got, $log) = $coord->psql('postgres', "SET citus.log_remote_commands = on; SET client_min_messages = notice;
		$sql; SELECT stdesign.cache_stats()->>'shard_delegated_reads'");
	my ($answer, $delegated) = $got =~ /^(.*)\n(\d+)$/s;
	is($answer, $single->safe_psql('postgres', $sql), "delegated on the coordinator: $label gives the single node's answer");
	is($delegated, 1, "delegated on the coordinator: $label was read by the worker from its shard directly");
	like($log, qr/NOTICE:  issuing SELECT item, direct FROM stdesign_data\."ECommerce_d(get|query)"\(/,
		"delegated on the coordinator: $label sent the call to a worker");
}
# A Query from ExclusiveStartKey (not a direct path on one node either)
# stays a routed statement.
is($coord->safe_psql('postgres', q{SELECT st_api('Query', '{"TableName": "ECommerce", "Limit": 2,
	"KeyConditionExpression": "PK = :pk", "ExpressionAttributeValues": {":pk": {"S": "CUSTOMER#14"}},
	"ExclusiveStartKey": {"PK": {"S": "CUSTOMER#14"}, "SK": {"S": "ORDER#2024-02-12#14-1"}}}') IS NOT NULL;
	SELECT stdesign.cache_stats()->>'shard_delegated_reads'}), "t\n0", 'a Query from a start key is not delegated');
# Inside a transaction the delegated read sees the transaction's own writes
# (Citus sends it over the transaction's connection to the worker), and a
# rollback takes them back.
my $txn = q{BEGIN;
	SELECT st_put('{"PK": "CUSTOMER#13", "SK": "NOTE#1", "text": "in the transaction"}', 'ECommerce');
	SELECT st_get('CUSTOMER#13', 'NOTE#1', 'ECommerce');
	SELECT jsonb_agg(x->>'SK') FROM st_query('CUSTOMER#13', 'NOTE#', 'ECommerce') x;
	ROLLBACK;
	SELECT st_get('CUSTOMER#13', 'NOTE#1', 'ECommerce') IS NULL;};
is($coord->safe_psql('postgres', $txn . q{SELECT stdesign.cache_stats()->>'shard_delegated_reads'}),
	$single->safe_psql('postgres', $txn) . "\n3", 'delegated reads in a transaction see its writes; the rollback undoes them');
# A function writing and then reading in one statement: the read is in the
# statement's distributed transaction.
my $fn = q{CREATE FUNCTION put_then_get(k text) RETURNS jsonb LANGUAGE plpgsql AS $$
	BEGIN
	  PERFORM st_put(jsonb_build_object('PK', 'CUSTOMER#16', 'SK', k, 'v', 1), 'ECommerce');
	  RETURN st_get('CUSTOMER#16', k, 'ECommerce');
	END $$;
	SELECT put_then_get('NOTE#2');};
is($coord->safe_psql('postgres', $fn), $single->safe_psql('postgres', $fn), 'a read after a write in one function call sees it');
# Errors are the single node's: a key of the wrong type, a missing table.
for my $bad (q{SELECT st_api('GetItem', '{"TableName": "ECommerce", "Key": {"PK": {"N": "1"}, "SK": {"S": "PROFILE"}}}')},
	q{SELECT st_api('Query', '{"TableName": "Nope", "KeyConditionExpression": "PK = :p", "ExpressionAttributeValues": {":p": {"S": "x"}}}')})
{
	my (undef, undef, $e1) = $single->psql('postgres', $bad);
	my (undef, undef, $e2) = $coord->psql('postgres', $bad);
	$e1 =~ s/^.*?ERROR/ERROR/s;
	$e2 =~ s/^.*?ERROR/ERROR/s;
	is($e2, $e1, 'delegated on the coordinator: the single node\'s error (' . ($e1 =~ /(\w+Exception)/)[0] . ')');
}
# A role without SELECT on the table gets the single node's error (no
# delegation: the routed statement's permission check); granted, its reads
# are delegated.
# (Citus propagates the role and the grants on the distributed table, not
# those on the extension's schemas and catalog: docs/citus.md.)
my $role = q{CREATE ROLE shop_reader LOGIN;
	GRANT USAGE ON SCHEMA stdesign, stdesign_data TO shop_reader;
	GRANT SELECT ON stdesign.tables, stdesign.indexes TO shop_reader;};
$_->safe_psql('postgres', $role) for ($single, $coord);
$coord->safe_psql('postgres', q{SELECT run_command_on_workers($$GRANT USAGE ON SCHEMA stdesign, stdesign_data TO shop_reader$$);
	SELECT run_command_on_workers($$GRANT SELECT ON stdesign.tables, stdesign.indexes TO shop_reader$$)});
my $as_reader = q{SET ROLE shop_reader; SELECT st_get('CUSTOMER#12', 'PROFILE', 'ECommerce');};
my (undef, undef, $pe1) = $single->psql('postgres', $as_reader);
my (undef, undef, $pe2) = $coord->psql('postgres', $as_reader);
# (the statement in the error's context is the routed one on the coordinator)
s/^.*?(ERROR:[^\n]*).*$/$1/s for ($pe1, $pe2);
like($pe1, qr/permission denied/, 'a role without SELECT: permission denied on one node');
is($pe2, $pe1, 'a role without SELECT: the same error on the coordinator');
$_->safe_psql('postgres', q{GRANT SELECT ON stdesign_data."ECommerce" TO shop_reader}) for ($single, $coord);
is($coord->safe_psql('postgres', $as_reader . q{SELECT stdesign.cache_stats()->>'shard_delegated_reads'}),
	$single->safe_psql('postgres', $as_reader) . "\n1", 'a role granted SELECT: its GetItem is delegated');
# The delegated read functions' C part refuses keys of other types.
my (undef, undef, $te) = $coord->psql('postgres', q{SELECT * FROM stdesign.st_delegated_get(1, 'PROFILE'::text, 'ECommerce')});
like($te, qr/ValidationException: A key argument of type integer does not match the key attribute PK/,
	'st_delegated_get: a key of the wrong type is refused');
(undef, undef, $te) = $coord->psql('postgres', q{SELECT * FROM stdesign.st_delegated_query('a'::text, 3, 'x'::text, 0, NULL::text, false, NULL, 'ECommerce')});
like($te, qr/ValidationException: A bound kind of a delegated read is not 0, 1 or 2: 3/, 'st_delegated_query: a bad bound kind is refused');
(undef, undef, $te) = $coord->psql('postgres', q{SELECT * FROM stdesign.st_delegated_get('a'::text, 'b'::text, 'Nope')});
like($te, qr/ResourceNotFoundException/, 'st_delegated_get: a missing table is refused');

# An item collection sits on one shard.
is($coord->safe_psql('postgres', q{SELECT count(*) FROM run_command_on_shards('stdesign_data."ECommerce"',
	$$SELECT count(*) FROM %s WHERE pk = 'CUSTOMER#7'$$) WHERE result::int > 0}), 1,
	'an item collection (CUSTOMER#7) is on one shard');

# A GSI added and dropped on the distributed table; the catalog on every node.
$coord->safe_psql('postgres', q{SELECT st_create_gsi('ECommerce', 'ByName', 'name') IS NOT NULL});
$single->safe_psql('postgres', q{SELECT st_create_gsi('ECommerce', 'ByName', 'name') IS NOT NULL});
my $gsi_q = q{SELECT st_api('Query', '{"TableName": "ECommerce", "IndexName": "ByName",
	"KeyConditionExpression": "#n = :n", "ExpressionAttributeNames": {"#n": "name"},
	"ExpressionAttributeValues": {":n": {"S": "Customer 12"}}}')};
is($coord->safe_psql('postgres', $gsi_q), $single->safe_psql('postgres', $gsi_q),
	'a GSI added to the distributed table indexes its items');
my $catalog_q0 = q{SELECT md5(coalesce((SELECT jsonb_agg(t ORDER BY table_name)::text FROM stdesign.tables t), '')
	|| coalesce((SELECT jsonb_agg(i ORDER BY table_name, index_name)::text FROM stdesign.indexes i), ''))};
is(join(' ', map { $_->safe_psql('postgres', $catalog_q0) } @workers), join(' ', ($coord->safe_psql('postgres', $catalog_q0)) x 2),
	'the catalog is the same on every node after st_create_gsi');
my $drop_gsi = q{SELECT st_api('UpdateTable', '{"TableName": "ECommerce",
	"GlobalSecondaryIndexUpdates": [{"Delete": {"IndexName": "ByName"}}]}')->'TableDescription'->'GlobalSecondaryIndexes'};
is($coord->safe_psql('postgres', $drop_gsi), $single->safe_psql('postgres', $drop_gsi),
	'UpdateTable drops a GSI of the distributed table');
my $catalog_q = q{SELECT md5(coalesce((SELECT jsonb_agg(t ORDER BY table_name)::text FROM stdesign.tables t), '')
	|| coalesce((SELECT jsonb_agg(i ORDER BY table_name, index_name)::text FROM stdesign.indexes i), ''))};
my $catalog = $coord->safe_psql('postgres', $catalog_q);
is(join(' ', map { $_->safe_psql('postgres', $catalog_q) } @workers), "$catalog $catalog",
	'the catalog is the same on every node after UpdateTable');

# DDL that rolls back leaves the workers' catalog as it was: the catalog
# rows are copied when the coordinator's transaction commits.
my $gsi_rolled_back = q{BEGIN;
	SELECT st_create_gsi('ECommerce', 'ByTotal', 'total', NULL, 'N') IS NOT NULL;
	SELECT st_get('CUSTOMER#21', 'PROFILE', 'ECommerce')->>'name';
	ROLLBACK;};
is($coord->safe_psql('postgres', $gsi_rolled_back . q{SELECT stdesign.cache_stats()->>'shard_delegated_reads'}),
	"t\nCustomer 21\n0", 'a GetItem after st_create_gsi in the same transaction is not delegated (the workers do not have the GSI yet)');
is(join(' ', map { $_->safe_psql('postgres', $catalog_q) } @workers), "$catalog $catalog",
	'a rolled-back st_create_gsi leaves the workers\' catalog unchanged');
$coord->safe_psql('postgres', q{BEGIN;
	SELECT st_api('UpdateTable', '{"TableName": "ECommerce",
		"GlobalSecondaryIndexUpdates": [{"Delete": {"IndexName": "GSI1"}}]}') IS NOT NULL;
	ROLLBACK;
	BEGIN;
	SELECT st_drop_table('ECommerce');
	ROLLBACK;});
is(join(' ', map { $_->safe_psql('postgres', $catalog_q) } @workers), "$catalog $catalog",
	'a rolled-back UpdateTable and a rolled-back DeleteTable leave the workers\' catalog unchanged');
is($coord->safe_psql('postgres', q{SELECT st_get('CUSTOMER#21', 'PROFILE', 'ECommerce')->>'name';
	SELECT stdesign.cache_stats()->>'shard_delegated_reads'}), "Customer 21\n1",
	'delegated reads after the rolled-back DDL');
# A DDL that commits copies the rows; a worker's catalog changed behind
# stdesign's back is repaired by st_distribute_table run again.
$coord->safe_psql('postgres', q{SELECT run_command_on_workers($$DELETE FROM stdesign.indexes WHERE table_name = 'ECommerce'$$)});
isnt(join(' ', map { $_->safe_psql('postgres', $catalog_q) } @workers), "$catalog $catalog", 'a worker\'s catalog made stale');
$coord->safe_psql('postgres', q{SELECT st_distribute_table('ECommerce', 8)});
is(join(' ', map { $_->safe_psql('postgres', $catalog_q) } @workers), "$catalog $catalog",
	'st_distribute_table run again makes the workers\' catalog the coordinator\'s');

# An undistributed table beside it works as on a single node.
my $local_q = q{SELECT st_create_table('Local') IS NOT NULL;
	SELECT st_put('{"PK": "a", "SK": "1", "v": 1}', 'Local');
	SELECT st_update('a', '1', 'SET v = v + :one', 'Local', "values" => '{":one": 1}');
	SELECT jsonb_agg(x) FROM st_query('a', NULL, 'Local') x;};
is($coord->safe_psql('postgres', $local_q), $single->safe_psql('postgres', $local_q),
	'an undistributed table on the coordinator works as on a single node');
is($coord->safe_psql('postgres', q{SELECT count(*) FROM pg_dist_partition WHERE logicalrelid = 'stdesign_data."Local"'::regclass}),
	0, 'the undistributed table stays a local table');

# A row written with a pk that is not its item's is refused on the shard.
my ($ret, $out, $err) = $coord->psql('postgres',
	q{INSERT INTO stdesign_data."ECommerce" (pk, sk, item) VALUES ('X', 'Y', '{"PK": {"S": "Z"}, "SK": {"S": "Y"}}')});
like($err, qr/is not its item's key attribute PK/, 'the shard\'s trigger refuses a pk that is not the item\'s');

# Rebalancing: a shard moved to the other worker keeps every item readable,
# delegated or routed, on the coordinator and on both workers.
my $moved = $coord->safe_psql('postgres', q{SELECT s.shardid || ' ' || n.nodeport FROM pg_dist_shard s
	JOIN pg_dist_placement p USING (shardid) JOIN pg_dist_node n USING (groupid)
	WHERE s.logicalrelid = 'stdesign_data."ECommerce"'::regclass
	  AND s.shardid = get_shard_id_for_distribution_column('stdesign_data."ECommerce"', 'CUSTOMER#7')});
my ($shardid, $from) = split / /, $moved;
my ($to) = grep { $_ != $from } map { $_->port } @workers;
$coord->safe_psql('postgres', qq{SELECT citus_move_shard_placement($shardid, '127.0.0.1', $from, '127.0.0.1', $to,
	shard_transfer_mode => 'block_writes')});
is($coord->safe_psql('postgres', qq{SELECT n.nodeport FROM pg_dist_placement p JOIN pg_dist_node n USING (groupid) WHERE p.shardid = $shardid}),
	$to, 'rebalancing: the shard of CUSTOMER#7 moved to the other worker');
my $all_q = q{SELECT md5(jsonb_agg(st_get('CUSTOMER#' || c, 'PROFILE', 'ECommerce') ORDER BY c)::text
	|| jsonb_agg((SELECT jsonb_agg(x) FROM st_query('CUSTOMER#' || c, 'ORDER#', 'ECommerce') x) ORDER BY c)::text)
	FROM generate_series(1, 39) AS c};
my $all_single = $single->safe_psql('postgres', $all_q);
is($coord->safe_psql('postgres', $all_q), $all_single, 'rebalancing: every item is read as before on the coordinator');
is($coord->safe_psql('postgres', q{SELECT st_get('CUSTOMER#7', 'PROFILE', 'ECommerce')->>'name';
	SELECT stdesign.cache_stats()->>'shard_delegated_reads'}), "Customer 7\n1",
	'rebalancing: a GetItem of the moved partition is delegated to its new worker');
is(join(' ', map { $_->safe_psql('postgres', $all_q) } @workers), "$all_single $all_single",
	'rebalancing: every item is read as before on both workers');

# ---------- 4. concurrency ----------

my $accounts = 40;
my $opening = 100;
my $dir = $coord->basedir;
$coord->safe_psql('postgres', qq{
SET stdesign.citus_shard_count = 8;
SELECT st_create_table('Bank') IS NOT NULL;
RESET stdesign.citus_shard_count;
SELECT count(st_put(jsonb_build_object('PK', 'ACCT#' || i, 'SK', 'ACCT', 'balance', $opening), 'Bank'))
  FROM generate_series(1, $accounts) AS i;
SELECT count(st_put(jsonb_build_object('PK', 'COUNTER#' || i, 'SK', 'C', 'n', 0, 'v', 0), 'Bank'))
  FROM generate_series(1, 4) AS i;
CREATE FUNCTION transfer(id bigint, src int, dst int, amount int) RETURNS int
LANGUAGE plpgsql AS \$\$
BEGIN
  IF src = dst THEN
    dst := src % $accounts + 1;
  END IF;
  PERFORM st_transact(jsonb_build_array(
    jsonb_build_object('Update', jsonb_build_object('TableName', 'Bank',
      'Key', jsonb_build_object('PK', 'ACCT#' || src, 'SK', 'ACCT'),
      'UpdateExpression', 'SET balance = balance - :a',
      'ConditionExpression', 'balance >= :a',
      'ExpressionAttributeValues', jsonb_build_object(':a', amount))),
    jsonb_build_object('Update', jsonb_build_object('TableName', 'Bank',
      'Key', jsonb_build_object('PK', 'ACCT#' || dst, 'SK', 'ACCT'),
      'UpdateExpression', 'SET balance = balance + :a',
      'ExpressionAttributeValues', jsonb_build_object(':a', amount))),
    jsonb_build_object('Put', jsonb_build_object('TableName', 'Bank',
      'Item', jsonb_build_object('PK', 'TRANSFER#' || id, 'SK', 'T', 'src', src, 'dst', dst, 'amount', amount),
      'ConditionExpression', 'attribute_not_exists(PK)'))), plain => true);
  RETURN 1;
EXCEPTION WHEN SQLSTATE 'SD005' THEN
  RETURN 0;
END
\$\$;
-- A read-modify-write of a counter, optimistic: the version read is the
-- condition of the write (conditional writes, as DynamoDB applications do).
CREATE FUNCTION bump(c int) RETURNS int
LANGUAGE plpgsql AS \$\$
DECLARE
  v numeric;
BEGIN
  v := (st_get('COUNTER#' || c, 'C', 'Bank')->>'v')::numeric;
  PERFORM st_update('COUNTER#' || c, 'C', 'SET n = n + :one, v = :nv', 'Bank',
                    condition => 'v = :v', "values" => jsonb_build_object(':one', 1, ':nv', v + 1, ':v', v));
  RETURN 1;
EXCEPTION WHEN SQLSTATE 'SD004' THEN
  RETURN 0;
END
\$\$;
});
append_to_file("$dir/transfer.sql", q{
\set n :n + 1
\set id :client_id * 10000000 + :n
\set src random(1, :naccounts)
\set dst random(1, :naccounts)
\set amount random(1, 60)
SELECT transfer(:id, :src, :dst, :amount);
});
append_to_file("$dir/bump.sql", q{
\set c random(1, 4)
SELECT bump(:c) AS ok \gset
\shell echo :c :ok >> :okfile
});
my ($pgb_out, $pgb_err);
IPC::Run::run([ 'pgbench', '-n', '-c', '6', '-j', '2', '-T', $ENV{CITUS_LOAD_SECONDS} || '10',
	'-h', $coord->host, '-p', $coord->port, '-D', 'n=0', '-D', "naccounts=$accounts", '-D', "okfile=$dir/bumps.log",
	'-f', "$dir/transfer.sql\@3", '-f', "$dir/bump.sql\@1", 'postgres' ], '>', \$pgb_out, '2>', \$pgb_err);
like($pgb_out, qr/number of failed transactions: 0 /, 'concurrency: no client failed') or diag("$pgb_out\n$pgb_err");
my ($applied) = $coord->safe_psql('postgres', q{SELECT count(*) FROM stdesign_data."Bank" WHERE pk LIKE 'TRANSFER#%'});
cmp_ok($applied, '>', 0, "concurrency: transfers applied ($applied)");
is($coord->safe_psql('postgres', q{SELECT sum((item->'balance'->>'N')::numeric) FROM stdesign_data."Bank" WHERE pk LIKE 'ACCT#%'}),
	$accounts * $opening, 'concurrency: the total of the balances is conserved');
is($coord->safe_psql('postgres', q{SELECT count(*) FROM stdesign_data."Bank" WHERE pk LIKE 'ACCT#%' AND (item->'balance'->>'N')::numeric < 0}),
	0, 'concurrency: no balance is negative');
is($coord->safe_psql('postgres', qq{
WITH t AS (SELECT (item->'src'->>'N')::int AS src, (item->'dst'->>'N')::int AS dst, (item->'amount'->>'N')::numeric AS amount
             FROM stdesign_data."Bank" WHERE pk LIKE 'TRANSFER#%'),
     flow AS (SELECT src AS acct, -amount AS delta FROM t UNION ALL SELECT dst, amount FROM t)
SELECT count(*) FROM stdesign_data."Bank" a
 WHERE a.pk LIKE 'ACCT#%'
   AND (a.item->'balance'->>'N')::numeric <> $opening + coalesce((SELECT sum(delta) FROM flow WHERE 'ACCT#' || flow.acct = a.pk), 0)}),
	0, 'concurrency: every balance is its opening balance plus its transfers (no half transfer)');
my %wins;
for (split /\n/, slurp_file("$dir/bumps.log"))
{
	my ($c, $ok) = split / /;
	$wins{$c} += $ok;
}
my $counters = $coord->safe_psql('postgres', q{SELECT string_agg(substr(pk, 9) || '=' || (item->'n'->>'N') || '/' || (item->'v'->>'N'), ' ' ORDER BY pk)
	FROM stdesign_data."Bank" WHERE pk LIKE 'COUNTER#%'});
is($counters, join(' ', map { my $w = $wins{$_} || 0; "$_=$w/$w" } 1 .. 4),
	'concurrency: each counter counts exactly the conditional writes that succeeded (no lost update)');
is($coord->safe_psql('postgres', q{SELECT count(*) FROM pg_prepared_xacts}) . ' '
	. join(' ', map { $_->safe_psql('postgres', q{SELECT count(*) FROM pg_prepared_xacts}) } @workers),
	'0 0 0', 'concurrency: no prepared transaction left behind');

# ---------- 5. a worker killed and restarted in the middle of a load ----------

my $putlog = "$dir/puts.log";
my $loader = IPC::Run::start([ 'bash', '-c', q{
	for i in $(seq 1 100000); do
		psql -X -q -At -h "$1" -p "$2" -c "SELECT st_put(jsonb_build_object('PK', 'LOAD#' || $i, 'SK', 'X', 'i', $i), 'Bank') IS NOT NULL" postgres \
			>/dev/null 2>&1 && echo $i >> "$3"
		[ -e "$3.stop" ] && break
	done
	true }, 'loader', $coord->host, $coord->port, $putlog ]);
sub wait_for_puts
{
	my ($n) = @_;
	for (1 .. 600)
	{
		my $have = -e $putlog ? scalar(split /\n/, slurp_file($putlog)) : 0;
		return $have if $have >= $n;
		usleep(100_000);
	}
	return -1;
}
# transfers across the workers at the same time: two-phase commits in flight
# when the worker dies (clients that lose their connection stop)
my ($kill_out, $kill_err);
my $transfers = IPC::Run::start([ 'pgbench', '-n', '-c', '3', '-j', '1', '-T', '12',
	'-h', $coord->host, '-p', $coord->port, '-D', 'n=500000', '-D', "naccounts=$accounts",
	'-f', "$dir/transfer.sql", 'postgres' ], '>', \$kill_out, '2>', \$kill_err);
cmp_ok(wait_for_puts(30), '>=', 30, 'kill: the load is running');
my $victim = $workers[1];
my $pid = $victim->safe_psql('postgres', 'SELECT pg_postmaster_start_time() IS NOT NULL') && (split /\n/, slurp_file($victim->data_dir . '/postmaster.pid'))[0];
kill 'KILL', $pid;
# the postmaster is gone: its backends notice and exit, and its pid file stays behind
usleep(100_000) while kill 0, $pid;
usleep(1_500_000);
unlink($victim->data_dir . '/postmaster.pid');
$victim->_update_pid(0);
$victim->start;
my $after = -e $putlog ? scalar(split /\n/, slurp_file($putlog)) : 0;
cmp_ok(wait_for_puts($after + 30), '>=', $after + 30, 'kill: puts succeed again after the worker restarted');
append_to_file("$putlog.stop", '');
$loader->finish;
$transfers->finish;
my @done = split /\n/, slurp_file($putlog);
$coord->safe_psql('postgres', 'SELECT recover_prepared_transactions()');
is($coord->safe_psql('postgres', 'SELECT count(*) FROM unnest(ARRAY[' . join(',', @done) . ']) AS i'
	. q{ WHERE st_get('LOAD#' || i, 'X', 'Bank') IS NULL}), 0,
	'kill: every put that returned success (' . scalar(@done) . ') is there');
my ($applied_after) = $coord->safe_psql('postgres', q{SELECT count(*) FROM stdesign_data."Bank" WHERE pk LIKE 'TRANSFER#%'});
cmp_ok($applied_after, '>', $applied, "kill: transfers ran during the kill (" . ($applied_after - $applied) . ")");
is($coord->safe_psql('postgres', q{SELECT sum((item->'balance'->>'N')::numeric) FROM stdesign_data."Bank" WHERE pk LIKE 'ACCT#%'}),
	$accounts * $opening, 'kill: the total of the balances is still conserved');
is($coord->safe_psql('postgres', qq{
WITH t AS (SELECT (item->'src'->>'N')::int AS src, (item->'dst'->>'N')::int AS dst, (item->'amount'->>'N')::numeric AS amount
             FROM stdesign_data."Bank" WHERE pk LIKE 'TRANSFER#%'),
     flow AS (SELECT src AS acct, -amount AS delta FROM t UNION ALL SELECT dst, amount FROM t)
SELECT count(*) FROM stdesign_data."Bank" a
 WHERE a.pk LIKE 'ACCT#%'
   AND (a.item->'balance'->>'N')::numeric <> $opening + coalesce((SELECT sum(delta) FROM flow WHERE 'ACCT#' || flow.acct = a.pk), 0)}),
	0, 'kill: no half transfer after recovery (two-phase commit)');
is(join(' ', map { $_->safe_psql('postgres', q{SELECT count(*) FROM pg_prepared_xacts}) } @all),
	'0 0 0', 'kill: no prepared transaction left behind after recovery');

# ---------- 6. the HTTP endpoint, PartiQL and time to live ----------

# boto3 from Debian (python3-boto3), as test/http/test_http.py uses it
my $python = -x '/usr/bin/python3' ? '/usr/bin/python3' : 'python3';
SKIP:
{
	skip 'boto3 is not installed (python3-boto3)', 4
	  if system($python, '-c', 'import boto3') != 0;
	my %out;
	for my $side ([ 'single', $single_http ], [ 'coord', $coord_http, $coord->port ])
	{
		my ($name, @args) = @$side;
		my $node = $name eq 'single' ? $single : $coord;
		# the endpoint answers once its workers are up
		$node->poll_query_until('postgres', q{SELECT count(*) > 0 FROM stdesign.http_status() WHERE pid IS NOT NULL});
		my ($o, $e);
		IPC::Run::run([ $python, "$srcdir/test/citus/citus_http.py", @args ], '>', \$o, '2>', \$e);
		$out{$name} = $o;
		diag($e) if $e =~ /Traceback/;
	}
	my $lines = () = $out{single} =~ /\n/g;
	cmp_ok($lines, '>=', 100, "HTTP: boto3 ran every request on the single node ($lines answers)");
	is($coord->safe_psql('postgres', q{SELECT count(*) FROM pg_dist_shard WHERE logicalrelid = 'stdesign_data."Shop"'::regclass}),
		4, 'HTTP: the table CreateTable made on the coordinator is distributed');
	my $ok = is($out{coord}, $out{single}, 'HTTP and PartiQL on the coordinator: every answer is the single node\'s');
	if (!$ok)
	{
		my $d = PostgreSQL::Test::Utils::tempdir;
		append_to_file("$d/one", $out{single});
		append_to_file("$d/dist", $out{coord});
		diag(run_log_diff("$d/one", "$d/dist"));
	}
	like($out{coord}, qr/^transact write cancelled \{"error": "TransactionCanceledException".*\n(?s:.*)^after the transactions .*"C#20".*\n/m,
		'HTTP on the coordinator: a cancelled TransactWriteItems wrote nothing, a committed one everything');
}

# Time to live on a distributed table: st_expire, then the worker.
my $ttl_setup = q{SET stdesign.citus_shard_count = 4;
	SELECT st_create_table('Sessions') IS NOT NULL;
	RESET stdesign.citus_shard_count;
	SELECT st_update_ttl('Sessions', 'expires')->>'Enabled';
	SELECT count(st_put(jsonb_build_object('PK', 'S#' || i, 'SK', 'X', 'expires',
		extract(epoch FROM now())::bigint + CASE WHEN i % 4 = 0 THEN 3600 ELSE -60 END), 'Sessions'))
	  FROM generate_series(1, 40) AS i;};
# the worker's rounds wait meanwhile (a reload starts a round at once, then it sleeps)
$coord->safe_psql('postgres', q{ALTER SYSTEM SET stdesign.ttl_interval = 3600; SELECT pg_reload_conf()});
usleep(2_000_000);
$coord->safe_psql('postgres', $ttl_setup);
is($coord->safe_psql('postgres', q{SELECT count(*) FROM pg_dist_shard WHERE logicalrelid = 'stdesign_data."Sessions"'::regclass}),
	4, 'TTL: the table is distributed');
is($coord->safe_psql('postgres', q{SELECT st_expire('Sessions')}), 30, 'TTL: st_expire deletes the expired items of a distributed table');
is($coord->safe_psql('postgres', q{SELECT count(*) FROM stdesign_data."Sessions"}), 10, 'TTL: the others stay');
$coord->safe_psql('postgres', q{SELECT count(st_put(jsonb_build_object('PK', 'T#' || i, 'SK', 'X',
	'expires', extract(epoch FROM now())::bigint - 60), 'Sessions')) FROM generate_series(1, 12) AS i});
$coord->safe_psql('postgres', q{ALTER SYSTEM RESET stdesign.ttl_interval; SELECT pg_reload_conf()});
ok($coord->poll_query_until('postgres', q{SELECT count(*) = 10 FROM stdesign_data."Sessions"}),
	'TTL: the coordinator\'s time-to-live worker deletes expired items of a distributed table');

# Streams and Citus: a stream's records are numbered in the coordinator's
# transaction, so a table with a stream is not distributed, and a
# distributed table gets no stream; both refused with a clear error.
$coord->safe_psql('postgres', q{SELECT st_create_table('Streamed') IS NOT NULL;
	SELECT st_stream_enable('Streamed', 'NEW_AND_OLD_IMAGES') IS NOT NULL;
	SELECT st_put('{"PK": "a", "SK": "1"}', 'Streamed') IS NULL});
my ($sret, $sout, $serr) = $coord->psql('postgres', q{SELECT st_distribute_table('Streamed', 4)});
like($serr, qr/ValidationException: A table with an enabled stream cannot be distributed: TableName: Streamed/,
	'Streams: st_distribute_table of a table with a stream is refused');
($sret, $sout, $serr) = $coord->psql('postgres', q{SET stdesign.citus_shard_count = 4;
	SELECT st_create_table('StreamedDist') IS NOT NULL;
	RESET stdesign.citus_shard_count;
	SELECT st_stream_enable('StreamedDist', 'KEYS_ONLY')});
like($serr, qr/ValidationException: Streams are not supported on a distributed table: TableName: StreamedDist/,
	'Streams: enabling a stream on a distributed table is refused');
is($coord->safe_psql('postgres', q{SELECT count(*) FROM pg_dist_shard WHERE logicalrelid::text LIKE '%Streamed"'}), 0,
	'Streams: the streamed table stays local');
is($coord->safe_psql('postgres', q{SELECT st_stream_disable('Streamed')->'StreamSpecification';
	SELECT st_distribute_table('Streamed', 4)}), qq{{"StreamEnabled": false}\n4},
	'Streams: with its stream disabled, the table is distributed');

# ---------- 7. a multi-attribute GSI; backups of a distributed table ----------

# The same statements on the single node and on the coordinator (where the
# table is distributed): the same answers.
my $mgsi_setup = q{SET stdesign.citus_shard_count = 4;
SELECT st_api('CreateTable', '{"TableName": "Orders", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "SK", "AttributeType": "S"},
    {"AttributeName": "status", "AttributeType": "S"}, {"AttributeName": "region", "AttributeType": "S"},
    {"AttributeName": "day", "AttributeType": "N"}, {"AttributeName": "oid", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
  "GlobalSecondaryIndexes": [{"IndexName": "ByStatus", "Projection": {"ProjectionType": "ALL"},
    "KeySchema": [{"AttributeName": "status", "KeyType": "HASH"}, {"AttributeName": "region", "KeyType": "HASH"},
                  {"AttributeName": "day", "KeyType": "RANGE"}, {"AttributeName": "oid", "KeyType": "RANGE"}]}]}')
  #>> '{TableDescription,GlobalSecondaryIndexes,0,KeySchema}';
RESET stdesign.citus_shard_count;
SELECT count(st_api('PutItem', jsonb_build_object('TableName', 'Orders', 'Item', jsonb_build_object(
    'PK', jsonb_build_object('S', 'C#' || c), 'SK', jsonb_build_object('S', 'O#' || o),
    'status', jsonb_build_object('S', CASE WHEN o % 2 = 0 THEN 'shipped' ELSE 'placed' END),
    'region', jsonb_build_object('S', CASE WHEN c % 3 = 0 THEN 'eu' ELSE 'us' END),
    'day', jsonb_build_object('N', (20260700 + o % 4)::text), 'oid', jsonb_build_object('S', lpad((c * 10 + o)::text, 4, '0'))))))
  FROM generate_series(1, 12) AS c, generate_series(1, 6) AS o;
SELECT st_api('PutItem', '{"TableName": "Orders", "Item": {"PK": {"S": "C#1"}, "SK": {"S": "O#draft"}, "status": {"S": "shipped"}, "region": {"S": "us"}}}');};
my $mgsi_q = q{
\set VERBOSITY terse
SELECT st_api('PutItem', '{"TableName": "Orders", "Item": {"PK": {"S": "C#1"}, "SK": {"S": "O#bad"}, "status": {"S": "shipped"}, "region": {"S": "us"}, "day": {"S": "soon"}}}');
SELECT st_get('C#1', 'O#bad', 'Orders') IS NULL AS bad_not_written;
SELECT jsonb_path_query_array(st_api('Query', '{"TableName": "Orders", "IndexName": "ByStatus",
  "KeyConditionExpression": "#s = :s AND #r = :r AND #d = :d", "ExpressionAttributeNames": {"#s": "status", "#r": "region", "#d": "day"},
  "ExpressionAttributeValues": {":s": {"S": "shipped"}, ":r": {"S": "us"}, ":d": {"N": "20260702"}}}'), '$.Items[*].oid.S');
SELECT jsonb_path_query_array(st_api('Query', '{"TableName": "Orders", "IndexName": "ByStatus", "ScanIndexForward": false,
  "KeyConditionExpression": "#s = :s AND #r = :r AND #d BETWEEN :a AND :b", "ExpressionAttributeNames": {"#s": "status", "#r": "region", "#d": "day"},
  "ExpressionAttributeValues": {":s": {"S": "placed"}, ":r": {"S": "eu"}, ":a": {"N": "20260701"}, ":b": {"N": "20260703"}}}'), '$.Items[*].oid.S');
SELECT st_api('Query', '{"TableName": "Orders", "IndexName": "ByStatus", "Limit": 3,
  "KeyConditionExpression": "#s = :s AND #r = :r AND #d = :d AND oid > :o", "ExpressionAttributeNames": {"#s": "status", "#r": "region", "#d": "day"},
  "ExpressionAttributeValues": {":s": {"S": "shipped"}, ":r": {"S": "us"}, ":d": {"N": "20260702"}, ":o": {"S": "0030"}}}');
SELECT st_api('Query', '{"TableName": "Orders", "IndexName": "ByStatus", "Limit": 3,
  "KeyConditionExpression": "#s = :s AND #r = :r AND #d = :d AND oid > :o", "ExpressionAttributeNames": {"#s": "status", "#r": "region", "#d": "day"},
  "ExpressionAttributeValues": {":s": {"S": "shipped"}, ":r": {"S": "us"}, ":d": {"N": "20260702"}, ":o": {"S": "0030"}},
  "ExclusiveStartKey": {"PK": {"S": "C#5"}, "SK": {"S": "O#2"}, "status": {"S": "shipped"}, "region": {"S": "us"}, "day": {"N": "20260702"}, "oid": {"S": "0052"}}}');
SELECT st_api('Query', '{"TableName": "Orders", "IndexName": "ByStatus",
  "KeyConditionExpression": "#s = :s AND oid = :o", "ExpressionAttributeNames": {"#s": "status"},
  "ExpressionAttributeValues": {":s": {"S": "shipped"}, ":o": {"S": "0012"}}}');
SELECT st_api('Scan', '{"TableName": "Orders", "IndexName": "ByStatus", "Select": "COUNT"}');
SELECT st_api('Scan', '{"TableName": "Orders", "Select": "COUNT"}');
};
$coord->safe_psql('postgres', $mgsi_setup);
$single->safe_psql('postgres', $mgsi_setup);
is($coord->safe_psql('postgres', q{SELECT count(*) FROM pg_dist_shard WHERE logicalrelid = 'stdesign_data."Orders"'::regclass}),
	4, 'multi-attribute GSI: the table is distributed');
my ($m_ret, $m_one, $m_err1) = $single->psql('postgres', $mgsi_q, on_error_stop => 0);
my ($m_ret2, $m_dist, $m_err2) = $coord->psql('postgres', $mgsi_q, on_error_stop => 0);
like($m_err1, qr/ValidationException: One or more parameter values were invalid: Type mismatch for Index Key day Expected: N Actual: S IndexName: ByStatus/,
	'multi-attribute GSI: a key attribute of the wrong type is refused');
is($m_err2, $m_err1, 'multi-attribute GSI: the same error on the coordinator');
like($m_one, qr/^t\n\["0012", "0016", "0022", "0026", "0042", "0046", "0052", "0056", "0072", "0076", "0082", "0086", "0102", "0106", "0112", "0116"\]\n\["0123", "0093", "0063", "0033", "0125", "0121", "0095", "0091", "0065", "0061", "0035", "0031"\]\n/,
	'multi-attribute GSI: Query by both partition attributes and a sort prefix, in both orders (single node)');
like($m_one, qr/"oid": \{"S": "0052"\}, "region": \{"S": "us"\}, "status": \{"S": "shipped"\}\}\], "ScannedCount": 3, "LastEvaluatedKey": \{"PK": \{"S": "C#5"\}, "SK": \{"S": "O#2"\}, "day": \{"N": "20260702"\}, "oid": \{"S": "0052"\}, "region": \{"S": "us"\}, "status": \{"S": "shipped"\}\}\}\n\{"Count": 3, "Items": \[\{"PK": \{"S": "C#5"\}, "SK": \{"S": "O#6"\}/,
	'multi-attribute GSI: pages of a sort-attribute range, LastEvaluatedKey holding every key attribute');
like($m_err1, qr/Query condition missed key schema element: region/, 'multi-attribute GSI: a Query without a partition attribute is refused');
like($m_one, qr/\{"Count": 72, "ScannedCount": 72\}\n\{"Count": 73, "ScannedCount": 73\}$/,
	'multi-attribute GSI: Scan of the index leaves the sparse item out');
is($m_dist, $m_one, 'multi-attribute GSI: every answer on the coordinator is the single node\'s');

# Backups of the distributed Bank table while transfers between its
# accounts (on both workers) run: each backup, taken at any moment, holds
# one state of the cluster.
my @backups;
my ($bk_out, $bk_err);
my $load = IPC::Run::start([ 'pgbench', '-n', '-c', '4', '-j', '2', '-T', '8',
	'-h', $coord->host, '-p', $coord->port, '-D', 'n=5000000', '-D', "naccounts=$accounts",
	'-f', "$dir/transfer.sql", 'postgres' ], '>', \$bk_out, '2>', \$bk_err);
usleep(1_500_000);
for my $i (1 .. 5)
{
	push @backups, $coord->safe_psql('postgres', qq{SELECT st_api('CreateBackup', '{"TableName": "Bank", "BackupName": "bank-$i"}')
		->'BackupDetails'->>'BackupArn'});
	usleep(700_000);
}
$load->finish;
like($bk_out, qr/number of failed transactions: 0 /, 'backups: the transfers ran beside them') or diag("$bk_out\n$bk_err");
my $backup_state = q{
WITH b AS (SELECT item FROM stdesign.backup_items i JOIN stdesign.backups k USING (backup_id) WHERE k.backup_arn = '%s'),
     t AS (SELECT (item->'src'->>'N')::int AS src, (item->'dst'->>'N')::int AS dst, (item->'amount'->>'N')::numeric AS amount
             FROM b WHERE item->'PK'->>'S' LIKE 'TRANSFER#%%'),
     flow AS (SELECT src AS acct, -amount AS delta FROM t UNION ALL SELECT dst, amount FROM t)
SELECT (SELECT count(*) FROM t) || ' ' || (SELECT sum((item->'balance'->>'N')::numeric) FROM b WHERE item->'PK'->>'S' LIKE 'ACCT#%%') || ' ' ||
       (SELECT count(*) FROM b a WHERE a.item->'PK'->>'S' LIKE 'ACCT#%%'
           AND (a.item->'balance'->>'N')::numeric <> %d + coalesce((SELECT sum(delta) FROM flow WHERE 'ACCT#' || flow.acct = a.item->'PK'->>'S'), 0))};
my @transfers;
for my $arn (@backups)
{
	my ($n, $total, $half) = split / /, $coord->safe_psql('postgres', sprintf($backup_state, $arn, $opening));
	push @transfers, $n;
	is("$total $half", ($accounts * $opening) . ' 0',
		"backups: $arn holds one state ($n transfers): the total conserved, every balance its transfers'");
}
cmp_ok($transfers[-1], '>', $transfers[0], "backups: taken while the transfers ran (@transfers)");
is($coord->safe_psql('postgres', q{SELECT string_agg(b->>'BackupName', ',' ORDER BY b->>'BackupName')
	FROM jsonb_array_elements(st_api('ListBackups', '{"TableName": "Bank"}')->'BackupSummaries') AS b}),
	'bank-1,bank-2,bank-3,bank-4,bank-5', 'backups: ListBackups lists them');

# Restored with stdesign.citus_shard_count: a distributed table (as
# CreateTable makes one), holding the backup's items; without it, a table
# on the coordinator (docs/citus.md).
my $restore = q{SELECT st_api('RestoreTableFromBackup', jsonb_build_object('TargetTableName', '%s', 'BackupArn', '%s'))
	#>> '{TableDescription,RestoreSummary,SourceBackupArn}'};
is($coord->safe_psql('postgres', 'SET stdesign.citus_shard_count = 4;' . sprintf($restore, 'BankRestored', $backups[2])),
	$backups[2], 'restore: RestoreTableFromBackup of a distributed table');
is($coord->safe_psql('postgres', q{SELECT count(*) FROM pg_dist_shard WHERE logicalrelid = 'stdesign_data."BankRestored"'::regclass;
	SELECT pg_relation_size('stdesign_data."BankRestored"')}), "4\n0",
	'restore: with stdesign.citus_shard_count, the restored table is distributed, its items in the shards');
my $restored_state = q{SELECT count(*) FILTER (WHERE pk LIKE 'TRANSFER#%%') || ' ' || sum((item->'balance'->>'N')::numeric) FILTER (WHERE pk LIKE 'ACCT#%%')
	FROM stdesign_data."%s"};
is($coord->safe_psql('postgres', sprintf($restored_state, 'BankRestored')), "$transfers[2] " . ($accounts * $opening),
	'restore: the restored table holds the backup\'s state');
is($coord->safe_psql('postgres', q{SELECT (st_get('ACCT#7', 'ACCT', 'BankRestored')->>'balance')::numeric = (SELECT (i.item->'balance'->>'N')::numeric
	FROM stdesign.backup_items i JOIN stdesign.backups k USING (backup_id) WHERE k.backup_name = 'bank-3' AND i.item->'PK'->>'S' = 'ACCT#7');
	SELECT (st_api('Query', '{"TableName": "BankRestored", "KeyConditionExpression": "PK = :p", "ExpressionAttributeValues": {":p": {"S": "ACCT#7"}}}')->'Count')::int}),
	"t\n1", 'restore: GetItem and Query of the restored distributed table');
is($coord->safe_psql('postgres', sprintf($restore, 'BankLocal', $backups[4]) . q{;
	SELECT count(*) FROM pg_dist_partition WHERE logicalrelid = 'stdesign_data."BankLocal"'::regclass}), "$backups[4]\n0",
	'restore: without stdesign.citus_shard_count, the restored table stays on the coordinator');
is($coord->safe_psql('postgres', sprintf($restored_state, 'BankLocal')), "$transfers[4] " . ($accounts * $opening),
	'restore: ... holding the backup\'s state');
is($coord->safe_psql('postgres', join(';', map { qq{SELECT st_api('DeleteBackup', '{"BackupArn": "$_"}')#>>'{BackupDescription,BackupDetails,BackupStatus}'} } @backups)
	. q{; SELECT jsonb_array_length(st_api('ListBackups', '{"TableName": "Bank"}')->'BackupSummaries')}),
	"DELETED\nDELETED\nDELETED\nDELETED\nDELETED\n0", 'backups: DeleteBackup of each; ListBackups then lists none');
my (undef, undef, $bnf) = $coord->psql('postgres', qq{SELECT st_api('DescribeBackup', '{"BackupArn": "$backups[0]"}')});
like($bnf, qr/BackupNotFoundException: Backup not found/, 'backups: DescribeBackup of a deleted backup: BackupNotFoundException');
$coord->safe_psql('postgres', q{SELECT st_drop_table('BankRestored')});
$coord->safe_psql('postgres', q{SELECT st_drop_table('BankLocal')});

$_->stop for ($single, @all);
done_testing();
