# The upgrade from every older version to the current one.
#
# A database that created stdesign 0.1.0 (the oldest script kept), with
# tables, items, GSIs and LSIs, runs ALTER EXTENSION stdesign UPDATE; then
# the extension's objects must be exactly those of a fresh install of the
# current version (sql/stdesign.sql): every member object with its full
# definition (functions with their attributes, SET clauses, ACLs and
# comments; tables with their columns, constraints, indexes and triggers,
# their ACLs compared by what they grant (none is the owner's default);
# event triggers; the configuration tables pg_dump keeps).  An object that
# sql/stdesign.sql has and the upgrade script lacks, or defines
# differently, fails here.  Then the old tables are read and written
# through every path: the upgrade must leave them working.

use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

$ENV{PGOPTIONS} = '-c client_min_messages=warning';

my $node = PostgreSQL::Test::Cluster->new('upgrade');
$node->init;
$node->append_conf('postgresql.conf', "log_statement = none\n");
$node->start;

my $old = '0.1.0';
my $current = $node->safe_psql('postgres',
	"SELECT default_version FROM pg_available_extensions WHERE name = 'stdesign'");
isnt($current, '', "the current version is installed ($current)");
isnt($current, $old, "the current version is not $old");

$node->safe_psql('postgres', 'CREATE DATABASE upgraded');
$node->safe_psql('postgres', 'CREATE DATABASE fresh');

# ---- the old version, with data ----
$node->safe_psql('upgraded', "CREATE EXTENSION stdesign VERSION '$old'; CREATE EXTENSION amcheck;");
is($node->safe_psql('upgraded', "SELECT extversion FROM pg_extension WHERE extname = 'stdesign'"),
	$old, "version $old created");

$node->safe_psql('upgraded', q{
SELECT st_create_table('Shop') IS NOT NULL;
SELECT st_create_gsi('Shop', 'ByStatus', 'status', 'placed') IS NOT NULL;
SELECT st_create_table('{
  "TableName": "Orders",
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
SELECT st_put_all(jsonb_build_object('PK', 'CUST#' || (i % 20), 'SK', 'ORDER#' || lpad(i::text, 4, '0'),
                                     'status', CASE WHEN i % 3 = 0 THEN 'SHIPPED' ELSE 'PLACED' END,
                                     'placed', lpad(i::text, 4, '0'), 'total', i), 'Shop')
  FROM generate_series(1, 400) AS i;
SELECT st_put_all(jsonb_build_object('PK', 'CUST#' || (i % 20), 'SK', 'ORDER#' || lpad(i::text, 4, '0'),
                                     'status', CASE WHEN i % 4 = 0 THEN 'SHIPPED' ELSE 'PLACED' END,
                                     'total', i), 'Orders')
  FROM generate_series(1, 400) AS i;
SELECT st_transact('[{"Put": {"TableName": "Orders", "Item": {"PK": "CUST#1", "SK": "PROFILE", "name": "Ann"}}},
                     {"Update": {"TableName": "Shop", "Key": {"PK": "CUST#1", "SK": "ORDER#0001"},
                                 "UpdateExpression": "SET note = :n",
                                 "ExpressionAttributeValues": {":n": "before the upgrade"}}}]',
                   client_request_token => 'before-upgrade', plain => true);
});
my $items_before = $node->safe_psql('upgraded',
	q{SELECT (SELECT count(*) FROM stdesign_data."Shop") || ' ' || (SELECT count(*) FROM stdesign_data."Orders")});
is($items_before, '400 401', 'the old version holds the items written');

# The write grants on the catalog that 0.1.0's README told a table-admin
# role to have: the update takes them back (the catalog is no grant since
# 0.2.0; docs/security.md), and the ACLs then compare equal to a fresh
# install's.
$node->safe_psql('upgraded', q{
CREATE ROLE old_admin;
GRANT INSERT, UPDATE, DELETE ON stdesign.tables, stdesign.indexes TO old_admin;
GRANT TRUNCATE ON stdesign.tables TO PUBLIC;
});
is($node->safe_psql('upgraded', q{SELECT has_table_privilege('old_admin', 'stdesign.tables', 'INSERT')}),
	't', 'before the update: the old grants');

# ---- the update, and a fresh install beside it ----
$node->safe_psql('upgraded', 'ALTER EXTENSION stdesign UPDATE');
is($node->safe_psql('upgraded', "SELECT extversion FROM pg_extension WHERE extname = 'stdesign'"),
	$current, "ALTER EXTENSION stdesign UPDATE reaches $current");
is($node->safe_psql('upgraded', q{
SELECT string_agg(p, ',') FROM (SELECT p FROM unnest(ARRAY['INSERT', 'UPDATE', 'DELETE', 'TRUNCATE']) AS p
 WHERE has_table_privilege('old_admin', 'stdesign.tables', p) OR has_table_privilege('old_admin', 'stdesign.indexes', p)) AS x}),
	'', 'the update revoked the old write grants on the catalog');
$node->safe_psql('fresh', 'CREATE EXTENSION stdesign');
is($node->safe_psql('fresh', "SELECT extversion FROM pg_extension WHERE extname = 'stdesign'"),
	$current, "a fresh install is $current");

# Every object of the extension, one line each with its definition; names,
# never OIDs, so that two databases compare.
my $objects_sql = q{
WITH ext AS (SELECT * FROM pg_extension WHERE extname = 'stdesign'),
members AS (
  SELECT d.classid, d.objid, d.objsubid FROM pg_depend d, ext
   WHERE d.refclassid = 'pg_extension'::regclass AND d.refobjid = ext.oid AND d.deptype = 'e'),
member_rels AS (
  SELECT objid AS relid FROM members WHERE classid = 'pg_class'::regclass),
lines AS (
  -- each member object, with its definition
  SELECT pg_describe_object(m.classid, m.objid, m.objsubid) || ' = ' || coalesce(CASE m.classid
    WHEN 'pg_proc'::regclass THEN (
      SELECT CASE WHEN p.prokind = 'a'
        THEN 'aggregate(' || pg_get_function_arguments(p.oid) || ') returns ' || pg_get_function_result(p.oid)
             || ' sfunc ' || a.aggtransfn::regprocedure || ' stype ' || format_type(a.aggtranstype, NULL)
             || ' final ' || a.aggfinalfn::regprocedure || ' combine ' || a.aggcombinefn::regprocedure
             || ' initcond ' || coalesce(a.agginitval, '-') || ' parallel ' || p.proparallel::text
        ELSE pg_get_functiondef(p.oid) END
        || ' acl ' || coalesce(p.proacl::text, '-')
        || ' leakproof ' || p.proleakproof || ' config ' || coalesce(p.proconfig::text, '-')
        FROM pg_proc p LEFT JOIN pg_aggregate a ON a.aggfnoid = p.oid WHERE p.oid = m.objid)
    WHEN 'pg_class'::regclass THEN (
      SELECT c.relkind::text || ' persistence ' || c.relpersistence::text || ' am ' || coalesce(am.amname, '-')
             || ' options ' || coalesce(c.reloptions::text, '-') || ' acl ' || coalesce(c.relacl, acldefault('r', c.relowner))::text
             || ' columns (' || coalesce((SELECT string_agg(att.attname || ' ' || format_type(att.atttypid, att.atttypmod)
                    || CASE WHEN att.attnotnull THEN ' not null' ELSE '' END
                    || coalesce(' collate ' || NULLIF(co.collname, 'default'), '')
                    || coalesce(' default ' || pg_get_expr(ad.adbin, ad.adrelid), '')
                    || coalesce(' acl ' || att.attacl::text, ''), ', ' ORDER BY att.attnum)
                  FROM pg_attribute att
                  LEFT JOIN pg_attrdef ad ON ad.adrelid = att.attrelid AND ad.adnum = att.attnum
                  LEFT JOIN pg_collation co ON co.oid = att.attcollation
                 WHERE att.attrelid = c.oid AND att.attnum > 0 AND NOT att.attisdropped), '') || ')'
             || CASE WHEN c.relkind = 'i' THEN ' ' || pg_get_indexdef(c.oid) ELSE '' END
             || CASE WHEN c.relkind = 'v' THEN ' ' || pg_get_viewdef(c.oid) ELSE '' END
             || coalesce((SELECT ' sequence ' || s.seqtypid::regtype || ' ' || s.seqstart || ' ' || s.seqincrement
                                 || ' ' || s.seqmin || ' ' || s.seqmax || ' ' || s.seqcache || ' ' || s.seqcycle
                            FROM pg_sequence s WHERE s.seqrelid = c.oid), '')
        FROM pg_class c LEFT JOIN pg_am am ON am.oid = c.relam WHERE c.oid = m.objid)
    WHEN 'pg_namespace'::regclass THEN (
      SELECT 'acl ' || coalesce(n.nspacl::text, '-') FROM pg_namespace n WHERE n.oid = m.objid)
    WHEN 'pg_type'::regclass THEN (
      SELECT t.typtype::text || ' ' || format_type(t.oid, NULL) || ' acl ' || coalesce(t.typacl::text, '-')
        FROM pg_type t WHERE t.oid = m.objid)
    WHEN 'pg_am'::regclass THEN (
      SELECT am.amtype::text || ' handler ' || am.amhandler::regprocedure FROM pg_am am WHERE am.oid = m.objid)
    WHEN 'pg_event_trigger'::regclass THEN (
      SELECT e.evtevent || ' ' || e.evtfoid::regprocedure || ' enabled ' || e.evtenabled::text
             || ' tags ' || coalesce(e.evttags::text, '-')
        FROM pg_event_trigger e WHERE e.oid = m.objid)
    WHEN 'pg_cast'::regclass THEN (
      SELECT c.castcontext::text || ' ' || c.castmethod::text || ' ' || coalesce(c.castfunc::regprocedure::text, '-')
        FROM pg_cast c WHERE c.oid = m.objid)
    WHEN 'pg_operator'::regclass THEN (
      SELECT o.oprcode::regprocedure::text FROM pg_operator o WHERE o.oid = m.objid)
    END, '')
    || ' comment ' || coalesce(pg_catalog.obj_description(m.objid, (SELECT relname FROM pg_class WHERE oid = m.classid)), '-')
    || ' initprivs ' || coalesce((SELECT ip.privtype::text || ip.initprivs::text FROM pg_init_privs ip
                                    WHERE ip.objoid = m.objid AND ip.classoid = m.classid AND ip.objsubid = m.objsubid), '-')
    AS line
    FROM members m
  UNION ALL
  -- what hangs on the extension's tables without being a member itself
  SELECT 'constraint ' || con.conname || ' on ' || con.conrelid::regclass || ' = ' || pg_get_constraintdef(con.oid)
    FROM pg_constraint con JOIN member_rels r ON r.relid = con.conrelid
  UNION ALL
  SELECT 'index on ' || i.indrelid::regclass || ' = ' || pg_get_indexdef(i.indexrelid)
    FROM pg_index i JOIN member_rels r ON r.relid = i.indrelid
  UNION ALL
  SELECT 'trigger on ' || t.tgrelid::regclass || ' = ' || pg_get_triggerdef(t.oid) || ' enabled ' || t.tgenabled::text
    FROM pg_trigger t JOIN member_rels r ON r.relid = t.tgrelid WHERE NOT t.tgisinternal
  UNION ALL
  SELECT 'policy on ' || p.polrelid::regclass || ' = ' || p.polname || ' ' || p.polcmd::text || ' '
         || coalesce(pg_get_expr(p.polqual, p.polrelid), '-') || ' ' || coalesce(pg_get_expr(p.polwithcheck, p.polrelid), '-')
    FROM pg_policy p JOIN member_rels r ON r.relid = p.polrelid
  UNION ALL
  -- the extension itself: the tables pg_dump keeps, where it lives
  SELECT 'extension = schema ' || extnamespace::regnamespace || ' relocatable ' || extrelocatable
         || ' config ' || coalesce((SELECT string_agg(c::regclass::text || ' where ' || w, ', ' ORDER BY c::regclass::text)
                                      FROM unnest(extconfig, extcondition) AS u(c, w)), '-')
    FROM ext)
-- one line per object (a function's definition spans several)
SELECT replace(line, E'\n', ' ') AS line FROM lines ORDER BY line COLLATE "C";
};

my @fresh = split /\n/, $node->safe_psql('fresh', $objects_sql);
my @upgraded = split /\n/, $node->safe_psql('upgraded', $objects_sql);
# Precondition: the listing sees the extension's objects (a query that lists
# nothing would compare equal).
cmp_ok(scalar(grep { /^function / } @fresh), '>=', 30,
	'the listing of a fresh install has its functions (' . scalar(@fresh) . ' objects)');
ok((grep { /^table stdesign\.tables = / } @fresh) && (grep { /^access method stdesign = / } @fresh),
	'the listing of a fresh install has its tables and access method');

# differences <listing> <other listing>: lines only in the first, lines only
# in the other
sub differences
{
	my ($one, $other) = @_;
	my %in_one = map { $_ => 1 } @$one;
	my %in_other = map { $_ => 1 } @$other;
	return ([ grep { !$in_other{$_} } @$one ], [ grep { !$in_one{$_} } @$other ]);
}

# Precondition: the comparison sees what an incomplete upgrade script gets
# wrong.  A fresh install altered as such a script would leave it: a
# function missing, four others with a different cost, SET clause,
# privilege or comment, and a column without its default.
$node->safe_psql('postgres', 'CREATE DATABASE altered');
$node->safe_psql('altered', q{
CREATE EXTENSION stdesign;
ALTER EXTENSION stdesign DROP FUNCTION stdesign.cache_stats();
DROP FUNCTION stdesign.cache_stats();
ALTER FUNCTION stdesign.item_size(jsonb) COST 7;
ALTER FUNCTION st_item_size(jsonb, boolean) SET search_path = pg_catalog;
REVOKE EXECUTE ON FUNCTION st_to_plain(jsonb) FROM PUBLIC;
COMMENT ON FUNCTION st_to_typed(jsonb) IS 'changed';
ALTER TABLE stdesign.transact_tokens ALTER COLUMN created_at DROP DEFAULT;
});
my @altered = split /\n/, $node->safe_psql('altered', $objects_sql);
my ($lost, $changed) = differences(\@fresh, \@altered);
is(join(', ', sort map { /^(\S+ [^\s(]+)/ ? $1 : $_ } @$lost),
	'function st_item_size, function st_to_plain, function st_to_typed, function stdesign.cache_stats, '
	  . 'function stdesign.item_size, table stdesign.transact_tokens',
	'the comparison notices a missing function, a cost, a SET clause, a privilege, a comment and a default');
is(scalar(@$changed), 5, 'the comparison shows the five changed objects as the altered database has them');

my ($missing_ref, $extra_ref) = differences(\@fresh, \@upgraded);
my @missing = @$missing_ref;
my @extra = @$extra_ref;
is(join("\n", @missing), '',
	'every object of a fresh install is in the upgraded database, defined the same way (lines shown: missing or different after the upgrade)');
is(join("\n", @extra), '',
	'the upgraded database has no object a fresh install lacks (lines shown: left over or different after the upgrade)');

# ---- the old tables after the upgrade ----
is($node->safe_psql('upgraded',
	q{SELECT (SELECT count(*) FROM stdesign_data."Shop") || ' ' || (SELECT count(*) FROM stdesign_data."Orders")}),
	$items_before, 'the items are all there after the upgrade');
is($node->safe_psql('upgraded', q{SELECT st_get('CUST#1', 'ORDER#0001', 'Shop') ->> 'note'}),
	'before the upgrade', 'st_get reads an item written before the upgrade');
is($node->safe_psql('upgraded', q{SELECT count(*) FROM st_query('CUST#7', 'ORDER#', 'Shop')}),
	'20', 'st_query reads an old partition');
is($node->safe_psql('upgraded',
	q{SELECT count(*) FROM st_query('SHIPPED', index => 'ByStatus', "table" => 'Shop')}),
	'133', 'st_query reads an old GSI');
# An LSI's range key is a number: asked through st_api's Query.
is($node->safe_psql('upgraded', q{
SELECT string_agg(i #>> '{SK,S}', ',' ORDER BY n) FROM jsonb_array_elements(st_api('Query', '{
  "TableName": "Orders", "IndexName": "ByTotal",
  "KeyConditionExpression": "PK = :p AND #t BETWEEN :a AND :b", "ExpressionAttributeNames": {"#t": "total"},
  "ExpressionAttributeValues": {":p": {"S": "CUST#3"}, ":a": {"N": "20"}, ":b": {"N": "70"}}}') -> 'Items')
  WITH ORDINALITY AS x(i, n)}),
	'ORDER#0023,ORDER#0043,ORDER#0063', 'st_query reads an old LSI by its range key');

$node->safe_psql('upgraded', q{
SELECT st_put('{"PK": "CUST#7", "SK": "ORDER#9999", "status": "SHIPPED", "placed": "9999", "total": 1}', 'Shop');
SELECT st_update('CUST#7', 'ORDER#0007', 'SET #s = :s', 'Shop', names => '{"#s": "status"}', "values" => '{":s": "SHIPPED"}');
SELECT st_delete('CUST#8', 'ORDER#0008', 'Shop');
SELECT st_put_all(jsonb_build_object('PK', 'CUST#' || (i % 20), 'SK', 'LATE#' || i, 'status', 'SHIPPED', 'total', i), 'Orders')
  FROM generate_series(1, 40) AS i;
SELECT st_batch_write('{"Orders": [{"PutRequest": {"Item": {"PK": {"S": "CUST#2"}, "SK": {"S": "BATCH"}, "total": {"N": "5"}}}},
                                   {"DeleteRequest": {"Key": {"PK": {"S": "CUST#2"}, "SK": {"S": "ORDER#0002"}}}}]}');
SELECT st_transact('[{"Update": {"TableName": "Orders", "Key": {"PK": "CUST#1", "SK": "PROFILE"},
                                 "UpdateExpression": "SET visits = :one", "ConditionExpression": "attribute_exists(PK)",
                                 "ExpressionAttributeValues": {":one": 1}}}]',
                   client_request_token => 'after-upgrade', plain => true);
SELECT st_create_gsi('Orders', 'ByTotalAll', 'status', 'total', sk_type => 'N') IS NOT NULL;
});
is($node->safe_psql('upgraded',
	q{SELECT count(*) FROM st_query('SHIPPED', index => 'ByStatus', "table" => 'Shop')}),
	'135', 'writes after the upgrade reach the old GSI (a put and an update)');
is($node->safe_psql('upgraded', q{SELECT st_get('CUST#8', 'ORDER#0008', 'Shop') IS NULL}),
	't', 'st_delete after the upgrade');
is($node->safe_psql('upgraded',
	q{SELECT count(*) FROM st_query('SHIPPED', index => 'ByStatus', "table" => 'Orders')}),
	'140', 'st_put_all after the upgrade reaches the old table\'s GSI');
is($node->safe_psql('upgraded',
	q{SELECT (SELECT count(*) FROM st_query('CUST#2', 'BATCH', 'Orders')) || ' ' || (st_get('CUST#2', 'ORDER#0002', 'Orders') IS NULL)}),
	'1 true', 'st_batch_write after the upgrade');
is($node->safe_psql('upgraded', q{SELECT st_get('CUST#1', 'PROFILE', 'Orders') ->> 'visits'}),
	'1', 'st_transact after the upgrade');
is($node->safe_psql('upgraded', q{
SELECT st_api('Query', '{
  "TableName": "Orders", "IndexName": "ByTotalAll", "Select": "COUNT",
  "KeyConditionExpression": "#s = :s AND #t < :t", "ExpressionAttributeNames": {"#s": "status", "#t": "total"},
  "ExpressionAttributeValues": {":s": {"S": "SHIPPED"}, ":t": {"N": "10"}}}') -> 'Count'}),
	'11', 'a GSI created after the upgrade on an old table is backfilled');
is($node->safe_psql('upgraded', q{SELECT count(*) FROM st_scan('Orders')}),
	'441', 'st_scan of the old table after the writes');
# Every index of the old tables agrees with their rows (the precondition:
# the tables have the indexes checked).
my $indexes = $node->safe_psql('upgraded', q{
SELECT count(*) FROM pg_index WHERE indrelid IN ('stdesign_data."Shop"'::regclass, 'stdesign_data."Orders"'::regclass)});
cmp_ok($indexes, '>=', 5, "the old tables have their key, GSI and LSI indexes ($indexes)");
my ($rc, $out, $err) = $node->psql('upgraded', q{
SELECT count(*) FROM pg_index, LATERAL (SELECT bt_index_check(indexrelid, true)) AS c
 WHERE indrelid IN ('stdesign_data."Shop"'::regclass, 'stdesign_data."Orders"'::regclass)});
is("$rc $out $err", "0 $indexes ", 'amcheck: every index of the old tables has every row version');

$node->stop;
done_testing();
