/**
 * Price goodput while another route class floods the service (D176): charge prices at a busy
 * station (1,000 generated tariffs) on 16 connections, first alone, then next to a flood of one
 * other class on many connections: radius searches, cdr_cost, company writes, CORS preflights and
 * /metrics scrapes. Per flood: the price goodput as a share of the alone goodput of the same run,
 * the flood's own goodput and its 503s, and the latency of /health probes (a new connection each,
 * every 100 ms, as an orchestrator's probe) during the flood.
 *
 *   npm run bench:floods [-- --duration 8] [--flood-connections 2000] [--budgets off,default]
 *        [--only <regex>] [--baseline <checkout>] [--quick]
 *
 * `--baseline <checkout>`: another checkout's build (its dist/) measured first in the same run, each
 * setting on the previous build, then on this one; the table names the build of each row.
 *
 * With `--budgets off,default` (the default) the whole table is measured twice in one run: without
 * admission budgets (ADMISSION_BUDGETS=off) and with the defaults, one service start each.
 * The clients (autocannon) run on the same two cores as the service.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { defaultSnapshotPath } from '../src/config.js';
import { BENCH_KEY, loadLine, machineLine, startService, waitIdle, writeJson } from './lib/harness.js';
import { generateTariffs, pickFixture, priceScenarios, radiusScenario } from './scenarios.js';

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '8' },
    'flood-connections': { type: 'string', default: '2000' },
    budgets: { type: 'string', default: 'off,default' },
    only: { type: 'string' },
    baseline: { type: 'string' },
    quick: { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});
if (values.help) {
  console.log('npm run bench:floods [-- --duration 8] [--flood-connections 2000] [--budgets off,default] [--only <regex>] [--baseline <checkout>] [--quick]');
  process.exit(0);
}
const DURATION = values.quick ? 2 : Number(values.duration);
const FLOOD_CONNECTIONS = values.quick ? 256 : Number(values['flood-connections']);
const PRICE_CONNECTIONS = 16;
const ONLY = values.only === undefined ? null : new RegExp(values.only, 'i');

interface Load {
  name: string;
  method: 'GET' | 'POST' | 'PUT' | 'OPTIONS';
  path: string;
  body?: string;
  headers?: Record<string, string>;
  /**
   * Clients on a worker thread of their own: a flood of large answers (CSV pages of 450 KB) would
   * otherwise hold the event loop of the clients measuring price goodput and /health beside it.
   */
  ownThread?: boolean;
  /** A new request each time (writes of new ids). */
  setup?: (req: { method: string; path: string; body?: string }) => { method: string; path: string; body?: string };
}

interface Counted {
  ok: number;
  refused: number;
  other: number;
  errors: number;
}

async function run(port: number, l: Load, connections: number): Promise<Counted> {
  const c: Counted = { ok: 0, refused: 0, other: 0, errors: 0 };
  const instance = autocannon({
    url: `http://127.0.0.1:${port}${l.path}`,
    method: l.method as 'GET',
    connections,
    duration: DURATION,
    timeout: 10,
    headers: { 'Api-Key': BENCH_KEY, 'Content-Type': 'application/json', ...l.headers },
    ...(l.body !== undefined ? { body: l.body } : {}),
    ...(l.setup ? { requests: [{ setupRequest: l.setup }] } : {}),
    ...(l.ownThread === true ? { workers: 1 } : {}),
  });
  if (l.ownThread !== true) {
    void instance.on('response', (_client, status) => {
      if (status >= 200 && status < 300) c.ok++;
      else if (status === 503) c.refused++;
      else c.other++;
    });
  }
  const r = await instance;
  if (l.ownThread === true) {
    const stats = (r as unknown as { statusCodeStats: Record<string, { count: number }> }).statusCodeStats;
    for (const [code, { count }] of Object.entries(stats)) {
      const n = Number(code);
      if (n >= 200 && n < 300) c.ok += count;
      else if (n === 503) c.refused += count;
      else c.other += count;
    }
  }
  return { ...c, errors: r.errors + r.timeouts };
}

interface Probes {
  p50: number;
  max: number;
  /** Probes with no answer within 5 s. */
  timeouts: number;
}

/** GET /health on a new connection every 100 ms for `ms`; latencies in ms (a timeout counts 5,000). */
async function probeHealth(port: number, ms: number): Promise<Probes> {
  const lat: number[] = [];
  let timeouts = 0;
  const end = performance.now() + ms;
  while (performance.now() < end) {
    const t0 = performance.now();
    const ok = await new Promise<boolean>((resolve) => {
      const req = http.get({ host: '127.0.0.1', port, path: '/health', agent: false, timeout: 5_000 }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode === 200));
      });
      req.on('timeout', () => {
        req.destroy();
        resolve(false);
      });
      req.on('error', () => resolve(false));
    });
    const t = performance.now() - t0;
    if (!ok) timeouts++;
    lat.push(ok ? t : 5_000);
    await new Promise((r) => setTimeout(r, Math.max(0, 100 - t)));
  }
  lat.sort((a, b) => a - b);
  return { p50: lat[Math.floor(lat.length / 2)] ?? NaN, max: lat[lat.length - 1] ?? NaN, timeouts };
}

function floods(): Load[] {
  const company = (id: string) =>
    JSON.stringify({ data: { id, type: 'company', attributes: { name: 'flood', version: 1, is_cpo: false, is_emp: true, external_source_mapping: {} }, relationships: { supported_emps: { data: [] } } } });
  const cdr = {
    data: {
      type: 'ocpi_cdr_cost_request',
      attributes: {
        tariff: { currency: 'EUR', elements: [{ price_components: [{ type: 'TIME', price: 2, step_size: 300 }], restrictions: { start_time: '22:00', end_time: '06:00' } }, { price_components: [{ type: 'ENERGY', price: 0.3 }, { type: 'PARKING_TIME', price: 5 }] }] },
        cdr: { start_date_time: '2026-03-02T21:00:00Z', end_date_time: '2026-03-04T23:30:00Z', charging_periods: Array.from({ length: 40 }, (_, i) => ({ start_date_time: new Date(Date.parse('2026-03-02T21:00:00Z') + i * 4_000_000).toISOString(), dimensions: [{ type: 'ENERGY', volume: 2 }, { type: 'TIME', volume: 1 }] })) },
        timezone: 'Europe/Berlin',
      },
    },
  };
  const radius = radiusScenario(5000, 50);
  return [
    { name: 'radius searches (page 50)', method: 'GET', path: radius.path },
    { name: 'cdr_cost (40 periods, 2 days)', method: 'POST', path: '/v1/ocpi/cdr_cost', body: JSON.stringify(cdr) },
    {
      name: 'company writes (PUT, new ids)',
      method: 'PUT',
      path: '/v1/companies/x',
      setup: (req) => {
        const id = randomUUID();
        return { ...req, method: 'PUT', path: `/v1/companies/${id}`, body: company(id) };
      },
    },
    { name: 'CORS preflights', method: 'OPTIONS', path: '/v1/charging_stations', headers: { Origin: 'https://map.example', 'Access-Control-Request-Method': 'GET' } },
    { name: '/metrics scrapes', method: 'GET', path: '/metrics' },
    // A CSV export (D238), page after page of the register: the same 1,000-station pages again and again.
    { name: 'CSV export pages (1,000 stations)', method: 'GET', path: '/v1/charging_stations?export=true&page[size]=1000', headers: { Accept: 'text/csv' }, ownThread: true },
  ];
}

const f = (x: number, d = 0): string => (Number.isFinite(x) ? x.toLocaleString('en', { maximumFractionDigits: d, minimumFractionDigits: d }) : 'n/a');

interface Row {
  build: string;
  budgets: string;
  flood: string;
  aloneGoodput: number;
  priceGoodput: number;
  share: number;
  floodGoodput: number;
  flood503: number;
  price503: number;
  other: number;
  healthP50: number;
  healthMax: number;
  healthTimeouts: number;
}

/** One service start with ADMISSION_BUDGETS=`budgets` (`default`: unset): price alone, then each flood. */
async function measureSetting(budgets: string, snapshot: string, build: string, root: string | undefined): Promise<Row[]> {
  // Every price request priced (D287's answers kept in memory off): price goodput is price work.
  const env: Record<string, string> = budgets === 'default' ? { CHARGE_PRICE_CACHE_MB: '0' } : { CHARGE_PRICE_CACHE_MB: '0', ADMISSION_BUDGETS: budgets };
  const svc = await startService({ snapshot, env, ...(root !== undefined ? { root } : {}) });
  const rows: Row[] = [];
  try {
    const fixture = pickFixture(snapshot);
    const tariffs = await generateTariffs(svc.port, fixture.operator, values.quick ? 250 : 1000);
    const sc = priceScenarios(fixture, tariffs, tariffs.length, 1).find((s) => s.name.startsWith('charge prices, busy station ('))!;
    const price: Load = { name: sc.name, method: 'POST', path: sc.path, body: JSON.stringify(sc.body) };
    // A first round warms the service up; the second is the baseline.
    await run(svc.port, price, PRICE_CONNECTIONS);
    await waitIdle(svc.proc.pid!, 0.1, 30_000);
    const aloneGoodput = (await run(svc.port, price, PRICE_CONNECTIONS)).ok / DURATION;
    console.error(`${build} · budgets ${budgets} · price alone: ${f(aloneGoodput)} ok/s`);
    for (const l of floods()) {
      if (ONLY !== null && !ONLY.test(l.name)) continue;
      await waitIdle(svc.proc.pid!, 0.1, 30_000);
      const [p, fl, hp] = await Promise.all([run(svc.port, price, PRICE_CONNECTIONS), run(svc.port, l, FLOOD_CONNECTIONS), probeHealth(svc.port, DURATION * 1000)]);
      const row: Row = {
        build,
        budgets,
        flood: l.name,
        aloneGoodput,
        priceGoodput: p.ok / DURATION,
        share: p.ok / DURATION / aloneGoodput,
        floodGoodput: fl.ok / DURATION,
        flood503: fl.refused / DURATION,
        price503: p.refused / DURATION,
        other: p.other + fl.other,
        healthP50: hp.p50,
        healthMax: hp.max,
        healthTimeouts: hp.timeouts,
      };
      console.error(`${build} · budgets ${budgets} · ${l.name}: price ${f(row.priceGoodput)} ok/s (${f(row.share * 100, 1)} % of alone), flood ${f(row.floodGoodput)} ok/s, ${f(row.flood503)} 503/s, /health p50 ${f(hp.p50, 1)} ms max ${f(hp.max)} ms`);
      rows.push(row);
    }
  } finally {
    await svc.stop();
  }
  return rows;
}

async function main(): Promise<void> {
  console.log(machineLine());
  console.log(loadLine());
  const snapshot = defaultSnapshotPath();
  const rows: Row[] = [];
  const builds: [string, string | undefined][] = values.baseline === undefined ? [['this build', undefined]] : [['previous build', values.baseline], ['this build', undefined]];
  for (const b of values.budgets.split(',')) for (const [build, root] of builds) rows.push(...(await measureSetting(b.trim(), snapshot, build, root)));
  console.log(`\nprice: charge prices at a busy station on ${PRICE_CONNECTIONS} connections; floods on ${FLOOD_CONNECTIONS} connections, ${DURATION} s each\n`);
  console.log('| build | ADMISSION_BUDGETS | flood | price alone /s | price with the flood /s | × alone | price 503 /s | flood goodput /s | flood 503 /s | /health p50 ms | /health max ms | /health timeouts | other statuses |');
  console.log('| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const r of rows) {
    console.log(
      `| ${r.build} | ${r.budgets} | ${r.flood} | ${f(r.aloneGoodput)} | ${f(r.priceGoodput)} | ${f(r.share, 2)} | ${f(r.price503)} | ${f(r.floodGoodput)} | ${f(r.flood503)} | ${f(r.healthP50, 1)} | ${f(r.healthMax)} | ${r.healthTimeouts} | ${r.other} |`,
    );
  }
  console.log(loadLine());
  if (!values.quick) writeJson('floods', { machine: machineLine(), durationS: DURATION, floodConnections: FLOOD_CONNECTIONS, rows });
  if (rows.some((r) => r.other > 0)) {
    console.error('answers other than 2xx and 503');
    process.exitCode = 1;
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
