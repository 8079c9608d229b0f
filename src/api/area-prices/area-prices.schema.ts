/** JSON Schemas of the area and route price searches (D110–D113), compiled once. */
import type { TProperties } from '@sinclair/typebox';
import { batteryRange, Const, Enum, Envelope, toMany, toOne, Type, type Static } from '../jsonapi/schemas.js';
import { validatorOf } from '../jsonapi/validate.js';
import { refinementSchema, routeSchema } from '../route-input.js';

export const MAX_AREA_TARIFFS = 200;

const { Optional } = Type;
const lat = Type.Number({ minimum: -90, maximum: 90 });
const lon = Type.Number({ minimum: -180, maximum: 180 });
const limit = Optional(Type.Integer({ minimum: 1, maximum: 1000 }));

const relationships = Type.Object({
  tariffs: toMany('tariff', MAX_AREA_TARIFFS, { minItems: 1 }),
  vehicle: toOne('car'),
});

/** A search request: pricing inputs (as the bulk preview, D50) and station refinements (D26) besides its own members. */
const search = <T extends string, P extends TProperties>(type: T, attributes: P) =>
  Envelope({
    type: Optional(Const(type)),
    attributes: Type.Object({ battery_range: batteryRange, ...refinementSchema, ...attributes }, { additionalProperties: false }),
    relationships,
  });

export const AreaBody = search('area_price_preview_request', {
  latitude: Optional(lat),
  longitude: Optional(lon),
  radius: Optional(Type.Number({ minimum: 1, maximum: 200_000 })),
  latitude_gte: Optional(lat),
  latitude_lte: Optional(lat),
  longitude_gte: Optional(lon),
  longitude_lte: Optional(lon),
  sort: Optional(Enum(['price', 'distance'])),
  limit,
});
export type AreaBody = Static<typeof AreaBody>;

export const RouteBody = search('route_price_preview_request', { ...routeSchema, sort: Optional(Enum(['route', 'price'])), limit });
export type RouteBody = Static<typeof RouteBody>;

export const validateArea = validatorOf(AreaBody);
export const validateRoute = validatorOf(RouteBody);
