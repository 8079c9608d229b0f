/**
 * `GET /metrics` over HTTP: Prometheus text format with the request counters, latency histograms
 * and bytes by route template, the price pool, catalog, snapshot, storage and rate-limit series,
 * and prom-client's process metrics; no key by default, group ReadMetrics with
 * METRICS_KEY_REQUIRED=on.
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, call, keyFor, startTestApp, startTestServer, type TestApp, type TestServer } from '../helpers/server.js';

/** `name{labels} value` lines of the exposition, as name + label string → value. */
function samples(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || line.trim() === '') continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})? (\S+)$/.exec(line);
    expect(m, `exposition line: ${line}`).not.toBeNull();
    out.set(m![1] + (m![2] ?? ''), Number(m![3]));
  }
  return out;
}

describe('GET /metrics', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer({ keys: { costs: 'ReadCosts' }, env: { WORKERS: '1', PRICING_INLINE_MAX_EVALUATIONS: '0' } });
  });
  afterAll(async () => {
    await srv.stop();
  });

  it('exposes requests, latency and bytes by route, the pool, catalog, snapshot and process, without a key', async () => {
    const health = await call(srv, 'GET', '/health');
    await call(srv, 'GET', '/v9/unknown');
    await call(srv, 'POST', '/v1/charge_prices', { key: keyFor('costs'), raw: '{"data":{"type":"charge_price_request"}}' });
    // A method no route has: counted under OTHER, not as a label of its own.
    await new Promise<void>((resolve) => {
      const s = net.connect(srv.port, '127.0.0.1', () => s.write('FROB /health HTTP/1.1\r\nHost: x\r\n\r\n'));
      s.on('data', () => (s.destroy(), resolve()));
      s.on('error', () => resolve());
    });
    const r = await fetch(`${srv.url}/metrics`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await r.text();
    expect(text).toContain('# TYPE cps_http_requests_total counter');
    expect(text).toContain('# TYPE cps_http_request_duration_seconds histogram');
    const s = samples(text);
    expect(s.get('cps_http_requests_total{route="/health",method="GET",status="200"}')).toBe(1);
    expect(s.get('cps_http_requests_total{route="unmatched",method="GET",status="404"}')).toBe(1);
    expect(s.get('cps_http_requests_total{route="/v1/charge_prices",method="POST",status="400"}')).toBe(1);
    expect([...s.keys()].some((k) => k.includes('method="OTHER"'))).toBe(true);
    expect([...s.keys()].some((k) => k.includes('FROB'))).toBe(false);
    expect(s.get('cps_http_request_duration_seconds_count{route="/health",method="GET"}')).toBe(1);
    expect(s.get('cps_http_request_duration_seconds_bucket{route="/health",method="GET",le="+Inf"}')).toBe(1);
    expect(s.get('cps_http_response_bytes_total{route="/health"}')).toBe(Buffer.byteLength(health.text));
    expect(s.get('cps_price_workers')).toBe(1);
    expect(s.get('cps_price_queue_depth')).toBe(0);
    for (const mode of ['inline', 'pooled', 'split']) expect(s.has(`cps_price_tasks_total{mode="${mode}"}`)).toBe(true);
    expect(s.get('cps_price_worker_deaths_total')).toBe(0);
    expect(s.get('cps_storage_errors_total')).toBe(0);
    expect(s.get('cps_rate_limited_total')).toBe(0);
    expect(s.get('cps_snapshot_stations')).toBe(1927);
    const version = (await call(srv, 'GET', '/health')).json.snapshot.version;
    expect(s.get(`cps_snapshot_info{version="${version}"}`)).toBe(1);
    expect(s.has('cps_catalog_generation')).toBe(true);
    // What an operator runs by (D120): build, requests in flight (this scrape), data age, swaps, refusals, feed updates.
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(s.get(`cps_build_info{version="${pkg.version}",node="${process.version}"}`)).toBe(1);
    expect(s.get('cps_http_requests_in_flight')).toBe(1);
    const builtAt = Date.parse((await call(srv, 'GET', '/health')).json.snapshot.built_at);
    expect(Math.abs(s.get('cps_snapshot_data_age_seconds')! - (Date.now() - builtAt) / 1000)).toBeLessThan(60);
    for (const result of ['swapped', 'refused', 'missing']) expect(s.get(`cps_snapshot_swaps_total{result="${result}"}`)).toBe(0);
    expect(s.get('cps_auth_refused_total{reason="missing"}')).toBe(0);
    expect(s.get('cps_availability_updates_total')).toBe(0);
    // The PostgreSQL pool's gauges exist on PostgreSQL only (npm run test:pg).
    if (srv.databaseUrl !== null) {
      expect(s.get('cps_db_pool_connections{state="idle"}')! + s.get('cps_db_pool_connections{state="busy"}')!).toBeGreaterThan(0);
      expect(s.get('cps_db_pool_waiting')).toBe(0);
    } else expect([...s.keys()].filter((k) => k.startsWith('cps_db_pool'))).toEqual([]);
    await call(srv, 'GET', '/v2/vehicle_brands');
    await call(srv, 'GET', '/v2/vehicle_brands', { key: 'no-such-key-x' });
    await call(srv, 'GET', '/v2/vehicle_brands', { key: keyFor('costs') });
    const after = samples(await (await fetch(`${srv.url}/metrics`)).text());
    expect(['missing', 'invalid', 'group'].map((r) => after.get(`cps_auth_refused_total{reason="${r}"}`))).toEqual([1, 1, 1]);
    expect(s.has('process_cpu_user_seconds_total')).toBe(true);
    expect(s.has('nodejs_eventloop_lag_seconds')).toBe(true);
    // HEAD answers like GET, without the body.
    const head = await fetch(`${srv.url}/metrics`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    // Other methods: 405 with the allowed ones.
    const post = await call(srv, 'POST', '/metrics', { raw: '{}' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    expect(post.json.errors[0].code).toBe('METHOD_NOT_ALLOWED');
  });

  it('exposes the data age the deployment allows (SNAPSHOT_MAX_AGE_DAYS) for CpsStaleSnapshot, and none without it (D256)', async () => {
    const without = samples((await call(srv, 'GET', '/metrics')).text);
    expect(without.has('cps_snapshot_data_max_age_seconds')).toBe(false);
    const monthly = await startTestApp({ env: { SNAPSHOT_MAX_AGE_DAYS: '40' } });
    try {
      const text = (await call(monthly, 'GET', '/metrics')).text;
      expect(text).toContain('# TYPE cps_snapshot_data_max_age_seconds gauge');
      expect(samples(text).get('cps_snapshot_data_max_age_seconds')).toBe(40 * 86_400);
    } finally {
      await monthly.stop();
    }
    await expect(startTestApp({ env: { SNAPSHOT_MAX_AGE_DAYS: '-1' } })).rejects.toThrow(/SNAPSHOT_MAX_AGE_DAYS/);
  });

  it('counts open HTTP connections and the connections accepted, idle keep-alive ones included (D228)', async () => {
    const scrape = async () => samples(await (await fetch(`${srv.url}/metrics`, { headers: { Connection: 'close' } })).text());
    // Connections of earlier tests may still close meanwhile on a loaded machine and shift a
    // difference: a measurement is taken again then, and one must see exactly the 5 sockets.
    const seen: string[] = [];
    for (let attempt = 0; attempt < 5; attempt++) {
      const before = await scrape();
      const sockets = await Promise.all(
        Array.from({ length: 5 }, () => new Promise<net.Socket>((resolve) => {
          const s = net.connect(srv.port, '127.0.0.1', () => s.write('GET /health HTTP/1.1\r\nHost: x\r\n\r\n'));
          s.once('data', () => resolve(s));
        })),
      );
      const during = await scrape();
      for (const s of sockets) s.destroy();
      await new Promise((r) => setTimeout(r, 200));
      const after = await scrape();
      const open = during.get('cps_http_open_connections')! - before.get('cps_http_open_connections')!;
      const accepted = during.get('cps_http_connections_total')! - before.get('cps_http_connections_total')!;
      const closed = during.get('cps_http_open_connections')! - after.get('cps_http_open_connections')!;
      seen.push(`open +${open}, accepted +${accepted}, closed ${closed}`);
      if (open === 5 && accepted === 6 && closed === 5) break;
    }
    expect(seen.at(-1), seen.join('; ')).toBe('open +5, accepted +6, closed 5');
  });
});

describe('GET /metrics with METRICS_KEY_REQUIRED=on', () => {
  let srv: TestApp;
  beforeAll(async () => {
    srv = await startTestApp({ keys: { ops: 'ReadMetrics', costs: 'ReadCosts' }, env: { METRICS_KEY_REQUIRED: 'on' } });
  });
  afterAll(async () => {
    await srv.stop();
  });

  it('needs a key of group ReadMetrics', async () => {
    expect((await call(srv, 'GET', '/metrics')).json).toEqual({ errors: [{ status: '403', code: 'FORBIDDEN', title: 'api_key missing' }] });
    const wrong = await call(srv, 'GET', '/metrics', { key: keyFor('costs') });
    expect(wrong.status).toBe(403);
    expect(wrong.json.errors[0].title).toBe('action read_metrics not allowed');
    const ok = await call(srv, 'GET', '/metrics', { key: keyFor('ops') });
    expect(ok.status).toBe(200);
    expect(ok.text).toContain('cps_http_requests_total');
  });

  it('takes the key as a bearer token too (Prometheus sends only that, D120); other routes do not', async () => {
    const bearer = await call(srv, 'GET', '/metrics', { headers: { Authorization: `Bearer ${keyFor('ops')}` } });
    expect(bearer.status).toBe(200);
    expect(bearer.text).toContain('cps_http_requests_total');
    expect((await call(srv, 'GET', '/metrics', { headers: { Authorization: `Bearer ${keyFor('costs')}` } })).status).toBe(403);
    expect((await call(srv, 'GET', '/metrics', { headers: { Authorization: 'Bearer nope-nope-nope' } })).json.errors[0].title).toBe('api_key invalid');
    expect((await call(srv, 'GET', '/metrics', { headers: { Authorization: 'Basic abc' } })).json.errors[0].title).toBe('api_key missing');
    const elsewhere = await call(srv, 'GET', '/v2/vehicle_brands', { headers: { Authorization: `Bearer ${keyFor('ops')}` } });
    expect([elsewhere.status, elsewhere.json.errors[0].title]).toEqual([403, 'api_key missing']);
  });

  it('labels CORS preflights by route template, never by the path sent (a series per distinct path would grow without bound)', async () => {
    for (const id of ['a', 'b', 'c']) expect((await call(srv, 'OPTIONS', `/v1/charging_stations/${id}`)).status).toBe(204);
    expect((await call(srv, 'OPTIONS', '/v1/no-such-path-x')).status).toBe(404);
    const s = samples((await call(srv, 'GET', '/metrics', { key: keyFor('ops') })).text);
    expect(s.get('cps_http_requests_total{route="/v1/charging_stations/:id",method="OPTIONS",status="204"}')).toBe(3);
    expect(s.get('cps_http_requests_total{route="unmatched",method="OPTIONS",status="404"}')).toBe(1);
    expect([...s.keys()].filter((k) => /charging_stations\/[abc]"|no-such-path/.test(k))).toEqual([]);
  });
});

describe('metric series stay bounded whatever the requests (D173)', () => {
  let srv: TestApp;
  beforeAll(async () => {
    srv = await startTestApp({ keys: { reader: 'ReadStations' } });
  });
  afterAll(async () => {
    await srv.stop();
  });

  const series = async (): Promise<{ count: number; bytes: number }> => {
    const text = (await call(srv, 'GET', '/metrics')).text;
    return { count: [...samples(text).keys()].filter((k) => k.startsWith('cps_http_')).length, bytes: text.length };
  };
  const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'PROPFIND', 'BREW', 'get'];
  const burst = async (from: number, n: number): Promise<void> => {
    for (let i = from; i < from + n; i++) {
      const method = METHODS[i % METHODS.length];
      const paths = [`/v1/charging_stations/id-${i}`, `/nowhere/${i}`, `/v1/companies/${i}`, `/docs/file-${i}`, `/ocpi/2.2.1/locations/DE/X/${i}/E${i}`];
      const key = i % 3 === 0 ? keyFor('reader') : i % 3 === 1 ? `wrong-${i}` : undefined;
      await call(srv, method, paths[i % paths.length], { key });
    }
  };

  it('labels 6,000 requests with distinct paths, methods and keys by route template: the series stop growing', async () => {
    await burst(0, 1000);
    await series(); // GET /metrics itself gets its series once
    const after1000 = await series();
    await burst(1000, 5000);
    const after6000 = await series();
    expect(after6000.count).toBe(after1000.count);
    // 20,000 such OPTIONS requests once made the exposition 108 MB.
    expect(after6000.bytes).toBeLessThan(after1000.bytes + 2048);
    expect(after6000.bytes).toBeLessThan(256 * 1024);
    const text = (await call(srv, 'GET', '/metrics')).text;
    expect(text).not.toMatch(/id-\d|nowhere\/\d|file-\d|PROPFIND|BREW/);
  }, 120_000);
});

describe('GET /metrics under a flood of scrapes (D233)', () => {
  it('answers scrapes within METRICS_CACHE_MS of an exposition with that exposition, later ones with a new one', async () => {
    // 2 s: the scrapes that must share an exposition are sent well within it on a loaded machine.
    const app = await startTestApp({ env: { METRICS_CACHE_MS: '2000' } });
    try {
      const healthCount = (text: string) => Number(/^cps_http_requests_total\{route="\/health",method="GET",status="200"\} (\d+)$/m.exec(text)?.[1] ?? 0);
      const first = (await call(app, 'GET', '/metrics')).text;
      await call(app, 'GET', '/health');
      const second = (await call(app, 'GET', '/metrics')).text;
      expect(second).toBe(first);
      await new Promise((r) => setTimeout(r, 2100));
      const third = (await call(app, 'GET', '/metrics')).text;
      expect(healthCount(third)).toBe(healthCount(first) + 1);
      // Scrapes sent together share one exposition.
      const together = await Promise.all(Array.from({ length: 20 }, () => call(app, 'GET', '/metrics')));
      expect(new Set(together.map((r) => r.text)).size).toBe(1);
    } finally {
      await app.stop();
    }
  });
});
