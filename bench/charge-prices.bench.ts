/**
 * Charge prices at a busy station, in one thread (tinybench): what a pricing worker does for one
 * `POST /v1/charge_prices` with ≥ 1,000 candidate tariffs at four charge points, split into its
 * steps, beside the straightforward path (price entry objects, JSON.stringify, UTF-8 encoding)
 * measured in the same run:
 * - compute: candidates, sessions, plans and evaluations (computeChargePrices);
 * - task: compute plus the document written into bytes (runChargePrices, as a worker runs it);
 * - straightforward: compute, chargePriceEntries objects, JSON.stringify, UTF-8 encoding;
 * - split in two (what two idle workers and the main thread do for one request): one part
 *   (half of the candidates, priced and written) and the merge of both parts; the request's
 *   critical path is the slower part plus the merge.
 *
 * The catalog holds the HTTP suite's generated tariffs (bench/scenarios.ts), all of the station's
 * operator.
 *
 *   npm run bench:charge-prices [-- --quick | --check] [-- --tariffs N]
 *
 * Prints a table and writes bench/out/charge-prices.json.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Bench } from 'tinybench';
import { DEFAULT_CHARGE_PRICE_OPTIONS, PricingCatalog, computeChargePrices, type RateTable, type TariffInput } from '../src/domain/pricing/index.js';
import type { StationView } from '../src/pool/stations.js';
import { GrowableBytes } from '../src/domain/bytes.js';
import { mergeChargePriceParts } from '../src/api/prices/charge-prices.writer.js';
import { runChargePrices, runChargePricesPart } from '../src/api/prices/prices.tasks.js';
import type { ChargePricesTask } from '../src/pool/protocol.js';
import { straightforwardChargePrices } from './lib/charge-document.js';
import { generatedTariffs } from './scenarios.js';

/** `--check`: the byte checks and a token measurement (what the test suite runs); `--quick`: short runs. */
const check = process.argv.includes('--check');
const quick = check || process.argv.includes('--quick');
const tariffsArg = process.argv.indexOf('--tariffs');
const N = tariffsArg > 0 ? Number(process.argv[tariffsArg + 1]) : 1000;
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** Where the JSON output goes: bench/out/, or BENCH_OUT_DIR (the test suite's temporary directory). */
const OUT_DIR = process.env.BENCH_OUT_DIR ?? path.join(ROOT, 'bench/out');

const RATES: RateTable = { date: '2025-01-01', rates: { EUR: 1, CHF: 0.94, GBP: 0.85 } };
const CPO = 'c0000000-0000-4000-8000-0000000000aa';

const catalog = new PricingCatalog();
catalog.upsertCompany({ id: CPO, name: 'Busy Operator', is_emp: true, is_cpo: true, supported_emp_ids: [] });
for (const t of generatedTariffs(N)) {
  catalog.upsertTariff({ id: t.id, type: 'tariff', emp_id: CPO, ...t.attributes } as unknown as TariffInput);
}

const task: ChargePricesTask = {
  station: {
    id: null,
    country: 'DE',
    cpo_id: CPO,
    charge_points: [
      { plug: 'type2', power: 11 },
      { plug: 'type2', power: 22 },
      { plug: 'ccs', power: 50 },
      { plug: 'ccs', power: 150 },
    ],
  },
  input: { kind: 'energy', energy: 40, duration: 60 },
  options: { ...DEFAULT_CHARGE_PRICE_OPTIONS },
  listed: null,
  include: 'filter',
  showPriceUnavailable: false,
  lang: 'en',
  nowMs: Date.UTC(2026, 0, 15),
};
const env = { catalog, rates: RATES, stations: null as unknown as StationView };
const request = { station: task.station, input: task.input, options: task.options, listed: task.listed, include: task.include };

let sink = 0;
const encoder = new TextEncoder();

/** The straightforward path: entry objects, JSON.stringify of the document, UTF-8 encoding. */
const straightforward = (): Uint8Array => encoder.encode(straightforwardChargePrices(catalog, task, RATES));

const taskBytes = (): Uint8Array => runChargePrices(env, task).body as Uint8Array;

async function main(): Promise<void> {
  const expected = straightforward();
  const got = taskBytes();
  if (Buffer.compare(Buffer.from(expected), Buffer.from(got)) !== 0) throw new Error('the task document differs from the straightforward one');
  const candidates = computeChargePrices(catalog, request, RATES).candidates.slots.length;
  const partOf = (index: number) => runChargePricesPart(env, { ...task, part: { index, count: 2 } });
  // Each part's bytes copied out (the writer reuses its buffer), as the workers' output slots hold them.
  const parts = [partOf(0), partOf(1)].map((p) => ({ ...p, bytes: Buffer.from(p.bytes) }));
  const merged = new GrowableBytes(1 << 20);
  if (Buffer.compare(Buffer.from(expected), mergeChargePriceParts(parts, parts[0].closing, merged)) !== 0) {
    throw new Error('the merged parts differ from the straightforward document');
  }

  const bench = new Bench({ time: check ? 5 : quick ? 150 : 3000, warmupTime: check ? 0 : quick ? 50 : 500, ...(check ? { iterations: 2, warmup: false } : {}) });
  bench.add('compute', () => {
    sink += computeChargePrices(catalog, request, RATES).results.price[0] || 0;
  });
  bench.add('task (compute + bytes)', () => {
    sink += taskBytes().length;
  });
  bench.add('straightforward (objects + JSON.stringify + encode)', () => {
    sink += straightforward().length;
  });
  bench.add('split: part 1 of 2', () => {
    sink += partOf(0).bytes.length;
  });
  bench.add('split: part 2 of 2', () => {
    sink += partOf(1).bytes.length;
  });
  bench.add('split: merge', () => {
    sink += mergeChargePriceParts(parts, parts[0].closing, merged).length;
  });
  await bench.run();
  const stat = (name: string) => {
    const r = bench.getTask(name)!.result;
    if (r.state !== 'completed') throw new Error(`${name}: ${r.state}`);
    return { medianMs: r.latency.p50, p99Ms: r.latency.p99 };
  };
  const compute = stat('compute');
  const full = stat('task (compute + bytes)');
  const base = stat('straightforward (objects + JSON.stringify + encode)');
  const part = Math.max(stat('split: part 1 of 2').medianMs, stat('split: part 2 of 2').medianMs);
  const merge = stat('split: merge').medianMs;
  const out = {
    date: new Date().toISOString(),
    node: process.version,
    quick,
    candidates,
    bytes: got.length,
    computeMedianMs: compute.medianMs,
    taskMedianMs: full.medianMs,
    taskP99Ms: full.p99Ms,
    writeMedianMs: full.medianMs - compute.medianMs,
    straightforwardMedianMs: base.medianMs,
    speedup: base.medianMs / full.medianMs,
    partMedianMs: part,
    mergeMedianMs: merge,
    splitCriticalPathMs: part + merge,
    wholeOverSplit: full.medianMs / (part + merge),
  };
  const f = (n: number, d = 2) => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
  console.table([
    { measure: 'candidate tariffs × charge points', value: `${candidates} × 4` },
    { measure: 'document bytes', value: out.bytes.toLocaleString('en-US') },
    { measure: 'compute median ms', value: f(out.computeMedianMs) },
    { measure: 'task (compute + bytes) median ms', value: f(out.taskMedianMs) },
    { measure: 'task p99 ms', value: f(out.taskP99Ms) },
    { measure: 'writing the bytes (task − compute) ms', value: f(out.writeMedianMs) },
    { measure: 'straightforward path median ms', value: f(out.straightforwardMedianMs) },
    { measure: 'straightforward / task', value: `${f(out.speedup, 1)}×` },
    { measure: 'split in two: slower part median ms', value: f(out.partMedianMs) },
    { measure: 'split in two: merge median ms', value: f(out.mergeMedianMs) },
    { measure: 'split in two: critical path (part + merge) ms', value: f(out.splitCriticalPathMs) },
    { measure: 'task / split critical path', value: `${f(out.wholeOverSplit, 1)}×` },
  ]);
  fs.mkdirSync(OUT_DIR, { recursive: true });
  fs.writeFileSync(path.join(OUT_DIR, 'charge-prices.json'), JSON.stringify(out, null, 2) + '\n');
  if (sink === -1) console.log(sink);
}

await main();
