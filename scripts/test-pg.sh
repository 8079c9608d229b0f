#!/usr/bin/env bash
# npm run test:pg: the HTTP test suite against the PostgreSQL live store, on a throw-away cluster
# (deploy/postgres.sh; Debian's postgresql). Extra arguments go to vitest (e.g. a file name).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
cleanup() {
  bash "$root/deploy/postgres.sh" stop "$tmp/pg" > /dev/null 2>&1 || true
  rm -rf "$tmp"
}
trap cleanup EXIT
url=$(bash "$root/deploy/postgres.sh" start "$tmp/pg" | sed -n 's/^DATABASE_URL=//p')
cd "$root"
npx tsc -p tsconfig.json
TEST_DATABASE_URL="$url" CPS_BUILT=1 npx vitest run --config vitest.pg.config.ts "$@"
