/**
 * Catalog write and list throughput over HTTP: the compiled service as a child process on
 * 127.0.0.1 (fresh data dir, default snapshot with its seeded catalog), driven by autocannon.
 *
 *   npm run bench:catalog [-- --quick] [--duration <s>] [--runs <n>] [--connections <n>] [--snapshot <file>]
 *
 * Baselines from the same run: GET /health through the full stack, and for every list a bare
 * uWebSockets.js app answering the same bytes. Writes: PUT create (new id per request, 201), PUT
 * update (each connection advances its own tariff's version, 200), PUT with a stale version (409:
 * validation and the locked version check, no write). Every write is one IMMEDIATE transaction
 * with synchronous=FULL (an fsync per acknowledged write).
 */
import { randomUUID } from 'node:crypto';
import autocannon from 'autocannon';
import { BENCH_KEY, formatTable, machineLine, runScenarios, startService, writeJson, writeResultsSection, type BenchOptions, type Scenario } from './lib/harness.js';
import { tariffBody } from './scenarios.js';

function parse(argv: string[]): BenchOptions & { quick: boolean } {
  const o = { durationS: 5, runs: 3, connections: 20, warmupS: 2, quick: false } as BenchOptions & { quick: boolean };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--quick') Object.assign(o, { quick: true, durationS: 1, runs: 1, warmupS: 0.5 });
    else if (a === '--duration') o.durationS = Number(argv[++i]);
    else if (a === '--runs') o.runs = Number(argv[++i]);
    else if (a === '--connections') o.connections = Number(argv[++i]);
    else if (a === '--snapshot') o.snapshot = argv[++i];
    else throw new Error(`unknown argument ${a}`);
  }
  return o;
}

const headers = { 'Api-Key': BENCH_KEY, 'Content-Type': 'application/json' };


async function send(port: number, method: string, p: string, body?: string): Promise<{ status: number; text: string }> {
  const r = await fetch(`http://127.0.0.1:${port}${p}`, { method, headers, body });
  return { status: r.status, text: await r.text() };
}

interface WriteResult {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  statuses: Record<string, number>;
}

type Mode = 'create' | 'update' | 'conflict';

async function writeLoad(port: number, emp: string, mode: Mode, durationS: number, connections: number, conflictId: string): Promise<WriteResult & { ok: number }> {
  const statuses: Record<string, number> = {};
  const idle: Array<{ id: string; version: number }> = [];
  const r = await autocannon({
    url: `http://127.0.0.1:${port}`,
    connections,
    duration: durationS,
    headers,
    requests: [
      {
        method: 'PUT',
        setupRequest: (req: any, context: any) => {
          if (mode === 'create') {
            const id = randomUUID();
            return { ...req, path: `/v2/tariffs/${id}`, body: JSON.stringify(tariffBody(id, emp, 1)) };
          }
          if (mode === 'conflict') return { ...req, path: `/v2/tariffs/${conflictId}`, body: JSON.stringify(tariffBody(conflictId, emp, 1)) };
          // Each in-flight request takes an idle tariff (or a new one) and sends its next version.
          const t = idle.pop() ?? { id: randomUUID(), version: 0 };
          t.version += 1;
          context.tariff = t;
          return { ...req, path: `/v2/tariffs/${t.id}`, body: JSON.stringify(tariffBody(t.id, emp, t.version)) };
        },
        onResponse: (status: number, _body: string, context: any) => {
          statuses[status] = (statuses[status] ?? 0) + 1;
          if (context.tariff !== undefined) {
            if (status !== 200 && status !== 201) context.tariff.version -= 1;
            idle.push(context.tariff);
            context.tariff = undefined;
          }
        },
      },
    ],
  } as any);
  const want = mode === 'conflict' ? [409] : mode === 'create' ? [201] : [200, 201];
  const ok = Object.entries(statuses).reduce((s, [k, n]) => s + (want.includes(Number(k)) ? n : 0), 0);
  return { name: mode, rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, statuses, ok };
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

async function main(): Promise<void> {
  const o = parse(process.argv.slice(2));
  const svc = await startService(o);
  let stopping = false;
  svc.proc.once('exit', (code, signal) => {
    if (!stopping) console.error(`service exited during the benchmark (code ${code}, signal ${signal})`);
  });
  try {
    // A bench EMP with 100 tariffs (one full page of the raw list).
    const emp = randomUUID();
    const c = await send(
      svc.port,
      'PUT',
      `/v1/companies/${emp}`,
      JSON.stringify({
        data: { id: emp, type: 'company', attributes: { name: 'Bench EMP', version: 1, is_cpo: false, is_emp: true, external_source_mapping: {} }, relationships: { supported_emps: { data: [] } } },
      }),
    );
    if (c.status !== 201) throw new Error(`company PUT: ${c.status} ${c.text}`);
    for (let i = 0; i < 100; i++) {
      const id = randomUUID();
      const r = await send(svc.port, 'PUT', `/v2/tariffs/${id}`, JSON.stringify(tariffBody(id, emp, 1)));
      if (r.status !== 201) throw new Error(`tariff PUT: ${r.status} ${r.text}`);
    }
    const conflictId = randomUUID();
    await send(svc.port, 'PUT', `/v2/tariffs/${conflictId}`, JSON.stringify(tariffBody(conflictId, emp, 1)));

    const scenarios: Scenario[] = [
      { name: 'GET /health (baseline)', method: 'GET', path: '/health' },
      { name: 'GET /v2/tariffs (100 of one EMP)', method: 'GET', path: `/v2/tariffs?filter[emp.id]=${emp}` },
      { name: 'GET /v2/tariffs fields[tariff]=name,version', method: 'GET', path: `/v2/tariffs?filter[emp.id]=${emp}&fields[tariff]=name,version` },
      { name: 'GET /v1/companies (page of 100)', method: 'GET', path: '/v1/companies' },
      { name: 'GET /v1/companies?q=tot', method: 'GET', path: '/v1/companies?q=tot' },
      { name: 'GET /v1/tariffs (all metadata)', method: 'GET', path: '/v1/tariffs' },
    ];
    const rows = await runScenarios(svc.port, scenarios, o);
    const listTable = formatTable(rows);
    console.log(listTable);

    const writes: WriteResult[] = [];
    const wc = Math.min(o.connections, 10);
    for (const mode of ['create', 'update', 'conflict'] as Mode[]) {
      await writeLoad(svc.port, emp, mode, o.warmupS, wc, conflictId);
      const runs = [];
      for (let k = 0; k < o.runs; k++) runs.push(await writeLoad(svc.port, emp, mode, o.durationS, wc, conflictId));
      const statuses: Record<string, number> = {};
      for (const r of runs) for (const [k, n] of Object.entries(r.statuses)) statuses[k] = (statuses[k] ?? 0) + n;
      writes.push({ name: `PUT /v2/tariffs ${mode}`, rps: median(runs.map((r) => r.rps)), p50: median(runs.map((r) => r.p50)), p99: median(runs.map((r) => r.p99)), statuses });
    }
    const health = rows[0].full;
    const writeTable = [
      `| scenario | req/s | p50 ms | p99 ms | statuses | vs GET /health req/s |`,
      '| --- | ---: | ---: | ---: | --- | ---: |',
      ...writes.map(
        (w) =>
          `| ${w.name} | ${Math.round(w.rps)} | ${w.p50} | ${w.p99} | ${Object.entries(w.statuses).map(([k, n]) => `${k}×${n}`).join(' ')} | ${((w.rps / health.rps) * 100).toFixed(1)} % |`,
      ),
    ].join('\n');
    console.log(`\nwrites (${wc} connections):\n${writeTable}`);
    writeJson('catalog', { machine: machineLine(), options: o, lists: rows, writes });
    if (!o.quick) {
      writeResultsSection(
        'catalog',
        `## Catalog: company/tariff lists and tariff writes\n\n${machineLine()}\n\n` +
          `autocannon, ${o.runs} × ${o.durationS} s per target after ${o.warmupS} s warm-up; medians. Lists: ${o.connections} connections, ` +
          `full stack vs a bare uWebSockets.js app answering the same bytes. Writes: ${wc} connections; each PUT is one IMMEDIATE ` +
          `transaction with synchronous=FULL; baseline GET /health of the same run.\n\n${listTable}\n\n${writeTable}\n`,
      );
    }
  } finally {
    stopping = true;
    await svc.stop();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
