/**
 * What the station importers share: the import tally (rows read, rows skipped by reason), the
 * station draft every format produces, byte-preserving CSV streaming with per-record decoding,
 * and the operator matching (eMI3 operator id first, then normalized name).
 */
import fs from 'node:fs';
import { parse } from 'csv-parse';
import type { ChargePointRecord, StationRecord } from '../domain/stations/model.js';
import { metresBetween, normalizeOperatorName, operatorIdOf, repairMojibake } from '../domain/stations/normalize.js';

/** Why a source row (or an EVSE id in a kept row) was left out. */
export type SkipReason =
  | 'bad_coordinates'
  | 'coordinates_flagged'
  | 'coordinates_shared'
  | 'coordinates_off_zone'
  | 'duplicate_id'
  | 'missing_id'
  | 'missing_columns'
  | 'bad_encoding'
  | 'malformed_csv'
  | 'malformed_json'
  | 'no_connectors'
  | 'not_in_operation'
  | 'not_published'
  | 'not_a_location'
  | 'duplicate_station';

export class ImportTally {
  rowsRead = 0;
  readonly skipped = new Map<string, number>();
  /** EVSE ids dropped from kept rows (malformed or already used by another device), by reason. */
  readonly evseIdsDropped = new Map<string, number>();
  /** First few examples per reason: `file:row: detail`. */
  readonly examples = new Map<string, string[]>();
  /** Kept rows the import completed or flagged, by what it did (D254). */
  readonly noted = new Map<string, number>();

  skip(reason: SkipReason, where: string): void {
    this.skipped.set(reason, (this.skipped.get(reason) ?? 0) + 1);
    const ex = this.examples.get(reason) ?? [];
    if (ex.length < 3) ex.push(where);
    this.examples.set(reason, ex);
  }

  dropEvse(reason: 'evse_id_invalid' | 'evse_id_duplicate' | 'evse_removed', where: string): void {
    this.evseIdsDropped.set(reason, (this.evseIdsDropped.get(reason) ?? 0) + 1);
    const ex = this.examples.get(reason) ?? [];
    if (ex.length < 3) ex.push(where);
    this.examples.set(reason, ex);
  }

  note(what: 'party_from_evse_ids', where: string): void {
    this.noted.set(what, (this.noted.get(what) ?? 0) + 1);
    const ex = this.examples.get(what) ?? [];
    if (ex.length < 3) ex.push(where);
    this.examples.set(what, ex);
  }

  skippedTotal(): number {
    let n = 0;
    for (const v of this.skipped.values()) n += v;
    return n;
  }
}

/** A station as a format reader produces it, before operator matching. */
export interface StationDraft {
  source_id: string;
  source_label: string;
  name: string;
  latitude: number;
  longitude: number;
  country: string;
  address: string;
  operator_name: string;
  evse_operator: string | null;
  free_charging: boolean | null;
  parking_type: string | null;
  facilities: string[];
  charge_points: ChargePointRecord[];
  /** Data date of the record (ms since epoch), for created_at/updated_at. */
  at: number;
}

/** Progress callback: bytes of the current file consumed so far. */
export type OnBytes = (n: number) => void;

export type Encoding = 'utf-8' | 'windows-1252';

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });
const cp1252 = new TextDecoder('windows-1252');

/**
 * The file's text encoding, from its first 64 KiB: a BOM means UTF-8; otherwise UTF-8 when the
 * sample holds more well-formed UTF-8 multi-byte sequences than malformed ones (a file in UTF-8
 * with a few broken records stays UTF-8, and those records are skipped), else Windows-1252.
 */
export function sniffEncoding(file: string): { encoding: Encoding; bom: boolean } {
  const fd = fs.openSync(file, 'r');
  try {
    const buf = Buffer.alloc(65536);
    const n = fs.readSync(fd, buf, 0, buf.length, 0);
    const b = buf.subarray(0, n);
    if (n >= 3 && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) return { encoding: 'utf-8', bom: true };
    let good = 0;
    let bad = 0;
    for (let i = 0; i < n; i++) {
      const c = b[i];
      if (c < 0x80) continue;
      const len = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
      if (len === 0 || i + len > n) {
        if (i + len <= n) bad++;
        continue;
      }
      let ok = true;
      for (let k = 1; k < len; k++) if ((b[i + k] & 0xc0) !== 0x80) ok = false;
      if (ok) {
        good++;
        i += len - 1;
      } else bad++;
    }
    return { encoding: good >= bad ? 'utf-8' : 'windows-1252', bom: false };
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Decodes one field read as latin1 (one char per byte) in the file's encoding; null when a
 * UTF-8 file holds bytes that are not UTF-8 there (the record is skipped as `bad_encoding`).
 */
export function decodeField(latin1: string, encoding: Encoding): string | null {
  let ascii = true;
  for (let i = 0; i < latin1.length; i++) {
    if (latin1.charCodeAt(i) > 0x7f) {
      ascii = false;
      break;
    }
  }
  if (ascii) return latin1;
  const bytes = Buffer.from(latin1, 'latin1');
  if (encoding === 'windows-1252') return cp1252.decode(bytes);
  try {
    return repairMojibake(strictUtf8.decode(bytes));
  } catch {
    return null;
  }
}

/**
 * Streams the records of a CSV file as arrays of decoded fields with their 1-based record number
 * (header included). Fields are read as bytes (latin1) so that a record with invalid bytes is
 * reported (`null` fields) instead of being silently altered; quoted fields may hold delimiters and
 * line breaks; a record the parser cannot read is counted as `malformed_csv` and skipped.
 */
export async function* csvRecords(
  file: string,
  delimiter: string,
  tally: ImportTally,
  onBytes?: OnBytes,
): AsyncGenerator<{ record: number; fields: string[] | null }> {
  const { encoding, bom } = sniffEncoding(file);
  const input = fs.createReadStream(file, { start: bom ? 3 : 0, highWaterMark: 1 << 16 });
  let bytes = bom ? 3 : 0;
  if (onBytes !== undefined) {
    input.on('data', (chunk) => {
      bytes += chunk.length;
      onBytes(bytes);
    });
  }
  const parser = input.pipe(
    parse({
      delimiter,
      encoding: 'latin1',
      relax_column_count: true,
      relax_quotes: true,
      skip_empty_lines: false,
      skip_records_with_error: true,
      info: true,
    }),
  );
  parser.on('skip', (err: Error & { lines?: number }) => tally.skip('malformed_csv', `${file}:${err.lines ?? '?'}: ${err.message}`));
  for await (const r of parser as AsyncIterable<{ record: string[]; info: { records: number } }>) {
    const out: string[] = new Array<string>(r.record.length);
    let ok = true;
    for (let i = 0; i < r.record.length; i++) {
      const d = decodeField(r.record[i], encoding);
      if (d === null) {
        ok = false;
        break;
      }
      out[i] = d;
    }
    yield { record: r.info.records, fields: ok ? out : null };
  }
}

/** A column lookup by header name; `get` gives '' for a column the file lacks or a short row. */
export class Columns {
  private readonly index = new Map<string, number>();
  constructor(header: string[]) {
    header.forEach((h, i) => {
      const k = h.trim();
      if (k.length > 0 && !this.index.has(k)) this.index.set(k, i);
    });
  }
  has(name: string): boolean {
    return this.index.has(name);
  }
  missing(names: readonly string[]): string[] {
    return names.filter((n) => !this.index.has(n));
  }
  /** Field of a record, trimmed; undefined when the record is too short for the column. */
  get(row: string[], name: string): string | undefined {
    const i = this.index.get(name);
    if (i === undefined) return '';
    return i < row.length ? row[i].trim() : undefined;
  }
  /** Number of columns the header names. */
  get width(): number {
    let w = 0;
    for (const i of this.index.values()) w = Math.max(w, i + 1);
    return w;
  }
}

/** A file-level problem (unreadable header, no known layout): the import stops, nothing is written. */
export class ImportError extends Error {}

export interface KnownOperator {
  id: string;
  name: string;
  evse_operator_ids: string[];
  countries: string[];
  name_variants?: string[];
}

/**
 * Matches station operators to known operators: by eMI3 operator id (`FR*V75`) first, then by
 * normalized name; an operator matched by neither becomes a new one with the id
 * uuid5(NS, "operator:" + normalized name). Keeps the eMI3 ids and countries seen.
 */
export class OperatorMatcher {
  private readonly byEmi3 = new Map<string, KnownOperator>();
  private readonly byName = new Map<string, KnownOperator>();
  private readonly all = new Map<string, KnownOperator>();
  readonly added = new Set<string>();

  constructor(known: Iterable<KnownOperator>) {
    for (const o of known) {
      const copy = { id: o.id, name: o.name, evse_operator_ids: [...o.evse_operator_ids], countries: [...o.countries] };
      this.all.set(copy.id, copy);
      for (const e of copy.evse_operator_ids) if (!this.byEmi3.has(e)) this.byEmi3.set(e, copy);
      for (const n of [o.name, ...(o.name_variants ?? [])]) {
        const k = normalizeOperatorName(n);
        if (k.length > 0 && !this.byName.has(k)) this.byName.set(k, copy);
      }
    }
  }

  /** The operator id for a station's operator name and eMI3 operator id; null without either. */
  match(name: string, emi3: string | null, country: string): string | null {
    let o = emi3 !== null ? this.byEmi3.get(emi3) : undefined;
    const key = normalizeOperatorName(name);
    if (o === undefined && key.length > 0) o = this.byName.get(key);
    if (o === undefined) {
      if (key.length === 0) return null;
      const id = operatorIdOf(name);
      o = this.all.get(id) ?? { id, name: name.trim(), evse_operator_ids: [], countries: [] };
      this.all.set(id, o);
      this.byName.set(key, o);
      this.added.add(id);
    }
    if (emi3 !== null && !o.evse_operator_ids.includes(emi3)) {
      o.evse_operator_ids.push(emi3);
      o.evse_operator_ids.sort();
      if (!this.byEmi3.has(emi3)) this.byEmi3.set(emi3, o);
    }
    if (!o.countries.includes(country)) {
      o.countries.push(country);
      o.countries.sort();
    }
    return o.id;
  }

  /**
   * The eMI3 operator id of an operator in a country when it has exactly one there (IONITY →
   * `DE*ION`): given to its stations whose data carries none.
   */
  soleEmi3(operatorId: string, country: string): string | null {
    const ids = (this.all.get(operatorId)?.evse_operator_ids ?? []).filter((e) => e.startsWith(`${country}*`));
    return ids.length === 1 ? ids[0] : null;
  }

  /** Every operator (known and added), by id. */
  operators(): KnownOperator[] {
    return [...this.all.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }
}

/** The snapshot station row of a draft, with its matched operator. */
export function toStationRecord(d: StationDraft, operatorId: string | null, id: string): StationRecord {
  const evse = new Set<string>();
  for (const c of d.charge_points) for (const e of c.evse_ids) evse.add(e);
  return {
    id,
    name: d.name,
    latitude: d.latitude,
    longitude: d.longitude,
    country: d.country,
    address: d.address,
    operator_id: operatorId,
    evse_operator: d.evse_operator,
    evse_ids: [...evse].sort(),
    free_parking: null,
    free_charging: d.free_charging,
    parking_type: d.parking_type,
    facilities: d.facilities,
    charge_points: d.charge_points,
    source_label: d.source_label,
    source_id: d.source_id,
    version: 1,
    created_at: d.at,
    updated_at: d.at,
    parking_description: null,
    facility_details: [],
    branding: null,
  };
}

/** The most frequent value (ties: the smallest), or null for none. */
export function mostFrequent(values: Iterable<string>): string | null {
  const n = new Map<string, number>();
  for (const v of values) n.set(v, (n.get(v) ?? 0) + 1);
  let best: string | null = null;
  let bestN = 0;
  for (const [v, c] of n) if (c > bestN || (c === bestN && best !== null && v < best)) [best, bestN] = [v, c];
  return best;
}

/** An item at an exact point with an address (D230). */
export interface Addressed {
  lat: number;
  lon: number;
  street: string;
  postcode: string;
}

/** A street for comparing addresses: lower case, `str.` written out, no spaces or hyphens. */
const streetKey = (s: string): string => s.toLowerCase().replace(/str\.?(?=\s|$)/g, 'straße').replace(/[\s-]+/g, '');

/**
 * D230: the items placed on an exact point that items of other addresses share, each with the
 * number of other addresses there. Items that share a street or a postcode count as one address (a
 * typo in either does not move a station); when the point carries several, the address that holds
 * a strict majority of its items keeps it, and the others — all of them when none does — stray.
 */
export function sharedPointStrays<T extends Addressed>(items: readonly T[]): Map<T, number> {
  const byPoint = new Map<string, T[]>();
  for (const d of items) {
    const k = `${d.lat},${d.lon}`;
    const list = byPoint.get(k);
    if (list === undefined) byPoint.set(k, [d]);
    else list.push(d);
  }
  const stray = new Map<T, number>();
  for (const list of byPoint.values()) {
    if (list.length < 2) continue;
    const address = addressesOf(list);
    const sizes = new Map<number, number>();
    for (const a of address) sizes.set(a, (sizes.get(a) ?? 0) + 1);
    if (sizes.size < 2) continue;
    let keep = -1;
    for (const [a, n] of sizes) if (n * 2 > list.length) keep = a;
    list.forEach((d, i) => {
      if (address[i] !== keep) stray.set(d, sizes.size - 1);
    });
  }
  return stray;
}

/** Per item of one point, its address: items sharing a street or a postcode, transitively, have the same number. */
function addressesOf(list: readonly Addressed[]): number[] {
  const parent = list.map((_, i) => i);
  const root = (i: number): number => (parent[i] === i ? i : (parent[i] = root(parent[i])));
  for (let i = 0; i < list.length; i++) {
    for (let j = 0; j < i; j++) {
      const sameStreet = streetKey(list[i].street) === streetKey(list[j].street);
      const samePostcode = list[i].postcode !== '' && list[i].postcode === list[j].postcode;
      if (sameStreet || samePostcode) parent[root(i)] = root(j);
    }
  }
  return list.map((_, i) => root(i));
}

/** A located item of a zone (DE: the postcode's first two digits; FR: the INSEE commune's department). */
export interface Zoned {
  zone: string | null;
  lat: number;
  lon: number;
}

/** Zones with fewer items are not judged: their spread says too little (D231). */
export const ZONE_MIN_ITEMS = 20;

/**
 * How far from the median point of its zone's items an item may lie (D231): about the size of the
 * largest zones (French departments and German two-digit postcode zones measure up to 150–200 km
 * across), so only a position in another region is caught, never one at a zone's far end.
 */
export const ZONE_LIMIT_M = 150_000;

/**
 * D231: the items farther than ZONE_LIMIT_M from the median point (component-wise medians) of
 * their zone's items. A zone of fewer than ZONE_MIN_ITEMS items, and an item without a zone, are
 * not judged.
 */
export function offZone<T extends Zoned>(items: readonly T[]): Set<T> {
  const byZone = new Map<string, T[]>();
  for (const it of items) {
    if (it.zone === null) continue;
    const list = byZone.get(it.zone);
    if (list === undefined) byZone.set(it.zone, [it]);
    else list.push(it);
  }
  const out = new Set<T>();
  for (const list of byZone.values()) {
    if (list.length < ZONE_MIN_ITEMS) continue;
    const lat = median(list.map((x) => x.lat));
    const lon = median(list.map((x) => x.lon));
    for (const x of list) if (metresBetween(lat, lon, x.lat, x.lon) > ZONE_LIMIT_M) out.add(x);
  }
  return out;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m] : (s[m - 1] + s[m]) / 2;
}
