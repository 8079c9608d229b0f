/**
 * Input model of the pricing engine. The shapes mirror the raw tariff API (spec "tariff and
 * sub_tariff", D56–D58) with relationships flattened to IDs, so a storage layer can hand its
 * records over without translation. Nothing here is mutated by the engine.
 */

export type Dimension = 'minute' | 'parking_minute' | 'kwh' | 'session';
export type EnergyType = 'ac' | 'dc';
export type NoPricePolicy = 'inherit' | 'hide' | 'show_reason';
export type NoPriceReason = 'prices_per_station' | 'not_public' | 'not_yet_listed' | 'no_reliable_data_available';
export type TariffLevel = 'evse' | 'cpo' | 'country';

export interface Restriction {
  allowance: 'allow' | 'deny';
  charge_point_powers?: number[] | null;
  charge_point_energy_type?: EnergyType | null;
  cpo_ids?: string[] | null;
  countries?: string[] | null;
  /** Deprecated and ignored for matching (D68); echoed in tariff details. */
  car_ac_phase?: number | null;
  charge_point_power_is_range?: boolean | null;
  use_consumed_charging_power?: boolean | null;
}

/** One decomposition entry ("segment"). Prices include VAT. */
export interface Segment {
  dimension: Dimension;
  price: number;
  range_gte?: number | null;
  range_lt?: number | null;
  billing_increment?: number | null;
  currency?: string | null;
  time_of_day_start?: number | null;
  time_of_day_end?: number | null;
  /** D148: ISO days (1 = Monday … 7 = Sunday) the segment applies on, local; null = every day. */
  days_of_week?: number[] | null;
  is_average_price?: boolean | null;
  occupancy_gte?: number | null;
  occupancy_lt?: number | null;
}

export interface PriceComponent {
  restrictions: Restriction[];
  decomposition: Segment[];
}

export interface Tag {
  kind: string;
  localized_text: Record<string, string>;
  url?: string | null;
  /** Milliseconds since the epoch after which the tag is dropped (D42). */
  show_until?: number | null;
  hide_for_owners?: boolean | null;
}

export interface Branding {
  background_color: string;
  text_color: string;
  logo_url: string;
}

export interface TariffInput {
  id: string;
  type: 'tariff' | 'sub_tariff';
  name: string | null;
  /** Null on a sub_tariff means "the first super tariff's currency" (D56). */
  currency: string | null;
  monthly_min_sales?: number | null;
  monthly_fee?: number | null;
  yearly_service_fee?: number | null;
  is_flat_rate?: boolean | null;
  is_direct_payment?: boolean | null;
  provider_customer_only?: boolean | null;
  is_card_payment?: boolean | null;
  no_price_policy?: NoPricePolicy | null;
  no_price_reason?: NoPriceReason | 'inherit' | null;
  apply_prices_to_sub_tariff?: boolean | null;
  supported_countries?: string[] | null;
  tags?: Tag[] | null;
  system_tags?: string[] | null;
  branding?: Branding | null;
  url?: string | null;
  prices: PriceComponent[];
  /**
   * D147: 'first_match' prices every dimension with the first matching segment (OCPI's first
   * matching element) and bills increments once on each dimension's total; null = 'sum' (D80–D83).
   * Set on a tariff, it applies to its sub tariffs and station-level prices too.
   */
  price_selection?: 'sum' | 'first_match' | null;
  /** D149: bounds of a session's price (first_match tariffs), in the tariff's currency, VAT included. */
  min_price?: number | null;
  max_price?: number | null;
  emp_id: string;
  /** Only on a sub_tariff: the CPO it applies to, or null (then it counts at country level). */
  cpo_id?: string | null;
  /** Only on a sub_tariff: the tariffs it refines. */
  super_tariff_ids?: string[] | null;
  vehicle_brand_ids?: string[] | null;
}

export interface CompanyInput {
  id: string;
  name: string;
  url?: string | null;
  is_emp: boolean;
  is_cpo: boolean;
  supported_emp_ids?: string[] | null;
  cpo_group_id?: string | null;
  emp_group_id?: string | null;
}

/** Station-level (EVSE) components of a tariff, from the data snapshot only (D64). */
export interface StationPrices {
  tariff_id: string;
  station_id: string;
  prices: PriceComponent[];
}

/** What pricing needs to know about a vehicle (D62). */
export interface VehiclePricing {
  id: string;
  brand_id: string | null;
  usable_battery_size: number;
  /** Usable AC phases: 1, 2 or 3. */
  ac_phases: number;
  ac_max_power: number;
  /** Station kW (as a string key) → car kW. Null when unknown. */
  ac_map: Record<string, number> | null;
  dc_ports: string[];
  dc_max_power: number | null;
  dc_curve: { percentage: number; power: number }[] | null;
}

export interface ChargePointInput {
  plug: string;
  /** Stored stations carry their energy type; requested charge points derive it from the plug (D68). */
  energy_type?: EnergyType | null;
  power: number;
}

export interface StationContext {
  /** The stored station in context (D39), or null for a network-wide request. */
  id: string | null;
  country: string;
  cpo_id: string;
  charge_points: ChargePointInput[];
}

/** Euro reference rates, units per 1 EUR (D84). */
export interface RateTable {
  date: string;
  rates: Record<string, number>;
}

/** Set A (vehicle + battery range) or Set B (energy + duration), D37. */
export type ChargeInput =
  | { kind: 'vehicle'; vehicle: VehiclePricing; battery_range: [number, number] }
  | { kind: 'energy'; energy: number; duration: number };

export type IncludeMode = 'filter' | 'always' | 'exclusive';

/** Options of a charge price request (endpoint 3) with their defaults resolved by the caller. */
export interface ChargePriceOptions {
  currency: string;
  start_time: number;
  /** D148: ISO weekday (1–7) of the session's start date (`options.start_date`), 0 = not given. */
  start_day?: number;
  car_ac_phases: number;
  allow_unbalanced_load: boolean;
  provider_customer_tariffs: boolean;
  foreign_tariffs: boolean;
  show_all_brand_restricted_tariffs: boolean;
  /** Null = no limit. In the requested currency. */
  max_monthly_fees: number | null;
  average_prices: boolean;
}

export const DEFAULT_CHARGE_PRICE_OPTIONS: Readonly<ChargePriceOptions> = Object.freeze({
  currency: 'EUR',
  start_time: 720,
  car_ac_phases: 3,
  allow_unbalanced_load: false,
  provider_customer_tariffs: false,
  foreign_tariffs: true,
  show_all_brand_restricted_tariffs: false,
  max_monthly_fees: null,
  average_prices: false,
});
