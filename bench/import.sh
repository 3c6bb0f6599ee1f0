#!/usr/bin/env bash
# Import of DynamoDB's export format (st_import_file) against COPY of the
# same JSON lines into a plain table with one jsonb column.
#
#   bench/import.sh [--items N] [--rounds R]
#
# Writes N items of the seeds' e-commerce shape (customers with 19 orders,
# orders in GSI1) as export lines ({"Item": {...}} per line) to a server
# file, then, alternating: COPY the file into a fresh plain table (jsonb
# column, no index), COPY it into a jsonb table with the indexes a stdesign
# table has (the unique key, GSI1 as a partial expression index), and
# st_import_file into a fresh stdesign table with GSI1; prints the best
# time of each and the ratios of their speeds, in wall-clock time and in
# the backend's CPU time (utime + stime of /proc/self/stat), which other
# load on a shared machine disturbs far less.  st_import_file reads a large
# file in a parallel worker (max_parallel_maintenance_workers, as CREATE
# INDEX does) while the backend writes: its CPU time is then the backend's
# share only, so the import also runs with the worker off
# (max_parallel_maintenance_workers = 0), all of its work in one process,
# and both are printed.
# Without PGPORT it starts a throwaway cluster (test/scripts/tmp_cluster.sh); with PGPORT
# it uses that server and a database of its own, bench_import, made afresh.
# A benchmark, not a test: nothing here fails on a slow number.
set -euo pipefail
self=$(realpath "$0")

items=1000000
rounds=2
while [ $# -gt 0 ]; do
	case "$1" in
		--items) items=$2; shift 2 ;;
		--rounds) rounds=$2; shift 2 ;;
		*) echo "usage: $0 [--items N] [--rounds R]"; exit 2 ;;
	esac
done

if [ -z "${PGPORT:-}" ]; then
	exec env PGPORT= bash "$(dirname "$self")/../test/scripts/tmp_cluster.sh" -o shared_buffers=1GB -o max_wal_size=4GB \
		-o synchronous_commit=on bash "$self" --items "$items" --rounds "$rounds"
fi

export PGDATABASE=bench_import
psql -X -q -d postgres -c "DROP DATABASE IF EXISTS bench_import" -c "CREATE DATABASE bench_import" 2>/dev/null
file=$(psql -X -At -c "SELECT current_setting('data_directory') || '/bench_import.jsonl'")
psql -X -q -v ON_ERROR_STOP=1 -v items="$items" -v file="$file" <<'SQL'
CREATE EXTENSION stdesign;
-- The backend's CPU time so far, in clock ticks.
CREATE FUNCTION cpu_ticks() RETURNS bigint LANGUAGE sql AS $$
  SELECT split_part(s, ' ', 12)::bigint + split_part(s, ' ', 13)::bigint
    FROM (SELECT split_part(pg_read_file('/proc/self/stat'), ') ', 2) AS s) AS p $$;
COPY (SELECT jsonb_build_object('Item', x)::text FROM (
      SELECT jsonb_build_object(
        'PK', jsonb_build_object('S', 'CUST#' || (i / 20)),
        'SK', jsonb_build_object('S', CASE WHEN i % 20 = 0 THEN 'PROFILE' ELSE 'ORDER#2026-' || lpad((i % 20)::text, 4, '0') END),
        'entity_type', jsonb_build_object('S', CASE WHEN i % 20 = 0 THEN 'Customer' ELSE 'Order' END),
        'name', jsonb_build_object('S', 'Customer number ' || (i / 20)),
        'total', jsonb_build_object('N', ((i % 997) * 1.25)::text),
        'status', jsonb_build_object('S', (ARRAY['PENDING', 'SHIPPED', 'DELIVERED'])[1 + i % 3]))
        || CASE WHEN i % 20 = 0 THEN '{}'::jsonb ELSE jsonb_build_object(
             'GSI1PK', jsonb_build_object('S', 'STATUS#' || (ARRAY['PENDING', 'SHIPPED', 'DELIVERED'])[1 + i % 3]),
             'GSI1SK', jsonb_build_object('S', 'ORDER#' || lpad(i::text, 9, '0'))) END AS x
        FROM generate_series(0, :items - 1) AS i) AS s) TO :'file';
SQL
bytes=$(psql -X -At -c "SELECT pg_size_pretty((pg_stat_file('$file')).size)")
echo "import bench: $items items, $bytes of export lines; $(nproc) cores; $(date -u +%Y-%m-%d)"

ticks=$(getconf CLK_TCK)

# timed "statement" -> "wall_seconds cpu_seconds" of the backend running it
timed() {
	psql -X -q -At <<SQL | tail -n 1
SELECT cpu_ticks() AS t0, clock_timestamp() AS w0 \gset
$1;
SELECT round(extract(epoch FROM clock_timestamp() - :'w0'::timestamptz), 3) || ' ' ||
       round((cpu_ticks() - :t0)::numeric / $ticks, 2);
SQL
}

# one_run copy|indexed|import|serial -> "wall_seconds cpu_seconds"
one_run() {
	if [ "$1" = copy ]; then
		psql -X -q -c "DROP TABLE IF EXISTS plain" -c "CREATE TABLE plain (line jsonb)" -c "CHECKPOINT"
		timed "COPY plain FROM '$file'"
	elif [ "$1" = indexed ]; then
		# the same lines into a jsonb table with the indexes a stdesign table
		# has: the unique key, and GSI1 as a partial expression index
		psql -X -q -c "DROP TABLE IF EXISTS plain" -c "CREATE TABLE plain (line jsonb)" \
			-c "CREATE UNIQUE INDEX ON plain (((line #>> '{Item,PK,S}')) COLLATE \"C\", ((line #>> '{Item,SK,S}')) COLLATE \"C\")" \
			-c "CREATE INDEX ON plain (((line #>> '{Item,GSI1PK,S}')) COLLATE \"C\", ((line #>> '{Item,GSI1SK,S}')) COLLATE \"C\") WHERE line #> '{Item,GSI1PK}' IS NOT NULL" \
			-c "CHECKPOINT"
		timed "COPY plain FROM '$file'"
	else
		psql -X -q -c "SELECT st_drop_table('Imported') WHERE 'Imported' IN (SELECT st_list_tables())" >/dev/null
		psql -X -q -c "SELECT st_create_table('{\"TableName\": \"Imported\", \"BillingMode\": \"PAY_PER_REQUEST\",
			\"AttributeDefinitions\": [{\"AttributeName\": \"PK\", \"AttributeType\": \"S\"}, {\"AttributeName\": \"SK\", \"AttributeType\": \"S\"},
				{\"AttributeName\": \"GSI1PK\", \"AttributeType\": \"S\"}, {\"AttributeName\": \"GSI1SK\", \"AttributeType\": \"S\"}],
			\"KeySchema\": [{\"AttributeName\": \"PK\", \"KeyType\": \"HASH\"}, {\"AttributeName\": \"SK\", \"KeyType\": \"RANGE\"}],
			\"GlobalSecondaryIndexes\": [{\"IndexName\": \"GSI1\", \"KeySchema\": [{\"AttributeName\": \"GSI1PK\", \"KeyType\": \"HASH\"},
				{\"AttributeName\": \"GSI1SK\", \"KeyType\": \"RANGE\"}], \"Projection\": {\"ProjectionType\": \"ALL\"}}]}'::jsonb)" >/dev/null
		psql -X -q -c "CHECKPOINT"
		if [ "$1" = serial ]; then
			timed "SET max_parallel_maintenance_workers = 0; SELECT st_import_file('Imported', '$file')"
		else
			timed "SELECT st_import_file('Imported', '$file')"
		fi
	fi
}

min() { echo "if ($1 < $2) $1 else $2" | bc -l; }
best_copy=999999; best_indexed=999999; best_import=999999; best_serial=999999
cpu_copy=999999; cpu_indexed=999999; cpu_import=999999; cpu_serial=999999
for r in $(seq 1 "$rounds"); do
	read -r c cc <<< "$(one_run copy)"; read -r x cx <<< "$(one_run indexed)"
	read -r i ci <<< "$(one_run import)"; read -r s cs <<< "$(one_run serial)"
	printf 'round %d: COPY %.2f s (CPU %.2f s), COPY with the indexes %.2f s (CPU %.2f s), st_import_file %.2f s (backend CPU %.2f s), without the worker %.2f s (CPU %.2f s)\n' \
		"$r" "$c" "$cc" "$x" "$cx" "$i" "$ci" "$s" "$cs"
	best_copy=$(min "$c" "$best_copy"); best_indexed=$(min "$x" "$best_indexed")
	best_import=$(min "$i" "$best_import"); best_serial=$(min "$s" "$best_serial")
	cpu_copy=$(min "$cc" "$cpu_copy"); cpu_indexed=$(min "$cx" "$cpu_indexed")
	cpu_import=$(min "$ci" "$cpu_import"); cpu_serial=$(min "$cs" "$cpu_serial")
done
printf 'best: COPY %.2f s (%.0f lines/s), COPY with the indexes %.2f s, st_import_file %.2f s (%.0f items/s), without the worker %.2f s\n' \
	"$best_copy" "$(echo "$items / $best_copy" | bc -l)" "$best_indexed" "$best_import" "$(echo "$items / $best_import" | bc -l)" "$best_serial"
printf 'import speed / COPY: %.2f (without the worker %.2f); / COPY with the indexes: %.2f (%.2f)\n' \
	"$(echo "$best_copy / $best_import" | bc -l)" "$(echo "$best_copy / $best_serial" | bc -l)" \
	"$(echo "$best_indexed / $best_import" | bc -l)" "$(echo "$best_indexed / $best_serial" | bc -l)"
printf 'in CPU time (best): COPY %.2f s, COPY with the indexes %.2f s, st_import_file %.2f s in the backend, %.2f s without the worker; import without the worker / COPY: %.2f; / COPY with the indexes: %.2f\n' \
	"$cpu_copy" "$cpu_indexed" "$cpu_import" "$cpu_serial" "$(echo "$cpu_copy / $cpu_serial" | bc -l)" "$(echo "$cpu_indexed / $cpu_serial" | bc -l)"

psql -X -q -At -c "SELECT 'items in the table: ' || count(*) FROM st_scan('Imported')"
psql -X -q -d postgres -c "DROP DATABASE bench_import"
rm -f "$file" 2>/dev/null || true
