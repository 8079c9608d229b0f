/**
 * The bulk calculation over stations given by index for area and route price search (D110–D114)
 * and price tiles (D198), as station price rows the handler reads where they lie (D288,
 * src/pool/price-rows.ts): per priced station its position in the task, price, energy, duration,
 * plug, power and tariff.
 */
import { bulkPreview, type StationContext } from '../../domain/pricing/index.js';
import type { StationPricesMessage, StationPricesTask, TaskDocument, TaskEnv } from '../../pool/protocol.js';
import { encodeStationPriceRows } from '../../pool/price-rows.js';
import { Interner } from '../../domain/interner.js';
import { scratch } from '../price-scratch.js';

/** The last base text parsed: the parts of one request, and a price tile profile's runs, send the same. */
let lastBase: { text: string; base: Omit<StationPricesTask, 'stations'> } | null = null;

/** Runs a task as the pool sends it (its base as JSON text, D288). */
export function runStationPricesMessage(env: TaskEnv, m: StationPricesMessage): TaskDocument {
  if (lastBase === null || lastBase.text !== m.base) lastBase = { text: m.base, base: JSON.parse(m.base) as Omit<StationPricesTask, 'stations'> };
  return runStationPrices(env, { ...lastBase.base, stations: m.stations });
}

/**
 * The task's stations that can be priced, as pricing contexts (their charge points narrowed by
 * the plug and power filters), with each one's position in the task (`at`).
 */
export function pricedStationContexts(env: TaskEnv, t: StationPricesTask): { contexts: StationContext[]; at: number[] } {
  const { stations } = env;
  const contexts: StationContext[] = [];
  const at: number[] = [];
  const plugs = t.plugs === null ? null : new Set(t.plugs.map((p) => p.toLowerCase()));
  const gte = t.chargePointsPowerGte;
  const given = t.stations;
  const count = 'indices' in given ? given.indices.length : given.ids.length;
  for (let pos = 0; pos < count; pos++) {
    const i = 'indices' in given ? given.indices[pos] : stations.find(given.ids[pos]);
    if (!(i >= 0 && i < stations.d.n)) continue;
    const op = stations.operatorAt(i);
    if (op === null) continue;
    let cps = stations.chargePointsAt(i);
    if (plugs !== null || gte !== null) cps = cps.filter((cp) => (plugs === null || plugs.has(cp.plug.toLowerCase())) && (gte === null || cp.power >= gte));
    if (cps.length === 0) continue;
    at.push(pos);
    contexts.push({ id: stations.idAt(i), country: stations.countryAt(i), cpo_id: op, charge_points: cps });
  }
  return { contexts, at };
}

export function runStationPrices(env: TaskEnv, t: StationPricesTask): TaskDocument {
  const { contexts, at } = pricedStationContexts(env, t);
  const previews = bulkPreview(env.catalog, { ...t, stations: contexts }, env.rates, scratch.bulk);
  const table = new Interner();
  const plugOf = new Int32Array(previews.length);
  const tariffOf = new Int32Array(previews.length);
  for (let r = 0; r < previews.length; r++) {
    const p = previews[r];
    plugOf[r] = table.of(contexts[p.station].charge_points[p.chargePoint].plug);
    tariffOf[r] = table.of(p.tariffId);
  }
  const body = encodeStationPriceRows(previews.length, table.values, (rows) => {
    for (let r = 0; r < previews.length; r++) {
      const p = previews[r];
      rows.position[r] = at[p.station];
      // `+ 0`: −0 arrives as 0, as it did through JSON text.
      rows.price[r] = p.price + 0;
      rows.energy[r] = p.energy + 0;
      rows.duration[r] = p.duration + 0;
      rows.power[r] = contexts[p.station].charge_points[p.chargePoint].power + 0;
      rows.plug[r] = plugOf[r];
      rows.tariff[r] = tariffOf[r];
    }
  });
  return { status: 200, body };
}
