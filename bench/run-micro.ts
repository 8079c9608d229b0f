/**
 * Runs every micro-benchmark (bench/*.bench.ts, tinybench) one after another, each in its own
 * process so that one benchmark's heap does not disturb the next.
 *
 *   npm run bench [-- --quick]
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from './lib/harness.js';

const args = process.argv.slice(2);
const files = fs
  .readdirSync(path.join(ROOT, 'bench'))
  .filter((f) => f.endsWith('.bench.ts'))
  .sort();
if (files.length === 0) {
  console.error('no micro-benchmarks found in bench/');
  process.exit(1);
}
let failed = 0;
for (const f of files) {
  console.log(`\n=== ${f} ===`);
  const r = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', path.join(ROOT, 'bench', f), ...args], {
    cwd: ROOT,
    stdio: 'inherit',
  });
  if (r.status !== 0) {
    failed++;
    console.error(`${f} failed with exit code ${r.status}`);
  }
}
process.exit(failed === 0 ? 0 : 1);
