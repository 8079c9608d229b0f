/**
 * The tariff catalog: raw tariff, company and station-price records plus, per user-facing
 * tariff, one compiled block of flat typed arrays. A block holds the tariff's own components,
 * those of its sub tariffs (grouped per sub tariff) and its station-level (EVSE) components
 * (grouped per station), so evaluating a tariff at a station touches only the components that
 * can apply there.
 *
 * Writes are incremental: `upsertTariff` recompiles the tariff's block (or, for a sub tariff, the
 * blocks of its super tariffs) and reuses freed slots; companies are not compiled into blocks,
 * so `upsertCompany` only drops the cached candidate lists.
 */
import type {
  CompanyInput,
  Dimension,
  EnergyType,
  NoPricePolicy,
  NoPriceReason,
  PriceComponent,
  StationPrices,
  TariffInput,
} from './model.js';
import { totalMonthlyFee } from '../tariffs/model.js';
import { Interner } from '../interner.js';

export const DIM_SESSION = 0;
export const DIM_KWH = 1;
export const DIM_MINUTE = 2;
export const DIM_PARKING = 3;
export const DIMENSIONS: readonly Dimension[] = ['session', 'kwh', 'minute', 'parking_minute'];

export const ENERGY_ANY = 0;
export const ENERGY_AC = 1;
export const ENERGY_DC = 2;

/**
 * Packed per-segment record of `CompiledTariff.evalData`: SEG_STRIDE doubles per segment, so that
 * the evaluator reads one segment from one place instead of from nine arrays.
 */
export const SEG_STRIDE = 8;
export const SEG_PRICE = 0;
export const SEG_GTE = 1;
export const SEG_LT = 2;
export const SEG_INC = 3;
export const SEG_WIN_START = 4;
export const SEG_WIN_END = 5;
export const SEG_CUR = 6;
export const SEG_DIM = 7;

/**
 * Packed per-restriction record of `CompiledTariff.evalData` (charge point criteria only; the
 * station-wide ones are checked while planning): R_STRIDE doubles per restriction.
 */
export const R_STRIDE = 6;
export const R_ALLOW = 0;
export const R_ENERGY = 1;
export const R_POW_COUNT = 2;
/** Offset of the restriction's first power in `evalData`. */
export const R_POW_START = 3;
export const R_POW_RANGE = 4;
export const R_CONSUMED = 5;

/** Segment flags. */
export const SEG_AVERAGE = 1;
export const SEG_OCCUPANCY = 2;
/** `range_gte` is null or 0 (D88). */
export const SEG_STARTS_AT_ZERO = 4;

/** Policy and reason codes as stored in typed arrays; 0 = inherit. */
export const POLICIES: readonly NoPricePolicy[] = ['inherit', 'hide', 'show_reason'];
export const REASONS: readonly (NoPriceReason | 'inherit')[] = [
  'inherit',
  'not_yet_listed',
  'prices_per_station',
  'not_public',
  'no_reliable_data_available',
];

export function dimensionCode(d: Dimension): number {
  return d === 'session' ? DIM_SESSION : d === 'kwh' ? DIM_KWH : d === 'minute' ? DIM_MINUTE : DIM_PARKING;
}

/**
 * Time window on the unrolled line: [winStart, winEnd) with winEnd > winStart, winEnd ≤ winStart + 1440;
 * winStart = −1 means "always" (no window, or start = end = the whole day, D80).
 */
export function unrollWindow(start: number | null | undefined, end: number | null | undefined): [number, number] {
  if (start == null || end == null || start === end || (start === 0 && end === 1440)) return [-1, -1];
  return [start, end > start ? end : end + 1440];
}

/** One user-facing tariff compiled into flat arrays. */
export interface CompiledTariff {
  slot: number;
  id: string;
  tariff: TariffInput;
  empIndex: number;
  currencyIndex: number;
  isFlatRate: boolean;
  isDirectPayment: boolean;
  providerCustomerOnly: boolean;
  applyPricesToSubTariff: boolean;
  vehicleBrandIds: readonly string[];
  /** Country indices of `supported_countries`; empty = everywhere. */
  supportedCountries: Int32Array;
  totalMonthlyFee: number;
  monthlyMinSales: number;
  policy: number;
  reason: number;

  /** Own components are [0, ownEnd). */
  ownEnd: number;
  /** Sub tariffs: component range, CPO index (−1 = null cpo), empty flag, policy, reason. */
  subIds: string[];
  subStart: Int32Array;
  subEnd: Int32Array;
  subCpo: Int32Array;
  subEmpty: Uint8Array;
  subPolicy: Uint8Array;
  subReason: Uint8Array;
  /** CPO company index → sub tariff index (the first one when several name the same CPO). */
  subByCpo: Map<number, number>;
  /** Indices of the sub tariffs with a null CPO (they count at country level). */
  countrySubs: Int32Array;
  /** Station ID → [start, end) of its EVSE components. */
  evseRange: Map<string, [number, number]>;

  /** Per component: restriction range, segment range, and whether an allow restriction lists CPOs. */
  compRStart: Int32Array;
  compREnd: Int32Array;
  compSStart: Int32Array;
  compSEnd: Int32Array;
  compListsCpo: Uint8Array;
  /** Per component: 1 when a restriction lists countries or CPOs (station-wide criteria, D68). */
  compStationCriteria: Uint8Array;
  /** Per component: 1 when a restriction has an energy type or powers (charge point criteria, D68). */
  compChargePointCriteria: Uint8Array;

  /** Per restriction. */
  rAllow: Uint8Array;
  rCpoStart: Int32Array;
  rCpoCount: Int32Array;
  rCountryStart: Int32Array;
  rCountryCount: Int32Array;
  idPool: Int32Array;

  /** D147: every dimension priced by its first matching segment, increments on the totals. */
  firstMatch: boolean;
  /** D149: session price bounds (first_match tariffs) in the tariff's currency; NaN = none. */
  minPrice: number;
  maxPrice: number;

  /** Per segment. */
  sDim: Uint8Array;
  sFlags: Uint8Array;
  /** D148: bit d set = applies on ISO day d (1–7); 0 = every day. */
  sDays: Uint8Array;
  /**
   * What an evaluation reads, packed into one array: the segments (SEG_STRIDE doubles each,
   * SEG_PRICE … SEG_DIM) from 0, the restrictions (R_STRIDE doubles each) from `rBase`, then the
   * powers they list. A segment's price, range, increment, window and currency, and a
   * restriction's energy type and powers, are kept here only (the planner and the evaluator read
   * them from here); the per-segment and per-restriction arrays above hold what listings and
   * candidate selection read.
   */
  evalData: Float64Array;
  rBase: number;
  /** Source records of each component and segment, for listings (tariff details). */
  compSource: PriceComponent[];
  compOwner: TariffInput[];
  /**
   * Plans made for this block, by plan key (see `planTariff` in evaluate.ts). A plan is a
   * function of the block and its key alone, so the cache lives and dies with the block.
   */
  plans: Map<number, unknown>;
}

export interface CpoCandidates {
  /** Slots of the `tariff` records whose EMP is usable at the CPO (D66). */
  slots: Int32Array;
  /** 1 when the EMP is a roaming partner, 0 when it is the CPO or its group. */
  roaming: Uint8Array;
}

/** Usability of an EMP at a CPO (D66). */
export type Usability = 'direct' | 'roaming' | 'none';

/**
 * Typed arrays of one block carved out of one ArrayBuffer (doubles first, then 32-bit, then
 * bytes, so every view is aligned): the data an evaluation touches lies close together.
 */
class Arena {
  private readonly buffer: ArrayBuffer;
  private offset = 0;
  constructor(f64: number, i32: number, u8: number) {
    this.buffer = new ArrayBuffer(8 * f64 + 4 * i32 + u8);
  }
  f64(n: number): Float64Array {
    const a = new Float64Array(this.buffer, this.offset, n);
    this.offset += 8 * n;
    return a;
  }
  i32(n: number): Int32Array {
    const a = new Int32Array(this.buffer, this.offset, n);
    this.offset += 4 * n;
    return a;
  }
  u8(n: number): Uint8Array {
    const a = new Uint8Array(this.buffer, this.offset, n);
    this.offset += n;
    return a;
  }
}

function policyCode(p: string | null | undefined): number {
  const i = POLICIES.indexOf((p ?? 'inherit') as NoPricePolicy);
  return i < 0 ? 0 : i;
}

function reasonCode(r: string | null | undefined): number {
  const i = REASONS.indexOf((r ?? 'inherit') as NoPriceReason);
  return i < 0 ? 0 : i;
}

export class PricingCatalog {
  readonly companies = new Map<string, CompanyInput>();
  readonly tariffs = new Map<string, TariffInput>();
  private readonly stationPrices = new Map<string, Map<string, PriceComponent[]>>();
  /** Station ID → number of tariffs with station-level (EVSE) components there. */
  private readonly evseStationRefs = new Map<string, number>();
  private readonly subsOf = new Map<string, Set<string>>();

  private readonly companyIds = new Interner();
  private readonly countryCodes = new Interner();
  private readonly currencyCodes = new Interner();

  private readonly blocks: (CompiledTariff | null)[] = [];
  private readonly slotById = new Map<string, number>();
  private readonly freeSlots: number[] = [];
  private readonly empTariffs = new Map<string, Set<number>>();
  private readonly candidateCache = new Map<string, CpoCandidates>();
  /** How many times each company id is named by companies (supported EMPs, CPO and EMP groups). */
  private readonly references = new Map<string, number>();

  /** Bumped by every write; a consumer can compare it to detect staleness. */
  generation = 0;

  get currencies(): readonly string[] {
    return this.currencyCodes.values;
  }

  companyIndex(id: string): number {
    return this.companyIds.of(id);
  }

  countryIndex(code: string): number {
    return this.countryCodes.of(code.toUpperCase());
  }

  block(slot: number): CompiledTariff | null {
    return this.blocks[slot] ?? null;
  }

  blockById(id: string): CompiledTariff | null {
    const slot = this.slotById.get(id);
    return slot === undefined ? null : this.blocks[slot];
  }

  /** One past the highest slot ever used. */
  get slotCount(): number {
    return this.blocks.length;
  }

  /** Slots in use, ascending. */
  slots(): number[] {
    const out: number[] = [];
    for (let i = 0; i < this.blocks.length; i++) if (this.blocks[i]) out.push(i);
    return out;
  }

  /** Sub tariffs whose super tariffs include `tariffId`, in ID order. */
  subTariffsOf(tariffId: string): TariffInput[] {
    const ids = [...(this.subsOf.get(tariffId) ?? [])].sort();
    const out: TariffInput[] = [];
    for (const id of ids) {
      const t = this.tariffs.get(id);
      if (t) out.push(t);
    }
    return out;
  }

  /**
   * Whether any tariff has station-level (EVSE) components at the station. When false, a plan
   * made for the station equals one made for any other station of the same CPO and country.
   */
  hasStationPrices(stationId: string): boolean {
    return this.evseStationRefs.has(stationId);
  }

  stationPricesOf(tariffId: string): ReadonlyMap<string, PriceComponent[]> {
    return this.stationPrices.get(tariffId) ?? new Map();
  }

  upsertCompany(c: CompanyInput): void {
    const previous = this.companies.get(c.id);
    const quiet = previous === undefined && !this.empTariffs.get(c.id)?.size && !((this.references.get(c.id) ?? 0) > 0);
    if (previous !== undefined) this.countReferences(previous, -1);
    this.countReferences(c, 1);
    this.companies.set(c.id, c);
    this.companyIds.of(c.id);
    // A new company with no tariffs that no company refers to changes no candidate list and no
    // rendered answer (only a list cached for its id while it did not exist): the caches stay.
    // A flood of such writes (new EMPs) otherwise rebuilt every CPO's candidates per write (D176).
    if (quiet) this.candidateCache.delete(c.id);
    else this.touch();
  }

  /** Counts the ids `c` names as supported EMPs and as its CPO and EMP group (`by` ±1). */
  private countReferences(c: CompanyInput, by: number): void {
    const add = (id: string | null | undefined): void => {
      if (id == null) return;
      const n = (this.references.get(id) ?? 0) + by;
      if (n === 0) this.references.delete(id);
      else this.references.set(id, n);
    };
    add(c.cpo_group_id);
    add(c.emp_group_id);
    for (const e of c.supported_emp_ids ?? []) add(e);
  }

  removeCompany(id: string): void {
    const previous = this.companies.get(id);
    if (previous !== undefined) this.countReferences(previous, -1);
    this.companies.delete(id);
    this.touch();
  }

  upsertTariff(t: TariffInput): void {
    const previous = this.tariffs.get(t.id);
    if (previous?.type === 'sub_tariff') this.unlinkSub(previous);
    this.tariffs.set(t.id, t);
    if (t.type === 'sub_tariff') {
      for (const sup of t.super_tariff_ids ?? []) {
        let set = this.subsOf.get(sup);
        if (!set) this.subsOf.set(sup, (set = new Set()));
        set.add(t.id);
      }
      const affected = new Set([...(t.super_tariff_ids ?? []), ...(previous?.super_tariff_ids ?? [])]);
      for (const sup of affected) this.recompile(sup);
    } else {
      if (previous && previous.emp_id !== t.emp_id) this.empTariffs.get(previous.emp_id)?.delete(this.slotById.get(t.id)!);
      this.recompile(t.id);
    }
    this.touch();
  }

  removeTariff(id: string): void {
    const t = this.tariffs.get(id);
    if (!t) return;
    this.tariffs.delete(id);
    if (t.type === 'sub_tariff') {
      this.unlinkSub(t);
      for (const sup of t.super_tariff_ids ?? []) this.recompile(sup);
    } else {
      const slot = this.slotById.get(id);
      if (slot !== undefined) {
        this.blocks[slot] = null;
        this.slotById.delete(id);
        this.freeSlots.push(slot);
        this.empTariffs.get(t.emp_id)?.delete(slot);
      }
    }
    this.touch();
  }

  /** Replaces the EVSE-level components of one tariff at one station; empty `prices` removes them. */
  upsertStationPrices(sp: StationPrices): void {
    const target = this.tariffs.get(sp.tariff_id);
    const owners = target?.type === 'sub_tariff' ? (target.super_tariff_ids ?? []) : [sp.tariff_id];
    for (const owner of owners) {
      let m = this.stationPrices.get(owner);
      if (!m) this.stationPrices.set(owner, (m = new Map<string, PriceComponent[]>()));
      const had = m.has(sp.station_id);
      if (sp.prices.length === 0) m.delete(sp.station_id);
      else m.set(sp.station_id, sp.prices);
      const has = m.has(sp.station_id);
      if (had !== has) {
        const refs = (this.evseStationRefs.get(sp.station_id) ?? 0) + (has ? 1 : -1);
        if (refs > 0) this.evseStationRefs.set(sp.station_id, refs);
        else this.evseStationRefs.delete(sp.station_id);
      }
      this.recompile(owner);
    }
    this.touch();
  }

  /** D66 for one EMP at one CPO. */
  usability(empId: string, cpoId: string): Usability {
    const cpo = this.companies.get(cpoId);
    if (!cpo || !this.companies.has(empId)) return 'none';
    const group = cpo.cpo_group_id ? this.companies.get(cpo.cpo_group_id) : undefined;
    if (empId === cpoId || (group && empId === group.id)) return 'direct';
    const empGroup = this.companies.get(empId)?.emp_group_id ?? null;
    const lists = [cpo.supported_emp_ids ?? [], group?.supported_emp_ids ?? []];
    for (const list of lists) {
      for (const e of list) if (e === empId || (empGroup !== null && e === empGroup)) return 'roaming';
    }
    return 'none';
  }

  /** D66: the `tariff` records usable at a CPO, cached until the next write. */
  candidatesAt(cpoId: string): CpoCandidates {
    const cached = this.candidateCache.get(cpoId);
    if (cached) return cached;
    const slots: number[] = [];
    const roaming: number[] = [];
    if (this.companies.has(cpoId)) {
      for (const [empId, set] of this.empTariffs) {
        if (set.size === 0) continue;
        const u = this.usability(empId, cpoId);
        if (u === 'none') continue;
        for (const slot of set) {
          slots.push(slot);
          roaming.push(u === 'roaming' ? 1 : 0);
        }
      }
    }
    const order = slots.map((_, i) => i).sort((a, b) => slots[a] - slots[b]);
    const result: CpoCandidates = {
      slots: Int32Array.from(order, (i) => slots[i]),
      roaming: Uint8Array.from(order, (i) => roaming[i]),
    };
    this.candidateCache.set(cpoId, result);
    return result;
  }

  /**
   * The sub tariff of a block for a CPO: `cpo` = C, else `cpo` = C's cpo_group (D65); −1 if none.
   * Takes catalog company indices (`companyIndex`; −1 for no group).
   */
  subFor(block: CompiledTariff, cpoIndex: number, groupIndex: number): number {
    const direct = block.subByCpo.get(cpoIndex);
    if (direct !== undefined) return direct;
    if (groupIndex < 0) return -1;
    return block.subByCpo.get(groupIndex) ?? -1;
  }

  /** A sub tariff without currency uses its first super tariff's (D56). */
  private currencyOf(t: TariffInput): string | null {
    if (t.currency) return t.currency;
    const first = t.super_tariff_ids?.[0];
    return first ? (this.tariffs.get(first)?.currency ?? null) : null;
  }

  private touch(): void {
    this.generation++;
    this.candidateCache.clear();
  }

  private unlinkSub(t: TariffInput): void {
    for (const sup of t.super_tariff_ids ?? []) this.subsOf.get(sup)?.delete(t.id);
  }

  /**
   * Runs `fn` with every recompile it causes deferred to its end, each tariff compiled once. Loading
   * a catalog, or a worker's catch-up after a station-price write (which reloads every station
   * price), would otherwise compile a tariff once per station-price row: 109 ms of a 1.1 s test
   * start on the default catalog, quadratic in the rows per tariff. Slots are given in the order
   * of the first recompile, as without the batch, so the blocks are the same.
   */
  batch<T>(fn: () => T): T {
    if (this.deferred) return fn();
    const deferred = (this.deferred = new Set<string>());
    try {
      return fn();
    } finally {
      this.deferred = null;
      for (const id of deferred) this.recompile(id);
    }
  }

  private deferred: Set<string> | null = null;

  private recompile(id: string): void {
    if (this.deferred) {
      this.deferred.add(id);
      return;
    }
    const t = this.tariffs.get(id);
    if (!t || t.type !== 'tariff') return;
    let slot = this.slotById.get(id);
    if (slot === undefined) {
      slot = this.freeSlots.length > 0 ? this.freeSlots.pop()! : this.blocks.length;
      this.slotById.set(id, slot);
    }
    this.blocks[slot] = this.compile(slot, t);
    let set = this.empTariffs.get(t.emp_id);
    if (!set) this.empTariffs.set(t.emp_id, (set = new Set()));
    set.add(slot);
  }

  private compile(slot: number, t: TariffInput): CompiledTariff {
    const subs = this.subTariffsOf(t.id);
    const evse = [...this.stationPricesOf(t.id)].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    const comps: PriceComponent[] = [];
    const owners: TariffInput[] = [];
    for (const c of t.prices) {
      comps.push(c);
      owners.push(t);
    }
    const ownEnd = comps.length;
    const n = subs.length;
    const subStart = new Int32Array(n);
    const subEnd = new Int32Array(n);
    const subCpo = new Int32Array(n);
    const subEmpty = new Uint8Array(n);
    const subPolicy = new Uint8Array(n);
    const subReason = new Uint8Array(n);
    const subByCpo = new Map<number, number>();
    subs.forEach((s, i) => {
      subStart[i] = comps.length;
      for (const c of s.prices) {
        comps.push(c);
        owners.push(s);
      }
      subEnd[i] = comps.length;
      subCpo[i] = s.cpo_id ? this.companyIds.of(s.cpo_id) : -1;
      subEmpty[i] = s.prices.length === 0 ? 1 : 0;
      subPolicy[i] = policyCode(s.no_price_policy);
      subReason[i] = reasonCode(s.no_price_reason);
      if (subCpo[i] >= 0 && !subByCpo.has(subCpo[i])) subByCpo.set(subCpo[i], i);
    });
    const evseRange = new Map<string, [number, number]>();
    for (const [stationId, prices] of evse) {
      const start = comps.length;
      for (const c of prices) {
        comps.push(c);
        owners.push(t);
      }
      evseRange.set(stationId, [start, comps.length]);
    }

    const nc = comps.length;
    let nr = 0;
    let ns = 0;
    let np = 0;
    let ni = 0;
    for (const c of comps) {
      nr += c.restrictions.length;
      ns += c.decomposition.length;
      for (const r of c.restrictions) {
        np += r.charge_point_powers?.length ?? 0;
        ni += (r.cpo_ids?.length ?? 0) + (r.countries?.length ?? 0);
      }
    }
    // Doubles: evalData (segments, restrictions, powers). 32-bit: 4 per component, 4 per
    // restriction, idPool. Bytes: 3 per component, 1 per restriction, sDim, sFlags, sDays.
    const arena = new Arena(ns * SEG_STRIDE + nr * R_STRIDE + np, 4 * nc + 4 * nr + ni, 3 * nc + nr + 3 * ns);
    const rBase = ns * SEG_STRIDE;
    const powBase = rBase + nr * R_STRIDE;
    const evalData = arena.f64(powBase + np);
    const compRStart = arena.i32(nc);
    const compREnd = arena.i32(nc);
    const compSStart = arena.i32(nc);
    const compSEnd = arena.i32(nc);
    const rCpoStart = arena.i32(nr);
    const rCpoCount = arena.i32(nr);
    const rCountryStart = arena.i32(nr);
    const rCountryCount = arena.i32(nr);
    const idPool = arena.i32(ni);
    const compChargePointCriteria = arena.u8(nc);
    const compStationCriteria = arena.u8(nc);
    const compListsCpo = arena.u8(nc);
    const rAllow = arena.u8(nr);
    const sDim = arena.u8(ns);
    const sFlags = arena.u8(ns);
    const sDays = arena.u8(ns);
    const b: CompiledTariff = {
      slot,
      id: t.id,
      tariff: t,
      empIndex: this.companyIds.of(t.emp_id),
      currencyIndex: this.currencyCodes.of(t.currency ?? 'EUR'),
      isFlatRate: t.is_flat_rate === true,
      isDirectPayment: t.is_direct_payment === true,
      providerCustomerOnly: t.provider_customer_only === true,
      applyPricesToSubTariff: t.apply_prices_to_sub_tariff === true,
      vehicleBrandIds: t.vehicle_brand_ids ?? [],
      supportedCountries: Int32Array.from(t.supported_countries ?? [], (c) => this.countryIndex(c)),
      totalMonthlyFee: totalMonthlyFee(t),
      monthlyMinSales: t.monthly_min_sales ?? 0,
      policy: policyCode(t.no_price_policy),
      reason: reasonCode(t.no_price_reason),
      ownEnd,
      subIds: subs.map((s) => s.id),
      subStart,
      subEnd,
      subCpo,
      subEmpty,
      subPolicy,
      subReason,
      subByCpo,
      countrySubs: Int32Array.from(subs.flatMap((sub, i) => (sub.cpo_id ? [] : [i]))),
      evseRange,
      compRStart,
      compREnd,
      compSStart,
      compSEnd,
      compListsCpo,
      compStationCriteria,
      compChargePointCriteria,
      rAllow,
      rCpoStart,
      rCpoCount,
      rCountryStart,
      rCountryCount,
      idPool,
      firstMatch: t.price_selection === 'first_match',
      minPrice: t.price_selection === 'first_match' && t.min_price != null ? t.min_price : NaN,
      maxPrice: t.price_selection === 'first_match' && t.max_price != null ? t.max_price : NaN,
      sDim,
      sFlags,
      sDays,
      evalData,
      rBase,
      compSource: comps,
      compOwner: owners,
      plans: new Map(),
    };
    let r = 0;
    let s = 0;
    let p = 0;
    let id = 0;
    for (let c = 0; c < nc; c++) {
      const comp = comps[c];
      const owner = owners[c];
      const ownerCurrency = this.currencyOf(owner) ?? t.currency ?? 'EUR';
      b.compRStart[c] = r;
      for (const rest of comp.restrictions) {
        b.rAllow[r] = rest.allowance === 'deny' ? 0 : 1;
        const energy = energyCode(rest.charge_point_energy_type);
        const powStart = p;
        for (const w of rest.charge_point_powers ?? []) b.evalData[powBase + p++] = w;
        const powCount = p - powStart;
        b.rCpoStart[r] = id;
        for (const cpo of rest.cpo_ids ?? []) b.idPool[id++] = this.companyIds.of(cpo);
        b.rCpoCount[r] = id - b.rCpoStart[r];
        b.rCountryStart[r] = id;
        for (const country of rest.countries ?? []) b.idPool[id++] = this.countryIndex(country);
        b.rCountryCount[r] = id - b.rCountryStart[r];
        if (b.rAllow[r] === 1 && b.rCpoCount[r] > 0) b.compListsCpo[c] = 1;
        if (b.rCpoCount[r] > 0 || b.rCountryCount[r] > 0) b.compStationCriteria[c] = 1;
        if (energy !== ENERGY_ANY || powCount > 0) b.compChargePointCriteria[c] = 1;
        const ro = rBase + r * R_STRIDE;
        b.evalData[ro + R_ALLOW] = b.rAllow[r];
        b.evalData[ro + R_ENERGY] = energy;
        b.evalData[ro + R_POW_COUNT] = powCount;
        b.evalData[ro + R_POW_START] = powBase + powStart;
        b.evalData[ro + R_POW_RANGE] = rest.charge_point_power_is_range ? 1 : 0;
        b.evalData[ro + R_CONSUMED] = rest.use_consumed_charging_power ? 1 : 0;
        r++;
      }
      b.compREnd[c] = r;
      b.compSStart[c] = s;
      for (const seg of comp.decomposition) {
        b.sDim[s] = dimensionCode(seg.dimension);
        const [ws, we] = unrollWindow(seg.time_of_day_start, seg.time_of_day_end);
        b.sFlags[s] =
          (seg.is_average_price ? SEG_AVERAGE : 0) |
          (seg.occupancy_gte != null || seg.occupancy_lt != null ? SEG_OCCUPANCY : 0) |
          (seg.range_gte == null || seg.range_gte === 0 ? SEG_STARTS_AT_ZERO : 0);
        const o = s * SEG_STRIDE;
        b.evalData[o + SEG_PRICE] = seg.price;
        b.evalData[o + SEG_GTE] = seg.range_gte ?? -Infinity;
        b.evalData[o + SEG_LT] = seg.range_lt ?? Infinity;
        b.evalData[o + SEG_INC] = seg.billing_increment != null && seg.billing_increment > 0 ? seg.billing_increment : 0;
        b.evalData[o + SEG_WIN_START] = ws;
        b.evalData[o + SEG_WIN_END] = we;
        b.evalData[o + SEG_CUR] = this.currencyCodes.of(seg.currency ?? ownerCurrency);
        b.evalData[o + SEG_DIM] = b.sDim[s];
        let days = 0;
        for (const d of seg.days_of_week ?? []) if (d >= 1 && d <= 7) days |= 1 << d;
        b.sDays[s] = days;
        s++;
      }
      b.compSEnd[c] = s;
    }
    return b;
  }
}

function energyCode(e: EnergyType | null | undefined): number {
  return e === 'ac' ? ENERGY_AC : e === 'dc' ? ENERGY_DC : ENERGY_ANY;
}
