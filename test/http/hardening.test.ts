/**
 * Bad input that once reached recursive code (D100): bodies nested thousands of levels deep on
 * every body endpoint answer 400 with a pointer, never 500; bodies at the limit still parse.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, keyFor, startTestApp, type TestApp } from '../helpers/server.js';

const ALL = keyFor('all');

const BODY_ROUTES: [string, string][] = [
  ['POST', '/v1/charge_prices'],
  ['POST', '/v1/charge_prices/bulk'],
  ['POST', '/v1/charge_prices/area'],
  ['POST', '/v1/charge_prices/route'],
  ['POST', '/v1/tariff_details'],
  ['PUT', '/v1/companies/x'],
  ['PUT', '/v2/tariffs/x'],
  ['POST', '/v1/user_feedback'],
  ['POST', '/v1/partner_feedback'],
  ['POST', '/v1/crm/devices'],
  ['POST', '/admin/snapshot'],
  ['POST', '/v1/availability'],
  ['PUT', '/ocpi/2.2.1/locations/DE/ABC/L1/E1'],
  ['PATCH', '/ocpi/2.2.1/locations/DE/ABC/L1/E1'],
];

/** `{"data":{"attributes":{"x":[[[…]]]}}}` with `levels` arrays and objects in all. */
const nested = (levels: number): string => `{"data":{"attributes":{"x":${'['.repeat(levels - 3)}${']'.repeat(levels - 3)}}}}`;

describe('request body depth', () => {
  let srv: TestApp;
  beforeAll(async () => {
    srv = await startTestApp({ keys: { all: 'all' } });
  });
  afterAll(async () => {
    await srv.stop();
  });

  it('answers 400 with a pointer to a body nested 12,000 levels on every body endpoint', async () => {
    const deep = nested(12_000);
    expect(deep.length).toBeGreaterThan(24_000);
    for (const [m, p] of BODY_ROUTES) {
      const r = await call(srv, m, p, { key: ALL, raw: deep });
      expect(r.status, `${m} ${p} ${r.text.slice(0, 200)}`).toBe(400);
      expect(r.json.errors[0].title).toBe('request body nests deeper than 64 levels');
      expect(r.json.errors[0].source.pointer).toBe(`/data/attributes/x${'/0'.repeat(61)}`);
    }
    // Strings holding brackets do not count; escaped quotes do not end a string.
    const quoted = await call(srv, 'POST', '/v1/user_feedback', { key: ALL, raw: `{"data":{"attributes":{"x":"${'[{'.repeat(5000)}\\"${'['.repeat(100)}"}}}` });
    expect(quoted.json.errors?.[0]?.title ?? '').not.toContain('nests deeper');
  });

  it('parses bodies at the limit (64 levels) and refuses 65', async () => {
    const at = await call(srv, 'POST', '/v1/user_feedback', { key: ALL, raw: nested(64) });
    expect(at.status).toBe(400);
    expect(at.json.errors[0].title).not.toContain('nests deeper');
    const over = await call(srv, 'POST', '/v1/user_feedback', { key: ALL, raw: nested(65) });
    expect(over.json.errors[0].title).toBe('request body nests deeper than 64 levels');
  });
});

const PROTO_NAMES = ['toString', '__proto__', 'constructor', 'hasOwnProperty', 'valueOf', '__defineGetter__', 'prototype'];

describe('names of Object.prototype from a request (D171)', () => {
  let srv: TestApp;
  beforeAll(async () => {
    srv = await startTestApp({ keys: { all: 'all' } });
  });
  afterAll(async () => {
    await srv.stop();
  });

  it('answers every documented path with a prototype name in each path segment and parameter without a 500', async () => {
    const doc = (await call(srv, 'GET', '/openapi.json')).json;
    let calls = 0;
    for (const [template, ops] of Object.entries(doc.paths as Record<string, Record<string, unknown>>)) {
      const segments = template.split('/');
      for (const name of PROTO_NAMES) {
        // Each parameter replaced, and each segment in turn.
        const paths = [segments.map((s) => (s.startsWith('{') ? name : s)).join('/')];
        for (let i = 1; i < segments.length; i++) paths.push(segments.map((s, j) => (j === i ? name : s.startsWith('{') ? 'x' : s)).join('/'));
        for (const p of paths) {
          // (The path item's `parameters` is no method.)
          for (const method of [...Object.keys(ops).filter((m) => m !== 'parameters').map((m) => m.toUpperCase()), 'OPTIONS']) {
            const r = await call(srv, method, `${p}?${encodeURIComponent(name)}=1&filter[${name}]=1`, { key: ALL, ignoredQuery: true, body: method === 'GET' || method === 'HEAD' || method === 'DELETE' || method === 'OPTIONS' ? undefined : { data: { type: name, attributes: { [name]: name } } } });
            expect(r.status, `${method} ${p}: ${r.text.slice(0, 200)}`).toBeLessThan(500);
            calls++;
          }
        }
      }
    }
    expect(calls).toBeGreaterThan(500);
    expect(srv.stdout()).not.toContain('unhandled error');
  }, 120_000);

  it('answers GET /docs/<prototype name> with 404 (the asset table is a Map)', async () => {
    for (const name of PROTO_NAMES) {
      const r = await call(srv, 'GET', `/docs/${name}`);
      expect(r.status, name).toBe(404);
      expect(r.json.errors[0].title).toBe(`no file ${name}`);
    }
  });

  it('prices an ext_b station whose country and plugs are prototype names like any unknown name', async () => {
    const body = (country: string, plug: string) => ({
      data: {
        type: 'charge_price_request',
        attributes: { data_adapter: 'ext_b', station: { longitude: 0, latitude: 0, country, network: 'x', charge_points: [{ plug, power: 22 }] }, options: { energy: 10, duration: 60 } },
      },
    });
    const unknown = await call(srv, 'POST', '/v1/charge_prices', { key: ALL, body: body('zzz', 'zzz') });
    for (const name of PROTO_NAMES) {
      const r = await call(srv, 'POST', '/v1/charge_prices', { key: ALL, body: body(name, name) });
      expect(r.status, `${name}: ${r.text.slice(0, 200)}`).toBe(unknown.status);
      // The same answer as for an unknown name (the plug is echoed as sent).
      expect(r.text.split(JSON.stringify(name)).join('"zzz"')).toBe(unknown.text);
    }
  });
});

describe('validation errors (D170)', () => {
  let srv: TestApp;
  beforeAll(async () => {
    srv = await startTestApp({ keys: { all: 'all' } });
  });
  afterAll(async () => {
    await srv.stop();
  });

  it('answers a body of 100,000 wrong items with one error, on every body route', async () => {
    const items = Array.from({ length: 100_000 }, () => 1);
    const bodies: [string, string, unknown][] = [
      ['POST', '/v1/charge_prices', { data: { type: 'charge_price_request', attributes: { data_adapter: 'native', station: { longitude: 0, latitude: 0, country: 'DE', network: 'x', charge_points: items }, options: { energy: 1 } } } }],
      ['POST', '/v1/availability', { data: { type: 'evse_statuses', attributes: { statuses: items } } }],
      ['POST', '/v1/crm/devices', { data: { type: 'crm_device', attributes: { user_products: items, disabled_notifications: items } } }],
      ['POST', '/v1/ocpi/cdr_cost', { data: { type: 'ocpi_cdr_cost_request', attributes: { tariff: { currency: 'EUR', elements: items }, cdr: { charging_periods: items } } } }],
    ];
    for (const [method, p] of BODY_ROUTES) bodies.push([method, p, { data: { type: 1, id: 1, attributes: items, relationships: items } }]);
    for (const [method, p, body] of bodies) {
      const raw = JSON.stringify(body);
      expect(raw.length).toBeLessThan(1 << 20);
      const r = await call(srv, method, p, { key: ALL, raw });
      expect(r.status, `${method} ${p}: ${r.text.slice(0, 200)}`).toBe(400);
      expect(r.json.errors.length, `${method} ${p}`).toBe(1);
      expect(r.text.length).toBeLessThan(2048);
    }
  });
});
