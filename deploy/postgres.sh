#!/usr/bin/env bash
# A throw-away PostgreSQL cluster on loopback, for tests and benches (Debian's postgresql-15;
# PostGIS from postgresql-15-postgis-3 when a caller needs it).
#
#   deploy/postgres.sh start <dir> [port]   initdb in <dir>/data, start on 127.0.0.1:<port>
#                                           (default: a free port), print DATABASE_URL=…
#   deploy/postgres.sh stop <dir> [mode]    stop it (mode: fast, the default, smart or immediate;
#                                           the directory is the caller's to remove)
#
# As root, the cluster runs as the `postgres` user (PostgreSQL refuses to run as root). Trust
# authentication on loopback and the unix socket in <dir>: the cluster is never exposed.
set -euo pipefail

cmd=${1:-}
dir=${2:-}
if [[ -z "$cmd" || -z "$dir" ]]; then
  echo "usage: deploy/postgres.sh start <dir> [port] | stop <dir> [fast|smart|immediate]" >&2
  exit 2
fi
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
if [[ -z "$bin" || ! -x "$bin/initdb" ]]; then
  echo "PostgreSQL server binaries not found: apt-get install postgresql" >&2
  exit 1
fi
as_owner() {
  if [[ $(id -u) -eq 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi
}

case "$cmd" in
  start)
    port=${3:-}
    if [[ -z "$port" ]]; then
      port=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
    fi
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    if [[ $(id -u) -eq 0 ]]; then
      chown postgres "$dir"
      # The owner must reach the directory through every parent (mkdtemp makes them 0700).
      chmod o+x "$dir" "$(dirname "$dir")" 2>/dev/null || true
    fi
    if [[ ! -f "$dir/data/PG_VERSION" ]]; then
      as_owner "$bin/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 > "$dir/initdb.log" 2>&1 ||
        { cat "$dir/initdb.log" >&2; exit 1; }
    fi
    as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
      -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c max_connections=200 -c shared_buffers=256MB" start > /dev/null ||
      { cat "$dir/server.log" >&2; exit 1; }
    echo "DATABASE_URL=postgres://postgres@127.0.0.1:$port/postgres"
    ;;
  stop)
    mode=${3:-fast}
    as_owner "$bin/pg_ctl" -D "$dir/data" -m "$mode" -w stop > /dev/null
    ;;
  *)
    echo "usage: deploy/postgres.sh start <dir> [port] | stop <dir> [fast|smart|immediate]" >&2
    exit 2
    ;;
esac
