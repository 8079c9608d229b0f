/**
 * Property test: the compiled evaluator against the reference evaluator on seeded random
 * tariffs (own, sub-tariff and EVSE components; every dimension; windows across midnight;
 * ranges; increments; currencies; average and occupancy segments) and random sessions
 * (multi-step power profiles running over several days).
 *
 * Tolerance: |compiled − reference| ≤ 1e-9 × max(1, |compiled|, |reference|), i.e. absolute
 * 1e-9 for amounts up to 1 and relative 1e-9 above; the same for distribution fractions.
 */
import { describe, expect, it } from 'vitest';
import {
  PlanScratch,
  PriceResults,
  buildConversion,
  evaluateInto,
  planTariff,
  referencePrice,
  resolveStation,
  sessionFromSteps,
  type CompanyInput,
  type Dimension,
  type PriceComponent,
  type Restriction,
  type Segment,
  type TariffInput,
} from '../../../src/domain/pricing/index.js';
import { RATES, catalogWith } from './helpers.js';
import { mulberry32 } from '../../../src/domain/random.js';

const C = 'cpo-c';
const G = 'cpo-g';
const OTHER = 'cpo-x';
const EMP = 'emp-e';
const POWERS = [3.7, 11, 22, 50, 150];

function run(seed: number) {
  const r = mulberry32(seed);
  const pick = <T,>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
  const chance = (p: number) => r() < p;
  const int = (lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));

  const restriction = (): Restriction => {
    const res: Restriction = { allowance: chance(0.75) ? 'allow' : 'deny' };
    if (chance(0.4)) res.charge_point_energy_type = pick(['ac', 'dc'] as const);
    if (chance(0.4)) {
      if (chance(0.5)) {
        const a = pick(POWERS);
        const b = pick(POWERS);
        res.charge_point_powers = [Math.min(a, b), Math.max(a, b)];
        res.charge_point_power_is_range = true;
      } else res.charge_point_powers = [pick(POWERS), pick(POWERS)];
      res.use_consumed_charging_power = chance(0.2);
    }
    if (chance(0.25)) res.cpo_ids = [pick([C, G, OTHER])];
    if (chance(0.2)) res.countries = [pick(['DE', 'FR'])];
    return res;
  };
  const segment = (): Segment => {
    const dimension = pick<Dimension>(['session', 'kwh', 'kwh', 'minute', 'minute', 'parking_minute']);
    const s: Segment = { dimension, price: Math.round(r() * 100) / 100 };
    if (chance(0.35)) {
      const gte = chance(0.3) ? 0 : int(0, 60);
      s.range_gte = gte;
      if (chance(0.6)) s.range_lt = gte + int(1, 120);
    } else if (chance(0.2)) s.range_lt = int(1, 90);
    if (chance(0.3)) s.billing_increment = pick([1, 5, 15, 0.5, 2.5]);
    if (chance(0.25)) s.currency = pick(['EUR', 'CHF', 'GBP']);
    if (chance(0.45)) {
      s.time_of_day_start = int(0, 1439);
      s.time_of_day_end = chance(0.1) ? s.time_of_day_start : int(0, 1440);
    }
    if (chance(0.08)) s.is_average_price = true;
    if (chance(0.05)) s.occupancy_gte = 50;
    return s;
  };
  const component = (): PriceComponent => ({
    restrictions: Array.from({ length: pick([0, 0, 1, 1, 2]) }, restriction),
    decomposition: Array.from({ length: int(1, 4) }, segment),
  });
  const components = (min: number, max: number) => Array.from({ length: int(min, max) }, component);

  const tariff: TariffInput = {
    id: 'T',
    type: 'tariff',
    name: 'T',
    currency: pick(['EUR', 'CHF']),
    prices: components(0, 3),
    emp_id: EMP,
    is_flat_rate: chance(0.03),
    apply_prices_to_sub_tariff: chance(0.3),
  };
  const subs: TariffInput[] = [];
  if (chance(0.5)) {
    subs.push({
      id: 'S1',
      type: 'sub_tariff',
      name: null,
      currency: chance(0.5) ? null : 'GBP',
      prices: chance(0.25) ? [] : components(1, 2),
      emp_id: EMP,
      cpo_id: pick([C, G, OTHER]),
      super_tariff_ids: ['T'],
    });
  }
  if (chance(0.3)) {
    subs.push({ id: 'S2', type: 'sub_tariff', name: null, currency: null, prices: components(1, 2), emp_id: EMP, cpo_id: null, super_tariff_ids: ['T'] });
  }
  const evse = chance(0.3) ? components(1, 2) : [];
  const companies: CompanyInput[] = [
    { id: C, name: 'C', is_emp: false, is_cpo: true, supported_emp_ids: [EMP], cpo_group_id: chance(0.5) ? G : null },
    { id: G, name: 'G', is_emp: false, is_cpo: true, supported_emp_ids: [] },
    { id: OTHER, name: 'X', is_emp: false, is_cpo: true, supported_emp_ids: [] },
    { id: EMP, name: 'E', is_emp: true, is_cpo: false, supported_emp_ids: [] },
  ];

  const steps = Array.from({ length: int(1, 4) }, () => ({ minutes: 0.5 + r() * (chance(0.2) ? 1500 : 200), kw: 0.5 + r() * 150 }));
  const session = sessionFromSteps(steps.map((s) => ({ minutes: s.minutes, kwh: (s.kw * s.minutes) / 60 })));
  const stationId = chance(0.5) ? 'ST' : null;
  const station = { id: stationId, cpo_id: C, country: pick(['DE', 'FR']) };
  const chargePoint = { energy_type: pick(['ac', 'dc'] as const), power: chance(0.8) ? pick(POWERS) : 7 + r() * 100 };
  const startTime = int(0, 1439);
  const currency = pick(['EUR', 'CHF', 'GBP']);
  const averagePrices = stationId === null && chance(0.3);
  // D147–D149, drawn last so that the other cases stay as they were: a quarter of the tariffs
  // select the first match, with days of the week on some segments and price bounds.
  let startDay = 0;
  if (chance(0.25)) {
    tariff.price_selection = 'first_match';
    if (chance(0.3)) tariff.min_price = Math.round(r() * 3000) / 100;
    if (chance(0.3)) tariff.max_price = Math.round(r() * 6000) / 100;
    for (const c of [...tariff.prices, ...subs.flatMap((x) => x.prices), ...evse]) {
      for (const seg of c.decomposition) if (chance(0.3)) seg.days_of_week = [1, 2, 3, 4, 5, 6, 7].filter(() => chance(0.5));
    }
    startDay = chance(0.8) ? int(1, 7) : 0;
  }
  return { tariff, subs, evse, companies, steps, session, station, chargePoint, startTime, startDay, currency, averagePrices };
}

function close(a: number, b: number): boolean {
  return Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));
}

type Case = ReturnType<typeof run>;
type Station = Case['station'];

/**
 * Further stations for one case, priced on the same catalog after the case's own: other CPOs
 * (the sub tariff's, the group, an unrelated one), countries and station IDs, so that the plan
 * cache of the block (keyed by sub tariff and station criteria outcomes) is filled with several
 * keys and then hit; the case's own station comes again last, as a cache hit after other keys.
 */
function moreStations(seed: number, k: Case): { station: Station; averagePrices: boolean }[] {
  const r = mulberry32(seed ^ 0x5bd1e995);
  const pick = <T,>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
  const out: { station: Station; averagePrices: boolean }[] = [];
  for (let i = 0; i < 2; i++) {
    const id = r() < 0.3 ? 'ST' : null;
    out.push({ station: { id, cpo_id: pick([C, G, OTHER]), country: pick(['DE', 'FR', 'NL']) }, averagePrices: id === null && r() < 0.3 });
  }
  out.push({ station: k.station, averagePrices: k.averagePrices });
  return out;
}

describe('compiled evaluator = reference evaluator', () => {
  it('agrees on 12,000 seeded random tariffs × sessions, with plans cached across stations', () => {
    const scratch = new PlanScratch();
    const fresh = new PlanScratch();
    const out = new PriceResults(1);
    const outFresh = new PriceResults(1);
    let priced = 0;
    let unpriced = 0;
    let cached = 0;
    for (let seed = 1; seed <= 12_000; seed++) {
      const k = run(seed);
      const stationPrices = k.evse.length > 0 ? [{ tariff_id: 'T', station_id: 'ST', prices: k.evse }] : [];
      const catalog = catalogWith([k.tariff, ...k.subs], k.companies, stationPrices);
      const block = catalog.blockById('T')!;
      const conv = buildConversion(catalog.currencies, RATES, k.currency);
      const companies = new Map(k.companies.map((c) => [c.id, c]));
      const stations = [{ station: k.station, averagePrices: k.averagePrices }, ...(seed % 4 === 0 ? moreStations(seed, k) : [])];
      for (const [n, { station, averagePrices }] of stations.entries()) {
        const st = resolveStation(catalog, station.cpo_id, station.country, station.id, averagePrices);
        const plan = planTariff(catalog, block, st, scratch);
        if (plan !== scratch) cached++;
        evaluateInto(block, plan, k.session, k.chargePoint.energy_type, k.chargePoint.power, k.startTime, k.startDay, conv, out, 0);
        const ref = referencePrice({
          tariff: k.tariff,
          subTariffs: k.subs,
          evsePrices: k.evse,
          companies,
          station,
          chargePoint: k.chargePoint,
          profile: { steps: k.steps, consumed_power: k.session.consumedPower },
          startTime: k.startTime,
          startDay: k.startDay,
          currency: k.currency,
          rates: RATES,
          averagePrices,
        });
        const price = out.price[0];
        const context = `seed ${seed} station ${n}: compiled ${price}, reference ${ref.price}`;
        // A cached plan prices exactly like a plan made afresh for the station.
        const uncached = planTariff(catalog, block, st, fresh, false);
        expect(uncached).toBe(fresh);
        evaluateInto(block, uncached, k.session, k.chargePoint.energy_type, k.chargePoint.power, k.startTime, k.startDay, conv, outFresh, 0);
        expect(Object.is(outFresh.price[0], price), context).toBe(true);
        expect(uncached.policy, context).toBe(plan.policy);
        expect(uncached.reason, context).toBe(plan.reason);
        if (ref.price === null) {
          unpriced++;
          expect(Number.isNaN(price), context).toBe(true);
          continue;
        }
        priced++;
        expect(close(price, ref.price), context).toBe(true);
        const dist = out.distributionOf(0);
        expect(Object.keys(dist), context).toEqual(Object.keys(ref.distribution));
        for (const key of Object.keys(dist)) expect(close(dist[key], ref.distribution[key]), `${context} ${key}`).toBe(true);
        const blocking = out.blockingFeeStart[0];
        expect(Number.isNaN(blocking) ? null : blocking, context).toBe(ref.blockingFeeStart);
        expect(out.isAverage[0] === 1, context).toBe(ref.isAverage);
      }
    }
    expect(priced).toBeGreaterThan(5_000);
    expect(unpriced).toBeGreaterThan(200);
    expect(cached).toBeGreaterThan(10_000);
  }, 120_000);
});
