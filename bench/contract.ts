/**
 * What the typed API contract (D234) costs: the service's start-up to listening, the size of
 * /openapi.json (and gzipped), and the request validators' speed, for this checkout and a baseline
 * checkout (another commit's build, `--baseline <dir>`) measured in the same run, rounds alternating.
 *
 *   npm run bench:contract [-- --baseline <checkout with dist/>] [--runs 7] [--check]
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import zlib from 'node:zlib';
import { parseArgs } from 'node:util';
import { Bench } from 'tinybench';
import { defaultSnapshotPath } from '../src/config.js';
import { loadLine, machineLine, median, ROOT, startService } from './lib/harness.js';

const { values } = parseArgs({ options: { baseline: { type: 'string' }, runs: { type: 'string', default: '7' }, check: { type: 'boolean', default: false } } });
const RUNS = values.check ? 1 : Number(values.runs);

interface Figures {
  startMs: number[];
  bytes: number;
  gzipBytes: number;
  validators: Record<string, number>;
}

/** Request validators and a valid body each (the examples of the description). */
async function validatorRates(root: string): Promise<Record<string, number>> {
  const at = (p: string): Promise<any> => import(pathToFileURL(path.join(root, 'dist/src', p)).href);
  const [prices, tariffs, companies] = await Promise.all([at('api/prices/prices.schema.js'), at('api/tariffs/tariffs.schema.js'), at('api/companies/companies.schema.js')]);
  const { OPERATIONS } = await import('../src/api/openapi/operations.js');
  const cases: [string, (b: unknown) => unknown, unknown][] = [
    ['charge_prices body', prices.validateChargePrices, OPERATIONS['POST /v1/charge_prices'].example.body],
    ['bulk body', prices.validateBulk, OPERATIONS['POST /v1/charge_prices/bulk'].example.body],
    ['tariff PUT body', tariffs.validateTariffPut, OPERATIONS['PUT /v2/tariffs/:id'].example.body],
    ['company PUT body', companies.validateCompanyPut, OPERATIONS['PUT /v1/companies/:id'].example.body],
  ];
  const bench = new Bench({ time: values.check ? 50 : 500 });
  for (const [name, v, body] of cases) bench.add(name, () => void v(structuredClone(body)));
  await bench.run();
  // tinybench 6: the median of the per-iteration throughput.
  return Object.fromEntries(bench.tasks.map((t) => [t.name, (t.result as unknown as { throughput?: { p50?: number } }).throughput?.p50 ?? 0]));
}

async function startOnce(root: string, f: Figures): Promise<void> {
  const s = await startService({ snapshot: defaultSnapshotPath(), root });
  try {
    f.startMs.push(s.startMs);
    const r = await fetch(`http://127.0.0.1:${s.port}/openapi.json`, { headers: { 'Accept-Encoding': 'identity' } });
    const body = Buffer.from(await r.arrayBuffer());
    f.bytes = body.length;
    f.gzipBytes = zlib.gzipSync(body, { level: 6 }).length;
  } finally {
    await s.stop();
  }
}

async function main(): Promise<void> {
  console.log(machineLine());
  console.log(loadLine());
  const roots: [string, string][] = [['this checkout', ROOT], ...(values.baseline !== undefined ? [['baseline', path.resolve(values.baseline)] as [string, string]] : [])];
  const figures = new Map<string, Figures>(roots.map(([n]) => [n, { startMs: [], bytes: 0, gzipBytes: 0, validators: {} }]));
  for (let i = 0; i < RUNS; i++) for (const [n, root] of i % 2 === 0 ? roots : [...roots].reverse()) await startOnce(root, figures.get(n)!);
  for (const [n, root] of roots) figures.get(n)!.validators = await validatorRates(root);
  const base = figures.get('baseline');
  console.log(`\n| | start-up to listening, median of ${RUNS} (ms) | /openapi.json bytes | gzip bytes | ${Object.keys(figures.get('this checkout')!.validators).map((k) => `${k} validations/s`).join(' | ')} |`);
  console.log(`| --- | ---: | ---: | ---: | ${Object.keys(figures.get('this checkout')!.validators).map(() => '---:').join(' | ')} |`);
  for (const [n, f] of figures) {
    const ratio = (x: number, b: number | undefined): string => (base === undefined || b === undefined || n === 'baseline' ? '' : ` (${(x / b).toFixed(2)}×)`);
    const v = Object.entries(f.validators).map(([k, x]) => `${Math.round(x).toLocaleString('en')}${ratio(x, base?.validators[k])}`);
    console.log(`| ${n} | ${median(f.startMs).toFixed(0)}${ratio(median(f.startMs), base === undefined ? undefined : median(base.startMs))} | ${f.bytes.toLocaleString('en')}${ratio(f.bytes, base?.bytes)} | ${f.gzipBytes.toLocaleString('en')}${ratio(f.gzipBytes, base?.gzipBytes)} | ${v.join(' | ')} |`);
  }
}

await main();
