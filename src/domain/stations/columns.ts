/**
 * Struct-of-arrays form of all stations, built once by the snapshot writer and stored in the
 * snapshot as typed-array blobs, so the service loads 1 M stations without decoding rows:
 *
 * - station i is the i-th station in ascending id order (ids are lower-case UUIDs, 36 bytes each),
 *   so "by id" (D18) is index order;
 * - filter attributes (operator, country, EVSE operator, flags, parking type, facility bitmask)
 *   and charge point groups (plug, energy type, power, count) as parallel typed arrays;
 * - the prebuilt kdbush index over (longitude, latitude);
 * - each station's list resource object (D28) pre-serialized once as UTF-8 JSON ("fragment"), with
 *   the byte positions of the few values spliced per request (operator reference, D21; each
 *   group's `available_count`, D3).
 */
import KDBush from 'kdbush';
import type { StationRecord } from './model.js';

export const ID_BYTES = 36;
/** flags: bits 0-1 free_parking, bits 2-3 free_charging; 0 = null, 1 = false, 2 = true. */
export const TRI_NULL = 0;
export const TRI_FALSE = 1;
export const TRI_TRUE = 2;
export const NO_OPERATOR = -1;

export interface StationDictionaries {
  /** Operator (company) ids referenced by stations, sorted. */
  operators: string[];
  countries: string[];
  /** EVSE operator ids as stored (case kept). */
  evseOperators: string[];
  /** Index k+1 in `parking` (0 = null). */
  parkingTypes: string[];
  /** Bit k of `facilities`. At most 32 distinct values. */
  facilities: string[];
  plugs: string[];
}

export interface StationColumns {
  n: number;
  /** n × 36 bytes of lower-case ASCII ids, ascending. */
  ids: Buffer;
  /** kdbush index data over (longitude, latitude); item id = station index. */
  kdbush: ArrayBuffer;
  operator: Int32Array;
  country: Uint16Array;
  evseOperator: Int32Array;
  flags: Uint8Array;
  parking: Uint8Array;
  facilities: Uint32Array;
  /** Charge point groups of station i: cpStart[i] .. cpStart[i+1]-1. */
  cpStart: Uint32Array;
  cpPlug: Uint8Array;
  /** 0 = ac, 1 = dc. */
  cpEnergy: Uint8Array;
  cpPower: Float64Array;
  cpCount: Uint32Array;
  /** Byte offset, within the station's fragment, of the group's `available_count` literal `null`. */
  cpAvailPos: Uint32Array;
  /**
   * Fragment of station i: bytes [fragStart[i] − chunkStart[k], fragStart[i+1] − chunkStart[k]) of
   * fragments[k], k = fragChunk[i]. Fragments are kept in the chunks they are stored in (no
   * fragment spans two chunks), so loading never concatenates them.
   */
  fragStart: Float64Array;
  fragChunk: Uint8Array;
  chunkStart: Float64Array;
  /** Byte offset within the fragment of the operator reference object, -1 when the station has no operator. */
  opPos: Int32Array;
  fragments: Buffer[];
  dict: StationDictionaries;
  /**
   * 1 when station i has single-read-only data not held in memory (a parking description or
   * facility details, D30), else 0. Absent in snapshots built before this column existed: then
   * every single read takes the snapshot row.
   */
  extras?: Uint8Array;
}

const te = new TextEncoder();

class Grow<T extends Float64Array | Uint32Array | Int32Array | Uint16Array | Uint8Array> {
  arr: T;
  len = 0;
  constructor(private readonly make: (n: number) => T, cap = 1024) {
    this.arr = make(cap);
  }
  push(v: number): void {
    if (this.len === this.arr.length) {
      const next = this.make(this.arr.length * 2);
      next.set(this.arr);
      this.arr = next;
    }
    this.arr[this.len++] = v;
  }
  done(): T {
    return this.arr.slice(0, this.len) as T;
  }
}

const tri = (b: boolean | null): number => (b === null ? TRI_NULL : b ? TRI_TRUE : TRI_FALSE);
const js = JSON.stringify;

/**
 * Builds the columns from station records given in ascending id order. Two passes are avoided:
 * dictionaries grow as values appear and are remapped to sorted order in `finish()`.
 */
export class StationColumnsBuilder {
  private n = 0;
  private lastId = '';
  private readonly idChunks: Buffer[] = [];
  private idBuf = Buffer.alloc(ID_BYTES * 65536);
  private idLen = 0;
  private readonly lon = new Grow((n) => new Float64Array(n));
  private readonly lat = new Grow((n) => new Float64Array(n));
  private readonly operator = new Grow((n) => new Int32Array(n));
  private readonly country = new Grow((n) => new Uint16Array(n));
  private readonly evseOperator = new Grow((n) => new Int32Array(n));
  private readonly flags = new Grow((n) => new Uint8Array(n));
  private readonly parking = new Grow((n) => new Uint8Array(n));
  private readonly facilities = new Grow((n) => new Uint32Array(n));
  private readonly cpStart = new Grow((n) => new Uint32Array(n));
  private readonly cpPlug = new Grow((n) => new Uint8Array(n));
  private readonly cpEnergy = new Grow((n) => new Uint8Array(n));
  private readonly cpPower = new Grow((n) => new Float64Array(n));
  private readonly cpCount = new Grow((n) => new Uint32Array(n));
  private readonly cpAvailPos = new Grow((n) => new Uint32Array(n));
  private readonly fragStart = new Grow((n) => new Float64Array(n));
  private readonly opPos = new Grow((n) => new Int32Array(n));
  private readonly extras = new Grow((n) => new Uint8Array(n));
  private readonly fragChunks: Buffer[] = [];
  private frag = Buffer.alloc(16 * 1024 * 1024);
  private fragLen = 0;
  private fragTotal = 0;
  private readonly dicts = {
    operators: new Map<string, number>(),
    countries: new Map<string, number>(),
    evseOperators: new Map<string, number>(),
    parkingTypes: new Map<string, number>(),
    facilities: new Map<string, number>(),
    plugs: new Map<string, number>(),
  };

  private static code(m: Map<string, number>, v: string, max: number, what: string): number {
    let c = m.get(v);
    if (c === undefined) {
      c = m.size;
      if (c >= max) throw new Error(`more than ${max} distinct ${what} values`);
      m.set(v, c);
    }
    return c;
  }

  add(s: StationRecord): void {
    const id = s.id;
    if (id.length !== ID_BYTES || id !== id.toLowerCase() || !/^[0-9a-f-]{36}$/.test(id)) {
      throw new Error(`station id must be a lower-case UUID: ${id}`);
    }
    if (this.n > 0 && !(id > this.lastId)) throw new Error(`stations must be in ascending id order (${id})`);
    this.lastId = id;
    if (this.idLen === this.idBuf.length) {
      this.idChunks.push(this.idBuf);
      this.idBuf = Buffer.alloc(this.idBuf.length);
      this.idLen = 0;
    }
    this.idBuf.write(id, this.idLen, 'latin1');
    this.idLen += ID_BYTES;

    const d = this.dicts;
    this.lon.push(s.longitude);
    this.lat.push(s.latitude);
    this.operator.push(s.operator_id === null ? NO_OPERATOR : StationColumnsBuilder.code(d.operators, s.operator_id, 2 ** 31, 'operator'));
    this.country.push(StationColumnsBuilder.code(d.countries, s.country, 65535, 'country'));
    this.evseOperator.push(
      s.evse_operator === null ? -1 : StationColumnsBuilder.code(d.evseOperators, s.evse_operator, 2 ** 31, 'evse_operator'),
    );
    this.flags.push(tri(s.free_parking) | (tri(s.free_charging) << 2));
    this.parking.push(s.parking_type === null ? 0 : StationColumnsBuilder.code(d.parkingTypes, s.parking_type, 255, 'parking_type') + 1);
    let fac = 0;
    for (const f of s.facilities) fac |= 1 << StationColumnsBuilder.code(d.facilities, f, 32, 'facility');
    this.facilities.push(fac >>> 0);
    this.extras.push(s.parking_description !== null || s.facility_details.length > 0 ? 1 : 0);

    // Fragment (list variant, D28) with the positions of the spliced values.
    const parts: string[] = [];
    let pos = 0;
    const put = (str: string): void => {
      parts.push(str);
      pos += Buffer.byteLength(str, 'utf8');
    };
    put(
      `{"id":${js(id)},"type":"charging_station","attributes":{"name":${js(s.name)},"latitude":${js(s.latitude)},` +
        `"longitude":${js(s.longitude)},"country":${js(s.country)},"address":${js(s.address)},` +
        `"free_parking":${js(s.free_parking)},"free_charging":${js(s.free_charging)},"evse_operator":${js(s.evse_operator)},` +
        `"evse_ids":${js(s.evse_ids)},"charge_points":[`,
    );
    this.cpStart.push(this.cpPlug.len);
    s.charge_points.forEach((c, k) => {
      this.cpPlug.push(StationColumnsBuilder.code(d.plugs, c.plug, 255, 'plug'));
      this.cpEnergy.push(c.energy_type === 'dc' ? 1 : 0);
      this.cpPower.push(c.power);
      this.cpCount.push(c.count);
      put(
        `${k > 0 ? ',' : ''}{"plug":${js(c.plug)},"energy_type":${js(c.energy_type)},"power":${js(c.power)},` +
          `"count":${js(c.count)},"evse_ids":${js(c.evse_ids)},"available_count":`,
      );
      this.cpAvailPos.push(pos);
      put('null}');
    });
    put(
      `],"facilities":${js(s.facilities)},"parking_type":${js(s.parking_type)},"created_at":${js(s.created_at)},` +
        `"updated_at":${js(s.updated_at)},"version":${js(s.version)},"source_label":${js(s.source_label)}},` +
        `"relationships":{"operator":{"data":`,
    );
    if (s.operator_id === null) {
      this.opPos.push(-1);
      put('null');
    } else {
      this.opPos.push(pos);
      put(`{"type":"company","id":${js(s.operator_id)}}`);
    }
    put(`}},"meta":{"branding":${s.branding === null ? 'null' : js({ map_pin_icon_url: s.branding.map_pin_icon_url })}}}`);
    this.fragStart.push(this.fragTotal);
    const bytes = te.encode(parts.join(''));
    if (this.fragLen + bytes.length > this.frag.length) {
      this.fragChunks.push(this.frag.subarray(0, this.fragLen));
      this.frag = Buffer.alloc(Math.max(this.frag.length, bytes.length));
      this.fragLen = 0;
    }
    this.frag.set(bytes, this.fragLen);
    this.fragLen += bytes.length;
    this.fragTotal += bytes.length;
    this.n++;
  }

  finish(): StationColumns {
    const n = this.n;
    this.cpStart.push(this.cpPlug.len);
    this.fragStart.push(this.fragTotal);
    this.idChunks.push(this.idBuf.subarray(0, this.idLen));
    this.fragChunks.push(this.frag.subarray(0, this.fragLen));
    const lon = this.lon.done();
    const lat = this.lat.done();
    const kd = new KDBush(n, 64, Float64Array);
    for (let i = 0; i < n; i++) kd.add(lon[i], lat[i]);
    kd.finish();

    // Sorted dictionaries (deterministic output independent of first appearance).
    const d = this.dicts;
    const sortDict = (m: Map<string, number>): { values: string[]; remap: Int32Array } => {
      const values = [...m.keys()].sort();
      const remap = new Int32Array(m.size);
      values.forEach((v, i) => (remap[m.get(v)!] = i));
      return { values, remap };
    };
    const ops = sortDict(d.operators);
    const countries = sortDict(d.countries);
    const evse = sortDict(d.evseOperators);
    const parkingTypes = sortDict(d.parkingTypes);
    const facilities = sortDict(d.facilities);
    const plugs = sortDict(d.plugs);
    const operator = this.operator.done();
    for (let i = 0; i < n; i++) if (operator[i] !== NO_OPERATOR) operator[i] = ops.remap[operator[i]];
    const country = this.country.done();
    for (let i = 0; i < n; i++) country[i] = countries.remap[country[i]];
    const evseOperator = this.evseOperator.done();
    for (let i = 0; i < n; i++) if (evseOperator[i] !== -1) evseOperator[i] = evse.remap[evseOperator[i]];
    const parking = this.parking.done();
    for (let i = 0; i < n; i++) if (parking[i] !== 0) parking[i] = parkingTypes.remap[parking[i] - 1] + 1;
    const fac = this.facilities.done();
    for (let i = 0; i < n; i++) {
      let v = fac[i];
      let out = 0;
      while (v !== 0) {
        const b = 31 - Math.clz32(v);
        out |= 1 << facilities.remap[b];
        v &= ~(1 << b);
      }
      fac[i] = out >>> 0;
    }
    const cpPlug = this.cpPlug.done();
    for (let k = 0; k < cpPlug.length; k++) cpPlug[k] = plugs.remap[cpPlug[k]];

    return {
      n,
      ids: Buffer.concat(this.idChunks),
      kdbush: kd.data as ArrayBuffer,
      operator,
      country,
      evseOperator,
      flags: this.flags.done(),
      parking,
      facilities: fac,
      cpStart: this.cpStart.done(),
      cpPlug,
      cpEnergy: this.cpEnergy.done(),
      cpPower: this.cpPower.done(),
      cpCount: this.cpCount.done(),
      cpAvailPos: this.cpAvailPos.done(),
      opPos: this.opPos.done(),
      extras: this.extras.done(),
      ...chunking(this.fragChunks, this.fragStart.done()),
      dict: {
        operators: ops.values,
        countries: countries.values,
        evseOperators: evse.values,
        parkingTypes: parkingTypes.values,
        facilities: facilities.values,
        plugs: plugs.values,
      },
    };
  }
}

const TYPED = [
  'operator', 'country', 'evseOperator', 'flags', 'parking', 'facilities', 'cpStart', 'cpPlug', 'cpEnergy',
  'cpPower', 'cpCount', 'cpAvailPos', 'fragStart', 'opPos',
] as const;
// (fragStart is stored; fragChunk and chunkStart are derived at load.)

/** Columns → named binary blobs (little-endian typed arrays, as the platform stores them). */
export function encodeColumns(c: StationColumns): Array<[string, Buffer]> {
  const out: Array<[string, Buffer]> = [
    ['meta', Buffer.from(JSON.stringify({ n: c.n, dict: c.dict }))],
    ['ids', c.ids],
    ['kdbush', Buffer.from(c.kdbush)],
  ];
  for (const k of TYPED) {
    const a = c[k];
    out.push([k, Buffer.from(a.buffer, a.byteOffset, a.byteLength)]);
  }
  if (c.extras !== undefined) out.push(['extras', Buffer.from(c.extras.buffer, c.extras.byteOffset, c.extras.byteLength)]);
  c.fragments.forEach((f, k) => out.push([`fragments:${String(k).padStart(4, '0')}`, f]));
  return out;
}

/** Chunk of each station and chunk start offsets, from the chunks and the global fragment starts. */
function chunking(chunks: Buffer[], fragStart: Float64Array): Pick<StationColumns, 'fragments' | 'fragStart' | 'fragChunk' | 'chunkStart'> {
  if (chunks.length > 255) throw new Error('too many fragment chunks');
  const chunkStart = new Float64Array(chunks.length + 1);
  for (let k = 0; k < chunks.length; k++) chunkStart[k + 1] = chunkStart[k] + chunks[k].length;
  const n = fragStart.length - 1;
  const fragChunk = new Uint8Array(n);
  let k = 0;
  for (let i = 0; i < n; i++) {
    while (k < chunks.length - 1 && fragStart[i] >= chunkStart[k + 1]) k++;
    if (fragStart[i + 1] > chunkStart[k + 1]) throw new Error(`fragment of station ${i} spans two chunks`);
    fragChunk[i] = k;
  }
  return { fragments: chunks, fragStart, fragChunk, chunkStart };
}

type Ctor<T> = { new (b: ArrayBufferLike, byteOffset?: number, length?: number): T; BYTES_PER_ELEMENT: number };

/** A typed array over a blob: a view when the blob is aligned (no copy), else an aligned copy. */
function typed<T>(C: Ctor<T>, b: Buffer): T {
  if (b.byteOffset % C.BYTES_PER_ELEMENT === 0) return new C(b.buffer, b.byteOffset, b.byteLength / C.BYTES_PER_ELEMENT);
  const ab = new ArrayBuffer(b.byteLength);
  new Uint8Array(ab).set(b);
  return new C(ab);
}

/**
 * Named blobs → columns (the reverse of encodeColumns); fragment chunks in stored order, or null to
 * attach them later with attachFragments (so the large read can overlap other start-up work).
 */
export function decodeColumns(get: (name: string) => Buffer | undefined, fragmentParts: Buffer[] | null): StationColumns {
  const need = (k: string): Buffer => {
    const b = get(k);
    if (b === undefined) throw new Error(`station column "${k}" missing from the snapshot`);
    return b;
  };
  const meta = JSON.parse(need('meta').toString('utf8')) as { n: number; dict: StationDictionaries };
  const extras = get('extras');
  const kdb = need('kdbush');
  let kd: ArrayBuffer;
  if (kdb.byteOffset === 0 && kdb.byteLength === kdb.buffer.byteLength && kdb.buffer instanceof ArrayBuffer) kd = kdb.buffer;
  else {
    kd = new ArrayBuffer(kdb.byteLength);
    new Uint8Array(kd).set(kdb);
  }
  return {
    n: meta.n,
    dict: meta.dict,
    ids: need('ids'),
    kdbush: kd,
    operator: typed(Int32Array, need('operator')),
    country: typed(Uint16Array, need('country')),
    evseOperator: typed(Int32Array, need('evseOperator')),
    flags: typed(Uint8Array, need('flags')),
    parking: typed(Uint8Array, need('parking')),
    facilities: typed(Uint32Array, need('facilities')),
    cpStart: typed(Uint32Array, need('cpStart')),
    cpPlug: typed(Uint8Array, need('cpPlug')),
    cpEnergy: typed(Uint8Array, need('cpEnergy')),
    cpPower: typed(Float64Array, need('cpPower')),
    cpCount: typed(Uint32Array, need('cpCount')),
    cpAvailPos: typed(Uint32Array, need('cpAvailPos')),
    opPos: typed(Int32Array, need('opPos')),
    ...(extras === undefined ? {} : { extras: typed(Uint8Array, extras) }),
    ...(fragmentParts === null
      ? { fragments: [], fragStart: typed(Float64Array, need('fragStart')), fragChunk: new Uint8Array(0), chunkStart: new Float64Array(1) }
      : chunking(fragmentParts, typed(Float64Array, need('fragStart')))),
  };
}

/** Completes columns decoded without fragments. */
export function attachFragments(c: StationColumns, fragmentParts: Buffer[]): void {
  Object.assign(c, chunking(fragmentParts, c.fragStart));
}

/** The fragment of station i (a view; for tests, tools and cold paths). */
export function fragmentOf(c: StationColumns, i: number): Buffer {
  const k = c.fragChunk[i];
  const base = c.chunkStart[k];
  return c.fragments[k].subarray(c.fragStart[i] - base, c.fragStart[i + 1] - base);
}

/** Bytes before the name's JSON string in every fragment (the id has a fixed length). */
const NAME_AT = Buffer.byteLength(`{"id":"${'0'.repeat(ID_BYTES)}","type":"charging_station","attributes":{"name":`);

/** Station i's name, read from its fragment (the list variant begins with id, type and name). */
export function fragmentName(c: StationColumns, i: number): string {
  const chunk = c.fragChunk[i];
  const f = c.fragments[chunk];
  const start = c.fragStart[i] - c.chunkStart[chunk] + NAME_AT;
  if (f[start] !== 0x22) return '';
  let escaped = false;
  let j = start + 1;
  while (f[j] !== 0x22) {
    if (f[j] === 0x5c) {
      escaped = true;
      j++;
    }
    j++;
  }
  return escaped ? (JSON.parse(f.toString('utf8', start, j + 1)) as string) : f.toString('utf8', start + 1, j);
}
