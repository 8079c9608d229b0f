/**
 * Rate limits per API key (D24, D109): every keyed request counts against a sliding window of
 * `perWindow` requests per `windowS` seconds (default 5,000 per 5 minutes); price work (charge
 * prices, bulk previews, area and route search, tariff details) also counts against its own
 * window (default 400 per minute). A window is a ring of `BUCKETS` equal time buckets: the count
 * of a window is the sum of its buckets, and a bucket older than the window is reset before it is
 * reused, so a key's state is two small fixed arrays (allocated once per key, nothing per request).
 *
 * In process: each replica counts its own requests. Replicas behind one proxy would share counters
 * in the store they already share (PostgreSQL, a row per key and bucket), or let the proxy limit
 * per key (nginx `limit_req` keyed by `$http_api_key`).
 */

const BUCKETS = 30;

/** One sliding window: request counts per bucket and the bucket index each count belongs to. */
class Window {
  private readonly counts = new Int32Array(BUCKETS);
  private readonly stamps = new Float64Array(BUCKETS).fill(-1);

  constructor(
    private readonly bucketMs: number,
    private readonly limit: number,
  ) {}

  /** 0 when the window has room at `now`, else the seconds until its oldest counted bucket leaves it (at least 1). */
  wait(now: number): number {
    const b = Math.floor(now / this.bucketMs);
    let total = 0;
    let oldest = Infinity;
    for (let k = 0; k < BUCKETS; k++) {
      const s = this.stamps[k];
      if (s < 0) continue;
      if (s <= b - BUCKETS) {
        this.counts[k] = 0;
        this.stamps[k] = -1;
        continue;
      }
      total += this.counts[k];
      if (s < oldest) oldest = s;
    }
    if (total < this.limit) return 0;
    return Math.max(1, Math.ceil(((oldest + BUCKETS) * this.bucketMs - now) / 1000));
  }

  /** Counts one request at `now`. */
  count(now: number): void {
    const b = Math.floor(now / this.bucketMs);
    const k = b % BUCKETS;
    if (this.stamps[k] !== b) {
      this.stamps[k] = b;
      this.counts[k] = 0;
    }
    this.counts[k]++;
  }
}

export interface RateLimits {
  /** Requests per key per window over all keyed routes. */
  perWindow: number;
  windowS: number;
  /** Price work requests per key per window. */
  pricesPerWindow: number;
  pricesWindowS: number;
}

export const D24_LIMITS: Readonly<RateLimits> = Object.freeze({ perWindow: 5000, windowS: 300, pricesPerWindow: 400, pricesWindowS: 60 });

/** Keys tracked at most; beyond, the oldest entries are dropped (valid keys only reach here). */
const MAX_KEYS = 100_000;

export class RateLimiter {
  private readonly byKey = new Map<string, { all: Window; prices: Window }>();
  /** Requests refused so far (metrics, tests). */
  limited = 0;

  constructor(private readonly limits: RateLimits = D24_LIMITS) {}

  /**
   * Counts a request of `key` (price work or not) and answers 0, or the Retry-After seconds when
   * it is over a limit (then nothing is counted).
   */
  take(key: string, priceWork: boolean, now = Date.now()): number {
    let w = this.byKey.get(key);
    if (w === undefined) {
      if (this.byKey.size >= MAX_KEYS) this.byKey.delete(this.byKey.keys().next().value!);
      const l = this.limits;
      w = { all: new Window((l.windowS * 1000) / BUCKETS, l.perWindow), prices: new Window((l.pricesWindowS * 1000) / BUCKETS, l.pricesPerWindow) };
      this.byKey.set(key, w);
    }
    const wait = Math.max(w.all.wait(now), priceWork ? w.prices.wait(now) : 0);
    if (wait > 0) {
      this.limited++;
      return wait;
    }
    w.all.count(now);
    if (priceWork) w.prices.count(now);
    return 0;
  }
}
