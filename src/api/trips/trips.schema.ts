/** JSON Schema of the trip plan request (D267), compiled once. */
import { envelope, toMany, toOne } from '../jsonapi/schemas.js';
import { compile } from '../jsonapi/validate.js';
import { refinementSchema, routeSchema, type RouteInput } from '../route-input.js';

export const MAX_TRIP_TARIFFS = 200;

export interface TripAttributes {
  route: RouteInput;
  corridor?: number;
  consumption?: number;
  start_soc?: number;
  min_soc?: number;
  max_soc?: number;
  time_value?: number;
  detour_speed?: number;
  soc_step?: 1 | 2 | 5 | 10;
  currency?: string;
  start_time?: number;
  start_date?: string;
  allow_unbalanced_load?: boolean;
  include_direct_payment?: boolean;
  charge_points_power_lte?: number;
  charge_points_power_gte?: number;
  plugs?: string[];
  operator_ids?: string[];
  country?: string;
  free_parking?: boolean;
  free_charging?: boolean;
  facilities?: string[];
  parking_type?: string;
}

export interface TripBody {
  data: {
    type?: string;
    attributes: TripAttributes;
    relationships: {
      tariffs?: { data: { id: string; type?: string }[] };
      vehicle: { data: { id: string; type?: string } };
    };
  };
}

const percent = (min: number, max: number) => ({ type: 'number', minimum: min, maximum: max }) as const;

export const validateTripPlan = compile<TripBody>(envelope({
  required: ['attributes', 'relationships'],
  properties: {
    type: { const: 'trip_plan_request' },
    attributes: {
      type: 'object',
      required: ['route'],
      additionalProperties: false,
      properties: {
        ...routeSchema,
        ...refinementSchema,
        consumption: { type: 'number', minimum: 1, maximum: 100, description: 'kWh/100 km; default the vehicle\'s average consumption' },
        start_soc: { ...percent(0, 100), description: 'State of charge at the start, percent (default 80)' },
        min_soc: { ...percent(0, 99), description: 'Least state of charge at every arrival, percent (default 10)' },
        max_soc: { ...percent(1, 100), description: 'Highest state of charge charged to, percent (default 80)' },
        time_value: { type: 'number', minimum: 0, maximum: 1000, description: 'Currency per hour of charging and detour (default 0)' },
        detour_speed: { type: 'number', minimum: 5, maximum: 130, description: 'km/h on a detour (default 50)' },
        soc_step: { enum: [1, 2, 5, 10], description: 'Grid of charge levels, percent (default 5)' },
      },
    },
    relationships: {
      type: 'object',
      required: ['vehicle'],
      properties: {
        tariffs: toMany('tariff', MAX_TRIP_TARIFFS),
        vehicle: toOne('car'),
      },
    },
  },
}));
