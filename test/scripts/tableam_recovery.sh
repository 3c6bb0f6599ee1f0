#!/usr/bin/env bash
# The stdesign table access method outside pg_regress: crash recovery,
# pg_dump/pg_restore round trip, and logical replication from one server's
# stdesign table to another's.  Starts two throwaway servers of its own
# (so it needs no pg_virtualenv); run as root (it re-runs itself as the
# postgres user) or as any user who may run a server.  Prints one line per
# check and ends with "tableam_recovery: N passed, N failed".
set -uo pipefail

if [ "$(id -u)" -eq 0 ]; then
	# The checkout may sit where the postgres user cannot read (a private
	# temporary folder): run a copy of this script from a folder it can.
	copy=$(mktemp -d -t stdesign_tableam_run.XXXXXX)
	cp "$(readlink -f "$0")" "$copy/tableam_recovery.sh"
	chmod 755 "$copy"
	chmod 644 "$copy/tableam_recovery.sh"
	cd /
	runuser -u postgres -- bash "$copy/tableam_recovery.sh" "$@"
	rc=$?
	rm -rf "$copy"
	exit $rc
fi

bindir=$(pg_config --bindir 2>/dev/null)
[ -x "$bindir/initdb" ] || bindir=/usr/lib/postgresql/15/bin
export PATH="$bindir:$PATH"
export PGOPTIONS="-c client_min_messages=warning"

work=$(mktemp -d -t stdesign_tableam.XXXXXX)
base=$((20000 + RANDOM % 20000))
pub_port=$base
sub_port=$((base + 1))
passed=0
failed=0

cleanup() {
	pg_ctl -D "$work/pub" -m immediate stop >/dev/null 2>&1
	pg_ctl -D "$work/sub" -m immediate stop >/dev/null 2>&1
	rm -rf "$work"
}
trap cleanup EXIT

check() {
	# check "<what>" "<expected>" "<actual>"
	if [ "$2" = "$3" ]; then
		passed=$((passed + 1))
		echo "ok: $1"
	else
		failed=$((failed + 1))
		echo "FAILED: $1: expected [$2], got [$3]"
	fi
}

start() {
	# start <name> <port>
	pg_ctl -D "$work/$1" -l "$work/$1.log" -w -o "-p $2 -k $work -c listen_addresses=''" start >/dev/null ||
		{ cat "$work/$1.log"; exit 1; }
}

q() {
	# q <port> <sql> [db]: one value, unaligned
	psql -X -q -A -t -h "$work" -p "$1" -d "${3:-postgres}" -v ON_ERROR_STOP=1 -c "$2"
}

# A digest of a table's contents, identical across servers when the items are.
digest_sql() {
	echo "SELECT count(*) || ' ' || md5(coalesce(string_agg(pk || '|' || sk || '|' || item::text, ',' ORDER BY pk, sk), '')) FROM stdesign_data.\"$1\""
}

for n in pub sub; do
	initdb -D "$work/$n" -A trust -U postgres --no-sync >"$work/initdb_$n.log" 2>&1 ||
		{ cat "$work/initdb_$n.log"; exit 1; }
	cat >>"$work/$n/postgresql.conf" <<EOF
wal_level = logical
max_wal_senders = 4
max_replication_slots = 4
fsync = off
EOF
done
start pub "$pub_port"
start sub "$sub_port"

# ---- crash recovery ----
q "$pub_port" "CREATE EXTENSION stdesign; CREATE EXTENSION amcheck;" >/dev/null
q "$pub_port" "SELECT st_create_table('Crash')" >/dev/null
# 200 customers x 10 orders, interleaved, committed.
q "$pub_port" "SELECT count(st_put(jsonb_build_object('PK', 'CUST#' || (i % 200), 'SK', 'ORDER#' || lpad((i / 200)::text, 3, '0'), 'n', i), 'Crash')) FROM generate_series(0, 1999) i" >/dev/null
q "$pub_port" "CHECKPOINT" >/dev/null
# More committed after the checkpoint (replayed from WAL), and a transaction
# still open at the crash (must vanish).
q "$pub_port" "SELECT count(st_put(jsonb_build_object('PK', 'CUST#' || (i % 200), 'SK', 'LATE#' || i), 'Crash')) FROM generate_series(0, 399) i" >/dev/null
psql -X -q -h "$work" -p "$pub_port" -d postgres -c "BEGIN; SELECT st_put('{\"PK\": \"CUST#1\", \"SK\": \"UNCOMMITTED\"}', 'Crash'); SELECT pg_sleep(60);" >/dev/null 2>&1 &
for _ in $(seq 50); do
	[ "$(q "$pub_port" "SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%pg_sleep(60)%' AND state = 'active' AND pid <> pg_backend_pid()")" = 1 ] && break
	sleep 0.1
done
before=$(q "$pub_port" "$(digest_sql Crash)")
pg_ctl -D "$work/pub" -m immediate stop >/dev/null
wait
start pub "$pub_port"
check "committed items survive a crash" "$before" "$(q "$pub_port" "$(digest_sql Crash)")"
check "uncommitted item is gone after the crash" "0" \
	"$(q "$pub_port" "SELECT count(*) FROM stdesign_data.\"Crash\" WHERE sk = 'UNCOMMITTED'")"
check "key index matches the table after recovery" "" \
	"$(q "$pub_port" "SELECT bt_index_parent_check('stdesign_data.\"Crash:key\"'::regclass, true)")"
check "st_query after recovery" "10" \
	"$(q "$pub_port" "SELECT count(*) FROM st_query('CUST#7', 'ORDER#', 'Crash')")"
q "$pub_port" "SELECT st_put('{\"PK\": \"CUST#7\", \"SK\": \"NEW\"}', 'Crash')" >/dev/null
check "placement after recovery: a new item joins its partition's page" "t" \
	"$(q "$pub_port" "SELECT (SELECT (ctid::text::point)[0] FROM stdesign_data.\"Crash\" WHERE pk = 'CUST#7' AND sk = 'NEW')
		IN (SELECT (ctid::text::point)[0] FROM stdesign_data.\"Crash\" WHERE pk = 'CUST#7' AND sk <> 'NEW')")"

# ---- pg_dump / pg_restore round trip ----
pg_dump -h "$work" -p "$pub_port" -Fc -f "$work/dump" postgres
q "$pub_port" "CREATE DATABASE restored" >/dev/null
pg_restore -h "$work" -p "$pub_port" -d restored "$work/dump" 2>"$work/restore.log"
check "pg_restore reports no error" "" "$(grep -i error "$work/restore.log" | head -n 3)"
check "restored table uses the stdesign access method" "stdesign" \
	"$(q "$pub_port" "SELECT amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE c.oid = 'stdesign_data.\"Crash\"'::regclass" restored)"
check "restored items are the dumped ones" "$(q "$pub_port" "$(digest_sql Crash)")" \
	"$(q "$pub_port" "$(digest_sql Crash)" restored)"
check "st_query on the restored table" "10" \
	"$(q "$pub_port" "SELECT count(*) FROM st_query('CUST#7', 'ORDER#', 'Crash')" restored)"

# ---- pg_dump --schema-only, and DROP EXTENSION ----
# The catalog's rows (stdesign.tables, stdesign.indexes) are the extension's
# configuration data, which pg_dump writes only with data: a schema-only
# copy adds them with --data-only --table, as the README says.
pg_dump -h "$work" -p "$pub_port" --schema-only -f "$work/schema.sql" postgres
pg_dump -h "$work" -p "$pub_port" --data-only --table=stdesign.tables --table=stdesign.indexes \
	-f "$work/catalog.sql" postgres
q "$pub_port" "CREATE DATABASE schema_only" >/dev/null
psql -X -q -v ON_ERROR_STOP=1 -h "$work" -p "$pub_port" -d schema_only \
	-f "$work/schema.sql" -f "$work/catalog.sql" >"$work/schema_only.log" 2>&1
check "schema-only dump plus the catalog's rows restores" "0" "$?"
check "the schema-only copy knows its tables" "Crash" \
	"$(q "$pub_port" "SELECT string_agg(t, ',') FROM st_list_tables() t" schema_only)"
check "the schema-only copy is empty" "0" "$(q "$pub_port" "SELECT count(*) FROM st_scan('Crash')" schema_only)"
q "$pub_port" "SELECT st_put('{\"PK\": \"a\", \"SK\": \"b\"}', 'Crash')" schema_only >/dev/null
check "the schema-only copy takes items" "1" \
	"$(q "$pub_port" "SELECT count(*) FROM st_query('a', NULL, 'Crash')" schema_only)"
# DROP EXTENSION refuses while tables exist, and names what CASCADE drops.
out=$(q "$pub_port" "DROP EXTENSION stdesign" restored 2>&1)
check "DROP EXTENSION without CASCADE is refused, naming the tables" "refused" \
	"$(echo "$out" | grep -q 'cannot drop extension stdesign because other objects depend on it' &&
		echo "$out" | grep -q 'table stdesign_data."Crash" depends on' && echo refused)"
check "the refused DROP EXTENSION kept the items" "$(q "$pub_port" "$(digest_sql Crash)")" \
	"$(q "$pub_port" "$(digest_sql Crash)" restored)"
q "$pub_port" "DROP EXTENSION stdesign CASCADE" schema_only >/dev/null 2>&1
check "DROP EXTENSION CASCADE drops the tables and both schemas" "0" \
	"$(q "$pub_port" "SELECT count(*) FROM pg_namespace WHERE nspname IN ('stdesign', 'stdesign_data')" schema_only)"

# ---- logical replication: stdesign table -> another server's stdesign table ----
q "$pub_port" "SELECT st_create_table('Repl')" >/dev/null
# Without a primary key constraint (the key index is on expressions), UPDATE
# and DELETE are published with the whole old row.
q "$pub_port" "ALTER TABLE stdesign_data.\"Repl\" REPLICA IDENTITY FULL" >/dev/null
q "$pub_port" "SELECT count(st_put(jsonb_build_object('PK', 'C' || (i % 50), 'SK', 'O' || lpad((i / 50)::text, 3, '0')), 'Repl')) FROM generate_series(0, 499) i" >/dev/null
q "$pub_port" "CREATE PUBLICATION repl FOR TABLE stdesign_data.\"Repl\"" >/dev/null
q "$sub_port" "CREATE EXTENSION stdesign" >/dev/null
q "$sub_port" "SELECT st_create_table('Repl')" >/dev/null
q "$sub_port" "CREATE SUBSCRIPTION repl CONNECTION 'host=$work port=$pub_port dbname=postgres user=postgres' PUBLICATION repl" >/dev/null
for _ in $(seq 300); do
	[ "$(q "$sub_port" "SELECT count(*) FROM pg_subscription_rel WHERE srsubstate <> 'r'")" = 0 ] && break
	sleep 0.1
done
check "initial copy to the subscriber (COPY: multi_insert)" "$(q "$pub_port" "$(digest_sql Repl)")" \
	"$(q "$sub_port" "$(digest_sql Repl)")"
# After the initial copy: inserts (interleaved), upserts, updates, deletes.
q "$pub_port" "SELECT count(st_put(jsonb_build_object('PK', 'C' || (i % 50), 'SK', 'P' || lpad((i / 50)::text, 3, '0')), 'Repl')) FROM generate_series(0, 499) i" >/dev/null
q "$pub_port" "SELECT st_put('{\"PK\": \"C1\", \"SK\": \"O001\", \"v\": \"upserted\"}', 'Repl')" >/dev/null
q "$pub_port" "UPDATE stdesign_data.\"Repl\" SET item = item || '{\"u\": {\"BOOL\": true}}' WHERE pk = 'C2'" >/dev/null
q "$pub_port" "SELECT st_delete('C3', 'O000', 'Repl')" >/dev/null
q "$pub_port" "DELETE FROM stdesign_data.\"Repl\" WHERE pk = 'C4'" >/dev/null
want=$(q "$pub_port" "$(digest_sql Repl)")
got=""
for _ in $(seq 300); do
	got=$(q "$sub_port" "$(digest_sql Repl)")
	[ "$got" = "$want" ] && break
	sleep 0.1
done
check "subscriber's stdesign table matches the publisher's" "$want" "$got"
check "subscriber's table uses the stdesign access method" "stdesign" \
	"$(q "$sub_port" "SELECT amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE c.oid = 'stdesign_data.\"Repl\"'::regclass")"
# The 10 items each partition received through the apply worker, interleaved
# with the other 49 partitions' (a heap would spread them over ~8 pages).
check "replicated items are stored together on the subscriber" "t" \
	"$(q "$sub_port" "SELECT avg(n) <= 2 FROM (SELECT count(DISTINCT (ctid::text::point)[0]) n FROM stdesign_data.\"Repl\" WHERE sk LIKE 'P%' GROUP BY pk) s")"
check "st_query on the subscriber" "20" \
	"$(q "$sub_port" "SELECT count(*) FROM st_query('C7', NULL, 'Repl')")"
q "$sub_port" "DROP SUBSCRIPTION repl" >/dev/null

# ---- contrib tools (informational: which refuse a non-heap table) ----
for probe in \
	"pgstattuple|SELECT * FROM pgstattuple('stdesign_data.\"Crash\"')" \
	"pgstattuple_approx|SELECT * FROM pgstattuple_approx('stdesign_data.\"Crash\"')" \
	"amcheck|SELECT count(*) FROM verify_heapam('stdesign_data.\"Crash\"')" \
	"pgrowlocks|SELECT count(*) FROM pgrowlocks('stdesign_data.\"Crash\"')" \
	"pg_visibility|SELECT count(*) FROM pg_visibility('stdesign_data.\"Crash\"')" \
	"pageinspect|SELECT count(*) FROM heap_page_items(get_raw_page('stdesign_data.\"Crash\"', 0))"; do
	ext=${probe%%|*}
	sql=${probe#*|}
	case $ext in pgstattuple_approx) ext=pgstattuple ;; esac
	q "$pub_port" "CREATE EXTENSION IF NOT EXISTS $ext" >/dev/null 2>&1
	if out=$(q "$pub_port" "$sql" 2>&1); then
		echo "info: ${probe%%|*} works on a stdesign table"
	else
		echo "info: ${probe%%|*} refuses a stdesign table: $(echo "$out" | head -n 1)"
	fi
done

echo "tableam_recovery: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
