import type { CompressedForms } from './types.js';

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

/** Page cache lookups of the process, over every route table (snapshot swaps), by result (D262). */
export const PAGE_CACHE_COUNTS = { hit: 0, miss: 0 };

/** A kept answer: its body, its headers and its compressed copies (D262). */
export class KeptPage implements CompressedForms {
  br: Buffer | undefined = undefined;
  gzip: Buffer | undefined = undefined;

  constructor(
    readonly stamp: string,
    readonly body: Buffer,
    readonly headers: Readonly<Record<string, string>>,
    private readonly owner: PageCache,
    readonly key: string,
  ) {}

  get(enc: 'br' | 'gzip'): Buffer | undefined {
    return this[enc];
  }

  keep(enc: 'br' | 'gzip', body: Buffer): void {
    if (this[enc] !== undefined) return;
    this[enc] = body;
    this.owner.grew(this, body.length);
  }
}

/**
 * Whole answers of one route in every representation (D262), stamped with their validator:
 * bounded in entries and bytes (bodies and compressed copies together), oldest out first;
 * bodies over `maxBodyBytes` and keys over `maxKeyLength` characters are served but not kept.
 */
export class PageCache {
  private readonly map = new Map<string, KeptPage>();
  private bytes = 0;
  constructor(
    /** Lookups that found a current page, and those that did not (the process's, for /metrics). */
    readonly counts: { hit: number; miss: number } = PAGE_CACHE_COUNTS,
    private readonly max = 64,
    private readonly maxBytes = 48 * 1024 * 1024,
    private readonly maxBodyBytes = 2 * 1024 * 1024,
    private readonly maxKeyLength = 2048,
    /** The page found by a lookup becomes the newest (least recently used out first); else oldest written out first. */
    private readonly recentKept = false,
  ) {}

  get(key: string, stamp: string): KeptPage | undefined {
    const e = this.map.get(key);
    if (e !== undefined && e.stamp === stamp) {
      this.counts.hit++;
      if (this.recentKept) {
        this.map.delete(key);
        this.map.set(key, e);
      }
      return e;
    }
    this.counts.miss++;
    return undefined;
  }

  /** Keeps a copy of `body` (often a view of a reused buffer); returns the kept page, or null when not kept. */
  set(key: string, stamp: string, body: Buffer, headers: Readonly<Record<string, string>>): KeptPage | null {
    if (body.length > this.maxBodyBytes || key.length > this.maxKeyLength) return null;
    this.remove(key);
    const page = new KeptPage(stamp, Buffer.from(body), headers, this, key);
    this.map.set(key, page);
    this.bytes += body.length + key.length;
    this.evict();
    return page;
  }

  /** A page got a compressed copy: counted, and the oldest pages out while over the bound. */
  grew(page: KeptPage, n: number): void {
    if (this.map.get(page.key) !== page) return;
    this.bytes += n;
    this.evict();
  }

  private remove(key: string): void {
    const old = this.map.get(key);
    if (old === undefined) return;
    this.bytes -= pageBytes(old);
    this.map.delete(key);
  }

  private evict(): void {
    while (this.map.size > this.max || (this.map.size > 1 && this.bytes > this.maxBytes)) {
      this.remove(this.map.keys().next().value as string);
    }
  }

  /** Entries and bytes held (tests). */
  get size(): { entries: number; bytes: number } {
    return { entries: this.map.size, bytes: this.bytes };
  }
}

function pageBytes(p: KeptPage): number {
  return p.body.length + p.key.length + (p.br?.length ?? 0) + (p.gzip?.length ?? 0);
}
