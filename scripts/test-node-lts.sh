#!/usr/bin/env bash
# `npm run test:node-lts [-- 22]`: the service on newer Node LTS lines (D225). For each major
# version given (default: 22), the Node binary comes from the npm registry's `node` package
# (into a temporary prefix), a copy of the checkout is installed with it (`npm ci`: better-sqlite3
# compiled against that package's headers, uWebSockets.js loading its binary for that ABI), and
# `npm test` runs there. On Debian 12 (glibc 2.36) Node 22 cannot load uWebSockets.js's binary
# (it needs glibc 2.38) and Node 24 aborts in better-sqlite3 12 (D225): run it on a newer base.
# Prints each version's install and test times. Needs the npm registry and a C++ toolchain.
set -euo pipefail
if [[ "${1:-}" == "--help" || "${1:-}" == "-h" ]]; then
  echo "usage: npm run test:node-lts [-- <major>...]   npm ci and npm test of a copy of the checkout on each Node major (default 22), Node from the npm registry"
  exit 0
fi
for v in "$@"; do [[ "$v" =~ ^[0-9]+$ ]] || { echo "test:node-lts: not a Node major version: $v" >&2; exit 2; }; done
versions=("$@")
[[ ${#versions[@]} -gt 0 ]] || versions=(22)
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/cps-node-lts-XXXX)
trap 'rm -rf "$work"' EXIT
for v in "${versions[@]}"; do
  echo "== Node $v"
  npm install --silent --no-audit --no-fund --prefix "$work/node$v" "node@$v" >/dev/null
  bin="$work/node$v/node_modules/node/bin"
  [[ -x "$bin/node" ]] || { echo "no node binary in the npm package node@$v" >&2; exit 1; }
  # The package's platform part holds the headers native modules compile against (include/node).
  headers=$(dirname "$(dirname "$(readlink -f "$bin/node")")")
  [[ -f "$headers/include/node/node_version.h" ]] || headers=$(find "$work/node$v" -path '*/include/node/node_version.h' -print -quit | sed 's|/include/node/node_version.h||')
  [[ -n "$headers" ]] || { echo "no Node headers in the npm package node@$v" >&2; exit 1; }
  echo "node $("$bin/node" --version)"
  mkdir -p "$work/repo$v"
  (cd "$root" && git ls-files -z | xargs -0 -I{} cp --parents {} "$work/repo$v/")
  t0=$(date +%s)
  (cd "$work/repo$v" && PATH="$bin:$PATH" npm_config_nodedir="$headers" npm ci --no-audit --no-fund >/dev/null 2>"$work/ci$v.log") || { tail -20 "$work/ci$v.log" >&2; exit 1; }
  t1=$(date +%s)
  (cd "$work/repo$v" && PATH="$bin:$PATH" npm test >"$work/test$v.log" 2>&1) || { tail -40 "$work/test$v.log" >&2; exit 1; }
  t2=$(date +%s)
  grep -E "Test Files|Tests " "$work/test$v.log" | sed 's/\x1b\[[0-9;]*m//g'
  echo "Node $v: npm ci $((t1 - t0)) s, npm test $((t2 - t1)) s"
done
