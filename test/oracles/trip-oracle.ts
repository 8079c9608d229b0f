/**
 * The exhaustive twin of the trip plan search (src/domain/trips/search.ts, D269): every subset
 * of the candidate stations, in route order, with every departure level at each stop, under the
 * model of D268 written out plainly. Only infeasible branches are cut (an arrival below the
 * least state of charge), never costly ones. Test code: nothing in src/ depends on it.
 */

export interface OracleProblem {
  along: number[];
  off: number[];
  length: number;
  battery: number;
  /** kWh per 100 km. */
  consumption: number;
  startSoc: number;
  minSoc: number;
  maxSoc: number;
  step: number;
  detourCost: number[];
  /** Cost of charging at station k from level `from` to level `to` (percent); Infinity = none. */
  stopCost: (k: number, from: number, to: number) => number;
}

const TOL = 1e-9;

/** kWh used for `metres`, in percent of the battery. */
const percentFor = (p: OracleProblem, metres: number): number => ((metres / 1000) * (p.consumption / 100) * 100) / p.battery;

/** The least total cost of a plan reaching the destination, Infinity when none. */
export function oracleBestCost(p: OracleProblem): number {
  let best = Infinity;
  const levels: number[] = [];
  for (let q = 0; q * p.step <= p.maxSoc + TOL; q++) levels.push(q * p.step);
  /** At station index `pos` (the car is on the route at `at` with `soc`, cost so far). */
  const walk = (next: number, at: number, back: number, soc: number, cost: number): void => {
    // Drive to the destination from here.
    const home = soc - percentFor(p, p.length - at + back);
    if (home >= p.minSoc - TOL) best = Math.min(best, cost);
    for (let m = next; m < p.along.length; m++) {
      const arrival = soc - percentFor(p, p.along[m] - at + back + p.off[m]);
      if (arrival < p.minSoc - TOL) continue;
      const floor = Math.floor(arrival / p.step + TOL) * p.step;
      for (const to of levels) {
        if (!(to > floor + TOL)) continue;
        const c = p.stopCost(m, floor, to);
        if (c === Infinity) continue;
        walk(m + 1, p.along[m], p.off[m], to, cost + c + p.detourCost[m]);
      }
    }
  };
  walk(0, 0, 0, p.startSoc, 0);
  return best;
}
