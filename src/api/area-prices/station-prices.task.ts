/**
 * The bulk calculation over stations given by index for area and route price search (D110–D114), as
 * a compact document the handler reads (`{"p":[[position,price,energy,duration,plug,power,tariff id],…]}`).
 */
import { bulkPreview, type StationContext } from '../../domain/pricing/index.js';
import type { StationPricesTask, TaskDocument, TaskEnv } from '../../pool/protocol.js';
import { scratch } from '../price-scratch.js';

const js = JSON.stringify;

export function runStationPrices(env: TaskEnv, t: StationPricesTask): TaskDocument {
  const { catalog, rates, stations } = env;
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
  const previews = bulkPreview(catalog, { ...t, stations: contexts }, rates, scratch.bulk);
  const parts: string[] = [];
  for (const p of previews) {
    const cp = contexts[p.station].charge_points[p.chargePoint];
    parts.push(`[${at[p.station]},${js(p.price)},${js(p.energy)},${js(p.duration)},${js(cp.plug)},${js(cp.power)},${js(p.tariffId)}]`);
  }
  return { status: 200, body: `{"p":[${parts.join(',')}]}` };
}
