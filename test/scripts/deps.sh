#!/usr/bin/env bash
# Install the Debian packages that stdesign needs, when they are missing.
# Idempotent; needs root (or sudo) only when something is missing.
#
#   deps.sh build   a plain build and the server (make deps, make run):
#                   PostgreSQL with its server headers, make, gcc and the
#                   HTTP endpoint's libraries
#   deps.sh test    that and what the tests, the demo and the benchmarks run
#                   (make test-deps, which make test, make demo, make
#                   test-citus, make bench and make valgrind install)
set -euo pipefail

set_name=${1:-test}
case "$set_name" in
	build | test) ;;
	*) echo "usage: deps.sh build|test" >&2; exit 2 ;;
esac

# The PostgreSQL to build for: the pg_config in use (PG_CONFIG, else the one
# on PATH) when its server and headers are there; else Debian's packages of
# its major (15 without any pg_config).  A PostgreSQL built from source into
# a prefix of its own has them already, or needs them from its own build.
pg_config=${PG_CONFIG:-pg_config}
pg_packages=()
bindir=$("$pg_config" --bindir 2>/dev/null || true)
includedir=$("$pg_config" --includedir-server 2>/dev/null || true)
if [ -z "$bindir" ] || [ ! -x "$bindir/postgres" ] || [ ! -f "$includedir/postgres.h" ]; then
	major=$("$pg_config" --version 2>/dev/null | sed -n 's/^PostgreSQL \([0-9]*\).*/\1/p' || true)
	case "$bindir" in
		"" | /usr/bin | /usr/lib/postgresql/*) ;;
		*)
			echo "deps.sh: $pg_config ($bindir) lacks its server or its server headers; they come from that PostgreSQL's own build" >&2
			exit 1
			;;
	esac
	# Debian's packaged majors start at 15 here (stdesign supports 15 to 18)
	[ -n "$major" ] && [ "$major" -ge 15 ] 2>/dev/null || major=15
	pg_packages=(postgresql-"$major" postgresql-server-dev-"$major")
fi

# make, gcc: the build; zlib and libssl: the HTTP endpoint.
packages=(${pg_packages[@]+"${pg_packages[@]}"} make gcc zlib1g-dev libssl-dev)
if [ "$set_name" = test ]; then
	# postgresql-15 and its headers whatever PG_CONFIG is: a newer major's
	# tests move a database from the pg_config on PATH to it
	# (test/t/010_major_upgrade.pl);
	# clang and its runtime: the fuzz targets; perl (prove, Test::More) and
	# libipc-run-perl: the TAP tests (PostgreSQL::Test::Cluster runs its
	# commands through IPC::Run); awscli, boto3, curl: the HTTP endpoint's
	# tests; chromium and firefox-esr: the design studio's pages, loaded headless
	# (studio_browser.sh; studio_live.sh drives it with test/studio's
	# pinned puppeteer-core, which it installs with npm ci).
	packages+=(postgresql-15 postgresql-server-dev-15 postgresql-contrib clang libclang-rt-14-dev
		perl libipc-run-perl awscli python3-boto3 curl chromium firefox-esr)
fi
missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "$set_name" = test ]; then
	# The HTTP endpoint's tests run the JavaScript SDK: Debian's node and
	# npm unless a node with its own npm is there already.
	command -v npm >/dev/null 2>&1 || missing+=(nodejs npm)
fi
[ ${#missing[@]} -eq 0 ] && exit 0

echo "stdesign: installing ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq "${missing[@]}" >/dev/null
