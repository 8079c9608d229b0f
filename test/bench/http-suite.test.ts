/**
 * The benchmark suite runs: the quick mode of the HTTP suite (every scenario against the full
 * stack, the bare uWebSockets.js ceiling and the fastify peer, with the peer's answers checked
 * equal) on the small test snapshot, outputs in a temporary directory.
 * Speed is not checked here (benchmarks, not timed tests).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, inject, it } from 'vitest';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');

describe('HTTP bench suite (quick mode)', () => {
  const out = fs.mkdtempSync(path.join(inject('testTmpRoot'), 'bench-'));
  afterAll(() => fs.rmSync(out, { recursive: true, force: true }));

  it('npm run bench:http -- --quick: every scenario answers, with ceiling and peer', { timeout: 180_000 }, async () => {
    await run(process.execPath, [path.join(ROOT, 'dist/bench/http.js'), '--quick', '--snapshot', inject('testSnapshot'), '--out', out], { cwd: ROOT, maxBuffer: 16 << 20 });
    const j = JSON.parse(fs.readFileSync(path.join(out, 'http.json'), 'utf8'));
    expect(j.datasets).toHaveLength(1);
    const d = j.datasets[0];
    expect(d.stations).toBe(1935);
    expect(d.startMs).toBeGreaterThan(0);
    expect(d.rssStartMb).toBeGreaterThan(0);
    const names = d.rows.map((r: { name: string }) => r.name);
    for (const prefix of ['GET /health', 'radius 5 km', 'bbox', 'station read', 'charge prices, busy', 'charge prices, typical', 'bulk worst case', 'tariff details', 'tariff PUT']) {
      expect(names.some((n: string) => n.startsWith(prefix)), prefix).toBe(true);
    }
    for (const r of d.rows) {
      expect(r.full.rps, r.name).toBeGreaterThan(0);
      expect(r.bare.rps, r.name).toBeGreaterThan(0);
      expect(r.full.errors + r.full.non2xx, r.name).toBe(0);
      expect(r.bare.errors + r.bare.non2xx, r.name).toBe(0);
      expect(r.bytes, r.name).toBeGreaterThan(0);
      if (r.peer) {
        expect(r.peer.rps, r.name).toBeGreaterThan(0);
        expect(r.peer.errors + r.peer.non2xx, r.name).toBe(0);
        expect(r.vsPeer).toBeCloseTo(r.full.rps / r.peer.rps, 6);
      }
    }
    const withPeer = d.rows.filter((r: { peer?: unknown }) => r.peer).map((r: { name: string }) => r.name.split(',')[0].split(' (')[0]);
    expect(withPeer).toEqual(['GET /health', 'radius 5 km Paris centre', 'radius 5 km Paris centre', 'bbox Paris', 'station read', 'charge prices', 'charge prices', 'charge prices']);
    // Compressed beside identity: the five scenarios, three encodings, fewer bytes compressed.
    expect(d.compression.map((r: { name: string }) => r.name.split(',')[0].split(' (')[0])).toEqual(['radius 5 km Paris centre', 'radius 5 km Paris centre', 'station read', 'charge prices', 'bulk worst case']);
    for (const r of d.compression) {
      for (const enc of ['identity', 'br', 'gzip']) {
        expect(r.m[enc].rps, `${r.name} ${enc}`).toBeGreaterThan(0);
        expect(r.m[enc].errors + r.m[enc].non2xx, `${r.name} ${enc}`).toBe(0);
      }
      if (r.bytes.identity >= 1024) {
        expect(r.bytes.br, r.name).toBeLessThan(r.bytes.identity);
        expect(r.bytes.gzip, r.name).toBeLessThan(r.bytes.identity);
      }
    }
    expect(j.targets.some((t: { target: string }) => t.target.startsWith('radius page 400, br'))).toBe(true);
    // Every target is judged on the figures (met or not is the benchmark's business, not the test's).
    expect(j.targets.length).toBeGreaterThanOrEqual(9);
    for (const t of j.targets) expect(typeof t.met).toBe('boolean');
  });
});
