/**
 * The evaluator of `first_match` tariffs (D147–D149), the OCPI reading of the segment model:
 *
 * - per dimension, the most specific level with segments takes part (D70, as for other tariffs);
 *   among its segments, in plan order, the FIRST one whose time window, days of the week and
 *   range hold prices each moment of the session (for energy: each kWh) — OCPI's first matching
 *   tariff element per dimension;
 * - a session fee: the first session segment whose window and days hold at the start;
 * - billing increments once per dimension, on its total, with the increment and price of the
 *   segment that billed it last (OCPI step_size);
 * - `min_price`/`max_price` bound the session's price; the dimensions are scaled alike, so the
 *   distribution keeps its shares (a lifted price of 0 goes to the session fee).
 *
 * The session is swept from boundary to boundary (window edges, midnights of day-restricted
 * segments, range edges: minutes directly, kWh where the cumulative energy reaches them); between
 * two boundaries the first match cannot change. Only the segments up to the current match can
 * move the next boundary. Nothing is allocated: the segments taking part are listed in a module
 * scratch array that grows on demand. Other tariffs never come here (one flag test in
 * `evaluateAt`), so their evaluation keeps its speed.
 */
import type * as Catalog from './catalog.js';
import type { CompiledTariff } from './catalog.js';
import { energyAt, type ChargeSession } from './charging.js';
import type { Conversion } from './currency.js';
import type { PlanScratch, PriceResults } from './scratch.js';

/** OCPI step_size forgiveness in charge prices' units, as cdr_cost's (half of 0.0001 kWh, of 0.0001 h in minutes; D143). */
export const STEP_FORGIVEN_KWH = 0.5e-4;
export const STEP_FORGIVEN_MINUTES = 0.5e-4 * 60;

const DIM_SESSION: typeof Catalog.DIM_SESSION = 0;
const DIM_KWH: typeof Catalog.DIM_KWH = 1;
const DIM_MINUTE: typeof Catalog.DIM_MINUTE = 2;
const ENERGY_ANY: typeof Catalog.ENERGY_ANY = 0;
const SEG_STRIDE: typeof Catalog.SEG_STRIDE = 8;
const SEG_PRICE: typeof Catalog.SEG_PRICE = 0;
const SEG_GTE: typeof Catalog.SEG_GTE = 1;
const SEG_LT: typeof Catalog.SEG_LT = 2;
const SEG_INC: typeof Catalog.SEG_INC = 3;
const SEG_WIN_START: typeof Catalog.SEG_WIN_START = 4;
const SEG_WIN_END: typeof Catalog.SEG_WIN_END = 5;
const SEG_CUR: typeof Catalog.SEG_CUR = 6;
const SEG_DIM: typeof Catalog.SEG_DIM = 7;
const R_STRIDE: typeof Catalog.R_STRIDE = 6;
const R_ALLOW: typeof Catalog.R_ALLOW = 0;
const R_ENERGY: typeof Catalog.R_ENERGY = 1;
const R_POW_COUNT: typeof Catalog.R_POW_COUNT = 2;
const R_POW_START: typeof Catalog.R_POW_START = 3;
const R_POW_RANGE: typeof Catalog.R_POW_RANGE = 4;
const R_CONSUMED: typeof Catalog.R_CONSUMED = 5;
const NO_LEVEL = 3;
const EPS = 1e-9;
/**
 * Most segment checks one sweep may make (about 5 ms). Real tariffs need a few per piece and a
 * few pieces per hour; only a tariff with hundreds of windowed segments over a session of weeks
 * comes near. Beyond it the tariff has no price for that charge point (D147).
 */
export const MAX_SWEEP_CHECKS = 1_000_000;

/** D148: ISO weekday (1 = Monday … 7 = Sunday) of a calendar date YYYY-MM-DD, or null when no such date. */
export function isoWeekdayOf(date: string): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  if (m === null) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const t = new Date(Date.UTC(y, mo - 1, d));
  if (t.getUTCFullYear() !== y || t.getUTCMonth() !== mo - 1 || t.getUTCDate() !== d) return null;
  return ((t.getUTCDay() + 6) % 7) + 1;
}

/** Segments taking part: per dimension, offsets (in `evalData`) and tags, in plan order. */
let listO = new Int32Array(256);
let listTag = new Int32Array(256);
let listDim = new Uint8Array(256);
/** Sweep results: quantity, cost, index of the last billing segment, average flag. */
const swept = new Float64Array(4);

/** D68 charge point criteria of a planned component (the regular evaluator has its own inline copy). */
function chargePointOk(data: Float64Array, rStart: number, rEnd: number, energy: number, power: number, consumed: number): boolean {
  for (let r = rStart; r < rEnd; r += R_STRIDE) {
    const allow = data[r + R_ALLOW] === 1;
    const re = data[r + R_ENERGY];
    if (re !== ENERGY_ANY && (re === energy) !== allow) return false;
    const count = data[r + R_POW_COUNT];
    if (count > 0) {
      const cpPower = data[r + R_CONSUMED] === 1 ? consumed : power;
      const start = data[r + R_POW_START];
      let hit = false;
      if (data[r + R_POW_RANGE] === 1) hit = cpPower >= data[start] - 1e-6 && cpPower <= data[start + count - 1] + 1e-6;
      else {
        for (let k = start; k < start + count; k++) {
          if (Math.abs(cpPower - data[k]) <= 1e-6) {
            hit = true;
            break;
          }
        }
      }
      if (hit !== allow) return false;
    }
  }
  return true;
}

/** Minutes from session start at which the cumulative energy reaches q (q inside (0, energy)). */
function timeAt(s: ChargeSession, q: number): number {
  if (s.steps === 1) return (q * s.duration) / s.energy;
  const eEnd = s.eEnd;
  let lo = 0;
  let hi = s.steps - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (eEnd[mid] >= q) hi = mid;
    else lo = mid + 1;
  }
  const t0 = lo === 0 ? 0 : s.tEnd[lo - 1];
  const e0 = lo === 0 ? 0 : eEnd[lo - 1];
  return t0 + ((q - e0) * 60) / s.power[lo];
}

/** The first instant after `a` (elapsed minutes) where local clock minute `edge` comes round. */
function nextEdge(edge: number, a: number, t0: number): number {
  let v = edge + 1440 * (Math.floor((a + t0 - edge) / 1440) + 1) - t0;
  if (v <= a) v += 1440;
  return v;
}

/**
 * Sweeps the listed segments [lo, hi) of one dimension over the session; writes quantity (minutes
 * or kWh, before the increment), cost (in the target currency) and the last billing list index.
 */
function sweep(
  b: CompiledTariff,
  lo: number,
  hi: number,
  energyMode: boolean,
  session: ChargeSession,
  t0: number,
  day0: number,
  conv: Conversion,
): void {
  const data = b.evalData;
  const days = b.sDays;
  const duration = session.duration;
  const total = session.energy;
  let a = 0;
  let qty = 0;
  let cost = 0;
  let last = -1;
  let average = 0;
  let checks = 0;
  while (a < duration) {
    if (checks > MAX_SWEEP_CHECKS) {
      swept[0] = NaN;
      swept[1] = NaN;
      return;
    }
    const ea = energyMode ? energyAt(session, a) : a;
    const clock = (((t0 + a) % 1440) + 1440) % 1440;
    const day = Math.floor((t0 + a) / 1440);
    let next = duration;
    let match = -1;
    for (let k = lo; k < hi; k++) {
      checks++;
      const o = listO[k];
      const gte = data[o + SEG_GTE];
      const lt = data[o + SEG_LT];
      const ws = data[o + SEG_WIN_START];
      const we = data[o + SEG_WIN_END];
      const mask = days[o / SEG_STRIDE];
      let holds = ea >= gte - EPS && ea < lt - EPS;
      if (ws >= 0) {
        if (holds) holds = (clock >= ws && clock < we) || (clock + 1440 >= ws && clock + 1440 < we);
        const s = nextEdge(ws, a, t0);
        if (s < next) next = s;
        const e = nextEdge(we, a, t0);
        if (e < next) next = e;
      }
      if (mask !== 0) {
        if (holds) {
          const iso = ((((day0 - 1 + day) % 7) + 7) % 7) + 1;
          holds = day0 > 0 && ((mask >> iso) & 1) === 1;
        }
        const m = 1440 * (day + 1) - t0;
        if (m < next) next = m;
      }
      if (energyMode) {
        if (gte > ea + EPS && gte < total) {
          const t = timeAt(session, gte);
          if (t > a && t < next) next = t;
        }
        if (lt > ea + EPS && lt < total) {
          const t = timeAt(session, lt);
          if (t > a && t < next) next = t;
        }
      } else {
        if (gte > a + EPS && gte < next) next = gte;
        if (lt > a + EPS && lt < next) next = lt;
      }
      if (holds) {
        match = k;
        break;
      }
    }
    if (match >= 0) {
      const q = energyMode ? energyAt(session, next) - ea : next - a;
      const o = listO[match];
      let c = data[o + SEG_PRICE] * q;
      const cur = data[o + SEG_CUR];
      if (cur !== conv.targetIndex && c !== 0) c = (c / conv.srcRate[cur]) * conv.targetRate;
      qty += q;
      cost += c;
      last = match;
      average |= listTag[match] >> 3;
    }
    a = next;
  }
  if (last >= 0) {
    // The increment once, on the total, at the segment that billed last (OCPI step_size).
    const o = listO[last];
    const inc = data[o + SEG_INC];
    if (inc > 0 && qty > 0) {
      // Forgiven below the increment: what a CDR's 4 decimals cannot tell (0.05 Wh, 0.18 s; D143).
      const extra = Math.ceil((qty - (energyMode ? STEP_FORGIVEN_KWH : STEP_FORGIVEN_MINUTES)) / inc - 1e-9) * inc - qty;
      if (extra > 0) {
        let c = data[o + SEG_PRICE] * extra;
        const cur = data[o + SEG_CUR];
        if (cur !== conv.targetIndex && c !== 0) c = (c / conv.srcRate[cur]) * conv.targetRate;
        qty += extra;
        cost += c;
      }
    }
  }
  swept[0] = qty;
  swept[1] = cost;
  swept[2] = last;
  swept[3] = average;
}

/** `evaluateAt` for a `first_match` tariff (same arguments and results). */
export function evaluateFirstMatch(
  b: CompiledTariff,
  s: PlanScratch,
  session: ChargeSession,
  energy: number,
  power: number,
  t0: number,
  day0: number,
  conv: Conversion,
  out: PriceResults,
  i: number,
): boolean {
  const d3 = 3 * i;
  const dist = out.distribution;
  const plan = s.data;
  const planLength = s.length;
  const data = b.evalData;
  // Room for every segment of the block twice: grouping by dimension copies the list once.
  if (listO.length < 2 * b.sDim.length) {
    listO = new Int32Array(b.sDim.length * 2);
    listTag = new Int32Array(b.sDim.length * 2);
    listDim = new Uint8Array(b.sDim.length * 2);
  }
  // The segments of the components that apply at this charge point, and each dimension's level.
  let n = 0;
  let best0 = NO_LEVEL;
  let best1 = NO_LEVEL;
  let best2 = NO_LEVEL;
  let x = 0;
  while (x < planLength) {
    const count = plan[x];
    const rStart = plan[x + 1];
    const rEnd = plan[x + 2];
    x += 3;
    const qEnd = x + 2 * count;
    if (rStart !== rEnd && !chargePointOk(data, rStart, rEnd, energy, power, session.consumedPower)) {
      x = qEnd;
      continue;
    }
    for (; x < qEnd; x += 2) {
      const o = plan[x];
      const tag = plan[x + 1];
      const level = tag & 7;
      const dim = data[o + SEG_DIM];
      listO[n] = o;
      listTag[n] = tag;
      listDim[n] = dim;
      n++;
      if (dim === DIM_SESSION) {
        if (level < best0) best0 = level;
      } else if (dim === DIM_MINUTE) {
        if (level < best2) best2 = level;
      } else if (level < best1) best1 = level;
    }
  }
  if (best0 === NO_LEVEL && best1 === NO_LEVEL && best2 === NO_LEVEL) {
    out.price[i] = NaN;
    out.reason[i] = s.reason;
    return false;
  }
  // Keep, per dimension, the segments at its level, grouped by dimension in plan order.
  let m = 0;
  for (let dim = 0; dim < 3; dim++) {
    const bestLevel = dim === DIM_SESSION ? best0 : dim === DIM_MINUTE ? best2 : best1;
    for (let k = 0; k < n; k++) {
      if (listDim[k] !== dim || (listTag[k] & 7) !== bestLevel) continue;
      // Into a second region [n, n + m) first (m <= n, and the scratch holds twice the block's
      // segments), then copied back.
      listO[n + m] = listO[k];
      listTag[n + m] = listTag[k];
      listDim[n + m] = dim;
      m++;
    }
  }
  for (let k = 0; k < m; k++) {
    listO[k] = listO[n + k];
    listTag[k] = listTag[n + k];
    listDim[k] = listDim[n + k];
  }
  let s0 = 0;
  while (s0 < m && listDim[s0] === DIM_SESSION) s0++;
  let s1 = s0;
  while (s1 < m && listDim[s1] === DIM_KWH) s1++;

  let avg = 0;
  // Session fee: the first session segment whose window and day hold at the start.
  let cost0 = 0;
  let tooLong = false;
  for (let k = 0; k < s0; k++) {
    const o = listO[k];
    const ws = data[o + SEG_WIN_START];
    const we = data[o + SEG_WIN_END];
    if (ws >= 0 && !((t0 >= ws && t0 < we) || (t0 + 1440 >= ws && t0 + 1440 < we))) continue;
    const mask = b.sDays[o / SEG_STRIDE];
    if (mask !== 0 && !(day0 > 0 && ((mask >> day0) & 1) === 1)) continue;
    cost0 = data[o + SEG_PRICE];
    const cur = data[o + SEG_CUR];
    if (cur !== conv.targetIndex && cost0 !== 0) cost0 = (cost0 / conv.srcRate[cur]) * conv.targetRate;
    avg |= listTag[k] >> 3;
    break;
  }
  let cost1 = 0;
  if (s1 > s0) {
    sweep(b, s0, s1, true, session, t0, day0, conv);
    cost1 = swept[1];
    if (Number.isNaN(cost1)) tooLong = true;
    avg |= swept[3];
  }
  let cost2 = 0;
  let zeroStart = false;
  let smallestStart = Infinity;
  if (m > s1) {
    sweep(b, s1, m, false, session, t0, day0, conv);
    cost2 = swept[1];
    if (Number.isNaN(cost2)) tooLong = true;
    avg |= swept[3];
    for (let k = s1; k < m; k++) {
      const gte = data[listO[k] + SEG_GTE];
      if (gte === -Infinity || gte === 0) zeroStart = true;
      else if (gte < smallestStart) smallestStart = gte;
    }
  }

  if (tooLong) {
    out.price[i] = NaN;
    out.reason[i] = s.reason;
    return false;
  }
  // D149: the session's price bounds, in the tariff's currency.
  let price = cost0 + cost1 + cost2;
  let minT = b.minPrice;
  let maxT = b.maxPrice;
  if (b.currencyIndex !== conv.targetIndex) {
    minT = (minT / conv.srcRate[b.currencyIndex]) * conv.targetRate;
    maxT = (maxT / conv.srcRate[b.currencyIndex]) * conv.targetRate;
  }
  // The minimum first, then the maximum (which wins when a tariff's bounds cross, as in D145).
  let target = price;
  if (target < minT) target = minT;
  if (target > maxT) target = maxT;
  if (target !== price) {
    if (price > 0) {
      const f = target / price;
      cost0 *= f;
      cost1 *= f;
      cost2 *= f;
    } else {
      cost0 = target;
      if (best0 === NO_LEVEL) best0 = best1 !== NO_LEVEL ? best1 : best2;
    }
    price = cost0 + cost1 + cost2;
  }

  out.price[i] = price;
  out.reason[i] = 0;
  out.isAverage[i] = avg;
  out.blockingFeeStart[i] = m > s1 && !zeroStart ? smallestStart : NaN;
  dist[d3] = NaN;
  dist[d3 + 1] = NaN;
  dist[d3 + 2] = NaN;
  if (price !== 0) {
    if (best0 !== NO_LEVEL) dist[d3] = cost0 / price;
    if (best1 !== NO_LEVEL) dist[d3 + 1] = cost1 / price;
    if (best2 !== NO_LEVEL) dist[d3 + 2] = cost2 / price;
  }
  return true;
}
