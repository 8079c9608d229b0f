/**
 * The compiled evaluator (D68–D73, D80–D89). Two steps per tariff and station:
 *
 * 1. `planTariff` picks the components that can apply at the station and gives each its level
 *    (0 = evse, 1 = cpo, 2 = country), checking the station-wide restriction criteria (country,
 *    CPO) once. It also resolves the no-price policy and reason (D69).
 * 2. `evaluateInto` prices one charge point session against the plan and writes the price, the
 *    distribution, the blocking fee start, the average flag and the reason into caller-owned
 *    typed arrays. No allocation happens here.
 */
import {
  DIM_KWH,
  DIM_MINUTE,
  DIM_PARKING,
  DIM_SESSION,
  ENERGY_AC,
  ENERGY_ANY,
  ENERGY_DC,
  SEG_AVERAGE,
  SEG_OCCUPANCY,
  SEG_STARTS_AT_ZERO,
  type CompiledTariff,
  type PricingCatalog,
} from './catalog.js';
import { energyAt, type ChargeSession } from './charging.js';
import type { Conversion } from './currency.js';
import type { EnergyType } from './model.js';

export const LEVEL_EVSE = 0;
export const LEVEL_CPO = 1;
export const LEVEL_COUNTRY = 2;
const NO_LEVEL = 3;

/** Reason codes written by `evaluateInto`; indices into REASONS of the catalog (0 = priced). */
export const REASON_NONE = 0;

/** The station a plan is made for, with its IDs resolved to catalog indices. */
export interface ResolvedStation {
  cpoId: string;
  cpoIndex: number;
  groupIndex: number;
  countryIndex: number;
  stationId: string | null;
  /** D73: average segments usable (network-wide request with `average_prices`). */
  averagePrices: boolean;
}

export function resolveStation(
  catalog: PricingCatalog,
  cpoId: string,
  country: string,
  stationId: string | null,
  averagePrices: boolean,
): ResolvedStation {
  const group = catalog.companies.get(cpoId)?.cpo_group_id ?? null;
  return {
    cpoId,
    cpoIndex: catalog.companyIndex(cpoId),
    groupIndex: group ? catalog.companyIndex(group) : -1,
    countryIndex: catalog.countryIndex(country),
    stationId,
    averagePrices,
  };
}

/** Reusable per-thread working memory of the evaluator. */
export class PlanScratch {
  comp = new Int32Array(64);
  level = new Int8Array(64);
  matched = new Uint8Array(64);
  count = 0;
  averagePrices = false;
  /** D71 exception: the sub tariff for the CPO is empty, so the country level is not used. */
  noPriceAtCpo = false;
  /** Index of the sub tariff for the CPO, or −1. */
  subIndex = -1;
  /** Resolved D69 policy (1 hide, 2 show_reason) and reason code (1..4). */
  policy = 1;
  reason = 1;
  readonly dimCost = new Float64Array(3);
  readonly best = new Int8Array(3);

  ensure(n: number): void {
    if (n <= this.comp.length) return;
    const cap = Math.max(n, this.comp.length * 2);
    this.comp = new Int32Array(cap);
    this.level = new Int8Array(cap);
    this.matched = new Uint8Array(cap);
  }
}

/** Caller-owned result arrays; entry i = one (tariff, charge point) pair. */
export class PriceResults {
  /** NaN = no price. */
  price: Float64Array;
  /** Three fractions per entry: session, kwh, minute; NaN = key absent. */
  distribution: Float64Array;
  /** NaN = null. */
  blockingFeeStart: Float64Array;
  isAverage: Uint8Array;
  /** 0 when priced, else the resolved reason code (REASONS index). */
  reason: Uint8Array;

  constructor(capacity = 64) {
    this.price = new Float64Array(capacity);
    this.distribution = new Float64Array(capacity * 3);
    this.blockingFeeStart = new Float64Array(capacity);
    this.isAverage = new Uint8Array(capacity);
    this.reason = new Uint8Array(capacity);
  }

  ensure(n: number): void {
    if (n <= this.price.length) return;
    const cap = Math.max(n, this.price.length * 2);
    this.price = new Float64Array(cap);
    this.distribution = new Float64Array(cap * 3);
    this.blockingFeeStart = new Float64Array(cap);
    this.isAverage = new Uint8Array(cap);
    this.reason = new Uint8Array(cap);
  }

  /** The `price_distribution` object of entry i (D87), built outside the hot loop. */
  distributionOf(i: number): Record<string, number> {
    const out: Record<string, number> = {};
    const d = this.distribution;
    if (!Number.isNaN(d[3 * i])) out.session = d[3 * i];
    if (!Number.isNaN(d[3 * i + 1])) out.kwh = d[3 * i + 1];
    if (!Number.isNaN(d[3 * i + 2])) out.minute = d[3 * i + 2];
    return out;
  }
}

function inSet(pool: Int32Array, start: number, count: number, a: number, b: number): boolean {
  for (let i = start; i < start + count; i++) if (pool[i] === a || (b >= 0 && pool[i] === b)) return true;
  return false;
}

/** Station-wide criteria (countries, CPOs) of a restriction: false when they already fail it. */
function stationCriteriaPass(b: CompiledTariff, r: number, st: ResolvedStation): boolean {
  const allow = b.rAllow[r] === 1;
  if (b.rCountryCount[r] > 0) {
    if (inSet(b.idPool, b.rCountryStart[r], b.rCountryCount[r], st.countryIndex, -1) !== allow) return false;
  }
  if (b.rCpoCount[r] > 0) {
    if (inSet(b.idPool, b.rCpoStart[r], b.rCpoCount[r], st.cpoIndex, st.groupIndex) !== allow) return false;
  }
  return true;
}

function componentPassesStation(b: CompiledTariff, c: number, st: ResolvedStation): boolean {
  for (let r = b.compRStart[c]; r < b.compREnd[c]; r++) if (!stationCriteriaPass(b, r, st)) return false;
  return true;
}

/** D65: an own component lists the CPO (or its group) in an `allow` restriction. */
function listsCpo(b: CompiledTariff, c: number, st: ResolvedStation): boolean {
  if (b.compListsCpo[c] === 0) return false;
  for (let r = b.compRStart[c]; r < b.compREnd[c]; r++) {
    if (b.rAllow[r] === 1 && b.rCpoCount[r] > 0 && inSet(b.idPool, b.rCpoStart[r], b.rCpoCount[r], st.cpoIndex, st.groupIndex)) return true;
  }
  return false;
}

function push(s: PlanScratch, c: number, level: number): void {
  s.comp[s.count] = c;
  s.level[s.count] = level;
  s.count++;
}

/**
 * Step 1: the components of `b` that can apply at the station, with their levels (D65, D70, D71),
 * and the resolved no-price policy and reason (D69). Returns the number of planned components.
 */
export function planTariff(catalog: PricingCatalog, b: CompiledTariff, st: ResolvedStation, s: PlanScratch): number {
  s.ensure(b.compRStart.length);
  s.count = 0;
  s.averagePrices = st.averagePrices;
  const sub = b.subByCpo.size === 0 ? -1 : catalog.subFor(b, st.cpoIndex, st.groupIndex);
  s.subIndex = sub;
  const subEmpty = sub >= 0 && b.subEmpty[sub] === 1;
  const copyToSub = subEmpty && b.applyPricesToSubTariff;
  s.noPriceAtCpo = subEmpty && !copyToSub;

  if (st.stationId !== null) {
    const range = b.evseRange.get(st.stationId);
    if (range) {
      for (let c = range[0]; c < range[1]; c++) if (componentPassesStation(b, c, st)) push(s, c, LEVEL_EVSE);
    }
  }
  if (sub >= 0) {
    for (let c = b.subStart[sub]; c < b.subEnd[sub]; c++) if (componentPassesStation(b, c, st)) push(s, c, LEVEL_CPO);
  }
  for (let c = 0; c < b.ownEnd; c++) {
    if (!componentPassesStation(b, c, st)) continue;
    push(s, c, copyToSub || listsCpo(b, c, st) ? LEVEL_CPO : LEVEL_COUNTRY);
  }
  for (let k = 0; k < b.subIds.length; k++) {
    if (b.subCpo[k] >= 0) continue;
    for (let c = b.subStart[k]; c < b.subEnd[k]; c++) if (componentPassesStation(b, c, st)) push(s, c, LEVEL_COUNTRY);
  }

  let policy = sub >= 0 ? b.subPolicy[sub] : 0;
  if (policy === 0) policy = b.policy;
  s.policy = policy === 0 ? 1 : policy;
  let reason = sub >= 0 ? b.subReason[sub] : 0;
  if (reason === 0) reason = b.reason;
  s.reason = reason === 0 ? 1 : reason;
  return s.count;
}

/** Charge-point criteria (energy type, power) of a restriction, D68. */
function chargePointCriteriaPass(b: CompiledTariff, r: number, energy: number, power: number, consumed: number): boolean {
  const allow = b.rAllow[r] === 1;
  if (b.rEnergy[r] !== ENERGY_ANY && (b.rEnergy[r] === energy) !== allow) return false;
  const n = b.rPowCount[r];
  if (n > 0) {
    const p = b.rConsumed[r] === 1 ? consumed : power;
    const start = b.rPowStart[r];
    let hit = false;
    if (b.rPowRange[r] === 1) {
      hit = p >= b.powPool[start] - 1e-6 && p <= b.powPool[start + n - 1] + 1e-6;
    } else {
      for (let i = start; i < start + n; i++) {
        if (Math.abs(p - b.powPool[i]) <= 1e-6) {
          hit = true;
          break;
        }
      }
    }
    if (hit !== allow) return false;
  }
  return true;
}

/** Length of [lo, hi) covered by the window's occurrences on the unrolled line (D80). */
function minutesInWindow(ws: number, we: number, t0: number, lo: number, hi: number): number {
  if (hi <= lo) return 0;
  if (ws < 0) return hi - lo;
  let total = 0;
  for (let k = Math.floor((lo + t0 - we) / 1440) + 1; ; k++) {
    const a = ws + 1440 * k - t0;
    if (a >= hi) break;
    const b = we + 1440 * k - t0;
    const x = a > lo ? a : lo;
    const y = b < hi ? b : hi;
    if (y > x) total += y - x;
  }
  return total;
}

/** Energy delivered inside the window's occurrences while Ecum is within [gte, lt) (D82). */
function energyInWindow(session: ChargeSession, ws: number, we: number, t0: number, gte: number, lt: number): number {
  if (ws < 0) {
    const hiE = session.energy < lt ? session.energy : lt;
    const loE = gte > 0 ? gte : 0;
    return hiE > loE ? hiE - loE : 0;
  }
  const d = session.duration;
  let total = 0;
  for (let k = Math.floor((t0 - we) / 1440) + 1; ; k++) {
    const a = ws + 1440 * k - t0;
    if (a >= d) break;
    const b = we + 1440 * k - t0;
    const ea = energyAt(session, a);
    const eb = energyAt(session, b);
    const x = ea > gte ? ea : gte;
    const y = eb < lt ? eb : lt;
    if (y > x) total += y - x;
  }
  return total;
}

/** D80 for session fees: is the start minute inside the window? */
function startInWindow(ws: number, we: number, t0: number): boolean {
  if (ws < 0) return true;
  return (t0 >= ws && t0 < we) || (t0 + 1440 >= ws && t0 + 1440 < we);
}

/** D83: every started block billed in full. */
function billed(q: number, inc: number): number {
  if (q <= 0) return 0;
  if (inc <= 0) return q;
  return Math.ceil(q / inc - 1e-9) * inc;
}

/**
 * Step 2: prices one charge point against a plan made by `planTariff` and writes entry `i` of
 * `out`. `energyType`/`power` describe the charge point (power = station maximum), `t0` is the
 * start minute of day. Returns true when a price was found.
 */
export function evaluateInto(
  b: CompiledTariff,
  s: PlanScratch,
  session: ChargeSession,
  energyType: EnergyType,
  power: number,
  t0: number,
  conv: Conversion,
  out: PriceResults,
  i: number,
): boolean {
  const d3 = 3 * i;
  out.blockingFeeStart[i] = NaN;
  out.isAverage[i] = 0;
  out.distribution[d3] = NaN;
  out.distribution[d3 + 1] = NaN;
  out.distribution[d3 + 2] = NaN;
  if (b.isFlatRate) {
    out.price[i] = 0;
    out.reason[i] = REASON_NONE;
    return true;
  }
  const energy = energyType === 'dc' ? ENERGY_DC : ENERGY_AC;
  const consumed = session.consumedPower;
  const avgOk = s.averagePrices;
  const best = s.best;
  best[0] = NO_LEVEL;
  best[1] = NO_LEVEL;
  best[2] = NO_LEVEL;

  // Pass 1: which components match this charge point, and the most specific level per dimension.
  for (let j = 0; j < s.count; j++) {
    const c = s.comp[j];
    let ok = 1;
    for (let r = b.compRStart[c]; r < b.compREnd[c]; r++) {
      if (!chargePointCriteriaPass(b, r, energy, power, consumed)) {
        ok = 0;
        break;
      }
    }
    s.matched[j] = ok;
    if (ok === 0) continue;
    const compLevel = s.level[j];
    for (let g = b.compSStart[c]; g < b.compSEnd[c]; g++) {
      const dim = b.sDim[g];
      const flags = b.sFlags[g];
      if (dim === DIM_PARKING || (flags & SEG_OCCUPANCY) !== 0) continue;
      let level = compLevel;
      if ((flags & SEG_AVERAGE) !== 0) {
        if (!avgOk) continue;
        level = LEVEL_CPO;
      }
      if (level === LEVEL_COUNTRY && s.noPriceAtCpo) continue;
      if (level < best[dim]) best[dim] = level;
    }
  }
  if (best[0] === NO_LEVEL && best[1] === NO_LEVEL && best[2] === NO_LEVEL) {
    out.price[i] = NaN;
    out.reason[i] = s.reason;
    return false;
  }

  // Pass 2: cost of the segments at the chosen level of each dimension.
  const dimCost = s.dimCost;
  dimCost[0] = 0;
  dimCost[1] = 0;
  dimCost[2] = 0;
  const duration = session.duration;
  let minuteSegments = 0;
  let zeroStart = false;
  let smallestStart = Infinity;
  let average = 0;
  const targetIndex = conv.targetIndex;
  for (let j = 0; j < s.count; j++) {
    if (s.matched[j] === 0) continue;
    const c = s.comp[j];
    const compLevel = s.level[j];
    for (let g = b.compSStart[c]; g < b.compSEnd[c]; g++) {
      const dim = b.sDim[g];
      const flags = b.sFlags[g];
      if (dim === DIM_PARKING || (flags & SEG_OCCUPANCY) !== 0) continue;
      let level = compLevel;
      if ((flags & SEG_AVERAGE) !== 0) {
        if (!avgOk) continue;
        level = LEVEL_CPO;
      }
      if (level !== best[dim]) continue;
      if ((flags & SEG_AVERAGE) !== 0) average = 1;
      let cost: number;
      if (dim === DIM_SESSION) {
        cost = startInWindow(b.sWinStart[g], b.sWinEnd[g], t0) ? b.sPrice[g] : 0;
      } else if (dim === DIM_MINUTE) {
        const lo = b.sGte[g] > 0 ? b.sGte[g] : 0;
        const hi = b.sLt[g] < duration ? b.sLt[g] : duration;
        cost = b.sPrice[g] * billed(minutesInWindow(b.sWinStart[g], b.sWinEnd[g], t0, lo, hi), b.sInc[g]);
        minuteSegments++;
        if ((flags & SEG_STARTS_AT_ZERO) !== 0) zeroStart = true;
        else if (b.sGte[g] < smallestStart) smallestStart = b.sGte[g];
      } else {
        const q = energyInWindow(session, b.sWinStart[g], b.sWinEnd[g], t0, b.sGte[g], b.sLt[g]);
        cost = b.sPrice[g] * billed(q, b.sInc[g]);
      }
      const cur = b.sCur[g];
      if (cur !== targetIndex && cost !== 0) cost = (cost / conv.srcRate[cur]) * conv.targetRate;
      dimCost[dim] += cost;
    }
  }
  const price = dimCost[DIM_SESSION] + dimCost[DIM_KWH] + dimCost[DIM_MINUTE];
  out.price[i] = price;
  out.reason[i] = REASON_NONE;
  out.isAverage[i] = average;
  if (minuteSegments > 0 && !zeroStart) out.blockingFeeStart[i] = smallestStart;
  if (price !== 0) {
    for (let dim = 0; dim < 3; dim++) if (best[dim] !== NO_LEVEL) out.distribution[d3 + dim] = dimCost[dim] / price;
  }
  return true;
}
