/**
 * A small cache of whole list responses, keyed by the canonical query and stamped with the data
 * generations they were built from: between catalog writes a repeated list query is answered with
 * the same bytes, without re-joining its resource fragments or re-encoding the text.
 */
export class BodyCache {
  private readonly map = new Map<string, { stamp: string; body: Buffer }>();
  private bytes = 0;

  /**
   * Bounded (D101): at most `max` entries and `maxBytes` of bodies (oldest out first); bodies over
   * `maxBodyBytes` and keys over `maxKeyLength` characters are served but not kept.
   */
  constructor(
    private readonly max = 256,
    private readonly maxBytes = 32 * 1024 * 1024,
    private readonly maxBodyBytes = 1024 * 1024,
    private readonly maxKeyLength = 2048,
  ) {}

  get(key: string, stamp: string): Buffer | undefined {
    const e = this.map.get(key);
    return e !== undefined && e.stamp === stamp ? e.body : undefined;
  }

  set(key: string, stamp: string, body: string): Buffer {
    const buf = Buffer.from(body, 'utf8');
    if (buf.length > this.maxBodyBytes || key.length > this.maxKeyLength) return buf;
    const old = this.map.get(key);
    if (old !== undefined) {
      this.bytes -= old.body.length + key.length;
      this.map.delete(key);
    }
    while (this.map.size > 0 && (this.map.size >= this.max || this.bytes + buf.length + key.length > this.maxBytes)) {
      const [k, e] = this.map.entries().next().value as [string, { body: Buffer }];
      this.bytes -= e.body.length + k.length;
      this.map.delete(k);
    }
    this.map.set(key, { stamp, body: buf });
    this.bytes += buf.length + key.length;
    return buf;
  }

  /** Entries and bytes held (tests). */
  get size(): { entries: number; bytes: number } {
    return { entries: this.map.size, bytes: this.bytes };
  }
}

/** Order-independent key of a parsed query (the last value of each parameter, D9). */
export function queryKey(q: ReadonlyMap<string, string>): string {
  if (q.size === 0) return '';
  const parts: string[] = [];
  for (const [k, v] of q) parts.push(`${k}\u0000${v}`);
  return parts.sort().join('\u0001');
}
