/**
 * Trip plans over HTTP (D267–D272): a plan across Paris is feasible under the model, every stop's
 * price is what `POST /v1/charge_prices` answers for that charge, station and tariff, and the plan
 * costs no more than the client's two simple strategies (the cheapest reachable station at each
 * leg, the fewest stops) built from `POST /v1/charge_prices/route` and `/bulk`; GeoJSON; 422 with
 * where the car runs out; every bad input 400 with its pointer; the key group.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gridOf, pairIndex, searchTrip } from '../../src/domain/trips/search.js';
import { call, keyFor, startTestApp, type TestApp } from '../helpers/server.js';

const COSTS = keyFor('costs');
const ALL = keyFor('all');
/** A zigzag across Paris, about 45 km. */
const PARIS: [number, number][] = [[2.25, 48.82], [2.42, 48.9], [2.25, 48.9], [2.42, 48.82]];

describe('POST /v1/trip_plans', () => {
  let srv: TestApp;
  let tariffs: string[];
  let allTariffs: string[];
  let vehicle: { id: string; battery: number; consumption: number };

  const body = (attributes: Record<string, unknown>, rel: Record<string, unknown> = {}) => ({
    data: {
      type: 'trip_plan_request',
      attributes: { route: { coordinates: PARIS }, consumption: 60, start_soc: 30, min_soc: 10, soc_step: 10, ...attributes },
      relationships: { tariffs: { data: tariffs.map((id) => ({ type: 'tariff', id })) }, vehicle: { data: { type: 'car', id: vehicle.id } }, ...rel },
    },
  });
  const plan = (attributes: Record<string, unknown> = {}, o: { key?: string; headers?: Record<string, string>; rel?: Record<string, unknown> } = {}) =>
    call(srv, 'POST', '/v1/trip_plans', { key: o.key ?? COSTS, body: body(attributes, o.rel), headers: o.headers });

  beforeAll(async () => {
    srv = await startTestApp({ keys: { costs: 'ReadCosts', all: 'all', reader: 'ReadStations' }, env: { WORKERS: '1' } });
    allTariffs = (await call(srv, 'GET', '/v1/tariffs', { key: ALL })).json.data.map((t: { id: string }) => t.id).slice(0, 200);
    tariffs = allTariffs.slice(0, 40);
    const cars = (await call(srv, 'GET', '/v2/vehicles', { key: ALL })).json.data as any[];
    const car = cars.find((v) => v.attributes.dc_ports.includes('ccs') && v.attributes.usable_battery_size > 40 && v.attributes.energy_consumption.average_consumption > 0);
    vehicle = { id: car.id, battery: car.attributes.usable_battery_size, consumption: car.attributes.energy_consumption.average_consumption };
  }, 120_000);
  afterAll(async () => {
    await srv.stop();
  }, 120_000);

  it('plans stops that keep the car above min_soc, priced as charge prices price each charge', async () => {
    const r = await plan();
    expect(r.status, r.text).toBe(200);
    const d = r.json.data;
    expect(d.type).toBe('trip_plan');
    const stops = d.attributes.stops as any[];
    expect(stops.length).toBeGreaterThan(0);
    const m = r.json.meta.model;
    expect(m).toMatchObject({ consumption: 60, start_soc: 30, min_soc: 10, max_soc: 80, soc_step: 10, time_value: 0, usable_battery: vehicle.battery });
    // Feasible under the model: distance × consumption, detours both ways.
    let soc = 30;
    let at = 0;
    let back = 0;
    for (const s of stops) {
      const used = ((((s.distance - at + back + s.detour / 2) / 1000) * 0.6) / vehicle.battery) * 100;
      expect(s.arrival_soc).toBeCloseTo(soc - used, 6);
      expect(s.arrival_soc).toBeGreaterThanOrEqual(10 - 1e-9);
      expect(s.charge_from_soc).toBe(Math.floor(s.arrival_soc / 10 + 1e-9) * 10);
      expect(s.departure_soc).toBeGreaterThan(s.charge_from_soc);
      expect(s.departure_soc).toBeLessThanOrEqual(80);
      soc = s.departure_soc;
      at = s.distance;
      back = s.detour / 2;
    }
    expect(d.attributes.totals.price).toBeCloseTo(stops.reduce((x, s) => x + s.price, 0), 9);
    expect(d.attributes.totals.cost).toBeCloseTo(d.attributes.totals.price, 9);
    // Each stop priced exactly as POST /v1/charge_prices prices it.
    const stations = new Map<string, any>(r.json.included.filter((x: any) => x.type === 'charging_station').map((x: any) => [x.id, x]));
    for (const s of stops) {
      const st = stations.get(s.station_id);
      expect(st, s.station_id).toBeDefined();
      const cp = await call(srv, 'POST', '/v1/charge_prices', {
        key: COSTS,
        body: {
          data: {
            type: 'charge_price_request',
            attributes: {
              data_adapter: 'native',
              station: { latitude: st.attributes.latitude, longitude: st.attributes.longitude, country: st.attributes.country, network: st.relationships.operator.data.id, charge_points: [s.charge_point] },
              options: { battery_range: [s.charge_from_soc, s.departure_soc] },
            },
            relationships: { vehicle: { data: { type: 'car', id: vehicle.id } }, tariffs: { data: [{ type: 'tariff', id: s.tariff_id }], meta: { include: 'exclusive' } } },
          },
        },
      });
      expect(cp.status, cp.text).toBe(200);
      const entry = cp.json.data.find((e: any) => e.relationships.tariff.data.id === s.tariff_id);
      expect(entry, s.tariff_id).toBeDefined();
      expect(entry.attributes.charge_point_prices[0].price).toBeCloseTo(s.price, 2);
      expect(cp.json.meta.charge_points[0].duration).toBeCloseTo(s.charging_minutes, 6);
      expect(cp.json.meta.charge_points[0].energy).toBeCloseTo(s.energy, 6);
    }
  }, 120_000);

  it('costs no more than the cheapest station of each leg or the fewest stops (route prices and bulk, client side)', async () => {
    const r = await plan();
    expect(r.status, r.text).toBe(200);
    const best = r.json.data.attributes.totals.cost as number;
    const rp = await call(srv, 'POST', '/v1/charge_prices/route', {
      key: COSTS,
      body: { data: { type: 'route_price_preview_request', attributes: { battery_range: [10, 80], route: { coordinates: PARIS }, limit: 1000 }, relationships: { tariffs: { data: tariffs.map((id) => ({ type: 'tariff', id })) }, vehicle: { data: { type: 'car', id: vehicle.id } } } } },
    });
    expect(rp.status, rp.text).toBe(200);
    const cands = (rp.json.data as any[]).map((x) => ({ id: x.id as string, along: x.attributes.distance as number, off: x.attributes.detour as number }));
    const length = r.json.data.attributes.distance as number;
    const pct = (m: number) => (((m / 1000) * 0.6) / vehicle.battery) * 100;
    const priceOf = async (id: string, from: number, to: number): Promise<number | undefined> => {
      const b = await call(srv, 'POST', '/v1/charge_prices/bulk', {
        key: COSTS,
        body: { data: { attributes: { battery_range: [from, to] }, relationships: { charging_stations: { data: [{ type: 'charging_station', id }] }, tariffs: { data: tariffs.map((t) => ({ type: 'tariff', id: t })) }, vehicle: { data: { type: 'car', id: vehicle.id } } } } },
      });
      return b.json.data[0]?.attributes.price;
    };
    /** A greedy client strategy: at each leg pick a reachable station by `choose`, charge to 80 %. */
    const strategy = async (choose: (reach: { c: (typeof cands)[number]; arrival: number; price: number }[]) => number): Promise<number> => {
      let soc = 30;
      let at = 0;
      let back = 0;
      let total = 0;
      for (let legs = 0; legs < 20; legs++) {
        if (soc - pct(length - at + back) >= 10) return total;
        const reach = [];
        for (const c of cands) {
          if (c.along < at) continue;
          const arrival = soc - pct(c.along - at + back + c.off);
          const from = Math.floor(arrival / 10 + 1e-9) * 10;
          if (arrival < 10 || from >= 80 || c.along === at) continue;
          const price = await priceOf(c.id, from, 80);
          if (price !== undefined) reach.push({ c, arrival, price });
        }
        if (reach.length === 0) return Infinity;
        const pick = reach[choose(reach)];
        total += pick.price;
        soc = 80;
        at = pick.c.along;
        back = pick.c.off;
      }
      return Infinity;
    };
    const cheapest = await strategy((reach) => reach.reduce((b, x, i) => (x.price < reach[b].price ? i : b), 0));
    const fewest = await strategy((reach) => reach.reduce((b, x, i) => (x.c.along > reach[b].c.along ? i : b), 0));
    expect(Number.isFinite(cheapest) || Number.isFinite(fewest)).toBe(true);
    expect(best).toBeLessThanOrEqual(cheapest + 1e-6);
    expect(best).toBeLessThanOrEqual(fewest + 1e-6);
  }, 120_000);

  it('equals the same search over route prices of every pair of charge levels (the client path)', async () => {
    const r = await plan({ time_value: 0 });
    expect(r.status, r.text).toBe(200);
    const g = gridOf(10, 80, 10);
    const rows = new Map<string, { along: number; off: number; cost: Float64Array }>();
    for (let a = 0; a < g.levels; a++) {
      for (let e = a + 1; e < g.levels; e++) {
        const rp = await call(srv, 'POST', '/v1/charge_prices/route', {
          key: COSTS,
          body: { data: { type: 'route_price_preview_request', attributes: { battery_range: [(a + g.lo) * 10, (e + g.lo) * 10], route: { coordinates: PARIS }, limit: 1000 }, relationships: { tariffs: { data: tariffs.map((id) => ({ type: 'tariff', id })) }, vehicle: { data: { type: 'car', id: vehicle.id } } } } },
        });
        expect(rp.status, rp.text).toBe(200);
        for (const d of rp.json.data) {
          let row = rows.get(d.id);
          if (row === undefined) rows.set(d.id, (row = { along: d.attributes.distance, off: d.attributes.detour, cost: new Float64Array(g.pairs).fill(Infinity) }));
          row.cost[pairIndex(a, e, g.levels)] = d.attributes.price;
        }
      }
    }
    const list = [...rows.values()].sort((x, y) => x.along - y.along || x.off - y.off);
    const cost = new Float64Array(list.length * g.pairs);
    list.forEach((x, k) => cost.set(x.cost, k * g.pairs));
    const client = searchTrip({
      along: Float64Array.from(list, (x) => x.along), off: Float64Array.from(list, (x) => x.off), length: r.json.data.attributes.distance, battery: vehicle.battery, consumption: 60,
      startSoc: 30, minSoc: 10, maxSoc: 80, step: 10, detourCost: new Float64Array(list.length), cost,
    });
    expect(client.ok).toBe(true);
    if (client.ok) expect(r.json.data.attributes.totals.cost).toBeCloseTo(client.cost, 9);
    expect(r.json.meta.stations_priced).toBe(rows.size);
  }, 120_000);

  it("takes the vehicle's average consumption unless one is given", async () => {
    const r = await call(srv, 'POST', '/v1/trip_plans', { key: COSTS, body: { data: { attributes: { route: { coordinates: PARIS } }, relationships: { vehicle: { data: { type: 'car', id: vehicle.id } } } } } });
    expect(r.status, r.text).toBe(200);
    expect(r.json.meta.model).toMatchObject({ consumption: vehicle.consumption, start_soc: 80, min_soc: 10, max_soc: 80, soc_step: 5, time_value: 0, detour_speed: 50, corridor: 2000 });
  }, 120_000);

  it('trades money against minutes with time_value', async () => {
    const cheap = await plan({ time_value: 0 });
    const fast = await plan({ time_value: 200 });
    expect(fast.status, fast.text).toBe(200);
    const t = (x: any) => x.json.data.attributes.totals;
    expect(t(fast).cost).toBeCloseTo(t(fast).price + (200 * (t(fast).charging_minutes + t(fast).detour_minutes)) / 60, 6);
    expect(t(fast).charging_minutes + t(fast).detour_minutes).toBeLessThanOrEqual(t(cheap).charging_minutes + t(cheap).detour_minutes + 1e-9);
    expect(t(fast).price).toBeGreaterThanOrEqual(t(cheap).price - 1e-9);
  }, 120_000);

  it('answers GeoJSON: the route, then a point per stop', async () => {
    const r = await plan({}, { headers: { Accept: 'application/geo+json' } });
    expect(r.status, r.text).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/geo+json');
    const j = r.json;
    expect(j.type).toBe('FeatureCollection');
    expect(j.features[0].geometry).toEqual({ type: 'LineString', coordinates: PARIS });
    expect(j.features[0].properties.kind).toBe('route');
    const json = (await plan()).json;
    expect(j.features.slice(1).map((f: any) => f.id)).toEqual(json.data.attributes.stops.map((s: any) => s.station_id));
    expect(j.features.slice(1).map((f: any) => f.properties.price)).toEqual(json.data.attributes.stops.map((s: any) => s.price));
    expect(j.meta).toEqual(json.meta);
  }, 120_000);

  it('422 with where the car runs out and the start charge that would do', async () => {
    // No station within 1 m of the route: the start charge alone must do.
    const r = await plan({ corridor: 1, start_soc: 20 });
    expect(r.status, r.text).toBe(422);
    expect(r.json.errors[0]).toMatchObject({ status: '422', code: 'NO_TRIP_PLAN' });
    const ro = r.json.meta.runs_out;
    expect(ro.distance).toBeCloseTo((((10 / 100) * vehicle.battery) / 0.6) * 1000, 3);
    expect(ro.latitude).toBeGreaterThan(48.8);
    const needed = Math.ceil(10 + (((r.json.meta.stations_considered >= 0 ? 45_000 : 0) / 1000) * 0.6 * 100) / vehicle.battery);
    expect(ro.start_soc_needed === null || ro.start_soc_needed <= 100).toBe(true);
    if (needed <= 100) expect(ro.start_soc_needed).not.toBeNull();
    if (ro.start_soc_needed !== null) {
      expect((await plan({ corridor: 1, start_soc: ro.start_soc_needed })).status).toBe(200);
      expect((await plan({ corridor: 1, start_soc: ro.start_soc_needed - 1 })).status).toBe(422);
    }
  }, 120_000);

  it('every bad input is 400 with its pointer; an unknown vehicle as D20; the key group', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ route: {} }, '/data/attributes/route'],
      [{ route: { polyline: 'a b' } }, '/data/attributes/route/polyline'],
      [{ route: { coordinates: [[2.3, 48.8], [200, 48.9]] } }, '/data/attributes/route/coordinates/1'],
      [{ max_soc: 10, min_soc: 10 }, '/data/attributes/max_soc'],
      [{ soc_step: 3 }, '/data/attributes/soc_step'],
      [{ start_soc: 101 }, '/data/attributes/start_soc'],
      [{ consumption: 0 }, '/data/attributes/consumption'],
      [{ time_value: -1 }, '/data/attributes/time_value'],
      [{ soc_step: 1 }, '/data/attributes/soc_step'],
      [{ corridor: 20_000, route: { coordinates: [[2.1, 48.7], [2.6, 49.0], [2.1, 49.0], [2.6, 48.7]] } }, '/data/attributes/corridor'],
      [{ charge_points_power_gte: 50, charge_points_power_lte: 20 }, '/data/attributes/charge_points_power_gte'],
    ];
    for (const [attrs, pointer] of cases) {
      const rel = attrs.soc_step === 1 ? { tariffs: { data: allTariffs.map((id) => ({ type: 'tariff', id })) } } : {};
      const r = await plan(attrs, { rel });
      expect(r.status, `${JSON.stringify(attrs)}: ${r.text}`).toBe(400);
      expect(r.json.errors[0].source?.pointer, JSON.stringify(attrs)).toBe(pointer);
    }
    const v = await plan({}, { rel: { vehicle: { data: { type: 'car', id: 'no-such-car' } } } });
    expect(v.status).toBe(400);
    expect(v.json.errors[0]).toMatchObject({ title: 'vehicle no-such-car not found', source: { pointer: '/data/relationships/vehicle/data/id' } });
    const f = await plan({}, { key: keyFor('reader') });
    expect(f.status).toBe(403);
    expect(f.json.errors[0].title).toBe('action read_costs not allowed');
  }, 120_000);
});
