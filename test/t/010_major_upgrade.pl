# A stdesign database moved from an older PostgreSQL major to the running one.
#
# A cluster of the older major (its bindir in STDESIGN_OLD_BINDIR, stdesign
# installed there) gets, through stdesign's own API, three tables: one with
# two GSIs (S and N sort keys, ALL and INCLUDE projections), an LSI, tags
# and a model; one owned by an ordinary role, with binary partition keys,
# number sort keys and a KEYS_ONLY GSI; one hash-only with time to live on.
# Their items hold every DynamoDB type (S, N with 38 significant digits and
# extreme exponents, B, BOOL, NULL, M, L, SS, NS, BS, nested), a price row of
# our own, and access keys of two roles (one disabled).  Everything readable
# is recorded: items, the answers of queries on the table, every GSI and the
# LSI, PartiQL, access patterns, DescribeTable, tags, time to live, the
# model and its checks, the catalog's rows, the relations' definitions
# (access method, indexes, triggers, owners, grants) and the keys.
#
# Then the database moves to a cluster of the running major, twice:
#
#   1. the older major's pg_dump -Fc, its roles (pg_dumpall --roles-only),
#      the running major's pg_restore;
#   2. the running major's pg_upgrade --copy, from a copy of the old cluster.
#
# After each move everything recorded must read back the same (creation
# times and table ids included; only role OIDs may change, which
# pg_dump does not keep: the keys are bound again as docs/upgrading.md says), amcheck
# must find every btree of stdesign_data and stdesign consistent with its
# rows, ALTER EXTENSION stdesign UPDATE must change nothing, writes must go
# on working (a put a GSI must show, conditional updates, a transaction, an
# entity through the model, a new GSI filled, expiry), and the moved access
# key must sign an HTTP request that the endpoint accepts.
#
# pg_upgrade may be stopped by Postgres itself rather than by stdesign:
# Debian's PostgreSQL 15.20 gives every column it creates a column option,
# pg_attver, that its own pg_dump hides and PostgreSQL 18's pg_dump prints
# and then refuses (ERROR: unrecognized parameter "pg_attver"), for any
# table, stdesign's or not.  When pg_upgrade fails, the test passes only if
# that refusal is what stopped it (and says so); any other failure fails.
#
# Runs under the newer major's prove:
#   STDESIGN_OLD_BINDIR=<bindir of the older PostgreSQL> make prove \
#     PG_CONFIG=<newer pg_config> PROVE_TESTS=test/t/010_major_upgrade.pl
# and skips without STDESIGN_OLD_BINDIR, or when that PostgreSQL is not older.

use strict;
use warnings;
use File::Basename qw(dirname);
use File::Find;
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use StdesignSigV4;

$ENV{PGOPTIONS} = '-c client_min_messages=warning';

# ---------- the two installations ----------

my $old_bindir = $ENV{STDESIGN_OLD_BINDIR};
plan skip_all => 'STDESIGN_OLD_BINDIR is not set (the bindir of an older PostgreSQL with stdesign installed)'
  unless defined $old_bindir && $old_bindir ne '';

# major <version line>: 15 of "postgres (PostgreSQL) 15.20 (Debian ...)"
sub major
{
	my ($line) = @_;
	return $line =~ /\(PostgreSQL\)\s+(\d+)/ ? $1 : undef;
}
my ($new_version) = run_cmd(['postgres', '--version']);
my $new_major = major($new_version);
die "cannot tell the running major from \"$new_version\"" unless $new_major;
my ($new_bindir) = run_cmd(['pg_config', '--bindir']);
chomp $new_bindir;
die "$old_bindir/postgres: not found (STDESIGN_OLD_BINDIR names no PostgreSQL bindir)"
  unless -x "$old_bindir/postgres";
my ($old_version) = run_cmd(["$old_bindir/postgres", '--version']);
my $old_major = major($old_version);
die "cannot tell the major of $old_bindir from \"$old_version\"" unless $old_major;
plan skip_all => "STDESIGN_OLD_BINDIR is PostgreSQL $old_major, not older than the running $new_major"
  unless $old_major < $new_major;
chomp($old_version, $new_version, $new_bindir);
note "moving from $old_version to $new_version";

# run_cmd <argv>: its stdout, stderr and wait status
sub run_cmd
{
	my ($cmd) = @_;
	my ($out, $err) = ('', '');
	IPC::Run::run($cmd, '>', \$out, '2>', \$err);
	return ($out, $err, $?);
}

# PostgreSQL::Test::Cluster wants the parent of the installation's bin and
# lib directories, with pg_config in bin (as Debian's /usr/lib/postgresql/N
# is).  For any other layout, a directory of symbolic links to the bindir
# stands in, with a pg_config that says only the version.
my $old_install = dirname($old_bindir);
unless (-x "$old_install/bin/pg_config" && -d "$old_install/lib")
{
	$old_install = "${PostgreSQL::Test::Utils::tmp_check}/old_install";
	mkdir $old_install;
	mkdir "$old_install/bin";
	opendir(my $dh, $old_bindir) or die "$old_bindir: $!";
	for my $f (grep { !/^\./ } readdir $dh)
	{
		symlink("$old_bindir/$f", "$old_install/bin/$f") or die "symlink $f: $!";
	}
	closedir $dh;
	symlink(dirname($old_bindir) . '/lib', "$old_install/lib");
	unless (-e "$old_install/bin/pg_config")
	{
		open my $fh, '>', "$old_install/bin/pg_config" or die $!;
		my $v = $old_version =~ /\(PostgreSQL\)\s+(\S+)/ ? $1 : $old_major;
		print $fh "#!/bin/sh\necho 'PostgreSQL $v'\n";
		close $fh;
		chmod 0755, "$old_install/bin/pg_config";
	}
}

my $old = PostgreSQL::Test::Cluster->new('old', install_path => $old_install);
# initdb of the older major (no template of the running one's)
$old->init(extra => []);
$old->append_conf('postgresql.conf', "log_statement = none\n");
$old->start;

ok($old->safe_psql('postgres', q{SELECT count(*) FROM pg_available_extensions WHERE name = 'stdesign'}) eq '1',
	"stdesign is installed for PostgreSQL $old_major (STDESIGN_OLD_BINDIR)")
  or do { done_testing(); exit 1; };

# ---------- the database, through stdesign's API ----------

$old->safe_psql('postgres', q{
CREATE ROLE shop_owner LOGIN;
CREATE ROLE shop_app LOGIN;
CREATE DATABASE shop;
});
$old->safe_psql('shop', q{
CREATE EXTENSION stdesign;
GRANT USAGE, CREATE ON SCHEMA stdesign_data TO shop_owner;
GRANT USAGE ON SCHEMA stdesign_data, stdesign TO shop_app, shop_owner;
GRANT SELECT ON stdesign.tables, stdesign.indexes TO shop_app, shop_owner;

SELECT st_api('CreateTable', '{
  "TableName": "Shop",
  "AttributeDefinitions": [
    {"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "SK", "AttributeType": "S"},
    {"AttributeName": "GSI1PK", "AttributeType": "S"}, {"AttributeName": "GSI1SK", "AttributeType": "S"},
    {"AttributeName": "status", "AttributeType": "S"}, {"AttributeName": "total", "AttributeType": "N"},
    {"AttributeName": "placed", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
  "GlobalSecondaryIndexes": [
    {"IndexName": "GSI1",
     "KeySchema": [{"AttributeName": "GSI1PK", "KeyType": "HASH"}, {"AttributeName": "GSI1SK", "KeyType": "RANGE"}],
     "Projection": {"ProjectionType": "ALL"}},
    {"IndexName": "ByStatus",
     "KeySchema": [{"AttributeName": "status", "KeyType": "HASH"}, {"AttributeName": "total", "KeyType": "RANGE"}],
     "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["placed"]}}],
  "LocalSecondaryIndexes": [
    {"IndexName": "ByPlaced",
     "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "placed", "KeyType": "RANGE"}],
     "Projection": {"ProjectionType": "KEYS_ONLY"}}],
  "BillingMode": "PAY_PER_REQUEST",
  "Tags": [{"Key": "team", "Value": "orders"}, {"Key": "env", "Value": "test"}]}') IS NOT NULL;
SELECT st_tag_table('Shop', '{"cost-center": "42", "owner": "ops@example.com"}');
SELECT st_untag_table('Shop', ARRAY['env']);

-- 300 orders of 30 customers; totals with 38 significant digits on some
SELECT count(st_put(jsonb_build_object(
         'PK', 'CUST#' || (i % 30), 'SK', 'ORDER#' || lpad(i::text, 4, '0'),
         'GSI1PK', 'ORDER#' || lpad(i::text, 4, '0'), 'GSI1SK', 'CUST#' || (i % 30),
         'entity_type', 'Order', 'customer_id', (i % 30)::text, 'order_id', lpad(i::text, 4, '0'), 'status', s,
         'placed', '2026-' || lpad((1 + i % 12)::text, 2, '0') || '-' || lpad((1 + i % 28)::text, 2, '0'),
         'total', CASE WHEN i % 50 = 0 THEN ('1234567890123456789012345678.' || lpad(i::text, 10, '0'))::numeric
                       ELSE round(i * 1.25, 2) END,
         'lines', jsonb_build_array(jsonb_build_object('sku', 'SKU-' || (i % 7), 'qty', i % 5 + 1)),
         'gift', i % 9 = 0, 'note', CASE WHEN i % 11 = 0 THEN NULL ELSE 'order ' || i END), 'Shop'))
  FROM generate_series(1, 300) AS i, LATERAL (SELECT (ARRAY['PLACED', 'SHIPPED', 'RETURNED'])[1 + (i / 7) % 3] AS s) AS st;

-- every type, typed, nested
SELECT st_put('{"PK": {"S": "TYPES"}, "SK": {"S": "ALL"},
  "s": {"S": "h\u00e9llo \u2713 \ud83d\ude00 tab\tquote\" back\\\\"}, "empty": {"S": ""},
  "n": {"N": "12345678901234567890123456789012345678"}, "nneg": {"N": "-0.00000000000000000000000000000000000001"},
  "nbig": {"N": "9.9999999999999999999999999999999999999E+125"}, "nsmall": {"N": "1E-130"},
  "nint": {"N": "-42"}, "nfrac": {"N": "3.14159265358979323846264338327950288"},
  "b": {"B": "AAEC/f7/"}, "t": {"BOOL": true}, "f": {"BOOL": false}, "z": {"NULL": true},
  "ss": {"SS": ["pear", "apple", "\u00e9t\u00e9"]}, "ns": {"NS": ["3", "-1.5", "99999999999999999999999999999999999999"]},
  "bs": {"BS": ["AA==", "AQI=", "/w=="]},
  "l": {"L": [{"S": "a"}, {"N": "2"}, {"B": "AA=="}, {"BOOL": false}, {"NULL": true}, {"L": []}, {"M": {}},
              {"SS": ["x"]}, {"NS": ["1"]}, {"BS": ["AA=="]}]},
  "m": {"M": {"a": {"N": "1"}, "deep": {"M": {"l": {"L": [{"M": {"x": {"L": [{"N": "0.5"}, {"S": "y"}]}}}]}},
              "empty map": {"M": {}}}}}}', 'Shop', typed => true) IS NULL;
SELECT st_put('{"PK": {"S": "TYPES"}, "SK": {"S": "KEYS ONLY"}}', 'Shop', typed => true) IS NULL;

-- a model, and entities written through it
SELECT st_set_model('Shop', '{
  "description": "customers and their orders",
  "type_attribute": "entity_type",
  "entities": {
    "Customer": {"keys": {"PK": "CUST#{customer_id}", "SK": "PROFILE#{customer_id}"},
                 "attributes": {"customer_id": "S", "name": "S"}, "required": ["customer_id", "name"]},
    "Order": {"keys": {"PK": "CUST#{customer_id}", "SK": "ORDER#{order_id}",
                       "GSI1PK": "ORDER#{order_id}", "GSI1SK": "CUST#{customer_id}"},
              "attributes": {"customer_id": "S", "order_id": "S", "status": "S", "total": "N", "placed": "S"}}},
  "patterns": {
    "get_customer": {"op": "GetItem", "pk": "CUST#{customer_id}", "sk": "PROFILE#{customer_id}", "rate": 100},
    "orders_for_customer": {"op": "Query", "pk": "CUST#{customer_id}", "sk": {"begins_with": "ORDER#"}, "rate": 50},
    "order_by_id": {"op": "Query", "index": "GSI1", "pk": "ORDER#{order_id}", "rate": 20,
                    "example": {"order_id": "0042"}},
    "shipped_over": {"op": "Query", "index": "ByStatus", "pk": "{status}", "sk": {">": "{total}"}, "rate": 2,
                     "example": {"status": "SHIPPED", "total": 300}},
    "new_order": {"op": "PutItem", "entity": "Order", "rate": 3}}}') IS NOT NULL;
SELECT count(st_put_entity('Customer', jsonb_build_object('customer_id', i::text, 'name', 'Customer ' || i), 'Shop'))
  FROM generate_series(0, 29) AS i;
INSERT INTO stdesign.prices VALUES ('test-region', 0.25, 1.25, 0.0002, 0.001, 0.5, 'made up for a test', '2026-01-01');

-- time to live on a hash-only table: 20 items to keep, 3 expired
SELECT st_create_table('Sessions', pk => 'sid', sk => NULL) IS NOT NULL;
SELECT st_update_ttl('Sessions', 'expires');
SELECT count(st_put(jsonb_build_object('sid', 'S' || i, 'user', 'CUST#' || i, 'expires', 4102444800 + i), 'Sessions'))
  FROM generate_series(1, 20) AS i;
SELECT count(st_put(jsonb_build_object('sid', 'OLD' || i, 'expires', extract(epoch FROM now())::bigint - 3600 * i), 'Sessions'))
  FROM generate_series(1, 3) AS i;
});

# A table of an ordinary role: binary partition keys, number sort keys.
$old->safe_psql('shop', q{
SET ROLE shop_owner;
SELECT st_create_table('Devices', pk => 'id', sk => 'ver', pk_type => 'B', sk_type => 'N') IS NOT NULL;
SELECT st_create_gsi('Devices', 'ByModel', 'model', 'ver', sk_type => 'N', projection => 'KEYS_ONLY') IS NOT NULL;
SELECT count(st_put(jsonb_build_object(
         'id', jsonb_build_object('B', encode(decode(lpad(to_hex(i % 12), 2, '0') || 'ff00', 'hex'), 'base64')),
         'ver', jsonb_build_object('N', CASE WHEN i % 4 = 0 THEN '-' ELSE '' END || i || '00000000000000000000000000000.5'),
         'model', jsonb_build_object('S', 'M' || (i % 5)),
         'fw', jsonb_build_object('BS', jsonb_build_array(encode(int4send(i), 'base64'))),
         'readings', jsonb_build_object('NS', jsonb_build_array((i * 0.001)::text, '1E+100'))),
       'Devices', typed => true))
  FROM generate_series(1, 60) AS i;
GRANT SELECT, INSERT, UPDATE, DELETE ON stdesign_data."Devices" TO shop_app;
});
# Its stream, and a stream mapping to a function of the role (disabled: the
# stream worker is not running here); the function gets a new OID in each
# move, and the mapping must find it again.
$old->safe_psql('shop', q{
CREATE FUNCTION public.device_feed(batch jsonb) RETURNS void LANGUAGE sql AS 'SELECT';
ALTER FUNCTION public.device_feed(jsonb) OWNER TO shop_owner;
SET ROLE shop_owner;
SELECT st_stream_enable('Devices', 'NEW_AND_OLD_IMAGES') IS NOT NULL;
SELECT st_stream_mapping_create('Devices', 'device_feed(jsonb)', 10, 'TRIM_HORIZON', enabled => false) IS NOT NULL;
});
$old->safe_psql('shop', q{GRANT SELECT, INSERT, UPDATE, DELETE ON stdesign_data."Shop" TO shop_app});

my ($app_key, $app_secret) = split /\|/, $old->safe_psql('shop',
	q{SELECT access_key_id || '|' || secret_access_key FROM st_create_access_key('shop_app')});
my ($owner_key) = split /\|/, $old->safe_psql('shop',
	q{SELECT access_key_id || '|' || secret_access_key FROM st_create_access_key('shop_owner')});
$old->safe_psql('shop', "SELECT st_disable_access_key('$owner_key')");
like($app_key, qr/^\S{16,}$/, 'an access key for shop_app');

# ---------- what is recorded ----------

my $arn_of = q{(st_api('DescribeTable', jsonb_build_object('TableName', %s)) #>> '{Table,TableArn}')};
my @recorded = (
	# items, as stored and as read
	(map {
		("rows $_" => qq{SELECT count(*) || E'\\n' || string_agg(item::text, E'\\n' ORDER BY item::text) FROM stdesign_data."$_"},
		 "scan $_" => qq{SELECT string_agg(i::text, E'\\n' ORDER BY i::text) FROM st_scan('$_', typed => true) AS i},
		 "plain scan $_" => qq{SELECT string_agg(i::text, E'\\n' ORDER BY i::text) FROM st_scan('$_') AS i},
		 "describe $_" => qq{SELECT st_api('DescribeTable', '{"TableName": "$_"}')},
		 "ttl $_" => qq{SELECT st_api('DescribeTimeToLive', '{"TableName": "$_"}')},
		 "tags $_" => sprintf(q{SELECT st_api('ListTagsOfResource', jsonb_build_object('ResourceArn', %s))},
			sprintf($arn_of, "'$_'")))
	} qw(Shop Devices Sessions)),
	'tables' => q{SELECT string_agg(t, ',' ORDER BY t) FROM st_list_tables() AS t},
	# the answers of the table, its GSIs and its LSI
	'query table' => q{SELECT st_api('Query', '{"TableName": "Shop", "KeyConditionExpression": "PK = :p",
		"ExpressionAttributeValues": {":p": {"S": "CUST#7"}}}')},
	'query table desc' => q{SELECT st_api('Query', '{"TableName": "Shop", "ScanIndexForward": false, "Limit": 4,
		"KeyConditionExpression": "PK = :p AND begins_with(SK, :o)",
		"ExpressionAttributeValues": {":p": {"S": "CUST#3"}, ":o": {"S": "ORDER#"}}}')},
	'query GSI1' => q{SELECT st_api('Query', '{"TableName": "Shop", "IndexName": "GSI1",
		"KeyConditionExpression": "GSI1PK = :p", "ExpressionAttributeValues": {":p": {"S": "ORDER#0042"}}}')},
	'query ByStatus' => q{SELECT st_api('Query', '{"TableName": "Shop", "IndexName": "ByStatus",
		"KeyConditionExpression": "#s = :s AND #t BETWEEN :a AND :b", "ScanIndexForward": false,
		"ExpressionAttributeNames": {"#s": "status", "#t": "total"},
		"ExpressionAttributeValues": {":s": {"S": "SHIPPED"}, ":a": {"N": "10"}, ":b": {"N": "1E+30"}}}')},
	'query ByStatus paged' => q{SELECT st_api('Query', '{"TableName": "Shop", "IndexName": "ByStatus", "Limit": 5,
		"KeyConditionExpression": "#s = :s AND #t > :a", "ExpressionAttributeNames": {"#s": "status", "#t": "total"},
		"ExpressionAttributeValues": {":s": {"S": "PLACED"}, ":a": {"N": "300"}}}')},
	'query LSI' => q{SELECT st_api('Query', '{"TableName": "Shop", "IndexName": "ByPlaced",
		"KeyConditionExpression": "PK = :p AND begins_with(placed, :m)",
		"ExpressionAttributeValues": {":p": {"S": "CUST#3"}, ":m": {"S": "2026-0"}}}')},
	'query LSI all attributes' => q{SELECT st_api('Query', '{"TableName": "Shop", "IndexName": "ByPlaced",
		"Select": "ALL_ATTRIBUTES", "KeyConditionExpression": "PK = :p AND placed > :m",
		"ExpressionAttributeValues": {":p": {"S": "CUST#11"}, ":m": {"S": "2026-06"}}}')},
	'query Devices' => q{SELECT st_api('Query', '{"TableName": "Devices",
		"KeyConditionExpression": "id = :i AND ver > :v",
		"ExpressionAttributeValues": {":i": {"B": "A/8A"}, ":v": {"N": "-1E+30"}}}')},
	'query ByModel' => q{SELECT st_api('Query', '{"TableName": "Devices", "IndexName": "ByModel",
		"KeyConditionExpression": "model = :m", "ExpressionAttributeValues": {":m": {"S": "M2"}}}')},
	'scan GSI1 count' => q{SELECT st_api('Scan', '{"TableName": "Shop", "IndexName": "GSI1", "Select": "COUNT"}')},
	'st_query ByStatus' => q{SELECT string_agg(i::text, E'\n') FROM st_query('RETURNED', index => 'ByStatus', "table" => 'Shop') AS i},
	'get typed' => q{SELECT st_api('GetItem', '{"TableName": "Shop", "Key": {"PK": {"S": "TYPES"}, "SK": {"S": "ALL"}}}')},
	'get plain' => q{SELECT st_get('TYPES', 'ALL', 'Shop')},
	'batch get' => q{SELECT st_batch_get('{"Shop": {"Keys": [{"PK": {"S": "CUST#1"}, "SK": {"S": "ORDER#0031"}},
		{"PK": {"S": "TYPES"}, "SK": {"S": "KEYS ONLY"}}]}}')},
	'partiql GSI' => q{SELECT string_agg(i::text, E'\n') FROM st_partiql('SELECT * FROM "Shop"."GSI1" WHERE GSI1PK = ?', '["ORDER#0007"]') AS i},
	# the model
	'model' => q{SELECT st_get_model('Shop')},
	'model row' => q{SELECT to_jsonb(m) FROM stdesign.models m},
	'model check' => q{SELECT string_agg(c::text, E'\n' ORDER BY c::text) FROM st_check_model('Shop') AS c},
	'model cost' => q{SELECT string_agg(c::text, E'\n' ORDER BY c::text) FROM st_model_cost('Shop', prices => 'test-region') AS c},
	'pattern' => q{SELECT string_agg(i::text, E'\n') FROM st_run_pattern('orders_for_customer', '{"customer_id": "7"}', 'Shop') AS i},
	'pattern GSI' => q{SELECT string_agg(i::text, E'\n') FROM st_run_pattern('order_by_id', '{"order_id": "0042"}', 'Shop') AS i},
	'pattern number key' => q{SELECT string_agg(i::text, E'\n') FROM st_run_pattern('shipped_over', '{"status": "SHIPPED", "total": 300}', 'Shop') AS i},
	'entity' => q{SELECT st_entity_of(st_get('CUST#7', 'PROFILE#7', 'Shop'), 'Shop')},
	# the catalog's rows and the relations stdesign made
	'catalog tables' => q{SELECT string_agg(to_jsonb(t)::text, E'\n' ORDER BY t.table_name) FROM stdesign.tables t},
	'catalog indexes' => q{SELECT string_agg(to_jsonb(i)::text, E'\n' ORDER BY i.table_name, i.index_name) FROM stdesign.indexes i},
	'catalog tags' => q{SELECT string_agg(to_jsonb(t)::text, E'\n' ORDER BY t.table_name, t.tag_key) FROM stdesign.tags t},
	'prices' => q{SELECT string_agg(to_jsonb(p)::text, E'\n' ORDER BY p.name) FROM stdesign.prices p},
	'relations' => q{
		SELECT string_agg(c.relname || ' ' || c.relkind::text || ' am ' || coalesce(am.amname, '-') || ' owner ' || pg_get_userbyid(c.relowner)
		       -- grants (NULL is the owner's default, as pg_upgrade may leave it), less
		       -- MAINTAIN, which PostgreSQL 17 added to an owner's defaults
		       || ' acl ' || coalesce((SELECT string_agg(pg_get_userbyid(e.grantee) || ':' || e.privilege_type || ':' || e.is_grantable
		                                    || ':' || pg_get_userbyid(e.grantor), ',' ORDER BY pg_get_userbyid(e.grantee), e.privilege_type)
		                                 FROM aclexplode(coalesce(c.relacl, acldefault('r', c.relowner))) AS e
		                                WHERE e.privilege_type <> 'MAINTAIN'), '-') || ' options ' || coalesce(c.reloptions::text, '-')
		       || ' rls ' || c.relrowsecurity || ' columns ' || (SELECT string_agg(a.attname || ' ' || format_type(a.atttypid, a.atttypmod)
		              || ' ' || a.attnotnull || coalesce(' collate ' || co.collname, ''), ', ' ORDER BY a.attnum)
		            FROM pg_attribute a LEFT JOIN pg_collation co ON co.oid = a.attcollation AND a.attcollation <> 0
		           WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped)
		       || coalesce(' ' || pg_get_indexdef(i.indexrelid), '')
		       || coalesce(' valid ' || i.indisvalid || ' ready ' || i.indisready || ' unique ' || i.indisunique, ''),
		       E'\n' ORDER BY c.relname COLLATE "C")
		  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		  LEFT JOIN pg_am am ON am.oid = c.relam LEFT JOIN pg_index i ON i.indexrelid = c.oid
		 WHERE n.nspname IN ('stdesign_data', 'stdesign') AND c.relkind IN ('r', 'i', 'S', 'v', 'p')},
	'triggers' => q{SELECT string_agg(pg_get_triggerdef(t.oid) || ' ' || t.tgenabled::text, E'\n' ORDER BY pg_get_triggerdef(t.oid))
		  FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
		 WHERE n.nspname IN ('stdesign_data', 'stdesign') AND NOT t.tgisinternal},
	'event triggers' => q{SELECT string_agg(evtname || ' ' || evtevent || ' ' || evtenabled::text, E'\n' ORDER BY evtname) FROM pg_event_trigger},
	'extension' => q{SELECT extname || ' ' || extversion || ' ' || extnamespace::regnamespace || ' ' || array_length(extconfig, 1) FROM pg_extension WHERE extname = 'stdesign'},
	# the keys (their role OIDs are compared apart)
	'key rows' => q{SELECT string_agg((to_jsonb(k) - 'role_oid')::text, E'\n' ORDER BY k.key_id) FROM stdesign.access_keys k},
	'keys listed' => q{SELECT string_agg(k::text, E'\n' ORDER BY k::text) FROM st_list_access_keys() AS k},
	# the stream mapping, as its role lists it
	'stream mappings' => q{SET ROLE shop_owner;
		SELECT string_agg(concat_ws(' ', table_name, function, batch_size, starting_position, state, sequence_number, created_at),
		                  E'\n' ORDER BY created_at) FROM st_stream_mappings()},
);

# record <node>: name => answer, for every query above
sub record
{
	my ($node) = @_;
	my %r;
	for (my $i = 0; $i < @recorded; $i += 2)
	{
		$r{ $recorded[$i] } = $node->safe_psql('shop', $recorded[ $i + 1 ]);
	}
	return \%r;
}
my $before = record($old);

# Preconditions: the recording sees what it is meant to compare.
like($before->{'rows Shop'}, qr/^332\n/, 'the old cluster holds 300 orders, 30 customers and 2 typed items');
like($before->{'get typed'}, qr/"BS": \["AA==", "AQI=", "\/w=="\]/, 'the typed item has its binary set');
like($before->{'query GSI1'}, qr/"Count": 1\b/, 'the GSI answers');
like($before->{'query LSI'}, qr/"Count": [1-9]/, 'the LSI answers');
like($before->{'query ByStatus'}, qr/1234567890123456789012345678\.00000002/, 'the number GSI holds a 38-digit total');
like($before->{'ttl Sessions'}, qr/"TimeToLiveStatus": "ENABLED"/, 'time to live is on');
like($before->{'tags Shop'}, qr/"cost-center".*"owner".*"team"/s, 'the tags');
unlike($before->{'tags Shop'}, qr/"env"/, 'the untagged key is gone');
like($before->{'model check'}, qr/order_by_id/, 'the model is checked');
like($before->{'relations'}, qr/^Devices r am stdesign owner shop_owner /m, 'the ordinary role owns its table, of access method stdesign');
like($before->{'keys listed'}, qr/,shop_app,t,/, 'a key of shop_app');
like($before->{'keys listed'}, qr/,shop_owner,f,/, 'a disabled key of shop_owner');
like($before->{'stream mappings'}, qr/^Devices device_feed\(jsonb\) 10 TRIM_HORIZON Disabled /, 'a stream mapping of shop_owner');
my $old_oids = $old->safe_psql('shop',
	q{SELECT string_agg(k.role_name || '=' || k.role_oid, ',' ORDER BY k.role_name) FROM stdesign.access_keys k});

# ---------- checks after a move ----------

my $http_port;


# serve <stopped node>: started with stdesign preloaded, its HTTP endpoint
# on for database shop (signed requests only), its expiry worker on another
# database
sub serve
{
	my ($node) = @_;
	$http_port = PostgreSQL::Test::Cluster::get_free_port();
	$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'stdesign'
stdesign.http_port = $http_port
stdesign.http_workers = 1
stdesign.http_auth = 'sigv4'
stdesign.http_database = 'shop'
stdesign.ttl_database = 'postgres'
});
	# (started, not restarted: pg_ctl restart would start a cluster fresh
	# from pg_upgrade with the options of its last start, binary-upgrade
	# mode)
	$node->start;
}

# amcheck <node> <label>: every btree of stdesign_data and stdesign agrees
# with its rows
sub amcheck
{
	my ($node, $label) = @_;
	my $n = $node->safe_psql('shop', q{
SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace JOIN pg_am am ON am.oid = c.relam
 WHERE n.nspname IN ('stdesign_data', 'stdesign') AND c.relkind = 'i' AND am.amname = 'btree'});
	cmp_ok($n, '>=', 16, "$label: the btrees of the data and the catalog are there ($n)");
	my ($rc, $out, $err) = $node->psql('shop', q{
SELECT count(bt_index_check(c.oid, true)) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
  JOIN pg_am am ON am.oid = c.relam
 WHERE n.nspname IN ('stdesign_data', 'stdesign') AND c.relkind = 'i' AND am.amname = 'btree'});
	is("$rc $out $err", "0 $n ", "$label: amcheck (bt_index_check with heapallindexed) on every btree");
}

# check_moved <node> <label> <role OIDs kept>: everything recorded, then
# writes
sub check_moved
{
	my ($node, $label, $oids_kept) = @_;

	is($node->safe_psql('shop', 'SHOW server_version_num') =~ /^(\d+)\d{4}$/ ? $1 : '', $new_major,
		"$label: the database runs on PostgreSQL $new_major");

	# The keys' roles: the same OIDs after pg_upgrade; after a restore,
	# bound again to the roles of their names (docs/http.md, "Access keys").
	my $oids = $node->safe_psql('shop',
		q{SELECT string_agg(r.rolname || '=' || r.oid, ',' ORDER BY r.rolname) FROM pg_roles r
		   WHERE r.rolname IN (SELECT role_name FROM stdesign.access_keys)});
	if ($oids_kept)
	{
		is($oids, $old_oids, "$label: the keys' roles keep their OIDs");
	}
	else
	{
		note "$label: the keys' role OIDs before $old_oids, after the restore $oids";
		# A key whose role now has another OID serves no role, not even
		# the one that took its old OID, until bound again.
		if ($oids ne $old_oids)
		{
			my ($status, $body);
			for (1 .. 60)
			{
				($status, $body) = signed_request($http_port, $app_key, $app_secret, 'ListTables', '{}');
				last unless $status == 599 || $status == 503;
				sleep(1);
			}
			like("$status $body", qr/^400 .*UnrecognizedClientException/,
				"$label: before it is bound again, the key of a role whose OID changed is refused");
		}
		$node->safe_psql('shop', q{
UPDATE stdesign.access_keys k SET role_oid = r.oid FROM pg_roles r WHERE r.rolname = k.role_name});
	}

	$node->safe_psql('shop', 'CREATE EXTENSION amcheck');
	my $after = record($node);
	for (my $i = 0; $i < @recorded; $i += 2)
	{
		my $name = $recorded[$i];
		is($after->{$name}, $before->{$name}, "$label: $name as before");
	}

	amcheck($node, $label);

	my $objects = q{SELECT count(*) || ' ' || max(extversion) FROM pg_depend d, pg_extension e
		WHERE d.refobjid = e.oid AND d.deptype = 'e' AND e.extname = 'stdesign'};
	my $members = $node->safe_psql('shop', $objects);
	$node->safe_psql('shop', 'ALTER EXTENSION stdesign UPDATE');
	is($node->safe_psql('shop', $objects), $members,
		"$label: ALTER EXTENSION stdesign UPDATE changes nothing ($members)");

	# the moved key signs requests the endpoint accepts; the disabled one not
	my ($status, $body);
	for (1 .. 60)
	{
		($status, $body) = signed_request($http_port, $app_key, $app_secret, 'GetItem',
			'{"TableName": "Shop", "Key": {"PK": {"S": "CUST#1"}, "SK": {"S": "ORDER#0031"}}}');
		last if $status == 200;
		sleep(1);
	}
	is($status, 200, "$label: the moved access key signs a GetItem the endpoint accepts");
	like($body, qr/"order_id":\{"S":"0031"\}|"order_id": \{"S": "0031"\}/, "$label: and gets the item");
	($status, $body) = signed_request($http_port, $app_key, $app_secret, 'PutItem',
		'{"TableName": "Devices", "Item": {"id": {"B": "AQ=="}, "ver": {"N": "1"}, "model": {"S": "HTTP"}}}');
	is($status, 200, "$label: a PutItem over HTTP as the key's role");
	($status, $body) = signed_request($http_port, $owner_key, 'x' x 40, 'ListTables', '{}');
	is($status, 400, "$label: the disabled key stays refused");

	# writes: a put the GSIs show, conditional updates, a transaction, an
	# entity, a new GSI filled from the old items, expiry
	$node->safe_psql('shop', q{
SELECT st_put('{"PK": "CUST#7", "SK": "ORDER#9001", "GSI1PK": "ORDER#9001", "GSI1SK": "CUST#7",
                "status": "SHIPPED", "total": 12345678901234567890123456789012345678, "placed": "2027-01-01"}', 'Shop');
SELECT st_update('CUST#7', 'ORDER#0067', 'SET #s = :new', 'Shop', condition => '#s = :old',
                 names => '{"#s": "status"}', "values" => '{":new": "SHIPPED", ":old": "PLACED"}');
});
	like($node->safe_psql('shop', q{SELECT st_api('Query', '{"TableName": "Shop", "IndexName": "GSI1",
		"KeyConditionExpression": "GSI1PK = :p", "ExpressionAttributeValues": {":p": {"S": "ORDER#9001"}}}')}),
		qr/"Count": 1\b/, "$label: a put after the move reaches the GSI");
	like($node->safe_psql('shop', q{SELECT st_api('Query', '{"TableName": "Shop", "IndexName": "ByStatus",
		"KeyConditionExpression": "#s = :s AND #t > :t", "ExpressionAttributeNames": {"#s": "status", "#t": "total"},
		"ExpressionAttributeValues": {":s": {"S": "SHIPPED"}, ":t": {"N": "1E+36"}}}')}),
		qr/"Count": 1\b.*12345678901234567890123456789012345678/s, "$label: and the number GSI, with its 38 digits");
	is($node->safe_psql('shop', q{SELECT string_agg(i ->> 'SK', ',' ORDER BY i ->> 'SK') FROM st_query('SHIPPED', index => 'ByStatus', "table" => 'Shop') AS i
		WHERE i ->> 'PK' = 'CUST#7'}),
		'ORDER#0007,ORDER#0067,ORDER#0097,ORDER#0157,ORDER#0217,ORDER#9001',
		"$label: the conditional update moved the item in the GSI");
	my ($rc, $out, $err) = $node->psql('shop', q{
SELECT st_update('CUST#7', 'ORDER#0067', 'SET #s = :new', 'Shop', condition => '#s = :old',
                 names => '{"#s": "status"}', "values" => '{":new": "RETURNED", ":old": "PLACED"}')});
	like($err, qr/ConditionalCheckFailedException/, "$label: a failing condition refuses the update");
	$node->safe_psql('shop', q{
SELECT st_transact('[{"Put": {"TableName": "Shop", "Item": {"PK": {"S": "CUST#8"}, "SK": {"S": "ORDER#9002"},
                                                             "status": {"S": "PLACED"}, "total": {"N": "1"}}}},
                     {"Update": {"TableName": "Devices", "Key": {"id": {"B": "AP8A"}, "ver": {"N": "-1200000000000000000000000000000.5"}},
                                 "UpdateExpression": "ADD readings :r", "ConditionExpression": "attribute_exists(model)",
                                 "ExpressionAttributeValues": {":r": {"NS": ["7"]}}}},
                     {"ConditionCheck": {"TableName": "Sessions", "Key": {"sid": {"S": "S1"}},
                                         "ConditionExpression": "attribute_exists(expires)"}},
                     {"Delete": {"TableName": "Shop", "Key": {"PK": {"S": "CUST#9"}, "SK": {"S": "ORDER#0009"}}}}]',
                   client_request_token => 'after-the-move');
});
	is($node->safe_psql('shop', q{
SELECT (st_get('CUST#8', 'ORDER#9002', 'Shop') IS NOT NULL) || ' ' || (st_get('CUST#9', 'ORDER#0009', 'Shop') IS NULL) || ' '
       || (SELECT string_agg(x, ',' ORDER BY x::numeric) FROM jsonb_array_elements_text(
             st_get('AP8A', '-1200000000000000000000000000000.5', 'Devices', typed => true) #> '{readings,NS}') AS x
           WHERE x::numeric <> 1e100)}),
		'true true 0.012,7', "$label: a transaction over three tables");
	is($node->safe_psql('shop', q{SELECT st_put_entity('Order', '{"customer_id": "7", "order_id": "9003", "status": "PLACED",
		"total": 3, "placed": "2027-02-02"}', 'Shop') ->> 'GSI1SK'}),
		'CUST#7', "$label: an entity written through the model");
	is($node->safe_psql('shop', q{SELECT count(*) FROM st_run_pattern('orders_for_customer', '{"customer_id": "7"}', 'Shop')}),
		'12', "$label: the pattern sees the new orders");
	$node->safe_psql('shop', q{SET ROLE shop_owner;
SELECT st_create_gsi('Devices', 'ByFirmware', 'model', sk => NULL, projection => 'ALL') IS NOT NULL});
	is($node->safe_psql('shop', q{SELECT st_api('Query', '{"TableName": "Devices", "IndexName": "ByFirmware", "Select": "COUNT",
		"KeyConditionExpression": "model = :m", "ExpressionAttributeValues": {":m": {"S": "M2"}}}') -> 'Count'}),
		'12', "$label: a GSI made after the move is filled from the moved items");
	is($node->safe_psql('shop', q{SET ROLE shop_owner;
		SELECT m ->> 'State', m ->> 'FunctionName'
		  FROM st_stream_mapping_update((SELECT mapping FROM st_stream_mappings()), enabled => true) AS m}),
		'Enabled|device_feed(jsonb)', "$label: the stream mapping finds its function (a new OID) and is enabled again");
	is($node->safe_psql('shop', q{SELECT st_expire('Sessions')}), '3', "$label: expiry deletes the three expired sessions");
	is($node->safe_psql('shop', q{SELECT count(*) FROM st_scan('Sessions')}), '20', "$label: and keeps the others");
	amcheck($node, "$label, after the writes");
}

# ---------- move 1: pg_dump of the old major, pg_restore of the new ----------

my $dump = "${PostgreSQL::Test::Utils::tmp_check}/shop.dump";
my ($out, $err, $rc) = run_cmd(["$old_bindir/pg_dump", '-Fc', '-f', $dump, '-d', $old->connstr('shop')]);
is("$rc $err", '0 ', "PostgreSQL ${old_major}'s pg_dump -Fc of the database");
my $roles;
($roles, $err, $rc) = run_cmd(["$old_bindir/pg_dumpall", '--roles-only', '-d', $old->connstr('postgres')]);
is("$rc $err", '0 ', "PostgreSQL ${old_major}'s pg_dumpall --roles-only");

my $restored = PostgreSQL::Test::Cluster->new('restored');
$restored->init;
$restored->append_conf('postgresql.conf', "log_statement = none\n");
$restored->start;
ok($restored->safe_psql('postgres', q{SELECT count(*) FROM pg_available_extensions WHERE name = 'stdesign'}) eq '1',
	"stdesign is installed for PostgreSQL $new_major");
# the bootstrap superuser is there already
my $boot = $restored->safe_psql('postgres', 'SELECT current_user');
$roles =~ s/^CREATE ROLE \Q$boot\E;$//m;
$restored->safe_psql('postgres', $roles);
($out, $err, $rc) = run_cmd(["$new_bindir/pg_restore", '--create', '-d', $restored->connstr('postgres'), $dump]);
is("$rc $err", '0 ', "PostgreSQL ${new_major}'s pg_restore of the dump");
$restored->stop;
serve($restored);
check_moved($restored, 'pg_restore', 0);
$restored->stop;

# ---------- move 2: pg_upgrade --copy, from a copy of the old cluster ----------

$old->stop;
$old->backup_fs_cold('cold');

# upgrade <name> <prepare>: pg_upgrade --copy from a new copy of the old
# cluster (after prepare(copy), when given, runs on it) to a new cluster of
# the running major; (wait status, what pg_upgrade printed and logged, the
# new node)
sub upgrade
{
	my ($name, $prepare) = @_;
	my $copy = PostgreSQL::Test::Cluster->new("${name}_old", install_path => $old_install);
	$copy->init_from_backup($old, 'cold');
	if ($prepare)
	{
		$copy->start;
		$prepare->($copy);
		$copy->stop;
	}
	my $new = PostgreSQL::Test::Cluster->new($name);
	# the same checksum setting on both sides: the old cluster has none
	$new->init($new_major >= 18 ? (no_data_checksums => 1) : ());
	$new->append_conf('postgresql.conf', "log_statement = none\n");

	my $dir = "${PostgreSQL::Test::Utils::tmp_check}/$name";
	mkdir $dir;
	my $output = '';
	chdir $dir or die "$dir: $!";
	IPC::Run::run([ "$new_bindir/pg_upgrade", '--no-sync', '--copy',
		'-d' => $copy->data_dir, '-D' => $new->data_dir,
		'-b' => $old_bindir, '-B' => $new_bindir,
		'-s' => $new->host, '-p' => $copy->port, '-P' => $new->port ],
		'>', \$output, '2>&1');
	my $rc = $?;
	chdir $PostgreSQL::Test::Utils::tmp_check;
	# its logs, left in the new data directory when it fails
	find({ no_chdir => 1, wanted => sub {
		$output .= "\n--- $File::Find::name\n" . slurp_file($File::Find::name) if -f $_ && /\.(log|txt)$/;
	} }, grep { -d } ($new->data_dir . '/pg_upgrade_output.d', $dir)) if $rc != 0;
	return ($rc, $output, $new);
}

my ($rc_up, $logs, $upgraded) = upgrade('upgraded');
if ($rc_up == 0)
{
	pass("PostgreSQL ${new_major}'s pg_upgrade --copy from $old_major");
	serve($upgraded);
	check_moved($upgraded, 'pg_upgrade', 1);
	$upgraded->stop;
}
else
{
	my ($refusal) = $logs =~ /^(.*unrecognized parameter "pg_attver".*)$/m;
	ok(defined $refusal, "pg_upgrade failed; only PostgreSQL's own pg_attver refusal may be the reason")
	  or diag("pg_upgrade failed for another reason:\n$logs");
	if (defined $refusal)
	{
		my ($what) = $logs =~ /^(.*ALTER TABLE .*SET \(pg_attver=.*)$/m;
		diag("pg_upgrade from $old_major to $new_major is refused by PostgreSQL, not stdesign: "
			  . "$old_version keeps a column option pg_attver that ${new_major}'s pg_dump --binary-upgrade writes "
			  . "and its server refuses: $refusal" . (defined $what ? " (at: $what)" : '')
			  . "; the database moved by pg_dump/pg_restore above");

		# So that stdesign's own part of pg_upgrade is still checked: on
		# another copy, the option taken out of pg_attribute (ALTER TABLE
		# ... RESET does not remove it), then pg_upgrade again, which must
		# succeed.
		my ($rc2, $logs2, $upgraded2) = upgrade('upgraded_noattver', sub {
			my ($copy) = @_;
			for my $db (split /\n/, $copy->safe_psql('postgres',
				'SELECT datname FROM pg_database WHERE datallowconn ORDER BY 1'))
			{
				$copy->safe_psql($db, q{
UPDATE pg_catalog.pg_attribute
   SET attoptions = (SELECT array_agg(o) FROM unnest(attoptions) AS o WHERE o NOT LIKE 'pg_attver=%')
 WHERE attoptions::text LIKE '%pg_attver=%'});
			}
		});
		is($rc2, 0, "pg_upgrade --copy from $old_major succeeds once pg_attver is taken out of the old cluster's copy")
		  or diag($logs2);
		if ($rc2 == 0)
		{
			serve($upgraded2);
			check_moved($upgraded2, 'pg_upgrade (without pg_attver)', 1);
			$upgraded2->stop;
		}
	}
}

done_testing();
