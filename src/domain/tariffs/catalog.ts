/**
 * The in-memory tariff catalog: every stored tariff and sub tariff plus the EVSE-level station
 * prices, with the catalog generation of the last applied write. Loaded from the live store at
 * start; tariff writes call `upsert` / `remove` after their transaction commits, so a write
 * acknowledged to a client is visible to every later request. Listeners (the pricing side) get each
 * change with its generation.
 */
import type { StoredStationPrices, StoredTariff } from './model.js';

export type CatalogChange =
  | { kind: 'tariff'; op: 'upsert'; generation: number; tariff: StoredTariff }
  | { kind: 'tariff'; op: 'delete'; generation: number; id: string }
  | { kind: 'company'; op: 'upsert' | 'delete'; generation: number; id: string };

export type CatalogListener = (change: CatalogChange) => void;

const byIdAsc = (a: { id: string }, b: { id: string }): number => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

export class TariffCatalog {
  private readonly byId = new Map<string, StoredTariff>();
  /** tariff id → station id → prices. */
  private readonly stationPricesById = new Map<string, Map<string, StoredStationPrices>>();
  /** super tariff id → ids of sub tariffs that list it. */
  private readonly subsBySuper = new Map<string, Set<string>>();
  private sortedCache: StoredTariff[] | null = null;
  private byEmpCache: Map<string, StoredTariff[]> | null = null;
  private showUntilCache: Float64Array | null = null;
  private readonly listeners: CatalogListener[] = [];
  private gen: number;

  constructor(tariffs: Iterable<StoredTariff>, stationPrices: Iterable<StoredStationPrices>, generation: number) {
    for (const t of tariffs) this.put(t);
    for (const sp of stationPrices) {
      let m = this.stationPricesById.get(sp.tariff_id);
      if (m === undefined) this.stationPricesById.set(sp.tariff_id, (m = new Map<string, StoredStationPrices>()));
      m.set(sp.station_id, sp);
    }
    this.gen = generation;
  }

  /** Generation of the last write applied to this catalog. */
  get generation(): number {
    return this.gen;
  }

  get size(): number {
    return this.byId.size;
  }

  get(id: string): StoredTariff | undefined {
    return this.byId.get(id);
  }

  /** All records ordered by id (cached until the next write). */
  all(): readonly StoredTariff[] {
    return (this.sortedCache ??= [...this.byId.values()].sort(byIdAsc));
  }

  /**
   * The distinct `show_until` instants of every tag of every record, ascending (cached until the
   * next write): how many lie before an instant says which tags are shown then (D42).
   */
  showUntilTimes(): Float64Array {
    if (this.showUntilCache === null) {
      const seen = new Set<number>();
      for (const t of this.byId.values()) for (const g of t.tags) if (g.show_until != null) seen.add(g.show_until);
      this.showUntilCache = Float64Array.from(seen).sort();
    }
    return this.showUntilCache;
  }

  /** Records of one EMP, ordered by id. */
  ofEmp(empId: string): readonly StoredTariff[] {
    if (this.byEmpCache === null) {
      const m = new Map<string, StoredTariff[]>();
      for (const t of this.all()) {
        let l = m.get(t.emp_id);
        if (l === undefined) m.set(t.emp_id, (l = []));
        l.push(t);
      }
      this.byEmpCache = m;
    }
    return this.byEmpCache.get(empId) ?? [];
  }

  /** Sub tariffs that list `superId` in their super tariffs. */
  subTariffsOf(superId: string): StoredTariff[] {
    const s = this.subsBySuper.get(superId);
    if (s === undefined) return [];
    const out: StoredTariff[] = [];
    for (const id of s) {
      const t = this.byId.get(id);
      if (t !== undefined) out.push(t);
    }
    return out.sort(byIdAsc);
  }

  /** EVSE-level prices of a tariff by station id (empty map when none). */
  stationPricesOf(tariffId: string): ReadonlyMap<string, StoredStationPrices> {
    return this.stationPricesById.get(tariffId) ?? EMPTY;
  }

  /** Every EVSE-level price record. */
  *stationPrices(): IterableIterator<StoredStationPrices> {
    for (const m of this.stationPricesById.values()) yield* m.values();
  }

  onChange(fn: CatalogListener): void {
    this.listeners.push(fn);
  }

  /** Applies a committed tariff write. */
  upsert(t: StoredTariff, generation: number): void {
    const old = this.byId.get(t.id);
    if (old !== undefined) this.unlinkSupers(old);
    this.put(t);
    this.bump(generation);
    this.emit({ kind: 'tariff', op: 'upsert', generation, tariff: t });
  }

  /** Applies a committed tariff delete (its station prices go with it). */
  remove(id: string, generation: number): void {
    const old = this.byId.get(id);
    if (old !== undefined) {
      this.unlinkSupers(old);
      this.byId.delete(id);
      this.stationPricesById.delete(id);
    }
    this.bump(generation);
    this.emit({ kind: 'tariff', op: 'delete', generation, id });
  }

  /** Records that a committed company write took `generation` (companies live in the registry). */
  companyChanged(id: string, op: 'upsert' | 'delete', generation: number): void {
    this.bump(generation);
    this.emit({ kind: 'company', op, generation, id });
  }

  /** Moves the generation to a committed one whose changes need nothing applied here. */
  advance(generation: number): void {
    this.bump(generation);
  }

  private put(t: StoredTariff): void {
    this.byId.set(t.id, t);
    for (const s of t.super_tariff_ids) {
      let set = this.subsBySuper.get(s);
      if (set === undefined) this.subsBySuper.set(s, (set = new Set()));
      set.add(t.id);
    }
    this.sortedCache = null;
    this.byEmpCache = null;
    this.showUntilCache = null;
  }

  private unlinkSupers(t: StoredTariff): void {
    for (const s of t.super_tariff_ids) this.subsBySuper.get(s)?.delete(t.id);
    this.sortedCache = null;
    this.byEmpCache = null;
    this.showUntilCache = null;
  }

  private bump(generation: number): void {
    if (generation > this.gen) this.gen = generation;
  }

  private emit(c: CatalogChange): void {
    for (const l of this.listeners) l(c);
  }
}

const EMPTY: ReadonlyMap<string, StoredStationPrices> = new Map();
