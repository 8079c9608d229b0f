/**
 * One replica against two behind nginx (issue "beyond one process", item 6): radius search page 50
 * and a station read through deploy/cluster.sh's nginx, alternating rounds between a one-replica
 * and a two-replica cluster started side by side, reported as req/s, CPU time per request (the
 * replicas' and nginx's, from /proc) and req/s per core (req/s ÷ cores busy). The load
 * generator runs on the same machine and its CPU is not counted.
 *
 *   npm run bench:replicas [-- --duration <s>] [--runs <n>] [--connections <n>] [--check]
 *
 * Needs Debian's nginx (`.ci/run` installs it). --check: every answer checked once through both
 * clusters, nothing measured.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { BENCH_KEY, cpuMsOf, load, loadLine, machineLine, median, request, ROOT, writeJson, type Measure, type Scenario } from './lib/harness.js';
import { radiusScenario } from './scenarios.js';

const { values } = parseArgs({
  options: {
    check: { type: 'boolean', default: false },
    duration: { type: 'string', default: '5' },
    runs: { type: 'string', default: '3' },
    connections: { type: 'string', default: '50' },
  },
});
const durationS = Number(values.duration);
const runs = Number(values.runs);
const connections = Number(values.connections);
const script = path.join(ROOT, 'deploy/cluster.sh');

interface Cluster {
  replicas: number;
  dir: string;
  port: number;
  pids: number[];
}

function start(replicas: number): Cluster {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `cps-cluster-${replicas}-`));
  const out = execFileSync(script, ['start', dir, String(replicas)], { encoding: 'utf8', env: { ...process.env, CLUSTER_KEY: BENCH_KEY } });
  const port = Number(/URL=http:\/\/127\.0\.0\.1:(\d+)/.exec(out)![1]);
  const pids = /PIDS=([\d ]+)/.exec(out)![1].trim().split(/\s+/).map(Number);
  return { replicas, dir, port, pids };
}

function stop(c: Cluster): void {
  execFileSync(script, ['stop', c.dir]);
  fs.rmSync(c.dir, { recursive: true, force: true });
}

const cpuOf = (c: Cluster): number => c.pids.reduce((s, p) => s + cpuMsOf(p), 0);

const clusters = [start(1), start(2)];
let exitCode = 0;
try {
  const radius = radiusScenario(5000, 50);
  const first = await request(clusters[0].port, radius);
  const stationId = (JSON.parse(first.body) as { data: { id: string }[] }).data[0].id;
  const scenarios: Scenario[] = [radius, { name: 'station read', method: 'GET', path: `/v1/charging_stations/${stationId}` }];
  // Every answer alike through both clusters (and from each replica, as nginx alternates).
  for (const sc of scenarios) {
    const answers = new Set<string>();
    for (const c of clusters) for (let k = 0; k < 4; k++) {
      const r = await request(c.port, sc);
      if (r.status !== 200) throw new Error(`${sc.name}: ${c.replicas} replica(s) answered ${r.status}`);
      answers.add(r.body);
    }
    if (answers.size !== 1) throw new Error(`${sc.name}: the replicas answer differently`);
    if (values.check) console.log(`${sc.name}: 200 and the same bytes through 1 and 2 replicas`);
  }
  if (!values.check) {
    const rows: Record<string, unknown>[] = [];
    for (const sc of scenarios) {
      const per: { rps: number[]; cpuMs: number[]; perCore: number[]; p50: number[] }[] = clusters.map(() => ({ rps: [], cpuMs: [], perCore: [], p50: [] }));
      for (const c of clusters) await load(c.port, sc, 1, connections); // warm-up
      for (let k = 0; k < runs; k++) {
        for (const [i, c] of clusters.entries()) {
          const cpu0 = cpuOf(c);
          const m: Measure = await load(c.port, sc, durationS, connections);
          const cpuMs = cpuOf(c) - cpu0;
          const requests = m.rps * durationS;
          per[i].rps.push(m.rps);
          per[i].p50.push(m.p50);
          per[i].cpuMs.push(cpuMs / requests);
          per[i].perCore.push(m.rps / (cpuMs / 1000 / durationS));
        }
      }
      for (const [i, c] of clusters.entries()) {
        rows.push({ scenario: sc.name, replicas: c.replicas, rps: median(per[i].rps), p50: median(per[i].p50), cpuMsPerRequest: median(per[i].cpuMs), rpsPerCore: median(per[i].perCore) });
      }
    }
    console.log(`\n${machineLine()}; ${loadLine()}; ${connections} connections, ${runs} × ${durationS} s alternating, medians\n`);
    console.log('| scenario | replicas | req/s | p50 ms | CPU ms per request (replicas + nginx) | req/s per core |');
    console.log('| --- | ---: | ---: | ---: | ---: | ---: |');
    for (const r of rows as { scenario: string; replicas: number; rps: number; p50: number; cpuMsPerRequest: number; rpsPerCore: number }[]) {
      console.log(`| ${r.scenario} | ${r.replicas} | ${Math.round(r.rps)} | ${r.p50} | ${r.cpuMsPerRequest.toFixed(3)} | ${Math.round(r.rpsPerCore)} |`);
    }
    writeJson('replicas', { rows, durationS, runs, connections });
  }
} catch (e) {
  console.error(e);
  exitCode = 1;
} finally {
  for (const c of clusters) stop(c);
}
process.exit(exitCode);
