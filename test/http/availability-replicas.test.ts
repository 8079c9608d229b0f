/**
 * EVSE statuses across replicas of one PostgreSQL live store (D216; runs under `npm run test:pg`):
 * a status accepted by one replica is in every replica's answers, whichever feed route took it,
 * the newest per EVSE winning, and a replica that starts later loads the statuses held; a PATCH
 * by an OCPI uid reaches the EVSE a PUT on another replica named (D222); with
 * SHARED_STATE_URL they go through that database instead (D221).
 */
import { describe, expect, it } from 'vitest';
import { PgStore } from '../../src/storage/pg-store.js';
import { call, keyFor, startTestApp, type TestApp } from '../helpers/server.js';
import { fixtureSnapshot } from './stations.fixture.js';

const W = keyFor('writer');
const AV = keyFor('avail');
const FIX1 = 'f0000000-0000-5000-8000-000000000001';
const FIX2 = 'f0000000-0000-5000-8000-000000000002';
const OCPI = '/ocpi/2.2.1/locations/DK/FIX/LOC1';
const keys = { writer: 'WriteAvailability', avail: 'ReadStationsWithAvailability' };

const counts = async (srv: TestApp, id: string): Promise<unknown[]> => {
  const r = await call(srv, 'GET', `/v1/charging_stations/${id}?availability=true`, { key: AV });
  expect(r.status, r.text).toBe(200);
  return r.json.data.attributes.charge_points.map((c: { available_count: unknown }) => c.available_count);
};

/** Polls `srv` until station `id` shows `want` (another replica hears a write within milliseconds; 5 s at most). */
async function seen(srv: TestApp, id: string, want: unknown[]): Promise<number> {
  const t0 = performance.now();
  let got: unknown[] = [];
  while (performance.now() - t0 < 5000) {
    got = await counts(srv, id);
    if (JSON.stringify(got) === JSON.stringify(want)) return performance.now() - t0;
    await new Promise((r) => setTimeout(r, 5));
  }
  expect(got, `station ${id}`).toEqual(want);
  return Infinity;
}

const bulk = (srv: TestApp, statuses: unknown[]) => call(srv, 'POST', '/v1/availability', { key: W, body: { data: { type: 'evse_statuses', attributes: { statuses } } } });

describe.skipIf(process.env.TEST_DATABASE_URL === undefined)('EVSE statuses across replicas on one PostgreSQL store (D216, npm run test:pg)', () => {
  it('an update on one replica is in the other\'s answers; a replica started later loads them', async () => {
    const env = { SNAPSHOT: fixtureSnapshot(), AVAILABILITY_TTL_S: '600' };
    const a = await startTestApp({ keys, env });
    const b = await startTestApp({ dataDir: a.dataDir, env });
    let c: TestApp | null = null;
    try {
      // One listening connection per replica, whatever follows the channel (catalog and statuses).
      const db = await PgStore.open(a.databaseUrl!, { migrate: false });
      try {
        const sql = "SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN %'";
        const listening = async () => Number((await db.read((q) => q.get<{ n: string }>(sql)))!.n);
        for (let i = 0; i < 100 && (await listening()) < 2; i++) await new Promise((r) => setTimeout(r, 20));
        await new Promise((r) => setTimeout(r, 200));
        expect(await listening()).toBe(2);
      } finally {
        await db.close();
      }
      expect(await counts(b, FIX1)).toEqual([null, null]);
      const put = await call(a, 'PUT', `${OCPI}/E1`, { key: W, body: { uid: 'E1', evse_id: 'DK*FIX*E1', status: 'AVAILABLE', last_updated: new Date(Date.now() - 120_000).toISOString() } });
      expect(put.status, put.text).toBe(200);
      await seen(b, FIX1, [1, null]);
      // 10,000 statuses in one body on B, the last of each EVSE the newest: A shows those.
      const t0 = Date.now() - 60_000;
      const many = Array.from({ length: 10_000 }, (_, i) => ({
        evse_id: ['DK*FIX*E1', 'DK*FIX*E2', 'DK*FIX*E3'][i % 3],
        status: i >= 9_997 ? ['CHARGING', 'AVAILABLE', 'AVAILABLE'][i % 3] : 'OUTOFORDER',
        last_updated: new Date(t0 + i).toISOString(),
      }));
      const r = await bulk(b, many);
      expect(r.status, r.text.slice(0, 300)).toBe(200);
      expect(r.json.meta).toMatchObject({ received: 10_000, unknown: 0 });
      await seen(a, FIX1, [1, null]);
      await seen(a, FIX2, [1]);
      // An update older than the status held is ignored everywhere: A's memory and the store.
      expect((await bulk(a, [{ evse_id: 'DK*FIX*E3', status: 'CHARGING', last_updated: new Date(t0).toISOString() }])).json.meta).toMatchObject({ applied: 0, stale: 1 });
      expect((await call(b, 'PATCH', `${OCPI}/DKFIXE2`, { key: W, body: { status: 'CHARGING', last_updated: new Date(t0).toISOString() } })).status).toBe(200);
      // D222: a PUT on A names EVSE E3 by uid U3; a PATCH by that uid on B reaches E3.
      const recent = (ms: number) => new Date(Date.now() - ms).toISOString();
      expect((await call(a, 'PUT', `${OCPI}/U3`, { key: W, body: { uid: 'U3', evse_id: 'DK*FIX*E3', status: 'CHARGING', last_updated: recent(30_000) } })).status).toBe(200);
      await seen(b, FIX2, [0]);
      const patched = await call(b, 'PATCH', `${OCPI}/U3`, { key: W, body: { status: 'AVAILABLE', last_updated: recent(20_000) } });
      expect(patched.status, patched.text).toBe(200);
      await seen(a, FIX2, [1]);
      // A replica that starts now shows what the others hold, and knows the uid.
      c = await startTestApp({ dataDir: a.dataDir, env });
      await seen(c, FIX1, [1, null]);
      await seen(c, FIX2, [1]);
      expect((await call(c, 'PATCH', `${OCPI}/U3`, { key: W, body: { status: 'CHARGING', last_updated: recent(10_000) } })).status).toBe(200);
      await seen(a, FIX2, [0]);
      expect(await counts(a, FIX1)).toEqual([1, null]);
    } finally {
      await c?.stop();
      await b.stop();
      await a.stop();
    }
  });

  it('with SHARED_STATE_URL, statuses live in that database and reach the other replica through it (D221)', async () => {
    const stateUrl = await PgStore.createDatabase(process.env.TEST_DATABASE_URL!, `cps_state_${process.pid}`);
    const env = { SNAPSHOT: fixtureSnapshot(), AVAILABILITY_TTL_S: '600', SHARED_STATE_URL: stateUrl };
    const a = await startTestApp({ keys, env });
    const b = await startTestApp({ dataDir: a.dataDir, env });
    const rows = async (url: string): Promise<number> => {
      const db = await PgStore.open(url, { migrate: false });
      try {
        return Number((await db.read((q) => q.get<{ n: string }>('SELECT count(*) AS n FROM evse_statuses')))!.n);
      } finally {
        await db.close();
      }
    };
    try {
      const put = await call(a, 'PUT', `${OCPI}/E1`, { key: W, body: { uid: 'E1', evse_id: 'DK*FIX*E1', status: 'AVAILABLE' } });
      expect(put.status, put.text).toBe(200);
      await seen(b, FIX1, [1, null]);
      expect(await rows(stateUrl)).toBe(1);
      expect(await rows(a.databaseUrl!)).toBe(0);
    } finally {
      await b.stop();
      await a.stop();
    }
  });
});
