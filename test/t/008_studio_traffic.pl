# The per-partition traffic counters (src/ops/traffic.c), which need
# stdesign in shared_preload_libraries (pg_regress runs without it and
# tests only that the functions then say the counters are off).
#
# Counts and units by table, GSI and partition key for each kind of read
# and write; counts of other sessions, moved into shared memory at their
# commits; stdesign.track_traffic; transactions (double units);
# per-second peaks against the 1,000 WCU limit with write-sharding advice;
# eviction of the least used partitions when the shared table is full;
# Contributor Insights' top keys; reset and who may; who may read the counts; the studio's page; a dropped
# table; a restart.

use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

$ENV{PGOPTIONS} = '-c client_min_messages=warning';

my $node = PostgreSQL::Test::Cluster->new('traffic');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'stdesign'
stdesign.traffic_max_partitions = 100
log_statement = none
});
$node->start;

sub sql { return $node->safe_psql('postgres', $_[0]); }

sql(q{
CREATE EXTENSION stdesign;
SELECT st_create_table('{"TableName": "Traffic", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "SK", "AttributeType": "S"},
                           {"AttributeName": "G", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
  "GlobalSecondaryIndexes": [{"IndexName": "ByG", "KeySchema": [{"AttributeName": "G", "KeyType": "HASH"}],
                              "Projection": {"ProjectionType": "ALL"}}]}'::jsonb) IS NOT NULL;
});
is(sql("SHOW stdesign.traffic_max_partitions"), '100', 'the size setting is there when preloaded');
is(sql("SELECT count(*) FROM st_partition_traffic('Traffic')"), '0', 'nothing counted before any traffic');

# Writes: 5 puts on HOT (10 bytes each: 1 WCU), 2 of them with G (in the
# GSI's partition g1), one 3,000-byte item on BIG (3 WCU), a delete, an update.
sql(q{
SELECT st_put(jsonb_build_object('PK', 'HOT', 'SK', i::text, 'v', 'x'), 'Traffic') FROM generate_series(1, 3) AS i;
SELECT st_put(jsonb_build_object('PK', 'HOT', 'SK', i::text, 'G', 'g1'), 'Traffic') FROM generate_series(4, 5) AS i;
SELECT st_put(jsonb_build_object('PK', 'BIG', 'SK', '1', 'v', repeat('y', 3000)), 'Traffic');
SELECT st_delete('HOT', '3', 'Traffic');
SELECT st_update('HOT', '1', 'SET v = :v', 'Traffic', "values" => '{":v": "z"}');
});
is( sql(q{SELECT string_agg(coalesce(index_name, '-') || ' ' || partition_key || ' ' || reads || ' ' || writes || ' '
                          || read_units || ' ' || write_units, ', ' ORDER BY index_name NULLS FIRST, partition_key)
          FROM st_partition_traffic('Traffic')}),
	'- BIG 0 1 0 3, - HOT 0 7 0 7, ByG g1 0 2 0 2',
	'writes counted per partition: table and GSI, units by item size');

# Reads: GetItem (hit and miss: one unit each), a Query of HOT (its items'
# sizes summed, one unit), a Query of the GSI, st_api GetItem on BIG
# (3,000 bytes: one 4 KB unit), and a Query of BIG.
sql(q{
SELECT st_get('HOT', '1', 'Traffic');
SELECT st_get('HOT', 'missing', 'Traffic');
SELECT count(*) FROM st_query('HOT', "table" => 'Traffic');
SELECT count(*) FROM st_query('g1', "table" => 'Traffic', index => 'ByG');
SELECT st_api('GetItem', '{"TableName": "Traffic", "Key": {"PK": {"S": "BIG"}, "SK": {"S": "1"}}}');
});
is( sql(q{SELECT string_agg(coalesce(index_name, '-') || ' ' || partition_key || ' ' || reads || ' ' || read_units,
                          ', ' ORDER BY index_name NULLS FIRST, partition_key)
          FROM st_partition_traffic('Traffic')}),
	'- BIG 1 1, - HOT 3 3, ByG g1 1 1',
	'reads counted per partition, for the table and the GSI');

# Another session's counts are there once it commits; a transaction's
# writes cost twice.
sql(q{
SELECT st_transact('[
  {"Put": {"TableName": "Traffic", "Item": {"PK": {"S": "TX"}, "SK": {"S": "1"}}}},
  {"Put": {"TableName": "Traffic", "Item": {"PK": {"S": "TX"}, "SK": {"S": "2"}}}}]');
});
is(sql("SELECT writes || ' ' || write_units FROM st_partition_traffic('Traffic') WHERE partition_key = 'TX'"),
	'2 4', 'TransactWriteItems: two writes, doubled units');

# Switched off for a session: nothing counted.
sql(q{SET stdesign.track_traffic = off;
    SELECT st_put('{"PK": "OFF", "SK": "1"}', 'Traffic');});
is(sql("SELECT count(*) FROM st_partition_traffic('Traffic') WHERE partition_key = 'OFF'"), '0',
	'stdesign.track_traffic = off counts nothing');

# A bulk load of 5,000 small items into one partition: a peak far over
# 1,000 WCU in one second, and the write-sharding advice for it.
sql(q{SELECT st_put_all(jsonb_build_object('PK', 'EVENTS#2026-07-06', 'SK', 'TS#' || lpad(i::text, 5, '0')), 'Traffic')
      FROM generate_series(1, 5000) AS i});
my $hot = sql(q{SELECT partition_key || '|' || write_units || '|' || (peak_write_units > 800) || '|' || (limit_share > 0.8) || '|' || advice
                FROM st_hot_partitions('Traffic', 1)});
my ($key, $units, $peak, $share, $advice) = split(/\|/, $hot, 5);
is($key, 'EVENTS#2026-07-06', 'the hottest partition first');
is($units, '5000', 'its 5,000 writes counted');
is($peak, 'true', 'its per-second peak is near or over the 1,000 WCU partition limit');
is($share, 'true', 'and its share of the limit says so');
like($advice, qr/write-shard the key over \d+ keys \("EVENTS#2026-07-06#SHARD0"/, 'write-sharding advice');
like(sql(q{SELECT advice FROM st_hot_partitions('Traffic') WHERE partition_key = 'HOT'}), qr/^ok$/,
	'a quiet partition is ok');

# Contributor Insights from the same counters (st_contributor_insights):
# the busiest keys first, the bulk-loaded partition's peak throttle-worthy,
# the others not; per GSI; the counters run whether insights are enabled or
# not, so enabling changes no count.
is(sql(q{SELECT partition_key || ' ' || writes || ' ' || write_units || ' ' || (peak_write_units > 1000) || ' ' || throttle_worthy
         FROM st_contributor_insights('Traffic', top => 1)}),
	'EVENTS#2026-07-06 5000 5000 true true', 'st_contributor_insights: the busiest key, throttle-worthy');
is(sql(q{SELECT count(*) || ' ' || bool_or(throttle_worthy) FROM st_contributor_insights('Traffic', NULL, 100)
         WHERE partition_key <> 'EVENTS#2026-07-06'}),
	sql(q{SELECT count(DISTINCT partition_key) - 1 FROM st_partition_traffic('Traffic') WHERE index_name IS NULL}) . ' false',
	'st_contributor_insights: every other key of the table, none throttle-worthy');
is(sql(q{SELECT string_agg(partition_key, ',') FROM st_contributor_insights('Traffic', 'ByG')}),
	sql(q{SELECT string_agg(partition_key, ',' ORDER BY read_units + write_units DESC, partition_key) FROM st_partition_traffic('Traffic') WHERE index_name = 'ByG'}),
	'st_contributor_insights: a GSI\'s keys, busiest first');
my $before = sql(q{SELECT string_agg(partition_key || ' ' || reads || ' ' || writes, ',') FROM st_contributor_insights('Traffic', NULL, 100)});
sql(q{SELECT st_api('UpdateContributorInsights', '{"TableName": "Traffic", "ContributorInsightsAction": "ENABLE"}')});
is(sql(q{SELECT string_agg(partition_key || ' ' || reads || ' ' || writes, ',') FROM st_contributor_insights('Traffic', NULL, 100)}),
	$before, 'enabling insights changes no count');
sql(q{SELECT st_get('HOT', '1', 'Traffic')});
isnt(sql(q{SELECT string_agg(partition_key || ' ' || reads || ' ' || writes, ',') FROM st_contributor_insights('Traffic', NULL, 100)}),
	$before, 'a read after enabling is counted');
sql(q{SELECT st_api('UpdateContributorInsights', '{"TableName": "Traffic", "ContributorInsightsAction": "DISABLE"}')});

# Who may read the counts (issue 26, finding 5): they show the table's and
# its GSIs' key values, and which of them others read.  A role without
# SELECT on the table's relation is refused; a role with SELECT sees them;
# a role the relation's row-level security applies to is refused, since no
# policy filters the counts (docs/security.md).
sql(q{CREATE ROLE traffic_none LOGIN;
    CREATE ROLE traffic_reader LOGIN;
    GRANT USAGE ON SCHEMA stdesign, stdesign_data TO traffic_none, traffic_reader;
    GRANT SELECT ON stdesign.tables, stdesign.indexes TO traffic_none, traffic_reader;
    GRANT SELECT ON stdesign_data."Traffic" TO traffic_reader;});
for my $f ("st_partition_traffic('Traffic')", "st_hot_partitions('Traffic')", "st_contributor_insights('Traffic')")
{
	my ($frc, $fout, $ferr) = $node->psql('postgres', "SELECT partition_key FROM $f",
		extra_params => [ '-U', 'traffic_none' ]);
	like($ferr, qr/permission denied for table Traffic/, "$f: refused without SELECT on the table");
	is($fout, '', "$f: no key shown without SELECT");
	($frc, $fout, $ferr) = $node->psql('postgres', "SELECT count(*) > 0 FROM $f WHERE partition_key = 'EVENTS#2026-07-06'",
		extra_params => [ '-U', 'traffic_reader' ]);
	is($fout, 't', "$f: the keys for a role with SELECT");
}
sql(q{ALTER TABLE stdesign_data."Traffic" ENABLE ROW LEVEL SECURITY;
    CREATE POLICY quiet_only ON stdesign_data."Traffic" TO traffic_reader USING (pk <> 'EVENTS#2026-07-06');});
my ($rc, $out, $err) = $node->psql('postgres', "SELECT partition_key FROM st_partition_traffic('Traffic')",
	extra_params => [ '-U', 'traffic_reader' ]);
like($err, qr/row-level security applies to you/, 'refused to a role under row-level security');
is($out, '', 'no key shown under row-level security');
is(sql(q{SELECT count(*) > 0 FROM st_hot_partitions('Traffic')}), 't', 'the owner still sees them');
sql(q{DROP POLICY quiet_only ON stdesign_data."Traffic";
    ALTER TABLE stdesign_data."Traffic" DISABLE ROW LEVEL SECURITY;
    REVOKE ALL ON stdesign_data."Traffic" FROM traffic_reader;
    REVOKE ALL ON stdesign.tables, stdesign.indexes FROM traffic_none, traffic_reader;
    REVOKE ALL ON SCHEMA stdesign, stdesign_data FROM traffic_none, traffic_reader;
    DROP ROLE traffic_none, traffic_reader;});

# Resetting: not for PUBLIC; for a role granted it.
sql(q{CREATE ROLE traffic_user LOGIN;
    GRANT USAGE ON SCHEMA stdesign TO traffic_user;
    GRANT SELECT ON ALL TABLES IN SCHEMA stdesign TO traffic_user;
    GRANT SELECT ON ALL TABLES IN SCHEMA stdesign_data TO traffic_user;});
($rc, $out, $err) = $node->psql('postgres', 'SELECT st_partition_traffic_reset()',
	extra_params => [ '-U', 'traffic_user' ]);
like($err, qr/permission denied for function st_partition_traffic_reset/, 'reset is refused to PUBLIC');
sql('GRANT EXECUTE ON FUNCTION st_partition_traffic_reset() TO traffic_user');
($rc, $out, $err) = $node->psql('postgres', 'SELECT st_partition_traffic_reset()',
	extra_params => [ '-U', 'traffic_user' ]);
is($rc, 0, 'a granted role may reset');
is(sql("SELECT count(*) FROM st_partition_traffic('Traffic')"), '0', 'reset forgets every count');

# Scans: DynamoDB reads a Scan partition by partition, so each partition
# read counts one read and the read units of its items' summed sizes
# (A: 3 small items, 1 unit; B: a 5,000-byte item, 2 units; C: 1 unit), for
# the table or the index scanned; parallel segments each count the
# partitions they hold; a Limit counts only what it read.
sql(q{
SELECT st_create_table('{"TableName": "ScanT", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "SK", "AttributeType": "S"},
                           {"AttributeName": "G", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
  "GlobalSecondaryIndexes": [{"IndexName": "ByG", "KeySchema": [{"AttributeName": "G", "KeyType": "HASH"}],
                              "Projection": {"ProjectionType": "KEYS_ONLY"}}]}'::jsonb) IS NOT NULL;
SELECT st_put('{"PK": "A", "SK": "1", "G": "g1"}', 'ScanT');
SELECT st_put('{"PK": "A", "SK": "2", "v": "x"}', 'ScanT');
SELECT st_put('{"PK": "A", "SK": "3"}', 'ScanT');
SELECT st_put('{"PK": "B", "SK": "1", "G": "g1"}', 'ScanT');
SELECT st_put(jsonb_build_object('PK', 'B', 'SK', '2', 'v', repeat('y', 5000)), 'ScanT');
SELECT st_put('{"PK": "C", "SK": "1", "G": "g2", "v": "x"}', 'ScanT');
SELECT st_partition_traffic_reset();
});
my $scan_traffic = q{SELECT string_agg(coalesce(index_name, '-') || ' ' || partition_key || ' ' || reads || ' ' || read_units,
                          ', ' ORDER BY index_name NULLS FIRST, partition_key)
          FROM st_partition_traffic('ScanT')};
sql(q{SELECT count(*) FROM st_scan('ScanT')});
is(sql($scan_traffic), '- A 1 1, - B 1 2, - C 1 1', 'st_scan: one read per partition, units by its items');
sql(q{SELECT st_api('Scan', '{"TableName": "ScanT", "Segment": 0, "TotalSegments": 2}');
      SELECT st_api('Scan', '{"TableName": "ScanT", "Segment": 1, "TotalSegments": 2}');});
is(sql($scan_traffic), '- A 2 2, - B 2 4, - C 2 2', 'parallel Scan segments: each partition once, in its segment');
sql(q{SELECT st_api('Scan', '{"TableName": "ScanT", "IndexName": "ByG"}');
      SELECT count(*) FROM st_scan('ScanT', index => 'ByG');});
is(sql($scan_traffic), '- A 2 2, - B 2 4, - C 2 2, ByG g1 2 2, ByG g2 2 2', 'a Scan of a GSI counts on the index partitions');
sql(q{SELECT st_api('Query', '{"TableName": "ScanT", "IndexName": "ByG", "KeyConditionExpression": "G = :g",
                                "ExpressionAttributeValues": {":g": {"S": "g2"}}}')});
is(sql(q{SELECT reads FROM st_partition_traffic('ScanT') WHERE index_name = 'ByG' AND partition_key = 'g2'}), '3',
	'a Query of a GSI counts on its partition');
sql(q{SELECT st_api('Scan', '{"TableName": "ScanT", "Limit": 2}')});
is(sql($scan_traffic), '- A 3 3, - B 2 4, - C 2 2, ByG g1 2 2, ByG g2 3 3', 'a Scan with a Limit counts only the partitions it read');
sql(q{SELECT st_api('ExecuteStatement', '{"Statement": "SELECT * FROM \"ScanT\" WHERE v = ''x''"}')});
is(sql($scan_traffic), '- A 4 4, - B 3 6, - C 3 3, ByG g1 2 2, ByG g2 3 3',
	'a PartiQL SELECT that scans counts every partition, filtered items included');
# the studio's own reads (the checks' and the cost's measurements, an
# export) are no client's traffic; a Scan pattern run is
sql(q{SELECT st_set_model('ScanT', '{"type_attribute": null,
        "entities": {"E": {"keys": {"PK": "{p}", "SK": "{s}"}}},
        "patterns": {"all": {"op": "Scan", "rate": 1}, "one": {"op": "Query", "pk": "{p}", "example": {"p": "A"}},
                     "get": {"op": "GetItem", "pk": "{p}", "sk": "{s}", "example": {"p": "B", "s": "1"}}}}') IS NOT NULL;
      SELECT count(*) FROM st_check_model('ScanT');
      SELECT count(*) FROM st_model_cost('ScanT');
      SELECT count(*) FROM st_export('ScanT');
      SELECT length(st_studio_html('ScanT')) > 0;
      SELECT count(*) FROM st_studio_text('ScanT');
      SELECT st_export_workbench(ARRAY['ScanT']) IS NOT NULL;});
is(sql($scan_traffic), '- A 4 4, - B 3 6, - C 3 3, ByG g1 2 2, ByG g2 3 3',
	'measurements, exports and the studio page are not counted');
sql(q{SELECT count(*) FROM st_run_pattern('all', "table" => 'ScanT');
      SELECT count(*) FROM st_run_pattern('one', '{"p": "C"}', "table" => 'ScanT');});
is(sql($scan_traffic), '- A 5 5, - B 4 8, - C 5 5, ByG g1 2 2, ByG g2 3 3', 'st_run_pattern: a Scan and a Query counted');
# The studio's page shows the counts to a role that may read them (it
# looked for st_partition_traffic in a schema it is not in, and so never
# did), and leaves them out, without an error, for a role under row-level
# security; drawing it counts nothing.
my $page = sql(q{SELECT st_studio_html('ScanT')});
like($page, qr{<h3>Traffic counted since the last reset</h3><table class="traffic"><tbody><tr>},
	'the page shows the traffic counters');
like($page, qr{<tr>(<td>[^<]*</td>)*<td>partition_key: B</td>(<td>[^<]*</td>)*</tr>}, 'a partition\'s counts on the page');
like($page, qr{<td>reads: 4</td>(<td>[^<]*</td>)*<td>read_units: 8</td>(<td>[^<]*</td>)*<td>partition_key: B</td>},
	'with its reads and read units');
is(sql($scan_traffic), '- A 5 5, - B 4 8, - C 5 5, ByG g1 2 2, ByG g2 3 3', 'drawing the page counted nothing');
sql(q{CREATE ROLE page_rls LOGIN;
    GRANT USAGE ON SCHEMA stdesign, stdesign_data TO page_rls;
    GRANT SELECT ON stdesign.tables, stdesign.indexes, stdesign_data."ScanT" TO page_rls;
    ALTER TABLE stdesign_data."ScanT" ENABLE ROW LEVEL SECURITY;
    CREATE POLICY page_rls_all ON stdesign_data."ScanT" TO page_rls USING (true);});
($rc, $out, $err) = $node->psql('postgres', q{SELECT st_studio_html('ScanT') LIKE '%<h1>ScanT</h1>%',
                                               st_studio_html('ScanT') LIKE '%Traffic counted%'},
	extra_params => [ '-U', 'page_rls' ]);
is("$rc $out $err", '0 t|f ', 'under row-level security the page leaves the counters out');
sql(q{DROP POLICY page_rls_all ON stdesign_data."ScanT";
    ALTER TABLE stdesign_data."ScanT" DISABLE ROW LEVEL SECURITY;
    REVOKE ALL ON stdesign.tables, stdesign.indexes, stdesign_data."ScanT" FROM page_rls;
    REVOKE ALL ON SCHEMA stdesign, stdesign_data FROM page_rls;
    DROP ROLE page_rls;});
sql(q{SET stdesign.track_traffic = off; SELECT count(*) FROM st_scan('ScanT');});
is(sql(q{SELECT sum(reads) FROM st_partition_traffic('ScanT')}), '19', 'a Scan with the counters off counts nothing');
sql(q{SELECT st_drop_table('ScanT'); SELECT st_partition_traffic_reset();});

# Eviction: 300 partitions into a table of 100, one of them busy: at most
# 100 kept, the busy one among them.
sql(q{SELECT st_put(jsonb_build_object('PK', 'BUSY', 'SK', i::text), 'Traffic') FROM generate_series(1, 50) AS i});
for my $batch (0 .. 2)
{
	sql(qq{SELECT st_put(jsonb_build_object('PK', 'COLD' || i, 'SK', '1'), 'Traffic')
           FROM generate_series($batch * 100, $batch * 100 + 99) AS i});
}
my $kept = sql("SELECT count(*) FROM st_partition_traffic('Traffic')");
cmp_ok($kept, '<=', 100, "no more partitions kept than the setting allows ($kept)");
cmp_ok($kept, '>=', 50, 'eviction drops only some');
is(sql("SELECT writes FROM st_partition_traffic('Traffic') WHERE partition_key = 'BUSY'"), '50',
	'the busy partition survives eviction');

# A dropped table: its name no longer resolves; no crash.
sql(q{SELECT st_create_table('Gone') IS NOT NULL;
    SELECT st_put('{"PK": "a", "SK": "b"}', 'Gone');
    SELECT st_drop_table('Gone');});
($rc, $out, $err) = $node->psql('postgres', "SELECT * FROM st_partition_traffic('Gone')");
like($err, qr/ResourceNotFoundException/, 'a dropped table is not found');
is(sql('SELECT 1'), '1', 'the server is up');

# An import (st_import) counts nothing: DynamoDB's import from S3 consumes
# no write capacity of the table it fills.  Into an empty table (rows as
# COPY writes them, the indexes built at the end) and into a table with
# items, while a put on the same table is counted.
sql(q{
SELECT st_partition_traffic_reset();
SELECT st_create_table('{"TableName": "Loaded", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "SK", "AttributeType": "S"},
                           {"AttributeName": "G", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
  "GlobalSecondaryIndexes": [{"IndexName": "ByG", "KeySchema": [{"AttributeName": "G", "KeyType": "HASH"}],
                              "Projection": {"ProjectionType": "ALL"}}]}'::jsonb) IS NOT NULL;
SELECT st_import('Loaded', '{"Item": {"PK": {"S": "L1"}, "SK": {"S": "1"}, "G": {"S": "g1"}}}' || E'\n'
                           || '{"Item": {"PK": {"S": "L1"}, "SK": {"S": "2"}, "v": {"S": "' || repeat('y', 3000) || '"}}}' || E'\n'
                           || '{"Item": {"PK": {"S": "L2"}, "SK": {"S": "1"}}}');
});
is(sql(q{SELECT count(*) FROM st_partition_traffic('Loaded')}), '0',
	'an import into an empty table counts no traffic');
is(sql(q{SELECT count(*) FROM st_scan('Loaded')}), '3', 'the import wrote its items');
# (the scan just counted reads of L1 and L2: counted afresh from here)
sql(q{SELECT st_partition_traffic_reset();
      SELECT st_import('Loaded', '{"Item": {"PK": {"S": "L2"}, "SK": {"S": "1"}, "G": {"S": "g2"}}}');
      SELECT st_put('{"PK": "L3", "SK": "1"}', 'Loaded');});
is( sql(q{SELECT string_agg(coalesce(index_name, '-') || ' ' || partition_key || ' ' || writes || ' ' || write_units,
                          ', ' ORDER BY index_name NULLS FIRST, partition_key)
          FROM st_partition_traffic('Loaded') WHERE writes > 0}),
	'- L3 1 1',
	'an import into a table with items counts nothing either; a put is counted');
is(sql(q{SELECT count(*) FROM st_query('g1', "table" => 'Loaded', index => 'ByG')}), '1',
	'the imported items are in the GSI');

# A GSI whose key has several HASH attributes: its partitions are named by
# all of them (a JSON array of their texts), for writes, Query (st_api's
# and st_query_index) and Scan, not by the first attribute alone.
sql(q{SELECT st_api('CreateTable', '{"TableName": "MTraffic", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "r", "AttributeType": "S"},
    {"AttributeName": "t", "AttributeType": "N"}, {"AttributeName": "d", "AttributeType": "N"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}],
  "GlobalSecondaryIndexes": [{"IndexName": "ByRT", "Projection": {"ProjectionType": "ALL"},
    "KeySchema": [{"AttributeName": "r", "KeyType": "HASH"}, {"AttributeName": "t", "KeyType": "HASH"},
      {"AttributeName": "d", "KeyType": "RANGE"}]}]}') IS NOT NULL;
SELECT st_put('{"PK": "a", "r": "eu", "t": 2, "d": 1}', 'MTraffic');
SELECT st_put('{"PK": "b", "r": "eu", "t": 2, "d": 2}', 'MTraffic');
SELECT st_put('{"PK": "c", "r": "eu", "t": 3, "d": 1}', 'MTraffic');
SELECT st_put('{"PK": "d", "r": "eu"}', 'MTraffic');});
my $mtraffic = q{SELECT string_agg(partition_key || ' ' || reads || ' ' || writes, ', ' ORDER BY partition_key)
                   FROM st_partition_traffic('MTraffic') WHERE index_name = 'ByRT'};
is(sql($mtraffic), '["eu", "2"] 0 2, ["eu", "3"] 0 1',
	'writes of a multi-attribute GSI: per partition of all its HASH attributes');
sql(q{SELECT count(*) FROM st_query_index('MTraffic', 'ByRT', '["eu", 2]');
      SELECT count(*) FROM st_query_index('MTraffic', 'ByRT', '["eu", 2]', sk_from => '2');
      SELECT st_api('Query', '{"TableName": "MTraffic", "IndexName": "ByRT", "KeyConditionExpression": "r = :r AND t = :t",
        "ExpressionAttributeValues": {":r": {"S": "eu"}, ":t": {"N": "3"}}}');
      SELECT count(*) FROM st_scan('MTraffic', 'ByRT');});
is(sql($mtraffic), '["eu", "2"] 3 2, ["eu", "3"] 2 1', 'and so are its Query and Scan reads');
# An access pattern's Query of it too; the model's checks, which measure
# on the stored items, are no traffic.
sql(q{SELECT st_set_model('MTraffic', '{"type_attribute": null, "entities": {"E": {"keys": {"PK": "{id}"}}},
  "patterns": {"q": {"op": "Query", "index": "ByRT", "pk": ["{r}", "{t}"], "sk": [{">=": "{d}"}]}}}') IS NOT NULL;
      SELECT count(*) FROM st_run_pattern('q', '{"r": "eu", "t": 2, "d": 2}', 'MTraffic');
      SELECT count(*) FROM st_check_model('MTraffic');});
is(sql($mtraffic), '["eu", "2"] 4 2, ["eu", "3"] 2 1', 'a Query pattern of it: counted in its partition');

# Counts live in shared memory: a restart starts afresh.
$node->restart;
is(sql("SELECT count(*) FROM st_partition_traffic('Traffic')"), '0', 'a restart starts counting afresh');
sql(q{SELECT st_get('BUSY', '1', 'Traffic')});
is(sql("SELECT reads FROM st_partition_traffic('Traffic') WHERE partition_key = 'BUSY'"), '1', 'and counts again');

$node->stop;
done_testing();
