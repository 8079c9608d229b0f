/**
 * The priced stations of one area or route price search (D113) as typed columns by position in
 * the stations priced (no object per station, D288), and the writer of the answer's previews:
 * written as bytes into a buffer reused across requests, byte for byte what the templates of
 * `previewAttributesText` give (test/pool/price-rows.test.ts keeps that twin).
 */
import { GrowableBytes } from '../../domain/bytes.js';
import { ID_BYTES } from '../../domain/stations/columns.js';
import type { StationIndex } from '../../domain/stations/index.js';
import type { StationPriceRows } from '../../pool/price-rows.js';

export class PricedStations {
  readonly price: Float64Array;
  readonly energy: Float64Array;
  readonly duration: Float64Array;
  readonly power: Float64Array;
  readonly plug: string[];
  /** Positions priced, ascending until sorted. */
  readonly order: number[] = [];
  /** Metres from the centre or along the route by position; null: none (a box, written null, sorted as 0). */
  distance: ArrayLike<number> | null = null;
  /** Metres from the route by position (route search). */
  detour: ArrayLike<number> | null = null;
  private priced: Uint8Array;

  constructor(readonly indices: readonly number[]) {
    const m = indices.length;
    this.price = new Float64Array(m);
    this.energy = new Float64Array(m);
    this.duration = new Float64Array(m);
    this.power = new Float64Array(m);
    this.plug = new Array<string>(m);
    this.priced = new Uint8Array(m);
  }

  /** Takes row r of `rows` as position j's price (`priceStations`' callback). */
  set(j: number, rows: StationPriceRows, r: number): void {
    this.price[j] = rows.price[r];
    this.energy[j] = rows.energy[r];
    this.duration[j] = rows.duration[r];
    this.power[j] = rows.power[r];
    this.plug[j] = rows.strings[rows.plug[r]];
    this.priced[j] = 1;
  }

  /** Fills `order` with the priced positions, ascending. */
  collect(): void {
    const p = this.priced;
    for (let j = 0; j < p.length; j++) if (p[j] === 1) this.order.push(j);
  }

  dist(j: number): number {
    return this.distance === null ? 0 : this.distance[j];
  }
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** Preview attributes of position j (without braces) as text: the GeoJSON writer's and the twin's. */
export function previewAttributesText(s: PricedStations, j: number, currencyJson: string, withDetour: boolean): string {
  return (
    `"energy":${s.energy[j]},"duration":${s.duration[j]},"price":${s.price[j]},"currency":${currencyJson},` +
    `"distance":${s.distance === null ? 'null' : s.distance[j]}${withDetour ? `,"detour":${s.detour![j]}` : ''},"charge_point":{"plug":${JSON.stringify(s.plug[j])},"power":${s.power[j]}}`
  );
}

/** Writes `{"data":[<previews>` of the positions `best`, in that order. */
export class PreviewWriter extends GrowableBytes {
  private readonly plugJson = new Map<string, string>();

  constructor(private readonly index: StationIndex) {
    super(1 << 16);
  }

  write(s: PricedStations, best: readonly number[], currencyJson: string, withDetour: boolean): Buffer {
    this.pos = 0;
    this.putLatin1('{"data":[');
    const cur = `,"currency":${currencyJson},"distance":`;
    for (let k = 0; k < best.length; k++) {
      const j = best[k];
      const i = s.indices[j];
      this.putLatin1(k === 0 ? '{"id":' : ',{"id":');
      this.putId(i);
      this.putLatin1(',"type":"charge_price_preview","attributes":{"energy":');
      this.putNumber(s.energy[j]);
      this.putLatin1(',"duration":');
      this.putNumber(s.duration[j]);
      this.putLatin1(',"price":');
      this.putNumber(s.price[j]);
      this.putUtf8(cur);
      if (s.distance === null) this.putLatin1('null');
      else this.putNumber(s.distance[j]);
      if (withDetour) {
        this.putLatin1(',"detour":');
        this.putNumber(s.detour![j]);
      }
      this.putLatin1(',"charge_point":{"plug":');
      this.putUtf8(this.plugText(s.plug[j]));
      this.putLatin1(',"power":');
      this.putNumber(s.power[j]);
      this.putLatin1('}},"relationships":{"charging_station":{"data":{"type":"charging_station","id":');
      this.putId(i);
      this.putLatin1('}}}}');
    }
    return this.buf.subarray(0, this.pos);
  }

  /**
   * A number as `${x}` writes it. Whole numbers and those of at most two decimals (prices, most
   * energies and powers) are written digit by digit, without a string: such an x is the double
   * nearest to c / 100, and below 1e13 no shorter decimal lies within its rounding interval, so
   * the shortest round-trip form is c / 100's digits (test/pool/price-rows.test.ts checks it
   * against the template over random numbers).
   */
  private putNumber(x: number): void {
    if (x >= 0 && x < 1e13) {
      const c = Math.round(x * 100);
      if (c / 100 === x) {
        const whole = Math.floor(c / 100);
        const frac = c - whole * 100;
        this.putDigits(whole);
        if (frac === 0) return;
        this.ensure(3);
        const buf = this.buf;
        buf[this.pos++] = 0x2e;
        buf[this.pos++] = 0x30 + Math.floor(frac / 10);
        if (frac % 10 !== 0) buf[this.pos++] = 0x30 + (frac % 10);
        return;
      }
    }
    this.putLatin1(String(x));
  }

  /** The decimal digits of a whole number 0 ≤ v < 1e13. */
  private putDigits(v: number): void {
    let len = 1;
    for (let t = v; t >= 10; t = Math.floor(t / 10)) len++;
    this.ensure(len);
    const buf = this.buf;
    let p = this.pos + len;
    this.pos = p;
    do {
      const q = Math.floor(v / 10);
      buf[--p] = 0x30 + (v - q * 10);
      v = q;
    } while (v > 0);
  }

  /** The station's id as a JSON string: its bytes between quotes when none needs escaping (they are ASCII ids). */
  private putId(i: number): void {
    const ids = this.index.c.ids;
    const start = i * ID_BYTES;
    this.ensure(ID_BYTES + 2);
    const buf = this.buf;
    let p = this.pos;
    buf[p++] = QUOTE;
    for (let k = start; k < start + ID_BYTES; k++) {
      const c = ids[k];
      if (c < 0x20 || c >= 0x7f || c === QUOTE || c === BACKSLASH) return this.putUtf8(JSON.stringify(this.index.idAt(i)));
      buf[p++] = c;
    }
    buf[p++] = QUOTE;
    this.pos = p;
  }

  private plugText(plug: string): string {
    let t = this.plugJson.get(plug);
    if (t === undefined) {
      // Plugs are a snapshot's few names; the bound only guards against growth across snapshots.
      if (this.plugJson.size > 1024) this.plugJson.clear();
      t = JSON.stringify(plug);
      this.plugJson.set(plug, t);
    }
    return t;
  }
}
