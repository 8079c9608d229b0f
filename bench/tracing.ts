/**
 * What OpenTelemetry tracing costs (D229): station read and radius page 50 against three services
 * on the same snapshot, TRACING=off, TRACING=otlp recording every trace, and TRACING=otlp
 * recording 1 % (TRACING_SAMPLE_RATIO=0.01), exporting to a collector in this process that
 * accepts and drops the batches. 50 connections, rounds rotating the order; medians of req/s and
 * of the service's CPU per request (all its threads), and their ratios to tracing off.
 *
 *   npm run bench:tracing [-- --duration 5] [--runs 3] [--check]
 */
import http from 'node:http';
import { parseArgs } from 'node:util';
import { defaultSnapshotPath } from '../src/config.js';
import { cpuMsOf, loadLine, load, machineLine, median, startService, waitIdle, type Scenario } from './lib/harness.js';
import { pickFixture, stationScenarios } from './scenarios.js';

const { values } = parseArgs({
  options: { duration: { type: 'string', default: '5' }, runs: { type: 'string', default: '3' }, connections: { type: 'string', default: '50' }, check: { type: 'boolean', default: false } },
});
const CHECK = values.check;
const DURATION = CHECK ? 1 : Number(values.duration);
const RUNS = CHECK ? 1 : Number(values.runs);
const CONNS = Number(values.connections);

async function main(): Promise<void> {
  console.log(machineLine());
  console.log(loadLine());
  let batches = 0;
  const collector = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      batches++;
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => collector.listen(0, '127.0.0.1', r));
  const endpoint = `http://127.0.0.1:${(collector.address() as { port: number }).port}/v1/traces`;
  const snapshot = defaultSnapshotPath();
  const targets = {
    off: await startService({ snapshot, env: { TRACING: 'off' } }),
    'on, every trace': await startService({ snapshot, env: { TRACING: 'otlp', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: endpoint } }),
    'on, 1 % of traces': await startService({ snapshot, env: { TRACING: 'otlp', TRACING_SAMPLE_RATIO: '0.01', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: endpoint } }),
  };
  const names = Object.keys(targets) as (keyof typeof targets)[];
  try {
    const f = pickFixture(snapshot);
    const scenarios: Scenario[] = [{ name: 'station read', method: 'GET', path: `/v1/charging_stations/${f.busy.id}` }, stationScenarios().find((s) => s.name.endsWith('page 50'))!];
    console.log('| scenario | tracing | req/s | / off | CPU µs per request | / off |');
    console.log('| --- | --- | ---: | ---: | ---: | ---: |');
    for (const sc of scenarios) {
      const rps: Record<string, number[]> = {};
      const cpu: Record<string, number[]> = {};
      for (const n of names) {
        rps[n] = [];
        cpu[n] = [];
        await load(targets[n].port, sc, 1, CONNS);
      }
      for (let k = 0; k < RUNS; k++) {
        for (let i = 0; i < names.length; i++) {
          const n = names[(i + k) % names.length];
          const svc = targets[n];
          await waitIdle(svc.proc.pid!, 0.1, 30_000);
          const c0 = cpuMsOf(svc.proc.pid!);
          const m = await load(svc.port, sc, DURATION, CONNS);
          if (m.non2xx > 0 || m.errors > 0) throw new Error(`${n} ${sc.name}: ${m.non2xx} non-2xx, ${m.errors} errors`);
          rps[n].push(m.rps);
          cpu[n].push(((cpuMsOf(svc.proc.pid!) - c0) * 1000) / (m.rps * DURATION));
        }
      }
      for (const n of names) {
        const r = median(rps[n]);
        const c = median(cpu[n]);
        console.log(`| ${sc.name} | ${n} | ${Math.round(r)} | ${(r / median(rps.off)).toFixed(3)} | ${c.toFixed(1)} | ${(c / median(cpu.off)).toFixed(3)} |`);
      }
    }
    if (batches === 0) throw new Error('no span batch reached the collector');
    console.log(`span batches received: ${batches}`);
  } finally {
    await Promise.all(names.map((n) => targets[n].stop()));
    collector.close();
  }
  console.log(loadLine());
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
