/**
 * Bulk previews (D91) against a direct reading of D91: every station on its own, every listed or
 * direct-payment tariff planned at the station and evaluated at each of its usable charge points,
 * the cheapest pair chosen with the D91 tie rules. The catalogs are seeded and random: several
 * CPOs with groups, roaming and direct EMPs, sub tariffs per CPO, group and country, station-level
 * components, restrictions on CPOs, countries, energy types and powers, time windows, brand and
 * provider-customer filters, and coarse prices so that ties are common.
 */
import { describe, expect, it } from 'vitest';
import {
  BulkScratch,
  PlanScratch,
  PriceResults,
  buildConversion,
  bulkPreview,
  evaluateInto,
  isChargePointUsable,
  planTariff,
  resolveEnergyType,
  resolveStation,
  selectCandidates,
  sessionForEnergy,
  sessionForVehicle,
  type BulkPreview,
  type BulkRequest,
  type CompanyInput,
  type PriceComponent,
  PricingCatalog,
  type RateTable,
  type Restriction,
  type Segment,
  type StationContext,
  type StationPrices,
  type TariffInput,
  type VehiclePricing,
} from '../../../src/domain/pricing/index.js';
import { CPO, RATES, catalogWith, comp, seg, tariff } from './helpers.js';
import { mulberry32 } from '../../../src/domain/random.js';

/** D91 read literally: one station, one tariff, one charge point at a time, every plan made afresh. */
function directBulk(catalog: PricingCatalog, req: BulkRequest, rates: RateTable): BulkPreview[] {
  const conversion = buildConversion(catalog.currencies, rates, req.currency);
  const listed = new Set(req.tariffIds);
  const scratch = new PlanScratch();
  const res = new PriceResults(1);
  const out: BulkPreview[] = [];
  req.stations.forEach((station, si) => {
    const cps = station.charge_points.flatMap((cp, index) => {
      if (req.chargePointsPowerLte !== null && cp.power > req.chargePointsPowerLte) return [];
      const energyType = resolveEnergyType(cp);
      // Set B (D196): the given energy and duration at every charge point, no vehicle.
      if (req.energy) return [{ index, energyType, power: cp.power, session: sessionForEnergy(req.energy.energy, req.energy.duration) }];
      const vehicle = req.vehicle!;
      if (!isChargePointUsable(vehicle, energyType, cp.plug)) return [];
      const session = sessionForVehicle(vehicle, energyType, cp.power, req.batteryRange, {
        carAcPhases: vehicle.ac_phases,
        allowUnbalancedLoad: req.allowUnbalancedLoad,
      });
      return [{ index, energyType, power: cp.power, session }];
    });
    const filtered = new Set(
      selectCandidates(
        catalog,
        {
          cpoId: station.cpo_id,
          country: station.country,
          options: { currency: req.currency, provider_customer_tariffs: false, foreign_tariffs: true, show_all_brand_restricted_tariffs: false, max_monthly_fees: null },
          vehicleBrandId: req.vehicle?.brand_id ?? null,
          hasVehicle: req.vehicle !== null,
          listed: null,
          include: 'filter',
        },
        rates,
      ).slots,
    );
    const st = resolveStation(catalog, station.cpo_id, station.country, station.id, false);
    let best: { price: number; duration: number; cp: number; tariff: string; energy: number } | null = null;
    for (const slot of catalog.candidatesAt(station.cpo_id).slots) {
      const b = catalog.block(slot)!;
      if (!listed.has(b.id) && !(req.includeDirectPayment && b.isDirectPayment && filtered.has(slot))) continue;
      // Planned afresh (no plan cache), so the bulk path's cached plans and shared prices are checked.
      const plan = planTariff(catalog, b, st, scratch, false);
      for (const cp of cps) {
        if (!evaluateInto(b, plan, cp.session, cp.energyType, cp.power, req.startTime, req.startDay ?? 0, conversion, res, 0)) continue;
        const c = { price: res.price[0], duration: cp.session.duration, cp: cp.index, tariff: b.id, energy: cp.session.energy };
        if (
          best === null ||
          c.price < best.price ||
          (c.price === best.price &&
            (c.duration < best.duration || (c.duration === best.duration && (c.cp < best.cp || (c.cp === best.cp && c.tariff < best.tariff)))))
        ) {
          best = c;
        }
      }
    }
    if (best) out.push({ station: si, price: best.price, energy: best.energy, duration: best.duration, tariffId: best.tariff, chargePoint: best.cp });
  });
  return out;
}

const CPOS = ['cpo-a', 'cpo-b', 'cpo-c', 'cpo-d'];
const GROUP = 'cpo-g';
const EMPS = ['emp-1', 'emp-2', 'emp-3'];
const POWERS = [3.7, 11, 22, 50, 150];

const car: VehiclePricing = {
  id: 'car',
  brand_id: 'brand-a',
  usable_battery_size: 60,
  ac_phases: 3,
  ac_max_power: 11,
  ac_map: { '3.7': 3.7, '11': 11, '22': 11 },
  dc_ports: ['ccs'],
  dc_max_power: 120,
  dc_curve: null,
};

function scenario(seed: number) {
  const r = mulberry32(seed);
  const pick = <T,>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
  const chance = (p: number) => r() < p;
  const int = (lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));

  const restriction = (): Restriction => {
    const res: Restriction = { allowance: chance(0.8) ? 'allow' : 'deny' };
    if (chance(0.4)) res.charge_point_energy_type = pick(['ac', 'dc'] as const);
    if (chance(0.3)) {
      res.charge_point_powers = chance(0.5) ? [pick(POWERS), 150] : [pick(POWERS)];
      res.charge_point_power_is_range = res.charge_point_powers.length === 2 && chance(0.7);
    }
    if (chance(0.25)) res.cpo_ids = [pick([...CPOS, GROUP])];
    if (chance(0.2)) res.countries = [pick(['DE', 'FR'])];
    return res;
  };
  const segment = (): Segment => {
    const dimension = pick(['session', 'kwh', 'kwh', 'minute'] as const);
    // Coarse prices make equal totals (ties) common.
    const s: Segment = { dimension, price: dimension === 'session' ? int(0, 3) : int(0, 4) / 10 };
    if (chance(0.2)) {
      s.time_of_day_start = pick([0, 360, 1320]);
      s.time_of_day_end = pick([360, 1080, 1440]);
    }
    if (dimension === 'minute' && chance(0.3)) s.range_gte = pick([0, 30, 60]);
    return s;
  };
  const component = (): PriceComponent => ({
    restrictions: chance(0.5) ? [restriction()] : [],
    decomposition: Array.from({ length: int(1, 2) }, segment),
  });

  const companies: CompanyInput[] = [
    ...CPOS.map((id, i) => ({
      id,
      name: id,
      is_emp: false,
      is_cpo: true,
      supported_emp_ids: EMPS.filter(() => chance(0.7)),
      cpo_group_id: i % 2 === 0 ? GROUP : null,
    })),
    { id: GROUP, name: GROUP, is_emp: true, is_cpo: true, supported_emp_ids: [] },
    ...EMPS.map((id) => ({ id, name: id, is_emp: true, is_cpo: false })),
  ];
  const tariffs: TariffInput[] = [];
  const nTariffs = int(3, 12);
  for (let i = 0; i < nTariffs; i++) {
    const id = `t${String(i).padStart(2, '0')}`;
    tariffs.push({
      id,
      type: 'tariff',
      name: id,
      currency: pick(['EUR', 'EUR', 'CHF']),
      prices: Array.from({ length: int(0, 3) }, component),
      emp_id: pick([...EMPS, GROUP]),
      is_direct_payment: chance(0.3),
      provider_customer_only: chance(0.1),
      vehicle_brand_ids: chance(0.1) ? [pick(['brand-a', 'brand-b'])] : null,
      supported_countries: chance(0.1) ? ['FR'] : null,
      apply_prices_to_sub_tariff: chance(0.3),
    });
    if (chance(0.5)) {
      tariffs.push({
        id: `${id}-s`,
        type: 'sub_tariff',
        name: null,
        currency: null,
        prices: chance(0.2) ? [] : Array.from({ length: int(1, 2) }, component),
        emp_id: tariffs[tariffs.length - 1].emp_id,
        cpo_id: pick([...CPOS, GROUP, null]),
        super_tariff_ids: [id],
      });
    }
  }
  const stationIds = Array.from({ length: 30 }, (_, i) => `st-${i}`);
  const stationPrices: StationPrices[] = [];
  for (const id of stationIds) {
    if (chance(0.15)) stationPrices.push({ tariff_id: pick(tariffs.filter((t) => t.type === 'tariff')).id, station_id: id, prices: [component()] });
  }
  const stations: StationContext[] = stationIds.map((id) => ({
    id,
    country: pick(['DE', 'DE', 'FR', 'de']),
    cpo_id: chance(0.05) ? 'cpo-unknown' : pick(CPOS),
    charge_points: Array.from({ length: int(0, 4) }, () => {
      const dc = chance(0.5);
      return dc
        ? { plug: pick(['ccs', 'ccs', 'chademo']), energy_type: 'dc' as const, power: pick([50, 150]) }
        : { plug: 'type2', energy_type: 'ac' as const, power: pick([3.7, 11, 22]) };
    }),
  }));
  const catalog = catalogWith(tariffs, companies, stationPrices);
  const request: BulkRequest = {
    stations,
    tariffIds: tariffs.filter((t) => t.type === 'tariff' && chance(0.7)).map((t) => t.id),
    vehicle: car,
    batteryRange: [pick([10, 20]), pick([80, 90])],
    currency: pick(['EUR', 'CHF']),
    startTime: int(0, 1439),
    allowUnbalancedLoad: false,
    includeDirectPayment: chance(0.5),
    chargePointsPowerLte: chance(0.2) ? 50 : null,
  };
  return { catalog, request, inputs: { tariffs, companies, stationPrices } };
}

describe('D91 bulk preview = per-station reading of D91', () => {
  it('agrees on 400 seeded catalogs × 30 stations, including ties and station-level prices', () => {
    const scratch = new BulkScratch();
    let previews = 0;
    for (let seed = 1; seed <= 400; seed++) {
      const { catalog, request } = scenario(seed);
      const expected = directBulk(catalog, request, RATES);
      expect(bulkPreview(catalog, request, RATES, scratch), `seed ${seed}`).toEqual(expected);
      previews += expected.length;
    }
    expect(previews).toBeGreaterThan(4_000);
  });

  it('agrees with an energy and a duration instead of a vehicle (Set B, D196)', () => {
    const scratch = new BulkScratch();
    let previews = 0;
    for (let seed = 1; seed <= 200; seed++) {
      const { catalog, request } = scenario(seed);
      const setB: BulkRequest = { ...request, vehicle: null, energy: { energy: 5 + (seed % 40), duration: 20 + (seed % 90) } };
      const expected = directBulk(catalog, setB, RATES);
      expect(bulkPreview(catalog, setB, RATES, scratch), `seed ${seed}`).toEqual(expected);
      previews += expected.length;
    }
    expect(previews).toBeGreaterThan(2_000);
  });

  it('prices the same when the catalog is loaded in one batch (each tariff compiled once)', () => {
    const scratch = new BulkScratch();
    for (let seed = 1; seed <= 100; seed++) {
      const { catalog, request, inputs } = scenario(seed);
      const batched = new PricingCatalog();
      batched.batch(() => {
        for (const co of inputs.companies) batched.upsertCompany(co);
        for (const t of inputs.tariffs.filter((t) => t.type === 'tariff')) batched.upsertTariff(t);
        for (const t of inputs.tariffs.filter((t) => t.type === 'sub_tariff')) batched.upsertTariff(t);
        for (const sp of inputs.stationPrices) batched.upsertStationPrices(sp);
      });
      expect(batched.slots(), `seed ${seed}`).toEqual(catalog.slots());
      expect(bulkPreview(batched, request, RATES, scratch), `seed ${seed}`).toEqual(bulkPreview(catalog, request, RATES, scratch));
      // A later batch of writes (a worker's catch-up) prices as the same writes one by one.
      const more = inputs.stationPrices.map((sp, i) => ({ ...sp, prices: i % 2 === 0 ? [] : sp.prices.slice(0, 1) }));
      batched.batch(() => {
        for (const sp of more) batched.upsertStationPrices(sp);
      });
      for (const sp of more) catalog.upsertStationPrices(sp);
      expect(bulkPreview(batched, request, RATES, scratch), `seed ${seed} after writes`).toEqual(bulkPreview(catalog, request, RATES, scratch));
    }
  });

  it('prices a station with station-level components in its own context', () => {
    const catalog = catalogWith([tariff('a', [comp([seg('session', 5)])]), tariff('b', [comp([seg('session', 6)])])]);
    catalog.upsertStationPrices({ tariff_id: 'b', station_id: 'evse', prices: [comp([seg('session', 2)])] });
    const station = (id: string): StationContext => ({ id, country: 'DE', cpo_id: CPO, charge_points: [{ plug: 'type2', energy_type: 'ac', power: 22 }] });
    const req: BulkRequest = {
      stations: [station('plain-1'), station('evse'), station('plain-2')],
      tariffIds: ['a', 'b'],
      vehicle: car,
      batteryRange: [20, 80],
      currency: 'EUR',
      startTime: 720,
      allowUnbalancedLoad: false,
      includeDirectPayment: false,
      chargePointsPowerLte: null,
    };
    expect(catalog.hasStationPrices('evse')).toBe(true);
    expect(bulkPreview(catalog, req, RATES).map((p) => [p.station, p.price, p.tariffId])).toEqual([
      [0, 5, 'a'],
      [1, 2, 'b'],
      [2, 5, 'a'],
    ]);
    catalog.upsertStationPrices({ tariff_id: 'b', station_id: 'evse', prices: [] });
    expect(catalog.hasStationPrices('evse')).toBe(false);
    expect(bulkPreview(catalog, req, RATES).map((p) => [p.station, p.price, p.tariffId])).toEqual([
      [0, 5, 'a'],
      [1, 5, 'a'],
      [2, 5, 'a'],
    ]);
  });
});
