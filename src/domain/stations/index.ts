/**
 * The in-memory station index, built at start from the snapshot's columns: kdbush (bbox), a
 * best-first radius walk (geo.ts), id lookup by binary search over the sorted id bytes, postings
 * per operator and per EVSE operator, and the refinements of D26 evaluated on the typed arrays.
 * Pure: no I/O; usability of EMPs (D66) comes in as a callback.
 */
import KDBush from 'kdbush';
import { ID_BYTES, NO_OPERATOR, TRI_FALSE, TRI_TRUE, type StationColumns } from './columns.js';
import { aroundInto } from './geo.js';

/** Station search types of D25. */
export type PrimarySearch =
  | { kind: 'bbox'; latGte: number; latLte: number; lonGte: number; lonLte: number }
  | { kind: 'radius'; latitude: number; longitude: number; radius: number }
  | { kind: 'id'; ids: readonly string[] }
  | { kind: 'export' }
  | { kind: 'operator'; operatorIds: readonly string[] }
  | { kind: 'evse_operator'; evseOperators: readonly string[] };

/** Refinements of D26 (plus operator / EVSE operator as refinements of bbox and radius, D25). */
export interface RefinementInput {
  plugs?: readonly string[];
  powerGte?: number;
  powerLte?: number;
  operatorIds?: readonly string[];
  evseOperators?: readonly string[];
  /** Operators (by dictionary index) at which at least one listed EMP is usable. */
  supportedEmpOperators?: Uint8Array;
  freeCharging?: boolean;
  freeParking?: boolean;
  facilities?: readonly string[];
  parkingTypes?: readonly string[];
  countries?: readonly string[];
}

/** A compiled refinement: masks over the dictionaries, checked per station index. */
export interface Refinement {
  plugMask: Uint8Array | null;
  powerGte: number;
  powerLte: number;
  /** True when a plug or power refinement is present (checked on one charge point group, D26). */
  cpCheck: boolean;
  operatorMask: Uint8Array | null;
  empOperatorMask: Uint8Array | null;
  evseMask: Uint8Array | null;
  freeCharging: number;
  freeParking: number;
  facilityBits: number;
  facilityCheck: boolean;
  parkingMask: Uint8Array | null;
  countryMask: Uint8Array | null;
}

export interface PageResult {
  /** Station indices of the page, in output order. */
  indices: number[];
  moreAvailable: boolean;
}

/** Budget of the id-order bbox scan, in stations per needed result. */
const BBOX_SCAN_FACTOR = 128;
const BBOX_SCAN_MIN_STATIONS = 65_536;

export class StationIndex {
  readonly c: StationColumns;
  readonly kd: KDBush;
  /** Operator id → dictionary index. */
  readonly operatorIndex: Map<string, number>;
  /** Lower-cased EVSE operator id → dictionary indices (several spellings may differ in case). */
  private readonly evseIndex: Map<string, number[]>;
  private readonly opOffsets: Uint32Array;
  private readonly opPostings: Uint32Array;
  private readonly evseOffsets: Uint32Array;
  private readonly evsePostings: Uint32Array;
  private readonly plugIndex: Map<string, number[]>;
  private readonly countryIndex: Map<string, number>;
  /** Coordinates by station index (kdbush keeps them in tree order). */
  private readonly lonOf: Float64Array;
  private readonly latOf: Float64Array;

  private readonly bboxScanMin: number;

  /** `bboxScanMinStations`: smallest snapshot answered by the id-order bbox scan (tests lower it). */
  constructor(columns: StationColumns, opts: { bboxScanMinStations?: number } = {}) {
    this.c = columns;
    this.bboxScanMin = opts.bboxScanMinStations ?? BBOX_SCAN_MIN_STATIONS;
    this.kd = KDBush.from(columns.kdbush);
    this.lonOf = new Float64Array(columns.n);
    this.latOf = new Float64Array(columns.n);
    const kids = this.kd.ids;
    const kc = this.kd.coords;
    for (let j = 0; j < kids.length; j++) {
      this.lonOf[kids[j]] = kc[2 * j];
      this.latOf[kids[j]] = kc[2 * j + 1];
    }
    const d = columns.dict;
    this.operatorIndex = new Map(d.operators.map((id, i) => [id, i]));
    this.evseIndex = new Map();
    d.evseOperators.forEach((e, i) => {
      const k = e.toLowerCase();
      const l = this.evseIndex.get(k);
      if (l) l.push(i);
      else this.evseIndex.set(k, [i]);
    });
    this.plugIndex = new Map();
    d.plugs.forEach((p, i) => {
      const k = p.toLowerCase();
      const l = this.plugIndex.get(k);
      if (l) l.push(i);
      else this.plugIndex.set(k, [i]);
    });
    this.countryIndex = new Map(d.countries.map((c, i) => [c.toUpperCase(), i]));
    [this.opOffsets, this.opPostings] = postings(columns.operator, d.operators.length);
    [this.evseOffsets, this.evsePostings] = postings(columns.evseOperator, d.evseOperators.length);
  }

  get size(): number {
    return this.c.n;
  }

  lonAt(i: number): number {
    return this.lonOf[i];
  }

  latAt(i: number): number {
    return this.latOf[i];
  }

  idAt(i: number): string {
    return this.c.ids.toString('latin1', i * ID_BYTES, (i + 1) * ID_BYTES);
  }

  /** Station index of an id (ASCII letters in any case), or -1 (`findStationId`). */
  find(id: string): number {
    return findStationId(this.c.ids, this.c.n, id);
  }

  operatorOf(i: number): string | null {
    const o = this.c.operator[i];
    return o === NO_OPERATOR ? null : this.c.dict.operators[o];
  }

  compile(r: RefinementInput): Refinement {
    const d = this.c.dict;
    const mask = (len: number, values: readonly string[] | undefined, lookup: (v: string) => readonly number[]): Uint8Array | null => {
      if (values === undefined) return null;
      const m = new Uint8Array(len);
      for (const v of values) for (const k of lookup(v)) m[k] = 1;
      return m;
    };
    let facilityBits = 0;
    if (r.facilities) {
      for (const f of r.facilities) {
        const k = d.facilities.indexOf(f);
        if (k !== -1) facilityBits |= 1 << k;
      }
    }
    return {
      plugMask: mask(d.plugs.length, r.plugs, (v) => this.plugIndex.get(v.toLowerCase()) ?? []),
      powerGte: r.powerGte ?? -Infinity,
      powerLte: r.powerLte ?? Infinity,
      cpCheck: r.plugs !== undefined || r.powerGte !== undefined || r.powerLte !== undefined,
      operatorMask: mask(d.operators.length, r.operatorIds, (v) => {
        const k = this.operatorIndex.get(v.toLowerCase());
        return k === undefined ? [] : [k];
      }),
      empOperatorMask: r.supportedEmpOperators ?? null,
      evseMask: mask(d.evseOperators.length, r.evseOperators, (v) => this.evseIndex.get(v.toLowerCase()) ?? []),
      freeCharging: r.freeCharging === undefined ? -1 : r.freeCharging ? TRI_TRUE : TRI_FALSE,
      freeParking: r.freeParking === undefined ? -1 : r.freeParking ? TRI_TRUE : TRI_FALSE,
      facilityBits: facilityBits >>> 0,
      facilityCheck: r.facilities !== undefined,
      parkingMask: mask(d.parkingTypes.length + 1, r.parkingTypes, (v) => {
        const k = d.parkingTypes.indexOf(v);
        return k === -1 ? [] : [k + 1];
      }),
      countryMask: mask(d.countries.length, r.countries, (v) => {
        const k = this.countryIndex.get(v.toUpperCase());
        return k === undefined ? [] : [k];
      }),
    };
  }

  /** Does station i satisfy every refinement (D26)? */
  matches(i: number, r: Refinement): boolean {
    const c = this.c;
    if (r.countryMask !== null && r.countryMask[c.country[i]] === 0) return false;
    if (r.operatorMask !== null || r.empOperatorMask !== null) {
      const o = c.operator[i];
      if (o === NO_OPERATOR) return false;
      if (r.operatorMask !== null && r.operatorMask[o] === 0) return false;
      if (r.empOperatorMask !== null && r.empOperatorMask[o] === 0) return false;
    }
    if (r.evseMask !== null) {
      const e = c.evseOperator[i];
      if (e === -1 || r.evseMask[e] === 0) return false;
    }
    if (r.freeParking !== -1 && (c.flags[i] & 3) !== r.freeParking) return false;
    if (r.freeCharging !== -1 && ((c.flags[i] >> 2) & 3) !== r.freeCharging) return false;
    if (r.facilityCheck && (c.facilities[i] & r.facilityBits) === 0) return false;
    if (r.parkingMask !== null && r.parkingMask[c.parking[i]] === 0) return false;
    if (r.cpCheck) {
      const end = c.cpStart[i + 1];
      let any = false;
      for (let k = c.cpStart[i]; k < end; k++) {
        if (r.plugMask !== null && r.plugMask[c.cpPlug[k]] === 0) continue;
        const p = c.cpPower[k];
        if (p < r.powerGte || p > r.powerLte) continue;
        any = true;
        break;
      }
      if (!any) return false;
    }
    return true;
  }

  /**
   * One page of a search: the matching stations of the primary search that pass the refinement,
   * in D18 order, skipping `offset`; `moreAvailable` when another match follows the page.
   */
  search(primary: PrimarySearch, r: Refinement, offset: number, size: number): PageResult {
    const need = offset + size + 1;
    const found: number[] = [];
    const accept = (i: number): boolean => this.matches(i, r);
    if (primary.kind === 'radius') {
      aroundInto(this.kd, primary.longitude, primary.latitude, primary.radius, need, accept, found);
    } else if (primary.kind === 'bbox' && this.bboxByIdScan(primary, r, need, found)) {
      // Dense box: the first matches in id order were found by a bounded scan.
    } else {
      const candidates = this.candidates(primary);
      if (candidates === null) {
        for (let i = 0, n = this.c.n; i < n && found.length < need; i++) if (this.matches(i, r)) found.push(i);
      } else {
        for (let j = 0; j < candidates.length && found.length < need; j++) {
          if (this.matches(candidates[j], r)) found.push(candidates[j]);
        }
      }
    }
    const end = Math.min(found.length, offset + size);
    return { indices: offset < end ? found.slice(offset, end) : [], moreAvailable: found.length > offset + size };
  }

  /**
   * A box holding many stations (a city at scale holds tens of thousands) is cheaper to answer by
   * walking stations in id order and checking the box than by collecting every hit from the tree
   * and sorting them. Scans at most BBOX_SCAN_FACTOR × need stations; false (and `found` emptied)
   * when the budget runs out first, then the tree range answers (the box is sparse, so few hits).
   */
  private bboxByIdScan(p: Extract<PrimarySearch, { kind: 'bbox' }>, r: Refinement, need: number, found: number[]): boolean {
    const n = this.c.n;
    // Small snapshots: collecting and sorting the tree's hits is always cheap.
    if (n < this.bboxScanMin) return false;
    const budget = Math.min(n, need * BBOX_SCAN_FACTOR);
    const lon = this.lonOf;
    const lat = this.latOf;
    for (let i = 0; i < budget; i++) {
      const x = lon[i];
      const y = lat[i];
      if (x >= p.lonGte && x <= p.lonLte && y >= p.latGte && y <= p.latLte && this.matches(i, r)) {
        found.push(i);
        if (found.length === need) return true;
      }
    }
    if (budget === n) return true;
    found.length = 0;
    return false;
  }

  /** Sorted candidate indices of a non-radius search, or null for "all stations" (export). */
  private candidates(p: Exclude<PrimarySearch, { kind: 'radius' }>): Uint32Array | null {
    switch (p.kind) {
      case 'export':
        return null;
      case 'bbox': {
        const hits = this.kd.range(p.lonGte, p.latGte, p.lonLte, p.latLte);
        return Uint32Array.from(hits).sort();
      }
      case 'id': {
        const set = new Set<number>();
        for (const id of p.ids) {
          const i = this.find(id);
          if (i !== -1) set.add(i);
        }
        return Uint32Array.from(set).sort();
      }
      case 'operator': {
        const lists: number[] = [];
        for (const id of new Set(p.operatorIds.map((x) => x.toLowerCase()))) {
          const k = this.operatorIndex.get(id);
          if (k !== undefined) lists.push(k);
        }
        return gather(lists, this.opOffsets, this.opPostings);
      }
      case 'evse_operator': {
        const lists = new Set<number>();
        for (const e of p.evseOperators) for (const k of this.evseIndex.get(e.toLowerCase()) ?? []) lists.add(k);
        return gather([...lists], this.evseOffsets, this.evsePostings);
      }
    }
  }

  /** Naive baseline for benchmarks and tests: full scan with exact checks. */
  scanBbox(latGte: number, latLte: number, lonGte: number, lonLte: number, r: Refinement, limit: number): number[] {
    const out: number[] = [];
    const ids = this.kd.ids;
    const coords = this.kd.coords;
    // Scan the kdbush arrays in tree order, then sort by station index.
    for (let j = 0; j < ids.length; j++) {
      const x = coords[2 * j];
      const y = coords[2 * j + 1];
      if (x >= lonGte && x <= lonLte && y >= latGte && y <= latLte && this.matches(ids[j], r)) out.push(ids[j]);
    }
    out.sort((a, b) => a - b);
    return out.slice(0, limit);
  }
}

function postings(values: Int32Array, groups: number): [Uint32Array, Uint32Array] {
  const offsets = new Uint32Array(groups + 1);
  for (let i = 0; i < values.length; i++) if (values[i] >= 0) offsets[values[i] + 1]++;
  for (let g = 0; g < groups; g++) offsets[g + 1] += offsets[g];
  const fill = offsets.slice(0, groups);
  const data = new Uint32Array(offsets[groups]);
  for (let i = 0; i < values.length; i++) if (values[i] >= 0) data[fill[values[i]]++] = i;
  return [offsets, data];
}

function gather(groups: number[], offsets: Uint32Array, data: Uint32Array): Uint32Array {
  if (groups.length === 1) return data.subarray(offsets[groups[0]], offsets[groups[0] + 1]);
  let total = 0;
  for (const g of groups) total += offsets[g + 1] - offsets[g];
  const out = new Uint32Array(total);
  let o = 0;
  for (const g of groups) {
    out.set(data.subarray(offsets[g], offsets[g + 1]), o);
    o += offsets[g + 1] - offsets[g];
  }
  return out.sort();
}

/**
 * The index of the station with id `id` among `n` sorted, lower-case 36-byte ids, or -1: binary
 * search compared in place over the id bytes (no key buffer; the single station read's hot path),
 * ASCII letters case-folded, any other non-ASCII character never matches. The one id lookup of the
 * service: the station index and the pricing workers' station view use it.
 */
export function findStationId(ids: Uint8Array, n: number, id: string): number {
  if (id.length !== ID_BYTES) return -1;
  let lo = 0;
  let hi = n - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const o = mid * ID_BYTES;
    let cmp = 0;
    for (let j = 0; j < ID_BYTES; j++) {
      let ch = id.charCodeAt(j);
      if (ch >= 65 && ch <= 90) ch += 32;
      cmp = ch - ids[o + j];
      if (cmp !== 0) break;
    }
    if (cmp === 0) return mid;
    if (cmp > 0) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}
