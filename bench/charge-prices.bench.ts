/**
 * Charge prices at a busy station, in one thread (tinybench): what a pricing worker does for one
 * `POST /v1/charge_prices` with ≥ 1,000 candidate tariffs at four charge points, split into its
 * steps, beside the straightforward path (price entry objects, JSON.stringify, UTF-8 encoding)
 * measured in the same run:
 * - compute: candidates, sessions, plans and evaluations (computeChargePrices);
 * - task: compute plus the document written into bytes (runChargePrices, as a worker runs it);
 * - straightforward: compute, chargePriceEntries objects, JSON.stringify, TextEncoder.
 *
 * The catalog is seeded like the HTTP suite's generated tariffs (bench/scenarios.ts).
 *
 *   npm run bench:charge-prices [-- --quick] [-- --tariffs N]
 *
 * Prints a table and writes bench/out/charge-prices.json.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Bench } from 'tinybench';
import {
  DEFAULT_CHARGE_PRICE_OPTIONS,
  PricingCatalog,
  chargePriceEntries,
  computeChargePrices,
  metaChargePoints,
  reasonText,
  visibleTags,
  type PriceComponent,
  type RateTable,
  type Segment,
} from '../src/domain/pricing/index.js';
import { mulberry32 } from '../src/domain/random.js';
import { runChargePrices, type ChargePricesTask } from '../src/pool/tasks.js';
import type { StationView } from '../src/pool/stations.js';
import { computedId } from '../src/domain/ids.js';
import type { StoredTariff } from '../src/domain/tariffs/model.js';

const quick = process.argv.includes('--quick');
const tariffsArg = process.argv.indexOf('--tariffs');
const N = tariffsArg > 0 ? Number(process.argv[tariffsArg + 1]) : 1000;
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const RATES: RateTable = { date: '2025-01-01', rates: { EUR: 1, CHF: 0.94, GBP: 0.85 } };
const CPO = 'c0000000-0000-4000-8000-0000000000aa';

const rnd = mulberry32(20260101);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
const catalog = new PricingCatalog();
catalog.upsertCompany({ id: CPO, name: 'Busy Operator', is_emp: true, is_cpo: true, supported_emp_ids: [] });
for (let i = 0; i < N; i++) {
  const prices: PriceComponent[] = [];
  for (let k = 0; k < 1 + Math.floor(rnd() * 3); k++) {
    const decomposition: Segment[] = [];
    for (let j = 0; j < 1 + Math.floor(rnd() * 3); j++) {
      const dimension = pick(['kwh', 'kwh', 'minute', 'session'] as const);
      const s: Segment = { dimension, price: Math.round(rnd() * 80) / 100 };
      if (rnd() < 0.25) Object.assign(s, { time_of_day_start: pick([0, 360, 1320]), time_of_day_end: pick([360, 1320, 1440]) });
      if (dimension === 'minute' && rnd() < 0.5) s.range_gte = pick([30, 60, 120, 240]);
      if (dimension === 'minute' && rnd() < 0.3) s.billing_increment = pick([1, 5, 15]);
      decomposition.push(s);
    }
    const restrictions =
      rnd() < 0.6
        ? [{ allowance: 'allow' as const, charge_point_energy_type: pick(['ac', 'dc'] as const), ...(rnd() < 0.4 ? { charge_point_powers: [11, 150], charge_point_power_is_range: true } : {}) }]
        : [];
    prices.push({ restrictions, decomposition });
  }
  catalog.upsertTariff({
    id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    type: 'tariff',
    name: `Generated ${i}`,
    currency: pick(['EUR', 'EUR', 'EUR', 'CHF']),
    prices,
    emp_id: CPO,
    monthly_fee: pick([0, 0, 4.99, 9.99]),
    is_direct_payment: rnd() < 0.2,
    tags: rnd() < 0.2 ? [{ kind: 'info', localized_text: { en: 'Info', de: 'Hinweis' } }] : [],
  } as never);
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
function straightforward(): Uint8Array {
  const js = JSON.stringify;
  const comp = computeChargePrices(catalog, request, RATES);
  const entries = chargePriceEntries(catalog, comp, task.showPriceUnavailable, RATES);
  const data = entries.map((e) => {
    const tariff = e.tariff.tariff as unknown as StoredTariff;
    const emp = catalog.companies.get(tariff.emp_id);
    return {
      id: computedId('charge_price', tariff.id),
      type: 'charge_price',
      attributes: {
        provider: emp?.name ?? '',
        tariff_name: tariff.name ?? null,
        url: tariff.url ?? emp?.url ?? null,
        monthly_min_sales: e.monthlyMinSales,
        total_monthly_fee: e.totalMonthlyFee,
        flat_rate: tariff.is_flat_rate === true,
        direct_payment: tariff.is_direct_payment === true,
        is_card_payment: tariff.is_card_payment === true,
        provider_customer_tariff: tariff.provider_customer_only === true,
        is_roaming: e.isRoaming,
        is_promoted: false,
        currency: task.options.currency,
        tags: visibleTags(tariff.tags ?? [], task.lang, task.nowMs, false),
        system_tags: tariff.system_tags ?? [],
        start_time: task.options.start_time,
        branding: tariff.branding ?? null,
        charge_point_prices: e.chargePointPrices.map((p) => ({
          plug: p.plug,
          power: p.power,
          price: p.price,
          price_distribution: p.price_distribution,
          blocking_fee_start: p.blocking_fee_start,
          no_price_reason: p.no_price_reason === null ? null : reasonText(p.no_price_reason, task.lang),
          is_average_price: p.is_average_price,
        })),
      },
      relationships: { tariff: { data: { type: 'tariff', id: tariff.id } } },
    };
  });
  return encoder.encode(js({ data, meta: { charge_points: metaChargePoints(comp) } }));
}

const taskBytes = (): Uint8Array => runChargePrices(env, task).body as Uint8Array;

async function main(): Promise<void> {
  const expected = straightforward();
  const got = taskBytes();
  if (Buffer.compare(Buffer.from(expected), Buffer.from(got)) !== 0) throw new Error('the task document differs from the straightforward one');
  const candidates = computeChargePrices(catalog, request, RATES).candidates.slots.length;

  const bench = new Bench({ time: quick ? 150 : 3000, warmupTime: quick ? 50 : 500 });
  bench.add('compute', () => {
    sink += computeChargePrices(catalog, request, RATES).results.price[0] || 0;
  });
  bench.add('task (compute + bytes)', () => {
    sink += taskBytes().length;
  });
  bench.add('straightforward (objects + JSON.stringify + encode)', () => {
    sink += straightforward().length;
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
  ]);
  fs.mkdirSync(path.join(ROOT, 'bench/out'), { recursive: true });
  fs.writeFileSync(path.join(ROOT, 'bench/out/charge-prices.json'), JSON.stringify(out, null, 2) + '\n');
  if (sink === -1) console.log(sink);
}

await main();
