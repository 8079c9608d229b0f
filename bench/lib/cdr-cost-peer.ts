/**
 * cdr_cost beside a peer engine, per CDR (`npm run bench:cdr-cost -- --peer <dir>`): the peer is a
 * built checkout of TandemDrive's ocpi-tariffs with a `price-lines` binary (target/release) that
 * reads JSON lines `{"tariff","cdr","timezone"}` from stdin, deserializes each once, prices it
 * `reps` times (its `Pricer` builds its tariff from the deserialized one on every run) and prints
 * per line its `total_cost.excl_vat` and median nanoseconds.
 *
 * This side times, on the same parsed inputs, each of:
 * - `before`: the engine before tariffs were prepared and kept (its twin, test/domain/ocpi/cdr-cost-twin.ts);
 * - `cold`: this engine given the parsed tariff, prepared on every run (what the peer does);
 * - `warm`: this engine with the tariff found prepared by its content (D280), the lookup timed.
 * Rounds alternate: every side on every case (each timed as the median of `reps` runs), then the
 * peer on the same cases. Per case the median over rounds; the figure is the median over cases of
 * a side's time / the peer's. Nothing of the peer is part of this repository; it is not run in CI.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { cdrCostBounded, clearPreparedTariffs, preparedTariff } from '../../src/domain/ocpi/cdr-cost.js';
import { cdrCostBounded as beforeCost } from '../../test/domain/ocpi/cdr-cost-twin.js';
import { randomCase } from '../../test/domain/ocpi/minute-evaluator.js';

const medianOf = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

export interface SideFigures {
  medianUs: number;
  ratioMedian: number;
  ratioP90: number;
}

export interface PeerComparison {
  cases: number;
  rounds: number;
  peerMedianUs: number;
  /** Median of an empty timing (hrtime twice), included in every figure of this side. */
  timerNs: number;
  before: SideFigures;
  cold: SideFigures;
  warm: SideFigures;
  /** Kept for the figures of earlier runs: `cold`'s. */
  engineMedianUs: number;
  ratioMedian: number;
  ratioP90: number;
  /** CDRs whose totals excluding VAT agree to 4 decimals (not those the peer gives none for). */
  sameTotal: number;
}

type Case = ReturnType<typeof randomCase> & { key: string };
const SIDES = {
  before: (c: Case) => beforeCost(c.tariff, c.session, c.timezone),
  cold: (c: Case) => cdrCostBounded(c.tariff, c.session, c.timezone),
  warm: (c: Case) => cdrCostBounded(preparedTariff(c.key, c.tariff), c.session, c.timezone),
};
type Side = keyof typeof SIDES;

/** Median ns of `reps` runs of `side` on `c` (warm: after one untimed run that keeps its tariff). */
function timeCase(side: Side, c: Case, reps: number): number {
  const run = SIDES[side];
  if (side === 'warm') run(c);
  const ts: number[] = [];
  for (let k = 0; k < reps; k++) {
    const t0 = process.hrtime.bigint();
    run(c);
    ts.push(Number(process.hrtime.bigint() - t0));
  }
  return medianOf(ts);
}

/** Times this engine (before, cold, warm) and the peer in `rounds` alternating rounds on `n` seeded cases of the differential test. */
export function comparePeer(dir: string, n: number, rounds: number, reps = 5): PeerComparison {
  const cases: Case[] = Array.from({ length: n }, (_, i) => {
    const c = randomCase(i + 1);
    return { ...c, key: JSON.stringify(c.tariff) };
  });
  const input = cases.map((c) => JSON.stringify({ tariff: c.tariff, cdr: c.session, timezone: c.timezone })).join('\n');
  const bin = path.join(dir, 'target/release/price-lines');
  const ours = { before: cases.map((): number[] => []), cold: cases.map((): number[] => []), warm: cases.map((): number[] => []) };
  const theirs: number[][] = cases.map(() => []);
  let peerTotals: string[] = [];
  for (let r = 0; r < rounds; r++) {
    for (const side of Object.keys(SIDES) as Side[]) {
      clearPreparedTariffs();
      cases.forEach((c, i) => ours[side][i].push(timeCase(side, c, reps)));
    }
    const run = spawnSync(bin, [String(reps)], { input, maxBuffer: 64 << 20, encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`${bin} failed: ${run.stderr}`);
    const lines = run.stdout.trim().split('\n');
    if (lines.length !== n) throw new Error(`${bin} answered ${lines.length} lines for ${n} cases`);
    peerTotals = lines.map((l) => l.split(' ')[0]);
    lines.forEach((l, i) => theirs[i].push(Number(l.split(' ')[1])));
  }
  const peerMedians = theirs.map(medianOf);
  const figures = (side: Side): SideFigures => {
    const mine = ours[side].map(medianOf);
    const ratios = mine.map((x, i) => x / peerMedians[i]).sort((a, b) => a - b);
    return { medianUs: medianOf(mine) / 1000, ratioMedian: medianOf(ratios), ratioP90: ratios[Math.floor(ratios.length * 0.9)] };
  };
  const timer: number[] = [];
  for (let k = 0; k < 10_000; k++) {
    const t0 = process.hrtime.bigint();
    timer.push(Number(process.hrtime.bigint() - t0));
  }
  // The peer prints its total as a JSON string, null when it has none, an error message otherwise.
  const peerTotal = (t: string): number => (t.startsWith('"') ? Number(JSON.parse(t) as string) : NaN);
  const sameTotal = cases.filter((c, i) => Math.abs(peerTotal(peerTotals[i]) - cdrCostBounded(c.tariff, c.session, c.timezone).total_cost.excl_vat) < 1e-4).length;
  const cold = figures('cold');
  return {
    cases: n,
    rounds,
    peerMedianUs: medianOf(peerMedians) / 1000,
    timerNs: medianOf(timer),
    before: figures('before'),
    cold,
    warm: figures('warm'),
    engineMedianUs: cold.medianUs,
    ratioMedian: cold.ratioMedian,
    ratioP90: cold.ratioP90,
    sameTotal,
  };
}
