import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, keyFor, startTestApp, type TestApp } from '../helpers/server.js';
import { BOUYGUES, FIX, IZIVIA, fixtureSnapshot, seededDataDir } from './stations.fixture.js';

const reader = keyFor('reader');
const avail = keyFor('avail');

describe('GET /v1/charging_stations/{id} over HTTP', () => {
  let srv: TestApp;
  const one = (id: string, o: { key?: string; lang?: string; qs?: string } = {}) =>
    call(srv, 'GET', `/v1/charging_stations/${id}${o.qs ?? ''}`, {
      key: o.key ?? reader,
      headers: o.lang === undefined ? {} : { 'Accept-Language': o.lang },
    });

  beforeAll(async () => {
    srv = await startTestApp({
      dataDir: await seededDataDir(),
      keys: { reader: 'ReadStations', avail: 'ReadStationsWithAvailability', other: 'ReadCosts' },
      env: { SNAPSHOT: fixtureSnapshot() },
    });
  });
  afterAll(async () => {
    await srv.stop();
  });

  const s1 = (parking: string | null, charge_points?: unknown) => ({
    data: {
      id: FIX(1),
      type: 'charging_station',
      attributes: {
        name: 'Fixture station 1',
        latitude: 55.6761,
        longitude: 12.5683,
        country: 'DK',
        address: 'Fixturevej 1, 1000 København',
        free_parking: true,
        free_charging: false,
        evse_ids: ['DK*FIX*E1', 'DK*FIX*E2'],
        charge_points: charge_points ?? [
          { plug: 'ccs', energy_type: 'dc', power: 150, count: 2 },
          { plug: 'type2', energy_type: 'ac', power: 22, count: 1 },
        ],
        facilities: ['hotel', 'cafe'],
        parking_type: 'parking_garage',
        version: 3,
        source_label: 'fixture',
        parking_description: parking,
        facility_details: [{ facility_types: ['hotel'], name: 'Hotel Fixture', longitude: 12.5685, latitude: 55.6762 }],
      },
      relationships: { operator: { data: { type: 'company', id: IZIVIA } } },
      meta: { branding: { map_pin_icon_url: 'https://cdn.example.com/pins/fixture.png' } },
    },
    included: [{ id: IZIVIA, type: 'company', attributes: { name: 'Izivia' } }],
    meta: { snapshot_version: expect.any(String) },
  });

  it('when read by station id, then the single-read document (no evse_operator, timestamps or group evse_ids), English by default', async () => {
    const r = await one(FIX(1));
    expect(r.status).toBe(200);
    expect(r.json).toEqual(s1('Level -2, 2 EUR per hour'));
  });

  it('when read by an EVSE id (any case), then the station holding it', async () => {
    expect((await one('DK*FIX*E2')).json).toEqual(s1('Level -2, 2 EUR per hour'));
    expect((await one('dk*fix*e1')).json.data.id).toBe(FIX(1));
    const r = await one(encodeURIComponent('DK*FIX*E3'));
    expect(r.json.data.id).toBe(FIX(2));
    expect(r.json.included).toEqual([{ id: BOUYGUES, type: 'company', attributes: { name: 'Bouygues E&S' } }]);
  });

  it('when the id is upper case, then the station is found', async () => {
    expect((await one(FIX(1).toUpperCase())).json.data.id).toBe(FIX(1));
  });

  it('localizes parking_description by Accept-Language with q-values (D22)', async () => {
    const text = async (lang: string, id = FIX(1)): Promise<unknown> => (await one(id, { lang })).json.data.attributes.parking_description;
    expect(await text('de')).toBe('Ebene -2, 2 EUR pro Stunde');
    expect(await text('de-AT,en;q=0.5')).toBe('Ebene -2, 2 EUR pro Stunde');
    expect(await text('en;q=0.4, fr;q=0.9, de;q=0.8')).toBe('Niveau -2, 2 EUR par heure');
    expect(await text('es, it;q=0.9')).toBe('Level -2, 2 EUR per hour');
    expect(await text('fr;q=0, de;q=0.1')).toBe('Ebene -2, 2 EUR pro Stunde');
    // Chosen language missing → en → alphabetically first available.
    expect(await text('nl', FIX(1))).toBe('Level -2, 2 EUR per hour');
    expect(await text('nl', FIX(2))).toBe('Parkeergarage, gratis');
    expect(await text('de', FIX(2))).toBe('P-kælder, gratis');
    expect(await text('de', FIX(3))).toBe(null);
  });

  it('a station of the real sample without operator relationship problems reads as well', async () => {
    const r = await one(FIX(3));
    expect(r.json.data.relationships).toEqual({ operator: { data: null } });
    expect(r.json.included).toEqual([]);
    expect(r.json.data.meta).toEqual({ branding: null });
  });

  it('availability=true needs ReadStationsWithAvailability (403 otherwise); it adds available_count (null when unknown)', async () => {
    expect((await one(FIX(1), { qs: '?availability=true' })).json).toEqual({
      errors: [{ status: '403', code: 'FORBIDDEN', title: 'action read_stations_with_availability not allowed' }],
    });
    const r = await one(FIX(1), { key: avail, qs: '?availability=true' });
    expect(r.json).toEqual(
      s1('Level -2, 2 EUR per hour', [
        { plug: 'ccs', energy_type: 'dc', power: 150, count: 2, available_count: null },
        { plug: 'type2', energy_type: 'ac', power: 22, count: 1, available_count: null },
      ]),
    );
    expect((await one(FIX(1), { qs: '?availability=false' })).json).toEqual(s1('Level -2, 2 EUR per hour'));
    expect((await one(FIX(1), { key: avail })).json).toEqual(s1('Level -2, 2 EUR per hour'));
  });

  it('when availability is not a boolean, then 400 with source.parameter', async () => {
    const r = await one(FIX(1), { qs: '?availability=yes' });
    expect(r.status).toBe(400);
    expect(r.json.errors[0]).toMatchObject({ status: '400', code: 'BAD_REQUEST', source: { parameter: 'availability' } });
  });

  it('when neither a station id nor an EVSE id matches, then 404 charging station <id> (as sent)', async () => {
    for (const id of ['f0000000-0000-5000-8000-000000000009', 'DK*NOPE*1', 'x']) {
      const r = await one(encodeURIComponent(id));
      expect(r.status).toBe(404);
      expect(r.json).toEqual({ errors: [{ status: '404', code: 'NOT_FOUND', title: `charging station ${id}` }] });
    }
  });

  it('403 without a key and with a key lacking both station groups', async () => {
    expect((await call(srv, 'GET', `/v1/charging_stations/${FIX(1)}`)).json.errors[0].title).toBe('api_key missing');
    expect((await one(FIX(1), { key: keyFor('other') })).json).toEqual({
      errors: [{ status: '403', code: 'FORBIDDEN', title: 'action read_stations not allowed' }],
    });
  });
});
