/**
 * What `npm run bench:cdr-cost -- --peer` times of this engine, alone, for a CPU profile: the
 * seeded CDRs of the differential test priced `rounds` times each in a row, with the tariff prepared per CDR
 * (`cold`, as beside the peer), found kept by its content (`warm`, D280), or by the engine
 * before (`before`, its twin).
 *
 *   npm run build && node --cpu-prof --cpu-prof-dir=<dir> dist/bench/cdr-cost-profile.js [cold|warm|before] [cases] [rounds]
 *   node dist/bench/lib/cpuprofile.js <dir>
 */
import { cdrCostBounded, preparedTariff } from '../src/domain/ocpi/cdr-cost.js';
import { cdrCostBounded as beforeCost } from '../test/domain/ocpi/cdr-cost-twin.js';
import { randomCase } from '../test/domain/ocpi/minute-evaluator.js';

const mode = process.argv[2] ?? 'cold';
const n = Number(process.argv[3] ?? 6000);
const rounds = Number(process.argv[4] ?? 50);
const cases = Array.from({ length: n }, (_, i) => {
  const c = randomCase(i + 1);
  return { ...c, key: JSON.stringify(c.tariff) };
});
let sum = 0;
const t0 = process.hrtime.bigint();
// Each case `rounds` times in a row, as the peer bench times it (warm: one miss, then hits).
for (const c of cases) {
  for (let r = 0; r < rounds; r++) {
    const t = mode === 'warm' ? preparedTariff(c.key, c.tariff) : c.tariff;
    sum += (mode === 'before' ? beforeCost(c.tariff, c.session, c.timezone) : cdrCostBounded(t, c.session, c.timezone)).total_cost.excl_vat;
  }
}
const us = Number(process.hrtime.bigint() - t0) / 1000 / (n * rounds);
console.log(`${mode}: ${n} CDRs × ${rounds}: ${us.toFixed(2)} µs per CDR on average (checksum ${sum.toFixed(4)})`);
