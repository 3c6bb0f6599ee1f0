#!/usr/bin/env bash
# The Debian package, as a shop installs it:
#
#   1. builds postgresql-15-stdesign from debian/ (pg_buildext, as the
#      PostgreSQL community's apt repository builds extensions) with
#      dpkg-buildpackage, in a copy of the tree: no build output lands in
#      the checkout
#   2. checks what the package declares (Depends on postgresql-15 and on
#      OpenSSL's library) and installs it with dpkg -i
#   3. checks that its files are where pg_config says extensions live
#      (stdesign-local in its bindir, beside pg_ctl) and
#      match the package's checksums (dpkg --verify)
#   4. in a throwaway cluster (pg_virtualenv), CREATE EXTENSION stdesign
#      from the installed package, then CreateTable, PutItem and GetItem
#      through st_api (debian/tests/smoke.sql), and the same through
#      debian/tests' command (the autopkgtest); stdesign-local from the
#      package serves an endpoint
#   5. removes the package (dpkg -r) and checks its files are gone
#
# It leaves the system as it found it: an extension installed before by
# make install (files in PostgreSQL's directories that no package owns) is
# overwritten by dpkg -i and deleted by dpkg -r, so those files are saved
# first and put back at the end, whatever happens in between.  Build tools
# that are missing (debhelper, postgresql-server-dev-all, dpkg-dev,
# fakeroot) are installed, as make deps installs what make test needs.
#
# Only PostgreSQL 15 is built here: pg_buildext builds for the majors of
# debian/pgversions that postgresql-common lists as supported and whose
# pg_config is /usr/lib/postgresql/<major>/bin/pg_config, that is, majors
# installed from Debian packages (postgresql-server-dev-<major>).  A
# PostgreSQL 18 built from source into a private prefix is neither: the
# package for 18 needs postgresql-18 and postgresql-server-dev-18 from
# apt.postgresql.org (or Debian's own postgresql-18 packages), and is then
# built by the same dpkg-buildpackage with no change to debian/ other than
# "pg_buildext updatecontrol".
#
# Needs root (dpkg -i).  Ends with one "package: N passed, N failed" line;
# exits non-zero on any failure.
set -uo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
. test/scripts/checks.sh

major=15
pkg=postgresql-$major-stdesign
pg_config=/usr/lib/postgresql/$major/bin/pg_config

if [ "$(id -u)" -ne 0 ]; then
	echo "package.sh: needs root (dpkg -i, dpkg -r)" >&2
	exit 2
fi
if dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
	echo "package.sh: $pkg is installed already; this test would replace and then remove it" >&2
	exit 2
fi

missing=()
for p in debhelper postgresql-server-dev-all dpkg-dev fakeroot postgresql-$major postgresql-server-dev-$major \
	zlib1g-dev libssl-dev; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "package.sh: installing ${missing[*]}"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

pkglibdir=$($pg_config --pkglibdir)
sharedir=$($pg_config --sharedir)
bindir=$($pg_config --bindir)
tmp=$(mktemp -d /tmp/stdesign-package.XXXXXX)

# What make install left, if anything: saved with its paths, put back at the end.
mapfile -t before < <(ls -d "$pkglibdir"/stdesign.so "$pkglibdir"/bitcode/stdesign "$pkglibdir"/bitcode/stdesign.index.bc \
	"$sharedir"/extension/stdesign.control "$sharedir"/extension/stdesign--*.sql \
	"$sharedir"/extension/stdesign_*.sql "$bindir"/stdesign-local 2>/dev/null)
if [ ${#before[@]} -gt 0 ]; then
	echo "package.sh: saving the stdesign installed by make install (${#before[@]} paths)"
	tar -C / -cpf "$tmp/before.tar" "${before[@]#/}"
	(cd / && find "${before[@]#/}" -type f -exec md5sum {} + | sort -k2) > "$tmp/before.md5"
fi

installed=0
restored=0
restore() {
	[ "$restored" -eq 1 ] && return
	restored=1
	if [ "$installed" -eq 1 ]; then
		dpkg -r "$pkg" >/dev/null 2>&1
	fi
	if [ -f "$tmp/before.tar" ]; then
		tar -C / -xpf "$tmp/before.tar"
	fi
}
trap 'restore; rm -rf "$tmp"' EXIT

# 1. The build, in a copy of the tree (dpkg-buildpackage writes the .deb
# into the directory above the tree it builds).  The checkout's own
# objects and the tests' node modules are left out.
start=$(date +%s)
git -C "$root" status --porcelain --ignored > "$tmp/status.before"
mkdir "$tmp/src"
tar -C "$root" --exclude=.git --exclude=node_modules --exclude='*.o' --exclude='*.so' --exclude='*.bc' \
	--exclude=results --exclude=output_iso --exclude=tmp_check --exclude=log -cf - . | tar -C "$tmp/src" -xf -
(
	cd "$tmp/src" &&
	# debian/control as committed names the majors of the machine it was
	# made on; regenerated here for this machine's, as pgdg's builds do.
	PG_UPDATECONTROL=yes DEB_BUILD_OPTIONS="nocheck parallel=$(nproc)" \
		dpkg-buildpackage -us -uc -b
) > "$tmp/build.log" 2>&1
rc=$?
check "dpkg-buildpackage -us -uc -b builds ($(( $(date +%s) - start ))s)" $rc
[ $rc -eq 0 ] || tail -40 "$tmp/build.log"
deb=$(ls "$tmp"/${pkg}_*.deb 2>/dev/null | head -1)
check "it makes $pkg ($(basename "${deb:-none}"))" "$([ -n "$deb" ]; echo $?)"
git -C "$root" status --porcelain --ignored | cmp -s - "$tmp/status.before"
check "the build leaves the checkout as it was" $?
if [ -z "$deb" ]; then
	echo "package: $passed passed, $((failed + 1)) failed"
	exit 1
fi

# 2. What it declares, then dpkg -i.
depends=$(dpkg-deb -f "$deb" Depends)
echo "        Depends: $depends"
echo "$depends" | grep -Eq "(^|, )postgresql-$major( |,|$)"
check "it depends on postgresql-$major" $?
echo "$depends" | grep -q "libssl3"
check "it depends on libssl3 (shlibs: libcrypto)" $?
dpkg -i "$deb" > "$tmp/install.log" 2>&1
rc=$?
[ $rc -eq 0 ] && installed=1
check "dpkg -i installs it" $rc
[ $rc -eq 0 ] || cat "$tmp/install.log"

# 3. The files: where this major's extensions live, as the package says.
files=$(dpkg -L "$pkg" 2>/dev/null)
for f in "$pkglibdir/stdesign.so" "$sharedir/extension/stdesign.control" \
	"$sharedir/extension/stdesign--0.2.0.sql" "$sharedir/extension/stdesign--0.1.0--0.2.0.sql" \
	"$sharedir/extension/stdesign_seed_ecommerce.sql" "$bindir/stdesign-local"; do
	echo "$files" | grep -qx "$f" && [ -f "$f" ]
	check "the package installs $f" $?
done
missing_files=0
while read -r f; do
	[ -e "$f" ] || { echo "        missing: $f"; missing_files=1; }
done <<< "$files"
check "every path dpkg -L lists exists" $missing_files
[ -z "$(dpkg --verify "$pkg" 2>&1)" ]
check "its files match the package's checksums (dpkg --verify)" $?

# 4. CREATE EXTENSION from the installed package, and st_api.
out=$(pg_virtualenv -t -v $major psql -X -q -v ON_ERROR_STOP=1 -At -f "$root/debian/tests/smoke.sql" 2>&1)
rc=$?
echo "$out" | sed 's/^/        /'
check "CREATE EXTENSION stdesign and CreateTable, PutItem, GetItem in a new cluster" \
	"$([ $rc -eq 0 ] && echo "$out" | grep -q 'stdesign smoke test passed'; echo $?)"

# The same file as debian/tests/control runs it (autopkgtest): pg_buildext
# finds the installed postgresql-<major>-stdesign packages itself.
out=$(cd "$tmp/src" && pg_buildext psql < debian/tests/smoke.sql 2>&1)
rc=$?
check "debian/tests' command (pg_buildext psql) passes against the installed package" \
	"$([ $rc -eq 0 ] && echo "$out" | grep -q 'stdesign smoke test passed'; echo $?)"
[ $rc -eq 0 ] || echo "$out" | tail -20

# stdesign-local from the package: a throwaway cluster of this major with
# the endpoint answering (it prints its banner once ListTables is served),
# stopped by SIGTERM.
http_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
pg_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$bindir/stdesign-local" -inMemory -port "$http_port" -pgPort "$pg_port" >"$tmp/local.out" 2>&1 &
local_pid=$!
for _ in $(seq 1 120); do
	grep -q '^Ctrl-C stops it' "$tmp/local.out" && break
	kill -0 "$local_pid" 2>/dev/null || break
	sleep 0.5
done
grep -q "^stdesign-local: DynamoDB endpoint http://localhost:$http_port " "$tmp/local.out"
rc=$?
kill -TERM "$local_pid" 2>/dev/null
wait "$local_pid"
local_rc=$?
sed 's/^/        /' "$tmp/local.out"
check "the package's stdesign-local serves an endpoint, then stops on SIGTERM (exit $local_rc)" \
	"$([ $rc -eq 0 ] && [ $local_rc -eq 0 ]; echo $?)"

# 5. dpkg -r takes every file away again.
dpkg -r "$pkg" > "$tmp/remove.log" 2>&1
rc=$?
[ $rc -eq 0 ] && installed=0
check "dpkg -r removes it" $rc
left=0
while read -r f; do
	[ -f "$f" ] && { echo "        left: $f"; left=1; }
done <<< "$files"
check "no file of the package is left" $left

# The system as it was: what make install had put there, back in place.
restore
if [ -f "$tmp/before.md5" ]; then
	(cd / && md5sum --quiet -c "$tmp/before.md5")
	check "the stdesign installed before by make install is back, unchanged" $?
fi

echo "package: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
