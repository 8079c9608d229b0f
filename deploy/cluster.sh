#!/usr/bin/env bash
# N replicas of the service behind nginx (deploy/nginx.conf) on loopback, for tests and benches.
#
#   deploy/cluster.sh start <dir> [replicas]   start the replicas (default 2) and nginx; prints
#                                              URL=http://127.0.0.1:<port>, one PIDS line and,
#                                              with a shared store, DATABASE_URL=…
#   deploy/cluster.sh stop <dir>               stop nginx, the replicas and a cluster it started
#
# Settings (environment):
#   LIVE_STORE    `postgres`: start a throw-away PostgreSQL cluster in <dir>/pg (deploy/postgres.sh)
#                 and share it between the replicas (D150, D151); default: each replica its own
#                 SQLite store in <dir>/replica-<k>
#   DATABASE_URL  share this PostgreSQL database instead (not stopped by `stop`)
#   SNAPSHOT      the station snapshot every replica loads (default: the service's default)
#   PORT          nginx's port (default: a free one)
#   CLUSTER_KEY   an API key with every group, created in the live store(s) (optional)
#   NGINX         the nginx binary (default: nginx on PATH, else /usr/sbin/nginx)
#   KEY_REFRESH_MS and every other setting of the service pass through to the replicas.
#
# Every replica loads the same immutable snapshot, so station search answers alike everywhere.
# A replica is added to nginx only after GET /ready answered 200.
set -euo pipefail

cmd=${1:-}
dir=${2:-}
if [[ -z "$cmd" || -z "$dir" ]]; then
  echo "usage: deploy/cluster.sh start <dir> [replicas] | stop <dir>" >&2
  exit 2
fi
root=$(cd "$(dirname "$0")/.." && pwd)
free_port() { node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }

case "$cmd" in
  start)
    n=${3:-2}
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    nginx=${NGINX:-$(command -v nginx || echo /usr/sbin/nginx)}
    [[ -x "$nginx" ]] || { echo "nginx not found: apt-get install nginx" >&2; exit 1; }
    if [[ "${LIVE_STORE:-}" == postgres && -z "${DATABASE_URL:-}" ]]; then
      DATABASE_URL=$(bash "$root/deploy/postgres.sh" start "$dir/pg" | sed -n 's/^DATABASE_URL=//p')
      touch "$dir/pg.started"
    fi
    export DATABASE_URL=${DATABASE_URL:-}
    if [[ -n "$DATABASE_URL" && -n "${CLUSTER_KEY:-}" ]]; then
      DATA_DIR="$dir" node "$root/dist/src/cli/keys.js" create --groups all --key "$CLUSTER_KEY" --name cluster > /dev/null
    fi
    servers=""
    pids=()
    for k in $(seq 1 "$n"); do
      port=$(free_port)
      data="$dir/replica-$k"
      mkdir -p "$data"
      if [[ -z "$DATABASE_URL" && -n "${CLUSTER_KEY:-}" ]]; then
        DATA_DIR="$data" node "$root/dist/src/cli/keys.js" create --groups all --key "$CLUSTER_KEY" --name cluster > /dev/null 2>&1
      fi
      # nginx in front connects from 127.0.0.1: only its X-Forwarded-For names the client (D245).
      PORT=$port DATA_DIR="$data" TRUST_PROXY=127.0.0.1 node "$root/dist/src/main.js" > "$dir/replica-$k.log" 2>&1 &
      echo $! > "$dir/replica-$k.pid"
      pids+=($!)
      echo "$port" > "$dir/replica-$k.port"
      servers+="server 127.0.0.1:$port max_fails=1 fail_timeout=2s; "
    done
    for k in $(seq 1 "$n"); do
      port=$(cat "$dir/replica-$k.port")
      for _ in $(seq 1 600); do
        if curl -fsS -o /dev/null "http://127.0.0.1:$port/ready" 2>/dev/null; then break; fi
        if ! kill -0 "$(cat "$dir/replica-$k.pid")" 2>/dev/null; then cat "$dir/replica-$k.log" >&2; exit 1; fi
        sleep 0.1
      done
      curl -fsS -o /dev/null "http://127.0.0.1:$port/ready" || { echo "replica $k not ready" >&2; exit 1; }
    done
    listen=${PORT:-$(free_port)}
    mkdir -p "$dir/nginx"
    sed -e "/^ *#/!s/UPSTREAM_SERVERS/$servers/" -e "/^ *#/!s/LISTEN_PORT/$listen/" -e "/^ *#/!s/BODY_LIMIT/1m/" "$root/deploy/nginx.conf" > "$dir/nginx/nginx.conf"
    "$nginx" -p "$dir/nginx/" -c "$dir/nginx/nginx.conf" -e stderr > "$dir/nginx.log" 2>&1 &
    echo $! > "$dir/nginx.pid"
    for _ in $(seq 1 100); do
      if curl -fsS -o /dev/null "http://127.0.0.1:$listen/health" 2>/dev/null; then break; fi
      sleep 0.1
    done
    curl -fsS -o /dev/null "http://127.0.0.1:$listen/health" || { cat "$dir/nginx.log" >&2; exit 1; }
    echo "URL=http://127.0.0.1:$listen"
    echo "PIDS=$(cat "$dir/nginx.pid") ${pids[*]}"
    if [[ -n "$DATABASE_URL" ]]; then echo "DATABASE_URL=$DATABASE_URL"; fi
    ;;
  stop)
    for f in "$dir"/nginx.pid "$dir"/replica-*.pid; do
      [[ -f "$f" ]] || continue
      kill "$(cat "$f")" 2>/dev/null || true
    done
    for f in "$dir"/nginx.pid "$dir"/replica-*.pid; do
      [[ -f "$f" ]] || continue
      for _ in $(seq 1 100); do kill -0 "$(cat "$f")" 2>/dev/null || break; sleep 0.1; done
      rm -f "$f"
    done
    if [[ -f "$dir/pg.started" ]]; then
      bash "$root/deploy/postgres.sh" stop "$dir/pg" > /dev/null 2>&1 || true
      rm -f "$dir/pg.started"
    fi
    ;;
  *)
    echo "usage: deploy/cluster.sh start <dir> [replicas] | stop <dir>" >&2
    exit 2
    ;;
esac
