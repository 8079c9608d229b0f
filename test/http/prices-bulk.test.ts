import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { vehiclePricing } from '../../src/api/price-inputs.js';
import { sessionForVehicle, type RateTable, type VehiclePricing } from '../../src/domain/pricing/index.js';
import type { StationRecord } from '../../src/domain/stations/model.js';
import { VehicleRegistry } from '../../src/domain/vehicles/vehicle.js';
import { Snapshot } from '../../src/storage/snapshot.js';
import { call, keyFor, startTestApp, type TestApp } from '../helpers/server.js';
import { comp, putCompany, putTariff, ref, seg } from '../pool/price-fixtures.js';
import { close, loadRefCatalog, refPrice, usable } from '../pool/reference-check.js';

const W = keyFor('writer');
const C = keyFor('costs');

interface BulkOpts {
  stations: string[];
  tariffs: string[];
  vehicle: string;
  attributes?: Record<string, unknown>;
  type?: string;
}
const bulkBody = (o: BulkOpts) => ({
  data: {
    type: o.type ?? 'bulk_price_preview_request',
    attributes: { battery_range: [20, 80], ...o.attributes },
    relationships: {
      charging_stations: { data: o.stations.map((id) => ref('charging_station', id)) },
      tariffs: { data: o.tariffs.map((id) => ref('tariff', id)) },
      vehicle: { data: ref('car', o.vehicle) },
    },
  },
});

describe('POST /v1/charge_prices/bulk', () => {
  let srv: TestApp;
  let snap: Snapshot;
  let rates: RateTable;
  let stations: StationRecord[];
  let vehicle: VehiclePricing;
  const tariffsOf = new Map<string, string[]>();
  const post = (body: unknown, q = '') => call(srv, 'POST', '/v1/charge_prices/bulk' + q, { key: C, body });

  /** D91 computed independently with the reference evaluator. */
  async function expected(stationIds: string[], tariffIds: string[], o: { currency?: string; lte?: number; start?: number; unbalanced?: boolean; direct?: boolean } = {}) {
    const cat = await loadRefCatalog(srv.dataDir, srv.databaseUrl);
    const out: unknown[] = [];
    for (const sid of stationIds) {
      const s = stations.find((x) => x.id === sid);
      if (!s || !s.operator_id) continue;
      const cpo = s.operator_id;
      const cands = [...cat.tariffs.values()].filter(
        (t) =>
          t.type === 'tariff' &&
          usable(cat, t.emp_id, cpo) !== 'none' &&
          (tariffIds.includes(t.id) ||
            (o.direct === true && t.is_direct_payment === true && !t.provider_customer_only && (t.vehicle_brand_ids ?? []).length === 0)),
      );
      let best: { price: number; duration: number; energy: number; cp: number; tariff: string } | null = null;
      s.charge_points.forEach((cp, k) => {
        if (o.lte !== undefined && cp.power > o.lte) return;
        if (cp.energy_type === 'dc' && !(vehicle.dc_max_power && vehicle.dc_ports.some((p) => p.toLowerCase() === cp.plug.toLowerCase()))) return;
        if (cp.energy_type === 'ac' && !(vehicle.ac_max_power > 0)) return;
        const session = sessionForVehicle(vehicle, cp.energy_type, cp.power, [20, 80], {
          carAcPhases: vehicle.ac_phases,
          allowUnbalancedLoad: o.unbalanced ?? false,
        });
        for (const t of cands) {
          const r = refPrice(cat, t.id, { id: s.id, cpo_id: cpo, country: s.country }, { energy_type: cp.energy_type, power: cp.power }, session, {
            startTime: o.start ?? 720,
            currency: o.currency ?? 'EUR',
            rates,
          });
          if (r.price === null) continue;
          const c = { price: r.price, duration: session.duration, energy: session.energy, cp: k, tariff: t.id };
          if (
            best === null ||
            c.price < best.price - 1e-12 ||
            (close(c.price, best.price) && (c.duration < best.duration || (c.duration === best.duration && (c.cp < best.cp || (c.cp === best.cp && c.tariff < best.tariff)))))
          ) {
            best = c;
          }
        }
      });
      if (best === null) continue;
      const b = best as { price: number; duration: number; energy: number };
      out.push({
        id: s.id,
        type: 'charge_price_preview',
        attributes: { energy: b.energy, duration: b.duration, price: b.price, currency: o.currency ?? 'EUR' },
        relationships: { charging_station: { data: { type: 'charging_station', id: s.id } } },
      });
    }
    return out;
  }

  function expectClose(actual: any, want: any[]): void {
    expect(actual.data.map((d: any) => d.id)).toEqual(want.map((d) => d.id));
    actual.data.forEach((d: any, i: number) => {
      expect(d.type).toBe('charge_price_preview');
      expect(d.relationships).toEqual(want[i].relationships);
      expect(d.attributes.currency).toBe(want[i].attributes.currency);
      expect(d.attributes.energy).toBe(want[i].attributes.energy);
      expect(d.attributes.duration).toBe(want[i].attributes.duration);
      expect(close(d.attributes.price, want[i].attributes.price), `${d.id}: ${d.attributes.price} vs ${want[i].attributes.price}`).toBe(true);
    });
  }

  beforeAll(async () => {
    srv = await startTestApp({ keys: { writer: 'WriteTariffs,ReadTariffs', costs: 'ReadCosts', bench: 'ViewPriceBenchmark' } });
    snap = Snapshot.open(inject('testSnapshot'));
    rates = { date: snap.meta.ratesDate, rates: { EUR: 1, ...snap.rates() } };
    const reg = new VehicleRegistry(snap.vehicles(), snap.brands());
    const v = [...snap.vehicles()].map((r) => reg.get(r.id)!).find((x) => x.dc_ports.includes('ccs') && x.ac_max_power > 0 && x.ac_phases === 3)!;
    vehicle = vehiclePricing(v);
    const cols = snap.stationColumns();
    const all: StationRecord[] = [];
    for (let i = 0; i < cols.n && all.length < 400; i += 7) {
      const s = snap.station(cols.ids.toString('latin1', i * 36, (i + 1) * 36))!;
      if (s.operator_id && s.charge_points.length > 0) all.push(s);
    }
    // Stations with both AC and DC groups first, from several operators.
    const mixed = all.filter((s) => s.charge_points.some((c) => c.energy_type === 'dc') && s.charge_points.some((c) => c.energy_type === 'ac'));
    const seenOps = new Set<string>();
    stations = [];
    for (const s of [...mixed, ...all]) {
      if (stations.length >= 6) break;
      if (seenOps.has(s.operator_id!) && stations.length < 4) continue;
      seenOps.add(s.operator_id!);
      stations.push(s);
    }
    // Tariffs owned by each station's operator (direct, D66) with distinct prices per energy type.
    for (const op of new Set(stations.map((s) => s.operator_id!))) {
      const a = await putTariff(srv, W, op, {
        attributes: { prices: [comp([seg('kwh', 0.45)], [{ allowance: 'allow', charge_point_energy_type: 'ac' }]), comp([seg('kwh', 0.6), seg('minute', 0.05)], [{ allowance: 'allow', charge_point_energy_type: 'dc' }])] },
      });
      const b = await putTariff(srv, W, op, { attributes: { prices: [comp([seg('session', 2), seg('kwh', 0.35, { time_of_day_start: 1320, time_of_day_end: 360 }), seg('kwh', 0.5, { time_of_day_start: 360, time_of_day_end: 1320 })])] } });
      tariffsOf.set(op, [a, b]);
    }
  });
  afterAll(async () => {
    snap.close();
    await srv.stop();
  });

  const allTariffs = () => [...tariffsOf.values()].flat();

  it('one preview per priced station in request order, cheapest pair per D91, equal to the reference evaluator', async () => {
    const ids = [stations[2].id, randomUUID(), stations[0].id.toUpperCase(), stations[1].id, stations[3].id];
    const r = await post(bulkBody({ stations: ids, tariffs: allTariffs(), vehicle: vehicle.id }));
    expect(r.status, r.text).toBe(200);
    expect(Object.keys(r.json)).toEqual(['data']);
    const want = await expected([stations[2].id, stations[0].id, stations[1].id, stations[3].id], allTariffs());
    expect(want.length).toBeGreaterThanOrEqual(3);
    expectClose(r.json, want);
  });

  it('currency, start_time, allow_unbalanced_load and charge_points_power_lte change the calculation (D91)', async () => {
    const ids = stations.map((s) => s.id);
    for (const o of [
      { currency: 'CHF' },
      { start: 1380 },
      { unbalanced: true },
      { lte: 22 },
      { lte: 3 },
    ] as const) {
      const attributes: Record<string, unknown> = {};
      if ('currency' in o) attributes.currency = o.currency;
      if ('start' in o) attributes.start_time = o.start;
      if ('unbalanced' in o) attributes.allow_unbalanced_load = o.unbalanced;
      if ('lte' in o) attributes.charge_points_power_lte = o.lte;
      const r = await post(bulkBody({ stations: ids, tariffs: allTariffs(), vehicle: vehicle.id, attributes }));
      expect(r.status, r.text).toBe(200);
      expectClose(r.json, await expected(ids, allTariffs(), o));
    }
  });

  it('include_direct_payment adds usable direct-payment tariffs that pass the default filters', async () => {
    const s = stations[4];
    const op = s.operator_id!;
    const listedOne = await putTariff(srv, W, op, { attributes: { prices: [comp([seg('session', 50)])] } });
    const direct = await putTariff(srv, W, op, { attributes: { is_direct_payment: true, prices: [comp([seg('session', 1)])] } });
    await putTariff(srv, W, op, { attributes: { is_direct_payment: true, provider_customer_only: true, prices: [comp([seg('session', 0.5)])] } });
    const without = await post(bulkBody({ stations: [s.id], tariffs: [listedOne], vehicle: vehicle.id }));
    expect(without.json.data[0].attributes.price).toBe(50);
    const withDirect = await post(bulkBody({ stations: [s.id], tariffs: [listedOne], vehicle: vehicle.id, attributes: { include_direct_payment: true } }));
    expectClose(withDirect.json, await expected([s.id], [listedOne], { direct: true }));
    expect(direct).toBeTruthy();
  });

  it('unknown tariffs and tariffs not usable at the station are ignored; stations without a price are left out (D19)', async () => {
    const emp = await putCompany(srv, W, {});
    const foreign = await putTariff(srv, W, emp, { attributes: { prices: [comp([seg('session', 0.01)])] } });
    const r = await post(bulkBody({ stations: [stations[0].id], tariffs: [foreign, randomUUID(), 'not-a-uuid'], vehicle: vehicle.id }));
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ data: [] });
  });

  it('empty station and tariff lists are allowed; page[prices.size] and the alternative type are accepted (D50, D15)', async () => {
    const r = await post(bulkBody({ stations: [], tariffs: [], vehicle: vehicle.id }), '?page[prices.size]=5');
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ data: [] });
    const r2 = await post(bulkBody({ stations: [stations[0].id], tariffs: allTariffs(), vehicle: vehicle.id, type: 'charge_price_bulk_request' }), '?page%5Bprices.size%5D=abc');
    expect(r2.status).toBe(200);
    expect(r2.json.data).toHaveLength(1);
  });

  describe('limits and errors', () => {
    it('101 stations or 201 tariffs are 400 before any other check (D50)', async () => {
      const many = Array.from({ length: 101 }, () => randomUUID());
      const r1 = await post(bulkBody({ stations: many, tariffs: [], vehicle: 'nope', attributes: { currency: 'QQQ' } }));
      expect(r1.status).toBe(400);
      expect(r1.json).toEqual({
        errors: [{ status: '400', code: 'BAD_REQUEST', title: 'at most 100 charging stations per request', source: { pointer: '/data/relationships/charging_stations/data' } }],
      });
      const r2 = await post(bulkBody({ stations: [], tariffs: Array.from({ length: 201 }, () => randomUUID()), vehicle: 'nope' }));
      expect(r2.status).toBe(400);
      expect(r2.json.errors[0]).toMatchObject({ title: 'at most 200 tariffs per request', source: { pointer: '/data/relationships/tariffs/data' } });
      const exact = await post(bulkBody({ stations: many.slice(0, 100), tariffs: Array.from({ length: 200 }, () => randomUUID()), vehicle: vehicle.id }));
      expect(exact.status).toBe(200);
      // Non-object items beyond the limit: still the limit error.
      const junk = bulkBody({ stations: [], tariffs: [], vehicle: vehicle.id }) as any;
      junk.data.relationships.charging_stations.data = Array.from({ length: 150 }, (_, i) => i);
      expect((await post(junk)).json.errors[0].title).toBe('at most 100 charging stations per request');
    });

    it('an unknown currency is 404, an unknown vehicle 400, currency first (D10, D20)', async () => {
      const r1 = await post(bulkBody({ stations: [], tariffs: [], vehicle: 'nope', attributes: { currency: 'QQQ' } }));
      expect(r1.status).toBe(404);
      expect(r1.json).toEqual({ errors: [{ status: '404', code: 'NOT_FOUND', title: 'No currency with iso QQQ' }] });
      const r2 = await post(bulkBody({ stations: [], tariffs: [], vehicle: 'nope' }));
      expect(r2.status).toBe(400);
      expect(r2.json).toEqual({
        errors: [{ status: '400', code: 'BAD_REQUEST', title: 'vehicle nope not found', source: { pointer: '/data/relationships/vehicle/data/id' } }],
      });
    });

    const cases: [string, (b: any) => void, string][] = [
      ['battery_range missing', (b) => delete b.data.attributes.battery_range, '/data/attributes/battery_range'],
      ['battery_range reversed', (b) => (b.data.attributes.battery_range = [80, 20]), '/data/attributes/battery_range'],
      ['battery_range out of range', (b) => (b.data.attributes.battery_range = [-1, 20]), '/data/attributes/battery_range/0'],
      ['battery_range strings', (b) => (b.data.attributes.battery_range = ['1', '2']), '/data/attributes/battery_range/0'],
      ['start_time 1440', (b) => (b.data.attributes.start_time = 1440), '/data/attributes/start_time'],
      ['currency of 2 letters', (b) => (b.data.attributes.currency = 'EU'), '/data/attributes/currency'],
      ['charge_points_power_lte 0', (b) => (b.data.attributes.charge_points_power_lte = 0), '/data/attributes/charge_points_power_lte'],
      ['include_direct_payment a string', (b) => (b.data.attributes.include_direct_payment = 'yes'), '/data/attributes/include_direct_payment'],
      ['allow_unbalanced_load a number', (b) => (b.data.attributes.allow_unbalanced_load = 1), '/data/attributes/allow_unbalanced_load'],
      ['charging_stations missing', (b) => delete b.data.relationships.charging_stations, '/data/relationships/charging_stations'],
      ['tariffs missing', (b) => delete b.data.relationships.tariffs, '/data/relationships/tariffs'],
      ['vehicle missing', (b) => delete b.data.relationships.vehicle, '/data/relationships/vehicle'],
      ['relationships missing', (b) => delete b.data.relationships, '/data/relationships'],
      ['attributes missing', (b) => delete b.data.attributes, '/data/attributes'],
      ['station reference of another type', (b) => (b.data.relationships.charging_stations.data = [{ type: 'station', id: 'x' }]), '/data/relationships/charging_stations/data/0/type'],
      ['station reference without id', (b) => (b.data.relationships.charging_stations.data = [{ type: 'charging_station' }]), '/data/relationships/charging_stations/data/0/id'],
      ['tariffs not an array', (b) => (b.data.relationships.tariffs.data = 'x'), '/data/relationships/tariffs/data'],
      ['vehicle of another type', (b) => (b.data.relationships.vehicle.data.type = 'bike'), '/data/relationships/vehicle/data/type'],
      ['wrong data.type', (b) => (b.data.type = 'charge_price_request'), '/data/type'],
    ];
    for (const [name, mutate, pointer] of cases) {
      it(`when ${name}, then 400 pointing at ${pointer}`, async () => {
        const b = bulkBody({ stations: [], tariffs: [], vehicle: vehicle.id });
        mutate(b);
        const r = await post(b);
        expect(r.status, r.text).toBe(400);
        expect(r.json.errors.map((e: any) => e.source?.pointer)).toContain(pointer);
      });
    }

    it('403 for a missing key, an unknown key and a key without ReadCosts', async () => {
      const body = bulkBody({ stations: [], tariffs: [], vehicle: vehicle.id });
      expect((await call(srv, 'POST', '/v1/charge_prices/bulk', { body })).json.errors[0].title).toBe('api_key missing');
      expect((await call(srv, 'POST', '/v1/charge_prices/bulk', { body, key: 'x' })).json.errors[0].title).toBe('api_key invalid');
      const r = await call(srv, 'POST', '/v1/charge_prices/bulk', { body, key: keyFor('bench') });
      expect(r.status).toBe(403);
      expect(r.json).toEqual({ errors: [{ status: '403', code: 'FORBIDDEN', title: 'action read_costs not allowed' }] });
    });
  });
});
