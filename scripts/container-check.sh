#!/usr/bin/env bash
# `npm run test:container`: builds the Dockerfile with podman and checks the image: the service
# starts as the unprivileged user from the image's files, /ready answers, a station search and the
# docs page answer. Prints the image size and the time to /ready.
#
# Needs root and podman (apt-get install podman; debootstrap too when no base image can be pulled).
# Where no container registry is reachable, the base image `node:24-trixie-slim` is made locally
# as the registry's is laid out: Debian 13 (debootstrap --variant=minbase trixie, from the Debian
# mirror apt uses here, or DEBIAN_MIRROR) with Node 24 (bin/node and include/node) from the npm
# registry's `node` package and npm from its `npm` package under /usr/local, and the user node (1000).
# Where no OCI runtime can start containers (some VMs refuse the runtimes' rlimit calls), the image's
# root file system is mounted read-only and the service runs in it with chroot as uid 1000, the
# image's user, with /data and a /tmp writable (D232), as `podman run --read-only --tmpfs /tmp`.
# CONTAINER_PORT (default 18080) is the loopback port used; CONTAINER_IMAGE the tag built (default
# localhost/charging-price-service:check). Last, deploy/compose.yaml is checked with
# podman-compose --dry-run (D221).
set -euo pipefail
cd "$(dirname "$0")/.."
PORT="${CONTAINER_PORT:-18080}"
IMAGE="${CONTAINER_IMAGE:-localhost/charging-price-service:check}"
NODE_MAJOR=24
BASE=docker.io/library/node:$NODE_MAJOR-trixie-slim

command -v podman >/dev/null || { echo "podman is not installed (apt-get install podman)"; exit 1; }

apt_mirror() {
  { grep -h '^URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '{print $2}'; grep -h '^deb ' /etc/apt/sources.list 2>/dev/null | awk '{print $2}'; } | grep -v -- '-security' | head -n 1 || true
}
if ! podman image exists "$BASE" && ! podman pull -q "$BASE" >/dev/null 2>&1; then
  echo "no registry reachable: making $BASE locally (debootstrap trixie + Node $NODE_MAJOR from the npm registry's node package)"
  command -v debootstrap >/dev/null || { echo "debootstrap is not installed (apt-get install debootstrap)"; exit 1; }
  mirror="${DEBIAN_MIRROR:-$(apt_mirror)}"
  ROOTFS=$(mktemp -d /tmp/cps-rootfs-XXXX)
  NODEPKG=$(mktemp -d /tmp/cps-nodepkg-XXXX)
  debootstrap --variant=minbase trixie "$ROOTFS" "${mirror:-http://deb.debian.org/debian}" >/dev/null
  npm install --silent --no-audit --no-fund --prefix "$NODEPKG" "node@$NODE_MAJOR" "npm@${NPM_VERSION:-11}" >/dev/null
  platform=$(find "$NODEPKG/node_modules" -path '*/include/node/node_version.h' -print -quit | sed 's|/include/node/node_version.h||')
  [ -n "$platform" ] && [ -x "$platform/bin/node" ] || { echo "no node binary or headers in the npm package node@$NODE_MAJOR"; exit 1; }
  mkdir -p "$ROOTFS/usr/local/bin" "$ROOTFS/usr/local/include" "$ROOTFS/usr/local/lib/node_modules"
  cp "$platform/bin/node" "$ROOTFS/usr/local/bin/node"
  cp -a "$platform/include/node" "$ROOTFS/usr/local/include/node"
  cp -a "$NODEPKG/node_modules/npm" "$ROOTFS/usr/local/lib/node_modules/npm"
  ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$ROOTFS/usr/local/bin/npm"
  ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$ROOTFS/usr/local/bin/npx"
  rm -rf "$NODEPKG"
  cp /etc/resolv.conf "$ROOTFS/etc/resolv.conf"
  chroot "$ROOTFS" sh -c 'groupadd -g 1000 node && useradd -u 1000 -g node -m -s /bin/sh node'
  chroot "$ROOTFS" sh -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends ca-certificates >/dev/null && apt-get clean && rm -rf /var/lib/apt/lists/* /var/cache/apt/archives/*.deb'
  (cd "$ROOTFS" && tar -c .) | podman import -q --change 'CMD ["node"]' --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' - "$BASE" >/dev/null
  rm -rf "$ROOTFS"
fi

# Build-only settings of this machine (a TLS-inspecting proxy's CA bundle; Node headers from the base).
BUILD_ARGS=(--build-arg "NODE_IMAGE=$BASE")
if [ -n "${NODE_EXTRA_CA_CERTS:-}" ] && [ -f "$NODE_EXTRA_CA_CERTS" ]; then
  BUILD_ARGS+=(-v "$(dirname "$NODE_EXTRA_CA_CERTS"):/etc/ssl/host-certs:ro" --build-arg "NODE_EXTRA_CA_CERTS=/etc/ssl/host-certs/$(basename "$NODE_EXTRA_CA_CERTS")")
fi
# Node headers from the base image (/usr/local/include/node), not a download from nodejs.org.
BUILD_ARGS+=(--build-arg npm_config_nodedir=/usr/local)
SRC=$(mktemp -d /tmp/cps-src-XXXX)
git ls-files -z | xargs -0 -I{} cp --parents {} "$SRC"/
t0=$(date +%s.%N)
podman build -q --pull=never --isolation=chroot --format docker "${BUILD_ARGS[@]}" -t "$IMAGE" "$SRC" >/dev/null
t1=$(date +%s.%N)
rm -rf "$SRC"
echo "image built in $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", b - a }') s; size $(podman image inspect "$IMAGE" --format '{{.Size}}' | awk '{printf "%.0f MB", $1/1e6}') (base $(podman image inspect "$BASE" --format '{{.Size}}' | awk '{printf "%.0f MB", $1/1e6}'))"
[ "$(podman image inspect "$IMAGE" --format '{{.Config.User}}')" = node ] || { echo "the image does not run as user node"; exit 1; }
podman image inspect "$IMAGE" | grep -q "process.env.PORT || 8080) + '/ready'" || { echo "no HEALTHCHECK on /ready"; exit 1; }
for label in title description version revision licenses base.name; do
  [ -n "$(podman image inspect "$IMAGE" --format "{{index .Config.Labels \"org.opencontainers.image.$label\"}}")" ] || { echo "no OCI label org.opencontainers.image.$label"; exit 1; }
done

DATA=$(mktemp -d /tmp/cps-data-XXXX)
chown 1000:1000 "$DATA"
cleanup() {
  podman rm -f cps-check >/dev/null 2>&1 || true
  [ -n "${PID:-}" ] && kill "$PID" 2>/dev/null || true
  [ -n "${RO:-}" ] && { umount "$RO/tmp" "$RO/data" 2>/dev/null || true; umount "$RO" 2>/dev/null || true; rmdir "$RO" 2>/dev/null || true; }
  [ -n "${MNT:-}" ] && { podman image unmount "$IMAGE" >/dev/null 2>&1 || true; }
  rm -rf "$DATA"
}
trap cleanup EXIT
t0=$(date +%s.%N)
# D232: the root file system read-only, /data and a /tmp the only places written.
if podman run -d --name cps-check --network host --read-only --tmpfs /tmp -v "$DATA:/data" -e HOST=127.0.0.1 -e PORT="$PORT" "$IMAGE" >/dev/null 2>&1; then
  how="podman run --read-only"
else
  podman rm -f cps-check >/dev/null 2>&1 || true
  how="chroot into the image's files, read-only but /data and /tmp, as uid 1000 (podman run refused here: no OCI runtime can start a container)"
  MNT=$(podman image mount "$IMAGE")
  cp /etc/resolv.conf "$MNT/etc/resolv.conf" 2>/dev/null || true
  RO=$(mktemp -d /tmp/cps-ro-XXXX)
  mount --bind "$MNT" "$RO"
  mount -o remount,bind,ro "$RO"
  mount --bind "$DATA" "$RO/data"
  mount -t tmpfs -o size=64m tmpfs "$RO/tmp"
  chroot --userspec=1000:1000 "$RO" /usr/bin/env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/home/node NODE_ENV=production HOST=127.0.0.1 PORT="$PORT" DATA_DIR=/data sh -c 'cd /app && exec node dist/src/main.js' >"$DATA/log" 2>&1 &
  PID=$!
fi
for _ in $(seq 1 300); do curl -sf "http://127.0.0.1:$PORT/ready" >/dev/null && break; sleep 0.1; done
t1=$(date +%s.%N)
curl -sf "http://127.0.0.1:$PORT/ready" >/dev/null || { echo "/ready did not answer"; cat "$DATA/log" 2>/dev/null | tail -5; exit 1; }
echo "started with $how; /ready after $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }') s"
KEY=$(tr -d '\n' < "$DATA/dev-key.txt")
code=$(curl -sg -o /dev/null -w '%{http_code}' -H "Api-Key: $KEY" "http://127.0.0.1:$PORT/v1/charging_stations?filter[latitude]=48.8566&filter[longitude]=2.3522&filter[radius]=1000")
[ "$code" = 200 ] || { echo "station search answered $code"; exit 1; }
code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/docs/swagger-ui-bundle.js")
[ "$code" = 200 ] || { echo "docs page files answered $code"; exit 1; }
owner=$(stat -c %u "$DATA/live.sqlite")
[ "$owner" = 1000 ] || { echo "the live store is owned by uid $owner, not the image's user"; exit 1; }
[ -n "${RO:-}" ] && { touch "$RO/app/x" 2>/dev/null && { echo "the root file system is writable"; exit 1; }; }
echo "container check passed: /ready, station search and /docs answer on a read-only root; data written as uid 1000; OCI labels present"

# The compose file (deploy/compose.yaml, D221): podman-compose reads it and lays out every container
# with --dry-run (the volumes and the network it makes on the way are removed again). It refuses to
# start without CPS_DB_PASSWORD. Running the stack needs an OCI runtime and the registry's postgres
# and nginx images, which this check does not assume.
if command -v podman-compose >/dev/null; then
  if podman-compose --dry-run -p cpscheck -f deploy/compose.yaml up -d >/dev/null 2>&1; then
    echo "compose file accepted without CPS_DB_PASSWORD"; exit 1
  fi
  plan=$(CPS_DB_PASSWORD=check podman-compose --dry-run -p cpscheck -f deploy/compose.yaml up -d 2>&1)
  for v in $(podman volume ls -q --filter label=io.podman.compose.project=cpscheck); do podman volume rm "$v" >/dev/null; done
  podman network rm cpscheck_default >/dev/null 2>&1 || true
  for svc in postgres replica-1 replica-2 nginx; do
    grep -q -- "--name=cpscheck_${svc}_1 " <<<"$plan" || { echo "compose: no container for $svc"; echo "$plan" | tail -5; exit 1; }
  done
  [ "$(grep -c -- '-e DATABASE_URL=postgres://cps:check@postgres:5432/cps -e SNAPSHOT_DIR=/snapshots' <<<"$plan")" = 2 ] || { echo "compose: replicas without DATABASE_URL and SNAPSHOT_DIR"; exit 1; }
  [ "$(grep -c -- '--name=cpscheck_replica-[12]_1 -d --read-only .* --tmpfs /tmp ' <<<"$plan")" = 2 ] || { echo "compose: replicas without a read-only root and a /tmp tmpfs (D232)"; exit 1; }
  [ "$(grep -c -- '--name=cpscheck_replica-[12]_1 .* -e TRUST_PROXY=10.0.0.0/8,172.16.0.0/12,192.168.0.0/16,fc00::/7 ' <<<"$plan")" = 2 ] || { echo "compose: replicas that do not trust nginx's X-Forwarded-For (D245)"; exit 1; }
  grep -q -- '--name=cpscheck_replica-1_1 .* -p ' <<<"$plan" && { echo "compose: a replica publishes a port, so peers other than nginx could name their own address (D245)"; exit 1; }
  echo "compose file checked: postgres, two read-only replicas on it sharing SNAPSHOT_DIR, nginx in front (podman-compose --dry-run)"
else
  echo "podman-compose is not installed (apt-get install podman-compose): compose file not checked"; exit 1
fi
