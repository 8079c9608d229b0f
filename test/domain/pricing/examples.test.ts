import { describe, expect, it } from 'vitest';
import {
  convertAmount,
  energyAt,
  sessionForVehicle,
  type VehiclePricing,
} from '../../../src/domain/pricing/index.js';
import { CPO, RATES, catalogWith, comp, priceOf, seg, tariff } from './helpers.js';

/** Worked examples X1–X9 of decisions.md part D, to the printed digits. */
describe('worked examples', () => {
  it('X1: kWh only, Set B 22/60 → 8.58, {kwh:1}, no blocking fee', () => {
    const c = catalogWith([tariff('t', [comp([seg('kwh', 0.39)])])]);
    const [p] = priceOf(c, 't').prices;
    expect(p.price).toBe(8.58);
    expect(p.price_distribution).toEqual({ kwh: 1 });
    expect(p.blocking_fee_start).toBeNull();
  });

  it('X2: a minute fee from 240 min adds 0 but keeps its key and sets blocking_fee_start 240', () => {
    const c = catalogWith([tariff('t', [comp([seg('kwh', 0.39), seg('minute', 0.1, { range_gte: 240 })])])]);
    const [p] = priceOf(c, 't').prices;
    expect(p.price).toBe(8.58);
    expect(p.price_distribution).toEqual({ kwh: 1, minute: 0 });
    expect(p.blocking_fee_start).toBe(240);
  });

  it('X3: three dimensions, Set B 30/90 → 18.35 with the printed distribution', () => {
    const c = catalogWith([
      tariff('t', [comp([seg('session', 0.35), seg('kwh', 0.5), seg('minute', 0.1, { range_gte: 60, range_lt: 180 })])]),
    ]);
    const [p] = priceOf(c, 't', { input: { kind: 'energy', energy: 30, duration: 90 } }).prices;
    expect(p.price).toBe(18.35);
    expect(p.price_distribution).toEqual({
      session: 0.019073569482288825,
      kwh: 0.8174386920980926,
      minute: 0.16348773841961853,
    });
    expect(p.blocking_fee_start).toBe(60);
  });

  it('X4: blocks of 15 min bill a started block in full', () => {
    const c = catalogWith([
      tariff('t', [
        comp([seg('minute', 0.1, { range_gte: 0, range_lt: 15, billing_increment: 15 }), seg('minute', 0.3, { range_gte: 15 })]),
      ]),
    ]);
    const ten = priceOf(c, 't', { input: { kind: 'energy', energy: 5, duration: 10 } }).prices[0];
    expect(ten.price).toBeCloseTo(1.5, 12);
    expect(ten.blocking_fee_start).toBeNull();
    const forty = priceOf(c, 't', { input: { kind: 'energy', energy: 5, duration: 40 } }).prices[0];
    expect(forty.price).toBeCloseTo(9.0, 12);
  });

  it('X5: day/night kWh windows across midnight', () => {
    const c = catalogWith([
      tariff('t', [
        comp([
          seg('kwh', 0.4, { time_of_day_start: 360, time_of_day_end: 1320 }),
          seg('kwh', 0.3, { time_of_day_start: 1320, time_of_day_end: 360 }),
        ]),
      ]),
    ]);
    const input = { kind: 'energy' as const, energy: 30, duration: 120 };
    expect(priceOf(c, 't', { input, options: { start_time: 1260 } }).prices[0].price).toBeCloseTo(10.5, 12);
    expect(priceOf(c, 't', { input, options: { start_time: 1380 } }).prices[0].price).toBeCloseTo(9.0, 12);
  });

  it('X6: a dc-only CPO kWh price replaces only the country kWh price', async () => {
    const { subTariff } = await import('./helpers.js');
    const c = catalogWith([
      tariff('t', [comp([seg('session', 1), seg('kwh', 0.5)])]),
      subTariff('s', 't', CPO, [comp([seg('kwh', 0.4)], [{ allowance: 'allow', charge_point_energy_type: 'dc' }])]),
    ]);
    const { prices } = priceOf(c, 't', {
      input: { kind: 'energy', energy: 30, duration: 40 },
      chargePoints: [
        { plug: 'type2', power: 22 },
        { plug: 'ccs', power: 50 },
      ],
    });
    expect(prices[0].price).toBe(16);
    expect(prices[1].price).toBe(13);
    expect(prices[1].price_distribution).toEqual({ session: 0.07692307692307693, kwh: 0.9230769230769231 });
  });

  it('X7: 30 CHF → 24.390243902439025 EUR; a 100 CHF monthly fee → 81.30081300813008', () => {
    expect(convertAmount(30, 'CHF', 'EUR', RATES)).toBe(24.390243902439025);
    const c = catalogWith([tariff('t', [comp([seg('session', 30)])], { currency: 'CHF', monthly_fee: 100 })]);
    const { entry } = priceOf(c, 't');
    expect(entry.chargePointPrices[0].price).toBe(24.390243902439025);
    expect(entry.totalMonthlyFee).toBe(81.30081300813008);
  });

  const x8: VehiclePricing = {
    id: 'v8',
    brand_id: null,
    usable_battery_size: 64,
    ac_phases: 1,
    ac_max_power: 7.2,
    ac_map: null,
    dc_ports: [],
    dc_max_power: null,
    dc_curve: null,
  };

  it('X8: AC model, 42.24 kWh, 563.2 min capped at 4.5 kW, 352 min with unbalanced load', () => {
    const c = catalogWith([tariff('t', [comp([seg('kwh', 0.3)])])]);
    const input = { kind: 'vehicle' as const, vehicle: x8, battery_range: [20, 80] as [number, number] };
    expect(priceOf(c, 't', { input }).meta).toEqual([{ plug: 'type2', power: 22, energy: 42.24, duration: 563.2 }]);
    expect(priceOf(c, 't', { input, options: { allow_unbalanced_load: true } }).meta[0].duration).toBe(352);
  });

  it('X9: DC model with the default curve, 5.5 kWh in 6.6221 min', () => {
    const v: VehiclePricing = { ...x8, usable_battery_size: 50, ac_max_power: 11, ac_phases: 3, dc_ports: ['ccs'], dc_max_power: 100 };
    const s = sessionForVehicle(v, 'dc', 50, [80, 90], { carAcPhases: 3, allowUnbalancedLoad: false });
    expect(s.energy).toBeCloseTo(5.5, 12);
    expect(s.duration.toFixed(4)).toBe('6.6221');
    expect(s.steps).toBe(10);
    expect(s.power[0]).toBe(50);
    expect(s.power[9]).toBeCloseTo(48.38, 10);
    expect(s.tEnd[8]).toBeCloseTo(5.94, 10);
    expect(s.duration - s.tEnd[8]).toBeCloseTo(0.6821, 4);
    expect(energyAt(s, s.tEnd[4])).toBeCloseTo(2.75, 10);
  });
});
