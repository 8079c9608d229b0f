/** A snapshot vehicle's type (D292): `bev` or `phev`, absent → `bev`, anything else a data error. */
import { describe, expect, it } from 'vitest';
import { VehicleDataError, vehicleFromRow } from '../../../src/domain/vehicles/vehicle.js';

const row = (type: unknown) => ({ id: 'V1', brand_id: 'B1', data: { usable_battery_size: 50, ...(type === undefined ? {} : { type }) } });

describe('vehicleFromRow: ev_type', () => {
  it('keeps bev and phev, and takes bev where the row names none', () => {
    expect(vehicleFromRow(row('bev')).ev_type).toBe('bev');
    expect(vehicleFromRow(row('phev')).ev_type).toBe('phev');
    expect(vehicleFromRow(row(undefined)).ev_type).toBe('bev');
    expect(vehicleFromRow(row('')).ev_type).toBe('bev');
  });

  it.each(['fcev', 'BEV', 'hybrid', 7])('refuses a row of type %s with its id, as the description has only bev and phev', (type) => {
    expect(() => vehicleFromRow(row(type))).toThrow(VehicleDataError);
    if (typeof type === 'string') expect(() => vehicleFromRow(row(type))).toThrow(/vehicle V1: type/);
  });
});
