#!/usr/bin/env bash
# The cost of the per-partition traffic counters on the get and put
# benchmarks: the same operations as bench/run.sh's get and put (a GetItem
# of a random item of the e-commerce shape; a PutItem of a new item), each
# its own transaction (a procedure that COMMITs after every call, so the
# counters move into shared memory at every commit, as in pgbench), with
# stdesign.track_traffic off and on, alternating.  What is compared is
# the backend's CPU time (utime + stime of /proc/self/stat) per operation,
# which other load on the machine disturbs far less than throughput; the
# wall time is printed too.
#
#   bench/traffic.sh [--items N] [--calls C] [--rounds R]
#
# The counters need stdesign in shared_preload_libraries: run without
# PGPORT set and the script starts a throwaway cluster so configured
# (test/scripts/tmp_cluster.sh); with PGPORT set it uses that server (which must preload
# stdesign) and a database of its own, bench_traffic, made afresh.
# A benchmark, not a test: nothing here fails on a slow number.
set -euo pipefail
self=$(realpath "$0")
cd "$(dirname "$self")"

items=100000
calls=50000
rounds=3
while [ $# -gt 0 ]; do
	case "$1" in
		--items) items=$2; shift 2 ;;
		--calls) calls=$2; shift 2 ;;
		--rounds) rounds=$2; shift 2 ;;
		*) echo "usage: $0 [--items N] [--calls C] [--rounds R]"; exit 2 ;;
	esac
done

if [ -z "${PGPORT:-}" ]; then
	exec env PGPORT= bash "$(dirname "$self")/../test/scripts/tmp_cluster.sh" -o shared_buffers=1GB -o max_wal_size=4GB \
		-o synchronous_commit=on -o shared_preload_libraries=stdesign \
		bash "$self" --items "$items" --calls "$calls" --rounds "$rounds"
fi

orders_per=19
customers=$((items / (orders_per + 1)))
export PGDATABASE=bench_traffic
psql -X -q -d postgres -c "DROP DATABASE IF EXISTS bench_traffic" -c "CREATE DATABASE bench_traffic" 2>/dev/null
psql -X -q -v customers="$customers" -v orders_per="$orders_per" -f load.sql >/dev/null
psql -X -q -v ON_ERROR_STOP=1 <<'SQL'
-- The backend's CPU time so far, in clock ticks.
CREATE FUNCTION cpu_ticks() RETURNS bigint LANGUAGE sql AS $$
  SELECT split_part(s, ' ', 12)::bigint + split_part(s, ' ', 13)::bigint
    FROM (SELECT split_part(pg_read_file('/proc/self/stat'), ') ', 2) AS s) AS p $$;
CREATE PROCEDURE bench_get(n int, customers int, orders_per int) LANGUAGE plpgsql AS $$
DECLARE c int; o int;
BEGIN
  FOR i IN 1 .. n LOOP
    c := 1 + (random() * (customers - 1))::int;
    o := (random() * orders_per)::int;
    PERFORM st_get('CUST#' || c, CASE WHEN o = 0 THEN 'PROFILE' ELSE 'ORDER#2026-' || lpad(o::text, 4, '0') END,
                   'Bench', typed => true);
    COMMIT;
  END LOOP;
END $$;
CREATE PROCEDURE bench_put(n int) LANGUAGE plpgsql AS $$
DECLARE k bigint;
BEGIN
  FOR i IN 1 .. n LOOP
    k := (random() * 1e9)::bigint;
    PERFORM st_put(jsonb_build_object('PK', jsonb_build_object('S', 'NEW#' || k), 'SK', jsonb_build_object('S', 'ITEM'),
                                      'v', jsonb_build_object('N', k::text), 'entity_type', '{"S": "New"}'::jsonb),
                   'Bench', typed => true);
    COMMIT;
  END LOOP;
END $$;
SQL
echo "traffic bench: $items items, $calls calls per run, $rounds rounds per setting; $(nproc) cores; $(date -u +%Y-%m-%d)"
ticks=$(getconf CLK_TCK)

# one_run get|put on|off -> "cpu_us_per_call wall_us_per_call"
one_run() {
	local call
	if [ "$1" = get ]; then call="CALL bench_get($calls, $customers, $orders_per)"; else call="CALL bench_put($calls)"; fi
	psql -X -q -At <<SQL | tail -n 1
SET stdesign.track_traffic = $2;
SELECT cpu_ticks() AS t0, clock_timestamp() AS w0 \gset
$call;
SELECT round((cpu_ticks() - :t0) * 1e6 / $ticks / $calls, 2) || ' ' ||
       round(extract(epoch FROM clock_timestamp() - :'w0'::timestamptz) * 1e6 / $calls, 2);
SQL
}

printf '\n%-4s %16s %16s %8s %18s %18s\n' op "CPU us/call off" "CPU us/call on" "on/off" "wall us/call off" "wall us/call on"
for op in get put; do
	coff=0; con=0; woff=0; won=0
	for r in $(seq 1 "$rounds"); do
		read -r c w <<< "$(one_run "$op" off)"; coff=$(echo "$coff + $c" | bc -l); woff=$(echo "$woff + $w" | bc -l)
		read -r c w <<< "$(one_run "$op" on)"; con=$(echo "$con + $c" | bc -l); won=$(echo "$won + $w" | bc -l)
	done
	printf '%-4s %16.2f %16.2f %8.3f %18.2f %18.2f\n' "$op" "$(echo "$coff / $rounds" | bc -l)" \
		"$(echo "$con / $rounds" | bc -l)" "$(echo "$con / $coff" | bc -l)" \
		"$(echo "$woff / $rounds" | bc -l)" "$(echo "$won / $rounds" | bc -l)"
done
psql -X -q -c "SELECT count(*) AS partitions_counted, sum(writes) AS writes, sum(reads) AS reads FROM st_partition_traffic('Bench')"
psql -X -q -d postgres -c "DROP DATABASE bench_traffic"
