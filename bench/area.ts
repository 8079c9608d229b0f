/**
 * Area and route price search (D110–D114) against what a client does without it: a station search
 * (paged) followed by bulk previews in chunks of 100 — for a route, radius searches covering the
 * corridor every corridor width along the route. One connection, one request (or one client path) at
 * a time, alternating rounds; p50/p99 of each and the ratio, on the default snapshot and, with
 * `--synthetic <file>` (npm run snapshot:synthetic), the 1 M one. 200 tariffs: the default
 * catalog's plus generated ones at the busiest operator. Both paths' prices are checked equal once.
 *
 *   npm run bench:area [-- --duration 5] [--runs 3] [--synthetic snapshots/synthetic-1000000.sqlite]
 *        [--only <regex of case names>] [--no-default]
 *
 * Routes: bench/fixtures/*.polyline (made by bench/fixtures/make-routes.mjs from the towns along
 * the A6 Paris → Lyon, 435 km, and Hamburg → München, 774 km, one point every 250 m).
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { parseArgs } from 'node:util';
import polyline from '@mapbox/polyline';
import { defaultSnapshotPath } from '../src/config.js';
import { BENCH_KEY, ROOT, loadLine, machineLine, median, startService } from './lib/harness.js';
import { generateTariffs, pickFixture } from './scenarios.js';

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '5' },
    runs: { type: 'string', default: '3' },
    synthetic: { type: 'string' },
    snapshot: { type: 'string' },
    quick: { type: 'boolean', default: false },
    only: { type: 'string' },
    'no-default': { type: 'boolean', default: false },
  },
});
const ONLY = values.only === undefined ? null : new RegExp(values.only, 'i');
const DURATION = values.quick ? 0.5 : Number(values.duration);
const RUNS = values.quick ? 1 : Number(values.runs);

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
function req(port: number, method: string, p: string, body?: unknown): Promise<any> {
  const b = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const r = http.request({ host: '127.0.0.1', port, method, path: p, agent, headers: { 'Api-Key': BENCH_KEY, 'Content-Type': 'application/json' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        if (res.statusCode !== 200) reject(new Error(`${method} ${p}: ${res.statusCode} ${text.slice(0, 300)}`));
        else resolve(JSON.parse(text));
      });
    });
    r.on('error', reject);
    r.end(b);
  });
}

interface Ctx {
  port: number;
  tariffs: string[];
  vehicle: string;
}

const pricing = (_c: Ctx) => ({ battery_range: [10, 80] as [number, number] });
const rels = (c: Ctx) => ({ tariffs: { data: c.tariffs.map((id) => ({ type: 'tariff', id })) }, vehicle: { data: { type: 'car', id: c.vehicle } } });

/** Client path: station ids from searches, then bulk previews in chunks of 100. Returns id → price. */
async function clientPath(c: Ctx, searches: string[]): Promise<Map<string, number>> {
  const ids = new Set<string>();
  for (const s of searches) {
    for (let offset = 0; ; offset += 1000) {
      const page = await req(c.port, 'GET', `${s}&page[size]=1000&page[offset]=${offset}`);
      for (const d of page.data) ids.add(d.id);
      if (!page.meta?.more_available) break;
    }
  }
  const list = [...ids];
  const out = new Map<string, number>();
  for (let k = 0; k < list.length; k += 100) {
    const r = await req(c.port, 'POST', '/v1/charge_prices/bulk', {
      data: { type: 'bulk_price_preview_request', attributes: pricing(c), relationships: { ...rels(c), charging_stations: { data: list.slice(k, k + 100).map((id) => ({ type: 'charging_station', id })) } } },
    });
    for (const d of r.data) out.set(d.id, d.attributes.price);
  }
  return out;
}

interface Case {
  name: string;
  one: (c: Ctx) => Promise<any>;
  client: (c: Ctx) => Promise<Map<string, number>>;
}

function cases(routeFile: string | null, label: string): Case[] {
  const paris = { latitude: 48.8566, longitude: 2.3522 };
  const box = { latitude_gte: 48.81, latitude_lte: 48.91, longitude_gte: 2.25, longitude_lte: 2.42 };
  const out: Case[] = [
    {
      name: 'radius 5 km around Paris',
      one: (c) => req(c.port, 'POST', '/v1/charge_prices/area', { data: { type: 'area_price_preview_request', attributes: { ...pricing(c), ...paris, radius: 5000, limit: 1000 }, relationships: rels(c) } }),
      client: (c) => clientPath(c, [`/v1/charging_stations?filter[latitude]=${paris.latitude}&filter[longitude]=${paris.longitude}&filter[radius]=5000`]),
    },
    {
      name: 'box over Paris',
      one: (c) => req(c.port, 'POST', '/v1/charge_prices/area', { data: { type: 'area_price_preview_request', attributes: { ...pricing(c), ...box, limit: 1000 }, relationships: rels(c) } }),
      client: (c) => clientPath(c, [`/v1/charging_stations?filter[latitude.gte]=${box.latitude_gte}&filter[latitude.lte]=${box.latitude_lte}&filter[longitude.gte]=${box.longitude_gte}&filter[longitude.lte]=${box.longitude_lte}`]),
    },
  ];
  if (routeFile !== null) {
    const enc = fs.readFileSync(routeFile, 'utf8').trim();
    const pts = polyline.decode(enc, 5);
    // Client: radius searches every corridor width along the route, of radius corridor × √2 + 1 m
    // so that their circles cover the whole corridor (a station 2 km off the route halfway between
    // two centres is √(1² + 2²) = 2.24 km from both).
    const searches: string[] = [];
    let last: [number, number] | null = null;
    for (const [la, lo] of pts) {
      if (last !== null && Math.hypot((la - last[0]) * 111_195, (lo - last[1]) * 111_195 * Math.cos(la * (Math.PI / 180))) < 2000) continue;
      last = [la, lo];
      searches.push(`/v1/charging_stations?filter[latitude]=${la}&filter[longitude]=${lo}&filter[radius]=2830`);
    }
    out.push({
      name: `route ${label} (${pts.length} points, 2 km corridor)`,
      one: (c) => req(c.port, 'POST', '/v1/charge_prices/route', { data: { type: 'route_price_preview_request', attributes: { ...pricing(c), route: { polyline: enc }, corridor: 2000, limit: 1000 }, relationships: rels(c) } }),
      client: (c) => clientPath(c, searches),
    });
  }
  return out;
}

async function timed(fn: () => Promise<unknown>, seconds: number): Promise<number[]> {
  const lat: number[] = [];
  const until = performance.now() + seconds * 1000;
  do {
    const t = performance.now();
    await fn();
    lat.push(performance.now() - t);
  } while (performance.now() < until);
  return lat;
}
const pct = (xs: number[], q: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)];
};

async function dataset(label: string, snapshot: string, route: string | null, routeLabel: string): Promise<string[]> {
  const svc = await startService({ snapshot });
  const rows: string[] = [];
  try {
    const fixture = pickFixture(snapshot);
    const catalog = (await req(svc.port, 'GET', '/v1/tariffs')).data.map((t: { id: string }) => t.id) as string[];
    const generated = await generateTariffs(svc.port, fixture.operator, Math.max(0, 200 - catalog.length));
    const vehicles = (await req(svc.port, 'GET', '/v2/vehicles')).data;
    const c: Ctx = { port: svc.port, tariffs: [...catalog, ...generated].slice(0, 200), vehicle: (vehicles.find((v: any) => v.attributes.dc_charger) ?? vehicles[0]).id };
    for (const k of cases(route, routeLabel).filter((x) => ONLY === null || ONLY.test(x.name))) {
      // Same stations and prices both ways (membership: the client's radius searches cover the corridor).
      const a = await k.one(c);
      const b = await k.client(c);
      let same = 0;
      for (const d of a.data) if (b.get(d.id) === d.attributes.price) same++;
      if (same !== a.data.length) throw new Error(`${k.name}: ${a.data.length - same} prices differ from the client path`);
      const one: number[][] = [];
      const client: number[][] = [];
      await timed(() => k.one(c), DURATION / 2);
      for (let r = 0; r < RUNS; r++) {
        one.push(await timed(() => k.one(c), DURATION));
        client.push(await timed(() => k.client(c), DURATION));
      }
      const p50 = median(one.map((l) => pct(l, 0.5)));
      const p99 = median(one.map((l) => pct(l, 0.99)));
      const c50 = median(client.map((l) => pct(l, 0.5)));
      rows.push(`| ${label} | ${k.name} | ${a.meta.stations_considered} / ${a.meta.stations_priced} | ${p50.toFixed(2)} | ${p99.toFixed(2)} | ${c50.toFixed(1)} | ${(c50 / p50).toFixed(1)}× |`);
      console.error(rows[rows.length - 1]);
    }
  } finally {
    await svc.stop();
  }
  return rows;
}

async function main(): Promise<void> {
  const rows: string[] = [];
  if (!values['no-default']) rows.push(...(await dataset('default', values.snapshot ?? defaultSnapshotPath(), path.join(ROOT, 'bench/fixtures/route-paris-lyon.polyline'), 'Paris → Lyon')));
  if (values.synthetic) rows.push(...(await dataset('1 M synthetic', values.synthetic, path.join(ROOT, 'bench/fixtures/route-hamburg-munich.polyline'), 'Hamburg → München')));
  console.log(machineLine());
  console.log(loadLine());
  console.log(`one connection, ${RUNS} × ${DURATION} s per path alternating, medians; 200 tariffs\n`);
  console.log('| snapshot | search | stations considered / priced | one request p50 ms | p99 ms | client path p50 ms | client / one |');
  console.log('| --- | --- | ---: | ---: | ---: | ---: | ---: |');
  console.log(rows.join('\n'));
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
