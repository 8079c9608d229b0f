/** JSON Schemas of the raw tariff PUT (endpoint 12, D56–D57), compiled once at module load. */
import { compile, UUID } from '../jsonapi/validate.js';
import { bool, currency, ref as sharedRef, envelope } from '../jsonapi/schemas.js';

const num0 = { type: 'number', minimum: 0, maximum: 1e9 } as const;
const country = { type: 'string', pattern: '^[A-Za-z]{2}$' } as const;
const ref = (type: string) => sharedRef(type, 100);

const restriction = {
  type: 'object',
  required: ['allowance'],
  properties: {
    allowance: { enum: ['allow', 'deny'] },
    charge_point_powers: { type: 'array', maxItems: 50, items: { type: 'number', minimum: 0, maximum: 10000 } },
    charge_point_energy_type: { enum: ['ac', 'dc'] },
    cpo_ids: { type: 'array', maxItems: 1000, items: { type: 'string', minLength: 1, maxLength: 100 } },
    countries: { type: 'array', maxItems: 300, items: country },
    car_ac_phase: { type: 'integer', minimum: 1, maximum: 3 },
    charge_point_power_is_range: bool,
  },
} as const;

const segment = {
  type: 'object',
  required: ['dimension', 'price'],
  properties: {
    dimension: { enum: ['minute', 'kwh', 'session', 'parking_minute'] },
    price: num0,
    range_gte: { type: 'integer', minimum: 0, maximum: 1e9 },
    range_lt: { type: 'integer', minimum: 0, maximum: 1e9 },
    billing_increment: { type: 'number', exclusiveMinimum: 0, maximum: 1e6 },
    currency,
    time_of_day_start: { type: 'integer', minimum: 0, maximum: 1439 },
    time_of_day_end: { type: 'integer', minimum: 0, maximum: 1440 },
    days_of_week: { type: 'array', minItems: 1, maxItems: 7, uniqueItems: true, items: { type: 'integer', minimum: 1, maximum: 7 } },
    is_average_price: bool,
    occupancy_gte: { type: 'integer', minimum: 0, maximum: 100 },
    occupancy_lt: { type: 'integer', minimum: 0, maximum: 100 },
  },
} as const;

const component = {
  type: 'object',
  required: ['decomposition'],
  properties: {
    restrictions: { type: 'array', maxItems: 20, items: restriction },
    decomposition: { type: 'array', maxItems: 100, items: segment },
  },
} as const;

const tag = {
  type: 'object',
  required: ['kind', 'localized_text'],
  properties: {
    kind: { type: 'string', minLength: 1, maxLength: 50 },
    localized_text: {
      type: 'object',
      propertyNames: { maxLength: 10 },
      additionalProperties: { type: 'string', maxLength: 2000 },
    },
    url: { type: 'string', maxLength: 2000 },
    show_until: { type: 'integer', minimum: 0 },
    hide_for_owners: bool,
  },
} as const;

export interface RefBody {
  type?: string;
  id: string;
}

export interface RestrictionBody {
  allowance: 'allow' | 'deny';
  charge_point_powers?: number[];
  charge_point_energy_type?: 'ac' | 'dc';
  cpo_ids?: string[];
  countries?: string[];
  car_ac_phase?: number;
  charge_point_power_is_range?: boolean;
}

export interface SegmentBody {
  dimension: 'minute' | 'kwh' | 'session' | 'parking_minute';
  price: number;
  range_gte?: number;
  range_lt?: number;
  billing_increment?: number;
  currency?: string;
  time_of_day_start?: number;
  time_of_day_end?: number;
  days_of_week?: number[];
  is_average_price?: boolean;
  occupancy_gte?: number;
  occupancy_lt?: number;
}

export interface TariffPutBody {
  data: {
    id: string;
    type: 'tariff' | 'sub_tariff';
    attributes: {
      name?: string;
      version: number;
      monthly_min_sales?: number;
      monthly_fee?: number;
      yearly_service_fee?: number;
      is_flat_rate?: boolean;
      is_direct_payment?: boolean;
      provider_customer_only?: boolean;
      currency?: string;
      notes?: string;
      url?: string;
      no_price_policy?: 'inherit' | 'hide' | 'show_reason';
      no_price_reason?: 'inherit' | 'prices_per_station' | 'not_public' | 'not_yet_listed' | 'no_reliable_data_available';
      apply_prices_to_sub_tariff?: boolean;
      supported_countries?: string[];
      tags?: Array<{
        kind: string;
        localized_text: Record<string, string>;
        url?: string;
        show_until?: number;
        hide_for_owners?: boolean;
      }>;
      prices?: Array<{ restrictions?: RestrictionBody[]; decomposition: SegmentBody[] }>;
      price_selection?: 'sum' | 'first_match';
      min_price?: number;
      max_price?: number;
      is_card_payment?: boolean;
      is_secondary_tariff?: boolean;
      existing_customer_only?: boolean;
      integration_status?: 'pending' | 'in_progress' | 'complete';
      system_tags?: string[];
      branding?: { background_color: string; text_color: string; logo_url: string };
      charge_card_id?: string | number;
    };
    relationships: {
      emp: { data: RefBody };
      cpo?: { data?: RefBody };
      super_tariffs?: { data?: RefBody[] };
      vehicle_brands?: { data?: RefBody[] };
    };
  };
}

export const validateTariffPut = compile<TariffPutBody>(envelope({
  required: ['id', 'type', 'attributes', 'relationships'],
  properties: {
    id: UUID,
    type: { enum: ['tariff', 'sub_tariff'] },
    attributes: {
      type: 'object',
      required: ['version'],
      properties: {
        name: { type: 'string', minLength: 1, maxLength: 200 },
        version: { type: 'integer', minimum: 1, description: 'Optimistic lock (D47): 1 to create, the stored version + 1 to update (read it from the last answer); any other value answers 409 Version conflict and changes nothing.', examples: [1, 4] },
        monthly_min_sales: num0,
        monthly_fee: num0,
        yearly_service_fee: num0,
        is_flat_rate: bool,
        is_direct_payment: bool,
        provider_customer_only: bool,
        currency,
        notes: { type: 'string', maxLength: 10000 },
        url: { type: 'string', maxLength: 2000 },
        no_price_policy: { enum: ['inherit', 'hide', 'show_reason'] },
        no_price_reason: { enum: ['inherit', 'prices_per_station', 'not_public', 'not_yet_listed', 'no_reliable_data_available'] },
        apply_prices_to_sub_tariff: bool,
        supported_countries: { type: 'array', maxItems: 300, items: country },
        tags: { type: 'array', maxItems: 50, items: tag },
        prices: { type: 'array', maxItems: 200, items: component },
        price_selection: { enum: ['sum', 'first_match'] },
        min_price: num0,
        max_price: num0,
        is_card_payment: bool,
        is_secondary_tariff: bool,
        existing_customer_only: bool,
        integration_status: { enum: ['pending', 'in_progress', 'complete'] },
        system_tags: { type: 'array', maxItems: 50, items: { type: 'string', maxLength: 100 } },
        branding: {
          type: 'object',
          required: ['background_color', 'text_color', 'logo_url'],
          properties: {
            background_color: { type: 'string', maxLength: 50 },
            text_color: { type: 'string', maxLength: 50 },
            logo_url: { type: 'string', maxLength: 2000 },
          },
        },
        charge_card_id: { type: ['string', 'integer'], maxLength: 100 },
      },
    },
    relationships: {
      type: 'object',
      required: ['emp'],
      properties: {
        emp: { type: 'object', required: ['data'], properties: { data: ref('company') } },
        cpo: { type: 'object', properties: { data: ref('company') } },
        super_tariffs: { type: 'object', properties: { data: { type: 'array', maxItems: 100, items: ref('tariff') } } },
        vehicle_brands: { type: 'object', properties: { data: { type: 'array', maxItems: 500, items: ref('brand') } } },
      },
    },
  },
}));
