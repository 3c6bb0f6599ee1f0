# Operations racing DDL on the same table, over and over.
#
# One session creates a table, adds a GSI to it now and then and deletes
# it again; another adds and drops GSIs, deletes and describes it; a third
# runs REPEATABLE READ transactions of friendly calls on it; two more run
# every item operation of st_api on it (PutItem, GetItem, UpdateItem,
# DeleteItem, Query, Scan, BatchWriteItem, BatchGetItem, TransactWriteItems,
# TransactGetItems, DescribeTable) and friendly puts and queries.  Every
# statement either succeeds or fails with one of DynamoDB's errors
# (ResourceNotFoundException while the table is missing, ResourceInUse-
# Exception for a create of a table that exists, TransactionCanceled-
# Exception; ValidationException for a query of a GSI that is not there
# at the moment): never an internal error ("relation ... does not exist", a
# layout that lost an index), never a deadlock.  Then the catalog and the
# relations agree.  The isolation spec ddl_race shows the interleavings one
# by one; this test finds the ones nobody thought of.
#
#   DDL_RACE_ROUNDS    create/delete cycles of the first session (default 300)

use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $rounds = $ENV{DDL_RACE_ROUNDS} || 300;

my $node = PostgreSQL::Test::Cluster->new('ddl_race');
$node->init;
$node->append_conf('postgresql.conf', "log_statement = none\nlog_min_messages = fatal\n");
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION stdesign');

my $T = 'Race';
# Requests as JSON text, the table named TBL.
my $j = sub { my $s = shift; $s =~ s/TBL/$T/g; $s =~ s/\n\s*/ /g; return $s };
my $create = $j->(q|{"TableName": "TBL", "BillingMode": "PAY_PER_REQUEST",
 "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "SK", "AttributeType": "S"}],
 "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}]}|);
my $gsi = sub {
	my $req = $j->(q|{"TableName": "TBL", "AttributeDefinitions": [{"AttributeName": "G", "AttributeType": "S"}],
	  "GlobalSecondaryIndexUpdates": [{"Create": {"IndexName": "IX", "KeySchema": [{"AttributeName": "G", "KeyType": "HASH"}],
	  "Projection": {"ProjectionType": "ALL"}}}]}|);
	$req =~ s/IX/$_[0]/;
	return $req;
};
my $drop = $j->(q|{"TableName": "TBL"}|);
my $api = sub { my ($op, $req) = @_; return "SELECT st_api('$op', '$req') IS NOT NULL;\n" };

# The scripts, one statement per line, each its own transaction but rr's.
my %scripts;
for my $i (1 .. $rounds)
{
	$scripts{ddl} .= $api->('CreateTable', $create);
	$scripts{ddl} .= $api->('UpdateTable', $gsi->('GIX1')) if $i % 3 == 0;
	$scripts{ddl} .= $api->('DeleteTable', $drop);

	$scripts{ddl2} .= $api->('UpdateTable', $gsi->('GIX2'));
	$scripts{ddl2} .= $api->('DeleteTable', $drop);
	$scripts{ddl2} .= "SELECT st_describe_table('$T') IS NOT NULL;\n";
	$scripts{ddl2} .= "SELECT st_drop_gsi('$T', 'GIX1');\n";

	$scripts{rr} .= "BEGIN ISOLATION LEVEL REPEATABLE READ;\n"
	  . qq|SELECT st_put('{"PK": "r", "SK": "r", "G": "g"}', '$T') IS NOT NULL;\n|
	  . qq|SELECT st_update('r', 'r', 'SET v = :v', '$T', "values" => '{":v": 1}') IS NOT NULL;\n|
	  . "SELECT st_get('r', 'r', '$T') IS NOT NULL;\n"
	  . "SELECT count(*) FROM st_scan('$T');\n"
	  . "SELECT count(*) FROM st_query('g', \"table\" => '$T', index => 'GIX2');\n"
	  . "SELECT st_delete('r', 'r', '$T') IS NULL;\n"
	  . "COMMIT;\n";
}
my @ops = (
	[ 'PutItem', q|{"TableName": "TBL", "Item": {"PK": {"S": "a"}, "SK": {"S": "a"}, "G": {"S": "g"}}}| ],
	[ 'GetItem', q|{"TableName": "TBL", "Key": {"PK": {"S": "a"}, "SK": {"S": "a"}}}| ],
	[ 'UpdateItem', q|{"TableName": "TBL", "Key": {"PK": {"S": "b"}, "SK": {"S": "b"}},
	    "UpdateExpression": "SET v = :v", "ExpressionAttributeValues": {":v": {"N": "1"}}}| ],
	[ 'Query', q|{"TableName": "TBL", "KeyConditionExpression": "PK = :p", "ExpressionAttributeValues": {":p": {"S": "a"}}}| ],
	[ 'Scan', q|{"TableName": "TBL"}| ],
	[ 'DeleteItem', q|{"TableName": "TBL", "Key": {"PK": {"S": "b"}, "SK": {"S": "b"}}}| ],
	[ 'TransactWriteItems', q|{"TransactItems": [{"Put": {"TableName": "TBL", "Item": {"PK": {"S": "c"}, "SK": {"S": "c"}}}},
	    {"Update": {"TableName": "TBL", "Key": {"PK": {"S": "d"}, "SK": {"S": "d"}},
	     "UpdateExpression": "SET v = :v", "ExpressionAttributeValues": {":v": {"N": "1"}}}}]}| ],
	[ 'BatchWriteItem', q|{"RequestItems": {"TBL": [{"PutRequest": {"Item": {"PK": {"S": "e"}, "SK": {"S": "e"}}}},
	    {"DeleteRequest": {"Key": {"PK": {"S": "a"}, "SK": {"S": "a"}}}}]}}| ],
	[ 'BatchGetItem', q|{"RequestItems": {"TBL": {"Keys": [{"PK": {"S": "a"}, "SK": {"S": "a"}}, {"PK": {"S": "e"}, "SK": {"S": "e"}}]}}}| ],
	[ 'TransactGetItems', q|{"TransactItems": [{"Get": {"TableName": "TBL", "Key": {"PK": {"S": "a"}, "SK": {"S": "a"}}}}]}| ],
	[ 'DescribeTable', q|{"TableName": "TBL"}| ]);
for my $c (0, 1)
{
	for my $i (0 .. 3 * $rounds)
	{
		my $op = $ops[ ($i + $c) % scalar(@ops) ];
		$scripts{"ops$c"} .= $api->($op->[0], $j->($op->[1]));
		$scripts{"ops$c"} .= qq|SELECT st_put('{"PK": "f", "SK": "f"}', '$T') IS NOT NULL;\n| if $i % 4 == 0;
	}
}

# All five at once; psql goes on after an error and reports each on stderr.
my $dir = $node->basedir;
my (%err, @runs);
for my $name (sort keys %scripts)
{
	append_to_file("$dir/$name.sql", $scripts{$name});
	$err{$name} = '';
	push @runs, IPC::Run::start(
		[ 'psql', '-X', '-q', '-o', '/dev/null', '-h', $node->host, '-p', $node->port,
		  '-d', 'postgres', '-f', "$dir/$name.sql" ],
		'>', \my $out, '2>', \$err{$name});
}
$_->finish for @runs;

my (%kinds, @unexpected);
my $statements = 0;
$statements += () = $scripts{$_} =~ /\n/g for keys %scripts;
for my $name (sort keys %err)
{
	for my $line (split /\n/, $err{$name})
	{
		next unless $line =~ /ERROR:\s+(.*)$/;
		my $msg = $1;
		my ($kind) = $msg =~ /^(\w+Exception|InternalServerError):/;
		$kind //= $msg =~ /^current transaction is aborted/ ? 'aborted transaction' : 'other';
		$kinds{$kind}++;
		# a query of the GSI the other session just dropped, or has not
		# added yet, is told so
		next if $msg =~ /^ValidationException: The table does not have the specified index: GIX2$/;
		push @unexpected, "$name: $msg"
		  unless $kind =~ /^(ResourceNotFoundException|ResourceInUseException|TransactionCanceledException|aborted transaction)$/;
	}
}
note(join(', ', map { "$_: $kinds{$_}" } sort keys %kinds) . " of $statements statements");

cmp_ok($kinds{ResourceNotFoundException} // 0, '>', 0,
	'the races happened: operations found the table missing');
is($kinds{InternalServerError} // 0, 0, 'no InternalServerError');
is(scalar(grep { /deadlock detected/ } @unexpected), 0, 'no deadlock');
is(scalar(@unexpected), 0, 'no error but ResourceNotFound, ResourceInUse and TransactionCanceled')
  or diag(join("\n", @unexpected[ 0 .. ($#unexpected < 9 ? $#unexpected : 9) ]));

# The catalog and the relations agree: every table has its relation and
# every index its btree, and no relation is left without its table.
is($node->safe_psql('postgres', q{
SELECT count(*) FROM stdesign.tables t
 WHERE to_regclass(format('stdesign_data.%I', t.relation_name)) IS NULL}), '0',
	'every table in the catalog has its relation');
is($node->safe_psql('postgres', q{
SELECT count(*) FROM stdesign.indexes i
 WHERE to_regclass(format('stdesign_data.%I', i.pg_index)) IS NULL}), '0',
	'every index in the catalog has its btree');
is($node->safe_psql('postgres', q{
SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE n.nspname = 'stdesign_data' AND c.relkind = 'r'
   AND NOT EXISTS (SELECT FROM stdesign.tables t WHERE t.relation_name = c.relname)}), '0',
	'no relation is left without its table');
# The table works afterwards, whichever state the races left it in.
$node->safe_psql('postgres', qq{
DO \$\$ BEGIN
  IF NOT EXISTS (SELECT FROM stdesign.tables WHERE table_name = '$T') THEN
    PERFORM st_api('CreateTable', '$create');
  END IF;
END \$\$;});
is($node->safe_psql('postgres', qq{
SELECT st_put('{"PK": "z", "SK": "z"}', '$T') IS NULL AND st_get('z', 'z', '$T') ->> 'PK' = 'z'}),
	't', 'the table is written and read afterwards');

$node->stop;
done_testing();
