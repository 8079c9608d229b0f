/**
 * Browser transport over HTTP (D93–D97): CORS preflights and headers, br/gzip answers that decode
 * to the identity bytes, ETag/304, HEAD, data adapter aliases and the port owner. Raw node:http
 * requests: fetch would negotiate and decode compression by itself.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { buildSnapshot } from '../../src/import/default-snapshot.js';
import { ROOT, call, keyFor, startTestApp, startTestServer, type TestApp, type TestServer } from '../helpers/server.js';
import { chargeBody, putCompany, putTariff, comp, ref, seg } from '../pool/price-fixtures.js';
import { FIX } from './stations.fixture.js';
import { wireText } from '../../src/http/respond.js';

const ALL = keyFor('all');
const READER = keyFor('reader');
const LIVE = keyFor('live');
const ADMIN = keyFor('admin');
const WRITER = keyFor('writer');
const ORIGIN = 'https://map.example';

interface Raw {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** One request as sent, the answer's bytes as received: over node:http, or in process (`startTestApp`). */
async function raw(srv: { port: number } | TestApp, method: string, p: string, headers: Record<string, string> = {}, body?: string): Promise<Raw> {
  if ('request' in srv) {
    const r = await srv.request({ method, url: p, headers: body === undefined ? headers : { 'Content-Type': 'application/json', ...headers }, body });
    return { status: r.status, headers: r.headers, body: r.body };
  }
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: srv.port, method, path: p, headers: body === undefined ? headers : { 'Content-Type': 'application/json', ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const decode = (r: Raw): Buffer => {
  const enc = r.headers['content-encoding'];
  if (enc === 'br') return zlib.brotliDecompressSync(r.body);
  if (enc === 'gzip') return zlib.gunzipSync(r.body);
  return r.body;
};

const STATIONS = '/v1/charging_stations?filter[latitude]=48.85&filter[longitude]=2.35&filter[radius]=200000&page[size]=100';

/** Every path of the service with its methods, as OPTIONS must list them. */
const PATHS: [string, string][] = [
  ['/health', 'GET, HEAD, OPTIONS'],
  ['/ready', 'GET, HEAD, OPTIONS'],
  ['/attribution', 'GET, HEAD, OPTIONS'],
  ['/v1/charging_stations', 'GET, HEAD, OPTIONS'],
  [`/v1/charging_stations/${FIX(1)}`, 'GET, HEAD, OPTIONS'],
  ['/v1/charging_stations/statistics', 'GET, HEAD, OPTIONS'],
  ['/v1/country_statistics', 'GET, HEAD, OPTIONS'],
  ['/v1/charge_prices', 'POST, OPTIONS'],
  ['/v1/charge_prices/bulk', 'POST, OPTIONS'],
  ['/v1/tariff_details', 'POST, OPTIONS'],
  ['/v1/companies', 'GET, HEAD, OPTIONS'],
  ['/v1/companies/x', 'PUT, DELETE, OPTIONS'],
  ['/v1/tariffs', 'GET, HEAD, OPTIONS'],
  ['/v2/tariffs', 'GET, HEAD, OPTIONS'],
  ['/v2/tariffs/x', 'PUT, DELETE, OPTIONS'],
  ['/v1/vehicles', 'GET, HEAD, OPTIONS'],
  ['/v2/vehicles', 'GET, HEAD, OPTIONS'],
  ['/v2/vehicle_brands', 'GET, HEAD, OPTIONS'],
  ['/v1/user_feedback', 'POST, OPTIONS'],
  ['/v1/partner_feedback', 'POST, OPTIONS'],
  ['/v1/crm/devices', 'POST, OPTIONS'],
  ['/admin/snapshot', 'POST, OPTIONS'],
  ['/v1/availability', 'POST, OPTIONS'],
  ['/ocpi/2.2.1/locations/DE/ABC/L1/E1', 'PUT, PATCH, OPTIONS'],
];

describe('browser clients: CORS, compression, conditional requests, HEAD', () => {
  let srv: TestServer;
  let cpo: string;
  let emp: string;
  let tariffId: string;

  beforeAll(async () => {
    srv = await startTestServer({
      keys: { all: 'all', reader: 'ReadStations', live: 'ReadStationsWithAvailability', admin: 'Admin', writer: 'WriteTariffs,ReadTariffs' },
      env: { DATA_ADAPTER_ALIASES: 'legacy:native, old_b:ext_b' },
    });
    emp = await putCompany(srv, WRITER, { name: 'Browser EMP', url: 'https://emp.example/' });
    cpo = await putCompany(srv, WRITER, { name: 'Browser CPO', is_cpo: true, is_emp: false, supported_emps: [emp] });
    tariffId = await putTariff(srv, WRITER, emp, { attributes: { name: 'B', url: 'https://emp.example/b', prices: [comp([seg('kwh', 0.39)])] } });
  });
  afterAll(async () => {
    await srv.stop();
  });

  it('answers a preflight on every known path with its methods, without a key; an unknown path’s preflight passes and its request is 404', async () => {
    for (const [p, methods] of PATHS) {
      const r = await raw(srv, 'OPTIONS', p, { Origin: ORIGIN, 'Access-Control-Request-Method': methods.split(', ')[0], 'Access-Control-Request-Headers': 'api-key, content-type' });
      expect(r.status, p).toBe(204);
      expect(r.body.length).toBe(0);
      expect(r.headers['access-control-allow-origin'], p).toBe('*');
      expect(r.headers['access-control-allow-methods'], p).toBe(methods);
      expect(r.headers.allow, p).toBe(methods);
      const allowed = r.headers['access-control-allow-headers']!.split(', ').map((h) => h.toLowerCase());
      for (const h of ['api-key', 'content-type', 'accept', 'accept-language', 'authorization', 'crm-device-id', 'x-request-id', 'if-none-match']) expect(allowed, p).toContain(h);
      expect(Number(r.headers['access-control-max-age'])).toBeGreaterThan(0);
    }
    // D93: the browser then sends the request and shows its 404, not a network error.
    const unknown = await raw(srv, 'OPTIONS', '/v1/nothing', { Origin: ORIGIN, 'Access-Control-Request-Method': 'GET' });
    expect(unknown.status).toBe(204);
    expect(unknown.headers['access-control-allow-origin']).toBe('*');
    expect(unknown.headers['access-control-allow-methods']).toBe('GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS');
    const real = await raw(srv, 'GET', '/v1/nothing', { Origin: ORIGIN });
    expect(real.status).toBe(404);
    expect(real.headers['access-control-allow-origin']).toBe('*');
    expect(JSON.parse(real.body.toString()).errors[0].title).toBe('route not found');
    // Without an Origin it is no preflight: 404.
    expect((await raw(srv, 'OPTIONS', '/v1/nothing', {})).status).toBe(404);
  });

  it('puts the CORS headers on every answer, errors included', async () => {
    const cases: [string, string, Record<string, string>, string | undefined, number][] = [
      ['GET', STATIONS, { 'Api-Key': READER }, undefined, 200],
      ['GET', STATIONS, {}, undefined, 403],
      ['GET', '/v1/charging_stations?filter[radius]=x', { 'Api-Key': READER }, undefined, 400],
      ['GET', '/v1/nothing', {}, undefined, 404],
      ['DELETE', '/health', {}, undefined, 405],
      ['POST', '/v1/charge_prices', { 'Api-Key': ALL, 'Content-Type': 'text/plain' }, '{}', 415],
    ];
    for (const [m, p, h, b, status] of cases) {
      const r = await raw(srv, m, p, { Origin: ORIGIN, ...h }, b);
      expect(r.status, `${m} ${p}`).toBe(status);
      expect(r.headers['access-control-allow-origin']).toBe('*');
      expect(r.headers['access-control-expose-headers']).toBe('X-Request-Id, Retry-After, ETag, RateLimit, RateLimit-Policy, Link, X-More-Available, X-Snapshot-Version');
      // Answers with an ETag vary by language too: the tag names it (D95, D236).
      expect(r.headers.vary).toBe(r.headers.etag === undefined ? 'Accept-Encoding, Accept' : 'Accept-Encoding, Accept, Accept-Language');
    }
  });

  it('compresses with br or gzip by q-value, and every compressed body decodes to the identity bytes', async () => {
    const price = JSON.stringify(chargeBody({ network: cpo, relationships: { tariffs: { data: [ref('tariff', tariffId)] } } }));
    const stationIds = (await call(srv, 'GET', STATIONS, { key: ALL })).json.data.map((d: { id: string }) => d.id) as string[];
    const vehicle = (await call(srv, 'GET', '/v2/vehicles', { key: ALL })).json.data[0].id as string;
    const bulk = JSON.stringify({
      data: {
        type: 'bulk_price_preview_request',
        attributes: { battery_range: [20, 80] },
        relationships: {
          charging_stations: { data: stationIds.slice(0, 100).map((id) => ref('charging_station', id)) },
          tariffs: { data: [ref('tariff', tariffId)] },
          vehicle: { data: ref('car', vehicle) },
        },
      },
    });
    const routes: [string, string, string | undefined][] = [
      ['GET', STATIONS, undefined],
      ['GET', '/v1/vehicles', undefined],
      ['GET', '/v2/vehicles', undefined],
      ['GET', '/v2/vehicle_brands', undefined],
      ['GET', '/v1/companies?page[size]=100', undefined],
      ['GET', '/v1/tariffs', undefined],
      ['GET', `/v2/tariffs?filter[emp.id]=${emp}`, undefined],
      ['GET', '/v1/country_statistics', undefined],
      ['GET', '/v1/charging_stations/statistics', undefined],
      ['GET', '/attribution', undefined],
      ['POST', '/v1/charge_prices', price],
      ['POST', '/v1/charge_prices/bulk', bulk],
    ];
    let compressed = 0;
    for (const [m, p, b] of routes) {
      const id = await raw(srv, m, p, { 'Api-Key': ALL }, b);
      expect(id.status, `${m} ${p} ${id.body.toString().slice(0, 300)}`).toBe(200);
      expect(id.headers['content-encoding']).toBeUndefined();
      for (const [ae, want] of [
        ['br', 'br'],
        ['gzip', 'gzip'],
        ['gzip, deflate, br', 'br'],
        ['gzip;q=1, br;q=0.5', 'gzip'],
        ['br;q=0, gzip', 'gzip'],
        ['identity', undefined],
        ['deflate', undefined],
      ] as const) {
        const r = await raw(srv, m, p, { 'Api-Key': ALL, 'Accept-Encoding': ae }, b);
        expect(r.status).toBe(200);
        expect(r.headers.vary).toBe(r.headers.etag === undefined ? 'Accept-Encoding, Accept' : 'Accept-Encoding, Accept, Accept-Language');
        expect(Number(r.headers['content-length'])).toBe(r.body.length);
        if (id.body.length < 1024) {
          expect(r.headers['content-encoding'], `${p} is below COMPRESS_MIN_BYTES`).toBeUndefined();
          continue;
        }
        expect(r.headers['content-encoding'], `${m} ${p} ${ae}`).toBe(want);
        if (want !== undefined) compressed++;
        expect(decode(r).equals(id.body), `${m} ${p} ${ae}`).toBe(true);
      }
    }
    expect(compressed).toBeGreaterThan(20);
  });

  it('compresses large pages correctly under concurrency (bodies the next request reuses are copied first)', async () => {
    const pages = [
      '/v1/charging_stations?filter[latitude]=48.85&filter[longitude]=2.35&filter[radius]=200000&page[size]=400',
      '/v1/charging_stations?filter[latitude]=52.52&filter[longitude]=13.40&filter[radius]=200000&page[size]=400',
      '/v1/charging_stations?filter[latitude]=48.80&filter[longitude]=2.30&filter[radius]=150000&page[size]=350',
    ];
    const identity = await Promise.all(pages.map((p) => raw(srv, 'GET', p, { 'Api-Key': ALL })));
    for (const r of identity) expect(r.body.length, `${r.status} ${r.body.toString().slice(0, 200)}`).toBeGreaterThan(128 * 1024);
    expect(new Set(identity.map((r) => r.body.toString())).size).toBe(3);
    for (let round = 0; round < 3; round++) {
      const all = await Promise.all(
        Array.from({ length: 30 }, (_, i) => raw(srv, 'GET', pages[i % 3], { 'Api-Key': ALL, 'Accept-Encoding': i % 2 === 0 ? 'br' : 'gzip' })),
      );
      all.forEach((r, i) => expect(decode(r).equals(identity[i % 3].body), `request ${i}`).toBe(true));
    }
  });

  it('answers If-None-Match with 304; the ETag follows the encoding, the key, catalog writes and the snapshot', async () => {
    const a = await raw(srv, 'GET', '/v1/companies?page[size]=100', { 'Api-Key': ALL });
    expect(a.headers['cache-control']).toBe('private, max-age=60');
    const etag = a.headers.etag!;
    expect(etag).toMatch(/^"[^"]+"$/);
    const hit = await raw(srv, 'GET', '/v1/companies?page[size]=100', { 'Api-Key': ALL, 'If-None-Match': etag, Origin: ORIGIN });
    expect(hit.status).toBe(304);
    expect(hit.body.length).toBe(0);
    expect(hit.headers.etag).toBe(etag);
    expect(hit.headers['access-control-allow-origin']).toBe('*');
    expect((await raw(srv, 'GET', '/v1/companies?page[size]=100', { 'Api-Key': ALL, 'If-None-Match': `"x", W/${etag}` })).status).toBe(304);
    expect((await raw(srv, 'GET', '/v1/companies?page[size]=100', { 'Api-Key': ALL, 'If-None-Match': '*' })).status).toBe(304);
    // Other query, other encoding: other tags.
    expect((await raw(srv, 'GET', '/v1/companies?page[size]=99', { 'Api-Key': ALL, 'If-None-Match': etag })).status).toBe(200);
    const gz = await raw(srv, 'GET', '/v1/companies?page[size]=100', { 'Api-Key': ALL, 'Accept-Encoding': 'gzip', 'If-None-Match': etag });
    expect(gz.status).toBe(200);
    expect(gz.headers.etag).not.toBe(etag);
    // No key: 403 before any 304.
    expect((await raw(srv, 'GET', '/v1/companies?page[size]=100', { 'If-None-Match': etag })).status).toBe(403);
    // A catalog write changes the tag.
    await putCompany(srv, WRITER, { name: 'Another EMP', url: 'https://emp2.example/' });
    const after = await raw(srv, 'GET', '/v1/companies?page[size]=100', { 'Api-Key': ALL, 'If-None-Match': etag });
    expect(after.status).toBe(200);
    expect(after.headers.etag).not.toBe(etag);

    // Stations: keys that see live availability get a tag of their own, covering the availability (D95).
    const st = await raw(srv, 'GET', STATIONS, { 'Api-Key': READER });
    expect(st.headers.etag).toBeDefined();
    const live = await raw(srv, 'GET', STATIONS, { 'Api-Key': LIVE, 'If-None-Match': st.headers.etag! });
    expect(live.status).toBe(200);
    expect(live.headers.etag).toBeDefined();
    expect(live.headers.etag).not.toBe(st.headers.etag);
    expect((await raw(srv, 'GET', STATIONS, { 'Api-Key': LIVE, 'If-None-Match': live.headers.etag! })).status).toBe(304);
    expect((await raw(srv, 'GET', STATIONS, { 'Api-Key': READER, 'If-None-Match': st.headers.etag! })).status).toBe(304);

    // A snapshot swap changes the tag.
    const dir = fs.mkdtempSync(path.join(inject('testTmpRoot'), 'browser-'));
    const extra = path.join(dir, 'extra.sqlite');
    buildSnapshot({ out: extra, sample: true, progress: false, extra: path.join(ROOT, 'test/fixtures/stations-extra.jsonl') });
    const swap = await call(srv, 'POST', '/admin/snapshot', { key: ADMIN, body: { data: { type: 'snapshot_reload', attributes: { path: extra } } } });
    expect(swap.status, swap.text).toBe(200);
    const swapped = await raw(srv, 'GET', STATIONS, { 'Api-Key': READER, 'If-None-Match': st.headers.etag! });
    expect(swapped.status).toBe(200);
    expect(swapped.headers.etag).not.toBe(st.headers.etag);
  });

  it('answers HEAD on every GET route with the GET headers and no body', async () => {
    for (const p of ['/health', '/ready', '/attribution', '/openapi.json', '/docs', '/docs/init.js', '/docs/swagger-ui.css', STATIONS, `/v1/charging_stations/${FIX(1)}`, '/v1/charging_stations/statistics', '/v1/country_statistics', '/v1/companies', '/v1/tariffs', `/v2/tariffs?filter[emp.id]=${emp}`, '/v2/tariffs', '/v1/vehicles', '/v2/vehicles', '/v2/vehicle_brands']) {
      for (const ae of ['', 'br']) {
        const h = { 'Api-Key': ALL, ...(ae ? { 'Accept-Encoding': ae } : {}) };
        const g = await raw(srv, 'GET', p, h);
        const r = await raw(srv, 'HEAD', p, h);
        expect(r.status, p).toBe(g.status);
        expect(r.body.length).toBe(0);
        for (const k of ['content-type', 'content-encoding', 'etag', 'cache-control', 'vary']) expect(r.headers[k], `${p} ${k}`).toBe(g.headers[k]);
        if (p !== '/health') expect(r.headers['content-length'], p).toBe(g.headers['content-length']);
      }
    }
    const post = await raw(srv, 'HEAD', '/v1/charge_prices', { 'Api-Key': ALL });
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe('POST');
    expect((await raw(srv, 'DELETE', '/health')).headers.allow).toBe('GET, HEAD');
    expect((await raw(srv, 'HEAD', STATIONS)).status).toBe(403);
  });

  it('sends text bodies as UTF-8 on every runtime, with the Content-Length HEAD reports (D282)', async () => {
    // /attribution and /v1/vehicles hold Latin-1 characters (©, ä, ë): one-byte strings in V8.
    for (const p of ['/attribution', '/v1/vehicles']) {
      const g = await raw(srv, 'GET', p, { 'Api-Key': ALL });
      const text = g.body.toString('utf8');
      expect(text, p).toMatch(/[\u0080-\u00ff]/);
      expect(g.body.equals(Buffer.from(text)), `${p}: the identity body is valid UTF-8`).toBe(true);
      expect(Number(g.headers['content-length'])).toBe(g.body.length);
      const h = await raw(srv, 'HEAD', p, { 'Api-Key': ALL });
      expect(h.headers['content-length'], p).toBe(g.headers['content-length']);
      const br = await raw(srv, 'GET', p, { 'Api-Key': ALL, 'Accept-Encoding': 'br' });
      if (br.headers['content-encoding'] === 'br') expect(decode(br).equals(g.body), p).toBe(true);
    }
    expect(wireText('plain ascii', true)).toBe('plain ascii');
    expect(wireText('© Bundesnetzagentur', true)).toEqual(Buffer.from('© Bundesnetzagentur', 'utf8'));
    expect(wireText('© Bundesnetzagentur', false)).toBe('© Bundesnetzagentur');
  });

  it('prices an alias exactly like its adapter and lists the aliases among the accepted values', async () => {
    const body = (adapter: string) => chargeBody({ network: cpo, adapter, relationships: { tariffs: { data: [ref('tariff', tariffId)] } } });
    const native = await call(srv, 'POST', '/v1/charge_prices', { key: ALL, body: body('native') });
    const legacy = await call(srv, 'POST', '/v1/charge_prices', { key: ALL, body: body('legacy') });
    expect(native.status).toBe(200);
    expect(native.json.data.length).toBe(1);
    expect(legacy.text).toBe(native.text);
    const bad = await call(srv, 'POST', '/v1/charge_prices', { key: ALL, body: body('nope') });
    expect(bad.status).toBe(400);
    expect(bad.json.errors[0].source.pointer).toBe('/data/attributes/data_adapter');
    expect(bad.json.errors[0].title).toContain('native, ext_b, ext_c, legacy, old_b');
  });
});

describe('CORS_ORIGINS, COMPRESSION, CACHE_MAX_AGE_S', () => {
  it('echoes a listed origin with Vary: Origin and leaves others without CORS headers', async () => {
    const srv = await startTestApp({ keys: { reader: 'ReadStations' }, env: { CORS_ORIGINS: 'https://a.example, https://b.example:8443', CACHE_MAX_AGE_S: '0' } });
    try {
      const ok = await raw(srv, 'GET', STATIONS, { 'Api-Key': READER, Origin: 'https://b.example:8443' });
      expect(ok.headers['access-control-allow-origin']).toBe('https://b.example:8443');
      expect(ok.headers.vary).toBe('Origin, Accept-Encoding, Accept, Accept-Language');
      expect(ok.headers['cache-control']).toBe('no-cache');
      const other = await raw(srv, 'GET', STATIONS, { 'Api-Key': READER, Origin: 'https://evil.example' });
      expect(other.status).toBe(200);
      expect(other.headers['access-control-allow-origin']).toBeUndefined();
      const pre = await raw(srv, 'OPTIONS', STATIONS, { Origin: 'https://a.example' });
      expect(pre.status).toBe(204);
      expect(pre.headers['access-control-allow-origin']).toBe('https://a.example');
      expect(pre.headers.vary).toBe('Origin');
      const preOther = await raw(srv, 'OPTIONS', STATIONS, { Origin: 'https://evil.example' });
      expect(preOther.headers['access-control-allow-origin']).toBeUndefined();
      expect(preOther.headers['access-control-allow-methods']).toBeUndefined();
    } finally {
      await srv.stop();
    }
  });

  it('sends no CORS headers with an empty CORS_ORIGINS and never compresses with COMPRESSION=off', async () => {
    const srv = await startTestApp({ keys: { reader: 'ReadStations' }, env: { CORS_ORIGINS: '', COMPRESSION: 'off' } });
    try {
      const r = await raw(srv, 'GET', STATIONS, { 'Api-Key': READER, Origin: ORIGIN, 'Accept-Encoding': 'br, gzip' });
      expect(r.status).toBe(200);
      expect(r.body.length).toBeGreaterThan(1024);
      expect(r.headers['access-control-allow-origin']).toBeUndefined();
      expect(r.headers['content-encoding']).toBeUndefined();
      // Only the representation (D236) varies: no encoding, no origin list.
      expect(r.headers.vary).toBe('Accept, Accept-Language');
      const pre = await raw(srv, 'OPTIONS', STATIONS, { Origin: ORIGIN });
      expect(pre.status).toBe(204);
      expect(pre.headers.allow).toBe('GET, HEAD, OPTIONS');
      expect(pre.headers['access-control-allow-origin']).toBeUndefined();
    } finally {
      await srv.stop();
    }
  });
});
