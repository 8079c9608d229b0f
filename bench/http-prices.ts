/**
 * HTTP scenarios of the price endpoints through the full stack, beside a bare uWebSockets.js app
 * answering the same bytes, once with the Piscina pool and once inline (WORKERS=0):
 *
 * - charge prices at a busy station: every candidate tariff (the default catalog plus `--tariffs N`
 *   seeded generated tariffs of the station's operator, so ≥ N candidates), Set A;
 * - charge prices at the busy station for a user's 5 listed tariffs (include=filter) among them;
 * - charge prices at a typical station (default catalog only);
 * - worst-case bulk: 100 stations × 200 tariffs, all usable everywhere, with direct payment;
 * - tariff details by CPO (50 listed tariffs).
 *
 *   npm run bench:http:prices [-- --quick] [--tariffs <n>] [--duration <s>] [--runs <n>]
 *        [--connections <n>] [--workers <n>] [--modes pool,inline] [--snapshot <file>]
 *
 * The generated tariffs are written through the API (PUT /v2/tariffs) from a seeded RNG, so the
 * catalog is the same on every run.
 */
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { defaultSnapshotPath } from '../src/config.js';
import { chargeBody as sharedChargeBody, generateTariffs, pickFixture, type Fixture, type RequestStation } from './scenarios.js';
import {
  formatTable,
  machineLine,
  runScenarios,
  startService,
  writeJson,
  writeResultsSection,
  type BenchOptions,
  type Scenario,
  type ScenarioResult,
} from './lib/harness.js';

interface Options extends BenchOptions {
  quick: boolean;
  tariffs: number;
  workers: number;
  modes: ('pool' | 'inline')[];
}

function parse(argv: string[]): Options {
  const o: Options = {
    durationS: 4,
    runs: 3,
    connections: 1,
    warmupS: 1,
    quick: false,
    tariffs: 1000,
    workers: Math.max(1, os.availableParallelism()),
    modes: ['pool', 'inline'],
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--quick') Object.assign(o, { quick: true, durationS: 1, runs: 1, warmupS: 0.5 });
    else if (a === '--duration') o.durationS = Number(argv[++i]);
    else if (a === '--runs') o.runs = Number(argv[++i]);
    else if (a === '--connections') o.connections = Number(argv[++i]);
    else if (a === '--snapshot') o.snapshot = argv[++i];
    else if (a === '--tariffs') o.tariffs = Number(argv[++i]);
    else if (a === '--workers') o.workers = Number(argv[++i]);
    else if (a === '--modes') o.modes = argv[++i].split(',') as Options['modes'];
    else throw new Error(`unknown argument ${a}`);
  }
  if (!Number.isInteger(o.tariffs) || o.tariffs < 200) throw new Error('--tariffs must be an integer >= 200 (bulk lists 200)');
  return o;
}

export function scenarios(f: Fixture, tariffs: string[], n: number): Scenario[] {
  const chargeBody = (s: RequestStation, network: string): unknown => sharedChargeBody(f, s, network);
  return [
    {
      name: `charge prices, busy station (${f.busy.charge_points.length} charge points, ≥ ${n} candidates)`,
      method: 'POST',
      path: '/v1/charge_prices',
      body: chargeBody(f.busy, f.operator),
    },
    {
      name: `charge prices, busy station, 5 listed tariffs (include=filter) among ≥ ${n} candidates`,
      method: 'POST',
      path: '/v1/charge_prices',
      body: (() => {
        const b = chargeBody(f.busy, f.operator) as { data: { relationships: Record<string, unknown> } };
        b.data.relationships.tariffs = { data: tariffs.slice(500, 505).map((id) => ({ type: 'tariff', id })), meta: { include: 'filter' } };
        return b;
      })(),
    },
    { name: 'charge prices, typical station (default catalog)', method: 'POST', path: '/v1/charge_prices', body: chargeBody(f.typical, f.typical.operator) },
    {
      name: 'bulk worst case (100 stations × 200 tariffs)',
      method: 'POST',
      path: '/v1/charge_prices/bulk?page[prices.size]=100',
      body: {
        data: {
          type: 'bulk_price_preview_request',
          attributes: { battery_range: [10, 80], include_direct_payment: true },
          relationships: {
            charging_stations: { data: f.bulkStations.map((id) => ({ type: 'charging_station', id })) },
            tariffs: { data: tariffs.slice(0, 200).map((id) => ({ type: 'tariff', id })) },
            vehicle: { data: { type: 'car', id: f.vehicle } },
          },
        },
      },
    },
    {
      name: 'tariff details by CPO (50 tariffs)',
      method: 'POST',
      path: '/v1/tariff_details',
      body: {
        data: {
          attributes: { station: { country: f.busy.country, operator: { id: f.operator, type: 'company' } } },
          relationships: { tariffs: { data: tariffs.slice(200, 250).map((id) => ({ type: 'tariff', id })) } },
        },
      },
    },
  ];
}

/** How the measurements chose where charge prices run (src/config.ts, DEFAULT_INLINE_MAX_EVALUATIONS). */
const POLICY =
  'Inline or pool: at one connection a pool hop added 0.1-0.4 ms to small charge price requests, more than the work ' +
  'itself (typical station of the default catalog, about 160 tariff x charge point evaluations and a 49 KB answer: 0.33 ms ' +
  'inline vs 0.46 ms pool p50 in the suite on 2026-11-22), so requests estimated at <= 256 evaluations (candidate tariffs ' +
  'usable at the CPO, or the listed ones, x charge points) run on the main thread (PRICING_INLINE_MAX_EVALUATIONS). ' +
  'Everything else goes to the pool: a busy-station request takes 3-8 ms of CPU, which inline would block the event loop ' +
  '(and every station read) for.\n';

async function main(): Promise<void> {
  const o = parse(process.argv.slice(2));
  const snapshotPath = o.snapshot ?? defaultSnapshotPath();
  const fixture = pickFixture(snapshotPath);
  const results: Record<string, ScenarioResult[]> = {};
  for (const mode of o.modes) {
    const workers = mode === 'inline' ? 0 : o.workers;
    const svc = await startService({ snapshot: snapshotPath, env: { WORKERS: String(workers), CHARGE_PRICE_CACHE_MB: '0' } }); // every request priced (D287 off)
    try {
      const t0 = performance.now();
      const tariffs = await generateTariffs(svc.port, fixture.operator, o.tariffs);
      console.error(`[${mode}] ${o.tariffs} tariffs written in ${Math.round(performance.now() - t0)} ms; measuring…`);
      results[mode] = await runScenarios(svc.port, scenarios(fixture, tariffs, o.tariffs), o);
      console.log(`\n${mode === 'inline' ? 'inline (WORKERS=0)' : `pool (WORKERS=${workers})`}\n`);
      console.log(formatTable(results[mode]));
    } finally {
      await svc.stop();
    }
  }
  writeJson('http-prices', { machine: machineLine(), options: o, fixture: { operator: fixture.operator, busy: fixture.busy.id }, results });
  if (!o.quick) {
    const sections = Object.entries(results)
      .map(([mode, rows]) => `### ${mode === 'inline' ? 'inline (WORKERS=0)' : `pool (WORKERS=${o.workers})`}\n\n${formatTable(rows)}\n`)
      .join('\n');
    writeResultsSection(
      'http-prices',
      `## HTTP: price endpoints vs bare uWebSockets.js\n\n${machineLine()}\n\n` +
        `autocannon, ${o.connections} connection(s), ${o.runs} × ${o.durationS} s per target after ${o.warmupS} s warm-up, alternating; medians. ` +
        `Default snapshot plus ${o.tariffs} seeded generated tariffs of the busiest operator (bench/http-prices.ts).\n\n${sections}\n${POLICY}`,
    );
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  main().catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
}
