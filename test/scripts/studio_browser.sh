#!/usr/bin/env bash
# The design studio's page in a real browser: st_studio_html of the seeds'
# e-commerce model, loaded by headless Chromium (Debian's chromium).
#
# Checks that the page's own script ran to its end with no error (it sets
# data-ok="1" on #studio-status only when window.onerror recorded nothing;
# the DOM is read back with --dump-dom), that the browser's console shows no
# error (--enable-logging=stderr), that item content stayed text (a hostile
# item's markup is not an element of the DOM), that a page with a broken
# script is caught (so the check can fail), and takes a screenshot
# (results/studio_browser.png, never committed) for a person to look at.
#
# Runs in a throwaway cluster of its own (test/scripts/tmp_cluster.sh), or with
# STUDIO_BROWSER_INSIDE=1 against the server the environment names.  Needs
# the extension installed (make install).  Ends with one
# "studio_browser: N passed, N failed" line; exits non-zero on any failure.
set -uo pipefail
cd "$(dirname "$0")/../.."

if [ -z "${STUDIO_BROWSER_INSIDE:-}" ]; then
	STUDIO_BROWSER_INSIDE=1 exec bash test/scripts/tmp_cluster.sh bash "$0" "$@"
fi

. test/scripts/checks.sh
if ! command -v chromium >/dev/null 2>&1; then
	echo "studio_browser: chromium is not installed (make deps)"
	echo "studio_browser: 0 passed, 1 failed"
	exit 1
fi

db=stdesign_studio_browser
work=$(mktemp -d)
chmod 755 "$work"
mkdir -p results
trap 'rm -rf "$work"; psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1' EXIT
q() { psql -X -q -v ON_ERROR_STOP=1 -d "$db" "$@"; }

psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1
psql -X -q -d postgres -c "CREATE DATABASE $db" >/dev/null || { echo "studio_browser: 0 passed, 1 failed"; exit 1; }
q >/dev/null <<'SQL' || { echo "studio_browser: set-up failed"; echo "studio_browser: 0 passed, 1 failed"; exit 1; }
CREATE EXTENSION stdesign;
SELECT st_create_table('{"TableName": "ECommerceTable",
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "SK", "AttributeType": "S"},
                           {"AttributeName": "GSI1PK", "AttributeType": "S"}, {"AttributeName": "GSI1SK", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
  "GlobalSecondaryIndexes": [{"IndexName": "GSI1",
    "KeySchema": [{"AttributeName": "GSI1PK", "KeyType": "HASH"}, {"AttributeName": "GSI1SK", "KeyType": "RANGE"}],
    "Projection": {"ProjectionType": "ALL"}}],
  "BillingMode": "PAY_PER_REQUEST"}'::jsonb);
SELECT st_set_model('ECommerceTable', '{
  "description": "The e-commerce model of the single-table design guide: customers, their orders, the orders line items.",
  "entities": {
    "Customer": {"keys": {"PK": "CUST#{customer_id}", "SK": "CUST#{customer_id}"},
                 "attributes": {"customer_id": "S", "name": "S", "email": "S", "created_at": "S"}},
    "Order": {"keys": {"PK": "CUST#{customer_id}", "SK": "ORDER#{order_date}#{order_id}",
                       "GSI1PK": "ORDER#{order_id}", "GSI1SK": "STATUS#{status}"},
              "attributes": {"customer_id": "S", "order_id": "S", "order_date": "S", "total": "N", "status": "S"}},
    "OrderItem": {"keys": {"PK": "ORDER#{order_id}", "SK": "ITEM#{sku}", "GSI1PK": "PROD#{sku}", "GSI1SK": "ORDER#{order_id}"},
                  "attributes": {"order_id": "S", "sku": "S", "product_name": "S", "quantity": "N", "price": "N"}}},
  "patterns": {
    "get_customer": {"op": "GetItem", "pk": "CUST#{customer_id}", "sk": "CUST#{customer_id}", "rate": 100},
    "orders_for_customer": {"op": "Query", "pk": "CUST#{customer_id}", "sk": {"begins_with": "ORDER#"}, "rate": 50},
    "get_order": {"op": "GetItem", "pk": "CUST#{customer_id}", "sk": "ORDER#{order_date}#{order_id}", "rate": 20},
    "order_items": {"op": "Query", "pk": "ORDER#{order_id}", "sk": {"begins_with": "ITEM#"}, "rate": 30},
    "orders_in_range": {"op": "Query", "pk": "CUST#{customer_id}", "sk": {"between": ["ORDER#{from}", "ORDER#{to}"]}, "rate": 5,
                        "example": {"customer_id": "123", "from": "2026-07-01", "to": "2026-07-31#~"}},
    "order_status": {"op": "Query", "index": "GSI1", "pk": "ORDER#{order_id}", "sk": {"begins_with": "STATUS#"}, "rate": 10},
    "pending_orders": {"op": "Query", "pk": "CUST#{customer_id}", "sk": {"begins_with": "ORDER#"},
                       "filter": "#s = :s", "names": {"#s": "status"}, "values": {":s": "pending"}, "rate": 2},
    "new_order": {"op": "PutItem", "entity": "Order", "rate": 3}}}');
SELECT st_put_entity('Customer', c) FROM jsonb_array_elements('[
  {"customer_id": "123", "name": "Jane Smith", "email": "jane@example.com", "created_at": "2026-01-15T10:30:00Z"},
  {"customer_id": "456", "name": "Rahul Rao", "email": "rahul@example.com", "created_at": "2026-02-01T09:00:00Z"},
  {"customer_id": "789", "name": "<img src=x onerror=alert(1)><script>window.injected=1</script>", "email": "\"><b id=injected>x</b>"}]') AS c;
SELECT st_put_entity('Order', o) FROM jsonb_array_elements('[
  {"customer_id": "123", "order_id": "001", "order_date": "2026-07-06", "total": 149.99, "status": "pending"},
  {"customer_id": "123", "order_id": "000", "order_date": "2026-06-20", "total": 20, "status": "shipped"},
  {"customer_id": "123", "order_id": "002", "order_date": "2026-07-28", "total": 35.5, "status": "shipped"},
  {"customer_id": "123", "order_id": "003", "order_date": "2026-08-02", "total": 12.00, "status": "pending"},
  {"customer_id": "456", "order_id": "004", "order_date": "2026-07-10", "total": 99, "status": "delivered"}]') AS o;
SELECT st_put_entity('OrderItem', i) FROM jsonb_array_elements('[
  {"order_id": "001", "sku": "SKU-ABC", "product_name": "Wireless Headphones", "quantity": 1, "price": 99.99},
  {"order_id": "001", "sku": "SKU-XYZ", "product_name": "USB-C Cable", "quantity": 2, "price": 25.00},
  {"order_id": "002", "sku": "SKU-ABC", "product_name": "Wireless Headphones", "quantity": 1, "price": 35.5}]') AS i;
SQL

page=$work/studio.html
q -At -c "SELECT st_studio_html('ECommerceTable')" > "$page"
[ -s "$page" ]; check "st_studio_html wrote a page ($(wc -c < "$page") bytes)" $?

# chromium <args...>: headless, no sandbox (the tests may run as root), no
# profile left behind, nothing fetched from the network.
browse() {
	timeout 120 chromium --headless=new --no-sandbox --disable-gpu --no-first-run \
		--user-data-dir="$work/profile" --disable-background-networking \
		--enable-logging=stderr --v=0 "$@"
}

browse --dump-dom "file://$page" > "$work/dom.html" 2> "$work/console.log"
grep -q 'id="studio-status" data-ok="1"' "$work/dom.html"
check "the page's script ran to its end with no error" $?
! grep -q 'class="studio-error"' "$work/dom.html"; check "no error recorded by window.onerror" $?
! grep -Eiq 'CONSOLE.*(error|uncaught)|Uncaught ' "$work/console.log"
check "no error on the browser's console" $?
for e in Customer Order OrderItem; do
	grep -q "data-entity-toggle=\"$e\"" "$work/dom.html"; check "entity $e in the legend" $?
done
n=$(grep -o '<tr class="item' "$work/dom.html" | wc -l)
[ "$n" -eq 19 ]; check "every item drawn: 11 in the table, 8 in GSI1 ($n rows)" $?
grep -q 'orders_for_customer' "$work/dom.html"; check "the access patterns are on the page" $?
grep -q 'filter reads more than it returns' "$work/dom.html"; check "the filter finding is on the page" $?
grep -q '<svg class="chart"' "$work/dom.html"; check "the hot-partition chart is on the page" $?
! grep -Eq '<img|<b id="injected"|window\.injected=1</script>' "$work/dom.html"
check "an item's markup stays text in the DOM" $?
grep -q '&lt;img src=x onerror=alert(1)&gt;' "$work/dom.html"; check "and is shown as text" $?

# The check can fail: the same page with a script that throws.
sed 's|</body>|<script>undefinedFunction();</script></body>|; s|<ul id="studio-errors">|<script>undefinedFunction();</script><ul id="studio-errors">|' "$page" > "$work/broken.html"
browse --dump-dom "file://$work/broken.html" > "$work/broken_dom.html" 2> "$work/broken_console.log"
grep -q 'class="studio-error"' "$work/broken_dom.html" && ! grep -q 'data-ok="1"' "$work/broken_dom.html"
check "a page whose script throws is caught" $?

rm -f results/studio_browser.png
browse --screenshot="$work/studio.png" --window-size=1400,2400 --hide-scrollbars "file://$page" \
	> /dev/null 2> "$work/shot.log"
cp "$work/studio.png" results/studio_browser.png 2>/dev/null
[ "$(head -c 8 results/studio_browser.png 2>/dev/null | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ] &&
	[ "$(stat -c %s results/studio_browser.png)" -gt 20000 ]
check "a screenshot of the page (results/studio_browser.png)" $?

echo "studio_browser: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
