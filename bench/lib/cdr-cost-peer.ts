/**
 * cdr_cost beside a peer engine, per CDR (`npm run bench:cdr-cost -- --peer <dir>`): the peer is a
 * built checkout of TandemDrive's ocpi-tariffs with a `price-lines` binary (target/release) that
 * reads JSON lines `{"tariff","cdr","timezone"}` from stdin, prices each `reps` times and prints per
 * line its `total_cost.excl_vat` and median nanoseconds. Rounds alternate: this engine on every
 * case (each timed as the median of `reps` runs), then the peer on the same cases. Per case the
 * median over rounds; the figure is the median over cases of this engine's time / the peer's.
 * Nothing of the peer is part of this repository; it is not run in CI.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { cdrCostBounded } from '../../src/domain/ocpi/cdr-cost.js';
import { randomCase } from '../../test/domain/ocpi/minute-evaluator.js';

const medianOf = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

export interface PeerComparison {
  cases: number;
  rounds: number;
  engineMedianUs: number;
  peerMedianUs: number;
  ratioMedian: number;
  ratioP90: number;
  /** CDRs whose totals excluding VAT agree to 4 decimals (not those the peer gives none for). */
  sameTotal: number;
}

/** Times this engine and the peer in `rounds` alternating rounds on `n` seeded cases of the differential test. */
export function comparePeer(dir: string, n: number, rounds: number, reps = 5): PeerComparison {
  const cases = Array.from({ length: n }, (_, i) => randomCase(i + 1));
  const input = cases.map((c) => JSON.stringify({ tariff: c.tariff, cdr: c.session, timezone: c.timezone })).join('\n');
  const bin = path.join(dir, 'target/release/price-lines');
  const ours: number[][] = cases.map(() => []);
  const theirs: number[][] = cases.map(() => []);
  let peerTotals: string[] = [];
  for (let r = 0; r < rounds; r++) {
    cases.forEach((c, i) => {
      const ts: number[] = [];
      for (let k = 0; k < reps; k++) {
        const t0 = process.hrtime.bigint();
        cdrCostBounded(c.tariff, c.session, c.timezone);
        ts.push(Number(process.hrtime.bigint() - t0));
      }
      ours[i].push(medianOf(ts));
    });
    const run = spawnSync(bin, [String(reps)], { input, maxBuffer: 64 << 20, encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`${bin} failed: ${run.stderr}`);
    const lines = run.stdout.trim().split('\n');
    if (lines.length !== n) throw new Error(`${bin} answered ${lines.length} lines for ${n} cases`);
    peerTotals = lines.map((l) => l.split(' ')[0]);
    lines.forEach((l, i) => theirs[i].push(Number(l.split(' ')[1])));
  }
  const ratios = cases.map((_, i) => medianOf(ours[i]) / medianOf(theirs[i])).sort((a, b) => a - b);
  // The peer prints its total as a JSON string, null when it has none, an error message otherwise.
  const peerTotal = (t: string): number => (t.startsWith('"') ? Number(JSON.parse(t) as string) : NaN);
  const sameTotal = cases.filter((c, i) => Math.abs(peerTotal(peerTotals[i]) - cdrCostBounded(c.tariff, c.session, c.timezone).total_cost.excl_vat) < 1e-4).length;
  return {
    cases: n,
    rounds,
    engineMedianUs: medianOf(ours.map(medianOf)) / 1000,
    peerMedianUs: medianOf(theirs.map(medianOf)) / 1000,
    ratioMedian: medianOf(ratios),
    ratioP90: ratios[Math.floor(ratios.length * 0.9)],
    sameTotal,
  };
}
