/** A growable byte buffer reused across requests: documents are written into it without intermediate strings. */
export class GrowableBytes {
  buf: Buffer;
  /** Bytes written so far. */
  pos = 0;

  constructor(capacity: number) {
    this.buf = Buffer.allocUnsafe(capacity);
  }

  /** Makes room for `n` more bytes (doubling; what was written is kept). */
  ensure(n: number): void {
    const need = this.pos + n;
    if (need <= this.buf.length) return;
    let cap = this.buf.length * 2;
    while (cap < need) cap *= 2;
    const next = Buffer.allocUnsafe(cap);
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  /** Appends bytes [start, end) of `src`. */
  put(src: Buffer, start = 0, end = src.length): void {
    this.ensure(end - start);
    this.pos += src.copy(this.buf, this.pos, start, end);
  }

  /** Appends a string whose characters are all below 0x100 (latin1, one byte each). */
  putLatin1(s: string): void {
    this.ensure(s.length);
    this.pos += this.buf.write(s, this.pos, 'latin1');
  }

  /** Appends any string as UTF-8. */
  putUtf8(s: string): void {
    this.ensure(Buffer.byteLength(s));
    this.pos += this.buf.write(s, this.pos, 'utf8');
  }

  putByte(v: number): void {
    this.ensure(1);
    this.buf[this.pos++] = v;
  }

  /**
   * Appends bytes [start, end) of `src`, a short run byte by byte: a native copy costs more per
   * call than this loop below about 64 bytes (the GeoJSON and CSV writers copy several short runs
   * per station, src/api/station-features.ts, station-csv.ts). Longer runs go to `put`.
   */
  putShort(src: Buffer, start: number, end: number): void {
    if (end - start > 64) return this.put(src, start, end);
    this.ensure(end - start);
    const buf = this.buf;
    let p = this.pos;
    for (let k = start; k < end; k++) buf[p++] = src[k];
    this.pos = p;
  }
}

/** Past the JSON string whose opening quote is at `at` in `b` (its escapes skipped). */
export function jsonStringEnd(b: Buffer, at: number): number {
  let k = at + 1;
  for (;;) {
    const c = b[k];
    if (c === 0x5c) k += 2;
    else if (c === 0x22) return k + 1;
    else k++;
  }
}
