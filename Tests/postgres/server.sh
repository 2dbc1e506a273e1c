#!/usr/bin/env bash
# A throwaway PostgreSQL server for the tests and the bench, listening only on a Unix socket in its
# own directory: `server.sh start DIR` creates a cluster in DIR with initdb and starts it (printing
# the URI to connect with), `server.sh stop DIR` stops it and removes DIR; `halt DIR` stops it
# and `restart DIR` (re)starts it with its data kept, at once (the tests of reconnecting).
# initdb refuses to run as root, and CI runs as root: the cluster then belongs to a system user of
# its own (mappingpg, created once), and root connects over the socket as the superuser `postgres`.
# SERVER_OPTIONS adds settings (the tests turn fsync off: they kill clients, never the server).
set -euo pipefail
action=${1:?usage: server.sh start|halt|restart|stop DIR}
dir=${2:?usage: server.sh start|halt|restart|stop DIR}
bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
[ -x "$bindir/initdb" ] || { echo "server.sh: no PostgreSQL server (apt-get install postgresql)" >&2; exit 1; }
as=()
if [ "$(id -u)" = 0 ]; then
  id mappingpg >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin mappingpg
  as=(runuser -u mappingpg --)
fi
case $action in
start)
  mkdir -p "$dir"
  chmod 755 "$dir"
  if [ "$(id -u)" = 0 ]; then
    chown mappingpg "$dir"
    # Every folder above it must let the server's user through.
    runuser -u mappingpg -- test -x "$dir" || { echo "server.sh: $dir is closed to other users" >&2; exit 1; }
  fi
  "${as[@]}" "$bindir/initdb" -D "$dir/data" -A trust -U postgres --no-sync >"$dir/initdb.log" 2>&1 \
    || { cat "$dir/initdb.log" >&2; exit 1; }
  "${as[@]}" "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
    -o "-k $dir -c listen_addresses= -c max_connections=60 ${SERVER_OPTIONS:-}" start >/dev/null \
    || { cat "$dir/server.log" >&2; exit 1; }
  echo "postgresql:///postgres?host=$dir&user=postgres"
  ;;
halt)
  "${as[@]}" "$bindir/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null
  ;;
restart)
  "${as[@]}" "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -m immediate -w -t 60 restart >/dev/null \
    || { cat "$dir/server.log" >&2; exit 1; }
  ;;
stop)
  if [ -d "$dir/data" ]; then "${as[@]}" "$bindir/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true; fi
  rm -rf "$dir"
  ;;
*) echo "usage: server.sh start|halt|restart|stop DIR" >&2; exit 2 ;;
esac
