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
 * - restrictions.start_date/end_date: with `options.date` (the session's local date) elements
 *   outside the dates are dropped; without it they are kept with a warning.
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
  /** Local date (YYYY-MM-DD) of the session, to apply start_date/end_date restrictions. */
  date?: string;
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
  const min_price = bound(t.min_price, 'min_price');
  const max_price = bound(t.max_price, 'max_price');
  t.elements.forEach((el, ei) => {
    const r = el.restrictions ?? {};
    if (r.reservation != null) return;
    for (const [key, value] of Object.entries(r)) {
      if (!HANDLED.has(key) && value != null) warnings.push(`element ${ei}: restriction ${key} is not representable`);
    }
    if (r.start_date || r.end_date) {
      if (options.date === undefined) warnings.push(`element ${ei}: start_date/end_date kept without a session date`);
      else if ((r.start_date && options.date < r.start_date) || (r.end_date && options.date >= r.end_date)) return;
    }
    const days = r.day_of_week != null && r.day_of_week.length > 0 ? [...new Set(r.day_of_week.map((d) => ISO_DAY.get(d)).filter((d) => d !== undefined))].sort((a, b) => a - b) : null;
    const hasWindow = r.start_time != null || r.end_time != null;
    const start = r.start_time != null ? minutesOfDay(r.start_time) : 0;
    const end = r.end_time != null ? minutesOfDay(r.end_time) : 1440;
    const decomposition: Segment[] = [];
    for (const pc of el.price_components) {
      const dimension = DIMENSION_OF.get(pc.type);
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
      if (days !== null && days.length > 0) seg.days_of_week = days;
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
  return { currency: t.currency, prices, price_selection: 'first_match', min_price, max_price, warnings };
}
