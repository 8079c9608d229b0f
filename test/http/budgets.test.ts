/**
 * Admission budgets per route class (D176), over a real server with a route table defined here:
 * while the service is saturated a class over its share is refused 503 with Retry-After before
 * its body is read; probes and price work never are; nothing is refused while not saturated.
 */
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, type RouteDef } from '../../src/api/types.js';
import { DEFAULT_BUDGETS, loadConfig } from '../../src/config.js';
import { AdmissionBudgets } from '../../src/http/budgets.js';
import { startServer, type HttpServer } from '../../src/http/server.js';
import { accessLog } from '../../src/log.js';
import { call } from '../helpers/server.js';

/** A synchronous handler that holds the main thread for `ms`. */
const busy = (ms: number) => () => {
  const end = performance.now() + ms;
  while (performance.now() < end);
  return json(200, { ok: true });
};

const routes: RouteDef[] = [
  { method: 'GET', path: '/t/read', groups: null, body: false, handler: busy(2) },
  { method: 'GET', path: '/t/cost', groups: null, body: false, admission: 'cost', handler: busy(2) },
  { method: 'GET', path: '/t/health', groups: null, body: false, admission: 'probe', handler: busy(2) },
  { method: 'POST', path: '/t/price', groups: null, body: true, priceWork: true, handler: busy(2) },
];

describe('admission budgets per route class (D176)', () => {
  let server: HttpServer;
  let saturated = false;
  let budgets: AdmissionBudgets;
  const srv = { url: '' };
  beforeAll(async () => {
    // One window of a minute: no window turns during the test, whatever the machine's load.
    budgets = new AdmissionBudgets({ ...DEFAULT_BUDGETS, read: 0.5, cost: 0.1 }, () => saturated, 60_000);
    const silent = pino({ level: 'silent' });
    server = await startServer('127.0.0.1', 0, { routes, keys: { maskOfKey: () => -1 }, bodyLimitBytes: 1024, logger: silent, accessLog: accessLog(silent), budgets, refusalDelayMs: 0 });
    srv.url = `http://127.0.0.1:${server.port}`;
  });
  afterAll(async () => {
    budgets.close();
    await server.close(1000);
  });

  it('admits every class while the service is not saturated, however one class dominates', async () => {
    saturated = false;
    for (let i = 0; i < 30; i++) expect((await call(srv, 'GET', '/t/read')).status).toBe(200);
    for (let i = 0; i < 10; i++) expect((await call(srv, 'GET', '/t/cost')).status).toBe(200);
  });

  it('refuses a class over its share with 503 and Retry-After while saturated; probes and price work are answered', async () => {
    saturated = false;
    for (let i = 0; i < 30; i++) await call(srv, 'GET', '/t/read');
    for (let i = 0; i < 5; i++) await call(srv, 'GET', '/t/cost');
    saturated = true;
    // Reads held about 4/5 of the time in progress so far (share 0.5), costs about 1/5 (share 0.1).
    const read = await call(srv, 'GET', '/t/read');
    expect(read.status).toBe(503);
    expect(read.headers.get('retry-after')).toBe('1');
    expect(read.json.errors[0]).toMatchObject({ status: '503', code: 'SERVICE_UNAVAILABLE', title: 'overloaded, retry later' });
    expect((await call(srv, 'GET', '/t/cost')).status).toBe(503);
    for (let i = 0; i < 60; i++) {
      expect((await call(srv, 'GET', '/t/health')).status).toBe(200);
      expect((await call(srv, 'POST', '/t/price', { body: { data: {} } })).status).toBe(200);
    }
    // Price work and probes now hold most of the recent service: reads are within their share.
    expect((await call(srv, 'GET', '/t/read')).status).toBe(200);
    expect(budgets.refused).toBeGreaterThanOrEqual(2);
    saturated = false;
  });
});

describe('a request refused after its read-your-writes gate (D176)', () => {
  it('is no demand of its class while its refusal is held, and in progress counts return to 0', async () => {
    const budgets = new AdmissionBudgets({ ...DEFAULT_BUDGETS, read: 0.1 }, () => true, 60_000);
    const silent = pino({ level: 'silent' });
    const gated: RouteDef[] = [
      { method: 'GET', path: '/t/fresh', groups: null, body: false, fresh: true, handler: busy(2) },
      { method: 'GET', path: '/t/other', groups: null, body: false, admission: 'cost', handler: busy(2) },
    ];
    const server = await startServer('127.0.0.1', 0, {
      routes: gated,
      keys: { maskOfKey: () => -1 },
      bodyLimitBytes: 1024,
      logger: silent,
      accessLog: accessLog(silent),
      budgets,
      refusalDelayMs: 300,
      fresh: () => new Promise((r) => setTimeout(r, 20)),
    });
    const s = { url: `http://127.0.0.1:${server.port}` };
    try {
      // Another class used the service; the gated reads are then over their share of 0.1.
      await call(s, 'GET', '/t/other');
      expect((await call(s, 'GET', '/t/fresh')).status).toBe(200);
      const held = call(s, 'GET', '/t/fresh');
      // While its 503 is held (300 ms), the refused read is not counted as in progress.
      await new Promise((r) => setTimeout(r, 150));
      expect(budgets.inProgressOf('read')).toBe(0);
      expect((await held).status).toBe(503);
      expect(budgets.inProgressOf('read')).toBe(0);
    } finally {
      budgets.close();
      await server.close(1000);
    }
  });
});


describe('CSV exports as their own admission class (D263)', () => {
  it('refuses a flood of CSV answers beyond the export share while the JSON and GeoJSON answers of the same route are read', async () => {
    let saturated = false;
    const budgets = new AdmissionBudgets({ ...DEFAULT_BUDGETS, read: 0.5, export: 0.25 }, () => saturated, 60_000);
    const silent = pino({ level: 'silent' });
    const list: RouteDef[] = [{ method: 'GET', path: '/t/list', groups: null, body: false, formats: ['geojson', 'csv'], handler: busy(2) }];
    const server = await startServer('127.0.0.1', 0, { routes: list, keys: { maskOfKey: () => -1 }, bodyLimitBytes: 1024, logger: silent, accessLog: accessLog(silent), budgets, refusalDelayMs: 0 });
    const s = { url: `http://127.0.0.1:${server.port}` };
    const csv = { headers: { Accept: 'text/csv' } };
    try {
      // A flood of exports (about 4/5 of the time in progress) next to a few map reads.
      for (let i = 0; i < 20; i++) expect((await call(s, 'GET', '/t/list', csv)).status).toBe(200);
      for (let i = 0; i < 3; i++) expect((await call(s, 'GET', '/t/list')).status).toBe(200);
      for (let i = 0; i < 2; i++) expect((await call(s, 'GET', '/t/list', { headers: { Accept: 'application/geo+json' } })).status).toBe(200);
      saturated = true;
      const refused = await call(s, 'GET', '/t/list', csv);
      expect([refused.status, refused.headers.get('retry-after')]).toEqual([503, '1']);
      expect((await call(s, 'GET', '/t/list')).status).toBe(200);
      expect((await call(s, 'GET', '/t/list', { headers: { Accept: 'application/geo+json' } })).status).toBe(200);
      expect(budgets.refused).toBe(1);
    } finally {
      budgets.close();
      await server.close(1000);
    }
  });

  it('takes the export share from ADMISSION_BUDGETS', () => {
    expect(loadConfig({ ADMISSION_BUDGETS: 'export:0.4' }).admissionBudgets?.export).toBe(0.4);
    expect(DEFAULT_BUDGETS.export).toBe(0.25);
  });
});
