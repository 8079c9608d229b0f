import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { computedId } from '../../src/domain/ids.js';
import { Snapshot } from '../../src/storage/snapshot.js';
import { call, keyFor, startTestApp, type TestApp } from '../helpers/server.js';
import { chargeBody, comp, putCompany, putTariff, ref, seg } from '../pool/price-fixtures.js';

const W = keyFor('writer');
const C = keyFor('costs');
const B = keyFor('bench');

describe('POST /v1/charge_prices', () => {
  let srv: TestApp;
  let rates: Record<string, number>;
  let emp: string;
  let cpo: string;
  let empName: string;
  const post = (body: unknown, headers: Record<string, string> = {}, key = C) =>
    call(srv, 'POST', '/v1/charge_prices', { key, body, headers });

  beforeAll(async () => {
    srv = await startTestApp({ keys: { writer: 'WriteTariffs,ReadTariffs', costs: 'ReadCosts', bench: 'ViewPriceBenchmark' } });
    const snap = Snapshot.open(inject('testSnapshot'));
    try {
      rates = snap.rates();
    } finally {
      snap.close();
    }
    empName = 'Aardvark Charge ' + randomUUID().slice(0, 4);
    emp = await putCompany(srv, W, { name: empName, url: 'https://emp.example/' });
    cpo = await putCompany(srv, W, { name: 'Test CPO', is_cpo: true, is_emp: false, supported_emps: [emp] });
  });
  afterAll(async () => {
    await srv.stop();
  });

  it('X1: one kWh tariff at a network-wide request gives the whole document with every default (D40, D87, D90)', async () => {
    const t = await putTariff(srv, W, emp, {
      attributes: { name: 'Basic', url: 'https://emp.example/basic', prices: [comp([seg('kwh', 0.39)])] },
    });
    const r = await post(chargeBody({ network: cpo, relationships: { tariffs: { data: [ref('tariff', t)] } } }));
    expect(r.status, r.text).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(r.json).toEqual({
      data: [
        {
          id: computedId('charge_price', t),
          type: 'charge_price',
          attributes: {
            provider: empName,
            tariff_name: 'Basic',
            url: 'https://emp.example/basic',
            monthly_min_sales: 0,
            total_monthly_fee: 0,
            flat_rate: false,
            direct_payment: false,
            is_card_payment: false,
            provider_customer_tariff: false,
            is_roaming: true,
            is_promoted: false,
            currency: 'EUR',
            tags: [],
            system_tags: [],
            start_time: 720,
            branding: null,
            charge_point_prices: [
              {
                plug: 'type2',
                power: 22,
                price: 8.58,
                price_distribution: { kwh: 1 },
                blocking_fee_start: null,
                no_price_reason: null,
                is_average_price: false,
              },
            ],
          },
          relationships: { tariff: { data: { type: 'tariff', id: t } } },
        },
      ],
      meta: { charge_points: [{ plug: 'type2', power: 22, duration: 60, energy: 22 }] },
    });
    expect(r.json.data[0].links).toBeUndefined();
  });

  it('X2, X3: late minute fee and three dimensions (D87, D88)', async () => {
    const x2 = await putTariff(srv, W, emp, { attributes: { prices: [comp([seg('kwh', 0.39), seg('minute', 0.1, { range_gte: 240 })])] } });
    const x3 = await putTariff(srv, W, emp, {
      attributes: { prices: [comp([seg('session', 0.35), seg('kwh', 0.5), seg('minute', 0.1, { range_gte: 60, range_lt: 180 })])] },
    });
    const r2 = await post(chargeBody({ network: cpo, relationships: { tariffs: { data: [ref('tariff', x2)] } } }));
    expect(r2.json.data[0].attributes.charge_point_prices[0]).toMatchObject({
      price: 8.58,
      price_distribution: { kwh: 1, minute: 0 },
      blocking_fee_start: 240,
    });
    const r3 = await post(
      chargeBody({ network: cpo, options: { energy: 30, duration: 90 }, relationships: { tariffs: { data: [ref('tariff', x3)] } } }),
    );
    expect(r3.json.data[0].attributes.charge_point_prices[0]).toEqual({
      plug: 'type2',
      power: 22,
      price: 18.35,
      price_distribution: { session: 0.019073569482288825, kwh: 0.8174386920980926, minute: 0.16348773841961853 },
      blocking_fee_start: 60,
      no_price_reason: null,
      is_average_price: false,
    });
    expect(r3.json.meta.charge_points).toEqual([{ plug: 'type2', power: 22, duration: 90, energy: 30 }]);
  });

  it('X6: a sub tariff for the CPO replaces only its dimension at matching charge points (D65, D71)', async () => {
    const sup = await putTariff(srv, W, emp, { attributes: { prices: [comp([seg('session', 1), seg('kwh', 0.5)])] } });
    await putTariff(srv, W, emp, {
      type: 'sub_tariff',
      attributes: { prices: [comp([seg('kwh', 0.4)], [{ allowance: 'allow', charge_point_energy_type: 'dc' }])] },
      relationships: { super_tariffs: { data: [ref('tariff', sup)] }, cpo: { data: ref('company', cpo) } },
    });
    const r = await post(
      chargeBody({
        network: cpo,
        charge_points: [{ plug: 'type2', power: 22 }, { plug: 'ccs', power: 50 }],
        options: { energy: 30, duration: 40 },
        relationships: { tariffs: { data: [ref('tariff', sup)] } },
      }),
    );
    expect(r.status).toBe(200);
    expect(r.json.data).toHaveLength(1);
    expect(r.json.data[0].relationships.tariff.data.id).toBe(sup);
    const [ac, dc] = r.json.data[0].attributes.charge_point_prices;
    expect(ac.price).toBe(16);
    expect(dc.price).toBe(13);
    expect(dc.price_distribution).toEqual({ session: 0.07692307692307693, kwh: 0.9230769230769231 });
  });

  it('converts prices and fees into the requested currency (D85, X7) and accepts a lower-case code', async () => {
    const t = await putTariff(srv, W, emp, {
      attributes: { currency: 'CHF', monthly_fee: 100, prices: [comp([seg('session', 30)])] },
    });
    const r = await post(chargeBody({ network: cpo, relationships: { tariffs: { data: [ref('tariff', t)] } } }));
    const a = r.json.data[0].attributes;
    expect(a.currency).toBe('EUR');
    expect(a.charge_point_prices[0].price).toBe((30 / rates.CHF) * 1);
    expect(a.total_monthly_fee).toBe((100 / rates.CHF) * 1);
    const r2 = await post(
      chargeBody({ network: cpo, options: { energy: 22, duration: 60, currency: 'chf' }, relationships: { tariffs: { data: [ref('tariff', t)] } } }),
    );
    expect(r2.json.data[0].attributes.currency).toBe('CHF');
    expect(r2.json.data[0].attributes.charge_point_prices[0].price).toBe(30);
  });

  describe('errors and check order (D10, D20, D36–D38)', () => {
    it('an unknown currency is 404 with the code as sent', async () => {
      const r = await post(chargeBody({ network: cpo, options: { energy: 1, duration: 1, currency: 'XyZ' } }));
      expect(r.status).toBe(404);
      expect(r.json).toEqual({ errors: [{ status: '404', code: 'NOT_FOUND', title: 'No currency with iso XyZ' }] });
    });

    it('an unknown vehicle is 400 with a pointer to the vehicle id', async () => {
      const body = chargeBody({ network: cpo, options: { battery_range: [20, 80] }, relationships: { vehicle: { data: ref('car', 'nope') } } });
      const r = await post(body);
      expect(r.status).toBe(400);
      expect(r.json).toEqual({
        errors: [{ status: '400', code: 'BAD_REQUEST', title: 'vehicle nope not found', source: { pointer: '/data/relationships/vehicle/data/id' } }],
      });
    });

    it('validation comes before the currency lookup, and the currency before the vehicle', async () => {
      const bad = chargeBody({
        network: cpo,
        options: { battery_range: [20, 80], currency: 'QQQ', start_time: 1440 },
        relationships: { vehicle: { data: ref('car', 'nope') } },
      });
      const r1 = await post(bad);
      expect(r1.status).toBe(400);
      expect(r1.json.errors[0].source.pointer).toBe('/data/attributes/options/start_time');
      delete bad.data.attributes.options.start_time;
      const r2 = await post(bad);
      expect(r2.status).toBe(404);
      bad.data.attributes.options.currency = 'EUR';
      const r3 = await post(bad);
      expect(r3.status).toBe(400);
      expect(r3.json.errors[0].title).toBe('vehicle nope not found');
    });

    it('when data_adapter names no adapter, then 400 whose detail names DATA_ADAPTER_ALIASES (D96)', async () => {
      const b = chargeBody({ network: cpo });
      b.data.attributes.data_adapter = 'chargeprice';
      const r = await post(b);
      expect(r.status, r.text).toBe(400);
      expect(r.json.errors[0].source).toEqual({ pointer: '/data/attributes/data_adapter' });
      expect(r.json.errors[0].title).toBe('/data/attributes/data_adapter must be one of native, ext_b, ext_c');
      expect(r.json.errors[0].detail).toContain('DATA_ADAPTER_ALIASES');
    });

    const cases: [string, (b: any) => void, string][] = [
      ['data_adapter missing', (b) => delete b.data.attributes.data_adapter, '/data/attributes/data_adapter'],
      ['data_adapter unknown', (b) => (b.data.attributes.data_adapter = 'other'), '/data/attributes/data_adapter'],
      ['station missing', (b) => delete b.data.attributes.station, '/data/attributes/station'],
      ['options missing', (b) => delete b.data.attributes.options, '/data/attributes/options'],
      ['longitude missing', (b) => delete b.data.attributes.station.longitude, '/data/attributes/station/longitude'],
      ['latitude a string', (b) => (b.data.attributes.station.latitude = '0'), '/data/attributes/station/latitude'],
      ['country missing', (b) => delete b.data.attributes.station.country, '/data/attributes/station/country'],
      ['native country not 2 letters', (b) => (b.data.attributes.station.country = 'DEU'), '/data/attributes/station/country'],
      ['network a number', (b) => (b.data.attributes.station.network = 5), '/data/attributes/station/network'],
      ['network null (= missing)', (b) => (b.data.attributes.station.network = null), '/data/attributes/station/network'],
      ['charge_points empty', (b) => (b.data.attributes.station.charge_points = []), '/data/attributes/station/charge_points'],
      ['charge point power negative', (b) => (b.data.attributes.station.charge_points[0].power = -1), '/data/attributes/station/charge_points/0/power'],
      ['charge point power missing', (b) => delete b.data.attributes.station.charge_points[0].power, '/data/attributes/station/charge_points/0/power'],
      ['charge point plug a number', (b) => (b.data.attributes.station.charge_points[0].plug = 2), '/data/attributes/station/charge_points/0/plug'],
      ['native plug outside D14', (b) => (b.data.attributes.station.charge_points[0].plug = 'Typ2'), '/data/attributes/station/charge_points/0/plug'],
      ['car_ac_phases 2', (b) => (b.data.attributes.options.car_ac_phases = 2), '/data/attributes/options/car_ac_phases'],
      ['start_time 1440', (b) => (b.data.attributes.options.start_time = 1440), '/data/attributes/options/start_time'],
      ['start_time -1', (b) => (b.data.attributes.options.start_time = -1), '/data/attributes/options/start_time'],
      ['start_time 1.5', (b) => (b.data.attributes.options.start_time = 1.5), '/data/attributes/options/start_time'],
      ['currency of 4 letters', (b) => (b.data.attributes.options.currency = 'EURO'), '/data/attributes/options/currency'],
      ['max_monthly_fees negative', (b) => (b.data.attributes.options.max_monthly_fees = -1), '/data/attributes/options/max_monthly_fees'],
      ['energy negative', (b) => (b.data.attributes.options.energy = -1), '/data/attributes/options/energy'],
      ['duration 0', (b) => (b.data.attributes.options.duration = 0), '/data/attributes/options/duration'],
      ['energy without duration', (b) => delete b.data.attributes.options.duration, '/data/attributes/options/duration'],
      ['duration without energy', (b) => delete b.data.attributes.options.energy, '/data/attributes/options/energy'],
      ['no input set', (b) => (b.data.attributes.options = {}), '/data/attributes/options'],
      ['both input sets', (b) => {
        b.data.attributes.options.battery_range = [10, 20];
        b.data.relationships = { vehicle: { data: { type: 'car', id: 'x' } } };
      }, '/data/attributes/options'],
      ['battery_range without vehicle', (b) => (b.data.attributes.options = { battery_range: [10, 20] }), '/data/relationships/vehicle'],
      ['vehicle without battery_range', (b) => {
        b.data.attributes.options = {};
        b.data.relationships = { vehicle: { data: { type: 'car', id: 'x' } } };
      }, '/data/attributes/options/battery_range'],
      ['battery_range start above end', (b) => {
        b.data.attributes.options = { battery_range: [80, 20] };
        b.data.relationships = { vehicle: { data: { type: 'car', id: 'x' } } };
      }, '/data/attributes/options/battery_range'],
      ['battery_range above 100', (b) => (b.data.attributes.options = { battery_range: [0, 101] }), '/data/attributes/options/battery_range/1'],
      ['battery_range of one value', (b) => (b.data.attributes.options = { battery_range: [1] }), '/data/attributes/options/battery_range'],
      ['boolean option as a string', (b) => (b.data.attributes.options.show_price_unavailable = 'true'), '/data/attributes/options/show_price_unavailable'],
      ['wrong data.type', (b) => (b.data.type = 'charge_price'), '/data/type'],
      ['include mode unknown', (b) => (b.data.relationships = { tariffs: { data: [], meta: { include: 'sometimes' } } }), '/data/relationships/tariffs/meta/include'],
      ['tariff reference of another type', (b) => (b.data.relationships = { tariffs: { data: [{ type: 'company', id: 'x' }] } }), '/data/relationships/tariffs/data/0/type'],
      ['vehicle reference of another type', (b) => {
        b.data.attributes.options = { battery_range: [10, 20] };
        b.data.relationships = { vehicle: { data: { type: 'truck', id: 'x' } } };
      }, '/data/relationships/vehicle/data/type'],
      ['data not an object', (b) => (b.data = []), '/data'],
    ];
    for (const [name, mutate, pointer] of cases) {
      it(`when ${name}, then 400 pointing at ${pointer}`, async () => {
        const b = chargeBody({ network: cpo });
        mutate(b);
        const r = await post(b);
        expect(r.status, r.text).toBe(400);
        expect(r.json.errors[0].code).toBe('BAD_REQUEST');
        expect(r.json.errors.map((e: any) => e.source?.pointer)).toContain(pointer);
      });
    }

    it('a missing key, an unknown key and a key without ReadCosts are 403 (D2)', async () => {
      const body = chargeBody({ network: cpo });
      const r1 = await call(srv, 'POST', '/v1/charge_prices', { body });
      expect(r1.status).toBe(403);
      expect(r1.json).toEqual({ errors: [{ status: '403', code: 'FORBIDDEN', title: 'api_key missing' }] });
      const r2 = await post(body, {}, 'wrong');
      expect(r2.json.errors[0].title).toBe('api_key invalid');
      const r3 = await post(body, {}, B);
      expect(r3.status).toBe(403);
      expect(r3.json.errors[0].title).toBe('action read_costs not allowed');
    });

    it('a network naming no company gives 200 with empty data (D19)', async () => {
      const r = await post(chargeBody({ network: randomUUID() }));
      expect(r.status).toBe(200);
      expect(r.json).toEqual({ data: [], meta: { charge_points: [{ plug: 'type2', power: 22, duration: 60, energy: 22 }] } });
    });

    it('the CRM-Device-ID header is accepted and ignored', async () => {
      const r = await post(chargeBody({ network: cpo }), { 'CRM-Device-ID': 'abc' });
      expect(r.status).toBe(200);
    });
  });
});
