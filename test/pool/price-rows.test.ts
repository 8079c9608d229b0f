/**
 * Station price rows (D288): the record round-trips every column exactly (aligned, unaligned,
 * in a shared output slot); the `stationPrices` task's rows equal, value for value, the JSON text
 * the task answered before (kept here as the twin) over random requests on the test snapshot and
 * catalog, also as the pool sends it (the base as JSON text); and the area and route answers'
 * previews written from the rows are byte for byte what the text templates gave.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { bulkPreview } from '../../src/domain/pricing/index.js';
import { mulberry32 } from '../../src/domain/random.js';
import { StationIndex } from '../../src/domain/stations/index.js';
import { VehicleRegistry } from '../../src/domain/vehicles/vehicle.js';
import { pricedStationContexts, runStationPrices, runStationPricesMessage } from '../../src/api/area-prices/station-prices.task.js';
import { PreviewWriter, PricedStations, previewAttributesText } from '../../src/api/area-prices/preview-writer.js';
import { scratch } from '../../src/api/price-scratch.js';
import { vehiclePricing } from '../../src/api/price-inputs.js';
import { StoreCatalog, rateTable } from '../../src/pool/catalog.js';
import { OutputSlots, createOutputSlots } from '../../src/pool/output.js';
import { decodeStationPriceRows, encodeStationPriceRows, type StationPriceRows } from '../../src/pool/price-rows.js';
import type { StationPricesTask, TaskEnv } from '../../src/pool/protocol.js';
import { StationView, shareStationColumns } from '../../src/pool/stations.js';
import { openLiveStoreReadonly } from '../../src/storage/open.js';
import { Snapshot } from '../../src/storage/snapshot.js';
import { loadTariffs } from '../../src/storage/tariffs.js';
import type { LiveStore } from '../../src/storage/live.js';
import { startTestApp, type TestApp } from '../helpers/server.js';

const js = JSON.stringify;

/** The twin: the task's answer as JSON text, as it was written before the rows. */
function stationPricesText(env: TaskEnv, t: StationPricesTask): string {
  const { catalog, rates } = env;
  const { contexts, at } = pricedStationContexts(env, t);
  const previews = bulkPreview(catalog, { ...t, stations: contexts }, rates, scratch.bulk);
  const parts: string[] = [];
  for (const p of previews) {
    const cp = contexts[p.station].charge_points[p.chargePoint];
    parts.push(`[${at[p.station]},${js(p.price)},${js(p.energy)},${js(p.duration)},${js(cp.plug)},${js(cp.power)},${js(p.tariffId)}]`);
  }
  return `{"p":[${parts.join(',')}]}`;
}

type Row = [number, number, number, number, string, number, string];
const rowOf = (v: StationPriceRows, r: number): Row => [v.position[r], v.price[r], v.energy[r], v.duration[r], v.strings[v.plug[r]], v.power[r], v.strings[v.tariff[r]]];

/** Whether two rows are the same values (Object.is: −0 and 0 differ). */
const same = (a: Row, b: Row): boolean => a.length === b.length && a.every((x, k) => Object.is(x, b[k]));

function randomNumber(rnd: () => number): number {
  switch (Math.floor(rnd() * 10)) {
    case 6:
      return Math.round(rnd() * 1e15) / 100;
    case 7:
      return Math.round(rnd() * 1e17);
    case 8:
      return Math.round(rnd() * 100) / 1000;
    case 9:
      return [0, 0.01, 0.1, 0.5, 1, 9.99, 10, 99.99, 100, 1e13 - 0.01, 1e13, 0.07, 1.005, 1.15, 2.675][Math.floor(rnd() * 15)];
    case 0:
      return Math.floor(rnd() * 1000);
    case 1:
      return Math.round(rnd() * 10_000) / 100;
    case 2:
      return rnd() * 1e6;
    case 3:
      return rnd() * 1e-7;
    case 4:
      return (rnd() - 0.5) * 1e22;
    default:
      return 0.1 + 0.2 * Math.floor(rnd() * 5);
  }
}

describe('station price rows (D288)', () => {
  it('round-trips every column exactly: aligned, unaligned and in a shared output slot', () => {
    const rnd = mulberry32(52);
    for (let c = 0; c < 200; c++) {
      const n = Math.floor(rnd() * 50);
      const strings = ['ccs', 'Typ "2" ä', 'tariff-\u2603', ...Array.from({ length: Math.floor(rnd() * 4) }, (_, k) => `t${k}\\${c}`)];
      const want: Row[] = Array.from({ length: n }, () => [
        Math.floor(rnd() * 1e6),
        randomNumber(rnd),
        randomNumber(rnd),
        randomNumber(rnd),
        strings[Math.floor(rnd() * strings.length)],
        randomNumber(rnd),
        strings[Math.floor(rnd() * strings.length)],
      ]);
      const record = encodeStationPriceRows(n, strings, (v) => {
        for (let r = 0; r < n; r++) {
          const w = want[r];
          v.position[r] = w[0];
          v.price[r] = w[1];
          v.energy[r] = w[2];
          v.duration[r] = w[3];
          v.plug[r] = strings.indexOf(w[4]);
          v.power[r] = w[5];
          v.tariff[r] = strings.indexOf(w[6]);
        }
      });
      // Aligned; then at an odd offset (copied); then in a shared output slot, as the pool reads it.
      const odd = new Uint8Array(record.length + 3);
      odd.set(record, 3);
      const slots = new OutputSlots(createOutputSlots(2, 1 << 16));
      const k = slots.put(record);
      for (const bytes of [record, odd.subarray(3), slots.view(k, record.length)]) {
        const v = decodeStationPriceRows(bytes);
        expect(v.n).toBe(n);
        for (let r = 0; r < n; r++) expect(same(rowOf(v, r), want[r]), `case ${c} row ${r}`).toBe(true);
      }
    }
  });

  describe('against the JSON text twin', () => {
    let srv: TestApp;
    let store: LiveStore;
    let env: TaskEnv;
    let index: StationIndex;
    let tariffIds: string[];
    let vehicles: string[];
    let registry: VehicleRegistry;

    beforeAll(async () => {
      srv = await startTestApp();
      const snapshot = Snapshot.open(inject('testSnapshot'));
      const columns = snapshot.stationColumns();
      index = new StationIndex(columns);
      registry = new VehicleRegistry(snapshot.vehicles(), snapshot.brands());
      vehicles = snapshot.vehicles().map((v) => v.id);
      const rates = rateTable(snapshot.meta.ratesDate, snapshot.rates());
      snapshot.close();
      store = await openLiveStoreReadonly({ dataDir: srv.dataDir, databaseUrl: srv.databaseUrl }, 1);
      tariffIds = (await store.read((s) => loadTariffs(s))).map((t) => t.id);
      const catalog = (await StoreCatalog.open(store)).catalog;
      env = { catalog, rates, stations: new StationView(shareStationColumns(columns)) };
    }, 120_000);
    afterAll(async () => {
      await store?.close();
      await srv?.stop();
    });

    /** A random request: a run of neighbouring stations (by position in the kd index), given by index or id. */
    function randomTask(rnd: () => number): StationPricesTask {
      const n = index.size;
      const count = 1 + Math.floor(rnd() * 400);
      const from = Math.floor(rnd() * Math.max(1, n - count));
      const kids = index.kd.ids;
      const picked = Array.from({ length: count }, (_, k) => kids[from + k]);
      const byId = rnd() < 0.3;
      const ids = picked.map((i) => (rnd() < 0.02 ? 'not-a-station' : index.idAt(i)));
      const tariffs = tariffIds.filter(() => rnd() < 0.7);
      const plugSets = [null, ['ccs'], ['TYPE2', 'ccs'], ['chademo']];
      return {
        stations: byId ? { ids } : { indices: Int32Array.from(picked) },
        tariffIds: tariffs,
        vehicle: vehiclePricing(registry.get(vehicles[Math.floor(rnd() * vehicles.length)])!),
        batteryRange: [Math.floor(rnd() * 40), 50 + Math.floor(rnd() * 50)],
        currency: rnd() < 0.7 ? 'EUR' : 'USD',
        startTime: Math.floor(rnd() * 1440),
        startDay: Math.floor(rnd() * 8),
        allowUnbalancedLoad: rnd() < 0.5,
        includeDirectPayment: rnd() < 0.5,
        chargePointsPowerLte: rnd() < 0.3 ? 50 + Math.floor(rnd() * 200) : null,
        chargePointsPowerGte: rnd() < 0.3 ? Math.floor(rnd() * 100) : null,
        plugs: plugSets[Math.floor(rnd() * plugSets.length)],
      };
    }

    it('the task answers the twin’s rows, value for value, over 300 random requests', () => {
      const rnd = mulberry32(5252);
      let rows = 0;
      for (let c = 0; c < 300; c++) {
        const t = randomTask(rnd);
        const want = (JSON.parse(stationPricesText(env, t)) as { p: Row[] }).p;
        const doc = runStationPrices(env, t);
        expect(doc.status).toBe(200);
        const v = decodeStationPriceRows(doc.body as Uint8Array);
        expect(v.n, `case ${c}`).toBe(want.length);
        // As the pool sends it: everything but the stations as JSON text.
        const { stations, ...base } = t;
        expect(Buffer.from(runStationPricesMessage(env, { base: js(base), stations }).body as Uint8Array).equals(doc.body as Uint8Array), `case ${c} as a message`).toBe(true);
        for (let r = 0; r < v.n; r++) expect(same(rowOf(v, r), want[r]), `case ${c} row ${r}: ${js(rowOf(v, r))} ≠ ${js(want[r])}`).toBe(true);
        rows += v.n;
      }
      // The requests price something: the comparison is not over empty answers.
      expect(rows).toBeGreaterThan(1000);
    });

    it('the previews written from the rows are the text templates’ bytes', () => {
      const rnd = mulberry32(7);
      const writer = new PreviewWriter(index);
      const plugs = ['ccs', 'Typ "2"', 'schuko ä', 'chademo'];
      for (let c = 0; c < 600; c++) {
        const m = 1 + Math.floor(rnd() * 300);
        const indices = Array.from({ length: m }, () => Math.floor(rnd() * index.size));
        const s = new PricedStations(indices);
        const strings = [...plugs, 'tariff'];
        const record = encodeStationPriceRows(m, strings, (v) => {
          for (let r = 0; r < m; r++) {
            v.position[r] = r;
            v.price[r] = randomNumber(rnd);
            v.energy[r] = randomNumber(rnd);
            v.duration[r] = randomNumber(rnd);
            v.power[r] = randomNumber(rnd);
            v.plug[r] = Math.floor(rnd() * plugs.length);
            v.tariff[r] = plugs.length;
          }
        });
        const v = decodeStationPriceRows(record);
        for (let r = 0; r < m; r++) if (rnd() < 0.8) s.set(v.position[r], v, r);
        s.collect();
        const route = rnd() < 0.5;
        if (route || rnd() < 0.5) s.distance = Array.from({ length: m }, () => randomNumber(rnd));
        if (route) s.detour = Array.from({ length: m }, () => randomNumber(rnd));
        const best = s.order.filter(() => rnd() < 0.9);
        const cur = js(rnd() < 0.5 ? 'EUR' : 'CHF');
        const twin = best
          .map((j) => {
            const id = js(index.idAt(indices[j]));
            return `{"id":${id},"type":"charge_price_preview","attributes":{${previewAttributesText(s, j, cur, route)}},"relationships":{"charging_station":{"data":{"type":"charging_station","id":${id}}}}}`;
          })
          .join(',');
        const got = writer.write(s, best, cur, route);
        expect(got.toString('utf8')).toBe(`{"data":[${twin}`);
        expect(got.equals(Buffer.from(`{"data":[${twin}`))).toBe(true);
      }
    });
  });
});
