/**
 * The OCPI tariff model (2.2.1, read leniently enough for 2.1.1 and published objects): one
 * definition for the CDR cost engine (src/domain/ocpi/cdr-cost.ts), the converter to the segment
 * model (src/domain/pricing/ocpi.ts) and the import of published tariffs into the default catalog
 * (src/domain/tariffs/ocpi-import.ts).
 */

/** The price component types the OCPI text defines. */
export type OcpiDimension = 'ENERGY' | 'FLAT' | 'TIME' | 'PARKING_TIME';

/**
 * A price component. `C` is its type: any text as published (importers meet SESSION_TIME,
 * CONGESTION_TIME and others and report them), or `OcpiDimension` once validated (cdr_cost).
 */
export interface OcpiPriceComponent<C extends string = string> {
  type: C;
  price: number;
  vat?: number | null;
  step_size?: number | null;
}

export interface OcpiRestrictions {
  start_time?: string | null;
  end_time?: string | null;
  start_date?: string | null;
  end_date?: string | null;
  min_kwh?: number | null;
  max_kwh?: number | null;
  min_current?: number | null;
  max_current?: number | null;
  min_power?: number | null;
  max_power?: number | null;
  min_duration?: number | null;
  max_duration?: number | null;
  day_of_week?: string[] | null;
  reservation?: 'RESERVATION' | 'RESERVATION_EXPIRES' | null;
}

export interface OcpiTariffElement<C extends string = string> {
  price_components: OcpiPriceComponent<C>[];
  restrictions?: OcpiRestrictions | null;
}

/** `min_price` / `max_price`. */
export interface OcpiPriceBound {
  excl_vat: number;
  incl_vat?: number | null;
}

/** A localised text (OCPI DisplayText). */
export interface OcpiDisplayText {
  language: string;
  text: string;
}

export interface OcpiTariff<C extends string = string> {
  id?: string;
  country_code?: string;
  party_id?: string;
  currency: string;
  tariff_alt_text?: OcpiDisplayText[];
  elements: OcpiTariffElement<C>[];
  min_price?: OcpiPriceBound | null;
  max_price?: OcpiPriceBound | null;
}
