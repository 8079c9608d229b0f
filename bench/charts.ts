/**
 * Charts of the benchmark report, from the JSON outputs (bench/out/http.json, scale.json) to
 * bench/charts/*.svg; returns the Markdown that links them from bench/RESULTS.md. Also writes
 * bench/results.json, the committed copy of both outputs.
 *
 *   npm run bench:charts     (re-draws from the last outputs; refuses outputs of --quick runs)
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { DatasetResult } from './http.js';
import { getOutDir, ROOT } from './lib/harness.js';
import { lineChart, rangeChart } from './lib/svg.js';
import type { BulkPoint, ScalePoint } from './scale.js';

const CHART_DIR = path.join(ROOT, 'bench/charts');

function readOut<T>(name: string): T | null {
  const f = path.join(getOutDir(), `${name}.json`);
  return fs.existsSync(f) ? (JSON.parse(fs.readFileSync(f, 'utf8')) as T) : null;
}

const slug = (s: string): string => s.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');

/** Outputs of quick (short, smoke) runs, which must not become the committed report. */
export function quickOutputs(): string[] {
  return ['http', 'scale'].filter((name) => readOut<{ options?: { quick?: boolean } }>(name)?.options?.quick === true);
}

export function writeCharts(): { http: string; scale: string } {
  const quick = quickOutputs();
  if (quick.length > 0) throw new Error(`${quick.map((n) => `${n}.json`).join(' and ')} in ${getOutDir()} come from a --quick run; run the full benchmark first`);
  fs.mkdirSync(CHART_DIR, { recursive: true });
  const links = { http: '', scale: '' };
  const http = readOut<{ machine: { commit: string; date: string; node: string }; datasets: DatasetResult[] }>('http');
  if (http) {
    const md: string[] = [];
    for (const d of http.datasets) {
      const file = `http-latency-${slug(d.label)}.svg`;
      const series = ['full stack', 'uWS ceiling (same bytes)', 'fastify peer'];
      fs.writeFileSync(
        path.join(CHART_DIR, file),
        rangeChart({
          title: `HTTP latency per scenario — ${d.label} (${d.stations.toLocaleString('en')} stations)`,
          subtitle: `medians of runs; commit ${http.machine.commit.slice(0, 10)}, Node ${http.machine.node}, ${http.machine.date.slice(0, 10)}; [Nc] = connections; 50c rows: autocannon, 1 ms resolution (0 → left edge)`,
          unit: 'ms',
          seriesNames: series,
          rows: d.rows.map((r) => ({
            label: `${r.name} [${r.connections}c]`,
            series: [
              { name: series[0], p50: r.full.p50, p90: r.full.p90, p99: r.full.p99 },
              { name: series[1], p50: r.bare.p50, p90: r.bare.p90, p99: r.bare.p99 },
              ...(r.peer ? [{ name: series[2], p50: r.peer.p50, p90: r.peer.p90, p99: r.peer.p99 }] : []),
            ],
          })),
        }),
      );
      md.push(`![HTTP latency, ${d.label}](charts/${file})`);
    }
    links.http = md.join('\n\n');
  }
  const scale = readOut<{ machine: unknown; points: ScalePoint[]; bulk: BulkPoint[]; bulkSnapshotStations: number }>('scale');
  if (scale) {
    const md: string[] = [];
    const pts = scale.points;
    fs.writeFileSync(
      path.join(CHART_DIR, 'scale-radius.svg'),
      lineChart({
        title: 'Radius search latency vs station count',
        subtitle: 'around Paris, page 400, one connection: 5 km, and 1,000 km (always the nearest 400)',
        xLabel: 'stations',
        yLabel: 'latency ms',
        logX: true,
        logY: true,
        series: [
          { name: 'full 5 km p50', points: pts.map((p) => [p.stations, p.radius.p50]) },
          { name: 'full 5 km p99', points: pts.map((p) => [p.stations, p.radius.p99]), dashed: true },
          { name: 'peer 5 km p50', points: pts.map((p) => [p.stations, p.peerRadius.p50]) },
          { name: 'full nearest 400 p50', points: pts.map((p) => [p.stations, p.nearest.p50]) },
          { name: 'full nearest 400 p99', points: pts.map((p) => [p.stations, p.nearest.p99]), dashed: true },
          { name: 'peer nearest 400 p50', points: pts.map((p) => [p.stations, p.peerNearest.p50]) },
        ],
      }),
    );
    fs.writeFileSync(
      path.join(CHART_DIR, 'scale-startup.svg'),
      lineChart({
        title: 'Start-up time vs station count',
        subtitle: 'spawn to "listening", median of starts',
        xLabel: 'stations',
        yLabel: 'ms',
        logX: true,
        series: [{ name: 'start-up ms', points: pts.map((p) => [p.stations, p.startMs]) }],
        target: { y: 3000, label: 'target 3 s at 1 M' },
      }),
    );
    fs.writeFileSync(
      path.join(CHART_DIR, 'scale-rss.svg'),
      lineChart({
        title: 'Resident memory vs station count',
        subtitle: 'RSS right after start and peak (VmHWM)',
        xLabel: 'stations',
        yLabel: 'MB',
        logX: true,
        series: [
          { name: 'RSS after start', points: pts.map((p) => [p.stations, p.rssMb]) },
          { name: 'peak RSS', points: pts.map((p) => [p.stations, p.hwmMb]), dashed: true },
        ],
        target: { y: 1536, label: 'target 1.5 GB' },
      }),
    );
    const tariffCounts = [...new Set(scale.bulk.map((b) => b.tariffs))].sort((a, b) => a - b);
    fs.writeFileSync(
      path.join(CHART_DIR, 'scale-bulk.svg'),
      lineChart({
        title: 'Bulk preview latency vs stations × tariffs',
        subtitle: `default snapshot (${scale.bulkSnapshotStations.toLocaleString('en')} stations), one connection; p50 solid, p99 dashed`,
        xLabel: 'stations in the request',
        yLabel: 'latency ms',
        series: tariffCounts.flatMap((nt) => [
          { name: `${nt} tariffs p50`, points: scale.bulk.filter((b) => b.tariffs === nt).map((b) => [b.stations, b.m.p50] as [number, number]) },
          { name: `${nt} tariffs p99`, points: scale.bulk.filter((b) => b.tariffs === nt).map((b) => [b.stations, b.m.p99] as [number, number]), dashed: true },
        ]),
        target: { y: 15, label: 'p99 target 15 ms (100 × 200)' },
      }),
    );
    md.push('![radius latency vs stations](charts/scale-radius.svg)', '![start-up vs stations](charts/scale-startup.svg)', '![RSS vs stations](charts/scale-rss.svg)', '![bulk latency vs stations × tariffs](charts/scale-bulk.svg)');
    links.scale = md.join('\n\n');
  }
  // The committed copy of the last full outputs (bench/out/ is git-ignored).
  if (http || scale) fs.writeFileSync(path.join(ROOT, 'bench/results.json'), JSON.stringify({ http, scale }, null, 1) + '\n');
  return links;
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  try {
    const l = writeCharts();
    console.log([l.http, l.scale].filter(Boolean).join('\n\n') || 'no outputs in bench/out/ yet');
  } catch (e) {
    console.error(`bench:charts: ${(e as Error).message}`);
    process.exit(1);
  }
}
