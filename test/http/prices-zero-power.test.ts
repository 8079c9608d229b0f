/**
 * A charge point of 0 kW (allowed by the schema) with a vehicle never finishes charging: it is
 * unusable (D78) and the answer comes at once. Before, the session had no end and pricing a
 * time-of-day segment walked it a day at a time for ever, on the main thread (found by the fuzzer).
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Snapshot } from '../../src/storage/snapshot.js';
import { call, keyFor, startTestApp, type TestApp } from '../helpers/server.js';
import { chargeBody, comp, putCompany, putTariff, ref, seg } from '../pool/price-fixtures.js';

const W = keyFor('writer');
const C = keyFor('costs');

describe('charge points of 0 kW with a vehicle', () => {
  let srv: TestApp;
  beforeAll(async () => {
    srv = await startTestApp({ keys: { writer: 'WriteTariffs,ReadTariffs', costs: 'ReadCosts' } });
  });
  afterAll(async () => {
    await srv.stop();
  });

  it('are unusable, and the charge prices are answered at once', async () => {
    const vehicle = (() => {
      const snap = Snapshot.open(inject('testSnapshot'));
      try {
        return snap.vehicles().find((v) => ((v.data as { ac_charger?: { max_power?: number } }).ac_charger?.max_power ?? 0) > 0)!.id;
      } finally {
        snap.close();
      }
    })();
    const emp = await putCompany(srv, W, {});
    const cpo = await putCompany(srv, W, { is_cpo: true, is_emp: false, supported_emps: [emp] });
    const t = await putTariff(srv, W, emp, {
      attributes: { prices: [comp([seg('minute', 0.05, { time_of_day_start: 1320, time_of_day_end: 360 }), seg('kwh', 0.4)])] },
    });
    const body = chargeBody({
      network: cpo,
      charge_points: [{ plug: 'type2', power: 0 }, { plug: 'type2', power: 22 }],
      options: { battery_range: [10, 90] },
      relationships: { vehicle: { data: ref('car', vehicle) } },
    });
    const t0 = performance.now();
    const r = await call(srv, 'POST', '/v1/charge_prices', { key: C, body });
    expect(performance.now() - t0).toBeLessThan(5000);
    expect(r.status, r.text).toBe(200);
    expect(r.json.data.map((d: { relationships: { tariff: { data: { id: string } } } }) => d.relationships.tariff.data.id)).toEqual([t]);
    expect(r.json.meta.charge_points.map((c: { power: number }) => c.power)).toEqual([22]);
    const only = await call(srv, 'POST', '/v1/charge_prices', {
      key: C,
      body: { ...body, data: { ...body.data, attributes: { ...body.data.attributes, station: { ...body.data.attributes.station, charge_points: [{ plug: 'type2', power: 0 }] } } } },
    });
    expect(only.status).toBe(200);
    expect(only.json.meta.charge_points).toEqual([]);
  });
});
