/** Trip plan answers (D271): the `trip_plan` document, its GeoJSON, and the 422 when none exists. */
import { Closed, Currency, Id, Nullable, Resource, ToMany, Type } from './common.js';
import { IncludedCompany, listAttributes, StationInList } from './stations.js';
import { ErrorObject } from './common.js';

const Stop = Closed({
  station_id: Id,
  charge_point: Closed({ plug: Type.String(), power: Type.Number({ minimum: 0, description: 'kW' }) }),
  tariff_id: Id,
  arrival_soc: Type.Number({ description: 'Percent, as the car arrives' }),
  charge_from_soc: Type.Number({ description: 'Percent: the grid level below the arrival the charge is priced from (D269)' }),
  departure_soc: Type.Number({ description: 'Percent' }),
  energy: Type.Number({ minimum: 0, description: 'kWh, with charging losses, as charge prices' }),
  charging_minutes: Type.Number({ minimum: 0 }),
  price: Type.Number({ minimum: 0, description: 'As POST /v1/charge_prices prices this charge with this tariff' }),
  distance: Type.Number({ minimum: 0, description: 'Metres along the route' }),
  detour: Type.Number({ minimum: 0, description: 'Metres, to the station and back' }),
  detour_minutes: Type.Number({ minimum: 0 }),
});

const Totals = {
  price: Type.Number({ minimum: 0 }),
  charging_minutes: Type.Number({ minimum: 0 }),
  detour: Type.Number({ minimum: 0, description: 'Metres' }),
  detour_minutes: Type.Number({ minimum: 0 }),
  arrival_soc: Type.Number({ description: 'Percent at the destination' }),
  cost: Type.Number({ minimum: 0, description: 'price + time_value × (charging + detour) hours: what the plan minimizes' }),
};

const TripMeta = Closed({
  model: Closed({
    vehicle: Type.String(),
    usable_battery: Type.Number({ description: 'kWh' }),
    consumption: Type.Number({ description: 'kWh/100 km' }),
    start_soc: Type.Number(),
    min_soc: Type.Number(),
    max_soc: Type.Number(),
    soc_step: Type.Number(),
    time_value: Type.Number(),
    detour_speed: Type.Number({ description: 'km/h' }),
    corridor: Type.Number({ description: 'Metres' }),
    currency: Currency,
    start_time: Type.Integer({ minimum: 0, maximum: 1439 }),
  }),
  stations_considered: Type.Integer({ minimum: 0 }),
  stations_priced: Type.Integer({ minimum: 0 }),
});

export const TripPlan = Resource(
  'trip_plan',
  Closed({ stops: Type.Array(Stop), totals: Closed(Totals), currency: Currency, distance: Type.Number({ minimum: 0, description: 'Route metres' }) }),
  { charging_stations: ToMany('charging_station') },
);
export const TripPlanDocument = Closed({ data: TripPlan, included: Type.Array(Type.Union([StationInList, IncludedCompany])), meta: TripMeta });

const StopProperties = Object.fromEntries(Object.entries(Stop.properties).filter(([k]) => k !== 'station_id'));
export const TripPlanFeatures = Closed({
  type: Type.Literal('FeatureCollection'),
  features: Type.Array(
    Type.Union([
      Closed({
        type: Type.Literal('Feature'),
        id: Type.Literal('route'),
        geometry: Closed({ type: Type.Literal('LineString'), coordinates: Type.Array(Type.Array(Type.Number(), { minItems: 2, maxItems: 2 })) }),
        properties: Closed({ kind: Type.Literal('route'), currency: Currency, distance: Type.Number(), ...Totals }),
      }),
      Closed({
        type: Type.Literal('Feature'),
        id: Type.String({ description: 'The station id' }),
        geometry: Closed({ type: Type.Literal('Point'), coordinates: Type.Array(Type.Number(), { minItems: 2, maxItems: 2 }) }),
        properties: Closed({
          ...listAttributes,
          operator_id: Nullable('string'),
          operator_name: Nullable('string'),
          kind: Type.Literal('stop'),
          station_id: Id,
          ...StopProperties,
        }),
      }),
    ]),
  ),
  meta: TripMeta,
});

/** 422: no plan reaches the destination (D271). */
export const NoTripPlanDocument = Closed({
  errors: Type.Array(ErrorObject, { minItems: 1 }),
  meta: Closed({
    runs_out: Closed({
      distance: Type.Number({ description: 'Metres along the route where the car reaches min_soc' }),
      latitude: Type.Number(),
      longitude: Type.Number(),
      start_soc_needed: Nullable('number', { description: 'The least start charge with which a plan exists (null: none up to 100)' }),
    }),
    ...TripMeta.properties,
  }),
});
