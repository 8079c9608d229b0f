/**
 * First-match tariffs (D147–D149) on small hand-computed cases, beside the property test's
 * random ones: what differs from adding segments, the increment on the total, days, bounds, and
 * the bound on the work of one evaluation.
 */
import { describe, expect, it } from 'vitest';
import {
  PlanScratch,
  PriceResults,
  buildConversion,
  evaluateInto,
  planTariff,
  resolveStation,
  sessionForEnergy,
  type PriceComponent,
  type TariffInput,
} from '../../../src/domain/pricing/index.js';
import { CPO, RATES, catalogWith, tariff } from './helpers.js';

function price(prices: PriceComponent[], extra: Partial<TariffInput>, energy: number, minutes: number, t0 = 600, day0 = 1) {
  const catalog = catalogWith([tariff('t', prices, extra)]);
  const block = catalog.blockById('t')!;
  const plan = planTariff(catalog, block, resolveStation(catalog, CPO, 'DE', null, false), new PlanScratch());
  const out = new PriceResults(1);
  const ok = evaluateInto(block, plan, sessionForEnergy(energy, minutes), 'ac', 22, t0, day0, buildConversion(catalog.currencies, RATES, 'EUR'), out, 0);
  return { ok, price: out.price[0], distribution: out.distributionOf(0) };
}
const FIRST = { price_selection: 'first_match' } as const;

describe('first_match tariffs', () => {
  it('take the first matching segment where sum tariffs add every one', () => {
    const prices = [{ restrictions: [], decomposition: [{ dimension: 'kwh' as const, price: 0.3 }, { dimension: 'kwh' as const, price: 0.5 }] }];
    expect(price(prices, {}, 10, 60).price).toBeCloseTo(8, 12);
    expect(price(prices, FIRST, 10, 60).price).toBeCloseTo(3, 12);
  });

  it('bill the increment once on the total, at the segment that billed last', () => {
    // 0–20 min at 0.10/min, then 0.20/min, both in blocks of 15 minutes; 40 minutes of charging.
    const prices = [
      { restrictions: [], decomposition: [{ dimension: 'minute' as const, price: 0.1, range_lt: 20, billing_increment: 15 }] },
      { restrictions: [], decomposition: [{ dimension: 'minute' as const, price: 0.2, range_gte: 20, billing_increment: 15 }] },
    ];
    // Sum (D83), per segment: 20 → 30 minutes × 0.10 + 20 → 30 minutes × 0.20 = 9.00.
    expect(price(prices, {}, 10, 40).price).toBeCloseTo(9, 12);
    // First match: 20 × 0.10 + 20 × 0.20, the total 40 → 45 at the last segment: + 5 × 0.20 = 7.00.
    expect(price(prices, FIRST, 10, 40).price).toBeCloseTo(7, 12);
  });

  it('apply days_of_week on the start day and across midnight, and not without a day', () => {
    const prices = [{ restrictions: [], decomposition: [{ dimension: 'minute' as const, price: 1, days_of_week: [6, 7] }, { dimension: 'minute' as const, price: 0.5 }] }];
    expect(price(prices, FIRST, 10, 60, 600, 6).price).toBeCloseTo(60, 12); // Saturday
    expect(price(prices, FIRST, 10, 60, 600, 5).price).toBeCloseTo(30, 12); // Friday
    expect(price(prices, FIRST, 10, 60, 1410, 5).price).toBeCloseTo(30 * 0.5 + 30 * 1, 12); // Friday 23:30 into Saturday
    expect(price(prices, FIRST, 10, 60, 1410, 7).price).toBeCloseTo(30 * 1 + 30 * 0.5, 12); // Sunday into Monday
    expect(price(prices, FIRST, 10, 60, 600, 0).price).toBeCloseTo(30, 12); // no start_date
  });

  it('bound the price, scaling the distribution; a price of 0 raised goes to the session fee', () => {
    const prices = [{ restrictions: [], decomposition: [{ dimension: 'session' as const, price: 1 }, { dimension: 'kwh' as const, price: 0.3 }] }];
    const capped = price(prices, { ...FIRST, max_price: 4 }, 30, 60);
    expect(capped.price).toBeCloseTo(4, 12);
    expect(capped.distribution.session).toBeCloseTo(1 / 10, 12);
    expect(capped.distribution.kwh).toBeCloseTo(9 / 10, 12);
    expect(price(prices, { ...FIRST, min_price: 5 }, 5, 60).price).toBeCloseTo(5, 12);
    const free = [{ restrictions: [], decomposition: [{ dimension: 'kwh' as const, price: 0 }] }];
    const raised = price(free, { ...FIRST, min_price: 2 }, 5, 60);
    expect(raised.price).toBe(2);
    expect(raised.distribution).toEqual({ session: 1, kwh: 0 });
    expect(price(prices, { ...FIRST, min_price: 50, max_price: 40 }, 30, 60).price).toBe(40);
  });

  it('price a tariff with more segments than the scratch list first holds', () => {
    // 199 segments for Mondays only, then the price that applies on a Tuesday: the segments taking
    // part are listed twice over in the module's scratch while they are grouped by dimension.
    const decomposition = [
      ...Array.from({ length: 199 }, () => ({ dimension: 'kwh' as const, price: 1, days_of_week: [1] })),
      { dimension: 'kwh' as const, price: 0.25 },
    ];
    expect(price([{ restrictions: [], decomposition }], FIRST, 10, 60, 600, 2).price).toBeCloseTo(2.5, 12);
  });

  it('stop an evaluation that would take more than MAX_SWEEP_CHECKS: no price', () => {
    // 300 windowed segments that never hold (Monday only, the session starts on a Tuesday), a session of 694 days.
    const decomposition = Array.from({ length: 300 }, (_, i) => ({ dimension: 'minute' as const, price: 1, time_of_day_start: i * 4, time_of_day_end: i * 4 + 2, days_of_week: [1] }));
    const r = price([{ restrictions: [], decomposition }], FIRST, 10, 1_000_000, 600, 2);
    expect(r.ok).toBe(false);
    expect(Number.isNaN(r.price)).toBe(true);
    // A day under the same tariff is priced (720 pieces × 300 segments).
    expect(price([{ restrictions: [], decomposition }], FIRST, 10, 1440, 600, 2).ok).toBe(true);
  });
});
