import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openLiveStore } from '../../src/storage/open.js';
import type { StationRow } from '../../src/storage/snapshot.js';
import { call, keyFor, startTestApp, type TestApp } from '../helpers/server.js';
import {
  BOUYGUES,
  DANGLING,
  EMP_A,
  EMP_B,
  EMP_C,
  FIX,
  IZIVIA,
  allStations,
  fixtureSnapshot,
  haversine,
  seededDataDir,
} from './stations.fixture.js';

const reader = keyFor('reader');
const avail = keyFor('avail');
const byId = (a: StationRow, b: StationRow): number => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

function listAttributes(s: StationRow, availability: Array<number | null> = []): unknown {
  return {
    name: s.name,
    latitude: s.latitude,
    longitude: s.longitude,
    country: s.country,
    address: s.address,
    free_parking: s.free_parking,
    free_charging: s.free_charging,
    evse_operator: s.evse_operator,
    evse_ids: s.evse_ids,
    charge_points: s.charge_points.map((c, k) => ({
      plug: c.plug,
      energy_type: c.energy_type,
      power: c.power,
      count: c.count,
      evse_ids: c.evse_ids,
      available_count: availability[k] ?? null,
    })),
    facilities: s.facilities,
    parking_type: s.parking_type,
    created_at: s.created_at,
    updated_at: s.updated_at,
    version: s.version,
    source_label: s.source_label,
  };
}

describe('GET /v1/charging_stations over HTTP', () => {
  let srv: TestApp;
  let all: StationRow[];
  let dataDir: string;
  const get = (qs: string, key = reader) => call(srv, 'GET', `/v1/charging_stations?${qs}`, { key });
  const ids = (r: { json: { data: Array<{ id: string }> } }): string[] => r.json.data.map((d) => d.id);

  beforeAll(async () => {
    all = allStations().sort(byId);
    dataDir = await seededDataDir();
    srv = await startTestApp({
      dataDir,
      keys: { reader: 'ReadStations', avail: 'ReadStationsWithAvailability', other: 'ReadTariffs', writer: 'WriteTariffs' },
      env: { SNAPSHOT: fixtureSnapshot(), DISABLED_EXT_B_COUNTRIES: 'Deutschland, Frankreich' },
    });
  });
  afterAll(async () => {
    await srv.stop();
  });

  describe('bbox search', () => {
    it('when a bounding box is given, then every station inside it (inclusive), ordered by id', async () => {
      const [a, b, c, d] = [48.85, 48.87, 2.33, 2.36];
      const expected = all.filter((s) => s.latitude >= a && s.latitude <= b && s.longitude >= c && s.longitude <= d).map((s) => s.id);
      expect(expected.length).toBeGreaterThan(20);
      const r = await get(`filter[latitude.gte]=${a}&filter[latitude.lte]=${b}&filter[longitude.gte]=${c}&filter[longitude.lte]=${d}&page[size]=1000`);
      expect(r.status).toBe(200);
      expect(ids(r)).toEqual(expected);
      // D27: the snapshot the page was read from, as /health names it.
      const version = (await call(srv, 'GET', '/health')).json.snapshot.version;
      expect(r.json.meta).toEqual({ more_available: false, disabled_ext_b_countries: ['Deutschland', 'Frankreich'], snapshot_version: version });
    });

    it('when a bound equals a station coordinate, then the station is included', async () => {
      const s = all.find((x) => x.id === FIX(1))!;
      const r = await get(
        `filter[latitude.gte]=${s.latitude}&filter[latitude.lte]=${s.latitude}&filter[longitude.gte]=${s.longitude}&filter[longitude.lte]=${s.longitude}`,
      );
      expect(ids(r)).toEqual([FIX(1)]);
    });

    it('returns the whole list document of a fixture station with included operator and branding', async () => {
      const s = all.find((x) => x.id === FIX(1))!;
      const r = await get('filter[latitude.gte]=55.676&filter[latitude.lte]=55.6762&filter[longitude.gte]=12.568&filter[longitude.lte]=12.5684');
      expect(r.json).toEqual({
        data: [
          {
            id: FIX(1),
            type: 'charging_station',
            attributes: listAttributes(s),
            relationships: { operator: { data: { type: 'company', id: IZIVIA } } },
            meta: { branding: { map_pin_icon_url: 'https://cdn.example.com/pins/fixture.png' } },
          },
        ],
        included: [{ id: IZIVIA, type: 'company', attributes: { name: 'Izivia' } }],
        meta: { more_available: false, disabled_ext_b_countries: ['Deutschland', 'Frankreich'], snapshot_version: expect.any(String) },
        links: expect.any(Object),
      });
    });
  });

  describe('radius search', () => {
    const centre = { lat: 48.8566, lon: 2.3522 };
    const within = (radius: number): Array<{ id: string; d: number }> =>
      all
        .map((s) => ({ id: s.id, d: haversine(centre.lat, centre.lon, s.latitude, s.longitude) }))
        .filter((x) => x.d <= radius)
        .sort((x, y) => x.d - y.d || (x.id < y.id ? -1 : 1));

    it('when a radius is given, then stations within it, nearest first', async () => {
      const expected = within(2000).map((x) => x.id);
      expect(expected.length).toBeGreaterThan(50);
      const r = await get(`filter[latitude]=${centre.lat}&filter[longitude]=${centre.lon}&filter[radius]=2000&page[size]=1000`);
      expect(r.status).toBe(200);
      expect(ids(r)).toEqual(expected);
      expect(r.json.meta.more_available).toBe(false);
    });

    it('when stations share a position, then they are ordered by id', async () => {
      const r = await get('filter[latitude]=55.7&filter[longitude]=12.6&filter[radius]=10');
      expect(ids(r)).toEqual([FIX(5), FIX(6)]);
    });

    it('pages through radius results: page 1 nearest, more_available, last page, page past the end', async () => {
      const expected = within(1500).map((x) => x.id);
      const n = expected.length;
      expect(n).toBeGreaterThan(30);
      const base = `filter[latitude]=${centre.lat}&filter[longitude]=${centre.lon}&filter[radius]=1500&page[size]=10`;
      const p1 = await get(`${base}&page[number]=1`);
      expect(ids(p1)).toEqual(expected.slice(0, 10));
      expect(p1.json.meta.more_available).toBe(true);
      const lastNo = Math.ceil(n / 10);
      const last = await get(`${base}&page[number]=${lastNo}`);
      expect(ids(last)).toEqual(expected.slice((lastNo - 1) * 10));
      expect(last.json.meta.more_available).toBe(false);
      const past = await get(`${base}&page[number]=${lastNo + 1}`);
      expect(past.json).toEqual({ data: [], included: [], meta: { more_available: false, disabled_ext_b_countries: ['Deutschland', 'Frankreich'], snapshot_version: expect.any(String) }, links: expect.any(Object) });
    });

    it('when the page is exactly full at the end, then more_available is false', async () => {
      const n = within(1500).length;
      const r = await get(`filter[latitude]=${centre.lat}&filter[longitude]=${centre.lon}&filter[radius]=1500&page[size]=${n}`);
      expect(r.json.data).toHaveLength(n);
      expect(r.json.meta.more_available).toBe(false);
      const r2 = await get(`filter[latitude]=${centre.lat}&filter[longitude]=${centre.lon}&filter[radius]=1500&page[size]=${n - 1}`);
      expect(r2.json.meta.more_available).toBe(true);
    });
  });

  describe('id, export and operator searches', () => {
    it('when filter[id] lists ids (some unknown, upper case, repeated), then the known ones by id', async () => {
      const r = await get(`filter[id]=${FIX(3)},${FIX(1).toUpperCase()},00000000-0000-0000-0000-000000000000,not-a-uuid,${FIX(3)}`);
      expect(ids(r)).toEqual([FIX(1), FIX(3)]);
    });

    it('when export=true, then all stations by id, 400 per page by default', async () => {
      const r = await get('export=true');
      expect(ids(r)).toEqual(all.slice(0, 400).map((s) => s.id));
      expect(r.json.meta.more_available).toBe(true);
      const p5 = await get('export=true&page[size]=400&page[number]=5');
      expect(ids(p5)).toEqual(all.slice(1600).map((s) => s.id));
      expect(p5.json.meta.more_available).toBe(false);
    });

    it('when export=true&page[size]=1000 then 1000 stations', async () => {
      const r = await get('export=true&page[size]=1000');
      expect(r.json.data).toHaveLength(1000);
    });

    it('when export=false and nothing else, then 400 (no search type)', async () => {
      const r = await get('export=false');
      expect(r.status).toBe(400);
      expect(r.json.errors[0].source).toEqual({ parameter: 'filter' });
    });

    it('when filter[operator.id] alone, then all stations of those operators by id', async () => {
      const expected = all.filter((s) => s.operator_id === BOUYGUES || s.operator_id === IZIVIA).map((s) => s.id);
      const r = await get(`filter[operator.id]=${BOUYGUES},${IZIVIA}&page[size]=1000`);
      expect(ids(r)).toEqual(expected);
    });

    it('when filter[evse_operator] alone, then stations with that EVSE operator, case-insensitively', async () => {
      const r = await get('filter[evse_operator]=Dk*Fix');
      expect(ids(r)).toEqual([FIX(1), FIX(2)]);
      const expected = all.filter((s) => s.evse_operator?.toLowerCase() === 'fr*v75').map((s) => s.id);
      const r2 = await get('filter[evse_operator]=fr*v75&page[size]=1000');
      expect(ids(r2)).toEqual(expected);
    });

    it('with bbox, operator.id and evse_operator are refinements (both must hold)', async () => {
      const box = 'filter[latitude.gte]=55&filter[latitude.lte]=56&filter[longitude.gte]=12&filter[longitude.lte]=13';
      expect(ids(await get(`${box}&filter[operator.id]=${IZIVIA}`))).toEqual([FIX(1), FIX(5), FIX(6)]);
      expect(ids(await get(`${box}&filter[evse_operator]=DK*FIX`))).toEqual([FIX(1), FIX(2)]);
      expect(ids(await get(`${box}&filter[evse_operator]=DK*FIX&filter[operator.id]=${IZIVIA}`))).toEqual([FIX(1)]);
    });
  });

  describe('refinements (D26)', () => {
    const dk = 'filter[latitude.gte]=55&filter[latitude.lte]=56&filter[longitude.gte]=12&filter[longitude.lte]=13';

    it('plug and power must hold on the same charge point group', async () => {
      expect(ids(await get(`${dk}&filter[charge_points.plug.in]=ccs&filter[charge_points.power.gte]=100`))).toEqual([FIX(1), FIX(4)]);
      expect(ids(await get(`${dk}&filter[charge_points.plug.in]=type2&filter[charge_points.power.gte]=100`))).toEqual([]);
      expect(ids(await get(`${dk}&filter[charge_points.plug.in]=TYPE2,chademo&filter[charge_points.power.lte]=11`))).toEqual([FIX(2)]);
      expect(ids(await get(`${dk}&filter[charge_points.power.gte]=150&filter[charge_points.power.lte]=150`))).toEqual([FIX(1)]);
      expect(ids(await get(`${dk}&filter[charge_points.plug.in]=nacs`))).toEqual([]);
    });

    it('free_charging and free_parking match the boolean; null never matches', async () => {
      expect(ids(await get(`${dk}&filter[free_charging]=true`))).toEqual([FIX(2)]);
      expect(ids(await get(`${dk}&filter[free_charging]=FALSE`))).toEqual([FIX(1)]);
      expect(ids(await get(`${dk}&filter[free_parking]=true`))).toEqual([FIX(1)]);
      expect(ids(await get(`${dk}&filter[free_parking]=false`))).toEqual([FIX(2)]);
    });

    it('facilities: at least one; parking_type: one of; country: one of (case-insensitive)', async () => {
      expect(ids(await get(`${dk}&filter[facilities]=cafe`))).toEqual([FIX(1), FIX(5)]);
      expect(ids(await get(`${dk}&filter[facilities]=supermarket,hotel`))).toEqual([FIX(1), FIX(2)]);
      expect(ids(await get(`${dk}&filter[facilities]=spa`))).toEqual([]);
      expect(ids(await get(`${dk}&filter[parking_type]=parking_garage,parking_lot`))).toEqual([FIX(1), FIX(6)]);
      expect(ids(await get(`${dk}&filter[country]=dk`)).length).toBe(6);
      expect(ids(await get(`${dk}&filter[country]=DE,FR`))).toEqual([]);
      const fr = all.filter((s) => s.country === 'FR').slice(0, 400).map((s) => s.id);
      expect(ids(await get('export=true&filter[country]=fr'))).toEqual(fr);
    });

    it('operator.supported_emps.id: stations whose operator supports one EMP (direct, roaming, emp_group)', async () => {
      expect(ids(await get(`${dk}&filter[operator.supported_emps.id]=${EMP_A}`))).toEqual([FIX(1), FIX(5), FIX(6)]);
      expect(ids(await get(`${dk}&filter[operator.supported_emps.id]=${EMP_B},${EMP_A}`))).toEqual([FIX(1), FIX(2), FIX(5), FIX(6)]);
      // EMP C shares EMP A's roaming partners (emp_group).
      expect(ids(await get(`${dk}&filter[operator.supported_emps.id]=${EMP_C}`))).toEqual([FIX(1), FIX(5), FIX(6)]);
      // The CPO itself is usable directly.
      expect(ids(await get(`${dk}&filter[operator.supported_emps.id]=${BOUYGUES}`))).toEqual([FIX(2)]);
      expect(ids(await get(`${dk}&filter[operator.supported_emps.id]=00000000-0000-0000-0000-000000000000`))).toEqual([]);
    });

    it('refinements also apply to radius search and paging counts only matches', async () => {
      const expected = all
        .filter((s) => s.charge_points.some((c) => c.plug === 'ccs') && haversine(48.8566, 2.3522, s.latitude, s.longitude) <= 3000)
        .map((s) => ({ id: s.id, d: haversine(48.8566, 2.3522, s.latitude, s.longitude) }))
        .sort((x, y) => x.d - y.d || (x.id < y.id ? -1 : 1))
        .map((x) => x.id);
      const r = await get('filter[latitude]=48.8566&filter[longitude]=2.3522&filter[radius]=3000&filter[charge_points.plug.in]=ccs&page[size]=5&page[number]=2');
      expect(ids(r)).toEqual(expected.slice(5, 10));
    });
  });

  describe('included operators, fields[company], dangling operators', () => {
    const dk = 'filter[latitude.gte]=55&filter[latitude.lte]=56&filter[longitude.gte]=12&filter[longitude.lte]=13';

    it('includes each operator once, in order of first reference; operator-less and deleted operators are not included', async () => {
      const r = await get(dk);
      expect(ids(r)).toEqual([1, 2, 3, 4, 5, 6].map(FIX));
      expect(r.json.included).toEqual([
        { id: IZIVIA, type: 'company', attributes: { name: 'Izivia' } },
        { id: BOUYGUES, type: 'company', attributes: { name: 'Bouygues E&S' } },
      ]);
      expect(r.json.data[2].relationships).toEqual({ operator: { data: null } });
      // Station 4's operator is no company (D21): the reference is left out.
      expect(r.json.data[3].relationships).toEqual({ operator: { data: null } });
      expect(r.json.data[3].attributes).toEqual(listAttributes(all.find((s) => s.id === FIX(4))!));
      expect(r.text).not.toContain(DANGLING);
    });

    it('fields[company]=supported_emps lists the operator EMPs intersected with the filter', async () => {
      const r = await get(`${dk}&fields[company]=name,supported_emps&filter[operator.supported_emps.id]=${EMP_A},${EMP_B}`);
      expect(r.json.included).toEqual([
        { id: IZIVIA, type: 'company', attributes: { name: 'Izivia' }, relationships: { supported_emps: { data: [{ type: 'company', id: EMP_A }] } } },
        { id: BOUYGUES, type: 'company', attributes: { name: 'Bouygues E&S' }, relationships: { supported_emps: { data: [{ type: 'company', id: EMP_B }] } } },
      ]);
      const r2 = await get(`${dk}&fields[company]=supported_emps`);
      expect(r2.json.included).toEqual([
        { id: IZIVIA, type: 'company', relationships: { supported_emps: { data: [] } } },
        { id: BOUYGUES, type: 'company', relationships: { supported_emps: { data: [] } } },
      ]);
    });

    it('when fields[company] names an unknown field, then 400', async () => {
      const r = await get(`${dk}&fields[company]=name,url`);
      expect(r.status).toBe(400);
      expect(r.json.errors[0]).toMatchObject({ status: '400', code: 'BAD_REQUEST', source: { parameter: 'fields[company]' } });
    });
  });

  describe('available_count (D3)', () => {
    const box = 'filter[latitude.gte]=55.676&filter[latitude.lte]=55.6762&filter[longitude.gte]=12.568&filter[longitude.lte]=12.5684';

    it('is null for every key while the availability table is empty', async () => {
      for (const key of [reader, avail]) {
        const r = await get(box, key);
        expect(r.json.data[0].attributes.charge_points.map((c: { available_count: unknown }) => c.available_count)).toEqual([null, null]);
      }
    });

    it('carries the live values for ReadStationsWithAvailability keys only, and on the single read with availability=true', async () => {
      // Another process writes the table (a status feed); a shared store is polled every second.
      const write = async (group: number, available: number): Promise<void> => {
        const live = await openLiveStore({ dataDir, databaseUrl: srv.databaseUrl });
        try {
          await live.tx((s) => s.run('INSERT INTO station_availability VALUES (?, ?, ?, ?)', [FIX(1), group, available, Date.now()]));
        } finally {
          await live.close();
        }
      };
      await write(1, 1);
      const s1 = all.find((x) => x.id === FIX(1))!;
      await vi.waitFor(async () => expect((await get(box, avail)).json.data[0].attributes).toEqual(listAttributes(s1, [null, 1])), { timeout: 3000 });
      const r2 = await get(box, reader);
      expect(r2.json.data[0].attributes).toEqual(listAttributes(s1));
      const one = await call(srv, 'GET', `/v1/charging_stations/${FIX(1)}?availability=true`, { key: avail });
      expect(one.json.data.attributes.charge_points).toEqual([
        { plug: 'ccs', energy_type: 'dc', power: 150, count: 2, available_count: null },
        { plug: 'type2', energy_type: 'ac', power: 22, count: 1, available_count: 1 },
      ]);
      await write(0, 2);
      await vi.waitFor(async () => expect((await get(box, avail)).json.data[0].attributes).toEqual(listAttributes(s1, [2, 1])), { timeout: 3000 });
    });
  });

  describe('company writes are reflected immediately', () => {
    it('a CPO renamed through PUT /v1/companies changes the included name and supported EMPs at once', async () => {
      const box = 'filter[latitude.gte]=55.67&filter[latitude.lte]=55.69&filter[longitude.gte]=12.56&filter[longitude.lte]=12.575';
      const before = await get(`${box}&filter[operator.supported_emps.id]=${EMP_B}`);
      expect(ids(before)).toEqual([FIX(2)]);
      const put = await call(srv, 'PUT', `/v1/companies/${BOUYGUES}`, {
        key: keyFor('writer'),
        body: {
          data: {
            id: BOUYGUES,
            type: 'company',
            attributes: { name: 'Bouygues Renamed', version: 2, is_cpo: true, is_emp: false, external_source_mapping: { evse_operator_ids: ['FR*A15'] } },
            relationships: { supported_emps: { data: [{ type: 'company', id: EMP_A }] } },
          },
        },
      });
      expect(put.status).toBe(200);
      const after = await get(`${box}&filter[operator.supported_emps.id]=${EMP_A}`);
      expect(ids(after)).toEqual([FIX(1), FIX(2)]);
      expect(after.json.included[1]).toEqual({ id: BOUYGUES, type: 'company', attributes: { name: 'Bouygues Renamed' } });
      expect(ids(await get(`${box}&filter[operator.supported_emps.id]=${EMP_B}`))).toEqual([]);
    });
  });

  describe('400 for every malformed parameter and limit', () => {
    const bbox = 'filter[latitude.gte]=48.8&filter[latitude.lte]=48.9&filter[longitude.gte]=2.3&filter[longitude.lte]=2.4';
    const radius = 'filter[latitude]=48.85&filter[longitude]=2.35&filter[radius]=1000';
    const cases: Array<[string, string, string]> = [
      ['no search type', '', 'filter'],
      ['one bbox bound', 'filter[latitude.gte]=48.8', 'filter[latitude.lte]'],
      ['three bbox bounds', 'filter[latitude.gte]=48.8&filter[latitude.lte]=48.9&filter[longitude.gte]=2.3', 'filter[longitude.lte]'],
      ['incomplete radius', 'filter[latitude]=48.8&filter[longitude]=2.3', 'filter[radius]'],
      ['radius without latitude', 'filter[longitude]=2.3&filter[radius]=10', 'filter[latitude]'],
      ['partial radius beside a complete bbox', `${bbox}&filter[radius]=100`, 'filter[latitude]'],
      ['partial bbox beside a complete radius', `${radius}&filter[latitude.gte]=1`, 'filter[latitude.lte]'],
      ['bbox and radius', `${bbox}&${radius}`, 'filter[latitude]'],
      ['bbox and id', `${bbox}&filter[id]=${FIX(1)}`, 'filter[id]'],
      ['radius and export', `${radius}&export=true`, 'export'],
      ['id and export', `filter[id]=${FIX(1)}&export=true`, 'export'],
      ['operator.id and evse_operator without geo', `filter[operator.id]=${IZIVIA}&filter[evse_operator]=FR*V75`, 'filter[evse_operator]'],
      ['operator.id with id', `filter[id]=${FIX(1)}&filter[operator.id]=${IZIVIA}`, 'filter[operator.id]'],
      ['evse_operator with export', 'export=true&filter[evse_operator]=FR*V75', 'filter[evse_operator]'],
      ['latitude above 90', 'filter[latitude]=90.5&filter[longitude]=2&filter[radius]=10', 'filter[latitude]'],
      ['longitude below -180', 'filter[latitude]=45&filter[longitude]=-180.1&filter[radius]=10', 'filter[longitude]'],
      ['bbox latitude out of range', 'filter[latitude.gte]=-91&filter[latitude.lte]=48.9&filter[longitude.gte]=2.3&filter[longitude.lte]=2.4', 'filter[latitude.gte]'],
      ['latitude.gte > latitude.lte', 'filter[latitude.gte]=49&filter[latitude.lte]=48.9&filter[longitude.gte]=2.3&filter[longitude.lte]=2.4', 'filter[latitude.gte]'],
      ['longitude.gte > longitude.lte', 'filter[latitude.gte]=48&filter[latitude.lte]=48.9&filter[longitude.gte]=2.5&filter[longitude.lte]=2.4', 'filter[longitude.gte]'],
      ['latitude not a number', 'filter[latitude]=north&filter[longitude]=2&filter[radius]=10', 'filter[latitude]'],
      ['radius 0', 'filter[latitude]=48&filter[longitude]=2&filter[radius]=0', 'filter[radius]'],
      ['radius not an integer', 'filter[latitude]=48&filter[longitude]=2&filter[radius]=10.5', 'filter[radius]'],
      ['more than 50 ids', `filter[id]=${Array.from({ length: 51 }, (_, i) => `id${i}`).join(',')}`, 'filter[id]'],
      ['empty filter[id]', 'filter[id]=,', 'filter[id]'],
      ['export not a boolean', 'export=yes', 'export'],
      ['page[size] above 1000', `${bbox}&page[size]=1001`, 'page[size]'],
      ['page[size] 0', `${bbox}&page[size]=0`, 'page[size]'],
      ['page[number] 0', `${bbox}&page[number]=0`, 'page[number]'],
      ['page[number] not an integer', `${bbox}&page[number]=1.5`, 'page[number]'],
      ['power.gte not a number', `${bbox}&filter[charge_points.power.gte]=fast`, 'filter[charge_points.power.gte]'],
      ['power.lte not a number', `${bbox}&filter[charge_points.power.lte]=`, 'filter[charge_points.power.lte]'],
      ['empty plug list', `${bbox}&filter[charge_points.plug.in]=`, 'filter[charge_points.plug.in]'],
      ['free_charging not a boolean', `${bbox}&filter[free_charging]=1`, 'filter[free_charging]'],
      ['free_parking not a boolean', `${bbox}&filter[free_parking]=maybe`, 'filter[free_parking]'],
      ['empty facilities', `${bbox}&filter[facilities]=`, 'filter[facilities]'],
      ['empty parking_type', `${bbox}&filter[parking_type]=,,`, 'filter[parking_type]'],
      ['empty country', `${bbox}&filter[country]=`, 'filter[country]'],
      ['empty supported EMPs', `${bbox}&filter[operator.supported_emps.id]=`, 'filter[operator.supported_emps.id]'],
    ];
    for (const [what, qs, parameter] of cases) {
      it(`when ${what}, then 400 with source.parameter ${parameter}`, async () => {
        const r = await get(qs);
        expect(r.status).toBe(400);
        expect(r.json.errors).toHaveLength(1);
        expect(r.json.errors[0]).toMatchObject({ status: '400', code: 'BAD_REQUEST', source: { parameter } });
        expect(typeof r.json.errors[0].title).toBe('string');
      });
    }
  });

  describe('403', () => {
    it('without a key, with an unknown key, with a key lacking both station groups', async () => {
      const bbox = 'filter[latitude.gte]=48.8&filter[latitude.lte]=48.9&filter[longitude.gte]=2.3&filter[longitude.lte]=2.4';
      expect((await call(srv, 'GET', `/v1/charging_stations?${bbox}`)).json).toEqual({
        errors: [{ status: '403', code: 'FORBIDDEN', title: 'api_key missing' }],
      });
      expect((await get(bbox, 'nope')).json).toEqual({ errors: [{ status: '403', code: 'FORBIDDEN', title: 'api_key invalid' }] });
      expect((await get(bbox, keyFor('other'))).json).toEqual({
        errors: [{ status: '403', code: 'FORBIDDEN', title: 'action read_stations not allowed' }],
      });
      // 403 comes before validation (D10).
      expect((await get('', keyFor('other'))).status).toBe(403);
    });
  });
});
