/**
 * Station price rows (D288): what a `stationPrices` task answers — per priced station its
 * cheapest pair — as one binary record rather than JSON text, so the main thread reads the numbers
 * where they lie (a shared output slot, or the transferred buffer) instead of parsing them again.
 *
 * Layout (little-endian, as the machine's typed arrays): int32 row count n, int32 byte length of
 * the string table; float64 columns price, energy, duration, power (n each); int32 columns
 * position (in the task's stations), plug and tariff (indices into the string table; n each); the
 * string table, a JSON array of the distinct plug and tariff id strings, UTF-8. The float64 columns
 * start at byte 8, so a record whose first byte is 8-aligned is read without a copy.
 */

const HEAD_BYTES = 8;
/** 4 float64 and 3 int32 columns. */
export const ROW_BYTES = 4 * 8 + 3 * 4;

/** The rows of one record: columns by row, plugs and tariff ids as indices into `strings`. */
export interface StationPriceRows {
  readonly n: number;
  readonly price: Float64Array;
  readonly energy: Float64Array;
  readonly duration: Float64Array;
  readonly power: Float64Array;
  readonly position: Int32Array;
  readonly plug: Int32Array;
  readonly tariff: Int32Array;
  readonly strings: readonly string[];
}

const encoder = new TextEncoder();

function columns(buffer: ArrayBufferLike, at: number, n: number, strings: readonly string[]): StationPriceRows {
  const f = at + HEAD_BYTES;
  const i = f + 32 * n;
  return {
    n,
    price: new Float64Array(buffer, f, n),
    energy: new Float64Array(buffer, f + 8 * n, n),
    duration: new Float64Array(buffer, f + 16 * n, n),
    power: new Float64Array(buffer, f + 24 * n, n),
    position: new Int32Array(buffer, i, n),
    plug: new Int32Array(buffer, i + 4 * n, n),
    tariff: new Int32Array(buffer, i + 8 * n, n),
    strings,
  };
}

/**
 * Writes a record of `n` rows in an ArrayBuffer of its own (transferable): `fill` sets every
 * column of every row, its plug and tariff indices into `strings`.
 */
export function encodeStationPriceRows(n: number, strings: readonly string[], fill: (rows: StationPriceRows) => void): Uint8Array {
  const table = encoder.encode(JSON.stringify(strings));
  const bytes = new Uint8Array(HEAD_BYTES + ROW_BYTES * n + table.length);
  const head = new Int32Array(bytes.buffer, 0, 2);
  head[0] = n;
  head[1] = table.length;
  fill(columns(bytes.buffer, 0, n, strings));
  bytes.set(table, HEAD_BYTES + ROW_BYTES * n);
  return bytes;
}

/**
 * The rows of a record, as views on its bytes (valid as long as they are: a shared output slot
 * until it is released). A record not 8-aligned in its buffer is copied first.
 */
export function decodeStationPriceRows(record: Uint8Array): StationPriceRows {
  const bytes = record.byteOffset % 8 === 0 ? record : record.slice();
  const head = new Int32Array(bytes.buffer, bytes.byteOffset, 2);
  const n = head[0];
  const tableAt = bytes.byteOffset + HEAD_BYTES + ROW_BYTES * n;
  const text = Buffer.from(bytes.buffer, tableAt, head[1]).toString('utf8');
  return columns(bytes.buffer, bytes.byteOffset, n, JSON.parse(text) as string[]);
}
