/**
 * CSV of D238 written from the GeoJSON features' bytes (FeatureWriter) without parsing them: each
 * property's JSON text is found by a small scanner and copied into its cell (numbers and booleans
 * as they are, null empty, strings unquoted from JSON and quoted for CSV, lists and objects as
 * their JSON text with quotes doubled). A string with a JSON escape takes the straightforward path
 * (`csvCell` of the parsed string). The twin is `csvOfFeatures` (parse the collection, `csvRow`
 * per feature); a test compares the two byte for byte over every station of the test snapshot.
 * Measured with `npm run bench:stations`: a page of 400 stations in a fraction of the twin's time
 * (bench/RESULTS.md, "Representations").
 */
import { GrowableBytes, jsonStringEnd } from '../../domain/bytes.js';
import { csvCell } from '../../domain/csv.js';
import { CSV_COLUMNS } from '../station-features.js';

const QUOTE = 0x22;
const COMMA = 0x2c;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const KEYS = CSV_COLUMNS.map((c) => Buffer.from(`"${c}"`));
const ID = CSV_COLUMNS.indexOf('id');
const HEADER = Buffer.from(`${CSV_COLUMNS.join(',')}\r\n`);
const FEATURES = Buffer.from('"features":[');
const PROPERTIES = Buffer.from('"properties"');
const ID_KEY = Buffer.from('"id"');

export class CsvWriter extends GrowableBytes {
  /** Per column, the start and end of its value's JSON text in the collection (-1: absent). */
  private readonly slots = new Int32Array(CSV_COLUMNS.length * 2);

  constructor() {
    super(1 << 18);
  }

  /** The CSV (header and a row per feature, CRLF) as a view of a reused buffer, valid until the next call. */
  write(b: Buffer): Buffer {
    this.pos = 0;
    this.put(HEADER);
    let at = b.indexOf(FEATURES) + FEATURES.length;
    while (b[at] === 0x7b) {
      this.slots.fill(-1);
      at = this.feature(b, at);
      this.row(b);
      if (b[at] === COMMA) at++;
    }
    return this.buf.subarray(0, this.pos);
  }

  /** Records the id and the properties of the feature object at `at`; returns the index past it. */
  private feature(b: Buffer, at: number): number {
    let k = at + 1;
    while (b[k] === QUOTE) {
      const keyEnd = jsonStringEnd(b, k);
      const value = keyEnd + 1;
      const end = same(b, k, keyEnd, PROPERTIES) ? this.properties(b, value) : valueEnd(b, value);
      if (same(b, k, keyEnd, ID_KEY)) this.keep(ID, value, end);
      k = b[end] === COMMA ? end + 1 : end;
    }
    return k + 1;
  }

  /** Records the columns of the properties object at `at`; returns the index past it. */
  private properties(b: Buffer, at: number): number {
    let k = at + 1;
    let guess = 0;
    while (b[k] === QUOTE) {
      const keyEnd = jsonStringEnd(b, k);
      const value = keyEnd + 1;
      const end = valueEnd(b, value);
      // Keys come in the same order in every feature: try the column after the last one first.
      let col = -1;
      for (let n = 0; n < KEYS.length && col === -1; n++) {
        const c = (guess + n) % KEYS.length;
        if (same(b, k, keyEnd, KEYS[c])) col = c;
      }
      if (col !== -1) {
        this.keep(col, value, end);
        guess = col + 1;
      }
      k = b[end] === COMMA ? end + 1 : end;
    }
    return k + 1;
  }

  private keep(col: number, start: number, end: number): void {
    this.slots[2 * col] = start;
    this.slots[2 * col + 1] = end;
  }

  private row(b: Buffer): void {
    for (let col = 0; col < KEYS.length; col++) {
      if (col > 0) this.putByte(COMMA);
      const start = this.slots[2 * col];
      if (start !== -1) this.cell(b, start, this.slots[2 * col + 1]);
    }
    this.putByte(0x0d);
    this.putByte(0x0a);
  }

  private cell(b: Buffer, start: number, end: number): void {
    const first = b[start];
    if (first === 0x6e) return; // null
    if (first === QUOTE) return this.text(b, start, end);
    if (first !== 0x5b && first !== 0x7b) return this.putShort(b, start, end); // number, true, false
    // A list or an object: its JSON text, quoted when it holds a quote or a comma.
    let plain = true;
    for (let k = start; k < end && plain; k++) if (b[k] === QUOTE || b[k] === COMMA) plain = false;
    if (plain) return this.putShort(b, start, end);
    // Copied byte by byte, quotes doubled (a native copy per quote cost more than the loop).
    this.ensure(2 * (end - start) + 2);
    const out = this.buf;
    let p = this.pos;
    out[p++] = QUOTE;
    for (let k = start; k < end; k++) {
      const x = b[k];
      out[p++] = x;
      if (x === QUOTE) out[p++] = QUOTE;
    }
    out[p++] = QUOTE;
    this.pos = p;
  }

  /** A JSON string: its characters, with the formula guard and CSV quoting of `csvCell`. */
  private text(b: Buffer, start: number, end: number): void {
    let comma = false;
    for (let k = start + 1; k < end - 1; k++) {
      if (b[k] === BACKSLASH) {
        this.putUtf8(csvCell(JSON.parse(b.toString('utf8', start, end)) as string));
        return;
      }
      if (b[k] === COMMA) comma = true;
    }
    const c = b[start + 1];
    // = + - @ (TAB and CR would be escaped, so they took the path above).
    const formula = end - start > 2 && (c === 0x3d || c === 0x2b || c === 0x2d || c === 0x40);
    if (comma) this.putByte(QUOTE);
    if (formula) this.putByte(0x27);
    this.putShort(b, start + 1, end - 1);
    if (comma) this.putByte(QUOTE);
  }
}

/** Bytes [start, end) of `b` equal `key`. */
function same(b: Buffer, start: number, end: number, key: Buffer): boolean {
  if (end - start !== key.length) return false;
  for (let k = 0; k < key.length; k++) if (b[start + k] !== key[k]) return false;
  return true;
}

/** Past the JSON value after the colon at `colon` (the key's end); the value starts at colon + 1. */
function valueEnd(b: Buffer, at: number): number {
  if (b[at - 1] !== COLON) throw new Error('CSV writer: malformed feature');
  const c = b[at];
  if (c === QUOTE) return jsonStringEnd(b, at);
  if (c === 0x5b || c === 0x7b) {
    let depth = 0;
    let k = at;
    for (;;) {
      const x = b[k];
      if (x === QUOTE) {
        k = jsonStringEnd(b, k);
        continue;
      }
      if (x === 0x5b || x === 0x7b) depth++;
      else if ((x === 0x5d || x === 0x7d) && --depth === 0) return k + 1;
      k++;
    }
  }
  let k = at;
  while (b[k] !== COMMA && b[k] !== 0x7d && b[k] !== 0x5d) k++;
  return k;
}
