#!/usr/bin/env bash
# A throwaway cluster of the PostgreSQL that PG_CONFIG names (default: the
# pg_config on PATH), for the test scripts: what Debian's pg_virtualenv
# does for its own packages, for any major, a private build included.
#
#   tmp_cluster.sh [-o name=value]... COMMAND [ARG...]
#       initdb in a new directory, start the server with the settings
#       given, run COMMAND with the libpq variables set (PGHOST, PGPORT,
#       PGUSER, PGDATABASE) and that installation's bindir first on PATH,
#       then stop the server and remove the directory.  Exits with
#       COMMAND's status.
#   tmp_cluster.sh ctl start|stop|restart [pg_ctl option...]
#       inside COMMAND: stop or start that cluster (a test that restarts
#       the server).
#
# Inside COMMAND also: PGDATA, ST_CLUSTER_LOG (the server's log) and
# ST_CLUSTER_DIR.  The server refuses to run as root: started as root, the
# cluster belongs to the postgres user, and COMMAND runs as root connecting
# as postgres (trust authentication on the cluster's own socket directory
# and on 127.0.0.1 only).  The environment's locale is the cluster's.
set -euo pipefail

as_owner() {
	if [ "$(id -u)" -eq 0 ]; then
		runuser -u postgres -- "$@"
	else
		"$@"
	fi
}

if [ "${1:-}" = ctl ]; then
	[ -n "${ST_CLUSTER_DIR:-}" ] || { echo "tmp_cluster.sh ctl: not inside a cluster's command" >&2; exit 2; }
	action=$2
	shift 2
	as_owner pg_ctl -D "$PGDATA" -l "$ST_CLUSTER_LOG" -w "$action" "$@" >/dev/null
	exit
fi

settings=()
while [ $# -gt 0 ]; do
	case "$1" in
		-o) settings+=("$2"); shift 2 ;;
		-o*) settings+=("${1#-o}"); shift ;;
		*) break ;;
	esac
done
[ $# -gt 0 ] || { sed -n '6,7p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

PG_CONFIG=${PG_CONFIG:-pg_config}
bindir=$("$PG_CONFIG" --bindir)
export PATH="$bindir:$PATH"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
dir=$(mktemp -d -t stdesign_cluster.XXXXXX)
chmod 755 "$dir"
[ "$(id -u)" -eq 0 ] && chown postgres: "$dir"
export ST_CLUSTER_DIR=$dir PGDATA=$dir/data ST_CLUSTER_LOG=$dir/server.log
cleanup() {
	as_owner pg_ctl -D "$PGDATA" -m immediate -w stop >/dev/null 2>&1 || true
	rm -rf "$dir"
}
trap cleanup EXIT

as_owner initdb -D "$PGDATA" -U postgres -A trust --no-sync >"$dir/initdb.log" 2>&1 || {
	cat "$dir/initdb.log" >&2
	exit 1
}
{
	echo "port = $port"
	echo "listen_addresses = '127.0.0.1'"
	echo "unix_socket_directories = '$dir'"
	echo "fsync = off"
	for s in ${settings[@]+"${settings[@]}"}; do
		echo "${s%%=*} = '${s#*=}'"
	done
} >>"$PGDATA/postgresql.conf"
as_owner pg_ctl -D "$PGDATA" -l "$ST_CLUSTER_LOG" -w start >/dev/null || {
	tail -n 20 "$ST_CLUSTER_LOG" >&2
	exit 1
}
export PGHOST=$dir PGPORT=$port PGUSER=postgres PGDATABASE=postgres
status=0
"$@" || status=$?
exit $status
