/**
 * Price tables (D198, D276, D277): the prices of one profile and narrowing over one station
 * index at one catalog generation, filled station by station as price tiles need them. A table
 * holds 4 bytes per station of the index (where its price is) and 40 per priced station: a new
 * table of the 1 M snapshot costs 4 MB, not the 41 MB that arrays of every field per station took
 * (measured: a cold zoom-12 tile spent several ms allocating and collecting them). The most
 * recently used tables are kept within PRICE_TABLES_MB together, whatever their count, and none is
 * ever refused; after a catalog write the previous generation's table answers until the new one
 * has priced its stations.
 */
import type { FoundPrice, StationPriceRows } from '../station-pricing.js';
import type { PriceLookup } from './tile-writer.js';
import { Interner } from '../../domain/interner.js';

/** `slotOf` values below 1: not priced yet, being priced, priced without a price. */
const UNKNOWN = 0;
const PRICING = -1;
const NO_PRICE = -2;
/** Stations one pricing run takes at most (D198, D278). */
export const MAX_TILE_PRICING = 100_000;
/** D276: the default memory bound of a snapshot's tables (PRICE_TABLES_MB). */
export const PRICE_TABLES_BYTES = 256 * 1024 * 1024;

/** Prices stations: `found(j, rows, r)` per priced one, `j` its position in `indices` (`priceStations`). */
type Work = (indices: number[], found: FoundPrice) => Promise<void>;

export class PriceTable implements PriceLookup {
  /** Per station: 1 + its slot when priced, else UNKNOWN, PRICING or NO_PRICE. */
  private readonly slotOf: Int32Array;
  /** Per slot: price, energy, duration, power. */
  private num = new Float64Array(4 * 64);
  /** Per slot: tariff and plug (indices into `strings`). */
  private ref = new Int32Array(2 * 64);
  private slots = 0;
  /** Stations priced or known to have no price. */
  private knownCount = 0;
  private readonly strings = new Interner();
  private readonly inflight = new Set<Promise<void>>();
  /** Replaced by a newer generation or dropped: no new run is started for it (D277). */
  private retired = false;

  constructor(
    n: number,
    readonly currency: string,
    /** The catalog generation its prices are of. */
    readonly generation = 0,
  ) {
    this.slotOf = new Int32Array(n);
  }

  /** The memory the table holds now. */
  get bytes(): number {
    return this.slotOf.byteLength + this.num.byteLength + this.ref.byteLength;
  }

  /** Stops pricing into this table: runs in flight finish, no further run starts. */
  retire(): void {
    this.retired = true;
  }

  /** Stations whose price (or lack of one) is known. */
  get known(): number {
    return this.knownCount;
  }

  has(i: number): boolean {
    return this.slotOf[i] > 0;
  }

  /** Whether station i is priced or known to have no price. */
  knows(i: number): boolean {
    return this.slotOf[i] > 0 || this.slotOf[i] === NO_PRICE;
  }

  price(i: number): number {
    return this.num[4 * (this.slotOf[i] - 1)];
  }

  pair(i: number): { tariffId: string; energy: number; duration: number; plug: string; power: number } {
    const k = this.slotOf[i] - 1;
    const n = this.num;
    return { tariffId: this.strings.values[this.ref[2 * k]], energy: n[4 * k + 1], duration: n[4 * k + 2], plug: this.strings.values[this.ref[2 * k + 1]], power: n[4 * k + 3] };
  }

  /** Station i's price from row r of `rows`. */
  private set(i: number, rows: StationPriceRows, r: number): void {
    const k = this.slots++;
    if (4 * this.slots > this.num.length) {
      // Doubling, but never beyond one slot per station (D276's 40 bytes per priced station).
      const cap = Math.max(this.slots, Math.min(2 * (this.num.length / 4), this.slotOf.length));
      const num = new Float64Array(4 * cap);
      num.set(this.num);
      this.num = num;
      const ref = new Int32Array(2 * cap);
      ref.set(this.ref);
      this.ref = ref;
    }
    this.num[4 * k] = rows.price[r];
    this.num[4 * k + 1] = rows.energy[r];
    this.num[4 * k + 2] = rows.duration[r];
    this.num[4 * k + 3] = rows.power[r];
    this.ref[2 * k] = this.strings.of(rows.strings[rows.tariff[r]]);
    this.ref[2 * k + 1] = this.strings.of(rows.strings[rows.plug[r]]);
    this.slotOf[i] = k + 1;
    this.knownCount++;
  }

  /**
   * Prices the stations of `members` that are not priced yet with `work`, in runs of at most
   * MAX_TILE_PRICING one after the other, and waits for those another request is pricing.
   * Resolves when every member is priced or known to have none, or when the table was retired
   * (its prices are no longer current); rejects when a run of its own failed (its stations are
   * left to the next request, D278).
   */
  async fill(members: readonly number[], work: Work): Promise<void> {
    while (!this.retired) {
      const mine: number[] = [];
      let busy = false;
      for (const i of members) {
        const s = this.slotOf[i];
        if (s === UNKNOWN) {
          if (mine.length < MAX_TILE_PRICING) {
            mine.push(i);
            this.slotOf[i] = PRICING;
          }
        } else if (s === PRICING) busy = true;
      }
      if (mine.length > 0) await this.run(mine, work);
      // Stations another request was pricing: its failure leaves them unknown, and the next round prices them here.
      else if (busy) await Promise.allSettled([...this.inflight]);
      else return;
    }
  }

  private run(mine: number[], work: Work): Promise<void> {
    const done = (async () => {
      try {
        await work(mine, (j, rows, r) => this.set(mine[j], rows, r));
        for (const i of mine) {
          if (this.slotOf[i] === PRICING) {
            this.slotOf[i] = NO_PRICE;
            this.knownCount++;
          }
        }
      } catch (e) {
        for (const i of mine) if (this.slotOf[i] === PRICING) this.slotOf[i] = UNKNOWN;
        throw e;
      }
    })();
    this.inflight.add(done);
    done.then(
      () => this.inflight.delete(done),
      () => this.inflight.delete(done),
    );
    return done;
  }
}

/**
 * The prices a tile reads (D277): each station's from the current generation once it is known
 * there, else from the previous generation's table.
 */
export class GenerationPrices implements PriceLookup {
  constructor(
    readonly current: PriceTable,
    readonly previous: PriceTable | null,
  ) {}

  get currency(): string {
    return this.current.currency;
  }

  private at(i: number): PriceTable {
    return this.previous === null || this.current.knows(i) ? this.current : this.previous;
  }

  has(i: number): boolean {
    return this.at(i).has(i);
  }

  price(i: number): number {
    return this.at(i).price(i);
  }

  pair(i: number): { tariffId: string; energy: number; duration: number; plug: string; power: number } {
    return this.at(i).pair(i);
  }

  /** Stations of `members` whose current price is not known yet (D278's `Price-Tile-Pending`). */
  pending(members: readonly number[]): number {
    let n = 0;
    for (const i of members) if (!this.current.knows(i)) n++;
    return n;
  }

  get bytes(): number {
    return this.current.bytes + (this.previous?.bytes ?? 0);
  }
}

/** The price tables of one station index, per profile and narrowing (D276). */
export class PriceTables {
  private readonly tables = new Map<string, GenerationPrices>();
  constructor(private readonly maxBytes = PRICE_TABLES_BYTES) {}

  /**
   * The prices of `key` (profile and narrowing) at catalog `generation`: made when new; after a
   * catalog write a new current table with the better filled of the old two as previous (D277).
   * Beyond the memory bound the least recently used are dropped, in use or not (never this one).
   */
  get(key: string, generation: number, stations: number, currency: string): GenerationPrices {
    let held = this.tables.get(key);
    if (held !== undefined) this.tables.delete(key);
    if (held === undefined) held = new GenerationPrices(new PriceTable(stations, currency, generation), null);
    else if (generation > held.current.generation) {
      const old = held.previous !== null && held.previous.known > held.current.known ? held.previous : held.current;
      held.current.retire();
      held.previous?.retire();
      held = new GenerationPrices(new PriceTable(stations, currency, generation), old.known > 0 ? old : null);
    } else if (held.previous !== null && held.current.known >= held.previous.known) {
      // The current generation knows as many stations as the previous one did: the previous is dropped.
      held = new GenerationPrices(held.current, null);
    }
    this.tables.set(key, held);
    this.shrink();
    return held;
  }

  /** Drops the least recently used until the tables fit in the bound (the newest always stays). */
  private shrink(): void {
    let total = 0;
    for (const t of this.tables.values()) total += t.bytes;
    for (const [k, t] of this.tables) {
      if (total <= this.maxBytes || this.tables.size === 1) break;
      t.current.retire();
      this.tables.delete(k);
      total -= t.bytes;
    }
  }

  get size(): number {
    return this.tables.size;
  }

  /** The memory the tables hold now. */
  get bytes(): number {
    let total = 0;
    for (const t of this.tables.values()) total += t.bytes;
    return total;
  }
}
