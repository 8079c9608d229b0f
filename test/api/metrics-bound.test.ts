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

  it('counts repeated requests by the route and method strings as the label keys count them', async () => {
    const m = new Metrics(sources);
    const route = '/v1/charging_stations/:id';
    for (let i = 0; i < 1000; i++) m.observe('GET', route, i % 10 === 0 ? 304 : 200, 0.2, 900);
    for (let i = 0; i < 7; i++) m.observe('BREW', null, 404, 1, 50);
    // The same route as another string object (a second route table after a snapshot swap).
    for (let i = 0; i < 5; i++) m.observe('GET', ['/v1', 'charging_stations', ':id'].join('/'), 200, 0.2, 900);
    const text = await m.text();
    expect(text).toContain('cps_http_requests_total{route="/v1/charging_stations/:id",method="GET",status="200"} 905');
    expect(text).toContain('cps_http_requests_total{route="/v1/charging_stations/:id",method="GET",status="304"} 100');
    expect(text).toContain('cps_http_requests_total{route="unmatched",method="OTHER",status="404"} 7');
    expect(text).toContain('cps_http_request_duration_seconds_count{route="/v1/charging_stations/:id",method="GET"} 1005');
    expect(text).toMatch(/cps_http_response_bytes_total\{route="\/v1\/charging_stations\/:id"\} 904500\b/);
  });
});
