/**
 * Area and route price search (D110–D114) against what a client does without it: a station search
 * (paged) followed by bulk previews in chunks of 100 — for a route, radius searches covering the
 * corridor every corridor width along the route. One connection, one request (or one client path) at
 * a time, alternating rounds; p50/p99 of each and the ratio, on the default snapshot and, with
 * `--synthetic <file>` (npm run snapshot:synthetic), the 1 M one. 200 tariffs: the default
 * catalog's plus generated ones at the busiest operator. Both paths' prices are checked equal once.
 *
 * Network round trips: each case is measured at every `--rtt` (milliseconds, default 0 and 20).
 * Above 0 both paths go through a TCP relay on loopback that holds every chunk rtt/2 in each
 * direction (latency only, no bandwidth limit), so the client path pays its sequential round trips
 * as it would on a mobile network, where map clients run.
 *
 *   npm run bench:area [-- --duration 5] [--runs 3] [--rtt 0,20] [--synthetic snapshots/synthetic-1000000.sqlite]
 *        [--only <regex of case names>] [--no-default] [--client-max-s <s>]
 *
 * The HTTP suite (`npm run bench:http`) runs the same cases on its datasets (`runAreaCases`); in
 * its `--check` mode (npm test) only the equality of both paths is checked.
 *
 * Routes: bench/fixtures/*.polyline (made by bench/fixtures/make-routes.mjs from the towns along
 * the A6 Paris → Lyon, 435 km, and Hamburg → München, 774 km, one point every 250 m).
 */
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import polyline from '@mapbox/polyline';
import { defaultSnapshotPath } from '../src/config.js';
import { BENCH_KEY, ROOT, loadLine, machineLine, median, startService } from './lib/harness.js';
import { generateTariffs, pickFixture } from './scenarios.js';

export interface AreaOptions {
  /** Seconds per path and round; 0 = check the answers only. */
  duration: number;
  runs: number;
  /** Round-trip times to measure at (ms). */
  rtts: number[];
  only: RegExp | null;
  /** A client path slower than this (one pass, seconds) is measured once instead of for `duration`. */
  clientMaxS: number;
}

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

/** A TCP relay on loopback holding every chunk `oneWayMs` in each direction (order kept: equal timeouts fire in order). */
async function delayRelay(target: number, oneWayMs: number): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(target, '127.0.0.1');
    for (const s of [client, upstream]) {
      s.setNoDelay(true);
      sockets.add(s);
      s.on('error', () => undefined);
    }
    const forward = (from: net.Socket, to: net.Socket): void => {
      from.on('data', (chunk: Buffer) => setTimeout(() => to.writable && to.write(chunk), oneWayMs));
      from.on('close', () => setTimeout(() => to.destroy(), oneWayMs));
    };
    forward(client, upstream);
    forward(upstream, client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

const pricing = (_c: Ctx) => ({ battery_range: [10, 80] as [number, number] });
const rels = (c: Ctx) => ({ tariffs: { data: c.tariffs.map((id) => ({ type: 'tariff', id })) }, vehicle: { data: { type: 'car', id: c.vehicle } } });

/** Client path: station ids from searches, then bulk previews in chunks of 100. Returns id → price. */
async function clientPath(c: Ctx, searches: string[]): Promise<Map<string, number>> {
  const ids = new Set<string>();
  for (const s of searches) {
    for (let n = 1; ; n++) {
      const page = await req(c.port, 'GET', `${s}&page[size]=1000&page[number]=${n}`);
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

/** The `n` operators with the most stations within 5 km of points every ~25 km along the route. */
async function operatorsAlong(port: number, routeFile: string, n: number): Promise<string[]> {
  const pts = polyline.decode(fs.readFileSync(routeFile, 'utf8').trim(), 5);
  const count = new Map<string, number>();
  for (let i = 0; i < pts.length; i += 100) {
    const page = await req(port, 'GET', `/v1/charging_stations?filter[latitude]=${pts[i][0]}&filter[longitude]=${pts[i][1]}&filter[radius]=5000&page[size]=1000`);
    for (const d of page.data) {
      const op = d.relationships?.operator?.data?.id as string | undefined;
      if (op !== undefined) count.set(op, (count.get(op) ?? 0) + 1);
    }
  }
  return [...count.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, n).map(([op]) => op);
}

export interface AreaRow {
  name: string;
  rttMs: number;
  considered: number;
  priced: number;
  /** Priced stations whose price the client path found equal (all of them, or the run stops). */
  equal: number;
  one: { p50: number; p99: number; n: number } | null;
  client: { p50: number; n: number } | null;
  /** client p50 / one-request p50. */
  ratio: number | null;
}

/**
 * The tariffs and vehicle of the area and route cases: 200 tariffs (the catalog's plus ones
 * generated at the snapshot's busiest operator and, with a route, at the three busiest along it)
 * and a DC-capable car.
 */
export async function areaTariffs(port: number, snapshot: string, route: { file: string; label: string } | null): Promise<{ tariffs: string[]; vehicle: string }> {
  const fixture = pickFixture(snapshot);
  const catalog = (await req(port, 'GET', '/v1/tariffs')).data.map((t: { id: string }) => t.id) as string[];
  // Generated tariffs are own-operator tariffs (their EMP is the operator): half at the snapshot's
  // busiest operator (the Paris cases), half at the three busiest along the route, so that both
  // have priced stations also on a snapshot without the default catalog (the synthetic 1 M one).
  const missing = Math.max(0, 200 - catalog.length);
  const routeOps = route === null || missing === 0 ? [] : await operatorsAlong(port, route.file, 3);
  const half = Math.ceil(missing / 2);
  const generated = await generateTariffs(port, (i) => (routeOps.length === 0 || i < half ? fixture.operator : routeOps[(i - half) % routeOps.length]), missing);
  const vehicles = (await req(port, 'GET', '/v2/vehicles')).data;
  const vehicle = (vehicles.find((v: any) => v.attributes.dc_charger) ?? vehicles[0]).id as string;
  return { tariffs: [...catalog, ...generated].slice(0, 200), vehicle };
}

/**
 * The area and route cases on a running service: 200 tariffs (the catalog's plus ones generated at
 * the snapshot's busiest operator), both paths' prices checked equal, then measured at each RTT.
 */
export async function runAreaCases(port: number, snapshot: string, route: { file: string; label: string } | null, o: AreaOptions): Promise<AreaRow[]> {
  const { tariffs, vehicle } = await areaTariffs(port, snapshot, route);
  const rows: AreaRow[] = [];
  for (const k of cases(route?.file ?? null, route?.label ?? '').filter((x) => o.only === null || o.only.test(x.name))) {
    // Same stations and prices both ways (membership: the client's radius searches cover the corridor).
    const direct: Ctx = { port, tariffs, vehicle };
    const a = await k.one(direct);
    const t0 = performance.now();
    const b = await k.client(direct);
    const clientOnceS = (performance.now() - t0) / 1000;
    let equal = 0;
    for (const d of a.data) if (b.get(d.id) === d.attributes.price) equal++;
    if (equal !== a.data.length) throw new Error(`${k.name}: ${a.data.length - equal} prices differ from the client path`);
    if (a.meta.stations_priced === 0) throw new Error(`${k.name}: no station priced (the tariffs apply nowhere in the area): nothing to measure`);
    for (const rtt of o.duration > 0 ? o.rtts : [0]) {
      const relay = rtt > 0 ? await delayRelay(port, rtt / 2) : null;
      const c: Ctx = { port: relay?.port ?? port, tariffs, vehicle };
      const row: AreaRow = { name: k.name, rttMs: rtt, considered: a.meta.stations_considered, priced: a.meta.stations_priced, equal, one: null, client: null, ratio: null };
      try {
        if (o.duration > 0) {
          const one: number[][] = [];
          const client: number[][] = [];
          await timed(() => k.one(c), o.duration / 2);
          // A client path that takes longer than `clientMaxS` per pass is timed once per round.
          const clientSeconds = clientOnceS > o.clientMaxS ? 0 : o.duration;
          for (let r = 0; r < o.runs; r++) {
            one.push(await timed(() => k.one(c), o.duration));
            client.push(await timed(() => k.client(c), clientSeconds));
          }
          row.one = { p50: median(one.map((l) => pct(l, 0.5))), p99: median(one.map((l) => pct(l, 0.99))), n: one.reduce((s, l) => s + l.length, 0) };
          row.client = { p50: median(client.map((l) => pct(l, 0.5))), n: client.reduce((s, l) => s + l.length, 0) };
          row.ratio = row.client.p50 / row.one.p50;
        }
      } finally {
        await relay?.close();
      }
      rows.push(row);
      console.error(formatAreaRow('', row));
    }
  }
  return rows;
}

export function formatAreaRow(label: string, r: AreaRow): string {
  const f = (x: number | undefined, d: number) => (x === undefined ? '–' : x.toFixed(d));
  return `| ${label} | ${r.name} | ${r.rttMs} | ${r.considered} / ${r.priced} | ${f(r.one?.p50, 2)} | ${f(r.one?.p99, 2)} | ${f(r.client?.p50, 1)} (n ${r.client?.n ?? 0}) | ${r.ratio === null ? '–' : `${r.ratio.toFixed(1)}×`} |`;
}

export const AREA_TABLE_HEAD =
  '| snapshot | search | RTT ms | stations considered / priced | one request p50 ms | p99 ms | client path p50 ms | client / one |\n| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |';

export const ROUTES = {
  parisLyon: { file: path.join(ROOT, 'bench/fixtures/route-paris-lyon.polyline'), label: 'Paris → Lyon' },
  hamburgMunich: { file: path.join(ROOT, 'bench/fixtures/route-hamburg-munich.polyline'), label: 'Hamburg → München' },
};

async function dataset(label: string, snapshot: string, route: { file: string; label: string }, o: AreaOptions): Promise<string[]> {
  const svc = await startService({ snapshot });
  try {
    return (await runAreaCases(svc.port, snapshot, route, o)).map((r) => formatAreaRow(label, r));
  } finally {
    await svc.stop();
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      duration: { type: 'string', default: '5' },
      runs: { type: 'string', default: '3' },
      rtt: { type: 'string', default: '0,20' },
      'client-max-s': { type: 'string', default: '2' },
      synthetic: { type: 'string' },
      snapshot: { type: 'string' },
      quick: { type: 'boolean', default: false },
      only: { type: 'string' },
      'no-default': { type: 'boolean', default: false },
    },
  });
  const o: AreaOptions = {
    duration: values.quick ? 0.5 : Number(values.duration),
    runs: values.quick ? 1 : Number(values.runs),
    rtts: values.rtt.split(',').map(Number),
    only: values.only === undefined ? null : new RegExp(values.only, 'i'),
    clientMaxS: Number(values['client-max-s']),
  };
  const rows: string[] = [];
  if (!values['no-default']) rows.push(...(await dataset('default', values.snapshot ?? defaultSnapshotPath(), ROUTES.parisLyon, o)));
  if (values.synthetic) rows.push(...(await dataset('1 M synthetic', values.synthetic, ROUTES.hamburgMunich, o)));
  console.log(machineLine());
  console.log(loadLine());
  console.log(`one connection, ${o.runs} × ${o.duration} s per path alternating (client paths slower than ${o.clientMaxS} s: one pass per round), medians; 200 tariffs\n`);
  console.log(AREA_TABLE_HEAD);
  console.log(rows.join('\n'));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
}
