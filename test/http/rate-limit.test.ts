/**
 * Rate limits per key (D24, D109): off by default; with RATE_LIMIT=on every keyed request counts
 * against a sliding window per key, price work also against its own, and requests over a limit
 * answer 429 with Retry-After before anything else happens (refused requests do not count).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RateLimiter } from '../../src/auth/rate-limit.js';
import { call, keyFor, startTestApp, type TestApp } from '../helpers/server.js';

describe('RateLimiter (sliding windows of 30 buckets)', () => {
  it('admits up to the limit per window, answers the seconds until room returns, and slides', () => {
    const r = new RateLimiter({ perWindow: 10, windowS: 300, pricesPerWindow: 3, pricesWindowS: 60 });
    const t0 = 1_700_000_000_000;
    for (let i = 0; i < 3; i++) expect(r.take('a', true, t0 + i)).toBe(0);
    // The 4th price request within the minute waits until the first bucket leaves (≤ 60 s).
    const wait = r.take('a', true, t0 + 10);
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(60);
    // Refused requests are not counted; other work of the key still has room.
    for (let i = 0; i < 7; i++) expect(r.take('a', false, t0 + 20 + i)).toBe(0);
    expect(r.take('a', false, t0 + 40)).toBeGreaterThan(0);
    // Another key has its own windows.
    expect(r.take('b', true, t0 + 50)).toBe(0);
    // A minute later the price window has room again, but the 5-minute window is still full.
    expect(r.take('a', true, t0 + 61_000)).toBeGreaterThan(60);
    // Five minutes later all is free again.
    expect(r.take('a', true, t0 + 301_000)).toBe(0);
    expect(r.limited).toBe(3);
  });

  it('states each window\'s requests left and the seconds until more as RateLimit items (D217)', () => {
    const r = new RateLimiter({ perWindow: 10, windowS: 300, pricesPerWindow: 3, pricesWindowS: 60 });
    expect(r.policy).toBe('"requests";q=10;w=300');
    expect(r.pricesPolicy).toBe('"requests";q=10;w=300, "prices";q=3;w=60');
    const t0 = 1_700_000_000_000; // a multiple of both bucket lengths (10 s and 2 s)
    expect(r.field('a', true, t0)).toBe('');
    r.take('a', true, t0);
    expect(r.field('a', true, t0)).toBe('"requests";r=9;t=300, "prices";r=2;t=60');
    r.take('a', false, t0 + 4_500);
    expect(r.field('a', false, t0 + 4_500)).toBe('"requests";r=8;t=296');
    // The first bucket leaves the price window after 60 s: 3 left again.
    expect(r.field('a', true, t0 + 60_000)).toBe('"requests";r=8;t=240, "prices";r=3;t=60');
  });
});

describe('rate limits over HTTP', () => {
  let srv: TestApp;
  const A = keyFor('client-a');
  const B = keyFor('client-b');
  beforeAll(async () => {
    srv = await startTestApp({
      keys: { 'client-a': 'ReadCosts,ReadVehicles', 'client-b': 'ReadCosts,ReadVehicles' },
      env: { RATE_LIMIT: 'on', RATE_LIMIT_REQUESTS: '12', RATE_LIMIT_PRICE_REQUESTS: '3' },
    });
  });
  afterAll(async () => {
    await srv.stop();
  });

  it('answers 429 with Retry-After past a key limit, per key, and never limits keyless routes', async () => {
    const price = (key: string) => call(srv, 'POST', '/v1/charge_prices', { key, raw: '{"data":{"type":"charge_price_request"}}' });
    for (let i = 0; i < 3; i++) {
      const r = await price(A);
      expect(r.status).toBe(400);
      // D217: every answer of a limited route states the policies and what is left of them.
      expect(r.headers.get('ratelimit-policy')).toBe('"requests";q=12;w=300, "prices";q=3;w=60');
      expect(r.headers.get('ratelimit')).toMatch(new RegExp(`^"requests";r=${11 - i};t=\\d+, "prices";r=${2 - i};t=\\d+$`));
    }
    const limited = await price(A);
    expect(limited.headers.get('ratelimit')).toMatch(/^"requests";r=9;t=\d+, "prices";r=0;t=\d+$/);
    expect(limited.status).toBe(429);
    expect(limited.json).toEqual({ errors: [{ status: '429', code: 'TOO_MANY_REQUESTS', title: 'rate limit exceeded' }] });
    const retry = Number(limited.headers.get('retry-after'));
    expect(retry).toBeGreaterThanOrEqual(1);
    expect(retry).toBeLessThanOrEqual(60);
    // The other key is not affected; other routes of the same key still have room.
    expect((await price(B)).status).toBe(400);
    for (let i = 0; i < 9; i++) expect((await call(srv, 'GET', '/v2/vehicle_brands', { key: A })).status).toBe(200);
    const all = await call(srv, 'GET', '/v2/vehicle_brands', { key: A });
    expect(all.status).toBe(429);
    expect(Number(all.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(all.headers.get('ratelimit-policy')).toBe('"requests";q=12;w=300');
    expect(all.headers.get('ratelimit')).toMatch(/^"requests";r=0;t=\d+$/);
    for (let i = 0; i < 20; i++) expect((await call(srv, 'GET', '/health')).status).toBe(200);
    // Keyless routes carry no RateLimit fields.
    expect((await call(srv, 'GET', '/health')).headers.get('ratelimit')).toBeNull();
    // A wrong key, or a key without the route's group, is refused 403 as before (not 429).
    expect((await call(srv, 'GET', '/v2/vehicle_brands', { key: 'nope' })).status).toBe(403);
    expect((await call(srv, 'GET', '/v1/charging_stations/00000000-0000-0000-0000-000000000000', { key: A })).status).toBe(403);
  });
});

describe.skipIf(process.env.TEST_DATABASE_URL === undefined)('rate limits across replicas on one PostgreSQL store (D218, npm run test:pg)', () => {
  it('a key gets its limit in the cluster as a whole, and every replica\'s RateLimit field counts the others\' requests', async () => {
    const keys = { 'shared-client': 'ReadVehicles' };
    const env = { RATE_LIMIT: 'on', RATE_LIMIT_REQUESTS: '10', RATE_LIMIT_SYNC_MS: '20' };
    const a = await startTestApp({ keys, env });
    const b = await startTestApp({ dataDir: a.dataDir, env });
    const K = keyFor('shared-client');
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) statuses.push((await call(a, 'GET', '/v2/vehicle_brands', { key: K })).status);
      await new Promise((r) => setTimeout(r, 150)); // a few exchanges
      // B's first request of the key is decided on its own counts (it serves the key from now on)…
      const first = await call(b, 'GET', '/v2/vehicle_brands', { key: K });
      statuses.push(first.status);
      expect(first.headers.get('ratelimit')).toMatch(/^"requests";r=9;t=\d+$/);
      // …and after its next exchange on everybody's: 4 on A and 2 on B.
      await new Promise((r) => setTimeout(r, 150));
      const second = await call(b, 'GET', '/v2/vehicle_brands', { key: K });
      statuses.push(second.status);
      expect(second.headers.get('ratelimit')).toMatch(/^"requests";r=4;t=\d+$/);
      // Alternating replicas, each request after an exchange: 10 served in all, then 429 on both.
      for (let i = 0; i < 15; i++) {
        await new Promise((r) => setTimeout(r, 80));
        statuses.push((await call(i % 2 === 0 ? a : b, 'GET', '/v2/vehicle_brands', { key: K })).status);
      }
      expect(statuses.filter((s) => s === 200)).toHaveLength(10);
      expect(statuses.slice(10).every((s) => s === 429)).toBe(true);
    } finally {
      await b.stop();
      await a.stop();
    }
  });
});
