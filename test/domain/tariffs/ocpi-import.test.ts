import { describe, expect, it } from 'vitest';
import { ocpiToComponents } from '../../../src/domain/pricing/ocpi.js';
import { importOcpiTariff, type OcpiConverter, type OcpiTariffObject } from '../../../src/domain/tariffs/ocpi-import.js';

const convert = ocpiToComponents as unknown as OcpiConverter;
const opts = { defaultVat: 20, defaultCurrency: 'EUR', date: '2026-07-01' };
const imp = (t: OcpiTariffObject) => importOcpiTariff(t, convert, opts);

describe('OCPI import for the default catalog', () => {
  it('adds the default VAT when a component has none, keeps a given vat, and trusts tax_included YES', () => {
    const noVat = imp({ elements: [{ price_components: [{ type: 'ENERGY', price: 0.5, step_size: 1 }] }] });
    expect(noVat.currency).toBe('EUR');
    expect(noVat.prices[0].decomposition[0].price).toBeCloseTo(0.6, 12);
    const given = imp({ currency: 'eur', elements: [{ price_components: [{ type: 'ENERGY', price: 0.5, vat: 5.5 }] }] });
    expect(given.prices[0].decomposition[0].price).toBeCloseTo(0.5275, 12);
    const incl = imp({ currency: 'EUR', tax_included: 'YES', elements: [{ price_components: [{ type: 'ENERGY', price: 0.5 }] }] });
    expect(incl.prices[0].decomposition[0].price).toBe(0.5);
  });

  it('turns min_power/max_power into an allow power range per element (BP’s three power bands)', () => {
    const r = imp({
      id: 'BP_tariff_ad_hoc',
      elements: [
        { price_components: [{ type: 'ENERGY', price: 0.49167, step_size: 1 }], restrictions: { min_power: 150 } },
        { price_components: [{ type: 'ENERGY', price: 0.38333, step_size: 1 }], restrictions: { min_power: 45, max_power: 149 } },
        { price_components: [{ type: 'ENERGY', price: 0.35833, step_size: 1 }], restrictions: { max_power: 44 } },
      ],
    });
    expect(r.prices.map((c) => c.restrictions.map((x) => [x.allowance, x.charge_point_powers, x.charge_point_power_is_range]))).toEqual([
      [['allow', [150, 10000], true]],
      [['allow', [45, 149], true]],
      [['allow', [0, 44], true]],
    ]);
    expect(r.prices.map((c) => c.decomposition.length)).toEqual([1, 1, 1]);
    expect(r.warnings).toEqual([]);
  });

  it('converts Paris Belib’ FR*V75_02_FLEX: time blocks of 15 min up to 14 h, hourly after, kWh once (first match)', () => {
    const r = imp({
      id: 'FR*V75_02_FLEX',
      currency: 'EUR',
      elements: [
        {
          price_components: [
            { type: 'TIME', price: 1.9, step_size: 900, vat: 20 },
            { type: 'PARKING_TIME', price: 1.9, step_size: 900, vat: 20 },
            { type: 'ENERGY', price: 0.275, step_size: 1000, vat: 20 },
          ],
          restrictions: { start_date: '2025-06-02', max_duration: 50400 },
        },
        {
          price_components: [
            { type: 'TIME', price: 8.3333, step_size: 3600, vat: 20 },
            { type: 'PARKING_TIME', price: 8.3333, step_size: 3600, vat: 20 },
            { type: 'ENERGY', price: 0.275, step_size: 1000, vat: 20 },
          ],
          restrictions: { start_date: '2025-06-02', min_duration: 50400 },
        },
      ],
      max_price: { excl_vat: 40.8333 },
    });
    const [a, b] = r.prices;
    expect(a.restrictions).toEqual([]);
    expect(a.decomposition.map((s) => [s.dimension, s.range_gte, s.range_lt, s.billing_increment])).toEqual([
      ['minute', null, 840, 15],
      ['parking_minute', null, 840, 15],
      ['kwh', null, null, 1],
    ]);
    expect(a.decomposition[0].price).toBeCloseTo(0.038, 12);
    expect(a.decomposition[2].price).toBeCloseTo(0.33, 12);
    expect(b.decomposition.map((s) => [s.dimension, s.range_gte, s.range_lt, s.billing_increment])).toEqual([
      ['minute', 840, null, 60],
      ['parking_minute', 840, null, 60],
    ]);
    expect(b.decomposition[0].price).toBeCloseTo((8.3333 * 1.2) / 60, 12);
    // D149: the bound incl. VAT (excl_vat with the default 20 %).
    expect(r.price_selection).toBe('first_match');
    expect(r.max_price).toBeCloseTo(40.8333 * 1.2, 9);
    expect(r.warnings.some((w) => w.includes('max_price'))).toBe(false);
    expect(r.warnings).toContain('element 1: kwh already priced unconditionally by an earlier element, dropped');
  });

  it('keeps a later element of the same dimension when the earlier one has a time window', () => {
    const r = imp({
      currency: 'EUR',
      elements: [
        { price_components: [{ type: 'ENERGY', price: 0.25, vat: 20 }], restrictions: { start_time: '20:00', end_time: '08:00', day_of_week: ['MONDAY'] } },
        { price_components: [{ type: 'ENERGY', price: 0.35, vat: 20 }] },
      ],
    });
    expect(r.prices.map((c) => c.decomposition.map((s) => [s.time_of_day_start, s.time_of_day_end]))).toEqual([[[1200, 480]], [[null, null]]]);
    expect(r.warnings.some((w) => /day_of_week/.test(w))).toBe(false);
  });

  it('rounds duration bounds to whole minutes and skips components that cannot be represented', () => {
    const r = imp({
      currency: 'EUR',
      elements: [
        { price_components: [{ type: 'PARKING_TIME', price: 6, step_size: 60 }], restrictions: { min_duration: 90 } },
        { price_components: [{ type: 'CONGESTION_TIME', price: 30, step_size: 60 }] },
      ],
    });
    expect(r.prices.length).toBe(1);
    expect(r.prices[0].decomposition[0]).toMatchObject({ dimension: 'parking_minute', range_gte: 2, billing_increment: 1 });
    expect(r.prices[0].decomposition[0].price).toBeCloseTo(0.12, 12);
    expect(r.warnings.some((w) => /CONGESTION_TIME/.test(w))).toBe(true);
  });
});
