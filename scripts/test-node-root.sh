#!/usr/bin/env bash
# `npm run test:node-root [-- <major>...] [--omit-optional] [--bench <name>[@<driver>]]...`: `npm ci`
# and the whole `npm test` on Node 22 and 24 (default; or the majors given) in a Debian 13 (trixie)
# root built on this host (D264).
# Node 22 and 24 need glibc >= 2.38 (uWebSockets.js's binaries for their ABIs, D225); a Debian 12
# host has 2.36, so the suite runs in a root of Debian 13 (glibc 2.41), made here each run:
#   debootstrap --variant=minbase trixie <dir> <Debian mirror>   (DEBIAN_MIRROR, default the one apt uses here)
# then python3, make and g++ from Debian inside it (better-sqlite3 compiles against the Node
# headers of the npm registry's `node` package, which also brings that version's npm). Each
# version gets a fresh copy of the checkout (git ls-files), bind-mounted at /src in the root with
# /proc, /dev and /sys; the mounts and the root are removed on exit, also on failure. Nothing is
# cached between runs. Needs root, debootstrap, the npm registry and a Debian mirror.
# NODE_ROOT_TRY="<pkg>@<version> ..." installs those packages over the locked tree after `npm ci`
# (npm install --no-save, in the copy only), to measure a dependency move before making it.
# --omit-optional: `npm ci --omit=optional` (no better-sqlite3: what Node 22/24 need, D281).
# --bench <name>[@<driver>]: `npm run bench:<name>` in place of `npm test` (repeatable; in order),
# with SQLITE_DRIVER=<driver> when one is named and NODE_ROOT_BENCH_ARGS as its arguments; PostgreSQL
# (Debian's, no cluster of its own: benches start a throw-away one with deploy/postgres.sh) is installed then.
# Prints each version's install and test times.
set -euo pipefail
usage="usage: npm run test:node-root [-- <major>...] [--omit-optional] [--bench <name>[@node:sqlite|@better-sqlite3]]...   npm ci and npm test (or the benches named) on each Node major (default 22 24) in a Debian 13 root built with debootstrap (needs root)"
versions=()
benches=()
omit=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    -h | --help) echo "$usage"; exit 0 ;;
    --omit-optional) omit=(--omit=optional); shift ;;
    --bench)
      [[ "${2:-}" =~ ^[a-z0-9-]+(:[a-z0-9-]+)?(@(node:sqlite|better-sqlite3))?$ ]] || { echo "test:node-root: --bench takes <name>[@node:sqlite|@better-sqlite3], not '${2:-}'" >&2; exit 2; }
      benches+=("$2"); shift 2 ;;
    -*) echo "test:node-root: unknown option $1" >&2; echo "$usage" >&2; exit 2 ;;
    *) [[ "$1" =~ ^[0-9]+$ ]] || { echo "test:node-root: not a Node major version: $1" >&2; exit 2; }
      versions+=("$1"); shift ;;
  esac
done
[[ ${#versions[@]} -gt 0 ]] || versions=(22 24)
[[ $(id -u) -eq 0 ]] || { echo "test:node-root: needs root (debootstrap, chroot, mount)" >&2; exit 1; }
command -v debootstrap >/dev/null || { echo "test:node-root: debootstrap is not installed (apt-get install debootstrap)" >&2; exit 1; }
repo=$(cd "$(dirname "$0")/.." && pwd)
# The Debian mirror apt uses on this host (its first main archive), unless DEBIAN_MIRROR names one.
apt_mirror() {
  # A missing sources file is no error here (grep answers 2, which set -e and pipefail would end on).
  { grep -h '^URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '{print $2}'; grep -h '^deb ' /etc/apt/sources.list 2>/dev/null | awk '{print $2}'; } | grep -v -- '-security' | head -n 1 || true
}
mirror="${DEBIAN_MIRROR:-$(apt_mirror)}"
mirror="${mirror:-http://deb.debian.org/debian}"
work=$(mktemp -d /tmp/cps-node-root-XXXX)
rootfs="$work/root"
mounted=()
cleanup() {
  local i
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
    umount "${mounted[$i]}" 2>/dev/null || umount -l "${mounted[$i]}" 2>/dev/null || true
  done
  mounted=()
  # Never delete through a mount that is still there (it would reach the host's /dev or /proc).
  if findmnt -rno TARGET | grep -q "^$work/"; then
    echo "test:node-root: mounts under $work remain; left in place" >&2
  else
    rm -rf "$work"
  fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
bind() { # bind <host path> <path in the root>
  mkdir -p "$rootfs$2"
  mount --bind "$1" "$rootfs$2"
  mounted+=("$rootfs$2")
}
in_root() { chroot "$rootfs" /usr/bin/env -i HOME=/root PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 "$@"; }

t0=$(date +%s)
echo "== Debian 13 root (debootstrap --variant=minbase trixie, $mirror)"
debootstrap --variant=minbase trixie "$rootfs" "$mirror" >"$work/debootstrap.log" 2>&1 || { tail -20 "$work/debootstrap.log" >&2; exit 1; }
cp /etc/resolv.conf "$rootfs/etc/resolv.conf"
bind /proc /proc
bind /dev /dev
bind /sys /sys
packages="python3 make g++ ca-certificates git"
# Benches: PostgreSQL for deploy/postgres.sh (and its runuser: util-linux, not in a minbase Debian 13;
# /usr/sbin on PATH), ss and pgrep for its processes' CPU time. No service starts on install
# (policy-rc.d), so nothing runs in the root but what the benches start and stop.
if [[ ${#benches[@]} -gt 0 ]]; then
  packages="$packages postgresql util-linux iproute2 procps"
  printf '#!/bin/sh\nexit 101\n' >"$rootfs/usr/sbin/policy-rc.d" && chmod +x "$rootfs/usr/sbin/policy-rc.d"
  mkdir -p "$rootfs/etc/postgresql-common" && echo 'create_main_cluster = false' >"$rootfs/etc/postgresql-common/createcluster.conf"
fi
in_root sh -c "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o Dpkg::Options::=--force-confold --no-install-recommends $packages >/dev/null" >"$work/apt.log" 2>&1 || { tail -20 "$work/apt.log" >&2; exit 1; }
# A TLS-inspecting proxy's CA bundle of this host (as NODE_EXTRA_CA_CERTS names it), for npm in the root.
ca_env=()
if [[ -n "${NODE_EXTRA_CA_CERTS:-}" && -f "$NODE_EXTRA_CA_CERTS" ]]; then
  cp "$NODE_EXTRA_CA_CERTS" "$rootfs/etc/ssl/host-extra-ca.crt"
  ca_env=(NODE_EXTRA_CA_CERTS=/etc/ssl/host-extra-ca.crt)
fi
t1=$(date +%s)
echo "root ready in $((t1 - t0)) s: $(in_root ldd --version | head -1)"

for v in "${versions[@]}"; do
  echo "== Node $v"
  # The npm registry's `node` package (its platform part holds bin/node and include/node, the
  # headers better-sqlite3 compiles against) and `npm` (NPM_VERSION, default 11), into /opt/node<v>.
  # With a cache of its own (the host's npm cache stays untouched by this run).
  npm install --silent --no-audit --no-fund --cache "$work/npm-cache" --prefix "$rootfs/opt/node$v" "node@$v" "npm@${NPM_VERSION:-11}" >/dev/null
  platform=$(find "$rootfs/opt/node$v/node_modules" -path '*/include/node/node_version.h' -print -quit | sed 's|/include/node/node_version.h||')
  [[ -n "$platform" && -x "$platform/bin/node" ]] || { echo "no node binary or headers in the npm package node@$v" >&2; exit 1; }
  [[ -x "$rootfs/opt/node$v/node_modules/.bin/npm" ]] || { echo "no npm in the npm package npm@${NPM_VERSION:-11}" >&2; exit 1; }
  nodedir=${platform#"$rootfs"}
  env_v=("${ca_env[@]}" PATH="$nodedir/bin:/opt/node$v/node_modules/.bin:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin" npm_config_nodedir="$nodedir" npm_config_update_notifier=false CI=true)
  echo "node $(in_root "${env_v[@]}" node --version), npm $(in_root "${env_v[@]}" npm --version)"
  rm -rf "$work/src$v" && mkdir -p "$work/src$v"
  (cd "$repo" && git ls-files -z | xargs -0 -I{} cp --parents {} "$work/src$v/")
  bind "$work/src$v" /src
  t2=$(date +%s)
  in_root "${env_v[@]}" sh -c "cd /src && npm ci --no-audit --no-fund ${omit[*]}" >"$work/ci$v.log" 2>&1 || { tail -30 "$work/ci$v.log" >&2; exit 1; }
  if [[ -n "${NODE_ROOT_TRY:-}" ]]; then
    echo "trying $NODE_ROOT_TRY over the lock"
    in_root "${env_v[@]}" sh -c "cd /src && npm install --no-save --no-audit --no-fund $NODE_ROOT_TRY" >>"$work/ci$v.log" 2>&1 || { tail -30 "$work/ci$v.log" >&2; exit 1; }
  fi
  [[ ${#omit[@]} -eq 0 || ! -e "$work/src$v/node_modules/better-sqlite3" ]] || { echo "npm ci --omit=optional installed better-sqlite3" >&2; exit 1; }
  t3=$(date +%s)
  if [[ ${#benches[@]} -gt 0 ]]; then
    # The default snapshot the benches read (the service builds it on its first start; a bench may open it first).
    in_root "${env_v[@]}" sh -c 'cd /src && npm run --silent snapshot:build -- --no-progress' >>"$work/bench$v.log" 2>&1 || { tail -40 "$work/bench$v.log" >&2; exit 1; }
    for b in "${benches[@]}"; do
      name=${b%%@*}
      driver=$([[ "$b" == *@* ]] && echo "${b#*@}" || true)
      echo "-- bench:$name${driver:+ (SQLITE_DRIVER=$driver)}"
      in_root "${env_v[@]}" ${driver:+SQLITE_DRIVER=$driver} sh -c "cd /src && npm run --silent bench:$name -- ${NODE_ROOT_BENCH_ARGS:-}" 2>>"$work/bench$v.log" || { tail -40 "$work/bench$v.log" >&2; exit 1; }
    done
    echo "Node $v: npm ci $((t3 - t2)) s, benches $(($(date +%s) - t3)) s"
  else
    in_root "${env_v[@]}" sh -c 'cd /src && npm test' >"$work/test$v.log" 2>&1 || { tail -60 "$work/test$v.log" >&2; exit 1; }
    t4=$(date +%s)
    grep -E "Test Files|Tests " "$work/test$v.log" | sed 's/\x1b\[[0-9;]*m//g'
    echo "Node $v: npm ci $((t3 - t2)) s, npm test $((t4 - t3)) s"
  fi
  umount "$rootfs/src" && unset 'mounted[-1]'
  rm -rf "$work/src$v"
done
echo "test:node-root: $(($(date +%s) - t0)) s in all"
