#!/usr/bin/env bash
# make test: build, install, then every test, layer by layer: the plain-C
# unit checks, the repository checks (the error table of docs/errors.md,
# fuzz targets), pg_regress files and isolation specs against a throwaway
# cluster, the TAP tests (test/t/*.pl, each with clusters of its own),
# counted one check at a time by prove, and the script layers (the HTTP
# clients, stdesign-local as installed, the documentation's blocks, the studio in Chromium:
# its static page and its live one).
#
# Each layer reports its own line, "layer <name>: N passed, N failed", and
# has a minimum count: a layer that runs fewer checks than it should (a
# file no longer picked up, a script that stops early) fails.  The last line
# is the total, "stdesign: N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/../.."
# The expected files hold UTF-8 text (psql pads its columns by character,
# the throwaway cluster takes the environment's locale): an environment
# with no locale of its own runs the suite in C.UTF-8.
if [ -z "${LC_ALL:-}${LC_CTYPE:-}${LANG:-}" ]; then
	export LANG=C.UTF-8
fi

# Minimum number of checks per layer: raise them when tests are added.
# pg_regress and isolation must also run every file there is.
min_unit=1281
min_checks=3
min_regress=74
min_isolation=17
min_tap=314
files=$(ls sql/*.sql | grep -cv "^sql/stdesign\(--.*\|_.*\)\{0,1\}\.sql$")
[ "$files" -gt "$min_regress" ] && min_regress=$files
files=$(ls test/isolation/specs/*.spec | wc -l)
[ "$files" -gt "$min_isolation" ] && min_isolation=$files

jobs=$(nproc 2>/dev/null || echo 2)
make -s -j"$jobs" WERROR=1 >/dev/null || { echo "build failed"; exit 1; }
make -s install WERROR=1 >/dev/null || { echo "install failed"; exit 1; }

passed=0
failed=0
summary=()
# layer <name> <passed> <failed> <minimum>: adds a layer to the totals
# (one more failure when it ran fewer checks than its minimum).
layer() {
	local line="layer $1: $2 passed, $3 failed"
	passed=$((passed + $2))
	failed=$((failed + $3))
	if [ $(($2 + $3)) -lt "$4" ]; then
		failed=$((failed + 1))
		line="$line; FAILED: fewer than the $4 expected"
	fi
	summary+=("$line")
}
# count <name> <status>: one check of the "checks" layer
checks_passed=0
checks_failed=0
count() {
	if [ "$2" -eq 0 ]; then checks_passed=$((checks_passed + 1)); else checks_failed=$((checks_failed + 1)); fi
}

# script_layer <name> <minimum> <command...>: a layer from a command that
# counts its own checks and ends with "<name>: N passed, N failed" (and
# perhaps more counts after a comma, not added: "..., N not run"; a failing
# command with no failed check counts one).
script_layer() {
	local name=$1 min=$2 out rc p f
	shift 2
	out=$("$@" 2>&1); rc=$?
	echo "$out"
	p=$(echo "$out" | sed -n "s/^$name: \([0-9]*\) passed, \([0-9]*\) failed\(, .*\)\{0,1\}\$/\1/p" | tail -n 1)
	f=$(echo "$out" | sed -n "s/^$name: \([0-9]*\) passed, \([0-9]*\) failed\(, .*\)\{0,1\}\$/\2/p" | tail -n 1)
	[ "$rc" -ne 0 ] && [ "${f:-0}" -eq 0 ] && f=1
	layer "$name" "${p:-0}" "${f:-0}" "$min"
}

echo "== unit tests"
script_layer unit "$min_unit" make -s -C test/unit

echo "== error table (docs/errors.md)"
bash test/scripts/errors_table.sh --check; count errors $?

echo "== layers: dependencies point down only"
bash test/scripts/layers.sh; count layers $?

echo "== fuzz targets (${FUZZ_SECONDS:-30} s each)"
make -s -C test/fuzz run FUZZ_SECONDS="${FUZZ_SECONDS:-30}"; count fuzz $?
layer checks "$checks_passed" "$checks_failed" "$min_checks"

echo "== pg_regress and isolation"
rm -rf results regression.diffs regression.out output_iso
mkdir -p results
# One throwaway cluster for both suites, each with its own log; each runs
# even when the other fails (a single "make installcheck" stops after a
# failed pg_regress).  The TAP tests start clusters of their own, below.
bash test/scripts/tmp_cluster.sh sh -c 'make -s installcheck ISOLATION= TAP_TESTS= > results/regress.log 2>&1
	make -s installcheck REGRESS= TAP_TESTS= > results/isolation.log 2>&1; true' \
	> results/virtualenv.log 2>&1 || cat results/virtualenv.log
# count_suite <name> <log> <diffs> <minimum>: "test <name> ... ok" lines,
# or from PostgreSQL 16 on "ok N - <name>" (pg_regress and
# pg_isolation_regress report alike)
count_suite() {
	local ok bad
	touch "$2"
	cat "$2"
	ok=$(grep -cE '^(test|     ) .* \.\.\. ok|^ok [0-9]+ ' "$2")
	bad=$(grep -cE '\.\.\. FAILED|^not ok [0-9]+ ' "$2")
	if ! grep -qE '^# All [0-9]+ tests passed|^=* *All [0-9]+ tests passed' "$2"; then
		[ -f "$3" ] && head -n 300 "$3"
		[ "$bad" -eq 0 ] && bad=1
	fi
	layer "$1" "$ok" "$bad" "$4"
}
count_suite regress results/regress.log regression.diffs "$min_regress"
count_suite isolation results/isolation.log output_iso/regression.diffs "$min_isolation"

echo "== TAP tests (test/t/*.pl)"
# test/t/010_major_upgrade.pl moves a database from an older major to this
# one: the older PostgreSQL is STDESIGN_OLD_PG_CONFIG, by default the
# pg_config on PATH when its major is older than PG_CONFIG's (Debian's 15
# beside a build of 18); stdesign is built and installed there from a copy
# of this tree first.  Without an older major the test skips.
pg_major() { "$1" --version 2>/dev/null | sed -n 's/^PostgreSQL \([0-9]*\).*/\1/p'; }
old_pg_config=${STDESIGN_OLD_PG_CONFIG:-pg_config}
this_major=$(pg_major "${PG_CONFIG:-pg_config}")
old_major=$(pg_major "$old_pg_config")
if [ -n "$old_major" ] && [ -n "$this_major" ] && [ "$old_major" -lt "$this_major" ]; then
	oldcopy=$(mktemp -d -t stdesign_old.XXXXXX)
	cp -r Makefile stdesign.control sql src bin "$oldcopy/"
	# set either way: without stdesign there, the move's test fails
	export STDESIGN_OLD_BINDIR
	STDESIGN_OLD_BINDIR=$("$old_pg_config" --bindir)
	if (cd "$oldcopy" && make -s -j"$jobs" PG_CONFIG="$old_pg_config" WERROR=1 >/dev/null &&
		make -s install PG_CONFIG="$old_pg_config" >/dev/null); then
		echo "(PostgreSQL $old_major with this tree's stdesign for the move to $this_major: $STDESIGN_OLD_BINDIR)"
	else
		echo "(could not install stdesign into PostgreSQL $old_major: the move from it fails below)"
	fi
	rm -rf "$oldcopy"
	# the move's checks are then part of the layer's minimum
	min_tap=$((min_tap + 160))
fi
# initdb refuses root: as root, prove runs as the postgres user in a copy of
# what it needs (the checkout may sit where that user cannot read or write);
# the logs come back to tmp_check/log.
rm -rf tmp_check
if [ "$(id -u)" -eq 0 ]; then
	tapdir=$(mktemp -d -t stdesign_tap.XXXXXX)
	mkdir "$tapdir/test"
	cp -r Makefile stdesign.control "$tapdir/"
	cp -r test/t "$tapdir/test/"
	chown -R postgres: "$tapdir"
	(cd "$tapdir" && runuser -u postgres -- make -s prove) > results/tap.log 2>&1
	mkdir -p tmp_check
	cp -r "$tapdir/tmp_check/log" tmp_check/ 2>/dev/null
	rm -rf "$tapdir"
else
	make -s prove > results/tap.log 2>&1
fi
cat results/tap.log
# prove's summary: "Files=F, Tests=N, ..." and, per failing file,
# "file (Wstat: W Tests: N Failed: M)"; a file that died with no failed
# check counts one failure.
tap_total=$(sed -n 's/^Files=[0-9]*, Tests=\([0-9]*\),.*/\1/p' results/tap.log)
tap_failed=$(awk '/\(Wstat: [0-9]+.*Tests: [0-9]+ Failed: [0-9]+\)/ {
		m = $0; sub(/.*Failed: /, "", m); sub(/\).*/, "", m)
		n += (m + 0 > 0 ? m + 0 : 1) } END { print n + 0 }' results/tap.log)
if [ -z "$tap_total" ]; then
	tap_total=0
	[ "$tap_failed" -eq 0 ] && tap_failed=1
elif ! grep -q '^Result: PASS' results/tap.log && [ "$tap_failed" -eq 0 ]; then
	tap_failed=1
fi
tap_passed=$((tap_total > tap_failed ? tap_total - tap_failed : 0))
[ "$tap_failed" -gt 0 ] && echo "(TAP logs: tmp_check/log/regress_log_*)"
layer tap "$tap_passed" "$tap_failed" "$min_tap"

echo "== index builds while the relation's cache entry is invalidated"
script_layer index_build_invalidation 15 bash test/scripts/index_build_invalidation.sh

echo "== HTTP endpoint: aws-cli, boto3, the JavaScript SDK, dynamodb-admin, raw HTTP, SigV4, resilience"
script_layer http 269 bash test/scripts/http_tests.sh

echo "== stdesign-local: the DynamoDB endpoint in one command (aws-cli, boto3, psql, restarts, Ctrl-C)"
script_layer local 37 bash test/scripts/local_test.sh

echo "== the documentation's blocks (README.md, docs/*.md) against stdesign-local"
script_layer docs 25 bash test/scripts/doc_blocks.sh

echo "== design studio page in headless Chromium"
script_layer studio_browser 15 bash test/scripts/studio_browser.sh

echo "== design studio live page (/studio on the endpoint) in Chromium, puppeteer-core"
script_layer studio_live 120 bash test/scripts/studio_live.sh

echo
printf '%s\n' "${summary[@]}"
echo "stdesign: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
