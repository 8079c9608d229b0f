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
const R_STRIDE: typeof Catalog.R_STRIDE = 6;
const R_ALLOW: typeof Catalog.R_ALLOW = 0;
const R_ENERGY: typeof Catalog.R_ENERGY = 1;
const R_POW_COUNT: typeof Catalog.R_POW_COUNT = 2;
const R_POW_START: typeof Catalog.R_POW_START = 3;
const R_POW_RANGE: typeof Catalog.R_POW_RANGE = 4;
const R_CONSUMED: typeof Catalog.R_CONSUMED = 5;
import type { ChargeSession } from './charging.js';
import type { Conversion } from './currency.js';
import type { EnergyType } from './model.js';
import { evaluateFirstMatch } from './first-match.js';
import { PlanScratch, PriceResults } from './scratch.js';

export { PlanScratch, PriceResults };

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

/** Most cached plans per tariff block (distinct sub tariffs × station criteria outcomes). */
const PLAN_CACHE_LIMIT = 256;
/** Most components with station-wide criteria a cacheable plan may depend on. */
const PLAN_KEY_CRITERIA = 16;

/**
 * The cache key of the plan of `b` at a station without station-level components of `b`: a plan
 * is a function of the sub tariff for the CPO, of `average_prices`, and of whether each component
 * with station-wide criteria (countries, CPOs) passes them at the station. (Whether a passing own
 * component lists the CPO, D65, follows: an `allow` restriction listing CPOs passes only when it
 * lists the CPO or its group.) −1 when there are too many such components to key.
 */
function planKey(b: CompiledTariff, st: ResolvedStation, sub: number): number {
  let key = (sub + 1) * 2 + (st.averagePrices ? 1 : 0);
  const criteria = b.compStationCriteria;
  let n = 0;
  let outcome = 0;
  for (let c = 0; c < b.ownEnd; c++) {
    if (criteria[c] === 0) continue;
    if (++n > PLAN_KEY_CRITERIA) return -1;
    outcome = outcome * 2 + (componentPassesStation(b, c, st) ? 1 : 0);
  }
  if (sub >= 0) {
    for (let c = b.subStart[sub]; c < b.subEnd[sub]; c++) {
      if (criteria[c] === 0) continue;
      if (++n > PLAN_KEY_CRITERIA) return -1;
      outcome = outcome * 2 + (componentPassesStation(b, c, st) ? 1 : 0);
    }
  }
  const countrySubs = b.countrySubs;
  for (let x = 0; x < countrySubs.length; x++) {
    const k = countrySubs[x];
    for (let c = b.subStart[k]; c < b.subEnd[k]; c++) {
      if (criteria[c] === 0) continue;
      if (++n > PLAN_KEY_CRITERIA) return -1;
      outcome = outcome * 2 + (componentPassesStation(b, c, st) ? 1 : 0);
    }
  }
  // 2^16 outcomes × 2 × (sub tariffs + 1) stays far below 2^53.
  if (n > 0) key += outcome * 2 * (b.subIds.length + 1);
  return key;
}

/**
 * Step 1: the plan of `b` at the station: the components that can apply there, with their levels
 * (D65, D70, D71), the segments that can take part, and the resolved no-price policy and reason
 * (D69). Use the returned plan, which is either `s` or a cached plan of the block: a plan depends
 * on the station only through a few discrete facts (`planKey`), so the block keeps the plans it
 * has made and a route or bulk preview over many stations plans each tariff once per distinct
 * key. Plans made for a station with station-level (EVSE) components of `b` are not cached.
 * A cached plan is read-only for callers. `cache` = false always plans into `s`.
 */
export function planTariff(catalog: PricingCatalog, b: CompiledTariff, st: ResolvedStation, s: PlanScratch, cache = true): PlanScratch {
  const sub = b.subByCpo.size === 0 ? -1 : catalog.subFor(b, st.cpoIndex, st.groupIndex);
  const evse = st.stationId !== null && b.evseRange.size > 0 ? b.evseRange.get(st.stationId) : undefined;
  let key = -1;
  if (cache && evse === undefined) {
    key = planKey(b, st, sub);
    if (key >= 0) {
      const hit = b.plans.get(key) as PlanScratch | undefined;
      if (hit !== undefined) return hit;
    }
  }
  buildPlan(b, st, s, sub, evse);
  if (key >= 0 && b.plans.size < PLAN_CACHE_LIMIT) {
    const plan = s.copy();
    b.plans.set(key, plan);
    return plan;
  }
  return s;
}

function buildPlan(b: CompiledTariff, st: ResolvedStation, s: PlanScratch, sub: number, evse: [number, number] | undefined): void {
  s.ensure(b.compRStart.length, b.sDim.length);
  s.count = 0;
  s.length = 0;
  s.averagePrices = st.averagePrices;
  s.subIndex = sub;
  const subEmpty = sub >= 0 && b.subEmpty[sub] === 1;
  const copyToSub = subEmpty && b.applyPricesToSubTariff;
  s.noPriceAtCpo = subEmpty && !copyToSub;
  const criteria = b.compStationCriteria;

  if (evse !== undefined) {
    for (let c = evse[0]; c < evse[1]; c++) if (criteria[c] === 0 || componentPassesStation(b, c, st)) push(s, c, LEVEL_EVSE);
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
  const data = s.data;
  let x = 0;
  for (let j = 0; j < s.count; j++) {
    const c = s.comp[j];
    const compLevel = s.level[j];
    const head = x;
    x += 3;
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
      data[x++] = g * SEG_STRIDE;
      data[x++] = level | (average ? 8 : 0);
    }
    const n = (x - head - 3) >> 1;
    if (n === 0) {
      // Without segments a component adds nothing, whatever its restrictions.
      x = head;
      continue;
    }
    const rEnd = b.rBase + b.compREnd[c] * R_STRIDE;
    data[head] = n;
    data[head + 1] = b.compChargePointCriteria[c] === 0 ? rEnd : b.rBase + b.compRStart[c] * R_STRIDE;
    data[head + 2] = rEnd;
  }
  s.length = x;

  let policy = sub >= 0 ? b.subPolicy[sub] : 0;
  if (policy === 0) policy = b.policy;
  s.policy = policy === 0 ? 1 : policy;
  let reason = sub >= 0 ? b.subReason[sub] : 0;
  if (reason === 0) reason = b.reason;
  s.reason = reason === 0 ? 1 : reason;
}

/**
 * Step 2: prices one charge point against a plan made by `planTariff` and writes entry `i` of
 * `out`. `energyType`/`power` describe the charge point (power = station maximum), `t0` is the
 * start minute of day, `day0` the ISO weekday of the start (1–7; 0 = not given, D148). Returns
 * true when a price was found. `first_match` tariffs (D147) are priced by first-match.ts.
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
  day0: number,
  conv: Conversion,
  out: PriceResults,
  i: number,
): boolean {
  const powers = s.power;
  powers[0] = power;
  return evaluateAt(b, s, session, energyType === 'dc' ? ENERGY_DC : ENERGY_AC, powers, 0, t0, day0, conv, out, i);
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
  day0: number,
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
  if (b.firstMatch) return evaluateFirstMatch(b, s, session, energy, powers[p], t0, day0, conv, out, i);
  const power = powers[p];
  const consumed = session.consumedPower;
  const plan = s.data;
  const planLength = s.length;
  const data = b.evalData;

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

  let x = 0;
  while (x < planLength) {
    const n = plan[x];
    const rStart = plan[x + 1];
    const rEnd = plan[x + 2];
    x += 3;
    const qEnd = x + 2 * n;
    if (rStart !== rEnd) {
      // Charge-point criteria (energy type, power) of every restriction, D68.
      let ok = true;
      for (let r = rStart; r < rEnd; r += R_STRIDE) {
        const allow = data[r + R_ALLOW] === 1;
        const re = data[r + R_ENERGY];
        if (re !== ENERGY_ANY && (re === energy) !== allow) {
          ok = false;
          break;
        }
        const count = data[r + R_POW_COUNT];
        if (count > 0) {
          const cpPower = data[r + R_CONSUMED] === 1 ? consumed : power;
          const start = data[r + R_POW_START];
          let hit = false;
          if (data[r + R_POW_RANGE] === 1) {
            hit = cpPower >= data[start] - 1e-6 && cpPower <= data[start + count - 1] + 1e-6;
          } else {
            for (let k = start; k < start + count; k++) {
              if (Math.abs(cpPower - data[k]) <= 1e-6) {
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
      if (!ok) {
        x = qEnd;
        continue;
      }
    }
    for (; x < qEnd; x += 2) {
      const o = plan[x];
      const tag = plan[x + 1];
      const level = tag & 7;
      const average = tag >> 3;
      const dim = data[o + SEG_DIM];
      const ws = data[o + SEG_WIN_START];
      const we = data[o + SEG_WIN_END];
      let cost: number;
      if (dim === DIM_SESSION) {
        if (level > best0) continue;
        if (level < best0) {
          best0 = level;
          cost0 = 0;
          avg0 = 0;
        }
        // D80 for session fees: is the start minute inside the window?
        cost = ws < 0 || (t0 >= ws && t0 < we) || (t0 + 1440 >= ws && t0 + 1440 < we) ? data[o + SEG_PRICE] : 0;
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
        const gte = data[o + SEG_GTE];
        const lt = data[o + SEG_LT];
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
        const inc = data[o + SEG_INC];
        cost = data[o + SEG_PRICE] * (m <= 0 ? 0 : inc <= 0 ? m : Math.ceil(m / inc - 1e-9) * inc);
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
        const gte = data[o + SEG_GTE];
        const lt = data[o + SEG_LT];
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
        const inc = data[o + SEG_INC];
        cost = data[o + SEG_PRICE] * (kwh <= 0 ? 0 : inc <= 0 ? kwh : Math.ceil(kwh / inc - 1e-9) * inc);
      }
      const cur = data[o + SEG_CUR];
      if (cur !== targetIndex && cost !== 0) cost = (cost / srcRate[cur]) * targetRate;
      if (dim === DIM_SESSION) {
        cost0 += cost;
        avg0 |= average;
      } else if (dim === DIM_MINUTE) {
        cost2 += cost;
        avg2 |= average;
      } else {
        cost1 += cost;
        avg1 |= average;
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
