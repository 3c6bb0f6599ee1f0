# The background workers run a role's code as that role, restricted, through
# the commit, and nothing a request or a batch sets reaches the next one
# (src/common/st_work.c).  A table-admin role (the grants of docs/security.md) plants,
# on its own tables, a deferred constraint trigger that tries ALTER ROLE
# ... SUPERUSER and CREATE TEMP TABLE, logs who it runs as and the settings
# it sees, then sets search_path, a placeholder setting and
# default_transaction_read_only with set_config(..., false), and takes a
# session-level advisory lock (pg_advisory_lock):
#
#   - the time-to-live worker (one item per batch) expires three of its
#     items: every batch runs the trigger as the admin, refused both, with
#     the server's settings, and deletes its item;
#   - the HTTP worker (one, so that every request meets the same session):
#     after the admin's PutItem whose BEFORE trigger sets the same settings,
#     another role's PutItem on its own table sees the server's settings,
#     and writes; the admin's PutItem runs the deferred trigger as the
#     admin, and the other role's next request sees none of its settings.

use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use StdesignSigV4;

$ENV{PGOPTIONS} = '-c client_min_messages=warning';

my $port = PostgreSQL::Test::Cluster::get_free_port();
my $node = PostgreSQL::Test::Cluster->new('worker_role');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'stdesign'
stdesign.ttl_interval = 1
stdesign.ttl_batch_size = 1
stdesign.http_port = $port
stdesign.http_workers = 1
stdesign.http_auth = 'sigv4'
log_statement = none
});
$node->start;

# The admin: the table-admin grants of docs/security.md, and a schema of its own.
$node->safe_psql('postgres', q{
CREATE EXTENSION stdesign;
CREATE ROLE tadmin LOGIN;
GRANT USAGE, CREATE ON SCHEMA stdesign_data TO tadmin;
GRANT USAGE ON SCHEMA stdesign TO tadmin;
GRANT SELECT ON stdesign.tables, stdesign.indexes TO tadmin;
CREATE SCHEMA tadmin_s AUTHORIZATION tadmin;
CREATE TABLE public.wlog (tag text, who text, sp text, x text, y text, ro text, alter_res text, temp_res text);
GRANT INSERT, SELECT ON public.wlog TO PUBLIC;
});

# The deferred trigger: logs, tries to escalate, then sets.
my $grab = q{
CREATE FUNCTION tadmin_s.grab() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  a text := 'altered';
  t text := 'temp table created';
BEGIN
  BEGIN EXECUTE 'ALTER ROLE tadmin SUPERUSER'; EXCEPTION WHEN OTHERS THEN a := SQLERRM; END;
  BEGIN EXECUTE 'CREATE TEMP TABLE grab_probe (x int)'; EXCEPTION WHEN OTHERS THEN t := SQLERRM; END;
  INSERT INTO public.wlog VALUES (TG_ARGV[0], current_user, current_setting('search_path'),
    current_setting('tadmin.x', true), current_setting('tadmin.y', true),
    current_setting('default_transaction_read_only'), a, t);
  PERFORM set_config('search_path', 'tadmin_s, pg_catalog', false);
  PERFORM set_config('tadmin.y', 'planted', false);
  PERFORM set_config('default_transaction_read_only', 'on', false);
  PERFORM pg_advisory_lock(26026);
  RETURN NULL;
END $$;
};
my $now = 'extract(epoch FROM now())::bigint';
$node->safe_psql('postgres', qq{
SET ROLE tadmin;
$grab
SELECT st_create_table('TtlOwned') IS NOT NULL;
SELECT format('CREATE CONSTRAINT TRIGGER grab AFTER DELETE ON stdesign_data.%I
                 DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION tadmin_s.grab(%L)', relation_name, 'ttl')
  FROM stdesign.tables WHERE table_name = 'TtlOwned' \\gexec
SELECT count(st_put(jsonb_build_object('PK', 'S', 'SK', 'old#' || i, 'expires', $now - 60), 'TtlOwned'))
  FROM generate_series(1, 3) i;
SELECT st_update_ttl('TtlOwned', 'expires');
});

# ---------- the time-to-live worker ----------

ok($node->poll_query_until('postgres', q{SELECT count(*) = 0 FROM stdesign_data."TtlOwned"}),
	'ttl: the worker expires the three items, one batch each');
is($node->safe_psql('postgres', q{SELECT count(*) FROM public.wlog WHERE tag = 'ttl'}),
	'3', 'ttl: the deferred trigger fired once per batch');
is($node->safe_psql('postgres', q{SELECT string_agg(DISTINCT who, ',') FROM public.wlog WHERE tag = 'ttl'}),
	'tadmin', 'ttl: the deferred trigger ran as the owner');
is($node->safe_psql('postgres', q{SELECT rolsuper FROM pg_roles WHERE rolname = 'tadmin'}),
	'f', 'ttl: ALTER ROLE ... SUPERUSER in the deferred trigger did not make the owner superuser');
is($node->safe_psql('postgres', q{
SELECT count(*) FROM public.wlog WHERE tag = 'ttl' AND alter_res <> 'altered'
   AND temp_res LIKE '%within security-restricted operation%'}),
	'3', 'ttl: the deferred trigger ran in a security-restricted operation (no temporary table)');
is($node->safe_psql('postgres', q{
SELECT string_agg(DISTINCT sp || '|' || coalesce(y, '') || '|' || ro, ',') FROM public.wlog WHERE tag = 'ttl'}),
	'"$user", public||off',
	'ttl: no batch sees what the one before set (search_path, a placeholder, default_transaction_read_only)');
ok($node->poll_query_until('postgres', q{
SELECT count(*) = 0 FROM pg_locks WHERE locktype = 'advisory' AND objid IN (26026, 26027) AND objsubid = 1}),
	'ttl: the session-level advisory lock a batch took is not kept by the worker');

# The admin holds a lock on its own relation (LOCK TABLE in an open
# transaction; EXCLUSIVE, which lets the checks below read it): its
# table's batches wait a bounded time, and the tables after it in the
# round still expire.
$node->safe_psql('postgres', qq{
SET ROLE tadmin;
SELECT st_create_table('AaLocked') IS NOT NULL;
SELECT st_put(jsonb_build_object('PK', 'S', 'SK', 'x', 'expires', $now - 60), 'AaLocked') IS NOT NULL;
SELECT st_update_ttl('AaLocked', 'expires');
});
my $locker = $node->background_psql('postgres', on_error_stop => 1);
$locker->query_safe(q{SET ROLE tadmin});
$locker->query_safe(q{BEGIN});
$locker->query_safe(q{LOCK TABLE stdesign_data."AaLocked" IN EXCLUSIVE MODE});
$node->safe_psql('postgres', qq{
SELECT st_create_table('ZzAfter') IS NOT NULL;
SELECT st_put(jsonb_build_object('PK', 'S', 'SK', 'x', 'expires', $now - 60), 'ZzAfter') IS NOT NULL;
SELECT st_update_ttl('ZzAfter', 'expires');
});
ok($node->poll_query_until('postgres', q{SELECT count(*) = 0 FROM stdesign_data."ZzAfter"}),
	'ttl: a table whose owner holds a lock on its relation does not stop the tables after it');
is($node->safe_psql('postgres', q{SELECT count(*) FROM stdesign_data."AaLocked"}),
	'1', 'ttl: ... whose own item waits for the lock');
$locker->quit;
ok($node->poll_query_until('postgres', q{SELECT count(*) = 0 FROM stdesign_data."AaLocked"}),
	'ttl: ... and expires once it is released');

# ---------- the HTTP worker ----------


sub key_of
{
	my ($role) = @_;
	return split(/\|/, $node->safe_psql('postgres',
		"SELECT access_key_id || '|' || secret_access_key FROM st_create_access_key('$role')"));
}

# The admin's table, with a BEFORE trigger that sets the three settings;
# another role's table, whose trigger logs what that role's requests see.
$node->safe_psql('postgres', q{
SET ROLE tadmin;
SELECT st_create_table('HttpOwned') IS NOT NULL;
CREATE FUNCTION tadmin_s.plant() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM set_config('search_path', 'tadmin_s, pg_catalog', false);
  PERFORM set_config('tadmin.x', '1', false);
  PERFORM set_config('default_transaction_read_only', 'on', false);
  PERFORM pg_advisory_lock(26027);
  RETURN NEW;
END $$;
SELECT format('CREATE TRIGGER plant BEFORE INSERT ON stdesign_data.%I FOR EACH ROW EXECUTE FUNCTION tadmin_s.plant()',
              relation_name)
  FROM stdesign.tables WHERE table_name = 'HttpOwned' \gexec
});
$node->safe_psql('postgres', q{
CREATE ROLE victim LOGIN;
GRANT USAGE ON SCHEMA stdesign, stdesign_data TO victim;
GRANT SELECT ON stdesign.tables, stdesign.indexes TO victim;
SELECT st_create_table('VictimTable') IS NOT NULL;
CREATE FUNCTION public.watch() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO public.wlog VALUES (NEW.item->'PK'->>'S', current_user, current_setting('search_path'),
    current_setting('tadmin.x', true), current_setting('tadmin.y', true),
    current_setting('default_transaction_read_only'));
  RETURN NEW;
END $$;
SELECT format('GRANT SELECT, INSERT, UPDATE, DELETE ON stdesign_data.%1$I TO victim;
               CREATE TRIGGER watch BEFORE INSERT ON stdesign_data.%1$I FOR EACH ROW EXECUTE FUNCTION public.watch()',
              relation_name)
  FROM stdesign.tables WHERE table_name = 'VictimTable' \gexec
});
my ($akey, $asecret) = key_of('tadmin');
my ($vkey, $vsecret) = key_of('victim');

# the worker serves (the extension exists, the key is seen)
my ($status, $body);
for (1 .. 60)
{
	($status, $body) = signed_request($port, $vkey, $vsecret, 'ListTables', '{}');
	last if $status == 200;
	sleep(1);
}
is($status, 200, 'http: the worker serves signed requests');

# the victim's request (tag: its PK) sees the server's settings
sub victim_sees
{
	my ($pk, $what) = @_;
	my ($status, $body) = signed_request($port, $vkey, $vsecret, 'PutItem',
		qq({"TableName": "VictimTable", "Item": {"PK": {"S": "$pk"}, "SK": {"S": "1"}}}));
	is($status, 200, "http: $what, another role's PutItem writes") or diag($body);
	is($node->safe_psql('postgres', qq{
SELECT who || '|' || sp || '|' || coalesce(x, '') || '|' || coalesce(y, '') || '|' || ro
  FROM public.wlog WHERE tag = '$pk'}),
		'victim|"$user", public|||off',
		"http: ... and sees the server's settings (search_path, placeholders, read only)");
}

($status, $body) = signed_request($port, $akey, $asecret, 'PutItem',
	'{"TableName": "HttpOwned", "Item": {"PK": {"S": "p"}, "SK": {"S": "1"}}}');
is($status, 200, 'http: the admin\'s PutItem, its trigger calling set_config(..., false), succeeds')
  or diag($body);
is($node->safe_psql('postgres', q{
SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid IN (26026, 26027) AND objsubid = 1}),
	'0', 'http: the session-level advisory lock the request took is not kept by the worker');
victim_sees('v1', 'after it');

# The deferred trigger on the admin's table.
$node->safe_psql('postgres', q{
SET ROLE tadmin;
SELECT format('CREATE CONSTRAINT TRIGGER grab AFTER INSERT ON stdesign_data.%I
                 DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION tadmin_s.grab(%L)', relation_name, 'http')
  FROM stdesign.tables WHERE table_name = 'HttpOwned' \gexec
});
($status, $body) = signed_request($port, $akey, $asecret, 'PutItem',
	'{"TableName": "HttpOwned", "Item": {"PK": {"S": "q"}, "SK": {"S": "1"}}}');
is($status, 200, 'http: the admin\'s PutItem with a deferred trigger succeeds') or diag($body);
is($node->safe_psql('postgres', q{SELECT who FROM public.wlog WHERE tag = 'http'}),
	'tadmin', 'http: the deferred trigger ran as the requesting role');
is($node->safe_psql('postgres', q{SELECT rolsuper FROM pg_roles WHERE rolname = 'tadmin'}),
	'f', 'http: ALTER ROLE ... SUPERUSER in the deferred trigger did not make the role superuser');
like($node->safe_psql('postgres', q{SELECT temp_res FROM public.wlog WHERE tag = 'http'}),
	qr/within security-restricted operation/, 'http: ... in a security-restricted operation');
victim_sees('v2', 'after it');

# The role defers its trigger again (SET CONSTRAINTS ALL DEFERRED in a
# BEFORE trigger): Postgres refuses to queue it in the restricted request,
# which fails and writes nothing; it never fires at the commit.
$node->safe_psql('postgres', q{
SET ROLE tadmin;
CREATE FUNCTION tadmin_s.defer_again() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN SET CONSTRAINTS ALL DEFERRED; RETURN NEW; END $$;
SELECT format('CREATE TRIGGER defer_again BEFORE INSERT ON stdesign_data.%I FOR EACH ROW
                 EXECUTE FUNCTION tadmin_s.defer_again()', relation_name)
  FROM stdesign.tables WHERE table_name = 'HttpOwned' \gexec
});
($status, $body) = signed_request($port, $akey, $asecret, 'PutItem',
	'{"TableName": "HttpOwned", "Item": {"PK": {"S": "d"}, "SK": {"S": "1"}}}');
ok($status != 200 && $node->safe_psql('postgres', q{
SELECT count(*) FROM public.wlog WHERE tag = 'http'}) eq '1'
	  && $node->safe_psql('postgres', q{SELECT st_get('d', '1', 'HttpOwned') IS NULL}) eq 't',
	'http: a trigger deferred again by the role fails the request, which writes nothing')
  or diag($body);
is($node->safe_psql('postgres', q{SELECT rolsuper FROM pg_roles WHERE rolname = 'tadmin'}),
	'f', 'http: ... and the role is still not superuser');
victim_sees('v3', 'after that failure');

($status, $body) = signed_request($port, $vkey, $vsecret, 'GetItem',
	'{"TableName": "VictimTable", "Key": {"PK": {"S": "v2"}, "SK": {"S": "1"}}}');
ok($status == 200 && $body =~ /"Item"/, 'http: the other role reads its item back');
is($node->safe_psql('postgres', q{SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'stdesign http worker'}),
	'1', 'http: one worker served them all');

# The role's code catches the request's timeout (EXCEPTION WHEN
# query_canceled, in a loop): at twice the timeout the worker ends (FATAL,
# which no handler catches), the request writes nothing, and the postmaster
# starts the worker again, which serves.
$node->safe_psql('postgres', q{
SET ROLE tadmin;
CREATE FUNCTION tadmin_s.stay() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  LOOP
    BEGIN
      PERFORM pg_sleep(0.05);
    EXCEPTION WHEN query_canceled THEN NULL;
    END;
  END LOOP;
END $$;
SELECT format('DROP TRIGGER defer_again ON stdesign_data.%1$I;
               CREATE TRIGGER stay BEFORE INSERT ON stdesign_data.%1$I FOR EACH ROW EXECUTE FUNCTION tadmin_s.stay()',
              relation_name)
  FROM stdesign.tables WHERE table_name = 'HttpOwned' \gexec
});
$node->safe_psql('postgres', "ALTER SYSTEM SET stdesign.http_request_timeout = '1s'; SELECT pg_reload_conf();");
sleep(2);
my $t0 = time;
($status, $body) = signed_request($port, $akey, $asecret, 'PutItem',
	'{"TableName": "HttpOwned", "Item": {"PK": {"S": "loop"}, "SK": {"S": "1"}}}');
my $took = time - $t0;
ok($status != 200 && $took < 30, "http: a request whose code catches its timeout ends ($status after ${took} s)");
like(slurp_file($node->logfile), qr/terminating background worker "stdesign http worker"/,
	'http: ... by ending the worker');
for (1 .. 60)
{
	($status, $body) = signed_request($port, $vkey, $vsecret, 'ListTables', '{}');
	last if $status == 200;
	sleep(1);
}
is($status, 200, 'http: the worker is started again and serves');
is($node->safe_psql('postgres', q{SELECT st_get('loop', '1', 'HttpOwned') IS NULL}), 't',
	'http: ... and the ended request wrote nothing');
$node->safe_psql('postgres', "ALTER SYSTEM RESET stdesign.http_request_timeout; SELECT pg_reload_conf();");

unlike(slurp_file($node->logfile), qr/stdesign.*(PANIC|TRAP)|server process .* was terminated/,
	'no crash, no assertion in the log');
$node->stop('fast');
done_testing();
