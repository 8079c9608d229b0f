import { v5 as uuidv5 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMPUTED_ID_NAMESPACE } from '../../src/domain/ids.js';
import type { StationRow } from '../../src/storage/snapshot.js';
import { call, keyFor, startTestApp, type TestApp } from '../helpers/server.js';
import { BOUYGUES, DANGLING, EMP_A, EMP_B, EMP_C, IZIVIA, allStations, fixtureSnapshot, seededDataDir } from './stations.fixture.js';

const cps = keyFor('cps');
const cs = keyFor('cs');
const id5 = (...parts: Array<string | number>): string => uuidv5(parts.join(':'), COMPUTED_ID_NAMESPACE);

describe('statistics over HTTP', () => {
  let srv: TestApp;
  let all: StationRow[];

  beforeAll(async () => {
    all = allStations();
    srv = await startTestApp({
      dataDir: await seededDataDir(),
      keys: { cps: 'ReadChargePointStatistics', cs: 'ReadCountryStatistics', reader: 'ReadStations', companies: 'ReadTariffs' },
      env: { SNAPSHOT: fixtureSnapshot() },
    });
  });
  afterAll(async () => {
    await srv.stop();
  });

  describe('GET /v1/charging_stations/statistics (D52)', () => {
    const expected = (countries: string[] | null) => {
      const m = new Map<string, { country: string; op: string; power: number; plug: string; count: number }>();
      for (const s of all) {
        if (s.operator_id === null || (countries !== null && !countries.includes(s.country))) continue;
        for (const c of s.charge_points) {
          if (c.count === 0) continue;
          const k = `${s.country}|${s.operator_id}|${c.power}|${c.plug}`;
          const x = m.get(k);
          if (x) x.count += c.count;
          else m.set(k, { country: s.country, op: s.operator_id, power: c.power, plug: c.plug, count: c.count });
        }
      }
      return [...m.values()]
        .map((x) => ({
          id: id5(x.country, x.op, x.power, x.plug),
          type: 'charge_point_statistics',
          attributes: { country: x.country, power: x.power, plug: x.plug, count: x.count },
          relationships: { operator: { data: x.op === DANGLING ? null : { type: 'company', id: x.op } } },
        }))
        .sort((a, b) => (a.id < b.id ? -1 : 1));
    };

    it('returns one record per (country, operator, power, plug), counts summed, by id, no paging', async () => {
      const r = await call(srv, 'GET', '/v1/charging_stations/statistics', { key: cps });
      expect(r.status).toBe(200);
      expect(r.json).toEqual({ data: expected(null) });
    });

    it('filter[country] (CSV, case-insensitive) keeps those countries', async () => {
      const r = await call(srv, 'GET', '/v1/charging_stations/statistics?filter[country]=dk', { key: cps });
      expect(r.json.data).toEqual(expected(['DK']));
      // Fixture DK: Izivia type2/22 = 2 (station 5; station 6 has count 0), ccs/150 = 2, type2/22 at station 1 = 1 → 3.
      const iz = r.json.data.filter((d: { relationships: { operator: { data: { id: string } | null } } }) => d.relationships.operator.data?.id === IZIVIA);
      expect(iz.map((d: { attributes: unknown }) => d.attributes)).toEqual(
        expect.arrayContaining([
          { country: 'DK', power: 22, plug: 'type2', count: 3 },
          { country: 'DK', power: 150, plug: 'ccs', count: 2 },
        ]),
      );
      expect(iz).toHaveLength(2);
    });

    it('include=operator adds each operator once with name and all its EVSE operator ids', async () => {
      const r = await call(srv, 'GET', '/v1/charging_stations/statistics?filter[country]=DK&include=operator', { key: cps });
      expect(r.json.data).toEqual(expected(['DK']));
      const inc = [...r.json.included].sort((a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : 1));
      const izEvse = [...new Set(['FR*A05', 'ZZ*ONE', ...all.filter((s) => s.operator_id === IZIVIA && s.evse_operator).map((s) => s.evse_operator!)])].sort();
      const byEvse = [...new Set(['FR*A15', ...all.filter((s) => s.operator_id === BOUYGUES && s.evse_operator).map((s) => s.evse_operator!)])].sort();
      expect(inc).toEqual(
        [
          { id: IZIVIA, type: 'company', attributes: { name: 'Izivia', external_source_mapping: { evse_operator_ids: izEvse } } },
          { id: BOUYGUES, type: 'company', attributes: { name: 'Bouygues E&S', external_source_mapping: { evse_operator_ids: byEvse } } },
        ].sort((a, b) => (a.id < b.id ? -1 : 1)),
      );
      expect(izEvse).toContain('DK*FIX');
    });

    it('400 without code for an unsupported include and an empty country list; 403 without code', async () => {
      const r = await call(srv, 'GET', '/v1/charging_stations/statistics?include=tariffs', { key: cps });
      expect(r.status).toBe(400);
      expect(r.json.errors).toEqual([{ status: '400', title: expect.any(String), source: { parameter: 'include' } }]);
      const r2 = await call(srv, 'GET', '/v1/charging_stations/statistics?filter[country]=', { key: cps });
      expect(r2.json.errors).toEqual([{ status: '400', title: expect.any(String), source: { parameter: 'filter[country]' } }]);
      const r3 = await call(srv, 'GET', '/v1/charging_stations/statistics', { key: keyFor('reader') });
      expect(r3.json).toEqual({ errors: [{ status: '403', title: 'action read_charge_point_statistics not allowed' }] });
      const r4 = await call(srv, 'GET', '/v1/charging_stations/statistics');
      expect(r4.json).toEqual({ errors: [{ status: '403', title: 'api_key missing' }] });
    });
  });

  describe('GET /v1/country_statistics (D53)', () => {
    const get = (qs: string, key = cs) => call(srv, 'GET', `/v1/country_statistics${qs}`, { key });

    it('the snapshot month (2022-12) is computed from the stations; DK from the fixtures, whole record', async () => {
      // emp_count oracle: D66 over every company of the live store (read through the company list).
      type C = { id: string; attributes: { is_emp: boolean }; relationships: { supported_emps: { data: { id: string }[] }; cpo_group: { data: { id: string } | null }; emp_group: { data: { id: string } | null } } };
      const companies: C[] = [];
      for (let page = 1; ; page++) {
        const r = await call(srv, 'GET', `/v1/companies?page[size]=100&page[number]=${page}`, { key: keyFor('companies') });
        companies.push(...(r.json.data as C[]));
        if (companies.length >= r.json.meta.overall_count) break;
      }
      const byId = new Map(companies.map((c) => [c.id, c]));
      const usable = (emp: C, cpoId: string): boolean => {
        const cpo = byId.get(cpoId);
        if (!cpo) return false;
        const g = cpo.relationships.cpo_group.data?.id ?? null;
        if (emp.id === cpoId || emp.id === g) return true;
        const h = emp.relationships.emp_group.data?.id ?? null;
        const s = new Set([...cpo.relationships.supported_emps.data.map((x) => x.id), ...(g && byId.get(g) ? byId.get(g)!.relationships.supported_emps.data.map((x) => x.id) : [])]);
        return s.has(emp.id) || (h !== null && s.has(h));
      };
      const expectedEmpCount = companies.filter((e) => e.attributes.is_emp && [IZIVIA, BOUYGUES, DANGLING].some((c) => usable(e, c))).length;
      // The fixture EMPs: Izivia supports EMP A (and EMP C through its emp_group), Bouygues supports EMP B.
      for (const e of [EMP_A, EMP_B, EMP_C]) expect(usable(byId.get(e)!, e === EMP_B ? BOUYGUES : IZIVIA)).toBe(true);
      const r = await get('?filter[country]=dk&filter[year]=2022&filter[month]=12');
      expect(r.json).toEqual({
        data: [
          {
            id: id5('DK', 2022, 12),
            type: 'country_statistics',
            attributes: {
              country: 'DK',
              year: 2022,
              month: 12,
              emp_count: expectedEmpCount,
              cpo_count: 3,
              charge_points: [
                { type: 'total', count: 13 },
                { type: 'ac', count: 9 },
                { type: 'dc', count: 1 },
                { type: 'hpc', count: 3 },
              ],
              top_cpos_by_charge_points: [
                { type: 'total', cpo_counts: [{ cpo_id: IZIVIA, count: 5 }, { cpo_id: BOUYGUES, count: 4 }, { cpo_id: DANGLING, count: 3 }] },
                { type: 'ac', cpo_counts: [{ cpo_id: BOUYGUES, count: 4 }, { cpo_id: IZIVIA, count: 3 }, { cpo_id: DANGLING, count: 2 }] },
                { type: 'dc', cpo_counts: [] },
                { type: 'hpc', cpo_counts: [{ cpo_id: IZIVIA, count: 2 }, { cpo_id: DANGLING, count: 1 }] },
              ],
            },
          },
        ],
        meta: { overall_count: 1 },
        links: expect.any(Object),
      });
    });

    it('XX combines all countries; counts match the stations', async () => {
      const r = await get('?filter[country]=XX&filter[year]=2022&filter[month]=12');
      const a = r.json.data[0].attributes;
      let ac = 0;
      let dc = 0;
      let hpc = 0;
      const ops = new Set<string>();
      const perType = [new Map<string, number>(), new Map<string, number>(), new Map<string, number>(), new Map<string, number>()];
      for (const s of all) {
        if (s.operator_id) ops.add(s.operator_id);
        for (const c of s.charge_points) {
          const t = c.energy_type === 'ac' ? 1 : c.power >= 150 ? 3 : 2;
          if (t === 1) ac += c.count;
          else if (t === 3) hpc += c.count;
          else dc += c.count;
          if (s.operator_id && c.count > 0) {
            for (const k of [0, t]) perType[k].set(s.operator_id, (perType[k].get(s.operator_id) ?? 0) + c.count);
          }
        }
      }
      const top = ['total', 'ac', 'dc', 'hpc'].map((type, k) => ({
        type,
        cpo_counts: [...perType[k]]
          .sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1))
          .slice(0, 15)
          .map(([cpo_id, count]) => ({ cpo_id, count })),
      }));
      expect(a.top_cpos_by_charge_points).toEqual(top);
      expect(a.charge_points).toEqual([
        { type: 'total', count: ac + dc + hpc },
        { type: 'ac', count: ac },
        { type: 'dc', count: dc },
        { type: 'hpc', count: hpc },
      ]);
      expect(a.cpo_count).toBe(ops.size);
    });

    it('returns stored history months with the current month, by id, with overall_count and paging', async () => {
      const r = await get('');
      const countries = ['DE', 'DK', 'FR', 'XX'];
      const expectedIds = [
        ...countries.map((c) => id5(c, 2022, 12)),
        id5('DE', 2022, 11),
        id5('XX', 2022, 11),
        id5('DE', 2021, 12),
      ].sort();
      expect(r.json.data.map((d: { id: string }) => d.id)).toEqual(expectedIds);
      expect(r.json.meta).toEqual({ overall_count: 7 });
      const hist = r.json.data.find((d: { id: string }) => d.id === id5('DE', 2021, 12));
      expect(hist.attributes).toMatchObject({ country: 'DE', year: 2021, month: 12, emp_count: 1, cpo_count: 20 });
      const p2 = await get('?page[size]=3&page[number]=2');
      expect(p2.json.data.map((d: { id: string }) => d.id)).toEqual(expectedIds.slice(3, 6));
      expect(p2.json.meta).toEqual({ overall_count: 7 });
      const p4 = await get('?page[size]=3&page[number]=4');
      expect(p4.json).toEqual({ data: [], meta: { overall_count: 7 }, links: expect.any(Object) });
    });

    it('filters by country, year and month', async () => {
      expect((await get('?filter[year]=2022&filter[month]=11')).json.data.map((d: { attributes: { country: string } }) => d.attributes.country).sort()).toEqual(['DE', 'XX']);
      expect((await get('?filter[country]=de')).json.meta.overall_count).toBe(3);
      expect((await get('?filter[year]=2021')).json.data).toHaveLength(1);
      expect((await get('?filter[country]=ZZ')).json).toEqual({ data: [], meta: { overall_count: 0 }, links: expect.any(Object) });
    });

    const bad: Array<[string, string]> = [
      ['?filter[month]=13', 'filter[month]'],
      ['?filter[month]=0', 'filter[month]'],
      ['?filter[year]=twenty', 'filter[year]'],
      ['?filter[country]=', 'filter[country]'],
      ['?page[size]=101', 'page[size]'],
      ['?page[number]=0', 'page[number]'],
    ];
    for (const [qs, parameter] of bad) {
      it(`when ${qs}, then 400 without code`, async () => {
        const r = await get(qs);
        expect(r.status).toBe(400);
        expect(r.json.errors).toEqual([{ status: '400', title: expect.any(String), source: { parameter } }]);
      });
    }

    it('403 without code for a key lacking ReadCountryStatistics', async () => {
      expect((await get('', keyFor('cps'))).json).toEqual({ errors: [{ status: '403', title: 'action read_country_statistics not allowed' }] });
    });
  });
});
