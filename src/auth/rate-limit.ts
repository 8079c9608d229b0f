/**
 * Rate limits per API key (D24, D109): every keyed request counts against a sliding window of
 * `perWindow` requests per `windowS` seconds (default 5,000 per 5 minutes); price work (charge
 * prices, bulk previews, area and route search, tariff details) also counts against its own
 * window (default 400 per minute). A window is a ring of `BUCKETS` equal time buckets: the count
 * of a window is the sum of its buckets, and a bucket older than the window is reset before it is
 * reused, so a key's state is two small fixed arrays (allocated once per key, nothing per request).
 *
 * Each process counts in memory; replicas of one PostgreSQL store exchange their counts a few times
 * a second (rate-limit-sync.ts, D218), so a key's limit holds for the cluster.
 */

import type { BucketCount } from '../storage/rate-counts.js';
import { attemptKey, type SharedAttempts } from '../storage/attempts.js';

const BUCKETS = 30;

/**
 * One sliding window: request counts per bucket and the bucket index each count belongs to. With
 * replicas sharing counts (D218), `counts` is every replica's count as last heard plus this
 * replica's requests since (`pending`, not yet sent).
 */
class Window {
  private readonly counts = new Int32Array(BUCKETS);
  private readonly pending = new Int32Array(BUCKETS);
  private readonly stamps = new Float64Array(BUCKETS).fill(-1);

  constructor(
    readonly bucketMs: number,
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
        this.pending[k] = 0;
        this.stamps[k] = -1;
        continue;
      }
      total += this.counts[k];
      if (s < oldest) oldest = s;
    }
    if (total < this.limit) return 0;
    return Math.max(1, Math.ceil(((oldest + BUCKETS) * this.bucketMs - now) / 1000));
  }

  /** Hands this replica's counts not yet sent to `out` (bucket number, count) and clears them. */
  drain(out: (bucket: number, count: number) => void): void {
    for (let k = 0; k < BUCKETS; k++) {
      if (this.pending[k] === 0 || this.stamps[k] < 0) continue;
      out(this.stamps[k], this.pending[k]);
      this.pending[k] = 0;
    }
  }

  /** Counts sent but not stored (the exchange failed) are pending again. */
  restore(b: number, count: number): void {
    const k = b % BUCKETS;
    if (this.stamps[k] === b) this.pending[k] += count;
  }

  /** Every replica's count of bucket `b` (the bucket number: time ÷ bucket length), as stored. */
  heard(b: number, count: number): void {
    const k = b % BUCKETS;
    if (this.stamps[k] === b) this.counts[k] = count + this.pending[k];
    else if (this.stamps[k] < b) {
      this.stamps[k] = b;
      this.counts[k] = count;
      this.pending[k] = 0;
    }
  }

  /**
   * The RateLimit field item of this window at `now` (draft-ietf-httpapi-ratelimit-headers-10):
   * `"<name>";r=<requests left>;t=<seconds until the oldest counted bucket leaves the window>`.
   */
  item(name: string, now: number): string {
    const b = Math.floor(now / this.bucketMs);
    let total = 0;
    let oldest = b;
    for (let k = 0; k < BUCKETS; k++) {
      const s = this.stamps[k];
      if (s < 0 || s <= b - BUCKETS) continue;
      total += this.counts[k];
      if (s < oldest) oldest = s;
    }
    const t = Math.max(1, Math.ceil(((oldest + BUCKETS) * this.bucketMs - now) / 1000));
    return `"${name}";r=${Math.max(0, this.limit - total)};t=${t}`;
  }

  /** Takes back one request counted at `now` (the same bucket), when there is one. */
  uncount(now: number): void {
    const b = Math.floor(now / this.bucketMs);
    const k = b % BUCKETS;
    if (this.stamps[k] === b && this.counts[k] > 0) this.counts[k]--;
  }

  /** Counts one request at `now`. */
  count(now: number): void {
    const b = Math.floor(now / this.bucketMs);
    const k = b % BUCKETS;
    if (this.stamps[k] !== b) {
      this.stamps[k] = b;
      this.counts[k] = 0;
      this.pending[k] = 0;
    }
    this.counts[k]++;
    this.pending[k]++;
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

interface KeyWindows {
  all: Window;
  prices: Window;
  /** When the key was last counted or refused here (ms). */
  seen: number;
}

export class RateLimiter {
  private readonly byKey = new Map<string, KeyWindows>();
  /** Requests refused so far (metrics, tests). */
  limited = 0;
  /** The RateLimit-Policy field of keyed routes, and of price-work routes (D217). */
  readonly policy: string;
  readonly pricesPolicy: string;

  constructor(private readonly limits: RateLimits = D24_LIMITS) {
    this.policy = `"requests";q=${limits.perWindow};w=${limits.windowS}`;
    this.pricesPolicy = `${this.policy}, "prices";q=${limits.pricesPerWindow};w=${limits.pricesWindowS}`;
  }

  /** The RateLimit field for the key's answer after `take` (D217): each window's requests left and seconds until more. */
  field(key: string, priceWork: boolean, now = Date.now()): string {
    const w = this.byKey.get(key);
    if (w === undefined) return '';
    const all = w.all.item('requests', now);
    return priceWork ? `${all}, ${w.prices.item('prices', now)}` : all;
  }

  /**
   * Counts a request of `key` (price work or not) and answers 0, or the Retry-After seconds when
   * it is over a limit (then nothing is counted).
   */
  take(key: string, priceWork: boolean, now = Date.now()): number {
    let w = this.byKey.get(key);
    if (w === undefined) {
      if (this.byKey.size >= MAX_KEYS) this.byKey.delete(this.byKey.keys().next().value!);
      const l = this.limits;
      w = { all: new Window((l.windowS * 1000) / BUCKETS, l.perWindow), prices: new Window((l.pricesWindowS * 1000) / BUCKETS, l.pricesPerWindow), seen: now };
      this.byKey.set(key, w);
    }
    w.seen = now;
    const wait = Math.max(w.all.wait(now), priceWork ? w.prices.wait(now) : 0);
    if (wait > 0) {
      this.limited++;
      return wait;
    }
    w.all.count(now);
    if (priceWork) w.prices.count(now);
    return 0;
  }

  /**
   * D218: what this replica counted since its last exchange (taken out of the pending counts), the
   * keys it served within the longest window, and per window the first bucket number still in it.
   */
  outgoing(now: number): { deltas: BucketCount[]; keys: string[]; since: [number, number] } {
    const deltas: BucketCount[] = [];
    const keys: string[] = [];
    const l = this.limits;
    const horizon = now - Math.max(l.windowS, l.pricesWindowS) * 1000;
    for (const [key, w] of this.byKey) {
      if (w.seen < horizon) continue;
      keys.push(key);
      w.all.drain((bucket, count) => deltas.push({ key, policy: 0, bucket, count }));
      w.prices.drain((bucket, count) => deltas.push({ key, policy: 1, bucket, count }));
    }
    const first = (windowS: number): number => Math.floor(now / ((windowS * 1000) / BUCKETS)) - BUCKETS + 1;
    return { deltas, keys, since: [first(l.windowS), first(l.pricesWindowS)] };
  }

  /** Every replica's stored counts of this replica's keys (D218). */
  heard(rows: readonly BucketCount[]): void {
    for (const r of rows) {
      const w = this.byKey.get(r.key);
      if (w !== undefined) (r.policy === 0 ? w.all : w.prices).heard(r.bucket, r.count);
    }
  }

  /** Counts of an exchange that failed: sent again with the next one. */
  restore(deltas: readonly BucketCount[]): void {
    for (const d of deltas) {
      const w = this.byKey.get(d.key);
      if (w !== undefined) (d.policy === 0 ? w.all : w.prices).restore(d.bucket, d.count);
    }
  }
}

/**
 * Attempts per key (an address, a client address, a user) in a sliding window: the guessing
 * limits of accounts (D207, D209, D212). `check` answers the Retry-After seconds when the key is
 * over its limit, 0 when not; `count` counts one attempt. Keys tracked at most MAX_KEYS (the
 * oldest dropped first).
 */
export class AttemptLimiter {
  private readonly byKey = new Map<string, Window>();

  constructor(
    private readonly limit: number,
    private readonly windowS: number,
  ) {}

  check(key: string, now = Date.now()): number {
    return this.byKey.get(key)?.wait(now) ?? 0;
  }

  count(key: string, now = Date.now()): void {
    let w = this.byKey.get(key);
    if (w === undefined) {
      if (this.byKey.size >= MAX_KEYS) this.byKey.delete(this.byKey.keys().next().value!);
      w = new Window((this.windowS * 1000) / BUCKETS, this.limit);
      this.byKey.set(key, w);
    }
    w.count(now);
  }

  /** Takes back an attempt counted at `now` by `take` or `count` (a login that turned out right). */
  release(key: string, now: number): void {
    this.byKey.get(key)?.uncount(now);
  }

  /** Checks, and counts when under the limit: 0, or the Retry-After seconds (nothing counted). */
  take(key: string, now = Date.now()): number {
    const wait = this.check(key, now);
    if (wait === 0) this.count(key, now);
    return wait;
  }
}

/**
 * One guessing limit of accounts: in memory (one process), or shared by the replicas of a
 * PostgreSQL store (D219), where every check and count is one transaction on the attempt's key.
 */
export class Attempts {
  private readonly local: AttemptLimiter;

  constructor(
    private readonly name: string,
    private readonly limit: number,
    private readonly windowS: number,
    private readonly shared: SharedAttempts | null,
  ) {
    this.local = new AttemptLimiter(limit, windowS);
  }

  /** 0, or the Retry-After seconds when `key` is over its limit (nothing counted). */
  check(key: string, now = Date.now()): Promise<number> {
    if (this.shared === null) return Promise.resolve(this.local.check(key, now));
    return this.shared.take(attemptKey(this.name, key), this.limit, this.windowS * 1000, now, false);
  }

  /** Checks, and counts when under the limit: 0, or the Retry-After seconds (nothing counted). */
  take(key: string, now = Date.now()): Promise<number> {
    if (this.shared === null) return Promise.resolve(this.local.take(key, now));
    return this.shared.take(attemptKey(this.name, key), this.limit, this.windowS * 1000, now, true);
  }

  count(key: string, now = Date.now()): Promise<void> {
    if (this.shared === null) return Promise.resolve(this.local.count(key, now));
    return this.shared.count(attemptKey(this.name, key), now);
  }

  /** Takes back an attempt counted at `at` (a login that turned out right). */
  release(key: string, at: number): Promise<void> {
    if (this.shared === null) return Promise.resolve(this.local.release(key, at));
    return this.shared.release(attemptKey(this.name, key), at);
  }
}

/**
 * The guessing limits of accounts (D207, D209, D212, D247), one set per process, kept across snapshot
 * swaps; on a PostgreSQL store they hold for all replicas together (D219).
 */
export class AccountLimits {
  /** Failed logins per address and client: 10 per 15 minutes (D247). */
  readonly loginFailures: Attempts;
  /** Failed logins per address from all clients: 100 per hour (D247). */
  readonly loginFailuresPerAddress: Attempts;
  /** Authentication requests (login, refresh, signup, reset mails) per client address: 100 per 15 minutes. */
  readonly authPerClient: Attempts;
  /** Reset mails per address: 3 per hour (further requests send nothing). */
  readonly resetMails: Attempts;
  /** Mail pages (confirm, reset) per client address: 20 per 15 minutes. */
  readonly pagesPerClient: Attempts;
  /** Product activations per user (10 per hour) and per client address (30 per hour). */
  readonly activationsPerUser: Attempts;
  readonly activationsPerClient: Attempts;

  constructor(shared: SharedAttempts | null = null) {
    this.loginFailures = new Attempts('login-failures-pair', 10, 900, shared);
    this.loginFailuresPerAddress = new Attempts('login-failures-address', 100, 3600, shared);
    this.authPerClient = new Attempts('auth-per-client', 100, 900, shared);
    this.resetMails = new Attempts('reset-mails', 3, 3600, shared);
    this.pagesPerClient = new Attempts('pages-per-client', 20, 900, shared);
    this.activationsPerUser = new Attempts('activations-per-user', 10, 3600, shared);
    this.activationsPerClient = new Attempts('activations-per-client', 30, 3600, shared);
  }
}
