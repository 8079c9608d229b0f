import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLiveStoreReadonly } from '../../src/storage/open.js';
import { loadStationPrices } from '../../src/storage/tariffs.js';
import { call, keyFor, startTestApp, type TestApp } from '../helpers/server.js';

const TOTAL = 'ac96f6c4-8933-5e71-b606-46d3d63b8777'; // TOTALENERGIES (Paris Belib', FR*V75)
const W = keyFor('all');

describe('default tariff catalog seeded from the snapshot', () => {
  let srv: TestApp;
  let meta: any[];
  beforeAll(async () => {
    srv = await startTestApp({ keys: { all: 'all' } });
    meta = (await call(srv, 'GET', '/v1/tariffs', { key: W })).json.data;
  });
  afterAll(async () => {
    await srv.stop();
  });

  it('serves real CPO ad-hoc tariffs converted from the published OCPI tariffs', async () => {
    const direct = meta.filter((t) => t.attributes.is_direct_payment && /paiement direct/.test(t.attributes.name));
    expect(direct.length).toBeGreaterThanOrEqual(10);
    const total = direct.find((t) => t.relationships.emp.data.id === TOTAL);
    expect(total.attributes).toMatchObject({ provider: 'TOTALENERGIES', currency: 'EUR', total_monthly_fee: 0, charge_card_id: '0' });
    const raw = await call(srv, 'GET', `/v2/tariffs?filter[emp.id]=${TOTAL}`, { key: W });
    expect(raw.status).toBe(200);
    const t = raw.json.data[0];
    expect(t.attributes.notes).toContain('FR*V75_02_FLEX');
    expect(t.attributes.system_tags).toEqual(['ocpi_import']);
    // Belib' FLEX: 0.275 €/kWh + 1.90 €/h in 15-minute blocks up to 14 h (excl. VAT) → incl. 20 % VAT.
    const segs = t.attributes.prices.flatMap((c: any) => c.decomposition.map((s: any) => [s.dimension, s.range_gte, s.range_lt, s.billing_increment]));
    expect(segs).toEqual([
      ['minute', null, 840, 15],
      ['parking_minute', null, 840, 15],
      ['kwh', null, null, 1],
      ['minute', 840, null, 60],
      ['parking_minute', 840, null, 60],
    ]);
    expect(t.attributes.prices[0].decomposition[2].price).toBeCloseTo(0.33, 10);
    for (const c of t.attributes.prices) expect(c.restrictions[0]).toMatchObject({ allowance: 'allow', countries: ['FR'] });
  });

  it('attaches the linked stations’ tariffs as EVSE-level prices', async () => {
    const store = await openLiveStoreReadonly(srv);
    try {
      const sp = await store.read(loadStationPrices);
      // The test snapshot holds the Paris box, where the Belib' stations of TOTALENERGIES are.
      expect(sp.length).toBeGreaterThan(100);
      const totalTariff = meta.find((t) => t.relationships.emp.data.id === TOTAL).id;
      expect(sp.filter((p) => p.tariff_id === totalTariff).length).toBeGreaterThan(100);
      for (const p of sp.slice(0, 20)) expect(p.prices.length).toBeGreaterThan(0);
    } finally {
      await store.close();
    }
  });

  it('serves the clearly labelled synthetic EMP catalog with its variety', async () => {
    const synthetic = meta.filter((t) => / \(synthetic\)$/.test(t.attributes.provider));
    const emps = new Set(synthetic.map((t) => t.relationships.emp.data.id));
    expect(emps.size).toBeGreaterThanOrEqual(30);
    const currencies = new Set(synthetic.map((t) => t.attributes.currency));
    for (const c of ['EUR', 'CHF', 'GBP', 'DKK']) expect(currencies).toContain(c);
    expect(synthetic.some((t) => t.attributes.is_vehicle_brand_restricted)).toBe(true);
    expect(synthetic.some((t) => t.attributes.provider_customer_only)).toBe(true);
    expect(synthetic.some((t) => t.attributes.total_monthly_fee > 0)).toBe(true);
    const companies = await call(srv, 'GET', `/v1/companies?filter[id]=${[...emps].join(',')}`, { key: W });
    expect(companies.json.meta.overall_count).toBe(emps.size);
    expect(companies.json.data.every((c: any) => c.attributes.is_emp && / \(synthetic\)$/.test(c.attributes.name))).toBe(true);
    expect(companies.json.data.some((c: any) => c.relationships.emp_group.data !== null)).toBe(true);
    // Roaming relationships to real operators.
    const total = await call(srv, 'GET', `/v1/companies?filter[id]=${TOTAL}`, { key: W });
    expect(total.json.data[0].relationships.supported_emps.data.length).toBeGreaterThan(0);
    for (const e of total.json.data[0].relationships.supported_emps.data) expect(emps.has(e.id)).toBe(true);
  });

  it('every generated tariff passes the write validation: PUT back each of a few EMPs’ records as version 2', async () => {
    const emps = [...new Set(meta.map((t) => t.relationships.emp.data.id))].slice(0, 8);
    let n = 0;
    for (const emp of emps) {
      const raw = (await call(srv, 'GET', `/v2/tariffs?filter[emp.id]=${emp}`, { key: W })).json.data;
      // Tariffs before sub tariffs (a sub tariff needs its super tariff).
      for (const t of [...raw].sort((a: any, b: any) => (a.type === b.type ? 0 : a.type === 'tariff' ? -1 : 1))) {
        const { created_at: _c, updated_at: _u, ...attrs } = t.attributes;
        const r = await call(srv, 'PUT', `/v2/tariffs/${t.id}`, {
          key: W,
          body: { data: { id: t.id, type: t.type, attributes: { ...attrs, version: 2 }, relationships: t.relationships } },
        });
        expect(r.status, JSON.stringify(r.json)).toBe(200);
        expect(r.json.data.attributes.prices).toEqual(t.attributes.prices);
        n++;
      }
    }
    expect(n).toBeGreaterThan(8);
  });

  it('seeds only once: after a restart, API changes to seeded records are kept', async () => {
    const t = meta.find((x) => / \(synthetic\)$/.test(x.attributes.provider));
    const raw = (await call(srv, 'GET', `/v2/tariffs?filter[emp.id]=${t.relationships.emp.data.id}&filter[id]=${t.id}`, { key: W })).json.data[0];
    const { created_at: _c, updated_at: _u, ...attrs } = raw.attributes;
    const v = raw.attributes.version + 1;
    const r = await call(srv, 'PUT', `/v2/tariffs/${t.id}`, {
      key: W,
      body: { data: { id: t.id, type: raw.type, attributes: { ...attrs, name: 'Renamed by the API', version: v }, relationships: raw.relationships } },
    });
    expect(r.status).toBe(200);
    const before = (await call(srv, 'GET', '/v1/tariffs', { key: W })).json.data.length;
    const dataDir = srv.dataDir;
    await srv.stop();
    srv = await startTestApp({ dataDir });
    const after = (await call(srv, 'GET', '/v1/tariffs', { key: W })).json.data;
    expect(after.length).toBe(before);
    expect(after.find((x: any) => x.id === t.id).attributes.name).toBe('Renamed by the API');
  });
});
