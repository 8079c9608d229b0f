/**
 * Goodput under overload (D106): bulk previews and busy-station charge prices at 16, 256, 600 and
 * 2,000 connections against the full service (default snapshot, 1,000 generated tariffs). Per
 * case: successful answers per second (goodput), 503s per second, any other status, socket errors
 * and timeouts, the latency of successful answers only (p50/p99), and the service's peak RSS.
 * Goodput at each concurrency is reported as a share of the goodput at the lowest one, from the
 * same run. With `--queue-wait a,b,…` and `--refusal-delay a,b,…` the whole table is repeated
 * for each MAX_QUEUE_WAIT_MS and REFUSAL_DELAY_MS (one service start each), which is how their
 * defaults were chosen.
 *
 *   npm run bench:overload [-- --duration 10] [--connections 16,256,600,2000]
 *        [--queue-wait 250,1000] [--refusal-delay 0,250] [--only <regex>] [--quick]
 *
 * The client (autocannon) runs on the same two cores as the service; the 503s it gets back
 * immediately are part of the load, as they would be from impatient real clients.
 */
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { defaultSnapshotPath } from '../src/config.js';
import { BENCH_KEY, loadLine, machineLine, rssOf, startService, waitIdle, writeJson, type Scenario } from './lib/harness.js';
import { generateTariffs, pickFixture, priceScenarios } from './scenarios.js';

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '16,256,600,2000' },
    'queue-wait': { type: 'string' },
    'refusal-delay': { type: 'string' },
    only: { type: 'string' },
    quick: { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});
if (values.help) {
  console.log('npm run bench:overload [-- --duration 10] [--connections 16,256,600,2000] [--queue-wait 250,1000] [--refusal-delay 0,250] [--only <regex>] [--quick]');
  process.exit(0);
}
const DURATION = values.quick ? 1 : Number(values.duration);
const CONNECTIONS = (values.quick ? '4,64' : values.connections).split(',').map(Number);
const QUEUE_WAITS = values['queue-wait'] === undefined ? [null] : values['queue-wait'].split(',').map(Number);
const REFUSAL_DELAYS = values['refusal-delay'] === undefined ? [null] : values['refusal-delay'].split(',').map(Number);
/** One service configuration: MAX_QUEUE_WAIT_MS and REFUSAL_DELAY_MS (null: the default). */
const SETTINGS = QUEUE_WAITS.flatMap((queueWaitMs) => REFUSAL_DELAYS.map((refusalDelayMs) => ({ queueWaitMs, refusalDelayMs })));
const ONLY = values.only === undefined ? null : new RegExp(values.only, 'i');

export interface OverloadRow {
  queueWaitMs: number | null;
  refusalDelayMs: number | null;
  scenario: string;
  connections: number;
  goodput: number;
  refusedPerS: number;
  other: number;
  errors: number;
  timeouts: number;
  p50: number;
  p99: number;
  max: number;
  rssMb: number;
}

function quantile(sorted: Float64Array, q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
}

type Setting = (typeof SETTINGS)[number];

async function measure(port: number, pid: number, sc: Scenario, connections: number, setting: Setting): Promise<OverloadRow> {
  let ok = 0;
  let refused = 0;
  let other = 0;
  const lat: number[] = [];
  const instance = autocannon({
    url: `http://127.0.0.1:${port}${sc.path}`,
    method: sc.method,
    connections,
    duration: DURATION,
    timeout: 10,
    headers: { 'Api-Key': BENCH_KEY, 'Content-Type': 'application/json' },
    body: JSON.stringify(sc.body),
  });
  void instance.on('response', (_client, status, _bytes, ms) => {
    if (status === 200) {
      ok++;
      lat.push(ms);
    } else if (status === 503) refused++;
    else other++;
  });
  const r = await instance;
  const sorted = Float64Array.from(lat).sort();
  return {
    ...setting,
    scenario: sc.name,
    connections,
    goodput: ok / DURATION,
    refusedPerS: refused / DURATION,
    other,
    errors: r.errors,
    timeouts: r.timeouts,
    p50: quantile(sorted, 0.5),
    p99: quantile(sorted, 0.99),
    max: sorted.length === 0 ? NaN : sorted[sorted.length - 1],
    rssMb: rssOf(pid).hwmMb,
  };
}

const f = (x: number, d = 0): string => (Number.isFinite(x) ? x.toLocaleString('en', { maximumFractionDigits: d, minimumFractionDigits: d }) : 'n/a');

function table(rows: readonly OverloadRow[]): string {
  const out = [
    '| MAX_QUEUE_WAIT_MS | REFUSAL_DELAY_MS | scenario | conns | goodput /s | × lowest conns | 503 /s | other | errors | timeouts | success p50 ms | success p99 ms | success max ms | peak RSS MB |',
    '| ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const r of rows) {
    const base = rows.find((x) => x.scenario === r.scenario && x.queueWaitMs === r.queueWaitMs && x.refusalDelayMs === r.refusalDelayMs)!;
    out.push(
      `| ${r.queueWaitMs ?? 'default'} | ${r.refusalDelayMs ?? 'default'} | ${r.scenario} | ${r.connections} | ${f(r.goodput)} | ${f(r.goodput / base.goodput, 2)} | ${f(r.refusedPerS)} | ${r.other} | ${r.errors} | ${r.timeouts} | ${f(r.p50, 1)} | ${f(r.p99, 1)} | ${f(r.max)} | ${f(r.rssMb)} |`,
    );
  }
  return out.join('\n');
}

async function main(): Promise<void> {
  console.log(machineLine());
  console.log(loadLine());
  const snapshot = defaultSnapshotPath();
  const rows: OverloadRow[] = [];
  for (const setting of SETTINGS) {
    // Every request priced (D287's answers kept in memory off): this measures the pool under overload.
    const env: Record<string, string> = { CHARGE_PRICE_CACHE_MB: '0' };
    if (setting.queueWaitMs !== null) env.MAX_QUEUE_WAIT_MS = String(setting.queueWaitMs);
    if (setting.refusalDelayMs !== null) env.REFUSAL_DELAY_MS = String(setting.refusalDelayMs);
    const label = `${setting.queueWaitMs ?? 'default'}/${setting.refusalDelayMs ?? 'default'}`;
    const svc = await startService({ snapshot, env });
    try {
      const fixture = pickFixture(snapshot);
      const tariffs = await generateTariffs(svc.port, fixture.operator, values.quick ? 250 : 1000);
      const scenarios = priceScenarios(fixture, tariffs, tariffs.length, 1).filter(
        (sc) => /^(bulk worst case|charge prices, busy station \()/.test(sc.name) && (ONLY === null || ONLY.test(sc.name)),
      );
      for (const sc of scenarios) {
        for (const c of CONNECTIONS) {
          await waitIdle(svc.proc.pid!, 0.1, 30_000);
          const row = await measure(svc.port, svc.proc.pid!, sc, c, setting);
          console.error(`${label} · ${sc.name} · ${c} conns: ${f(row.goodput)} ok/s, ${f(row.refusedPerS)} 503/s, p99 ${f(row.p99, 1)} ms`);
          rows.push(row);
        }
      }
    } finally {
      await svc.stop();
    }
  }
  console.log(`\n${table(rows)}\n`);
  console.log(loadLine());
  if (!values.quick) writeJson('overload', { machine: machineLine(), durationS: DURATION, rows });
  const bad = rows.filter((r) => r.other > 0);
  if (bad.length > 0) {
    console.error(`answers other than 200 and 503: ${bad.map((r) => `${r.scenario} at ${r.connections}`).join('; ')}`);
    process.exitCode = 1;
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
