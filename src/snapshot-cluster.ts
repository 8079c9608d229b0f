/**
 * Snapshot swaps across the replicas of a PostgreSQL live store (D220). The replica that swapped
 * records the swap and waits for the others' outcomes; every replica follows the swaps it hears
 * of (one at a time, in order), loading the same file name from its own SNAPSHOT_DIR or the same
 * URL, refusing another version, and records its outcome. Each replica says every few seconds
 * that it is alive, so the one that swapped knows whom to wait for.
 */
import os from 'node:os';
import type { Logger } from 'pino';
import { insideSnapshotDir } from './api/admin/admin.handler.js';
import { SwapError, type ClusterAnswer, type ClusterControl, type ReplicaOutcome, type SwapResult } from './api/snapshot-control.js';
import type { SharedSwaps, SwapOutcome, SwapSource } from './storage/snapshot-swaps.js';
import type { SnapshotSwap } from './snapshot-swap.js';

export const HEARTBEAT_MS = 5000;
/** A replica not seen for this long is not waited for. */
export const ALIVE_MS = 15_000;
const POLL_MS = 100;
/** A follower finding a local swap running tries again this often, this many times. */
const BUSY_RETRY_MS = 500;
const BUSY_RETRIES = 240;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export interface ClusterDeps {
  shared: SharedSwaps;
  swap: SnapshotSwap;
  logger: Logger;
  /** This replica's SNAPSHOT_DIR (names of recorded swaps are relative to it). */
  snapshotDir: string;
  /** How long an answer waits for the other replicas' outcomes (SNAPSHOT_SWAP_WAIT_MS). */
  waitMs: number;
}

export class SnapshotCluster implements ClusterControl {
  readonly name = `${os.hostname()}:${process.pid}`;
  private readonly startedAt = Date.now();
  private timer: NodeJS.Timeout | null = null;
  private chain: Promise<void> = Promise.resolve();
  /** The newest swap this replica applied or made. */
  private lastSwap = 0;
  private wanted: { version: string; detail: string } | null = null;
  /** Swaps followed since start (tests and logs). */
  followed = 0;

  constructor(private readonly d: ClusterDeps) {}

  start(): void {
    void this.beat();
    this.timer = setInterval(() => void this.beat(), HEARTBEAT_MS);
    this.timer.unref();
    this.d.shared.subscribe(
      (id) => this.follow(id),
      () => void this.catchUp(),
    );
  }

  async stop(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    await this.d.shared.leave().catch(() => {});
  }

  behind(): { version: string; detail: string } | null {
    return this.wanted;
  }

  async announce(r: SwapResult, source: SwapSource): Promise<ClusterAnswer> {
    const self = this.outcome('swapped', r.version, null);
    this.wanted = null;
    let id: number;
    let alive: { id: string; name: string }[];
    try {
      const now = Date.now();
      alive = await this.d.shared.alive(now - ALIVE_MS);
      id = await this.d.shared.record(r.version, source, now);
      this.lastSwap = Math.max(this.lastSwap, id);
      await this.d.shared.report(id, self, now);
    } catch (e) {
      this.d.logger.error({ reason: (e as Error).message }, 'snapshot swap not recorded: the other replicas were not told');
      return { error: `the other replicas were not told: ${(e as Error).message}` };
    }
    this.d.logger.info({ swap: id, version: r.version, replicas: alive.length }, 'snapshot swap recorded for every replica');
    return { replicas: await this.collect(id, alive) };
  }

  /** Each alive replica's outcome of swap `id`, waiting up to `waitMs` for them; `pending` for the silent. */
  private async collect(id: number, alive: { id: string; name: string }[]): Promise<ReplicaOutcome[]> {
    const until = performance.now() + this.d.waitMs;
    let got: SwapOutcome[] = [];
    for (;;) {
      try {
        got = await this.d.shared.outcomes(id);
      } catch {
        // The store is away for a moment: what was heard so far stands.
      }
      const heard = new Set(got.map((o) => o.replica));
      if (alive.every((a) => heard.has(a.id)) || performance.now() >= until) break;
      await sleep(POLL_MS);
    }
    const out: ReplicaOutcome[] = got.map((o) => ({ id: o.replica, name: o.name, outcome: o.outcome, version: o.version, detail: o.detail }));
    for (const a of alive) if (!out.some((o) => o.id === a.id)) out.push({ id: a.id, name: a.name, outcome: 'pending', version: null, detail: null });
    return out.sort((x, y) => (x.name === y.name ? (x.id < y.id ? -1 : 1) : x.name < y.name ? -1 : 1));
  }

  /** Another replica recorded swap `id`: apply it after any swap this replica is following. */
  follow(id: number): void {
    this.chain = this.chain.then(() => this.apply(id)).catch((e: unknown) => {
      this.d.logger.error({ swap: id, reason: (e as Error).message }, 'snapshot swap of another replica not followed');
    });
  }

  /** The listening connection is (again) open: a swap recorded meanwhile is applied now. */
  private async catchUp(): Promise<void> {
    try {
      const newest = await this.d.shared.newestSince(this.startedAt);
      if (newest !== null && newest.id > this.lastSwap) this.follow(newest.id);
    } catch (e) {
      this.d.logger.warn({ reason: (e as Error).message }, 'snapshot swaps of other replicas could not be read');
    }
  }

  private async apply(id: number): Promise<void> {
    if (id <= this.lastSwap) return;
    const swap = await this.d.shared.get(id);
    if (swap === null) return;
    this.lastSwap = id;
    this.followed++;
    let o: SwapOutcome;
    try {
      const file = await this.fileOf(swap.source);
      const r = await this.reloadWhenFree(file, swap.version);
      o = this.outcome('swapped', r.version, null);
      this.wanted = null;
    } catch (e) {
      const kind = e instanceof SwapError ? e.kind : 'refused';
      o = this.outcome(kind === 'busy' ? 'refused' : kind, this.d.swap.current().version, (e as Error).message);
      this.wanted = { version: swap.version, detail: o.detail! };
      this.d.logger.error({ swap: id, version: swap.version, reason: o.detail }, 'snapshot swap of another replica refused here; the current snapshot keeps serving');
    }
    await this.d.shared.report(id, o, Date.now());
  }

  private async fileOf(source: SwapSource): Promise<string> {
    if ('url' in source) return this.d.swap.download(source.url, source.sha256);
    try {
      return insideSnapshotDir(this.d.snapshotDir, source.file);
    } catch (e) {
      throw new SwapError('refused', `${source.file}: ${(e as { detail?: string }).detail ?? (e as Error).message}`);
    }
  }

  /** A swap of this replica's own (SIGHUP, its admin route) may be running: wait for it to end. */
  private async reloadWhenFree(file: string, version: string): Promise<SwapResult> {
    for (let k = 0; ; k++) {
      try {
        return await this.d.swap.reload(file, version);
      } catch (e) {
        if (!(e instanceof SwapError) || e.kind !== 'busy' || k >= BUSY_RETRIES) throw e;
      }
      await sleep(BUSY_RETRY_MS);
    }
  }

  private outcome(outcome: SwapOutcome['outcome'], version: string, detail: string | null): SwapOutcome {
    return { replica: this.d.shared.replica, name: this.name, outcome, version, detail };
  }

  private async beat(): Promise<void> {
    try {
      await this.d.shared.heartbeat(this.name, this.startedAt, this.d.swap.current().version, Date.now());
    } catch {
      // The store is away: the next beat says it again (a replica unseen for 15 s is not waited for).
    }
  }
}
