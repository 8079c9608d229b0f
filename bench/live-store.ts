/**
 * `npm run bench:live-store`: the service on its SQLite live store against the same service on
 * PostgreSQL (a throw-away cluster from deploy/postgres.sh, or DATABASE_URL), started side by
 * side on the default snapshot and measured in alternating rounds (D150, D151):
 *
 * - tariff PUT throughput (each request the next version of a tariff: one durable transaction);
 * - charge prices at the typical station of the default catalog, and at the busy station with 250
 *   generated tariffs (on PostgreSQL every request first checks the store's generations, D151);
 * - the read-your-writes check alone: `GET /v1/companies?page[size]=1` (a catalog route with the
 *   smallest answer), so its cost per request shows.
 *
 * Figures: req/s, CPU ms per request of the service process (from /proc; PostgreSQL's own CPU is
 * reported beside it), and the check queries per request (coalescing).
 *
 *   npm run bench:live-store [-- --duration <s>] [--runs <n>] [--connections <n>] [--check]
 *
 * --check: every scenario answered 200/201 by both, the same charge prices from both, nothing
 * measured.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { cpuMsOf, load, loadLine, machineLine, median, request, ROOT, startService, writeJson, type Measure, type Scenario } from './lib/harness.js';
import { chooseTypical, createBenchEmp, generateTariffs, pickFixture, priceScenarios, putScenario } from './scenarios.js';

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

let pgDir: string | null = null;
let databaseUrl = process.env.DATABASE_URL ?? '';
// The SQLite service must not inherit it (the harness passes this process's environment on).
delete process.env.DATABASE_URL;
if (databaseUrl === '') {
  pgDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cps-live-store-pg-'));
  const out = execFileSync('bash', [path.join(ROOT, 'deploy/postgres.sh'), 'start', path.join(pgDir, 'pg')], { encoding: 'utf8' });
  databaseUrl = /DATABASE_URL=(\S+)/.exec(out)![1];
}

/** The PostgreSQL server's processes (postmaster and its backends), for their CPU time. */
function pgPids(): number[] {
  const port = new URL(databaseUrl).port;
  try {
    const main = Number(execFileSync('bash', ['-c', `ss -ltnpH 'sport = :${port}' | grep -o 'pid=[0-9]*' | head -1 | cut -d= -f2`], { encoding: 'utf8' }).trim());
    if (!main) return [];
    const kids = execFileSync('bash', ['-c', `pgrep -P ${main} || true`], { encoding: 'utf8' }).trim().split(/\s+/).filter(Boolean).map(Number);
    return [main, ...kids];
  } catch {
    return [];
  }
}
const pgCpu = (): number => pgPids().reduce((s, p) => s + cpuMsOf(p), 0);

async function checksOf(port: number): Promise<number> {
  const r = await fetch(`http://127.0.0.1:${port}/metrics`);
  const m = /^cps_live_store_checks_total (\d+)/m.exec(await r.text());
  return m === null ? 0 : Number(m[1]);
}

// Every charge price request priced (D287's answers kept in memory off): each reads the store's catalog.
const sqlite = await startService({ snapshot, env: { CHARGE_PRICE_CACHE_MB: '0' } });
const pg = await startService({ snapshot, env: { CHARGE_PRICE_CACHE_MB: '0', DATABASE_URL: databaseUrl } });
const targets = [
  { name: 'SQLite', svc: sqlite },
  { name: 'PostgreSQL', svc: pg },
] as const;
// Each service on the store it is named for, as its start-up log says ("live store open").
for (const [t, kind] of [[targets[0], 'sqlite'], [targets[1], 'postgres']] as const) {
  const said = /"store":"([a-z]+)"[^\n]*"msg":"live store open"/.exec(t.svc.startLog)?.[1];
  if (said !== kind) throw new Error(`the ${t.name} service opened the ${said ?? 'unknown'} live store`);
}
let exitCode = 0;
try {
  const f = pickFixture(snapshot);
  const setup: Scenario[][] = [];
  for (const t of targets) {
    const tariffs = await generateTariffs(t.svc.port, f.operator, 250);
    await chooseTypical(t.svc.port, f);
    const emp = await createBenchEmp(t.svc.port);
    const prices = priceScenarios(f, tariffs, 250, connections).filter((s) => /busy station \(|typical station/.test(s.name));
    setup.push([
      { name: 'read-your-writes check only: GET /v1/companies?page[size]=1', method: 'GET', path: '/v1/companies?page[size]=1' },
      ...prices,
      putScenario(emp, connections),
    ]);
  }
  const names = setup[0].map((s) => s.name);
  // Both answer every scenario, and the same charge prices.
  for (let i = 0; i < names.length; i++) {
    const answers = await Promise.all(targets.map((t, k) => request(t.svc.port, setup[k][i])));
    for (const [k, a] of answers.entries()) {
      const want = setup[k][i].expect ?? 200;
      if (a.status !== want) throw new Error(`${targets[k].name}: ${names[i]} answered ${a.status}: ${a.body.slice(0, 300)}`);
    }
    if (names[i].startsWith('charge prices')) {
      const strip = (b: string) => JSON.stringify(JSON.parse(b, (k, v) => (k === 'id' && typeof v === 'string' && v.length === 36 ? undefined : v)));
      if (strip(answers[0].body) !== strip(answers[1].body) && !names[i].includes('busy')) {
        throw new Error(`${names[i]}: the two stores priced differently`);
      }
    }
  }
  if (values.check) {
    console.log(`bench:live-store --check: ${names.length} scenarios answered alike on SQLite and PostgreSQL`);
  } else {
    const results: Record<string, Record<string, { rps: number[]; cpu: number[]; pgCpu: number[]; checks: number[] }>> = {};
    for (let r = 0; r < runs; r++) {
      for (let i = 0; i < names.length; i++) {
        const order = r % 2 === 0 ? [0, 1] : [1, 0];
        for (const k of order) {
          const t = targets[k];
          const sc = setup[k][i];
          const cpu0 = cpuMsOf(t.svc.proc.pid!);
          const pg0 = pgCpu();
          const ch0 = await checksOf(t.svc.port);
          const m: Measure = await load(t.svc.port, sc, durationS, sc.connections ?? connections, sc.dynamic?.('full'));
          const total = m.rps * durationS;
          const row = ((results[names[i]] ??= {})[t.name] ??= { rps: [], cpu: [], pgCpu: [], checks: [] });
          row.rps.push(m.rps);
          row.cpu.push((cpuMsOf(t.svc.proc.pid!) - cpu0) / total);
          row.pgCpu.push((pgCpu() - pg0) / total);
          row.checks.push(((await checksOf(t.svc.port)) - ch0) / total);
          if (m.errors > 0 || m.non2xx > 0) console.error(`  ${t.name} ${names[i]}: ${m.errors} errors, ${m.non2xx} non-2xx`);
          console.error(`  round ${r + 1} ${t.name} ${names[i]}: ${Math.round(m.rps)} req/s`);
        }
      }
    }
    const lines = [
      `${machineLine()}; ${loadLine()}; ${connections} connections, ${runs} × ${durationS} s alternating; medians`,
      '',
      '| scenario | SQLite req/s | PostgreSQL req/s | PG / SQLite | service CPU ms/req SQLite | service CPU ms/req PG | PostgreSQL server CPU ms/req | checks per request (PG) |',
      '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ];
    for (const n of names) {
      const s = results[n].SQLite;
      const p = results[n].PostgreSQL;
      lines.push(
        `| ${n} | ${Math.round(median(s.rps))} | ${Math.round(median(p.rps))} | ${(median(p.rps) / median(s.rps)).toFixed(2)}× | ${median(s.cpu).toFixed(3)} | ${median(p.cpu).toFixed(3)} | ${median(p.pgCpu).toFixed(3)} | ${median(p.checks).toFixed(2)} |`,
      );
    }
    console.log(lines.join('\n'));
    writeJson('live-store', results);
  }
} catch (e) {
  console.error(e);
  exitCode = 1;
} finally {
  // Each service ends (SIGTERM, waited for) before its database stops.
  await Promise.all(targets.map((t) => t.svc.stop()));
  if (pgDir !== null) {
    execFileSync('bash', [path.join(ROOT, 'deploy/postgres.sh'), 'stop', path.join(pgDir, 'pg')]);
    fs.rmSync(pgDir, { recursive: true, force: true });
  }
}
process.exit(exitCode);
