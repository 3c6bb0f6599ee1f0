#!/usr/bin/env bash
# make test: build, install, then every test: the plain-C unit tests, the
# fuzz targets (bounded time), and pg_regress against a throwaway cluster.
# Ends with one "N passed, N failed" line.
set -uo pipefail
cd "$(dirname "$0")/../.."

jobs=$(nproc 2>/dev/null || echo 2)
make -s -j"$jobs" WERROR=1 >/dev/null || { echo "build failed"; exit 1; }
make -s install WERROR=1 >/dev/null || { echo "install failed"; exit 1; }

passed=0
failed=0
count() {
	# count "<name>" <exit status> [passed failed]
	if [ "$2" -eq 0 ]; then passed=$((passed + ${3:-1})); else failed=$((failed + ${4:-1})); fi
}

echo "== unit tests"
out=$(make -s -C test/unit 2>&1); rc=$?
echo "$out" | tail -n 20
p=$(echo "$out" | sed -n 's/^unit: \([0-9]*\) passed, \([0-9]*\) failed$/\1/p')
f=$(echo "$out" | sed -n 's/^unit: \([0-9]*\) passed, \([0-9]*\) failed$/\2/p')
if [ "$rc" -eq 0 ]; then passed=$((passed + ${p:-0})); else failed=$((failed + ${f:-1})); fi

echo "== README error table"
bash test/scripts/errors_table.sh --check; count errors $?

echo "== fuzz targets (${FUZZ_SECONDS:-30} s each)"
make -s -C test/fuzz run FUZZ_SECONDS="${FUZZ_SECONDS:-30}"; count fuzz $?

echo "== pg_regress and isolation"
rm -rf results regression.diffs regression.out output_iso
mkdir -p results
# One throwaway cluster for both suites; each runs even when the other
# fails (a single "make installcheck" stops after a failed pg_regress).
# pg_isolation_regress reports "test <spec> ... ok" lines just like
# pg_regress, so the counts below include the isolation specs.
pg_virtualenv -t sh -c 'make -s installcheck ISOLATION=; r1=$?; make -s installcheck REGRESS=; r2=$?; [ $r1 -eq 0 ] && [ $r2 -eq 0 ]' \
	> results/installcheck.log 2>&1; rc=$?
cat results/installcheck.log
ok=$(grep -cE '^(test|     ) .* \.\.\. ok' results/installcheck.log || true)
bad=$(grep -cE '\.\.\. FAILED' results/installcheck.log || true)
if [ $rc -ne 0 ]; then
	[ -f regression.diffs ] && head -n 300 regression.diffs
	[ -f output_iso/regression.diffs ] && head -n 300 output_iso/regression.diffs
	[ "${bad:-0}" -eq 0 ] && bad=1
fi
passed=$((passed + ${ok:-0}))
failed=$((failed + ${bad:-0}))
echo "== access method: crash recovery, dump/restore, logical replication"; bash test/scripts/tableam_recovery.sh; count tableam_recovery $?
echo "== st_transact under load: stress, then kill -9 and recovery"; bash test/scripts/stress_crash.sh; count stress_crash $?
echo "== direct writes while the relation's cache entries are invalidated"; bash test/scripts/invalidation_stress.sh; count invalidation_stress $?
echo "== HTTP endpoint: aws-cli, boto3, the JavaScript SDK, dynamodb-admin, raw HTTP, SigV4, resilience"
out=$(bash test/scripts/http_tests.sh 2>&1); rc=$?
echo "$out"
p=$(echo "$out" | sed -n 's/^http: \([0-9]*\) passed, \([0-9]*\) failed$/\1/p')
f=$(echo "$out" | sed -n 's/^http: \([0-9]*\) passed, \([0-9]*\) failed$/\2/p')
if [ "$rc" -eq 0 ]; then passed=$((passed + ${p:-0})); else failed=$((failed + ${f:-1})); [ "${f:-0}" -eq 0 ] && failed=$((failed + 1)); fi

echo
echo "stdesign: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
