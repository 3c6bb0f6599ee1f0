#!/usr/bin/env bash
# On-demand backup (CreateBackup) of an N-item table against pg_dump of
# the table's relation, and RestoreTableFromBackup against pg_restore of
# that dump into a fresh relation.
#
#   bench/backup.sh [--items N] [--rounds R]
#
# Loads N items (e-commerce-like: 10 per partition, ~300 bytes) into a
# table with one GSI, then, R times: st_create_backup (one INSERT ...
# SELECT into stdesign.backup_items), pg_dump -Fc --data-only of the
# relation (to a file), st_restore_backup (CreateTable's path, then one
# INSERT ... SELECT, the indexes kept up as the rows go in), and
# pg_restore of the dump into a copy of the relation with the same indexes;
# prints the best wall-clock time of each and the space each takes
# (stdesign.backup_items' growth per backup, the dump file's size).
# Runs in a throwaway cluster (test/scripts/tmp_cluster.sh, fsync off)
# unless STDESIGN_BENCH_INNER=1, which uses the server the PG* variables
# name (with stdesign installed).  A benchmark, not a test.
set -euo pipefail
self=$(realpath "$0")

items=1000000
rounds=2
while [ $# -gt 0 ]; do
	case "$1" in
		--items) items=$2; shift 2 ;;
		--rounds) rounds=$2; shift 2 ;;
		*) echo "usage: $0 [--items N] [--rounds R]" >&2; exit 2 ;;
	esac
done

if [ "${STDESIGN_BENCH_INNER:-}" != 1 ]; then
	exec env STDESIGN_BENCH_INNER=1 bash "$(dirname "$self")/../test/scripts/tmp_cluster.sh" \
		-o shared_buffers=1GB -o max_wal_size=4GB -o fsync=off \
		bash "$self" --items "$items" --rounds "$rounds"
fi

work=$(mktemp -d)
chmod 777 "$work"
trap 'rm -rf "$work"' EXIT
psql_() { psql -X -q -v ON_ERROR_STOP=1 "$@"; }
now() { date +%s.%N; }
best() { printf '%s\n' "$@" | sort -g | head -n1; }

echo "stdesign backup bench: $items items, $rounds rounds"
echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB; $(psql -X -At -c 'SHOW server_version'); $(date -u +%Y-%m-%d)"
psql_ <<SQL
CREATE EXTENSION IF NOT EXISTS stdesign;
SELECT st_create_table('Shop') IS NOT NULL AS created \gset
SELECT st_create_gsi('Shop', 'GSI1', 'GSI1PK', 'GSI1SK') IS NOT NULL AS gsi \gset
SELECT st_put_all(jsonb_build_object('PK', 'C#' || (i / 10), 'SK', 'O#' || i, 'GSI1PK', 'S#' || (i % 100),
                                     'GSI1SK', 'O#' || i, 'total', i % 1000, 'pad', repeat('x', 200)), 'Shop')
  FROM generate_series(1, $items) i \gset
VACUUM ANALYZE stdesign_data."Shop";
SQL
rel_size=$(psql -X -At -c "SELECT pg_total_relation_size('stdesign_data.\"Shop\"')")
echo "table: $(psql -X -At -c "SELECT st_describe_table('Shop') ->> 'TableSizeBytes'") bytes of items (DynamoDB's sizes), relation with indexes $rel_size bytes"

declare -a t_backup t_dump t_restore t_pgrestore
for r in $(seq 1 "$rounds"); do
	before=$(psql -X -At -c "SELECT pg_total_relation_size('stdesign.backup_items')")
	s=$(now); psql_ -c "SELECT st_create_backup('Shop', 'round$r') IS NOT NULL" >/dev/null; e=$(now)
	t_backup+=("$(echo "$e - $s" | bc)")
	after=$(psql -X -At -c "SELECT pg_total_relation_size('stdesign.backup_items')")
	backup_bytes=$((after - before))

	s=$(now); pg_dump -Fc --data-only --table='stdesign_data."Shop"' -f "$work/shop.dump" "$PGDATABASE"; e=$(now)
	t_dump+=("$(echo "$e - $s" | bc)")
	dump_bytes=$(stat -c %s "$work/shop.dump")

	arn=$(psql -X -At -c "SELECT st_api('ListBackups', '{\"TableName\": \"Shop\"}') #>> '{BackupSummaries,0,BackupArn}'")
	psql_ -c "SELECT st_drop_table('Restored') FROM st_list_tables() t WHERE t = 'Restored'" >/dev/null
	s=$(now); psql_ -c "SELECT st_restore_backup('$arn', 'Restored') IS NOT NULL" >/dev/null; e=$(now)
	t_restore+=("$(echo "$e - $s" | bc)")
	psql_ -c "SELECT st_delete_backup('$arn') IS NOT NULL" >/dev/null

	# pg_restore into a plain copy of the relation with the same indexes (no stdesign catalog row)
	psql_ <<SQL >/dev/null
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS plain CASCADE;
CREATE SCHEMA plain;
CREATE TABLE plain."Shop" (LIKE stdesign_data."Shop" INCLUDING INDEXES);
SQL
	s=$(now)
	pg_restore --data-only -f - "$work/shop.dump" | sed 's/COPY stdesign_data\./COPY plain./' | psql -X -q -v ON_ERROR_STOP=1 >/dev/null
	e=$(now)
	t_pgrestore+=("$(echo "$e - $s" | bc)")
done

printf '%-44s %8s s\n' "CreateBackup (st_create_backup)" "$(best "${t_backup[@]}")"
printf '%-44s %8s s\n' "pg_dump -Fc --data-only of the relation" "$(best "${t_dump[@]}")"
printf '%-44s %8s s\n' "RestoreTableFromBackup (st_restore_backup)" "$(best "${t_restore[@]}")"
printf '%-44s %8s s\n' "pg_restore of that dump (same indexes)" "$(best "${t_pgrestore[@]}")"
printf '%-44s %12s bytes\n' "space: stdesign.backup_items per backup" "$backup_bytes"
printf '%-44s %12s bytes\n' "space: the pg_dump -Fc file" "$dump_bytes"
