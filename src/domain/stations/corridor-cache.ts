/**
 * The stations of route corridors already searched (D294): per key (the route's polyline text
 * and the corridor width) every station within the corridor, before refinements, with its distance
 * to and along the route, in the order the search found them; least recently used dropped beyond
 * `maxBytes` (an entry counts its key's text, 2 bytes a character, and 20 bytes a station).
 */
import type { CorridorHit } from './corridor.js';

export interface KeptCorridor {
  indices: Int32Array;
  detour: Float64Array;
  along: Float64Array;
  bytes: number;
}

const ENTRY_BYTES = 200;

/** Lookups of the process, over every snapshot's cache, by result (`cps_corridor_cache_total`). */
export const CORRIDOR_CACHE_COUNTS = { hit: 0, miss: 0 };

export class CorridorCache {
  private readonly kept = new Map<string, KeptCorridor>();
  private bytes = 0;

  constructor(readonly maxBytes: number) {}

  get size(): number {
    return this.kept.size;
  }

  /** The kept corridor of `key`, now the most recently used. */
  get(key: string): KeptCorridor | undefined {
    const k = this.kept.get(key);
    if (k === undefined) {
      CORRIDOR_CACHE_COUNTS.miss++;
      return undefined;
    }
    CORRIDOR_CACHE_COUNTS.hit++;
    this.kept.delete(key);
    this.kept.set(key, k);
    return k;
  }

  /** Keeps `hit` (copied) under `key` unless it alone is larger than the bound. */
  set(key: string, hit: CorridorHit): KeptCorridor {
    const n = hit.indices.length;
    const kept: KeptCorridor = { indices: Int32Array.from(hit.indices), detour: Float64Array.from(hit.detour), along: Float64Array.from(hit.along), bytes: ENTRY_BYTES + 2 * key.length + 20 * n };
    if (kept.bytes > this.maxBytes) return kept;
    const old = this.kept.get(key);
    if (old !== undefined) {
      this.kept.delete(key);
      this.bytes -= old.bytes;
    }
    this.kept.set(key, kept);
    this.bytes += kept.bytes;
    for (const [k, v] of this.kept) {
      if (this.bytes <= this.maxBytes) break;
      this.kept.delete(k);
      this.bytes -= v.bytes;
    }
    return kept;
  }

  /** The kept stations that `accept` keeps, in their order. */
  static refine(kept: KeptCorridor, accept: (i: number) => boolean): CorridorHit {
    const hit: CorridorHit = { indices: [], detour: [], along: [] };
    for (let q = 0; q < kept.indices.length; q++) {
      const i = kept.indices[q];
      if (!accept(i)) continue;
      hit.indices.push(i);
      hit.detour.push(kept.detour[q]);
      hit.along.push(kept.along[q]);
    }
    return hit;
  }
}
