/** Resource objects of the vehicle endpoints (D62, D63): `car` (v1 and v2 shapes) and `vehicle_brand`. */
import type { Brand, Vehicle } from '../../domain/vehicles/vehicle.js';
import type { ResourceObject } from '../jsonapi/document.js';
import type { CarV1, CarV2Attributes } from '../schemas/service.js';

/** `/v1/vehicles` record (D62); `manufacturer` is of type `brand` (D16). */
export function v1Car(v: Vehicle): CarV1 {
  return {
    id: v.id,
    type: 'car',
    attributes: {
      name: v.name,
      brand: v.brand,
      dc_charge_ports: v.dc_ports,
      usable_battery_size: v.usable_battery_size,
      ac_max_power: v.ac_max_power,
      dc_max_power: v.dc_max_power,
    },
    relationships: { manufacturer: { data: { type: 'brand', id: v.brand_id } } },
  };
}

/** Station kW keys written with one decimal (`"22.0"`), ascending; car kW as numbers (D63). */
export function acPowerPerChargingPoint(map: Readonly<Record<string, number>> | null): Record<string, number> | null {
  if (map === null) return null;
  const keys = Object.keys(map).sort((a, b) => Number(a) - Number(b));
  const out: Record<string, number> = {};
  for (const k of keys) out[Number(k).toFixed(1)] = map[k];
  return out;
}

/** The v2 attributes only keys with `ReadVehiclesFull` see (D63). */
export const FULL_ONLY_ATTRIBUTES = ['ac_power_per_charging_point', 'dc_charging_curve'] as const;

/** Members a `fields[car]` list may name on `/v2/vehicles`. */
export const V2_CAR_FIELDS = [
  'ev_type',
  'model',
  'release_year',
  'variant',
  'usable_battery_size',
  'ac_phases',
  'ac_ports',
  'ac_max_power',
  'ac_power_per_charging_point',
  'dc_ports',
  'dc_max_power',
  'dc_charging_curve',
  'dc_default_charging_curve',
  'energy_consumption',
  'dc_charge_ports',
  'manufacturer',
] as const;

/** `/v2/vehicles` record (D63); `full` adds the two attributes of the ReadVehiclesFull group. */
export function v2Car(v: Vehicle, full: boolean): ResourceObject {
  // Members in the order of D63; the full-only ones where the key holds ReadVehiclesFull. Frozen arrays, only serialized.
  const a: CarV2Attributes = {
    ev_type: v.ev_type,
    model: v.model,
    release_year: v.release_year,
    variant: v.variant,
    usable_battery_size: v.usable_battery_size,
    ac_phases: v.ac_phases,
    ac_ports: v.ac_ports as string[],
    ac_max_power: v.ac_max_power,
    ...(full ? { ac_power_per_charging_point: acPowerPerChargingPoint(v.ac_map) } : {}),
    dc_ports: v.dc_ports,
    dc_max_power: v.dc_max_power,
    ...(full ? { dc_charging_curve: v.dc_curve ?? [] } : {}),
    dc_default_charging_curve: v.dc_default_charging_curve,
    energy_consumption: { average_consumption: v.average_consumption },
    dc_charge_ports: v.dc_ports,
  };
  return {
    id: v.id,
    type: 'car',
    attributes: a,
    relationships: { manufacturer: { data: { type: 'vehicle_brand', id: v.brand_id } } },
  };
}

export function vehicleBrand(b: Brand): ResourceObject {
  return { id: b.id, type: 'vehicle_brand', attributes: { name: b.name } };
}
