/** JSON Schemas of charge prices (endpoint 3, D36–D38) and the bulk preview (endpoint 8, D50), compiled once. */
import type { Static } from '@sinclair/typebox';
import { bulkOptions, startDate } from '../price-inputs.js';
import { validatorOf } from '../jsonapi/validate.js';
import { batteryRange, bool, chargePoint, Const, currency, duration, energy, Enum, Envelope, startTime, toMany, toManyWithMeta, toOne, Type } from '../jsonapi/schemas.js';

const { Optional } = Type;

export const ChargePricesBody = Envelope({
  type: Optional(Const('charge_price_request')),
  attributes: Type.Object({
    data_adapter: Enum(['native', 'ext_b', 'ext_c']),
    station: Type.Object({
      longitude: Type.Number({ minimum: -180, maximum: 180 }),
      latitude: Type.Number({ minimum: -90, maximum: 90 }),
      country: Type.String({ minLength: 1, maxLength: 100 }),
      network: Type.String({ maxLength: 200 }),
      charge_points: Type.Array(chargePoint, { minItems: 1, maxItems: 100 }),
    }),
    options: Type.Object({
      max_monthly_fees: Optional(Type.Number({ minimum: 0 })),
      energy: Optional(energy),
      duration: Optional(duration),
      battery_range: Optional(batteryRange),
      car_ac_phases: Optional(Enum([1, 3])),
      currency: Optional(currency),
      start_time: Optional(startTime),
      start_date: Optional(startDate),
      allow_unbalanced_load: Optional(bool),
      provider_customer_tariffs: Optional(bool),
      foreign_tariffs: Optional(bool),
      show_price_unavailable: Optional(bool),
      show_all_brand_restricted_tariffs: Optional(bool),
      average_prices: Optional(bool),
    }),
  }),
  relationships: Optional(
    Type.Object({
      tariffs: Optional(toManyWithMeta('tariff', 10000, Type.Object({ include: Optional(Enum(['filter', 'always', 'exclusive'])) }))),
      vehicle: Optional(toOne('car')),
    }),
  ),
});
export type ChargePricesBody = Static<typeof ChargePricesBody>;

export const validateChargePrices = validatorOf(ChargePricesBody);

export const MAX_BULK_STATIONS = 100;
export const MAX_BULK_TARIFFS = 200;

export const BulkBody = Envelope({
  type: Optional(Enum(['bulk_price_preview_request', 'charge_price_bulk_request'])),
  attributes: Type.Object({ battery_range: batteryRange, ...bulkOptions }),
  relationships: Type.Object({
    charging_stations: toMany('charging_station', MAX_BULK_STATIONS),
    tariffs: toMany('tariff', MAX_BULK_TARIFFS),
    vehicle: toOne('car'),
  }),
});
export type BulkBody = Static<typeof BulkBody>;

export const validateBulk = validatorOf(BulkBody);
