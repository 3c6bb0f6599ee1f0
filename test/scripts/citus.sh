#!/usr/bin/env bash
# make test-citus: stdesign on a Citus cluster (test/citus/*.pl, a
# coordinator and two workers on this machine against a single node).
#
# Finds Citus in the PostgreSQL that pg_config names (PG_CONFIG), or builds
# and installs it from a source tarball in ../shared/vendor beside the
# project, or beside its main working tree when this is a linked git
# worktree (CITUS_TARBALL names another), with the Debian packages its build
# needs; without either it skips, saying so, and succeeds.  Then installs
# stdesign there and runs the TAP test as make prove runs the others (as
# the postgres user when started as root: initdb refuses root).
#
#   CITUS_TEST_PORT      first of six consecutive ports (four nodes, two HTTP endpoints) (default: free ones)
#   CITUS_LOAD_SECONDS   length of the concurrent load (default 10)
#
# Fails when fewer checks ran than the test has (min_citus below; not
# with CITUS_ONLY_REGRESS, which leaves regression files out).
set -euo pipefail
# Run from make (make pg18, make test-citus), the builds below would inherit
# MAKELEVEL and MAKEFLAGS: PostgreSQL's makefiles make their generated
# headers only at MAKELEVEL 0, and a fresh tree's build then fails.
unset MAKELEVEL MAKEFLAGS MFLAGS
cd "$(dirname "$0")/../.."
PG_CONFIG=${PG_CONFIG:-pg_config}
export PG_CONFIG
pkglibdir=$("$PG_CONFIG" --pkglibdir)

# Citus 13 is the last release for PostgreSQL 15; Citus 14 supports 16 to 18
# (its configure refuses 15): the newest tarball of the series that fits.
pgmajor=$("$PG_CONFIG" --version | sed 's/^PostgreSQL \([0-9]*\).*/\1/')
if [ "$pgmajor" -le 15 ]; then citus_series=13; else citus_series=14; fi

if [ ! -f "$pkglibdir/citus.so" ]; then
	# ../shared/vendor beside the project; from a linked git worktree, also
	# beside its main working tree (where the vendor directory sits)
	vendor=(../shared/vendor)
	common=$(git rev-parse --git-common-dir 2>/dev/null || true)
	if [ -n "$common" ] && [ "$(basename "$common")" = .git ]; then
		main_tree=$(cd "$common/.." && pwd)
		[ "$main_tree" = "$(pwd)" ] || vendor+=("$main_tree/../shared/vendor")
	fi
	tarball=${CITUS_TARBALL:-}
	for v in "${vendor[@]}"; do
		[ -n "$tarball" ] && break
		tarball=$(ls "$v"/citus-"$citus_series".*.tar.gz 2>/dev/null | sort -V | tail -n 1 || true)
	done
	if [ -z "$tarball" ] || [ ! -f "$tarball" ]; then
		echo "test-citus: SKIPPED: Citus is not installed in $pkglibdir and no Citus source tarball was found (../shared/vendor/citus-*.tar.gz or CITUS_TARBALL)"
		exit 0
	fi
	sudo=""
	[ "$(id -u)" -eq 0 ] || sudo="sudo"
	missing=()
	for p in libcurl4-openssl-dev liblz4-dev libzstd-dev libkrb5-dev; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
	done
	if [ ${#missing[@]} -gt 0 ]; then
		echo "test-citus: installing ${missing[*]}"
		export DEBIAN_FRONTEND=noninteractive
		$sudo apt-get update -qq
		$sudo apt-get install -y -qq "${missing[@]}" >/dev/null
	fi
	build=$(mktemp -d -t stdesign_citus.XXXXXX)
	echo "test-citus: building Citus from $tarball in $build (a few minutes)"
	tar -xzf "$tarball" -C "$build"
	src=$(find "$build" -mindepth 1 -maxdepth 1 -type d | head -n 1)
	(cd "$src" && ./configure PG_CONFIG="$PG_CONFIG" >"$build/configure.log" 2>&1 &&
		make -j2 >"$build/make.log" 2>&1 && $sudo make install >"$build/install.log" 2>&1) || {
		echo "test-citus: the Citus build failed; its logs:"; tail -n 30 "$build"/*.log; exit 1; }
	rm -rf "$build"
fi

make -s install
rm -rf tmp_check
mkdir -p results
status=0
if [ "$(id -u)" -eq 0 ]; then
	tapdir=$(mktemp -d -t stdesign_citus_tap.XXXXXX)
	mkdir -p "$tapdir/test"
	cp -r Makefile stdesign.control "$tapdir/"
	cp -r test/citus "$tapdir/test/"
	cp -r sql "$tapdir/"
	chown -R postgres: "$tapdir"
	(cd "$tapdir" && runuser -u postgres -- env PATH="$PATH" make -s prove PROVE_TESTS="test/citus/*.pl") \
		> results/citus.log 2>&1 || status=$?
	mkdir -p tmp_check
	cp -r "$tapdir/tmp_check/log" tmp_check/ 2>/dev/null || true
	rm -rf "$tapdir"
else
	make -s prove PROVE_TESTS="test/citus/*.pl" > results/citus.log 2>&1 || status=$?
fi
cat results/citus.log
# every check ran: prove's count at least what the test has now
min_citus=200
ran=$(sed -n 's/^Files=[0-9]*, Tests=\([0-9]*\),.*/\1/p' results/citus.log)
if [ "$status" -eq 0 ] && [ -z "${CITUS_ONLY_REGRESS:-}" ] && [ "${ran:-0}" -lt "$min_citus" ]; then
	echo "test-citus: ${ran:-0} checks ran, fewer than the $min_citus expected"
	status=1
fi
exit $status
