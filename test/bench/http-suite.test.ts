/**
 * The benchmark suite's answers: the check mode of the HTTP suite (every scenario against the full
 * stack, the bare uWebSockets.js ceiling and the fastify peer; the peer's answers equal, the
 * ceiling's bytes the captured ones, compressed bodies decoding to the identity bytes) on the small
 * test snapshot, outputs in a temporary directory. Nothing is measured here (`--quick` is the short
 * measuring run; speed belongs to benchmarks, not tests).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, inject, it } from 'vitest';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');

describe('HTTP bench suite (check mode)', () => {
  const out = fs.mkdtempSync(path.join(inject('testTmpRoot'), 'bench-'));
  afterAll(() => fs.rmSync(out, { recursive: true, force: true }));

  it('npm run bench:http -- --check: every scenario answers as expected on the full stack, the ceiling and the peer', { timeout: 180_000 }, async () => {
    await run(process.execPath, [path.join(ROOT, 'dist/bench/http.js'), '--check', '--snapshot', inject('testSnapshot'), '--out', out], { cwd: ROOT, maxBuffer: 16 << 20 });
    const j = JSON.parse(fs.readFileSync(path.join(out, 'http.json'), 'utf8'));
    expect(j.datasets).toHaveLength(1);
    const d = j.datasets[0];
    expect(d.stations).toBe(1927);
    const names = d.rows.map((r: { name: string }) => r.name);
    for (const prefix of ['GET /health', 'radius 5 km', 'bbox', 'station read', 'charge prices, busy', 'charge prices, typical', 'bulk worst case', 'tariff details', 'tariff PUT']) {
      expect(names.some((n: string) => n.startsWith(prefix)), prefix).toBe(true);
    }
    // The suite throws (and this run fails) when the peer's answer differs from the full stack's,
    // or the ceiling does not serve the captured bytes; here each target's status is on record.
    for (const r of d.rows) {
      const want = r.name.startsWith('tariff PUT') ? 201 : 200;
      expect(r.checked, r.name).toEqual({ full: want, bare: want, ...(r.peer ? { peer: want } : {}) });
      expect(r.bytes, r.name).toBeGreaterThan(0);
    }
    const withPeer = d.rows.filter((r: { peer?: unknown }) => r.peer).map((r: { name: string }) => r.name.split(',')[0].split(' (')[0]);
    expect(withPeer).toEqual(['GET /health', 'radius 5 km Paris centre', 'radius 5 km Paris centre', 'bbox Paris', 'station read', 'charge prices', 'charge prices', 'charge prices']);
    // Compressed beside identity: the five scenarios; each compressed body was decoded and found
    // equal to the identity bytes before this file was written.
    expect(d.compression.map((r: { name: string }) => r.name.split(',')[0].split(' (')[0])).toEqual(['radius 5 km Paris centre', 'radius 5 km Paris centre', 'station read', 'charge prices', 'bulk worst case']);
    // Area and route price search against the client path: both paths priced every station alike
    // (the suite throws when a price differs); nothing measured in check mode.
    expect(d.area.map((r: { name: string }) => r.name.split(' (')[0])).toEqual(['radius 5 km around Paris', 'box over Paris', 'route Paris → Lyon']);
    for (const r of d.area) {
      expect(r.priced, r.name).toBeGreaterThan(100);
      expect(r.equal, r.name).toBe(Math.min(r.priced, 1000));
      expect(r.one, r.name).toBeNull();
    }
    for (const r of d.compression) {
      if (r.bytes.identity >= 1024) {
        expect(r.bytes.br, r.name).toBeLessThan(r.bytes.identity / 3);
        expect(r.bytes.gzip, r.name).toBeLessThan(r.bytes.identity / 3);
      } else expect(r.bytes.br).toBe(r.bytes.identity);
    }
  });
});
