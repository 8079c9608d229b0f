/** JSON Schemas of charge prices (endpoint 3, D36–D38) and the bulk preview (endpoint 8, D50), compiled once. */
import { startDate } from '../price-inputs.js';
import { compile } from '../jsonapi/validate.js';
import { batteryRange, bool, chargePoint, currency, duration, energy, envelope, startTime, toMany, toOne } from '../jsonapi/schemas.js';

export interface ChargePricesBody {
  data: {
    type?: string;
    attributes: {
      data_adapter: 'native' | 'ext_b' | 'ext_c';
      station: {
        longitude: number;
        latitude: number;
        country: string;
        network: string;
        charge_points: { power: number; plug: string }[];
      };
      options: {
        max_monthly_fees?: number;
        energy?: number;
        duration?: number;
        battery_range?: [number, number];
        car_ac_phases?: 1 | 3;
        currency?: string;
        start_time?: number;
        start_date?: string;
        allow_unbalanced_load?: boolean;
        provider_customer_tariffs?: boolean;
        foreign_tariffs?: boolean;
        show_price_unavailable?: boolean;
        show_all_brand_restricted_tariffs?: boolean;
        average_prices?: boolean;
      };
    };
    relationships?: {
      tariffs?: { data: { id: string; type?: string }[]; meta?: { include?: 'filter' | 'always' | 'exclusive' } };
      vehicle?: { data: { id: string; type?: string } };
    };
  };
}

export const validateChargePrices = compile<ChargePricesBody>(envelope({
  required: ['attributes'],
  properties: {
    type: { const: 'charge_price_request' },
    attributes: {
      type: 'object',
      required: ['data_adapter', 'station', 'options'],
      properties: {
        data_adapter: { enum: ['native', 'ext_b', 'ext_c'] },
        station: {
          type: 'object',
          required: ['longitude', 'latitude', 'country', 'network', 'charge_points'],
          properties: {
            longitude: { type: 'number', minimum: -180, maximum: 180 },
            latitude: { type: 'number', minimum: -90, maximum: 90 },
            country: { type: 'string', minLength: 1, maxLength: 100 },
            network: { type: 'string', maxLength: 200 },
            charge_points: {
              type: 'array',
              minItems: 1,
              maxItems: 100,
              items: chargePoint,
            },
          },
        },
        options: {
          type: 'object',
          properties: {
            max_monthly_fees: { type: 'number', minimum: 0 },
            energy,
            duration,
            battery_range: batteryRange,
            car_ac_phases: { enum: [1, 3] },
            currency,
            start_time: startTime,
            start_date: startDate,
            allow_unbalanced_load: bool,
            provider_customer_tariffs: bool,
            foreign_tariffs: bool,
            show_price_unavailable: bool,
            show_all_brand_restricted_tariffs: bool,
            average_prices: bool,
          },
        },
      },
    },
    relationships: {
      type: 'object',
      properties: {
        tariffs: toMany('tariff', 10000, { meta: { type: 'object', properties: { include: { enum: ['filter', 'always', 'exclusive'] } } } }),
        vehicle: toOne('car'),
      },
    },
  },
}));

export interface BulkBody {
  data: {
    type?: string;
    attributes: {
      battery_range: [number, number];
      currency?: string;
      start_time?: number;
      start_date?: string;
      allow_unbalanced_load?: boolean;
      include_direct_payment?: boolean;
      charge_points_power_lte?: number;
    };
    relationships: {
      charging_stations: { data: { id: string; type?: string }[] };
      tariffs: { data: { id: string; type?: string }[] };
      vehicle: { data: { id: string; type?: string } };
    };
  };
}

export const MAX_BULK_STATIONS = 100;
export const MAX_BULK_TARIFFS = 200;

export const validateBulk = compile<BulkBody>(envelope({
  required: ['attributes', 'relationships'],
  properties: {
    type: { enum: ['bulk_price_preview_request', 'charge_price_bulk_request'] },
    attributes: {
      type: 'object',
      required: ['battery_range'],
      properties: {
        battery_range: batteryRange,
        currency,
        start_time: startTime,
        start_date: startDate,
        allow_unbalanced_load: bool,
        include_direct_payment: bool,
        charge_points_power_lte: { type: 'number', exclusiveMinimum: 0 },
      },
    },
    relationships: {
      type: 'object',
      required: ['charging_stations', 'tariffs', 'vehicle'],
      properties: {
        charging_stations: toMany('charging_station', MAX_BULK_STATIONS),
        tariffs: toMany('tariff', MAX_BULK_TARIFFS),
        vehicle: toOne('car'),
      },
    },
  },
}));
