/**
 * The in-process micro-benchmarks run (check mode: their self-checks and token timings) and report what they measure: the pricing
 * engine (compiled vs reference, bulk previews), the busy-station charge price task (which also
 * checks its bytes against the objects + JSON.stringify document before measuring) and the station
 * index. Speed is not checked here; catalog writes run in the HTTP suite's quick test.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, inject, it } from 'vitest';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');

/** Runs one micro-benchmark in check mode (self-checks, token timings) with its output in a temporary directory (never bench/out/). */
async function quick(file: string, out: string, args: string[] = []): Promise<Record<string, unknown>> {
  const dir = fs.mkdtempSync(path.join(inject('testTmpRoot'), 'micro-'));
  // The compiled bench (the test run has just built dist/), as `npm run bench:*` runs it.
  await run(process.execPath, [path.join(ROOT, 'dist/bench', file.replace(/\.ts$/, '.js')), '--check', ...args], { cwd: ROOT, maxBuffer: 16 << 20, env: { ...process.env, BENCH_OUT_DIR: dir } });
  return JSON.parse(fs.readFileSync(path.join(dir, out), 'utf8')) as Record<string, unknown>;
}

describe('micro-benchmarks (check mode)', () => {
  it('pricing: compiled vs reference, bulk previews, allocation', { timeout: 120_000 }, async () => {
    const j = await quick('pricing.bench.ts', 'pricing.json');
    for (const k of ['ratio', 'ratioInterleaved', 'bulkMedianMs', 'unsharedBulkMedianMs', 'distinctBulkMedianMs', 'evseBulkMedianMs', 'bulkAllocatedBytes', 'firstMatchVsSum']) {
      expect(j[k], k).toBeGreaterThan(0);
    }
  });

  it('charge prices at a busy station: task vs the straightforward path', { timeout: 120_000 }, async () => {
    const j = await quick('charge-prices.bench.ts', 'charge-prices.json');
    expect(j.candidates).toBeGreaterThanOrEqual(1000);
    expect(j.bytes).toBeGreaterThan(1_000_000);
    for (const k of ['computeMedianMs', 'taskMedianMs', 'straightforwardMedianMs', 'speedup']) expect(j[k], k).toBeGreaterThan(0);
  });

  it('OCPI CDR cost: engine vs the second-by-second evaluator (checked equal first), real CDR shapes', { timeout: 120_000 }, async () => {
    const j = await quick('cdr-cost.bench.ts', 'cdr-cost.json');
    expect(j.sessions).toBe(20);
    for (const k of ['engineMedianMs', 'naiveMedianMs', 'speedup', 'complexMedianUs', 'realMedianUs', 'weekMedianMs']) expect(j[k], k).toBeGreaterThan(0);
  });

  it('station index vs naive scan', { timeout: 120_000 }, async () => {
    const none = path.join(inject('testTmpRoot'), 'no-synthetic.sqlite');
    const j = await quick('stations.bench.ts', 'stations.json', ['--snapshot', inject('testSnapshot'), '--synthetic', none]);
    expect((j.rows as unknown[]).length).toBeGreaterThan(0);
  });
});
