/**
 * OCPI CDR cost micro-benchmark (tinybench): the engine of `POST /v1/ocpi/cdr_cost` (D140–D146)
 * beside the second-by-second evaluator of its property test on the same seeded sessions (the
 * straightforward reading: every element asked every second), and the engine alone on the
 * specification's complex example, the real 48-price CDR of the fixtures and a week of
 * 15-minute periods under that CDR's hourly tariff. Each compared pair is checked equal first.
 *
 *   npm run bench:cdr-cost [-- --quick | --check] [--peer <dir> [--peer-cases 6000] [--peer-rounds 3]]
 *
 * With `--peer`, also this engine beside a built TandemDrive ocpi-tariffs per CDR (bench/lib/cdr-cost-peer.ts):
 * the engine before (its twin), this one with the tariff prepared per CDR (cold, as the peer) and kept (warm).
 *
 * Prints a table and writes bench/out/cdr-cost.json.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Bench } from 'tinybench';
import { cdrCost, type OcpiSessionInput, type OcpiTariffInput } from '../src/domain/ocpi/cdr-cost.js';
import { minuteCost, randomCase } from '../test/domain/ocpi/minute-evaluator.js';
import { comparePeer } from './lib/cdr-cost-peer.js';

const ROOT = (() => {
  let d = path.dirname(fileURLToPath(import.meta.url));
  while (!fs.existsSync(path.join(d, 'package.json'))) d = path.dirname(d);
  return d;
})();
const OUT_DIR = process.env.BENCH_OUT_DIR ?? path.join(ROOT, 'bench/out');
const CHECK = process.argv.includes('--check');
const QUICK = process.argv.includes('--quick');
const TIME = CHECK ? 0 : QUICK ? 300 : 2000;
const ITER = CHECK ? 2 : 10;

const fixture = (...p: string[]): any => JSON.parse(fs.readFileSync(path.join(ROOT, 'test/fixtures/ocpi', ...p), 'utf8'));

// Engine vs the second-by-second evaluator, on 20 seeded sessions (the property test's cases).
const cases = Array.from({ length: 20 }, (_, i) => randomCase(i + 1));
for (const c of cases) {
  const got = cdrCost(c.tariff, c.session, c.timezone).total_cost.excl_vat;
  const want = minuteCost(c.tariff, c.minutes, c.start, c.timezone).excl;
  if (Math.abs(got - want) > 5.1e-5) throw new Error(`engine ${got} and evaluator ${want} differ on ${JSON.stringify(c)}`);
}
const sessionHours = cases.reduce((s, c) => s + c.minutes.reduce((x, r) => x + r.seconds, 0), 0) / 3600 / cases.length;

// The engine alone on real shapes.
const complex: OcpiTariffInput = fixture('ocpi-spec-2.2.1', 'tariff_4_complex.json');
const complexSession: OcpiSessionInput = {
  start_date_time: '2024-06-03T09:30:00Z',
  end_date_time: '2024-06-03T12:39:00Z',
  charging_periods: [
    { start_date_time: '2024-06-03T09:30:00Z', dimensions: [{ type: 'ENERGY', volume: 8 }, { type: 'TIME', volume: 2.45 }, { type: 'MAX_CURRENT', volume: 16 }] },
    { start_date_time: '2024-06-03T11:57:00Z', dimensions: [{ type: 'PARKING_TIME', volume: 0.7 }] },
  ],
};
const real = fixture('ocpi-tariffs-py/test_data/v2_2_1/codeberg_issue_228/cdr.json');
const realTariff: OcpiTariffInput = real.tariffs[0];
const t0 = Date.parse('2025-08-18T00:00:00Z');
const week: OcpiSessionInput = {
  start_date_time: new Date(t0).toISOString(),
  end_date_time: new Date(t0 + 7 * 86_400_000).toISOString(),
  charging_periods: Array.from({ length: 7 * 96 }, (_, i) => ({ start_date_time: new Date(t0 + i * 900_000).toISOString(), dimensions: [{ type: 'ENERGY', volume: 2.75 }, { type: 'TIME', volume: 0.25 }] })),
};

const bench = new Bench({ time: TIME, iterations: ITER, warmup: !CHECK });
bench
  .add('engine, 20 seeded sessions', () => {
    for (const c of cases) cdrCost(c.tariff, c.session, c.timezone);
  })
  .add('second-by-second evaluator, same sessions', () => {
    for (const c of cases) minuteCost(c.tariff, c.minutes, c.start, c.timezone);
  })
  .add('engine, spec complex example', () => cdrCost(complex, complexSession, 'UTC'))
  .add('engine, real CDR with 48 hourly prices', () => cdrCost(realTariff, { start_date_time: real.start_date_time, end_date_time: real.end_date_time, charging_periods: real.charging_periods }, 'Europe/Amsterdam'))
  .add('engine, a week of 15-minute periods, 48 hourly prices', () => cdrCost(realTariff, week, 'Europe/Amsterdam'));
await bench.run();

const median = (name: string): number => {
  const t = bench.tasks.find((x) => x.name === name)!;
  const r = t.result as { latency?: { p50?: number }; p50?: number } | undefined;
  return (r?.latency?.p50 ?? r?.p50)!;
};
const engine = median('engine, 20 seeded sessions');
const naive = median('second-by-second evaluator, same sessions');
const out = {
  sessions: cases.length,
  meanSessionHours: Math.round(sessionHours * 100) / 100,
  engineMedianMs: engine,
  naiveMedianMs: naive,
  speedup: naive / engine,
  complexMedianUs: median('engine, spec complex example') * 1000,
  realMedianUs: median('engine, real CDR with 48 hourly prices') * 1000,
  weekMedianMs: median('engine, a week of 15-minute periods, 48 hourly prices'),
};
console.table(bench.tasks.map((t) => ({ name: t.name, 'p50 ms': median(t.name).toFixed(4) })));
console.log(`engine vs second-by-second evaluator: ${out.speedup.toFixed(1)}× (median, same run, ${out.sessions} sessions of ${out.meanSessionHours} h on average)`);
fs.mkdirSync(OUT_DIR, { recursive: true });
fs.writeFileSync(path.join(OUT_DIR, 'cdr-cost.json'), JSON.stringify(out, null, 2));

const argOf = (name: string): string | undefined => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const peerDir = argOf('--peer');
if (peerDir !== undefined) {
  const p = comparePeer(peerDir, Number(argOf('--peer-cases') ?? 6000), Number(argOf('--peer-rounds') ?? 3));
  const [load1] = os.loadavg();
  console.log(`beside the peer (${p.cases} seeded CDRs, ${p.rounds} alternating rounds, load average ${load1.toFixed(2)}): median per CDR ${p.peerMedianUs.toFixed(2)} µs the peer; this side (an empty timing ${p.timerNs} ns included):`);
  console.table(
    (['before', 'cold', 'warm'] as const).map((side) => ({
      side: { before: 'before (the twin)', cold: 'cold: same inputs as the peer, tariff prepared per CDR', warm: 'warm: tariff kept by content' }[side],
      'median µs': p[side].medianUs.toFixed(2),
      '/ peer median': `${p[side].ratioMedian.toFixed(2)}×`,
      '/ peer p90': `${p[side].ratioP90.toFixed(2)}×`,
    })),
  );
  console.log(`same total as the peer on ${p.sameTotal} of ${p.cases}`);
  fs.writeFileSync(path.join(OUT_DIR, 'cdr-cost-peer.json'), JSON.stringify(p, null, 2));
}
