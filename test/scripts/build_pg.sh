#!/usr/bin/env bash
# Build PostgreSQL from a source tarball into a private prefix, so that
# stdesign can be built and tested against a major that no package here
# provides (make ... PG_CONFIG=<prefix>/bin/pg_config).  Once per machine:
# skipped when the prefix already holds the tarball's version with the
# pieces the tests need (the contrib modules below, the isolation tester,
# the TAP modules); a prefix with the server but not every one of those
# contrib modules gets them, built against it.
#
#   bash test/scripts/build_pg.sh            PostgreSQL 18 from ../shared/vendor
#   PG_TARBALL=... PG_PREFIX=... bash test/scripts/build_pg.sh
#
# Prints the prefix's pg_config on its last line.  Needs root (or sudo)
# only when Debian packages are missing.  Set MAKE_JOBS to change -j2.
set -euo pipefail
# Run from make (make pg18, make test-citus), the builds below would inherit
# MAKELEVEL and MAKEFLAGS: PostgreSQL's makefiles make their generated
# headers only at MAKELEVEL 0, and a fresh tree's build then fails.
unset MAKELEVEL MAKEFLAGS MFLAGS
# ../shared/vendor (and a relative PG_TARBALL) from the project's root
cd "$(dirname "$0")/../.."

major=${PG_MAJOR:-18}
tarball=${PG_TARBALL:-$(ls ../shared/vendor/postgresql-"$major"_*.orig.tar.* \
	../shared/vendor/postgresql-"$major".*.tar.* 2>/dev/null | sort -V | tail -n 1 || true)}
# Outside any checkout, one per major: every worktree and CI job on the
# machine shares it.
prefix=${PG_PREFIX:-/usr/local/pgsql-$major}
jobs=${MAKE_JOBS:-2}

# The contrib modules the tests use: amcheck (index checks), test_decoding
# (logical decoding of a stdesign table), pageinspect, pgstattuple and
# pg_visibility (the table access method's pages).
contrib=(amcheck test_decoding pageinspect pgstattuple pg_visibility)

# core_there: the prefix has the server, the isolation tester and the TAP
# modules; contrib_there: and every module of contrib
core_there() {
	local pkglibdir
	[ -x "$prefix/bin/pg_config" ] || return 1
	pkglibdir=$("$prefix/bin/pg_config" --pkglibdir)
	[ -x "$pkglibdir/pgxs/src/test/isolation/isolationtester" ] &&
		[ -f "$pkglibdir/pgxs/src/test/perl/PostgreSQL/Test/Cluster.pm" ]
}
contrib_there() {
	local pkglibdir m
	pkglibdir=$("$prefix/bin/pg_config" --pkglibdir)
	for m in "${contrib[@]}"; do
		[ -f "$pkglibdir/$m.so" ] || return 1
	done
}
pieces_there() { core_there && contrib_there; }

# install_contrib <source tree>: the contrib modules, built against the
# installed server (PGXS), from a fresh build's tree or a tree unpacked
# only for them
install_contrib() {
	local m
	for m in "${contrib[@]}"; do
		make -C "$1/contrib/$m" USE_PGXS=1 PG_CONFIG="$prefix/bin/pg_config" -j"$jobs" install || return 1
	done
}

if [ -z "$tarball" ] || [ ! -f "$tarball" ]; then
	# no source: a prefix built earlier (of this major) is used as it is
	if pieces_there && "$prefix/bin/pg_config" --version | grep -q "^PostgreSQL $major\."; then
		echo "build_pg: $("$prefix/bin/pg_config" --version) is in $prefix (no source tarball to compare with)"
		echo "$prefix/bin/pg_config"
		exit 0
	fi
	echo "build_pg: no PostgreSQL $major source tarball (../shared/vendor/postgresql-${major}_*.orig.tar.* or PG_TARBALL)" >&2
	exit 1
fi

# The version the tarball holds, from its top directory (postgresql-18.6/);
# tar stops on a broken pipe once head has its line.
srcdir=$( (tar -tf "$tarball" 2>/dev/null || true) | head -n 1 | cut -d/ -f1)
version=${srcdir#postgresql-}
case "$version" in
	[0-9]*) ;;
	*) echo "build_pg: cannot tell the version of $tarball (top directory $srcdir)" >&2; exit 1 ;;
esac

if core_there && [ "$("$prefix/bin/pg_config" --version)" = "PostgreSQL $version" ]; then
	if ! contrib_there; then
		# the server is there: its contrib modules build against it (PGXS)
		build=$(mktemp -d)
		trap 'rm -rf "$build"' EXIT
		echo "build_pg: adding contrib modules ${contrib[*]} to $prefix"
		tar -xf "$tarball" -C "$build"
		install_contrib "$build/$srcdir" >"$build/contrib.log" 2>&1 || {
			tail -n 40 "$build/contrib.log" >&2
			echo "build_pg: the contrib modules failed to build against $prefix" >&2
			exit 1
		}
	fi
	echo "build_pg: PostgreSQL $version is already in $prefix"
	echo "$prefix/bin/pg_config"
	exit 0
fi

# What configure --enable-tap-tests --with-openssl and the build need:
# the tarball has no generated parser files (bison, flex); ICU is on by
# default; TAP needs Perl's headers and IPC::Run.
packages=(make gcc bison flex perl libperl-dev libipc-run-perl libreadline-dev
	zlib1g-dev libssl-dev libicu-dev pkg-config bzip2)
missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "build_pg: installing ${missing[*]}"
	sudo=""
	[ "$(id -u)" -eq 0 ] || sudo="sudo"
	export DEBIAN_FRONTEND=noninteractive
	$sudo apt-get update -qq
	$sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

build=$(mktemp -d)
trap 'rm -rf "$build"' EXIT
echo "build_pg: building PostgreSQL $version into $prefix (log: $build/build.log while it runs)"
tar -xf "$tarball" -C "$build"
cd "$build/$srcdir"
{
	./configure --prefix="$prefix" --enable-tap-tests --with-openssl
	make -j"$jobs"
	make install
	# the contrib modules the tests use, the isolation tester for make
	# installcheck's specs
	install_contrib .
	make -C src/test/isolation -j"$jobs" install
} >"$build/build.log" 2>&1 || {
	tail -n 40 "$build/build.log" >&2
	echo "build_pg: the build failed (last lines above)" >&2
	exit 1
}
echo "build_pg: PostgreSQL $version installed in $prefix"
echo "$prefix/bin/pg_config"
