import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SNAPSHOT_FORMAT_VERSION } from '../../src/storage/snapshot.js';
import { call, startTestApp, type TestApp } from '../helpers/server.js';

describe('foundation over HTTP', () => {
  let srv: TestApp;
  beforeAll(async () => {
    srv = await startTestApp();
  });
  afterAll(async () => {
    await srv.stop();
  });

  it('when GET /health without a key, then 200 with status, snapshot version and build date, uptime', async () => {
    const r = await call(srv, 'GET', '/health');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(r.json.status).toBe('ok');
    expect(r.json.snapshot.format_version).toBe(SNAPSHOT_FORMAT_VERSION);
    expect(r.json.snapshot.version).toMatch(/^[0-9a-f]{16}$/);
    expect(r.json.snapshot.built_at).toBe('2022-12-05T00:00:00.000Z');
    expect(typeof r.json.uptime_seconds).toBe('number');
    expect(r.headers.get('x-request-id')).toBeTruthy();
  });

  it('when the path is unknown, then 404 route not found with code', async () => {
    const r = await call(srv, 'GET', '/v9/nothing');
    expect(r.status).toBe(404);
    expect(r.json).toEqual({ errors: [{ status: '404', code: 'NOT_FOUND', title: 'route not found' }] });
  });

  it('when a known path gets another method, then 405 with an Allow header', async () => {
    const r = await call(srv, 'DELETE', '/health');
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toBe('GET, HEAD');
    expect(r.json).toEqual({ errors: [{ status: '405', code: 'METHOD_NOT_ALLOWED', title: 'method not allowed' }] });
  });

  it('when the client sends X-Request-Id, then the response echoes it', async () => {
    const r = await call(srv, 'GET', '/health', { headers: { 'X-Request-Id': 'abc-123' } });
    expect(r.headers.get('x-request-id')).toBe('abc-123');
  });

  it('serves the data attribution without a key', async () => {
    const r = await call(srv, 'GET', '/attribution');
    expect(r.status).toBe(200);
    expect(r.json.meta.attribution).toContain('Bundesnetzagentur');
    expect(r.json.meta.attribution).toContain('Licence Ouverte 2.0');
    expect(r.json.meta.attribution).toContain('MIT');
  });
});
