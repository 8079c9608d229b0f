/**
 * Price tables (D198): the prices of one profile and narrowing over one station index at one
 * catalog generation, filled station by station as price tiles need them. A table holds 4 bytes
 * per station of the index (where its price is) and 48 per priced station: a new table of the 1 M
 * snapshot costs 4 MB, not the 41 MB that arrays of every field per station took (measured: a cold
 * zoom-12 tile spent several ms allocating and collecting them). The most recently used tables are
 * kept, at most 8 and at most 128 MiB together (the newest always).
 */
import type { StationPrice } from '../station-pricing.js';
import { overloadedError } from '../jsonapi/errors.js';
import type { PriceLookup } from './tile-writer.js';

/** `slotOf` values below 1: not priced yet, being priced, priced without a price. */
const UNKNOWN = 0;
const PRICING = -1;
const NO_PRICE = -2;
export const PRICE_TABLES = 8;
/** A table filled within this time is in use and not dropped (D198). */
export const IN_USE_MS = 10_000;
export const PRICE_TABLES_BYTES = 128 * 1024 * 1024;
/** Unpriced stations one price tile request prices at most (D198). */
export const MAX_TILE_PRICING = 100_000;

export class PriceTable implements PriceLookup {
  /** Per station: 1 + its slot when priced, else UNKNOWN, PRICING or NO_PRICE. */
  private readonly slotOf: Int32Array;
  /** Per slot: price, energy, duration, power. */
  private num = new Float64Array(4 * 64);
  /** Per slot: tariff and plug (indices into `strings`). */
  private ref = new Int32Array(2 * 64);
  private slots = 0;
  private readonly strings: string[] = [];
  private readonly stringIds = new Map<string, number>();
  private readonly inflight = new Set<Promise<void>>();

  /** performance.now() of the last fill (eviction spares tables in use, D198). */
  lastUsed = performance.now();

  constructor(
    n: number,
    readonly currency: string,
  ) {
    this.slotOf = new Int32Array(n);
  }

  /** Whether a request is pricing into this table or used it within `ms`. */
  busySince(now: number, ms: number): boolean {
    return this.inflight.size > 0 || now - this.lastUsed < ms;
  }

  /** The memory the table holds now. */
  get bytes(): number {
    return this.slotOf.byteLength + this.num.byteLength + this.ref.byteLength;
  }

  has(i: number): boolean {
    return this.slotOf[i] > 0;
  }

  price(i: number): number {
    return this.num[4 * (this.slotOf[i] - 1)];
  }

  pair(i: number): { tariffId: string; energy: number; duration: number; plug: string; power: number } {
    const k = this.slotOf[i] - 1;
    const n = this.num;
    return { tariffId: this.strings[this.ref[2 * k]], energy: n[4 * k + 1], duration: n[4 * k + 2], plug: this.strings[this.ref[2 * k + 1]], power: n[4 * k + 3] };
  }

  private set(i: number, p: StationPrice): void {
    const k = this.slots++;
    if (4 * this.slots > this.num.length) {
      const num = new Float64Array(2 * this.num.length);
      num.set(this.num);
      this.num = num;
      const ref = new Int32Array(2 * this.ref.length);
      ref.set(this.ref);
      this.ref = ref;
    }
    this.num[4 * k] = p.price;
    this.num[4 * k + 1] = p.energy;
    this.num[4 * k + 2] = p.duration;
    this.num[4 * k + 3] = p.power;
    this.ref[2 * k] = this.intern(p.tariffId);
    this.ref[2 * k + 1] = this.intern(p.plug);
    this.slotOf[i] = k + 1;
  }

  private intern(s: string): number {
    let k = this.stringIds.get(s);
    if (k === undefined) {
      k = this.strings.length;
      this.strings.push(s);
      this.stringIds.set(s, k);
    }
    return k;
  }

  /**
   * Prices the stations of `members` that are not priced yet (at most MAX_TILE_PRICING of them per
   * call) with `work`, and waits for those another request is pricing. True when every member is
   * priced (or has no price); false when more than MAX_TILE_PRICING were left (D198).
   */
  async fill(members: readonly number[], work: (indices: number[], found: (i: number, p: StationPrice) => void) => Promise<void>): Promise<boolean> {
    this.lastUsed = performance.now();
    let taken = 0;
    for (;;) {
      const mine: number[] = [];
      let busy = false;
      let more = false;
      for (const i of members) {
        const s = this.slotOf[i];
        if (s === UNKNOWN) {
          // The bound holds per call, over every round (a round may take over another request's failed stations).
          if (taken + mine.length < MAX_TILE_PRICING) {
            mine.push(i);
            this.slotOf[i] = PRICING;
          } else more = true;
        } else if (s === PRICING) busy = true;
      }
      if (mine.length === 0 && !busy) return !more;
      const others = busy ? [...this.inflight] : [];
      taken += mine.length;
      if (mine.length > 0) await this.run(mine, work);
      if (more) return false;
      // Stations another request was pricing: its failure leaves them unknown, and the next round prices them here.
      await Promise.allSettled(others);
      if (!busy) return true;
    }
  }

  private run(mine: number[], work: (indices: number[], found: (i: number, p: StationPrice) => void) => Promise<void>): Promise<void> {
    const done = (async () => {
      try {
        await work(mine, (i, p) => this.set(i, p));
        for (const i of mine) if (this.slotOf[i] === PRICING) this.slotOf[i] = NO_PRICE;
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

/** The most recently used price tables of one station index. */
export class PriceTables {
  private readonly tables = new Map<string, PriceTable>();
  constructor(
    private readonly max = PRICE_TABLES,
    private readonly maxBytes = PRICE_TABLES_BYTES,
    private readonly inUseMs = IN_USE_MS,
  ) {}

  /**
   * The table of `key` (profile, narrowing, catalog generation), made when new. Tables beyond the
   * bounds are dropped least recently used first, but never one in use (a request pricing into it,
   * or a fill within IN_USE_MS: a low-zoom tile is priced over several requests, D198); a new table
   * that fits only by dropping one in use is refused 503 instead.
   */
  get(key: string, stations: number, currency: string): PriceTable {
    const held = this.tables.get(key);
    if (held !== undefined) {
      this.tables.delete(key);
      this.tables.set(key, held);
      return held;
    }
    const t = new PriceTable(stations, currency);
    const now = performance.now();
    let total = t.bytes;
    for (const x of this.tables.values()) total += x.bytes;
    let count = this.tables.size + 1;
    for (const [k, old] of this.tables) {
      if (count <= this.max && total <= this.maxBytes) break;
      if (old.busySince(now, this.inUseMs)) continue;
      this.tables.delete(k);
      total -= old.bytes;
      count--;
    }
    if (this.tables.size > 0 && (count > this.max || total > this.maxBytes)) throw overloadedError();
    this.tables.set(key, t);
    return t;
  }

  get size(): number {
    return this.tables.size;
  }
}
