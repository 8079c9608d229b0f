/**
 * D218: rate limits that hold for the replicas of one PostgreSQL live store together. Requests
 * are decided on the counts in memory (no round trip per request); every `intervalMs` this
 * replica sends what it counted since and hears every replica's counts of the keys it serves,
 * in one statement. So a key gets its limit in the whole cluster, give or take what the other
 * replicas admitted within one interval. While the store does not answer, each replica limits on
 * its own counts (fail open: the service keeps answering) and sends what it counted meanwhile
 * once the store is back.
 */
import type { Logger } from 'pino';
import type { SharedCounters } from '../storage/rate-counts.js';
import type { RateLimiter } from './rate-limit.js';

/** Old buckets are deleted from the store once a minute. */
const PRUNE_MS = 60_000;

export class RateLimitSync {
  private timer: NodeJS.Timeout | null = null;
  private running = false;
  private failing = false;
  private prunedAt = 0;
  /** Exchanges that worked (tests, benches). */
  exchanges = 0;

  constructor(
    private readonly limiter: RateLimiter,
    private readonly shared: SharedCounters,
    private readonly intervalMs: number,
    private readonly logger: Logger,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.exchange(), this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
  }

  /** One exchange (skipped while one runs, or when no key was served within the window). */
  async exchange(now = Date.now()): Promise<void> {
    if (this.running) return;
    const out = this.limiter.outgoing(now);
    if (out.keys.length === 0) return;
    this.running = true;
    try {
      this.limiter.heard(await this.shared.exchange(out.deltas, out.keys, out.since));
      this.exchanges++;
      if (this.failing) {
        this.failing = false;
        this.logger.warn('rate-limit counts are shared again');
      }
      if (now - this.prunedAt >= PRUNE_MS) {
        this.prunedAt = now;
        await this.shared.prune(out.since);
      }
    } catch (e) {
      this.limiter.restore(out.deltas);
      if (!this.failing) {
        this.failing = true;
        this.logger.error({ reason: (e as Error).message }, 'rate-limit counts cannot be shared: each replica limits on its own counts until the live store answers');
      }
    } finally {
      this.running = false;
    }
  }
}
