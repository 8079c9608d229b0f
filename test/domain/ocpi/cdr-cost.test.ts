/**
 * The OCPI CDR cost engine (D140–D146) against:
 * - every tariff example of the OCPI 2.2.1 tariffs module with the totals its text states, and the
 *   CDR example of the CDRs module;
 * - the fixtures of other engines with their expected totals (test/fixtures/ocpi/README.md);
 * - a minute-by-minute evaluator (test/domain/ocpi/minute-evaluator.ts) on seeded random tariffs
 *   and sessions.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cdrCostDocument } from '../../../src/api/cdr-cost/cdr-cost.js';
import { CdrTooComplex, cdrCost, checkBound, elementsOf, costBound, ELEMENTS_ALWAYS_PRICED, MAX_ELEMENT_CHECKS, pricingWork, type OcpiPeriod, type OcpiTariffInput } from '../../../src/domain/ocpi/cdr-cost.js';
import { costliestTariff, longestSession } from './costly-cases.js';
import { minuteCost, randomCase } from './minute-evaluator.js';

const FIX = path.join(import.meta.dirname, '../../fixtures/ocpi');
const readJson = (...p: string[]): any => JSON.parse(fs.readFileSync(path.join(FIX, ...p), 'utf8'));
const spec = (name: string): OcpiTariffInput => readJson('ocpi-spec-2.2.1', `${name}.json`);

type Dims = Record<string, number>;
/** A session from `start`, periods at minute offsets, ending at `endMin`. */
function session(start: string, periods: [number, Dims][], endMin: number) {
  const t0 = Date.parse(start);
  const at = (m: number) => new Date(t0 + m * 60_000).toISOString();
  return {
    start_date_time: at(0),
    end_date_time: at(endMin),
    charging_periods: periods.map(([m, d]): OcpiPeriod => ({ start_date_time: at(m), dimensions: Object.entries(d).map(([type, volume]) => ({ type, volume })) })),
  };
}
const price = (tariff: OcpiTariffInput, s: ReturnType<typeof session>, tz = 'UTC') => cdrCost(tariff, s, tz);
/** The spec states totals in cents: compare to the cent. */
function expectTotal(r: ReturnType<typeof cdrCost>, excl: number, incl?: number): void {
  expect(Math.abs(r.total_cost.excl_vat - excl)).toBeLessThanOrEqual(0.005 + 1e-9);
  if (incl !== undefined) expect(Math.abs(r.total_cost.incl_vat - incl)).toBeLessThanOrEqual(0.005 + 1e-9);
}

/** The worked examples of the text at the git tag 2.2.1 of ocpi/ocpi (mod_tariffs.asciidoc). */
describe('the tariff examples of the OCPI 2.2.1 text, with their stated totals', () => {
  const monday = '2024-06-03T09:30:00Z';
  it('0.25 euro per kWh: 20 kWh cost 5.00 / 5.50', () => {
    expectTotal(price(spec('tariff_8_simple_025kwh'), session(monday, [[0, { ENERGY: 20, TIME: 2 }]], 120)), 5.0, 5.5);
  });
  it('0.25 euro per kWh + start fee: 5.50 / 6.10', () => {
    expectTotal(price(spec('tariff_9_025kwh_start'), session(monday, [[0, { ENERGY: 20, TIME: 2 }]], 120)), 5.5, 6.1);
  });
  it('minimum price: 20 kWh cost 5.00 / 5.50, less than 2 kWh costs 0.50 / 0.55', () => {
    const t = spec('tariff_12_025kwh_min_price');
    expectTotal(price(t, session(monday, [[0, { ENERGY: 20, TIME: 2 }]], 120)), 5.0, 5.5);
    const r = price(t, session(monday, [[0, { ENERGY: 1.2, TIME: 0.2 }]], 12));
    expectTotal(r, 0.5, 0.55);
    expect(r.price_bound).toBe('min_price');
  });
  it('parking fee + start fee: 20 kWh and 40 minutes parked cost 7.00 / 7.90 (45 minutes billed)', () => {
    const r = price(spec('tariff_10_025kwh_parking_start'), session(monday, [[0, { ENERGY: 20, TIME: 2 }], [120, { PARKING_TIME: 40 / 60 }]], 160));
    expectTotal(r, 7.0, 7.9);
    expect(r.billed.parking_time).toBe(0.75);
  });
  it('max price: 50 kWh cost 10.00 / 11.00, 30 kWh cost 8.00 / 8.85', () => {
    const t = spec('tariff_6_025kwh_start_max_price');
    const before = '2019-05-02T10:00:00Z'; // the tariff ends on 30 June 2019
    const r = price(t, session(before, [[0, { ENERGY: 50, TIME: 2 }]], 120));
    expectTotal(r, 10.0, 11.0);
    expect(r.price_bound).toBe('max_price');
    expectTotal(price(t, session(before, [[0, { ENERGY: 30, TIME: 2 }]], 120)), 8.0, 8.85);
  });
  it('2 euro per hour: 2.5 hours cost 5.00 / 5.50', () => {
    expectTotal(price(spec('tariff_1_simple_2hour'), session(monday, [[0, { ENERGY: 20, TIME: 2.5 }]], 150)), 5.0, 5.5);
  });
  it('3 euro per hour, 5 euro per hour parking: 150 + 42 minutes cost 11.25 / 12.75', () => {
    const r = price(spec('tariff_13_simple_3hour_5parking'), session(monday, [[0, { ENERGY: 20, TIME: 2.5 }], [150, { PARKING_TIME: 0.7 }]], 192));
    expectTotal(r, 11.25, 12.75);
  });
  it('multi-language text tariff: 2.5 hours cost 4.75 / 5.00', () => {
    expectTotal(price(spec('tariff_2_alt_text'), session(monday, [[0, { ENERGY: 20, TIME: 2.5 }]], 150)), 4.75, 5.0);
  });
  it('alternative URL tariff: 20.45 kWh are billed as 20.5 kWh', () => {
    // The text at the tag states 5.63 / 6.24 (to the cent): 0.50 + 20.5 kWh × 0.25 = 5.625 excl.
    // VAT, 0.60 + 5.6375 = 6.2375 incl. VAT.
    const r = price(spec('tariff_3_alt_url'), session(monday, [[0, { ENERGY: 20.45, TIME: 2 }]], 120));
    expect(r.billed.energy).toBe(20.5);
    expect(r.total_cost).toEqual({ excl_vat: 5.625, incl_vat: 6.2375 });
    expectTotal(r, 5.63, 6.24);
  });
  it('complex tariff, Monday 09:30, 165 minutes at 16 A and 42 minutes parked: 9.00 / 10.30 (no step on the charging time)', () => {
    // The text at the tag 2.2.1: 165 charging minutes (2.75) and 42 parked billed as 45 (3.75).
    const t = spec('tariff_4_complex');
    const r = price(t, session(monday, [[0, { ENERGY: 8, TIME: 2.75, MAX_CURRENT: 16 }], [165, { PARKING_TIME: 0.7 }]], 207));
    expectTotal(r, 9.0, 10.3);
    expect([r.billed.time, r.billed.parking_time]).toEqual([2.75, 0.75]);
    // Its wording of 147 charging minutes: "step_size is not used on the charging time" (D257).
    const short = price(t, session(monday, [[0, { ENERGY: 8, TIME: 2.45, MAX_CURRENT: 16 }], [147, { PARKING_TIME: 0.7 }]], 189));
    expect([short.billed.time, short.total_cost.excl_vat]).toEqual([2.45, 8.7]);
  });
  it('complex tariff, Saturday 13:30, 114 minutes at 43 A and 71 minutes parked: 12.375 / 13.975', () => {
    const r = price(spec('tariff_4_complex'), session('2024-06-08T13:30:00Z', [[0, { ENERGY: 30, TIME: 1.9, MIN_CURRENT: 43 }], [114, { PARKING_TIME: 71 / 60 }]], 185));
    expect(r.total_cost).toEqual({ excl_vat: 12.375, incl_vat: 13.975 });
    expect(r.total_time_cost.excl_vat).toBe(2.375);
    expect(r.billed.time).toBe(1.9);
    expect(r.billed.parking_time).toBe(1.25);
  });
  it('free of charge', () => {
    const r = price(spec('tariff_5_free_of_charge'), session(monday, [[0, { ENERGY: 20, TIME: 2 }]], 120));
    expect(r.total_cost).toEqual({ excl_vat: 0, incl_vat: 0 });
  });
  it('first kWh and first hour of parking free: 20 kWh and 2.75 hours parked cost 7.30', () => {
    // min_duration/max_duration count from the session's start, so the stated 7.30 (19 kWh × 0.20
    // + 1.75 h × 2.00) is the session whose charging takes no time; a 2-hour charge moves the
    // parking hours into the dearer elements.
    const t = spec('tariff_7_first_hour_kwh_free');
    expectTotal(price(t, session(monday, [[0, { ENERGY: 20 }], [0, { PARKING_TIME: 2.75 }]], 165)), 7.3);
    const r = price(t, session(monday, [[0, { ENERGY: 20, TIME: 2 }], [120, { PARKING_TIME: 2.75 }]], 285));
    expect(r.total_parking_time_cost.excl_vat).toBe(2 * 1 + 3 * 1.75);
  });
  it('reservation 5 euro per hour, used after 15 minutes: 6.75 / 7.60', () => {
    const r = price(spec('tariff_15_reservation_5_euro_per_hour'), session(monday, [[0, { RESERVATION_TIME: 0.25 }], [15, { ENERGY: 20, TIME: 2 }]], 135));
    expectTotal(r, 6.75, 7.6);
  });
  it('reservation fee and 5 euro per hour, used after 13 minutes: 8.75 / 10.00', () => {
    const r = price(spec('tariff_16_reservation_2_euro_fee_5_euro_per_hour'), session(monday, [[0, { RESERVATION_TIME: 13 / 60 }], [13, { ENERGY: 20, TIME: 2 }]], 133));
    expectTotal(r, 8.75, 10.0);
  });
  it('reservation with expiry fee: used after 22 minutes 6.50 / 7.30, expired after 1 hour 6.00 / 7.20', () => {
    const t = spec('tariff_17_reservation_with_expire_fee');
    expectTotal(price(t, session(monday, [[0, { RESERVATION_TIME: 22 / 60 }], [22, { ENERGY: 20, TIME: 2 }]], 142)), 6.5, 7.3);
    expectTotal(price(t, session(monday, [[0, { RESERVATION_TIME: 1 }]], 60)), 6.0, 7.2);
  });
  it('reservation with expiry time price: used after 22 minutes 7.00 / 7.90, expired after 1.5 hours 9.00 / 10.80', () => {
    const t = spec('tariff_18_reservation_with_expire_time');
    expectTotal(price(t, session(monday, [[0, { RESERVATION_TIME: 22 / 60 }], [22, { ENERGY: 20, TIME: 2 }]], 142)), 7.0, 7.9);
    expectTotal(price(t, session(monday, [[0, { RESERVATION_TIME: 1.5 }]], 90)), 9.0, 10.8);
  });
  it('step_size when switching elements #2: 16:35 + 35 minutes charging cost 1.30', () => {
    const r = price(spec('tariff_14_step_size'), session('2024-06-03T16:35:00Z', [[0, { TIME: 35 / 60 }]], 35));
    expectTotal(r, 1.3);
    expect(r.billed.time).toBe(0.75);
  });
  it('step_size when switching to a free element: 19:40 + 12 minutes charging + 20 parked cost 0.78', () => {
    // 12 minutes at 2.40/h (0.48); parking is free from 20:00, so 8 priced minutes; one element
    // priced both last, so its 15-minute step rounds the 20 billed minutes to 30: 18 parking
    // minutes at 1.00/h (0.30; D257).
    const r = price(spec('tariff_14_step_size'), session('2024-06-03T19:40:00Z', [[0, { TIME: 12 / 60 }], [12, { PARKING_TIME: 20 / 60 }]], 32));
    expect(r.total_time_cost.excl_vat).toBe(0.48);
    expect(r.total_parking_time_cost.excl_vat).toBe(0.3);
    expectTotal(r, 0.78);
  });
  it('step_size when switching elements #1: 16:55 + 10 minutes charging + 2 parked cost 0.383', () => {
    // 5 minutes at 1.20/h + 5 minutes at 2.40/h, no step on the charging time (it goes on into
    // priced parking); the 17:00–20:00 element priced both last, so its 15-minute step rounds the
    // 12 billed minutes to 15: 5 parking minutes at 1.00/h (D257).
    const r = price(spec('tariff_14_step_size'), session('2024-06-03T16:55:00Z', [[0, { TIME: 10 / 60 }], [10, { PARKING_TIME: 2 / 60 }]], 12));
    expect(r.total_time_cost.excl_vat).toBe(0.3);
    expect(r.total_parking_time_cost.excl_vat).toBe(0.0833);
    expectTotal(r, 0.383);
  });
  it('a TIME step still applies when the parking after it is not priced (19:55 + 10 minutes charging + 2 parked: 0.60)', () => {
    const r = price(spec('tariff_14_step_size'), session('2024-06-03T19:55:00Z', [[0, { TIME: 10 / 60 }], [10, { PARKING_TIME: 2 / 60 }]], 12));
    expect([r.billed.time, r.total_cost.excl_vat]).toEqual([0.25, 0.6]);
  });
  it('max_power restriction: 1 kWh at 6 kW, 40 kWh at 48 kW, 0.5 kWh at 4 kW cost 20.30', () => {
    const r = price(
      spec('tariffrestriction_example_max_power'),
      session(monday, [[0, { ENERGY: 1, TIME: 1 / 6, MAX_POWER: 6 }], [10, { ENERGY: 40, TIME: 50 / 60, MAX_POWER: 48 }], [60, { ENERGY: 0.5, TIME: 7.5 / 60, MAX_POWER: 4 }]], 67.5),
    );
    expectTotal(r, 20.3);
    expect([0, 1, 2].map((k) => elementsOf(r, k).ENERGY)).toEqual([0, 2, 0]);
  });
  it('max_duration restriction: 5 kWh in the first 30 minutes and 1.2 kWh in the next 10 cost 0.30', () => {
    const r = price(spec('tariffrestriction_example_max_duration'), session(monday, [[0, { ENERGY: 5, TIME: 0.5 }], [30, { ENERGY: 1.2, TIME: 1 / 6 }]], 40));
    expectTotal(r, 0.3);
  });
  it('the CDR example of the CDRs module: 1.973 hours at 2.00 per hour, 5 minute steps: 4.00 / 4.40', () => {
    const cdr = readJson('ocpi-spec-2.2.1', 'cdr_example.json');
    const doc = cdrCostDocument({ data: { type: 'ocpi_cdr_cost_request', attributes: { tariff: cdr.tariffs[0], cdr } } });
    expect(doc.data.attributes.total_cost).toEqual(cdr.total_cost);
    expect(doc.data.attributes.total_time_cost).toEqual(cdr.total_time_cost);
    expect(doc.data.attributes.total_time).toBe(2);
  });
});

const costOf = (tariff: unknown, cdr: unknown, timezone?: string) =>
  cdrCostDocument({ data: { type: 'ocpi_cdr_cost_request', attributes: { tariff, cdr, ...(timezone ? { timezone } : {}) } } }).data.attributes as any;

describe('the tandemdrive fixtures (OCPI 2.2.1, priced in UTC)', () => {
  const root = path.join(FIX, 'tandemdrive/test_data');
  const cases = fs
    .readdirSync(root)
    .flatMap((dir) => fs.readdirSync(path.join(root, dir)).filter((f) => f.startsWith('cdr')).map((f) => [dir, f] as const));
  it('has its 9 CDRs', () => expect(cases.length).toBe(9));
  for (const [dir, file] of cases) {
    it(`${dir}/${file}`, () => {
      const cdr = readJson('tandemdrive/test_data', dir, file);
      const got = costOf(readJson('tandemdrive/test_data', dir, 'tariff.json'), cdr);
      if (dir === '025kwh_min_price' && file.startsWith('cdr2')) {
        // The fixture's engine ignores min_price (0.30 / 0.33); the OCPI text bills the minimum.
        expect(cdr.total_cost).toEqual({ excl_vat: 0.3, incl_vat: 0.33 });
        expect(got.total_cost).toEqual({ excl_vat: 0.5, incl_vat: 0.55 });
        return;
      }
      if (dir === 'step_size') {
        // The fixture's engine rounds the parking alone (2 minutes to 15: 0.55); the text at the
        // tag 2.2.1 rounds the element's 12 billed minutes to 15 (5 parking minutes: 0.383, D257).
        expect(cdr.total_cost).toEqual({ excl_vat: 0.5502, incl_vat: 0.5502 });
        expect(got.total_cost).toEqual({ excl_vat: 0.3834, incl_vat: 0.3834 });
        expect(got.total_time_cost).toEqual(cdr.total_time_cost);
        return;
      }
      expect(got.total_cost).toEqual(cdr.total_cost);
      for (const [ours, theirs] of [
        ['total_energy_cost', 'total_energy_cost'],
        ['total_time_cost', 'total_time_cost'],
        ['total_parking_time_cost', 'total_parking_cost'],
        ['total_fixed_cost', 'total_fixed_cost'],
      ]) {
        if (cdr[theirs] != null) expect(got[ours], ours).toEqual(cdr[theirs]);
      }
    });
  }
});

describe('the ocpi-tariffs-py fixtures', () => {
  const root = 'ocpi-tariffs-py/test_data';
  it('the real 2.2.1 CDR (48 hourly prices, Europe/Amsterdam) costs exactly 1.83702 / 2.22279', () => {
    const cdr = readJson(root, 'v2_2_1/codeberg_issue_228/cdr.json');
    const got = costOf(cdr.tariffs[0], cdr, 'Europe/Amsterdam');
    expect(got.total_cost).toEqual({ excl_vat: 1.837, incl_vat: 2.2228 });
  });
  // Hand-trimmed 2.1.1 CDRs, checked within their own 2-cent tolerance. session_time uses a
  // dimension that is not OCPI's; 045kwh_start_parking_min_duration has periods out of order
  // (a 400, tested below).
  for (const name of ['025kwh', 'free_of_charge', 'step_size', 'step_size_energy']) {
    it(`v2_1_1/${name}`, () => {
      const cdr = readJson(root, `v2_1_1/${name}/cdr.json`);
      const got = costOf(readJson(root, `v2_1_1/${name}/tariff.json`), cdr);
      // step_size: the text at the tag 2.2.1 states 0.383 for this session where the CDR says 0.55 (D257).
      const expected = name === 'step_size' ? 0.383 : typeof cdr.total_cost === 'number' ? cdr.total_cost : cdr.total_cost.excl_vat;
      expect(Math.abs(got.total_cost.excl_vat - expected)).toBeLessThanOrEqual(0.02);
    });
  }
  it('v2_1_1/gireve_cdr: 12 kWh (1000 Wh steps) × 0.492 = 5.904; the CPO rounded up to 5.91', () => {
    // The trimmed CDR has no start or end; the session is its one period, as long as its time.
    const cdr = readJson(root, 'v2_1_1/gireve_cdr/cdr.json');
    const start = cdr.charging_periods[0].start_date_time;
    const end = new Date(Date.parse(start) + cdr.total_time * 3_600_000).toISOString();
    const got = costOf(readJson(root, 'v2_1_1/gireve_cdr/tariff.json'), { ...cdr, start_date_time: start, end_date_time: end });
    expect(got.total_energy).toBe(12);
    expect(got.total_cost.excl_vat).toBe(5.904);
    expect(cdr.total_cost).toBe(5.91);
  });
  for (const name of ['045kwh_start_parking_min_duration', 'first_hour_kwh_free']) {
    it(`v2_1_1/${name}: periods out of order answer 400 with a pointer`, () => {
      const cdr = readJson(root, `v2_1_1/${name}/cdr.json`);
      try {
        costOf(readJson(root, `v2_1_1/${name}/tariff.json`), cdr);
        expect.unreachable();
      } catch (e: any) {
        expect(e.status).toBe(400);
        expect(e.errors[0].source.pointer).toMatch(/^\/data\/attributes\/cdr\/charging_periods\/\d+\/start_date_time$/);
      }
    });
  }
});

/**
 * Seeded cases against the second-by-second evaluator: 400 in `npm test`, more with OCPI_DIFF_CASES
 * (`npm run test:ocpi-diff`: 50,000). A case takes 2.5–5.5 ms here, up to 3× that on a loaded
 * machine: 400 cases stay near a tenth of the 60 s limit at three times the load of a shared
 * 2-core machine (measured: 2.3–3.0 s alone, 6.2–6.5 s beside four busy processes, where 2,000
 * cases took 47 s).
 */
const DIFF_CASES = Number(process.env.OCPI_DIFF_CASES ?? 400);

describe('against a minute-by-minute evaluator', () => {
  it(`agrees on ${DIFF_CASES} seeded random tariffs and sessions`, { timeout: Math.max(60_000, DIFF_CASES * 40) }, () => {
    let compared = 0;
    let reserved = 0;
    for (let seed = 1; seed <= DIFF_CASES; seed++) {
      const c = randomCase(seed);
      const got = cdrCost(c.tariff, c.session, c.timezone);
      if (got.total_reservation_cost.excl_vat > 0) reserved++;
      const want = minuteCost(c.tariff, c.minutes, c.start, c.timezone);
      const msg = `seed ${seed}: ${JSON.stringify(c)}`;
      // The engine answers with 4 decimals; the evaluator's sum is unrounded.
      expect(Math.abs(got.total_cost.excl_vat - want.excl), msg).toBeLessThanOrEqual(0.00005 + 1e-9);
      expect(Math.abs(got.total_cost.incl_vat - want.incl), msg).toBeLessThanOrEqual(0.00005 + 1e-9);
      compared++;
    }
    expect(compared).toBe(DIFF_CASES);
    // Reservations (D144) priced in at least 2 % of the cases, expired ones among them.
    expect(reserved).toBeGreaterThan(DIFF_CASES / 50);
  });
});

describe('the cost bound counted before any cut (D172, D260)', () => {
  it('counts at least the work really done, and not much more, on seeded cases', () => {
    let most = 0;
    for (let seed = 1; seed <= 300; seed++) {
      const c = randomCase(seed);
      const bound = costBound(c.tariff, c.session, c.timezone);
      const work = pricingWork(c.tariff, c.session, c.timezone);
      expect(bound, `seed ${seed}`).toBeGreaterThanOrEqual(work);
      most = Math.max(most, bound / work);
    }
    expect(most).toBeLessThan(10);
  });

  it('counts at least the work of the costliest sessions, within a third of it', () => {
    for (const [elements, periods] of [[ELEMENTS_ALWAYS_PRICED, 1], [ELEMENTS_ALWAYS_PRICED, 4], [ELEMENTS_ALWAYS_PRICED, 2000], [1, 10_000], [20, 4320]]) {
      const t = costliestTariff(elements);
      const s = longestSession(periods);
      const bound = costBound(t, s, 'Europe/Berlin');
      const work = pricingWork(t, s, 'Europe/Berlin');
      expect(bound, `${elements} × ${periods}`).toBeGreaterThanOrEqual(work);
      expect(bound / work, `${elements} × ${periods}`).toBeLessThan(1.4);
    }
  });

  it('prices every session under a tariff of up to 100 elements; a longer one within the bound of the costliest such', () => {
    const worst = longestSession(10_000);
    const bound = checkBound(costliestTariff(ELEMENTS_ALWAYS_PRICED), worst, 'Europe/Berlin');
    expect(bound).toBeLessThanOrEqual(MAX_ELEMENT_CHECKS);
    expect(bound).toBeGreaterThan(MAX_ELEMENT_CHECKS * 0.98);
    // Three days of one-minute periods under 20 elements (refused before).
    expect(() => checkBound(costliestTariff(20), longestSession(4320), 'Europe/Berlin')).not.toThrow();
    expect(() => checkBound(costliestTariff(ELEMENTS_ALWAYS_PRICED + 1), worst, 'Europe/Berlin')).toThrow(CdrTooComplex);
    expect(() => checkBound(costliestTariff(ELEMENTS_ALWAYS_PRICED + 1), longestSession(100), 'Europe/Berlin')).not.toThrow();
  });
});

describe('where the text decides (D141, D142, D143, D145)', () => {
  const at = '2024-06-03T15:00:00Z';
  const energy = (step: number, vat?: number): OcpiTariffInput => ({ currency: 'EUR', elements: [{ price_components: [{ type: 'ENERGY', price: 0.5, step_size: step, ...(vat === undefined ? {} : { vat }) }] }] });

  it('rounds real volume up to the step, forgiving only what the CDR’s 4 decimals cannot tell', () => {
    // 10.0001 kWh with a 1 kWh step: 11 kWh (a ten-thousandth of the step forgave it before).
    expect(price(energy(1000), session(at, [[0, { ENERGY: 10.0001, TIME: 1 }]], 60)).billed.energy).toBe(11);
    // Float noise and what lies below 4 decimals is not a step: 10 kWh.
    expect(price(energy(1000), session(at, [[0, { ENERGY: 10.000000000001, TIME: 1 }]], 60)).billed.energy).toBe(10);
    expect(price(energy(1000), session(at, [[0, { ENERGY: 10.00004, TIME: 1 }]], 60)).billed.energy).toBe(10);
    // 10 minutes written with 4 decimals of an hour (0.1667 h = 600.12 s) and a 5-minute step: 10 minutes.
    const time: OcpiTariffInput = { currency: 'EUR', elements: [{ price_components: [{ type: 'TIME', price: 6, step_size: 300 }] }] };
    expect(price(time, session(at, [[0, { TIME: 0.1667 }]], 10)).billed.time).toBe(0.1667);
    expect(price(time, session(at, [[0, { TIME: 0.1667 }]], 10)).total_time_cost.excl_vat).toBe(1.0002);
    // A step of 999,999,999 Wh is applied, not silently dropped.
    expect(price(energy(999_999_999), session(at, [[0, { ENERGY: 5, TIME: 1 }]], 60)).billed.energy).toBe(999_999.999);
  });

  it('cuts a period where the clocks change: 02:00–02:15 of the night they go back exists only after the change', () => {
    // Paris, 27 October 2024: 00:34Z is 02:34 summer time, 01:00Z becomes 02:00 winter time. Until
    // 02:15 local the element holds from 01:00Z to 01:15Z only: 15 minutes, one 30-minute step.
    const t: OcpiTariffInput = { currency: 'EUR', elements: [{ price_components: [{ type: 'TIME', price: 3.81, vat: 5.5, step_size: 1800 }], restrictions: { end_time: '02:15' } }] };
    const r = cdrCost(t, session('2024-10-27T00:34:00Z', [[0, { ENERGY: 3.48, TIME: 58 / 60 }]], 58), 'Europe/Paris');
    expect([r.billed.time, r.total_cost.excl_vat]).toEqual([0.5, 1.905]);
    // The clocks going forward (31 March 2024, 02:00 → 03:00): from 02:30 on holds from the jump, 01:00Z.
    const late: OcpiTariffInput = { currency: 'EUR', elements: [{ price_components: [{ type: 'TIME', price: 6 }], restrictions: { start_time: '02:30' } }] };
    expect(cdrCost(late, session('2024-03-31T00:30:00Z', [[0, { TIME: 1 }]], 60), 'Europe/Paris').billed.time).toBe(0.5);
  });

  it('takes a lone end_time of 00:00 as the end of the day', () => {
    const t: OcpiTariffInput = { currency: 'EUR', elements: [{ price_components: [{ type: 'ENERGY', price: 0.5, step_size: 1 }], restrictions: { end_time: '00:00' } }] };
    expect(price(t, session(at, [[0, { ENERGY: 10, TIME: 1 }]], 60)).total_energy_cost.excl_vat).toBe(5);
  });

  it('bounds the total including VAT with a bound given excluding VAT only, at the session’s VAT share', () => {
    const max = { ...energy(1, 10), max_price: { excl_vat: 2.25 } };
    expect(price(max, session(at, [[0, { ENERGY: 10, TIME: 1 }]], 60))).toMatchObject({ total_cost: { excl_vat: 2.25, incl_vat: 2.475 }, price_bound: 'max_price' });
    const min = { ...energy(1, 10), min_price: { excl_vat: 8 } };
    expect(price(min, session(at, [[0, { ENERGY: 10, TIME: 1 }]], 60)).total_cost).toEqual({ excl_vat: 8, incl_vat: 8.8 });
    // Nothing to take a share from: the bound adds no VAT.
    expect(price(min, session(at, [[0, { PARKING_TIME: 1 }]], 60)).total_cost).toEqual({ excl_vat: 8, incl_vat: 8 });
    // A bound with incl_vat keeps bounding each total by its own value.
    const both = { ...energy(1, 10), max_price: { excl_vat: 2.25, incl_vat: 2.3 } };
    expect(price(both, session(at, [[0, { ENERGY: 10, TIME: 1 }]], 60)).total_cost).toEqual({ excl_vat: 2.25, incl_vat: 2.3 });
  });
});

describe('readings the text leaves open (D258)', () => {
  const at = '2024-06-03T13:00:00Z'; // a Monday, UTC
  const time = (price: number, restrictions?: OcpiTariffInput['elements'][number]['restrictions']) => ({ price_components: [{ type: 'TIME' as const, price }], ...(restrictions ? { restrictions } : {}) });

  it('bills no FLAT of an element that becomes active only after the start (by time of day, kWh or duration)', () => {
    for (const restrictions of [{ start_time: '13:30' }, { min_kwh: 5 }, { min_duration: 1800 }]) {
      const t: OcpiTariffInput = { currency: 'EUR', elements: [{ price_components: [{ type: 'FLAT', price: 1.5 }], restrictions }, time(2)] };
      const r = price(t, session(at, [[0, { ENERGY: 20, TIME: 1 }]], 60));
      expect(r.total_fixed_cost, JSON.stringify(restrictions)).toEqual({ excl_vat: 0, incl_vat: 0 });
      expect(r.total_cost.excl_vat).toBe(2);
    }
  });

  it('compares min_current and min_power with the period’s minimum, max_* with its maximum', () => {
    const t: OcpiTariffInput = { currency: 'EUR', elements: [time(5, { min_current: 32 }), time(4, { max_current: 16 }), time(3, { min_power: 20 }), time(1)] };
    // From 10 A to 40 A: not at least 32 A throughout, not below 16 A throughout; 22 kW at least.
    const spread = price(t, session(at, [[0, { TIME: 1, MIN_CURRENT: 10, MAX_CURRENT: 40, MIN_POWER: 22, MAX_POWER: 27 }]], 60));
    expect(elementsOf(spread, 0).TIME).toBe(2);
    // At least 33 A throughout.
    expect(elementsOf(price(t, session(at, [[0, { TIME: 1, MIN_CURRENT: 33, MAX_CURRENT: 40 }]], 60)), 0).TIME).toBe(0);
    // At most 12 A: below 16 A throughout, even where the minimum is reported too.
    expect(elementsOf(price(t, session(at, [[0, { TIME: 1, MIN_CURRENT: 6, MAX_CURRENT: 12 }]], 60)), 0).TIME).toBe(1);
    // Only the average: both bounds read it.
    expect(elementsOf(price(t, session(at, [[0, { TIME: 1, CURRENT: 40 }]], 60)), 0).TIME).toBe(0);
  });

  it('a current or power restriction does not hold on a period that reports neither', () => {
    const t: OcpiTariffInput = { currency: 'EUR', elements: [time(5, { max_current: 32 }), time(3, { max_power: 50 }), time(1)] };
    expect(price(t, session(at, [[0, { ENERGY: 10, TIME: 1 }]], 60)).total_cost.excl_vat).toBe(1);
  });

  it('steps only the volume elements priced', () => {
    // TIME is priced from 13:30 only: 30 of the 60 minutes, rounded up to the 15-minute step.
    const t: OcpiTariffInput = { currency: 'EUR', elements: [{ price_components: [{ type: 'TIME', price: 2, step_size: 900 }], restrictions: { start_time: '13:30' } }] };
    const r = price(t, session(at, [[0, { TIME: 50 / 60 }], [50, {}]], 60));
    expect(r.billed.time).toBe(0.5);
    expect(r.total_cost.excl_vat).toBe(1);
  });

  it('forgives half a unit of the 4 decimals before the step: 0.1667 h are 10 minutes under a 5-minute step', () => {
    const t: OcpiTariffInput = { currency: 'EUR', elements: [{ price_components: [{ type: 'TIME', price: 6, step_size: 300 }] }] };
    expect(price(t, session(at, [[0, { TIME: 0.1667 }]], 10)).total_time_cost.excl_vat).toBe(1.0002);
    // Half a unit more is a new step.
    expect(price(t, session(at, [[0, { TIME: 0.16676 }]], 10)).billed.time).toBe(0.25);
  });

  it('takes start_time equal to end_time as no restriction', () => {
    const t: OcpiTariffInput = { currency: 'EUR', elements: [time(2, { start_time: '18:00', end_time: '18:00' }), time(1)] };
    expect(elementsOf(price(t, session(at, [[0, { TIME: 1 }]], 60)), 0).TIME).toBe(0);
  });
});
