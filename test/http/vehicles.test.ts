import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, keyFor, startTestApp, type TestApp } from '../helpers/server.js';

const AIWAYS_U5_2021 = '72475a6a-aae2-da13-1d17-94cc07e5104f';
const AIWAYS = 'a43d2607-eead-46c2-9fd5-2ebd3c49d895';
const BMW = '0742668c-bf59-4191-890e-2b0883508808';
const BMW_X5 = '65dbdb2c-2dc1-55c8-2c64-52aa1a058bde';
const TESLA_MODEL_3 = ['7de25a64-e9fa-484f-bf99-d02b02cfb17d', '7dbad968-7058-4440-9c8f-8f483cdd973a', '93c82e06-1aa3-4c19-8f81-b9fac0c598c3'];

const U5_V2_BASIC = {
  id: AIWAYS_U5_2021,
  type: 'car',
  attributes: {
    ev_type: 'bev',
    model: 'U5',
    release_year: 2021,
    variant: '',
    usable_battery_size: 63,
    ac_phases: 1,
    ac_ports: ['type2'],
    ac_max_power: 6.6,
    dc_ports: ['ccs'],
    dc_max_power: 95,
    dc_default_charging_curve: false,
    energy_consumption: { average_consumption: 18.8 },
    dc_charge_ports: ['ccs'],
  },
  relationships: { manufacturer: { data: { type: 'vehicle_brand', id: AIWAYS } } },
};
const U5_FULL_EXTRA = {
  ac_power_per_charging_point: { '2.0': 2, '2.3': 2.3, '3.7': 3.7, '7.4': 6.6, '11.0': 3.7, '16.0': 5.4, '22.0': 6.6, '43.0': 6.6 },
  dc_charging_curve: [
    { percentage: 0, power: 95 },
    { percentage: 18, power: 90 },
    { percentage: 40, power: 90 },
    { percentage: 80, power: 50 },
    { percentage: 100, power: 6.6 },
  ],
};

const sortedIds = (xs: { id: string }[]): string[] => xs.map((x) => x.id);
const isSorted = (ids: string[]): boolean => ids.every((id, i) => i === 0 || ids[i - 1] < id);

describe('vehicles over HTTP', () => {
  let srv: TestApp;
  const reader = keyFor('reader');
  const full = keyFor('full');
  beforeAll(async () => {
    srv = await startTestApp({
      keys: { reader: 'ReadVehicles', full: 'ReadVehicles,ReadVehiclesFull', fullonly: 'ReadVehiclesFull', feedback: 'WriteUserFeedback' },
    });
  });
  afterAll(async () => {
    await srv.stop();
  });

  describe('GET /v1/vehicles (deprecated)', () => {
    it('when called, then all 293 cars of the data set by id in the v1 shape with a brand manufacturer', async () => {
      const r = await call(srv, 'GET', '/v1/vehicles', { key: reader });
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(Object.keys(r.json)).toEqual(['data']);
      expect(r.json.data).toHaveLength(293);
      expect(isSorted(sortedIds(r.json.data))).toBe(true);
      expect(r.json.data.find((v: { id: string }) => v.id === AIWAYS_U5_2021)).toEqual({
        id: AIWAYS_U5_2021,
        type: 'car',
        attributes: {
          name: 'U5 (2021)',
          brand: 'Aiways',
          dc_charge_ports: ['ccs'],
          usable_battery_size: 63,
          ac_max_power: 6.6,
          dc_max_power: 95,
        },
        relationships: { manufacturer: { data: { type: 'brand', id: AIWAYS } } },
      });
    });

    it('when a car has no DC charger, then dc_max_power is null and dc_charge_ports empty', async () => {
      const r = await call(srv, 'GET', '/v1/vehicles', { key: reader });
      expect(r.json.data.find((v: { id: string }) => v.id === BMW_X5)).toEqual({
        id: BMW_X5,
        type: 'car',
        attributes: {
          name: 'X5 xDrive25e (2020)',
          brand: 'BMW',
          dc_charge_ports: [],
          usable_battery_size: 22.2,
          ac_max_power: 3.7,
          dc_max_power: null,
        },
        relationships: { manufacturer: { data: { type: 'brand', id: BMW } } },
      });
      const noDc = r.json.data.filter((v: { attributes: { dc_max_power: number | null } }) => v.attributes.dc_max_power === null);
      expect(noDc).toHaveLength(119);
    });

    it('when a car has no release year, then the name holds model and variant only', async () => {
      const r = await call(srv, 'GET', '/v1/vehicles?page[size]=1', { key: reader });
      expect(r.json.data).toHaveLength(293);
      const m3 = r.json.data.find((v: { id: string }) => v.id === '7de25a64-e9fa-484f-bf99-d02b02cfb17d');
      expect(m3.attributes.name).toBe('Model 3 LR');
      expect(m3.attributes.brand).toBe('Tesla');
    });
  });

  describe('GET /v2/vehicle_brands', () => {
    it('when called, then all 38 brands sorted by name case-insensitively with overall_count', async () => {
      const r = await call(srv, 'GET', '/v2/vehicle_brands', { key: reader });
      expect(r.status).toBe(200);
      expect(r.json.meta).toEqual({ overall_count: 38 });
      expect(r.json.data).toHaveLength(38);
      const names = r.json.data.map((b: { attributes: { name: string } }) => b.attributes.name);
      expect(names.slice(0, 6)).toEqual(['Aiways', 'Artega', 'Audi', 'BMW', 'Chevrolet', 'Citroen']);
      expect(names.slice(-3)).toEqual(['Volkswagen', 'Volvo', 'Zero Motorcycles']);
      const lower = names.map((n: string) => n.toLowerCase());
      expect(isSorted(lower)).toBe(true);
      expect(names).toContain('e.GO Mobile');
      expect(names).toContain('smart');
      expect(r.json.data[0]).toEqual({ id: AIWAYS, type: 'vehicle_brand', attributes: { name: 'Aiways' } });
    });
  });

  describe('GET /v2/vehicles', () => {
    it('when called without parameters, then the first 100 cars by id, their brands included, overall_count 293', async () => {
      const r = await call(srv, 'GET', '/v2/vehicles', { key: reader });
      expect(r.status).toBe(200);
      expect(r.json.data).toHaveLength(100);
      expect(r.json.meta).toEqual({ overall_count: 293 });
      const ids = sortedIds(r.json.data);
      expect(isSorted(ids)).toBe(true);
      // included: each referenced brand once, in order of first reference
      const refs: string[] = [];
      for (const v of r.json.data) {
        const id = v.relationships.manufacturer.data.id;
        if (!refs.includes(id)) refs.push(id);
      }
      expect(r.json.included.map((b: { id: string }) => b.id)).toEqual(refs);
      for (const b of r.json.included) expect(b.type).toBe('vehicle_brand');
    });

    it('when paging, then pages follow each other by id; past the end data is empty', async () => {
      const all: string[] = [];
      for (const n of [1, 2, 3]) {
        const r = await call(srv, 'GET', `/v2/vehicles?page[size]=100&page[number]=${n}`, { key: reader });
        expect(r.status).toBe(200);
        expect(r.json.meta.overall_count).toBe(293);
        all.push(...sortedIds(r.json.data));
      }
      expect(all).toHaveLength(293);
      expect(new Set(all).size).toBe(293);
      expect(isSorted(all)).toBe(true);
      const past = await call(srv, 'GET', '/v2/vehicles?page[number]=4', { key: reader });
      expect(past.json).toEqual({ data: [], included: [], meta: { overall_count: 293 }, links: expect.any(Object) });
      const small = await call(srv, 'GET', '/v2/vehicles?page[size]=7&page[number]=2', { key: reader });
      expect(sortedIds(small.json.data)).toEqual(all.slice(7, 14));
    });

    it('when page[size] is over 100, zero or not an integer, then 400 naming the parameter', async () => {
      for (const [qs, param] of [
        ['page[size]=101', 'page[size]'],
        ['page[size]=0', 'page[size]'],
        ['page[size]=abc', 'page[size]'],
        ['page[number]=0', 'page[number]'],
      ]) {
        const r = await call(srv, 'GET', `/v2/vehicles?${qs}`, { key: reader });
        expect(r.status, qs).toBe(400);
        expect(r.json.errors[0]).toMatchObject({ status: '400', code: 'BAD_REQUEST', source: { parameter: param } });
      }
    });

    it('when the key lacks ReadVehiclesFull, then the whole record has no curve and no AC map', async () => {
      const r = await call(srv, 'GET', `/v2/vehicles?filter[id]=${AIWAYS_U5_2021}`, { key: reader });
      expect(r.json).toEqual({
        data: [U5_V2_BASIC],
        included: [{ id: AIWAYS, type: 'vehicle_brand', attributes: { name: 'Aiways' } }],
        meta: { overall_count: 1 },
        links: expect.any(Object),
      });
    });

    it('when the key also holds ReadVehiclesFull, then dc_charging_curve and ac_power_per_charging_point are added', async () => {
      const r = await call(srv, 'GET', `/v2/vehicles?filter[id]=${AIWAYS_U5_2021}`, { key: full });
      expect(r.json.data[0]).toEqual({ ...U5_V2_BASIC, attributes: { ...U5_V2_BASIC.attributes, ...U5_FULL_EXTRA } });
      expect(Object.keys(r.json.data[0].attributes)).toEqual([
        'ev_type', 'model', 'release_year', 'variant', 'usable_battery_size', 'ac_phases', 'ac_ports', 'ac_max_power',
        'ac_power_per_charging_point', 'dc_ports', 'dc_max_power', 'dc_charging_curve', 'dc_default_charging_curve',
        'energy_consumption', 'dc_charge_ports',
      ]);
    });

    it('when a car has no DC charger, then dc_max_power is null and the DC lists are empty', async () => {
      const r = await call(srv, 'GET', `/v2/vehicles?filter[id]=${BMW_X5}`, { key: full });
      expect(r.json.data[0].attributes).toMatchObject({
        ev_type: 'phev',
        model: 'X5',
        variant: 'xDrive25e',
        release_year: 2020,
        dc_ports: [],
        dc_max_power: null,
        dc_charging_curve: [],
        dc_default_charging_curve: false,
        dc_charge_ports: [],
      });
    });

    it('when ReadVehiclesFull is the only group, then 403 action read_vehicles not allowed', async () => {
      const r = await call(srv, 'GET', '/v2/vehicles', { key: keyFor('fullonly') });
      expect(r.status).toBe(403);
      expect(r.json).toEqual({ errors: [{ status: '403', code: 'FORBIDDEN', title: 'action read_vehicles not allowed' }] });
    });

    it('when filter[id] lists known, unknown, upper-case and non-UUID ids, then only the known ones by id', async () => {
      const r = await call(srv, 'GET', `/v2/vehicles?filter[id]=${BMW_X5.toUpperCase()}, nope ,00000000-0000-4000-8000-000000000000,${AIWAYS_U5_2021}`, {
        key: reader,
      });
      expect(r.status).toBe(200);
      expect(sortedIds(r.json.data)).toEqual([BMW_X5, AIWAYS_U5_2021]);
      expect(r.json.included.map((b: { id: string }) => b.id)).toEqual([BMW, AIWAYS]);
      expect(r.json.meta).toEqual({ overall_count: 2 });
    });

    it('when filter[id] names only unknown ids, then empty data', async () => {
      const r = await call(srv, 'GET', '/v2/vehicles?filter[id]=00000000-0000-4000-8000-000000000000', { key: reader });
      expect(r.json).toEqual({ data: [], included: [], meta: { overall_count: 0 }, links: expect.any(Object) });
    });

    it('when filter[manufacturer.id] names a brand, then exactly its cars; combined with filter[id] both apply', async () => {
      const r = await call(srv, 'GET', `/v2/vehicles?filter[manufacturer.id]=${AIWAYS}`, { key: reader });
      expect(r.json.data.length).toBeGreaterThan(0);
      for (const v of r.json.data) expect(v.relationships.manufacturer.data.id).toBe(AIWAYS);
      expect(r.json.included).toEqual([{ id: AIWAYS, type: 'vehicle_brand', attributes: { name: 'Aiways' } }]);
      const both = await call(srv, 'GET', `/v2/vehicles?filter[manufacturer.id]=${BMW}&filter[id]=${AIWAYS_U5_2021},${BMW_X5}`, { key: reader });
      expect(sortedIds(both.json.data)).toEqual([BMW_X5]);
    });

    it('when a filter is present but empty, then 400 naming it', async () => {
      for (const p of ['filter[id]', 'filter[manufacturer.id]']) {
        const r = await call(srv, 'GET', `/v2/vehicles?${p}=,`, { key: reader });
        expect(r.status).toBe(400);
        expect(r.json.errors[0].source).toEqual({ parameter: p });
      }
    });

    it('when fields[car] names members, then only those (id and type always); included only with manufacturer', async () => {
      const r = await call(srv, 'GET', `/v2/vehicles?filter[id]=${AIWAYS_U5_2021}&fields[car]=model,dc_charging_curve`, { key: full });
      expect(r.json).toEqual({
        data: [{ id: AIWAYS_U5_2021, type: 'car', attributes: { model: 'U5', dc_charging_curve: U5_FULL_EXTRA.dc_charging_curve } }],
        included: [],
        meta: { overall_count: 1 },
        links: expect.any(Object),
      });
      const noFull = await call(srv, 'GET', `/v2/vehicles?filter[id]=${AIWAYS_U5_2021}&fields[car]=model,dc_charging_curve,manufacturer`, {
        key: reader,
      });
      expect(noFull.json.data).toEqual([
        {
          id: AIWAYS_U5_2021,
          type: 'car',
          attributes: { model: 'U5' },
          relationships: { manufacturer: { data: { type: 'vehicle_brand', id: AIWAYS } } },
        },
      ]);
      expect(noFull.json.included).toEqual([{ id: AIWAYS, type: 'vehicle_brand', attributes: { name: 'Aiways' } }]);
    });

    it('when fields[car] names an unknown member, then 400', async () => {
      const r = await call(srv, 'GET', '/v2/vehicles?fields[car]=model,colour', { key: reader });
      expect(r.status).toBe(400);
      expect(r.json.errors[0]).toMatchObject({ code: 'BAD_REQUEST', source: { parameter: 'fields[car]' } });
    });

    describe('q (fuzzy search)', () => {
      const q = async (text: string, key = reader) => call(srv, 'GET', `/v2/vehicles?q=${encodeURIComponent(text)}`, { key });

      it('when q names brand and model, then exactly those cars, overall_count = results', async () => {
        const r = await q('tesla model 3');
        expect(r.status).toBe(200);
        expect(sortedIds(r.json.data).sort()).toEqual([...TESLA_MODEL_3].sort());
        expect(r.json.meta).toEqual({ overall_count: 3 });
        expect(r.json.included).toEqual([{ id: r.json.data[0].relationships.manufacturer.data.id, type: 'vehicle_brand', attributes: { name: 'Tesla' } }]);
      });

      it('when q differs in case and accents, then the same cars (Citroën ë-C4 both ways)', async () => {
        const a = await q('CITROËN E-C4');
        const b = await q('citroen ë-c4');
        expect(a.json.data.length).toBe(1);
        expect(a.json.data[0].attributes.model).toBe('ë-C4');
        expect(b.json.data).toEqual(a.json.data);
      });

      it('when q has typos or missing spaces, then it still finds the cars, exact matches first', async () => {
        const porsche = await q('porshe taycan');
        expect(porsche.json.data.length).toBeGreaterThan(0);
        for (const v of porsche.json.data) expect(v.attributes.model).toBe('Taycan');
        const vw = await q('volkwagen id3');
        expect(vw.json.data.slice(0, 3).map((v: { attributes: { model: string } }) => v.attributes.model)).toEqual(['ID.3', 'ID.3', 'ID.3']);
        const m3 = await q('model3');
        expect(m3.json.data.slice(0, 3).map((v: { id: string }) => v.id).sort()).toEqual([...TESLA_MODEL_3].sort());
      });

      it('when q matches many cars, then at most 25 results', async () => {
        const r = await q('e');
        expect(r.json.data).toHaveLength(25);
        expect(r.json.meta).toEqual({ overall_count: 25 });
        const p2 = await call(srv, 'GET', '/v2/vehicles?q=e&page[size]=10&page[number]=3', { key: reader });
        expect(sortedIds(p2.json.data)).toEqual(sortedIds(r.json.data).slice(20, 25));
      });

      it('when q matches nothing, then empty data', async () => {
        expect((await q('zzzzqqq')).json).toEqual({ data: [], included: [], meta: { overall_count: 0 }, links: expect.any(Object) });
      });

      it('when q is combined with any filter[...], then 400 naming q', async () => {
        for (const f of [`filter[id]=${AIWAYS_U5_2021}`, `filter[manufacturer.id]=${AIWAYS}`, 'filter[anything]=1']) {
          const r = await call(srv, 'GET', `/v2/vehicles?q=tesla&${f}`, { key: reader });
          expect(r.status, f).toBe(400);
          expect(r.json.errors[0]).toMatchObject({ status: '400', code: 'BAD_REQUEST', source: { parameter: 'q' } });
        }
      });

      it('when q is empty or blank, then 400', async () => {
        for (const v of ['', '%20%20']) {
          const r = await call(srv, 'GET', `/v2/vehicles?q=${v}`, { key: reader });
          expect(r.status).toBe(400);
          expect(r.json.errors[0].source).toEqual({ parameter: 'q' });
        }
      });

      it('when q results are served to a full key, then the extra attributes are present', async () => {
        const r = await q('aiways u5', full);
        expect(r.json.data.find((v: { id: string }) => v.id === AIWAYS_U5_2021)).toEqual({
          ...U5_V2_BASIC,
          attributes: { ...U5_V2_BASIC.attributes, ...U5_FULL_EXTRA },
        });
      });
    });
  });

  describe('403 per endpoint', () => {
    for (const path of ['/v1/vehicles', '/v2/vehicle_brands', '/v2/vehicles']) {
      it(`${path}: missing key, invalid key, wrong group`, async () => {
        const missing = await call(srv, 'GET', path);
        expect(missing.status).toBe(403);
        expect(missing.json).toEqual({ errors: [{ status: '403', code: 'FORBIDDEN', title: 'api_key missing' }] });
        const invalid = await call(srv, 'GET', path, { key: 'no-such-key-123' });
        expect(invalid.json).toEqual({ errors: [{ status: '403', code: 'FORBIDDEN', title: 'api_key invalid' }] });
        const wrong = await call(srv, 'GET', path, { key: keyFor('feedback') });
        expect(wrong.status).toBe(403);
        expect(wrong.json).toEqual({ errors: [{ status: '403', code: 'FORBIDDEN', title: 'action read_vehicles not allowed' }] });
      });
    }
  });
});
