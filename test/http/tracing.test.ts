/**
 * OpenTelemetry tracing (D229): a request's server span continues the client's W3C `traceparent`,
 * its children are the pipeline's stages, the pool's wait and task and the store's reads and
 * writes; off by default (no span at all); OTLP/HTTP export to a collector on loopback.
 */
import http from 'node:http';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, keyFor, startTestApp, startTestServer, type TestApp } from '../helpers/server.js';
import { chargeBody, putCompany } from '../pool/price-fixtures.js';

const PARENT_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_SPAN = '00f067aa0ba902b7';
const traceparent = `00-${PARENT_TRACE}-${PARENT_SPAN}-01`;

/** The spans of one trace, by name. */
function byName(spans: ReadableSpan[], traceId: string): Map<string, ReadableSpan[]> {
  const out = new Map<string, ReadableSpan[]>();
  for (const s of spans) {
    if (s.spanContext().traceId !== traceId) continue;
    out.set(s.name, [...(out.get(s.name) ?? []), s]);
  }
  return out;
}

describe('tracing (D229)', () => {
  const exporter = new InMemorySpanExporter();
  let srv: TestApp;
  beforeAll(async () => {
    srv = await startTestApp({ keys: { writer: 'WriteTariffs,ReadTariffs', costs: 'ReadCosts', stations: 'ReadStations' }, env: { PRICING_INLINE_MAX_EVALUATIONS: '0' }, spanExporter: exporter });
  });
  afterAll(async () => {
    await srv.stop();
  });

  it('continues the client trace: a server span named by route, its stages, the pool and the store as children', async () => {
    exporter.reset();
    const emp = await putCompany(srv, keyFor('writer'), {});
    const cpo = await putCompany(srv, keyFor('writer'), { is_cpo: true, is_emp: false, supported_emps: [emp] });
    const r = await call(srv, 'POST', '/v1/charge_prices', { key: keyFor('costs'), body: chargeBody({ network: cpo }), headers: { traceparent, tracestate: 'vendor=1' } });
    expect(r.status, r.text).toBe(200);
    const spans = byName(exporter.getFinishedSpans(), PARENT_TRACE);
    const server = spans.get('POST /v1/charge_prices')![0];
    expect(server.parentSpanContext?.spanId).toBe(PARENT_SPAN);
    expect(server.attributes).toMatchObject({ 'http.route': '/v1/charge_prices', 'http.response.status_code': 200, 'http.request.method': 'POST' });
    const own = server.spanContext().spanId;
    for (const name of ['route', 'authenticate', 'body.read', 'body.parse', 'handler', 'price.queue_wait', 'price.task']) {
      const s = spans.get(name);
      expect(s, name).toBeDefined();
      expect(s![0].parentSpanContext?.spanId, name).toBe(own);
    }
    expect(spans.get('price.task')![0].attributes['cps.task']).toBe('chargePrices');
    // A write: its store span is a child of its request too (a new trace without traceparent).
    const writes = exporter.getFinishedSpans().filter((s) => s.name === 'store.write');
    expect(writes.length).toBeGreaterThan(0);
    const put = exporter.getFinishedSpans().find((s) => s.name === 'PUT /v1/companies/:id')!;
    expect(put.spanContext().traceId).not.toBe(PARENT_TRACE);
    expect(writes.some((w) => w.parentSpanContext?.spanId === put.spanContext().spanId)).toBe(true);
  });

  it('carries the HTTP server semantic conventions on the server span and service.instance.id on its resource (D251)', async () => {
    exporter.reset();
    await call(srv, 'GET', '/health', { headers: { traceparent, Host: 'cps.example.org:8443', 'X-Forwarded-Proto': 'https', 'X-Forwarded-For': '203.0.113.7' } });
    const server = exporter.getFinishedSpans().find((s) => s.spanContext().traceId === PARENT_TRACE && s.name === 'GET /health')!;
    expect(server.attributes).toEqual({
      'http.request.method': 'GET',
      'url.path': '/health',
      'url.scheme': 'https',
      'http.route': '/health',
      'http.response.status_code': 200,
      'server.address': 'cps.example.org',
      'server.port': 8443,
      // TRUST_PROXY is off: X-Forwarded-For is not the client.
      'client.address': '127.0.0.1',
      'network.peer.address': '127.0.0.1',
    });
    const id = server.resource.attributes['service.instance.id'] as string;
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(srv.stdout()).toContain(`"instanceId":"${id}"`);

    const behind = new InMemorySpanExporter();
    const proxied = await startTestApp({ env: { TRUST_PROXY: 'on' }, spanExporter: behind });
    try {
      for (const [host, address, port] of [['cps.example.org', 'cps.example.org', 80], ['[::1]:9000', '::1', 9000]] as const) {
        behind.reset();
        await call(proxied, 'GET', '/health', { headers: { traceparent, Host: host, 'X-Forwarded-For': '198.51.100.1, 203.0.113.7' } });
        const span = behind.getFinishedSpans().find((s) => s.name === 'GET /health')!;
        expect(span.attributes).toMatchObject({ 'url.scheme': 'http', 'server.address': address, 'server.port': port, 'client.address': '203.0.113.7', 'network.peer.address': '127.0.0.1' });
        expect(span.resource.attributes['service.instance.id']).not.toBe(id);
      }
    } finally {
      await proxied.stop();
    }
  });

  it('names the trace and the server span in the access line of every traced request, and in no other (D251)', async () => {
    exporter.reset();
    await call(srv, 'GET', '/health', { headers: { traceparent, 'X-Request-Id': 'traced-log-1' } });
    await call(srv, 'GET', '/v9/nothing', { headers: { 'X-Request-Id': 'traced-log-2' } });
    const lineOf = (app: TestApp, id: string): Record<string, unknown> =>
      JSON.parse(app.stdout().split('\n').find((l) => l.includes(`"reqId":"${id}"`))!) as Record<string, unknown>;
    const spans = exporter.getFinishedSpans().filter((s) => s.kind === 1 /* SERVER */);
    expect(spans).toHaveLength(2);
    for (const [id, span] of [['traced-log-1', spans.find((s) => s.name === 'GET /health')!], ['traced-log-2', spans.find((s) => s.name === 'GET')!]] as const) {
      const line = lineOf(srv, id);
      expect(line.trace_id, id).toBe(span.spanContext().traceId);
      expect(line.span_id, id).toBe(span.spanContext().spanId);
    }
    expect(lineOf(srv, 'traced-log-1').trace_id).toBe(PARENT_TRACE);
    // Not sampled (the client's flag 00): no trace, no ids; nor with tracing off.
    await call(srv, 'GET', '/health', { headers: { traceparent: traceparent.replace(/-01$/, '-00'), 'X-Request-Id': 'untraced-log-1' } });
    expect(lineOf(srv, 'untraced-log-1')).not.toHaveProperty('trace_id');
    const off = await startTestApp({});
    try {
      await call(off, 'GET', '/health', { headers: { traceparent, 'X-Request-Id': 'untraced-log-2' } });
      expect(lineOf(off, 'untraced-log-2')).not.toHaveProperty('trace_id');
    } finally {
      await off.stop();
    }
  });

  it('marks answers of 500 and over as errors, and names unknown paths by method only', async () => {
    exporter.reset();
    await call(srv, 'GET', '/v9/nothing', { headers: { traceparent } });
    const spans = exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === PARENT_TRACE);
    const server = spans.find((s) => s.parentSpanContext?.spanId === PARENT_SPAN)!;
    expect(server.name).toBe('GET');
    expect(server.attributes['http.response.status_code']).toBe(404);
  });

  it('records nothing when off (the default), also next to a traced service in the same process', async () => {
    exporter.reset();
    const off = await startTestApp({ keys: { writer: 'WriteTariffs,ReadTariffs' } });
    try {
      expect(off.stdout()).toContain('"tracing":"off"');
      expect((await call(off, 'GET', '/health', { headers: { traceparent } })).status).toBe(200);
      await putCompany(off, keyFor('writer'), {});
      expect(exporter.getFinishedSpans()).toEqual([]);
    } finally {
      await off.stop();
    }
  });

  it('exports over OTLP/HTTP to the collector OTEL_EXPORTER_OTLP_TRACES_ENDPOINT names', async () => {
    const bodies: string[] = [];
    const collector = http.createServer((req, res) => {
      let b = '';
      req.on('data', (c: Buffer) => (b += c.toString('latin1')));
      req.on('end', () => {
        bodies.push(`${req.method} ${req.url} ${req.headers['content-type']} ${b}`);
        res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((r) => collector.listen(0, '127.0.0.1', r));
    const port = (collector.address() as { port: number }).port;
    const svc = await startTestServer({ env: { TRACING: 'otlp', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `http://127.0.0.1:${port}/v1/traces`, OTEL_BSP_SCHEDULE_DELAY: '100' } });
    try {
      const r = await fetch(`${svc.url}/health`, { headers: { traceparent } });
      expect(r.status).toBe(200);
      const until = Date.now() + 10_000;
      while (!bodies.some((b) => b.includes(PARENT_TRACE)) && Date.now() < until) await new Promise((res) => setTimeout(res, 100));
      const got = bodies.find((b) => b.includes(PARENT_TRACE));
      expect(got, bodies.join('\n').slice(0, 500)).toBeDefined();
      expect(got).toMatch(/^POST \/v1\/traces application\/json/);
      expect(got).toContain('GET /health');
      expect(got).toContain('charging-price-service');
    } finally {
      await svc.stop();
      collector.close();
    }
  });

  it('refuses a TRACING or TRACING_SAMPLE_RATIO it does not know at start', async () => {
    await expect(startTestApp({ env: { TRACING: 'jaeger' } })).rejects.toThrow(/TRACING must be off or otlp/);
    await expect(startTestApp({ env: { TRACING_SAMPLE_RATIO: '2' } })).rejects.toThrow(/TRACING_SAMPLE_RATIO must be a number from 0 to 1/);
  });
});
