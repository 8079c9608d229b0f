/**
 * The trip plan's work on a pricing thread (D268–D271): the stop cost table of the corridor's
 * candidate stations, the search over it, and for the plan found its stops' choices (charge point,
 * tariff, price, energy, minutes); when none is found, where the car runs out and the least start
 * charge with which a plan exists.
 */
import type { StationContext } from '../../domain/pricing/index.js';
import { TripCosts } from '../../domain/trips/costs.js';
import { gridOf, searchTrip, type TripProblem } from '../../domain/trips/search.js';
import type { TaskDocument, TaskEnv, TripPlanTask } from '../../pool/protocol.js';

const js = JSON.stringify;

/** The candidate stations with their charge points narrowed (D267); `at` maps back to the task's positions. */
function contexts(env: TaskEnv, t: TripPlanTask): { list: StationContext[]; at: number[] } {
  const { stations } = env;
  const plugs = t.plugs === null ? null : new Set(t.plugs.map((p) => p.toLowerCase()));
  const gte = t.chargePointsPowerGte;
  const lte = t.chargePointsPowerLte;
  const given = t.stations;
  const count = 'indices' in given ? given.indices.length : given.ids.length;
  const list: StationContext[] = [];
  const at: number[] = [];
  for (let pos = 0; pos < count; pos++) {
    const i = 'indices' in given ? given.indices[pos] : stations.find(given.ids[pos]);
    if (!(i >= 0 && i < stations.d.n)) continue;
    const op = stations.operatorAt(i);
    if (op === null) continue;
    const cps = stations.chargePointsAt(i).filter((cp) => (plugs === null || plugs.has(cp.plug.toLowerCase())) && (gte === null || cp.power >= gte) && (lte === null || cp.power <= lte));
    if (cps.length === 0) continue;
    at.push(pos);
    list.push({ id: stations.idAt(i), country: stations.countryAt(i), cpo_id: op, charge_points: cps });
  }
  return { list, at };
}

export function runTripPlan(env: TaskEnv, t: TripPlanTask): TaskDocument {
  const { list, at } = contexts(env, t);
  const costs = new TripCosts(env.catalog, env.rates, {
    stations: list,
    vehicle: t.vehicle,
    tariffIds: t.tariffIds,
    includeDirectPayment: t.includeDirectPayment,
    currency: t.currency,
    startTime: t.startTime,
    startDay: t.startDay,
    allowUnbalancedLoad: t.allowUnbalancedLoad,
    timeValue: t.timeValue,
    minSoc: t.minSoc,
    maxSoc: t.maxSoc,
    step: t.step,
  });
  let priced = 0;
  const { pairs, lo } = gridOf(t.minSoc, t.maxSoc, t.step);
  for (let k = 0; k < list.length; k++) {
    for (let x = 0; x < pairs; x++) {
      if (costs.cost[k * pairs + x] !== Infinity) {
        priced++;
        break;
      }
    }
  }
  // Detour minutes per station: twice the distance from the route at detour_speed.
  const detourMinutes = at.map((pos) => ((2 * t.off[pos]) / 1000 / t.detourSpeed) * 60);
  const problem: TripProblem = {
    along: Float64Array.from(at, (pos) => t.along[pos]),
    off: Float64Array.from(at, (pos) => t.off[pos]),
    length: t.length,
    battery: t.vehicle.usable_battery_size,
    consumption: t.consumption,
    startSoc: t.startSoc,
    minSoc: t.minSoc,
    maxSoc: t.maxSoc,
    step: t.step,
    detourCost: Float64Array.from(detourMinutes, (m) => (t.timeValue * m) / 60),
    cost: costs.cost,
  };
  const r = searchTrip(problem);
  if (!r.ok) {
    let needed: number | null = null;
    for (let s = Math.max(0, Math.ceil(t.startSoc)); s <= 100 && needed === null; s++) if (searchTrip({ ...problem, startSoc: s }).ok) needed = s;
    return { status: 200, body: `{"ok":false,"runs_out":${js(r.runsOut)},"start_soc_needed":${js(needed)},"priced":${priced}}` };
  }
  const stops = r.stops.map((s) => {
    const c = costs.choice(s.station, Math.round(s.from / t.step) - lo, Math.round(s.to / t.step) - lo)!;
    const cp = list[s.station].charge_points[c.chargePoint];
    const minutes = detourMinutes[s.station];
    return `[${at[s.station]},${js(s.arrival)},${s.from},${s.to},${js(cp.plug)},${js(cp.power)},${js(c.tariffId)},${js(c.price)},${js(c.energy)},${js(c.duration)},${js(minutes)}]`;
  });
  return { status: 200, body: `{"ok":true,"cost":${js(r.cost)},"arrival":${js(r.arrival)},"stops":[${stops.join(',')}],"priced":${priced}}` };
}
