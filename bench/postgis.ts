/**
 * Station search against a PostGIS peer (issue "beyond one process", item 6): the service's
 * radius search, page 50 and page 400, beside the fastify + PostGIS GiST peer of
 * bench/peer/postgis.ts (the choice a typical team makes) and the bare uWS ceiling serving the
 * same bytes, alternating rounds in one run; the peer's answers are checked equal to the service's
 * (same stations in the same order) before anything is measured. Then the bare query alone in
 * PostgreSQL (pgbench, 50 clients, no HTTP), to show how much of the peer's time is the database.
 *
 * A throw-away PostgreSQL cluster (deploy/postgres.sh) is started in a temporary directory and
 * removed afterwards. Needs Debian's postgresql and postgresql-15-postgis-3 (`.ci/run` installs
 * them when missing).
 *
 *   npm run bench:postgis [-- --check] [--duration <s>] [--runs <n>] [--connections <n>] [--snapshot <file>]
 *
 * --check: answers checked (statuses, equal answers, the ceiling's bytes), nothing measured.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { defaultSnapshotPath } from '../src/config.js';
import { BENCH_KEY, startThrowAwayPostgres, formatPeerTable, loadLine, machineLine, ROOT, runScenarios, spawnAndWait, startService, writeJson, type BenchOptions, type Scenario } from './lib/harness.js';
import { PAGE_SQL } from './peer/postgis.js';
import { radiusScenario } from './scenarios.js';

const { values } = parseArgs({
  options: {
    check: { type: 'boolean', default: false },
    duration: { type: 'string', default: '5' },
    runs: { type: 'string', default: '3' },
    connections: { type: 'string', default: '50' },
    snapshot: { type: 'string' },
  },
});
const check = values.check;
const o: BenchOptions = { durationS: Number(values.duration), runs: check ? 0 : Number(values.runs), connections: Number(values.connections), warmupS: check ? 0 : 1 };
const snapshot = values.snapshot ?? defaultSnapshotPath();
const PARIS = { latitude: 48.8566, longitude: 2.3522 };

const pg = startThrowAwayPostgres('cps-postgis-');
const { url, dir } = pg;
let exitCode = 0;
try {
  const t0 = performance.now();
  const peer = await spawnAndWait([path.join(ROOT, 'dist/bench/peer/postgis.js'), '--snapshot', snapshot, '--database-url', url], {}, (line) => {
    const m = /^listening (\d+)$/.exec(line.trim());
    return m ? Number(m[1]) : null;
  });
  console.error(`PostGIS peer loaded and listening in ${Math.round(performance.now() - t0)} ms`);
  const svc = await startService({ snapshot });
  try {
    const compressed = (sc: Scenario, enc: string): Scenario => ({ ...sc, name: `${sc.name}, Accept-Encoding: ${enc}`, headers: { 'Accept-Encoding': enc } });
    const scenarios = [radiusScenario(5000, 50), radiusScenario(5000, 400)];
    scenarios.push(...scenarios.flatMap((sc) => [compressed(sc, 'gzip'), compressed(sc, 'br, gzip')]));
    // Both sides compress as asked (the same encoding), before anything is measured.
    for (const sc of scenarios) {
      if (sc.headers === undefined) continue;
      const want = sc.headers['Accept-Encoding'].startsWith('br') ? 'br' : 'gzip';
      for (const [who, port] of [['service', svc.port], ['PostGIS peer', peer.port]] as const) {
        const r = await fetch(`http://127.0.0.1:${port}${sc.path}`, { headers: { 'Api-Key': BENCH_KEY, ...sc.headers } });
        await r.arrayBuffer();
        const got = r.headers.get('content-encoding');
        if (got !== want) throw new Error(`${who}: ${sc.name} answered Content-Encoding ${got}, not ${want}`);
      }
    }
    const rows = await runScenarios(svc.port, scenarios, o, peer.port, { full: svc.proc.pid, peer: peer.proc.pid });
    if (check) {
      for (const r of rows) console.log(`${r.name}: full ${r.checked!.full}, ceiling ${r.checked!.bare}, PostGIS peer ${r.checked!.peer} (same stations in the same order)`);
    } else {
      // The bare query alone: pgbench, 50 clients, the same SQL the peer sends.
      const bare: Record<string, number> = {};
      for (const size of [50, 400]) {
        const sql = path.join(dir, `q${size}.sql`);
        // PAGE_SQL with its parameters written in, sent as the peer sends it (extended protocol).
        const args = [String(PARIS.longitude), String(PARIS.latitude), '5000', String(size + 1)];
        fs.writeFileSync(sql, `${PAGE_SQL.replace(/\$(\d)/g, (_, k: string) => args[Number(k) - 1])};\n`);
        const r = spawnSync('pgbench', ['-n', '-M', 'extended', '-c', '50', '-j', '2', '-T', String(o.durationS), '-f', sql, url], { encoding: 'utf8' });
        const m = /tps = ([\d.]+)/.exec(r.stdout);
        bare[`page${size}`] = m ? Number(m[1]) : NaN;
      }
      console.log(`\n${machineLine()}; ${loadLine()}\n`);
      console.log(formatPeerTable(rows));
      console.log(`\nThe bare query in PostgreSQL (pgbench, 50 clients, no HTTP): page 50 ${Math.round(bare.page50)} queries/s, page 400 ${Math.round(bare.page400)} queries/s`);
      for (const r of rows) console.log(`${r.name}: service / PostGIS peer ${r.vsPeer!.toFixed(1)}× (target ${/page 50(\b|,)/.test(r.name) ? '≥ 5×' : '≥ 3×'})`);
      writeJson('postgis', { rows, bareQueriesPerSecond: bare, options: o });
    }
  } finally {
    await svc.stop();
    await peer.stop();
  }
} catch (e) {
  console.error(e);
  exitCode = 1;
} finally {
  pg.stop();
}
process.exit(exitCode);
