import { describe, expect, it } from 'vitest';
import { CHARGE_POINTS_PER_STATION, MAX_PARTS, PricePlanner, SPLIT_STATIONS } from '../../src/pool/planner.js';

const planner = (workers: number, inlineMaxEvaluations: number, splitMinEvaluations: number) =>
  new PricePlanner({ workers, inlineMaxEvaluations, splitMinEvaluations });

describe('price work planner', () => {
  it('runs small work inline, larger work in one worker, and large charge prices split when enough workers are idle', () => {
    const p = planner(2, 256, 2000);
    expect(p.plan({ task: 'chargePrices', candidates: 31, chargePoints: 4 }, 2)).toEqual({ task: 'chargePrices', mode: 'inline', parts: 1, evaluations: 124 });
    expect(p.plan({ task: 'chargePrices', candidates: 300, chargePoints: 4 }, 2)).toMatchObject({ mode: 'pooled', parts: 1, evaluations: 1200 });
    expect(p.plan({ task: 'chargePrices', candidates: 1000, chargePoints: 4 }, 2)).toMatchObject({ mode: 'split', parts: 2, evaluations: 4000 });
    // Not enough idle workers: whole in one.
    expect(p.plan({ task: 'chargePrices', candidates: 1000, chargePoints: 4 }, 1)).toMatchObject({ mode: 'pooled', parts: 1 });
    // Only charge prices are split into candidate shares.
    expect(p.plan({ task: 'bulk', stations: 100, tariffs: 100 }, 2)).toMatchObject({ mode: 'pooled', parts: 1, evaluations: 100 * 100 * CHARGE_POINTS_PER_STATION });
    expect(p.plan({ task: 'tariffDetails', stations: 1, candidates: 10 }, 2)).toMatchObject({ mode: 'inline', evaluations: 10 * CHARGE_POINTS_PER_STATION });
  });

  it('splits station prices by stations, one part per worker, each part inline when small', () => {
    const p = planner(2, 256, 2000);
    expect(p.plan({ task: 'stationPrices', stations: SPLIT_STATIONS, tariffs: 5 }, 0)).toMatchObject({ mode: 'pooled', parts: 1 });
    expect(p.plan({ task: 'stationPrices', stations: SPLIT_STATIONS + 1, tariffs: 5 }, 0)).toMatchObject({ mode: 'split', parts: 2 });
    expect(p.plan({ task: 'stationPrices', stations: 10, tariffs: 2 }, 0)).toMatchObject({ mode: 'inline', parts: 1, evaluations: 80 });
    expect(planner(8, 256, 2000).plan({ task: 'stationPrices', stations: 10_000, tariffs: 1 }, 0).parts).toBe(8);
  });

  it('never estimates Infinity: inline off keeps the catalog whenever a split could depend on the estimate', () => {
    expect(planner(2, 0, 2000).needsCatalog).toBe(true);
    expect(planner(1, 0, 2000).needsCatalog).toBe(false);
    expect(planner(2, 0, 0).needsCatalog).toBe(false);
    expect(planner(0, 0, 0).needsCatalog).toBe(true);
    const p = planner(2, 0, 2000);
    // A 31-tariff station at 5 charge points: one worker, not split.
    expect(p.plan({ task: 'chargePrices', candidates: 31, chargePoints: 5 }, 2)).toMatchObject({ mode: 'pooled', parts: 1, evaluations: 155 });
    for (const w of [
      { task: 'chargePrices', candidates: 0, chargePoints: 0 },
      { task: 'bulk', stations: 0, tariffs: 0 },
      { task: 'tariffDetails', stations: 1, candidates: 0 },
    ] as const) {
      expect(Number.isFinite(p.estimate(w))).toBe(true);
      expect(p.estimate(w)).toBeGreaterThanOrEqual(1);
    }
  });

  it('without workers everything runs inline; parts never exceed the workers or MAX_PARTS', () => {
    const none = planner(0, 0, 2000);
    expect(none.plan({ task: 'chargePrices', candidates: 5000, chargePoints: 4 }, 0)).toMatchObject({ mode: 'inline', parts: 1 });
    expect(none.plan({ task: 'stationPrices', stations: 5000, tariffs: 4 }, 0)).toMatchObject({ mode: 'inline', parts: 1 });
    expect(planner(16, 0, 10).plan({ task: 'chargePrices', candidates: 5000, chargePoints: 4 }, 16).parts).toBe(MAX_PARTS);
  });
});
