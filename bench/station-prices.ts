/**
 * Station prices on the pool (the bulk calculation, D91, over many stations): area price search of
 * about a thousand stations around Paris and route price search Paris → Lyon, on this build and,
 * with `--baseline <checkout>`, on that checkout's build in the same run (both services up, loads
 * alternating). 200 tariffs as in bench/area.ts. Per case and build: req/s at `--connections`
 * (autocannon), the main thread's CPU per answer (/proc/<pid>/task/<pid>/stat: the event loop
 * alone, not the pricing workers) and the process's, medians of `--runs` rounds. The answers of
 * both builds are checked byte-equal once before measuring. The route is asked once with one
 * corridor width throughout (a route re-priced: its corridor kept, D294) and once with another
 * width each request (every corridor searched).
 *
 * `--check <n>` (with `--baseline`): instead of measuring, n seeded random requests of each kind —
 * area (radius or box, JSON or GeoJSON), route (a stretch of the Paris → Lyon route) and price
 * tiles (a new price profile each, zooms 5–16) — with random refinements, sort and limit, sent to
 * both builds, whose answers must be byte-equal (D288: the rows answer exactly what the JSON
 * text did).
 *
 * `--profile <dir>`: this build runs with node --cpu-prof and writes its profiles (main thread and
 * pricing workers) into the directory on exit (summary: node dist/bench/lib/cpuprofile.js <dir>).
 *
 *   npm run bench:station-prices [-- --baseline ../main] [--seconds 10] [--runs 3] [--connections 2]
 *        [--snapshot <file>] [--only <regex of case names>] [--check <n>] [--profile <dir>]
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { defaultSnapshotPath } from '../src/config.js';
import polyline from '@mapbox/polyline';
import { mulberry32 } from '../src/domain/random.js';
import { areaTariffs, ROUTES } from './area.js';
import { BENCH_KEY, cpuMsOf, load, loadLine, machineLine, median, request, startService, waitIdle, type Scenario } from './lib/harness.js';

const { values } = parseArgs({
  options: {
    baseline: { type: 'string' },
    seconds: { type: 'string', default: '10' },
    runs: { type: 'string', default: '3' },
    connections: { type: 'string', default: '2' },
    snapshot: { type: 'string' },
    only: { type: 'string' },
    check: { type: 'string' },
    profile: { type: 'string' },
  },
});

/** CPU time (ms) of one thread of a process: the main thread's id is the process's. */
function threadCpuMs(pid: number, tid: number): number {
  const f = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
  const rest = f.slice(f.lastIndexOf(')') + 2).split(' ');
  return ((Number(rest[11]) + Number(rest[12])) * 1000) / 100;
}

function scenarios(tariffs: string[], vehicle: string): Scenario[] {
  const rels = { tariffs: { data: tariffs.map((id) => ({ type: 'tariff', id })) }, vehicle: { data: { type: 'car', id: vehicle } } };
  const polyline = fs.readFileSync(ROUTES.parisLyon.file, 'utf8').trim();
  const attributes = { battery_range: [10, 80], limit: 1000 };
  return [
    {
      name: 'area: radius 30 km around Paris, limit 1000',
      method: 'POST',
      path: '/v1/charge_prices/area',
      body: { data: { type: 'area_price_preview_request', attributes: { ...attributes, latitude: 48.8566, longitude: 2.3522, radius: 30000 }, relationships: rels } },
    },
    {
      name: `route ${ROUTES.parisLyon.label}, 2 km corridor, limit 1000`,
      method: 'POST',
      path: '/v1/charge_prices/route',
      body: { data: { type: 'route_price_preview_request', attributes: { ...attributes, route: { polyline }, corridor: 2000 }, relationships: rels } },
    },
    {
      // Every request another width (1.5–2.5 km in 2 cm steps): no corridor is found kept (D294).
      name: `route ${ROUTES.parisLyon.label}, a new corridor width each request, limit 1000`,
      method: 'POST',
      path: '/v1/charge_prices/route',
      body: { data: { type: 'route_price_preview_request', attributes: { ...attributes, route: { polyline }, corridor: 1500 }, relationships: rels } },
      dynamic: () => {
        let k = 0;
        const body = (corridor: number) => JSON.stringify({ data: { type: 'route_price_preview_request', attributes: { ...attributes, route: { polyline }, corridor }, relationships: rels } });
        return { setupRequest: (req) => ({ ...req, path: '/v1/charge_prices/route', body: body(1500 + (k++ % 50_000) * 0.02) }) };
      },
    },
  ];
}

interface Row {
  refused: number;
  rps: number[];
  mainMs: number[];
  processMs: number[];
}

interface Sent {
  method: 'GET' | 'POST';
  path: string;
  body?: unknown;
  accept?: string;
}

async function send(port: number, r: Sent): Promise<{ status: number; body: Buffer; pending: string | null }> {
  const res = await fetch(`http://127.0.0.1:${port}${r.path}`, {
    method: r.method,
    headers: { 'Api-Key': BENCH_KEY, 'Content-Type': 'application/json', ...(r.accept === undefined ? {} : { Accept: r.accept }) },
    body: r.body === undefined ? undefined : JSON.stringify(r.body),
  });
  return { status: res.status, body: Buffer.from(await res.arrayBuffer()), pending: res.headers.get('price-tile-pending') };
}

/** The answer once complete: a price tile still pricing (D278) is asked again. */
async function settled(port: number, r: Sent): Promise<{ status: number; body: Buffer }> {
  for (let k = 0; ; k++) {
    const a = await send(port, r);
    if (a.pending === null || k === 100) return a;
    await new Promise((res) => setTimeout(res, 100));
  }
}

/** Random refinements and pricing attributes shared by area, route and profiles. */
function randomAttributes(rnd: () => number): Record<string, unknown> {
  const a: Record<string, unknown> = { battery_range: [Math.floor(rnd() * 40), 50 + Math.floor(rnd() * 50)] };
  if (rnd() < 0.3) a.plugs = [['ccs'], ['type2', 'ccs'], ['chademo'], ['TYPE2']][Math.floor(rnd() * 4)];
  if (rnd() < 0.3) a.charge_points_power_gte = [11, 22, 50, 150][Math.floor(rnd() * 4)];
  if (rnd() < 0.3) a.charge_points_power_lte = [22, 50, 150, 350][Math.floor(rnd() * 4)];
  if (rnd() < 0.3) a.include_direct_payment = true;
  if (rnd() < 0.3) a.start_time = Math.floor(rnd() * 1440);
  if (rnd() < 0.2) a.currency = 'USD';
  return a;
}

function randomRequests(rnd: () => number, n: number, rels: unknown): Array<Sent & { kind: string }> {
  const out: Array<Sent & { kind: string }> = [];
  const pts = polyline.decode(fs.readFileSync(ROUTES.parisLyon.file, 'utf8').trim(), 5);
  for (let k = 0; k < n; k++) {
    const lat = 48.2 + rnd() * 2;
    const lon = 1.5 + rnd() * 3.5;
    const limit = 1 + Math.floor(rnd() * (rnd() < 0.5 ? 50 : 1000));
    const attributes = { ...randomAttributes(rnd), limit };
    const accept = rnd() < 0.2 ? 'application/geo+json' : undefined;
    const area =
      rnd() < 0.5
        ? { latitude: lat, longitude: lon, radius: 500 + Math.floor(rnd() * 30_000), ...(rnd() < 0.3 ? { sort: 'distance' } : {}) }
        : { latitude_gte: lat, latitude_lte: lat + rnd() * 0.4, longitude_gte: lon, longitude_lte: lon + rnd() * 0.6 };
    out.push({ kind: 'area', method: 'POST', path: '/v1/charge_prices/area', accept, body: { data: { type: 'area_price_preview_request', attributes: { ...attributes, ...area }, relationships: rels } } });
    const from = Math.floor(rnd() * (pts.length - 2));
    const stretch = pts.slice(from, from + 2 + Math.floor(rnd() * (pts.length - from - 2)));
    const route = { route: { polyline: polyline.encode(stretch, 5) }, corridor: 100 + Math.floor(rnd() * 5000), ...(rnd() < 0.3 ? { sort: 'price' } : {}) };
    out.push({ kind: 'route', method: 'POST', path: '/v1/charge_prices/route', accept, body: { data: { type: 'route_price_preview_request', attributes: { ...attributes, ...route }, relationships: rels } } });
  }
  return out;
}

/** The z/x/y of a random tile over the route's region. */
function randomTile(rnd: () => number): string {
  const z = 5 + Math.floor(rnd() * 12);
  const lon = 1.5 + rnd() * 3.5;
  const lat = 45.5 + rnd() * 4;
  const n = 2 ** z;
  const x = Math.floor(((lon + 180) / 360) * n);
  const y = Math.floor(((1 - Math.log(Math.tan((lat * Math.PI) / 180) + 1 / Math.cos((lat * Math.PI) / 180)) / Math.PI) / 2) * n);
  return `${z}/${x}/${y}`;
}

/** `--check`: random requests of each kind to both builds; every answer must be byte-equal. */
async function check(svcs: Array<{ label: string; svc: { port: number } }>, n: number, tariffs: string[], vehicle: string): Promise<void> {
  const rnd = mulberry32(52);
  const rels = { tariffs: { data: tariffs.map((id) => ({ type: 'tariff', id })) }, vehicle: { data: { type: 'car', id: vehicle } } };
  const counts = new Map<string, { sent: number; priced: number }>();
  const tally = (kind: string, priced: boolean): void => {
    const c = counts.get(kind) ?? { sent: 0, priced: 0 };
    c.sent++;
    if (priced) c.priced++;
    counts.set(kind, c);
  };
  const compare = (kind: string, what: string, got: Array<{ status: number; body: Buffer }>): void => {
    if (got.some((a) => a.status !== got[0].status || !a.body.equals(got[0].body))) {
      throw new Error(`${kind} ${what}: answers differ (${got.map((a) => `${a.status}, ${a.body.length} bytes`).join(' / ')})`);
    }
  };
  for (const r of randomRequests(rnd, n, rels)) {
    const got = await Promise.all(svcs.map((s) => settled(s.svc.port, r)));
    compare(r.kind, JSON.stringify(r.body).slice(0, 300), got);
    tally(r.kind, got[0].status === 200 && !got[0].body.includes('"stations_priced":0'));
  }
  for (let k = 0; k < n; k++) {
    const profile = { data: { type: 'price_profile', attributes: randomAttributes(rnd), relationships: rels } };
    const ids = await Promise.all(svcs.map(async (s) => (JSON.parse((await send(s.svc.port, { method: 'POST', path: '/v1/price_profiles', body: profile })).body.toString()) as { data: { id: string } }).data.id));
    const tile = randomTile(rnd);
    const got = await Promise.all(svcs.map((s, j) => settled(s.svc.port, { method: 'GET', path: `/v1/tiles/prices/${ids[j]}/${tile}.mvt` })));
    compare('price tile', `${tile} of ${JSON.stringify(profile.data.attributes)}`, got);
    tally('price tile', got[0].status === 200);
  }
  console.log(loadLine());
  for (const [kind, c] of counts) console.log(`${kind}: ${c.sent} random requests, answers byte-equal on both builds (${c.priced} with prices / a tile body)`);
}

async function main(): Promise<void> {
  const snapshot = values.snapshot ?? defaultSnapshotPath();
  const seconds = Number(values.seconds);
  const runs = Number(values.runs);
  const connections = Number(values.connections);
  const roots: Array<{ label: string; root?: string }> = [{ label: 'this build' }];
  if (values.baseline !== undefined) roots.unshift({ label: `baseline ${values.baseline}`, root: values.baseline });
  const svcs = [];
  const profile = values.profile === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${path.resolve(values.profile)}`];
  for (const r of roots) svcs.push({ ...r, svc: await startService({ snapshot, root: r.root, nodeArgs: r.root === undefined ? profile : [] }) });
  try {
    let cases: Scenario[] = [];
    let fixture = { tariffs: [] as string[], vehicle: '' };
    for (const s of svcs) {
      fixture = await areaTariffs(s.svc.port, snapshot, ROUTES.parisLyon);
      cases = scenarios(fixture.tariffs, fixture.vehicle).filter((c) => values.only === undefined || new RegExp(values.only, 'i').test(c.name));
      await waitIdle(s.svc.proc.pid!, 0.1, 60_000);
    }
    if (values.check !== undefined) {
      if (svcs.length < 2) throw new Error('--check needs --baseline');
      return await check(svcs, Number(values.check), fixture.tariffs, fixture.vehicle);
    }
    const table: string[] = [];
    for (const sc of cases) {
      const first = await Promise.all(svcs.map((s) => request(s.svc.port, sc)));
      for (const [k, a] of first.entries()) if (a.status !== 200) throw new Error(`${sc.name} on ${svcs[k].label}: ${a.status} ${a.body.slice(0, 300)}`);
      if (first.some((a) => a.body !== first[0].body)) throw new Error(`${sc.name}: the builds' answers differ`);
      const meta = (JSON.parse(first[0].body) as { meta: { stations_considered: number; stations_priced: number } }).meta;
      const rows: Row[] = svcs.map(() => ({ refused: 0, rps: [], mainMs: [], processMs: [] }));
      for (const s of svcs) await load(s.svc.port, sc, Math.min(3, seconds), connections, sc.dynamic?.('full'));
      for (let r = 0; r < runs; r++) {
        for (const [k, s] of svcs.entries()) {
          const pid = s.svc.proc.pid!;
          await waitIdle(pid, 0.1, 60_000);
          const m0 = threadCpuMs(pid, pid);
          const p0 = cpuMsOf(pid);
          const m = await load(s.svc.port, sc, seconds, connections, sc.dynamic?.('full'));
          const n = m.rps * seconds - m.non2xx;
          if (m.errors > 0) throw new Error(`${sc.name} on ${s.label}: ${m.errors} errors`);
          // Refusals (503 overloaded, D106) are counted, not measured as answers.
          rows[k].refused += m.non2xx;
          rows[k].rps.push(m.rps - m.non2xx / seconds);
          rows[k].mainMs.push((threadCpuMs(pid, pid) - m0) / n);
          rows[k].processMs.push((cpuMsOf(pid) - p0) / n);
        }
      }
      const base = rows[0];
      for (const [k, s] of svcs.entries()) {
        const row = rows[k];
        const ratio = (f: (x: Row) => number[]): string => (k === 0 || svcs.length === 1 ? '' : ` (${(median(f(row)) / median(f(base))).toFixed(2)}×)`);
        table.push(
          `| ${sc.name} | ${meta.stations_considered} / ${meta.stations_priced} | ${s.label} | ${median(row.rps).toFixed(1)}${ratio((x) => x.rps)} | ` +
            `${median(row.mainMs).toFixed(2)}${ratio((x) => x.mainMs)} | ${median(row.processMs).toFixed(2)}${ratio((x) => x.processMs)} | ${row.refused} |`,
        );
      }
      console.error(table.slice(-svcs.length).join('\n'));
    }
    console.log(machineLine());
    console.log(loadLine());
    console.log(`${connections} connections, ${runs} × ${seconds} s per build alternating, medians; answers of both builds byte-equal\n`);
    console.log('| case | stations considered / priced | build | req/s | main thread CPU ms / answer | process CPU ms / answer | refused (503) |');
    console.log('| --- | ---: | --- | ---: | ---: | ---: | ---: |');
    console.log(table.join('\n'));
  } finally {
    for (const s of svcs) await s.svc.stop();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
