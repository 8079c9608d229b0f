/**
 * The uWebSockets.js front end with a route table defined here: body limits, media types, JSON
 * parsing, key and group checks, the catch boundary, code-less routes, paths and queries.
 */
import net from 'node:net';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/api/jsonapi/errors.js';
import { json, type ApiRequest, type RouteDef } from '../../src/api/types.js';
import { GROUP_BIT } from '../../src/auth/groups.js';
import { startServer, type HttpServer } from '../../src/http/server.js';
import { accessLog } from '../../src/log.js';
import { call } from '../helpers/server.js';

const seen: ApiRequest[] = [];
const echo = (req: ApiRequest) => {
  seen.push(req);
  return json(200, { data: { type: 'echo', id: '1', attributes: { body: req.body, params: req.params, query: Object.fromEntries(req.query) } } });
};

const routes: RouteDef[] = [
  { method: 'POST', path: '/t/echo', groups: ['ReadCosts'], body: true, handler: echo },
  { method: 'GET', path: '/t/items/:id', groups: ['ReadStations', 'ReadStationsWithAvailability'], body: false, handler: echo },
  { method: 'DELETE', path: '/t/items/:id', groups: ['WriteTariffs'], body: false, handler: () => ({ status: 204 }) },
  { method: 'GET', path: '/t/items/special', groups: null, body: false, handler: () => json(200, { special: true }) },
  {
    method: 'GET', path: '/t/boom', groups: null, body: false,
    handler: () => {
      throw new Error('secret internals /etc/passwd');
    },
  },
  { method: 'GET', path: '/t/async-boom', groups: null, body: false, handler: async () => Promise.reject(new Error('secret')) },
  {
    method: 'PUT', path: '/t/codeless', groups: ['WriteTariffs'], body: true, codeless: true,
    handler: () => {
      throw new ApiError('BAD_REQUEST', 'nope', { source: { pointer: '/data' } });
    },
  },
];

const KEYS: Record<string, number> = {
  costs: GROUP_BIT.ReadCosts,
  avail: GROUP_BIT.ReadStationsWithAvailability,
  none: 0,
};

const silent = pino({ level: 'silent' });

describe('HTTP transport', () => {
  let server: HttpServer;
  let srv: { url: string };
  beforeAll(async () => {
    server = await startServer('127.0.0.1', 0, {
      routes,
      keys: { maskOfKey: (k) => KEYS[k] ?? -1 },
      bodyLimitBytes: 1024,
      logger: silent,
      accessLog: accessLog(silent),
    });
    srv = { url: `http://127.0.0.1:${server.port}` };
  });
  afterAll(async () => {
    await server.close(1000);
  });

  it('when the Api-Key header is missing or empty, then 403 api_key missing', async () => {
    for (const key of [undefined, '', '   ']) {
      const r = await call(srv, 'POST', '/t/echo', { key, body: { data: {} } });
      expect(r.status).toBe(403);
      expect(r.json).toEqual({ errors: [{ status: '403', code: 'FORBIDDEN', title: 'api_key missing' }] });
    }
  });

  it('when the key is unknown, then 403 api_key invalid', async () => {
    const r = await call(srv, 'POST', '/t/echo', { key: 'unknown', body: { data: {} } });
    expect(r.json).toEqual({ errors: [{ status: '403', code: 'FORBIDDEN', title: 'api_key invalid' }] });
  });

  it('when the key lacks the group, then 403 naming the first group of the route in snake case', async () => {
    let r = await call(srv, 'POST', '/t/echo', { key: 'none', body: { data: {} } });
    expect(r.json).toEqual({ errors: [{ status: '403', code: 'FORBIDDEN', title: 'action read_costs not allowed' }] });
    r = await call(srv, 'GET', '/t/items/1', { key: 'costs' });
    expect(r.json.errors[0].title).toBe('action read_stations not allowed');
  });

  it('when the key holds any of the route groups, then the handler runs', async () => {
    const r = await call(srv, 'GET', '/t/items/1', { key: 'avail' });
    expect(r.status).toBe(200);
  });

  it('accepts the key header name in any case', async () => {
    for (const h of ['Api-Key', 'API-Key', 'api-key']) {
      const r = await call(srv, 'GET', '/t/items/1', { headers: { [h]: 'avail' } });
      expect(r.status).toBe(200);
    }
  });

  it('when the body is over the limit, then 413 (declared length and streamed chunks)', async () => {
    const big = JSON.stringify({ data: { x: 'a'.repeat(2000) } });
    const r = await call(srv, 'POST', '/t/echo', { key: 'costs', raw: big });
    expect(r.status).toBe(413);
    expect(r.json).toEqual({ errors: [{ status: '413', code: 'PAYLOAD_TOO_LARGE', title: 'request body too large' }] });
    // Chunked upload without Content-Length: the limit is enforced while reading.
    const res = await rawRequest(
      server.port,
      'POST /t/echo HTTP/1.1\r\nHost: x\r\nApi-Key: costs\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n' +
        '400\r\n' + 'a'.repeat(1024) + '\r\n400\r\n' + 'a'.repeat(1024) + '\r\n0\r\n\r\n',
    );
    expect(res).toMatch(/^HTTP\/1\.1 413/);
  });

  it('lets the client finish sending an oversized body and read the 413, chunked or not, and keeps the connection (D108)', async () => {
    const chunk = new Uint8Array(64 * 1024).fill(120);
    const streamed = (total: number) => {
      let sent = 0;
      return new ReadableStream<Uint8Array>({
        pull(c) {
          if (sent >= total) return c.close();
          sent += chunk.length;
          c.enqueue(chunk);
        },
      });
    };
    const url = `http://127.0.0.1:${server.port}/t/echo`;
    const headers = { 'Api-Key': 'costs', 'Content-Type': 'application/json' };
    // 8 MiB sent chunked by fetch (no length), then 8 MiB with a declared length.
    const chunked = await fetch(url, { method: 'POST', headers, body: streamed(8 << 20), duplex: 'half' } as RequestInit);
    expect(chunked.status).toBe(413);
    expect(await chunked.json()).toEqual({ errors: [{ status: '413', code: 'PAYLOAD_TOO_LARGE', title: 'request body too large' }] });
    const declared = await fetch(url, { method: 'POST', headers, body: new Uint8Array(8 << 20).fill(120) });
    expect(declared.status).toBe(413);
    // The same connection answers the next request after a chunked 413.
    const both = await rawUntil(
      server.port,
      '"special":true',
      'POST /t/echo HTTP/1.1\r\nHost: x\r\nApi-Key: costs\r\nTransfer-Encoding: chunked\r\n\r\n' +
        '800\r\n' + 'a'.repeat(2048) + '\r\n0\r\n\r\n' +
        'GET /t/items/special HTTP/1.1\r\nHost: x\r\n\r\n',
    );
    expect(both).toMatch(/^HTTP\/1\.1 413/);
    expect(both).toMatch(/HTTP\/1\.1 200 OK[\s\S]*"special":true/);
  });

  it('when a head carries two different Content-Length headers, then 400 and the connection closes (D179)', async () => {
    const before = seen.length;
    const t0 = performance.now();
    // rawUntil resolves on close; the marker never comes.
    const out = await rawUntil(
      server.port,
      '\u0000never',
      'POST /t/echo HTTP/1.1\r\nHost: x\r\nApi-Key: costs\r\nContent-Type: application/json\r\nContent-Length: 12\r\nContent-Length: 5\r\n\r\n{"data":{}} ',
    );
    expect(out).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(out).toContain('Connection: close');
    expect(out).toContain('"title":"conflicting Content-Length headers"');
    expect(performance.now() - t0).toBeLessThan(2000);
    expect(seen.length).toBe(before);
    // A HEAD request is closed the same way (uWS does not act on a hand-written Connection: close).
    const t1 = performance.now();
    const head = await rawUntil(server.port, '\u0000never', 'HEAD /t/items/special HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nContent-Length: 5\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(performance.now() - t1).toBeLessThan(2000);
    // Two equal lengths are one length.
    const same = await rawRequest(server.port, 'POST /t/echo HTTP/1.1\r\nHost: x\r\nApi-Key: costs\r\nContent-Type: application/json\r\nContent-Length: 11\r\nContent-Length: 11\r\n\r\n{"data":{}}');
    expect(same).toMatch(/^HTTP\/1\.1 200/);
  });

  it('when the body has another media type, then 415 before parsing', async () => {
    for (const ct of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml', 'multipart/form-data; boundary=x']) {
      const r = await call(srv, 'POST', '/t/echo', { key: 'costs', raw: '{"data":{}}', headers: { 'Content-Type': ct } });
      expect(r.status).toBe(415);
      expect(r.json).toEqual({ errors: [{ status: '415', code: 'UNSUPPORTED_MEDIA_TYPE', title: 'unsupported media type' }] });
    }
  });

  it('accepts application/json, application/vnd.api+json with parameters, and no Content-Type', async () => {
    for (const ct of ['application/json', 'application/json; charset=utf-8', 'application/vnd.api+json', 'Application/JSON']) {
      const r = await call(srv, 'POST', '/t/echo', { key: 'costs', raw: '{"data":{"a":1}}', headers: { 'Content-Type': ct } });
      expect(r.status).toBe(200);
      expect(r.json.data.attributes.body).toEqual({ data: { a: 1 } });
    }
    const res = await rawRequest(
      server.port,
      'POST /t/echo HTTP/1.1\r\nHost: x\r\nApi-Key: costs\r\nContent-Length: 11\r\nConnection: close\r\n\r\n{"data":{}}',
    );
    expect(res).toMatch(/^HTTP\/1\.1 200/);
  });

  it('when the JSON is malformed, then 400 BAD_REQUEST', async () => {
    const r = await call(srv, 'POST', '/t/echo', { key: 'costs', raw: '{"data": {' });
    expect(r.status).toBe(400);
    expect(r.json).toEqual({ errors: [{ status: '400', code: 'BAD_REQUEST', title: 'malformed JSON in request body' }] });
  });

  it('when the body is not an object with a data object, then 400 with a pointer', async () => {
    for (const raw of ['[]', '"x"', '{}', '{"data": []}', '{"data": null}', '{"data": 3}']) {
      const r = await call(srv, 'POST', '/t/echo', { key: 'costs', raw });
      expect(r.status, raw).toBe(400);
      expect(r.json.errors[0].code).toBe('BAD_REQUEST');
      expect(r.json.errors[0].source.pointer).toBeDefined();
    }
    const empty = await call(srv, 'POST', '/t/echo', { key: 'costs', raw: '' });
    expect(empty.status).toBe(400);
  });

  it('when a handler throws, then 500 without internals, and the server keeps serving', async () => {
    for (const p of ['/t/boom', '/t/async-boom']) {
      const r = await call(srv, 'GET', p);
      expect(r.status).toBe(500);
      expect(r.json.errors[0].code).toBe('INTERNAL_SERVER_ERROR');
      expect(r.text).not.toContain('secret');
      expect(r.text).not.toContain('passwd');
    }
    expect((await call(srv, 'GET', '/t/items/special')).status).toBe(200);
  });

  it('omits code on code-less routes, also for key and media-type errors', async () => {
    let r = await call(srv, 'PUT', '/t/codeless', { key: 'costs', body: { data: {} } });
    expect(r.json).toEqual({ errors: [{ status: '403', title: 'action write_tariffs not allowed' }] });
    KEYS.writer = GROUP_BIT.WriteTariffs;
    r = await call(srv, 'PUT', '/t/codeless', { key: 'writer', body: { data: {} } });
    expect(r.json).toEqual({ errors: [{ status: '400', title: 'nope', source: { pointer: '/data' } }] });
    r = await call(srv, 'PUT', '/t/codeless', { key: 'writer', raw: 'x', headers: { 'Content-Type': 'text/plain' } });
    expect(r.json).toEqual({ errors: [{ status: '415', title: 'unsupported media type' }] });
  });

  it('prefers static paths over parameters, decodes path parameters and query strings (last wins)', async () => {
    expect((await call(srv, 'GET', '/t/items/special')).json).toEqual({ special: true });
    const r = await call(srv, 'GET', '/t/items/FR%2AV75%2AE1?filter%5Bid%5D=a&filter[id]=b&x=1+2&empty', { key: 'avail' });
    expect(r.json.data.attributes.params).toEqual({ id: 'FR*V75*E1' });
    expect(r.json.data.attributes.query).toEqual({ 'filter[id]': 'b', x: '1 2', empty: '' });
    expect((await call(srv, 'GET', '/t/items/1/', { key: 'avail' })).status).toBe(200);
  });

  it('answers 204 without a body and 405 lists all methods of the path', async () => {
    KEYS.writer = GROUP_BIT.WriteTariffs;
    const d = await call(srv, 'DELETE', '/t/items/1', { key: 'writer' });
    expect(d.status).toBe(204);
    expect(d.text).toBe('');
    expect(d.headers.get('content-length')).toBeNull();
    const r = await call(srv, 'PUT', '/t/items/1', { key: 'writer', body: { data: {} } });
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toBe('GET, DELETE, HEAD');
  });
});

/** Sends `text` on one connection and reads until `until` appears (or the connection closes). */
function rawUntil(port: number, until: string, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1', () => s.write(text));
    let out = '';
    s.on('data', (d) => {
      out += d.toString();
      if (out.includes(until)) {
        s.destroy();
        resolve(out);
      }
    });
    s.on('error', reject);
    s.on('close', () => resolve(out));
  });
}

function rawRequest(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1', () => s.write(text));
    let out = '';
    s.on('data', (d) => {
      out += d.toString();
      if (/\r\n\r\n/.test(out) && /Content-Length: (\d+)/i.test(out)) {
        const len = Number(/Content-Length: (\d+)/i.exec(out)![1]);
        if (out.length >= out.indexOf('\r\n\r\n') + 4 + len) {
          s.destroy();
          resolve(out);
        }
      }
    });
    s.on('error', reject);
    s.on('close', () => resolve(out));
    setTimeout(() => {
      s.destroy();
      resolve(out);
    }, 3000);
  });
}
