/**
 * Route corridors kept per polyline (D294): a service keeping them answers every route price
 * search with the very bytes a service without them (`CORRIDOR_CACHE_MB=0`) gives, over random
 * routes asked again with other refinements, sorts, limits and pricing inputs; a polyline asked
 * again at the same width is served from the kept corridor, routes as coordinates never are.
 */
import polyline from '@mapbox/polyline';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { mulberry32 } from '../../src/domain/random.js';
import { Snapshot } from '../../src/storage/snapshot.js';
import { call, keyFor, startTestApp, type TestApp } from '../helpers/server.js';

const COSTS = keyFor('costs');
const ALL = keyFor('all');

async function corridorCounts(srv: TestApp): Promise<{ hit: number; miss: number }> {
  const text = (await call(srv, 'GET', '/metrics', { key: COSTS })).text;
  const n = (r: string) => Number(new RegExp(`^cps_corridor_cache_total\\{result="${r}"\\} (\\d+)$`, 'm').exec(text)?.[1] ?? NaN);
  return { hit: n('hit'), miss: n('miss') };
}

describe('route corridors kept per polyline (D294)', () => {
  let kept: TestApp;
  let fresh: TestApp;
  let points: Array<[number, number]>;
  let tariffs: string[];
  let vehicle: string;

  beforeAll(async () => {
    const keys = { costs: 'ReadCosts,ReadMetrics', all: 'all' };
    [kept, fresh] = await Promise.all([startTestApp({ keys, env: { WORKERS: '1' } }), startTestApp({ keys, env: { WORKERS: '1', CORRIDOR_CACHE_MB: '0' } })]);
    const snap = Snapshot.open(inject('testSnapshot'));
    try {
      points = [...snap.stations()].map((s) => [s.longitude, s.latitude]);
    } finally {
      snap.close();
    }
    tariffs = (await call(kept, 'GET', '/v1/tariffs', { key: ALL })).json.data.map((t: { id: string }) => t.id).slice(0, 50);
    vehicle = (await call(kept, 'GET', '/v2/vehicles', { key: ALL })).json.data[0].id;
  });
  afterAll(async () => {
    await Promise.all([kept?.stop(), fresh?.stop()]);
  });

  it('answers as a service without them, and serves a polyline asked again from its kept corridor', async () => {
    const rnd = mulberry32(523);
    const before = await corridorCounts(kept);
    let asked = 0;
    let priced = 0;
    for (let n = 0; n < 12; n++) {
      // A route between two stations of the snapshot, a point every ~1 km, somewhat off the line.
      const [a, b] = [0, 1].map(() => points[Math.floor(rnd() * points.length)]);
      const steps = 2 + Math.floor(rnd() * 60);
      const pts = Array.from({ length: steps + 1 }, (_, k) => [a[0] + ((b[0] - a[0]) * k) / steps + (rnd() - 0.5) * 0.01, a[1] + ((b[1] - a[1]) * k) / steps + (rnd() - 0.5) * 0.01]);
      const text = polyline.encode(pts.map(([lo, la]) => [la, lo]), 5);
      const corridor = [500, 2000, 8000][n % 3];
      for (let m = 0; m < 4; m++) {
        const attributes: Record<string, unknown> = { battery_range: [10 + m, 80], corridor, limit: 1 + Math.floor(rnd() * 300) };
        if (rnd() < 0.4) attributes.plugs = [['ccs'], ['type2'], ['chademo']][Math.floor(rnd() * 3)];
        if (rnd() < 0.4) attributes.charge_points_power_gte = [22, 50, 150][Math.floor(rnd() * 3)];
        if (rnd() < 0.3) attributes.country = rnd() < 0.5 ? 'FR' : 'DE';
        if (rnd() < 0.3) attributes.sort = 'price';
        // Every fourth request gives the route as coordinates: searched each time, the same answer.
        attributes.route = m === 3 ? { coordinates: pts } : { polyline: text };
        const body = {
          data: {
            type: 'route_price_preview_request',
            attributes,
            relationships: { tariffs: { data: tariffs.slice(0, 1 + Math.floor(rnd() * tariffs.length)).map((id) => ({ type: 'tariff', id })) }, vehicle: { data: { type: 'car', id: vehicle } } },
          },
        };
        const [x, y] = await Promise.all([kept, fresh].map((srv) => call(srv, 'POST', '/v1/charge_prices/route', { key: COSTS, body })));
        expect(x.status, x.text).toBe(200);
        expect(y.status).toBe(200);
        expect(x.text).toBe(y.text);
        if (m < 3) asked++;
        if (x.json.meta.stations_priced > 0) priced++;
      }
    }
    expect(priced).toBeGreaterThan(10);
    // Per route: the first polyline request searched, the next two found its corridor. The counts
    // are the process's (both services run in this one): the service without the cache looked
    // nothing up.
    const after = await corridorCounts(kept);
    expect({ hit: after.hit - before.hit, miss: after.miss - before.miss }).toEqual({ hit: asked - 12, miss: 12 });
  });

  it('a polyline that is not one is refused, also after a route was kept', async () => {
    const body = (route: unknown) => ({
      data: { type: 'route_price_preview_request', attributes: { battery_range: [10, 80], route }, relationships: { tariffs: { data: [{ type: 'tariff', id: tariffs[0] }] }, vehicle: { data: { type: 'car', id: vehicle } } } },
    });
    const r = await call(kept, 'POST', '/v1/charge_prices/route', { key: COSTS, body: body({ polyline: '_p~iF~ps|U_ulLnnqC_mqNvxq`' }) });
    expect(r.status, r.text).toBe(400);
    expect(r.json.errors[0].source.pointer).toBe('/data/attributes/route/polyline');
  });
});
