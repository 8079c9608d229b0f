/**
 * Price tables (D198): the prices of one profile and narrowing over one station index at one
 * catalog generation, filled station by station as price tiles need them. Typed arrays of the
 * station count (41 bytes a station); the most recently used tables are kept, at most 8 and at
 * most 128 MiB together (the newest always: 41 MB for 1 M stations).
 */
import type { StationPrice } from '../station-pricing.js';
import type { PriceLookup } from './tile-writer.js';

const UNKNOWN = 0;
const PRICED = 1;
const NO_PRICE = 2;
const PRICING = 3;
export const PRICE_TABLES = 8;
export const PRICE_TABLES_BYTES = 128 * 1024 * 1024;
/** Bytes a table holds per station: state, price, energy, duration, power, tariff, plug. */
const BYTES_PER_STATION = 1 + 4 * 8 + 2 * 4;
/** Unpriced stations one price tile request prices at most (D198). */
export const MAX_TILE_PRICING = 100_000;

export class PriceTable implements PriceLookup {
  private readonly state: Uint8Array;
  private readonly prices: Float64Array;
  private readonly energy: Float64Array;
  private readonly duration: Float64Array;
  private readonly power: Float64Array;
  private readonly tariff: Int32Array;
  private readonly plug: Int32Array;
  private readonly strings: string[] = [];
  private readonly stringIds = new Map<string, number>();
  private readonly inflight = new Set<Promise<void>>();

  readonly bytes: number;

  constructor(
    n: number,
    readonly currency: string,
  ) {
    this.bytes = n * BYTES_PER_STATION;
    this.state = new Uint8Array(n);
    this.prices = new Float64Array(n);
    this.energy = new Float64Array(n);
    this.duration = new Float64Array(n);
    this.power = new Float64Array(n);
    this.tariff = new Int32Array(n);
    this.plug = new Int32Array(n);
  }

  has(i: number): boolean {
    return this.state[i] === PRICED;
  }

  price(i: number): number {
    return this.prices[i];
  }

  pair(i: number): { tariffId: string; energy: number; duration: number; plug: string; power: number } {
    return { tariffId: this.strings[this.tariff[i]], energy: this.energy[i], duration: this.duration[i], plug: this.strings[this.plug[i]], power: this.power[i] };
  }

  private set(i: number, p: StationPrice): void {
    this.state[i] = PRICED;
    this.prices[i] = p.price;
    this.energy[i] = p.energy;
    this.duration[i] = p.duration;
    this.power[i] = p.power;
    this.tariff[i] = this.intern(p.tariffId);
    this.plug[i] = this.intern(p.plug);
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
    for (;;) {
      const mine: number[] = [];
      let busy = false;
      let more = false;
      for (const i of members) {
        const s = this.state[i];
        if (s === UNKNOWN) {
          if (mine.length < MAX_TILE_PRICING) {
            mine.push(i);
            this.state[i] = PRICING;
          } else more = true;
        } else if (s === PRICING) busy = true;
      }
      if (mine.length === 0 && !busy) return true;
      const others = busy ? [...this.inflight] : [];
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
        for (const i of mine) if (this.state[i] === PRICING) this.state[i] = NO_PRICE;
      } catch (e) {
        for (const i of mine) if (this.state[i] === PRICING) this.state[i] = UNKNOWN;
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
  private total = 0;
  constructor(
    private readonly max = PRICE_TABLES,
    private readonly maxBytes = PRICE_TABLES_BYTES,
  ) {}

  /** The table of `key` (profile, narrowing, catalog generation), made when new. */
  get(key: string, stations: number, currency: string): PriceTable {
    let t = this.tables.get(key);
    if (t !== undefined) this.tables.delete(key);
    else {
      t = new PriceTable(stations, currency);
      this.total += t.bytes;
    }
    this.tables.set(key, t);
    while (this.tables.size > 1 && (this.tables.size > this.max || this.total > this.maxBytes)) {
      const [k, old] = this.tables.entries().next().value as [string, PriceTable];
      this.tables.delete(k);
      this.total -= old.bytes;
    }
    return t;
  }

  get size(): number {
    return this.tables.size;
  }
}
