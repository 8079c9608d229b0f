/**
 * OCPI tariff (2.1.1 / 2.2.1) → segment model converter, used to import published OCPI tariffs and
 * to check charge prices against the CDR cost engine (src/domain/ocpi/cdr-cost.ts).
 *
 * The result selects the first match (D147), as OCPI does: per dimension, the first element
 * whose restrictions hold prices each moment, and step_size counts once on each dimension's total.
 * Mapping (spec endpoint 2, rule 4, read backwards):
 * - price component type: FLAT → `session`, ENERGY → `kwh`, TIME → `minute` (price per hour / 60),
 *   PARKING_TIME → `parking_minute` (priced 0 by charge prices, D72).
 * - VAT: segment prices include VAT, OCPI prices do not; each price is multiplied by
 *   (1 + vat/100) when the component carries `vat` (2.1.1 has none: prices are taken as they are).
 * - step_size → billing_increment: seconds / 60 for TIME and PARKING_TIME, Wh / 1000 for ENERGY;
 *   0 or missing → none; FLAT ignores it.
 * - min_price/max_price → the tariff's bounds (D149): `incl_vat`, or `excl_vat` when no component
 *   has VAT.
 * - restrictions.start_time/end_time (local time) → time_of_day_start/end in minutes; "00:00"
 *   as end = midnight (wrapping windows such as 20:00–00:00 work as in D80).
 * - restrictions.day_of_week → days_of_week (1 = Monday … 7 = Sunday, D148).
 * - restrictions.min_duration/max_duration (seconds) → range_gte/range_lt in minutes, on TIME
 *   and PARKING_TIME only; min_kwh/max_kwh → range_gte/range_lt on ENERGY only.
 * - restrictions.start_date/end_date: with `options.sessionDate` (the session's local start date)
 *   the days of the week from it within the dates become the element's days (D227); with
 *   `options.date` (a catalog import) elements outside the dates are dropped; without either
 *   they are kept with a warning.
 * - What PUT /v2/tariffs refuses is never output without a warning (D227): ranges empty as given
 *   leave the element out (it never applies); bounds that are not whole minutes or kWh are
 *   rounded (warning); increments and prices over the stored limits are capped (warning);
 *   min_price above max_price becomes max_price.
 * - Elements with a `reservation` restriction are left out: they price reservations, which a
 *   charge has none of.
 *
 * Not representable, dropped with a warning: min/max_current, min/max_power, duration
 * restrictions on ENERGY/FLAT, kWh restrictions on TIME/FLAT, bounds without incl_vat on a
 * tariff with VAT, unknown component types (e.g. SESSION_TIME).
 */
import type { OcpiPriceComponent, OcpiRestrictions, OcpiTariff } from '../ocpi/model.js';
import type { Dimension, PriceComponent, Segment } from './model.js';

export type { OcpiPriceComponent, OcpiRestrictions, OcpiTariff };

export interface OcpiConversionOptions {
  /**
   * Local date (YYYY-MM-DD) of a catalog import: an element whose start_date/end_date exclude it is
   * left out, else kept whole (a stored tariff serves sessions of any date).
   */
  date?: string;
  /**
   * Local date (YYYY-MM-DD) the session starts on: an element applies on the days of the week from
   * it that lie within its dates, cut at local midnight (D227; exact for sessions under a week).
   */
  sessionDate?: string;
}

export interface OcpiConversion {
  currency: string;
  /** One price component per kept element, without restrictions. */
  prices: PriceComponent[];
  price_selection: 'first_match';
  min_price: number | null;
  max_price: number | null;
  warnings: string[];
}

// Maps, not object literals: a name from a tariff (`constructor`) must not find a prototype member.
const DIMENSION_OF = new Map<string, Dimension>([
  ['FLAT', 'session'],
  ['ENERGY', 'kwh'],
  ['TIME', 'minute'],
  ['PARKING_TIME', 'parking_minute'],
]);

const HANDLED = new Set(['start_time', 'end_time', 'start_date', 'end_date', 'min_kwh', 'max_kwh', 'min_duration', 'max_duration', 'day_of_week', 'reservation']);
const ISO_DAY = new Map<string, number>([
  ['MONDAY', 1],
  ['TUESDAY', 2],
  ['WEDNESDAY', 3],
  ['THURSDAY', 4],
  ['FRIDAY', 5],
  ['SATURDAY', 6],
  ['SUNDAY', 7],
]);

function minutesOfDay(hhmm: string): number {
  const [h, m] = hhmm.split(':').map(Number);
  return h * 60 + m;
}

/** Most a stored billing increment (minutes or kWh) and a stored price may be (D56). */
const MAX_INCREMENT = 1e6;
const MAX_PRICE = 1e9;

/** ISO weekdays of the seven days from `date` on that lie within [start, end) (D227). */
function daysWithin(date: string, start: string | null | undefined, end: string | null | undefined): number[] {
  const t = Date.parse(`${date}T00:00:00Z`);
  const days: number[] = [];
  for (let i = 0; i < 7; i++) {
    const at = new Date(t + i * 86_400_000);
    const d = at.toISOString().slice(0, 10);
    if ((start == null || d >= start) && (end == null || d < end)) days.push(((at.getUTCDay() + 6) % 7) + 1);
  }
  return days.sort((a, b) => a - b);
}

/** An element's ISO days (null: every day), or [] when it applies on none of the session's days. */
function elementDays(r: OcpiRestrictions, options: OcpiConversionOptions, ei: number, warnings: string[]): number[] | null {
  let days = r.day_of_week != null && r.day_of_week.length > 0 ? [...new Set(r.day_of_week.map((d) => ISO_DAY.get(d)).filter((d) => d !== undefined))].sort((a, b) => a - b) : null;
  if (days !== null && days.length === 0) days = null;
  if (r.start_date || r.end_date) {
    if (options.sessionDate !== undefined) {
      const within = daysWithin(options.sessionDate, r.start_date, r.end_date);
      days = days === null ? within : days.filter((d) => within.includes(d));
      if (days.length === 0) return [];
    } else if (options.date !== undefined) {
      if ((r.start_date && options.date < r.start_date) || (r.end_date && options.date >= r.end_date)) return [];
    } else warnings.push(`element ${ei}: start_date/end_date kept without a session date`);
  }
  return days !== null && days.length === 7 ? null : days;
}

/** Whether a restriction's range is empty as given: the element never applies (D227). */
function emptyRange(r: OcpiRestrictions): boolean {
  return (r.min_kwh != null && r.max_kwh != null && r.min_kwh >= r.max_kwh) || (r.min_duration != null && r.max_duration != null && r.min_duration >= r.max_duration);
}

/** A range bound as stored: a whole number, rounded with a warning when it is not one (D56, D227). */
function whole(v: number | null | undefined, what: string, ei: number, warnings: string[]): number | null {
  if (v == null) return null;
  const r = Math.round(v);
  if (Math.abs(r - v) > 1e-9) warnings.push(`element ${ei}: ${what} ${+v.toFixed(6)} is not whole, rounded to ${r}`);
  return r;
}

/** The element's range on a segment of `dimension`, null when it has none; 'empty' when rounding left none. */
function rangeOf(r: OcpiRestrictions, dimension: Dimension, type: string, ei: number, warnings: string[]): { gte: number | null; lt: number | null } | 'empty' {
  let gte: number | null = null;
  let lt: number | null = null;
  const timeBased = dimension === 'minute' || dimension === 'parking_minute';
  if (r.min_duration != null || r.max_duration != null) {
    if (timeBased) {
      gte = whole(r.min_duration != null ? r.min_duration / 60 : null, 'min_duration (minutes)', ei, warnings);
      lt = whole(r.max_duration != null ? r.max_duration / 60 : null, 'max_duration (minutes)', ei, warnings);
    } else warnings.push(`element ${ei}: duration restriction on ${type} is not representable`);
  }
  if (r.min_kwh != null || r.max_kwh != null) {
    if (dimension === 'kwh') {
      gte = whole(r.min_kwh, 'min_kwh', ei, warnings);
      lt = whole(r.max_kwh, 'max_kwh', ei, warnings);
    } else warnings.push(`element ${ei}: kWh restriction on ${type} is not representable`);
  }
  if (gte !== null && lt !== null && gte >= lt) {
    warnings.push(`element ${ei}: its ${type} range is empty once rounded, left out`);
    return 'empty';
  }
  return { gte, lt };
}

/** One price component's segment, or null when it is not representable or can never apply. */
function segmentOf(pc: OcpiPriceComponent, r: OcpiRestrictions, days: number[] | null, ei: number, warnings: string[]): Segment | null {
  const dimension = DIMENSION_OF.get(pc.type);
  if (!dimension) {
    warnings.push(`element ${ei}: component type ${pc.type} is not representable`);
    return null;
  }
  const timeBased = dimension === 'minute' || dimension === 'parking_minute';
  const gross = pc.vat != null ? pc.price * (1 + pc.vat / 100) : pc.price;
  let price = timeBased ? gross / 60 : gross;
  if (price > MAX_PRICE) {
    warnings.push(`element ${ei}: ${pc.type} price ${price} is over ${MAX_PRICE}, capped`);
    price = MAX_PRICE;
  }
  const step = pc.step_size ?? 0;
  let increment = dimension === 'session' || step <= 0 ? null : timeBased ? step / 60 : step / 1000;
  if (increment !== null && increment > MAX_INCREMENT) {
    warnings.push(`element ${ei}: ${pc.type} step_size ${step} is over the largest billing increment, capped`);
    increment = MAX_INCREMENT;
  }
  const range = rangeOf(r, dimension, pc.type, ei, warnings);
  if (range === 'empty') return null;
  const hasWindow = r.start_time != null || r.end_time != null;
  const seg: Segment = {
    dimension,
    price,
    billing_increment: increment,
    currency: null,
    time_of_day_start: hasWindow ? (r.start_time != null ? minutesOfDay(r.start_time) : 0) : null,
    time_of_day_end: hasWindow ? (r.end_time != null ? minutesOfDay(r.end_time) : 1440) : null,
    range_gte: range.gte,
    range_lt: range.lt,
  };
  if (days !== null && days.length > 0) seg.days_of_week = days;
  return seg;
}

/** Converts one OCPI tariff; see the module comment for the mapping and its limits. */
export function ocpiToComponents(t: OcpiTariff, options: OcpiConversionOptions = {}): OcpiConversion {
  const warnings: string[] = [];
  const prices: PriceComponent[] = [];
  const withVat = t.elements.some((el) => el.price_components.some((pc) => pc.vat != null));
  const bound = (b: OcpiTariff['min_price'], name: string): number | null => {
    if (b == null) return null;
    if (b.incl_vat != null) return b.incl_vat;
    if (!withVat) return b.excl_vat;
    warnings.push(`${name} without incl_vat is not representable`);
    return null;
  };
  const minGiven = bound(t.min_price, 'min_price');
  const max_price = bound(t.max_price, 'max_price');
  // The minimum applies first, then the maximum (D145): above the maximum, the maximum prices every session.
  const min_price = minGiven !== null && max_price !== null && minGiven > max_price ? max_price : minGiven;
  t.elements.forEach((el, ei) => {
    const r = el.restrictions ?? {};
    if (r.reservation != null || emptyRange(r)) return;
    for (const [key, value] of Object.entries(r)) {
      if (!HANDLED.has(key) && value != null) warnings.push(`element ${ei}: restriction ${key} is not representable`);
    }
    const days = elementDays(r, options, ei, warnings);
    if (days !== null && days.length === 0) return;
    const decomposition: Segment[] = [];
    for (const pc of el.price_components) {
      const seg = segmentOf(pc, r, days, ei, warnings);
      if (seg !== null) decomposition.push(seg);
    }
    if (decomposition.length > 0) prices.push({ restrictions: [], decomposition });
  });
  return { currency: t.currency, prices, price_selection: 'first_match', min_price, max_price, warnings };
}
