/**
 * The compiled evaluator (D68–D73, D80–D89). Two steps per tariff and station:
 *
 * 1. `planTariff` picks the components that can apply at the station and gives each its level
 *    (0 = evse, 1 = cpo, 2 = country), checking the station-wide restriction criteria (country,
 *    CPO) once, and lists the segments of those components that can take part (with their
 *    levels after D71/D73). It also resolves the no-price policy and reason (D69).
 * 2. `evaluateInto` (or `evaluateAt`) prices one charge point session against the plan in one
 *    pass and writes the price, the distribution, the blocking fee start, the average flag and
 *    the reason into caller-owned typed arrays. No allocation happens here.
 */
import type * as Catalog from './catalog.js';
import type { CompiledTariff, PricingCatalog } from './catalog.js';

// Local copies of the catalog's codes. The hot loops compare against them and index with them:
// as imports they are live bindings that V8 loads (with a TDZ check) on every use instead of
// folding them into the code (about 20 % slower in native ESM), and in a CommonJS transpilation
// (tsx from a CJS importer, vite-node) every use became a getter call (four to five times
// slower). The `typeof Catalog.X` annotations make the compiler reject a copy that differs from
// the original.
const DIM_SESSION: typeof Catalog.DIM_SESSION = 0;
const DIM_MINUTE: typeof Catalog.DIM_MINUTE = 2;
const DIM_PARKING: typeof Catalog.DIM_PARKING = 3;
const ENERGY_ANY: typeof Catalog.ENERGY_ANY = 0;
const ENERGY_AC: typeof Catalog.ENERGY_AC = 1;
const ENERGY_DC: typeof Catalog.ENERGY_DC = 2;
const SEG_AVERAGE: typeof Catalog.SEG_AVERAGE = 1;
const SEG_OCCUPANCY: typeof Catalog.SEG_OCCUPANCY = 2;
const SEG_STRIDE: typeof Catalog.SEG_STRIDE = 8;
const SEG_PRICE: typeof Catalog.SEG_PRICE = 0;
const SEG_GTE: typeof Catalog.SEG_GTE = 1;
const SEG_LT: typeof Catalog.SEG_LT = 2;
const SEG_INC: typeof Catalog.SEG_INC = 3;
const SEG_WIN_START: typeof Catalog.SEG_WIN_START = 4;
const SEG_WIN_END: typeof Catalog.SEG_WIN_END = 5;
const SEG_CUR: typeof Catalog.SEG_CUR = 6;
const SEG_DIM: typeof Catalog.SEG_DIM = 7;
import type { ChargeSession } from './charging.js';
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
  /** Planned components and their levels, [0, count). */
  comp = new Int32Array(64);
  level = new Int8Array(64);
  matched = new Uint8Array(64);
  count = 0;
  /**
   * The segments of planned component j that can take part, [segStart[j], segEnd[j]) into
   * segIndex (block segment index), segLevel (level after D73) and segAverage. Parking and
   * occupancy segments, average segments without `average_prices` and country-level segments
   * under the D71 exception are already left out.
   */
  segStart = new Int32Array(64);
  segEnd = new Int32Array(64);
  segIndex = new Int32Array(128);
  segLevel = new Int8Array(128);
  segAverage = new Uint8Array(128);
  /** Restrictions of planned component j to check per charge point; empty without such criteria. */
  checkStart = new Int32Array(64);
  checkEnd = new Int32Array(64);
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
  /** The charge point power handed from `evaluateInto` to `evaluateAt`. */
  readonly power = new Float64Array(1);

  /** Room for n planned components and m planned segments. */
  ensure(n: number, m = 0): void {
    if (n > this.comp.length) {
      const cap = Math.max(n, this.comp.length * 2);
      this.comp = new Int32Array(cap);
      this.level = new Int8Array(cap);
      this.matched = new Uint8Array(cap);
      this.segStart = new Int32Array(cap);
      this.segEnd = new Int32Array(cap);
      this.checkStart = new Int32Array(cap);
      this.checkEnd = new Int32Array(cap);
    }
    if (m > this.segIndex.length) {
      const cap = Math.max(m, this.segIndex.length * 2);
      this.segIndex = new Int32Array(cap);
      this.segLevel = new Int8Array(cap);
      this.segAverage = new Uint8Array(cap);
    }
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
  s.ensure(b.compRStart.length, b.sDim.length);
  s.count = 0;
  s.averagePrices = st.averagePrices;
  const sub = b.subByCpo.size === 0 ? -1 : catalog.subFor(b, st.cpoIndex, st.groupIndex);
  s.subIndex = sub;
  const subEmpty = sub >= 0 && b.subEmpty[sub] === 1;
  const copyToSub = subEmpty && b.applyPricesToSubTariff;
  s.noPriceAtCpo = subEmpty && !copyToSub;
  const criteria = b.compStationCriteria;

  if (st.stationId !== null && b.evseRange.size > 0) {
    const range = b.evseRange.get(st.stationId);
    if (range) {
      for (let c = range[0]; c < range[1]; c++) if (criteria[c] === 0 || componentPassesStation(b, c, st)) push(s, c, LEVEL_EVSE);
    }
  }
  if (sub >= 0) {
    for (let c = b.subStart[sub]; c < b.subEnd[sub]; c++) if (criteria[c] === 0 || componentPassesStation(b, c, st)) push(s, c, LEVEL_CPO);
  }
  for (let c = 0; c < b.ownEnd; c++) {
    if (criteria[c] !== 0 && !componentPassesStation(b, c, st)) continue;
    push(s, c, copyToSub || listsCpo(b, c, st) ? LEVEL_CPO : LEVEL_COUNTRY);
  }
  const countrySubs = b.countrySubs;
  for (let x = 0; x < countrySubs.length; x++) {
    const k = countrySubs[x];
    for (let c = b.subStart[k]; c < b.subEnd[k]; c++) if (criteria[c] === 0 || componentPassesStation(b, c, st)) push(s, c, LEVEL_COUNTRY);
  }

  // The segments that can take part, with their levels (D73: average segments count as cpo).
  const avgOk = s.averagePrices;
  const noCountry = s.noPriceAtCpo;
  let q = 0;
  for (let j = 0; j < s.count; j++) {
    const c = s.comp[j];
    const compLevel = s.level[j];
    s.segStart[j] = q;
    s.checkEnd[j] = b.compREnd[c];
    s.checkStart[j] = b.compChargePointCriteria[c] === 0 ? b.compREnd[c] : b.compRStart[c];
    for (let g = b.compSStart[c]; g < b.compSEnd[c]; g++) {
      const flags = b.sFlags[g];
      if (b.sDim[g] === DIM_PARKING || (flags & SEG_OCCUPANCY) !== 0) continue;
      let level = compLevel;
      const average = (flags & SEG_AVERAGE) !== 0;
      if (average) {
        if (!avgOk) continue;
        level = LEVEL_CPO;
      }
      if (level === LEVEL_COUNTRY && noCountry) continue;
      s.segIndex[q] = g;
      s.segLevel[q] = level;
      s.segAverage[q] = average ? 1 : 0;
      q++;
    }
    s.segEnd[j] = q;
  }

  let policy = sub >= 0 ? b.subPolicy[sub] : 0;
  if (policy === 0) policy = b.policy;
  s.policy = policy === 0 ? 1 : policy;
  let reason = sub >= 0 ? b.subReason[sub] : 0;
  if (reason === 0) reason = b.reason;
  s.reason = reason === 0 ? 1 : reason;
  return s.count;
}

/**
 * Step 2: prices one charge point against a plan made by `planTariff` and writes entry `i` of
 * `out`. `energyType`/`power` describe the charge point (power = station maximum), `t0` is the
 * start minute of day. Returns true when a price was found.
 *
 * One pass over the planned segments: per dimension it keeps the most specific level seen so far
 * and the running cost of the segments at that level; a more specific level restarts the sum.
 * The additions happen in plan order, so the sums equal those of a separate "pick the level,
 * then add" pass bit for bit. The window and energy helpers are written out inline: this is the
 * innermost loop of bulk previews, and calls that V8 does not inline box their double arguments
 * and results (heap allocations).
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
  const powers = s.power;
  powers[0] = power;
  return evaluateAt(b, s, session, energyType === 'dc' ? ENERGY_DC : ENERGY_AC, powers, 0, t0, conv, out, i);
}

/**
 * `evaluateInto` with the charge point given as an energy code (ENERGY_AC or ENERGY_DC) and its
 * power as `powers[p]`: reading the power from a typed array inside keeps a fractional power
 * (3.7 kW) from being boxed into a heap number on every call.
 */
export function evaluateAt(
  b: CompiledTariff,
  s: PlanScratch,
  session: ChargeSession,
  energy: number,
  powers: Float64Array,
  p: number,
  t0: number,
  conv: Conversion,
  out: PriceResults,
  i: number,
): boolean {
  const d3 = 3 * i;
  const dist = out.distribution;
  out.blockingFeeStart[i] = NaN;
  out.isAverage[i] = 0;
  dist[d3] = NaN;
  dist[d3 + 1] = NaN;
  dist[d3 + 2] = NaN;
  if (b.isFlatRate) {
    out.price[i] = 0;
    out.reason[i] = REASON_NONE;
    return true;
  }
  const power = powers[p];
  const consumed = session.consumedPower;
  const segStart = s.segStart;
  const segEnd = s.segEnd;
  const segIndex = s.segIndex;
  const segLevel = s.segLevel;
  const segAverage = s.segAverage;
  const count = s.count;

  const checkStart = s.checkStart;
  const checkEnd = s.checkEnd;
  const rAllow = b.rAllow;
  const rEnergy = b.rEnergy;
  const rPowCount = b.rPowCount;
  const rPowStart = b.rPowStart;
  const rPowRange = b.rPowRange;
  const rConsumed = b.rConsumed;
  const powPool = b.powPool;
  const segData = b.segData;

  const duration = session.duration;
  const totalEnergy = session.energy;
  const steps = session.steps;
  const tEnd = session.tEnd;
  const eEnd = session.eEnd;
  const stepPower = session.power;
  const targetIndex = conv.targetIndex;
  const srcRate = conv.srcRate;
  const targetRate = conv.targetRate;

  // Per dimension (session, kwh, minute): the most specific level so far, its cost and average flag.
  let best0 = NO_LEVEL;
  let best1 = NO_LEVEL;
  let best2 = NO_LEVEL;
  let cost0 = 0;
  let cost1 = 0;
  let cost2 = 0;
  let avg0 = 0;
  let avg1 = 0;
  let avg2 = 0;
  let minuteSegments = 0;
  let zeroStart = false;
  let smallestStart = Infinity;

  for (let j = 0; j < count; j++) {
    const qStart = segStart[j];
    const qEnd = segEnd[j];
    if (qStart === qEnd) continue;
    const rStart = checkStart[j];
    const rEnd = checkEnd[j];
    if (rStart !== rEnd) {
      // Charge-point criteria (energy type, power) of every restriction, D68.
      let ok = true;
      for (let r = rStart; r < rEnd; r++) {
        const allow = rAllow[r] === 1;
        const re = rEnergy[r];
        if (re !== ENERGY_ANY && (re === energy) !== allow) {
          ok = false;
          break;
        }
        const n = rPowCount[r];
        if (n > 0) {
          const cpPower = rConsumed[r] === 1 ? consumed : power;
          const start = rPowStart[r];
          let hit = false;
          if (rPowRange[r] === 1) {
            hit = cpPower >= powPool[start] - 1e-6 && cpPower <= powPool[start + n - 1] + 1e-6;
          } else {
            for (let k = start; k < start + n; k++) {
              if (Math.abs(cpPower - powPool[k]) <= 1e-6) {
                hit = true;
                break;
              }
            }
          }
          if (hit !== allow) {
            ok = false;
            break;
          }
        }
      }
      if (!ok) continue;
    }
    for (let q = qStart; q < qEnd; q++) {
      const g = segIndex[q];
      const level = segLevel[q];
      const o = g * SEG_STRIDE;
      const dim = segData[o + SEG_DIM];
      const ws = segData[o + SEG_WIN_START];
      const we = segData[o + SEG_WIN_END];
      let cost: number;
      if (dim === DIM_SESSION) {
        if (level > best0) continue;
        if (level < best0) {
          best0 = level;
          cost0 = 0;
          avg0 = 0;
        }
        // D80 for session fees: is the start minute inside the window?
        cost = ws < 0 || (t0 >= ws && t0 < we) || (t0 + 1440 >= ws && t0 + 1440 < we) ? segData[o + SEG_PRICE] : 0;
      } else if (dim === DIM_MINUTE) {
        if (level > best2) continue;
        if (level < best2) {
          best2 = level;
          cost2 = 0;
          avg2 = 0;
          minuteSegments = 0;
          zeroStart = false;
          smallestStart = Infinity;
        }
        const gte = segData[o + SEG_GTE];
        const lt = segData[o + SEG_LT];
        const lo = gte > 0 ? gte : 0;
        const hi = lt < duration ? lt : duration;
        // Minutes of [lo, hi) inside the window's occurrences on the unrolled line (D80).
        let m = 0;
        if (hi > lo) {
          if (ws < 0) m = hi - lo;
          else {
            for (let k = Math.floor((lo + t0 - we) / 1440) + 1; ; k++) {
              const a = ws + 1440 * k - t0;
              if (a >= hi) break;
              const e = we + 1440 * k - t0;
              const x = a > lo ? a : lo;
              const y = e < hi ? e : hi;
              if (y > x) m += y - x;
            }
          }
        }
        // D83: every started block billed in full.
        const inc = segData[o + SEG_INC];
        cost = segData[o + SEG_PRICE] * (m <= 0 ? 0 : inc <= 0 ? m : Math.ceil(m / inc - 1e-9) * inc);
        minuteSegments++;
        // The SEG_STARTS_AT_ZERO flag: range_gte null (−∞ here) or 0.
        if (gte === -Infinity || gte === 0) zeroStart = true;
        else if (gte < smallestStart) smallestStart = gte;
      } else {
        if (level > best1) continue;
        if (level < best1) {
          best1 = level;
          cost1 = 0;
          avg1 = 0;
        }
        const gte = segData[o + SEG_GTE];
        const lt = segData[o + SEG_LT];
        // Energy delivered inside the window's occurrences while Ecum is within [gte, lt) (D82).
        let kwh = 0;
        if (ws < 0) {
          const hiE = totalEnergy < lt ? totalEnergy : lt;
          const loE = gte > 0 ? gte : 0;
          kwh = hiE > loE ? hiE - loE : 0;
        } else {
          for (let k = Math.floor((t0 - we) / 1440) + 1; ; k++) {
            const a = ws + 1440 * k - t0;
            if (a >= duration) break;
            const e = we + 1440 * k - t0;
            // Ecum(a) and Ecum(e), exact at 0 and at the end (see `energyAt`).
            let ea: number;
            if (a <= 0) ea = 0;
            else if (steps === 1) ea = (totalEnergy * a) / duration;
            else {
              let lo = 0;
              let hi = steps - 1;
              while (lo < hi) {
                const mid = (lo + hi) >> 1;
                if (tEnd[mid] > a) hi = mid;
                else lo = mid + 1;
              }
              ea = lo === 0 ? (stepPower[0] * a) / 60 : eEnd[lo - 1] + (stepPower[lo] * (a - tEnd[lo - 1])) / 60;
            }
            let eb: number;
            if (e <= 0) eb = 0;
            else if (e >= duration) eb = totalEnergy;
            else if (steps === 1) eb = (totalEnergy * e) / duration;
            else {
              let lo = 0;
              let hi = steps - 1;
              while (lo < hi) {
                const mid = (lo + hi) >> 1;
                if (tEnd[mid] > e) hi = mid;
                else lo = mid + 1;
              }
              eb = lo === 0 ? (stepPower[0] * e) / 60 : eEnd[lo - 1] + (stepPower[lo] * (e - tEnd[lo - 1])) / 60;
            }
            const x = ea > gte ? ea : gte;
            const y = eb < lt ? eb : lt;
            if (y > x) kwh += y - x;
          }
        }
        const inc = segData[o + SEG_INC];
        cost = segData[o + SEG_PRICE] * (kwh <= 0 ? 0 : inc <= 0 ? kwh : Math.ceil(kwh / inc - 1e-9) * inc);
      }
      const cur = segData[o + SEG_CUR];
      if (cur !== targetIndex && cost !== 0) cost = (cost / srcRate[cur]) * targetRate;
      if (dim === DIM_SESSION) {
        cost0 += cost;
        avg0 |= segAverage[q];
      } else if (dim === DIM_MINUTE) {
        cost2 += cost;
        avg2 |= segAverage[q];
      } else {
        cost1 += cost;
        avg1 |= segAverage[q];
      }
    }
  }
  if (best0 === NO_LEVEL && best1 === NO_LEVEL && best2 === NO_LEVEL) {
    out.price[i] = NaN;
    out.reason[i] = s.reason;
    return false;
  }
  const price = cost0 + cost1 + cost2;
  out.price[i] = price;
  out.reason[i] = REASON_NONE;
  out.isAverage[i] = avg0 | avg1 | avg2;
  if (minuteSegments > 0 && !zeroStart) out.blockingFeeStart[i] = smallestStart;
  if (price !== 0) {
    if (best0 !== NO_LEVEL) dist[d3] = cost0 / price;
    if (best1 !== NO_LEVEL) dist[d3 + 1] = cost1 / price;
    if (best2 !== NO_LEVEL) dist[d3 + 2] = cost2 / price;
  }
  return true;
}
