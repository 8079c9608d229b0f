import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, keyFor, startTestApp, type TestApp } from '../helpers/server.js';
import { fixtureSnapshot } from './stations.fixture.js';

const W = keyFor('writer');
const R = keyFor('reader');
const AV = keyFor('avail');
const FIX1 = 'f0000000-0000-5000-8000-000000000001';
const FIX2 = 'f0000000-0000-5000-8000-000000000002';
const OCPI = '/ocpi/2.2.1/locations/DK/FIX/LOC1';
const BOX = 'filter[latitude.gte]=55.676&filter[latitude.lte]=55.6762&filter[longitude.gte]=12.568&filter[longitude.lte]=12.5684';

describe('live availability: OCPI EVSE status updates and the bulk feed', () => {
  let srv: TestApp;
  const counts = async (id: string, key = AV): Promise<unknown[]> => {
    const r = await call(srv, 'GET', `/v1/charging_stations/${id}?availability=true`, { key });
    expect(r.status, r.text).toBe(200);
    return r.json.data.attributes.charge_points.map((c: { available_count: unknown }) => c.available_count);
  };
  const put = (uid: string, body: unknown, key = W) => call(srv, 'PUT', `${OCPI}/${uid}`, { key, body });
  const patch = (uid: string, body: unknown, key = W) => call(srv, 'PATCH', `${OCPI}/${uid}`, { key, body });
  const bulk = (statuses: unknown, key = W) =>
    call(srv, 'POST', '/v1/availability', { key, body: { data: { type: 'evse_statuses', attributes: { statuses } } } });

  beforeAll(async () => {
    srv = await startTestApp({
      keys: { writer: 'WriteAvailability', reader: 'ReadStations', avail: 'ReadStationsWithAvailability', admin: 'Admin' },
      env: { SNAPSHOT: fixtureSnapshot(), AVAILABILITY_TTL_S: '2' },
    });
  });
  afterAll(async () => {
    await srv?.stop();
  });

  it('starts unknown; PUT and PATCH set available_count of the groups listing the EVSE', async () => {
    expect(await counts(FIX1)).toEqual([null, null]);
    const r = await put('E1', { uid: 'E1', evse_id: 'DK*FIX*E1', status: 'AVAILABLE', last_updated: new Date().toISOString(), connectors: [] });
    expect(r.status, r.text).toBe(200);
    expect(r.json).toMatchObject({ status_code: 1000, status_message: 'Success' });
    expect(await counts(FIX1)).toEqual([1, null]);
    // The uid itself is an eMI3 id in another spelling.
    expect((await patch('DKFIXE2', { status: 'AVAILABLE' })).status).toBe(200);
    expect(await counts(FIX1)).toEqual([2, null]);
    // PATCH by the uid an earlier PUT mapped.
    expect((await patch('E1', { status: 'CHARGING', last_updated: new Date().toISOString() })).status).toBe(200);
    expect(await counts(FIX1)).toEqual([1, null]);
    // Search results carry the same values for ReadStationsWithAvailability keys only (D3).
    const list = await call(srv, 'GET', `/v1/charging_stations?${BOX}`, { key: AV });
    expect(list.json.data[0].attributes.charge_points.map((c: { available_count: unknown }) => c.available_count)).toEqual([1, null]);
    const plain = await call(srv, 'GET', `/v1/charging_stations?${BOX}`, { key: R });
    expect(plain.json.data[0].attributes.charge_points.map((c: { available_count: unknown }) => c.available_count)).toEqual([null, null]);
  });

  it('keeps ETags and 304 for keys that see live counts: an update changes the tag (D95)', async () => {
    for (const path of [`/v1/charging_stations/${FIX1}?availability=true`, `/v1/charging_stations?${BOX}`]) {
      expect((await patch('E1', { status: 'CHARGING', last_updated: new Date().toISOString() })).status).toBe(200);
      const first = await call(srv, 'GET', path, { key: AV });
      const tag = first.headers.get('etag');
      expect(tag, path).toBeTruthy();
      expect((await call(srv, 'GET', path, { key: AV, headers: { 'If-None-Match': tag! } })).status, path).toBe(304);
      // The same answer for a key without live counts has another tag.
      expect((await call(srv, 'GET', path, { key: R })).headers.get('etag')).not.toBe(tag);
      expect((await patch('E1', { status: 'AVAILABLE', last_updated: new Date().toISOString() })).status).toBe(200);
      const after = await call(srv, 'GET', path, { key: AV, headers: { 'If-None-Match': tag! } });
      expect(after.status, path).toBe(200);
      expect(after.headers.get('etag')).not.toBe(tag);
      expect(after.text).not.toBe(first.text);
    }
    // As the tests after this one expect it: E1 charging.
    expect((await patch('E1', { status: 'CHARGING', last_updated: new Date().toISOString() })).status).toBe(200);
  });

  it('ignores an update older than the status held', async () => {
    const old = new Date(Date.now() - 60_000).toISOString();
    expect((await patch('E1', { status: 'AVAILABLE', last_updated: old })).status).toBe(200);
    expect(await counts(FIX1)).toEqual([1, null]);
  });

  it('takes many statuses in one body and reports unknown EVSEs', async () => {
    const r = await bulk([
      { evse_id: 'DK*FIX*E1', status: 'AVAILABLE' },
      { evse_id: 'DK*FIX*E2', status: 'OUTOFORDER' },
      { evse_id: 'dk*fix*e3', status: 'AVAILABLE' },
      { evse_id: 'DE*XXX*E999', status: 'AVAILABLE' },
    ]);
    expect(r.status, r.text).toBe(200);
    expect(r.json.meta).toEqual({ received: 4, applied: 3, stale: 0, unknown: 1, unknown_evse_ids: ['DE*XXX*E999'] });
    expect(await counts(FIX1)).toEqual([1, null]);
    expect(await counts(FIX2)).toEqual([1]);
  });

  it('reads statuses older than AVAILABILITY_TTL_S as null', async () => {
    // E3 was set AVAILABLE by the previous test; the TTL here is 2 s.
    expect(await counts(FIX2)).toEqual([1]);
    await new Promise((res) => setTimeout(res, 2100));
    expect(await counts(FIX2)).toEqual([null]);
    // An expired status is still the newest known: an older update is ignored, and reads stay null.
    const old = new Date(Date.now() - 2500).toISOString();
    const metric = async (name: string): Promise<number> => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec((await call(srv, 'GET', '/metrics')).text)?.[1]);
    const [stale0, unknown0] = [await metric('cps_availability_stale_total'), await metric('cps_availability_unknown_evse_total')];
    expect((await bulk([{ evse_id: 'DK*FIX*E3', status: 'AVAILABLE', last_updated: old }, { evse_id: 'DE*XXX*E998', status: 'AVAILABLE' }])).json.meta).toMatchObject({ applied: 0, stale: 1, unknown: 1 });
    // The feed's signals (D120): the stale and the unknown update counted, the last applied one 2 s old.
    expect([(await metric('cps_availability_stale_total')) - stale0, (await metric('cps_availability_unknown_evse_total')) - unknown0]).toEqual([1, 1]);
    expect(await metric('cps_availability_last_update_age_seconds')).toBeGreaterThanOrEqual(2);
    expect(await counts(FIX2)).toEqual([null]);
    expect((await bulk([{ evse_id: 'DK*FIX*E3', status: 'RESERVED' }])).status).toBe(200);
    expect(await counts(FIX2)).toEqual([0]);
  });

  it('refuses bad bodies with 400 and changes nothing', async () => {
    await bulk([{ evse_id: 'DK*FIX*E1', status: 'AVAILABLE' }, { evse_id: 'DK*FIX*E2', status: 'AVAILABLE' }]);
    expect(await counts(FIX1)).toEqual([2, null]);
    for (const statuses of [
      [{ evse_id: 'DK*FIX*E1', status: 'CHARGING' }, { evse_id: 'DK*FIX*E2', status: 'FREE' }],
      [{ evse_id: 'DK*FIX*E1', status: 'CHARGING' }, { evse_id: 5, status: 'AVAILABLE' }],
      [{ evse_id: 'DK*FIX*E1', status: 'CHARGING' }, { evse_id: 'DK*FIX*E2', status: 'CHARGING', last_updated: 'yesterday' }],
      [{ evse_id: 'DK*FIX*E1', status: 'CHARGING', extra: 1 }],
      [],
      'AVAILABLE',
      Array.from({ length: 10_001 }, () => ({ evse_id: 'DK*FIX*E1', status: 'CHARGING' })),
    ]) {
      const r = await bulk(statuses);
      expect(r.status, r.text.slice(0, 200)).toBe(400);
    }
    expect((await call(srv, 'POST', '/v1/availability', { key: W, body: { statuses: [] } })).status).toBe(400);
    expect(await counts(FIX1)).toEqual([2, null]);
    for (const body of [{}, { status: 'FREE' }, { status: 1 }, { status: 'AVAILABLE', last_updated: 'now' }, { status: 'AVAILABLE', uid: 'OTHER' }]) {
      expect((await put('E1', body)).status, JSON.stringify(body)).toBe(400);
    }
    expect((await patch('E1', [])).status).toBe(400);
    expect((await call(srv, 'PATCH', `${OCPI}/E1`, { key: W, raw: '{"status":' })).status).toBe(400);
    expect((await call(srv, 'PATCH', '/ocpi/2.2.1/locations/DNK/FIX/LOC1/E1', { key: W, body: { status: 'AVAILABLE' } })).status).toBe(400);
    expect((await call(srv, 'PATCH', `/ocpi/2.2.1/locations/DK/FIX/${'x'.repeat(37)}/E1`, { key: W, body: { status: 'AVAILABLE' } })).status).toBe(400);
    expect(await counts(FIX1)).toEqual([2, null]);
  });

  it('answers 404 for an unknown EVSE, 403 for a missing or wrong key or group, 405 for other methods', async () => {
    const r = await patch('NOPE', { status: 'AVAILABLE' });
    expect(r.status).toBe(404);
    expect(r.json.errors[0].title).toBe('EVSE NOPE not found');
    expect((await put('X1', { evse_id: 'DE*XXX*E1', status: 'AVAILABLE' })).status).toBe(404);
    expect((await call(srv, 'PATCH', `${OCPI}/E1`, { body: { status: 'AVAILABLE' } })).status).toBe(403);
    expect((await patch('E1', { status: 'AVAILABLE' }, 'wrong-key-123')).status).toBe(403);
    const g = await patch('E1', { status: 'AVAILABLE' }, R);
    expect(g.status).toBe(403);
    expect(g.json.errors[0].title).toBe('action write_availability not allowed');
    expect((await bulk([{ evse_id: 'DK*FIX*E1', status: 'AVAILABLE' }], AV)).status).toBe(403);
    expect((await call(srv, 'GET', `${OCPI}/E1`, { key: W })).status).toBe(405);
    expect((await call(srv, 'GET', '/v1/availability', { key: W })).status).toBe(405);
  });

  it('keeps one OCPI uid per EVSE: 3,000 PUTs with new uids for one EVSE leave only the last (D175)', async () => {
    const now = () => new Date().toISOString();
    for (let i = 0; i < 3000; i++) {
      const r = await put(`U${i}`, { uid: `U${i}`, evse_id: 'DK*FIX*E1', status: 'AVAILABLE', last_updated: now() });
      expect(r.status).toBe(200);
    }
    // The last uid still names the EVSE; an earlier one no longer does (it is not an EVSE id).
    expect((await patch('U2999', { status: 'AVAILABLE', last_updated: now() })).status).toBe(200);
    const old = await patch('U0', { status: 'AVAILABLE', last_updated: now() });
    expect(old.status).toBe(404);
    expect(old.json.errors[0].title).toBe('EVSE U0 not found');
  });

  it('keeps statuses across a snapshot swap', async () => {
    await bulk([{ evse_id: 'DK*FIX*E1', status: 'AVAILABLE' }, { evse_id: 'DK*FIX*E2', status: 'CHARGING' }]);
    expect(await counts(FIX1)).toEqual([1, null]);
    const s = await call(srv, 'POST', '/admin/snapshot', { key: keyFor('admin'), body: { data: { type: 'snapshot_reload' } } });
    expect(s.status, s.text).toBe(200);
    expect(s.json.data.attributes.generation).toBe(1);
    expect(await counts(FIX1)).toEqual([1, null]);
  });
});
