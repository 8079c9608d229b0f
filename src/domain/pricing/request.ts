/**
 * Request-level pricing: candidate selection (D66–D67), charge prices (endpoint 3: D39–D41,
 * D87–D92) and bulk previews (endpoint 8: D91). Sessions are computed once per charge point,
 * then every candidate tariff is planned once per station and evaluated per charge point into
 * preallocated typed arrays. Bulk previews plan once per (CPO, country) and price once per
 * charge point kind (see `bulkPreview`).
 */
import type { CompiledTariff, PricingCatalog } from './catalog.js';
import { ENERGY_AC, ENERGY_DC } from './catalog.js';
import {
  energyTypeOfPlug,
  isChargePointUsable,
  resolveEnergyType,
  sessionForEnergy,
  boundedSession,
  sessionForVehicle,
  type ChargeSession,
} from './charging.js';
import { buildConversion, convertAmount, type Conversion } from './currency.js';
import { evaluateAt, planTariff, PlanScratch, PriceResults, resolveStation } from './evaluate.js';
import type {
  ChargeInput,
  ChargePriceOptions,
  EnergyType,
  IncludeMode,
  RateTable,
  StationContext,
  VehiclePricing,
} from './model.js';

export interface CandidateQuery {
  cpoId: string;
  country: string;
  options: Pick<
    ChargePriceOptions,
    'currency' | 'provider_customer_tariffs' | 'foreign_tariffs' | 'show_all_brand_restricted_tariffs' | 'max_monthly_fees'
  >;
  /** The vehicle's manufacturer; null for Set B (no vehicle). */
  vehicleBrandId: string | null;
  hasVehicle: boolean;
  /** IDs of `relationships.tariffs`, or null when the relationship is absent. */
  listed: readonly string[] | null;
  include: IncludeMode;
}

export interface Candidates {
  slots: number[];
  roaming: boolean[];
}

export function passesFilters(b: CompiledTariff, q: CandidateQuery, countryIndex: number, rates: RateTable): boolean {
  const o = q.options;
  if (!o.provider_customer_tariffs && b.providerCustomerOnly) return false;
  if (!o.foreign_tariffs && b.supportedCountries.length > 0 && !b.supportedCountries.includes(countryIndex)) return false;
  if (!o.show_all_brand_restricted_tariffs && b.vehicleBrandIds.length > 0) {
    if (!q.hasVehicle || q.vehicleBrandId === null || !b.vehicleBrandIds.includes(q.vehicleBrandId)) return false;
  }
  if (o.max_monthly_fees !== null) {
    const cur = b.tariff.currency ?? 'EUR';
    const fees = convertAmount(b.totalMonthlyFee, cur, o.currency, rates) + convertAmount(b.monthlyMinSales, cur, o.currency, rates);
    if (!(fees <= o.max_monthly_fees + 1e-9)) return false;
  }
  return true;
}

/** D67: the candidate tariffs of a charge price request, in slot order. */
export function selectCandidates(catalog: PricingCatalog, q: CandidateQuery, rates: RateTable): Candidates {
  const usable = catalog.candidatesAt(q.cpoId);
  const countryIndex = catalog.countryIndex(q.country);
  const listed = q.listed === null ? null : new Set(q.listed);
  const out: Candidates = { slots: [], roaming: [] };
  for (let i = 0; i < usable.slots.length; i++) {
    const b = catalog.block(usable.slots[i])!;
    const isListed = listed !== null && listed.has(b.id);
    let take: boolean;
    if (listed === null) take = passesFilters(b, q, countryIndex, rates);
    else if (q.include === 'exclusive') take = isListed;
    else if (q.include === 'always') take = isListed || passesFilters(b, q, countryIndex, rates);
    else take = isListed && passesFilters(b, q, countryIndex, rates);
    if (take) {
      out.slots.push(b.slot);
      out.roaming.push(usable.roaming[i] === 1);
    }
  }
  return out;
}

/** One requested charge point with its session (null when the vehicle cannot use it, D78). */
export interface ChargePointSession {
  plug: string;
  power: number;
  energyType: EnergyType;
  session: ChargeSession | null;
}

/** D74–D78 for every requested charge point, in request order. */
export function chargePointSessions(
  station: StationContext,
  input: ChargeInput,
  opts: { carAcPhases: number; allowUnbalancedLoad: boolean },
): ChargePointSession[] {
  return station.charge_points.map((cp) => {
    const energyType = resolveEnergyType(cp);
    let session: ChargeSession | null;
    if (input.kind === 'energy') session = sessionForEnergy(input.energy, input.duration);
    else {
      // D38: the vehicle's DC ports are checked only for plug names that map to a known plug.
      const checkPort = energyTypeOfPlug(cp.plug) !== null;
      session = isChargePointUsable(input.vehicle, energyType, cp.plug, checkPort)
        ? boundedSession(sessionForVehicle(input.vehicle, energyType, cp.power, input.battery_range, opts))
        : null;
    }
    return { plug: cp.plug, power: cp.power, energyType, session };
  });
}

export interface ChargePriceRequest {
  /** `id` is the stored station in context (D39), null for network-wide requests. */
  station: StationContext;
  input: ChargeInput;
  options: ChargePriceOptions;
  listed: readonly string[] | null;
  include: IncludeMode;
  /**
   * Prices only this share of the candidates: those at positions ≡ index (mod count) of the
   * slot-ordered candidate list, so that `count` threads split one request evenly.
   */
  part?: { index: number; count: number };
}

export interface ChargePriceComputation {
  chargePoints: ChargePointSession[];
  /** Indices (into chargePoints) of the usable charge points. */
  usable: number[];
  candidates: Candidates;
  /** Resolved D69 policy per candidate: 1 hide, 2 show_reason. */
  policy: Uint8Array;
  /** Entry t × usable.length + j: candidate t at usable charge point j. */
  results: PriceResults;
  conversion: Conversion;
}

/** Prices every candidate tariff at every usable charge point (endpoint 3). */
export function computeChargePrices(
  catalog: PricingCatalog,
  req: ChargePriceRequest,
  rates: RateTable,
  scratch: PlanScratch = new PlanScratch(),
  results: PriceResults = new PriceResults(),
): ChargePriceComputation {
  const o = req.options;
  const vehicle = req.input.kind === 'vehicle' ? req.input.vehicle : null;
  const chargePoints = chargePointSessions(req.station, req.input, {
    carAcPhases: o.car_ac_phases,
    allowUnbalancedLoad: o.allow_unbalanced_load,
  });
  const usable: number[] = [];
  chargePoints.forEach((cp, i) => cp.session && usable.push(i));
  const candidates = selectCandidates(
    catalog,
    {
      cpoId: req.station.cpo_id,
      country: req.station.country,
      options: o,
      vehicleBrandId: vehicle?.brand_id ?? null,
      hasVehicle: vehicle !== null,
      listed: req.listed,
      include: req.include,
    },
    rates,
  );
  if (req.part !== undefined && req.part.count > 1) {
    const { index, count } = req.part;
    let n = 0;
    for (let t = index; t < candidates.slots.length; t += count) {
      candidates.slots[n] = candidates.slots[t];
      candidates.roaming[n] = candidates.roaming[t];
      n++;
    }
    candidates.slots.length = n;
    candidates.roaming.length = n;
  }
  const conversion = buildConversion(catalog.currencies, rates, o.currency);
  const st = resolveStation(catalog, req.station.cpo_id, req.station.country, req.station.id, req.station.id === null && o.average_prices);
  const nt = candidates.slots.length;
  const nu = usable.length;
  results.ensure(nt * nu);
  const policy = new Uint8Array(nt);
  const sessions: ChargeSession[] = [];
  const energies = new Uint8Array(nu);
  const powers = new Float64Array(nu);
  for (let j = 0; j < nu; j++) {
    const cp = chargePoints[usable[j]];
    sessions.push(cp.session!);
    energies[j] = cp.energyType === 'dc' ? ENERGY_DC : ENERGY_AC;
    powers[j] = cp.power;
  }
  for (let t = 0; t < nt; t++) {
    const b = catalog.block(candidates.slots[t])!;
    const plan = planTariff(catalog, b, st, scratch);
    policy[t] = plan.policy;
    for (let j = 0; j < nu; j++) evaluateAt(b, plan, sessions[j], energies[j], powers, j, o.start_time, o.start_day ?? 0, conversion, results, t * nu + j);
  }
  return { chargePoints, usable, candidates, policy, results, conversion };
}

/** `meta.charge_points` (D90): usable charge points in request order. */
export function metaChargePoints(comp: ChargePriceComputation): { plug: string; power: number; duration: number; energy: number }[] {
  return comp.usable.map((i) => {
    const cp = comp.chargePoints[i];
    return { plug: cp.plug, power: cp.power, duration: cp.session!.duration, energy: cp.session!.energy };
  });
}

/**
 * D92's text order on sort keys that are already lower-cased: code unit order, null last. The
 * one implementation: the document writer (src/api/prices/charge-prices.writer.ts) compares its pre-lowered
 * keys with it, and the test twin (test/oracles/charge-price-entries.ts) through `compareText`.
 */
export function compareSortKeys(x: string | null, y: string | null): number {
  if (x === null || y === null) return x === y ? 0 : x === null ? 1 : -1;
  return x < y ? -1 : x > y ? 1 : 0;
}

export interface BulkRequest {
  /** Existing `native` stations, with their stored charge point groups. */
  stations: StationContext[];
  tariffIds: readonly string[];
  /** Set A: the vehicle and battery range; null with `energy` (Set B, D196). */
  vehicle: VehiclePricing | null;
  batteryRange: [number, number];
  /** Set B: this energy (kWh) over this duration (min) at every charge point, no vehicle. */
  energy?: { energy: number; duration: number } | null;
  currency: string;
  startTime: number;
  /** ISO weekday (1–7) of the start date, 0 = not given (D148). */
  startDay?: number;
  allowUnbalancedLoad: boolean;
  includeDirectPayment: boolean;
  /** Null = no limit. */
  chargePointsPowerLte: number | null;
}

export interface BulkPreview {
  /** Index into `BulkRequest.stations`. */
  station: number;
  price: number;
  energy: number;
  duration: number;
  tariffId: string;
  /** Index into the station's charge points. */
  chargePoint: number;
}

/** Reusable buffers for bulk previews. */
export class BulkScratch {
  readonly plan = new PlanScratch();
  readonly results = new PriceResults(8);
  listedMark = new Uint8Array(0);
  /** Per station: context, next station of the same context, usable charge points [start, end) into cpIndex/cpKind. */
  stationCtx = new Int32Array(0);
  stationNext = new Int32Array(0);
  stationCpStart = new Int32Array(0);
  stationCpEnd = new Int32Array(0);
  /** Per station: the cheapest pair (slot −1 = none) as price, tariff slot and charge point position. */
  stationPrice = new Float64Array(0);
  stationSlot = new Int32Array(0);
  stationCp = new Int32Array(0);
  cpIndex = new Int32Array(0);
  cpKind = new Int32Array(0);
  /** Per charge point kind: the charge point power. */
  kindPower = new Float64Array(8);
  /** Per kind of the current context: used, cheapest price and its slot (shared and per station). */
  used = new Uint8Array(0);
  kindBestPrice = new Float64Array(0);
  kindBestSlot = new Int32Array(0);
  ownBestPrice = new Float64Array(0);
  ownBestSlot = new Int32Array(0);
  ctxKinds = new Int32Array(0);
  /** Candidate slots of the current context, and their prices: entry t × kinds + kind. */
  ctxSlots = new Int32Array(0);
  table = new Float64Array(0);
  /**
   * Prices per cached plan and kind, entry row × kinds + kind (row: `PlanScratch.memoRow`), and
   * whether each is computed: contexts that share a plan of a tariff share its prices.
   */
  memoPrice = new Float64Array(0);
  memoDone = new Uint8Array(0);

  /** Room for `rows` memo rows of `kinds` kinds, keeping the rows so far. */
  ensureMemo(rows: number, kinds: number): void {
    const n = rows * kinds;
    if (this.memoPrice.length >= n) return;
    const cap = Math.max(n, 2 * this.memoPrice.length, 1024);
    const price = new Float64Array(cap);
    price.set(this.memoPrice);
    const done = new Uint8Array(cap);
    done.set(this.memoDone);
    this.memoPrice = price;
    this.memoDone = done;
  }

  /** Sizes the buffers for `stations` stations with `cps` charge points in total. */
  ensureStations(stations: number, cps: number): void {
    if (this.stationCtx.length < stations) {
      this.stationCtx = new Int32Array(stations);
      this.stationNext = new Int32Array(stations);
      this.stationCpStart = new Int32Array(stations);
      this.stationCpEnd = new Int32Array(stations);
      this.stationPrice = new Float64Array(stations);
      this.stationSlot = new Int32Array(stations);
      this.stationCp = new Int32Array(stations);
    }
    if (this.cpIndex.length < cps) {
      this.cpIndex = new Int32Array(cps);
      this.cpKind = new Int32Array(cps);
    }
  }

  /** Sizes the per-context buffers for `kinds` charge point kinds and `slots` candidate tariffs. */
  ensureContext(kinds: number, slots: number): void {
    if (this.used.length < kinds) {
      this.used = new Uint8Array(kinds);
      this.kindBestPrice = new Float64Array(kinds);
      this.kindBestSlot = new Int32Array(kinds);
      this.ownBestPrice = new Float64Array(kinds);
      this.ownBestSlot = new Int32Array(kinds);
      this.ctxKinds = new Int32Array(kinds);
    }
    if (this.ctxSlots.length < slots) this.ctxSlots = new Int32Array(slots);
    if (this.table.length < slots * kinds) this.table = new Float64Array(Math.max(slots * kinds, 2 * this.table.length));
  }
}

/** Stamps bulk computations for the per-plan price memo (`PlanScratch.memoStamp`). */
let bulkStamp = 0;

/**
 * D91: the cheapest (charge point, tariff) pair per station; unpriced stations are left out.
 *
 * A plan depends on the station through its CPO and country, and through its station-level
 * (EVSE) components, which only the tariffs that have some at that station see. A price depends
 * in addition on the charge point's energy type, power and session. So stations are grouped into
 * contexts (same CPO and country) and charge points into kinds (same energy type, plug and
 * power): every candidate tariff is planned once per context and evaluated once per (context,
 * kind); only the tariffs with station-level components at a station are planned and evaluated
 * again for that station. Contexts that get the same cached plan of a tariff (plans depend on
 * the CPO only through its sub tariff and the station-wide restriction criteria, see
 * `planTariff`) share its prices per kind, so a tariff is evaluated once per distinct plan.
 * The cheapest pair of a station is the lexicographic minimum, over its charge points, of
 * (price, duration, charge point index, tariff ID), which equals taking, per kind, the cheapest
 * tariff (ties: smaller ID) first.
 */
export function bulkPreview(
  catalog: PricingCatalog,
  req: BulkRequest,
  rates: RateTable,
  scratch: BulkScratch = new BulkScratch(),
): BulkPreview[] {
  const conversion = buildConversion(catalog.currencies, rates, req.currency);
  const vehicle = req.vehicle;
  const fixed = req.energy ?? null;
  if (vehicle === null && fixed === null) throw new Error('a bulk request needs a vehicle or an energy and duration');
  const sessionOpts = { carAcPhases: vehicle?.ac_phases ?? 3, allowUnbalancedLoad: req.allowUnbalancedLoad };
  let mark = scratch.listedMark;
  if (mark.length < catalog.slotCount) mark = scratch.listedMark = new Uint8Array(catalog.slotCount);
  mark.fill(0);
  for (const id of req.tariffIds) {
    const b = catalog.blockById(id);
    if (b) mark[b.slot] = 1;
  }

  // Charge point kinds: energy type → plug → power → kind.
  const kindOf = { ac: new Map<string, Map<number, number>>(), dc: new Map<string, Map<number, number>>() };
  const kindEnergy: number[] = [];
  let kindPower = scratch.kindPower;
  const kindSession: (ChargeSession | null)[] = [];
  // Contexts: CPO → country → context; each with its first station (a list through stationNext).
  const ctxOf = new Map<string, Map<string, number>>();
  const ctxCpo: string[] = [];
  const ctxCountry: string[] = [];
  const ctxFirst: number[] = [];
  const ctxLast: number[] = [];

  const stations = req.stations;
  let totalCps = 0;
  for (const station of stations) totalCps += station.charge_points.length;
  scratch.ensureStations(stations.length, totalCps);
  const { stationCtx, stationNext, stationCpStart, stationCpEnd, stationPrice, stationSlot, stationCp, cpIndex, cpKind } = scratch;
  let ncp = 0;
  for (let si = 0; si < stations.length; si++) {
    const station = stations[si];
    stationCpStart[si] = ncp;
    stationSlot[si] = -1;
    stationNext[si] = -1;
    const points = station.charge_points;
    for (let index = 0; index < points.length; index++) {
      const cp = points[index];
      if (req.chargePointsPowerLte !== null && cp.power > req.chargePointsPowerLte) continue;
      const energyType = resolveEnergyType(cp);
      const byPlug = kindOf[energyType];
      let byPower = byPlug.get(cp.plug);
      if (byPower === undefined) byPlug.set(cp.plug, (byPower = new Map<number, number>()));
      let kind = byPower.get(cp.power);
      if (kind === undefined) {
        kind = kindSession.length;
        byPower.set(cp.power, kind);
        kindEnergy.push(energyType === 'dc' ? ENERGY_DC : ENERGY_AC);
        if (kind === kindPower.length) {
          const grown = new Float64Array(2 * kind + 8);
          grown.set(kindPower);
          kindPower = scratch.kindPower = grown;
        }
        kindPower[kind] = cp.power;
        if (fixed !== null) kindSession.push(sessionForEnergy(fixed.energy, fixed.duration));
        else {
          kindSession.push(
            isChargePointUsable(vehicle!, energyType, cp.plug)
              ? boundedSession(sessionForVehicle(vehicle!, energyType, cp.power, req.batteryRange, sessionOpts))
              : null,
          );
        }
      }
      if (kindSession[kind] === null) continue;
      cpIndex[ncp] = index;
      cpKind[ncp] = kind;
      ncp++;
    }
    stationCpEnd[si] = ncp;
    if (ncp === stationCpStart[si]) {
      stationCtx[si] = -1;
      continue;
    }
    let byCountry = ctxOf.get(station.cpo_id);
    if (byCountry === undefined) ctxOf.set(station.cpo_id, (byCountry = new Map<string, number>()));
    const country = station.country.toUpperCase();
    let ctx = byCountry.get(country);
    if (ctx === undefined) {
      ctx = ctxCpo.length;
      byCountry.set(country, ctx);
      ctxCpo.push(station.cpo_id);
      ctxCountry.push(country);
      ctxFirst.push(si);
    } else stationNext[ctxLast[ctx]] = si;
    ctxLast[ctx] = si;
    stationCtx[si] = ctx;
  }

  const nk = kindSession.length;
  const defaults = {
    currency: req.currency,
    provider_customer_tariffs: false,
    foreign_tariffs: true,
    show_all_brand_restricted_tariffs: false,
    max_monthly_fees: null,
  };
  const res = scratch.results;
  res.ensure(nk);
  const plan = scratch.plan;
  const startTime = req.startTime;
  const startDay = req.startDay ?? 0;
  const stamp = ++bulkStamp;
  let rows = 0;
  for (let ctx = 0; ctx < ctxCpo.length; ctx++) {
    const cpoId = ctxCpo[ctx];
    const usable = catalog.candidatesAt(cpoId);
    scratch.ensureContext(nk, usable.slots.length);
    const { used, kindBestPrice, kindBestSlot, ownBestPrice, ownBestSlot, ctxKinds, ctxSlots, table } = scratch;
    used.fill(0, 0, nk);
    let hasEvse = false;
    for (let si = ctxFirst[ctx]; si >= 0; si = stationNext[si]) {
      for (let q = stationCpStart[si]; q < stationCpEnd[si]; q++) used[cpKind[q]] = 1;
      const id = stations[si].id;
      if (id !== null && catalog.hasStationPrices(id)) hasEvse = true;
    }
    let nck = 0;
    for (let k = 0; k < nk; k++) {
      kindBestSlot[k] = -1;
      if (used[k] === 1) ctxKinds[nck++] = k;
    }
    const st = resolveStation(catalog, cpoId, ctxCountry[ctx], null, false);
    const query: CandidateQuery = {
      cpoId,
      country: ctxCountry[ctx],
      options: defaults,
      vehicleBrandId: vehicle?.brand_id ?? null,
      hasVehicle: vehicle !== null,
      listed: null,
      include: 'filter',
    };
    let nt = 0;
    for (let u = 0; u < usable.slots.length; u++) {
      const slot = usable.slots[u];
      const b = catalog.block(slot)!;
      if (mark[slot] !== 1 && !(req.includeDirectPayment && b.isDirectPayment && passesFilters(b, query, st.countryIndex, rates))) continue;
      const t = nt++;
      ctxSlots[t] = slot;
      const p = planTariff(catalog, b, st, plan);
      // A cached plan (shared by the contexts with the same plan key) is priced once per kind.
      let row = -1;
      if (p !== plan) {
        if (p.memoStamp !== stamp) {
          p.memoStamp = stamp;
          p.memoRow = rows++;
          scratch.ensureMemo(rows, nk);
          scratch.memoDone.fill(0, p.memoRow * nk, rows * nk);
        }
        row = p.memoRow * nk;
      }
      const { memoPrice, memoDone } = scratch;
      for (let x = 0; x < nck; x++) {
        const kind = ctxKinds[x];
        let price: number;
        if (row >= 0 && memoDone[row + kind] === 1) price = memoPrice[row + kind];
        else {
          price = evaluateAt(b, p, kindSession[kind]!, kindEnergy[kind], kindPower, kind, startTime, startDay, conversion, res, x) ? res.price[x] : NaN;
          if (row >= 0) {
            memoPrice[row + kind] = price;
            memoDone[row + kind] = 1;
          }
        }
        if (hasEvse) table[t * nk + kind] = price;
        if (Number.isNaN(price)) continue;
        const prev = kindBestSlot[kind];
        if (prev < 0 || price < kindBestPrice[kind] || (price === kindBestPrice[kind] && b.id < catalog.block(prev)!.id)) {
          kindBestPrice[kind] = price;
          kindBestSlot[kind] = slot;
        }
      }
    }

    for (let si = ctxFirst[ctx]; si >= 0; si = stationNext[si]) {
      const stationId = stations[si].id;
      let bestPrice = kindBestPrice;
      let bestSlot = kindBestSlot;
      if (hasEvse && stationId !== null && catalog.hasStationPrices(stationId)) {
        // This station's own cheapest tariff per kind: the shared prices, except for the tariffs
        // with station-level components here, which are planned and priced for the station.
        bestPrice = ownBestPrice;
        bestSlot = ownBestSlot;
        for (let q = stationCpStart[si]; q < stationCpEnd[si]; q++) bestSlot[cpKind[q]] = -1;
        const own = resolveStation(catalog, cpoId, ctxCountry[ctx], stationId, false);
        for (let t = 0; t < nt; t++) {
          const slot = ctxSlots[t];
          const b = catalog.block(slot)!;
          const planned = b.evseRange.size > 0 && b.evseRange.has(stationId);
          const p = planned ? planTariff(catalog, b, own, plan) : plan;
          for (let q = stationCpStart[si]; q < stationCpEnd[si]; q++) {
            const kind = cpKind[q];
            let price = table[t * nk + kind];
            if (planned) price = evaluateAt(b, p, kindSession[kind]!, kindEnergy[kind], kindPower, kind, startTime, startDay, conversion, res, 0) ? res.price[0] : NaN;
            if (Number.isNaN(price)) continue;
            const prev = bestSlot[kind];
            if (prev < 0 || price < bestPrice[kind] || (price === bestPrice[kind] && b.id < catalog.block(prev)!.id)) {
              bestPrice[kind] = price;
              bestSlot[kind] = slot;
            }
          }
        }
      }
      let bestP = Infinity;
      let bestDuration = Infinity;
      let bestCp = -1;
      let bestTariff = '';
      for (let q = stationCpStart[si]; q < stationCpEnd[si]; q++) {
        const kind = cpKind[q];
        const slot = bestSlot[kind];
        if (slot < 0) continue;
        const price = bestPrice[kind];
        const duration = kindSession[kind]!.duration;
        const index = cpIndex[q];
        const id = catalog.block(slot)!.id;
        if (
          price < bestP ||
          (price === bestP && (duration < bestDuration || (duration === bestDuration && (index < bestCp || (index === bestCp && id < bestTariff)))))
        ) {
          bestP = price;
          bestDuration = duration;
          bestCp = index;
          bestTariff = id;
          stationPrice[si] = price;
          stationSlot[si] = slot;
          stationCp[si] = q;
        }
      }
    }
  }

  const out: BulkPreview[] = [];
  for (let si = 0; si < stations.length; si++) {
    const slot = stationSlot[si];
    if (stationCtx[si] < 0 || slot < 0) continue;
    const q = stationCp[si];
    const session = kindSession[cpKind[q]]!;
    out.push({
      station: si,
      price: stationPrice[si],
      energy: session.energy,
      duration: session.duration,
      tariffId: catalog.block(slot)!.id,
      chargePoint: cpIndex[q],
    });
  }
  return out;
}
