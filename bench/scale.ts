/**
 * Scale curves:
 *
 * - per station count (synthetic snapshots of 10 k, 100 k, 1 M stations, generated on demand into
 *   snapshots/synthetic-<n>.sqlite and reused): service start-up time to "listening" and RSS
 *   (median of `starts` starts), radius search latency (5 km around Paris, page 400; one
 *   connection, exact percentiles) through the full stack and through the fastify peer;
 * - bulk preview latency versus stations × tariffs on the default snapshot with ≥ 1,000 generated
 *   tariffs (the worst case of the suite is the 100 × 200 corner).
 *
 *   npm run bench:scale [-- --quick] [--counts 10000,100000,1000000] [--starts <n>] [--duration <s>]
 *        [--warmup <s>] [--snapshot <file>] [--synthetic-dir <dir>] [--out <dir>] [--no-report]
 *
 * Writes <out>/scale.json and, unless --quick / --no-report, the `scale` section of
 * bench/RESULTS.md and the scale charts. --quick: one small count, one start, short runs.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { defaultSnapshotPath } from '../src/config.js';
import { Snapshot } from '../src/storage/snapshot.js';
import { writeCharts } from './charts.js';
import { ensureSynthetic, startPeer } from './http.js';
import { loadLine, machineInfo, machineLine, median, request, ROOT, rssOf, runLatency, setOutDir, waitIdle, startService, writeJson, writeResultsSection, type Measure } from './lib/harness.js';
import { bulkBody, createBenchEmp, generateTariffs, pickFixture, radiusScenario } from './scenarios.js';

interface Opts {
  quick: boolean;
  counts: number[];
  starts: number;
  durationS: number;
  warmupS: number;
  snapshot: string;
  tariffs: number;
  bulkStations: number[];
  bulkTariffs: number[];
  out: string | undefined;
  report: boolean;
  /** Where the synthetic snapshots are generated and looked for. */
  syntheticDir: string;
}

function parse(argv: string[]): Opts {
  const o: Opts = {
    quick: false,
    counts: [10_000, 100_000, 1_000_000],
    starts: 3,
    durationS: 2,
    warmupS: 0.5,
    snapshot: defaultSnapshotPath(),
    tariffs: 1000,
    bulkStations: [10, 25, 50, 100],
    bulkTariffs: [25, 50, 100, 200],
    out: undefined,
    report: true,
    syntheticDir: path.join(ROOT, 'snapshots'),
  };
  let countsGiven = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--quick') Object.assign(o, { quick: true, starts: 1, durationS: 0.2, warmupS: 0, tariffs: 250, bulkStations: [10, 100], bulkTariffs: [25, 200], report: false });
    else if (a === '--counts') {
      o.counts = argv[++i].split(',').map(Number);
      countsGiven = true;
    }
    else if (a === '--starts') o.starts = Number(argv[++i]);
    else if (a === '--duration') o.durationS = Number(argv[++i]);
    else if (a === '--warmup') o.warmupS = Number(argv[++i]);
    else if (a === '--snapshot') o.snapshot = path.resolve(argv[++i]);
    else if (a === '--tariffs') o.tariffs = Number(argv[++i]);
    else if (a === '--out') o.out = path.resolve(argv[++i]);
    else if (a === '--no-report') o.report = false;
    else if (a === '--synthetic-dir') o.syntheticDir = path.resolve(argv[++i]);
    else throw new Error(`unknown argument ${a}`);
  }
  if (o.quick && !countsGiven) o.counts = [10_000];
  return o;
}

export interface ScalePoint {
  stations: number;
  snapshot: string;
  startMs: number;
  rssMb: number;
  hwmMb: number;
  starts: { startMs: number; rssMb: number; hwmMb: number }[];
  /** 5 km around Paris, page 400: the result count grows with the density. */
  radius: Measure;
  radiusResults: number;
  peerRadius: Measure;
  /** 1,000 km around Paris, page 400: always a full page (the nearest 400 stations). */
  nearest: Measure;
  peerNearest: Measure;
}

export interface BulkPoint {
  stations: number;
  tariffs: number;
  m: Measure;
}

async function stationPoint(n: number, o: Opts): Promise<ScalePoint> {
  const file = ensureSynthetic(path.join(o.syntheticDir, `synthetic-${n}.sqlite`), n);
  const starts: ScalePoint['starts'] = [];
  for (let k = 0; k < o.starts; k++) {
    const svc = await startService({ snapshot: file });
    try {
      await new Promise((r) => setTimeout(r, 300));
      starts.push({ startMs: svc.startMs, ...rssOf(svc.proc.pid!) });
    } finally {
      await svc.stop();
    }
  }
  const svc = await startService({ snapshot: file });
  try {
    const peer = await startPeer(file, svc.dataDir);
    try {
      const sc = radiusScenario();
      const far = radiusScenario(1_000_000);
      const r = await request(svc.port, sc);
      const radiusResults = (JSON.parse(r.body) as { data: unknown[] }).data.length;
      for (const x of [sc, far]) {
        const a = await request(svc.port, x);
        const b = await request(peer.port, x);
        const diff = x.peer!.equal(a.body, b.body);
        if (diff !== null && !(x === sc && radiusResults === 0)) throw new Error(`${x.name} at ${n} stations: peer differs: ${diff}`);
      }
      const radius = await runLatency(svc.port, sc, o.warmupS, o.durationS);
      const peerRadius = await runLatency(peer.port, sc, o.warmupS, o.durationS);
      const nearest = await runLatency(svc.port, far, o.warmupS, o.durationS);
      const peerNearest = await runLatency(peer.port, far, o.warmupS, o.durationS);
      const p: ScalePoint = {
        stations: n,
        snapshot: path.relative(ROOT, file),
        startMs: median(starts.map((s) => s.startMs)),
        rssMb: median(starts.map((s) => s.rssMb)),
        hwmMb: median(starts.map((s) => s.hwmMb)),
        starts,
        radius,
        radiusResults,
        peerRadius,
        nearest,
        peerNearest,
      };
      console.log(
        `${n} stations: start ${Math.round(p.startMs)} ms, RSS ${Math.round(p.rssMb)} MB (peak ${Math.round(p.hwmMb)}); radius (${radiusResults} results) ` +
          `p50 ${p.radius.p50.toFixed(2)} p99 ${p.radius.p99.toFixed(2)} ms, peer p50 ${p.peerRadius.p50.toFixed(2)} ms; nearest 400 p50 ${p.nearest.p50.toFixed(2)} ` +
          `p99 ${p.nearest.p99.toFixed(2)} ms, peer p50 ${p.peerNearest.p50.toFixed(2)} ms`,
      );
      return p;
    } finally {
      await peer.stop();
    }
  } finally {
    await svc.stop();
  }
}

async function bulkGrid(o: Opts): Promise<BulkPoint[]> {
  const svc = await startService({ snapshot: o.snapshot });
  try {
    const f = pickFixture(o.snapshot);
    const tariffs = await generateTariffs(svc.port, f.operator, o.tariffs);
    await createBenchEmp(svc.port);
    await waitIdle(svc.proc.pid!, 0.1, 60_000);
    const out: BulkPoint[] = [];
    for (const ns of o.bulkStations) {
      for (const nt of o.bulkTariffs) {
        const stations = f.bulkStations.slice(0, ns);
        const sc = { name: `bulk ${ns}×${nt}`, method: 'POST' as const, path: '/v1/charge_prices/bulk?page[prices.size]=100', body: bulkBody(f, stations, tariffs.slice(0, nt)) };
        const m = await runLatency(svc.port, sc, o.warmupS, o.durationS);
        out.push({ stations: stations.length, tariffs: nt, m });
        console.log(`bulk ${stations.length} stations × ${nt} tariffs: p50 ${m.p50.toFixed(2)} p99 ${m.p99.toFixed(2)} ms`);
      }
    }
    return out;
  } finally {
    await svc.stop();
  }
}

const r2 = (x: number): string => (Number.isFinite(x) ? x.toFixed(2) : 'n/a');

async function main(): Promise<void> {
  const o = parse(process.argv.slice(2));
  if (o.out) setOutDir(o.out);
  const loadBefore = loadLine();
  console.error(`${machineLine()}\n${loadBefore}`);
  const points: ScalePoint[] = [];
  for (const n of o.counts) points.push(await stationPoint(n, o));
  const bulk = await bulkGrid(o);
  const loadAfter = loadLine();
  const snap = Snapshot.open(o.snapshot);
  const defaultStations = snap.stationCount();
  snap.close();
  writeJson('scale', { machine: machineInfo(), loadBefore, loadAfter, options: o, points, bulk, bulkSnapshotStations: defaultStations });
  if (o.report) {
    const charts = writeCharts();
    const t1 = [
      '| stations | start-up ms | RSS MB (peak) | 5 km results | 5 km p50 / p99 ms | peer 5 km p50 / p99 ms | peer / full p50 | nearest 400 p50 / p99 ms | peer nearest 400 p50 / p99 ms | peer / full p50 |',
      '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
      ...points.map(
        (p) =>
          `| ${p.stations.toLocaleString('en')} | ${Math.round(p.startMs)} | ${Math.round(p.rssMb)} (${Math.round(p.hwmMb)}) | ${p.radiusResults} | ${r2(p.radius.p50)} / ${r2(p.radius.p99)} | ` +
          `${r2(p.peerRadius.p50)} / ${r2(p.peerRadius.p99)} | ${(p.peerRadius.p50 / p.radius.p50).toFixed(1)}× | ${r2(p.nearest.p50)} / ${r2(p.nearest.p99)} | ` +
          `${r2(p.peerNearest.p50)} / ${r2(p.peerNearest.p99)} | ${(p.peerNearest.p50 / p.nearest.p50).toFixed(1)}× |`,
      ),
    ].join('\n');
    const t2 = [
      `| stations \\ tariffs | ${o.bulkTariffs.join(' | ')} |`,
      `| ---: | ${o.bulkTariffs.map(() => '---:').join(' | ')} |`,
      ...[...new Set(bulk.map((b) => b.stations))].map(
        (ns) => `| ${ns} | ${o.bulkTariffs.map((nt) => bulk.find((b) => b.stations === ns && b.tariffs === nt)).map((b) => (b ? `${r2(b.m.p50)} / ${r2(b.m.p99)}` : '–')).join(' | ')} |`,
      ),
    ].join('\n');
    writeResultsSection(
      'scale',
      `## Scale curves\n\n${machineLine()}; ${loadBefore} before, ${loadAfter} after.\n\n` +
        `\`npm run bench:scale\`: synthetic snapshots (snapshots/synthetic.ts). Start-up = spawn to "listening", median of ${o.starts}; RSS right after start. ` +
        `Radius search around Paris, page 400 — 5 km (results grow with density) and 1,000 km (always the nearest 400) — one connection, ${o.durationS} s after ${o.warmupS} s warm-up, exact percentiles; peer = fastify linear scan.\n\n${t1}\n\n` +
        `Bulk preview latency p50 / p99 ms (one connection) versus stations × tariffs, default snapshot (${defaultStations.toLocaleString('en')} stations) + ${o.tariffs} generated tariffs of the busiest operator:\n\n${t2}\n\n${charts.scale}\n`,
    );
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  main().catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
}

