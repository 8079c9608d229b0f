/**
 * What rate limits cost a request (D109, D217, D218): the service on a PostgreSQL live store with
 * limits off, with limits on counted in process (the same service on SQLite would count alike),
 * and with limits on shared with the other replicas of the store (a second replica serving the
 * same key meanwhile, so every exchange carries counts), in alternating rounds of one run: req/s
 * and the service's CPU ms per request for a radius search (page 50) and a station read. Limits
 * are set high enough never to refuse.
 *
 *   npm run bench:rate-limits [-- --duration <s>] [--runs <n>] [--connections <n>] [--check]
 *
 * --check: each scenario answered 200 with the RateLimit fields by each target, nothing measured.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { BENCH_KEY, cpuMsOf, load, loadLine, machineLine, median, ROOT, startService, startThrowAwayPostgres, type Scenario } from './lib/harness.js';
import { PARIS, radiusScenario } from './scenarios.js';

const { values } = parseArgs({
  options: {
    check: { type: 'boolean', default: false },
    duration: { type: 'string', default: '5' },
    runs: { type: 'string', default: '3' },
    connections: { type: 'string', default: '10' },
  },
});
const durationS = Number(values.duration);
const runs = Number(values.runs);
const connections = Number(values.connections);
const snapshot = path.join(ROOT, 'snapshots/default.sqlite');
const HIGH = { RATE_LIMIT: 'on', RATE_LIMIT_REQUESTS: '100000000', RATE_LIMIT_PRICE_REQUESTS: '100000000' };

async function main(): Promise<number> {
  const pg = startThrowAwayPostgres('cps-rate-limits-');
  const db = startThrowAwayPostgres('cps-rate-limits-alone-');
  // Limits off and limits per process run on a database of their own (no replica beside them);
  // the shared target has a second replica on its database that serves the same key.
  const targets = [
    { name: 'limits off', svc: await startService({ snapshot, env: { DATABASE_URL: db.url } }) },
    { name: 'limits on, in process (SQLite)', svc: await startService({ snapshot, env: { ...HIGH } }) },
    { name: 'limits on, shared (PostgreSQL)', svc: await startService({ snapshot, env: { DATABASE_URL: pg.url, ...HIGH } }) },
  ];
  const other = await startService({ snapshot, env: { DATABASE_URL: pg.url, ...HIGH } });
  const station = (await (await fetch(`http://127.0.0.1:${targets[0].svc.port}${radiusScenario(5000, 1).path}`, { headers: { 'Api-Key': BENCH_KEY } })).json()) as { data: Array<{ id: string }> };
  const scenarios: Scenario[] = [
    radiusScenario(5000, 50),
    { name: `station read near ${PARIS.latitude}, ${PARIS.longitude}`, method: 'GET', path: `/v1/charging_stations/${station.data[0].id}` },
  ];
  // The second replica keeps serving the key, so the shared target's exchanges carry its counts.
  const beside = setInterval(() => void fetch(`http://127.0.0.1:${other.port}/v2/vehicle_brands`, { headers: { 'Api-Key': BENCH_KEY } }).catch(() => {}), 20);
  let failed = 0;
  try {
    for (const sc of scenarios) {
      for (const t of targets) {
        const r = await fetch(`http://127.0.0.1:${t.svc.port}${sc.path}`, { headers: { 'Api-Key': BENCH_KEY } });
        const limited = r.headers.get('ratelimit') !== null;
        if (r.status !== 200 || limited !== t.name.startsWith('limits on')) {
          console.error(`${t.name}: ${sc.name} answered ${r.status}, RateLimit ${r.headers.get('ratelimit')}`);
          failed++;
        }
        await r.arrayBuffer();
      }
    }
    if (values.check) {
      console.log(`bench:rate-limits --check: ${scenarios.length} scenarios on ${targets.length} targets, ${failed} failed`);
      return failed > 0 ? 1 : 0;
    }
    const rows = new Map<string, { rps: number[]; cpu: number[] }>();
    for (let r = 0; r < runs; r++) {
      for (const sc of scenarios) {
        const order = r % 2 === 0 ? targets : [...targets].reverse();
        for (const t of order) {
          const cpu0 = cpuMsOf(t.svc.proc.pid!);
          const m = await load(t.svc.port, sc, durationS, connections);
          const row = rows.get(`${sc.name}|${t.name}`) ?? { rps: [], cpu: [] };
          row.rps.push(m.rps);
          row.cpu.push((cpuMsOf(t.svc.proc.pid!) - cpu0) / (m.rps * durationS));
          rows.set(`${sc.name}|${t.name}`, row);
          failed += m.errors + m.non2xx;
          console.error(`  round ${r + 1} ${t.name} ${sc.name}: ${Math.round(m.rps)} req/s`);
        }
      }
    }
    console.log(`${machineLine()}; ${loadLine()}; ${connections} connections, ${runs} × ${durationS} s alternating; medians`);
    console.log('\n| scenario | target | req/s | vs limits off | service CPU ms/req |\n| --- | --- | ---: | ---: | ---: |');
    for (const sc of scenarios) {
      const base = median(rows.get(`${sc.name}|limits off`)!.rps);
      for (const t of targets) {
        const row = rows.get(`${sc.name}|${t.name}`)!;
        console.log(`| ${sc.name} | ${t.name} | ${Math.round(median(row.rps))} | ${(median(row.rps) / base).toFixed(3)}× | ${median(row.cpu).toFixed(3)} |`);
      }
    }
    console.log(`failed requests: ${failed}`);
    return failed > 0 ? 1 : 0;
  } finally {
    clearInterval(beside);
    await Promise.all([...targets.map((t) => t.svc.stop()), other.stop()]);
    pg.stop();
    db.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
