#!/usr/bin/env bash
# PartiQL against the same operations through st_api (a benchmark, not a
# test: nothing fails on a slow number).
#
#   bench/partiql.sh [--items N] [--seconds S] [--clients C] [--rounds R]
#
# Loads the seeds' e-commerce shape (customers with a profile and 19
# orders; 20,000 items by default) into a stdesign table, then runs through
# pgbench (-M prepared, fixed duration), alternating the two forms:
#
#   query   SELECT * FROM "Bench" WHERE PK = ?            vs Query (KeyConditionExpression PK = :pk)
#   get     SELECT * FROM "Bench" WHERE PK = ? AND SK = ? vs GetItem
#   insert  INSERT INTO "Bench" VALUE {...}              vs PutItem with attribute_not_exists(PK)
#                                                           (INSERT fails on an existing key)
#   put     the same INSERT                              vs an unconditional PutItem
#
# and prints operation, PartiQL tps, st_api tps, their ratio and latencies.
# Runs in a throwaway cluster (test/scripts/tmp_cluster.sh) unless STDESIGN_BENCH_INNER=1,
# which uses the server the PG* variables name (with stdesign installed).
set -euo pipefail
self=$(realpath "$0")
cd "$(dirname "$self")"

items=20000
seconds=10
clients=2
rounds=2
ops="query get insert put"
while [ $# -gt 0 ]; do
	case "$1" in
		--ops) ops=$2; shift 2 ;;
		--items) items=$2; shift 2 ;;
		--seconds) seconds=$2; shift 2 ;;
		--clients) clients=$2; shift 2 ;;
		--rounds) rounds=$2; shift 2 ;;
		*) echo "usage: $0 [--items N] [--seconds S] [--clients C] [--rounds R] [--ops 'query get insert put']"; exit 2 ;;
	esac
done

if [ "${STDESIGN_BENCH_INNER:-}" != 1 ]; then
	exec env STDESIGN_BENCH_INNER=1 bash "$(dirname "$self")/../test/scripts/tmp_cluster.sh" -o shared_buffers=1GB -o max_wal_size=4GB \
		-o synchronous_commit=on bash "$self" --items "$items" --seconds "$seconds" \
		--clients "$clients" --rounds "$rounds" --ops "$ops"
fi

pgbench=$(command -v pgbench)
customers=$((items / 20))
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "stdesign PartiQL bench: $items items ($customers customers x 20), $clients clients, ${seconds}s x $rounds rounds per operation"
echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB; $(date -u +%Y-%m-%d)"
psql -X -q -v ON_ERROR_STOP=1 <<SQL
CREATE EXTENSION IF NOT EXISTS stdesign;
SELECT st_drop_table('Bench') FROM st_list_tables() AS t WHERE t = 'Bench';
SELECT st_create_table('Bench') IS NOT NULL AS created \gset
SELECT st_put_all(jsonb_build_object('PK', jsonb_build_object('S', 'CUST#' || c),
         'SK', jsonb_build_object('S', CASE WHEN o = 0 THEN 'PROFILE' ELSE 'ORDER#2026-' || lpad(o::text, 4, '0') END),
         'total', jsonb_build_object('N', ((c * 7 + o * 13) % 10000 / 100.0)::text),
         'status', jsonb_build_object('S', CASE WHEN o % 3 = 0 THEN 'shipped' ELSE 'pending' END)), 'Bench', true)
  FROM generate_series(1, $customers) AS c, generate_series(0, 19) AS o \gset
VACUUM ANALYZE stdesign_data."Bench";
CHECKPOINT;
SQL

# run_one script -> "tps p50 p99"
run_one() {
	local script=$1 prefix="$work/log.$1" out tps n p50 p99
	rm -f "$prefix".*
	out=$("$pgbench" -n -M prepared -c "$clients" -j "$clients" -T "$seconds" -D customers="$customers" \
		-l --log-prefix="$prefix" -f "scripts/$script.sql" 2>&1)
	tps=$(echo "$out" | sed -n 's/^tps = \([0-9.]*\) .*/\1/p' | head -n 1)
	if [ -z "$tps" ]; then
		echo "$out" >&2
		echo "0 0 0"
		return
	fi
	cat "$prefix".* | awk '{print $3}' | sort -n > "$prefix.sorted"
	n=$(wc -l < "$prefix.sorted")
	p50=$(awk -v n="$n" 'NR == int(n * 0.50) + 1 {printf "%.3f", $1 / 1000; exit}' "$prefix.sorted")
	p99=$(awk -v n="$n" 'NR == int(n * 0.99) + 1 {printf "%.3f", $1 / 1000; exit}' "$prefix.sorted")
	echo "$tps $p50 $p99"
}

printf '\n%-8s %13s %12s %7s %19s %19s\n' operation "PartiQL tps" "st_api tps" ratio "PartiQL p50/p99" "st_api p50/p99"
for op in $ops; do
	pq=pq_${op}_partiql
	api=pq_${op}_api
	[ "$op" = put ] && pq=pq_insert_partiql
	pq_sum=0; api_sum=0; pq_lat=""; api_lat=""
	for r in $(seq 1 "$rounds"); do
		read -r tps p50 p99 <<< "$(run_one "$pq")"
		pq_sum=$(echo "$pq_sum + $tps" | bc -l); pq_lat="$p50/$p99"
		read -r tps p50 p99 <<< "$(run_one "$api")"
		api_sum=$(echo "$api_sum + $tps" | bc -l); api_lat="$p50/$p99"
	done
	pqt=$(echo "$pq_sum / $rounds" | bc -l)
	apit=$(echo "$api_sum / $rounds" | bc -l)
	printf '%-8s %13.0f %12.0f %7.2f %19s %19s\n' "$op" "$pqt" "$apit" "$(echo "$pqt / $apit" | bc -l)" "$pq_lat" "$api_lat"
done
psql -X -q -c "SELECT st_drop_table('Bench')" >/dev/null
