/**
 * OCPI tariff (2.1.1 / 2.2.1) → segment model converter, used to cross-check the engine against
 * OCPI fixtures and to import published OCPI tariffs.
 *
 * Mapping (spec endpoint 2, rule 4, read backwards):
 * - price component type: FLAT → `session`, ENERGY → `kwh`, TIME → `minute` (price per hour / 60),
 *   PARKING_TIME → `parking_minute` (priced 0 by charge prices, D72).
 * - VAT: segment prices include VAT, OCPI prices do not; each price is multiplied by
 *   (1 + vat/100) when the component carries `vat` (2.1.1 has none: prices are taken as they are).
 * - step_size → billing_increment: seconds / 60 for TIME and PARKING_TIME, Wh / 1000 for ENERGY;
 *   0 or missing → none; FLAT ignores it.
 * - restrictions.start_time/end_time (local time) → time_of_day_start/end in minutes; "00:00"
 *   as end = midnight (wrapping windows such as 20:00–00:00 work as in D80).
 * - restrictions.min_duration/max_duration (seconds) → range_gte/range_lt in minutes, on TIME
 *   and PARKING_TIME only; min_kwh/max_kwh → range_gte/range_lt on ENERGY only.
 * - restrictions.start_date/end_date: with `options.date` (the session's local date) elements
 *   outside the dates are dropped; without it they are kept with a warning.
 *
 * Approximations, each reported in `warnings` when met:
 * - OCPI takes, per dimension, the FIRST element whose restrictions hold; the segment model adds
 *   every matching segment. Elements of one dimension whose windows and ranges overlap are
 *   converted as they are (overlap warning).
 * - OCPI step_size rounds the session's total of a dimension (the last period), D83 rounds each
 *   segment: results differ when several segments of one dimension with increments are used.
 * - Not representable, dropped with a warning: min_price/max_price, day_of_week, reservation,
 *   min/max_current, min/max_power, duration restrictions on ENERGY/FLAT, kWh restrictions on
 *   TIME/FLAT, unknown component types (e.g. SESSION_TIME).
 */
import type { Dimension, PriceComponent, Segment } from './model.js';

export interface OcpiPriceComponent {
  type: string;
  price: number;
  vat?: number | null;
  step_size?: number | null;
}

export interface OcpiRestrictions {
  start_time?: string;
  end_time?: string;
  start_date?: string;
  end_date?: string;
  min_kwh?: number;
  max_kwh?: number;
  min_duration?: number;
  max_duration?: number;
  [other: string]: unknown;
}

export interface OcpiTariff {
  id?: string;
  currency: string;
  elements: { price_components: OcpiPriceComponent[]; restrictions?: OcpiRestrictions | null }[];
  min_price?: unknown;
  max_price?: unknown;
}

export interface OcpiConversionOptions {
  /** Local date (YYYY-MM-DD) of the session, to apply start_date/end_date restrictions. */
  date?: string;
}

export interface OcpiConversion {
  currency: string;
  /** One price component per kept element, without restrictions. */
  prices: PriceComponent[];
  warnings: string[];
}

const DIMENSION_OF: Record<string, Dimension> = {
  FLAT: 'session',
  ENERGY: 'kwh',
  TIME: 'minute',
  PARKING_TIME: 'parking_minute',
};

const HANDLED = new Set(['start_time', 'end_time', 'start_date', 'end_date', 'min_kwh', 'max_kwh', 'min_duration', 'max_duration']);

function minutesOfDay(hhmm: string): number {
  const [h, m] = hhmm.split(':').map(Number);
  return h * 60 + m;
}

/** Converts one OCPI tariff; see the module comment for the mapping and its limits. */
export function ocpiToComponents(t: OcpiTariff, options: OcpiConversionOptions = {}): OcpiConversion {
  const warnings: string[] = [];
  const prices: PriceComponent[] = [];
  if (t.min_price != null) warnings.push('min_price is not representable');
  if (t.max_price != null) warnings.push('max_price is not representable');
  t.elements.forEach((el, ei) => {
    const r = el.restrictions ?? {};
    for (const key of Object.keys(r)) {
      if (!HANDLED.has(key) && r[key] != null) warnings.push(`element ${ei}: restriction ${key} is not representable`);
    }
    if (r.start_date || r.end_date) {
      if (options.date === undefined) warnings.push(`element ${ei}: start_date/end_date kept without a session date`);
      else if ((r.start_date && options.date < r.start_date) || (r.end_date && options.date >= r.end_date)) return;
    }
    const hasWindow = r.start_time != null || r.end_time != null;
    const start = r.start_time != null ? minutesOfDay(r.start_time) : 0;
    const end = r.end_time != null ? minutesOfDay(r.end_time) : 1440;
    const decomposition: Segment[] = [];
    for (const pc of el.price_components) {
      const dimension = DIMENSION_OF[pc.type];
      if (!dimension) {
        warnings.push(`element ${ei}: component type ${pc.type} is not representable`);
        continue;
      }
      const timeBased = dimension === 'minute' || dimension === 'parking_minute';
      const gross = pc.vat != null ? pc.price * (1 + pc.vat / 100) : pc.price;
      const step = pc.step_size ?? 0;
      const seg: Segment = {
        dimension,
        price: timeBased ? gross / 60 : gross,
        billing_increment: dimension === 'session' || step <= 0 ? null : timeBased ? step / 60 : step / 1000,
        currency: null,
        time_of_day_start: hasWindow ? start : null,
        time_of_day_end: hasWindow ? end : null,
        range_gte: null,
        range_lt: null,
      };
      if (r.min_duration != null || r.max_duration != null) {
        if (timeBased) {
          seg.range_gte = r.min_duration != null ? r.min_duration / 60 : null;
          seg.range_lt = r.max_duration != null ? r.max_duration / 60 : null;
        } else warnings.push(`element ${ei}: duration restriction on ${pc.type} is not representable`);
      }
      if (r.min_kwh != null || r.max_kwh != null) {
        if (dimension === 'kwh') {
          seg.range_gte = r.min_kwh ?? null;
          seg.range_lt = r.max_kwh ?? null;
        } else warnings.push(`element ${ei}: kWh restriction on ${pc.type} is not representable`);
      }
      decomposition.push(seg);
    }
    if (decomposition.length > 0) prices.push({ restrictions: [], decomposition });
  });
  warnOverlaps(prices, warnings);
  return { currency: t.currency, prices, warnings };
}

function windowPieces(s: Segment): [number, number][] {
  const a = s.time_of_day_start;
  const b = s.time_of_day_end;
  if (a == null || b == null || a === b) return [[0, 1440]];
  return a < b ? [[a, b]] : [[a, 1440], [0, b]];
}

function overlaps(x: Segment, y: Segment): boolean {
  const rangeOverlap = (x.range_gte ?? -Infinity) < (y.range_lt ?? Infinity) && (y.range_gte ?? -Infinity) < (x.range_lt ?? Infinity);
  if (!rangeOverlap) return false;
  for (const [a, b] of windowPieces(x)) for (const [c, d] of windowPieces(y)) if (a < d && c < b) return true;
  return false;
}

function warnOverlaps(prices: PriceComponent[], warnings: string[]): void {
  const segs = prices.flatMap((p, i) => p.decomposition.map((s) => ({ s, i })));
  for (let a = 0; a < segs.length; a++) {
    for (let b = a + 1; b < segs.length; b++) {
      if (segs[a].i === segs[b].i || segs[a].s.dimension !== segs[b].s.dimension) continue;
      if (overlaps(segs[a].s, segs[b].s)) {
        warnings.push(`elements ${segs[a].i} and ${segs[b].i} overlap in ${segs[a].s.dimension}: OCPI uses the first, the segment model adds both`);
      }
    }
  }
}
