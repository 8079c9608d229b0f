/**
 * Stored form of raw tariffs and sub tariffs (spec "tariff and sub_tariff", D56–D58): every
 * attribute resolved to its default, relationships flattened to IDs. The shape is a superset of
 * the pricing engine's `TariffInput` (src/domain/pricing/model.ts), so catalog records are handed
 * to pricing without translation.
 */

export type TariffType = 'tariff' | 'sub_tariff';
export type Dimension = 'minute' | 'parking_minute' | 'kwh' | 'session';

export interface StoredRestriction {
  allowance: 'allow' | 'deny';
  charge_point_powers: number[];
  charge_point_energy_type: 'ac' | 'dc' | null;
  cpo_ids: string[];
  countries: string[];
  car_ac_phase: number | null;
  charge_point_power_is_range: boolean;
  /** Read only (D56): kept from the stored record on writes, default false. */
  use_consumed_charging_power: boolean;
}

export interface StoredSegment {
  dimension: Dimension;
  price: number;
  range_gte: number | null;
  range_lt: number | null;
  billing_increment: number | null;
  currency: string | null;
  time_of_day_start: number | null;
  time_of_day_end: number | null;
  /** D148: ISO days 1–7; present only when set. */
  days_of_week?: number[];
  is_average_price: boolean;
  occupancy_gte: number | null;
  occupancy_lt: number | null;
}

export interface StoredComponent {
  restrictions: StoredRestriction[];
  decomposition: StoredSegment[];
}

export interface StoredTag {
  kind: string;
  localized_text: Record<string, string>;
  url: string | null;
  show_until: number | null;
  hide_for_owners: boolean;
}

export interface Branding {
  background_color: string;
  text_color: string;
  logo_url: string;
}

export type NoPricePolicy = 'inherit' | 'hide' | 'show_reason';
export type NoPriceReasonCode = 'inherit' | 'prices_per_station' | 'not_public' | 'not_yet_listed' | 'no_reliable_data_available';

export interface StoredTariff {
  id: string;
  type: TariffType;
  version: number;
  created_at: number;
  updated_at: number;
  name: string | null;
  /** Always resolved (a sub_tariff without one takes its first super tariff's at write time). */
  currency: string;
  monthly_min_sales: number;
  monthly_fee: number;
  yearly_service_fee: number;
  is_flat_rate: boolean;
  is_direct_payment: boolean;
  provider_customer_only: boolean;
  notes: string | null;
  url: string | null;
  no_price_policy: NoPricePolicy;
  no_price_reason: NoPriceReasonCode;
  apply_prices_to_sub_tariff: boolean | null;
  supported_countries: string[];
  tags: StoredTag[];
  prices: StoredComponent[];
  /** D147, D149: present only on tariffs that select the first match. */
  price_selection?: 'first_match';
  min_price?: number;
  max_price?: number;
  // D57 extras
  is_card_payment: boolean;
  is_secondary_tariff: boolean;
  existing_customer_only: boolean;
  integration_status: 'pending' | 'in_progress' | 'complete';
  system_tags: string[];
  branding: Branding | null;
  charge_card_id: string | null;
  // relationships
  emp_id: string;
  cpo_id: string | null;
  super_tariff_ids: string[];
  vehicle_brand_ids: string[];
}

/** EVSE-level (station-specific) components of a tariff; only the snapshot supplies them (D64). */
export interface StoredStationPrices {
  tariff_id: string;
  station_id: string;
  prices: StoredComponent[];
}

/**
 * D86: monthly fee plus a twelfth of the yearly service fee (absent fees count 0). The one
 * implementation: tariff documents, the pricing catalog and included tariffs use it.
 */
export function totalMonthlyFee(t: { monthly_fee?: number | null; yearly_service_fee?: number | null }): number {
  return (t.monthly_fee ?? 0) + (t.yearly_service_fee ?? 0) / 12;
}

/** The effective currency of a segment: its own, else the tariff's (D56). */
export function effectiveCurrency(seg: Pick<StoredSegment, 'currency'>, tariffCurrency: string): string {
  return seg.currency ?? tariffCurrency;
}
