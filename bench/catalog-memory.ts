/**
 * Memory of the compiled pricing catalog: `n` generated tariffs (the HTTP suite's,
 * bench/scenarios.ts) compiled into one PricingCatalog in a fresh process; heap plus array-buffer
 * bytes per tariff after full collections. Run it a few times and take the median.
 *
 *   node --expose-gc dist/bench/catalog-memory.js [n]
 */
import { PricingCatalog, type TariffInput } from '../src/domain/pricing/index.js';
import { generatedTariffs } from './scenarios.js';

const n = Number(process.argv[2] ?? 5000);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');
// The generator's loosely typed records, as the API would store them.
const tariffs = generatedTariffs(n).map((t) => ({ ...t.attributes, id: t.id, emp_id: 'emp', cpo_id: null, type: 'tariff' })) as unknown as TariffInput[];
const used = (): number => {
  gc();
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
};
const before = used();
const cat = new PricingCatalog();
for (const t of tariffs) cat.upsertTariff(t);
const after = used();
console.log(`${n} tariffs (${cat.slotCount} slots): ${Math.round((after - before) / n)} bytes per compiled tariff`);
