/**
 * The one place that sizes price work: it estimates a request's evaluations (one tariff priced at
 * one charge point) and decides whether it runs inline on the main thread, whole in one worker, or
 * split over idle workers, and into how many parts. Charge prices, bulk previews, area and route
 * price search (station prices), tariff details and OCPI CDR costs (D226) are planned here; the pool (src/pool/pool.ts)
 * carries the plan out.
 *
 * Inline below `inlineMaxEvaluations` (a pool hop costs more than the work, D106 and
 * src/config.ts); split from `splitMinEvaluations` on, when enough workers are idle. An estimate
 * is always finite: where it needs the candidate tariffs at a CPO, the main thread keeps the
 * compiled catalog whenever a decision depends on it (`needsCatalog`).
 */
import type { TaskName } from './protocol.js';

/** Parts a charge price request is split into at most (one per worker). */
export const MAX_PARTS = 4;

/**
 * A station price search (area and route) of more stations than this is split into one task per
 * worker, run side by side (as a large charge price request is); below it, one task (the split
 * costs a pool hop and re-plans the tariffs per part).
 */
export const SPLIT_STATIONS = 300;

/** Charge points a station is assumed to have where the planner does not look them up (bulk, area, route). */
export const CHARGE_POINTS_PER_STATION = 4;

/** What a request asks of the pool, in the terms its handler knows before any pricing. */
export type PriceWorkShape =
  | { task: 'chargePrices'; candidates: number; chargePoints: number }
  | { task: 'bulk'; stations: number; tariffs: number }
  | { task: 'stationPrices'; stations: number; tariffs: number }
  | { task: 'tariffDetails'; stations: number; candidates: number }
  | { task: 'cdrCost'; checks: number }
  | { task: 'tripPlan'; stations: number; tariffs: number; pairs: number };

/**
 * Element checks of a cdr_cost bound (D172, D260) that weigh one evaluation (D226): bounds of
 * ten thousand checks and more price at 10–20 ns per check of their bound here (the bound counts
 * the work really done), an evaluation with its writing at about 1 µs, so the default inline
 * limit (256 evaluations) runs bounds of up to 16,384 checks inline (the complex example of the
 * OCPI text bounds 234, the real CDR with 48 hourly prices 1,707).
 */
export const CDR_CHECKS_PER_EVALUATION = 64;

export interface Plan {
  readonly task: TaskName;
  readonly mode: 'inline' | 'pooled' | 'split';
  /** Parts the work runs in (1 unless split; station prices: parts of the station list). */
  readonly parts: number;
  /** Estimated evaluations of the whole request (of each part, for station prices split by stations). */
  readonly evaluations: number;
}

export interface PlannerOptions {
  workers: number;
  inlineMaxEvaluations: number;
  splitMinEvaluations: number;
}

export class PricePlanner {
  constructor(private readonly o: PlannerOptions) {}

  /** Whether the main thread must keep the compiled catalog: inline work, or estimates that decide a split. */
  get needsCatalog(): boolean {
    const o = this.o;
    return o.workers === 0 || o.inlineMaxEvaluations > 0 || (o.splitMinEvaluations > 0 && Math.min(o.workers, MAX_PARTS) > 1);
  }

  /** The estimate of a request's evaluations (always finite, at least 1). */
  estimate(w: PriceWorkShape): number {
    switch (w.task) {
      case 'chargePrices':
        return Math.max(1, w.candidates * w.chargePoints);
      case 'bulk':
      case 'stationPrices':
        return Math.max(1, w.stations * Math.max(1, w.tariffs) * CHARGE_POINTS_PER_STATION);
      case 'tariffDetails':
        return Math.max(1, w.stations * w.candidates * CHARGE_POINTS_PER_STATION);
      case 'cdrCost':
        return Math.max(1, Math.ceil(w.checks / CDR_CHECKS_PER_EVALUATION));
      case 'tripPlan':
        return Math.max(1, w.stations * Math.max(1, w.tariffs) * w.pairs);
    }
  }

  /**
   * The plan of one request. `idleWorkers`: workers free right now (a split is only worth it when
   * its parts start at once).
   */
  plan<W extends PriceWorkShape>(w: W, idleWorkers: number): Plan & { task: W['task'] } {
    return this.planOf(w, idleWorkers);
  }

  private planOf(w: PriceWorkShape, idleWorkers: number): Plan {
    const o = this.o;
    if (w.task === 'stationPrices') return this.planStations(w);
    const evaluations = this.estimate(w);
    if (o.workers === 0 || (o.inlineMaxEvaluations > 0 && evaluations <= o.inlineMaxEvaluations)) {
      return { task: w.task, mode: 'inline', parts: 1, evaluations };
    }
    const parts = Math.min(o.workers, MAX_PARTS);
    if (w.task === 'chargePrices' && parts > 1 && o.splitMinEvaluations > 0 && evaluations >= o.splitMinEvaluations && idleWorkers >= parts) {
      return { task: w.task, mode: 'split', parts, evaluations };
    }
    return { task: w.task, mode: 'pooled', parts: 1, evaluations };
  }

  /** Station prices: parts of SPLIT_STATIONS stations or more, one per worker; each part inline when small. */
  private planStations(w: { task: 'stationPrices'; stations: number; tariffs: number }): Plan {
    const o = this.o;
    const parts = Math.max(1, Math.min(o.workers, Math.ceil(w.stations / SPLIT_STATIONS)));
    const evaluations = this.estimate({ ...w, stations: Math.ceil(w.stations / parts) });
    const inline = o.workers === 0 || (o.inlineMaxEvaluations > 0 && evaluations <= o.inlineMaxEvaluations);
    return { task: 'stationPrices', mode: inline ? 'inline' : parts > 1 ? 'split' : 'pooled', parts, evaluations };
  }
}
