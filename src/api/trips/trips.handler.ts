/**
 * Trip plans `POST /v1/trip_plans` (D267–D271, group ReadCosts): where to stop along a route, how
 * far to charge at each stop, and what the trip costs. The main thread validates (400), finds the
 * corridor's candidate stations (D112) and checks the bounds (D270); the pricing and the search
 * run in one pool task (src/api/trips/trips.task.ts); the answer is a `trip_plan` with its stops'
 * stations in `included`, or GeoJSON (the route and the stops), or 422 when no plan exists.
 */
import { createHash } from 'node:crypto';
import type { AppContext } from '../context.js';
import { badPointer } from '../jsonapi/errors.js';
import { CONTENT_TYPE, type ApiRequest, type ApiResponse, type RouteDef } from '../types.js';
import { FeatureWriter } from '../station-features.js';
import { StationPageWriter } from '../station-page.js';
import { currencyOf, startDayOf, vehicleOf } from '../price-inputs.js';
import { compileRefinement, routePoints } from '../route-input.js';
import { Route } from '../../domain/stations/corridor.js';
import { DEFAULT_CHARGE_PRICE_OPTIONS } from '../../domain/pricing/index.js';
import { gridOf } from '../../domain/trips/search.js';
import type { TripPlanTask } from '../../pool/protocol.js';
import { validateTripPlan, type TripAttributes, type TripBody } from './trips.schema.js';
import { defineRoute } from '../contract.js';

const A = '/data/attributes';
/** D270: candidate stations and level pairs × tariffs at most. */
export const MAX_TRIP_STATIONS = 1000;
export const MAX_TRIP_PAIR_TARIFFS = 100_000;
/** D267 defaults. */
export const TRIP_DEFAULTS = { start_soc: 80, min_soc: 10, max_soc: 80, time_value: 0, detour_speed: 50, soc_step: 5, corridor: 2000 } as const;

const HEAD_LENGTH = Buffer.byteLength('{"data":[');
const MID = Buffer.from('],"included":[');
const F_HEAD_LENGTH = Buffer.byteLength('{"type":"FeatureCollection","features":[');

/** A stop as the task answers it. */
type StopRow = [number, number, number, number, string, number, string, number, number, number, number];
type TaskAnswer =
  | { ok: true; cost: number; arrival: number; stops: StopRow[]; priced: number }
  | { ok: false; runs_out: number; start_soc_needed: number | null; priced: number };

interface Corridor {
  /** Metres either side of the route. */
  width: number;
  route: Route;
  points: [number, number][];
  indices: number[];
  along: number[];
  off: number[];
}

export function tripsRoutes(ctx: AppContext): RouteDef[] {
  const index = ctx.stations;
  const rates = ctx.snapshot.rates();
  const writer = new StationPageWriter(index, ctx.companies, ctx.config.disabledExtBCountries, ctx.snapshot.meta.snapshotVersion);
  const features = new FeatureWriter(index, ctx.companies);
  let direct = { generation: -1, count: 0 };
  const directPaymentTariffs = (): number => {
    if (direct.generation !== ctx.tariffs.generation) direct = { generation: ctx.tariffs.generation, count: ctx.tariffs.all().filter((t) => t.is_direct_payment).length };
    return direct.count;
  };

  /** The corridor's candidate stations in route order (then detour, then snapshot order), refined (D112). */
  function corridorOf(a: TripAttributes): Corridor {
    const points = routePoints(a.route);
    const r = compileRefinement(index, a);
    const route = new Route(points);
    const width = a.corridor ?? TRIP_DEFAULTS.corridor;
    const hit = route.stationsWithin(index, width, (i) => index.matches(i, r));
    const order = hit.indices.map((_, j) => j).sort((x, y) => hit.along[x] - hit.along[y] || hit.detour[x] - hit.detour[y] || hit.indices[x] - hit.indices[y]);
    return { width, route, points, indices: order.map((j) => hit.indices[j]), along: order.map((j) => hit.along[j]), off: order.map((j) => hit.detour[j]) };
  }

  /** Everything of the request the task needs, checked (400 with a pointer, D267 and D270). */
  function taskOf(body: TripBody, c: Corridor): TripPlanTask {
    const a = body.data.attributes;
    const rel = body.data.relationships;
    const startSoc = a.start_soc ?? TRIP_DEFAULTS.start_soc;
    const minSoc = a.min_soc ?? TRIP_DEFAULTS.min_soc;
    const maxSoc = a.max_soc ?? TRIP_DEFAULTS.max_soc;
    const step = a.soc_step ?? TRIP_DEFAULTS.soc_step;
    if (!(minSoc < maxSoc)) throw badPointer(`${A}/max_soc`, 'max_soc must be above min_soc');
    const currency = currencyOf(a.currency, rates);
    const vehicle = vehicleOf(ctx, rel.vehicle.data.id);
    const consumption = a.consumption ?? ctx.vehicles.get(rel.vehicle.data.id)?.average_consumption ?? null;
    if (consumption === null || !(consumption > 0)) throw badPointer(`${A}/consumption`, `vehicle ${rel.vehicle.data.id} has no average consumption: give consumption in kWh/100 km`);
    if (c.indices.length > MAX_TRIP_STATIONS) {
      throw badPointer(`${A}/corridor`, `${c.indices.length} candidate stations in the corridor, at most ${MAX_TRIP_STATIONS}: narrow the corridor or refine the stations`);
    }
    const tariffIds = rel.tariffs === undefined ? null : rel.tariffs.data.map((t) => t.id);
    const includeDirectPayment = a.include_direct_payment ?? false;
    const tariffs = (tariffIds?.length ?? 0) + (tariffIds === null || includeDirectPayment ? directPaymentTariffs() : 0);
    const { pairs } = gridOf(minSoc, maxSoc, step);
    if (pairs * tariffs > MAX_TRIP_PAIR_TARIFFS) {
      throw badPointer(`${A}/soc_step`, `${pairs} charge level pairs × ${tariffs} tariffs = ${pairs * tariffs}, at most ${MAX_TRIP_PAIR_TARIFFS}: a coarser soc_step or fewer tariffs`);
    }
    if (a.charge_points_power_gte !== undefined && a.charge_points_power_lte !== undefined && a.charge_points_power_gte > a.charge_points_power_lte) {
      throw badPointer(`${A}/charge_points_power_gte`, 'charge_points_power_gte must not be above charge_points_power_lte');
    }
    const current = ctx.prices.dispatchesStations(index.c.ids);
    return {
      stations: current ? { indices: Int32Array.from(c.indices) } : { ids: c.indices.map((i) => index.idAt(i)) },
      along: Float64Array.from(c.along),
      off: Float64Array.from(c.off),
      length: c.route.length,
      vehicle,
      consumption,
      startSoc,
      minSoc,
      maxSoc,
      step,
      timeValue: a.time_value ?? TRIP_DEFAULTS.time_value,
      detourSpeed: a.detour_speed ?? TRIP_DEFAULTS.detour_speed,
      tariffIds,
      includeDirectPayment,
      currency,
      startTime: a.start_time ?? DEFAULT_CHARGE_PRICE_OPTIONS.start_time,
      startDay: startDayOf(a.start_date, `${A}/start_date`),
      allowUnbalancedLoad: a.allow_unbalanced_load ?? DEFAULT_CHARGE_PRICE_OPTIONS.allow_unbalanced_load,
      plugs: a.plugs ?? null,
      chargePointsPowerGte: a.charge_points_power_gte ?? null,
      chargePointsPowerLte: a.charge_points_power_lte ?? null,
    };
  }

  async function plan(req: ApiRequest<TripBody>): Promise<ApiResponse> {
    const body = req.body;
    const c = corridorOf(body.data.attributes);
    const task = taskOf(body, c);
    const { pairs } = gridOf(task.minSoc, task.maxSoc, task.step);
    const work = ctx.prices.plan({ task: 'tripPlan', stations: c.indices.length, tariffs: task.tariffIds?.length ?? 1, pairs });
    const r = await ctx.prices.run(work, task);
    const text = typeof r.body === 'string' ? r.body : r.body.toString('utf8');
    r.release?.();
    const answer = JSON.parse(text) as TaskAnswer;
    const meta = metaOf(task, c, answer.priced, body.data.relationships.vehicle.data.id);
    if (!answer.ok) return noPlan(answer, c, meta);
    const id = createHash('sha256').update(JSON.stringify(body)).digest('hex').slice(0, 32);
    return write(req.format, id, task, c, answer, meta);
  }

  function metaOf(t: TripPlanTask, c: Corridor, priced: number, vehicleId: string): string {
    const model = {
      vehicle: vehicleId.toLowerCase(), usable_battery: t.vehicle.usable_battery_size, consumption: t.consumption, start_soc: t.startSoc, min_soc: t.minSoc,
      max_soc: t.maxSoc, soc_step: t.step, time_value: t.timeValue, detour_speed: t.detourSpeed, corridor: c.width, currency: t.currency, start_time: t.startTime,
    };
    return `{"model":${JSON.stringify(model)},"stations_considered":${c.indices.length},"stations_priced":${priced}}`;
  }

  function noPlan(a: Extract<TaskAnswer, { ok: false }>, c: Corridor, meta: string): ApiResponse {
    const [lon, lat] = c.route.pointAt(a.runs_out);
    const runsOut = { distance: a.runs_out, latitude: lat, longitude: lon, start_soc_needed: a.start_soc_needed };
    const change = a.start_soc_needed === null ? 'no start charge up to 100 % reaches the destination: a wider corridor, a lower min_soc or a higher max_soc' : `a start charge of ${a.start_soc_needed} % reaches the destination`;
    const err = { status: '422', code: 'NO_TRIP_PLAN', title: 'no trip plan reaches the destination', detail: `the car runs out ${Math.round(a.runs_out)} m along the route; ${change}` };
    return { status: 422, body: `{"errors":[${JSON.stringify(err)}],"meta":{"runs_out":${JSON.stringify(runsOut)},${meta.slice(1)}}` };
  }

  function write(format: ApiRequest['format'], id: string, t: TripPlanTask, c: Corridor, a: Extract<TaskAnswer, { ok: true }>, meta: string): ApiResponse {
    const cur = JSON.stringify(t.currency);
    const stops = a.stops.map((s) => {
      const [pos, arrival, from, to, plug, power, tariffId, price, energy, duration, detourMinutes] = s;
      return {
        station_id: index.idAt(c.indices[pos]), charge_point: { plug, power }, tariff_id: tariffId, arrival_soc: arrival, charge_from_soc: from, departure_soc: to,
        energy, charging_minutes: duration, price, distance: c.along[pos], detour: 2 * c.off[pos], detour_minutes: detourMinutes,
      };
    });
    const sum = (f: (s: (typeof stops)[number]) => number): number => stops.reduce((x, s) => x + f(s), 0);
    const totals = { price: sum((s) => s.price), charging_minutes: sum((s) => s.charging_minutes), detour: sum((s) => s.detour), detour_minutes: sum((s) => s.detour_minutes), arrival_soc: a.arrival, cost: a.cost };
    const attributes = `{"stops":${JSON.stringify(stops)},"totals":${JSON.stringify(totals)},"currency":${cur},"distance":${c.route.length}}`;
    const indices = a.stops.map((s) => c.indices[s[0]]);
    if (format === 'geojson') return geojson(indices, stops, attributes, c, meta);
    const page = writer.page({ indices, moreAvailable: false, availability: null, companyFields: undefined, supportedEmpsFilter: undefined });
    const stations = page.subarray(HEAD_LENGTH, writer.midAt);
    const operators = page.subarray(writer.midAt + MID.length, writer.tailAt);
    const rels = stops.map((s) => ({ type: 'charging_station', id: s.station_id }));
    return {
      status: 200,
      body: Buffer.concat([
        Buffer.from(`{"data":{"id":"${id}","type":"trip_plan","attributes":${attributes},"relationships":{"charging_stations":{"data":${JSON.stringify(rels)}}}},"included":[`),
        stations,
        Buffer.from(stations.length > 0 && operators.length > 0 ? ',' : ''),
        operators,
        Buffer.from(`],"meta":${meta}}`),
      ]),
    };
  }

  /** D271 as GeoJSON: the route (LineString with the totals), then a point per stop. */
  function geojson(indices: number[], stops: object[], attributes: string, c: Corridor, meta: string): ApiResponse {
    const fc = features.collection({ indices, availability: null, extra: (j) => `,"kind":"stop",${JSON.stringify(stops[j]).slice(1, -1)}`, members: `,"meta":${meta}` });
    const parsed = JSON.parse(attributes) as { totals: object; currency: string; distance: number };
    const line = `{"type":"Feature","id":"route","geometry":{"type":"LineString","coordinates":${JSON.stringify(c.points)}},"properties":${JSON.stringify({ kind: 'route', currency: parsed.currency, distance: parsed.distance, ...parsed.totals })}}`;
    const body = Buffer.concat([fc.subarray(0, F_HEAD_LENGTH), Buffer.from(line + (indices.length > 0 ? ',' : '')), fc.subarray(F_HEAD_LENGTH)]);
    return { status: 200, body, headers: { 'Content-Type': CONTENT_TYPE.geojson } };
  }

  return [defineRoute({ method: 'POST', path: '/v1/trip_plans', answers: { status: 200, otherMediaTypes: (s) => ({ 'application/geo+json': s.TripPlanFeatures }), response: (s) => s.TripPlanDocument, errorSchemas: (s) => ({ '422': s.NoTripPlanDocument }) }, groups: ['ReadCosts'], input: validateTripPlan, priceWork: true, fresh: true, formats: ['geojson'], handler: plan })];
}
