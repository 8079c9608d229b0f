/**
 * Whole charge price answers kept in memory (D287): keyed by the task handed to the pool
 * (everything the answer depends on besides the catalog, the snapshot and the clock), stamped
 * with the snapshot version, the catalog generation and how many tag `show_until` instants lie
 * before the task's instant (the only way the clock enters an answer, D42). Kept with their
 * br and gzip copies; least recently used out first.
 */
import type { ChargePricesTask } from '../../pool/protocol.js';
import { PageCache, type KeptPage } from '../body-cache.js';
import type { AppContext } from '../context.js';
import type { ApiResponse } from '../types.js';

/** At most this many answers, whatever their size. */
const MAX_ANSWERS = 1024;
/** Keys (the task as JSON) longer than this are answered, not kept (a long list of tariff ids). */
const MAX_KEY_CHARS = 256 * 1024;

/** Number of entries of the ascending `times` below `t`. */
export function countBelow(times: Float64Array, t: number): number {
  let lo = 0;
  let hi = times.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (times[mid] < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Lookups of the process, over every route table (snapshot swaps), by result (`cps_charge_price_cache_total`). */
export const CHARGE_PRICE_CACHE_COUNTS = { hit: 0, miss: 0 };

export class ChargePriceAnswers {
  private readonly pages: PageCache;

  constructor(
    private readonly ctx: Pick<AppContext, 'snapshot' | 'tariffs'>,
    maxBytes: number,
  ) {
    this.pages = new PageCache(CHARGE_PRICE_CACHE_COUNTS, MAX_ANSWERS, maxBytes, Math.floor(maxBytes / 4), MAX_KEY_CHARS, true);
  }

  /** What the answer depends on besides its task: snapshot, catalog, and the tags shown at `nowMs`. */
  stamp(nowMs: number): string {
    const t = this.ctx.tariffs;
    return `${this.ctx.snapshot.meta.snapshotVersion}\u0000${t.generation}\u0000${countBelow(t.showUntilTimes(), nowMs)}`;
  }

  /** The task without its instant (which enters only through the stamp). */
  static key(task: ChargePricesTask): string {
    return JSON.stringify({ ...task, nowMs: 0 });
  }

  /** The kept answer of `task`, or the one `work` gives, kept when the stamp held throughout. */
  async answer(task: ChargePricesTask, work: () => Promise<ApiResponse>): Promise<ApiResponse> {
    const key = ChargePriceAnswers.key(task);
    const stamp = this.stamp(task.nowMs);
    const hit = this.pages.get(key, stamp);
    if (hit !== undefined) return answerOf(hit);
    const r = await work();
    if (r.status !== 200 || r.body === undefined || this.stamp(task.nowMs) !== stamp) return r;
    const kept = this.pages.set(key, stamp, typeof r.body === 'string' ? Buffer.from(r.body, 'utf8') : r.body, {});
    if (kept === null) return r;
    // The kept copy is answered: the pool's output slot is free again.
    r.release?.();
    return answerOf(kept);
  }

  /** Answers and bytes held (tests). */
  get size(): { entries: number; bytes: number } {
    return this.pages.size;
  }
}

function answerOf(p: KeptPage): ApiResponse {
  return { status: 200, body: p.body, compressed: p };
}
