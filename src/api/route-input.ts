/**
 * What the requests that take a route share (the route price search, D111–D112, and trip plans,
 * D267): the route's JSON Schema, the pricing inputs and station refinements beside it, and the
 * route's points decoded and checked (400 with a pointer).
 */
import { badPointer } from './jsonapi/errors.js';
import { bool, Pair, Type, type Static, type TObject } from './jsonapi/schemas.js';
import { bulkOptions } from './price-inputs.js';
import type { StationIndex } from '../domain/stations/index.js';
import { decodePolylineInto, ensureLine, type RouteLine } from '../domain/stations/polyline.js';

const A = '/data/attributes';

const power = Type.Number({ exclusiveMinimum: 0, maximum: 10000 });
const names = (max: number) => Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { minItems: 1, maxItems: max });
const { Optional } = Type;

/** Pricing inputs (the bulk preview's, D50, with a bounded power) and station refinements (D26) of the price searches. */
export const refinementSchema = {
  ...bulkOptions,
  charge_points_power_lte: Optional(power),
  charge_points_power_gte: Optional(power),
  plugs: Optional(names(50)),
  operator_ids: Optional(names(1000)),
  country: Optional(Type.String({ pattern: '^[A-Za-z]{2}$' })),
  free_parking: Optional(bool),
  free_charging: Optional(bool),
  facilities: Optional(names(50)),
  parking_type: Optional(Type.String({ minLength: 1, maxLength: 100 })),
};

/** A route: exactly one of `polyline` and `coordinates`, checked by `routePoints` (D111). */
const RouteShape = Type.Object(
  {
    polyline: Optional(Type.String({ minLength: 1, maxLength: 200_000 })),
    coordinates: Optional(Type.Array(Pair(), { minItems: 2, maxItems: 10_000 })),
  },
  { additionalProperties: false },
);
export type RouteInput = Static<typeof RouteShape>;

/** `route` and `corridor` (D111). */
export const routeSchema = {
  route: RouteShape,
  corridor: Optional(Type.Number({ minimum: 1, maximum: 20_000 })),
};

/** The decoded route of the request being read (the main thread reads one at a time). */
const scratch: RouteLine = { lon: new Float64Array(0), lat: new Float64Array(0), n: 0 };

/**
 * The route's points: decoded polyline (precision 5) or coordinates, checked (400 with a pointer).
 * The arrays are reused by the next request: read them before the handler awaits.
 */
export function routeLine(r: RouteInput): RouteLine {
  const P = `${A}/route`;
  if ((r.polyline === undefined) === (r.coordinates === undefined)) throw badPointer(P, 'give exactly one of route.polyline and route.coordinates');
  let line: RouteLine;
  if (r.coordinates !== undefined) {
    const c = r.coordinates;
    line = ensureLine(scratch, c.length);
    for (let k = 0; k < c.length; k++) {
      const lo = c[k][0];
      const la = c[k][1];
      if (!(Math.abs(la) <= 90 && Math.abs(lo) <= 180)) throw badPointer(`${P}/coordinates/${k}`, `${P}/coordinates/${k} must be [longitude, latitude] in range`);
      line.lon[k] = lo;
      line.lat[k] = la;
    }
  } else {
    if (!decodePolylineInto(r.polyline!, scratch)) throw badPointer(`${P}/polyline`, 'route.polyline is not an encoded polyline');
    line = scratch;
    for (let k = 0; k < line.n; k++) {
      if (!(Math.abs(line.lat[k]) <= 90 && Math.abs(line.lon[k]) <= 180)) throw badPointer(`${P}/polyline`, 'route.polyline decodes to coordinates out of range');
    }
    if (line.n > 10_000) throw badPointer(`${P}/polyline`, 'route.polyline has more than 10000 points');
  }
  if (line.n < 2) throw badPointer(r.polyline !== undefined ? `${P}/polyline` : `${P}/coordinates`, 'a route needs at least 2 points');
  return line;
}

/** The route as [longitude, latitude] points (`routeLine`'s, copied). */
export function routePoints(r: RouteInput): [number, number][] {
  const line = routeLine(r);
  const pts: [number, number][] = [];
  for (let k = 0; k < line.n; k++) pts.push([line.lon[k], line.lat[k]]);
  return pts;
}

/** The refinement members of an area, route or trip request. */
export type RefinementAttributes = Static<TObject<typeof refinementSchema>>;

/** The stations a request's refinements accept, compiled for the index (D112). */
export function compileRefinement(index: StationIndex, a: RefinementAttributes): ReturnType<StationIndex['compile']> {
  return index.compile({
    operatorIds: a.operator_ids,
    countries: a.country === undefined ? undefined : [a.country],
    freeParking: a.free_parking,
    freeCharging: a.free_charging,
    facilities: a.facilities,
    parkingTypes: a.parking_type === undefined ? undefined : [a.parking_type],
    plugs: a.plugs,
    powerGte: a.charge_points_power_gte,
    powerLte: a.charge_points_power_lte,
  });
}
