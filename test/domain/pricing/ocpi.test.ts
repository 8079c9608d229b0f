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
import type { OcpiConversionOptions, OcpiRestrictions } from '../../../src/domain/pricing/ocpi.js';
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

describe('OCPI converter: dates along the session and only tariffs PUT accepts (D227)', () => {
  const el = (restrictions: OcpiRestrictions, type: 'ENERGY' | 'TIME' | 'FLAT' = 'ENERGY', step_size = 0): OcpiTariff['elements'][number] => ({ price_components: [{ type, price: 1, step_size }], restrictions });
  const convert = (elements: OcpiTariff['elements'], options: OcpiConversionOptions = {}, extra: Partial<OcpiTariff> = {}) => ocpiToComponents({ currency: 'EUR', elements, ...extra }, options);

  it('turns start_date/end_date into the days of the week from the session date that lie within them', () => {
    // 2024-01-03 is a Wednesday: valid from Friday 5th until Sunday 7th (excluded) → Friday and Saturday.
    expect(convert([el({ start_date: '2024-01-05', end_date: '2024-01-07' })], { sessionDate: '2024-01-03' }).prices[0].decomposition[0].days_of_week).toEqual([5, 6]);
    // From Thursday on, and only on Mondays and Thursdays of its own: Thursday and the next Monday.
    expect(convert([el({ start_date: '2024-01-04', day_of_week: ['MONDAY', 'THURSDAY'] })], { sessionDate: '2024-01-03' }).prices[0].decomposition[0].days_of_week).toEqual([1, 4]);
    // Ended before the session: left out. Valid all week: no day restriction.
    expect(convert([el({ end_date: '2024-01-03' })], { sessionDate: '2024-01-03' }).prices).toEqual([]);
    expect(convert([el({ start_date: '2023-12-01', end_date: '2024-02-01' })], { sessionDate: '2024-01-03' }).prices[0].decomposition[0].days_of_week).toBeUndefined();
    // A catalog import's date keeps the element whole or leaves it out.
    expect(convert([el({ start_date: '2024-01-05' })], { date: '2024-01-03' }).prices).toEqual([]);
    expect(convert([el({ start_date: '2024-01-05' })]).warnings).toEqual(['element 0: start_date/end_date kept without a session date']);
  });

  it('leaves out elements whose range is empty as given, without a warning: they never apply', () => {
    const conv = convert([el({ min_kwh: 20, max_kwh: 10 }), el({ min_duration: 600, max_duration: 600 }, 'TIME'), el({})]);
    expect(conv.warnings).toEqual([]);
    expect(conv.prices.length).toBe(1);
  });

  it('rounds bounds that are not whole minutes or kWh with a warning, and leaves out a range rounding empties', () => {
    const conv = convert([el({ min_duration: 90, max_duration: 3630 }, 'TIME'), el({ min_kwh: 2.5 }), el({ min_duration: 100, max_duration: 110 }, 'TIME')]);
    expect(conv.prices[0].decomposition[0]).toMatchObject({ range_gte: 2, range_lt: 61 });
    expect(conv.prices[1].decomposition[0]).toMatchObject({ range_gte: 3 });
    expect(conv.prices.length).toBe(2);
    expect(conv.warnings).toEqual([
      'element 0: min_duration (minutes) 1.5 is not whole, rounded to 2',
      'element 0: max_duration (minutes) 60.5 is not whole, rounded to 61',
      'element 1: min_kwh 2.5 is not whole, rounded to 3',
      'element 2: min_duration (minutes) 1.666667 is not whole, rounded to 2',
      'element 2: max_duration (minutes) 1.833333 is not whole, rounded to 2',
      'element 2: its TIME range is empty once rounded, left out',
    ]);
  });

  it('caps increments and prices beyond what a tariff stores, with a warning; min_price above max_price becomes max_price', () => {
    const conv = convert([el({}, 'TIME', 1e9), { price_components: [{ type: 'ENERGY', price: 1e9, vat: 20, step_size: 0 }], restrictions: {} }], {}, { min_price: { excl_vat: 0, incl_vat: 50 }, max_price: { excl_vat: 0, incl_vat: 40 } });
    expect(conv.prices[0].decomposition[0].billing_increment).toBe(1e6);
    expect(conv.prices[1].decomposition[0].price).toBe(1e9);
    expect(conv.warnings).toEqual(['element 0: TIME step_size 1000000000 is over the largest billing increment, capped', 'element 1: ENERGY price 1200000000 is over 1000000000, capped']);
    expect([conv.min_price, conv.max_price]).toEqual([40, 40]);
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
