/**
 * Readiness (D105): `GET /ready` (no key, HEAD too) answers 200 with its checks while the snapshot
 * is loaded, price work can run and the live store can be written, and 503 naming each failing
 * part otherwise; `/health` stays liveness only.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { healthRoutes } from '../../src/api/health/health.handler.js';
import type { AppContext } from '../../src/api/context.js';
import type { ApiRequest } from '../../src/api/types.js';
import { SqliteStore } from '../../src/storage/sqlite-store.js';
import { call, startTestApp, type TestApp } from '../helpers/server.js';

describe('GET /ready over HTTP', () => {
  let srv: TestApp;
  beforeAll(async () => {
    srv = await startTestApp({ env: { WORKERS: '1' } });
  });
  afterAll(async () => {
    await srv.stop();
  });

  it('answers 200 with every check ok, without a key, and HEAD the same without a body', async () => {
    const r = await call(srv, 'GET', '/ready');
    expect(r.status, r.text).toBe(200);
    expect(r.json).toMatchObject({ status: 'ready', checks: { snapshot: 'ok', pool: 'ok', live_store: 'ok' } });
    expect(r.json.snapshot.version).toBe((await call(srv, 'GET', '/health')).json.snapshot.version);
    const h = await call(srv, 'HEAD', '/ready');
    expect(h.status).toBe(200);
    expect(h.text).toBe('');
    expect((await call(srv, 'POST', '/ready', { body: {} })).status).toBe(405);
  });
});

describe('readiness checks', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cps-ready-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  const handler = (ctx: Partial<AppContext>) =>
    healthRoutes({ snapshot: { meta: { snapshotVersion: 'v1', attribution: '', builtAt: '', formatVersion: 1, ratesDate: '' } }, startedAt: 0, ...ctx } as unknown as AppContext).find((r) => r.path === '/ready')!.handler({} as ApiRequest);

  it('names every failing part in a 503', async () => {
    const r = await handler({ stations: { size: 0 } as AppContext['stations'], prices: { alive: () => false } as unknown as AppContext['prices'], live: { writeProblem: () => Promise.resolve('opened read-only') } as unknown as AppContext['live'] });
    expect(r).toMatchObject({ status: 503 });
    const doc = JSON.parse((r as { body: string }).body);
    expect(doc.errors[0]).toEqual({ status: '503', code: 'SERVICE_UNAVAILABLE', title: 'not ready: snapshot (no stations loaded), pool (no pricing worker running), live_store (opened read-only)' });
    expect(doc.meta.checks).toEqual({ snapshot: 'no stations loaded', pool: 'no pricing worker running', live_store: 'opened read-only' });
  });

  it('sees a live store that cannot be written, and one whose write lock another writer holds as writable', async () => {
    const store = SqliteStore.open(dir);
    await store.close();
    const ro = SqliteStore.openReadonly(dir);
    expect(await ro.writeProblem()).toBe('opened read-only');
    await ro.close();
    const a = SqliteStore.open(dir);
    const b = SqliteStore.open(dir);
    expect(await a.writeProblem()).toBeNull();
    b.db.exec('BEGIN IMMEDIATE');
    expect(await a.writeProblem()).toBeNull();
    expect(a.db.pragmaValue('busy_timeout')).toBe(5000);
    b.db.exec('ROLLBACK');
    await a.close();
    await b.close();
  });
});
