/** Companies and tariffs (spec: company, tariff and sub_tariff, simple tariff; D8, D147–D149). */
import { Closed, Lit, OverallCount, Country, Currency, Id, Nullable, OrNull, PageLinks, Resource, Timestamp, ToMany, ToOneOrNull, Type, Version, type Static, type TSchema } from './common.js';

const Ids = OrNull(Type.Array(Type.String()));

export const CompanyAttributes = Closed({
  name: Type.String(),
  created_at: Timestamp,
  updated_at: Timestamp,
  version: Version,
  url: Nullable('string'),
  is_cpo: Type.Boolean(),
  is_emp: Type.Boolean(),
  external_source_mapping: Closed({
    ext_a_ids: Ids,
    ext_b_names: Ids,
    ext_b_charge_card_ids: Ids,
    sheet_names: Ids,
    ext_c_operator_ids: Ids,
    evse_operator_ids: Type.Array(Type.String()),
  }),
});
const companyRelationships = { supported_emps: ToMany('company'), cpo_group: ToOneOrNull('company'), emp_group: ToOneOrNull('company') };

/** A company as written: every member. */
export const Company = Resource('company', CompanyAttributes, companyRelationships);
/** A company in the list: the members of fields[company] (all by default). */
export const CompanyInList = Closed({
  id: Id,
  type: Type.Literal('company'),
  attributes: Type.Optional(Type.Partial(CompanyAttributes)),
  relationships: Type.Optional(Type.Partial(Closed(companyRelationships))),
});

export const CompanyDocument = Closed({ data: Company });
export const CompanyListDocument = Closed({ data: Type.Array(CompanyInList), meta: OverallCount, links: PageLinks });

const Energy = Lit('ac', 'dc');
export const Restriction = Closed({
  allowance: Lit('allow', 'deny'),
  charge_point_powers: Type.Array(Type.Number()),
  charge_point_energy_type: OrNull(Energy),
  cpo_ids: Type.Array(Id),
  countries: Type.Array(Country),
  car_ac_phase: Nullable('integer'),
  charge_point_power_is_range: Type.Boolean(),
  use_consumed_charging_power: Type.Boolean(),
});
const Dimension = Lit('minute', 'parking_minute', 'kwh', 'session');
const segment = {
  dimension: Dimension,
  price: Type.Number({ description: 'Per dimension unit, in the currency' }),
  range_gte: Nullable('number'),
  range_lt: Nullable('number'),
  billing_increment: Nullable('number'),
  time_of_day_start: Nullable('integer', { minimum: 0, maximum: 1440, description: 'Minutes since midnight' }),
  time_of_day_end: Nullable('integer', { minimum: 0, maximum: 1440, description: 'Minutes since midnight' }),
  days_of_week: Type.Optional(Type.Array(Type.Integer({ minimum: 1, maximum: 7 }))),
  is_average_price: Type.Boolean(),
  occupancy_gte: Nullable('integer', { minimum: 0, maximum: 100 }),
  occupancy_lt: Nullable('integer', { minimum: 0, maximum: 101 }),
};
export const Segment = Closed({ ...segment, currency: OrNull(Currency) });
export const PriceComponent = Closed({ restrictions: Type.Array(Restriction), decomposition: Type.Array(Segment) });
const Tag = Closed({
  kind: Type.String(),
  localized_text: Type.Record(Type.String(), Type.String()),
  url: Nullable('string'),
  show_until: Nullable('integer'),
  hide_for_owners: Type.Boolean(),
});
export const Branding = OrNull(Closed({ background_color: Type.String(), text_color: Type.String(), logo_url: Type.String() }));
const NoPriceReason = Lit('inherit', 'prices_per_station', 'not_public', 'not_yet_listed', 'no_reliable_data_available');
const IntegrationStatus = Lit('pending', 'in_progress', 'complete');

export const TariffAttributes = Closed({
  name: Nullable('string', { description: 'null for a sub_tariff' }),
  created_at: Timestamp,
  updated_at: Timestamp,
  version: Version,
  monthly_min_sales: Type.Number({ minimum: 0 }),
  monthly_fee: Type.Number({ minimum: 0 }),
  yearly_service_fee: Type.Number({ minimum: 0 }),
  is_flat_rate: Type.Boolean(),
  is_direct_payment: Type.Boolean(),
  provider_customer_only: Type.Boolean(),
  currency: Currency,
  notes: Nullable('string'),
  url: Nullable('string'),
  no_price_policy: Lit('inherit', 'hide', 'show_reason'),
  no_price_reason: NoPriceReason,
  apply_prices_to_sub_tariff: Nullable('boolean'),
  supported_countries: Type.Array(Country),
  tags: Type.Array(Tag),
  prices: Type.Array(PriceComponent),
  price_selection: Type.Optional(Type.Literal('first_match', { description: 'D147: only on tariffs that select the first match' })),
  min_price: Type.Optional(Nullable('number', { description: 'D149' })),
  max_price: Type.Optional(Nullable('number', { description: 'D149' })),
  is_card_payment: Type.Boolean(),
  is_secondary_tariff: Type.Boolean(),
  existing_customer_only: Type.Boolean(),
  integration_status: IntegrationStatus,
  system_tags: Type.Array(Type.String()),
  branding: Branding,
  charge_card_id: Nullable('string'),
});
const tariffRelationships = {
  vehicle_brands: ToMany('brand'),
  super_tariffs: ToMany('tariff'),
  emp: ToOneOrNull('company'),
  cpo: ToOneOrNull('company'),
};
const TariffType = Type.Union([Type.Literal('tariff'), Type.Literal('sub_tariff')]);
const rawTariff = <A extends TSchema, R extends TSchema>(attributes: A, relationships: R) =>
  Closed({ id: Id, type: TariffType, attributes, relationships });

export const RawTariff = rawTariff(TariffAttributes, Closed(tariffRelationships));
export const RawTariffInList = Closed({
  id: Id,
  type: TariffType,
  attributes: Type.Optional(Type.Partial(TariffAttributes)),
  relationships: Type.Optional(Type.Partial(Closed(tariffRelationships))),
});
export const RawTariffDocument = Closed({ data: RawTariff });
export const RawTariffListDocument = Closed({ data: Type.Array(RawTariffInList), meta: OverallCount, links: PageLinks });

export const SimpleTariff = Resource(
  'tariff',
  Closed({
    provider: Nullable('string', { description: 'The EMP\'s name (null when the EMP was deleted)' }),
    name: Nullable('string'),
    total_monthly_fee: Type.Number({ minimum: 0, description: 'Monthly fee plus a twelfth of the yearly fee' }),
    currency: Currency,
    is_direct_payment: Type.Boolean(),
    is_vehicle_brand_restricted: Type.Boolean(),
    is_card_payment: Type.Boolean(),
    existing_customer_only: Type.Boolean(),
    is_secondary_tariff: Type.Boolean(),
    provider_customer_only: Type.Boolean(),
    integration_status: IntegrationStatus,
    branding: Branding,
    supported_countries: Type.Array(Country),
    charge_card_id: Type.String({ description: '"0" when the tariff has none' }),
  }),
  { emp: ToOneOrNull('company'), vehicle_brands: ToMany('vehicle_brand') },
);
export const SimpleTariffListDocument = Closed({ data: Type.Array(SimpleTariff), meta: Type.Optional(OverallCount) });

export type CompanyResource = Static<typeof Company>;
export type RawTariffResource = Static<typeof RawTariff>;
export type SimpleTariffResource = Static<typeof SimpleTariff>;
