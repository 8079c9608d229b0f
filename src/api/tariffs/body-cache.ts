/**
 * A small cache of whole list responses, keyed by the canonical query and stamped with the data
 * generations they were built from: between catalog writes a repeated list query is answered with
 * the same bytes, without re-joining its resource fragments or re-encoding the text.
 */
export class BodyCache {
  private readonly map = new Map<string, { stamp: string; body: Buffer }>();

  constructor(private readonly max = 256) {}

  get(key: string, stamp: string): Buffer | undefined {
    const e = this.map.get(key);
    return e !== undefined && e.stamp === stamp ? e.body : undefined;
  }

  set(key: string, stamp: string, body: string): Buffer {
    if (this.map.size >= this.max && !this.map.has(key)) this.map.delete(this.map.keys().next().value as string);
    const buf = Buffer.from(body, 'utf8');
    this.map.set(key, { stamp, body: buf });
    return buf;
  }
}

/** Order-independent key of a parsed query (the last value of each parameter, D9). */
export function queryKey(q: ReadonlyMap<string, string>): string {
  if (q.size === 0) return '';
  const parts: string[] = [];
  for (const [k, v] of q) parts.push(`${k}\u0000${v}`);
  return parts.sort().join('\u0001');
}
