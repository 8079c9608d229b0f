/**
 * What the requests that take a route share (the route price search, D111–D112, and trip plans,
 * D267): the route's JSON Schema, the pricing inputs and station refinements beside it, and the
 * route's points decoded and checked (400 with a pointer).
 */
import polyline from '@mapbox/polyline';
import { badPointer } from './jsonapi/errors.js';
import { bool, Pair, Type, type Static, type TObject } from './jsonapi/schemas.js';
import { bulkOptions } from './price-inputs.js';
import type { StationIndex } from '../domain/stations/index.js';

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

/** The route as [longitude, latitude] points: decoded polyline (precision 5) or coordinates. */
export function routePoints(r: RouteInput): [number, number][] {
  const P = `${A}/route`;
  if ((r.polyline === undefined) === (r.coordinates === undefined)) throw badPointer(P, 'give exactly one of route.polyline and route.coordinates');
  let pts: [number, number][];
  if (r.coordinates !== undefined) {
    pts = r.coordinates.map((c) => [c[0], c[1]]);
    pts.forEach(([lo, la], k) => {
      if (!(Math.abs(la) <= 90 && Math.abs(lo) <= 180)) throw badPointer(`${P}/coordinates/${k}`, `${P}/coordinates/${k} must be [longitude, latitude] in range`);
    });
  } else {
    let decoded: [number, number][];
    try {
      decoded = polyline.decode(r.polyline!, 5);
    } catch {
      throw badPointer(`${P}/polyline`, 'route.polyline is not an encoded polyline');
    }
    if (!validPolyline(r.polyline!)) throw badPointer(`${P}/polyline`, 'route.polyline is not an encoded polyline');
    pts = decoded.map(([lat, lon]) => [lon, lat]);
    for (const [lon, lat] of pts) {
      if (!(Math.abs(lat) <= 90 && Math.abs(lon) <= 180)) throw badPointer(`${P}/polyline`, 'route.polyline decodes to coordinates out of range');
    }
    if (pts.length > 10_000) throw badPointer(`${P}/polyline`, 'route.polyline has more than 10000 points');
  }
  if (pts.length < 2) throw badPointer(r.polyline !== undefined ? `${P}/polyline` : `${P}/coordinates`, 'a route needs at least 2 points');
  return pts;
}

/**
 * An encoded polyline is characters 63–126 whose 5-bit groups end each value (a character below
 * 95 ends one), with an even number of values; the decoder accepts anything, so check here.
 */
function validPolyline(s: string): boolean {
  let values = 0;
  let open = false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 63 || c > 126) return false;
    open = c >= 95;
    if (!open) values++;
  }
  return !open && values % 2 === 0;
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
