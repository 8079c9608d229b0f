/**
 * Hot snapshot swap (D133): SIGHUP or `POST /admin/snapshot` loads a snapshot off the main thread,
 * checks it, and replaces the station data in one synchronous step: the route table (built anew
 * over the new snapshot and station index, so requests already routed finish on the old data) and
 * the pricing workers' shared station data (by generation, as the tariff catalog does). A refused
 * file changes nothing. The old snapshot's handle is closed once requests of its time are done.
 */
import path from 'node:path';
import type { Logger } from 'pino';
import type { AppContext } from './api/context.js';
import { SwapError, type ClusterControl, type SnapshotControl, type SwapResult } from './api/admin/admin.handler.js';
import { downloadSnapshot } from './snapshot-download.js';
import type { RouteDef } from './api/types.js';
import { StationIndex } from './domain/stations/index.js';
import type { Pipeline } from './http/pipeline.js';
import type { PricePool } from './pool/pool.js';
import { adoptSharedColumns, shareStationColumns } from './pool/stations.js';
import type { Snapshot } from './storage/snapshot.js';
import { SnapshotRefused, loadSnapshotOffThread } from './storage/snapshot-loader.js';
import { collectGarbage } from './gc.js';

/** The station snapshot in use: what readiness checks and metrics read. */
export interface CurrentSnapshot {
  readonly snapshot: Snapshot;
  readonly stations: StationIndex;
  /** 0 for the snapshot loaded at start, +1 per swap. */
  readonly generation: number;
  /** Snapshot version (meta) and number of stations, for metrics. */
  readonly version: string;
  readonly stationCount: number;
}

const mb = (n: number): number => Math.round(n / 1048576);

export interface SwapDeps {
  logger: Logger;
  prices: PricePool;
  buildRoutes: (ctx: AppContext) => RouteDef[];
  /** The default file (SNAPSHOT). */
  defaultFile: string;
  /** How long the old snapshot's handle stays open after a swap (requests of its time finish). */
  closeAfterMs: number;
  /** D178: the loader thread's time limit (and a download's, D220). */
  loadTimeoutMs: number;
  /** Where snapshots from a URL are kept (D220: `<dataDir>/snapshots`). */
  dataDir: string;
}

export class SnapshotSwap implements SnapshotControl {
  private cur: CurrentSnapshot;
  private ctx!: AppContext;
  private server: Pick<Pipeline, 'setRoutes'> | null = null;
  private running = false;
  private readonly closing = new Set<NodeJS.Timeout>();
  private readonly retired = new Set<Snapshot>();
  /** Swaps since start by result (metrics, D120): swapped, refused (a bad file), missing (no file). */
  readonly results = { swapped: 0, refused: 0, missing: 0 };
  /** D220: set on a PostgreSQL live store once the cluster follower runs. */
  cluster: ClusterControl | null = null;

  constructor(
    private readonly deps: SwapDeps,
    snapshot: Snapshot,
    stations: StationIndex,
  ) {
    this.cur = { snapshot, stations, generation: 0, version: snapshot.meta.snapshotVersion, stationCount: stations.size };
  }

  get defaultFile(): string {
    return this.deps.defaultFile;
  }

  /** The snapshot in use (one accessor for readiness and metrics). */
  current(): CurrentSnapshot {
    return this.cur;
  }

  /** The context of the current snapshot (handlers built over it). */
  context(): AppContext {
    return this.ctx;
  }

  /** Wires the swap to the running service (after the first route table was built). */
  attach(ctx: AppContext, server: Pick<Pipeline, 'setRoutes'>): void {
    this.ctx = ctx;
    this.server = server;
  }

  download(url: string, sha256: string): Promise<string> {
    return downloadSnapshot(this.deps.dataDir, url, sha256, this.deps.loadTimeoutMs);
  }

  async reload(file?: string, expectVersion?: string): Promise<SwapResult> {
    const target = path.resolve(file ?? this.deps.defaultFile);
    if (this.server === null) throw new SwapError('busy', 'the service is still starting');
    if (this.running) throw new SwapError('busy', 'a snapshot swap is already running');
    this.running = true;
    const log = this.deps.logger;
    try {
      let loaded;
      try {
        loaded = await loadSnapshotOffThread(target, this.deps.loadTimeoutMs);
      } catch (e) {
        if (e instanceof SnapshotRefused) {
          log.error({ snapshot: target, reason: e.message }, 'snapshot swap refused; the current snapshot keeps serving');
          this.results[e.missing ? 'missing' : 'refused']++;
          throw new SwapError(e.missing ? 'missing' : 'refused', e.message);
        }
        throw e;
      }
      const version = loaded.snapshot.meta.snapshotVersion;
      if (expectVersion !== undefined && version !== expectVersion) {
        loaded.snapshot.close();
        this.results.refused++;
        throw new SwapError('refused', `snapshot ${target} is version ${version}, not ${expectVersion}`);
      }
      // From here on synchronous: no request runs between the first and the last assignment.
      const t0 = performance.now();
      const shared = shareStationColumns(loaded.columns);
      adoptSharedColumns(loaded.columns, shared);
      const stations = new StationIndex(loaded.columns);
      const generation = this.cur.generation + 1;
      const ctx: AppContext = { ...this.ctx, snapshot: loaded.snapshot, stations };
      const routes = this.deps.buildRoutes(ctx);
      this.deps.prices.swapStations(generation, shared);
      this.server.setRoutes(routes);
      const old = this.cur.snapshot;
      this.ctx = ctx;
      this.cur = {
        snapshot: loaded.snapshot,
        stations,
        generation,
        version: loaded.snapshot.meta.snapshotVersion,
        stationCount: stations.size,
      };
      const swapMs = performance.now() - t0;
      this.retire(old);
      const r: SwapResult = {
        file: target,
        version: this.cur.version,
        builtAt: loaded.snapshot.meta.builtAt,
        stations: stations.size,
        generation,
        loadMs: loaded.loadMs,
        swapMs,
      };
      this.results.swapped++;
      log.info({ snapshot: target, version: r.version, stations: r.stations, generation, loadMs: Math.round(r.loadMs), swapMs: Math.round(swapMs * 100) / 100 }, 'snapshot swapped');
      return r;
    } finally {
      this.running = false;
    }
  }

  private retire(old: Snapshot): void {
    this.retired.add(old);
    const t = setTimeout(() => {
      this.closing.delete(t);
      this.retired.delete(old);
      old.close();
      // Collect the old generation now, not at some later allocation pressure, so RSS shows what
      // is still referenced.
      const g0 = performance.now();
      collectGarbage();
      const gcMs = Math.round((performance.now() - g0) * 10) / 10;
      const m = process.memoryUsage();
      this.deps.logger.info(
        { version: old.meta.snapshotVersion, rssMb: mb(m.rss), heapUsedMb: mb(m.heapUsed), arrayBuffersMb: mb(m.arrayBuffers), gcMs },
        'old snapshot closed',
      );
    }, this.deps.closeAfterMs);
    t.unref();
    this.closing.add(t);
  }

  /** Closes every snapshot handle (shutdown). */
  close(): void {
    for (const t of this.closing) clearTimeout(t);
    this.closing.clear();
    for (const s of this.retired) s.close();
    this.retired.clear();
    this.cur.snapshot.close();
  }
}
