import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, keyFor, startTestApp, type TestApp } from '../helpers/server.js';
import { BOUYGUES, EMP_B, allStations, fixtureSnapshot, seededDataDir } from './stations.fixture.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const reader = keyFor('reader');
const avail = keyFor('avail');
const writer = keyFor('writer');

/** D296: single reads without live counts are kept per station while the catalog generation holds. */
describe('GET /v1/charging_stations/{id}: kept answers (D296)', () => {
  let srv: TestApp;
  let counts: { hit: number; miss: number };
  // A Bouygues station written from memory (no parking description or facility details).
  const station = allStations().find((x) => x.operator_id === BOUYGUES && x.parking_description === null && x.facility_details.length === 0)!.id;
  const one = (id: string, key = reader, qs = '') => call(srv, 'GET', `/v1/charging_stations/${id}${qs}`, { key });

  beforeAll(async () => {
    srv = await startTestApp({
      dataDir: await seededDataDir(),
      keys: { reader: 'ReadStations', avail: 'ReadStationsWithAvailability', writer: 'WriteTariffs,ReadTariffs' },
      env: { SNAPSHOT: fixtureSnapshot() },
    });
    // The service under test runs from dist/ (startTestApp): its module's counters.
    const mod = (await import(pathToFileURL(path.join(ROOT, 'dist/src/api/stations/stations.handler.js')).href)) as { READ_CACHE_COUNTS: { hit: number; miss: number } };
    counts = mod.READ_CACHE_COUNTS;
  });
  afterAll(async () => {
    await srv.stop();
  });

  it('when the same station is read twice, then the second answer is the kept one, byte for byte the first', async () => {
    const before = { ...counts };
    const a = await one(station);
    const b = await one(station);
    expect(a.status).toBe(200);
    expect(b.text).toBe(a.text);
    expect(counts.miss - before.miss).toBe(1);
    expect(counts.hit - before.hit).toBe(1);
  });

  it('when read with live counts, then nothing is kept or looked up (the counts change without a catalog write)', async () => {
    const before = { ...counts };
    const r = await one(station, avail, '?availability=true');
    expect(r.status).toBe(200);
    expect(r.json.data.attributes.charge_points[0]).toHaveProperty('available_count');
    expect(counts).toEqual(before);
  });

  it('when the operator is renamed, then the next read names it anew (a catalog write ends the kept answer)', async () => {
    const first = await one(station);
    expect(first.json.included).toEqual([{ id: BOUYGUES, type: 'company', attributes: { name: 'Bouygues E&S' } }]);
    const put = await call(srv, 'PUT', `/v1/companies/${BOUYGUES}`, {
      key: writer,
      body: {
        data: {
          id: BOUYGUES,
          type: 'company',
          attributes: { name: 'Bouygues Renamed', version: 2, is_cpo: true, is_emp: false, external_source_mapping: { evse_operator_ids: ['FR*A15'] } },
          relationships: { supported_emps: { data: [{ type: 'company', id: EMP_B }] } },
        },
      },
    });
    expect(put.status).toBe(200);
    const after = await one(station);
    expect(after.json.included).toEqual([{ id: BOUYGUES, type: 'company', attributes: { name: 'Bouygues Renamed' } }]);
    expect(after.text).toBe(first.text.replace('Bouygues E&S', 'Bouygues Renamed'));
  });
});
