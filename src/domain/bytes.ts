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
}
