/**
 * The floor of the single station read (D295): a ladder measured in one run, each rung serving
 * the very bytes the service answers for `GET /v1/charging_stations/:id` (the busiest operator's
 * largest station), from the bare uWebSockets.js app up to the full service:
 *
 *   bare      uWS with the same bytes (the ceiling of bench/http.ts)
 *   + remote  the client's address read as text
 *   + log     an access line per request (src/log.ts's writer, info level)
 *   + limit   the rate-limit count and field (D24)
 *   + route   the head copied, the route looked up in a table of every operation, the key checked
 *   full      the service as it starts by default (rate limits off)
 *   full, limits on   the service with RATE_LIMIT=on (limits too high to refuse)
 *   [previous head]   with --previous <checkout>: that checkout's build of the service
 *   peer      the fastify peer (bench/peer/server.ts)
 *
 * The rungs below `full` are src/http/floor-app.ts. Per rung: req/s and the service's CPU per
 * request (process CPU over requests answered: robust against a loaded machine), rounds
 * alternating over every rung after a warm-up, medians.
 *
 *   npm run bench:read-floor [-- --duration <s>] [--runs <n>] [--warmup <s>] [--connections <n>]
 *        [--previous <checkout>] [--check]
 *
 * --check: every rung answers 200 with the service's bytes, nothing measured. Writes
 * bench/out/read-floor.json.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { defaultSnapshotPath } from '../src/config.js';
import type { FloorSpec, FloorStep } from '../src/http/floor-app.js';
import { FLOOR_STEPS } from '../src/http/floor-app.js';
import { BENCH_KEY, cpuMsOf, load, loadLine, machineLine, median, ROOT, spawnAndWait, startService, waitIdle, writeJson, type Scenario } from './lib/harness.js';
import { startPeer } from './http.js';
import { pickFixture } from './scenarios.js';

const { values } = parseArgs({
  options: {
    check: { type: 'boolean', default: false },
    duration: { type: 'string', default: '3' },
    runs: { type: 'string', default: '5' },
    warmup: { type: 'string', default: '1' },
    connections: { type: 'string', default: '50' },
    previous: { type: 'string' },
  },
});

interface Rung {
  name: string;
  port: number;
  pid: number;
  stop(): Promise<void>;
  rps: number[];
  cpuUs: number[];
}

/** `METHOD /path/:param` of every operation the service's OpenAPI description names. */
async function operationsOf(port: number): Promise<string[]> {
  const doc = (await (await fetch(`http://127.0.0.1:${port}/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
  const out: string[] = [];
  for (const [p, ops] of Object.entries(doc.paths)) {
    for (const m of Object.keys(ops)) if (/^(get|post|put|patch|delete)$/.test(m)) out.push(`${m.toUpperCase()} ${p.replace(/\{([^}]+)\}/g, ':$1')}`);
  }
  return out;
}

async function startFloor(spec: FloorSpec): Promise<Rung> {
  const file = path.join(os.tmpdir(), `cps-floor-${process.pid}-${spec.step}.json`);
  fs.writeFileSync(file, JSON.stringify(spec));
  try {
    const c = await spawnAndWait([path.join(ROOT, 'dist/src/http/floor-app.js'), file], {}, (line) => {
      const m = /^listening (\d+)/.exec(line);
      return m ? Number(m[1]) : null;
    });
    return { name: spec.step === 'bare' ? 'bare uWS, same bytes' : `+ ${spec.step}`, port: c.port, pid: c.proc.pid!, stop: c.stop, rps: [], cpuUs: [] };
  } finally {
    fs.rmSync(file, { force: true });
  }
}

async function get(port: number, p: string): Promise<{ status: number; body: string; type: string }> {
  const r = await fetch(`http://127.0.0.1:${port}${p}`, { headers: { 'Api-Key': BENCH_KEY } });
  return { status: r.status, body: await r.text(), type: r.headers.get('content-type') ?? '' };
}

const STEP_NOTE: Record<FloorStep, string> = {
  bare: 'answer only',
  remote: 'client address as text',
  log: 'access line',
  limit: 'rate-limit count and field (D24)',
  route: 'head copy, route lookup, key check',
};

async function main(): Promise<number> {
  const snapshot = defaultSnapshotPath();
  const fixture = pickFixture(snapshot);
  const sc: Scenario = { name: 'station read', method: 'GET', path: `/v1/charging_stations/${fixture.busy.id}` };
  const rungs: Rung[] = [];
  const services: Awaited<ReturnType<typeof startService>>[] = [];
  try {
    const svc = await startService({ snapshot });
    services.push(svc);
    const answer = await get(svc.port, sc.path);
    if (answer.status !== 200) throw new Error(`station read answered ${answer.status}`);
    const operations = await operationsOf(svc.port);
    for (const step of FLOOR_STEPS) rungs.push(await startFloor({ step, path: sc.path, body: answer.body, contentType: answer.type, operations, key: BENCH_KEY }));
    rungs.push({ name: 'full service', port: svc.port, pid: svc.proc.pid!, stop: async () => {}, rps: [], cpuUs: [] });
    const limited = await startService({ snapshot, env: { RATE_LIMIT: 'on', RATE_LIMIT_REQUESTS: '100000000', RATE_LIMIT_PRICE_REQUESTS: '100000000' } });
    services.push(limited);
    rungs.push({ name: 'full service, limits on', port: limited.port, pid: limited.proc.pid!, stop: async () => {}, rps: [], cpuUs: [] });
    if (values.previous !== undefined) {
      const prev = await startService({ snapshot, root: path.resolve(values.previous) });
      services.push(prev);
      rungs.push({ name: `previous head (${path.basename(values.previous)})`, port: prev.port, pid: prev.proc.pid!, stop: async () => {}, rps: [], cpuUs: [] });
    }
    const peer = await startPeer(snapshot, svc.dataDir);
    rungs.push({ name: 'fastify peer', port: peer.port, pid: peer.pid, stop: peer.stop, rps: [], cpuUs: [] });
    let failed = 0;
    for (const r of rungs) {
      const a = await get(r.port, sc.path);
      const same = r.name === 'fastify peer' || r.name.startsWith('full service, limits') || r.name.startsWith('previous') ? a.status === 200 : a.status === 200 && a.body === answer.body;
      if (!same) {
        console.error(`${r.name}: answered ${a.status}${a.body === answer.body ? '' : ', other bytes'}`);
        failed++;
      }
    }
    if (values.check) {
      console.log(`bench:read-floor --check: ${rungs.length} rungs, ${failed} failed`);
      return failed > 0 ? 1 : 0;
    }
    if (failed > 0) return 1;
    await measure(rungs, sc);
    report(rungs);
    return 0;
  } finally {
    for (const r of rungs) await r.stop();
    for (const s of services) await s.stop();
  }
}

async function measure(rungs: Rung[], sc: Scenario): Promise<void> {
  const durationS = Number(values.duration);
  const conns = Number(values.connections);
  const one = async (r: Rung, d: number): Promise<{ rps: number; cpuUs: number }> => {
    const c0 = cpuMsOf(r.pid);
    const m = await load(r.port, sc, d, conns);
    const cpuUs = ((cpuMsOf(r.pid) - c0) * 1000) / (m.rps * d);
    if (m.errors + m.non2xx > 0) throw new Error(`${r.name}: ${m.errors} errors, ${m.non2xx} answers other than 2xx`);
    await waitIdle(r.pid, 0.1, 60_000);
    return { rps: m.rps, cpuUs };
  };
  console.error(`${machineLine()}\n${loadLine()}; ${rungs.length} rungs, ${values.runs} rounds of ${durationS} s at ${conns} connections`);
  for (const r of rungs) await one(r, Number(values.warmup));
  for (let k = 0; k < Number(values.runs); k++) {
    const order = k % 2 === 0 ? rungs : [...rungs].reverse();
    for (const r of order) {
      const m = await one(r, durationS);
      r.rps.push(m.rps);
      r.cpuUs.push(m.cpuUs);
    }
    console.error(`  round ${k + 1} done; ${loadLine()}`);
  }
}

function report(rungs: Rung[]): void {
  const bare = rungs[0];
  const peer = rungs[rungs.length - 1];
  const bareCpu = median(bare.cpuUs);
  const bareRps = median(bare.rps);
  const peerRps = median(peer.rps);
  const peerCpu = median(peer.cpuUs);
  const lines = [
    '| rung | adds | req/s | µs CPU / request | step µs | bare / rung (CPU) | rung / bare (req/s) | peer / rung (CPU) | rung / peer (req/s) |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  let prev = bareCpu;
  const rows = rungs.map((r, i) => {
    const cpu = median(r.cpuUs);
    const rps = median(r.rps);
    const step = i < FLOOR_STEPS.length ? FLOOR_STEPS[i] : null;
    const delta = step !== null && i > 0 ? cpu - prev : NaN;
    if (step !== null) prev = cpu;
    lines.push(
      `| ${r.name} | ${step !== null ? STEP_NOTE[step] : ''} | ${Math.round(rps)} | ${cpu.toFixed(1)} | ${Number.isNaN(delta) ? '' : delta.toFixed(1)} | ` +
        `${((bareCpu / cpu) * 100).toFixed(1)} % | ${((rps / bareRps) * 100).toFixed(1)} % | ${(peerCpu / cpu).toFixed(2)}× | ${(rps / peerRps).toFixed(2)}× |`,
    );
    return { name: r.name, rps, cpuUs: cpu, runsRps: r.rps, runsCpuUs: r.cpuUs };
  });
  console.log(`\nstation read floor (${loadLine()}):\n\n${lines.join('\n')}`);
  writeJson('read-floor', { machine: machineLine(), load: loadLine(), options: values, rows });
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
