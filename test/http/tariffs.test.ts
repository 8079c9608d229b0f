import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openLiveStoreReadonly } from '../../src/storage/open.js';
import { Snapshot } from '../../src/storage/snapshot.js';
import { changesSince, catalogGeneration } from '../../src/storage/tariffs.js';
import { call, keyFor, startTestApp, type TestApp } from '../helpers/server.js';

const W = keyFor('writer');
const R = keyFor('reader');
const S = keyFor('simple');

const ref = (type: string, id: string) => ({ type, id });

function tariffBody(id: string, emp: string, attrs: Record<string, unknown> = {}, rel: Record<string, unknown> = {}, type = 'tariff'): any {
  return {
    data: {
      id,
      type,
      attributes: { ...(type === 'tariff' ? { name: 'Tariff ' + id.slice(0, 6), currency: 'EUR' } : {}), version: 1, ...attrs },
      relationships: { emp: { data: ref('company', emp) }, ...rel },
    },
  };
}

const kwh = (price: number, extra: Record<string, unknown> = {}) => ({ dimension: 'kwh', price, ...extra });

describe('raw tariffs over HTTP', () => {
  let srv: TestApp;
  let emp: string;
  let cpo: string;
  let brand: string;
  beforeAll(async () => {
    srv = await startTestApp({
      keys: { writer: 'WriteTariffs,ReadTariffs', reader: 'ReadTariffs', simple: 'ReadSimpleTariffs', stations: 'ReadStations' },
    });
    const snap = Snapshot.open(inject('testSnapshot'));
    try {
      brand = snap.brands()[0].id;
      cpo = snap.operators()[0].id;
    } finally {
      snap.close();
    }
    emp = randomUUID();
    const r = await call(srv, 'PUT', `/v1/companies/${emp}`, {
      key: W,
      body: {
        data: {
          id: emp,
          type: 'company',
          attributes: { name: 'Tariff Test EMP', version: 1, is_cpo: false, is_emp: true, external_source_mapping: {} },
          relationships: { supported_emps: { data: [] } },
        },
      },
    });
    expect(r.status).toBe(201);
  });
  afterAll(async () => {
    await srv.stop();
  });

  const put = (id: string, body: unknown, key = W) => call(srv, 'PUT', `/v2/tariffs/${id}`, { key, body });
  const newEmp = async (): Promise<string> => {
    const id = randomUUID();
    const r = await call(srv, 'PUT', `/v1/companies/${id}`, {
      key: W,
      body: {
        data: {
          id,
          type: 'company',
          attributes: { name: 'EMP ' + id.slice(0, 6), version: 1, is_cpo: false, is_emp: true, external_source_mapping: {} },
          relationships: { supported_emps: { data: [] } },
        },
      },
    });
    expect(r.status).toBe(201);
    return id;
  };

  it('when a minimal tariff is created, then 201 with every attribute defaulted (D56, D58)', async () => {
    const id = randomUUID();
    const t0 = Date.now();
    const r = await put(id, tariffBody(id, emp, { name: 'Minimal', currency: 'eur' }));
    expect(r.status).toBe(201);
    const a = r.json.data.attributes;
    expect(a.created_at).toBeGreaterThanOrEqual(t0 - 5);
    expect(r.json).toEqual({
      data: {
        id,
        type: 'tariff',
        attributes: {
          name: 'Minimal',
          created_at: a.created_at,
          updated_at: a.created_at,
          version: 1,
          monthly_min_sales: 0,
          monthly_fee: 0,
          yearly_service_fee: 0,
          is_flat_rate: false,
          is_direct_payment: false,
          provider_customer_only: false,
          currency: 'EUR',
          notes: null,
          url: null,
          no_price_policy: 'inherit',
          no_price_reason: 'inherit',
          apply_prices_to_sub_tariff: null,
          supported_countries: [],
          tags: [],
          prices: [],
          is_card_payment: false,
          is_secondary_tariff: false,
          existing_customer_only: false,
          integration_status: 'complete',
          system_tags: [],
          branding: null,
          charge_card_id: null,
        },
        relationships: {
          vehicle_brands: { data: [] },
          super_tariffs: { data: [] },
          emp: { data: { type: 'company', id: emp } },
          cpo: { data: null },
        },
      },
    });
  });

  it('when a full tariff is created, then its prices, tags and extras are stored and echoed in array-of-objects form', async () => {
    const id = randomUUID();
    const attrs = {
      name: 'Full',
      currency: 'EUR',
      monthly_min_sales: 5,
      monthly_fee: 4.99,
      yearly_service_fee: 12,
      is_flat_rate: false,
      is_direct_payment: true,
      provider_customer_only: true,
      notes: 'some notes',
      url: 'https://t.example/{locale}',
      no_price_policy: 'show_reason',
      no_price_reason: 'not_public',
      apply_prices_to_sub_tariff: true,
      supported_countries: ['de', 'AT'],
      tags: [{ kind: 'info', localized_text: { en: 'Hello', de: 'Hallo' }, url: 'https://x/{locale}', show_until: 1999999999999, hide_for_owners: true }],
      prices: [
        {
          restrictions: [
            { allowance: 'allow', charge_point_powers: [50, 350], charge_point_power_is_range: true, charge_point_energy_type: 'dc', countries: ['de'], cpo_ids: [cpo], car_ac_phase: 3, use_consumed_charging_power: true },
            { allowance: 'deny', charge_point_powers: [22] },
          ],
          decomposition: [
            kwh(0.59),
            { dimension: 'minute', price: 0.1, range_gte: 240, billing_increment: 1, time_of_day_start: 1320, time_of_day_end: 360, is_average_price: true, occupancy_gte: 10, occupancy_lt: 90 },
            { dimension: 'session', price: 1, currency: 'EUR' },
          ],
        },
        { decomposition: [{ dimension: 'kwh', price: 0.5, currency: 'chf' }] },
      ],
      is_card_payment: true,
      is_secondary_tariff: true,
      existing_customer_only: true,
      integration_status: 'pending',
      system_tags: ['a', 'b'],
      branding: { background_color: '#000', text_color: '#fff', logo_url: 'https://logo' },
      charge_card_id: 1234,
    };
    const r = await put(id, tariffBody(id, emp, attrs, { vehicle_brands: { data: [ref('brand', brand)] } }));
    expect(r.status).toBe(201);
    const a = r.json.data.attributes;
    expect(a.supported_countries).toEqual(['DE', 'AT']);
    expect(a.tags).toEqual(attrs.tags);
    expect(a.charge_card_id).toBe('1234');
    expect(a.prices).toEqual([
      {
        restrictions: [
          { allowance: 'allow', charge_point_powers: [50, 350], charge_point_energy_type: 'dc', cpo_ids: [cpo], countries: ['DE'], car_ac_phase: 3, charge_point_power_is_range: true, use_consumed_charging_power: false },
          { allowance: 'deny', charge_point_powers: [22], charge_point_energy_type: null, cpo_ids: [], countries: [], car_ac_phase: null, charge_point_power_is_range: false, use_consumed_charging_power: false },
        ],
        decomposition: [
          { dimension: 'kwh', price: 0.59, range_gte: null, range_lt: null, billing_increment: null, currency: null, time_of_day_start: null, time_of_day_end: null, is_average_price: false, occupancy_gte: null, occupancy_lt: null },
          { dimension: 'minute', price: 0.1, range_gte: 240, range_lt: null, billing_increment: 1, currency: null, time_of_day_start: 1320, time_of_day_end: 360, is_average_price: true, occupancy_gte: 10, occupancy_lt: 90 },
          { dimension: 'session', price: 1, range_gte: null, range_lt: null, billing_increment: null, currency: 'EUR', time_of_day_start: null, time_of_day_end: null, is_average_price: false, occupancy_gte: null, occupancy_lt: null },
        ],
      },
      {
        restrictions: [],
        decomposition: [
          { dimension: 'kwh', price: 0.5, range_gte: null, range_lt: null, billing_increment: null, currency: 'CHF', time_of_day_start: null, time_of_day_end: null, is_average_price: false, occupancy_gte: null, occupancy_lt: null },
        ],
      },
    ]);
    for (const k of ['monthly_min_sales', 'monthly_fee', 'yearly_service_fee', 'is_direct_payment', 'provider_customer_only', 'notes', 'url', 'no_price_policy', 'no_price_reason', 'apply_prices_to_sub_tariff', 'is_card_payment', 'is_secondary_tariff', 'existing_customer_only', 'integration_status', 'system_tags', 'branding'] as const) {
      expect(a[k]).toEqual((attrs as any)[k]);
    }
    expect(r.json.data.relationships.vehicle_brands).toEqual({ data: [{ type: 'brand', id: brand }] });
  });

  describe('sub tariffs', () => {
    it('when a sub_tariff names a super tariff and a CPO, then 201 with the super currency as default', async () => {
      const sup = randomUUID();
      expect((await put(sup, tariffBody(sup, emp, { currency: 'CHF' }))).status).toBe(201);
      const sub = randomUUID();
      const r = await put(
        sub,
        tariffBody(sub, emp, { prices: [{ decomposition: [kwh(0.4)] }] }, { super_tariffs: { data: [ref('tariff', sup)] }, cpo: { data: ref('company', cpo) } }, 'sub_tariff'),
      );
      expect(r.status).toBe(201);
      expect(r.json.data.type).toBe('sub_tariff');
      expect(r.json.data.attributes.name).toBeNull();
      expect(r.json.data.attributes.currency).toBe('CHF');
      expect(r.json.data.relationships.super_tariffs).toEqual({ data: [{ type: 'tariff', id: sup }] });
      expect(r.json.data.relationships.cpo).toEqual({ data: { type: 'company', id: cpo } });
    });

    it('when a sub_tariff has a name, then 400 (rule 2)', async () => {
      const sup = randomUUID();
      await put(sup, tariffBody(sup, emp));
      const sub = randomUUID();
      const r = await put(sub, tariffBody(sub, emp, { name: 'Named' }, { super_tariffs: { data: [ref('tariff', sup)] } }, 'sub_tariff'));
      expect(r.status).toBe(400);
      expect(r.json.errors).toEqual([{ status: '400', title: 'name must be null for a sub_tariff', source: { pointer: '/data/attributes/name' } }]);
    });

    it('when a sub_tariff has no super tariffs, then 400', async () => {
      const sub = randomUUID();
      const r = await put(sub, tariffBody(sub, emp, {}, {}, 'sub_tariff'));
      expect(r.status).toBe(400);
      expect(r.json.errors[0].source.pointer).toBe('/data/relationships/super_tariffs');
    });

    it('when a tariff has super_tariffs or a cpo, then 400 (rule 3)', async () => {
      const sup = randomUUID();
      await put(sup, tariffBody(sup, emp));
      const id = randomUUID();
      const a = await put(id, tariffBody(id, emp, {}, { super_tariffs: { data: [ref('tariff', sup)] } }));
      expect(a.status).toBe(400);
      expect(a.json.errors[0].source.pointer).toBe('/data/relationships/super_tariffs');
      const b = await put(id, tariffBody(id, emp, {}, { cpo: { data: ref('company', cpo) } }));
      expect(b.status).toBe(400);
      expect(b.json.errors[0].source.pointer).toBe('/data/relationships/cpo');
      // an explicit null cpo and an empty super_tariffs list are fine
      const c = await put(id, tariffBody(id, emp, {}, { cpo: { data: null }, super_tariffs: { data: [] } }));
      expect(c.status).toBe(201);
    });

    it('when a super tariff is a sub_tariff or unknown, then 400 pointing at it', async () => {
      const sup = randomUUID();
      await put(sup, tariffBody(sup, emp));
      const sub = randomUUID();
      expect((await put(sub, tariffBody(sub, emp, {}, { super_tariffs: { data: [ref('tariff', sup)] } }, 'sub_tariff'))).status).toBe(201);
      const sub2 = randomUUID();
      const missing = randomUUID();
      const r = await put(sub2, tariffBody(sub2, emp, {}, { super_tariffs: { data: [ref('tariff', sup), ref('tariff', sub), ref('tariff', missing)] } }, 'sub_tariff'));
      expect(r.status).toBe(400);
      expect(r.json.errors).toEqual([
        { status: '400', title: `tariff ${sub} not found`, source: { pointer: '/data/relationships/super_tariffs/data/1/id' } },
        { status: '400', title: `tariff ${missing} not found`, source: { pointer: '/data/relationships/super_tariffs/data/2/id' } },
      ]);
    });

    it('when a stored tariff is PUT as a sub_tariff, then 400 (a record never changes type)', async () => {
      const sup = randomUUID();
      await put(sup, tariffBody(sup, emp));
      const id = randomUUID();
      await put(id, tariffBody(id, emp));
      const r = await put(id, tariffBody(id, emp, { version: 2, name: undefined }, { super_tariffs: { data: [ref('tariff', sup)] } }, 'sub_tariff'));
      expect(r.status).toBe(400);
      expect(r.json.errors[0].source.pointer).toBe('/data/type');
    });
  });

  describe('versions', () => {
    it('create needs version 1, update the stored version + 1, else 409 without code and nothing changes', async () => {
      const id = randomUUID();
      expect((await put(id, tariffBody(id, emp, { version: 2 }))).status).toBe(409);
      const c = await put(id, tariffBody(id, emp, { name: 'V1' }));
      expect(c.status).toBe(201);
      for (const v of [1, 3]) {
        const r = await put(id, tariffBody(id, emp, { name: 'Bad', version: v }));
        expect(r.status).toBe(409);
        expect(r.json).toEqual({ errors: [{ status: '409', title: 'Version conflict' }] });
      }
      const u = await put(id, tariffBody(id, emp, { name: 'V2', version: 2 }));
      expect(u.status).toBe(200);
      expect(u.json.data.attributes).toMatchObject({ name: 'V2', version: 2, created_at: c.json.data.attributes.created_at });
      const l = await call(srv, 'GET', `/v2/tariffs?filter[emp.id]=${emp}&filter[id]=${id}`, { key: R });
      expect(l.json.data[0].attributes.name).toBe('V2');
    });

    it('when two PUTs with the same version race, then exactly one wins', async () => {
      const id = randomUUID();
      const [a, b] = await Promise.all([put(id, tariffBody(id, emp, { name: 'A' })), put(id, tariffBody(id, emp, { name: 'B' }))]);
      expect([a.status, b.status].sort()).toEqual([201, 409]);
      const [c, d] = await Promise.all([
        put(id, tariffBody(id, emp, { name: 'C', version: 2 })),
        put(id, tariffBody(id, emp, { name: 'D', version: 2 })),
      ]);
      expect([c.status, d.status].sort()).toEqual([200, 409]);
      const l = await call(srv, 'GET', `/v2/tariffs?filter[emp.id]=${emp}&filter[id]=${id}`, { key: R });
      expect(l.json.data[0].attributes).toMatchObject({ version: 2, name: c.status === 200 ? 'C' : 'D' });
    });
  });

  describe('validation (400, no code)', () => {
    const cases: Array<[string, (b: any) => void, string]> = [
      ['version missing', (b) => delete b.data.attributes.version, '/data/attributes/version'],
      ['version a string', (b) => (b.data.attributes.version = 'one'), '/data/attributes/version'],
      ['name missing on a tariff', (b) => delete b.data.attributes.name, '/data/attributes/name'],
      ['name null on a tariff', (b) => (b.data.attributes.name = null), '/data/attributes/name'],
      ['currency missing on a tariff', (b) => delete b.data.attributes.currency, '/data/attributes/currency'],
      ['currency not in the rate table', (b) => (b.data.attributes.currency = 'XYZ'), '/data/attributes/currency'],
      ['currency malformed', (b) => (b.data.attributes.currency = 'EURO'), '/data/attributes/currency'],
      ['emp missing', (b) => delete b.data.relationships.emp, '/data/relationships/emp'],
      ['emp unknown', (b) => (b.data.relationships.emp.data.id = randomUUID()), '/data/relationships/emp/data/id'],
      ['emp of the wrong type', (b) => (b.data.relationships.emp.data.type = 'tariff'), '/data/relationships/emp/data/type'],
      ['vehicle brand unknown', (b) => (b.data.relationships.vehicle_brands = { data: [ref('brand', 'no-such-brand')] }), '/data/relationships/vehicle_brands/data/0/id'],
      ['type unknown', (b) => (b.data.type = 'company'), '/data/type'],
      ['id not a UUID', (b) => (b.data.id = 'abc'), '/data/id'],
      ['monthly_fee negative', (b) => (b.data.attributes.monthly_fee = -1), '/data/attributes/monthly_fee'],
      ['is_flat_rate a string', (b) => (b.data.attributes.is_flat_rate = 'true'), '/data/attributes/is_flat_rate'],
      ['no_price_policy unknown', (b) => (b.data.attributes.no_price_policy = 'maybe'), '/data/attributes/no_price_policy'],
      ['no_price_reason unknown', (b) => (b.data.attributes.no_price_reason = 'price_per_station'), '/data/attributes/no_price_reason'],
      ['integration_status unknown', (b) => (b.data.attributes.integration_status = 'done'), '/data/attributes/integration_status'],
      ['supported_countries not codes', (b) => (b.data.attributes.supported_countries = ['Germany']), '/data/attributes/supported_countries/0'],
      ['tag without kind', (b) => (b.data.attributes.tags = [{ localized_text: { en: 'x' } }]), '/data/attributes/tags/0/kind'],
      ['tag with empty kind', (b) => (b.data.attributes.tags = [{ kind: '', localized_text: { en: 'x' } }]), '/data/attributes/tags/0/kind'],
      ['tag without localized_text', (b) => (b.data.attributes.tags = [{ kind: 'info' }]), '/data/attributes/tags/0/localized_text'],
      ['tag text not a string', (b) => (b.data.attributes.tags = [{ kind: 'info', localized_text: { en: 5 } }]), '/data/attributes/tags/0/localized_text/en'],
      ['prices not an array', (b) => (b.data.attributes.prices = { decomposition: [] }), '/data/attributes/prices'],
      ['component without decomposition', (b) => (b.data.attributes.prices = [{ restrictions: [] }]), '/data/attributes/prices/0/decomposition'],
      ['restriction without allowance', (b) => (b.data.attributes.prices = [{ restrictions: [{ countries: ['DE'] }], decomposition: [kwh(1)] }]), '/data/attributes/prices/0/restrictions/0/allowance'],
      ['allowance unknown', (b) => (b.data.attributes.prices = [{ restrictions: [{ allowance: 'maybe' }], decomposition: [kwh(1)] }]), '/data/attributes/prices/0/restrictions/0/allowance'],
      ['energy type unknown', (b) => (b.data.attributes.prices = [{ restrictions: [{ allowance: 'allow', charge_point_energy_type: 'hv' }], decomposition: [kwh(1)] }]), '/data/attributes/prices/0/restrictions/0/charge_point_energy_type'],
      ['power range with three values', (b) => (b.data.attributes.prices = [{ restrictions: [{ allowance: 'allow', charge_point_powers: [1, 2, 3], charge_point_power_is_range: true }], decomposition: [kwh(1)] }]), '/data/attributes/prices/0/restrictions/0/charge_point_powers'],
      ['power range reversed', (b) => (b.data.attributes.prices = [{ restrictions: [{ allowance: 'allow', charge_point_powers: [50, 22], charge_point_power_is_range: true }], decomposition: [kwh(1)] }]), '/data/attributes/prices/0/restrictions/0/charge_point_powers'],
      ['power range without powers', (b) => (b.data.attributes.prices = [{ restrictions: [{ allowance: 'allow', charge_point_power_is_range: true }], decomposition: [kwh(1)] }]), '/data/attributes/prices/0/restrictions/0/charge_point_powers'],
      ['dimension unknown', (b) => (b.data.attributes.prices = [{ decomposition: [{ dimension: 'hour', price: 1 }] }]), '/data/attributes/prices/0/decomposition/0/dimension'],
      ['price missing', (b) => (b.data.attributes.prices = [{ decomposition: [{ dimension: 'kwh' }] }]), '/data/attributes/prices/0/decomposition/0/price'],
      ['price a string', (b) => (b.data.attributes.prices = [{ decomposition: [{ dimension: 'kwh', price: '0.3' }] }]), '/data/attributes/prices/0/decomposition/0/price'],
      ['price negative', (b) => (b.data.attributes.prices = [{ decomposition: [kwh(-0.1)] }]), '/data/attributes/prices/0/decomposition/0/price'],
      ['range_gte fractional', (b) => (b.data.attributes.prices = [{ decomposition: [kwh(1, { range_gte: 1.5 })] }]), '/data/attributes/prices/0/decomposition/0/range_gte'],
      ['range_lt <= range_gte', (b) => (b.data.attributes.prices = [{ decomposition: [kwh(1, { range_gte: 10, range_lt: 10 })] }]), '/data/attributes/prices/0/decomposition/0/range_lt'],
      ['billing_increment 0', (b) => (b.data.attributes.prices = [{ decomposition: [kwh(1, { billing_increment: 0 })] }]), '/data/attributes/prices/0/decomposition/0/billing_increment'],
      ['only time_of_day_start', (b) => (b.data.attributes.prices = [{ decomposition: [kwh(1, { time_of_day_start: 60 })] }]), '/data/attributes/prices/0/decomposition/0/time_of_day_end'],
      ['only time_of_day_end', (b) => (b.data.attributes.prices = [{ decomposition: [kwh(1, { time_of_day_end: 60 })] }]), '/data/attributes/prices/0/decomposition/0/time_of_day_start'],
      ['time_of_day_start 1440', (b) => (b.data.attributes.prices = [{ decomposition: [kwh(1, { time_of_day_start: 1440, time_of_day_end: 60 })] }]), '/data/attributes/prices/0/decomposition/0/time_of_day_start'],
      ['time_of_day_end 1441', (b) => (b.data.attributes.prices = [{ decomposition: [kwh(1, { time_of_day_start: 0, time_of_day_end: 1441 })] }]), '/data/attributes/prices/0/decomposition/0/time_of_day_end'],
      ['entry currency unknown', (b) => (b.data.attributes.prices = [{ decomposition: [kwh(1, { currency: 'ABC' })] }]), '/data/attributes/prices/0/decomposition/0/currency'],
      ['mixed currencies in one component', (b) => (b.data.attributes.prices = [{ decomposition: [kwh(1), kwh(2, { currency: 'GBP' })] }]), '/data/attributes/prices/0/decomposition/1/currency'],
      ['occupancy out of range', (b) => (b.data.attributes.prices = [{ decomposition: [kwh(1, { occupancy_gte: 101 })] }]), '/data/attributes/prices/0/decomposition/0/occupancy_gte'],
      ['occupancy_lt <= occupancy_gte', (b) => (b.data.attributes.prices = [{ decomposition: [kwh(1, { occupancy_gte: 50, occupancy_lt: 20 })] }]), '/data/attributes/prices/0/decomposition/0/occupancy_lt'],
      ['too many components', (b) => (b.data.attributes.prices = Array.from({ length: 201 }, () => ({ decomposition: [kwh(1)] }))), '/data/attributes/prices'],
      ['name too long', (b) => (b.data.attributes.name = 'x'.repeat(201)), '/data/attributes/name'],
    ];
    it.each(cases)('when %s, then 400 pointing at it and nothing is stored', async (_n, mutate, pointer) => {
      const id = randomUUID();
      const b = tariffBody(id, emp);
      mutate(b);
      const r = await put(id, b);
      expect(r.status).toBe(400);
      expect(r.json.errors.map((e: any) => e.source?.pointer)).toContain(pointer);
      for (const e of r.json.errors) {
        expect(e.status).toBe('400');
        expect(e).not.toHaveProperty('code');
      }
      const l = await call(srv, 'GET', `/v2/tariffs?filter[emp.id]=${emp}&filter[id]=${id}`, { key: R });
      expect(l.json.data).toEqual([]);
    });

    it('accepts different currencies in different components, and an entry currency equal to the tariff currency', async () => {
      const id = randomUUID();
      const r = await put(
        id,
        tariffBody(id, emp, {
          currency: 'EUR',
          prices: [{ decomposition: [kwh(1), kwh(2, { currency: 'EUR' })] }, { decomposition: [kwh(1, { currency: 'DKK' }), { dimension: 'session', price: 3, currency: 'dkk' }] }],
        }),
      );
      expect(r.status).toBe(201);
    });

    it('when data.id differs from the path, then 400', async () => {
      const r = await put(randomUUID(), tariffBody(randomUUID(), emp));
      expect(r.status).toBe(400);
      expect(r.json.errors).toEqual([{ status: '400', title: 'data.id must equal the tariff id of the path', source: { pointer: '/data/id' } }]);
    });

    it('when the body is malformed JSON, then 400 without code', async () => {
      const r = await call(srv, 'PUT', `/v2/tariffs/${randomUUID()}`, { key: W, raw: '{"data":' });
      expect(r.status).toBe(400);
      expect(r.json.errors[0]).not.toHaveProperty('code');
    });

    it('when the cpo of a sub_tariff is unknown, then 400 pointing at it', async () => {
      const sup = randomUUID();
      await put(sup, tariffBody(sup, emp));
      const sub = randomUUID();
      const r = await put(sub, tariffBody(sub, emp, {}, { super_tariffs: { data: [ref('tariff', sup)] }, cpo: { data: ref('company', randomUUID()) } }, 'sub_tariff'));
      expect(r.status).toBe(400);
      expect(r.json.errors[0].source.pointer).toBe('/data/relationships/cpo/data/id');
    });
  });

  describe('delete', () => {
    it('unknown → 404 tariff <id> without code', async () => {
      const id = randomUUID();
      const r = await call(srv, 'DELETE', `/v2/tariffs/${id}`, { key: W });
      expect(r.status).toBe(404);
      expect(r.json).toEqual({ errors: [{ status: '404', title: `tariff ${id}` }] });
    });

    it('a super tariff with sub tariffs → 400; the sub tariff can go, then the super tariff', async () => {
      const sup = randomUUID();
      await put(sup, tariffBody(sup, emp));
      const sub = randomUUID();
      await put(sub, tariffBody(sub, emp, {}, { super_tariffs: { data: [ref('tariff', sup)] } }, 'sub_tariff'));
      const a = await call(srv, 'DELETE', `/v2/tariffs/${sup}`, { key: W });
      expect(a.status).toBe(400);
      expect(a.json.errors[0]).not.toHaveProperty('code');
      expect((await call(srv, 'DELETE', `/v2/tariffs/${sub}`, { key: W })).status).toBe(204);
      const b = await call(srv, 'DELETE', `/v2/tariffs/${sup}`, { key: W });
      expect(b.status).toBe(204);
      expect(b.text).toBe('');
      const l = await call(srv, 'GET', `/v2/tariffs?filter[emp.id]=${emp}&filter[id]=${sup},${sub}`, { key: R });
      expect(l.json).toEqual({ data: [], meta: { overall_count: 0 }, links: expect.any(Object) });
      // the id can be created again with version 1
      expect((await put(sup, tariffBody(sup, emp))).status).toBe(201);
    });

    it('a deleted sub tariff CPO is left out of the relationship (D21)', async () => {
      const cpoId = await newEmp();
      const sup = randomUUID();
      await put(sup, tariffBody(sup, emp));
      const sub = randomUUID();
      await put(sub, tariffBody(sub, emp, {}, { super_tariffs: { data: [ref('tariff', sup)] }, cpo: { data: ref('company', cpoId) } }, 'sub_tariff'));
      expect((await call(srv, 'DELETE', `/v1/companies/${cpoId}`, { key: W })).status).toBe(204);
      const l = await call(srv, 'GET', `/v2/tariffs?filter[emp.id]=${emp}&filter[id]=${sub}`, { key: R });
      expect(l.json.data[0].relationships.cpo).toEqual({ data: null });
    });
  });

  describe('raw list', () => {
    let e2: string;
    const ids: string[] = [];
    let subId: string;
    beforeAll(async () => {
      e2 = await newEmp();
      for (let i = 0; i < 5; i++) {
        const id = randomUUID();
        ids.push(id);
        expect((await put(id, tariffBody(id, e2, { name: `L${i}` }))).status).toBe(201);
      }
      subId = randomUUID();
      expect((await put(subId, tariffBody(subId, e2, {}, { super_tariffs: { data: [ref('tariff', ids[0])] }, cpo: { data: ref('company', cpo) } }, 'sub_tariff'))).status).toBe(201);
    });

    it('lists the EMP’s tariffs and sub tariffs by id with overall_count', async () => {
      const r = await call(srv, 'GET', `/v2/tariffs?filter[emp.id]=${e2}`, { key: R });
      expect(r.status).toBe(200);
      expect(r.json.data.map((d: any) => d.id)).toEqual([...ids, subId].sort());
      expect(r.json.meta).toEqual({ overall_count: 6 });
      const one = r.json.data.find((d: any) => d.id === ids[1]);
      const single = await put(ids[1], tariffBody(ids[1], e2, { name: 'L1', version: 2 }));
      expect(Object.keys(one.attributes)).toEqual(Object.keys(single.json.data.attributes));
    });

    it('filters by id, type, cpo.id and super_tariffs.id; pages', async () => {
      const t = await call(srv, 'GET', `/v2/tariffs?filter[emp.id]=${e2}&filter[type]=sub_tariff`, { key: R });
      expect(t.json.data.map((d: any) => d.id)).toEqual([subId]);
      const c = await call(srv, 'GET', `/v2/tariffs?filter[emp.id]=${e2}&filter[cpo.id]=${cpo}`, { key: R });
      expect(c.json.data.map((d: any) => d.id)).toEqual([subId]);
      const s = await call(srv, 'GET', `/v2/tariffs?filter[emp.id]=${e2}&filter[super_tariffs.id]=${ids[0]}`, { key: R });
      expect(s.json.data.map((d: any) => d.id)).toEqual([subId]);
      const i = await call(srv, 'GET', `/v2/tariffs?filter[emp.id]=${e2}&filter[id]=${ids[2]},not-a-uuid`, { key: R });
      expect(i.json.data.map((d: any) => d.id)).toEqual([ids[2]]);
      const p = await call(srv, 'GET', `/v2/tariffs?filter[emp.id]=${e2}&page[size]=4&page[number]=2`, { key: R });
      expect(p.json.data.map((d: any) => d.id)).toEqual([...ids, subId].sort().slice(4));
      expect(p.json.meta.overall_count).toBe(6);
      const unknown = await call(srv, 'GET', `/v2/tariffs?filter[emp.id]=${randomUUID()}`, { key: R });
      expect(unknown.json).toEqual({ data: [], meta: { overall_count: 0 }, links: expect.any(Object) });
    });

    it('answers a repeated query from its cache only until the next write', async () => {
      const path = `/v2/tariffs?filter[emp.id]=${e2}&filter[id]=${ids[3]}&fields[tariff]=name,version`;
      const a = await call(srv, 'GET', path, { key: R });
      const again = await call(srv, 'GET', path, { key: R });
      expect(again.text).toBe(a.text);
      const v = a.json.data[0].attributes.version;
      expect((await put(ids[3], tariffBody(ids[3], e2, { name: 'L3 renamed', version: v + 1 }))).status).toBe(200);
      const b = await call(srv, 'GET', path, { key: R });
      expect(b.json.data[0].attributes).toEqual({ name: 'L3 renamed', version: v + 1 });
      // same parameters in another order: same answer
      const c = await call(srv, 'GET', `/v2/tariffs?fields[tariff]=name,version&filter[id]=${ids[3]}&filter[emp.id]=${e2}`, { key: R });
      expect(c.text).toBe(b.text);
    });

    it('applies fields[tariff] and fields[sub_tariff] to their own type', async () => {
      const r = await call(srv, 'GET', `/v2/tariffs?filter[emp.id]=${e2}&filter[id]=${ids[0]},${subId}&fields[tariff]=name,emp&fields[sub_tariff]=currency,super_tariffs`, { key: R });
      const byId = Object.fromEntries(r.json.data.map((d: any) => [d.id, d]));
      expect(byId[ids[0]]).toEqual({ id: ids[0], type: 'tariff', attributes: { name: 'L0' }, relationships: { emp: { data: { type: 'company', id: e2 } } } });
      expect(byId[subId]).toEqual({ id: subId, type: 'sub_tariff', attributes: { currency: 'EUR' }, relationships: { super_tariffs: { data: [{ type: 'tariff', id: ids[0] }] } } });
    });

    it.each([
      ['', 'filter[emp.id]'],
      ['filter[emp.id]=', 'filter[emp.id]'],
      ['filter[emp.id]=EMP&filter[type]=company', 'filter[type]'],
      ['filter[emp.id]=EMP&fields[tariff]=nope', 'fields[tariff]'],
      ['filter[emp.id]=EMP&fields[sub_tariff]=nope', 'fields[sub_tariff]'],
      ['filter[emp.id]=EMP&page[size]=101', 'page[size]'],
      ['filter[emp.id]=EMP&page[number]=x', 'page[number]'],
    ])('when %s, then 400 without code naming the parameter', async (qs, parameter) => {
      const r = await call(srv, 'GET', `/v2/tariffs?${qs.replace('EMP', e2)}`, { key: R });
      expect(r.status).toBe(400);
      expect(r.json.errors[0]).toEqual({ status: '400', title: expect.any(String), source: { parameter } });
    });
  });

  describe('tariff metadata (GET /v1/tariffs)', () => {
    let e3: string;
    let full: string;
    let plain: string;
    beforeAll(async () => {
      e3 = await newEmp();
      full = randomUUID();
      plain = randomUUID();
      expect(
        (
          await put(
            full,
            tariffBody(
              full,
              e3,
              {
                name: 'Meta Full',
                currency: 'GBP',
                monthly_fee: 6,
                yearly_service_fee: 24,
                is_direct_payment: true,
                provider_customer_only: true,
                is_card_payment: true,
                existing_customer_only: true,
                is_secondary_tariff: true,
                integration_status: 'pending',
                branding: { background_color: '#111', text_color: '#eee', logo_url: 'https://l' },
                supported_countries: ['gb'],
                charge_card_id: 'cc-77',
              },
              { vehicle_brands: { data: [ref('brand', brand)] } },
            ),
          )
        ).status,
      ).toBe(201);
      expect((await put(plain, tariffBody(plain, e3, { name: 'Meta Plain' }))).status).toBe(201);
      const sub = randomUUID();
      expect((await put(sub, tariffBody(sub, e3, {}, { super_tariffs: { data: [ref('tariff', plain)] } }, 'sub_tariff'))).status).toBe(201);
    });

    it('lists tariff records only, with the D61 attributes', async () => {
      const r = await call(srv, 'GET', `/v1/tariffs?filter[id]=${full},${plain}`, { key: S });
      expect(r.status).toBe(200);
      const expected = [
        {
          id: full,
          type: 'tariff',
          attributes: {
            provider: expect.stringMatching(/^EMP /),
            name: 'Meta Full',
            total_monthly_fee: 8,
            currency: 'GBP',
            is_direct_payment: true,
            is_vehicle_brand_restricted: true,
            is_card_payment: true,
            existing_customer_only: true,
            is_secondary_tariff: true,
            provider_customer_only: true,
            integration_status: 'pending',
            branding: { background_color: '#111', text_color: '#eee', logo_url: 'https://l' },
            supported_countries: ['GB'],
            charge_card_id: 'cc-77',
          },
          relationships: { emp: { data: { type: 'company', id: e3 } }, vehicle_brands: { data: [{ type: 'vehicle_brand', id: brand }] } },
        },
        {
          id: plain,
          type: 'tariff',
          attributes: {
            provider: expect.stringMatching(/^EMP /),
            name: 'Meta Plain',
            total_monthly_fee: 0,
            currency: 'EUR',
            is_direct_payment: false,
            is_vehicle_brand_restricted: false,
            is_card_payment: false,
            existing_customer_only: false,
            is_secondary_tariff: false,
            provider_customer_only: false,
            integration_status: 'complete',
            branding: null,
            supported_countries: [],
            charge_card_id: '0',
          },
          relationships: { emp: { data: { type: 'company', id: e3 } }, vehicle_brands: { data: [] } },
        },
      ].sort((a, b) => (a.id < b.id ? -1 : 1));
      expect(r.json).toEqual({ data: expected });
    });

    it('filters by provider_customer_only and direct_payment, wrapped or not; the full list holds only tariffs, by id', async () => {
      const a = await call(srv, 'GET', `/v1/tariffs?filter[id]=${full},${plain}&filter[provider_customer_only]=true`, { key: S });
      expect(a.json.data.map((d: any) => d.id)).toEqual([full]);
      const b = await call(srv, 'GET', `/v1/tariffs?id=${full},${plain}&direct_payment=false`, { key: S });
      expect(b.json.data.map((d: any) => d.id)).toEqual([plain]);
      const all = await call(srv, 'GET', '/v1/tariffs', { key: S });
      const got = all.json.data.map((d: any) => d.id);
      expect(got).toEqual([...got].sort());
      expect(all.json.data.every((d: any) => d.type === 'tariff')).toBe(true);
      const raw = await call(srv, 'GET', `/v2/tariffs?filter[emp.id]=${e3}&filter[type]=sub_tariff`, { key: R });
      expect(got).not.toContain(raw.json.data[0].id);
      expect(got).toContain(full);
      const bad = await call(srv, 'GET', '/v1/tariffs?filter[direct_payment]=yes', { key: S });
      expect(bad.status).toBe(400);
      expect(bad.json.errors[0]).toMatchObject({ code: 'BAD_REQUEST', source: { parameter: 'filter[direct_payment]' } });
    });

    it('reflects a rename of the EMP in provider', async () => {
      const before = await call(srv, 'GET', `/v1/tariffs?filter[id]=${plain}`, { key: S });
      expect(before.json.data[0].attributes.provider).toMatch(/^EMP /);
      const r = await call(srv, 'PUT', `/v1/companies/${e3}`, {
        key: W,
        body: { data: { id: e3, type: 'company', attributes: { name: 'Renamed EMP', version: 2, is_cpo: false, is_emp: true, external_source_mapping: {} }, relationships: { supported_emps: { data: [] } } } },
      });
      expect(r.status).toBe(200);
      const after = await call(srv, 'GET', `/v1/tariffs?filter[id]=${plain}`, { key: S });
      expect(after.json.data[0].attributes.provider).toBe('Renamed EMP');
    });

    it('reflects a write immediately', async () => {
      const r = await put(plain, tariffBody(plain, e3, { name: 'Meta Plain 2', version: 2, monthly_fee: 1.5 }));
      expect(r.status).toBe(200);
      const l = await call(srv, 'GET', `/v1/tariffs?filter[id]=${plain}`, { key: S });
      expect(l.json.data[0].attributes).toMatchObject({ name: 'Meta Plain 2', total_monthly_fee: 1.5 });
    });
  });

  describe('keys and groups (403)', () => {
    const id = randomUUID();
    it.each([
      ['PUT', `/v2/tariffs/${id}`, undefined, 'api_key missing', false],
      ['PUT', `/v2/tariffs/${id}`, 'bad', 'api_key invalid', false],
      ['PUT', `/v2/tariffs/${id}`, R, 'action write_tariffs not allowed', false],
      ['DELETE', `/v2/tariffs/${id}`, undefined, 'api_key missing', false],
      ['DELETE', `/v2/tariffs/${id}`, keyFor('simple'), 'action write_tariffs not allowed', false],
      ['GET', '/v2/tariffs?filter[emp.id]=x', undefined, 'api_key missing', false],
      ['GET', '/v2/tariffs?filter[emp.id]=x', 'bad', 'api_key invalid', false],
      ['GET', '/v2/tariffs?filter[emp.id]=x', keyFor('simple'), 'action read_tariffs not allowed', false],
      ['GET', '/v1/tariffs', undefined, 'api_key missing', true],
      ['GET', '/v1/tariffs', 'bad', 'api_key invalid', true],
      ['GET', '/v1/tariffs', R, 'action read_simple_tariffs not allowed', true],
    ])('%s %s with key %s → 403 %s', async (method, path, key, title, withCode) => {
      const r = await call(srv, method, path, { key, body: method === 'PUT' ? tariffBody(id, 'x') : undefined });
      expect(r.status).toBe(403);
      expect(r.json).toEqual({ errors: [withCode ? { status: '403', code: 'FORBIDDEN', title } : { status: '403', title }] });
    });
  });

  describe('durability and catalog generation', () => {
    it('every write takes a new generation whose changes are in the change log, and survives a restart', async () => {
      const store = await openLiveStoreReadonly(srv);
      let g0: number;
      try {
        g0 = await store.read(catalogGeneration);
      } finally {
        await store.close();
      }
      const id = randomUUID();
      await put(id, tariffBody(id, emp, { name: 'Durable' }));
      await put(id, tariffBody(id, emp, { name: 'Durable 2', version: 2 }));
      const comp = await newEmp();
      const other = randomUUID();
      await put(other, tariffBody(other, emp));
      await call(srv, 'DELETE', `/v2/tariffs/${other}`, { key: W });
      await put(other, tariffBody(other, emp, { version: 5 })); // rejected: no generation
      const s2 = await openLiveStoreReadonly(srv);
      try {
        const ch = await s2.read((s) => changesSince(s, g0!));
        expect(ch.map((c) => [c.generation - g0!, c.kind, c.id, c.op])).toEqual([
          [1, 'tariff', id, 'upsert'],
          [2, 'tariff', id, 'upsert'],
          [3, 'company', comp, 'upsert'],
          [4, 'tariff', other, 'upsert'],
          [5, 'tariff', other, 'delete'],
        ]);
        expect(await s2.read(catalogGeneration)).toBe(g0! + 5);
      } finally {
        await s2.close();
      }
      const dataDir = srv.dataDir;
      await srv.stop();
      srv = await startTestApp({ dataDir });
      const l = await call(srv, 'GET', `/v2/tariffs?filter[emp.id]=${emp}&filter[id]=${id},${other}`, { key: R });
      expect(l.json.data.map((d: any) => [d.id, d.attributes.name, d.attributes.version])).toEqual([[id, 'Durable 2', 2]]);
    });
  });
});
