/** JSON Schemas of the area and route price searches (D110–D113), compiled once. */
import { batteryRange, envelope, toMany, toOne } from '../jsonapi/schemas.js';
import { compile } from '../jsonapi/validate.js';
import { refinementSchema, routeSchema } from '../route-input.js';

export const MAX_AREA_TARIFFS = 200;

export interface AreaAttributes {
  battery_range: [number, number];
  currency?: string;
  start_time?: number;
  start_date?: string;
  allow_unbalanced_load?: boolean;
  include_direct_payment?: boolean;
  charge_points_power_lte?: number;
  charge_points_power_gte?: number;
  plugs?: string[];
  latitude?: number;
  longitude?: number;
  radius?: number;
  latitude_gte?: number;
  latitude_lte?: number;
  longitude_gte?: number;
  longitude_lte?: number;
  sort?: 'price' | 'distance' | 'route';
  limit?: number;
  operator_ids?: string[];
  country?: string;
  free_parking?: boolean;
  free_charging?: boolean;
  facilities?: string[];
  parking_type?: string;
}

export interface RouteAttributes extends AreaAttributes {
  route: { polyline?: string; coordinates?: [number, number][] };
  corridor?: number;
}

export interface SearchBody<T> {
  data: {
    type?: string;
    attributes: T;
    relationships: {
      tariffs: { data: { id: string; type?: string }[] };
      vehicle: { data: { id: string; type?: string } };
    };
  };
}

const lat = { type: 'number', minimum: -90, maximum: 90 } as const;
const lon = { type: 'number', minimum: -180, maximum: 180 } as const;

/** What both searches share: pricing inputs (as the bulk preview, D50) and station refinements (D26). */
const common = { battery_range: batteryRange, ...refinementSchema } as const;

const relationships = {
  type: 'object',
  required: ['tariffs', 'vehicle'],
  properties: {
    tariffs: toMany('tariff', MAX_AREA_TARIFFS, { minItems: 1 }),
    vehicle: toOne('car'),
  },
} as const;

const document = (type: string, attributes: object, required: string[]) =>
  envelope({
  required: ['attributes', 'relationships'],
  properties: {
    type: { const: type },
    attributes: { type: 'object', required, additionalProperties: false, properties: attributes },
    relationships,
  },
});

export const validateArea = compile<SearchBody<AreaAttributes>>(
  document(
    'area_price_preview_request',
    {
      ...common,
      latitude: lat,
      longitude: lon,
      radius: { type: 'number', minimum: 1, maximum: 200_000 },
      latitude_gte: lat,
      latitude_lte: lat,
      longitude_gte: lon,
      longitude_lte: lon,
      sort: { enum: ['price', 'distance'] },
      limit: { type: 'integer', minimum: 1, maximum: 1000 },
    },
    ['battery_range'],
  ),
);

export const validateRoute = compile<SearchBody<RouteAttributes>>(
  document(
    'route_price_preview_request',
    {
      ...common,
      ...routeSchema,
      sort: { enum: ['route', 'price'] },
      limit: { type: 'integer', minimum: 1, maximum: 1000 },
    },
    ['battery_range', 'route'],
  ),
);
