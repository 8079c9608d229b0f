/**
 * The inputs every price feature resolves the same way (charge prices, bulk previews, area and
 * route price search): the currency (D84), the vehicle (D20) and the start date (D148).
 */
import { isoWeekdayOf } from '../domain/pricing/first-match.js';
import type { VehiclePricing } from '../domain/pricing/index.js';
import type { Vehicle } from '../domain/vehicles/vehicle.js';
import type { AppContext } from './context.js';
import { badPointer, notFound } from './jsonapi/errors.js';
import { bool, currency, startTime, Type } from './jsonapi/schemas.js';

const VEHICLE_POINTER = '/data/relationships/vehicle/data/id';

/** D148: the local date of the session's start, for days_of_week (checked to be a real date by the handler). */
export const startDate = Type.String({ pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' });

/**
 * The options of a bulk preview (D50) that a price profile takes too (D196): one definition of
 * both requests' pricing options.
 */
export const bulkOptions = {
  currency: Type.Optional(currency),
  start_time: Type.Optional(startTime),
  start_date: Type.Optional(startDate),
  allow_unbalanced_load: Type.Optional(bool),
  include_direct_payment: Type.Optional(bool),
  charge_points_power_lte: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
};

/** The ISO weekday of a `start_date` (0 when absent); 400 at `pointer` for a date that does not exist. */
export function startDayOf(date: string | undefined, pointer: string): number {
  if (date === undefined) return 0;
  const day = isoWeekdayOf(date);
  if (day === null) throw badPointer(pointer, `${date} is not a calendar date`);
  return day;
}

/** The vehicle's pricing fields as plain, cloneable data. */
export function vehiclePricing(v: Vehicle): VehiclePricing {
  return {
    id: v.id,
    brand_id: v.brand_id,
    usable_battery_size: v.usable_battery_size,
    ac_phases: v.ac_phases,
    ac_max_power: v.ac_max_power,
    ac_map: v.ac_map === null ? null : { ...v.ac_map },
    dc_ports: [...v.dc_ports],
    dc_max_power: v.dc_max_power,
    dc_curve: v.dc_curve === null ? null : v.dc_curve.map((p) => ({ percentage: p.percentage, power: p.power })),
  };
}

/** D84: the currency as sent must be in the rate table (case-insensitive); 404 otherwise. */
export function currencyOf(sent: string | undefined, rates: Readonly<Record<string, number>>): string {
  if (sent === undefined) return 'EUR';
  const code = sent.toUpperCase();
  if (code !== 'EUR' && rates[code] === undefined) throw notFound(`No currency with iso ${sent}`);
  return code;
}

export function vehicleOf(ctx: AppContext, id: string): VehiclePricing {
  const v = ctx.vehicles.get(id);
  if (v === undefined) throw badPointer(VEHICLE_POINTER, `vehicle ${id} not found`);
  return vehiclePricing(v);
}
