/**
 * What the requests that take a route share (the route price search, D111–D112, and trip plans,
 * D267): the route's JSON Schema, the pricing inputs and station refinements beside it, and the
 * route's points decoded and checked (400 with a pointer).
 */
import polyline from '@mapbox/polyline';
import { badPointer } from './jsonapi/errors.js';
import { bool, currency, startTime } from './jsonapi/schemas.js';
import { startDate } from './price-inputs.js';
import type { StationIndex } from '../domain/stations/index.js';

const A = '/data/attributes';

const power = { type: 'number', exclusiveMinimum: 0, maximum: 10000 } as const;
const names = (max: number) => ({ type: 'array', minItems: 1, maxItems: max, items: { type: 'string', minLength: 1, maxLength: 200 } }) as const;

/** Pricing inputs (as the bulk preview, D50) and station refinements (D26) of the price searches. */
export const refinementSchema = {
  currency,
  start_time: startTime,
  start_date: startDate,
  allow_unbalanced_load: bool,
  include_direct_payment: bool,
  charge_points_power_lte: power,
  charge_points_power_gte: power,
  plugs: names(50),
  operator_ids: names(1000),
  country: { type: 'string', pattern: '^[A-Za-z]{2}$' },
  free_parking: bool,
  free_charging: bool,
  facilities: names(50),
  parking_type: { type: 'string', minLength: 1, maxLength: 100 },
} as const;

/** `route` (exactly one of `polyline` and `coordinates`, checked by `routePoints`) and `corridor` (D111). */
export const routeSchema = {
  route: {
    type: 'object',
    additionalProperties: false,
    properties: {
      polyline: { type: 'string', minLength: 1, maxLength: 200_000 },
      coordinates: { type: 'array', minItems: 2, maxItems: 10_000, items: { type: 'array', minItems: 2, maxItems: 2, items: { type: 'number' } } },
    },
  },
  corridor: { type: 'number', minimum: 1, maximum: 20_000 },
} as const;

export interface RouteInput {
  polyline?: string;
  coordinates?: [number, number][];
}

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

/** The refinement members of an area, route or trip request (refinementSchema's). */
export interface RefinementAttributes {
  operator_ids?: string[];
  country?: string;
  free_parking?: boolean;
  free_charging?: boolean;
  facilities?: string[];
  parking_type?: string;
  plugs?: string[];
  charge_points_power_gte?: number;
  charge_points_power_lte?: number;
}

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
