/**
 * The stop cost table of a trip plan (D268): for every candidate station and every pair of
 * charge levels (from < to), the cheapest choice of charge point group and candidate tariff, priced
 * exactly as charge prices price the vehicle with `battery_range` [from, to] at that station (the
 * session of D75–D77 per charge point group, the compiled evaluator per tariff). A stop costs
 * price + time value × charging hours.
 *
 * As the bulk calculation (D91) does, a tariff's cached plan is shared by every station of its plan
 * key, so its price per (charge point group, level pair) is evaluated once per distinct plan.
 */
import {
  boundedSession,
  buildConversion,
  ENERGY_AC,
  ENERGY_DC,
  evaluateAt,
  isChargePointUsable,
  passesFilters,
  planTariff,
  PlanScratch,
  PriceResults,
  resolveEnergyType,
  resolveStation,
  sessionForVehicle,
  type ChargeSession,
  type CompiledTariff,
  type PricingCatalog,
  type RateTable,
  type StationContext,
  type VehiclePricing,
} from '../pricing/index.js';
import { gridOf, pairIndex } from './search.js';

export interface TripPricing {
  stations: readonly StationContext[];
  vehicle: VehiclePricing;
  /** Listed tariff ids, or null: the direct-payment tariffs passing D67's default filters. */
  tariffIds: readonly string[] | null;
  includeDirectPayment: boolean;
  currency: string;
  startTime: number;
  startDay: number;
  allowUnbalancedLoad: boolean;
  timeValue: number;
  minSoc: number;
  maxSoc: number;
  step: number;
}

/** The cheapest choice at a stop. */
export interface StopChoice {
  price: number;
  cost: number;
  energy: number;
  duration: number;
  /** Index into the station's charge points. */
  chargePoint: number;
  tariffId: string;
}

/** A charge point group: energy type, plug and power, with its session per level pair (null: unusable). */
interface Kind {
  energy: number;
  sessions: (ChargeSession | null)[];
}

export class TripCosts {
  readonly grid: ReturnType<typeof gridOf>;
  /** Cost per station and level pair (`pairIndex` order); Infinity = no price. */
  readonly cost: Float64Array;
  /** Price evaluations done. */
  evaluations = 0;
  private readonly kinds: Kind[] = [];
  private readonly kindOf = new Map<string, number>();
  private readonly powers: Float64Array;
  private readonly conversion: ReturnType<typeof buildConversion>;
  private readonly plan = new PlanScratch();
  private readonly res = new PriceResults(8);
  private readonly mark: Uint8Array;
  /** Prices per cached plan: plan → kind → pair (NaN = none), filled when first asked. */
  private readonly memo = new Map<PlanScratch, (Float64Array | undefined)[]>();

  constructor(private readonly catalog: PricingCatalog, private readonly rates: RateTable, private readonly t: TripPricing) {
    this.grid = gridOf(t.minSoc, t.maxSoc, t.step);
    this.conversion = buildConversion(catalog.currencies, rates, t.currency);
    this.mark = new Uint8Array(catalog.slotCount);
    for (const id of t.tariffIds ?? []) {
      const b = catalog.blockById(id);
      if (b) this.mark[b.slot] = 1;
    }
    const powers: number[] = [];
    for (const s of t.stations) for (const cp of s.charge_points) this.kindIndex(cp.plug, cp.power, resolveEnergyType(cp), powers);
    this.powers = Float64Array.from(powers);
    const { pairs } = this.grid;
    this.cost = new Float64Array(t.stations.length * pairs).fill(Infinity);
    for (let k = 0; k < t.stations.length; k++) this.fillStation(k);
  }

  private kindIndex(plug: string, power: number, energyType: 'ac' | 'dc', powers: number[]): number {
    const key = `${energyType}\u0000${plug}\u0000${power}`;
    let kind = this.kindOf.get(key);
    if (kind !== undefined) return kind;
    kind = this.kinds.length;
    this.kindOf.set(key, kind);
    powers.push(power);
    const { lo, levels, pairs } = this.grid;
    const sessions: (ChargeSession | null)[] = new Array<ChargeSession | null>(pairs).fill(null);
    const v = this.t.vehicle;
    if (isChargePointUsable(v, energyType, plug)) {
      const opts = { carAcPhases: v.ac_phases, allowUnbalancedLoad: this.t.allowUnbalancedLoad };
      for (let a = 0; a < levels; a++) {
        for (let e = a + 1; e < levels; e++) {
          sessions[pairIndex(a, e, levels)] = boundedSession(sessionForVehicle(v, energyType, power, [(a + lo) * this.t.step, (e + lo) * this.t.step], opts));
        }
      }
    }
    this.kinds.push({ energy: energyType === 'dc' ? ENERGY_DC : ENERGY_AC, sessions });
    return kind;
  }

  /** The candidate tariffs at a station (D267): listed ones, and direct-payment ones when asked for. */
  private candidates(s: StationContext, countryIndex: number): CompiledTariff[] {
    const usable = this.catalog.candidatesAt(s.cpo_id);
    const t = this.t;
    const directToo = t.tariffIds === null || t.includeDirectPayment;
    const query = {
      cpoId: s.cpo_id,
      country: s.country,
      options: { currency: t.currency, provider_customer_tariffs: false, foreign_tariffs: true, show_all_brand_restricted_tariffs: false, max_monthly_fees: null },
      vehicleBrandId: t.vehicle.brand_id,
      hasVehicle: true,
      listed: null,
      include: 'filter' as const,
    };
    const out: CompiledTariff[] = [];
    for (const slot of usable.slots) {
      const b = this.catalog.block(slot)!;
      if (this.mark[slot] === 1 || (directToo && b.isDirectPayment && passesFilters(b, query, countryIndex, this.rates))) out.push(b);
    }
    return out;
  }

  /** Prices of tariff `b` under plan `p` for one charge point group, every level pair (NaN = none). */
  private prices(b: CompiledTariff, p: PlanScratch, kind: number, cached: boolean): Float64Array {
    let row = cached ? this.memo.get(p) : undefined;
    const hit = row?.[kind];
    if (hit !== undefined) return hit;
    const k = this.kinds[kind];
    const out = new Float64Array(this.grid.pairs);
    const t = this.t;
    for (let x = 0; x < out.length; x++) {
      const s = k.sessions[x];
      if (s === null) {
        out[x] = NaN;
        continue;
      }
      this.evaluations++;
      out[x] = evaluateAt(b, p, s, k.energy, this.powers, kind, t.startTime, t.startDay, this.conversion, this.res, 0) ? this.res.price[0] : NaN;
    }
    if (cached) {
      if (row === undefined) this.memo.set(p, (row = []));
      row[kind] = out;
    }
    return out;
  }

  /** Visits every (charge point, tariff, level pair) price of station k. */
  private each(k: number, visit: (cp: number, b: CompiledTariff, prices: Float64Array, sessions: (ChargeSession | null)[]) => void): void {
    const s = this.t.stations[k];
    const id = s.id !== null && this.catalog.hasStationPrices(s.id) ? s.id : null;
    const st = resolveStation(this.catalog, s.cpo_id, s.country, id, false);
    const kinds = s.charge_points.map((cp) => this.kindOf.get(`${resolveEnergyType(cp)}\u0000${cp.plug}\u0000${cp.power}`)!);
    for (const b of this.candidates(s, st.countryIndex)) {
      const p = planTariff(this.catalog, b, st, this.plan);
      for (let cp = 0; cp < kinds.length; cp++) visit(cp, b, this.prices(b, p, kinds[cp], p !== this.plan), this.kinds[kinds[cp]].sessions);
    }
  }

  private fillStation(k: number): void {
    const { pairs } = this.grid;
    const row = k * pairs;
    const tv = this.t.timeValue / 60;
    this.each(k, (_cp, _b, prices, sessions) => {
      for (let x = 0; x < pairs; x++) {
        const price = prices[x];
        if (Number.isNaN(price)) continue;
        const c = price + tv * sessions[x]!.duration;
        if (c < this.cost[row + x]) this.cost[row + x] = c;
      }
    });
  }

  /** The cheapest choice at station k charging from level offset a to e (ties as D91: price, duration, charge point, tariff id). */
  choice(k: number, a: number, e: number): StopChoice | null {
    const x = pairIndex(a, e, this.grid.levels);
    const tv = this.t.timeValue / 60;
    let best: StopChoice | null = null;
    this.each(k, (cp, b, prices, sessions) => {
      const price = prices[x];
      if (Number.isNaN(price)) return;
      const s = sessions[x]!;
      const c: StopChoice = { price, cost: price + tv * s.duration, energy: s.energy, duration: s.duration, chargePoint: cp, tariffId: b.id };
      if (best === null || better(c, best)) best = c;
    });
    return best;
  }
}

function better(x: StopChoice, y: StopChoice): boolean {
  if (x.cost !== y.cost) return x.cost < y.cost;
  if (x.price !== y.price) return x.price < y.price;
  if (x.duration !== y.duration) return x.duration < y.duration;
  if (x.chargePoint !== y.chargePoint) return x.chargePoint < y.chargePoint;
  return x.tariffId < y.tariffId;
}
