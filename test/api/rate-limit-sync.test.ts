/**
 * Rate-limit counts shared by replicas (D218) over an in-memory stand-in for the store's table:
 * two limiters exchanging counts hold one limit together, and counts made while the store fails
 * are kept and sent once it answers again (meanwhile each limits on its own counts).
 */
import { describe, expect, it } from 'vitest';
import { RateLimiter } from '../../src/auth/rate-limit.js';
import { RateLimitSync } from '../../src/auth/rate-limit-sync.js';
import { createLogger } from '../../src/log.js';
import type { BucketCount, SharedCounters } from '../../src/storage/rate-counts.js';

function memoryCounters(): SharedCounters & { down: boolean; total(): number } {
  const table = new Map<string, number>();
  return {
    down: false,
    total: () => [...table.values()].reduce((a, b) => a + b, 0),
    async exchange(deltas, keys, since) {
      if (this.down) throw new Error('connection refused');
      for (const d of deltas) table.set(`${d.key}|${d.policy}|${d.bucket}`, (table.get(`${d.key}|${d.policy}|${d.bucket}`) ?? 0) + d.count);
      const rows: BucketCount[] = [];
      for (const [k, count] of table) {
        const [key, policy, bucket] = k.split('|');
        const r = { key, policy: Number(policy), bucket: Number(bucket), count };
        if (keys.includes(r.key) && r.bucket >= since[r.policy]) rows.push(r);
      }
      return rows;
    },
    async prune() {},
  };
}

describe('rate-limit counts shared by replicas (D218)', () => {
  it('two replicas hold one limit together; counts made while the store fails are sent once it answers', async () => {
    const limits = { perWindow: 10, windowS: 300, pricesPerWindow: 4, pricesWindowS: 60 };
    const store = memoryCounters();
    const logger = createLogger('silent');
    const [a, b] = [new RateLimiter(limits), new RateLimiter(limits)];
    const [sa, sb] = [new RateLimitSync(a, store, 1000, logger), new RateLimitSync(b, store, 1000, logger)];
    const t0 = 1_700_000_000_000;
    for (let i = 0; i < 5; i++) expect(a.take('k', i < 3, t0 + i)).toBe(0);
    await sa.exchange(t0 + 10);
    expect(b.take('k', true, t0 + 20)).toBe(0); // B does not know the key yet: its own counts
    await sb.exchange(t0 + 30);
    // B now counts A's 5 (3 of them price work) and its own: one price request left, 4 requests.
    expect(b.field('k', true, t0 + 40)).toMatch(/^"requests";r=4;t=\d+, "prices";r=0;t=\d+$/);
    expect(b.take('k', true, t0 + 41)).toBeGreaterThan(0);
    for (let i = 0; i < 4; i++) expect(b.take('k', false, t0 + 50 + i)).toBe(0);
    expect(b.take('k', false, t0 + 60)).toBeGreaterThan(0);
    await sb.exchange(t0 + 70);
    await sa.exchange(t0 + 80);
    expect(a.take('k', false, t0 + 90)).toBeGreaterThan(0);
    expect(store.total()).toBe(10 + 4); // 10 requests, 4 of them price work
    // The store fails: A limits on its own counts and keeps them for later (fail open).
    store.down = true;
    expect(a.take('other', false, t0 + 100)).toBe(0);
    await sa.exchange(t0 + 110);
    await sa.exchange(t0 + 120);
    store.down = false;
    await sa.exchange(t0 + 130);
    expect(store.total()).toBe(15);
    expect([sa.exchanges, sb.exchanges]).toEqual([3, 2]);
  });
});
