/**
 * The reference evaluator: a slow, obvious reading of D65–D73 and D80–D88 on plain objects,
 * written independently of the compiled evaluator so that the two can check each other (see the
 * property test). Time windows are split into day pieces instead of being unrolled, and kWh
 * quantities are integrated step by step over the power profile.
 *
 * `levelEntries` and `restrictionMet` are also the basis of the tariff details listing (D33).
 */
import type {
  CompanyInput,
  EnergyType,
  PriceComponent,
  RateTable,
  Restriction,
  Segment,
  TariffInput,
  TariffLevel,
} from './model.js';
import { STEP_FORGIVEN_KWH, STEP_FORGIVEN_MINUTES } from './first-match.js';

export interface ReferenceStation {
  id: string | null;
  cpo_id: string;
  country: string;
}

export interface ReferenceChargePoint {
  energy_type: EnergyType;
  power: number;
}

/** A power profile as consecutive steps of constant power. */
export interface ReferenceProfile {
  steps: { minutes: number; kw: number }[];
  /** The power the car draws, for `use_consumed_charging_power`. */
  consumed_power: number;
}

export interface ReferenceInput {
  tariff: TariffInput;
  subTariffs: TariffInput[];
  /** Station-level components of the tariff for the station in context. */
  evsePrices: PriceComponent[];
  companies: ReadonlyMap<string, CompanyInput>;
  station: ReferenceStation;
  chargePoint: ReferenceChargePoint;
  profile: ReferenceProfile;
  startTime: number;
  /** ISO weekday (1–7) of the start date; 0 or missing = not given (D148). */
  startDay?: number;
  currency: string;
  rates: RateTable;
  averagePrices: boolean;
}

export interface ReferenceResult {
  price: number | null;
  distribution: Record<string, number>;
  blockingFeeStart: number | null;
  isAverage: boolean;
}

/** A component at a level, with the (sub) tariff it came from. */
export interface LevelEntry {
  level: TariffLevel;
  component: PriceComponent;
  owner: TariffInput;
}

export interface LevelResolution {
  entries: LevelEntry[];
  /** The sub tariff for the CPO (D65), if any. */
  subTariff: TariffInput | null;
  /** D71 exception: the country level is not used. */
  noPriceAtCpo: boolean;
}

const LEVEL_RANK: Record<TariffLevel, number> = { evse: 0, cpo: 1, country: 2 };

/** D65, D70, D71: every component of the tariff that can take part at the station, with its level. */
export function levelEntries(
  tariff: TariffInput,
  subTariffs: readonly TariffInput[],
  evsePrices: readonly PriceComponent[],
  companies: ReadonlyMap<string, CompanyInput>,
  cpoId: string,
): LevelResolution {
  const group = companies.get(cpoId)?.cpo_group_id ?? null;
  const subTariff =
    subTariffs.find((s) => s.cpo_id === cpoId) ?? (group ? subTariffs.find((s) => s.cpo_id === group) : undefined) ?? null;
  const copied = subTariff !== null && subTariff.prices.length === 0 && tariff.apply_prices_to_sub_tariff === true;
  const noPriceAtCpo = subTariff !== null && subTariff.prices.length === 0 && !copied;

  const entries: LevelEntry[] = [];
  for (const component of evsePrices) entries.push({ level: 'evse', component, owner: tariff });
  if (subTariff) for (const component of subTariff.prices) entries.push({ level: 'cpo', component, owner: subTariff });
  for (const component of tariff.prices) {
    const listed = component.restrictions.some(
      (r) => r.allowance === 'allow' && (r.cpo_ids ?? []).some((id) => id === cpoId || id === group),
    );
    entries.push({ level: copied || listed ? 'cpo' : 'country', component, owner: tariff });
  }
  for (const s of subTariffs) {
    if (s.cpo_id) continue;
    for (const component of s.prices) entries.push({ level: 'country', component, owner: s });
  }
  return { entries, subTariff, noPriceAtCpo };
}

/** D68: one restriction object at a station and charge point; `power` is the P to compare. */
export function restrictionMet(
  r: Restriction,
  country: string,
  cpoId: string,
  cpoGroupId: string | null,
  energyType: EnergyType | null,
  power: number | null,
): boolean {
  const results: boolean[] = [];
  if (r.countries && r.countries.length > 0) results.push(r.countries.some((c) => c.toUpperCase() === country.toUpperCase()));
  if (r.cpo_ids && r.cpo_ids.length > 0) results.push(r.cpo_ids.includes(cpoId) || (cpoGroupId !== null && r.cpo_ids.includes(cpoGroupId)));
  if (r.charge_point_energy_type && energyType !== null) results.push(r.charge_point_energy_type === energyType);
  const powers = r.charge_point_powers ?? [];
  if (powers.length > 0 && power !== null) {
    results.push(
      r.charge_point_power_is_range
        ? power >= powers[0] - 1e-6 && power <= powers[powers.length - 1] + 1e-6
        : powers.some((p) => Math.abs(p - power) <= 1e-6),
    );
  }
  return r.allowance === 'deny' ? results.every((x) => !x) : results.every((x) => x);
}

/** The segment level after D73: average segments count at cpo level when usable, else never. */
export function segmentLevel(entry: LevelEntry, seg: Segment, averagePrices: boolean): TariffLevel | null {
  if (seg.is_average_price) return averagePrices ? 'cpo' : null;
  return entry.level;
}

/** The clock pieces [a, b) (minutes of day, no wrap) of a window; null window = whole day. */
function dayPieces(seg: Segment): [number, number][] {
  const s = seg.time_of_day_start;
  const e = seg.time_of_day_end;
  if (s == null || e == null || s === e) return [[0, 1440]];
  if (s < e) return [[s, e]];
  return [
    [s, 1440],
    [0, e],
  ];
}

/** The window as intervals of elapsed minutes covering [0, duration). */
function windowIntervals(seg: Segment, startTime: number, duration: number): [number, number][] {
  const out: [number, number][] = [];
  const days = Math.ceil((startTime + duration) / 1440) + 1;
  for (let day = 0; day <= days; day++) {
    for (const [a, b] of dayPieces(seg)) {
      const x = Math.max(0, day * 1440 + a - startTime);
      const y = Math.min(duration, day * 1440 + b - startTime);
      if (y > x) out.push([x, y]);
    }
  }
  return out;
}

function rateOf(rates: RateTable, code: string): number {
  return code === 'EUR' ? (rates.rates.EUR ?? 1) : rates.rates[code];
}

/** The whole D65–D88 computation for one tariff at one charge point. */
export function referencePrice(input: ReferenceInput): ReferenceResult {
  const { tariff, station, chargePoint, profile, startTime, averagePrices } = input;
  if (tariff.is_flat_rate) return { price: 0, distribution: {}, blockingFeeStart: null, isAverage: false };
  const group = input.companies.get(station.cpo_id)?.cpo_group_id ?? null;
  const { entries, noPriceAtCpo } = levelEntries(
    tariff,
    input.subTariffs,
    station.id === null ? [] : input.evsePrices,
    input.companies,
    station.cpo_id,
  );
  const matching = entries.filter((e) =>
    e.component.restrictions.every((r) =>
      restrictionMet(
        r,
        station.country,
        station.cpo_id,
        group,
        chargePoint.energy_type,
        r.use_consumed_charging_power ? profile.consumed_power : chargePoint.power,
      ),
    ),
  );
  type Used = { seg: Segment; owner: TariffInput; level: TariffLevel };
  const candidates: Used[] = [];
  for (const e of matching) {
    for (const seg of e.component.decomposition) {
      if (seg.dimension === 'parking_minute') continue;
      if (seg.occupancy_gte != null || seg.occupancy_lt != null) continue;
      const level = segmentLevel(e, seg, averagePrices);
      if (level === null || (level === 'country' && noPriceAtCpo)) continue;
      candidates.push({ seg, owner: e.owner, level });
    }
  }
  const dims = ['session', 'kwh', 'minute'] as const;
  const chosen = new Map<string, TariffLevel>();
  for (const d of dims) {
    const levels = candidates.filter((c) => c.seg.dimension === d).map((c) => c.level);
    if (levels.length > 0) chosen.set(d, levels.sort((a, b) => LEVEL_RANK[a] - LEVEL_RANK[b])[0]);
  }
  if (chosen.size === 0) return { price: null, distribution: {}, blockingFeeStart: null, isAverage: false };

  const duration = profile.steps.reduce((sum, s) => sum + s.minutes, 0);
  const used = candidates.filter((c) => chosen.get(c.seg.dimension) === c.level);
  if (tariff.price_selection === 'first_match') return firstMatchPrice(input, used, chosen, duration);
  const costs: Record<string, number> = { session: 0, kwh: 0, minute: 0 };
  for (const { seg, owner } of used) {
    let quantity: number;
    if (seg.dimension === 'session') {
      quantity = dayPieces(seg).some(([a, b]) => startTime >= a && startTime < b) ? 1 : 0;
    } else if (seg.dimension === 'minute') {
      const lo = seg.range_gte ?? 0;
      const hi = seg.range_lt ?? Infinity;
      quantity = windowIntervals(seg, startTime, duration).reduce(
        (sum, [a, b]) => sum + Math.max(0, Math.min(b, hi) - Math.max(a, lo)),
        0,
      );
    } else {
      quantity = kwhInWindow(seg, profile, startTime, duration);
    }
    if (seg.dimension !== 'session' && quantity > 0 && seg.billing_increment) {
      quantity = Math.ceil(quantity / seg.billing_increment - 1e-9) * seg.billing_increment;
    }
    let cost = seg.price * quantity;
    const currency = seg.currency ?? owner.currency ?? tariff.currency ?? 'EUR';
    if (currency !== input.currency && cost !== 0) cost = (cost / rateOf(input.rates, currency)) * rateOf(input.rates, input.currency);
    costs[seg.dimension] += cost;
  }
  const price = costs.session + costs.kwh + costs.minute;
  const distribution: Record<string, number> = {};
  if (price !== 0) for (const d of dims) if (chosen.has(d)) distribution[d] = costs[d] / price;
  const minuteStarts = used.filter((u) => u.seg.dimension === 'minute').map((u) => u.seg.range_gte ?? 0);
  const blockingFeeStart = minuteStarts.length > 0 && minuteStarts.every((g) => g > 0) ? Math.min(...minuteStarts) : null;
  return { price, distribution, blockingFeeStart, isAverage: used.some((u) => u.seg.is_average_price === true) };
}

/** kWh delivered inside the window while the cumulative energy is within the segment's range. */
function kwhInWindow(seg: Segment, profile: ReferenceProfile, startTime: number, duration: number): number {
  const lo = seg.range_gte ?? -Infinity;
  const hi = seg.range_lt ?? Infinity;
  const windows = windowIntervals(seg, startTime, duration);
  let total = 0;
  let t = 0;
  let e = 0;
  for (const step of profile.steps) {
    const t1 = t + step.minutes;
    for (const [a, b] of windows) {
      const x = Math.max(a, t);
      const y = Math.min(b, t1);
      if (y <= x) continue;
      const ex = e + (step.kw * (x - t)) / 60;
      const ey = e + (step.kw * (y - t)) / 60;
      total += Math.max(0, Math.min(ey, hi) - Math.max(ex, lo));
    }
    e += (step.kw * step.minutes) / 60;
    t = t1;
  }
  return total;
}

/** Ecum at elapsed minute t, walking the profile. */
function energyAtRef(profile: ReferenceProfile, t: number): number {
  let e = 0;
  let at = 0;
  for (const step of profile.steps) {
    if (t <= at + step.minutes) return e + (step.kw * Math.max(0, t - at)) / 60;
    e += (step.kw * step.minutes) / 60;
    at += step.minutes;
  }
  return e;
}

/** Elapsed minutes where Ecum reaches q, or null when it never does inside the session. */
function timeAtRef(profile: ReferenceProfile, q: number): number | null {
  let e = 0;
  let at = 0;
  for (const step of profile.steps) {
    const e1 = e + (step.kw * step.minutes) / 60;
    if (q > e && q < e1) return at + ((q - e) * 60) / step.kw;
    e = e1;
    at += step.minutes;
  }
  return null;
}

function dayOk(seg: Segment, startDay: number, startTime: number, t: number): boolean {
  const days = seg.days_of_week ?? [];
  if (days.length === 0) return true;
  if (!(startDay >= 1)) return false;
  const iso = ((((startDay - 1 + Math.floor((startTime + t) / 1440)) % 7) + 7) % 7) + 1;
  return days.includes(iso);
}

function windowOk(seg: Segment, clock: number): boolean {
  return dayPieces(seg).some(([a, b]) => clock >= a && clock < b);
}

/**
 * D147–D149, read plainly: the session cut at every boundary of every segment taking part, each
 * piece priced by the first segment that holds at its middle, the increment once on each total,
 * then the price bounds.
 */
function firstMatchPrice(
  input: ReferenceInput,
  used: { seg: Segment; owner: TariffInput; level: TariffLevel }[],
  chosen: Map<string, TariffLevel>,
  duration: number,
): ReferenceResult {
  const { tariff, profile, startTime } = input;
  const startDay = input.startDay ?? 0;
  const convert = (cost: number, seg: Segment, owner: TariffInput): number => {
    const currency = seg.currency ?? owner.currency ?? tariff.currency ?? 'EUR';
    return currency !== input.currency && cost !== 0 ? (cost / rateOf(input.rates, currency)) * rateOf(input.rates, input.currency) : cost;
  };
  const costs: Record<string, number> = { session: 0, kwh: 0, minute: 0 };
  let isAverage = false;
  const fee = used.find((u) => u.seg.dimension === 'session' && windowOk(u.seg, startTime) && dayOk(u.seg, startDay, startTime, 0));
  if (fee) {
    costs.session = convert(fee.seg.price, fee.seg, fee.owner);
    isAverage ||= fee.seg.is_average_price === true;
  }
  for (const dim of ['kwh', 'minute'] as const) {
    const segs = used.filter((u) => u.seg.dimension === dim);
    if (segs.length === 0) continue;
    const cuts = new Set<number>([0, duration]);
    for (const { seg } of segs) {
      for (const [a, b] of windowIntervals(seg, startTime, duration)) cuts.add(a).add(b);
      if ((seg.days_of_week ?? []).length > 0) for (let k = 1; k * 1440 - startTime < duration; k++) cuts.add(k * 1440 - startTime);
      for (const edge of [seg.range_gte, seg.range_lt]) {
        if (edge == null) continue;
        const t = dim === 'minute' ? edge : timeAtRef(profile, edge);
        if (t !== null && t > 0 && t < duration) cuts.add(t);
      }
    }
    const points = [...cuts].sort((a, b) => a - b);
    let qty = 0;
    let cost = 0;
    let last: (typeof segs)[number] | null = null;
    for (let k = 0; k + 1 < points.length; k++) {
      const [a, b] = [points[k], points[k + 1]];
      const mid = (a + b) / 2;
      const value = dim === 'minute' ? mid : energyAtRef(profile, mid);
      const hit = segs.find(
        ({ seg }) =>
          value >= (seg.range_gte ?? -Infinity) &&
          value < (seg.range_lt ?? Infinity) &&
          windowOk(seg, (((startTime + mid) % 1440) + 1440) % 1440) &&
          dayOk(seg, startDay, startTime, mid),
      );
      if (!hit) continue;
      const q = dim === 'minute' ? b - a : energyAtRef(profile, b) - energyAtRef(profile, a);
      qty += q;
      cost += convert(hit.seg.price * q, hit.seg, hit.owner);
      last = hit;
      isAverage ||= hit.seg.is_average_price === true;
    }
    if (last && last.seg.billing_increment && qty > 0) {
      const inc = last.seg.billing_increment;
      const extra = Math.ceil((qty - (dim === 'minute' ? STEP_FORGIVEN_MINUTES : STEP_FORGIVEN_KWH)) / inc - 1e-9) * inc - qty;
      if (extra > 0) cost += convert(last.seg.price * extra, last.seg, last.owner);
    }
    costs[dim] = cost;
  }
  let price = costs.session + costs.kwh + costs.minute;
  const dims = ['session', 'kwh', 'minute'] as const;
  const present = new Set<string>(dims.filter((d) => chosen.has(d)));
  const inTarget = (v: number) => {
    const c = tariff.currency ?? 'EUR';
    return c === input.currency ? v : (v / rateOf(input.rates, c)) * rateOf(input.rates, input.currency);
  };
  const min = tariff.min_price != null ? inTarget(tariff.min_price) : null;
  const max = tariff.max_price != null ? inTarget(tariff.max_price) : null;
  let target = price;
  if (min !== null && target < min) target = min;
  if (max !== null && target > max) target = max;
  if (target !== price) {
    if (price > 0) for (const d of dims) costs[d] *= target / price;
    else {
      costs.session = target;
      present.add('session');
    }
    price = costs.session + costs.kwh + costs.minute;
  }
  const distribution: Record<string, number> = {};
  if (price !== 0) for (const d of dims) if (present.has(d)) distribution[d] = costs[d] / price;
  const minuteStarts = used.filter((u) => u.seg.dimension === 'minute').map((u) => u.seg.range_gte ?? 0);
  const blockingFeeStart = minuteStarts.length > 0 && minuteStarts.every((g) => g > 0) ? Math.min(...minuteStarts) : null;
  return { price, distribution, blockingFeeStart, isAverage };
}
