/**
 * The station data price work needs (id → operator, country, charge point groups; operator →
 * stations), held in SharedArrayBuffers: the main thread copies it once out of the station index,
 * and every pricing worker reads the same memory (no copy per worker). Pure: no I/O.
 */
import type { ChargePointInput } from '../domain/pricing/index.js';
import { findStationId } from '../domain/stations/index.js';

const ID_BYTES = 36;
const NO_OPERATOR = -1;

/** Plain-data form, sent in `workerData` (the typed arrays are views on SharedArrayBuffers). */
export interface SharedStationData {
  n: number;
  ids: Uint8Array;
  operator: Int32Array;
  country: Uint16Array;
  cpStart: Uint32Array;
  cpPlug: Uint8Array;
  /** 0 = ac, 1 = dc. */
  cpEnergy: Uint8Array;
  cpPower: Float64Array;
  /** Stations of operator k: opPostings[opOffsets[k] .. opOffsets[k+1]). */
  opOffsets: Uint32Array;
  opPostings: Uint32Array;
  operators: string[];
  countries: string[];
  plugs: string[];
}

/** The columns of the station index this module reads (a subset of `StationColumns`). */
export interface StationColumnsLike {
  n: number;
  ids: Uint8Array;
  operator: Int32Array;
  country: Uint16Array;
  cpStart: Uint32Array;
  cpPlug: Uint8Array;
  cpEnergy: Uint8Array;
  cpPower: Float64Array;
  dict: { operators: string[]; countries: string[]; plugs: string[] };
}

function shared<T extends Uint8Array | Int32Array | Uint16Array | Uint32Array | Float64Array>(
  src: T,
  make: (buf: SharedArrayBuffer) => T,
): T {
  // At least one element: a typed array over a shorter buffer cannot be made (an empty column).
  const out = make(new SharedArrayBuffer(Math.max(src.BYTES_PER_ELEMENT, src.byteLength)));
  out.set(src);
  return out;
}

/**
 * Points the main thread's station columns at their shared copies, so that the main thread holds
 * one copy of each column (the station index and the pricing workers read the same memory).
 */
export function adoptSharedColumns(c: { n: number; ids: Buffer } & Omit<StationColumnsLike, 'ids' | 'dict' | 'n'>, s: SharedStationData): void {
  c.ids = Buffer.from(s.ids.buffer, s.ids.byteOffset, c.n * ID_BYTES);
  c.operator = s.operator;
  c.country = s.country;
  c.cpStart = s.cpStart;
  c.cpPlug = s.cpPlug;
  c.cpEnergy = s.cpEnergy;
  c.cpPower = s.cpPower;
}

/** Copies the needed columns once into SharedArrayBuffers and builds the operator postings. */
export function shareStationColumns(c: StationColumnsLike): SharedStationData {
  const groups = c.dict.operators.length;
  const opOffsets = new Uint32Array(new SharedArrayBuffer((groups + 1) * 4));
  for (let i = 0; i < c.n; i++) if (c.operator[i] !== NO_OPERATOR) opOffsets[c.operator[i] + 1]++;
  for (let g = 0; g < groups; g++) opOffsets[g + 1] += opOffsets[g];
  const fill = opOffsets.slice(0, groups);
  const opPostings = new Uint32Array(new SharedArrayBuffer(Math.max(4, opOffsets[groups] * 4)));
  for (let i = 0; i < c.n; i++) if (c.operator[i] !== NO_OPERATOR) opPostings[fill[c.operator[i]]++] = i;
  return {
    n: c.n,
    ids: shared(new Uint8Array(c.ids.buffer, c.ids.byteOffset, c.n * ID_BYTES), (b) => new Uint8Array(b)),
    operator: shared(c.operator, (b) => new Int32Array(b)),
    country: shared(c.country, (b) => new Uint16Array(b)),
    cpStart: shared(c.cpStart, (b) => new Uint32Array(b)),
    cpPlug: shared(c.cpPlug, (b) => new Uint8Array(b)),
    cpEnergy: shared(c.cpEnergy, (b) => new Uint8Array(b)),
    cpPower: shared(c.cpPower, (b) => new Float64Array(b)),
    opOffsets,
    opPostings,
    operators: [...c.dict.operators],
    countries: [...c.dict.countries],
    plugs: [...c.dict.plugs],
  };
}

export interface StoredStation {
  index: number;
  id: string;
  operatorId: string | null;
  country: string;
  chargePoints: ChargePointInput[];
}

/** Read access to shared station data (on the main thread or in a worker). */
export class StationView {
  private readonly operatorIndex: Map<string, number>;
  private readonly groupCache = new Map<string, ChargePointInput[]>();

  /** The id column as a Buffer (latin1 decoding: 0.1 µs an id against 1.4 µs for String.fromCharCode(...bytes)). */
  private readonly ids: Buffer;

  constructor(readonly d: SharedStationData) {
    this.ids = Buffer.from(d.ids.buffer, d.ids.byteOffset, d.n * ID_BYTES);
    this.operatorIndex = new Map(d.operators.map((id, i) => [id, i]));
  }

  /** Station index of an id (ASCII letters in any case), or -1 (`findStationId`). */
  find(id: string): number {
    return findStationId(this.d.ids, this.d.n, id);
  }

  idAt(i: number): string {
    return this.ids.toString('latin1', i * ID_BYTES, (i + 1) * ID_BYTES);
  }

  operatorAt(i: number): string | null {
    const o = this.d.operator[i];
    return o === NO_OPERATOR ? null : this.d.operators[o];
  }

  countryAt(i: number): string {
    return this.d.countries[this.d.country[i]];
  }

  chargePointsAt(i: number): ChargePointInput[] {
    const d = this.d;
    const out: ChargePointInput[] = [];
    for (let k = d.cpStart[i], end = d.cpStart[i + 1]; k < end; k++) {
      out.push({ plug: d.plugs[d.cpPlug[k]], energy_type: d.cpEnergy[k] === 1 ? 'dc' : 'ac', power: d.cpPower[k] });
    }
    return out;
  }

  station(i: number): StoredStation {
    return { index: i, id: this.idAt(i), operatorId: this.operatorAt(i), country: this.countryAt(i), chargePoints: this.chargePointsAt(i) };
  }

  /** Station indices of an operator (ascending), empty when it has none. */
  stationsOf(operatorId: string): Uint32Array {
    const k = this.operatorIndex.get(operatorId);
    if (k === undefined) return new Uint32Array(0);
    return this.d.opPostings.subarray(this.d.opOffsets[k], this.d.opOffsets[k + 1]);
  }

  /**
   * Distinct charge point groups (energy type, power, plug) of an operator's stations in a country,
   * in order of first appearance; computed once per (operator, country) since stations never change.
   */
  groupsOf(operatorId: string, country: string): ChargePointInput[] {
    const cacheKey = `${operatorId}|${country.toUpperCase()}`;
    const cached = this.groupCache.get(cacheKey);
    if (cached !== undefined) return cached;
    const d = this.d;
    const ci = d.countries.findIndex((c) => c.toUpperCase() === country.toUpperCase());
    const out: ChargePointInput[] = [];
    if (ci >= 0) {
      // (plug, energy) → powers seen.
      const seen = new Map<number, Set<number>>();
      for (const i of this.stationsOf(operatorId)) {
        if (d.country[i] !== ci) continue;
        for (let k = d.cpStart[i], end = d.cpStart[i + 1]; k < end; k++) {
          const pe = d.cpPlug[k] * 2 + d.cpEnergy[k];
          let powers = seen.get(pe);
          if (powers === undefined) seen.set(pe, (powers = new Set()));
          if (powers.has(d.cpPower[k])) continue;
          powers.add(d.cpPower[k]);
          out.push({ plug: d.plugs[d.cpPlug[k]], energy_type: d.cpEnergy[k] === 1 ? 'dc' : 'ac', power: d.cpPower[k] });
        }
      }
    }
    this.groupCache.set(cacheKey, out);
    return out;
  }

  /** Does the operator have a station among `stationIds`? */
  operatorHasAny(operatorId: string, stationIds: Iterable<string>): boolean {
    const k = this.operatorIndex.get(operatorId);
    if (k === undefined) return false;
    for (const id of stationIds) {
      const i = this.find(id);
      if (i >= 0 && this.d.operator[i] === k) return true;
    }
    return false;
  }
}
