/**
 * Price search by area and along a route (D110–D114): `POST /v1/charge_prices/area` and
 * `POST /v1/charge_prices/route` (group ReadCosts). Every station of the area or corridor that
 * passes the refinements is priced with the bulk calculation (D91) on the pool, split over the
 * workers when large; the answer holds the `limit` best by `sort`, with the stations and their
 * operators in `included`.
 */
import type { AppContext } from '../context.js';
import { badPointer } from '../jsonapi/errors.js';
import { CONTENT_TYPE, type ApiRequest, type ApiResponse, type Format, type RouteDef } from '../types.js';
import { FeatureWriter } from '../station-features.js';
import { StationPageWriter } from '../station-page.js';
import { priceStations } from '../station-pricing.js';
import { PreviewWriter, PricedStations, previewAttributesText } from './preview-writer.js';
import { compileRefinement, routeLine } from '../route-input.js';
import { currencyOf, startDayOf, vehicleOf } from '../price-inputs.js';
import { aroundInto, haversineMeters } from '../../domain/stations/geo.js';
import type { StationIndex } from '../../domain/stations/index.js';
import { Route, type CorridorHit } from '../../domain/stations/corridor.js';
import { CorridorCache } from '../../domain/stations/corridor-cache.js';
import { DEFAULT_CHARGE_PRICE_OPTIONS } from '../../domain/pricing/index.js';
import type { StationPricesTask } from '../../pool/protocol.js';
import { validateArea, validateRoute, type AreaBody, type RouteBody } from './area-prices.schema.js';
import { defineRoute } from '../contract.js';

const A = '/data/attributes';
const HEAD_LENGTH = Buffer.byteLength('{"data":[');
const MID = Buffer.from('],"included":[');
const COMMA = 0x2c;

/**
 * The corridor's stations that pass the refinements (D112): of a polyline route from the
 * corridors kept (D294), searched and kept when new; of coordinates searched each time.
 */
function corridorHit(index: StationIndex, corridors: CorridorCache | null, a: RouteBody['data']['attributes']): CorridorHit {
  const width = a.corridor ?? 2000;
  const text = a.route.polyline;
  // The route is read before the refinements (its 400 first), as without kept corridors.
  const accepting = (): ((i: number) => boolean) => {
    const r = compileRefinement(index, a);
    return (i) => index.matches(i, r);
  };
  if (corridors === null || text === undefined || a.route.coordinates !== undefined) {
    const line = routeLine(a.route);
    return new Route(line).stationsWithin(index, width, accepting());
  }
  const key = `${width} ${text}`;
  const kept = corridors.get(key) ?? corridors.set(key, new Route(routeLine(a.route)).stationsWithin(index, width, () => true));
  return CorridorCache.refine(kept, accepting());
}

/** The members both searches share. */
type Attributes = (AreaBody | RouteBody)['data']['attributes'];

export function areaPricesRoutes(ctx: AppContext): RouteDef[] {
  const index = ctx.stations;
  const rates = ctx.snapshot.rates();
  const writer = new StationPageWriter(index, ctx.companies, ctx.config.disabledExtBCountries, ctx.snapshot.meta.snapshotVersion);
  const features = new FeatureWriter(index, ctx.companies);
  const previews = new PreviewWriter(index);

  const refinement = (a: Attributes) => compileRefinement(index, a);
  const corridors = ctx.config.corridorCacheMb > 0 ? new CorridorCache(ctx.config.corridorCacheMb * 1024 * 1024) : null;

  /** Prices the stations (bulk calculation) on the pool, split over the workers when many. */
  async function price(body: AreaBody | RouteBody, indices: number[]): Promise<PricedStations> {
    const a = body.data.attributes;
    const rel = body.data.relationships;
    const base: Omit<StationPricesTask, 'stations'> = {
      tariffIds: rel.tariffs.data.map((t) => t.id),
      vehicle: vehicleOf(ctx, rel.vehicle.data.id),
      batteryRange: [a.battery_range[0], a.battery_range[1]],
      currency: currencyOf(a.currency, rates),
      startTime: a.start_time ?? DEFAULT_CHARGE_PRICE_OPTIONS.start_time,
      startDay: startDayOf(a.start_date, '/data/attributes/start_date'),
      allowUnbalancedLoad: a.allow_unbalanced_load ?? DEFAULT_CHARGE_PRICE_OPTIONS.allow_unbalanced_load,
      includeDirectPayment: a.include_direct_payment ?? false,
      chargePointsPowerLte: a.charge_points_power_lte ?? null,
      chargePointsPowerGte: a.charge_points_power_gte ?? null,
      plugs: a.plugs ?? null,
    };
    const out = new PricedStations(indices);
    await priceStations(ctx, base, indices, (j, rows, r) => out.set(j, rows, r));
    out.collect();
    return out;
  }

  /**
   * The answer document: previews, then the stations (list shape) and their operators as station
   * search writes them, spliced in as bytes (parsing and re-serialising 500 list-shape stations
   * took about 5 ms of a 14 ms answer). As GeoJSON (D237): a feature per preview, its station's
   * properties and the preview's attributes.
   */
  function answer(format: Format, currency: string, s: PricedStations, considered: number, limit: number, withDetour: boolean): ApiResponse {
    const cur = JSON.stringify(currency);
    const priced = s.order.length;
    const best = priced > limit ? s.order.slice(0, limit) : s.order;
    const meta = `{"stations_considered":${considered},"stations_priced":${priced},"more_available":${priced > limit}}`;
    const indices = best.map((j) => s.indices[j]);
    if (format === 'geojson') {
      // Copied: this handler is async, and another answer may reuse the writer's buffer before this one is written.
      const body = Buffer.from(features.collection({ indices, availability: null, extra: (k) => `,${previewAttributesText(s, best[k], cur, withDetour)}`, members: `,"meta":${meta}` }));
      return { status: 200, body, headers: { 'Content-Type': CONTENT_TYPE.geojson } };
    }
    const page = writer.page({ indices, moreAvailable: false, availability: null, companyFields: undefined, supportedEmpsFilter: undefined });
    // page = {"data":[<stations>],"included":[<operators>],"meta":{…}}
    const stations = page.subarray(HEAD_LENGTH, writer.midAt);
    const operators = page.subarray(writer.midAt + MID.length, writer.tailAt);
    const data = previews.write(s, best, cur, withDetour);
    const tail = `],"meta":${meta}}`;
    const comma = stations.length > 0 && operators.length > 0 ? 1 : 0;
    // One fresh body (the writers' buffers are reused by the next answer): the previews, then the stations and operators.
    const body = Buffer.allocUnsafe(data.length + MID.length + stations.length + comma + operators.length + tail.length);
    let p = data.copy(body, 0);
    p += MID.copy(body, p);
    p += stations.copy(body, p);
    if (comma === 1) body[p++] = COMMA;
    p += operators.copy(body, p);
    body.write(tail, p, 'latin1');
    return { status: 200, body };
  }

  /** Orders of the priced positions: `price`, `distance` (D113) and `route`. */
  const byPrice = (s: PricedStations) => (x: number, y: number): number => s.price[x] - s.price[y] || s.dist(x) - s.dist(y) || s.indices[x] - s.indices[y];
  const byDistance = (s: PricedStations) => (x: number, y: number): number => s.dist(x) - s.dist(y) || s.price[x] - s.price[y] || s.indices[x] - s.indices[y];
  const byRoute = (s: PricedStations) => (x: number, y: number): number => s.dist(x) - s.dist(y) || s.detour![x] - s.detour![y] || s.indices[x] - s.indices[y];

  async function area(req: ApiRequest<AreaBody>): Promise<ApiResponse> {
    const body = req.body;
    const a = body.data.attributes;
    checkCommon(a);
    const hasRadius = a.latitude !== undefined || a.longitude !== undefined || a.radius !== undefined;
    const hasBox = a.latitude_gte !== undefined || a.latitude_lte !== undefined || a.longitude_gte !== undefined || a.longitude_lte !== undefined;
    if (hasRadius === hasBox) throw badPointer(A, 'give exactly one area: latitude, longitude and radius, or latitude_gte, latitude_lte, longitude_gte and longitude_lte');
    const r = refinement(a);
    const accept = (i: number): boolean => index.matches(i, r);
    let indices: number[] = [];
    let distanceOf: ((i: number) => number) | null = null;
    if (hasRadius) {
      for (const k of ['latitude', 'longitude', 'radius'] as const) if (a[k] === undefined) throw badPointer(`${A}/${k}`, `${A}/${k} is required with a radius area`);
      const lat = a.latitude!;
      const lon = a.longitude!;
      aroundInto(index.kd, lon, lat, a.radius!, index.size, accept, indices);
      distanceOf = (i) => haversineMeters(lat, lon, index.latAt(i), index.lonAt(i));
    } else {
      for (const k of ['latitude_gte', 'latitude_lte', 'longitude_gte', 'longitude_lte'] as const) if (a[k] === undefined) throw badPointer(`${A}/${k}`, `${A}/${k} is required with a box area`);
      if (!(a.latitude_gte! <= a.latitude_lte!)) throw badPointer(`${A}/latitude_gte`, 'latitude_gte must not be above latitude_lte');
      if (!(a.longitude_gte! <= a.longitude_lte!)) throw badPointer(`${A}/longitude_gte`, 'longitude_gte must not be above longitude_lte');
      for (const i of index.kd.range(a.longitude_gte!, a.latitude_gte!, a.longitude_lte!, a.latitude_lte!)) if (accept(i)) indices.push(i);
      indices = indices.sort((x, y) => x - y);
    }
    const priced = await price(body, indices);
    if (distanceOf !== null) {
      const distance = new Float64Array(indices.length);
      for (const j of priced.order) distance[j] = distanceOf(indices[j]);
      priced.distance = distance;
    }
    const sort = a.sort ?? 'price';
    if (sort === 'distance' && distanceOf === null) throw badPointer(`${A}/sort`, 'sort distance needs a radius area');
    priced.order.sort(sort === 'price' ? byPrice(priced) : byDistance(priced));
    return answer(req.format, currencyOf(a.currency, rates), priced, indices.length, a.limit ?? 100, false);
  }

  async function route(req: ApiRequest<RouteBody>): Promise<ApiResponse> {
    const body = req.body;
    const a = body.data.attributes;
    checkCommon(a);
    const hit = corridorHit(index, corridors, a);
    const priced = await price(body, hit.indices);
    priced.distance = hit.along;
    priced.detour = hit.detour;
    const sort = a.sort ?? 'route';
    priced.order.sort(sort === 'price' ? byPrice(priced) : byRoute(priced));
    return answer(req.format, currencyOf(a.currency, rates), priced, hit.indices.length, a.limit ?? 200, true);
  }

  function checkCommon(a: Attributes): void {
    if (!(a.battery_range[0] < a.battery_range[1])) throw badPointer(`${A}/battery_range`, 'battery_range start must be below its end');
    if (a.charge_points_power_gte !== undefined && a.charge_points_power_lte !== undefined && a.charge_points_power_gte > a.charge_points_power_lte) {
      throw badPointer(`${A}/charge_points_power_gte`, 'charge_points_power_gte must not be above charge_points_power_lte');
    }
  }

  return [
    defineRoute({ method: 'POST', path: '/v1/charge_prices/area', answers: { status: 200, otherMediaTypes: (s) => ({ 'application/geo+json': s.AreaFeatures }), response: (s) => s.AreaDocument }, groups: ['ReadCosts'], input: validateArea, priceWork: true, fresh: true, formats: ['geojson'], handler: area }),
    defineRoute({ method: 'POST', path: '/v1/charge_prices/route', answers: { status: 200, otherMediaTypes: (s) => ({ 'application/geo+json': s.RouteFeatures }), response: (s) => s.RouteDocument }, groups: ['ReadCosts'], input: validateRoute, priceWork: true, fresh: true, formats: ['geojson'], handler: route }),
  ];
}
