/**
 * `npm run bench:charts` refuses outputs of --quick runs: short smoke runs must never become the
 * committed report (bench/charts/, bench/results.json).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, inject, it } from 'vitest';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');

describe('bench:charts', () => {
  it('refuses quick-run outputs and writes nothing', async () => {
    const dir = fs.mkdtempSync(path.join(inject('testTmpRoot'), 'charts-'));
    fs.writeFileSync(path.join(dir, 'http.json'), JSON.stringify({ options: { quick: true }, datasets: [] }));
    const before = fs.readFileSync(path.join(ROOT, 'bench/results.json'), 'utf8');
    const r = await run(process.execPath, [path.join(ROOT, 'dist/bench/charts.js')], { cwd: ROOT, env: { ...process.env, BENCH_OUT_DIR: dir } }).then(
      () => ({ code: 0, stderr: '' }),
      (e: { code: number; stderr: string }) => ({ code: e.code, stderr: e.stderr }),
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('http.json');
    expect(r.stderr).toContain('--quick');
    expect(fs.readFileSync(path.join(ROOT, 'bench/results.json'), 'utf8')).toBe(before);
  });
});
