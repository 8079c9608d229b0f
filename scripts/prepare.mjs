#!/usr/bin/env node
// `npm ci` / `npm install` run this (the `prepare` script): compile the service (src/, workers/,
// snapshots/ → dist/) when TypeScript is installed, as in any development install. A production
// install (`npm ci --omit=dev`) has no TypeScript: it runs the compiled output shipped with the
// checkout (dist/ built by `npm run build` on the build machine), and stops with a clear message
// when that is missing.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
let tsc = null;
try {
  tsc = require.resolve('typescript/bin/tsc', { paths: [root] });
} catch {
  tsc = null;
}
if (tsc !== null) {
  execFileSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.build.json')], { stdio: 'inherit', cwd: root });
} else if (!fs.existsSync(path.join(root, 'dist/src/main.js'))) {
  console.error('prepare: TypeScript is not installed (npm ci --omit=dev) and dist/ is missing: build it first with `npm ci && npm run build` and ship dist/ with the checkout.');
  process.exit(1);
}
