/** Cross-check against OCPI fixtures that map onto the segment model (see fixtures/README.md). */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  PlanScratch,
  PriceResults,
  buildConversion,
  evaluateInto,
  ocpiToComponents,
  planTariff,
  resolveStation,
  sessionFromSteps,
  type OcpiTariff,
} from '../../../src/domain/pricing/index.js';
import { CPO, RATES, catalogWith, priceOf, tariff } from './helpers.js';

const dir = new URL('./fixtures/', import.meta.url);
const read = (path: string) => JSON.parse(readFileSync(new URL(path, dir), 'utf8'));

interface Cdr {
  start_date_time: string;
  total_energy: number;
  total_time: number;
  total_parking_time?: number;
  total_cost: number | { incl_vat: number };
  total_energy_cost?: { incl_vat: number };
  total_time_cost?: { incl_vat: number };
  tariffs?: OcpiTariff[];
  charging_periods: { start_date_time: string; dimensions: { type: string; volume: number }[] }[];
}

/** Prices a CDR's session (UTC start minute, total energy, charging minutes) with a converted tariff. */
function priceCdr(tariffPath: string, cdrPath: string) {
  const conv = ocpiToComponents(read(tariffPath));
  const cdr: Cdr = read(cdrPath);
  const start = new Date(cdr.start_date_time);
  const minutes = (cdr.total_time - (cdr.total_parking_time ?? 0)) * 60;
  const c = catalogWith([tariff('ocpi', conv.prices, { currency: conv.currency, price_selection: conv.price_selection, min_price: conv.min_price, max_price: conv.max_price })]);
  const [p] = priceOf(c, 'ocpi', {
    input: { kind: 'energy', energy: cdr.total_energy, duration: minutes },
    options: { start_time: start.getUTCHours() * 60 + start.getUTCMinutes() },
  }).prices;
  return { price: p.price!, cdr, warnings: conv.warnings };
}

const incl = (v: number | { incl_vat: number }) => (typeof v === 'number' ? v : v.incl_vat);

describe('OCPI converter', () => {
  it('maps types, VAT, step sizes, windows and ranges', () => {
    const conv = ocpiToComponents({
      currency: 'EUR',
      elements: [
        {
          price_components: [
            { type: 'TIME', price: 1.2, vat: 10, step_size: 900 },
            { type: 'ENERGY', price: 0.3, step_size: 500 },
            { type: 'FLAT', price: 1, step_size: 1 },
          ],
          restrictions: { start_time: '20:00', end_time: '00:00', min_duration: 1800, day_of_week: ['MONDAY'] },
        },
      ],
      max_price: { excl_vat: 10 },
    });
    const [time, energy, flat] = conv.prices[0].decomposition;
    expect(conv.price_selection).toBe('first_match');
    expect(time).toMatchObject({ dimension: 'minute', billing_increment: 15, time_of_day_start: 1200, time_of_day_end: 0, range_gte: 30, days_of_week: [1] });
    expect(time.price).toBeCloseTo(0.022, 15);
    expect(energy).toMatchObject({ dimension: 'kwh', price: 0.3, billing_increment: 0.5, range_gte: null });
    expect(flat).toMatchObject({ dimension: 'session', price: 1, billing_increment: null });
    expect(conv.max_price).toBeNull();
    expect(conv.warnings).toEqual([
      'max_price without incl_vat is not representable',
      'element 0: duration restriction on ENERGY is not representable',
      'element 0: duration restriction on FLAT is not representable',
    ]);
  });
});

describe('OCPI fixtures that map', () => {
  it.each([
    ['tandemdrive/simple_025kwh/tariff.json', 'tandemdrive/simple_025kwh/cdr1.json'],
    ['tandemdrive/025kwh_start/tariff.json', 'tandemdrive/025kwh_start/cdr1.json'],
    ['tandemdrive/025kwh_min_price/tariff.json', 'tandemdrive/025kwh_min_price/cdr1.json'],
    ['tandemdrive/multiple_flat_fees/tariff.json', 'tandemdrive/multiple_flat_fees/cdr.json'],
    ['ocpi-tariffs-py/025kwh/tariff.json', 'ocpi-tariffs-py/025kwh/cdr.json'],
    ['ocpi-tariffs-py/free_of_charge/tariff.json', 'ocpi-tariffs-py/free_of_charge/cdr.json'],
  ])('%s prices the CDR total incl. VAT', (t, c) => {
    const { price, cdr } = priceCdr(t, c);
    expect(price).toBeCloseTo(incl(cdr.total_cost), 9);
  });

  it('min_price becomes the tariff bound (incl. VAT): under 2 kWh the session costs 0.55', () => {
    expect(priceCdr('tandemdrive/025kwh_min_price/tariff.json', 'tandemdrive/025kwh_min_price/cdr1.json').warnings).toEqual([]);
    const { price } = priceCdr('tandemdrive/025kwh_min_price/tariff.json', '../../../fixtures/ocpi/tandemdrive/test_data/025kwh_min_price/cdr2_less_than_2kWh.json');
    expect(price).toBeCloseTo(0.55, 12);
  });

  it('simple_3hour_5parking: the time cost (parking is 0 by D72)', () => {
    const { price, cdr } = priceCdr('tandemdrive/simple_3hour_5parking/tariff.json', 'tandemdrive/simple_3hour_5parking/cdr1.json');
    expect(price).toBeCloseTo(cdr.total_time_cost!.incl_vat, 9);
  });

  it('grace_period_parking_time: the energy cost (parking is 0 by D72)', () => {
    const { price, cdr } = priceCdr('tandemdrive/grace_period_parking_time/tariff.json', 'tandemdrive/grace_period_parking_time/cdr.json');
    expect(price).toBeCloseTo(cdr.total_energy_cost!.incl_vat, 9);
  });

  it('gireve_cdr: 12 started kWh blocks × 0.492 = 5.904, which the CPO rounded up to 5.91', () => {
    const conv = ocpiToComponents(read('ocpi-tariffs-py/gireve_cdr/tariff.json'));
    const cdr: Cdr = read('ocpi-tariffs-py/gireve_cdr/cdr.json');
    const c = catalogWith([tariff('g', conv.prices)]);
    const [p] = priceOf(c, 'g', { input: { kind: 'energy', energy: cdr.total_energy, duration: 0.3364 * 60 } }).prices;
    expect(p.price).toBeCloseTo(5.904, 12);
    expect(Math.ceil(p.price! * 100) / 100).toBe(incl(cdr.total_cost));
  });

  it('codeberg_issue_228: hourly day-specific prices in local time, exact 2.22279 incl. VAT', () => {
    const cdr: Cdr = read('ocpi-tariffs-py/codeberg_issue_228/cdr.json');
    const conv = ocpiToComponents(cdr.tariffs![0], { date: '2025-08-20' });
    expect(conv.prices).toHaveLength(24);
    // 12:20:06 UTC = 14:20:06 CEST; the period boundary 13:00 UTC = 15:00 CEST.
    const start = Date.parse(cdr.start_date_time);
    const boundary = Date.parse(cdr.charging_periods[1].start_date_time);
    const end = start + cdr.total_time * 3_600_000;
    const session = sessionFromSteps([
      { minutes: (boundary - start) / 60_000, kwh: cdr.charging_periods[0].dimensions[0].volume },
      { minutes: (end - boundary) / 60_000, kwh: cdr.charging_periods[1].dimensions[0].volume },
    ]);
    const catalog = catalogWith([tariff('nl', conv.prices)]);
    const scratch = new PlanScratch();
    const out = new PriceResults(1);
    const block = catalog.blockById('nl')!;
    const plan = planTariff(catalog, block, resolveStation(catalog, CPO, 'NL', null, false), scratch);
    evaluateInto(block, plan, session, 'ac', 22, 14 * 60 + 20.1, 0, buildConversion(catalog.currencies, RATES, 'EUR'), out, 0);
    expect(out.price[0]).toBeCloseTo(2.22279, 5);
    expect(out.price[0] / 1.21).toBeCloseTo(1.83702, 5);
  });
});
