#!/usr/bin/env bash
# The live studio's first screens on a large table: how long the page takes
# to draw them, how many calls it makes and how many items those read.
#
#   bench/studio.sh [--items N] [--hot M]
#
# Loads N items (default 10^6) of the seeds' e-commerce shape into a table
# "Big" (st_import_file), M of them (default 10^5) in one partition,
# "A#HOT", which comes first in key order, so that the first screen of the
# aggregate view is a page of that partition; then opens /studio in
# Chromium (test/studio's puppeteer-core) and times, from the navigation to
# the page saying it is drawn: the tables list, the aggregate view (its
# first page: the large partition), the next page, the GSI's view and the
# facet of one entity.  Each line gives the milliseconds, the page's calls
# and the items they read (ScannedCount), so that no view reading the whole
# table goes unseen.
#
# Without PGPORT it starts a throwaway cluster (test/scripts/tmp_cluster.sh)
# with the endpoint on a free port; with PGPORT and HTTP_PORT it uses that
# server (its endpoint under trust, whose role may create tables) and a
# table Big made afresh.  A benchmark, not a test.
set -euo pipefail
self=$(realpath "$0")
root=$(dirname "$self")/..

items=1000000
hot=100000
while [ $# -gt 0 ]; do
	case "$1" in
		--items) items=$2; shift 2 ;;
		--hot) hot=$2; shift 2 ;;
		*) echo "usage: $0 [--items N] [--hot M]"; exit 2 ;;
	esac
done

if [ -z "${PGPORT:-}" ]; then
	port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	exec env -u PGPORT HTTP_PORT="$port" bash "$root/test/scripts/tmp_cluster.sh" -o shared_buffers=512MB -o max_wal_size=4GB \
		-o shared_preload_libraries=stdesign -o stdesign.http_port="$port" -o stdesign.http_workers=2 \
		-o stdesign.http_trust_role=postgres -o stdesign.http_trust_allow_superuser=on \
		bash "$self" --items "$items" --hot "$hot"
fi

psql -X -q -c "CREATE EXTENSION IF NOT EXISTS stdesign" 2>/dev/null
file=$(psql -X -At -c "SELECT current_setting('data_directory') || '/bench_studio.jsonl'")
t0=$(date +%s.%N)
psql -X -q -v ON_ERROR_STOP=1 -v items="$items" -v hot="$hot" -v file="$file" <<'SQL'
SELECT st_drop_table('Big') FROM stdesign.tables WHERE table_name = 'Big';
SELECT st_create_table('{"TableName": "Big",
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "SK", "AttributeType": "S"},
                           {"AttributeName": "GSI1PK", "AttributeType": "S"}, {"AttributeName": "GSI1SK", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
  "GlobalSecondaryIndexes": [{"IndexName": "GSI1", "KeySchema": [{"AttributeName": "GSI1PK", "KeyType": "HASH"},
                              {"AttributeName": "GSI1SK", "KeyType": "RANGE"}], "Projection": {"ProjectionType": "ALL"}}],
  "BillingMode": "PAY_PER_REQUEST"}') IS NOT NULL AS created \gset
COPY (SELECT jsonb_build_object('Item', x)::text FROM (
      SELECT jsonb_build_object(
        'PK', jsonb_build_object('S', CASE WHEN i < :hot THEN 'A#HOT' ELSE 'CUST#' || (i / 20) END),
        'SK', jsonb_build_object('S', CASE WHEN i % 20 = 0 THEN 'CUST#' || lpad(i::text, 9, '0') ELSE 'ORDER#' || lpad(i::text, 9, '0') END),
        'entity_type', jsonb_build_object('S', CASE WHEN i % 20 = 0 THEN 'Customer' ELSE 'Order' END),
        'name', jsonb_build_object('S', 'Customer number ' || (i / 20)),
        'total', jsonb_build_object('N', ((i % 997) * 1.25)::text),
        'status', jsonb_build_object('S', (ARRAY['PENDING', 'SHIPPED', 'DELIVERED'])[1 + i % 3]))
        || CASE WHEN i % 20 = 0 THEN '{}'::jsonb ELSE jsonb_build_object(
             'GSI1PK', jsonb_build_object('S', 'STATUS#' || (ARRAY['PENDING', 'SHIPPED', 'DELIVERED'])[1 + i % 3]),
             'GSI1SK', jsonb_build_object('S', 'ORDER#' || lpad(i::text, 9, '0'))) END AS x
        FROM generate_series(0, :items - 1) AS i) AS s) TO :'file';
SELECT st_import_file('Big', :'file') AS imported \gset
SELECT st_set_model('Big', '{"entities": {
  "Customer": {"keys": {"PK": "CUST#{customer_id}", "SK": "CUST#{n}"}},
  "Order": {"keys": {"PK": "CUST#{customer_id}", "SK": "ORDER#{n}", "GSI1PK": "STATUS#{status}", "GSI1SK": "ORDER#{n}"}}}}') IS NOT NULL AS model \gset
ANALYZE stdesign_data."Big";
SQL
rm -f "$file" 2>/dev/null || true
load=$(echo "$(date +%s.%N) - $t0" | bc)
echo "studio bench: $items items, $hot in partition A#HOT (loaded in ${load%.*} s); $(nproc) cores; $(date -u +%Y-%m-%d)"
cd "$root/test/studio"
[ -d node_modules/puppeteer-core ] || npm ci --no-audit --no-fund --loglevel=error >/dev/null
STUDIO_URL="http://127.0.0.1:$HTTP_PORT" node --input-type=module <<'JS'
import puppeteer from 'puppeteer-core';
const base = process.env.STUDIO_URL;
const b = await puppeteer.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--disable-gpu'] });
const p = await b.newPage();
await p.setViewport({ width: 1280, height: 900 });
const counters = () => p.evaluate(() => ({ calls: Number(document.body.dataset.calls || 0), items: Number(document.body.dataset.itemsRead || 0) }));
async function timed(what, act, drawn = () => p.waitForSelector('body[data-ready="1"]', { timeout: 60000 })) {
  let before = await counters().catch(() => ({ calls: 0, items: 0 }));
  const t = Date.now();
  await act();
  await drawn();
  const ms = Date.now() - t;
  let after = await counters();
  // a navigation that loads the page again starts its counts from zero
  if (after.calls < before.calls) before.calls = before.items = 0;
  console.log(`${what.padEnd(44)} ${String(ms).padStart(6)} ms  ${String(after.calls - before.calls).padStart(3)} calls  ${String(after.items - before.items).padStart(6)} items read`);
}
const go = (h) => p.evaluate((x) => { document.body.dataset.ready = '0'; location.hash = x; }, h);
for (const round of [1, 2]) {
  console.log(`-- round ${round}`);
  await timed('tables list (GET /studio, ListTables, ...)', () => p.goto(`${base}/studio?round=${round}#/`, { waitUntil: "domcontentloaded" }));
  await timed('aggregate view: first screen (A#HOT)', () => go('#/t/Big/aggregate'));
  const rows = await p.$$eval('tr.item', (r) => r.length);
  await timed(`  next page (${rows} items on the first)`, () => p.evaluate(() => [...document.querySelectorAll('.pager button')].at(-1).click()),
    () => p.waitForFunction(() => document.querySelector('.pageinfo')?.textContent.startsWith('page 2'), { timeout: 60000 }));
  await timed('GSI1 view: first screen', () => go('#/t/Big/index/GSI1'));
  await timed('facet Order: first screen', () => go('#/t/Big/facet/Order'));
}
await b.close();
JS
