/**
 * `npm run test:proxy`: the service behind Debian's nginx with deploy/nginx.conf (D108), on
 * loopback. What the service's HTTP core cannot take gets a proper answer through nginx: request
 * heads split over many TCP packets, HTTP/1.0, a NUL byte in a header, a missing Host, 100
 * headers, and oversized bodies (413 readable by curl and fetch, chunked or not). For contrast the
 * same raw requests are sent to the service directly, where the known limits show. A slowloris of
 * several thousand connections leaves /health answered (D180). The whole contract passes (D250):
 * every representation, 304s, compressed answers, RateLimit fields, tiles, TileJSON and the map
 * page come back through nginx as the service alone answers them, and the service's server span
 * (exported over OTLP/HTTP to a receiver on loopback) continues the client's `traceparent`.
 *
 * Needs `nginx` on PATH (.ci/run installs it with apt when missing); `curl` when present.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, keyFor, startTestServer, type TestServer, freePort } from '../helpers/server.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const C = keyFor('costs');
const S = keyFor('stations');
/** Slow connections of the slowloris test: more than the 4,096 one nginx worker once had (CI: fewer). */
const SLOW_CONNECTIONS = process.env.CI === 'true' ? 5000 : 6000;
const NGINX = ['/usr/sbin/nginx', '/usr/local/sbin/nginx', '/usr/bin/nginx'].find((p) => fs.existsSync(p)) ?? 'nginx';
const hasCurl = (() => {
  try {
    execFileSync('curl', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/** Writes `pieces` on one connection, `gapMs` apart, and reads the first answer's status line. */
function raw(port: number, pieces: string[], gapMs = 5, timeoutMs = 3000): Promise<string> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.setNoDelay(true);
    let out = '';
    const done = (why: string): void => {
      clearTimeout(timer);
      s.destroy();
      resolve(out.length > 0 ? out : why);
    };
    const timer = setTimeout(() => done('no answer'), timeoutMs);
    s.on('data', (d) => {
      out += d.toString('latin1');
      const head = out.indexOf('\r\n\r\n');
      const len = /content-length: (\d+)/i.exec(out);
      if (head !== -1 && (len === null || out.length >= head + 4 + Number(len[1]))) done('');
    });
    s.on('error', () => done('reset'));
    s.on('close', () => done('closed'));
    let i = 0;
    const next = (): void => {
      if (i < pieces.length && !s.destroyed) {
        s.write(pieces[i++]);
        setTimeout(next, gapMs);
      }
    };
    s.on('connect', next);
  });
}

const statusOf = (answer: string): string => answer.split('\r\n')[0];

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** A GET as sent, its answer as received (no decompression, no redirects). */
function get(port: number, url: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: url, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

/** The answer's headers the contract states, with the same values either way (not Date, X-Request-Id, RateLimit's counts). */
const CONTRACT_HEADERS = ['content-type', 'content-encoding', 'etag', 'cache-control', 'vary', 'ratelimit-policy', 'link', 'x-more-available', 'x-snapshot-version'];

/** A span as an OTLP/HTTP JSON export carries it. */
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
}

/** An OTLP/HTTP receiver on loopback: the spans of every export it was sent. */
async function otlpReceiver(): Promise<{ port: number; spans: OtlpSpan[]; close(): void }> {
  const spans: OtlpSpan[] = [];
  const server = http.createServer((req, res) => {
    let b = '';
    req.on('data', (c: Buffer) => (b += c.toString()));
    req.on('end', () => {
      const doc = JSON.parse(b) as { resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[] };
      for (const r of doc.resourceSpans) for (const sc of r.scopeSpans) spans.push(...sc.spans);
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { port: (server.address() as net.AddressInfo).port, spans, close: () => server.close() };
}

const ESTABLISHED = 0x01;
const TIME_WAIT = 0x06;
/** The loopback IPv4 TCP sockets of this host, from /proc/net/tcp: local and remote port, state. */
function tcpEntries(): { local: number; remote: number; state: number }[] {
  return fs
    .readFileSync('/proc/net/tcp', 'utf8')
    .split('\n')
    .slice(1)
    .filter((l) => l.trim().length > 0)
    .map((l) => {
      const f = l.trim().split(/\s+/);
      return { local: Number.parseInt(f[1].split(':')[1], 16), remote: Number.parseInt(f[2].split(':')[1], 16), state: Number.parseInt(f[3], 16) };
    });
}

describe('the service behind nginx (deploy/nginx.conf)', () => {
  let srv: TestServer;
  let nginx: ChildProcess;
  let port: number;
  let prefix: string;
  let nginxLog = '';
  let otlp: Awaited<ReturnType<typeof otlpReceiver>>;

  beforeAll(async () => {
    otlp = await otlpReceiver();
    srv = await startTestServer({
      keys: { costs: 'ReadCosts', stations: 'ReadStations' },
      env: { WORKERS: '1', RATE_LIMIT: 'on', TRACING: 'otlp', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `http://127.0.0.1:${otlp.port}/v1/traces`, OTEL_BSP_SCHEDULE_DELAY: '100' },
    });
    port = await freePort();
    prefix = fs.mkdtempSync(path.join(os.tmpdir(), 'cps-nginx-'));
    const conf = fs
      .readFileSync(path.join(ROOT, 'deploy/nginx.conf'), 'utf8')
      .replaceAll('UPSTREAM_SERVERS', `server 127.0.0.1:${srv.port};`)
      .replaceAll('LISTEN_PORT', String(port))
      .replaceAll('BODY_LIMIT', '1m');
    fs.writeFileSync(path.join(prefix, 'nginx.conf'), conf);
    nginx = spawn(NGINX, ['-p', prefix + '/', '-c', path.join(prefix, 'nginx.conf'), '-e', 'stderr'], { stdio: ['ignore', 'pipe', 'pipe'] });
    nginx.stderr!.on('data', (d: Buffer) => (nginxLog += d.toString()));
    nginx.on('error', (e) => (nginxLog += `cannot start ${NGINX}: ${e.message}`));
    const t0 = Date.now();
    for (;;) {
      const ok = await fetch(`http://127.0.0.1:${port}/health`).then((r) => r.status === 200, () => false);
      if (ok) break;
      if (Date.now() - t0 > 10_000 || nginx.exitCode !== null) throw new Error(`nginx did not start (install Debian's nginx):\n${nginxLog}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  });
  afterAll(async () => {
    nginx?.kill('SIGQUIT');
    await srv?.stop();
    otlp?.close();
    if (prefix) fs.rmSync(prefix, { recursive: true, force: true });
  });

  const head = 'GET /health HTTP/1.1\r\nHost: x\r\nUser-Agent: probe\r\n\r\n';

  it('answers a request head sent one byte per packet (the service alone answers 505)', async () => {
    expect(statusOf(await raw(port, head.split('')))).toBe('HTTP/1.1 200 OK');
    expect(statusOf(await raw(port, [head.slice(0, 12), head.slice(12)], 30))).toBe('HTTP/1.1 200 OK');
    expect(statusOf(await raw(srv.port, head.split('')))).toMatch(/^HTTP\/1\.1 505/);
  });

  it('answers HTTP/1.0 (the service alone answers 505)', async () => {
    const a = await raw(port, ['GET /health HTTP/1.0\r\nHost: x\r\n\r\n']);
    expect(statusOf(a)).toMatch(/^HTTP\/1\.1 200/);
    expect(a).toContain('"status":"ok"');
    expect(statusOf(await raw(srv.port, ['GET /health HTTP/1.0\r\nHost: x\r\n\r\n']))).toMatch(/^HTTP\/1\.1 505/);
  });

  it('answers 400 to a NUL in a header and to a missing Host (the service alone does not answer)', async () => {
    expect(statusOf(await raw(port, ['GET /health HTTP/1.1\r\nHost: x\r\nX-A: a\0b\r\n\r\n']))).toMatch(/^HTTP\/1\.1 400/);
    expect(statusOf(await raw(port, ['GET /health HTTP/1.1\r\n\r\n']))).toMatch(/^HTTP\/1\.1 400/);
    expect(await raw(srv.port, ['GET /health HTTP/1.1\r\n\r\n'], 5, 1000)).toBe('no answer');
  });

  it('answers a request with 100 headers (the service alone does not answer)', async () => {
    let many = 'GET /health HTTP/1.1\r\nHost: x\r\n';
    for (let i = 0; i < 100; i++) many += `X-Header-${i}: value ${i}\r\n`;
    expect(statusOf(await raw(port, [many + '\r\n']))).toBe('HTTP/1.1 200 OK');
    expect(await raw(srv.port, [many + '\r\n'], 5, 1000)).toBe('no answer');
  });

  it('passes keys, bodies (chunked ones with a length) and answers through unchanged', async () => {
    const body = { data: { type: 'charge_price_request', attributes: { nope: 1 } } };
    const direct = await call(srv, 'POST', '/v1/charge_prices', { key: C, body });
    const via = await fetch(`http://127.0.0.1:${port}/v1/charge_prices`, {
      method: 'POST',
      headers: { 'Api-Key': C, 'Content-Type': 'application/json', 'X-Request-Id': 'through-nginx-1' },
      body: JSON.stringify(body),
    });
    expect(via.status).toBe(direct.status);
    expect(await via.text()).toBe(direct.text);
    expect(via.headers.get('x-request-id')).toBe('through-nginx-1');
    const bytes = new TextEncoder().encode(JSON.stringify(body));
    const chunked = await fetch(`http://127.0.0.1:${port}/v1/charge_prices`, {
      method: 'POST',
      headers: { 'Api-Key': C, 'Content-Type': 'application/json' },
      body: new ReadableStream({ start: (c) => (c.enqueue(bytes), c.close()) }),
      duplex: 'half',
    } as RequestInit);
    expect(chunked.status).toBe(direct.status);
    expect(await chunked.text()).toBe(direct.text);
    expect((await fetch(`http://127.0.0.1:${port}/v1/charge_prices`, { method: 'POST', body: '{}' })).status).toBe(403);
  });

  const SEARCH = '/v1/charging_stations?filter[latitude]=48.8566&filter[longitude]=2.3522&filter[radius]=3000&page[size]=25';

  it('answers every representation, its 304 and its compressed forms as the service alone does (D250)', async () => {
    const types = [
      ['application/json', 'application/json; charset=utf-8'],
      ['application/vnd.api+json', 'application/vnd.api+json'],
      ['application/geo+json', 'application/geo+json'],
      ['text/csv', 'text/csv; charset=utf-8; header=present'],
    ];
    for (const [accept, type] of types) {
      for (const encoding of ['identity', 'br', 'gzip']) {
        const headers = { 'Api-Key': S, Accept: accept, 'Accept-Encoding': encoding };
        const [direct, via] = [await get(srv.port, SEARCH, headers), await get(port, SEARCH, headers)];
        const what = `${accept} ${encoding}`;
        expect(direct.status, what).toBe(200);
        expect(via.status, what).toBe(200);
        expect(via.headers['content-type'], what).toBe(type);
        expect(via.headers['content-encoding'], what).toBe(encoding === 'identity' ? undefined : encoding);
        for (const h of CONTRACT_HEADERS) expect(via.headers[h], `${what}: ${h}`).toBe(direct.headers[h]);
        expect(via.body.equals(direct.body), what).toBe(true);
        expect(via.headers.ratelimit, what).toMatch(/^"requests";r=\d+;t=\d+$/);
        const again = await get(port, SEARCH, { ...headers, 'If-None-Match': via.headers.etag! });
        expect(again.status, what).toBe(304);
        expect(again.headers.etag, what).toBe(via.headers.etag);
        expect(again.body.length, what).toBe(0);
      }
    }
  });

  it('passes a CSV page whose query makes a long Link header (D283; nginx answered 502 with its default buffer)', async () => {
    const long = `${SEARCH}&filter[charge_points.plug.in]=type2,${'x'.repeat(3_000)}`;
    const headers = { 'Api-Key': S, Accept: 'text/csv' };
    const [direct, via] = [await get(srv.port, long, headers), await get(port, long, headers)];
    expect(direct.status).toBe(200);
    expect(via.status).toBe(200);
    expect(via.headers.link!.length).toBeGreaterThan(6_000);
    expect(via.headers.link).toBe(direct.headers.link);
    expect(via.body.equals(direct.body)).toBe(true);
  });

  it('answers vector tiles, TileJSON (at the address and scheme the client used) and the map page as the service alone does (D250)', async () => {
    for (const url of ['/v1/tiles/stations/9/259/176.mvt', '/map', '/map/map.js']) {
      const headers = { 'Api-Key': S, 'Accept-Encoding': 'gzip' };
      const [direct, via] = [await get(srv.port, url, headers), await get(port, url, headers)];
      expect(direct.status, url).toBe(200);
      expect(via.status, url).toBe(200);
      for (const h of CONTRACT_HEADERS) expect(via.headers[h], `${url}: ${h}`).toBe(direct.headers[h]);
      expect(via.body.equals(direct.body), url).toBe(true);
    }
    expect((await get(port, '/v1/tiles/stations/9/259/176.mvt', { 'Api-Key': S })).headers['content-type']).toBe('application/vnd.mapbox-vector-tile');
    for (const [proto, scheme] of [[undefined, 'http'], ['https', 'https'], ['gopher', 'http']] as const) {
      const headers: Record<string, string> = { 'Api-Key': S, ...(proto !== undefined ? { 'X-Forwarded-Proto': proto } : {}) };
      const direct = JSON.parse((await get(srv.port, '/v1/tiles/stations.json', headers)).body.toString()) as { tiles: string[] };
      const via = JSON.parse((await get(port, '/v1/tiles/stations.json', headers)).body.toString()) as { tiles: string[] };
      expect(via.tiles, proto).toEqual([`${scheme}://127.0.0.1:${port}/v1/tiles/stations/{z}/{x}/{y}.mvt`]);
      expect(via.tiles[0].replace(`:${port}/`, `:${srv.port}/`).replace(/^https:/, 'http:')).toBe(direct.tiles[0].replace(/^https:/, 'http:'));
    }
  });

  it("continues the client's trace: the service's server span is a child of the traceparent sent to nginx (D250)", async () => {
    const trace = '0af7651916cd43dd8448eb211c80319c';
    const parent = 'b7ad6b7169203331';
    const r = await get(port, SEARCH, { 'Api-Key': S, traceparent: `00-${trace}-${parent}-01`, tracestate: 'vendor=1' });
    expect(r.status).toBe(200);
    const until = Date.now() + 15_000;
    const server = (): OtlpSpan | undefined => otlp.spans.find((s) => s.traceId === trace && s.name === 'GET /v1/charging_stations');
    while (server() === undefined && Date.now() < until) await new Promise((res) => setTimeout(res, 100));
    expect(server(), JSON.stringify(otlp.spans.slice(-3))).toBeDefined();
    expect(server()!.parentSpanId).toBe(parent);
    expect(server()!.kind).toBe(2);
  });

  it('ends an oversized body in a readable 413 for fetch, chunked or not', async () => {
    const chunk = new Uint8Array(64 * 1024).fill(120);
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(c) {
        if (sent >= 8 << 20) return c.close();
        sent += chunk.length;
        c.enqueue(chunk);
      },
    });
    const url = `http://127.0.0.1:${port}/v1/charge_prices`;
    const headers = { 'Api-Key': C, 'Content-Type': 'application/json' };
    const chunked = await fetch(url, { method: 'POST', headers, body: stream, duplex: 'half' } as RequestInit);
    expect(chunked.status).toBe(413);
    await chunked.text();
    const declared = await fetch(url, { method: 'POST', headers, body: new Uint8Array(8 << 20).fill(120) });
    expect(declared.status).toBe(413);
    await declared.text();
  });

  it.runIf(hasCurl)('ends an oversized body in a readable 413 for curl, chunked or not', () => {
    const file = path.join(prefix, 'big.json');
    fs.writeFileSync(file, Buffer.alloc(3 << 20, 120));
    for (const extra of [[], ['-H', 'Transfer-Encoding: chunked']]) {
      const code = execFileSync('curl', ['-s', '-o', '/dev/null', '-w', '%{http_code}', '-X', 'POST', '-H', `Api-Key: ${C}`, '-H', 'Content-Type: application/json', ...extra, '--data-binary', `@${file}`, `http://127.0.0.1:${port}/v1/charge_prices`]).toString();
      expect(code).toBe('413');
    }
  });

  it('closes idle upstream connections on its side before the service closes them (D248)', async () => {
    const before = new Set(tcpEntries().filter((e) => e.remote === srv.port).map((e) => e.local));
    const post = (): Promise<unknown> =>
      fetch(`http://127.0.0.1:${port}/v1/charge_prices`, { method: 'POST', headers: { 'Content-Type': 'application/json', Connection: 'close' }, body: '{}' }).then((r) => r.arrayBuffer());
    await Promise.all(Array.from({ length: 24 }, post));
    // nginx's own ends of its connections to the service opened by the burst.
    const upstream = new Set(tcpEntries().filter((e) => e.state === ESTABLISHED && e.remote === srv.port && !before.has(e.local)).map((e) => e.local));
    expect(upstream.size).toBeGreaterThan(0);
    const open = (): boolean => tcpEntries().some((e) => e.state === ESTABLISHED && e.remote === srv.port && upstream.has(e.local));
    // Until each is closed: by nginx after its keepalive_timeout, or by the service after its idle close.
    for (const end = Date.now() + 45_000; open() && Date.now() < end; ) await new Promise((r) => setTimeout(r, 200));
    const now = tcpEntries();
    // The side that closes first keeps the TIME_WAIT entry.
    const closedByService = now.filter((e) => e.state === TIME_WAIT && e.local === srv.port && upstream.has(e.remote)).length;
    const closedByNginx = now.filter((e) => e.state === TIME_WAIT && e.remote === srv.port && upstream.has(e.local)).length;
    expect({ closedByService, closedByNginx }).toEqual({ closedByService: 0, closedByNginx: upstream.size });
  }, 90_000);

  it('answers /health throughout a slowloris of several thousand connections from other addresses, and ends them after 10 s (D180)', async () => {
    // Each slow client sends part of a head, then a byte every 2 s: nginx holds a connection
    // (and a file) for each. 127.0.0.2… are loopback addresses of their own.
    const n = SLOW_CONNECTIONS;
    const sockets: net.Socket[] = [];
    let closedByServer = 0;
    const opened = await Promise.all(
      Array.from({ length: n }, (_, i) =>
        new Promise<boolean>((resolve) => {
          const s = net.connect({ port, host: '127.0.0.1', localAddress: `127.0.0.${2 + (i % 20)}` });
          s.on('connect', () => {
            s.write('GET /health HTTP/1.1\r\nHost: x\r\n');
            resolve(true);
          });
          s.on('error', () => resolve(false));
          s.on('close', () => closedByServer++);
          sockets.push(s);
        }),
      ),
    );
    expect(opened.filter(Boolean).length).toBe(n);
    const drip = setInterval(() => {
      for (const s of sockets) if (!s.destroyed) s.write('X');
    }, 2000);
    try {
      // /health from 127.0.0.1 every 100 ms for 6 s: every probe answered, and quickly.
      const slow: number[] = [];
      for (let t0 = Date.now(); Date.now() - t0 < 6000; ) {
        const p0 = performance.now();
        const status = await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(2000) }).then((r) => r.status, () => 0);
        const ms = performance.now() - p0;
        expect(status, `a /health probe during the slowloris: ${nginxLog.slice(-500)}`).toBe(200);
        if (ms > 500) slow.push(ms);
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(slow).toEqual([]);
      expect(nginxLog).not.toContain('worker_connections are not enough');
      // A head that has not arrived after 10 s ends its connection.
      await new Promise((r) => setTimeout(r, 6000));
      expect(closedByServer).toBe(n);
    } finally {
      clearInterval(drip);
      for (const s of sockets) s.destroy();
    }
  }, 60_000);
});
