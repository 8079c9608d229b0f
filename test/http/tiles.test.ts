/**
 * The map over HTTP (D190–D195): station and cluster vector tiles decoded with @mapbox/vector-tile,
 * checked against station search (a zoom-14 tile holds exactly the stations of a box search of its
 * bounds and buffer) and against the snapshot (at every clustered zoom the counts of the tiles over
 * the data add up to its stations, also filtered); caching, errors, TileJSON, the clusters as
 * JSON:API and the map page's files.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { latY, lngX, xLng, yLat } from '../../src/domain/stations/clusters.js';
import { Snapshot, type StationRow } from '../../src/storage/snapshot.js';
import { call, keyFor, startTestApp, type TestApp } from '../helpers/server.js';
import { EXTENT, getTile, inside, tilesOver, type Tile } from '../helpers/tiles.js';

const READER = keyFor('reader');
const LIVE = keyFor('live');
const NONE = keyFor('none');
const WRITER = keyFor('writer');
const BUFFER = 256;
/** The sample snapshot's boxes (src/import/default-snapshot.ts): south, west, north, east. */
const REGIONS: Array<[number, number, number, number]> = [
  [48.6, 2.0, 49.1, 2.7],
  [52.3, 13.0, 52.7, 13.8],
  [53.35, 9.7, 53.75, 10.3],
];

describe('map tiles and clusters (D190–D195)', () => {
  let srv: TestApp;
  let stations: StationRow[];

  beforeAll(async () => {
    const s = Snapshot.open(inject('testSnapshot'));
    try {
      stations = [...s.stations()];
    } finally {
      s.close();
    }
    srv = await startTestApp({ keys: { reader: 'ReadStations', live: 'ReadStationsWithAvailability', none: 'ReadTariffs', writer: 'WriteTariffs,ReadTariffs' } });
  });
  afterAll(async () => {
    await srv.stop();
  });

  const tile = (z: number, x: number, y: number, query = '', key = READER, headers: Record<string, string> = {}): Promise<Tile> =>
    getTile(srv, `/v1/tiles/stations/${z}/${x}/${y}.mvt${query}`, key, headers);

  /** Sum of the counts of the clusters inside the tiles over the data: zooms up to 8 the whole data's box, then each region's. */
  async function clusterTotal(z: number, query = ''): Promise<number> {
    const boxes = z <= 8 ? [[48.6, 2.0, 53.75, 13.8] as [number, number, number, number]] : REGIONS;
    let total = 0;
    for (const b of boxes) {
      for (const [x, y] of tilesOver(z, b)) {
        const t = await tile(z, x, y, query);
        expect([200, 204]).toContain(t.status);
        expect(Object.keys(t.layers).filter((n) => n !== 'clusters')).toEqual([]);
        for (const f of inside(t.layers.clusters)) total += f.count as number;
      }
    }
    return total;
  }

  it('at every clustered zoom the cluster counts over the data add up to its stations', async () => {
    for (let z = 0; z <= 13; z++) expect(await clusterTotal(z), `zoom ${z}`).toBe(stations.length);
  });

  it('the same with refinements: the counts add up to the stations station search finds with them', async () => {
    const q = '&filter[charge_points.power.gte]=50&filter[charge_points.plug.in]=ccs';
    let expected = 0;
    for (const [s, w, n, e] of REGIONS) {
      const r = await call(srv, 'GET', `/v1/charging_stations?filter[latitude.gte]=${s}&filter[latitude.lte]=${n}&filter[longitude.gte]=${w}&filter[longitude.lte]=${e}&page[size]=1000${q}`, { key: READER });
      expect(r.json.meta.more_available).toBe(false);
      expected += r.json.data.length;
    }
    expect(expected).toBeGreaterThan(20);
    expect(expected).toBeLessThan(stations.length / 2);
    for (const z of [3, 9, 13]) expect(await clusterTotal(z, `?${q.slice(1)}`), `zoom ${z}`).toBe(expected);
  });

  /** Box search of tile z/x/y's bounds widened by the buffer, as the tile is built. */
  async function boxSearch(z: number, x: number, y: number, query = ''): Promise<any[]> {
    const z2 = 2 ** z;
    const p = BUFFER / EXTENT;
    const [w, e, n, s] = [xLng((x - p) / z2), xLng((x + 1 + p) / z2), yLat((y - p) / z2), yLat((y + 1 + p) / z2)];
    const r = await call(srv, 'GET', `/v1/charging_stations?filter[latitude.gte]=${s}&filter[latitude.lte]=${n}&filter[longitude.gte]=${w}&filter[longitude.lte]=${e}&page[size]=1000${query}`, { key: READER });
    expect(r.status).toBe(200);
    return r.json.data;
  }

  it('a zoom-14 tile holds exactly the stations of a box search of its bounds and buffer, with their attributes', async () => {
    let seen = 0;
    for (const [x, y] of [[8299, 5635], [8298, 5636], [8300, 5634], [8802, 5373]]) {
      const t = await tile(14, x, y);
      const expected = await boxSearch(14, x, y);
      if (expected.length === 0) {
        expect(t.status).toBe(204);
        continue;
      }
      expect(t.status).toBe(200);
      expect(t.headers['content-type']).toBe('application/vnd.mapbox-vector-tile');
      const l = t.layers.stations;
      expect(Object.keys(t.layers)).toEqual(['stations']);
      expect([l.version, l.extent]).toEqual([2, EXTENT]);
      const got = Array.from({ length: l.length }, (_, k) => l.feature(k));
      expect(got.map((f) => f.properties.id)).toEqual(expected.map((s) => s.id));
      for (let k = 0; k < got.length; k++) {
        const a = expected[k].attributes;
        const plugs: string[] = [];
        for (const c of a.charge_points) if (!plugs.includes(c.plug)) plugs.push(c.plug);
        const want: Record<string, unknown> = {
          id: expected[k].id,
          name: a.name,
          max_power: Math.max(...a.charge_points.map((c: any) => c.power)),
          plugs: plugs.join(','),
          charge_point_count: a.charge_points.reduce((n: number, c: any) => n + c.count, 0),
        };
        if (a.free_charging !== null) want.free_charging = a.free_charging;
        const op = expected[k].relationships.operator.data;
        if (op !== null) want.operator_id = op.id;
        const { operator_name: opName, ...rest } = got[k].properties;
        expect(rest).toEqual(want);
        expect(typeof opName === 'string' || op === null).toBe(true);
        // The point is the station's position in tile units.
        const [[pt]] = got[k].loadGeometry();
        expect(Math.abs(pt.x - EXTENT * (lngX(a.longitude) * 2 ** 14 - x))).toBeLessThanOrEqual(0.5);
        expect(Math.abs(pt.y - EXTENT * (latY(a.latitude) * 2 ** 14 - y))).toBeLessThanOrEqual(0.5);
      }
      seen += got.length;
    }
    expect(seen).toBeGreaterThan(10);
  });

  it('zooms 15 to 20 hold the stations of their box too, and refinements apply', async () => {
    const z = 16;
    const [x, y] = [Math.floor(lngX(2.3522) * 2 ** z), Math.floor(latY(48.8566) * 2 ** z)];
    for (const [dx, dy] of [[0, 0], [1, 0], [0, 1], [-3, 2]]) {
      const t = await tile(z, x + dx, y + dy);
      const expected = (await boxSearch(z, x + dx, y + dy)).map((s) => s.id);
      expect(t.status).toBe(expected.length === 0 ? 204 : 200);
      const l = t.layers.stations;
      expect(l === undefined ? [] : Array.from({ length: l.length }, (_, k) => l.feature(k).properties.id)).toEqual(expected);
    }
    const q = '&filter[charge_points.power.gte]=22';
    const t = await tile(14, 8299, 5635, `?${q.slice(1)}`);
    const expected = (await boxSearch(14, 8299, 5635, q)).map((s) => s.id);
    expect(expected.length).toBeGreaterThan(0);
    expect(Array.from({ length: t.layers.stations.length }, (_, k) => t.layers.stations.feature(k).properties.id)).toEqual(expected);
  });

  it('clusters carry count, max power, plug counts and an expansion zoom; a cluster of one its station id', async () => {
    const t = await tile(9, 259, 176);
    const fs = inside(t.layers.clusters);
    const multi = fs.filter((f) => (f.count as number) > 1);
    const single = fs.filter((f) => f.count === 1);
    expect(multi.length).toBeGreaterThan(0);
    expect(single.length).toBeGreaterThan(0);
    for (const f of multi) {
      expect(f.expansion_zoom as number).toBeGreaterThan(9);
      expect(f.station_id).toBeUndefined();
      expect(f.max_power as number).toBeGreaterThan(0);
      expect((f.count_type2 as number | undefined) ?? 0).toBeLessThanOrEqual(f.count as number);
    }
    for (const f of single) {
      const s = stations.find((x) => x.id === f.station_id);
      expect(s, String(f.station_id)).toBeDefined();
      expect(f.max_power).toBe(Math.max(...s!.charge_points.map((c) => c.power)));
      expect(f.expansion_zoom).toBeUndefined();
    }
  });

  it('answers 204 for a tile without a feature, and tiles are cacheable and compressed', async () => {
    expect((await tile(10, 0, 0)).status).toBe(204);
    const first = await tile(9, 259, 176, '', READER, { 'accept-encoding': 'br' });
    expect(first.body.length).toBeGreaterThan(1024);
    expect(first.status).toBe(200);
    expect(first.headers['content-encoding']).toBe('br');
    const etag = first.headers.etag!;
    expect(etag).toBeTruthy();
    expect(first.headers['cache-control']).toContain('max-age');
    const plain = await tile(9, 259, 176);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.equals(first.body)).toBe(true);
    const gz = await tile(9, 259, 176, '', READER, { 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gz.body.equals(first.body)).toBe(true);
    expect((await tile(9, 259, 176, '', READER, { 'if-none-match': etag, 'accept-encoding': 'br' })).status).toBe(304);
    // Equal filters written differently share the cluster set; the ETag follows the query.
    const a = await tile(7, 64, 43, '?filter[charge_points.plug.in]=CCS,type2');
    const b = await tile(7, 64, 43, '?filter[charge_points.plug.in]=type2,ccs,ccs');
    expect(a.body.equals(b.body)).toBe(true);
  });

  it('a company write changes the operator names of the tiles and their ETag', async () => {
    const before = await tile(14, 8299, 5635);
    const f = before.layers.stations.feature(0).properties;
    const id = String(f.operator_id);
    const co = await call(srv, 'GET', `/v1/companies?filter[id]=${id}`, { key: WRITER });
    const c = co.json.data[0];
    const put = await call(srv, 'PUT', `/v1/companies/${id}`, { key: WRITER, body: { data: { type: 'company', id, attributes: { ...c.attributes, name: 'Renamed operator', version: c.attributes.version + 1 }, relationships: c.relationships } } });
    expect(put.status, put.text).toBe(200);
    const after = await tile(14, 8299, 5635);
    expect(after.headers.etag).not.toBe(before.headers.etag);
    const renamed = Array.from({ length: after.layers.stations.length }, (_, k) => after.layers.stations.feature(k).properties).filter((p) => p.operator_id === id);
    expect(renamed.length).toBeGreaterThan(0);
    for (const p of renamed) expect(p.operator_name).toBe('Renamed operator');
  });

  it('keys with ReadStationsWithAvailability get available_count where a status is known', async () => {
    const t = await tile(14, 8299, 5635, '', LIVE);
    expect(t.status).toBe(200);
    // Its ETag covers the availability as well (D95, D192): another tag than the reader's, and a 304 while nothing changed.
    expect(t.headers.etag).toBeDefined();
    expect(t.headers.etag).not.toBe((await tile(14, 8299, 5635)).headers.etag);
    expect((await tile(14, 8299, 5635, '', LIVE, { 'if-none-match': t.headers.etag! })).status).toBe(304);
    const before = Array.from({ length: t.layers.stations.length }, (_, k) => t.layers.stations.feature(k).properties);
    expect(before.every((p) => p.available_count === undefined)).toBe(true);
    // Reader keys never see live counts.
    const r = await tile(14, 8299, 5635);
    expect(Array.from({ length: r.layers.stations.length }, (_, k) => r.layers.stations.feature(k).properties.available_count)).toEqual(before.map(() => undefined));
  });

  it('bad addresses, filters and keys answer 400/403 naming the parameter', async () => {
    const cases: Array<[string, number, string | undefined]> = [
      ['/v1/tiles/stations/21/0/0.mvt', 400, 'z'],
      ['/v1/tiles/stations/-1/0/0.mvt', 400, 'z'],
      ['/v1/tiles/stations/a/0/0.mvt', 400, 'z'],
      ['/v1/tiles/stations/3/8/0.mvt', 400, 'x'],
      ['/v1/tiles/stations/3/0/8.mvt', 400, 'y'],
      ['/v1/tiles/stations/3/0/1.png', 400, 'y'],
      ['/v1/tiles/stations/3/0/1', 400, 'y'],
      ['/v1/tiles/stations/3/0/1.5.mvt', 400, 'y'],
      ['/v1/tiles/stations/3/0/1.mvt?filter[charge_points.power.gte]=x', 400, 'filter[charge_points.power.gte]'],
      ['/v1/tiles/stations/3/0/1.mvt?filter[free_charging]=maybe', 400, 'filter[free_charging]'],
      ['/v1/tiles/stations.json?filter[charge_points.power.lte]=[]', 400, 'filter[charge_points.power.lte]'],
    ];
    for (const [p, status, parameter] of cases) {
      const r = await call(srv, 'GET', p, { key: READER });
      expect(r.status, p).toBe(status);
      expect(r.json.errors[0].source?.parameter, p).toBe(parameter);
    }
    expect((await call(srv, 'GET', '/v1/tiles/stations/3/0/1.mvt')).status).toBe(403);
    expect((await call(srv, 'GET', '/v1/tiles/stations/3/0/1.mvt', { key: NONE })).status).toBe(403);
    expect((await call(srv, 'GET', '/v1/tiles/stations/3/0/1.mvt', { key: 'no-such-key' })).status).toBe(403);
    expect((await call(srv, 'GET', '/v1/tiles/stations.json', { key: NONE })).status).toBe(403);
    expect((await call(srv, 'POST', '/v1/tiles/stations/3/0/1.mvt', { key: READER, body: {} })).status).toBe(405);
  });

  it('TileJSON names the tile URL at the address asked, with the refinements, bounds and layers', async () => {
    const r = await call(srv, 'GET', '/v1/tiles/stations.json?filter[charge_points.power.gte]=50', { key: READER, headers: { Host: 'maps.example:8443', 'X-Forwarded-Proto': 'https' } });
    expect(r.status).toBe(200);
    const j = r.json;
    expect(j.tilejson).toBe('3.0.0');
    expect(j.tiles).toEqual(['https://maps.example:8443/v1/tiles/stations/{z}/{x}/{y}.mvt?filter%5Bcharge_points.power.gte%5D=50']);
    expect([j.minzoom, j.maxzoom, j.scheme]).toEqual([0, 20, 'xyz']);
    const lats = stations.map((s) => s.latitude);
    const lons = stations.map((s) => s.longitude);
    expect(j.bounds).toEqual([Math.min(...lons), Math.min(...lats), Math.max(...lons), Math.max(...lats)]);
    expect(j.vector_layers.map((l: any) => [l.id, l.minzoom, l.maxzoom])).toEqual([['clusters', 0, 13], ['stations', 14, 20]]);
    expect(j.attribution).toContain('CC BY 4.0');
    const plain = await call(srv, 'GET', '/v1/tiles/stations.json', { key: READER, headers: { Host: 'localhost:9000' } });
    expect(plain.json.tiles).toEqual(['http://localhost:9000/v1/tiles/stations/{z}/{x}/{y}.mvt']);
    expect(plain.headers.get('etag')).not.toBe(r.headers.get('etag'));
  });

  const box = (b: [number, number, number, number]): string => `filter[latitude.gte]=${b[0]}&filter[longitude.gte]=${b[1]}&filter[latitude.lte]=${b[2]}&filter[longitude.lte]=${b[3]}`;

  it('clusters as JSON:API: counts over a box add up to its stations, singles in list shape, paged', async () => {
    const wide: [number, number, number, number] = [48.0, 1.5, 49.6, 3.2];
    const inBox = stations.filter((s) => s.latitude >= 48.0 && s.latitude <= 49.6 && s.longitude >= 1.5 && s.longitude <= 3.2).length;
    for (const zoom of [5, 9, 12]) {
      const r = await call(srv, 'GET', `/v1/charging_stations/clusters?${box(wide)}&zoom=${zoom}&page[size]=1000`, { key: READER });
      expect(r.status, r.text).toBe(200);
      let total = 0;
      for (const d of r.json.data) {
        if (d.type === 'station_cluster') {
          expect(d.attributes.count).toBeGreaterThan(1);
          expect(d.attributes.expansion_zoom).toBeGreaterThan(zoom);
          const [w, s, e, n] = d.attributes.bbox;
          // The centre (a mean in Web Mercator) lies within the stations' box, to rounding.
          expect(d.attributes.longitude).toBeGreaterThanOrEqual(w - 1e-9);
          expect(d.attributes.longitude).toBeLessThanOrEqual(e + 1e-9);
          expect(d.attributes.latitude).toBeGreaterThanOrEqual(s - 1e-9);
          expect(d.attributes.latitude).toBeLessThanOrEqual(n + 1e-9);
          total += d.attributes.count;
        } else {
          expect(d.type).toBe('charging_station');
          expect(d.attributes.charge_points.length).toBeGreaterThan(0);
          total += 1;
        }
      }
      expect(total, `zoom ${zoom}`).toBe(inBox);
      // Pages of 3 follow each other.
      const p1 = await call(srv, 'GET', `/v1/charging_stations/clusters?${box(wide)}&zoom=${zoom}&page[size]=3`, { key: READER });
      const p2 = await call(srv, 'GET', `/v1/charging_stations/clusters?${box(wide)}&zoom=${zoom}&page[size]=3&page[number]=2`, { key: READER });
      expect([...p1.json.data, ...p2.json.data].map((d: any) => d.id)).toEqual(r.json.data.slice(0, 6).map((d: any) => d.id));
      expect(p1.json.meta.more_available).toBe(r.json.data.length > 3);
    }
    // From zoom 14 the answer is station search's, byte for byte but its paging links (D235).
    const small: [number, number, number, number] = [48.85, 2.33, 48.87, 2.36];
    const c = await call(srv, 'GET', `/v1/charging_stations/clusters?${box(small)}&zoom=15&page[size]=50`, { key: READER });
    const s = await call(srv, 'GET', `/v1/charging_stations?${box(small)}&page[size]=50`, { key: READER });
    const withoutLinks = (text: string): string => text.replace(/,"links":\{[^}]*\}\}$/, '}');
    expect(withoutLinks(c.text)).toBe(withoutLinks(s.text));
    expect(c.json.links.self).toMatch(/^\/v1\/charging_stations\/clusters\?/);
  });

  it('clusters as JSON:API: missing or bad box and zoom answer 400 naming the parameter', async () => {
    const b: [number, number, number, number] = [48.8, 2.3, 48.9, 2.4];
    const cases: Array<[string, string]> = [
      [box(b), 'zoom'],
      [`${box(b)}&zoom=21`, 'zoom'],
      [`${box(b)}&zoom=1.5`, 'zoom'],
      [`filter[latitude.gte]=48.8&filter[latitude.lte]=48.9&filter[longitude.gte]=2.3&zoom=3`, 'filter[longitude.lte]'],
      [`filter[latitude.gte]=49&filter[latitude.lte]=48.9&filter[longitude.gte]=2.3&filter[longitude.lte]=2.4&zoom=3`, 'filter[latitude.gte]'],
      [`${box(b)}&zoom=3&filter[charge_points.plug.in]=&page[size]=0`, 'filter[charge_points.plug.in]'],
      [`${box(b)}&zoom=3&page[size]=1001`, 'page[size]'],
    ];
    for (const [q, parameter] of cases) {
      const r = await call(srv, 'GET', `/v1/charging_stations/clusters?${q}`, { key: READER });
      expect(r.status, q).toBe(400);
      expect(r.json.errors[0].source?.parameter, q).toBe(parameter);
    }
    expect((await call(srv, 'GET', `/v1/charging_stations/clusters?${box(b)}&zoom=3`, { key: NONE })).status).toBe(403);
  });

  it('serves the map page and its files from the service itself; unknown files are 404', async () => {
    const page = await call(srv, 'GET', '/map');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.text).toContain('/map/maplibre-gl.js');
    expect(page.text).not.toMatch(/https?:\/\//);
    const js = await call(srv, 'GET', '/map/maplibre-gl.js');
    expect(js.status).toBe(200);
    expect(js.text.length).toBeGreaterThan(500_000);
    expect((await call(srv, 'GET', '/map/maplibre-gl.css')).status).toBe(200);
    const own = await call(srv, 'GET', '/map/map.js');
    expect(own.text).toContain("'/v1/tiles/stations') + '/{z}/{x}/{y}.mvt'");
    expect(own.text).toContain("'/v1/tiles/prices/' + profile.id");
    const countries = await call(srv, 'GET', '/map/countries.geojson');
    const geo = JSON.parse(countries.text);
    expect(geo.type).toBe('FeatureCollection');
    expect(geo.features.length).toBeGreaterThan(200);
    for (const f of ['toString', '__proto__', 'nothing.js']) expect((await call(srv, 'GET', `/map/${f}`)).status).toBe(404);
  });
});
