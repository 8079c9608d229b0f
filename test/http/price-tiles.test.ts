/**
 * Price profiles and price tiles over HTTP (D196–D198): profiles registered, normalised, renewed
 * and read, with every error of their body; price tiles decoded with @mapbox/vector-tile and
 * checked against `POST /v1/charge_prices/bulk` (every station of a zoom-14 tile, every cluster's
 * cheapest station, the priced stations of the whole data at every zoom), narrowed by refinements,
 * with Set B, their ETag moved by a catalog write, and their errors; many map users on profiles of
 * their own through catalog writes (D276, D277), and a tile that answers what is priced
 * before its stations are all priced, then the final tile (D278).
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { latY, lngX } from '../../src/domain/stations/clusters.js';
import { Snapshot } from '../../src/storage/snapshot.js';
import { call, keyFor, startTestApp, type TestApp } from '../helpers/server.js';
import { bulkPreviews, getTile, inside, tilesOver, type Preview } from '../helpers/tiles.js';

const COSTS = keyFor('costs');
const READER = keyFor('reader');
const ALL = keyFor('all');
/** The sample snapshot's Paris box: south, west, north, east. */
const PARIS: [number, number, number, number] = [48.6, 2.0, 49.1, 2.7];

describe('price profiles and price tiles (D196–D198)', () => {
  let srv: TestApp;
  let tariffs: string[];
  let vehicle: string;
  let stationIds: string[];
  let bulkAll: Map<string, Preview>;

  const profileBody = (attributes: Record<string, unknown> = { battery_range: [10, 80] }, rel: Record<string, unknown> = {}) => ({
    data: {
      type: 'price_profile',
      attributes,
      relationships: { tariffs: { data: tariffs.map((id) => ({ type: 'tariff', id })) }, vehicle: { data: { type: 'car', id: vehicle } }, ...rel },
    },
  });
  const register = (body: unknown, key = COSTS) => call(srv, 'POST', '/v1/price_profiles', { key, body });

  const priceTile = async (profile: string, z: number, x: number, y: number, query = '', key = COSTS, headers: Record<string, string> = {}) => {
    const t = await getTile(srv, `/v1/tiles/prices/${profile}/${z}/${x}/${y}.mvt${query}`, key, headers);
    return { ...t, text: t.body.toString('utf8') };
  };

  beforeAll(async () => {
    srv = await startTestApp({ keys: { costs: 'ReadCosts', reader: 'ReadStations', all: 'all' }, env: { WORKERS: '2' } });
    const snap = Snapshot.open(inject('testSnapshot'));
    try {
      stationIds = [...snap.stations()].map((s) => s.id);
    } finally {
      snap.close();
    }
    tariffs = (await call(srv, 'GET', '/v1/tariffs', { key: ALL })).json.data.map((t: { id: string }) => t.id).slice(0, 200);
    const cars = (await call(srv, 'GET', '/v2/vehicles', { key: ALL })).json.data;
    vehicle = (cars.find((v: any) => v.attributes.dc_charger !== null) ?? cars[0]).id;
    bulkAll = await bulkPreviews(srv, COSTS, stationIds, tariffs, vehicle);
    expect(bulkAll.size).toBeGreaterThan(50);
  });
  afterAll(async () => {
    await srv.stop();
  });

  it('limits the new profiles a key registers per hour; registering a known one is a use (D261)', async () => {
    const small = await startTestApp({ keys: { costs: 'ReadCosts', all: 'all' }, env: { PRICE_PROFILES_NEW_PER_KEY: '3' } });
    try {
      const setB = (energy: number) => ({ data: { type: 'price_profile', attributes: { energy, duration: 30 }, relationships: { tariffs: { data: [] } } } });
      for (const e of [20, 21, 22]) expect((await call(small, 'POST', '/v1/price_profiles', { key: COSTS, body: setB(e) })).status).toBe(201);
      const over = await call(small, 'POST', '/v1/price_profiles', { key: COSTS, body: setB(23) });
      expect([over.status, over.json.errors[0].title]).toEqual([429, 'too many new price profiles, retry later']);
      expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
      expect((await call(small, 'POST', '/v1/price_profiles', { key: COSTS, body: setB(20) })).status).toBe(200);
      expect((await call(small, 'POST', '/v1/price_profiles', { key: ALL, body: setB(23) })).status).toBe(201); // another key
    } finally {
      await small.stop();
    }
  });

  it('registers a profile once per normalised form: 201 then 200, the same id, readable', async () => {
    const first = await register(profileBody({ battery_range: [10, 80], currency: 'eur' }));
    expect(first.status, first.text).toBe(201);
    const id = first.json.data.id;
    expect(id).toMatch(/^[0-9a-f]{32}$/);
    expect(first.headers.get('location')).toBe(`/v1/price_profiles/${id}`);
    expect(first.json.data.links.tiles).toBe(`/v1/tiles/prices/${id}/{z}/{x}/{y}.mvt`);
    expect(first.json.data.attributes).toMatchObject({ battery_range: [10, 80], currency: 'EUR', start_time: expect.any(Number), include_direct_payment: false, energy: null });
    expect(Date.parse(first.json.data.attributes.expires_at)).toBeGreaterThan(Date.now() + 167 * 3600_000);
    // The same profile written differently (tariffs reversed and repeated, defaults spelled out): the same id.
    const reversed = profileBody({ battery_range: [10, 80], currency: 'EUR', include_direct_payment: false }, { tariffs: { data: [...tariffs, tariffs[0]].reverse().map((t) => ({ type: 'tariff', id: t })) } });
    const again = await register(reversed);
    expect(again.status, again.text).toBe(200);
    expect(again.json.data.id).toBe(id);
    const read = await call(srv, 'GET', `/v1/price_profiles/${id}`, { key: COSTS });
    expect(read.status).toBe(200);
    expect(read.json.data.relationships.tariffs.data.map((t: any) => t.id)).toEqual([...tariffs].sort());
    expect(read.json.data.relationships.vehicle.data).toEqual({ type: 'car', id: vehicle });
    // A different option is a different profile.
    expect((await register(profileBody({ battery_range: [10, 81] }))).json.data.id).not.toBe(id);
  });

  it('answers the errors of a profile body with a pointer, 404 for an unknown currency, and the key’s group', async () => {
    const cases: Array<[unknown, number, string | undefined]> = [
      [{ data: { type: 'price_profile', attributes: { battery_range: [10, 80] } } }, 400, '/data/relationships'],
      [profileBody({ battery_range: [10, 80], energy: 20, duration: 30 }), 400, '/data/attributes'],
      [profileBody({}, { vehicle: undefined }), 400, '/data/attributes'],
      [profileBody({ battery_range: [80, 10] }), 400, '/data/attributes/battery_range'],
      [profileBody({ battery_range: [10, 80] }, { vehicle: { data: { type: 'car', id: 'no-such-car' } } }), 400, '/data/relationships/vehicle/data/id'],
      [profileBody({ energy: 20 }, { vehicle: undefined }), 400, '/data/attributes/duration'],
      [profileBody({ battery_range: [10, 80], start_time: 1440 }), 400, '/data/attributes/start_time'],
      [profileBody({ battery_range: [10, 80], start_date: '2026-02-30' }), 400, '/data/attributes/start_date'],
      [profileBody({ battery_range: [10, 80], charge_points_power_lte: 0 }), 400, '/data/attributes/charge_points_power_lte'],
      [profileBody({ battery_range: [10, 80], currency: 'XYZ' }), 404, undefined],
      [profileBody({ battery_range: '10-80' }), 400, '/data/attributes/battery_range'],
      [{ ...profileBody(), data: { ...profileBody().data, type: 'charge_price_request' } }, 400, '/data/type'],
      [profileBody({ battery_range: [10, 80] }, { tariffs: { data: Array.from({ length: 201 }, (_, k) => ({ type: 'tariff', id: `t${k}` })) } }), 400, '/data/relationships/tariffs/data'],
    ];
    for (const [body, status, pointer] of cases) {
      const r = await register(body);
      expect(r.status, `${JSON.stringify(body).slice(0, 120)} → ${r.text}`).toBe(status);
      if (pointer !== undefined) expect(r.json.errors[0].source?.pointer, r.text).toBe(pointer);
    }
    expect((await register(profileBody(), READER)).status).toBe(403);
    expect((await register(profileBody(), 'no-such-key')).status).toBe(403);
    expect((await call(srv, 'POST', '/v1/price_profiles', { body: profileBody() })).status).toBe(403);
    expect((await call(srv, 'POST', '/v1/price_profiles', { key: COSTS, raw: '{"data":', headers: { 'content-type': 'application/json' } })).status).toBe(400);
    expect((await call(srv, 'GET', `/v1/price_profiles/${'0'.repeat(32)}`, { key: COSTS })).status).toBe(404);
    const bad = await call(srv, 'GET', '/v1/price_profiles/not-an-id', { key: COSTS });
    expect([bad.status, bad.json.errors[0].source]).toEqual([400, { parameter: 'id' }]);
  });

  it('a zoom-14 price tile holds every station with its bulk preview, and no price where bulk has none', async () => {
    const id = (await register(profileBody())).json.data.id;
    let checked = 0;
    for (const [x, y] of tilesOver(14, [48.84, 2.3, 48.88, 2.38])) {
      const t = await priceTile(id, 14, x, y);
      if (t.status === 204) continue;
      expect(t.status, t.text).toBe(200);
      expect(t.headers['content-type']).toBe('application/vnd.mapbox-vector-tile');
      for (const f of inside(t.layers.stations)) {
        const want = bulkAll.get(f.id as string);
        if (want === undefined) expect(f.price, String(f.id)).toBeUndefined();
        else {
          expect({ price: f.price, energy: f.energy, duration: f.duration, currency: f.currency }, String(f.id)).toEqual(want);
          expect(f).toMatchObject({ currency: 'EUR', tariff_id: expect.any(String), plug: expect.any(String), power: expect.any(Number) });
          expect(tariffs).toContain(f.tariff_id);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(5);
  });

  it('clusters carry their cheapest station: at every zoom the priced counts add up to the bulk-priced stations', async () => {
    const id = (await register(profileBody())).json.data.id;
    const cheapest = Math.min(...[...bulkAll.values()].map((p) => p.price));
    for (const z of [0, 3, 6, 9, 12]) {
      let priced = 0;
      let count = 0;
      let low = Infinity;
      // Zooms up to 6: the tiles over all the data (its stations lie in Paris, Berlin and Hamburg).
      const boxes: Array<[number, number, number, number]> = z <= 6 ? [[48, 1, 54, 14]] : [PARIS, [52.3, 13.0, 52.7, 13.8], [53.35, 9.7, 53.75, 10.3]];
      for (const box of boxes) {
        for (const [x, y] of tilesOver(z, box)) {
          const t = await priceTile(id, z, x, y);
          for (const f of inside(t.layers.clusters)) {
            count += f.count as number;
            priced += f.priced_count as number;
            if ((f.priced_count as number) === 0) {
              expect(f.price).toBeUndefined();
              continue;
            }
            // The cluster's price is its cheapest station's bulk preview.
            expect(bulkAll.get(f.price_station_id as string)?.price, `z${z} ${JSON.stringify(f)}`).toBe(f.price);
            if (f.station_id !== undefined) expect(f.price_station_id).toBe(f.station_id);
            low = Math.min(low, f.price as number);
          }
        }
      }
      expect(count, `zoom ${z}`).toBe(stationIds.length);
      expect(priced, `zoom ${z}`).toBe(bulkAll.size);
      expect(low, `zoom ${z}`).toBe(cheapest);
    }
  });

  it('narrows the charge points priced to the refinements (as area prices do), and prices Set B', async () => {
    const id = (await register(profileBody())).json.data.id;
    const [x, y] = [Math.floor(lngX(2.35) * 2 ** 9), Math.floor(latY(48.86) * 2 ** 9)];
    const narrowed = await priceTile(id, 9, x, y, '?filter[charge_points.plug.in]=type2');
    expect(narrowed.status).toBe(200);
    const members = inside(narrowed.layers.clusters);
    const pricedStations = members.flatMap((f) => (f.price_station_id === undefined ? [] : [f.price_station_id as string]));
    expect(pricedStations.length, JSON.stringify(members)).toBeGreaterThan(0);
    // The same prices as the area search narrowed to type2 for those stations.
    const area = await call(srv, 'POST', '/v1/charge_prices/area', {
      key: COSTS,
      body: {
        data: {
          type: 'area_price_preview_request',
          attributes: { battery_range: [10, 80], latitude_gte: PARIS[0], latitude_lte: PARIS[2], longitude_gte: PARIS[1], longitude_lte: PARIS[3], plugs: ['type2'], limit: 1000 },
          relationships: { tariffs: { data: tariffs.map((t) => ({ type: 'tariff', id: t })) }, vehicle: { data: { type: 'car', id: vehicle } } },
        },
      },
    });
    expect(area.status, area.text).toBe(200);
    expect(area.json.meta.more_available).toBe(false);
    const byId = new Map<string, number>(area.json.data.map((d: any) => [d.id, d.attributes.price]));
    for (const f of members) if (f.price_station_id !== undefined) expect(f.price).toBe(byId.get(f.price_station_id as string));

    const setB = await register({ data: { type: 'price_profile', attributes: { energy: 20, duration: 45 }, relationships: { tariffs: { data: tariffs.map((t) => ({ type: 'tariff', id: t })) } } } });
    expect(setB.status, setB.text).toBe(201);
    let seen = 0;
    for (const [tx, ty] of tilesOver(14, [48.85, 2.33, 48.87, 2.36])) {
      const t = await priceTile(setB.json.data.id, 14, tx, ty);
      for (const f of inside(t.layers.stations)) {
        if (f.price === undefined) continue;
        expect([f.energy, f.duration]).toEqual([20, 45]);
        seen++;
      }
    }
    expect(seen).toBeGreaterThan(0);
  });

  it('carries an ETag that a catalog write changes, and is served from the tile cache', async () => {
    const id = (await register(profileBody())).json.data.id;
    const [x, y] = [Math.floor(lngX(2.35) * 2 ** 10), Math.floor(latY(48.86) * 2 ** 10)];
    const first = await priceTile(id, 10, x, y);
    const etag = first.headers.etag!;
    expect(etag).toBeDefined();
    expect((await priceTile(id, 10, x, y, '', COSTS, { 'if-none-match': etag })).status).toBe(304);
    const br = await priceTile(id, 10, x, y, '', COSTS, { 'accept-encoding': 'br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.text).toBe(first.text);
    // A catalog write (a company created) moves the catalog generation and so the ETag.
    const coId = '3c1d2e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f';
    const co = await call(srv, 'PUT', `/v1/companies/${coId}`, {
      key: ALL,
      body: { data: { id: coId, type: 'company', attributes: { name: 'Price tile test operator', version: 1, is_cpo: true, is_emp: false, external_source_mapping: {} }, relationships: { supported_emps: { data: [] } } } },
    });
    expect(co.status, co.text).toBe(201);
    const after = await priceTile(id, 10, x, y, '', COSTS, { 'if-none-match': etag });
    expect(after.status).toBe(200);
    expect(after.headers.etag).not.toBe(etag);
  });

  it('answers 404 for an unknown profile, 400 for a bad tile address or filter, 403 without ReadCosts', async () => {
    const id = (await register(profileBody())).json.data.id;
    const unknown = await priceTile('0'.repeat(32), 10, 500, 300);
    expect([unknown.status, JSON.parse(unknown.text).errors[0].source]).toEqual([404, { parameter: 'profile_id' }]);
    expect((await priceTile('not-hex', 10, 500, 300)).status).toBe(404);
    for (const [z, x, y, param] of [[21, 0, 0, 'z'], [3, 8, 0, 'x'], [3, 0, 8, 'y']] as const) {
      const r = await priceTile(id, z, x, y);
      expect([r.status, JSON.parse(r.text).errors[0].source], `${z}/${x}/${y}`).toEqual([400, { parameter: param }]);
    }
    const badFilter = await priceTile(id, 10, 500, 300, '?filter[charge_points.power.gte]=fast');
    expect(badFilter.status).toBe(400);
    expect((await priceTile(id, 10, 500, 300, '', READER)).status).toBe(403);
    expect((await priceTile(id, 10, 500, 300, '', 'no-such-key')).status).toBe(403);
  });

  /** A catalog write (a company created) that moves the catalog generation. */
  const catalogWrite = async (app: TestApp, n: number): Promise<void> => {
    const coId = `3c1d2e4f-5a6b-4c7d-8e9f-${String(n).padStart(12, '0')}`;
    const co = await call(app, 'PUT', `/v1/companies/${coId}`, {
      key: ALL,
      body: { data: { id: coId, type: 'company', attributes: { name: `Catalog write ${n}`, version: 1, is_cpo: true, is_emp: false, external_source_mapping: {} }, relationships: { supported_emps: { data: [] } } } },
    });
    expect(co.status, co.text).toBe(201);
  };

  it('serves 24 map users on profiles of their own, through catalog writes, without a 503 (D276, D277)', async () => {
    const ids: string[] = [];
    for (let k = 0; k < 24; k++) ids.push((await register(profileBody({ battery_range: [10, 80], start_time: 600 + k }))).json.data.id);
    const [x, y] = [Math.floor(lngX(2.35) * 2 ** 8), Math.floor(latY(48.86) * 2 ** 8)];
    for (let round = 0; round < 3; round++) {
      // Every user's tile at once, as map users panning side by side; then a catalog write.
      const answers = await Promise.all(ids.map((id) => call(srv, 'GET', `/v1/tiles/prices/${id}/8/${x}/${y}.mvt`, { key: COSTS })));
      expect(answers.map((a) => a.status), `round ${round}`).toEqual(ids.map(() => 200));
      await catalogWrite(srv, 100 + round);
    }
  });

  it('answers what is priced within PRICE_TILE_WAIT_MS with Price-Tile-Pending, then the final tile; after a catalog write the previous prices answer meanwhile (D278, D277)', async () => {
    const quick = await startTestApp({ keys: { costs: 'ReadCosts', all: 'all' }, env: { WORKERS: '2', PRICE_TILE_WAIT_MS: '0' } });
    try {
      const id = (await call(quick, 'POST', '/v1/price_profiles', { key: COSTS, body: profileBody() })).json.data.id;
      const path = `/v1/tiles/prices/${id}/0/0/0.mvt`;
      const first = await call(quick, 'GET', path, { key: COSTS });
      expect(first.status).toBe(200);
      expect(Number(first.headers.get('price-tile-pending')), 'a new profile at zoom 0 is not priced at once').toBeGreaterThan(0);
      expect(first.headers.get('cache-control')).toBe('no-store, max-age=1');
      expect(first.headers.get('etag')).toBeNull();
      // Asked again (as MapLibre does when the max-age ends): the pricing went on, the final tile comes.
      const final = async (): Promise<Awaited<ReturnType<typeof getTile>>> => {
        for (let k = 0; k < 600; k++) {
          const t = await getTile(quick, path, COSTS);
          if (t.headers['price-tile-pending'] === undefined) return t;
          await sleep(100);
        }
        throw new Error('the tile stayed pending for 60 s');
      };
      const done = await final();
      expect([done.status, done.headers['cache-control']]).toEqual([200, expect.stringContaining('max-age=')]);
      expect(done.headers.etag).toBeDefined();
      const pricedIn = (t: Awaited<ReturnType<typeof getTile>>): number => inside(t.layers.clusters).reduce((n, f) => n + (f.priced_count as number), 0);
      expect(pricedIn(done)).toBe(bulkAll.size);
      const again = await call(quick, 'GET', path, { key: COSTS });
      expect([again.status, again.headers.get('price-tile-pending')]).toEqual([200, null]);

      // A catalog write: the new generation is priced anew, and meanwhile the previous one's prices answer.
      await catalogWrite(quick, 1);
      const during = await getTile(quick, path, COSTS);
      expect(Number(during.headers['price-tile-pending'])).toBeGreaterThan(0);
      expect(pricedIn(during)).toBe(bulkAll.size);
      expect(pricedIn(await final())).toBe(bulkAll.size);
    } finally {
      await quick.stop();
    }
  });
});
