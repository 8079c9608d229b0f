/**
 * The costliest cdr_cost sessions priced (D260): the longest session the schema accepts (10,000
 * periods over 31 days and the 24 hours before, each billing every dimension, Europe/Berlin's change
 * to summer time inside) under the costliest tariff of 1, 20 and 100 elements (every element a
 * window, four limits and every dimension of its own), and 4,320 one-minute periods. Per case: its
 * bound and the work counted while pricing (element checks), the main thread's time to count the
 * bound, the pricing's median time and the heap it grows by (no GC forced inside), medians of 7.
 *
 *   npm run bench:cdr-cost-long
 *
 * Run with --expose-gc (the npm script does). Writes bench/out/cdr-cost-long.json.
 */
import { costBound, cdrCostBounded, MAX_ELEMENT_CHECKS, pricingWork } from '../src/domain/ocpi/cdr-cost.js';
import { costliestTariff, longestSession } from '../test/domain/ocpi/costly-cases.js';
import { loadLine, machineLine, median, writeJson } from './lib/harness.js';

const gc = (globalThis as { gc?: () => void }).gc ?? ((): void => undefined);
const TZ = 'Europe/Berlin';
const cases: [string, number, number][] = [
  ['10,000 periods, 1 element', 1, 10_000],
  ['10,000 periods, 20 elements', 20, 10_000],
  ['10,000 periods, 100 elements (the bound of longer tariffs)', 100, 10_000],
  ['one 32-day period, 100 elements', 100, 1],
  ['4,320 one-minute periods, 20 elements', 20, 4320],
];
const rows: Record<string, number | string>[] = [];
console.log(`${machineLine()}; ${loadLine()}; medians of 7`);
console.log('| session | bound (checks) | work counted | bound / work | bound on the main thread | pricing | heap grown |');
console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
for (const [name, elements, periods] of cases) {
  const tariff = costliestTariff(elements);
  const session = longestSession(periods);
  const bound = costBound(tariff, session, TZ);
  const work = pricingWork(tariff, session, TZ);
  const boundMs: number[] = [];
  const priceMs: number[] = [];
  const heapMb: number[] = [];
  cdrCostBounded(tariff, session, TZ);
  for (let i = 0; i < 7; i++) {
    let t0 = performance.now();
    costBound(tariff, session, TZ);
    boundMs.push(performance.now() - t0);
    gc();
    const h0 = process.memoryUsage().heapUsed;
    t0 = performance.now();
    cdrCostBounded(tariff, session, TZ);
    priceMs.push(performance.now() - t0);
    heapMb.push((process.memoryUsage().heapUsed - h0) / 1e6);
  }
  const row = { name, bound, work, boundMs: median(boundMs), priceMs: median(priceMs), heapMb: median(heapMb) };
  rows.push(row);
  console.log(`| ${name} | ${bound.toLocaleString('en')} | ${work.toLocaleString('en')} | ${(bound / work).toFixed(2)} | ${row.boundMs.toFixed(2)} ms | ${row.priceMs.toFixed(1)} ms | ${row.heapMb.toFixed(1)} MB |`);
}
console.log(`limit for tariffs of more than 100 elements: ${MAX_ELEMENT_CHECKS.toLocaleString('en')} checks`);
writeJson('cdr-cost-long', { rows, maxElementChecks: MAX_ELEMENT_CHECKS });
