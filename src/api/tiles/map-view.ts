/**
 * The map's view of one snapshot's station index (D191, D192): its cluster sets (the unfiltered one
 * built as soon as the index exists, one per canonical refinement key on first use, the 16 most
 * recently used kept) and the cache of answered tiles. Built with the routes, so a snapshot swap
 * gets a new one and the old one goes with the old index.
 */
import { clusterInput } from '../../domain/stations/clusters.js';
import type { Refinement, StationIndex } from '../../domain/stations/index.js';
import type { ClusterSource } from '../../domain/stations/clusters.js';
import { overloadedError } from '../jsonapi/errors.js';
import type { CompressedForms } from '../types.js';
import type { ClusterBuilder } from './cluster-builder.js';
import { ClusterTiles } from './tile-writer.js';

export const FILTERED_SETS = 16;
export const TILE_CACHE_ENTRIES = 4096;
export const TILE_CACHE_BYTES = 64 * 1024 * 1024;
/** Memory for the cluster sets of refinements together (the most recent one is always kept). */
export const FILTERED_SETS_BYTES = 128 * 1024 * 1024;

/** A tile as answered: its bytes (null: no feature, 204) and their compressed forms once asked for. */
export class CachedTile implements CompressedForms {
  br: Buffer | undefined;
  gzip: Buffer | undefined;
  constructor(
    readonly body: Buffer | null,
    private readonly grew: (bytes: number) => void,
  ) {}
  get(enc: 'br' | 'gzip'): Buffer | undefined {
    return this[enc];
  }
  keep(enc: 'br' | 'gzip', b: Buffer): void {
    if (this[enc] !== undefined) return;
    this[enc] = b;
    this.grew(b.length);
  }
  get bytes(): number {
    return (this.body?.length ?? 0) + (this.br?.length ?? 0) + (this.gzip?.length ?? 0) + 64;
  }
}

/** Most recently used tiles, bounded by count and bytes. */
export class TileCache {
  private readonly map = new Map<string, CachedTile>();
  private total = 0;
  constructor(
    private readonly maxEntries = TILE_CACHE_ENTRIES,
    private readonly maxBytes = TILE_CACHE_BYTES,
  ) {}

  get(key: string): CachedTile | undefined {
    const t = this.map.get(key);
    if (t !== undefined) {
      this.map.delete(key);
      this.map.set(key, t);
    }
    return t;
  }

  put(key: string, body: Uint8Array | null): CachedTile {
    const bytes = body === null ? null : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
    // No cache: the tile is answered and forgotten, its compressed forms with it.
    if (this.maxBytes === 0) return new CachedTile(bytes, () => undefined);
    const t = new CachedTile(bytes, (n) => this.grow(n));
    const old = this.map.get(key);
    if (old !== undefined) {
      this.total -= old.bytes;
      this.map.delete(key);
    }
    this.map.set(key, t);
    this.grow(t.bytes);
    return t;
  }

  get size(): number {
    return this.map.size;
  }

  get byteSize(): number {
    return this.total;
  }

  private grow(n: number): void {
    this.total += n;
    while (this.map.size > 1 && (this.map.size > this.maxEntries || this.total > this.maxBytes)) {
      const [k, v] = this.map.entries().next().value as [string, CachedTile];
      this.map.delete(k);
      this.total -= v.bytes;
    }
  }
}

/** What the map view reads of the station index. */
export type MapIndex = ClusterSource & Pick<StationIndex, 'matches'>;

interface FilteredSet {
  tiles: Promise<ClusterTiles>;
  /** Its size once built (0 while building). */
  bytes: number;
}

export class MapView {
  readonly tiles: TileCache;
  private readonly all: Promise<ClusterTiles>;
  private readonly filtered = new Map<string, FilteredSet>();

  constructor(
    readonly index: MapIndex,
    private readonly builder: Pick<ClusterBuilder, 'accepts' | 'build'>,
    tileCacheBytes = TILE_CACHE_BYTES,
  ) {
    this.tiles = new TileCache(TILE_CACHE_ENTRIES, tileCacheBytes);
    this.all = builder.build(clusterInput(index, null), true).then((s) => new ClusterTiles(s));
    // A failure is answered to the requests that wait for it; never an unhandled rejection.
    this.all.catch(() => undefined);
  }

  /** The clusters of the stations passing `r` (`key` its canonical form, '' for none). */
  clusters(key: string, r: Refinement | null): Promise<ClusterTiles> {
    if (key === '' || r === null) return this.all;
    const held = this.filtered.get(key);
    if (held !== undefined) {
      this.filtered.delete(key);
      this.filtered.set(key, held);
      return held.tiles;
    }
    if (!this.builder.accepts()) return Promise.reject(overloadedError());
    const index = this.index;
    const entry: FilteredSet = { tiles: this.builder.build(clusterInput(index, (i) => index.matches(i, r))).then((s) => new ClusterTiles(s)), bytes: 0 };
    entry.tiles.then(
      (t) => {
        entry.bytes = t.bytes;
        this.trim();
      },
      // A refused or failed build is not kept: the next request tries again.
      () => {
        if (this.filtered.get(key) === entry) this.filtered.delete(key);
      },
    );
    this.filtered.set(key, entry);
    this.trim();
    return entry.tiles;
  }

  /** Drops the least recently used sets beyond FILTERED_SETS or FILTERED_SETS_BYTES (never the newest). */
  private trim(): void {
    let bytes = 0;
    for (const e of this.filtered.values()) bytes += e.bytes;
    for (const [k, e] of this.filtered) {
      if (this.filtered.size <= 1 || (this.filtered.size <= FILTERED_SETS && bytes <= FILTERED_SETS_BYTES)) break;
      this.filtered.delete(k);
      bytes -= e.bytes;
    }
  }

  /** Settles when the unfiltered clusters are built (tests wait on it). */
  ready(): Promise<unknown> {
    return this.all;
  }
}
