#!/usr/bin/env bash
# Stress and crash test of st_transact, about a minute in all.
#
#   1. Load: several pgbench clients at once do random transfers between
#      accounts (one st_transact: an Update with "balance >= :a" on the
#      source, an Update on the destination and a Put of a TRANSFER#<id>
#      marker recording the transfer, under a ClientRequestToken) and
#      adjacency-list enrollments (one st_transact of two Puts,
#      STUDENT#/COURSE# and COURSE#/STUDENT#).
#      Each client appends to a file every transfer id and enrollment that
#      returned success.  Then the invariants: the total is conserved, no
#      balance is negative, every balance is its opening balance plus what
#      the markers say came in minus what went out (no half transfer, no
#      transfer without its marker), the recorded tokens are exactly those
#      of the applied transfers, every enrollment is there in both
#      directions, every success the clients saw is there, and no client
#      was aborted or failed (an internal error, a deadlock).
#   2. Crash: the same load again, and after a few seconds the postmaster
#      and its backends are killed with SIGKILL in the middle of it; the
#      cluster is restarted (crash recovery), and the same invariants are
#      checked, including that every transaction that returned success
#      before the crash survived it.
#
# Runs in a throwaway cluster of its own (pg_virtualenv -t, which works as
# root and as a user, beside other clusters), with fsync on.  Needs the
# extension installed (make install).  Ends with one
# "stress_crash: N passed, N failed" line; exits non-zero on any failure.
#
#   STRESS_CLIENTS   pgbench clients (default 4)
#   STRESS_SECONDS   length of the load without a crash (default 15)
#   STRESS_CRASH_AFTER  seconds of load before the kill (default 5)
set -uo pipefail
cd "$(dirname "$0")/../.."

if [ -z "${STRESS_CRASH_INSIDE:-}" ]; then
	STRESS_CRASH_INSIDE=1 exec pg_virtualenv -t -o fsync=on -o synchronous_commit=on \
		-o max_connections=50 bash "$0" "$@"
fi

clients=${STRESS_CLIENTS:-4}
seconds=${STRESS_SECONDS:-15}
crash_after=${STRESS_CRASH_AFTER:-5}
accounts=50
opening=100					# per account: total 5000
bindir=$("${PG_CONFIG:-pg_config}" --bindir)
pgbench="$bindir/pgbench"
work=$(mktemp -d)
chmod 777 "$work"
trap 'rm -rf "$work"' EXIT

. test/scripts/checks.sh
q() { psql -X -q -At -v ON_ERROR_STOP=1 "$@"; }

# ---------- set-up ----------

q >/dev/null <<SQL || { echo "stress_crash: set-up failed"; echo "stress_crash: 0 passed, 1 failed"; exit 1; }
CREATE EXTENSION stdesign;
SELECT st_create_table('Stress') IS NOT NULL;
SELECT st_put(jsonb_build_object('PK', 'ACCT#' || i, 'SK', 'ACCT', 'balance', $opening), 'Stress')
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

-- What the clients saw succeed, loaded from their log after each run.
CREATE TABLE stress_ok (kind text, a bigint, b bigint);
SQL

cat > "$work/transfer.sql" <<'EOF'
\set n :n + 1
\set id :phase * 1000000000 + :client_id * 10000000 + :n
\set src random(1, :naccounts)
\set dst random(1, :naccounts)
\set amount random(1, 60)
SELECT stress_transfer(:id, :src, :dst, :amount) AS ok \gset
\if :ok
\shell echo T :id 0 >> :okfile
\endif
EOF

cat > "$work/enroll.sql" <<'EOF'
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
EOF

# run_load <phase> <seconds> <output file>: pgbench in the foreground.
run_load() {
	"$pgbench" -n -M prepared -c "$clients" -j 2 -T "$2" \
		-D n=0 -D phase="$1" -D naccounts="$accounts" -D okfile="$work/ok$1.log" \
		-f "$work/transfer.sql@3" -f "$work/enroll.sql@1" \
		--failures-detailed --verbose-errors >"$3" 2>&1
}

# expect <label> <expected> <sql>: the query's one value must be <expected>.
expect() {
	local out
	out=$(q -c "$3" 2>&1)
	[ "$out" = "$2" ]; check "$1 (got ${out:-nothing})" $?
}

# invariants <label> <ok file>: every check on the data as it is now.
invariants() {
	local label=$1 okfile=$2 transfers enrollments
	touch "$okfile"
	transfers=$(grep -c '^T' "$okfile")
	enrollments=$(grep -c '^E' "$okfile")
	q -c "TRUNCATE stress_ok" -c "\\copy stress_ok FROM '$okfile' WITH (DELIMITER ' ')" >/dev/null
	expect "$label: total conserved" "$((accounts * opening))" \
		"SELECT sum((item->'balance'->>'N')::numeric) FROM stdesign_data.\"Stress\" WHERE pk LIKE 'ACCT#%'"
	expect "$label: no negative balance" 0 \
		"SELECT count(*) FROM stdesign_data.\"Stress\"
		  WHERE pk LIKE 'ACCT#%' AND (item->'balance'->>'N')::numeric < 0"
	expect "$label: every balance is its opening balance plus its transfer markers" 0 \
		"WITH t AS (SELECT (item->'src'->>'N')::int AS src, (item->'dst'->>'N')::int AS dst,
		                   (item->'amount'->>'N')::numeric AS amount
		              FROM stdesign_data.\"Stress\" WHERE pk LIKE 'TRANSFER#%'),
		      flow AS (SELECT src AS acct, -amount AS delta FROM t UNION ALL SELECT dst, amount FROM t)
		 SELECT count(*) FROM stdesign_data.\"Stress\" a
		  WHERE a.pk LIKE 'ACCT#%'
		    AND (a.item->'balance'->>'N')::numeric <> $opening +
		        coalesce((SELECT sum(delta) FROM flow WHERE 'ACCT#' || flow.acct = a.pk), 0)"
	expect "$label: the recorded tokens are those of the applied transfers" 0 \
		"SELECT count(*) FROM (SELECT substr(pk, 10) AS id FROM stdesign_data.\"Stress\" WHERE pk LIKE 'TRANSFER#%') m
		   FULL JOIN (SELECT substr(token, 10) AS id FROM stdesign.transact_tokens WHERE token LIKE 'transfer-%') t
		   USING (id) WHERE m.id IS NULL OR t.id IS NULL"
	expect "$label: every enrollment in both directions" 0 \
		"SELECT count(*) FROM stdesign_data.\"Stress\" a
		  WHERE ((a.pk LIKE 'STUDENT#%' AND a.sk LIKE 'COURSE#%')
		      OR (a.pk LIKE 'COURSE#%' AND a.sk LIKE 'STUDENT#%'))
		    AND NOT EXISTS (SELECT FROM stdesign_data.\"Stress\" b WHERE b.pk = a.sk AND b.sk = a.pk)"
	expect "$label: all $transfers transfers that returned success are there" 0 \
		"SELECT count(*) FROM stress_ok o WHERE kind = 'T' AND NOT EXISTS
		   (SELECT FROM stdesign_data.\"Stress\" s WHERE s.pk = 'TRANSFER#' || o.a AND s.sk = 'TRANSFER')"
	expect "$label: all $enrollments enrollments that returned success are there" 0 \
		"SELECT count(*) FROM stress_ok o WHERE kind = 'E' AND NOT EXISTS
		   (SELECT FROM stdesign_data.\"Stress\" s WHERE s.pk = 'STUDENT#' || o.a AND s.sk = 'COURSE#' || o.b)"
}

# stats <pgbench output>: transactions and tps, for the log.
stats() {
	local processed tps
	processed=$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' "$1")
	tps=$(sed -n 's/^tps = \([0-9.]*\) .*/\1/p' "$1")
	echo "        ${processed:-?} transactions, ${tps:-?} tps, $(grep -c '^T' "$2" 2>/dev/null) transfers and $(grep -c '^E' "$2" 2>/dev/null) enrollments returned success"
}

# ---------- 1. load ----------

echo "== load: $clients clients, $seconds s"
run_load 1 "$seconds" "$work/pgbench1.out"; rc=$?
stats "$work/pgbench1.out" "$work/ok1.log"
[ $rc -eq 0 ] && ! grep -q 'aborted' "$work/pgbench1.out"
check "load: no client aborted (pgbench exit $rc)" $?
grep -q '^number of failed transactions: 0 ' "$work/pgbench1.out"
check "load: no failed transaction (deadlock, serialization or other error)" $?
[ $rc -eq 0 ] || tail -n 20 "$work/pgbench1.out"
invariants load "$work/ok1.log"

# ---------- 2. crash ----------

datadir=$(q -c "SHOW data_directory")
postmaster=$(head -n 1 "$datadir/postmaster.pid")
sockdir=$(q -c "SHOW unix_socket_directories" | cut -d, -f1)
echo "== crash: $clients clients, SIGKILL to the postmaster and its backends after $crash_after s"
run_load 2 $((seconds + 30)) "$work/pgbench2.out" &
load=$!
sleep "$crash_after"
children=$(ps -o pid= --ppid "$postmaster" | tr '\n' ' ')
kill -9 "$postmaster" $children 2>/dev/null
wait $load
stats "$work/pgbench2.out" "$work/ok2.log"
grep -c '^T' "$work/ok2.log" >/dev/null 2>&1
check "crash: transactions returned success before the kill" $?
# The killed postmaster may linger as a zombie where nothing reaps orphans
# (a container's init): then its lock files look in use.  Remove the ones
# that name it, once it is dead or a zombie, as an administrator would.
for _ in $(seq 1 50); do
	state=$(ps -o stat= -p "$postmaster" 2>/dev/null)
	case "$state" in ""|Z*) break ;; esac
	sleep 0.1
done
case "$state" in ""|Z*) true ;; *) false ;; esac
check "crash: the postmaster is gone" $?
for lock in "$datadir/postmaster.pid" "$sockdir"/.s.PGSQL."$PGPORT".lock; do
	[ -f "$lock" ] && [ "$(head -n 1 "$lock")" = "$postmaster" ] && rm -f "$lock"
done
pg_ctlcluster "$PGVERSION" regress start >"$work/restart.out" 2>&1 || cat "$work/restart.out"
for _ in $(seq 1 60); do
	pg_isready -q && break
	sleep 0.5
done
q -c "SELECT 1" >/dev/null 2>&1
check "crash: the server restarts and recovers" $?
grep -h 'database system was interrupted\|redo done\|crash recovery\|not properly shut down' \
	"$(dirname "$datadir")"/../../log/*.log 2>/dev/null | tail -n 3 | sed 's/^/        /'
cat "$work/ok1.log" "$work/ok2.log" >"$work/ok-all.log" 2>/dev/null
invariants recovered "$work/ok-all.log"

# After recovery the extension goes on working: one more short load.
run_load 3 3 "$work/pgbench3.out"; rc=$?
stats "$work/pgbench3.out" "$work/ok3.log"
[ $rc -eq 0 ] && grep -q '^number of failed transactions: 0 ' "$work/pgbench3.out"
check "after recovery: a new load runs clean" $?
cat "$work/ok-all.log" "$work/ok3.log" >"$work/ok-final.log" 2>/dev/null
invariants final "$work/ok-final.log"

echo "stress_crash: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
