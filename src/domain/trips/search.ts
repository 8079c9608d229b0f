/**
 * The trip plan search (D269): a shortest path over (candidate station, state-of-charge level)
 * in route order. Pure: takes the corridor's distances, the vehicle's energy model and a table of
 * stop costs per (station, arrival level, departure level); returns the cheapest plan or, when
 * none reaches the destination, where the car runs out.
 *
 * Levels are multiples of `step` percent from `lo` = ⌊min/step⌋ to `hi` = ⌊max/step⌋; a stop
 * charges from the grid level below its real arrival to a higher level ≤ hi.
 */

export interface TripProblem {
  /** Candidate stations in route order: metres along the route and from it (one way). */
  along: Float64Array;
  off: Float64Array;
  /** Route length, metres. */
  length: number;
  /** Usable battery, kWh. */
  battery: number;
  /** kWh per 100 km. */
  consumption: number;
  startSoc: number;
  minSoc: number;
  maxSoc: number;
  step: number;
  /** Cost of a stop's detour (time_value × detour hours), per station. */
  detourCost: Float64Array;
  /** Stop cost table, `pairIndex` order per station; Infinity = no price there. */
  cost: Float64Array;
}

export interface PlannedStop {
  station: number;
  /** Real state of charge on arrival, percent. */
  arrival: number;
  /** Grid levels (percent) charged from and to. */
  from: number;
  to: number;
}

export type TripResult =
  | { ok: true; cost: number; stops: PlannedStop[]; arrival: number }
  | { ok: false; runsOut: number };

/** Comparisons of state of charge forgive rounding of the last bits (1e-9 percent). */
const EPS = 1e-9;

export interface Grid {
  lo: number;
  hi: number;
  /** Levels lo..hi. */
  levels: number;
  /** Pairs (a < e) of levels. */
  pairs: number;
}

export function gridOf(minSoc: number, maxSoc: number, step: number): Grid {
  const lo = Math.floor(minSoc / step + EPS);
  const hi = Math.floor(maxSoc / step + EPS);
  const levels = hi - lo + 1;
  return { lo, hi, levels, pairs: (levels * (levels - 1)) / 2 };
}

/** Index of the pair (a, e) of level offsets 0 ≤ a < e < levels, row by row of a. */
export function pairIndex(a: number, e: number, levels: number): number {
  return (a * (2 * levels - a - 1)) / 2 + (e - a - 1);
}

/** State of charge (percent) used to drive `metres`. */
export function socUsed(p: Pick<TripProblem, 'battery' | 'consumption'>, metres: number): number {
  return (((metres / 100_000) * p.consumption) / p.battery) * 100;
}

/** The level offset (from lo) below a real state of charge. */
function levelBelow(soc: number, step: number, lo: number): number {
  return Math.floor(soc / step + EPS) - lo;
}

/** The cheapest plan on the grid (D269), or where the car runs out. */
export function searchTrip(p: TripProblem): TripResult {
  const n = p.along.length;
  const { lo, hi, levels, pairs } = gridOf(p.minSoc, p.maxSoc, p.step);
  const L = levels;
  const arrBest = new Float64Array(n * L).fill(Infinity);
  const arrReal = new Float64Array(n * L);
  const arrFrom = new Int32Array(n * L).fill(-1);
  const depBest = new Float64Array(n * L).fill(Infinity);
  const depFrom = new Int32Array(n * L);
  let bestCost = Infinity;
  let bestFrom = -2;
  let bestArrival = 0;
  let runsOut = 0;
  /** Relaxes the arrivals reachable from a departure with `soc` at station `k` (−1: the start). */
  const push = (k: number, soc: number, cost: number, node: number): void => {
    const at = k < 0 ? 0 : p.along[k];
    const back = k < 0 ? 0 : p.off[k];
    const spare = soc - p.minSoc;
    runsOut = Math.max(runsOut, at - back + (spare / socUsed(p, 100_000)) * 100_000);
    const home = soc - socUsed(p, p.length - at + back);
    if (home >= p.minSoc - EPS && cost < bestCost) {
      bestCost = cost;
      bestFrom = node;
      bestArrival = home;
    }
    for (let m = k + 1; m < n; m++) {
      const road = p.along[m] - at + back;
      if (socUsed(p, road) > spare + EPS) break;
      const real = soc - socUsed(p, road + p.off[m]);
      if (real < p.minSoc - EPS) continue;
      const a = levelBelow(real, p.step, lo);
      if (a + lo >= hi) continue;
      const x = m * L + a;
      if (cost < arrBest[x]) {
        arrBest[x] = cost;
        arrReal[x] = real;
        arrFrom[x] = node;
      }
    }
  };
  push(-1, p.startSoc, 0, -1);
  for (let k = 0; k < n; k++) {
    const row = k * pairs;
    for (let a = 0; a < L; a++) {
      const c0 = arrBest[k * L + a];
      if (c0 === Infinity) continue;
      for (let e = a + 1; e < L; e++) {
        const c = c0 + p.cost[row + pairIndex(a, e, L)] + p.detourCost[k];
        if (c < depBest[k * L + e]) {
          depBest[k * L + e] = c;
          depFrom[k * L + e] = a;
        }
      }
    }
    for (let e = 0; e < L; e++) {
      const c = depBest[k * L + e];
      if (c !== Infinity) push(k, (e + lo) * p.step, c, k * L + e);
    }
  }
  if (bestFrom === -2) return { ok: false, runsOut: Math.min(runsOut, p.length) };
  const stops: PlannedStop[] = [];
  for (let node = bestFrom; node >= 0; ) {
    const k = Math.floor(node / L);
    const e = node - k * L;
    const a = depFrom[node];
    stops.push({ station: k, arrival: arrReal[k * L + a], from: (a + lo) * p.step, to: (e + lo) * p.step });
    node = arrFrom[k * L + a];
  }
  stops.reverse();
  return { ok: true, cost: bestCost, stops, arrival: bestArrival };
}
