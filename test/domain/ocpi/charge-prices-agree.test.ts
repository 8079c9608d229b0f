/**
 * Issue item: OCPI tariffs imported into the segment model (src/domain/pricing/ocpi.ts, first
 * match, D147–D149) and priced by the compiled evaluator agree with the CDR cost engine
 * (D140–D146) on the session the charging model produces (D75–D77: a vehicle's DC curve, or AC
 * at constant power), given as a CDR with one charging period per step of the session.
 *
 * Seeded random OCPI tariffs use what converts without a warning: FLAT, ENERGY and TIME with VAT
 * and step sizes; time-of-day windows (across midnight too), days of the week, kWh ranges on
 * ENERGY elements, duration ranges on TIME elements, overlapping elements (the first match
 * decides), min_price and max_price. Charge prices include VAT: they are compared with incl_vat.
 */
import { describe, expect, it } from 'vitest';
import { cdrCost, type OcpiComponent, type OcpiRestrictions, type OcpiTariffInput } from '../../../src/domain/ocpi/cdr-cost.js';
import {
  PlanScratch,
  PriceResults,
  buildConversion,
  evaluateInto,
  ocpiToComponents,
  planTariff,
  resolveStation,
  sessionForVehicle,
  type ChargeSession,
  type VehiclePricing,
} from '../../../src/domain/pricing/index.js';
import { mulberry32 } from '../../../src/domain/random.js';
import { CPO, RATES, catalogWith, tariff } from '../pricing/helpers.js';

const DAYS = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'];

function randomCase(seed: number) {
  const r = mulberry32(seed);
  const pick = <T,>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
  const chance = (p: number) => r() < p;
  const int = (lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));
  const hhmm = (m: number) => `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;
  const component = (type: OcpiComponent['type']): OcpiComponent => ({
    type,
    price: Math.round(r() * 300) / 100,
    ...(chance(0.8) ? { vat: pick([0, 7, 19, 20]) } : {}),
    step_size: type === 'FLAT' ? 1 : type === 'ENERGY' ? pick([0, 1, 100, 500, 1000]) : pick([0, 1, 60, 300, 900]),
  });
  const elements: OcpiTariffInput['elements'] = [];
  for (let i = int(1, 5); i > 0; i--) {
    const kind = pick(['energy', 'time', 'flat', 'mixed'] as const);
    const types: OcpiComponent['type'][] = kind === 'energy' ? ['ENERGY'] : kind === 'time' ? ['TIME'] : kind === 'flat' ? ['FLAT'] : ['ENERGY', 'TIME', 'FLAT'].filter(() => chance(0.6)) as OcpiComponent['type'][];
    if (types.length === 0) types.push('ENERGY');
    const rs: OcpiRestrictions = {};
    if (i > 1 || chance(0.3)) {
      if (chance(0.4)) {
        rs.start_time = hhmm(15 * int(0, 95));
        rs.end_time = hhmm(15 * int(0, 95));
      }
      if (chance(0.25)) rs.day_of_week = DAYS.filter(() => chance(0.5));
      if (kind === 'energy' && chance(0.4)) {
        if (chance(0.6)) rs.min_kwh = int(0, 40);
        if (chance(0.6)) rs.max_kwh = int(1, 80);
      }
      if (kind === 'time' && chance(0.4)) {
        if (chance(0.6)) rs.min_duration = 60 * int(0, 120);
        if (chance(0.6)) rs.max_duration = 60 * int(1, 240);
      }
    }
    elements.push({ price_components: types.map(component), ...(Object.keys(rs).length > 0 ? { restrictions: rs } : {}) });
  }
  const ocpi: OcpiTariffInput = { currency: 'EUR', elements };
  if (chance(0.2)) ocpi.min_price = { excl_vat: 0, incl_vat: Math.round(r() * 2000) / 100 };
  if (chance(0.2)) ocpi.max_price = { excl_vat: 0, incl_vat: Math.round(r() * 5000) / 100 };

  // The charging model: a vehicle with a DC curve, or AC at constant power.
  const vehicle: VehiclePricing = {
    id: 'v',
    brand_id: null,
    usable_battery_size: 20 + r() * 80,
    ac_phases: 3,
    ac_max_power: pick([7.4, 11, 22]),
    ac_map: null,
    dc_ports: ['ccs'],
    dc_max_power: 50 + r() * 200,
    dc_curve: [
      { percentage: 0, power: 40 + r() * 100 },
      { percentage: 50, power: 30 + r() * 150 },
      { percentage: 80, power: 20 + r() * 60 },
      { percentage: 100, power: 5 + r() * 20 },
    ],
  };
  const dc = chance(0.6);
  const s = int(0, 60);
  const range: [number, number] = [s, int(s + 5, 100)];
  const session = sessionForVehicle(vehicle, dc ? 'dc' : 'ac', dc ? pick([50, 150, 300]) : 22, range, { carAcPhases: 3, allowUnbalancedLoad: false });
  const t0 = int(0, 1439);
  const day0 = int(1, 7);
  return { ocpi, session, dc, t0, day0 };
}

/**
 * The session as a CDR starting on ISO weekday day0 at t0 (UTC), one charging period per step.
 * Timestamps have whole milliseconds; each period's TIME volume is its length as written, so the
 * CDR is consistent in itself (the charging model's end differs by less than half a millisecond).
 */
function cdrOf(session: ChargeSession, t0: number, day0: number) {
  const start = Date.UTC(2024, 0, day0, 0, 0, 0) + t0 * 60_000; // 1 January 2024 was a Monday
  const at = (min: number) => Math.round(start + min * 60_000);
  const iso = (ms: number) => new Date(ms).toISOString();
  const charging_periods = [];
  let t = 0;
  let e = 0;
  for (let i = 0; i < session.steps; i++) {
    const [a, b] = [at(t), at(session.tEnd[i])];
    charging_periods.push({ start_date_time: iso(a), dimensions: [{ type: 'ENERGY', volume: session.eEnd[i] - e }, { type: 'TIME', volume: (b - a) / 3_600_000 }] });
    t = session.tEnd[i];
    e = session.eEnd[i];
  }
  return { start_date_time: iso(at(0)), end_date_time: iso(at(session.duration)), charging_periods };
}

describe('charge prices of OCPI tariffs = cdr_cost on the charging model session', () => {
  it('agrees on 1,000 seeded tariffs × vehicle sessions', () => {
    const scratch = new PlanScratch();
    const out = new PriceResults(1);
    let bounded = 0;
    for (let seed = 1; seed <= 1000; seed++) {
      const k = randomCase(seed);
      const conv = ocpiToComponents(k.ocpi);
      expect(conv.warnings, `seed ${seed}`).toEqual([]);
      const catalog = catalogWith([tariff('o', conv.prices, { currency: conv.currency, price_selection: conv.price_selection, min_price: conv.min_price, max_price: conv.max_price })]);
      const block = catalog.blockById('o')!;
      const plan = planTariff(catalog, block, resolveStation(catalog, CPO, 'DE', null, false), scratch);
      const priced = evaluateInto(block, plan, k.session, k.dc ? 'dc' : 'ac', k.dc ? 150 : 22, k.t0, k.day0, buildConversion(catalog.currencies, RATES, 'EUR'), out, 0);
      const want = cdrCost(k.ocpi, cdrOf(k.session, k.t0, k.day0), 'UTC');
      if (want.price_bound !== null) bounded++;
      const context = `seed ${seed}: charge price ${out.price[0]}, cdr_cost ${want.total_cost.incl_vat} (${JSON.stringify(k.ocpi)}, t0 ${k.t0}, day ${k.day0})`;
      expect(priced, context).toBe(true);
      // cdr_cost answers with 4 decimals.
      expect(Math.abs(out.price[0] - want.total_cost.incl_vat), context).toBeLessThanOrEqual(0.00005 + 1e-9);
    }
    expect(bounded).toBeGreaterThan(20);
  });
});
