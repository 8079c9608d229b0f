/**
 * The cost of a charging session under an OCPI 2.2.1 (or 2.1.1) Tariff, by the rules of the OCPI
 * tariff and CDR modules (D140–D146):
 *
 * - Each charging period lasts from its `start_date_time` to the next period's (the last one to
 *   the session's end). Its billed volumes are the CDR's own (`ENERGY` kWh, `TIME`,
 *   `PARKING_TIME` and `RESERVATION_TIME` hours).
 * - A period is cut wherever an element's restriction can change inside it: local time-of-day
 *   boundaries of any element and local midnights (dates, days of the week), session durations
 *   of `min_duration`/`max_duration`, and the instants where the energy so far reaches
 *   `min_kwh`/`max_kwh` (energy assumed evenly spread over the period; a period without duration
 *   is cut by energy alone). Each piece takes its share of the period's volumes and is priced at
 *   its start.
 * - Per dimension, the FIRST element (in list order) whose restrictions all hold and that has a
 *   component of that dimension prices the piece. Elements with a `reservation` restriction price
 *   only reservation time (`RESERVATION_TIME`, with their `TIME` component; `RESERVATION_EXPIRES`
 *   when the session has no charging or parking after the reservation), the others everything else.
 * - `FLAT`: once per session, the first element with a FLAT component whose restrictions hold at
 *   the session's start (and once more for a reservation, from a reservation element).
 * - `step_size`: once per dimension, on its total: the total volume is rounded up to a multiple of
 *   the step of the component that billed the dimension last, the difference billed at that
 *   component's price. When the charging time goes on into priced parking, the TIME step is not
 *   applied and the parking step counts the charging time too if one element priced both last
 *   (D257); only noise below the precision of the CDR's own volumes is forgiven before rounding up.
 * - VAT per component (`incl = excl × (1 + vat/100)`; no `vat`: no VAT applies, incl = excl).
 * - `min_price`/`max_price` bound the total cost, excluding and including VAT; a bound given
 *   excluding VAT only keeps the session's VAT share (D145).
 * - Rounding: every number of the answer is rounded to 4 decimals (OCPI `number` type), from
 *   unrounded sums; nothing is rounded on the way.
 *
 * A tariff is prepared once (`prepareTariff`: its restrictions as numbers, its elements per
 * dimension, its cuts) and kept per content (`preparedTariff`, D280); periods are priced in
 * scratch arrays reused across sessions, with no allocation per period, piece or restriction check.
 * The straightforward engine this replaced is its twin in test/domain/ocpi/cdr-cost-twin.ts.
 */

import { daysFromCivil, ocpiInstant } from './instant.js';
import type { OcpiDimension, OcpiPriceComponent, OcpiRestrictions, OcpiTariff } from './model.js';
import { type Zone, zone } from './zone-offsets.js';

export type DimensionName = OcpiDimension;
export type OcpiComponent = OcpiPriceComponent<OcpiDimension>;
export type { OcpiRestrictions };
/** A tariff as cdr_cost prices it: its component types validated. */
export type OcpiTariffInput = OcpiTariff<OcpiDimension>;

export interface OcpiPeriod {
  start_date_time: string;
  dimensions: { type: string; volume: number }[];
}

export interface OcpiSessionInput {
  start_date_time: string;
  /** 2.2.1 `end_date_time`, or 2.1.1 `stop_date_time` (the caller picks one). */
  end_date_time: string;
  charging_periods: OcpiPeriod[];
}

export interface Money {
  excl_vat: number;
  incl_vat: number;
}

export interface PeriodPricing {
  start_date_time: string;
  /** Dimension → index of the tariff element that priced it in this period (first piece). */
  elements: Partial<Record<'ENERGY' | 'TIME' | 'PARKING_TIME' | 'RESERVATION_TIME', number>>;
}

export interface CdrCost {
  total_cost: Money;
  total_energy_cost: Money;
  total_time_cost: Money;
  total_parking_time_cost: Money;
  total_fixed_cost: Money;
  total_reservation_cost: Money;
  /** Volumes as billed (after step_size): kWh and hours. */
  billed: { energy: number; time: number; parking_time: number; reservation_time: number };
  /** Whether min_price or max_price set the total. */
  price_bound: 'min_price' | 'max_price' | null;
  /**
   * Per charging period k, at 5k…5k+4: the index of the element that priced each dimension first
   * in it, in the order they were first priced (`elementsOf` reads it).
   */
  elements: Int32Array;
}



/** Dimensions priced by elements, as indices: the lists of `PreparedTariff.lists`. */
const L_ENERGY = 0;
const L_TIME = 1;
const L_PARKING = 2;
const L_FLAT = 3;
/** Billed dimensions, as indices (slots of the scratch sums and of `CdrCost.elements`). */
const B_ENERGY = 0;
const B_TIME = 1;
const B_PARKING = 2;
const B_RESERVATION = 3;
const BILLED_NAMES = ['ENERGY', 'TIME', 'PARKING_TIME', 'RESERVATION_TIME'] as const;
/** Volume units per CDR unit: Wh per kWh for energy, seconds per hour for time. */
const UNITS = [1000, 3600, 3600, 3600];

/** Reservation kinds of an element (D144), as numbers. */
const NOT_RESERVATION = 0;
const RESERVATION = 1;
const RESERVATION_EXPIRES = 2;

const WEEKDAYS = ['SUNDAY', 'MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY'];

/** Day number of a validated `YYYY-MM-DD` date (restrictions' start_date, end_date): days from civil, no Date. */
export function dayOf(date: string): number {
  return daysFromCivil(digit(date, 0) * 1000 + digit(date, 1) * 100 + digit(date, 2) * 10 + digit(date, 3), digit(date, 5) * 10 + digit(date, 6), digit(date, 8) * 10 + digit(date, 9));
}

/** Whether `tz` names a time zone Intl knows. */
export function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** Digit `i` of a validated string (character codes: no substring is made). */
const digit = (s: string, i: number): number => s.charCodeAt(i) - 48;
/** Minutes of a validated `HH:MM`. */
const hhmm = (s: string): number => (digit(s, 0) * 10 + digit(s, 1)) * 60 + digit(s, 3) * 10 + digit(s, 4);

/** An OCPI DateTime's instant (ms): read from its characters, else as `Date.parse` reads it. */
function instantOf(s: string): number {
  const t = ocpiInstant(s);
  return t === t ? t : Date.parse(s);
}

/**
 * Fields of an element's restrictions in `PreparedTariff.rules` (RULE_FIELDS per element): times of
 * day in minutes (−1: none), dates as day numbers, weekdays as a mask (bit 0 Sunday; 0: every
 * day), limits as numbers (NaN: none), the reservation kind.
 */
const F_ANY = 0;
const F_START = 1;
const F_END = 2;
const F_FROM = 3;
const F_UNTIL = 4;
const F_DAYS = 5;
const F_MIN_KWH = 6;
const F_MAX_KWH = 7;
const F_MIN_DURATION = 8;
const F_MAX_DURATION = 9;
const F_MIN_CURRENT = 10;
const F_MAX_CURRENT = 11;
const F_MIN_POWER = 12;
const F_MAX_POWER = 13;
const F_RESERVATION = 14;
const RULE_FIELDS = 16;

/** A component entry of a dimension's list in `PreparedTariff.data`: its element, price, 1 + vat / 100 (no vat: 1), step. */
const C_ELEMENT = 0;
const C_PRICE = 1;
const C_VAT_FACTOR = 2;
const C_STEP = 3;
const COMPONENT_FIELDS = 4;

/** Restrictions as `writeRule` leaves them when an element has none: every field "no restriction". */
const NO_RULE = Float64Array.from({ length: RULE_FIELDS }, (_, i) => (i === F_START || i === F_END ? -1 : i === F_DAYS || i === F_ANY || i === F_RESERVATION ? 0 : NaN));

/**
 * An element's restrictions into `data` at `at` (D142, D144), reading only the fields it has (a
 * restriction given as null is none).
 */
function writeRule(data: Float64Array, at: number, r: OcpiRestrictions | null | undefined): void {
  for (let f = 0; f < RULE_FIELDS; f++) data[at + f] = NO_RULE[f];
  if (!r) return;
  data[at + F_ANY] = 1;
  for (const key in r) {
    const v = (r as Record<string, unknown>)[key];
    if (v == null) continue;
    const f = RULE_FIELD[key];
    if (f === F_START || f === F_END) data[at + f] = hhmm(v as string);
    else if (f === F_FROM || f === F_UNTIL) data[at + f] = dayOf(v as string);
    else if (f === F_DAYS) {
      let days = 0;
      for (const d of v as string[]) days |= 1 << WEEKDAYS.indexOf(d);
      data[at + f] = days;
    } else if (f === F_RESERVATION) data[at + f] = v === 'RESERVATION' ? RESERVATION : v === 'RESERVATION_EXPIRES' ? RESERVATION_EXPIRES : NOT_RESERVATION;
    else if (f !== undefined) data[at + f] = v as number;
  }
}

const RULE_FIELD: Record<string, number> = {
  start_time: F_START,
  end_time: F_END,
  start_date: F_FROM,
  end_date: F_UNTIL,
  day_of_week: F_DAYS,
  min_kwh: F_MIN_KWH,
  max_kwh: F_MAX_KWH,
  min_duration: F_MIN_DURATION,
  max_duration: F_MAX_DURATION,
  min_current: F_MIN_CURRENT,
  max_current: F_MAX_CURRENT,
  min_power: F_MIN_POWER,
  max_power: F_MAX_POWER,
  reservation: F_RESERVATION,
};

/** What `costBound` counts of a tariff: its local times of day, its limits, its elements per dimension. */
interface TariffShape {
  tods: number;
  limits: number;
  /** Elements with a component of ENERGY, TIME, PARKING_TIME, FLAT. */
  energy: number;
  time: number;
  parking: number;
  flat: number;
}

type Bound = { excl_vat: number; incl_vat?: number | null } | null | undefined;
const boundOf = (b: Bound): Bound => (b == null ? null : { excl_vat: b.excl_vat, incl_vat: b.incl_vat ?? null });

/**
 * A tariff ready to price sessions (D280): made by `prepareTariff`, kept by `preparedTariff`.
 * Everything in one array `data`: each element's restrictions (RULE_FIELDS each), then per
 * dimension (ENERGY, TIME, PARKING_TIME, FLAT) its elements in list order, each with the first
 * component of that dimension it has (COMPONENT_FIELDS each), then the local times of day
 * (minutes, midnight included), the duration limits (s) and the kWh limits where a period may be
 * cut, each sorted and distinct.
 */
export class PreparedTariff {
  // Written by `load` only.
  elementCount = 0;
  data: Float64Array<ArrayBuffer>;
  /** Where each dimension's list starts and ends in `data`. */
  readonly listFrom: number[] = [0, 0, 0, 0];
  readonly listTo: number[] = [0, 0, 0, 0];
  todFrom = 0;
  todTo = 0;
  durationFrom = 0;
  durationTo = 0;
  kwhFrom = 0;
  kwhTo = 0;
  minPrice: Bound = null;
  maxPrice: Bound = null;

  /** A tariff prepared in an array of its own (`tariff`), or an empty one to `load` tariffs into. */
  constructor(tariff?: OcpiTariffInput) {
    this.data = new Float64Array(tariff === undefined ? 256 : PreparedTariff.size(tariff));
    if (tariff !== undefined) this.load(tariff);
  }

  /** The most numbers `tariff` can need in `data`. */
  private static size(tariff: OcpiTariffInput): number {
    return tariff.elements.length * (RULE_FIELDS + 4 * COMPONENT_FIELDS + 6) + 1;
  }

  /** Prepares `tariff` into this object, its array grown when too short. */
  load(tariff: OcpiTariffInput): this {
    const els = tariff.elements;
    const n = els.length;
    this.elementCount = n;
    const data = (this.data = room(this.data, PreparedTariff.size(tariff)));
    // Each dimension's list has room for every element: n entries from n·RULE_FIELDS + l·n·COMPONENT_FIELDS.
    for (let l = 0; l < 4; l++) this.listFrom[l] = this.listTo[l] = n * (RULE_FIELDS + l * COMPONENT_FIELDS);
    for (let i = 0; i < n; i++) {
      writeRule(data, i * RULE_FIELDS, els[i].restrictions);
      this.writeComponents(i, els[i].price_components);
    }
    let at = n * (RULE_FIELDS + 4 * COMPONENT_FIELDS);
    this.todFrom = at;
    data[at++] = 0;
    at = this.readLimits(n, at, F_START, F_END);
    this.todTo = at = sortDistinct(data, this.todFrom, at);
    this.durationFrom = at;
    this.durationTo = at = sortDistinct(data, at, this.readLimits(n, at, F_MIN_DURATION, F_MAX_DURATION));
    this.kwhFrom = at;
    this.kwhTo = sortDistinct(data, at, this.readLimits(n, at, F_MIN_KWH, F_MAX_KWH));
    this.minPrice = tariff.min_price == null ? null : boundOf(tariff.min_price);
    this.maxPrice = tariff.max_price == null ? null : boundOf(tariff.max_price);
    return this;
  }

  /** Element `i`'s first component of each dimension onto the end of that dimension's list. */
  private writeComponents(i: number, components: readonly OcpiComponent[]): void {
    const data = this.data;
    for (let k = 0; k < components.length; k++) {
      const c = components[k];
      const type = c.type;
      const l = type === 'ENERGY' ? L_ENERGY : type === 'TIME' ? L_TIME : type === 'PARKING_TIME' ? L_PARKING : type === 'FLAT' ? L_FLAT : -1;
      if (l < 0) continue;
      const at = this.listTo[l];
      if (at > this.listFrom[l] && data[at - COMPONENT_FIELDS + C_ELEMENT] === i) continue;
      data[at + C_ELEMENT] = i;
      data[at + C_PRICE] = c.price;
      data[at + C_VAT_FACTOR] = 1 + (c.vat ?? 0) / 100;
      data[at + C_STEP] = c.step_size ?? 0;
      this.listTo[l] = at + COMPONENT_FIELDS;
    }
  }

  /** What `costBound` counts of this tariff. */
  get shape(): TariffShape {
    const len = (l: number): number => (this.listTo[l] - this.listFrom[l]) / COMPONENT_FIELDS;
    return { tods: this.todTo - this.todFrom, limits: this.durationTo - this.durationFrom + this.kwhTo - this.kwhFrom, energy: len(L_ENERGY), time: len(L_TIME), parking: len(L_PARKING), flat: len(L_FLAT) };
  }

  /** The restriction fields `f` and `g` of every element that has them, from `at` on; returns the new end. */
  private readLimits(n: number, at: number, f: number, g: number): number {
    const data = this.data;
    for (let i = 0; i < n; i++) {
      const o = i * RULE_FIELDS;
      if (data[o + F_ANY] === 0) continue;
      const x = data[o + f];
      const y = data[o + g];
      if (f === F_START ? x >= 0 : x === x) data[at++] = x;
      if (f === F_START ? y >= 0 : y === y) data[at++] = y;
    }
    return at;
  }

  /** Memory held (bytes, about): what the cache of prepared tariffs counts. */
  get bytes(): number {
    return 512 + this.data.byteLength;
  }
}

/** Prepares a validated tariff for pricing (D280). */
export function prepareTariff(tariff: OcpiTariffInput): PreparedTariff {
  return new PreparedTariff(tariff);
}

/** At most this many prepared tariffs are kept per thread, with their texts and preparations within KEPT_BYTES (D280). */
export const KEPT_TARIFFS = 256;
export const KEPT_BYTES = 16 << 20;
/** A tariff text longer than this is prepared for its request and not kept. */
export const KEPT_TEXT_MAX = 256 << 10;

const kept = new Map<string, PreparedTariff>();
let keptBytes = 0;
const keptStats = { hits: 0, misses: 0 };
const keptCost = (text: string, p: PreparedTariff): number => text.length * 2 + p.bytes;

/**
 * The prepared tariff whose JSON text is `text` (its content, not its `id`; D280): kept per
 * thread, least recently used out first; `tariff` is that text parsed, prepared on a miss.
 */
export function preparedTariff(text: string, tariff: OcpiTariffInput): PreparedTariff {
  const found = kept.get(text);
  if (found !== undefined) {
    keptStats.hits++;
    kept.delete(text);
    kept.set(text, found);
    return found;
  }
  keptStats.misses++;
  const p = prepareTariff(tariff);
  if (text.length > KEPT_TEXT_MAX) return p;
  kept.set(text, p);
  keptBytes += keptCost(text, p);
  for (const [k, v] of kept) {
    if (kept.size <= KEPT_TARIFFS && keptBytes <= KEPT_BYTES) break;
    kept.delete(k);
    keptBytes -= keptCost(k, v);
  }
  return p;
}

/** Lookups of `preparedTariff` that found the tariff prepared (hits) and that prepared it (misses), and what is kept. */
export function preparedTariffStats(): { hits: number; misses: number; kept: number; bytes: number } {
  return { ...keptStats, kept: kept.size, bytes: keptBytes };
}

/** Forgets every prepared tariff (benches measure the engine without them). */
export function clearPreparedTariffs(): void {
  kept.clear();
  keptBytes = 0;
}

/** Thrown when a session would need more than MAX_ELEMENT_CHECKS to price. */
export class CdrTooComplex extends Error {}

/**
 * The work of pricing, in element checks (one `holds` of one element on one piece; D260):
 * a piece costs PIECE_COST beyond its checks (its clock reading, context and billed lines), a
 * period PERIOD_COST (its readings, cuts and answer), a local time of day looked at as a cut
 * candidate CANDIDATE_COST. Calibrated so that the bound of the slowest bodies, times the measured
 * cost of a check, is at least their measured time (bench/cdr-cost-long.ts).
 */
const PIECE_COST = 12;
const PERIOD_COST = 60;
const CANDIDATE_COST = 1;
const DAY_MS = 86_400_000;

/** Most elements a tariff may have and still be priced with any CDR the schema accepts (D260). */
export const ELEMENTS_ALWAYS_PRICED = 100;

/** Where a tariff given as parsed JSON is prepared for one call (its array reused from call to call). */
const ONE_CALL = new PreparedTariff();
const prepared = (t: OcpiTariffInput | PreparedTariff): PreparedTariff => (t instanceof PreparedTariff ? t : ONE_CALL.load(t));

/**
 * An upper bound of the work of pricing a session in zone `tz`, in element checks, counted from
 * the inputs and the zone's offset changes before anything is cut (D172, D260). Periods do not
 * overlap, so the cuts are counted once for the whole session rather than per period: every local
 * time of day at most once per local day the session spans (once more per change of offset, which
 * can repeat an hour), every duration and kWh limit once (durations grow, energy only adds up),
 * every change of offset once. Each period's first piece costs its own checks (the elements of the
 * dimensions it bills; a reservation looks twice), every further piece the costliest period's.
 * The cut candidates looked at are the cuts, one per period and local day, and a day's times
 * around each period whose offset is not steady (one per change of offset, and those over a week).
 */
export function costBound(tariff: OcpiTariffInput | PreparedTariff, session: OcpiSessionInput, tz: string): number {
  const t = prepared(tariff).shape;
  const periods = session.charging_periods;
  const first = instantOf(periods[0].start_date_time);
  const end = instantOf(session.end_date_time);
  let cost = 2 * t.flat;
  let worstPiece = 0;
  for (let k = 0; k < periods.length; k++) {
    const checks = pieceChecks(periods[k], t);
    cost += PERIOD_COST + checks;
    if (checks > worstPiece) worstPiece = checks;
  }
  // Periods over a week: no more than the weeks the session spans (no DateTime read per period).
  const long = Math.floor(Math.max(0, end - first) / (7 * DAY_MS));
  const z = zone(tz);
  let changes = 0;
  for (let u = z.changeAfter(first, end); u < end; u = z.changeAfter(u, end)) changes++;
  return cost + sessionCuts(t, periods.length, end - first, changes, long, worstPiece);
}

/** A piece's cost in a period: the elements of each dimension it bills (D142; a reservation looks twice, D144). */
function pieceChecks(p: OcpiPeriod, t: TariffShape): number {
  let checks = PIECE_COST;
  for (const d of p.dimensions) {
    if (!(d.volume > 0)) continue;
    if (d.type === 'ENERGY') checks += t.energy;
    else if (d.type === 'TIME') checks += t.time;
    else if (d.type === 'PARKING_TIME') checks += t.parking;
    else if (d.type === 'RESERVATION_TIME') checks += 2 * t.time;
  }
  return checks;
}

/** The cost of the cuts of a session spanning `spanMs` and of looking for them (see costBound). */
function sessionCuts(t: TariffShape, periods: number, spanMs: number, changes: number, long: number, worstPiece: number): number {
  const days = Math.floor(Math.max(0, spanMs) / DAY_MS) + 1 + changes;
  const cuts = days * t.tods + t.limits + changes;
  const candidates = cuts + periods + days + (changes + long) * t.tods;
  return cuts * worstPiece + candidates * CANDIDATE_COST;
}

/**
 * Most element checks one session may need when its tariff has more than ELEMENTS_ALWAYS_PRICED
 * elements: the bound of the costliest session the schema accepts (10,000 periods billing every
 * dimension over 31 days and the 24 hours before, across two changes of offset, every period
 * but the last of 4.6 minutes) under the costliest tariff of ELEMENTS_ALWAYS_PRICED elements (each
 * with a window of its own, four limits of its own and a component of every dimension).
 */
export const MAX_ELEMENT_CHECKS = (() => {
  const n = ELEMENTS_ALWAYS_PRICED;
  const shape: TariffShape = { tods: 2 * n + 1, limits: 4 * n, energy: n, time: n, parking: n, flat: n };
  const worstPiece = PIECE_COST + shape.energy + 3 * shape.time + shape.parking;
  return 2 * shape.flat + 10_000 * (PERIOD_COST + worstPiece) + sessionCuts(shape, 10_000, 32 * DAY_MS, 2, 0, worstPiece);
})();

/**
 * Refuses a session whose tariff has more than ELEMENTS_ALWAYS_PRICED elements and whose cost bound
 * exceeds MAX_ELEMENT_CHECKS, before any work (D172, D260); else its bound.
 */
export function checkBound(tariff: OcpiTariffInput | PreparedTariff, session: OcpiSessionInput, tz: string): number {
  const t = prepared(tariff);
  const bound = costBound(t, session, tz);
  if (t.elementCount > ELEMENTS_ALWAYS_PRICED && !(bound <= MAX_ELEMENT_CHECKS)) {
    throw new CdrTooComplex(`pricing this session under this tariff of more than ${ELEMENTS_ALWAYS_PRICED} elements would take more than ${MAX_ELEMENT_CHECKS} element checks`);
  }
  return bound;
}

/** Half the last digit of the OCPI `number` type's 4 decimals, in the CDR's units (kWh, hours; D143). */
export const STEP_FORGIVEN_CDR = 0.5e-4;

/** Whether `x` lies outside `limit` as a minimum (`min`) or a maximum. */
const outside = (x: number, limit: number, min: boolean): boolean => (min ? x < limit : x > limit);

/** The bounded total of `boundTotal`, in scratch (no allocation): excluding and including VAT, and which bound set it. */
const BOUNDED = new Float64Array(2);
let boundedBy: CdrCost['price_bound'] = null;

/**
 * The session total within `min_price` and `max_price` (D145), into BOUNDED and boundedBy: first
 * the minimum, then the maximum; `excl_vat` bounds the total excluding VAT, `incl_vat` when given
 * the total including it. A bound given excluding VAT only moves the total including VAT with it,
 * keeping the session's VAT share (without a total to take the share from, it adds none).
 */
function bound(excl: number, incl: number, min: Bound, max: Bound): void {
  boundedBy = null;
  for (let k = 0; k < 2; k++) {
    const limit = k === 0 ? min : max;
    const isMin = k === 0;
    if (limit == null) continue;
    if (limit.incl_vat != null) {
      if (outside(excl, limit.excl_vat, isMin)) {
        excl = limit.excl_vat;
        boundedBy = isMin ? 'min_price' : 'max_price';
      }
      if (outside(incl, limit.incl_vat, isMin)) {
        incl = limit.incl_vat;
        boundedBy = isMin ? 'min_price' : 'max_price';
      }
    } else if (outside(excl, limit.excl_vat, isMin)) {
      incl = excl > 0 ? incl * (limit.excl_vat / excl) : limit.excl_vat;
      excl = limit.excl_vat;
      boundedBy = isMin ? 'min_price' : 'max_price';
    }
  }
  BOUNDED[0] = excl;
  BOUNDED[1] = incl;
}

/** The session total within `min_price` and `max_price` (D145; see `bound`). */
export function boundTotal(excl: number, incl: number, min: Bound, max: Bound): { money: Money; bound: CdrCost['price_bound'] } {
  bound(excl, incl, min, max);
  return { money: { excl_vat: BOUNDED[0], incl_vat: BOUNDED[1] }, bound: boundedBy };
}

/** Prices a session; the inputs are assumed valid (see `checkCdrCost`). */
export function cdrCost(tariff: OcpiTariffInput | PreparedTariff, session: OcpiSessionInput, tz: string): CdrCost {
  const t = prepared(tariff);
  checkBound(t, session, tz);
  return cdrCostBounded(t, session, tz);
}

/** The work pricing a session does, in the units of `costBound` (tests and benches hold the bound to it, D260). */
export function pricingWork(tariff: OcpiTariffInput | PreparedTariff, session: OcpiSessionInput, tz: string): number {
  PRICER.price(prepared(tariff), session, tz);
  return PRICER.work;
}

/**
 * Prices a session whose cost bound was checked already (`checkBound`; D226: on the main thread,
 * before a worker prices it). A tariff given as parsed JSON is prepared for this session alone.
 */
export function cdrCostBounded(tariff: OcpiTariffInput | PreparedTariff, session: OcpiSessionInput, tz: string): CdrCost {
  return PRICER.price(prepared(tariff), session, tz);
}

/** The element indices of period `k` of a priced session, by dimension, in the order they were first priced. */
export function elementsOf(r: CdrCost, k: number): PeriodPricing['elements'] {
  const out: PeriodPricing['elements'] = {};
  const e = r.elements;
  // −1: no dimension was priced in the period.
  const order = Math.max(0, e[5 * k + 4]);
  for (let j = 0; j < (order & 7); j++) {
    const d = (order >> (3 + 2 * j)) & 3;
    out[BILLED_NAMES[d]] = e[5 * k + d];
  }
  return out;
}

/** More than any offset change: the slack of a window whose offset is not steady. */
const OFFSET_SLACK_MS = 3 * 3_600_000;

/** Answers' per-period slots are cut from shared 64 KiB buffers: a typed array of its own costs 1–2 µs beyond 64 bytes. */
const SLAB_BYTES = 64 << 10;
let slab = new ArrayBuffer(SLAB_BYTES);
let slabAt = 0;
/** `n` Int32 slots for one answer. */
function answerSlots(n: number): Int32Array<ArrayBuffer> {
  const bytes = n * 4;
  if (bytes > SLAB_BYTES / 2) return new Int32Array(n);
  if (slabAt + bytes > SLAB_BYTES) {
    slab = new ArrayBuffer(SLAB_BYTES);
    slabAt = 0;
  }
  const v = new Int32Array(slab, slabAt, n);
  slabAt += bytes;
  return v;
}

/** A scratch array at least `n` long: `a` itself, or a larger one with `a`'s values. */
function room(a: Float64Array<ArrayBuffer>, n: number): Float64Array<ArrayBuffer> {
  if (n <= a.length) return a;
  const b = new Float64Array(Math.max(n, 2 * a.length));
  b.set(a);
  return b;
}

/**
 * Prices one session at a time in scratch state reused across sessions (D141–D145, D280): the
 * session's clock readings, volumes and sums are numbers and typed arrays; nothing is allocated
 * per period, piece or restriction check. Only the answer (`CdrCost`) is new per session.
 */
class Pricer {
  private t!: PreparedTariff;
  private zone!: Zone;
  private periods!: OcpiPeriod[];
  private t0 = 0;
  private tEnd = 0;
  private hasCharging = false;
  private hasReservation = false;
  /** Duration limits of the session as instants (ms), sorted and distinct: `durAt[0…nDur)`. */
  private durAt = new Float64Array(16);
  private nDur = 0;
  /** The cuts of the period priced, as fractions of it: `cuts[0…nCuts)`. */
  private cuts = new Float64Array(64);
  private nCuts = 0;
  /** The piece priced: its local day, minute of the day and weekday (0 Sunday), duration (s), energy before (kWh). */
  private day = 0;
  private minute = 0;
  private dow = 0;
  private durationS = 0;
  private kwhBefore = 0;
  /** The period's current and power as `min_*` and `max_*` restrictions read them (D258); NaN: not reported. */
  private minCurrent = NaN;
  private maxCurrent = NaN;
  private minPower = NaN;
  private maxPower = NaN;
  /** The period's volumes per billed dimension (CDR units). */
  private readonly vols = new Float64Array(4);
  /** Per billed dimension: units billed (Wh, s), their cost excluding and including VAT, in order. */
  private readonly units = new Float64Array(4);
  private readonly excl = new Float64Array(4);
  private readonly incl = new Float64Array(4);
  /** Per billed dimension, the component entry that billed it last (−1: none) and its piece. */
  private readonly last = new Int32Array(4);
  private readonly lastPiece = new Float64Array(4);
  /** The step's extra units per billed dimension (0: none). */
  private readonly extra = new Float64Array(4);
  /** The FLAT component entries of the session and of its reservation (−1: none). */
  private fixedAt = -1;
  private reservationFlatAt = -1;
  private out = new Int32Array(0);
  private kwh = 0;
  private seq = 0;
  /** The work done, in the units of `costBound` (D260). */
  work = 0;

  /** The cost of `session` under `t` in zone `tz`. */
  price(t: PreparedTariff, session: OcpiSessionInput, tz: string): CdrCost {
    this.begin(t, session, tz);
    const periods = this.periods;
    let b = instantOf(periods[0].start_date_time);
    for (let k = 0; k < periods.length; k++) {
      const a = b;
      b = k + 1 < periods.length ? instantOf(periods[k + 1].start_date_time) : this.tEnd;
      this.pricePeriod(k, a, b);
    }
    return this.result();
  }

  private begin(t: PreparedTariff, session: OcpiSessionInput, tz: string): void {
    this.t = t;
    this.zone = zone(tz);
    this.periods = session.charging_periods;
    this.t0 = instantOf(session.start_date_time);
    this.tEnd = instantOf(session.end_date_time);
    this.kwh = 0;
    this.seq = 0;
    this.work = 0;
    for (let dim = 0; dim < 4; dim++) {
      this.units[dim] = 0;
      this.excl[dim] = 0;
      this.incl[dim] = 0;
      this.last[dim] = -1;
      this.extra[dim] = 0;
    }
    const out = (this.out = answerSlots(5 * this.periods.length));
    for (let i = 0; i < out.length; i++) out[i] = -1;
    // Duration limits as instants: t0 + d·1000 keeps their order, so equal neighbours are the repeats.
    this.durAt = room(this.durAt, t.durationTo - t.durationFrom);
    this.nDur = 0;
    for (let i = t.durationFrom; i < t.durationTo; i++) {
      const at = this.t0 + t.data[i] * 1000;
      if (this.nDur === 0 || this.durAt[this.nDur - 1] !== at) this.durAt[this.nDur++] = at;
    }
    this.hasCharging = false;
    this.hasReservation = false;
    for (let k = 0; k < this.periods.length; k++) {
      this.readVolumes(this.periods[k]);
      if (this.vols[B_ENERGY] > 0 || this.vols[B_TIME] > 0 || this.vols[B_PARKING] > 0) this.hasCharging = true;
      if (this.vols[B_RESERVATION] > 0) this.hasReservation = true;
    }
  }

  /** A period's volumes per billed dimension into `vols`, its current and power levels into the piece's (D258). */
  private readVolumes(p: OcpiPeriod): void {
    const vols = this.vols;
    vols[0] = vols[1] = vols[2] = vols[3] = 0;
    let minC = NaN;
    let cur = NaN;
    let maxC = NaN;
    let minP = NaN;
    let pow = NaN;
    let maxP = NaN;
    const dims = p.dimensions;
    for (let i = 0; i < dims.length; i++) {
      const { type, volume } = dims[i];
      if (type === 'ENERGY') vols[B_ENERGY] += volume;
      else if (type === 'TIME') vols[B_TIME] += volume;
      else if (type === 'PARKING_TIME') vols[B_PARKING] += volume;
      else if (type === 'RESERVATION_TIME') vols[B_RESERVATION] += volume;
      else if (type === 'MIN_CURRENT') minC = minC === minC ? minC : volume;
      else if (type === 'CURRENT') cur = cur === cur ? cur : volume;
      else if (type === 'MAX_CURRENT') maxC = maxC === maxC ? maxC : volume;
      else if (type === 'MIN_POWER') minP = minP === minP ? minP : volume;
      else if (type === 'POWER') pow = pow === pow ? pow : volume;
      else if (type === 'MAX_POWER') maxP = maxP === maxP ? maxP : volume;
    }
    this.minCurrent = minC === minC ? minC : cur === cur ? cur : maxC;
    this.maxCurrent = maxC === maxC ? maxC : cur === cur ? cur : minC;
    this.minPower = minP === minP ? minP : pow === pow ? pow : maxP;
    this.maxPower = maxP === maxP ? maxP : pow === pow ? pow : minP;
  }

  /** The piece's clock: local day, minute and weekday of the local reading `localMs`. */
  private readClock(localMs: number): void {
    const day = Math.floor(localMs / 86_400_000);
    this.day = day;
    this.minute = Math.floor((localMs - day * 86_400_000) / 60_000);
    // 1970-01-01 was a Thursday (4).
    this.dow = (((day + 4) % 7) + 7) % 7;
  }

  /** Whether element `e`'s restrictions hold on the piece (D142, D258). */
  private holds(e: number): boolean {
    const r = this.t.data;
    const o = e * RULE_FIELDS;
    if (r[o + F_ANY] === 0) return true;
    const s = r[o + F_START];
    const en = r[o + F_END];
    if (s >= 0 || en >= 0) {
      const m = this.minute;
      if (s >= 0 && en >= 0) {
        if (s < en ? !(m >= s && m < en) : s > en ? !(m >= s || m < en) : false) return false;
      } else if (s >= 0 && m < s) return false;
      // A lone end_time of 00:00 is the end of the day ("to stop at the end of the day use 00:00").
      else if (en >= 0 && en !== 0 && m >= en) return false;
    }
    let x = r[o + F_FROM];
    if (x === x && this.day < x) return false;
    x = r[o + F_UNTIL];
    if (x === x && this.day >= x) return false;
    x = r[o + F_MIN_KWH];
    if (x === x && !(this.kwhBefore >= x - 1e-12)) return false;
    x = r[o + F_MAX_KWH];
    if (x === x && !(this.kwhBefore < x - 1e-12)) return false;
    x = r[o + F_MIN_DURATION];
    if (x === x && !(this.durationS >= x - 1e-9)) return false;
    x = r[o + F_MAX_DURATION];
    if (x === x && !(this.durationS < x - 1e-9)) return false;
    // A level the period does not report (NaN) meets no restriction on it.
    x = r[o + F_MIN_CURRENT];
    if (x === x && !(this.minCurrent >= x)) return false;
    x = r[o + F_MAX_CURRENT];
    if (x === x && !(this.maxCurrent < x)) return false;
    x = r[o + F_MIN_POWER];
    if (x === x && !(this.minPower >= x)) return false;
    x = r[o + F_MAX_POWER];
    if (x === x && !(this.maxPower < x)) return false;
    const days = r[o + F_DAYS];
    return !(days !== 0 && (days & (1 << this.dow)) === 0);
  }

  /** The component entry (its place in `data`) in list `l` of the first element whose restrictions hold and whose reservation kind is `kind` (D142), or −1. */
  private pick(l: number, kind: number): number {
    const t = this.t;
    const data = t.data;
    for (let o = t.listFrom[l]; o < t.listTo[l]; o += COMPONENT_FIELDS) {
      this.work++;
      const e = data[o + C_ELEMENT];
      if (data[e * RULE_FIELDS + F_RESERVATION] === kind && this.holds(e)) return o;
    }
    return -1;
  }

  /** Reservation time and fees: RESERVATION_EXPIRES elements first when nothing follows the reservation (D144). */
  private reservationKind(l: number): number {
    const j = !this.hasCharging ? this.pick(l, RESERVATION_EXPIRES) : -1;
    return j >= 0 ? j : this.pick(l, RESERVATION);
  }

  /** Adds cut fraction `f` (of a period) to `cuts`. */
  private cut(f: number): void {
    this.cuts = room(this.cuts, this.nCuts + 1);
    this.cuts[this.nCuts++] = f;
  }

  /**
   * Cuts where a local time of day of the tariff falls strictly inside (a, b). `steady` is the
   * offset when it is the same at a and b and the window is at most a week (no zone changes its
   * offset twice in a week), else NaN: then local = UTC + offset throughout, with no look-ups.
   */
  private todCuts(a: number, b: number, steady: number): void {
    const { data: tods, todFrom, todTo } = this.t;
    const z = this.zone;
    const isSteady = steady === steady;
    // The local clock readings the window can show (with slack for an offset change inside it).
    const la = isSteady ? a + steady : a + z.offset(a) - OFFSET_SLACK_MS;
    const lb = isSteady ? b + steady : b + z.offset(b) + OFFSET_SLACK_MS;
    for (let d = Math.floor(la / 86_400_000); d * 86_400_000 <= lb; d++) {
      const day = d * 86_400_000;
      let lo = todFrom;
      let hi = todTo;
      const first = (la - day) / 60_000;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (tods[mid] < first) lo = mid + 1;
        else hi = mid;
      }
      for (let i = lo; i < todTo; i++) {
        const localMs = day + tods[i] * 60_000;
        this.work += CANDIDATE_COST;
        if (localMs > lb) break;
        // Local → UTC: subtract the offset, settled twice across offset changes.
        const u = isSteady ? localMs - steady : localMs - z.offset(localMs - z.offset(localMs));
        if (u > a && u < b) this.cut((u - a) / (b - a));
      }
    }
  }

  /**
   * The cuts of a period as sorted distinct fractions of it in `cuts`, 0 and 1 included: time
   * restrictions cut where their instant falls, kWh limits where the energy so far reaches them
   * (energy spread evenly over the period; a period without duration is cut by energy alone).
   */
  private boundsOf(a: number, b: number, energy: number, steady: number): void {
    this.nCuts = 0;
    this.cut(0);
    if (b > a) {
      this.todCuts(a, b, steady);
      // Where the offset changes, the local clock jumps: a window can open or close right there
      // (02:00–02:15 of a night the clocks go back exists only after the change).
      if (steady !== steady) for (let u = this.zone.changeAfter(a, b); u < b; u = this.zone.changeAfter(u, b)) this.cut((u - a) / (b - a));
      const ds = this.durAt;
      for (let i = firstAbove(ds, 0, this.nDur, a); i < this.nDur && ds[i] < b; i++) this.cut((ds[i] - a) / (b - a));
    }
    const { data: qs, kwhTo } = this.t;
    if (energy > 0) for (let i = firstAbove(qs, this.t.kwhFrom, kwhTo, this.kwh); i < kwhTo && qs[i] < this.kwh + energy; i++) this.cut((qs[i] - this.kwh) / energy);
    this.nCuts = sortDistinct(this.cuts, 1, this.nCuts);
    this.cut(1);
  }

  /** Prices period `k` (from `a` to `b`, ms) piece by piece: each piece at its start, by the first matching element per dimension. */
  private pricePeriod(k: number, a: number, b: number): void {
    const p = this.periods[k];
    this.work += PERIOD_COST;
    this.readVolumes(p);
    const energy = this.vols[B_ENERGY];
    const offA = this.zone.offset(a);
    const steady = b - a <= 7 * 86_400_000 && this.zone.offset(b) === offA ? offA : NaN;
    this.boundsOf(a, b, energy, steady);
    const cuts = this.cuts;
    for (let s = 0; s + 1 < this.nCuts; s++) {
      const f = cuts[s];
      const share = cuts[s + 1] - f;
      const sa = a + f * Math.max(0, b - a);
      this.readClock(steady === steady ? sa + steady : sa + this.zone.offset(sa));
      this.durationS = (sa - this.t0) / 1000;
      this.kwhBefore = this.kwh + energy * f;
      const at = ++this.seq;
      this.work += PIECE_COST;
      for (let dim = 0; dim < 4; dim++) {
        const v = this.vols[dim] * share;
        if (!(v > 0)) continue;
        const o = dim === B_RESERVATION ? this.reservationKind(L_TIME) : this.pick(dim, NOT_RESERVATION);
        if (o >= 0) this.bill(k, dim, o, v, at);
      }
    }
    this.kwh += energy;
  }

  /** Bills `v` (CDR units) of dimension `dim` in period `k` with the component entry at `o`, on piece `at`. */
  private bill(k: number, dim: number, o: number, v: number, at: number): void {
    const data = this.t.data;
    const units = v * UNITS[dim];
    const x = (units / UNITS[dim]) * data[o + C_PRICE];
    this.units[dim] += units;
    this.excl[dim] += x;
    this.incl[dim] += x * data[o + C_VAT_FACTOR];
    this.last[dim] = o;
    this.lastPiece[dim] = at;
    const out = this.out;
    if (out[5 * k + dim] === -1) {
      out[5 * k + dim] = data[o + C_ELEMENT];
      const order = out[5 * k + 4] === -1 ? 0 : out[5 * k + 4];
      out[5 * k + 4] = ((order & 7) + 1) | (order & ~7) | (dim << (3 + 2 * (order & 7)));
    }
  }

  /**
   * step_size on each dimension's total, at the component that billed it last (D143): into
   * `extra`. When parking is billed after the last charging time, the TIME step is not applied;
   * the parking step rounds the parking time alone, or the charging and parking time together
   * when one element priced both last (D257).
   */
  private stepExtras(): void {
    const last = this.last;
    const data = this.t.data;
    const intoParking = last[B_TIME] >= 0 && last[B_PARKING] >= 0 && this.lastPiece[B_PARKING] > this.lastPiece[B_TIME];
    for (let dim = 0; dim < 4; dim++) {
      if (last[dim] < 0 || (dim === B_TIME && intoParking)) continue;
      const step = data[last[dim] + C_STEP];
      if (!(step > 0)) continue;
      let total = this.units[dim];
      // Charging time already billed counts towards the step of the element that prices both.
      const before = dim === B_PARKING && intoParking && data[last[B_PARKING] + C_ELEMENT] === data[last[B_TIME] + C_ELEMENT] ? this.units[B_TIME] : 0;
      total += before;
      // Only what lies below the CDR's own precision is forgiven (half the last digit of the OCPI
      // number's 4 decimals: 0.05 Wh, 0.18 s), and float noise (a billionth of a step, so that no
      // round volume sits on the threshold); never a fraction of the step.
      const stepped = Math.ceil((total - STEP_FORGIVEN_CDR * UNITS[dim]) / step - 1e-9) * step;
      if (stepped > total) this.extra[dim] = stepped - total;
    }
  }

  /** The cost of each billed dimension with its step (D143) into `excl` and `incl`. */
  private addSteps(): void {
    const data = this.t.data;
    for (let dim = 0; dim < 4; dim++) {
      const units = this.extra[dim];
      if (!(units > 0)) continue;
      const o = this.last[dim];
      const x = (units / UNITS[dim]) * data[o + C_PRICE];
      this.excl[dim] += x;
      this.incl[dim] += x * data[o + C_VAT_FACTOR];
    }
  }

  /** The FLAT fees at the session's start (D142), and a reservation's from a reservation element (D144): their component entries (−1: none). */
  private flats(): void {
    this.readVolumes(this.periods[0]);
    this.readClock(this.t0 + this.zone.offset(this.t0));
    this.durationS = 0;
    this.kwhBefore = 0;
    this.fixedAt = this.hasCharging ? this.pick(L_FLAT, NOT_RESERVATION) : -1;
    this.reservationFlatAt = this.hasReservation ? this.reservationKind(L_FLAT) : -1;
  }

  /** The priced session: costs per dimension with their steps, FLAT fees, the bounded total, 4 decimals (D145, D146). */
  private result(): CdrCost {
    this.stepExtras();
    this.addSteps();
    this.flats();
    const excl = this.excl;
    const incl = this.incl;
    const data = this.t.data;
    const fixedExcl = this.fixedAt < 0 ? 0 : data[this.fixedAt + C_PRICE];
    const fixedIncl = this.fixedAt < 0 ? 0 : data[this.fixedAt + C_PRICE] * data[this.fixedAt + C_VAT_FACTOR];
    const r = this.reservationFlatAt;
    const reservationExcl = excl[B_RESERVATION] + (r < 0 ? 0 : data[r + C_PRICE]);
    const reservationIncl = incl[B_RESERVATION] + (r < 0 ? 0 : data[r + C_PRICE] * data[r + C_VAT_FACTOR]);
    bound(
      0 + excl[B_ENERGY] + excl[B_TIME] + excl[B_PARKING] + fixedExcl + reservationExcl,
      0 + incl[B_ENERGY] + incl[B_TIME] + incl[B_PARKING] + fixedIncl + reservationIncl,
      this.t.minPrice,
      this.t.maxPrice,
    );
    return {
      total_cost: m4(BOUNDED[0], BOUNDED[1]),
      total_energy_cost: m4(excl[B_ENERGY], incl[B_ENERGY]),
      total_time_cost: m4(excl[B_TIME], incl[B_TIME]),
      total_parking_time_cost: m4(excl[B_PARKING], incl[B_PARKING]),
      total_fixed_cost: m4(fixedExcl, fixedIncl),
      total_reservation_cost: m4(reservationExcl, reservationIncl),
      billed: { energy: this.billedVolume(B_ENERGY), time: this.billedVolume(B_TIME), parking_time: this.billedVolume(B_PARKING), reservation_time: this.billedVolume(B_RESERVATION) },
      price_bound: boundedBy,
      elements: this.out,
    };
  }

  /** A dimension's billed volume with its step, in CDR units, 4 decimals. */
  private billedVolume(dim: number): number {
    return r4((this.units[dim] + this.extra[dim]) / UNITS[dim]);
  }
}

const PRICER = new Pricer();

/** Index of the first of sorted `xs[from…to)` greater than `x` (binary search), or `to`. */
function firstAbove(xs: Float64Array, from: number, to: number, x: number): number {
  let lo = from;
  let hi = to;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (xs[mid] <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Sorts `xs[from…n)` ascending in place and drops repeats; returns the new end. Insertion sort: cuts come nearly sorted. */
function sortDistinct(xs: Float64Array, from: number, n: number): number {
  for (let i = from + 1; i < n; i++) {
    const x = xs[i];
    let j = i - 1;
    while (j >= from && xs[j] > x) {
      xs[j + 1] = xs[j];
      j--;
    }
    xs[j + 1] = x;
  }
  let m = from;
  for (let i = from; i < n; i++) if (m === from || xs[m - 1] !== xs[i]) xs[m++] = xs[i];
  return m;
}

const r4 = (x: number): number => Math.round(x * 1e4) / 1e4 + 0;
const m4 = (excl: number, incl: number): Money => ({ excl_vat: r4(excl), incl_vat: r4(incl) });
