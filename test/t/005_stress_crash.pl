# Stress and crash test of st_transact, about a minute in all.
#
#   1. Load: several pgbench clients at once do random transfers between
#      accounts (one st_transact: an Update with "balance >= :a" on the
#      source, an Update on the destination and a Put of a TRANSFER#<id>
#      marker recording the transfer, under a ClientRequestToken) and
#      adjacency-list enrollments (one st_transact of two Puts,
#      STUDENT#/COURSE# and COURSE#/STUDENT#).  Each client appends to a log
#      every transfer's outcome (applied or cancelled) and every enrollment
#      that returned success.  Then the invariants: the total is conserved,
#      no balance is negative, every balance is its opening balance plus
#      what the markers say came in minus what went out (no half transfer,
#      no transfer without its marker), the recorded tokens are exactly
#      those of the applied transfers, every enrollment is there in both
#      directions, every success the clients saw is there and no cancelled
#      transfer left a marker, and no client was aborted or failed (an
#      internal error, a deadlock).  The log is complete first: it has one
#      line per transaction pgbench counted, script by script.
#   2. Crash: the same load again, and after a few seconds the postmaster
#      and its backends are killed with SIGKILL in the middle of it; the
#      cluster is restarted (crash recovery), and the same invariants are
#      checked, including that every transaction that returned success
#      before the crash survived it.
#   3. After recovery, a short load again: it runs clean.
#
#   STRESS_CLIENTS      pgbench clients (default 4)
#   STRESS_SECONDS      length of the load without a crash (default 15)
#   STRESS_CRASH_AFTER  seconds of load before the kill (default 5)

use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep);

$ENV{PGOPTIONS} = '-c client_min_messages=warning';
my $clients = $ENV{STRESS_CLIENTS} || 4;
my $seconds = $ENV{STRESS_SECONDS} || 15;
my $crash_after = $ENV{STRESS_CRASH_AFTER} || 5;
my $accounts = 50;
my $opening = 100;    # per account

my $node = PostgreSQL::Test::Cluster->new('stress');
$node->init;
# fsync and synchronous commit on: what returned success is on disk.
$node->append_conf('postgresql.conf', q{
log_statement = none
fsync = on
synchronous_commit = on
max_connections = 50
});
$node->start;
my $dir = $node->basedir;

# ---------- set-up ----------
$node->safe_psql('postgres', qq{
CREATE EXTENSION stdesign;
SELECT st_create_table('Stress') IS NOT NULL;
SELECT count(st_put(jsonb_build_object('PK', 'ACCT#' || i, 'SK', 'ACCT', 'balance', $opening), 'Stress'))
  FROM generate_series(1, $accounts) AS i;

-- A transfer: both balances and its marker, or nothing.  Returns 1 when it
-- was applied, 0 when cancelled (the source lacked the amount); any other
-- error (a deadlock, an internal error) reaches the client.
CREATE FUNCTION stress_transfer(id bigint, src int, dst int, amount int) RETURNS int
LANGUAGE plpgsql AS \$\$
BEGIN
  IF src = dst THEN
    dst := src % $accounts + 1;
  END IF;
  PERFORM st_transact(jsonb_build_array(
    jsonb_build_object('Update', jsonb_build_object('TableName', 'Stress',
      'Key', jsonb_build_object('PK', 'ACCT#' || src, 'SK', 'ACCT'),
      'UpdateExpression', 'SET balance = balance - :a',
      'ConditionExpression', 'balance >= :a',
      'ExpressionAttributeValues', jsonb_build_object(':a', amount))),
    jsonb_build_object('Update', jsonb_build_object('TableName', 'Stress',
      'Key', jsonb_build_object('PK', 'ACCT#' || dst, 'SK', 'ACCT'),
      'UpdateExpression', 'SET balance = balance + :a',
      'ExpressionAttributeValues', jsonb_build_object(':a', amount))),
    jsonb_build_object('Put', jsonb_build_object('TableName', 'Stress',
      'Item', jsonb_build_object('PK', 'TRANSFER#' || id, 'SK', 'TRANSFER',
                                 'src', src, 'dst', dst, 'amount', amount),
      'ConditionExpression', 'attribute_not_exists(PK)'))),
    client_request_token => 'transfer-' || id, plain => true);
  RETURN 1;
EXCEPTION WHEN SQLSTATE 'SD005' THEN
  RETURN 0;
END
\$\$;

-- What the clients saw, loaded from their log after each run:
-- T <id> <1 applied, 0 cancelled> and E <student> <course>.
CREATE TABLE stress_ok (kind text, a bigint, b bigint);
});
is($node->safe_psql('postgres', q{SELECT count(*) FROM stdesign_data."Stress"}), $accounts,
	"set-up: $accounts accounts");

append_to_file("$dir/transfer.sql", q{
\set n :n + 1
\set id :phase * 1000000000 + :client_id * 10000000 + :n
\set src random(1, :naccounts)
\set dst random(1, :naccounts)
\set amount random(1, 60)
SELECT stress_transfer(:id, :src, :dst, :amount) AS ok \gset
\shell echo T :id :ok >> :okfile
});
append_to_file("$dir/enroll.sql", q{
\set student random(1, 300)
\set course random(1, 25)
SELECT st_transact(jsonb_build_array(
  jsonb_build_object('Put', jsonb_build_object('TableName', 'Stress',
    'Item', jsonb_build_object('PK', 'STUDENT#' || :student, 'SK', 'COURSE#' || :course,
                               'entity_type', 'Enrollment', 'at', clock_timestamp()::text))),
  jsonb_build_object('Put', jsonb_build_object('TableName', 'Stress',
    'Item', jsonb_build_object('PK', 'COURSE#' || :course, 'SK', 'STUDENT#' || :student,
                               'entity_type', 'Enrollment', 'at', clock_timestamp()::text)))),
  plain => true);
\shell echo E :student :course >> :okfile
});

# load_cmd <phase> <seconds>: pgbench's command line
sub load_cmd
{
	my ($phase, $secs) = @_;
	return [ 'pgbench', '-n', '-M', 'prepared', '-c', $clients, '-j', '2', '-T', $secs,
		'-h', $node->host, '-p', $node->port,
		'-D', 'n=0', '-D', "phase=$phase", '-D', "naccounts=$accounts", '-D', "okfile=$dir/ok$phase.log",
		'-f', "$dir/transfer.sql\@3", '-f', "$dir/enroll.sql\@1",
		'--failures-detailed', '--verbose-errors', 'postgres' ];
}

# lines <file> <kind>: how many lines of that kind a log has
sub lines
{
	my ($file, $kind) = @_;
	return 0 unless -e $file;
	return scalar(grep { /^$kind / } split /\n/, slurp_file($file));
}

# script_counts <pgbench output>: transactions counted per script (transfer, enroll)
sub script_counts
{
	my ($out) = @_;
	my @counts = $out =~ /^ - (\d+) transactions \(/mg;
	return @counts;
}

# log_complete <label> <log file> <counts>: the log has a line for every
# transfer and enrollment pgbench counted.  A client may also have finished
# transactions as the time ran out, which pgbench leaves out of its counts:
# one per client in most runs, but a loaded machine has shown six lines more
# than pgbench counted with four clients, so up to two per client.  The
# lower bound is the check that matters: no transaction reported without
# its line.
sub log_complete
{
	my ($label, $file, @counts) = @_;
	my @got = (lines($file, 'T'), lines($file, 'E'));
	my $ok = @counts == 2;
	for my $i (0 .. 1)
	{
		$ok &&= $got[$i] >= $counts[$i] && $got[$i] <= $counts[$i] + 2 * $clients;
	}
	ok($ok, "$label: the log has a line for every transfer and enrollment pgbench ran")
	  or diag("log: @got; pgbench: @counts");
}

# invariants <label> <log files...>: every check on the data as it is now,
# against what the clients saw.
sub invariants
{
	my ($label, @logs) = @_;
	my $all = "$dir/ok-$label.log";
	my $text = join('', map { -e $_ ? slurp_file($_) : '' } @logs);
	unlink $all;
	append_to_file($all, $text);
	my $transfers = lines($all, 'T');
	my $applied = scalar(grep { /^T \d+ 1$/ } split /\n/, $text);
	my $enrollments = lines($all, 'E');
	cmp_ok($applied, '>', 0, "$label: the log holds applied transfers ($applied of $transfers)");
	cmp_ok($enrollments, '>', 0, "$label: the log holds enrollments ($enrollments)");
	is($node->safe_psql('postgres', "TRUNCATE stress_ok; COPY stress_ok FROM '$all' WITH (DELIMITER ' '); SELECT count(*) FROM stress_ok"),
		$transfers + $enrollments, "$label: the whole log is loaded");
	my @checks = (
		[ 'total conserved', $accounts * $opening,
			q{SELECT sum((item->'balance'->>'N')::numeric) FROM stdesign_data."Stress" WHERE pk LIKE 'ACCT#%'} ],
		[ 'no negative balance', 0,
			q{SELECT count(*) FROM stdesign_data."Stress" WHERE pk LIKE 'ACCT#%' AND (item->'balance'->>'N')::numeric < 0} ],
		[ 'every balance is its opening balance plus its transfer markers', 0, qq{
WITH t AS (SELECT (item->'src'->>'N')::int AS src, (item->'dst'->>'N')::int AS dst, (item->'amount'->>'N')::numeric AS amount
             FROM stdesign_data."Stress" WHERE pk LIKE 'TRANSFER#%'),
     flow AS (SELECT src AS acct, -amount AS delta FROM t UNION ALL SELECT dst, amount FROM t)
SELECT count(*) FROM stdesign_data."Stress" a
 WHERE a.pk LIKE 'ACCT#%'
   AND (a.item->'balance'->>'N')::numeric <> $opening + coalesce((SELECT sum(delta) FROM flow WHERE 'ACCT#' || flow.acct = a.pk), 0)} ],
		[ 'the recorded tokens are those of the applied transfers', 0, q{
SELECT count(*) FROM (SELECT substr(pk, 10) AS id FROM stdesign_data."Stress" WHERE pk LIKE 'TRANSFER#%') m
  FULL JOIN (SELECT substr(token, 10) AS id FROM stdesign.transact_tokens WHERE token LIKE 'transfer-%') t
  USING (id) WHERE m.id IS NULL OR t.id IS NULL} ],
		[ 'every enrollment in both directions', 0, q{
SELECT count(*) FROM stdesign_data."Stress" a
 WHERE ((a.pk LIKE 'STUDENT#%' AND a.sk LIKE 'COURSE#%') OR (a.pk LIKE 'COURSE#%' AND a.sk LIKE 'STUDENT#%'))
   AND NOT EXISTS (SELECT FROM stdesign_data."Stress" b WHERE b.pk = a.sk AND b.sk = a.pk)} ],
		[ "all $applied transfers that returned success are there", 0, q{
SELECT count(*) FROM stress_ok o WHERE kind = 'T' AND b = 1 AND NOT EXISTS
  (SELECT FROM stdesign_data."Stress" s WHERE s.pk = 'TRANSFER#' || o.a AND s.sk = 'TRANSFER')} ],
		[ 'no cancelled transfer left a marker', 0, q{
SELECT count(*) FROM stress_ok o WHERE kind = 'T' AND b = 0 AND EXISTS
  (SELECT FROM stdesign_data."Stress" s WHERE s.pk = 'TRANSFER#' || o.a)} ],
		[ "all $enrollments enrollments that returned success are there", 0, q{
SELECT count(*) FROM stress_ok o WHERE kind = 'E' AND NOT EXISTS
  (SELECT FROM stdesign_data."Stress" s WHERE s.pk = 'STUDENT#' || o.a AND s.sk = 'COURSE#' || o.b)} ]);
	for my $check (@checks)
	{
		my ($what, $want, $sql) = @$check;
		my ($rc, $out, $err) = $node->psql('postgres', $sql);
		is("$rc|$out|$err", "0|$want|", "$label: $what");
	}
	return;
}

# ---------- 1. load ----------
my ($out, $err) = ('', '');
my $ok = IPC::Run::run(load_cmd(1, $seconds), '>', \$out, '2>', \$err);
note($out);
ok($ok && $out !~ /aborted/, 'load: no client aborted') or diag($err);
like($out, qr/^number of failed transactions: 0 /m, 'load: no failed transaction (deadlock, serialization or other error)');
my @counts = script_counts($out);
is(scalar(@counts), 2, 'load: pgbench reports both scripts');
log_complete('load', "$dir/ok1.log", @counts);
invariants('load', "$dir/ok1.log");

# ---------- 2. crash ----------
my $postmaster = (split /\n/, slurp_file($node->data_dir . '/postmaster.pid'))[0];
ok(kill(0, $postmaster), "crash: the postmaster runs (pid $postmaster)");
my ($out2, $err2) = ('', '');
my $load = IPC::Run::start(load_cmd(2, $seconds + 30), '>', \$out2, '2>', \$err2);
sleep($crash_after);
cmp_ok(lines("$dir/ok2.log", 'T'), '>', 0, 'crash: transactions returned success before the kill');
my @children = split ' ', `ps -o pid= --ppid $postmaster`;
kill 'KILL', $postmaster, @children;
$load->finish;
# The killed postmaster may linger as a zombie where nothing reaps orphans
# (a container's init): then its lock files look in use.  Remove the ones
# that name it, once it is dead or a zombie, as an administrator would.
my $state;
for (1 .. 50)
{
	$state = `ps -o stat= -p $postmaster`;
	chomp $state;
	last if $state eq '' || $state =~ /^Z/;
	usleep(100_000);
}
ok($state eq '' || $state =~ /^Z/, 'crash: the postmaster is gone');
for my $lock ($node->data_dir . '/postmaster.pid', $node->host . '/.s.PGSQL.' . $node->port . '.lock')
{
	unlink $lock if -e $lock && (split /\n/, slurp_file($lock))[0] eq $postmaster;
}
$node->kill9;    # the node forgets the dead postmaster
ok($node->start(fail_ok => 1), 'crash: the server restarts');
like(slurp_file($node->logfile), qr/database system was not properly shut down; automatic recovery in progress/,
	'crash: the restart ran crash recovery');
invariants('recovered', "$dir/ok1.log", "$dir/ok2.log");

# ---------- 3. after recovery, a new load runs clean ----------
($out, $err) = ('', '');
$ok = IPC::Run::run(load_cmd(3, 3), '>', \$out, '2>', \$err);
ok($ok && $out =~ /^number of failed transactions: 0 /m, 'after recovery: a new load runs clean') or diag("$out\n$err");
@counts = script_counts($out);
log_complete('after recovery', "$dir/ok3.log", @counts);
invariants('final', "$dir/ok1.log", "$dir/ok2.log", "$dir/ok3.log");

$node->stop;
done_testing();
