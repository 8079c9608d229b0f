/**
 * Trip plans (D267–D272) against what a client does without them: `POST /v1/trip_plans` Paris →
 * Lyon on the default snapshot, 200 tariffs (the catalog's plus ones generated at the busiest
 * operator), a BEV with CCS, DC stations (≥ 50 kW), against the client path — one route price
 * request (D111) per pair of charge levels of the grid, then the same search (src/domain/trips)
 * in the client — on loopback, one connection, in the same run. Both optima are checked equal
 * (time_value 0: the cheapest price per station is the stop cost). While the plans run, a second
 * connection asks `/health` every 5 ms: its slowest answer bounds how long the main thread was held.
 *
 *   npm run bench:trips [-- --duration 10] [--runs 3] [--snapshot <file>] [--client-passes 3]
 *        [--route parisLyon|hamburgMunich] [--power-gte 50] [--corridor 2000] [--along]
 *
 * `--along`: the generated tariffs are those of the forty operators with the most stations along the
 * route (their own tariffs), instead of the snapshot's busiest operator's.
 *
 * On the 1 M synthetic snapshot (`npm run bench:http` builds it), Hamburg → München with
 * `--route hamburgMunich --corridor 1000 --along` keeps the corridor's candidates within D270's bound.
 */
import fs from 'node:fs';
import http from 'node:http';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { defaultSnapshotPath } from '../src/config.js';
import polyline from '@mapbox/polyline';
import { Route } from '../src/domain/stations/corridor.js';
import { gridOf, pairIndex, searchTrip } from '../src/domain/trips/search.js';
import { BENCH_KEY, loadLine, machineLine, median, startService } from './lib/harness.js';
import { generateTariffs, pickFixture } from './scenarios.js';
import { ROUTES } from './area.js';

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const probeAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });
function req(port: number, method: string, p: string, body?: unknown, a = agent): Promise<any> {
  const b = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const r = http.request({ host: '127.0.0.1', port, method, path: p, agent: a, headers: { 'Api-Key': BENCH_KEY, 'Content-Type': 'application/json' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        if (res.statusCode !== 200) reject(new Error(`${method} ${p}: ${res.statusCode} ${text.slice(0, 400)}`));
        else resolve(JSON.parse(text));
      });
    });
    r.on('error', reject);
    r.end(b);
  });
}

const pct = (xs: number[], q: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
};

interface Case {
  polyline: string;
  tariffs: string[];
  vehicle: { id: string; battery: number; consumption: number };
}

/** The request's model; the corridor and the power bound are set from the arguments. */
const MODEL = { start_soc: 80, min_soc: 10, max_soc: 80, soc_step: 5, corridor: 2000, charge_points_power_gte: 50 };
let ROUTE: keyof typeof ROUTES = 'parisLyon';

const tripBody = (c: Case) => ({
  data: {
    type: 'trip_plan_request',
    attributes: { route: { polyline: c.polyline }, ...MODEL },
    relationships: { tariffs: { data: c.tariffs.map((id) => ({ type: 'tariff', id })) }, vehicle: { data: { type: 'car', id: c.vehicle.id } } },
  },
});

/** The client path: route prices for every pair of grid levels, then the same search, client side. */
async function clientPlan(port: number, c: Case): Promise<{ cost: number; requests: number }> {
  const g = gridOf(MODEL.min_soc, MODEL.max_soc, MODEL.soc_step);
  const rows = new Map<string, { along: number; off: number; cost: Float64Array }>();
  let requests = 0;
  for (let a = 0; a < g.levels; a++) {
    for (let e = a + 1; e < g.levels; e++) {
      const r = await req(port, 'POST', '/v1/charge_prices/route', {
        data: {
          type: 'route_price_preview_request',
          attributes: { battery_range: [(a + g.lo) * MODEL.soc_step, (e + g.lo) * MODEL.soc_step], route: { polyline: c.polyline }, corridor: MODEL.corridor, charge_points_power_gte: MODEL.charge_points_power_gte, limit: 1000 },
          relationships: { tariffs: { data: c.tariffs.map((id) => ({ type: 'tariff', id })) }, vehicle: { data: { type: 'car', id: c.vehicle.id } } },
        },
      });
      requests++;
      for (const d of r.data) {
        let row = rows.get(d.id);
        if (row === undefined) rows.set(d.id, (row = { along: d.attributes.distance, off: d.attributes.detour, cost: new Float64Array(g.pairs).fill(Infinity) }));
        row.cost[pairIndex(a, e, g.levels)] = d.attributes.price;
      }
    }
  }
  const list = [...rows.values()].sort((x, y) => x.along - y.along || x.off - y.off);
  const cost = new Float64Array(list.length * g.pairs);
  list.forEach((r, k) => cost.set(r.cost, k * g.pairs));
  const length = new Route(polyline.decode(c.polyline, 5).map(([lat, lon]) => [lon, lat] as [number, number])).length;
  const r = searchTrip({
    along: Float64Array.from(list, (x) => x.along), off: Float64Array.from(list, (x) => x.off), length, battery: c.vehicle.battery, consumption: c.vehicle.consumption,
    startSoc: MODEL.start_soc, minSoc: MODEL.min_soc, maxSoc: MODEL.max_soc, step: MODEL.soc_step, detourCost: new Float64Array(list.length), cost,
  });
  if (!r.ok) throw new Error('the client path found no plan');
  return { cost: r.cost, requests };
}

/** Asks /health every 5 ms on its own connection until stopped; the slowest answer in ms. */
function probe(port: number): { stop(): Promise<number> } {
  let running = true;
  let worst = 0;
  const loop = (async () => {
    while (running) {
      const t0 = performance.now();
      await req(port, 'GET', '/health', undefined, probeAgent);
      worst = Math.max(worst, performance.now() - t0);
      await new Promise((r) => setTimeout(r, 5));
    }
  })();
  return { stop: async () => ((running = false), await loop, worst) };
}

/** The forty operators with the most stations within 5 km of 24 points along the route. */
async function operatorsAlong(port: number, line: string): Promise<string[]> {
  const pts = polyline.decode(line, 5);
  const count = new Map<string, number>();
  for (let k = 0; k < 24; k++) {
    const [lat, lon] = pts[Math.floor((k * (pts.length - 1)) / 23)];
    const page = await req(port, 'GET', `/v1/charging_stations?filter[latitude]=${lat}&filter[longitude]=${lon}&filter[radius]=5000&page[size]=200`);
    for (const d of page.data as { relationships: { operator: { data: { id: string } | null } } }[]) {
      const id = d.relationships.operator.data?.id;
      if (id !== undefined) count.set(id, (count.get(id) ?? 0) + 1);
    }
  }
  return [...count.entries()].sort((a, b) => b[1] - a[1]).slice(0, 40).map(([id]) => id);
}

let ALONG = false;

async function setup(port: number, snapshot: string): Promise<Case> {
  if (!(ROUTE in ROUTES)) throw new Error(`unknown route ${ROUTE}; known: ${Object.keys(ROUTES).join(', ')}`);
  const fixture = pickFixture(snapshot);
  const catalog = (await req(port, 'GET', '/v1/tariffs')).data.map((t: { id: string }) => t.id) as string[];
  const line = fs.readFileSync(ROUTES[ROUTE].file, 'utf8').trim();
  const along = ALONG ? await operatorsAlong(port, line) : [];
  const generated = await generateTariffs(port, along.length > 0 ? (i) => along[i % along.length] : fixture.operator, Math.max(0, 200 - catalog.length));
  const cars: any[] = [];
  for (let page = 1; page <= 20; page++) {
    const d = (await req(port, 'GET', `/v2/vehicles?page[size]=100&page[number]=${page}`)).data as any[];
    cars.push(...d);
    if (d.length < 100) break;
  }
  const car = cars.find((v) => v.attributes.ev_type === 'bev' && v.attributes.dc_ports.includes('ccs') && v.attributes.usable_battery_size >= 50 && v.attributes.energy_consumption.average_consumption > 0);
  return {
    polyline: line,
    tariffs: [...catalog, ...generated].slice(0, 200),
    vehicle: { id: car.id, battery: car.attributes.usable_battery_size, consumption: car.attributes.energy_consumption.average_consumption },
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      duration: { type: 'string', default: '10' },
      runs: { type: 'string', default: '3' },
      snapshot: { type: 'string' },
      'client-passes': { type: 'string', default: '3' },
      route: { type: 'string', default: 'parisLyon' },
      'power-gte': { type: 'string', default: '50' },
      corridor: { type: 'string', default: '2000' },
      along: { type: 'boolean', default: false },
    },
  });
  ROUTE = values.route as keyof typeof ROUTES;
  MODEL.charge_points_power_gte = Number(values['power-gte']);
  MODEL.corridor = Number(values.corridor);
  ALONG = values.along;
  const snapshot = values.snapshot ?? defaultSnapshotPath();
  const svc = await startService({ snapshot, env: { WORKERS: '2', ...(process.env.PRICE_DEADLINE_MS ? { PRICE_DEADLINE_MS: process.env.PRICE_DEADLINE_MS } : {}) } });
  try {
    const c = await setup(svc.port, snapshot);
    // Warm-up: the workers compile the catalog on their first task; a loaded machine may refuse it (503).
    let first: any = null;
    let why: unknown = null;
    for (let k = 0; k < 10 && first === null; k++) first = await req(svc.port, 'POST', '/v1/trip_plans', tripBody(c)).catch((e: unknown) => ((why = e), null));
    if (first === null) throw new Error(`no trip plan answered in 10 tries; the last: ${String(why)}`);
    for (let k = 0; k < 5; k++) await req(svc.port, 'POST', '/v1/trip_plans', tripBody(c));
    // The probe alone, for the same time: the machine's own delays, the baseline of the stall figure.
    const idle = probe(svc.port);
    await new Promise((r) => setTimeout(r, Number(values.duration) * 1000));
    const idleWorst = await idle.stop();
    const a = first.data.attributes;
    console.error(`plan: ${a.stops.length} stops, price ${a.totals.price.toFixed(2)} ${a.currency}, ${first.meta.stations_considered} stations considered, ${first.meta.stations_priced} priced, car ${c.vehicle.id} (${c.vehicle.battery} kWh, ${c.vehicle.consumption} kWh/100 km)`);
    const one: number[][] = [];
    const client: number[] = [];
    const stalls: number[] = [];
    let requests = 0;
    for (let r = 0; r < Number(values.runs); r++) {
      const lat: number[] = [];
      const p = probe(svc.port);
      const until = performance.now() + Number(values.duration) * 1000;
      do {
        const t0 = performance.now();
        await req(svc.port, 'POST', '/v1/trip_plans', tripBody(c));
        lat.push(performance.now() - t0);
      } while (performance.now() < until);
      stalls.push(await p.stop());
      one.push(lat);
      const passes = Math.max(1, Math.ceil(Number(values['client-passes']) / Number(values.runs)));
      for (let k = 0; k < passes; k++) {
        const t0 = performance.now();
        const cp = await clientPlan(svc.port, c);
        client.push(performance.now() - t0);
        requests = cp.requests;
        if (Math.abs(cp.cost - a.totals.cost) > 1e-6) throw new Error(`the client path's optimum ${cp.cost} differs from the plan's ${a.totals.cost}`);
      }
    }
    const p50 = median(one.map((l) => pct(l, 0.5)));
    const p99 = median(one.map((l) => pct(l, 0.99)));
    const c50 = median(client);
    console.log(machineLine());
    console.log(loadLine());
    console.log(`${ROUTES[ROUTE].label}, ${values.snapshot === undefined ? 'default snapshot' : values.snapshot}, 200 tariffs${ALONG ? ' (generated ones of the operators along the route)' : ''}, DC ≥ ${MODEL.charge_points_power_gte} kW, corridor ${MODEL.corridor} m, grid ${MODEL.soc_step} % (${MODEL.min_soc}–${MODEL.max_soc}); one connection; ${values.runs} × ${values.duration} s, medians; client path: ${requests} route price requests + the same search, ${client.length} passes`);
    console.log('| stations considered / priced | stops | trip plan p50 ms | p99 ms | client path p50 ms | client / one | slowest /health during plans ms | alone ms |');
    console.log('| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
    console.log(`| ${first.meta.stations_considered} / ${first.meta.stations_priced} | ${a.stops.length} | ${p50.toFixed(1)} | ${p99.toFixed(1)} | ${c50.toFixed(0)} | ${(c50 / p50).toFixed(1)}× | ${Math.max(...stalls).toFixed(1)} | ${idleWorst.toFixed(1)} |`);
  } finally {
    await svc.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
}
