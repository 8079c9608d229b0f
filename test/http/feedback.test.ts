import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FeedbackStore, type PartnerFeedbackRow, type UserFeedbackRow } from '../../src/storage/feedback.js';
import type { LiveStore } from '../../src/storage/live.js';
import { openLiveStoreReadonly } from '../../src/storage/open.js';
import { call, keyFor, startTestApp, type TestApp } from '../helpers/server.js';

const W = keyFor('writer');

const GENERIC = { notes: 'n', email: 'a@b.c', context: 'ctx', language: 'de' };
const EMPTY_GENERIC = { notes: '', email: '', context: '', language: '' };

/** Minimal valid attributes per type (required only, all empty where allowed). */
const MINIMAL: Record<string, Record<string, unknown>> = {
  other_feedback: { ...EMPTY_GENERIC },
  missing_price: { ...EMPTY_GENERIC, tariff: '', cpo: '', price: '' },
  missing_station: { ...EMPTY_GENERIC, location: '', cpo: '' },
  missing_vehicle: { ...EMPTY_GENERIC, brand: '', model: '' },
  wrong_price: { ...EMPTY_GENERIC, tariff: '', cpo: '', displayed_price: '', actual_price: '' },
};

const REQUIRED: Record<string, string[]> = {
  other_feedback: ['notes', 'email', 'context', 'language'],
  missing_price: ['notes', 'email', 'context', 'language', 'tariff', 'cpo', 'price'],
  missing_station: ['notes', 'email', 'context', 'language', 'location', 'cpo'],
  missing_vehicle: ['notes', 'email', 'context', 'language', 'brand', 'model'],
  wrong_price: ['notes', 'email', 'context', 'language', 'tariff', 'cpo', 'displayed_price', 'actual_price'],
};

/** String limits per type (spec endpoint 6). */
const LIMITS: Record<string, Record<string, number>> = {
  other_feedback: { notes: 1000, email: 100, context: 500, language: 2 },
  missing_price: { notes: 1000, tariff: 100, cpo: 200, price: 100, charging_station_id: 100, tariff_id: 100, poi_link: 200 },
  missing_station: { location: 200, cpo: 200, cpo_id: 100 },
  missing_vehicle: { brand: 100, model: 100, email: 100 },
  wrong_price: {
    tariff: 100, cpo: 200, displayed_price: 500, actual_price: 500, charging_station_id: 100, tariff_id: 100, poi_link: 200, context: 500,
  },
};

const SEGMENT = { dimension: 'kwh', price: 0.39, range_gte: 0, range_lt: 100, currency: 'EUR', time_of_day_start: 0, time_of_day_end: 1440 };

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

const body = (type: string, attributes: Record<string, unknown>) => ({ data: { type, attributes } });

describe('feedback over HTTP', () => {
  let srv: TestApp;
  let store: LiveStore;
  let feedback: FeedbackStore;
  const userRows = async (): Promise<UserFeedbackRow[]> => collect(feedback.userFeedback());
  const partnerRows = async (): Promise<PartnerFeedbackRow[]> => collect(feedback.partnerFeedback());
  const lastUser = async (): Promise<UserFeedbackRow> => (await userRows()).at(-1)!;

  /** Posts a body that must be rejected with 400 and checks that nothing was stored. */
  const rejected = async (path: string, b: unknown, pointer?: string): Promise<any> => {
    const before = [(await userRows()).length, (await partnerRows()).length];
    const r = await call(srv, 'POST', path, { key: W, body: b });
    expect(r.status, JSON.stringify(b).slice(0, 200)).toBe(400);
    expect(r.json.errors.length).toBeGreaterThan(0);
    for (const e of r.json.errors) expect(e).toMatchObject({ status: '400', code: 'BAD_REQUEST' });
    if (pointer !== undefined) {
      expect(r.json.errors.map((e: { source?: { pointer?: string } }) => e.source?.pointer)).toContain(pointer);
    }
    expect([(await userRows()).length, (await partnerRows()).length]).toEqual(before);
    return r.json;
  };

  const accepted = async (path: string, b: unknown): Promise<void> => {
    const r = await call(srv, 'POST', path, { key: W, body: b });
    expect(r.status, r.text).toBe(204);
    expect(r.text).toBe('');
    expect(r.headers.get('content-type')).toBeNull();
  };

  beforeAll(async () => {
    srv = await startTestApp({ keys: { writer: 'WriteUserFeedback', reader: 'ReadVehicles,WriteCrmDevices' } });
    store = await openLiveStoreReadonly(srv);
    feedback = new FeedbackStore(store);
  });
  afterAll(async () => {
    await store?.close();
    await srv.stop();
  });

  describe('POST /v1/user_feedback', () => {
    for (const type of Object.keys(MINIMAL)) {
      it(`${type}: when only the required attributes are sent, all empty, then 204 and stored with defaults`, async () => {
        await accepted('/v1/user_feedback', body(type, MINIMAL[type]));
        const row = (await lastUser());
        expect(row).toMatchObject({ type, priority: 'normal', language: '', email: '', notes: '', context: '', charging_station_id: null });
        expect(row.attributes).toEqual({ ...MINIMAL[type], priority: 'normal', user_products: [] });
        expect(Math.abs(row.received_at - Date.now())).toBeLessThan(60_000);
      });

      for (const name of REQUIRED[type]) {
        it(`${type}: when ${name} is missing or null, then 400 pointing at it`, async () => {
          const { [name]: _drop, ...rest } = MINIMAL[type];
          const r = await rejected('/v1/user_feedback', body(type, rest), `/data/attributes/${name}`);
          expect(r.errors[0].title).toBe(`/data/attributes/${name} is required`);
          await rejected('/v1/user_feedback', body(type, { ...MINIMAL[type], [name]: null }), `/data/attributes/${name}`);
        });
      }

      for (const [name, limit] of Object.entries(LIMITS[type])) {
        it(`${type}: when ${name} has ${limit} characters it is stored; with ${limit + 1} then 400`, async () => {
          const ok = 'é'.repeat(limit);
          await accepted('/v1/user_feedback', body(type, { ...MINIMAL[type], [name]: ok }));
          expect((await lastUser()).attributes[name]).toBe(ok);
          const r = await rejected('/v1/user_feedback', body(type, { ...MINIMAL[type], [name]: 'x'.repeat(limit + 1) }), `/data/attributes/${name}`);
          expect(r.errors[0].title).toBe(`/data/attributes/${name} must have at most ${limit} characters`);
        });
      }
    }

    it('when strings hold characters outside the BMP, then limits count characters, not UTF-16 units', async () => {
      await accepted('/v1/user_feedback', body('other_feedback', { ...MINIMAL.other_feedback, notes: '🚗'.repeat(1000), language: '🇩' }));
      expect((await lastUser()).notes).toBe('🚗'.repeat(1000));
      await rejected('/v1/user_feedback', body('other_feedback', { ...MINIMAL.other_feedback, notes: '🚗'.repeat(1001) }), '/data/attributes/notes');
    });

    it('when a wrong_price feedback has every attribute, then all are stored as sent', async () => {
      const attrs = {
        ...GENERIC,
        priority: 'critical',
        user_products: ['mobile_premium'],
        tariff: 'EMP One - Flex',
        cpo: 'CPO A',
        displayed_price: '0.39 €/kWh',
        actual_price: '0.59 €/kWh',
        displayed_price_segments: [SEGMENT],
        actual_price_segments: [{ dimension: 'minute', price: 0.1, range_gte: 60 }, { dimension: 'session', price: 1 }],
        charging_station_id: 'st-1',
        tariff_id: 'tf-1',
        poi_link: 'https://app.example/?poi_id=other&poi_source=native',
      };
      await accepted('/v1/user_feedback', body('wrong_price', attrs));
      const row = (await lastUser());
      expect(row).toMatchObject({
        type: 'wrong_price', priority: 'critical', language: 'de', email: 'a@b.c', notes: 'n', context: 'ctx', charging_station_id: 'st-1',
      });
      expect(row.attributes).toEqual(attrs);
    });

    it('when a missing_price feedback has every attribute, then all are stored as sent', async () => {
      const attrs = {
        ...GENERIC,
        priority: 'high',
        user_products: [],
        tariff: 'T',
        cpo: 'C',
        price: '0.40',
        price_segments: [SEGMENT, { dimension: 'parking_minute', price: 0.05, currency: 'chf' }],
        charging_station_id: 'st-2',
        tariff_id: 'tf-2',
        is_direct_payment: true,
      };
      await accepted('/v1/user_feedback', body('missing_price', attrs));
      expect((await lastUser()).attributes).toEqual(attrs);
      expect((await lastUser()).charging_station_id).toBe('st-2');
    });

    it('when a missing_station feedback has charge points, then they are stored', async () => {
      const attrs = {
        ...GENERIC,
        location: '52.5, 13.4',
        cpo: 'Op',
        cpo_id: 'op-1',
        charge_points: [{ plug: 'ccs', power: 150, count: 2 }, { plug: 'anything', power: 0, count: 0 }],
      };
      await accepted('/v1/user_feedback', body('missing_station', attrs));
      expect((await lastUser()).attributes).toEqual({ ...attrs, priority: 'normal', user_products: [] });
    });

    it('when attributes of other types or unknown attributes are sent, then they are ignored', async () => {
      await accepted('/v1/user_feedback', body('missing_vehicle', { ...GENERIC, brand: 'B', model: 'M', tariff: 'x'.repeat(500), price_segments: 'nonsense', foo: 1 }));
      expect((await lastUser()).attributes).toEqual({ ...GENERIC, brand: 'B', model: 'M', priority: 'normal', user_products: [] });
    });

    it('when optional attributes are null, then they take their defaults', async () => {
      await accepted('/v1/user_feedback', body('missing_price', { ...MINIMAL.missing_price, priority: null, user_products: null, price_segments: null, poi_link: null, is_direct_payment: null }));
      expect((await lastUser()).attributes).toEqual({ ...MINIMAL.missing_price, priority: 'normal', user_products: [] });
    });

    it('when priority or user_products hold unknown values, then 400', async () => {
      await rejected('/v1/user_feedback', body('other_feedback', { ...MINIMAL.other_feedback, priority: 'urgent' }), '/data/attributes/priority');
      await rejected('/v1/user_feedback', body('other_feedback', { ...MINIMAL.other_feedback, priority: 'NORMAL' }), '/data/attributes/priority');
      await rejected('/v1/user_feedback', body('other_feedback', { ...MINIMAL.other_feedback, user_products: ['mobile_basic'] }), '/data/attributes/user_products/0');
      await rejected('/v1/user_feedback', body('other_feedback', { ...MINIMAL.other_feedback, user_products: 'mobile_premium' }), '/data/attributes/user_products');
    });

    it('when attributes have wrong JSON types, then 400 naming the first of them only (D170)', async () => {
      const r = await rejected(
        '/v1/user_feedback',
        body('missing_price', { notes: 1, email: false, context: [], language: {}, tariff: 2, cpo: '', price: '', is_direct_payment: 'yes' }),
      );
      expect(r.errors).toHaveLength(1);
      const pointer: string = r.errors[0].source.pointer;
      expect(['context', 'email', 'is_direct_payment', 'language', 'notes', 'tariff'].map((n) => `/data/attributes/${n}`)).toContain(pointer);
      expect(r.errors[0].title).toMatch(/^\/data\/attributes\/\w+ must be of type (string|boolean)$/);
    });

    it('when the type is unknown, missing or not a string, then 400 at /data/type', async () => {
      await rejected('/v1/user_feedback', body('wrong_station', MINIMAL.other_feedback), '/data/type');
      await rejected('/v1/user_feedback', { data: { attributes: MINIMAL.other_feedback } }, '/data/type');
      await rejected('/v1/user_feedback', body(5 as unknown as string, MINIMAL.other_feedback), '/data/type');
    });

    it('when the type is unknown and attributes are missing, then the one 400 names the type, which decides the attributes (D293)', async () => {
      const unknown = await rejected('/v1/user_feedback', { data: { type: 'wrong_station' } });
      expect(unknown.errors).toEqual([{ status: '400', code: 'BAD_REQUEST', title: '/data/type must be one of other_feedback, missing_price, missing_station, missing_vehicle, wrong_price', source: { pointer: '/data/type' } }]);
      const notString = await rejected('/v1/user_feedback', { data: { type: 5 } });
      expect(notString.errors).toEqual([{ status: '400', code: 'BAD_REQUEST', title: '/data/type must be of type string', source: { pointer: '/data/type' } }]);
    });

    it('when attributes are missing or not an object, or data is not an object, then 400', async () => {
      await rejected('/v1/user_feedback', { data: { type: 'other_feedback' } }, '/data/attributes');
      await rejected('/v1/user_feedback', { data: { type: 'other_feedback', attributes: [] } }, '/data/attributes');
      await rejected('/v1/user_feedback', { data: [] }, '/data');
      await rejected('/v1/user_feedback', [1, 2]);
      const r = await call(srv, 'POST', '/v1/user_feedback', { key: W, raw: '{"data":' });
      expect(r.status).toBe(400);
    });

    it('the description states the body as the five types told apart by type, the schema the route checks (D293)', async () => {
      const doc = (await call(srv, 'GET', '/openapi.json')).json;
      const ref: string = doc.paths['/v1/user_feedback'].post.requestBody.content['application/json'].schema.$ref;
      const data = doc.components.schemas[ref.split('/').pop()!].properties.data;
      expect(data.discriminator).toEqual({ propertyName: 'type' });
      expect(data.oneOf.map((b: { properties: { type: { const: string } } }) => b.properties.type.const)).toEqual(Object.keys(REQUIRED));
      expect(data.oneOf.map((b: { properties: { attributes: { required: string[] } } }) => b.properties.attributes.required)).toEqual(Object.values(REQUIRED));
    });

    describe('price segments', () => {
      const withSegments = (name: string, segs: unknown) => body(name.startsWith('price') ? 'missing_price' : 'wrong_price', {
        ...(name.startsWith('price') ? MINIMAL.missing_price : MINIMAL.wrong_price),
        [name]: segs,
      });

      for (const list of ['price_segments', 'displayed_price_segments', 'actual_price_segments']) {
        it(`${list}: 50 segments are stored, 51 give 400`, async () => {
          const fifty = Array.from({ length: 50 }, (_, i) => ({ dimension: 'minute', price: i / 100, range_gte: i, range_lt: i + 1 }));
          await accepted('/v1/user_feedback', withSegments(list, fifty));
          expect((await lastUser()).attributes[list]).toEqual(fifty);
          const r = await rejected('/v1/user_feedback', withSegments(list, [...fifty, { dimension: 'kwh', price: 1 }]), `/data/attributes/${list}`);
          expect(r.errors[0].title).toBe(`/data/attributes/${list} must have at most 50 items`);
        });

        it(`${list}: each field is checked`, async () => {
          const p = `/data/attributes/${list}/0`;
          await rejected('/v1/user_feedback', withSegments(list, [{ price: 1 }]), `${p}/dimension`);
          await rejected('/v1/user_feedback', withSegments(list, [{ dimension: 'hour', price: 1 }]), `${p}/dimension`);
          await rejected('/v1/user_feedback', withSegments(list, [{ dimension: 'kwh' }]), `${p}/price`);
          await rejected('/v1/user_feedback', withSegments(list, [{ dimension: 'kwh', price: '0.3' }]), `${p}/price`);
          await rejected('/v1/user_feedback', withSegments(list, [{ dimension: 'kwh', price: 1, range_gte: -1 }]), `${p}/range_gte`);
          await rejected('/v1/user_feedback', withSegments(list, [{ dimension: 'kwh', price: 1, range_lt: 1.5 }]), `${p}/range_lt`);
          await rejected('/v1/user_feedback', withSegments(list, [{ dimension: 'kwh', price: 1, currency: 'EURO' }]), `${p}/currency`);
          await rejected('/v1/user_feedback', withSegments(list, [{ dimension: 'kwh', price: 1, currency: 'E1R' }]), `${p}/currency`);
          await rejected('/v1/user_feedback', withSegments(list, [{ dimension: 'kwh', price: 1, time_of_day_start: 1441 }]), `${p}/time_of_day_start`);
          await rejected('/v1/user_feedback', withSegments(list, [{ dimension: 'kwh', price: 1, time_of_day_end: -1 }]), `${p}/time_of_day_end`);
          await rejected('/v1/user_feedback', withSegments(list, [{ dimension: 'kwh', price: 1, time_of_day_end: 60.5 }]), `${p}/time_of_day_end`);
          await rejected('/v1/user_feedback', withSegments(list, [null]), p);
          await rejected('/v1/user_feedback', withSegments(list, { dimension: 'kwh', price: 1 }), `/data/attributes/${list}`);
        });
      }
    });

    describe('charge points (missing_station)', () => {
      const cps = (items: unknown) => body('missing_station', { ...MINIMAL.missing_station, charge_points: items });

      it('50 are stored, 51 give 400', async () => {
        const fifty = Array.from({ length: 50 }, (_, i) => ({ plug: 'type2', power: 11 + i, count: i }));
        await accepted('/v1/user_feedback', cps(fifty));
        expect((await lastUser()).attributes.charge_points).toEqual(fifty);
        await rejected('/v1/user_feedback', cps([...fifty, { plug: 'ccs', power: 50, count: 1 }]), '/data/attributes/charge_points');
      });

      it('each item needs a string plug, numeric power and a whole count ≥ 0', async () => {
        const p = '/data/attributes/charge_points/0';
        await rejected('/v1/user_feedback', cps([{ power: 22, count: 1 }]), `${p}/plug`);
        await rejected('/v1/user_feedback', cps([{ plug: 'ccs', count: 1 }]), `${p}/power`);
        await rejected('/v1/user_feedback', cps([{ plug: 'ccs', power: 22 }]), `${p}/count`);
        await rejected('/v1/user_feedback', cps([{ plug: 3, power: 22, count: 1 }]), `${p}/plug`);
        await rejected('/v1/user_feedback', cps([{ plug: 'ccs', power: '22', count: 1 }]), `${p}/power`);
        await rejected('/v1/user_feedback', cps([{ plug: 'ccs', power: 22, count: 1.5 }]), `${p}/count`);
        await rejected('/v1/user_feedback', cps([{ plug: 'ccs', power: 22, count: -1 }]), `${p}/count`);
        await rejected('/v1/user_feedback', cps([{ plug: 'ccs', power: -1, count: 1 }]), `${p}/power`);
      });
    });

    describe('poi_link (deprecated, D45)', () => {
      const fb = (type: string, extra: Record<string, unknown>) => body(type, { ...MINIMAL[type], ...extra });

      it('when poi_source is native, then poi_id is stored as the station id', async () => {
        await accepted('/v1/user_feedback', fb('wrong_price', { poi_link: 'https://www.example.com/map?poi_id=abc-123&poi_source=native' }));
        expect((await lastUser()).charging_station_id).toBe('abc-123');
        expect((await lastUser()).attributes.poi_link).toBe('https://www.example.com/map?poi_id=abc-123&poi_source=native');
      });

      it('when poi_source is missing, then poi_id is stored as the station id (also from a fragment query)', async () => {
        await accepted('/v1/user_feedback', fb('missing_price', { poi_link: 'https://www.example.com/?poi_id=st%2042' }));
        expect((await lastUser()).charging_station_id).toBe('st 42');
        await accepted('/v1/user_feedback', fb('missing_price', { poi_link: 'https://app.example/#/map?lat=1&poi_id=frag-1' }));
        expect((await lastUser()).charging_station_id).toBe('frag-1');
      });

      it('when poi_source is another source, then no station id', async () => {
        await accepted('/v1/user_feedback', fb('wrong_price', { poi_link: 'https://www.example.com/?poi_id=x1&poi_source=ext_a' }));
        expect((await lastUser()).charging_station_id).toBeNull();
      });

      it('when charging_station_id is given, then poi_link is ignored for the station id', async () => {
        await accepted('/v1/user_feedback', fb('wrong_price', { charging_station_id: 'given', poi_link: 'https://x.example/?poi_id=linked' }));
        expect((await lastUser()).charging_station_id).toBe('given');
      });

      it('when the link has no poi_id or is not a URL, then no station id', async () => {
        await accepted('/v1/user_feedback', fb('missing_price', { poi_link: 'https://x.example/?id=1' }));
        expect((await lastUser()).charging_station_id).toBeNull();
        await accepted('/v1/user_feedback', fb('missing_price', { poi_link: 'not a link' }));
        expect((await lastUser()).charging_station_id).toBeNull();
      });

      it('when a type without poi_link sends one, then it is ignored', async () => {
        await accepted('/v1/user_feedback', fb('missing_station', { poi_link: 'https://x.example/?poi_id=zzz' }));
        expect((await lastUser()).charging_station_id).toBeNull();
        expect((await lastUser()).attributes.poi_link).toBeUndefined();
      });
    });

    it('when the body is sent as application/vnd.api+json, then 204; as text/plain, then 415 and nothing stored', async () => {
      const b = JSON.stringify(body('other_feedback', MINIMAL.other_feedback));
      const n = (await userRows()).length;
      const ok = await call(srv, 'POST', '/v1/user_feedback', { key: W, raw: b, headers: { 'Content-Type': 'application/vnd.api+json' } });
      expect(ok.status).toBe(204);
      const bad = await call(srv, 'POST', '/v1/user_feedback', { key: W, raw: b, headers: { 'Content-Type': 'text/plain' } });
      expect(bad.status).toBe(415);
      expect((await userRows()).length).toBe(n + 1);
    });
  });

  describe('POST /v1/partner_feedback', () => {
    const ATTRS = { content: 'New prices from 1 May', tariff: 'Flex', cpo: 'CPO A, CPO B', emp: 'EMP One', language: 'en' };

    it('when a tariff_update has all five attributes, then 204 and stored', async () => {
      await accepted('/v1/partner_feedback', body('tariff_update', ATTRS));
      expect((await partnerRows()).at(-1)).toMatchObject({ type: 'tariff_update', ...ATTRS });
    });

    it('when all attributes are empty strings, then 204 and stored', async () => {
      const empty = { content: '', tariff: '', cpo: '', emp: '', language: '' };
      await accepted('/v1/partner_feedback', body('tariff_update', empty));
      expect((await partnerRows()).at(-1)).toMatchObject({ type: 'tariff_update', ...empty });
    });

    it('when attributes are long, then they are stored in full (no length limits)', async () => {
      const long = { ...ATTRS, content: 'x'.repeat(20_000), language: 'english' };
      await accepted('/v1/partner_feedback', body('tariff_update', long));
      expect((await partnerRows()).at(-1)!.content).toHaveLength(20_000);
    });

    for (const name of Object.keys(ATTRS)) {
      it(`when ${name} is missing, null or not a string, then 400 and nothing stored`, async () => {
        const { [name]: _d, ...rest } = ATTRS as Record<string, string>;
        await rejected('/v1/partner_feedback', body('tariff_update', rest), `/data/attributes/${name}`);
        await rejected('/v1/partner_feedback', body('tariff_update', { ...ATTRS, [name]: null }), `/data/attributes/${name}`);
        await rejected('/v1/partner_feedback', body('tariff_update', { ...ATTRS, [name]: 42 }), `/data/attributes/${name}`);
      });
    }

    it('when the type is not tariff_update or missing, then 400', async () => {
      const r = await rejected('/v1/partner_feedback', body('price_update', ATTRS), '/data/type');
      expect(r.errors[0].title).toBe('/data/type must be one of tariff_update');
      await rejected('/v1/partner_feedback', { data: { attributes: ATTRS } }, '/data/type');
      await rejected('/v1/partner_feedback', { data: { type: 'tariff_update' } }, '/data/attributes');
    });

    it('when unknown attributes are sent, then they are ignored', async () => {
      await accepted('/v1/partner_feedback', body('tariff_update', { ...ATTRS, extra: true }));
      expect((await partnerRows()).at(-1)).not.toHaveProperty('extra');
    });
  });

  describe('403 per endpoint (nothing stored)', () => {
    for (const path of ['/v1/user_feedback', '/v1/partner_feedback']) {
      it(`${path}: missing key, invalid key, wrong group`, async () => {
        const b = path.includes('user') ? body('other_feedback', MINIMAL.other_feedback) : body('tariff_update', { content: '', tariff: '', cpo: '', emp: '', language: '' });
        const before = [(await userRows()).length, (await partnerRows()).length];
        const missing = await call(srv, 'POST', path, { body: b });
        expect(missing.status).toBe(403);
        expect(missing.json).toEqual({ errors: [{ status: '403', code: 'FORBIDDEN', title: 'api_key missing' }] });
        const invalid = await call(srv, 'POST', path, { key: 'not-a-key-000', body: b });
        expect(invalid.json).toEqual({ errors: [{ status: '403', code: 'FORBIDDEN', title: 'api_key invalid' }] });
        const wrong = await call(srv, 'POST', path, { key: keyFor('reader'), body: b });
        expect(wrong.json).toEqual({ errors: [{ status: '403', code: 'FORBIDDEN', title: 'action write_user_feedback not allowed' }] });
        // D10: the key check comes before validation
        const wrongAndInvalid = await call(srv, 'POST', path, { key: keyFor('reader'), body: { data: {} } });
        expect(wrongAndInvalid.status).toBe(403);
        expect([(await userRows()).length, (await partnerRows()).length]).toEqual(before);
      });
    }
  });
});
