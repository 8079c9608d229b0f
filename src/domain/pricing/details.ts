/**
 * Tariff details listing (endpoint 2, D33–D34): the `restricted_segments` of one tariff at one
 * CPO (or station), its `tariff_level` and its `no_price_reason`. No vehicle, no conversion.
 *
 * With a charge point, exactly the segments the charge price calculation would use for it are
 * listed (power = station maximum, energy type from the plug). Without one, the engine probes
 * charge points (AC and DC × every power named in the tariff's restrictions, a value between each
 * neighbouring pair, one below the lowest and one above the highest) and lists a segment of a less
 * specific level only if some probe has no more specific segment of that dimension.
 */
import type { PricingCatalog } from './catalog.js';
import { resolveEnergyType } from './charging.js';
import type {
  ChargePointInput,
  Dimension,
  EnergyType,
  NoPriceReason,
  Restriction,
  Segment,
  TariffInput,
  TariffLevel,
} from './model.js';
import { levelEntries, restrictionMet, segmentLevel, type LevelEntry } from './reference.js';

export interface RestrictedSegment {
  dimension: Dimension;
  price: number;
  range_gte: number | null;
  range_lt: number | null;
  billing_increment: number | null;
  currency: string;
  time_of_day_start: number | null;
  time_of_day_end: number | null;
  charge_point_powers: number[];
  charge_point_energy_type: EnergyType | null;
  car_ac_phase: number | null;
  charge_point_power_is_range: boolean;
  use_consumed_charging_power: boolean;
  is_average_price: boolean;
  occupancy_gte: number | null;
  occupancy_lt: number | null;
  /** D148: present only on segments restricted to days. */
  days_of_week?: number[];
}

export interface TariffDetailsQuery {
  cpoId: string;
  country: string;
  /** Station query: the station whose EVSE-level prices take part; null for a CPO query. */
  stationId: string | null;
  /** `station.charge_point`, or null to list the segments for all charge points. */
  chargePoint: ChargePointInput | null;
  /** `filter.average_prices` (D73; CPO query only). */
  averagePrices: boolean;
  /** `filter.dimensions`; `parking_minute` only when listed. */
  dimensions: readonly Dimension[];
  /**
   * Charge point groups checked for `no_price_reason` when `chargePoint` is null: the station's
   * groups, else those of the CPO's stations in the country (D34).
   */
  groups: readonly ChargePointInput[];
}

export interface TariffDetails {
  tariffId: string;
  isRoaming: boolean;
  restrictedSegments: RestrictedSegment[];
  tariffLevel: TariffLevel;
  /** D34: the resolved D69 reason when some checked group has no kwh/minute/session segment. */
  noPriceReason: NoPriceReason | null;
  /** The sub tariff for the CPO, whose `updated_at` also counts (D34); null when none. */
  subTariff: TariffInput | null;
}

export const DEFAULT_DETAIL_DIMENSIONS: readonly Dimension[] = ['minute', 'kwh', 'session'];

const RANK: Record<TariffLevel, number> = { evse: 0, cpo: 1, country: 2 };
const LEVELS: readonly TariffLevel[] = ['evse', 'cpo', 'country'];

interface Candidate {
  entry: LevelEntry;
  seg: Segment;
  level: TariffLevel;
}

/** D69: the sub tariff's reason unless `inherit`, then the tariff's; `inherit` = not_yet_listed. */
export function resolveNoPriceReason(tariff: TariffInput, subTariff: TariffInput | null): NoPriceReason {
  const own = subTariff?.no_price_reason;
  if (own && own !== 'inherit') return own;
  const sup = tariff.no_price_reason;
  return sup && sup !== 'inherit' ? sup : 'not_yet_listed';
}

/** D69: the sub tariff's policy unless `inherit`, then the tariff's; `inherit` = hide. */
export function resolveNoPricePolicy(tariff: TariffInput, subTariff: TariffInput | null): 'hide' | 'show_reason' {
  const own = subTariff?.no_price_policy;
  if (own && own !== 'inherit') return own;
  const sup = tariff.no_price_policy;
  return sup === 'show_reason' ? 'show_reason' : 'hide';
}

/** Restriction check at a probe; `energyType`/`power` null = criterion not evaluated. */
function componentMet(entry: LevelEntry, q: TariffDetailsQuery, group: string | null, e: EnergyType | null, p: number | null): boolean {
  return entry.component.restrictions.every((r) => restrictionMet(r, q.country, q.cpoId, group, e, p));
}

/** For one charge point: the most specific level per dimension having a matching segment. */
function chosenLevels(cands: readonly Candidate[], q: TariffDetailsQuery, group: string | null, e: EnergyType, p: number): Map<Dimension, TariffLevel> {
  const chosen = new Map<Dimension, TariffLevel>();
  for (const c of cands) {
    if (!componentMet(c.entry, q, group, e, p)) continue;
    const prev = chosen.get(c.seg.dimension);
    if (prev === undefined || RANK[c.level] < RANK[prev]) chosen.set(c.seg.dimension, c.level);
  }
  return chosen;
}

/** Probe powers (D33). */
function probePowers(cands: readonly Candidate[]): number[] {
  const values = new Set<number>();
  for (const c of cands) for (const r of c.entry.component.restrictions) for (const p of r.charge_point_powers ?? []) values.add(p);
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return [22];
  const probes = [sorted[0] - 1, ...sorted, sorted[sorted.length - 1] + 1];
  for (let i = 1; i < sorted.length; i++) probes.push((sorted[i - 1] + sorted[i]) / 2);
  return probes;
}

/** The charge-point criteria shown with a segment: its component's first allow restriction having any (D33). */
function shownCriteria(restrictions: readonly Restriction[]): Restriction | null {
  return (
    restrictions.find(
      (r) => r.allowance === 'allow' && ((r.charge_point_powers?.length ?? 0) > 0 || r.charge_point_energy_type != null),
    ) ?? null
  );
}

function toSegment(c: Candidate, fallbackCurrency: string): RestrictedSegment {
  const s = c.seg;
  const r = shownCriteria(c.entry.component.restrictions);
  return {
    dimension: s.dimension,
    price: s.price,
    range_gte: s.range_gte ?? null,
    range_lt: s.range_lt ?? null,
    billing_increment: s.billing_increment ?? null,
    currency: s.currency ?? c.entry.owner.currency ?? fallbackCurrency,
    time_of_day_start: s.time_of_day_start ?? null,
    time_of_day_end: s.time_of_day_end ?? null,
    charge_point_powers: r ? [...(r.charge_point_powers ?? [])] : [],
    charge_point_energy_type: r?.charge_point_energy_type ?? null,
    car_ac_phase: r?.car_ac_phase ?? null,
    charge_point_power_is_range: r?.charge_point_power_is_range === true,
    use_consumed_charging_power: r?.use_consumed_charging_power === true,
    is_average_price: s.is_average_price === true,
    occupancy_gte: s.occupancy_gte ?? null,
    occupancy_lt: s.occupancy_lt ?? null,
    ...(s.days_of_week != null && s.days_of_week.length > 0 ? { days_of_week: [...s.days_of_week] } : {}),
  };
}

/**
 * D33–D34 for one `tariff` record at a CPO (or station). Returns null when the tariff is unknown,
 * is a sub tariff, or its EMP is not usable at the CPO (D66). Filters of D32 other than
 * `dimensions` and `average_prices` are the caller's.
 */
export function tariffDetails(catalog: PricingCatalog, tariffId: string, q: TariffDetailsQuery): TariffDetails | null {
  const tariff = catalog.tariffs.get(tariffId);
  if (!tariff || tariff.type !== 'tariff') return null;
  const usability = catalog.usability(tariff.emp_id, q.cpoId);
  if (usability === 'none') return null;
  const group = catalog.companies.get(q.cpoId)?.cpo_group_id ?? null;
  const evse = q.stationId === null ? [] : (catalog.stationPricesOf(tariffId).get(q.stationId) ?? []);
  const res = levelEntries(tariff, catalog.subTariffsOf(tariffId), evse, catalog.companies, q.cpoId);
  const average = q.stationId === null && q.averagePrices;

  // Segments that can take part at this station at all, in listing order (D18).
  const cands: Candidate[] = [];
  for (const entry of res.entries) {
    if (!componentMet(entry, q, group, null, null)) continue;
    for (const seg of entry.component.decomposition) {
      const level = segmentLevel(entry, seg, average);
      if (level === null || (level === 'country' && res.noPriceAtCpo)) continue;
      cands.push({ entry, seg, level });
    }
  }
  cands.sort((a, b) => RANK[a.level] - RANK[b.level]);

  const wanted = new Set(q.dimensions);
  const listed: Candidate[] = [];
  if (q.chargePoint) {
    const e = resolveEnergyType(q.chargePoint);
    const chosen = chosenLevels(cands, q, group, e, q.chargePoint.power);
    for (const c of cands) {
      if (wanted.has(c.seg.dimension) && chosen.get(c.seg.dimension) === c.level && componentMet(c.entry, q, group, e, q.chargePoint.power)) {
        listed.push(c);
      }
    }
  } else {
    const probes: Map<Dimension, TariffLevel>[] = [];
    for (const e of ['ac', 'dc'] as const) for (const p of probePowers(cands)) probes.push(chosenLevels(cands, q, group, e, p));
    for (const c of cands) {
      if (!wanted.has(c.seg.dimension)) continue;
      const shadowedEverywhere = probes.every((chosen) => {
        const best = chosen.get(c.seg.dimension);
        return best !== undefined && RANK[best] < RANK[c.level];
      });
      if (!shadowedEverywhere) listed.push(c);
    }
  }

  const fallbackCurrency = tariff.currency ?? 'EUR';
  const restrictedSegments = listed.map((c) => toSegment(c, fallbackCurrency));
  const levelsListed = LEVELS.filter((l) => listed.some((c) => c.level === l));
  const tariffLevel: TariffLevel = levelsListed[0] ?? (res.subTariff ? 'cpo' : 'country');

  const groups = q.chargePoint ? [q.chargePoint] : q.groups;
  const priced = new Set<Dimension>(['kwh', 'minute', 'session']);
  const someGroupUnpriced = groups.some((g) => {
    const chosen = chosenLevels(cands, q, group, resolveEnergyType(g), g.power);
    return ![...chosen.keys()].some((d) => priced.has(d));
  });
  return {
    tariffId,
    isRoaming: usability === 'roaming',
    restrictedSegments,
    tariffLevel,
    noPriceReason: someGroupUnpriced ? resolveNoPriceReason(tariff, res.subTariff) : null,
    subTariff: res.subTariff,
  };
}
