/**
 * The cdr_cost engine (prepared tariffs, scratch arrays; D280) against its straightforward twin
 * (test/domain/ocpi/cdr-cost-twin.ts, the engine before): every number of the answer, the element
 * indices of every period in their order, the work counted and the cost bound, equal bit for bit,
 * with the tariff prepared per session, kept by content, or kept under another tariff's id.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  type CdrCost,
  cdrCost,
  cdrCostBounded,
  clearPreparedTariffs,
  costBound,
  elementsOf,
  KEPT_TARIFFS,
  type OcpiSessionInput,
  type OcpiTariffInput,
  preparedTariff,
  preparedTariffStats,
  prepareTariff,
  pricingWork,
} from '../../../src/domain/ocpi/cdr-cost.js';
import * as twin from './cdr-cost-twin.js';
import { cdrOf, randomCase as agreeCase } from './agree-cases.js';
import { costliestTariff, longestSession } from './costly-cases.js';
import { randomCase } from './minute-evaluator.js';

/** Seeded cases in `npm test` (1,500: about 4 s alone, 10 s at load 19 on the shared 2-core machine); more with OCPI_TWIN_CASES. */
const TWIN_CASES = Number(process.env.OCPI_TWIN_CASES ?? 1500);

const FIX = path.join(import.meta.dirname, '../../fixtures/ocpi');
const readJson = (...p: string[]): any => JSON.parse(fs.readFileSync(path.join(FIX, ...p), 'utf8'));

/** Everything an answer says, element indices as [dimension, index] pairs in their order. */
const viewOf = (r: CdrCost, n: number) => ({ ...r, elements: Array.from({ length: n }, (_, k) => Object.entries(elementsOf(r, k))) });
const twinView = (r: twin.CdrCost) => ({ ...r, periods: undefined, elements: r.periods.map((p) => Object.entries(p.elements)) });

interface Case {
  tariff: OcpiTariffInput;
  session: OcpiSessionInput;
  timezone: string;
}

function expectSame(c: Case, label: string): void {
  const want = twinView(twin.cdrCost(c.tariff, c.session, c.timezone));
  const n = c.session.charging_periods.length;
  const { periods: _, ...rest } = want;
  expect(viewOf(cdrCost(c.tariff, c.session, c.timezone), n), label).toStrictEqual(rest);
  expect(viewOf(cdrCostBounded(prepareTariff(c.tariff), c.session, c.timezone), n), label).toStrictEqual(rest);
  expect(viewOf(cdrCostBounded(preparedTariff(JSON.stringify(c.tariff), c.tariff), c.session, c.timezone), n), label).toStrictEqual(rest);
  expect(pricingWork(c.tariff, c.session, c.timezone), label).toBe(twin.pricingWork(c.tariff, c.session, c.timezone));
  expect(costBound(c.tariff, c.session, c.timezone), label).toBe(twin.costBound(c.tariff, c.session, c.timezone));
}

describe('the engine equals its straightforward twin', () => {
  it(`on ${TWIN_CASES} seeded cases of the differential test (zones, offset changes, reservations, bounds)`, { timeout: Math.max(60_000, TWIN_CASES * 40) }, () => {
    for (let seed = 1; seed <= TWIN_CASES; seed++) expectSame(randomCase(seed), `seed ${seed}`);
  });

  it('on 600 seeded charging-model sessions, dated and messy tariffs among them', () => {
    for (let seed = 1; seed <= 300; seed++) {
      for (const messy of [false, true]) {
        const k = agreeCase(seed, messy);
        expectSame({ tariff: k.ocpi, session: cdrOf(k.session, k.t0, k.day0), timezone: 'UTC' }, `seed ${seed} messy ${messy}`);
      }
    }
  });

  it('on the real 48-price CDR, a week of 15-minute periods under its tariff, and the costliest tariffs over long sessions', () => {
    const real = readJson('ocpi-tariffs-py/test_data/v2_2_1/codeberg_issue_228/cdr.json');
    const session = { start_date_time: real.start_date_time, end_date_time: real.end_date_time, charging_periods: real.charging_periods };
    expectSame({ tariff: real.tariffs[0], session, timezone: 'Europe/Amsterdam' }, 'real CDR');
    const t0 = Date.parse('2025-08-18T00:00:00Z');
    const week = {
      start_date_time: new Date(t0).toISOString(),
      end_date_time: new Date(t0 + 7 * 86_400_000).toISOString(),
      charging_periods: Array.from({ length: 7 * 96 }, (_, i) => ({ start_date_time: new Date(t0 + i * 900_000).toISOString(), dimensions: [{ type: 'ENERGY', volume: 2.75 }, { type: 'TIME', volume: 0.25 }] })),
    };
    expectSame({ tariff: real.tariffs[0], session: week, timezone: 'Europe/Amsterdam' }, 'week');
    expectSame({ tariff: costliestTariff(20), session: longestSession(400), timezone: 'Europe/Berlin' }, 'costliest 20');
    // Sunday windows: the costliest tariff prices only on Sundays, so move one session onto one.
    const sunday = { ...longestSession(50), start_date_time: '2026-03-15T00:00:00.000Z' };
    expectSame({ tariff: costliestTariff(7), session: sunday, timezone: 'Europe/Berlin' }, 'costliest 7 from a Sunday');
  });
});

describe('prepared tariffs kept by content (D280)', () => {
  const tariffA: OcpiTariffInput = { id: 'T1', currency: 'EUR', elements: [{ price_components: [{ type: 'TIME', price: 2, vat: 10, step_size: 300 }] }] } as OcpiTariffInput;
  const tariffB: OcpiTariffInput = { id: 'T1', currency: 'EUR', elements: [{ price_components: [{ type: 'TIME', price: 3, vat: 10, step_size: 300 }] }] } as OcpiTariffInput;
  const session: OcpiSessionInput = {
    start_date_time: '2024-05-06T10:00:00Z',
    end_date_time: '2024-05-06T11:00:00Z',
    charging_periods: [{ start_date_time: '2024-05-06T10:00:00Z', dimensions: [{ type: 'TIME', volume: 1 }] }],
  };
  const priceOf = (t: OcpiTariffInput) => cdrCostBounded(preparedTariff(JSON.stringify(t), t), session, 'UTC').total_cost.excl_vat;

  it('the same id with other content is prepared anew and priced as sent; the same content is found again', () => {
    clearPreparedTariffs();
    const s0 = preparedTariffStats();
    expect(priceOf(tariffA)).toBe(2);
    expect(priceOf(tariffB)).toBe(3);
    expect(priceOf(tariffA)).toBe(2);
    expect(priceOf(structuredClone(tariffB))).toBe(3);
    const s1 = preparedTariffStats();
    expect([s1.misses - s0.misses, s1.hits - s0.hits, s1.kept]).toEqual([2, 2, 2]);
  });

  it(`keeps at most ${KEPT_TARIFFS} tariffs, the least recently used out first, and none over 256 KiB`, () => {
    clearPreparedTariffs();
    const nth = (i: number): OcpiTariffInput => ({ currency: 'EUR', elements: [{ price_components: [{ type: 'TIME', price: i / 100 }] }] });
    for (let i = 0; i < KEPT_TARIFFS + 10; i++) {
      priceOf(nth(i));
      if (i === KEPT_TARIFFS - 1) priceOf(nth(0)); // used again: kept while 1…10 go
    }
    let s = preparedTariffStats();
    expect(s.kept).toBe(KEPT_TARIFFS);
    const misses = s.misses;
    expect(priceOf(nth(0))).toBe(0);
    expect(priceOf(nth(KEPT_TARIFFS + 9))).toBeCloseTo((KEPT_TARIFFS + 9) / 100, 9);
    expect(preparedTariffStats().misses).toBe(misses);
    priceOf(nth(5));
    expect(preparedTariffStats().misses).toBe(misses + 1);
    const huge: OcpiTariffInput = { currency: 'EUR', elements: Array.from({ length: 1000 }, (_, i) => ({ price_components: [{ type: 'TIME', price: 1 }, { type: 'ENERGY', price: 0.25, vat: 19 }], restrictions: { min_kwh: i, max_kwh: i + 1000, min_power: 11, max_power: 350, start_time: '08:00', end_time: '20:00', day_of_week: ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'] } })) };
    expect(JSON.stringify(huge).length).toBeGreaterThan(256 << 10);
    s = preparedTariffStats();
    priceOf(huge);
    priceOf(huge);
    expect(preparedTariffStats().misses - s.misses).toBe(2);
    expect(preparedTariffStats().kept).toBe(KEPT_TARIFFS);
  });
});
