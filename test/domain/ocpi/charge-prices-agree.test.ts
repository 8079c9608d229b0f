/**
 * Issue item: OCPI tariffs imported into the segment model (src/domain/pricing/ocpi.ts, first
 * match, D147–D149) and priced by the compiled evaluator agree with the CDR cost engine
 * (D140–D146) on the session the charging model produces (D75–D77: a vehicle's DC curve, or AC
 * at constant power), given as a CDR with one charging period per step of the session.
 *
 * Seeded random OCPI tariffs (./agree-cases.ts) use what converts without a warning: FLAT, ENERGY
 * and TIME with VAT and step sizes; time-of-day windows (across midnight too), days of the week,
 * kWh ranges on ENERGY elements, duration ranges on TIME elements, overlapping elements (the
 * first match decides), min_price and max_price; the second set adds what the converter cuts or
 * reports (D227). Charge prices include VAT: they are compared with incl_vat.
 */
import { describe, expect, it } from 'vitest';
import { cdrCost, elementsOf } from '../../../src/domain/ocpi/cdr-cost.js';
import { PlanScratch, PriceResults, buildConversion, evaluateInto, ocpiToComponents, planTariff, resolveStation, type OcpiConversion } from '../../../src/domain/pricing/index.js';
import { CPO, RATES, catalogWith, tariff } from '../pricing/helpers.js';
import { cdrOf, randomCase } from './agree-cases.js';

const scratch = new PlanScratch();
const out = new PriceResults(1);

/** The charge price of a converted tariff (null: no price) and cdr_cost's answer on the same session. */
function bothPrices(k: ReturnType<typeof randomCase>, conv: OcpiConversion) {
  const catalog = catalogWith([tariff('o', conv.prices, { currency: conv.currency, price_selection: conv.price_selection, min_price: conv.min_price, max_price: conv.max_price })]);
  const block = catalog.blockById('o')!;
  const plan = planTariff(catalog, block, resolveStation(catalog, CPO, 'DE', null, false), scratch);
  const priced = evaluateInto(block, plan, k.session, k.dc ? 'dc' : 'ac', k.dc ? 150 : 22, k.t0, k.day0, buildConversion(catalog.currencies, RATES, 'EUR'), out, 0);
  return { price: priced ? out.price[0] : null, want: cdrCost(k.ocpi, cdrOf(k.session, k.t0, k.day0), 'UTC') };
}

describe('charge prices of OCPI tariffs = cdr_cost on the charging model session', () => {
  it('agrees on 1,000 seeded tariffs × vehicle sessions', () => {
    let bounded = 0;
    for (let seed = 1; seed <= 1000; seed++) {
      const k = randomCase(seed);
      const conv = ocpiToComponents(k.ocpi);
      expect(conv.warnings, `seed ${seed}`).toEqual([]);
      const { price, want } = bothPrices(k, conv);
      if (want.price_bound !== null) bounded++;
      const context = `seed ${seed}: charge price ${price}, cdr_cost ${want.total_cost.incl_vat} (${JSON.stringify(k.ocpi)}, t0 ${k.t0}, day ${k.day0})`;
      expect(price, context).not.toBeNull();
      // cdr_cost answers with 4 decimals.
      expect(Math.abs(price! - want.total_cost.incl_vat), context).toBeLessThanOrEqual(0.00005 + 1e-9);
    }
    expect(bounded).toBeGreaterThan(20);
  });

  it('agrees on 2,000 seeded tariffs with dates, uneven ranges and bounds wherever the conversion has no warning (D227)', () => {
    const counts = { agreed: 0, reported: 0, datesCut: 0, noElement: 0 };
    const differ: string[] = [];
    for (let seed = 1; seed <= 2000; seed++) {
      const k = randomCase(seed, true);
      const conv = ocpiToComponents(k.ocpi, { sessionDate: k.sessionDate });
      if (conv.warnings.length > 0) {
        counts.reported++;
        continue;
      }
      const { price, want } = bothPrices(k, conv);
      const context = `seed ${seed}: charge price ${price}, cdr_cost ${want.total_cost.incl_vat} (${JSON.stringify(k.ocpi)}, t0 ${k.t0}, day ${k.day0})`;
      // The documented class (D147): where no element applies at all, a charge has no price, while
      // cdr_cost answers 0 (or the minimum price).
      if (price === null && Array.from({ length: want.elements.length / 5 }, (_, k) => elementsOf(want, k)).every((e) => Object.keys(e).length === 0)) counts.noElement++;
      else if (price === null || Math.abs(price - want.total_cost.incl_vat) > 0.00005 + 1e-9) differ.push(context);
      else counts.agreed++;
      // Cases where cutting at the dates matters: the whole session priced by its start date differs.
      const byStartDate = ocpiToComponents(k.ocpi, { date: k.sessionDate });
      if (byStartDate.warnings.length === 0 && bothPrices(k, byStartDate).price !== price) counts.datesCut++;
    }
    expect(differ).toEqual([]);
    expect(counts.agreed).toBeGreaterThan(1200);
    expect(counts.reported).toBeGreaterThan(100);
    expect(counts.datesCut).toBeGreaterThan(5);
    expect(counts.noElement).toBeLessThan(counts.agreed / 20);
  });
});
