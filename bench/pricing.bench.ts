/**
 * Pricing engine micro-benchmark (tinybench), seeded data:
 * - compiled evaluator (plan + evaluate) vs reference evaluator: each of 200 tariffs at one
 *   station's four charge points per operation (one tariff per operation measured the timer);
 * - worst-case bulk preview: 100 stations × 200 tariffs × 4 charge points, one thread (stations
 *   of 20 operators, so stations share operator contexts as in a real area);
 * - the same with station-level prices of one tariff at every station (as CPO ad-hoc tariffs
 *   with EVSE prices give);
 * - the same with every station run by its own operator (a member of the original station's
 *   operator group, so the prices are the same), so no two stations share a plan context: every
 *   tariff has one plan per operator group (20), and contexts with the same plan share its prices;
 * - nothing shared: every station's operator with a sub tariff of its own in every tariff, so
 *   all 20,000 (station, tariff) plans differ and every pair is evaluated;
 * - the same 200 tariffs selecting the first match (D147: first matching segment per dimension,
 *   increments on the totals), beside the same tariffs as sums in the same run;
 * - heap of one bulk computation: heap delta between forced GCs (needs --expose-gc or a V8 that
 *   lets the flag be set at run time) and bytes allocated per call (sampling heap profiler,
 *   counting objects already collected).
 *
 *   npm run bench:pricing [-- --quick | --check]
 *
 * Prints a table and writes bench/out/pricing.json.
 */
import fs from 'node:fs';
import inspector from 'node:inspector';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import vm from 'node:vm';
import { Bench } from 'tinybench';
import {
  PlanScratch,
  PriceResults,
  PricingCatalog,
  BulkScratch,
  buildConversion,
  bulkPreview,
  evaluateInto,
  planTariff,
  referencePrice,
  resolveStation,
  sessionForVehicle,
  type BulkRequest,
  type ChargeSession,
  type CompanyInput,
  type EnergyType,
  type PriceComponent,
  type RateTable,
  type Segment,
  type StationContext,
  type TariffInput,
  type VehiclePricing,
} from '../src/domain/pricing/index.js';
import { mulberry32 } from '../src/domain/random.js';

/** `--check`: every self-check and a token measurement (what the test suite runs); `--quick`: short runs. */
const check = process.argv.includes('--check');
const quick = check || process.argv.includes('--quick');
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** Where the JSON output goes: bench/out/, or BENCH_OUT_DIR (the test suite's temporary directory). */
const OUT_DIR = process.env.BENCH_OUT_DIR ?? path.join(ROOT, 'bench/out');

const r = mulberry32(20250101);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
const int = (lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));

const RATES: RateTable = { date: '2025-01-01', rates: { EUR: 1, CHF: 0.94, GBP: 0.85, DKK: 7.46 } };
const N_CPO = 20;
const N_EMP = 40;
const N_TARIFF = 200;
const N_STATION = 100;
const cpoIds = Array.from({ length: N_CPO }, (_, i) => `cpo-${String(i).padStart(3, '0')}`);
const empIds = Array.from({ length: N_EMP }, (_, i) => `emp-${String(i).padStart(3, '0')}`);

const companies: CompanyInput[] = [
  ...cpoIds.map((id) => ({ id, name: id, is_emp: true, is_cpo: true, supported_emp_ids: empIds })),
  ...empIds.map((id) => ({ id, name: id, is_emp: true, is_cpo: false })),
];

function segment(): Segment {
  const dimension = pick(['kwh', 'kwh', 'kwh', 'minute', 'minute', 'session'] as const);
  const s: Segment = { dimension, price: Math.round(r() * 60) / 100, currency: r() < 0.1 ? 'CHF' : null };
  if (dimension === 'minute' && r() < 0.5) s.range_gte = pick([0, 60, 120, 240]);
  if (r() < 0.3) s.billing_increment = pick([1, 5, 15]);
  if (r() < 0.3) {
    s.time_of_day_start = pick([360, 420, 1320, 1380]);
    s.time_of_day_end = pick([0, 360, 1320, 1440]);
  }
  return s;
}
function component(): PriceComponent {
  const restrictions =
    r() < 0.5 ? [{ allowance: 'allow' as const, charge_point_energy_type: pick(['ac', 'dc'] as const), charge_point_powers: r() < 0.5 ? [50, 400] : [], charge_point_power_is_range: true }] : [];
  return { restrictions, decomposition: Array.from({ length: int(1, 3) }, segment) };
}

const tariffs: TariffInput[] = [];
const subs: TariffInput[] = [];
for (let i = 0; i < N_TARIFF; i++) {
  const id = `tariff-${String(i).padStart(4, '0')}`;
  tariffs.push({ id, type: 'tariff', name: id, currency: 'EUR', prices: Array.from({ length: int(1, 3) }, component), emp_id: pick(empIds) });
  for (let k = 0; k < 3; k++) {
    subs.push({
      id: `${id}-sub-${k}`,
      type: 'sub_tariff',
      name: null,
      currency: null,
      prices: Array.from({ length: int(1, 2) }, component),
      emp_id: tariffs[i].emp_id,
      cpo_id: pick(cpoIds),
      super_tariff_ids: [id],
    });
  }
}

const catalog = new PricingCatalog();
for (const c of companies) catalog.upsertCompany(c);
for (const t of tariffs) catalog.upsertTariff(t);
for (const s of subs) catalog.upsertTariff(s);
/** The same tariffs selecting the first match (D147), in a catalog of their own. */
const fmCatalog = new PricingCatalog();
for (const c of companies) fmCatalog.upsertCompany(c);
for (const t of tariffs) fmCatalog.upsertTariff({ ...t, price_selection: 'first_match' });
for (const s of subs) fmCatalog.upsertTariff(s);

const stations: StationContext[] = Array.from({ length: N_STATION }, (_, i) => ({
  id: `station-${i}`,
  country: 'DE',
  cpo_id: pick(cpoIds),
  charge_points: [
    { plug: 'type2', energy_type: 'ac' as const, power: pick([11, 22]) },
    { plug: 'type2', energy_type: 'ac' as const, power: 3.7 },
    { plug: 'ccs', energy_type: 'dc' as const, power: pick([50, 150]) },
    { plug: 'ccs', energy_type: 'dc' as const, power: pick([300, 350]) },
  ],
}));

const vehicle: VehiclePricing = {
  id: 'car',
  brand_id: 'brand',
  usable_battery_size: 77,
  ac_phases: 3,
  ac_max_power: 11,
  ac_map: { '2.0': 2, '2.3': 2.3, '3.7': 3.7, '7.4': 7.4, '11': 11, '16': 11, '22': 11, '43': 11 },
  dc_ports: ['ccs'],
  dc_max_power: 175,
  dc_curve: [
    { percentage: 0, power: 120 },
    { percentage: 20, power: 175 },
    { percentage: 50, power: 130 },
    { percentage: 80, power: 70 },
    { percentage: 100, power: 10 },
  ],
};
const batteryRange: [number, number] = [10, 80];
const sessionOpts = { carAcPhases: 3, allowUnbalancedLoad: false };

// --- compiled vs reference: one tariff at one station's four charge points per operation ---
const station = stations[0];
const cps: { energyType: EnergyType; power: number; session: ChargeSession }[] = station.charge_points.map((cp) => ({
  energyType: cp.energy_type!,
  power: cp.power,
  session: sessionForVehicle(vehicle, cp.energy_type!, cp.power, batteryRange, sessionOpts),
}));
const profiles = cps.map((cp) => {
  const steps: { minutes: number; kw: number }[] = [];
  for (let i = 0; i < cp.session.steps; i++) {
    steps.push({ minutes: cp.session.tEnd[i] - (i === 0 ? 0 : cp.session.tEnd[i - 1]), kw: cp.session.power[i] });
  }
  return { steps, consumed_power: cp.session.consumedPower };
});
const scratch = new PlanScratch();
const results = new PriceResults(4);
const conversion = buildConversion(catalog.currencies, RATES, 'EUR');
const st = resolveStation(catalog, station.cpo_id, station.country, station.id, false);
const blocks = tariffs.map((t) => catalog.blockById(t.id)!);
const companyMap = new Map(companies.map((c) => [c.id, c]));
const subsOf = new Map(tariffs.map((t) => [t.id, catalog.subTariffsOf(t.id)]));
let sink = 0;

/**
 * One operation = every one of the 200 tariffs at the station's four charge points (800 prices),
 * for both evaluators: a sub-microsecond operation would mostly measure the timer.
 */
function compiledAll(): void {
  for (const b of blocks) {
    const plan = planTariff(catalog, b, st, scratch);
    for (let j = 0; j < 4; j++) {
      evaluateInto(b, plan, cps[j].session, cps[j].energyType, cps[j].power, 720, 0, conversion, results, j);
      sink += results.price[j] || 0;
    }
  }
}

const fmBlocks = tariffs.map((t) => fmCatalog.blockById(t.id)!);
const fmScratch = new PlanScratch();
const fmConversion = buildConversion(fmCatalog.currencies, RATES, 'EUR');
const fmSt = resolveStation(fmCatalog, station.cpo_id, station.country, station.id, false);
function firstMatchAll(): void {
  for (const b of fmBlocks) {
    const plan = planTariff(fmCatalog, b, fmSt, fmScratch);
    for (let j = 0; j < 4; j++) {
      evaluateInto(b, plan, cps[j].session, cps[j].energyType, cps[j].power, 720, 3, fmConversion, results, j);
      sink += results.price[j] || 0;
    }
  }
}

function referenceAll(): void {
  for (const t of tariffs) referenceTariff(t);
}

function referenceTariff(t: TariffInput): void {
  for (let j = 0; j < 4; j++) {
    const res = referencePrice({
      tariff: t,
      subTariffs: subsOf.get(t.id)!,
      evsePrices: [],
      companies: companyMap,
      station: { id: station.id, cpo_id: station.cpo_id, country: station.country },
      chargePoint: { energy_type: cps[j].energyType, power: cps[j].power },
      profile: profiles[j],
      startTime: 720,
      currency: 'EUR',
      rates: RATES,
      averagePrices: false,
    });
    sink += res.price ?? 0;
  }
}

// --- worst-case bulk ---
const bulkRequest: BulkRequest = {
  stations,
  tariffIds: tariffs.map((t) => t.id),
  vehicle,
  batteryRange,
  currency: 'EUR',
  startTime: 720,
  allowUnbalancedLoad: false,
  includeDirectPayment: true,
  chargePointsPowerLte: null,
};
const bulkScratch = new BulkScratch();
const bulkOnce = () => {
  sink += bulkPreview(catalog, bulkRequest, RATES, bulkScratch).length;
};

// Every station with a station-level component of one tariff.
const evseStations: StationContext[] = stations.map((s) => ({ ...s, id: `evse-${s.id}` }));
for (const s of evseStations) {
  catalog.upsertStationPrices({ tariff_id: tariffs[0].id, station_id: s.id!, prices: [{ restrictions: [], decomposition: [segment()] }] });
}
const evseRequest: BulkRequest = { ...bulkRequest, stations: evseStations };
const evseBulkOnce = () => {
  sink += bulkPreview(catalog, evseRequest, RATES, bulkScratch).length;
};

// Every station run by its own operator, a member of the original operator's group.
const ownOperatorStations: StationContext[] = stations.map((s, i) => {
  const id = `op-${String(i).padStart(3, '0')}`;
  catalog.upsertCompany({ id, name: id, is_emp: false, is_cpo: true, supported_emp_ids: empIds, cpo_group_id: s.cpo_id });
  return { ...s, cpo_id: id };
});
const ownOperatorRequest: BulkRequest = { ...bulkRequest, stations: ownOperatorStations };
const ownOperatorBulkOnce = () => {
  sink += bulkPreview(catalog, ownOperatorRequest, RATES, bulkScratch).length;
};
// Nothing shared: every station's operator has its own sub tariff in every tariff, so each of the
// 20,000 (station, tariff) pairs has a plan of its own (a second catalog; sub tariffs first, so
// every tariff is compiled once).
const distinctCatalog = new PricingCatalog();
for (const c of companies) distinctCatalog.upsertCompany(c);
for (const s of ownOperatorStations) distinctCatalog.upsertCompany({ id: s.cpo_id, name: s.cpo_id, is_emp: false, is_cpo: true, supported_emp_ids: empIds });
for (const t of tariffs) {
  for (const s of ownOperatorStations) {
    distinctCatalog.upsertTariff({
      id: `${t.id}-${s.cpo_id}`,
      type: 'sub_tariff',
      name: null,
      currency: null,
      prices: Array.from({ length: int(1, 2) }, component),
      emp_id: t.emp_id,
      cpo_id: s.cpo_id,
      super_tariff_ids: [t.id],
    });
  }
}
for (const t of tariffs) distinctCatalog.upsertTariff(t);
const distinctBulkOnce = () => {
  sink += bulkPreview(distinctCatalog, ownOperatorRequest, RATES, bulkScratch).length;
};
{
  // The three requests price the same stations the same way.
  const a = JSON.stringify(bulkPreview(catalog, bulkRequest, RATES));
  const b = JSON.stringify(bulkPreview(catalog, ownOperatorRequest, RATES));
  if (a !== b) throw new Error('bulk preview differs between shared and per-station operators');
}

function exposeGc(): (() => void) | null {
  const g = (globalThis as { gc?: () => void }).gc;
  if (g) return g;
  try {
    v8.setFlagsFromString('--expose-gc');
    return vm.runInNewContext('gc') as () => void;
  } catch {
    return null;
  }
}

function heapDelta(fn: () => void, repeats: number): number | null {
  const gc = exposeGc();
  if (!gc) return null;
  const deltas: number[] = [];
  for (let i = 0; i < repeats; i++) {
    gc();
    const before = process.memoryUsage().heapUsed;
    fn();
    deltas.push(process.memoryUsage().heapUsed - before);
  }
  deltas.sort((a, b) => a - b);
  return deltas[deltas.length >> 1];
}

/**
 * The compiled/reference speed ratio from alternating rounds (reference once, compiled
 * COMPILED_RUNS_PER_ROUND times, a forced GC before each), median over rounds: on a shared
 * machine, load then hits both sides alike. The compiled side starts with caches the reference
 * evaluator has just flushed; with only three compiled runs (0.3 ms) that cold start alone took
 * the ratio from about 23× to about 15×.
 */
/** Compiled runs per round: about as long (~2 ms) as one reference run, so both sides are timed over similar spans. */
const COMPILED_RUNS_PER_ROUND = 20;
function interleavedRatio(rounds: number): number {
  const gc = exposeGc();
  const ratios: number[] = [];
  for (let i = 0; i < rounds; i++) {
    gc?.();
    let t = performance.now();
    referenceAll();
    const ref = performance.now() - t;
    // Collect the reference evaluator's garbage first, so its collection is not timed as compiled work.
    gc?.();
    t = performance.now();
    for (let k = 0; k < COMPILED_RUNS_PER_ROUND; k++) compiledAll();
    ratios.push(ref / ((performance.now() - t) / COMPILED_RUNS_PER_ROUND));
  }
  ratios.sort((a, b) => a - b);
  return ratios[ratios.length >> 1];
}

/** Bytes allocated per call of `fn` (sampled every 128 bytes, including collected objects). */
async function allocatedPerCall(fn: () => void, calls: number): Promise<number> {
  const session = new inspector.Session();
  session.connect();
  const post = (method: string, params: object = {}) =>
    new Promise<unknown>((resolve, reject) => session.post(method, params, (err, res) => (err ? reject(err) : resolve(res))));
  await post('HeapProfiler.enable');
  await post('HeapProfiler.startSampling', { samplingInterval: 128, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
  for (let i = 0; i < calls; i++) fn();
  const { profile } = (await post('HeapProfiler.stopSampling')) as { profile: { head: SamplingNode } };
  session.disconnect();
  let total = 0;
  const walk = (n: SamplingNode): void => {
    total += n.selfSize;
    n.children.forEach(walk);
  };
  walk(profile.head);
  return total / calls;
}
interface SamplingNode {
  selfSize: number;
  children: SamplingNode[];
}

async function main(): Promise<void> {
  const time = check ? 5 : quick ? 150 : 2000;
  const warmupTime = check ? 0 : quick ? 50 : 500;
  // --check: a token sample (tinybench runs 64 iterations by default, 2 s for the unshared bulk).
  const bench = new Bench({ time, warmupTime, ...(check ? { iterations: 2, warmup: false } : {}) });
  bench.add('compiled: 200 tariffs × (plan + 4 charge points)', compiledAll);
  bench.add('compiled first_match: the same 200 tariffs', firstMatchAll);
  bench.add('reference: 200 tariffs × 4 charge points', referenceAll);
  bench.add('bulk: 100 stations × 200 tariffs × 4 charge points', bulkOnce);
  bench.add('bulk, station-level prices everywhere', evseBulkOnce);
  bench.add('bulk, one operator per station (no shared contexts)', ownOperatorBulkOnce);
  bench.add('bulk, nothing shared (a sub tariff per station and tariff)', distinctBulkOnce);
  await bench.run();

  const stat = (name: string) => {
    const task = bench.getTask(name)!;
    const res = task.result;
    if (res.state !== 'completed') throw new Error(`${name}: ${res.state}`);
    return { medianMs: res.latency.p50, p99Ms: res.latency.p99, opsPerSec: res.throughput.p50, samples: res.latency.samplesCount };
  };
  const compiled = stat('compiled: 200 tariffs × (plan + 4 charge points)');
  const firstMatch = stat('compiled first_match: the same 200 tariffs');
  const reference = stat('reference: 200 tariffs × 4 charge points');
  const evals = N_TARIFF * 4;
  const bulk = stat('bulk: 100 stations × 200 tariffs × 4 charge points');
  const evseBulk = stat('bulk, station-level prices everywhere');
  const ownBulk = stat('bulk, one operator per station (no shared contexts)');
  const distinctBulk = stat('bulk, nothing shared (a sub tariff per station and tariff)');
  const pairs = N_STATION * N_TARIFF * 4;
  const heap = heapDelta(bulkOnce, check ? 1 : quick ? 3 : 9);
  const interleaved = interleavedRatio(check ? 1 : quick ? 5 : 21);
  const allocated = await allocatedPerCall(bulkOnce, check ? 2 : quick ? 10 : 50);
  const evseAllocated = await allocatedPerCall(evseBulkOnce, check ? 2 : quick ? 10 : 50);
  const ownAllocated = await allocatedPerCall(ownOperatorBulkOnce, check ? 2 : quick ? 10 : 50);
  const firstMatchAllocated = await allocatedPerCall(firstMatchAll, check ? 2 : quick ? 10 : 50);
  const compiledAllocated = await allocatedPerCall(compiledAll, check ? 2 : quick ? 10 : 50);
  const out = {
    date: new Date().toISOString(),
    node: process.version,
    quick,
    compiledEvalsPerSec: compiled.opsPerSec * evals,
    referenceEvalsPerSec: reference.opsPerSec * evals,
    ratio: compiled.opsPerSec / reference.opsPerSec,
    ratioInterleaved: interleaved,
    nsPerTariffChargePoint: (compiled.medianMs * 1e6) / evals,
    firstMatchNsPerTariffChargePoint: (firstMatch.medianMs * 1e6) / evals,
    firstMatchVsSum: firstMatch.medianMs / compiled.medianMs,
    firstMatchAllocatedBytes: firstMatchAllocated,
    compiledAllocatedBytes: compiledAllocated,
    bulkMedianMs: bulk.medianMs,
    bulkP99Ms: bulk.p99Ms,
    bulkNsPerTariffChargePoint: (bulk.medianMs * 1e6) / pairs,
    bulkHeapDeltaBytes: heap,
    bulkAllocatedBytes: allocated,
    evseBulkMedianMs: evseBulk.medianMs,
    evseBulkP99Ms: evseBulk.p99Ms,
    evseBulkAllocatedBytes: evseAllocated,
    unsharedBulkMedianMs: ownBulk.medianMs,
    unsharedBulkP99Ms: ownBulk.p99Ms,
    unsharedBulkNsPerTariffChargePoint: (ownBulk.medianMs * 1e6) / pairs,
    unsharedBulkAllocatedBytes: ownAllocated,
    distinctBulkMedianMs: distinctBulk.medianMs,
    distinctBulkP99Ms: distinctBulk.p99Ms,
    distinctBulkNsPerTariffChargePoint: (distinctBulk.medianMs * 1e6) / pairs,
    samples: {
      compiled: compiled.samples,
      firstMatch: firstMatch.samples,
      reference: reference.samples,
      bulk: bulk.samples,
      evseBulk: evseBulk.samples,
      unsharedBulk: ownBulk.samples,
      distinctBulk: distinctBulk.samples,
    },
  };
  const fmt = (n: number, d = 1) => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
  console.table([
    { measure: 'compiled evaluations / s (tariff × charge point)', value: fmt(out.compiledEvalsPerSec, 0) },
    { measure: 'reference evaluations / s', value: fmt(out.referenceEvalsPerSec, 0) },
    { measure: 'compiled / reference', value: `${fmt(out.ratio)}× (target ≥ 20×)` },
    { measure: 'compiled / reference, interleaved rounds (median)', value: `${fmt(out.ratioInterleaved)}×` },
    { measure: 'compiled ns per tariff × charge point (plan included)', value: fmt(out.nsPerTariffChargePoint) },
    { measure: 'first_match ns per tariff × charge point (same tariffs)', value: `${fmt(out.firstMatchNsPerTariffChargePoint)} (${fmt(out.firstMatchVsSum, 2)}× the sum)` },
    { measure: 'bytes allocated per 800 evaluations (sampled): sum / first_match', value: `${fmt(out.compiledAllocatedBytes, 0)} / ${fmt(out.firstMatchAllocatedBytes, 0)}` },
    { measure: 'bulk 100 × 200 × 4 median ms', value: `${fmt(out.bulkMedianMs, 2)} (target ≤ 10)` },
    { measure: 'bulk p99 ms', value: fmt(out.bulkP99Ms, 2) },
    { measure: 'bulk ns per tariff × charge point', value: fmt(out.bulkNsPerTariffChargePoint) },
    { measure: 'bulk heap delta (median, bytes)', value: heap === null ? 'gc not available' : fmt(heap, 0) },
    { measure: 'bulk bytes allocated per call (sampled)', value: fmt(out.bulkAllocatedBytes, 0) },
    { measure: 'bulk, station-level prices everywhere: median ms', value: fmt(out.evseBulkMedianMs, 2) },
    { measure: 'bulk, station-level prices everywhere: p99 ms', value: fmt(out.evseBulkP99Ms, 2) },
    { measure: 'bulk, station-level prices everywhere: bytes allocated', value: fmt(out.evseBulkAllocatedBytes, 0) },
    { measure: 'bulk, one operator per station: median ms', value: fmt(out.unsharedBulkMedianMs, 2) },
    { measure: 'bulk, one operator per station: p99 ms', value: fmt(out.unsharedBulkP99Ms, 2) },
    { measure: 'bulk, one operator per station: ns per tariff × charge point', value: fmt(out.unsharedBulkNsPerTariffChargePoint) },
    { measure: 'bulk, one operator per station: bytes allocated', value: fmt(out.unsharedBulkAllocatedBytes, 0) },
    { measure: 'bulk, nothing shared: median ms', value: fmt(out.distinctBulkMedianMs, 2) },
    { measure: 'bulk, nothing shared: p99 ms', value: fmt(out.distinctBulkP99Ms, 2) },
    { measure: 'bulk, nothing shared: ns per tariff × charge point', value: fmt(out.distinctBulkNsPerTariffChargePoint) },
  ]);
  fs.mkdirSync(OUT_DIR, { recursive: true });
  fs.writeFileSync(path.join(OUT_DIR, 'pricing.json'), JSON.stringify(out, null, 2) + '\n');
  if (sink === -1) console.log(sink);
}

await main();
