/**
 * Charge prices over HTTP at real stations of the test snapshot with the default tariff catalog
 * (including EVSE-level prices, D39) plus seeded random tariffs, cross-checked price by price
 * against the reference evaluator.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { vehiclePricing } from '../../src/api/price-inputs.js';
import { energyTypeOfPlug, sessionForEnergy, sessionForVehicle, type RateTable, type VehiclePricing } from '../../src/domain/pricing/index.js';
import { haversineMeters } from '../../src/domain/stations/geo.js';
import type { StationRecord } from '../../src/domain/stations/model.js';
import { VehicleRegistry } from '../../src/domain/vehicles/vehicle.js';
import { Snapshot } from '../../src/storage/snapshot.js';
import { call, keyFor, startTestApp, type TestApp } from '../helpers/server.js';
import { chargeBody, comp, putTariff, ref, seg } from '../pool/price-fixtures.js';
import { close, loadRefCatalog, refPrice, usable, type RefCatalog } from '../pool/reference-check.js';
import { mulberry32 } from '../../src/domain/random.js';

const W = keyFor('writer');
const C = keyFor('costs');

describe('charge prices at real stations = reference evaluator', () => {
  let srv: TestApp;
  let snap: Snapshot;
  let rates: RateTable;
  let vehicle: VehiclePricing;
  let all: StationRecord[];
  let sample: StationRecord[];

  beforeAll(async () => {
    srv = await startTestApp({ keys: { writer: 'WriteTariffs,ReadTariffs', costs: 'ReadCosts' } });
    snap = Snapshot.open(inject('testSnapshot'));
    rates = { date: snap.meta.ratesDate, rates: { EUR: 1, ...snap.rates() } };
    const reg = new VehicleRegistry(snap.vehicles(), snap.brands());
    vehicle = vehiclePricing(snap.vehicles().map((r) => reg.get(r.id)!).find((v) => v.dc_ports.includes('ccs') && v.ac_max_power > 0 && v.ac_phases === 1) ?? reg.get(snap.vehicles()[0].id)!);
    const cols = snap.stationColumns();
    all = [];
    for (let i = 0; i < cols.n; i++) all.push(snap.station(cols.ids.toString('latin1', i * 36, (i + 1) * 36))!);
    const cat = await loadRefCatalog(srv.dataDir, srv.databaseUrl);
    // Stations with EVSE-level prices first, then every 97th station with an operator.
    const evseStations = new Set<string>();
    for (const m of cat.evse.values()) for (const id of m.keys()) evseStations.add(id);
    const withEvse = all.filter((s) => evseStations.has(s.id) && s.operator_id).slice(0, 8);
    const others = all.filter((s, i) => i % 97 === 0 && s.operator_id).slice(0, 8);
    sample = [...withEvse, ...others];
    // Seeded random tariffs at the sampled operators (direct, D66): windows, ranges, increments, currencies.
    const r = mulberry32(42);
    const pick = <T,>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
    for (const op of new Set(sample.map((s) => s.operator_id!))) {
      for (let k = 0; k < 3; k++) {
        const segs = [];
        for (let j = 0; j < 1 + Math.floor(r() * 3); j++) {
          const dim = pick(['kwh', 'minute', 'session'] as const);
          const extra: Record<string, unknown> = {};
          if (r() < 0.3) Object.assign(extra, { time_of_day_start: pick([0, 360, 1320]), time_of_day_end: pick([360, 1320, 1440]) });
          if (dim !== 'session' && r() < 0.3) Object.assign(extra, { range_gte: pick([0, 10, 60]) });
          if (dim !== 'session' && r() < 0.3) extra.billing_increment = pick([1, 5, 15]);
          segs.push(seg(dim, Math.round(r() * 100) / 100, extra));
        }
        const restrictions = r() < 0.5 ? [{ allowance: pick(['allow', 'deny']), charge_point_energy_type: pick(['ac', 'dc']) }] : [];
        await putTariff(srv, W, op, { attributes: { currency: pick(['EUR', 'CHF', 'EUR']), prices: [comp(segs, restrictions), comp([seg('kwh', 0.42)])] } });
      }
    }
  });
  afterAll(async () => {
    snap.close();
    await srv.stop();
  });

  /** D39 written independently: the operator's station nearest within 50 m, ties by id. */
  function contextStation(s: StationRecord): string | null {
    let best: { d: number; id: string } | null = null;
    for (const x of all) {
      if (x.operator_id !== s.operator_id) continue;
      const d = haversineMeters(s.latitude, s.longitude, x.latitude, x.longitude);
      if (d > 50) continue;
      if (best === null || d < best.d || (d === best.d && x.id < best.id)) best = { d, id: x.id };
    }
    return best?.id ?? null;
  }

  function check(doc: any, cat: RefCatalog, s: StationRecord, cps: { plug: string; power: number }[], sessionOf: (cp: { plug: string; power: number }) => any, o: { startTime: number; currency: string }, stationId: string | null): number {
    let compared = 0;
    const seen = new Set<string>();
    for (const d of doc.data) {
      const tid = d.relationships.tariff.data.id;
      seen.add(tid);
      const t = cat.tariffs.get(tid)!;
      expect(usable(cat, t.emp_id, s.operator_id!), tid).not.toBe('none');
      for (const p of d.attributes.charge_point_prices) {
        const cp = cps.find((c) => c.plug === p.plug && c.power === p.power)!;
        const e = energyTypeOfPlug(cp.plug) ?? (cp.power > 43 ? 'dc' : 'ac');
        const want = refPrice(cat, tid, { id: stationId, cpo_id: s.operator_id!, country: s.country.toUpperCase() }, { energy_type: e, power: cp.power }, sessionOf(cp), { ...o, rates });
        const ctx = `${s.id} ${tid} ${cp.plug} ${cp.power}: ${p.price} vs ${want.price}`;
        if (want.price === null) {
          expect(p.price, ctx).toBeNull();
          continue;
        }
        expect(p.price, ctx).not.toBeNull();
        expect(close(p.price, want.price), ctx).toBe(true);
        expect(Object.keys(p.price_distribution), ctx).toEqual(Object.keys(want.distribution));
        for (const k of Object.keys(want.distribution)) expect(close(p.price_distribution[k], want.distribution[k]), ctx).toBe(true);
        expect(p.blocking_fee_start, ctx).toBe(want.blockingFeeStart);
        expect(p.is_average_price, ctx).toBe(want.isAverage);
        compared++;
      }
    }
    // Every usable tariff priced somewhere by the reference is in the answer.
    for (const t of cat.tariffs.values()) {
      if (t.type !== 'tariff' || usable(cat, t.emp_id, s.operator_id!) === 'none' || seen.has(t.id)) continue;
      for (const cp of cps) {
        const session = sessionOf(cp);
        if (session === null) continue;
        const e = energyTypeOfPlug(cp.plug)!;
        const want = refPrice(cat, t.id, { id: stationId, cpo_id: s.operator_id!, country: s.country.toUpperCase() }, { energy_type: e, power: cp.power }, session, { ...o, rates });
        expect(want.price, `${t.id} missing at ${s.id}`).toBeNull();
      }
    }
    return compared;
  }

  const requestCps = (s: StationRecord) => s.charge_points.filter((c) => energyTypeOfPlug(c.plug) !== null).map((c) => ({ plug: c.plug, power: c.power }));
  const allOptions = { show_price_unavailable: true, show_all_brand_restricted_tariffs: true, provider_customer_tariffs: true };

  it('Set B at each sampled station (station context from the coordinates)', async () => {
    const cat = await loadRefCatalog(srv.dataDir, srv.databaseUrl);
    let compared = 0;
    let withContext = 0;
    for (const s of sample) {
      const cps = requestCps(s);
      if (cps.length === 0) continue;
      const stationId = contextStation(s);
      if (stationId !== null && cat.evse.size > 0) withContext++;
      const start = 1000;
      const r = await call(srv, 'POST', '/v1/charge_prices', {
        key: C,
        body: chargeBody({ network: s.operator_id!, country: s.country, latitude: s.latitude, longitude: s.longitude, charge_points: cps, options: { energy: 35, duration: 75, start_time: start, currency: 'EUR', ...allOptions } }),
      });
      expect(r.status, r.text).toBe(200);
      compared += check(r.json, cat, s, cps, () => sessionForEnergy(35, 75), { startTime: start, currency: 'EUR' }, stationId);
    }
    expect(withContext).toBeGreaterThan(0);
    expect(compared).toBeGreaterThan(50);
  });

  it('Set A with a one-phase vehicle in CHF at each sampled station', async () => {
    const cat = await loadRefCatalog(srv.dataDir, srv.databaseUrl);
    let compared = 0;
    for (const s of sample) {
      const cps = requestCps(s);
      if (cps.length === 0) continue;
      const sessionOf = (cp: { plug: string; power: number }) => {
        const e = energyTypeOfPlug(cp.plug)!;
        if (e === 'dc' && !(vehicle.dc_max_power && vehicle.dc_ports.includes(cp.plug.toLowerCase()))) return null;
        if (e === 'ac' && !(vehicle.ac_max_power > 0)) return null;
        return sessionForVehicle(vehicle, e, cp.power, [15, 85], { carAcPhases: 3, allowUnbalancedLoad: false });
      };
      const r = await call(srv, 'POST', '/v1/charge_prices', {
        key: C,
        body: chargeBody({
          network: s.operator_id!,
          country: s.country,
          latitude: s.latitude,
          longitude: s.longitude,
          charge_points: cps,
          options: { battery_range: [15, 85], currency: 'CHF', ...allOptions },
          relationships: { vehicle: { data: ref('car', vehicle.id) } },
        }),
      });
      expect(r.status, r.text).toBe(200);
      const usableCps = cps.filter((cp) => sessionOf(cp) !== null);
      expect(r.json.meta.charge_points.map((m: any) => [m.plug, m.power])).toEqual(usableCps.map((c) => [c.plug, c.power]));
      compared += check(r.json, cat, s, cps, sessionOf, { startTime: 720, currency: 'CHF' }, contextStation(s));
    }
    expect(compared).toBeGreaterThan(30);
  });
});
