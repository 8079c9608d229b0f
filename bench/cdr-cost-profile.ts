/**
 * What `npm run bench:cdr-cost -- --peer` times of this engine, alone, for a CPU profile: the
 * seeded CDRs of the differential test priced `rounds` times each (`cdrCostBounded`, as beside the
 * peer).
 *
 *   npm run build && node --cpu-prof --cpu-prof-dir=bench/out/profile dist/bench/cdr-cost-profile.js [cases] [rounds]
 *   node dist/bench/lib/cpuprofile.js bench/out/profile
 */
import { cdrCostBounded } from '../src/domain/ocpi/cdr-cost.js';
import { randomCase } from '../test/domain/ocpi/minute-evaluator.js';

const n = Number(process.argv[2] ?? 6000);
const rounds = Number(process.argv[3] ?? 20);
const cases = Array.from({ length: n }, (_, i) => randomCase(i + 1));
let sum = 0;
const t0 = process.hrtime.bigint();
for (let r = 0; r < rounds; r++) for (const c of cases) sum += cdrCostBounded(c.tariff, c.session, c.timezone).total_cost.excl_vat;
const us = Number(process.hrtime.bigint() - t0) / 1000 / (n * rounds);
console.log(`${n} CDRs × ${rounds}: ${us.toFixed(2)} µs per CDR on average (checksum ${sum.toFixed(4)})`);
