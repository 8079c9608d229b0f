/** JSON Schemas of the raw tariff PUT (endpoint 12, D56–D57), compiled once at module load. */
import { validatorOf } from '../jsonapi/validate.js';
import { bool, currency, Enum, Envelope, ref as sharedRef, Type, type Static, type TSchema } from '../jsonapi/schemas.js';

const { Optional } = Type;
const num0 = Type.Number({ minimum: 0, maximum: 1e9 });
const country = Type.String({ pattern: '^[A-Za-z]{2}$' });
const ref = <T extends string>(type: T) => sharedRef(type, 100);
const list = <T extends TSchema>(items: T, maxItems: number) => Optional(Type.Array(items, { maxItems }));

const restriction = Type.Object({
  allowance: Enum(['allow', 'deny']),
  charge_point_powers: list(Type.Number({ minimum: 0, maximum: 10000 }), 50),
  charge_point_energy_type: Optional(Enum(['ac', 'dc'])),
  cpo_ids: list(Type.String({ minLength: 1, maxLength: 100 }), 1000),
  countries: list(country, 300),
  car_ac_phase: Optional(Type.Integer({ minimum: 1, maximum: 3 })),
  charge_point_power_is_range: Optional(bool),
});

const segment = Type.Object({
  dimension: Enum(['minute', 'kwh', 'session', 'parking_minute']),
  price: num0,
  range_gte: Optional(Type.Integer({ minimum: 0, maximum: 1e9 })),
  range_lt: Optional(Type.Integer({ minimum: 0, maximum: 1e9 })),
  billing_increment: Optional(Type.Number({ exclusiveMinimum: 0, maximum: 1e6 })),
  currency: Optional(currency),
  time_of_day_start: Optional(Type.Integer({ minimum: 0, maximum: 1439 })),
  time_of_day_end: Optional(Type.Integer({ minimum: 0, maximum: 1440 })),
  days_of_week: Optional(Type.Array(Type.Integer({ minimum: 1, maximum: 7 }), { minItems: 1, maxItems: 7, uniqueItems: true })),
  is_average_price: Optional(bool),
  occupancy_gte: Optional(Type.Integer({ minimum: 0, maximum: 100 })),
  occupancy_lt: Optional(Type.Integer({ minimum: 0, maximum: 100 })),
});

const component = Type.Object({
  restrictions: list(restriction, 20),
  decomposition: Type.Array(segment, { maxItems: 100 }),
});

const tag = Type.Object({
  kind: Type.String({ minLength: 1, maxLength: 50 }),
  localized_text: Type.Unsafe<Record<string, string>>({ type: 'object', propertyNames: { maxLength: 10 }, additionalProperties: { type: 'string', maxLength: 2000 } }),
  url: Optional(Type.String({ maxLength: 2000 })),
  show_until: Optional(Type.Integer({ minimum: 0 })),
  hide_for_owners: Optional(bool),
});

export const TariffPutBody = Envelope({
  id: Type.String({ format: 'uuid' }),
  type: Enum(['tariff', 'sub_tariff']),
  attributes: Type.Object({
    name: Optional(Type.String({ minLength: 1, maxLength: 200 })),
    version: Type.Integer({ minimum: 1, description: 'Optimistic lock (D47): 1 to create, the stored version + 1 to update (read it from the last answer); any other value answers 409 Version conflict and changes nothing.', examples: [1, 4] }),
    monthly_min_sales: Optional(num0),
    monthly_fee: Optional(num0),
    yearly_service_fee: Optional(num0),
    is_flat_rate: Optional(bool),
    is_direct_payment: Optional(bool),
    provider_customer_only: Optional(bool),
    currency: Optional(currency),
    notes: Optional(Type.String({ maxLength: 10000 })),
    url: Optional(Type.String({ maxLength: 2000 })),
    no_price_policy: Optional(Enum(['inherit', 'hide', 'show_reason'])),
    no_price_reason: Optional(Enum(['inherit', 'prices_per_station', 'not_public', 'not_yet_listed', 'no_reliable_data_available'])),
    apply_prices_to_sub_tariff: Optional(bool),
    supported_countries: list(country, 300),
    tags: list(tag, 50),
    prices: list(component, 200),
    price_selection: Optional(Enum(['sum', 'first_match'])),
    min_price: Optional(num0),
    max_price: Optional(num0),
    is_card_payment: Optional(bool),
    is_secondary_tariff: Optional(bool),
    existing_customer_only: Optional(bool),
    integration_status: Optional(Enum(['pending', 'in_progress', 'complete'])),
    system_tags: list(Type.String({ maxLength: 100 }), 50),
    branding: Optional(
      Type.Object({
        background_color: Type.String({ maxLength: 50 }),
        text_color: Type.String({ maxLength: 50 }),
        logo_url: Type.String({ maxLength: 2000 }),
      }),
    ),
    charge_card_id: Optional(Type.Unsafe<string | number>({ type: ['string', 'integer'], maxLength: 100 })),
  }),
  relationships: Type.Object({
    emp: Type.Object({ data: ref('company') }),
    cpo: Optional(Type.Object({ data: Optional(ref('company')) })),
    super_tariffs: Optional(Type.Object({ data: list(ref('tariff'), 100) })),
    vehicle_brands: Optional(Type.Object({ data: list(ref('brand'), 500) })),
  }),
});
export type TariffPutBody = Static<typeof TariffPutBody>;

export const validateTariffPut = validatorOf(TariffPutBody);
