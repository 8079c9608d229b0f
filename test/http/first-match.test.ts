/**
 * First-match tariffs over HTTP (D147–D149): an OCPI tariff converted by the importer's converter
 * and stored with PUT /v2/tariffs is priced by POST /v1/charge_prices as POST /v1/ocpi/cdr_cost
 * prices the same session; start_date picks the day; and every new field's bad input answers 400.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Snapshot } from '../../src/storage/snapshot.js';
import { ocpiToComponents, type OcpiTariff } from '../../src/domain/pricing/ocpi.js';
import { call, keyFor, startTestApp, type TestApp } from '../helpers/server.js';
import { randomCase } from '../domain/ocpi/agree-cases.js';
import { randomUUID } from 'node:crypto';
import { chargeBody, comp, putCompany, putTariff, ref, seg } from '../pool/price-fixtures.js';

const W = keyFor('writer');
const C = keyFor('costs');

/** Weekdays 0.30/kWh, weekends 0.40/kWh after 10 kWh free; 1.20/h after the first hour; a start fee by day; min 5, max 40 (incl. VAT). */
const OCPI: OcpiTariff = {
  currency: 'EUR',
  min_price: { excl_vat: 4.2, incl_vat: 5 },
  max_price: { excl_vat: 33.6, incl_vat: 40 },
  elements: [
    { price_components: [{ type: 'FLAT', price: 1, vat: 19, step_size: 1 }], restrictions: { start_time: '08:00', end_time: '20:00' } },
    { price_components: [{ type: 'FLAT', price: 0.5, vat: 19, step_size: 1 }] },
    { price_components: [{ type: 'ENERGY', price: 0, vat: 19, step_size: 1 }], restrictions: { max_kwh: 10 } },
    { price_components: [{ type: 'ENERGY', price: 0.4, vat: 19, step_size: 100 }], restrictions: { day_of_week: ['SATURDAY', 'SUNDAY'] } },
    { price_components: [{ type: 'ENERGY', price: 0.3, vat: 19, step_size: 100 }] },
    { price_components: [{ type: 'TIME', price: 1.2, vat: 19, step_size: 300 }], restrictions: { min_duration: 3600 } },
  ],
};

describe('first_match tariffs', () => {
  let srv: TestApp;
  let emp: string;
  let cpo: string;
  let tariff: string;
  beforeAll(async () => {
    srv = await startTestApp({ keys: { writer: 'WriteTariffs,ReadTariffs', costs: 'ReadCosts', bench: 'ViewPriceBenchmark' } });
    emp = await putCompany(srv, W, {});
    cpo = await putCompany(srv, W, { is_cpo: true, is_emp: false, supported_emps: [emp] });
    const conv = ocpiToComponents(OCPI);
    expect(conv.warnings).toEqual([]);
    tariff = await putTariff(srv, W, emp, {
      attributes: { prices: conv.prices.map((c) => ({ decomposition: c.decomposition.map(dropNulls) })), price_selection: 'first_match', min_price: conv.min_price, max_price: conv.max_price },
    });
  });
  afterAll(async () => {
    await srv.stop();
  });

  const chargePrice = async (options: Record<string, unknown>) => {
    const r = await call(srv, 'POST', '/v1/charge_prices', { key: C, body: chargeBody({ network: cpo, options, relationships: { tariffs: { data: [ref('tariff', tariff)] } } }) });
    expect(r.status, r.text).toBe(200);
    return r.json.data[0]?.attributes.charge_point_prices[0].price as number | undefined;
  };
  const cdrCost = async (start: string, kwh: number, minutes: number) => {
    const end = new Date(Date.parse(start) + minutes * 60_000).toISOString();
    const r = await call(srv, 'POST', '/v1/ocpi/cdr_cost', {
      key: C,
      body: { data: { type: 'ocpi_cdr_cost_request', attributes: { tariff: OCPI, cdr: { start_date_time: start, end_date_time: end, charging_periods: [{ start_date_time: start, dimensions: [{ type: 'ENERGY', volume: kwh }, { type: 'TIME', volume: minutes / 60 }] }] } } } },
    });
    expect(r.status, r.text).toBe(200);
    return r.json.data.attributes.total_cost.incl_vat as number;
  };

  it('stores and echoes price_selection, the bounds and the days', async () => {
    const r = await call(srv, 'GET', `/v2/tariffs?filter[emp.id]=${emp}`, { key: W });
    expect(r.status).toBe(200);
    const t = r.json.data.find((x: { id: string }) => x.id === tariff).attributes;
    expect([t.price_selection, t.min_price, t.max_price]).toEqual(['first_match', 5, 40]);
    expect(t.prices[3].decomposition[0].days_of_week).toEqual([6, 7]);
    expect('days_of_week' in t.prices[4].decomposition[0]).toBe(false);
  });

  it('lists the days of a segment in the tariff details', async () => {
    const r = await call(srv, 'POST', '/v1/tariff_details', {
      key: keyFor('bench'),
      body: { data: { attributes: { station: { country: 'DE', operator: { id: cpo, type: 'company' } } }, relationships: { tariffs: { data: [ref('tariff', tariff)] } } } },
    });
    expect(r.status, r.text).toBe(200);
    const segments = JSON.stringify(r.json);
    expect(segments).toContain('"days_of_week":[6,7]');
  });

  it('prices charges as cdr_cost prices their sessions: weekday, weekend, night, the minimum and the maximum', async () => {
    const cases: [string, string, number, number, number][] = [
      // [start_date, start time, kWh, minutes, ISO start]
      ['2024-06-03', '10:00', 30, 90, 0],
      ['2024-06-08', '10:00', 30, 90, 0],
      ['2024-06-09', '22:30', 45, 200, 0],
      ['2024-06-04', '09:00', 4, 20, 0],
      ['2024-06-05', '07:00', 95, 600, 0],
    ].map(([d, t, k, m]) => [d as string, t as string, k as number, m as number, 0]);
    const seen = new Set<number>();
    for (const [date, time, kwh, minutes] of cases) {
      const [h, m] = time.split(':').map(Number);
      const charge = await chargePrice({ energy: kwh, duration: minutes, start_time: h * 60 + m, start_date: date });
      const cost = await cdrCost(`${date}T${time}:00Z`, kwh, minutes);
      expect(Math.abs(charge! - cost), `${date} ${time}: ${charge} vs ${cost}`).toBeLessThanOrEqual(0.00005 + 1e-9);
      seen.add(Math.round(cost * 100));
    }
    expect(seen.size).toBe(cases.length);
    expect(await cdrCost('2024-06-04T09:00:00Z', 4, 20)).toBe(5);
    expect(await cdrCost('2024-06-05T07:00:00Z', 95, 600)).toBe(40);
  });

  it('without start_date, segments restricted to days do not apply', async () => {
    const weekday = await chargePrice({ energy: 30, duration: 90, start_time: 600, start_date: '2024-06-03' });
    const saturday = await chargePrice({ energy: 30, duration: 90, start_time: 600, start_date: '2024-06-08' });
    const unknown = await chargePrice({ energy: 30, duration: 90, start_time: 600 });
    expect(saturday).toBeGreaterThan(weekday!);
    expect(unknown).toBe(weekday);
  });

  it('answers 400 with a pointer for bad dates and misplaced or bad fields', async () => {
    const post = (options: Record<string, unknown>) => call(srv, 'POST', '/v1/charge_prices', { key: C, body: chargeBody({ network: cpo, options }) });
    for (const [date, status] of [['2024-02-30', 400], ['monday', 400], ['2024-13-01', 400], ['2024-02-29', 200]] as const) {
      const r = await post({ energy: 10, duration: 30, start_date: date });
      expect(r.status, `${date}: ${r.text}`).toBe(status);
      if (status === 400) expect(r.json.errors[0].source.pointer).toBe('/data/attributes/options/start_date');
    }
    const snap = Snapshot.open(inject('testSnapshot'));
    const [vehicle, station] = [snap.vehicles()[0].id, snap.stationColumns().ids.toString('latin1', 0, 36)];
    snap.close();
    const bulk = await call(srv, 'POST', '/v1/charge_prices/bulk', {
      key: C,
      body: { data: { type: 'bulk_price_preview_request', attributes: { battery_range: [10, 80], start_date: '2023-02-29' }, relationships: { charging_stations: { data: [ref('charging_station', station)] }, tariffs: { data: [ref('tariff', tariff)] }, vehicle: { data: ref('car', vehicle) } } } },
    });
    expect(bulk.status, bulk.text).toBe(400);
    expect(bulk.json.errors.map((e: { source?: { pointer: string } }) => e.source?.pointer)).toContain('/data/attributes/start_date');

    const put = (attributes: Record<string, unknown>, type = 'tariff', relationships: Record<string, unknown> = {}) => {
      const id = crypto.randomUUID();
      return call(srv, 'PUT', `/v2/tariffs/${id}`, {
        key: W,
        body: { data: { id, type, attributes: { ...(type === 'tariff' ? { name: 'n', currency: 'EUR' } : {}), version: 1, ...attributes }, relationships: { emp: { data: ref('company', emp) }, ...relationships } } },
      });
    };
    const days = (d: unknown) => ({ prices: [comp([seg('kwh', 0.3, { days_of_week: d })])] });
    const bad: [string, Promise<Awaited<ReturnType<typeof put>>>, string][] = [
      ['days without first_match', put(days([1])), '/data/attributes/prices/0/decomposition/0/days_of_week'],
      ['day 0', put({ ...days([0]), price_selection: 'first_match' }), '/data/attributes/prices/0/decomposition/0/days_of_week/0'],
      ['day twice', put({ ...days([2, 2]), price_selection: 'first_match' }), '/data/attributes/prices/0/decomposition/0/days_of_week'],
      ['no days', put({ ...days([]), price_selection: 'first_match' }), '/data/attributes/prices/0/decomposition/0/days_of_week'],
      ['min_price without first_match', put({ min_price: 1 }), '/data/attributes/min_price'],
      ['max below min', put({ price_selection: 'first_match', min_price: 5, max_price: 4 }), '/data/attributes/max_price'],
      ['negative bound', put({ price_selection: 'first_match', max_price: -1 }), '/data/attributes/max_price'],
      ['unknown selection', put({ price_selection: 'cheapest' }), '/data/attributes/price_selection'],
      ['on a sub tariff', put({ price_selection: 'first_match' }, 'sub_tariff', { super_tariffs: { data: [ref('tariff', tariff)] } }), '/data/attributes/price_selection'],
    ];
    for (const [name, pending, pointer] of bad) {
      const r = await pending;
      expect(r.status, `${name}: ${r.text}`).toBe(400);
      expect(r.json.errors.map((e: { source?: { pointer: string } }) => e.source?.pointer), name).toContain(pointer);
    }
  });
  it('stores every warning-free conversion of 300 seeded tariffs with dates, uneven ranges and bounds (D227)', async () => {
    let stored = 0;
    for (let seed = 1; seed <= 300; seed++) {
      const k = randomCase(seed, true);
      const conv = ocpiToComponents(k.ocpi, { sessionDate: k.sessionDate });
      if (conv.warnings.length > 0) continue;
      const id = randomUUID();
      const r = await call(srv, 'PUT', `/v2/tariffs/${id}`, {
        key: W,
        body: {
          data: {
            id,
            type: 'tariff',
            attributes: {
              name: `seed ${seed}`,
              currency: 'EUR',
              version: 1,
              price_selection: 'first_match',
              ...(conv.min_price !== null ? { min_price: conv.min_price } : {}),
              ...(conv.max_price !== null ? { max_price: conv.max_price } : {}),
              prices: conv.prices.map((c) => ({ decomposition: c.decomposition.map(dropNulls) })),
            },
            relationships: { emp: { data: ref('company', emp) } },
          },
        },
      });
      expect(r.status, `seed ${seed}: ${r.text.slice(0, 400)}`).toBe(201);
      stored++;
    }
    expect(stored).toBeGreaterThan(200);
  });
});

function dropNulls(s: object): object {
  return Object.fromEntries(Object.entries(s).filter(([, v]) => v !== null && v !== undefined));
}
