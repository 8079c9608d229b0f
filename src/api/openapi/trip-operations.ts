/** The OpenAPI description of trip plans (D267–D271), joined into OPERATIONS (operations.ts); its answers are on the route (src/api/trips). */

/** A tariff of the default catalog (as the other price examples) and a car of the vehicle data. */
const TARIFF_ID = '18663f49-0af6-550d-9681-4af1727bdf22';
/** A BEV with CCS (82 kWh). */
const VEHICLE_ID = '01de7c99-366b-4084-909d-5723aad78668';

/** Written in OperationDoc's shape (operations.ts checks it where it joins them; no import back, no cycle). */
export const TRIP_OPERATIONS = {
  'POST /v1/trip_plans': {
    summary: 'Where to stop along a route, how far to charge at each stop, and what the trip costs (D267–D271)',
    tag: 'Prices',
    description:
      'The plan minimizes price + time_value × (charging + detour) hours with no arrival below min_soc, exactly on the grid of charge levels (soc_step); each charge is priced as POST /v1/charge_prices prices the vehicle with that battery_range at that station. 422 `NO_TRIP_PLAN` when no plan reaches the destination, with where the car runs out and the start charge that would do (`meta.runs_out`).',
    example: {
      path: '/v1/trip_plans',
      body: {
        data: {
          type: 'trip_plan_request',
          attributes: { route: { coordinates: [[2.2945, 48.8584], [2.3522, 48.8566], [2.3, 48.9]] }, corridor: 2000, start_soc: 12, min_soc: 10 },
          relationships: { tariffs: { data: [{ type: 'tariff', id: TARIFF_ID }] }, vehicle: { data: { type: 'car', id: VEHICLE_ID } } },
        },
      },
    },
  },
};
