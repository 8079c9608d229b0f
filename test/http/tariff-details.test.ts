import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { computedId } from '../../src/domain/ids.js';
import type { StationRecord } from '../../src/domain/stations/model.js';
import { Snapshot } from '../../src/storage/snapshot.js';
import { call, keyFor, startTestApp, type TestApp } from '../helpers/server.js';
import { comp, putCompany, putTariff, ref, seg } from '../pool/price-fixtures.js';
import { loadRefCatalog, usable } from '../pool/reference-check.js';

const W = keyFor('writer');
const V = keyFor('bench');

const seg0 = {
  range_gte: null,
  range_lt: null,
  billing_increment: null,
  currency: 'EUR',
  time_of_day_start: null,
  time_of_day_end: null,
  charge_point_powers: [],
  charge_point_energy_type: null,
  car_ac_phase: null,
  charge_point_power_is_range: false,
  use_consumed_charging_power: false,
  is_average_price: false,
  occupancy_gte: null,
  occupancy_lt: null,
};

function cpoQuery(operator: string, country = 'DE', extra: Record<string, unknown> = {}, rel?: unknown): any {
  return {
    data: {
      type: 'tariff_details_request',
      attributes: { station: { country, operator: { id: operator, type: 'company' } }, ...extra },
      ...(rel ? { relationships: rel } : {}),
    },
  };
}
const stationQuery = (ids: string[], extra: Record<string, unknown> = {}, tariffs?: string[]): any => ({
  data: {
    attributes: { station: { id: ids, ...extra } },
    ...(tariffs ? { relationships: { tariffs: { data: tariffs.map((t) => ref('tariff', t)) } } } : {}),
  },
});

describe('POST /v1/tariff_details', () => {
  let srv: TestApp;
  let snap: Snapshot;
  const post = (body: unknown, key = V) => call(srv, 'POST', '/v1/tariff_details', { key, body });
  const tariffIds = (doc: any) => doc.data.map((d: any) => d.relationships.tariff.data.id);

  beforeAll(async () => {
    srv = await startTestApp({ keys: { writer: 'WriteTariffs,ReadTariffs', bench: 'ViewPriceBenchmark', costs: 'ReadCosts' } });
    snap = Snapshot.open(inject('testSnapshot'));
  });
  afterAll(async () => {
    snap.close();
    await srv.stop();
  });

  it('CPO query: the whole document with segments per level, included EMP and tariff records (D31–D35)', async () => {
    const emp = await putCompany(srv, W, { name: 'Details EMP' });
    const cpo = await putCompany(srv, W, { name: 'Details CPO', is_cpo: true, is_emp: false, supported_emps: [emp] });
    const t = await putTariff(srv, W, emp, {
      attributes: {
        name: 'Details Tariff',
        monthly_fee: 3,
        yearly_service_fee: 24,
        url: 'https://emp.example/t',
        supported_countries: ['DE'],
        prices: [
          comp([seg('kwh', 0.5), seg('parking_minute', 0.1, { range_gte: 240 })]),
          comp([seg('minute', 0.02, { billing_increment: 5, time_of_day_start: 1320, time_of_day_end: 360 })], [
            { allowance: 'allow', cpo_ids: [cpo], charge_point_energy_type: 'dc', charge_point_powers: [50, 150], charge_point_power_is_range: true },
          ]),
        ],
      },
    });
    const stored = await call(srv, 'GET', `/v2/tariffs?filter[emp.id]=${emp}`, { key: W });
    const updatedAt = stored.json.data[0].attributes.updated_at;
    const r = await post(cpoQuery(cpo, 'de'));
    expect(r.status, r.text).toBe(200);
    expect(r.json).toEqual({
      data: [
        {
          id: computedId(t, cpo, '', 'DE'),
          type: 'station_tariff_details',
          attributes: {
            country: 'DE',
            updated_at: updatedAt,
            is_roaming: true,
            tariff_level: 'cpo',
            restricted_segments: [
              {
                ...seg0,
                dimension: 'minute',
                price: 0.02,
                billing_increment: 5,
                time_of_day_start: 1320,
                time_of_day_end: 360,
                charge_point_powers: [50, 150],
                charge_point_energy_type: 'dc',
                charge_point_power_is_range: true,
              },
              { ...seg0, dimension: 'kwh', price: 0.5 },
            ],
            no_price_reason: null,
            prices_per_station_available: false,
          },
          relationships: {
            emp: { data: { type: 'company', id: emp } },
            tariff: { data: { type: 'tariff', id: t } },
            cpo: { data: { type: 'company', id: cpo } },
          },
        },
      ],
      included: [
        { id: emp, type: 'company', attributes: { name: 'Details EMP' } },
        {
          id: t,
          type: 'tariff',
          attributes: {
            name: 'Details Tariff',
            total_monthly_fee: 5,
            is_direct_payment: false,
            is_card_payment: false,
            is_secondary_tariff: false,
            provider_customer_only: false,
            existing_customer_only: false,
            allowed_customer_countries: ['DE'],
            currency: 'EUR',
            url: 'https://emp.example/t',
          },
          relationships: { vehicle_brands: { data: [] } },
        },
      ],
    });
    // dimensions: parking_minute only when asked for; kwh alone.
    const dims = await post(cpoQuery(cpo, 'DE', { filter: { dimensions: ['parking_minute', 'kwh'] } }));
    expect(dims.json.data[0].attributes.restricted_segments.map((s: any) => [s.dimension, s.price])).toEqual([
      ['kwh', 0.5],
      ['parking_minute', 0.1],
    ]);
    expect(dims.json.data[0].attributes.restricted_segments[1].range_gte).toBe(240);
    // station.charge_point: exactly the segments used at that charge point.
    const ac = await post(cpoQuery(cpo, 'DE', { station: { country: 'DE', operator: { id: cpo, type: 'company' }, charge_point: { plug: 'type2', power: 22 } } }));
    expect(ac.json.data[0].attributes.restricted_segments.map((s: any) => s.dimension)).toEqual(['kwh']);
    expect(ac.json.data[0].attributes.tariff_level).toBe('country');
    const dc = await post(cpoQuery(cpo, 'DE', { station: { country: 'DE', operator: { id: cpo, type: 'company' }, charge_point: { plug: 'ccs', power: 100 } } }));
    expect(dc.json.data[0].attributes.restricted_segments.map((s: any) => s.dimension)).toEqual(['minute', 'kwh']);
    expect(dc.json.data[0].attributes.tariff_level).toBe('cpo');
    // foreign_tariffs false in another country drops it; unknown operator → empty.
    expect((await post(cpoQuery(cpo, 'FR', { filter: { foreign_tariffs: false } }))).json).toEqual({ data: [], included: [] });
    expect(tariffIds((await post(cpoQuery(cpo, 'FR'))).json)).toEqual([t]);
    expect((await post(cpoQuery(randomUUID()))).json).toEqual({ data: [], included: [] });
  });

  it('filters with their defaults: brand restricted, provider customer, tariffs without prices, relationships.tariffs (D32)', async () => {
    const emp = await putCompany(srv, W, { name: 'Filter EMP' });
    const emp2 = await putCompany(srv, W, { name: 'Another EMP' });
    const cpo = await putCompany(srv, W, { is_cpo: true, is_emp: false, supported_emps: [emp, emp2] });
    const brand = snap.brands()[0].id;
    const plain = await putTariff(srv, W, emp, { attributes: { prices: [comp([seg('kwh', 0.3)])] } });
    const branded = await putTariff(srv, W, emp, { attributes: { prices: [comp([seg('kwh', 0.3)])] }, relationships: { vehicle_brands: { data: [ref('brand', brand)] } } });
    const pco = await putTariff(srv, W, emp2, { attributes: { provider_customer_only: true, prices: [comp([seg('kwh', 0.3)])] } });
    const empty = await putTariff(srv, W, emp2, { attributes: { no_price_reason: 'not_public', prices: [] } });
    const own = await putTariff(srv, W, cpo, { attributes: { prices: [comp([seg('session', 1)])] } });
    const sorted = (xs: string[]) => [...xs].sort();
    expect(tariffIds((await post(cpoQuery(cpo))).json)).toEqual(sorted([plain, branded, own]));
    expect(tariffIds((await post(cpoQuery(cpo, 'DE', { filter: { brand_restricted_tariffs: false } }))).json)).toEqual(sorted([plain, own]));
    expect(tariffIds((await post(cpoQuery(cpo, 'DE', { filter: { provider_customer_tariffs: true } }))).json)).toEqual(sorted([plain, branded, own, pco]));
    const withEmpty = await post(cpoQuery(cpo, 'DE', { filter: { tariffs_without_prices: true } }));
    expect(tariffIds(withEmpty.json)).toEqual(sorted([plain, branded, own, empty]));
    const e = withEmpty.json.data.find((d: any) => d.relationships.tariff.data.id === empty).attributes;
    expect(e.restricted_segments).toEqual([]);
    expect(e.tariff_level).toBe('country');
    const withCp = await post(cpoQuery(cpo, 'DE', { station: { country: 'DE', operator: { id: cpo, type: 'company' }, charge_point: { plug: 'type2', power: 11 } }, filter: { tariffs_without_prices: true } }));
    expect(withCp.json.data.find((d: any) => d.relationships.tariff.data.id === empty).attributes.no_price_reason).toBe('not_public');
    const o = withCp.json.data.find((d: any) => d.relationships.tariff.data.id === own);
    expect(o.attributes.is_roaming).toBe(false);
    const only = await post(cpoQuery(cpo, 'DE', {}, { tariffs: { data: [ref('tariff', own), ref('tariff', randomUUID())] } }));
    expect(tariffIds(only.json)).toEqual([own]);
    expect(only.json.included.map((x: any) => [x.type, x.id])).toEqual([
      ['company', cpo],
      ['tariff', own],
    ]);
  });

  it('average prices only with filter.average_prices on a CPO query (D73)', async () => {
    const emp = await putCompany(srv, W, {});
    const cpo = await putCompany(srv, W, { is_cpo: true, is_emp: false, supported_emps: [emp] });
    await putTariff(srv, W, emp, { attributes: { prices: [comp([seg('kwh', 0.5), seg('kwh', 0.45, { is_average_price: true })])] } });
    const plain = await post(cpoQuery(cpo));
    expect(plain.json.data[0].attributes.restricted_segments.map((s: any) => s.price)).toEqual([0.5]);
    const avg = await post(cpoQuery(cpo, 'DE', { filter: { average_prices: true } }));
    const segs = avg.json.data[0].attributes.restricted_segments;
    expect(segs.map((s: any) => [s.price, s.is_average_price])).toEqual([[0.45, true]]);
    expect(avg.json.data[0].attributes.tariff_level).toBe('cpo');
  });

  it('station query: country and CPO from each station, the station relationship, order tariff id then request order (D31, D18)', async () => {
    const cols = snap.stationColumns();
    const recs: StationRecord[] = [];
    for (let i = 0; i < cols.n && recs.length < 2; i += 11) {
      const s = snap.station(cols.ids.toString('latin1', i * 36, (i + 1) * 36))!;
      if (s.operator_id && !recs.some((x) => x.operator_id === s.operator_id)) recs.push(s);
    }
    const [s1, s2] = recs;
    const t1 = await putTariff(srv, W, s1.operator_id!, { attributes: { prices: [comp([seg('kwh', 0.4)])] } });
    const t2 = await putTariff(srv, W, s2.operator_id!, { attributes: { prices: [comp([seg('kwh', 0.6)])] } });
    const one = await post(stationQuery([s1.id]));
    expect(one.status).toBe(200);
    const mine = one.json.data.find((d: any) => d.relationships.tariff.data.id === t1);
    expect(mine).toMatchObject({
      id: computedId(t1, s1.operator_id!, s1.id, s1.country.toUpperCase()),
      attributes: { country: s1.country.toUpperCase(), is_roaming: false },
      relationships: { cpo: { data: { type: 'company', id: s1.operator_id } }, station: { data: { type: 'charging_station', id: s1.id } } },
    });
    const both = await post(stationQuery([s2.id, randomUUID(), s1.id], {}, [t2, t1]));
    expect(both.status, both.text).toBe(200);
    const order = both.json.data.map((d: any) => [d.relationships.tariff.data.id, d.relationships.station.data.id]);
    const want = [
      [t1, s1.id],
      [t2, s2.id],
    ].sort((a, b) => (a[0] < b[0] ? -1 : 1));
    expect(order).toEqual(want);
  });

  it('EVSE-level prices of the default catalog: prices_per_station_available and tariff_level evse at the station (D34)', async () => {
    const cat = await loadRefCatalog(srv.dataDir, srv.databaseUrl);
    let found: { tariff: string; station: StationRecord } | null = null;
    outer: for (const [tariffId, m] of cat.evse) {
      const t = cat.tariffs.get(tariffId);
      if (!t || t.type !== 'tariff') continue;
      for (const stationId of m.keys()) {
        const s = snap.station(stationId);
        if (s?.operator_id && usable(cat, t.emp_id, s.operator_id) !== 'none') {
          found = { tariff: tariffId, station: s };
          break outer;
        }
      }
    }
    expect(found, 'the test snapshot carries EVSE-level prices at its stations').not.toBeNull();
    const { tariff, station } = found!;
    const byCpo = await post(cpoQuery(station.operator_id!, station.country, { filter: { tariffs_without_prices: true } }, { tariffs: { data: [ref('tariff', tariff)] } }));
    expect(byCpo.json.data).toHaveLength(1);
    expect(byCpo.json.data[0].attributes.prices_per_station_available).toBe(true);
    const atStation = await post(stationQuery([station.id], { filter: { tariffs_without_prices: true } }, [tariff]));
    expect(atStation.json.data[0].attributes.tariff_level).toBe('evse');
    expect(atStation.json.data[0].attributes.prices_per_station_available).toBe(true);
  });

  describe('validation (D31) and keys', () => {
    const cases: [string, any, string][] = [
      ['station missing', { data: { attributes: {} } }, '/data/attributes/station'],
      ['neither form', { data: { attributes: { station: {} } } }, '/data/attributes/station'],
      ['both forms', { data: { attributes: { station: { id: ['a'], country: 'DE', operator: { id: 'x', type: 'company' } } } } }, '/data/attributes/station'],
      ['country without operator', { data: { attributes: { station: { country: 'DE' } } } }, '/data/attributes/station/operator'],
      ['operator without country', { data: { attributes: { station: { operator: { id: 'x', type: 'company' } } } } }, '/data/attributes/station/country'],
      ['operator type not company', cpoQuery('x', 'DE', { station: { country: 'DE', operator: { id: 'x', type: 'cpo' } } }), '/data/attributes/station/operator/type'],
      ['operator without type', cpoQuery('x', 'DE', { station: { country: 'DE', operator: { id: 'x' } } }), '/data/attributes/station/operator/type'],
      ['country of 3 letters', cpoQuery('x', 'DEU'), '/data/attributes/station/country'],
      ['51 station ids', stationQuery(Array.from({ length: 51 }, (_, i) => String(i)), {}, ['t']), '/data/attributes/station/id'],
      ['empty station id list', stationQuery([]), '/data/attributes/station/id'],
      ['two ids without tariffs', stationQuery(['a', 'b']), '/data/relationships/tariffs'],
      ['two ids with an empty tariff list', stationQuery(['a', 'b'], {}, []), '/data/relationships/tariffs'],
      ['charge_point without plug', stationQuery(['a'], { charge_point: { power: 22 } }), '/data/attributes/station/charge_point/plug'],
      ['charge_point power a string', stationQuery(['a'], { charge_point: { power: '22', plug: 'type2' } }), '/data/attributes/station/charge_point/power'],
      ['filter flag a string', cpoQuery('x', 'DE', { filter: { foreign_tariffs: 'false' } }), '/data/attributes/filter/foreign_tariffs'],
      ['unknown dimension', cpoQuery('x', 'DE', { filter: { dimensions: ['hour'] } }), '/data/attributes/filter/dimensions/0'],
      ['tariff reference of another type', cpoQuery('x', 'DE', {}, { tariffs: { data: [{ type: 'company', id: 'x' }] } }), '/data/relationships/tariffs/data/0/type'],
    ];
    for (const [name, body, pointer] of cases) {
      it(`when ${name}, then 400 pointing at ${pointer}`, async () => {
        const r = await post(body);
        expect(r.status, r.text).toBe(400);
        expect(r.json.errors[0].code).toBe('BAD_REQUEST');
        expect(r.json.errors.map((e: any) => e.source?.pointer)).toContain(pointer);
      });
    }

    it('with more than one station id the filter object is ignored (defaults apply)', async () => {
      const r = await post(stationQuery(['a', 'b'], {}, ['t']));
      expect(r.status).toBe(200);
      expect(r.json).toEqual({ data: [], included: [] });
      const bad = stationQuery(['a', 'b'], {}, ['t']);
      bad.data.attributes.filter = { tariffs_without_prices: true };
      expect((await post(bad)).status).toBe(200);
    });

    it('403 for a missing key, an unknown key and a key without ViewPriceBenchmark', async () => {
      const body = cpoQuery(randomUUID());
      expect((await call(srv, 'POST', '/v1/tariff_details', { body })).json.errors[0].title).toBe('api_key missing');
      expect((await post(body, 'x')).json.errors[0].title).toBe('api_key invalid');
      const r = await post(body, keyFor('costs'));
      expect(r.status).toBe(403);
      expect(r.json).toEqual({ errors: [{ status: '403', code: 'FORBIDDEN', title: 'action view_price_benchmark not allowed' }] });
    });
  });
});
