/**
 * Import of published OCPI 2.2.1 tariffs into the stored tariff model, for the default catalog of
 * the snapshot. The segment mapping itself is the pricing engine's converter
 * (src/domain/pricing/ocpi.ts: FLAT → session, ENERGY → kwh, TIME → minute at price/60,
 * PARKING_TIME → parking_minute, step_size → billing_increment, start/end_time → time window,
 * min/max_duration → minute ranges, min/max_kwh → kWh ranges, start/end_date against a date).
 * This module adds, per element, what the catalog needs on top (each is an approximation):
 *
 * 1. VAT. Segment prices include VAT, OCPI prices do not. A component without `vat` gets
 *    `defaultVat` (20 % for the French data) unless the tariff says `tax_included: "YES"`
 *    (Tesla's objects), in which case its prices are taken as they are.
 * 2. Power. `min_power` / `max_power` (kW) become an `allow` restriction with a power range
 *    [min_power, max_power] (missing bound → 0 / 10000). OCPI's max_power is exclusive, the range
 *    is inclusive: a station exactly at max_power matches both neighbouring elements.
 * 3. First match. The tariff selects the first match (D147), as OCPI does; a segment whose
 *    dimension an earlier element already prices unconditionally (no window, range, day or power
 *    restriction) can never apply and is left out. day_of_week → days_of_week (D148);
 *    min/max_price → the tariff's bounds incl. VAT (D149): `incl_vat`, else `excl_vat` with the
 *    VAT of point 1.
 * 4. Ranges. Stored ranges are whole numbers (D56): minute bounds are rounded to the nearest minute.
 * 5. Not representable and ignored: min/max_current, Tesla's CONGESTION_TIME with its
 *    `min_congestion_threshold` / `min_vehicle_soc`. Reservation elements price no charge.
 */
import type { OcpiPriceBound, OcpiTariff } from '../ocpi/model.js';
import type { OcpiConversion, OcpiConversionOptions } from '../pricing/ocpi.js';
import type { Segment } from '../pricing/model.js';
import type { StoredComponent, StoredRestriction, StoredSegment } from './model.js';

/**
 * A published OCPI tariff object as the import reads it: the OCPI model (src/domain/ocpi/model.ts),
 * with the currency that several published objects omit, and Tesla's `tax_included`.
 */
export type OcpiTariffObject = Omit<OcpiTariff, 'currency'> & { currency?: string; tax_included?: string };

/** The converter to the segment model (src/domain/pricing/ocpi.ts `ocpiToComponents`), handed in by the caller. */
export type OcpiConverter = (t: OcpiTariff, options?: OcpiConversionOptions) => OcpiConversion;

export interface OcpiImportOptions {
  /** VAT percent for components without `vat` (unless `tax_included` is "YES"). */
  defaultVat: number;
  /** Currency when the object has none (several published objects omit it). */
  defaultCurrency: string;
  /** Local date (YYYY-MM-DD) at which start_date/end_date restrictions are evaluated. */
  date: string;
}

export interface OcpiImport {
  currency: string;
  prices: StoredComponent[];
  price_selection: 'first_match';
  min_price: number | null;
  max_price: number | null;
  warnings: string[];
}

const MAX_POWER = 10000;

export function storedSegment(s: Segment): StoredSegment {
  const round = (v: number | null | undefined): number | null => (v == null ? null : Math.round(v));
  return {
    dimension: s.dimension,
    price: s.price,
    range_gte: round(s.range_gte),
    range_lt: round(s.range_lt),
    billing_increment: s.billing_increment ?? null,
    currency: s.currency ?? null,
    time_of_day_start: s.time_of_day_start ?? null,
    time_of_day_end: s.time_of_day_end ?? null,
    ...(s.days_of_week != null && s.days_of_week.length > 0 ? { days_of_week: s.days_of_week } : {}),
    is_average_price: false,
    occupancy_gte: null,
    occupancy_lt: null,
  };
}

export function powerRestriction(min: number | null, max: number | null): StoredRestriction {
  return {
    allowance: 'allow',
    charge_point_powers: [min ?? 0, max ?? MAX_POWER],
    charge_point_energy_type: null,
    cpo_ids: [],
    countries: [],
    car_ac_phase: null,
    charge_point_power_is_range: true,
    use_consumed_charging_power: false,
  };
}

/** Converts one published OCPI tariff into stored price components (see the module comment). */
export function importOcpiTariff(t: OcpiTariffObject, convert: OcpiConverter, o: OcpiImportOptions): OcpiImport {
  const currency = (t.currency ?? o.defaultCurrency).toUpperCase();
  const taxIncluded = typeof t.tax_included === 'string' && t.tax_included.toUpperCase() === 'YES';
  const warnings: string[] = [];
  const prices: StoredComponent[] = [];
  const unconditional = new Set<string>();
  const bound = (b: OcpiPriceBound | null | undefined): number | null => {
    if (b == null || typeof b !== 'object') return null;
    const { excl_vat, incl_vat } = b;
    if (typeof incl_vat === 'number') return incl_vat;
    if (typeof excl_vat !== 'number') return null;
    return taxIncluded ? excl_vat : excl_vat * (1 + o.defaultVat / 100);
  };
  t.elements.forEach((el, ei) => {
    const r = el.restrictions ?? {};
    const withVat = {
      ...el,
      price_components: el.price_components.map((pc) =>
        pc.vat == null && !taxIncluded ? { ...pc, vat: o.defaultVat } : pc,
      ),
    };
    const conv = convert({ currency, elements: [withVat] }, { date: o.date });
    for (const w of conv.warnings) {
      if (!/restriction (min_power|max_power) is not representable/.test(w)) warnings.push(w.replace('element 0', `element ${ei}`));
    }
    if (conv.prices.length === 0) return;
    const minP = typeof r.min_power === 'number' ? r.min_power : null;
    const maxP = typeof r.max_power === 'number' ? r.max_power : null;
    const restrictions = minP !== null || maxP !== null ? [powerRestriction(minP, maxP)] : [];
    const decomposition: StoredSegment[] = [];
    for (const c of conv.prices) {
      for (const s of c.decomposition) {
        if (unconditional.has(s.dimension)) {
          warnings.push(`element ${ei}: ${s.dimension} already priced unconditionally by an earlier element, dropped`);
          continue;
        }
        decomposition.push(storedSegment(s));
      }
    }
    for (const s of decomposition) {
      if (restrictions.length === 0 && s.time_of_day_start === null && s.range_gte === null && s.range_lt === null && s.days_of_week === undefined) {
        unconditional.add(s.dimension);
      }
    }
    if (decomposition.length > 0) prices.push({ restrictions, decomposition });
  });
  return { currency, prices, price_selection: 'first_match', min_price: bound(t.min_price), max_price: bound(t.max_price), warnings };
}
