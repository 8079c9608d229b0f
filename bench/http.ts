/**
 * The HTTP benchmark suite: every scenario of bench/scenarios.ts through the full stack (the
 * compiled service as a child process on 127.0.0.1), beside two baselines measured in the same
 * run — the bare uWebSockets.js app serving the very same bytes (the ceiling) and the fastify
 * peer of bench/peer/server.ts (naive linear scan and interpreted reference tariff loop) — on the
 * default snapshot and on the synthetic 1 M-station snapshot (generated on demand into
 * snapshots/synthetic-<n>.sqlite, git-ignored, and reused when present), each with ≥ 1,000
 * generated tariffs. Per scenario: warm-up, then `runs` rounds alternating full / ceiling / peer
 * of `duration` seconds each; medians.
 *
 *   npm run bench:http [-- --quick] [--duration <s>] [--runs <n>] [--warmup <s>] [--connections <n>]
 *        [--latency-connections <n>] [--tariffs <n>] [--workers <n>] [--snapshot <file>]
 *        [--synthetic <file> | --stations <n> | --no-synthetic] [--out <dir>] [--no-report]
 *        [--only <regex>] [--profile <dir>] [--json-name <name>]
 *
 * Writes <out>/http.json (default bench/out/), and unless --quick / --no-report the `http` section
 * of bench/RESULTS.md and the charts under bench/charts/. --quick: short runs on the default (or
 * given) snapshot only, 250 generated tariffs, checks that everything answers (not speed).
 * --check: the same answers checked (statuses, the peer's answers equal, the ceiling's bytes,
 * compressed bodies decoding to the identity bytes) without any load; what `npm test` runs.
 * --only: the scenarios whose name matches; --profile: the service runs with node --cpu-prof and
 * writes its profiles (main thread and pricing workers) into the directory on exit.
 * The service runs with its default settings, so a repeated charge price request is answered from
 * memory (D287); `CHARGE_PRICE_CACHE_MB=0 npm run bench:http` measures every request priced.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { defaultSnapshotPath } from '../src/config.js';
import { Snapshot } from '../src/storage/snapshot.js';
import { buildSynthetic } from '../snapshots/synthetic.js';
import { writeCharts } from './charts.js';
import {
  formatPeerTable,
  loadLine,
  machineInfo,
  machineLine,
  ROOT,
  rssOf,
  runScenarios,
  setOutDir,
  spawnAndWait,
  startService,
  writeJson,
  writeResultsSection,
  waitIdle,
  type BenchOptions,
  type Measure,
  type ScenarioResult,
} from './lib/harness.js';
import { AREA_TABLE_HEAD, ROUTES, formatAreaRow, runAreaCases, type AreaRow } from './area.js';
import { formatCompressionTable, judgeCompression, runCompression, type CompressionRow } from './lib/compression.js';
import { chooseTypical, createBenchEmp, generateTariffs, pickFixture, priceScenarios, putScenario, stationScenarios } from './scenarios.js';

export interface SuiteOptions extends BenchOptions {
  quick: boolean;
  /** `--check`: answers checked, nothing measured (runs 0). */
  check?: boolean;
  latencyConnections: number;
  tariffs: number;
  workers: number | undefined;
  synthetic: string | null;
  stations: number;
  out: string | undefined;
  report: boolean;
  /** Only the scenarios whose name matches. */
  only: RegExp | null;
  /** Directory for CPU profiles of the service (node --cpu-prof, main thread and workers). */
  profile: string | null;
  /** Name of the JSON output (<out>/<name>.json). */
  jsonName: string;
}

export function parse(argv: string[]): SuiteOptions {
  const o: SuiteOptions = {
    durationS: 3,
    runs: 3,
    connections: 50,
    warmupS: 1,
    quick: false,
    latencyConnections: 1,
    tariffs: 1000,
    workers: undefined,
    synthetic: '',
    stations: 1_000_000,
    out: undefined,
    report: true,
    only: null,
    profile: null,
    jsonName: 'http',
  };
  let syntheticGiven = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--quick') Object.assign(o, { quick: true, durationS: 0.2, runs: 1, warmupS: 0, tariffs: 250, connections: 10, report: false, settle: false });
    // Every scenario's answers checked (status, peer equality, ceiling bytes, compressed bodies
    // decoding to the identity bytes), nothing measured: what the test suite runs.
    else if (a === '--check') Object.assign(o, { quick: true, check: true, durationS: 0, runs: 0, warmupS: 0, tariffs: 250, connections: 10, report: false, settle: false });
    else if (a === '--duration') o.durationS = Number(argv[++i]);
    else if (a === '--runs') o.runs = Number(argv[++i]);
    else if (a === '--warmup') o.warmupS = Number(argv[++i]);
    else if (a === '--connections') o.connections = Number(argv[++i]);
    else if (a === '--latency-connections') o.latencyConnections = Number(argv[++i]);
    else if (a === '--tariffs') o.tariffs = Number(argv[++i]);
    else if (a === '--workers') o.workers = Number(argv[++i]);
    else if (a === '--snapshot') o.snapshot = path.resolve(argv[++i]);
    else if (a === '--synthetic') {
      o.synthetic = path.resolve(argv[++i]);
      syntheticGiven = true;
    } else if (a === '--stations') {
      o.stations = Number(argv[++i]);
      syntheticGiven = true;
    } else if (a === '--no-synthetic') {
      o.synthetic = null;
      syntheticGiven = true;
    }
    else if (a === '--out') o.out = path.resolve(argv[++i]);
    else if (a === '--no-report') o.report = false;
    else if (a === '--only') o.only = new RegExp(argv[++i], 'i');
    else if (a === '--profile') o.profile = path.resolve(argv[++i]);
    else if (a === '--json-name') o.jsonName = argv[++i];
    else throw new Error(`unknown argument ${a}`);
  }
  if (o.quick && !syntheticGiven) o.synthetic = null;
  if (o.synthetic === '') o.synthetic = path.join(ROOT, 'snapshots', `synthetic-${o.stations}.sqlite`);
  if (!Number.isInteger(o.tariffs) || o.tariffs < 250) throw new Error('--tariffs must be an integer >= 250 (bulk lists 200, details 50)');
  return o;
}

/** The synthetic snapshot of `stations` stations, generated when absent (a few minutes for 1 M). */
export function ensureSynthetic(file: string, stations: number): string {
  if (!fs.existsSync(file)) {
    console.error(`generating ${file} (${stations} stations)…`);
    const r = buildSynthetic(stations, file);
    console.error(`generated in ${Math.round(r.ms)} ms`);
  }
  return file;
}

export async function startPeer(snapshot: string, dataDir: string): Promise<{ port: number; stop(): Promise<void>; pid: number }> {
  const c = await spawnAndWait([path.join(ROOT, 'dist/bench/peer/server.js'), '--snapshot', snapshot, '--data-dir', dataDir], {}, (line) => {
    const m = /^listening (\d+)/.exec(line);
    return m ? Number(m[1]) : null;
  });
  return { port: c.port, stop: c.stop, pid: c.proc.pid! };
}

export interface DatasetResult {
  label: string;
  snapshot: string;
  stations: number;
  tariffsGenerated: number;
  /** Start-up of the service to "listening" (ms) and its RSS right after (MB). */
  startMs: number;
  rssStartMb: number;
  /** Peak RSS of the service over the whole dataset run (MB). */
  peakRssMb: number;
  peerRssMb: number;
  rows: ScenarioResult[];
  /** Identity, br and gzip answers of the same requests, full stack, alternating (D94). */
  compression: CompressionRow[];
  /** Area and route price search against the client path (bench/area.ts), at each round-trip time. */
  area: AreaRow[];
}

/** The scenarios measured compressed beside identity. */
const COMPRESSED = /^radius 5 km Paris centre, page (400|50)$|^station read$|^charge prices, busy station \(|^bulk worst case/;

export async function runDataset(label: string, snapshot: string, o: SuiteOptions, route = ROUTES.parisLyon): Promise<DatasetResult> {
  const snap = Snapshot.open(snapshot);
  const stations = snap.stationCount();
  snap.close();
  console.error(`\n[${label}] ${stations} stations; starting the service…`);
  const env: Record<string, string> = o.workers === undefined ? {} : { WORKERS: String(o.workers) };
  const svc = await startService({ snapshot, env, nodeArgs: o.profile ? ['--cpu-prof', `--cpu-prof-dir=${o.profile}`] : [] });
  let peer: Awaited<ReturnType<typeof startPeer>> | undefined;
  try {
    await new Promise((r) => setTimeout(r, 200));
    const rssStart = rssOf(svc.proc.pid!);
    const fixture = pickFixture(snapshot);
    const t0 = performance.now();
    const tariffs = await generateTariffs(svc.port, fixture.operator, o.tariffs);
    const emp = await createBenchEmp(svc.port);
    const typical = await chooseTypical(svc.port, fixture);
    if (!typical) console.error(`[${label}] no station priced by the default catalog (a snapshot without it): the typical-station scenario is left out`);
    console.error(`[${label}] started in ${Math.round(svc.startMs)} ms; ${o.tariffs} tariffs written in ${Math.round(performance.now() - t0)} ms; starting the peer…`);
    peer = await startPeer(snapshot, svc.dataDir);
    const scenarios = [...stationScenarios(), ...priceScenarios(fixture, tariffs, o.tariffs, o.latencyConnections), putScenario(emp, Math.min(o.connections, 10))].filter(
      (sc) => (o.only === null || o.only.test(sc.name)) && (typical || !sc.name.includes('typical station')),
    );
    const settle = o.settle === false ? 0 : await waitIdle(svc.proc.pid!, 0.1, 60_000);
    console.error(`[${label}] service quiet after ${Math.round(settle)} ms; measuring…`);
    const rows = await runScenarios(svc.port, scenarios, o, peer.port, { full: svc.proc.pid, peer: peer.pid });
    const compressed = scenarios.filter((sc) => COMPRESSED.test(sc.name));
    console.error(`[${label}] compression: ${compressed.length} scenarios, identity / br / gzip alternating…`);
    const compression = await runCompression(svc.port, svc.proc.pid, compressed, o);
    console.error(`[${label}] area and route price search against the client path (round trips of 0 and 20 ms)…`);
    const area = await runAreaCases(svc.port, snapshot, route, { duration: o.check ? 0 : o.durationS, runs: o.runs, rtts: [0, 20], only: o.only, clientMaxS: 2 });
    const result: DatasetResult = {
      label,
      snapshot: path.relative(ROOT, snapshot),
      stations,
      tariffsGenerated: o.tariffs,
      startMs: svc.startMs,
      rssStartMb: rssStart.rssMb,
      peakRssMb: rssOf(svc.proc.pid!).hwmMb,
      peerRssMb: rssOf(peer.pid).rssMb,
      rows,
      compression,
      area,
    };
    console.log(`\n${label}: ${stations} stations, ${o.tariffs} generated tariffs; start ${Math.round(svc.startMs)} ms, RSS ${Math.round(rssStart.rssMb)} MB\n`);
    console.log(formatPeerTable(rows));
    if (compression.length > 0) console.log(`\ncompression (full stack):\n\n${formatCompressionTable(compression)}`);
    if (area.length > 0) console.log(`\narea and route price search:\n\n${formatAreaTable(label, area)}`);
    return result;
  } finally {
    await peer?.stop();
    await svc.stop();
  }
}

function formatAreaTable(label: string, rows: readonly AreaRow[]): string {
  return [AREA_TABLE_HEAD, ...rows.map((r) => formatAreaRow(label, r))].join('\n');
}

export interface Target {
  target: string;
  dataset: string;
  value: string;
  met: boolean;
}

const f1 = (x: number): string => (Number.isFinite(x) ? x.toFixed(x < 10 ? 2 : 0) : 'n/a');

/** The issue's targets, judged on the measured figures. */
export function judgeTargets(datasets: readonly DatasetResult[]): Target[] {
  const out: Target[] = [];
  for (const d of datasets) {
    const row = (prefix: string) => d.rows.find((r) => r.name.startsWith(prefix));
    const radius = row('radius');
    if (radius) out.push({ target: 'radius search ≥ 50 % of the ceiling (req/s)', dataset: d.label, value: `${(radius.ratio * 100).toFixed(1)} %`, met: radius.ratio >= 0.5 });
    for (const r of d.rows) {
      if (r.vsPeer === undefined) continue;
      // What even the ceiling (same bytes, no work) reaches against the peer: when below 3×, the
      // target cannot be met by any implementation on this transport (trivial answers).
      const bound = r.bare.rps / r.peer!.rps;
      out.push({
        target: `≥ 3× the fastify peer: ${r.name}`,
        dataset: d.label,
        value: `${r.vsPeer.toFixed(1)}× (ceiling / peer ${bound.toFixed(1)}×)`,
        met: r.vsPeer >= 3,
      });
    }
    const bulk = row('bulk');
    if (bulk) out.push({ target: `worst-case bulk p99 ≤ 15 ms (${bulk.connections} conn.)`, dataset: d.label, value: `${f1(bulk.full.p99)} ms`, met: bulk.full.p99 <= 15 });
    const busy = row('charge prices, busy');
    if (busy && d.tariffsGenerated >= 1000) {
      // The CPU floor at one connection: all of a request's CPU work (client and service, every
      // thread) falls within its latency, spread over at most the machine's cores.
      const cores = os.availableParallelism();
      const floor = (m: Measure): string => {
        const c = m.cpuPerRequest;
        return c ? `CPU per request: client ${c.clientMs.toFixed(2)} + service ${c.targetMs.toFixed(2)} ms, floor ${((c.clientMs + c.targetMs) / cores).toFixed(2)} ms on ${cores} cores` : '';
      };
      const full = floor(busy.full);
      const bare = busy.bare.cpuPerRequest ? `; ceiling p50 ${f1(busy.bare.p50)} ms, ${floor(busy.bare)}` : '';
      out.push({
        target: `charge prices ≥ 1,000 candidates p50 ≤ 2 ms (${busy.connections} conn.)`,
        dataset: d.label,
        value: `${f1(busy.full.p50)} ms${full ? ` (${full})` : ''}${bare}`,
        met: busy.full.p50 <= 2,
      });
    }
    for (const t of judgeCompression(d.compression ?? [])) out.push({ ...t, dataset: d.label });
    for (const a of d.area ?? []) {
      if (a.one === null || a.ratio === null) continue;
      const at = `at ${a.rttMs} ms round trip`;
      if (a.name.startsWith('route Paris') && a.rttMs === 0) {
        out.push({ target: 'route Paris → Lyon p50 ≤ 25 ms, p99 ≤ 60 ms', dataset: d.label, value: `${f1(a.one.p50)} / ${f1(a.one.p99)} ms`, met: a.one.p50 <= 25 && a.one.p99 <= 60 });
      }
      if (a.name.startsWith('radius') && a.rttMs === 0) out.push({ target: 'area radius 5 km p50 ≤ 20 ms', dataset: d.label, value: `${f1(a.one.p50)} ms`, met: a.one.p50 <= 20 });
      out.push({ target: `≥ 5× the client path ${at}: ${a.name}`, dataset: d.label, value: `${a.ratio.toFixed(1)}× (${f1(a.client!.p50)} / ${f1(a.one.p50)} ms)`, met: a.ratio >= 5 });
    }
    if (d.stations >= 1_000_000) {
      out.push({ target: '1 M stations: start-up ≤ 3 s', dataset: d.label, value: `${Math.round(d.startMs)} ms`, met: d.startMs <= 3000 });
      out.push({ target: '1 M stations: RSS ≤ 1.5 GB', dataset: d.label, value: `${Math.round(d.rssStartMb)} MB after start, peak ${Math.round(d.peakRssMb)} MB`, met: d.peakRssMb <= 1536 });
    }
  }
  return out;
}

export function targetsTable(ts: readonly Target[]): string {
  return ['| target | dataset | measured | met |', '| --- | --- | --- | :---: |', ...ts.map((t) => `| ${t.target} | ${t.dataset} | ${t.value} | ${t.met ? 'yes' : '**no**'} |`)].join('\n');
}

/** Runs the suite with command-line arguments (also the entry of thin wrappers). */
export async function main(argv: string[] = process.argv.slice(2)): Promise<void> {
  const o = parse(argv);
  if (o.out) setOutDir(o.out);
  const machine = machineLine();
  const loadBefore = loadLine();
  console.error(`${machine}\n${loadBefore}`);
  const datasets: DatasetResult[] = [];
  const snapshot = o.snapshot ?? defaultSnapshotPath();
  datasets.push(await runDataset(o.snapshot ? path.basename(snapshot) : 'default snapshot', snapshot, o));
  if (o.synthetic !== null) {
    ensureSynthetic(o.synthetic, o.stations);
    datasets.push(await runDataset(`synthetic ${path.basename(o.synthetic, '.sqlite').replace(/^synthetic-/, '')} stations`, o.synthetic, o, ROUTES.hamburgMunich));
  }
  const loadAfter = loadLine();
  const targets = o.check ? [] : judgeTargets(datasets);
  console.log(`\ntargets:\n${targetsTable(targets)}`);
  writeJson(o.jsonName, { machine: machineInfo(), loadBefore, loadAfter, options: o, datasets, targets });
  // The report (RESULTS.md section, charts, bench/results.json) only from complete runs.
  if (o.report && o.only === null && o.jsonName === 'http') {
    const charts = writeCharts();
    const sections = datasets
      .map((d) => `### ${d.label} (${d.stations.toLocaleString('en')} stations, + ${d.tariffsGenerated} generated tariffs)\n\nService start-up ${Math.round(d.startMs)} ms to listening, RSS ${Math.round(d.rssStartMb)} MB after start, peak ${Math.round(d.peakRssMb)} MB; peer RSS ${Math.round(d.peerRssMb)} MB.\n\n${formatPeerTable(d.rows)}\n\nCompressed answers (full stack; identity, br and gzip of the same requests alternating, medians; bodies checked to decode to the identity bytes):\n\n${formatCompressionTable(d.compression)}\n\nArea and route price search (one request) against the client path (station searches, then bulk previews in chunks of 100), one connection, alternating; at 20 ms both go through a relay holding each chunk 10 ms each way (bench/area.ts):\n\n${formatAreaTable(d.label, d.area)}\n`)
      .join('\n');
    writeResultsSection(
      'http',
      `## HTTP suite: full stack vs the uWebSockets.js ceiling and the fastify peer\n\n${machine}; ${loadBefore} before, ${loadAfter} after.\n\n` +
        `\`npm run bench:http\`: autocannon on 127.0.0.1, ${o.runs} × ${o.durationS} s per target after ${o.warmupS} s warm-up, targets alternating ` +
        `(full, ceiling, peer); medians. Throughput scenarios with ${o.connections} connections, price scenarios with ${o.latencyConnections} ` +
        `(latency), the PUT with ${Math.min(o.connections, 10)}. Full stack = the compiled service with its default workers and request logging at info level. ` +
        `Ceiling = bare uWebSockets.js app answering the same bytes. Peer = fastify, linear scan + reference evaluator (bench/peer/server.ts); ` +
        `its answers were checked equal (station ids in order; priced tariffs and every price) before measuring; "–" = scenario not in the peer.\n\n` +
        `${sections}\n#### Targets\n\n${targetsTable(targets)}\n\n${charts.http}\n`,
    );
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  main().catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
}
