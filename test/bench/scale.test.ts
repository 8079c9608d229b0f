/**
 * The scale curves run: quick mode of bench/scale.ts on a small synthetic snapshot generated into
 * a temporary directory, and the bulk grid on the test snapshot. Speed is not checked here.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, inject, it } from 'vitest';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');

describe('scale curves (quick mode)', () => {
  const out = fs.mkdtempSync(path.join(inject('testTmpRoot'), 'bench-'));
  afterAll(() => fs.rmSync(out, { recursive: true, force: true }));

  it('npm run bench:scale -- --quick: scale curve points and the bulk grid', { timeout: 180_000 }, async () => {
    await run(
      process.execPath,
      [path.join(ROOT, 'dist/bench/scale.js'), '--quick', '--counts', '2500', '--synthetic-dir', out, '--snapshot', inject('testSnapshot'), '--out', out],
      { cwd: ROOT, maxBuffer: 16 << 20 },
    );
    const j = JSON.parse(fs.readFileSync(path.join(out, 'scale.json'), 'utf8'));
    expect(j.points).toHaveLength(1);
    const p = j.points[0];
    expect(p.stations).toBe(2500);
    expect(p.startMs).toBeGreaterThan(0);
    expect(p.rssMb).toBeGreaterThan(0);
    expect(p.nearest.p50).toBeGreaterThan(0);
    expect(p.peerNearest.p50).toBeGreaterThan(0);
    expect(j.bulk.map((b: { tariffs: number }) => b.tariffs)).toEqual([25, 200, 25, 200]);
    for (const b of j.bulk) expect(b.m.p50).toBeGreaterThan(0);
  });
});
