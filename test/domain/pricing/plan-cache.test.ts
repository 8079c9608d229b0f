/**
 * The plan cache of a compiled block (planTariff): one plan per distinct key (sub tariff for the
 * CPO, average prices, station-wide criteria outcomes), bounded per block, dropped with the block
 * when the tariff is written, never used for a station with station-level components.
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
} from '../../../src/domain/pricing/index.js';
import { EMP, RATES, catalogWith, comp, company, seg, subTariff, tariff } from './helpers.js';

const session = sessionForEnergy(30, 60);

function priceWith(catalog: ReturnType<typeof catalogWith>, tariffId: string, cpo: string, country: string, stationId: string | null, cache: boolean): number {
  const block = catalog.blockById(tariffId)!;
  const out = new PriceResults(1);
  const plan = planTariff(catalog, block, resolveStation(catalog, cpo, country, stationId, false), new PlanScratch(), cache);
  evaluateInto(block, plan, session, 'ac', 22, 720, 0, buildConversion(catalog.currencies, RATES, 'EUR'), out, 0);
  return out.price[0];
}

describe('plan cache', () => {
  it('keeps one plan per sub tariff, shares it between CPOs of a group, and stays bounded', () => {
    const cpos = Array.from({ length: 300 }, (_, i) => `cpo-${i}`);
    const catalog = catalogWith(
      [
        tariff('T', [comp([seg('kwh', 0.5)])]),
        ...cpos.map((c, i) => subTariff(`S${i}`, 'T', c, [comp([seg('kwh', 0.3 + i / 1000)])])),
      ],
      [company(EMP), company('group'), company('member', { cpo_group_id: 'cpo-7' }), ...cpos.map((c) => company(c, { supported_emp_ids: [EMP] }))],
    );
    const block = catalog.blockById('T')!;
    const scratch = new PlanScratch();
    const st = (cpo: string) => resolveStation(catalog, cpo, 'DE', null, false);
    const first = planTariff(catalog, block, st('cpo-7'), scratch);
    expect(first).not.toBe(scratch);
    expect(planTariff(catalog, block, st('cpo-7'), scratch)).toBe(first);
    // A member of cpo-7's group gets cpo-7's sub tariff (D65), so the same plan.
    expect(planTariff(catalog, block, st('member'), scratch)).toBe(first);
    // Every CPO gets its own sub tariff's price; beyond the bound, plans are made afresh each time.
    for (const [i, c] of cpos.entries()) {
      expect(priceWith(catalog, 'T', c, 'DE', null, true)).toBeCloseTo(30 * (0.3 + i / 1000), 12);
      expect(priceWith(catalog, 'T', c, 'DE', null, true)).toBe(priceWith(catalog, 'T', c, 'DE', null, false));
    }
    expect(block.plans.size).toBe(256);
    // A CPO without a sub tariff, at the country level.
    expect(priceWith(catalog, 'T', 'group', 'DE', null, true)).toBeCloseTo(15, 12);
  });

  it('keys country and CPO restrictions, and a write replaces the block and its plans', () => {
    const catalog = catalogWith(
      [
        tariff('T', [
          comp([seg('kwh', 0.4)], [{ allowance: 'allow', countries: ['FR'] }]),
          comp([seg('session', 2)], [{ allowance: 'deny', cpo_ids: ['cpo-b'] }]),
          comp([seg('kwh', 0.6)]),
        ]),
      ],
      [company(EMP), company('cpo-a', { supported_emp_ids: [EMP] }), company('cpo-b', { supported_emp_ids: [EMP] })],
    );
    const cases: [string, string, number][] = [
      ['cpo-a', 'FR', 30 * 0.4 + 30 * 0.6 + 2],
      ['cpo-a', 'DE', 30 * 0.6 + 2],
      ['cpo-b', 'FR', 30 * 0.4 + 30 * 0.6],
      ['cpo-b', 'DE', 30 * 0.6],
    ];
    for (let round = 0; round < 2; round++) {
      for (const [cpo, country, want] of cases) expect(priceWith(catalog, 'T', cpo, country, null, true)).toBeCloseTo(want, 12);
    }
    const before = catalog.blockById('T')!;
    expect(before.plans.size).toBe(4);
    catalog.upsertTariff(tariff('T', [comp([seg('kwh', 1)])]));
    const after = catalog.blockById('T')!;
    expect(after).not.toBe(before);
    expect(after.plans.size).toBe(0);
    expect(priceWith(catalog, 'T', 'cpo-a', 'FR', null, true)).toBeCloseTo(30, 12);
  });

  it('plans a station with station-level components of the tariff afresh, and others from the cache', () => {
    const catalog = catalogWith([tariff('T', [comp([seg('kwh', 0.5)])])], undefined, [
      { tariff_id: 'T', station_id: 'ST', prices: [comp([seg('kwh', 0.2)])] },
    ]);
    const block = catalog.blockById('T')!;
    const scratch = new PlanScratch();
    const cpo = 'c0000000-0000-4000-8000-000000000001';
    expect(planTariff(catalog, block, resolveStation(catalog, cpo, 'DE', 'ST', false), scratch)).toBe(scratch);
    expect(priceWith(catalog, 'T', cpo, 'DE', 'ST', true)).toBeCloseTo(6, 12);
    expect(priceWith(catalog, 'T', cpo, 'DE', 'OTHER', true)).toBeCloseTo(15, 12);
    expect(priceWith(catalog, 'T', cpo, 'DE', null, true)).toBeCloseTo(15, 12);
    expect(block.plans.size).toBe(1);
  });
});
