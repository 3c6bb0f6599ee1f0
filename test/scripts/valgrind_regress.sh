#!/usr/bin/env bash
# pg_regress files against a server running under valgrind's memcheck
# (make valgrind; not part of make test: the whole suite takes about five
# minutes).  Each backend is a fork of the postmaster, so all of them run
# under valgrind.  Reports every error whose stack passes through
# stdesign.so, and every other one that is not among Postgres's own known
# ones (uninitialised padding of WAL records and relcache init files written
# to disk, the regex cache's overlapping memcpy).
#
#   test/scripts/valgrind_regress.sh [test ...]   (default: every regression file, sql/*.sql)
#
# Needs valgrind and the extension installed (make install).  Ends with one
# "valgrind: N errors in stdesign, N other errors" line; exits non-zero when
# either is not zero.
set -uo pipefail
cd "$(dirname "$0")/../.."

command -v valgrind >/dev/null || { echo "valgrind: not installed (apt-get install valgrind)"; exit 1; }
if [ -z "${VALGRIND_REGRESS_INSIDE:-}" ]; then
	VALGRIND_REGRESS_INSIDE=1 exec bash test/scripts/tmp_cluster.sh bash "$0" "$@"
fi

tests="$*"
[ -n "$tests" ] || tests=$(ls sql/*.sql | grep -v '^sql/stdesign\(--.*\|_.*\)\{0,1\}\.sql$' | xargs -n1 basename | sed 's/\.sql$//' | tr '\n' ' ')
logs=$(mktemp -d)
chmod 777 "$logs"
trap 'rm -rf "$logs"' EXIT

# Stop the throwaway cluster's server and start it again under valgrind,
# as the cluster's owner.
datadir=$(psql -X -At -c "SHOW data_directory")
conf=$(psql -X -At -c "SHOW config_file")
owner=$(stat -c %U "$datadir")
bindir=$("${PG_CONFIG:-pg_config}" --bindir)
as_owner() { if [ "$(id -un)" = "$owner" ]; then sh -c "$1"; else su "$owner" -c "$1"; fi; }
as_owner "$bindir/pg_ctl -D '$datadir' -m fast -w stop" >/dev/null
as_owner "valgrind --quiet --error-limit=no --num-callers=40 --track-origins=yes \
	--log-file='$logs/vg.%p.log' $bindir/postgres -D '$datadir' -c config_file='$conf'" \
	> "$logs/server.out" 2>&1 &
for _ in $(seq 1 120); do
	psql -X -At -c "SELECT 1" >/dev/null 2>&1 && break
	sleep 1
done

rm -rf results regression.diffs regression.out
mkdir -p results
make -s installcheck REGRESS="$tests" ISOLATION= TAP_TESTS= 2>&1 | grep -E '\.\.\. |tests (passed|failed)'
as_owner "$bindir/pg_ctl -D '$datadir' -m fast -w stop" >/dev/null
sleep 2

# One error per block: from a line "==pid== <Kind>" to the next blank one.
python3 - "$logs" <<'PY'
import glob, re, sys
ours = other = 0
known = re.compile(r'Syscall param (pwrite64|write)\(buf\) points to uninitialised')
for path in sorted(glob.glob(sys.argv[1] + '/vg.*.log')):
    blocks, cur = [], []
    for line in open(path, errors='replace'):
        body = re.sub(r'^==\d+== ?', '', line.rstrip('\n'))
        if not body:
            if cur: blocks.append(cur); cur = []
            continue
        cur.append(body)
    if cur: blocks.append(cur)
    for b in blocks:
        text = '\n'.join(b)
        if 'stdesign.so' in text:
            ours += 1
        elif known.search(b[0]) or ('overlap in memcpy' in b[0] and 'RE_compile_and_cache' in text):
            continue
        else:
            other += 1
        print('\n'.join(b[:25]) + '\n')
print(f'valgrind: {ours} errors in stdesign, {other} other errors')
sys.exit(1 if ours or other else 0)
PY
