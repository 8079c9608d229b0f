// D173: the request series of Metrics are capped even if a label ever came from a request.
import { Histogram } from '../../src/domain/histogram.js';
import { describe, expect, it } from 'vitest';
import { Metrics } from '../../src/metrics.js';

const sources = {
  pool: () => ({ queued: 0, threads: 0, inline: 0, pooled: 0, split: 0, refusedFull: 0, expired: 0, deadline: 0, workerDeaths: 0, waitTimes: new Histogram(), workerTimes: new Histogram(), inlineTimes: new Histogram() }),
  catalogGeneration: () => 0,
  snapshot: () => ({ version: 'v', stations: 0, builtAt: '2026-01-01T00:00:00.000Z' }),
  storageErrors: () => 0,
  rateLimited: () => 0,
  storeChecks: () => 0,
  storeCatchUps: () => 0,
  swaps: () => ({ swapped: 0, refused: 0, missing: 0 }),
  inFlight: () => 0,
  connections: () => null,
  authRefused: () => ({ missing: 0, invalid: 0, group: 0 }),
  availabilityUpdates: () => 0,
  availabilityStale: () => 0,
  availabilityUnknown: () => 0,
  availabilityLastUpdateAge: () => null,
  passwordHashes: () => 0,
  dbPool: () => null,
  build: { version: 'test', node: process.version },
};

describe('Metrics series cap (D173)', () => {
  it('puts routes beyond 1,024 latency series under "overflow" and statuses beyond 4,096 request series too', async () => {
    const m = new Metrics(sources);
    for (let i = 0; i < 20_000; i++) m.observe('GET', `/route-${i}`, 200 + (i % 300), 1, 10);
    const text = await m.text();
    const routes = new Set([...text.matchAll(/cps_http_request_duration_seconds_count\{route="([^"]*)"/g)].map((x) => x[1]));
    expect(routes.size).toBeLessThanOrEqual(1025);
    expect(routes.has('overflow')).toBe(true);
    const requests = [...text.matchAll(/^cps_http_requests_total\{/gm)].length;
    expect(requests).toBeLessThanOrEqual(4096 + 301);
    // Every request is still counted.
    const total = [...text.matchAll(/^cps_http_requests_total\{[^}]*\} (\d+)/gm)].reduce((a, x) => a + Number(x[1]), 0);
    expect(total).toBe(20_000);
  });
});
