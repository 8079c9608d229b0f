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
