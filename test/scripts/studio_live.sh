#!/usr/bin/env bash
# The design studio's live page (/studio on the HTTP endpoint), in a
# throwaway cluster of its own with stdesign preloaded and the workers on a
# free port of 127.0.0.1 (and of the machine's first other address, when it
# has one):
#
#   1. serving: the page and its files, their headers (Content-Security-
#      Policy, nosniff, no-store), 404 for what is not there
#   2. trust: a non-loopback address and a foreign Host refused; the
#      studio's calls refused without the page's token, with a forged one,
#      and from another site's Origin; a preflight from another site gets
#      no CORS grant
#   3. the page in Chromium (test/studio/browser_test.mjs trust): the
#      e-commerce table's views, the seeds' six access patterns, model and
#      item edits, at 1280 and 800 px, the code shown run with boto3 and
#      the JavaScript SDK
#   3b. the same in Firefox ESR (BROWSER=firefox)
#   4. sigv4 (after a reload): the page has no token and asks for a key;
#      unsigned studio calls refused; in Chromium, the owner's key sees the
#      items, a key of a role without SELECT sees none
#
# Screenshots go to a temporary directory (STUDIO_SHOTS to choose it),
# never into the tree.  Needs the extension installed (make install), node
# and npm (test/studio's pinned puppeteer-core, installed with npm ci) and
# Debian's chromium and firefox-esr.  Ends with one "studio_live: N passed, N failed" line.
set -uo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

if [ -z "${STUDIO_LIVE_INSIDE:-}" ]; then
	port=$(free_port)
	other=$(hostname -I 2>/dev/null | awk '{print $1}')
	listen="127.0.0.1${other:+, $other}"
	STUDIO_LIVE_INSIDE=1 HTTP_PORT=$port OTHER_ADDR=$other exec bash test/scripts/tmp_cluster.sh \
		-o shared_preload_libraries=stdesign -o stdesign.http_port="$port" \
		-o stdesign.http_workers=2 -o "stdesign.http_listen_addresses=$listen" \
		-o stdesign.http_trust_role=studio_user bash "$0" "$@"
fi

. test/scripts/checks.sh
port=$HTTP_PORT
base="http://127.0.0.1:$port"
work=$(mktemp -d)
chmod 755 "$work"
trap 'rm -rf "$work"' EXIT
shots=${STUDIO_SHOTS:-$(mktemp -d -t studio-shots.XXXXXX)}
q() { psql -X -q -At -v ON_ERROR_STOP=1 "$@"; }
auth='AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20250101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=00'

for _ in $(seq 1 60); do curl -sf "$base/" >/dev/null && break; sleep 0.5; done
q -v seed=sql/stdesign_seed_ecommerce.sql -f test/studio/setup.sql >/dev/null
check "the e-commerce table, its model and items set up" $?

# studio OP BODY [curl args]: the HTTP status; the body in $work/body
studio() {
	local op=$1 body=$2
	shift 2
	curl -s -o "$work/body" -w '%{http_code}' -X POST "$base/" \
		-H "X-Amz-Target: StDesign_Studio.$op" -H 'Content-Type: application/x-amz-json-1.0' \
		-H "Authorization: $auth" --data-binary "$body" "$@"
}

echo "== serving"
curl -s -D "$work/h" -o "$work/page.html" "$base/studio"
grep -q '^HTTP/1.1 200' "$work/h"; check "GET /studio: 200" $?
grep -qi "^Content-Security-Policy: default-src 'none'; script-src 'self';" "$work/h"; check "a strict Content-Security-Policy (no inline script)" $?
grep -qi '^X-Content-Type-Options: nosniff' "$work/h"; check "nosniff" $?
grep -qi '^Cache-Control: no-store' "$work/h"; check "the page (its token) is not cached" $?
grep -qi '^Content-Type: text/html' "$work/h"; check "served as HTML" $?
! grep -qi '<script>' "$work/page.html" && ! grep -q ' on[a-z]*=' "$work/page.html"
check "no inline script in the page" $?
token=$(sed -n 's/.*name="stdesign-token" content="\([0-9a-f.]*\)".*/\1/p' "$work/page.html")
[ ${#token} -eq 97 ]; check "the page carries a token (${#token} characters)" $?
token2=$(curl -s "$base/studio/" | sed -n 's/.*name="stdesign-token" content="\([0-9a-f.]*\)".*/\1/p')
[ -n "$token2" ] && [ "$token2" != "$token" ]; check "each page gets its own token" $?
curl -s -D "$work/h" -o /dev/null "$base/studio/app.js"
grep -qi '^Content-Type: text/javascript' "$work/h" && grep -qi "^Content-Security-Policy: default-src 'none'" "$work/h"
check "its script is served as JavaScript, with the same policy" $?
[ "$(curl -s -o /dev/null -w '%{http_code}' "$base/studio/nothing.js")" = 404 ]; check "an unknown file: 404" $?
[ "$(curl -s -o /dev/null -w '%{http_code}' --path-as-is "$base/studio/../../../etc/passwd")" = 404 ]; check "a path out of the directory: 404" $?
[ "$(curl -s "$base/")" != "" ]; check "GET / still answers the health check" $?

echo "== trust: who may have the page, and act"
if [ -n "${OTHER_ADDR:-}" ]; then
	# trust listens on loopback addresses only (000: refused); a worker
	# that listens there from a start under sigv4 answers 403 once
	# reloaded to trust (http_studio.c)
	: > "$work/body"
	code=$(curl -s -o "$work/body" -w '%{http_code}' "http://$OTHER_ADDR:$port/studio")
	{ [ "$code" = 000 ] || [ "$code" = 403 ]; } && ! grep -q stdesign-token "$work/body"
	check "trust: not served on a non-loopback address ($OTHER_ADDR: $code)" $?
else
	echo "   (no non-loopback address on this machine: that check is left out)"
fi
code=$(curl -s -o "$work/body" -w '%{http_code}' -H 'Host: evil.example:80' "$base/studio")
[ "$code" = 403 ] && ! grep -q stdesign-token "$work/body"; check "trust: not served to another Host (DNS rebinding): $code" $?
[ "$(curl -s -o /dev/null -w '%{http_code}' -H 'Host: localhost:1' "$base/studio")" = 200 ]; check "served to Host localhost" $?
code=$(studio GetModel '{"TableName": "ECommerceTable"}')
[ "$code" = 403 ] && grep -q AccessDeniedException "$work/body"; check "a studio call without the token: 403 ($code)" $?
code=$(studio GetModel '{"TableName": "ECommerceTable"}' -H "X-StDesign-Studio-Token: 00000000000000000000000000000000.${token#*.}")
[ "$code" = 403 ]; check "with a forged token: 403 ($code)" $?
code=$(studio GetModel '{"TableName": "ECommerceTable"}' -H "X-StDesign-Studio-Token: <script>")
[ "$code" = 403 ]; check "with a malformed token: 403 ($code)" $?
code=$(studio GetModel '{"TableName": "ECommerceTable"}' -H "X-StDesign-Studio-Token: $token")
[ "$code" = 200 ] && grep -q '"Customer"' "$work/body"; check "with the page's token: the model ($code)" $?
code=$(studio SetModel '{"TableName": "ECommerceTable", "Model": null}' -H "X-StDesign-Studio-Token: $token" -H 'Origin: http://evil.example')
[ "$code" = 403 ] && [ -n "$(q -c "SELECT st_get_model('ECommerceTable') IS NOT NULL")" ]
check "from another site's Origin, even with a token: 403, nothing changed ($code)" $?
code=$(curl -s -o /dev/null -w '%{http_code}' -X POST "$base/" -H 'X-Amz-Target: DynamoDB_20120810.ListTables' \
	-H 'Content-Type: application/x-amz-json-1.0' -H "Authorization: $auth" -H 'X-StDesign-Studio-Token: bad' --data-binary '{}')
[ "$code" = 403 ]; check "any call carrying a bad token is refused ($code)" $?
code=$(studio GetModel '{"TableName": "ECommerceTable"}' -H "X-StDesign-Studio-Token: $token" -H "Origin: $base")
[ "$code" = 200 ]; check "from the page's own Origin: 200 ($code)" $?
curl -s -D "$work/h" -o /dev/null -X OPTIONS "$base/" -H 'Origin: http://evil.example' \
	-H 'Access-Control-Request-Method: POST' -H 'Access-Control-Request-Headers: x-stdesign-studio-token'
! grep -qi '^Access-Control-Allow-Origin' "$work/h"; check "a preflight from another site gets no CORS grant" $?
code=$(studio RunPattern '{"TableName": "ECommerceTable", "Pattern": 7}' -H "X-StDesign-Studio-Token: $token")
[ "$code" = 400 ]; check "a studio call with a wrong JSON type: 400 ($code)" $?
code=$(studio Partitions '{"TableName": "ECommerceTable", "Limit": 100000000}' -H "X-StDesign-Studio-Token: $token")
[ "$code" = 400 ] && grep -q ValidationException "$work/body"; check "a bound past its limit: ValidationException ($code)" $?
code=$(studio NoSuchOp '{}' -H "X-StDesign-Studio-Token: $token")
[ "$code" = 400 ] && grep -q UnknownOperationException "$work/body"; check "an unknown studio operation: UnknownOperationException ($code)" $?

echo "== the page in Chromium (trust)"
if [ ! -d test/studio/node_modules/puppeteer-core ]; then
	(cd test/studio && npm ci --no-audit --no-fund --loglevel=error >/dev/null 2>&1)
fi
STUDIO_URL=$base SHOTS=$shots node test/studio/browser_test.mjs trust > "$work/trust.out" 2>&1
grep -E '^(ok|not ok) ' "$work/trust.out" | sed 's/^/   /'
p=$(sed -n 's/^studio_live_browser: \([0-9]*\) passed, \([0-9]*\) failed$/\1/p' "$work/trust.out")
f=$(sed -n 's/^studio_live_browser: \([0-9]*\) passed, \([0-9]*\) failed$/\2/p' "$work/trust.out")
passed=$((passed + ${p:-0})); failed=$((failed + ${f:-0}))
[ -n "$p" ] && [ "${p:-0}" -ge 80 ]; check "the browser test ran its checks (${p:-0} passed)" $?
grep -q 'not ok\|went to its end' "$work/trust.out" && tail -20 "$work/trust.out"

echo "== the page in Firefox (trust)"
# the same checks in Debian's Firefox ESR, through WebDriver BiDi
BROWSER=firefox STUDIO_URL=$base SHOTS=$shots/firefox node test/studio/browser_test.mjs trust > "$work/firefox.out" 2>&1
grep -E '^(ok|not ok) ' "$work/firefox.out" | sed 's/^/   /'
p=$(sed -n 's/^studio_live_browser: \([0-9]*\) passed, \([0-9]*\) failed$/\1/p' "$work/firefox.out")
f=$(sed -n 's/^studio_live_browser: \([0-9]*\) passed, \([0-9]*\) failed$/\2/p' "$work/firefox.out")
passed=$((passed + ${p:-0})); failed=$((failed + ${f:-0}))
[ -n "$p" ] && [ "${p:-0}" -ge 80 ]; check "the Firefox browser test ran its checks (${p:-0} passed)" $?
grep -q 'not ok\|went to its end' "$work/firefox.out" && tail -20 "$work/firefox.out"

echo "== sigv4"
q -c "ALTER SYSTEM SET stdesign.http_auth = 'sigv4'" -c "SELECT pg_reload_conf()" >/dev/null
for _ in $(seq 1 40); do
	curl -s "$base/studio" | grep -q 'content="sigv4"' && break
	sleep 0.25
done
curl -s -o "$work/page.html" "$base/studio"
grep -q 'name="stdesign-auth" content="sigv4"' "$work/page.html" && grep -q 'name="stdesign-token" content=""' "$work/page.html"
check "sigv4: the page says so, and carries no token" $?
code=$(studio GetModel '{"TableName": "ECommerceTable"}' -H "X-StDesign-Studio-Token: $token")
[ "$code" = 400 ] && grep -Eq 'IncompleteSignatureException|UnrecognizedClientException' "$work/body"
check "sigv4: a studio call with a page token but no valid signature: refused ($code)" $?
owner=$(q -c "SELECT access_key_id || ':' || secret_access_key FROM st_create_access_key('studio_user')")
q -c "CREATE ROLE studio_noselect LOGIN" -c "GRANT USAGE ON SCHEMA stdesign, stdesign_data TO studio_noselect" \
	-c "GRANT SELECT ON stdesign.tables, stdesign.indexes TO studio_noselect" >/dev/null
noselect=$(q -c "SELECT access_key_id || ':' || secret_access_key FROM st_create_access_key('studio_noselect')")
KEY_OWNER=$owner KEY_NOSELECT=$noselect STUDIO_URL=$base SHOTS=$shots node test/studio/browser_test.mjs sigv4 > "$work/sigv4.out" 2>&1
grep -E '^(ok|not ok) ' "$work/sigv4.out" | sed 's/^/   /'
p=$(sed -n 's/^studio_live_browser: \([0-9]*\) passed, \([0-9]*\) failed$/\1/p' "$work/sigv4.out")
f=$(sed -n 's/^studio_live_browser: \([0-9]*\) passed, \([0-9]*\) failed$/\2/p' "$work/sigv4.out")
passed=$((passed + ${p:-0})); failed=$((failed + ${f:-0}))
[ "${p:-0}" -ge 6 ]; check "the sigv4 browser test ran its checks (${p:-0} passed)" $?
grep -q 'not ok' "$work/sigv4.out" && tail -20 "$work/sigv4.out"
echo "   screenshots: $shots"

echo "studio_live: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
