/**
 * D269/F: the trip plan search equals the exhaustive oracle's optimum on seeded corridors of at
 * most 8 candidate stations (TRIP_CASES corridors; `npm run test:trips` runs 2,000), and the plan
 * it gives is feasible and costs what it says.
 */
import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../../src/domain/random.js';
import { gridOf, pairIndex, searchTrip, socUsed, type TripProblem } from '../../../src/domain/trips/search.js';
import { oracleBestCost, type OracleProblem } from '../../oracles/trip-oracle.js';

const CASES = Number(process.env.TRIP_CASES ?? 300);

/** A random corridor with a random nonlinear price per stop (session fee, kWh, minutes after 20). */
function corridor(seed: number): { oracle: OracleProblem; problem: TripProblem } {
  const r = mulberry32(seed);
  const n = Math.floor(r() * 9);
  const length = 50_000 + r() * 500_000;
  const along = Array.from({ length: n }, () => r() * length).sort((a, b) => a - b);
  const off = Array.from({ length: n }, () => (r() < 0.3 ? 0 : r() * 3000));
  const battery = 30 + r() * 60;
  const consumption = 14 + r() * 12;
  const step = n <= 5 && r() < 0.5 ? 5 : r() < 0.6 ? 10 : 20;
  const minSoc = Math.floor(r() * 20);
  const maxSoc = Math.min(100, minSoc + 30 + Math.floor(r() * 60));
  const startSoc = 20 + r() * 80;
  const timeValue = r() < 0.3 ? 0 : r() * 40;
  const fee = along.map(() => (r() < 0.1 ? Infinity : r() * 3));
  const perKwh = along.map(() => 0.2 + r() * 0.6);
  const perMin = along.map(() => (r() < 0.5 ? 0 : r() * 0.3));
  const kw = along.map(() => 11 + r() * 200);
  const stopCost = (k: number, from: number, to: number): number => {
    const energy = ((battery * (to - from)) / 100) * 1.1;
    const minutes = (energy / kw[k]) * 60;
    return fee[k] + perKwh[k] * energy + perMin[k] * Math.max(0, minutes - 20) + (timeValue * minutes) / 60;
  };
  const detourCost = off.map((o) => (timeValue * (2 * o)) / 1000 / 50);
  const oracle: OracleProblem = { along, off, length, battery, consumption, startSoc, minSoc, maxSoc, step, detourCost, stopCost };
  const g = gridOf(minSoc, maxSoc, step);
  const cost = new Float64Array(n * g.pairs);
  for (let k = 0; k < n; k++) {
    for (let a = 0; a < g.levels; a++) {
      for (let e = a + 1; e < g.levels; e++) cost[k * g.pairs + pairIndex(a, e, g.levels)] = stopCost(k, (a + g.lo) * step, (e + g.lo) * step);
    }
  }
  const problem: TripProblem = {
    along: Float64Array.from(along), off: Float64Array.from(off), length, battery, consumption, startSoc, minSoc, maxSoc, step,
    detourCost: Float64Array.from(detourCost), cost,
  };
  return { oracle, problem };
}

describe('trip plan search against the exhaustive oracle (D269)', () => {
  it(`equals the oracle's optimum on ${CASES} seeded corridors of ≤ 8 candidates`, () => {
    let feasible = 0;
    let withStops = 0;
    for (let seed = 1; seed <= CASES; seed++) {
      const { oracle, problem } = corridor(seed);
      const want = oracleBestCost(oracle);
      const got = searchTrip(problem);
      if (want === Infinity) {
        expect(got.ok, `seed ${seed}`).toBe(false);
        continue;
      }
      expect(got.ok, `seed ${seed}`).toBe(true);
      if (!got.ok) continue;
      feasible++;
      if (got.stops.length > 0) withStops++;
      expect(got.cost, `seed ${seed}`).toBeCloseTo(want, 9);
      // The plan itself: feasible at every arrival, and costing what it says.
      let soc = problem.startSoc;
      let at = 0;
      let back = 0;
      let sum = 0;
      for (const s of got.stops) {
        const real = soc - socUsed(problem, problem.along[s.station] - at + back + problem.off[s.station]);
        expect(real).toBeGreaterThanOrEqual(problem.minSoc - 1e-9);
        expect(real).toBeCloseTo(s.arrival, 9);
        expect(s.from).toBe(Math.floor(real / problem.step + 1e-9) * problem.step);
        sum += oracle.stopCost(s.station, s.from, s.to) + oracle.detourCost[s.station];
        soc = s.to;
        at = problem.along[s.station];
        back = problem.off[s.station];
      }
      const home = soc - socUsed(problem, problem.length - at + back);
      expect(home).toBeGreaterThanOrEqual(problem.minSoc - 1e-9);
      expect(got.arrival).toBeCloseTo(home, 9);
      expect(sum).toBeCloseTo(got.cost, 9);
    }
    // The generator gives both kinds of corridors, and plans that stop.
    expect(feasible).toBeGreaterThan(CASES / 4);
    expect(withStops).toBeGreaterThan(CASES / 10);
    expect(feasible).toBeLessThan(CASES);
  }, 600_000);

  it('says where the car runs out when no plan exists', () => {
    const { problem } = corridor(7);
    const p: TripProblem = { ...problem, along: new Float64Array(0), off: new Float64Array(0), detourCost: new Float64Array(0), cost: new Float64Array(0), startSoc: 50, minSoc: 10, length: 1_000_000 };
    const r = searchTrip(p);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.runsOut).toBeCloseTo(((40 / 100) * p.battery) / (p.consumption / 100) * 1000, 6);
  });
});
