/**
 * Price search by area and along a route over HTTP (D110–D114): seeded random areas and routes
 * against a brute force (every station of the snapshot, haversine or great-circle distance to each
 * segment) for membership and order, and against `POST /v1/charge_prices/bulk` for every price;
 * the errors of both endpoints.
 */
import polyline from '@mapbox/polyline';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { mulberry32 } from '../../src/domain/random.js';
import { haversineMeters } from '../../src/domain/stations/geo.js';
import { Snapshot } from '../../src/storage/snapshot.js';
import { call, keyFor, startTestApp, type TestApp } from '../helpers/server.js';
import { bulkPreviews } from '../helpers/tiles.js';

const COSTS = keyFor('costs');
const ALL = keyFor('all');
const R = 6_371_000;
const RAD = Math.PI / 180;

interface St {
  id: string;
  lat: number;
  lon: number;
  op: string | null;
}

/** Great-circle distance from P to the segment A–B (cross-track, clamped to the ends). */
function toSegment(p: St, a: [number, number], b: [number, number]): number {
  const d13 = haversineMeters(a[1], a[0], p.lat, p.lon) / R;
  const d12 = haversineMeters(a[1], a[0], b[1], b[0]) / R;
  const bearing = (la1: number, lo1: number, la2: number, lo2: number): number => {
    const y = Math.sin((lo2 - lo1) * RAD) * Math.cos(la2 * RAD);
    const x = Math.cos(la1 * RAD) * Math.sin(la2 * RAD) - Math.sin(la1 * RAD) * Math.cos(la2 * RAD) * Math.cos((lo2 - lo1) * RAD);
    return Math.atan2(y, x);
  };
  if (d12 === 0) return d13 * R;
  const t13 = bearing(a[1], a[0], p.lat, p.lon);
  const t12 = bearing(a[1], a[0], b[1], b[0]);
  const xt = Math.asin(Math.sin(d13) * Math.sin(t13 - t12));
  if (Math.cos(t13 - t12) < 0) return d13 * R;
  const at = Math.acos(Math.min(1, Math.cos(d13) / Math.cos(xt)));
  if (at > d12) return haversineMeters(b[1], b[0], p.lat, p.lon);
  return Math.abs(xt) * R;
}

describe('POST /v1/charge_prices/area and /route', () => {
  let srv: TestApp;
  let stations: St[];
  let tariffs: string[];
  let vehicle: string;

  const body = (type: string, attributes: Record<string, unknown>, t = tariffs, v = vehicle) => ({
    data: {
      type,
      attributes: { battery_range: [10, 80], ...attributes },
      relationships: { tariffs: { data: t.map((id) => ({ type: 'tariff', id })) }, vehicle: { data: { type: 'car', id: v } } },
    },
  });
  const area = (attributes: Record<string, unknown>, key = COSTS) => call(srv, 'POST', '/v1/charge_prices/area', { key, body: body('area_price_preview_request', attributes) });
  const route = (attributes: Record<string, unknown>, key = COSTS) => call(srv, 'POST', '/v1/charge_prices/route', { key, body: body('route_price_preview_request', attributes) });

  const bulk = (ids: string[], attributes: Record<string, unknown> = {}) => bulkPreviews(srv, COSTS, ids, tariffs, vehicle, attributes);

  /** Every answer entry equals the bulk preview of its station; every bulk-priced member is in the answer. */
  async function checkAgainstBulk(json: any, members: string[]) {
    const b = await bulk(members);
    const got = new Map<string, any>(json.data.map((d: any) => [d.id, d.attributes]));
    expect(json.meta.stations_priced).toBe(b.size);
    expect(got.size).toBe(Math.min(b.size, json.data.length));
    for (const [id, a] of got) {
      const want = b.get(id);
      expect(want, id).toBeDefined();
      expect({ energy: a.energy, duration: a.duration, price: a.price, currency: a.currency }).toEqual(want);
      expect(a.charge_point).toMatchObject({ plug: expect.any(String), power: expect.any(Number) });
    }
    if (!json.meta.more_available) for (const id of b.keys()) expect(got.has(id), id).toBe(true);
    // included: every answered station (list shape) and its operator company.
    const inc = new Set(json.included.filter((r: any) => r.type === 'charging_station').map((r: any) => r.id));
    for (const id of got.keys()) expect(inc.has(id)).toBe(true);
  }

  beforeAll(async () => {
    srv = await startTestApp({ keys: { costs: 'ReadCosts', all: 'all', reader: 'ReadStations' }, env: { WORKERS: '2' } });
    const snap = Snapshot.open(inject('testSnapshot'));
    try {
      stations = [...snap.stations()].map((s) => ({ id: s.id, lat: s.latitude, lon: s.longitude, op: s.operator_id }));
    } finally {
      snap.close();
    }
    tariffs = (await call(srv, 'GET', '/v1/tariffs', { key: ALL })).json.data.map((t: { id: string }) => t.id).slice(0, 200);
    vehicle = (await call(srv, 'GET', '/v2/vehicles', { key: ALL })).json.data.find((v: any) => v.attributes.dc_charger !== null)?.id ?? (await call(srv, 'GET', '/v2/vehicles', { key: ALL })).json.data[0].id;
  });
  afterAll(async () => {
    await srv.stop();
  });

  it('radius areas: members by haversine, nearest first or cheapest first, prices equal to the bulk preview', async () => {
    const rnd = mulberry32(110);
    for (let n = 0; n < 6; n++) {
      const c = stations[Math.floor(rnd() * stations.length)];
      const radius = 2000 + Math.floor(rnd() * 60_000);
      const dist = (s: St) => haversineMeters(c.lat, c.lon, s.lat, s.lon);
      const inside = stations.filter((s) => dist(s) <= radius);
      const edge = new Set(stations.filter((s) => Math.abs(dist(s) - radius) < 1).map((s) => s.id));
      for (const sort of ['distance', 'price'] as const) {
        const r = await area({ latitude: c.lat, longitude: c.lon, radius, sort, limit: 1000 });
        expect(r.status, r.text).toBe(200);
        const ids = r.json.data.map((d: any) => d.id) as string[];
        const insideIds = new Set(inside.map((s) => s.id));
        for (const id of ids) expect(insideIds.has(id) || edge.has(id), id).toBe(true);
        expect(r.json.meta.stations_considered).toBeGreaterThanOrEqual(inside.length - edge.size);
        const byId = new Map(stations.map((s) => [s.id, s]));
        for (const d of r.json.data) expect(d.attributes.distance).toBeCloseTo(dist(byId.get(d.id)!), 3);
        const key = (d: any) => (sort === 'distance' ? d.attributes.distance : d.attributes.price);
        for (let k = 1; k < r.json.data.length; k++) expect(key(r.json.data[k])).toBeGreaterThanOrEqual(key(r.json.data[k - 1]));
        await checkAgainstBulk(r.json, [...inside.filter((s) => !edge.has(s.id)).map((s) => s.id), ...ids.filter((id) => edge.has(id))]);
      }
    }
  });

  it('boxes and limits: distance null, the cheapest `limit`, more_available', async () => {
    const rnd = mulberry32(111);
    for (let n = 0; n < 4; n++) {
      const c = stations[Math.floor(rnd() * stations.length)];
      const box = { latitude_gte: c.lat - 0.3, latitude_lte: c.lat + 0.3, longitude_gte: c.lon - 0.4, longitude_lte: c.lon + 0.4 };
      const inside = stations.filter((s) => s.lat >= box.latitude_gte && s.lat <= box.latitude_lte && s.lon >= box.longitude_gte && s.lon <= box.longitude_lte);
      const all = await area({ ...box, limit: 1000 });
      expect(all.status, all.text).toBe(200);
      for (const d of all.json.data) expect(d.attributes.distance).toBeNull();
      await checkAgainstBulk(all.json, inside.map((s) => s.id));
      const few = await area({ ...box, limit: 3 });
      expect(few.json.data.map((d: any) => d.id)).toEqual(all.json.data.slice(0, 3).map((d: any) => d.id));
      expect(few.json.meta.more_available).toBe(all.json.data.length > 3);
    }
  });

  it('routes (coordinates and polyline): corridor members by great-circle distance, in route order, prices equal to the bulk preview', async () => {
    const rnd = mulberry32(112);
    for (let n = 0; n < 5; n++) {
      // A route through 3 stations, sampled every ~2 km.
      const way = [0, 1, 2].map(() => stations[Math.floor(rnd() * stations.length)]);
      const pts: [number, number][] = [];
      for (let k = 0; k + 1 < way.length; k++) {
        const steps = Math.max(1, Math.ceil(haversineMeters(way[k].lat, way[k].lon, way[k + 1].lat, way[k + 1].lon) / 2000));
        for (let j = 0; j < steps; j++) pts.push([way[k].lon + ((way[k + 1].lon - way[k].lon) * j) / steps, way[k].lat + ((way[k + 1].lat - way[k].lat) * j) / steps]);
      }
      pts.push([way[2].lon, way[2].lat]);
      const corridor = 500 + Math.floor(rnd() * 8000);
      const dist = (s: St) => {
        let m = Infinity;
        for (let k = 0; k + 1 < pts.length; k++) m = Math.min(m, toSegment(s, pts[k], pts[k + 1]));
        return m;
      };
      const d = new Map(stations.map((s) => [s.id, dist(s)]));
      const edge = new Set(stations.filter((s) => Math.abs(d.get(s.id)! - corridor) < corridor * 0.002 + 3).map((s) => s.id));
      const inside = stations.filter((s) => d.get(s.id)! <= corridor && !edge.has(s.id));
      for (const r of [await route({ route: { coordinates: pts }, corridor, limit: 1000 }), await route({ route: { polyline: polyline.encode(pts.map(([lo, la]) => [la, lo]), 5) }, corridor, limit: 1000 })]) {
        expect(r.status, r.text).toBe(200);
        const ids = r.json.data.map((x: any) => x.id) as string[];
        for (const id of ids) expect(d.get(id)! <= corridor || edge.has(id), `${id} at ${d.get(id)} m, corridor ${corridor}`).toBe(true);
        for (const x of r.json.data) expect(Math.abs(x.attributes.detour - d.get(x.id)!)).toBeLessThan(Math.max(3, x.attributes.detour * 0.002));
        for (let k = 1; k < r.json.data.length; k++) expect(r.json.data[k].attributes.distance).toBeGreaterThanOrEqual(r.json.data[k - 1].attributes.distance);
        // Stations on the corridor's edge count as the service decided.
        await checkAgainstBulk(r.json, [...inside.map((s) => s.id), ...ids.filter((id) => edge.has(id))]);
      }
      const cheap = await route({ route: { coordinates: pts }, corridor, sort: 'price', limit: 5 });
      for (let k = 1; k < cheap.json.data.length; k++) expect(cheap.json.data[k].attributes.price).toBeGreaterThanOrEqual(cheap.json.data[k - 1].attributes.price);
    }
  });

  it('narrows charge points by plugs and power, and stations by refinements', async () => {
    const c = stations.find((s) => s.op !== null)!;
    const wide = await area({ latitude: c.lat, longitude: c.lon, radius: 100_000, limit: 1000 });
    const dc = await area({ latitude: c.lat, longitude: c.lon, radius: 100_000, limit: 1000, charge_points_power_gte: 50 });
    expect(dc.status, dc.text).toBe(200);
    for (const x of dc.json.data) expect(x.attributes.charge_point.power).toBeGreaterThanOrEqual(50);
    const t2 = await area({ latitude: c.lat, longitude: c.lon, radius: 100_000, limit: 1000, plugs: ['type2'] });
    for (const x of t2.json.data) expect(x.attributes.charge_point.plug).toBe('type2');
    expect(wide.json.meta.stations_priced).toBeGreaterThanOrEqual(dc.json.meta.stations_priced);
    const op = await area({ latitude: c.lat, longitude: c.lon, radius: 100_000, limit: 1000, operator_ids: [c.op] });
    const opIds = new Set(stations.filter((s) => s.op === c.op).map((s) => s.id));
    for (const x of op.json.data) expect(opIds.has(x.id)).toBe(true);
    const none = await area({ latitude: c.lat, longitude: c.lon, radius: 100_000, country: 'ZZ' });
    expect(none.json).toMatchObject({ data: [], included: [], meta: { stations_considered: 0, stations_priced: 0, more_available: false } });
  });

  it('refuses bad input with 400 and a pointer, keys with 403', async () => {
    const c = stations[0];
    const centre = { latitude: c.lat, longitude: c.lon, radius: 5000 };
    const pts = [[c.lon, c.lat], [c.lon + 0.1, c.lat]];
    const cases: [string, Promise<any>, string][] = [
      ['no area', area({}), '/data/attributes'],
      ['two areas', area({ ...centre, latitude_gte: 1, latitude_lte: 2, longitude_gte: 1, longitude_lte: 2 }), '/data/attributes'],
      ['radius without centre', area({ radius: 5000 }), '/data/attributes/latitude'],
      ['radius 0', area({ ...centre, radius: 0 }), '/data/attributes/radius'],
      ['radius too large', area({ ...centre, radius: 200_001 }), '/data/attributes/radius'],
      ['latitude out of range', area({ ...centre, latitude: 91 }), '/data/attributes/latitude'],
      ['reversed box', area({ latitude_gte: 2, latitude_lte: 1, longitude_gte: 1, longitude_lte: 2 }), '/data/attributes/latitude_gte'],
      ['limit 0', area({ ...centre, limit: 0 }), '/data/attributes/limit'],
      ['limit 1001', area({ ...centre, limit: 1001 }), '/data/attributes/limit'],
      ['sort route on an area', area({ ...centre, sort: 'route' }), '/data/attributes/sort'],
      ['sort distance on a box', area({ latitude_gte: 1, latitude_lte: 2, longitude_gte: 1, longitude_lte: 2, sort: 'distance' }), '/data/attributes/sort'],
      ['wrong type', area({ ...centre, radius: '5000' }), '/data/attributes/radius'],
      ['unknown attribute', area({ ...centre, radiu: 5 }), '/data/attributes'],
      ['battery range reversed', area({ ...centre, battery_range: [80, 10] }), '/data/attributes/battery_range'],
      ['no battery range', call(srv, 'POST', '/v1/charge_prices/area', { key: COSTS, body: { data: { attributes: centre, relationships: body('x', {}).data.relationships } } }), '/data/attributes/battery_range'],
      ['no route', route({}), '/data/attributes/route'],
      ['one-point route', route({ route: { coordinates: [pts[0]] } }), '/data/attributes/route/coordinates'],
      ['one-point polyline', route({ route: { polyline: polyline.encode([[c.lat, c.lon]], 5) } }), '/data/attributes/route/polyline'],
      ['both route forms', route({ route: { coordinates: pts, polyline: '_p~iF~ps|U' } }), '/data/attributes/route'],
      ['malformed polyline', route({ route: { polyline: 'hello world' } }), '/data/attributes/route/polyline'],
      ['truncated polyline', route({ route: { polyline: '_p~iF~ps|U_ulLnnqC_mqNvxq`' } }), '/data/attributes/route/polyline'],
      ['coordinate out of range', route({ route: { coordinates: [pts[0], [200, 10]] } }), '/data/attributes/route/coordinates/1'],
      ['corridor 0', route({ route: { coordinates: pts }, corridor: 0 }), '/data/attributes/corridor'],
      ['corridor too wide', route({ route: { coordinates: pts }, corridor: 20_001 }), '/data/attributes/corridor'],
      ['sort distance on a route', route({ route: { coordinates: pts }, sort: 'distance' }), '/data/attributes/sort'],
      ['unknown vehicle', call(srv, 'POST', '/v1/charge_prices/area', { key: COSTS, body: body('area_price_preview_request', centre, tariffs, 'no-such-car') }), '/data/relationships/vehicle/data/id'],
      ['over 200 tariffs', call(srv, 'POST', '/v1/charge_prices/area', { key: COSTS, body: body('area_price_preview_request', centre, Array.from({ length: 201 }, (_, i) => `t${i}`)) }), '/data/relationships/tariffs/data'],
      ['no tariffs', call(srv, 'POST', '/v1/charge_prices/area', { key: COSTS, body: body('area_price_preview_request', centre, []) }), '/data/relationships/tariffs/data'],
      ['start date that does not exist', area({ ...centre, start_date: '2025-02-29' }), '/data/attributes/start_date'],
      ['start date not a date', route({ route: { coordinates: pts }, start_date: 'today' }), '/data/attributes/start_date'],
      ['wrong data type', call(srv, 'POST', '/v1/charge_prices/route', { key: COSTS, body: body('area_price_preview_request', { route: { coordinates: pts } }) }), '/data/type'],
    ];
    for (const [name, p, pointer] of cases) {
      const r = await p;
      expect(r.status, `${name}: ${r.text}`).toBe(400);
      expect(r.json.errors.map((e: any) => e.source?.pointer), name).toContain(pointer);
    }
    const unknownCurrency = await area({ ...centre, currency: 'XXX' });
    expect(unknownCurrency.status).toBe(404);
    for (const p of ['/v1/charge_prices/area', '/v1/charge_prices/route']) {
      const b = body(p.endsWith('area') ? 'area_price_preview_request' : 'route_price_preview_request', p.endsWith('area') ? centre : { route: { coordinates: pts } });
      expect((await call(srv, 'POST', p, { body: b })).json.errors[0].title).toBe('api_key missing');
      expect((await call(srv, 'POST', p, { key: 'nope', body: b })).json.errors[0].title).toBe('api_key invalid');
      const g = await call(srv, 'POST', p, { key: keyFor('reader'), body: b });
      expect(g.status).toBe(403);
      expect(g.json.errors[0].title).toBe('action read_costs not allowed');
      expect((await call(srv, 'GET', p, { key: COSTS })).status).toBe(405);
      expect((await call(srv, 'POST', p, { key: COSTS, raw: '{"data":' })).status).toBe(400);
    }
  });
});
