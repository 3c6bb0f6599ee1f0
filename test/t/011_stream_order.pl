# DynamoDB Streams under load, a crash and a standby: a stream holds every
# committed change exactly once, in order, and nothing rolled back.
#
#   1. Load: pgbench clients write one table with a NEW_AND_OLD_IMAGES
#      stream through every kind of transaction (short puts of new items,
#      plain SQL inserts, TransactWriteItems, long transactions with a
#      savepoint rolled back and a counter item's update, and transactions
#      rolled back), while a reader on the primary and one on a physical
#      standby poll st_stream_records with the last sequence number they
#      read, as a consumer going on AFTER_SEQUENCE_NUMBER does.  Then: each
#      reader's batches only ever grow (no record below one already read),
#      and each saw exactly the whole stream as read at the end (a record
#      that appeared behind one already read would be missing); every item
#      has exactly one INSERT record and every record's item is there (no
#      rolled-back write, none in a rolled-back savepoint); each counter's
#      MODIFY records go from each value to the next, in order.
#   2. Crash: the same load again, and a backend is killed with SIGKILL in
#      the middle of it (the postmaster then resets every backend and runs
#      crash recovery); after recovery the same checks of items against
#      records hold: every committed write has its record, no aborted one.
#   3. The standby, caught up, serves the same records in the same order.
#
#   STREAM_CLIENTS   pgbench clients (default 4)
#   STREAM_SECONDS   length of the first load (default 8)

use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep time);

$ENV{PGOPTIONS} = '-c client_min_messages=warning';
my $clients = $ENV{STREAM_CLIENTS} || 4;
my $seconds = $ENV{STREAM_SECONDS} || 8;

my $primary = PostgreSQL::Test::Cluster->new('stream_primary');
$primary->init(allows_streaming => 1);
$primary->append_conf('postgresql.conf', q{
log_statement = none
fsync = on
synchronous_commit = on
restart_after_crash = on
max_connections = 40
});
$primary->start;
$primary->safe_psql('postgres', "SELECT pg_create_physical_replication_slot('standby', true)");
$primary->backup('base');
my $standby = PostgreSQL::Test::Cluster->new('stream_standby');
$standby->init_from_backup($primary, 'base', has_streaming => 1);
$standby->append_conf('postgresql.conf', "log_statement = none\nprimary_slot_name = 'standby'\n");
$standby->start;
my $dir = $primary->basedir;

$primary->safe_psql('postgres', q{
CREATE EXTENSION stdesign;
SELECT st_create_table('Events') IS NOT NULL;
SELECT st_stream_enable('Events', 'NEW_AND_OLD_IMAGES') IS NOT NULL;
SELECT count(st_put(jsonb_build_object('PK', 'C' || i, 'SK', 'ctr', 'n', 0), 'Events'))
  FROM generate_series(0, 63) AS i;
});
my $rel = $primary->safe_psql('postgres',
	q{SELECT format('%I.%I', 'stdesign_data', relation_name) FROM stdesign.tables WHERE table_name = 'Events'});

# Every transaction's changes carry its transaction id in their sort keys:
# unique, and an item's presence says its transaction committed.
append_to_file("$dir/short.sql", q{
SELECT st_put(jsonb_build_object('PK', 'S' || :client_id, 'SK', 'i' || txid_current()), 'Events');
});
append_to_file("$dir/sql.sql", qq{
INSERT INTO $rel (item) SELECT jsonb_build_object('PK', jsonb_build_object('S', 'Q' || :client_id),
	'SK', jsonb_build_object('S', 'q' || txid_current() || '-' || i)) FROM generate_series(1, 3) AS i;
});
append_to_file("$dir/transact.sql", q{
SELECT st_transact(jsonb_build_array(
  jsonb_build_object('Put', jsonb_build_object('TableName', 'Events',
    'Item', jsonb_build_object('PK', 'T' || :client_id, 'SK', 'x' || txid_current()))),
  jsonb_build_object('Put', jsonb_build_object('TableName', 'Events',
    'Item', jsonb_build_object('PK', 'T' || :client_id, 'SK', 'y' || txid_current())))), plain => true);
});
append_to_file("$dir/long.sql", q{
BEGIN;
SELECT st_put(jsonb_build_object('PK', 'L' || :client_id, 'SK', 'a' || txid_current()), 'Events');
SELECT pg_sleep(0.03);
SAVEPOINT s;
SELECT st_put(jsonb_build_object('PK', 'L' || :client_id, 'SK', 'abort-sp' || txid_current()), 'Events');
ROLLBACK TO SAVEPOINT s;
SELECT st_update('C' || :client_id, 'ctr', 'SET n = n + :one', 'Events', "values" => '{":one": 1}');
SELECT st_put(jsonb_build_object('PK', 'L' || :client_id, 'SK', 'b' || txid_current()), 'Events');
COMMIT;
});
append_to_file("$dir/abort.sql", q{
BEGIN;
SELECT st_put(jsonb_build_object('PK', 'A' || :client_id, 'SK', 'abort' || txid_current()), 'Events');
SELECT st_update('C' || :client_id, 'ctr', 'SET n = n + :one', 'Events', "values" => '{":one": 1}');
ROLLBACK;
});

sub load_cmd
{
	my ($secs) = @_;
	return [ 'pgbench', '-n', '-c', $clients, '-j', '2', '-T', $secs,
		'-h', $primary->host, '-p', $primary->port,
		'-f', "$dir/short.sql\@4", '-f', "$dir/sql.sql\@1", '-f', "$dir/transact.sql\@2",
		'-f', "$dir/long.sql\@2", '-f', "$dir/abort.sql\@1", 'postgres' ];
}

# The records after a sequence number, as "<seq> <event> <pk>/<sk>" lines.
sub records_after
{
	my ($node, $after) = @_;
	return $node->safe_psql('postgres', qq{
SELECT string_agg(format('%s %s %s/%s', r->'dynamodb'->>'SequenceNumber', r->>'eventName',
                         r->'dynamodb'->'Keys'->'PK'->>'S', r->'dynamodb'->'Keys'->'SK'->>'S'), E'\\n' ORDER BY o)
  FROM st_stream_records('Events', $after, 1000) WITH ORDINALITY AS x(r, o)});
}

# A reader: polls after its last sequence number; false when a batch held
# a record not above the last one read.
sub poll
{
	my ($node, $reader) = @_;
	for my $line (split /\n/, records_after($node, $reader->{last}))
	{
		my ($seq) = split / /, $line;
		if ($seq <= $reader->{last})
		{
			$reader->{bad} .= "$line after $reader->{last}\n";
			next;
		}
		$reader->{last} = $seq;
		push @{ $reader->{lines} }, $line;
	}
}

# The whole stream, page by page.
sub whole_stream
{
	my ($node) = @_;
	my @all;
	my $last = 0;
	while (1)
	{
		my @page = split /\n/, records_after($node, $last);
		last unless @page;
		push @all, @page;
		($last) = split / /, $page[-1];
	}
	return @all;
}

# Items against records, on the primary as it is now.
sub consistent
{
	my ($label) = @_;
	my @checks = (
		[ 'every item has exactly one INSERT record, every INSERT record its item', 0, qq{
SELECT count(*) FROM (SELECT pk, sk FROM $rel WHERE sk <> 'ctr') i
  FULL JOIN (SELECT keys->'PK'->>'S' AS pk, keys->'SK'->>'S' AS sk, count(*) AS n
               FROM (SELECT r.* FROM stdesign.streams st, stdesign.stream_record_rows(st.stream_id) r) rec WHERE event_name = 'INSERT' AND keys->'SK'->>'S' <> 'ctr'
              GROUP BY 1, 2) r USING (pk, sk)
 WHERE i.pk IS NULL OR r.pk IS NULL OR r.n <> 1} ],
		[ 'no record of a rolled-back write or savepoint', 0, q{
SELECT count(*) FROM (SELECT r.* FROM stdesign.streams st, stdesign.stream_record_rows(st.stream_id) r) rec WHERE keys->'SK'->>'S' LIKE 'abort%'} ],
		[ 'only INSERT records but for the counters', 0, q{
SELECT count(*) FROM (SELECT r.* FROM stdesign.streams st, stdesign.stream_record_rows(st.stream_id) r) rec WHERE event_name <> 'INSERT' AND keys->'SK'->>'S' <> 'ctr'} ],
		[ 'each counter\'s MODIFY records go from each value to the next, in order, to its value', 0, qq{
WITH m AS (SELECT keys->'PK'->>'S' AS pk, sequence_number AS s,
                  (old_image->'n'->>'N')::int AS o, (new_image->'n'->>'N')::int AS n
             FROM (SELECT r.* FROM stdesign.streams st, stdesign.stream_record_rows(st.stream_id) r) rec WHERE event_name = 'MODIFY'),
     c AS (SELECT pk, (item->'n'->>'N')::int AS n FROM $rel WHERE sk = 'ctr')
SELECT (SELECT count(*) FROM m WHERE n <> o + 1)
     + (SELECT count(*) FROM (SELECT o, lag(n) OVER (PARTITION BY pk ORDER BY s) AS prev FROM m) x
         WHERE prev IS NOT NULL AND prev <> o)
     + (SELECT count(*) FROM c WHERE n <> (SELECT count(*) FROM m WHERE m.pk = c.pk))} ],
		[ 'sequence numbers are unique', 0, q{
SELECT count(*) - count(DISTINCT sequence_number) FROM (SELECT r.* FROM stdesign.streams st, stdesign.stream_record_rows(st.stream_id) r) rec} ]);
	for my $c (@checks)
	{
		is($primary->safe_psql('postgres', $c->[2]), $c->[1], "$label: $c->[0]");
	}
}

# ---------- 1. load, with a reader on each node ----------
my %readers = (primary => { node => $primary, last => 0, lines => [], bad => '' },
	standby => { node => $standby, last => 0, lines => [], bad => '' });
my ($out, $err) = ('', '');
my $t0 = time();
my $load = IPC::Run::start(load_cmd($seconds), '>', \$out, '2>', \$err);
my $polls = 0;
while ($load->pumpable)
{
	poll($_->{node}, $_) for values %readers;
	$polls++;
	$load->pump_nb;
	usleep(50_000);
}
$load->finish;
like($out, qr/number of failed transactions: 0 /, 'load: no transaction failed') or diag("$out\n$err");
my ($txns) = $out =~ /number of transactions actually processed: (\d+)/;
cmp_ok($txns // 0, '>', 50, "load: transactions ran (" . ($txns // 0) . ", $polls polls)");
$primary->wait_for_catchup($standby, 'replay', $primary->lsn('flush'));
poll($_->{node}, $_) for values %readers;
my @whole = whole_stream($primary);
cmp_ok(scalar(@whole), '>', 100, 'load: the stream holds the changes (' . scalar(@whole) . ' records)');
for my $name (sort keys %readers)
{
	my $r = $readers{$name};
	is($r->{bad}, '', "load, reader on the $name: no record below one already read");
	is(join("\n", @{ $r->{lines} }), join("\n", @whole),
		"load, reader on the $name: every record of the stream exactly once, in order");
}
consistent('load');

# ---------- 2. crash mid-load ----------
my ($out2, $err2) = ('', '');
my $load2 = IPC::Run::start(load_cmd(20), '>', \$out2, '2>', \$err2);
usleep(2_000_000);
my $victim = '';
for (1 .. 50)
{
	$victim = $primary->safe_psql('postgres',
		q{SELECT pid FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()
		    AND datname = 'postgres' AND query NOT LIKE '%pg_stat_activity%' ORDER BY pid LIMIT 1});
	last if $victim =~ /^\d+$/;
	usleep(100_000);
}
ok($victim =~ /^\d+$/ && kill('KILL', $victim), "crash: a writing backend ($victim) killed with SIGKILL");
$load2->finish;
# pg_isready, not a query: psql against a server still in recovery exits
# before reading its input, and the write to it fails
my $back = 0;
for (1 .. 600)
{
	if (run_log([ 'pg_isready', '-q', '-h', $primary->host, '-p', $primary->port ]))
	{
		$back = 1;
		last;
	}
	usleep(100_000);
}
ok($back, 'crash: the primary is back after crash recovery');
like(slurp_file($primary->logfile), qr/all server processes terminated; reinitializing/,
	'crash: the postmaster reset every backend');
consistent('crash');
my @after = whole_stream($primary);
cmp_ok(scalar(@after), '>', scalar(@whole), 'crash: the stream grew during the second load');
is(join("\n", @after[0 .. $#whole]), join("\n", @whole), 'crash: the records read before are unchanged');

# ---------- 3. the standby ----------
$primary->wait_for_catchup($standby, 'replay', $primary->lsn('flush'));
is(join("\n", whole_stream($standby)), join("\n", @after),
	'standby: the same records in the same order as the primary');
note(sprintf('ran in %.0f s', time() - $t0));

$_->stop for ($standby, $primary);
done_testing();
