/**
 * Station search over HTTP: radius 5 km and bbox around Paris centre, page size 400, through the
 * full stack beside a bare uWebSockets.js app serving the same response bytes (autocannon,
 * 127.0.0.1, alternating runs, medians). Then, on the synthetic 1 M snapshot (when present):
 * start-up time to "listening" and RSS after start (median of 3 starts), and the same scenarios.
 *
 *   npm run bench:http:stations [-- --quick] [--duration <s>] [--runs <n>] [--connections <n>] [--synthetic <file>]
 *
 * Prints tables and writes bench/out/http-stations.json.
 */
import fs from 'node:fs';
import path from 'node:path';
import {
  formatTable,
  machineLine,
  ROOT,
  runScenarios,
  startService,
  writeJson,
  writeResultsSection,
  type BenchOptions,
  type Scenario,
  type ScenarioResult,
} from './lib/harness.js';

interface Opts extends BenchOptions {
  quick: boolean;
  synthetic: string;
}

function parse(argv: string[]): Opts {
  const o: Opts = {
    durationS: 5,
    runs: 3,
    connections: 50,
    warmupS: 2,
    quick: false,
    synthetic: path.join(ROOT, 'snapshots/synthetic-1000000.sqlite'),
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--quick') Object.assign(o, { quick: true, durationS: 2, runs: 1, warmupS: 1 });
    else if (a === '--duration') o.durationS = Number(argv[++i]);
    else if (a === '--runs') o.runs = Number(argv[++i]);
    else if (a === '--connections') o.connections = Number(argv[++i]);
    else if (a === '--synthetic') o.synthetic = argv[++i];
    else throw new Error(`unknown argument ${a}`);
  }
  return o;
}

const SCENARIOS: Scenario[] = [
  {
    name: 'radius 5 km Paris centre, page 400',
    method: 'GET',
    path: '/v1/charging_stations?filter[latitude]=48.8566&filter[longitude]=2.3522&filter[radius]=5000&page[size]=400',
  },
  {
    name: 'radius 5 km Paris centre, page 50',
    method: 'GET',
    path: '/v1/charging_stations?filter[latitude]=48.8566&filter[longitude]=2.3522&filter[radius]=5000&page[size]=50',
  },
  {
    name: 'bbox Paris, page 400',
    method: 'GET',
    path: '/v1/charging_stations?filter[latitude.gte]=48.81&filter[latitude.lte]=48.91&filter[longitude.gte]=2.25&filter[longitude.lte]=2.42&page[size]=400',
  },
];

function rssOf(pid: number): { rssMb: number; hwmMb: number } {
  const s = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (k: string): number => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(s)?.[1] ?? NaN);
  return { rssMb: kb('VmRSS') / 1024, hwmMb: kb('VmHWM') / 1024 };
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

const tables: string[] = [];

async function scenariosOn(label: string, snapshot: string | undefined, o: Opts): Promise<ScenarioResult[]> {
  const svc = await startService({ snapshot, env: { WORKERS: '1' } });
  try {
    // One scenario per harness run: its bare app serves responses by path, and all scenarios share
    // the path /v1/charging_stations, so each needs its own bare app with its own bytes.
    const rows: ScenarioResult[] = [];
    for (const sc of SCENARIOS) rows.push(...(await runScenarios(svc.port, [sc], o)));
    console.log(`\n${label}\n${formatTable(rows)}`);
    tables.push(`### ${label}\n\n${formatTable(rows)}`);
    return rows;
  } finally {
    await svc.stop();
  }
}

async function main(): Promise<void> {
  const o = parse(process.argv.slice(2));
  console.log(machineLine());
  const out: Record<string, unknown> = { machine: machineLine(), options: o };
  out.default = await scenariosOn('default snapshot (18,585 stations)', undefined, o);
  if (fs.existsSync(o.synthetic)) {
    const starts: Array<{ startMs: number; rssMb: number; hwmMb: number }> = [];
    for (let k = 0; k < (o.quick ? 1 : 3); k++) {
      const svc = await startService({ snapshot: o.synthetic, env: { WORKERS: '1' } });
      try {
        await new Promise((r) => setTimeout(r, 300));
        starts.push({ startMs: svc.startMs, ...rssOf(svc.proc.pid!) });
      } finally {
        await svc.stop();
      }
    }
    const start = {
      startMs: median(starts.map((s) => s.startMs)),
      rssMb: median(starts.map((s) => s.rssMb)),
      hwmMb: median(starts.map((s) => s.hwmMb)),
      runs: starts,
    };
    console.log(
      `\nsynthetic snapshot start-up (median of ${starts.length}): ${start.startMs.toFixed(0)} ms to listening ` +
        `(target ≤ 3000), RSS ${start.rssMb.toFixed(0)} MB, peak RSS ${start.hwmMb.toFixed(0)} MB (target ≤ 1536)`,
    );
    out.syntheticStart = start;
    tables.push(
      `### Start-up on ${path.basename(o.synthetic)}\n\nmedian of ${starts.length} starts: ${start.startMs.toFixed(0)} ms from spawn to "listening" ` +
        `(target ≤ 3000 ms); RSS after start ${start.rssMb.toFixed(0)} MB, peak ${start.hwmMb.toFixed(0)} MB (target ≤ 1536 MB); ` +
        `runs: ${starts.map((s) => `${s.startMs.toFixed(0)} ms / ${s.hwmMb.toFixed(0)} MB`).join(', ')}`,
    );
    out.synthetic = await scenariosOn(`synthetic snapshot (${path.basename(o.synthetic)})`, o.synthetic, o);
  } else {
    console.log(`\n(no ${o.synthetic}; run \`npm run snapshot:synthetic -- --stations 1000000\` for the 1 M figures)`);
  }
  writeJson('http-stations', out);
  if (!o.quick) {
    writeResultsSection(
      'http-stations',
      `## HTTP: station search, full stack vs bare uWebSockets.js\n\n${machineLine()}\n\n` +
        `autocannon, ${o.connections} connections, ${o.runs} × ${o.durationS} s per target after ${o.warmupS} s warm-up, alternating; medians. ` +
        `The bare app serves the bytes the service answered. The machine is shared: compare ratios, not absolute figures.\n\n${tables.join('\n\n')}\n`,
    );
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
