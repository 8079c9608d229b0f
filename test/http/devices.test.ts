import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeviceStore } from '../../src/storage/devices.js';
import type { LiveStore } from '../../src/storage/live.js';
import { openLiveStoreReadonly } from '../../src/storage/open.js';
import { ROOT, call, cliEnv, keyFor, startTestApp, type TestApp } from '../helpers/server.js';

const SECRET = 'device-test-secret-0123456789abcdef';
const D = keyFor('devices');

const ATTRS = {
  fcmToken: 'fcm:APA91bH-token',
  country: 'de',
  language: 'DE',
  app_version: '5.12.0',
  os_version: 'Android 14',
  user_products: ['mobile_premium'],
  disabled_notifications: ['promotion_external_generic', 'product_updates'],
};
const device = (id: string, attributes: Record<string, unknown> = ATTRS, type: unknown = 'crm_device') => ({
  data: { id, type, attributes },
});

const b64 = (o: unknown): string => Buffer.from(JSON.stringify(o)).toString('base64url');
const now = (): number => Math.floor(Date.now() / 1000);

async function token(opts: { sub?: string | null; exp?: number | null; iat?: number | null; nbf?: number; alg?: string; secret?: string } = {}): Promise<string> {
  const claims: Record<string, unknown> = {};
  if (opts.sub !== null) claims.sub = opts.sub ?? 'user-1';
  if (opts.nbf !== undefined) claims.nbf = opts.nbf;
  let jwt = new SignJWT(claims).setProtectedHeader({ alg: opts.alg ?? 'HS256', typ: 'JWT' });
  if (opts.iat !== null) jwt = jwt.setIssuedAt(opts.iat ?? now());
  if (opts.exp !== null) jwt = jwt.setExpirationTime(opts.exp ?? now() + 600);
  return jwt.sign(new TextEncoder().encode(opts.secret ?? SECRET));
}

describe('device registration over HTTP', () => {
  let srv: TestApp;
  let store: LiveStore;
  let devices: DeviceStore;
  const count = async (): Promise<number> => {
    let n = 0;
    for await (const _ of devices.devices()) n++;
    return n;
  };

  const post = (b: unknown, auth?: string, key = D) =>
    call(srv, 'POST', '/v1/crm/devices', { key, body: b, headers: auth === undefined ? {} : { Authorization: auth } });

  const rejected = async (b: unknown, pointer: string): Promise<any> => {
    const before = (await count());
    const r = await post(b);
    expect(r.status, JSON.stringify(b)).toBe(400);
    for (const e of r.json.errors) expect(e).toMatchObject({ status: '400', code: 'BAD_REQUEST' });
    expect(r.json.errors.map((e: { source?: { pointer?: string } }) => e.source?.pointer)).toContain(pointer);
    expect((await count())).toBe(before);
    return r.json;
  };

  const forbidden = async (auth: string, code: 'FORBIDDEN' | 'TOKEN_EXPIRED', title: string, b: unknown = device(randomUUID())) => {
    const before = (await count());
    const r = await post(b, auth);
    expect(r.status).toBe(403);
    expect(r.json).toEqual({ errors: [{ status: '403', code, title }] });
    expect((await count())).toBe(before);
  };

  beforeAll(async () => {
    srv = await startTestApp({
      keys: { devices: 'WriteCrmDevices', feedback: 'WriteUserFeedback' },
      env: { JWT_SECRET: SECRET },
    });
    store = await openLiveStoreReadonly(srv);
    devices = new DeviceStore(store);
  });
  afterAll(async () => {
    await store?.close();
    await srv.stop();
  });

  describe('registration and upsert', () => {
    it('when a new device registers without a token, then 200 with its id and type, stored unlinked', async () => {
      const id = randomUUID();
      const r = await post(device(id));
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(r.json).toEqual({ data: { id, type: 'crm_device' } });
      expect(await devices.get(id)).toMatchObject({
        id,
        fcm_token: ATTRS.fcmToken,
        country: 'DE',
        language: 'de',
        app_version: '5.12.0',
        os_version: 'Android 14',
        user_products: ['mobile_premium'],
        disabled_notifications: ['promotion_external_generic', 'product_updates'],
        user_id: null,
        update_count: 0,
      });
    });

    it('when the same id registers again, then 200 and the device is replaced (upsert), not duplicated', async () => {
      const id = randomUUID();
      await post(device(id));
      const created = (await devices.get(id))!;
      const n = (await count());
      const changed = { ...ATTRS, fcmToken: 'new-token', country: 'FR', language: 'fr', user_products: [], disabled_notifications: [] };
      const r = await post(device(id.toUpperCase(), changed));
      expect(r.status).toBe(200);
      expect(r.json).toEqual({ data: { id: id.toUpperCase(), type: 'crm_device' } });
      expect((await count())).toBe(n);
      const row = (await devices.get(id))!;
      expect(row).toMatchObject({ fcm_token: 'new-token', country: 'FR', language: 'fr', user_products: [], disabled_notifications: [], update_count: 1 });
      expect(row.created_at).toBe(created.created_at);
      expect(row.updated_at).toBeGreaterThanOrEqual(created.updated_at);
    });

    it('when a valid bearer token is sent, then the device is linked to its subject; a later call without one unlinks it', async () => {
      const id = randomUUID();
      const r = await post(device(id), `Bearer ${await token({ sub: 'user-42' })}`);
      expect(r.status).toBe(200);
      expect(r.json).toEqual({ data: { id, type: 'crm_device' } });
      expect((await devices.get(id))!.user_id).toBe('user-42');
      const again = await post(device(id), `bearer ${await token({ sub: 'user-43' })}`);
      expect(again.status).toBe(200);
      expect((await devices.get(id))!.user_id).toBe('user-43');
      await post(device(id));
      expect((await devices.get(id))!.user_id).toBeNull();
    });

    it('when unknown attributes are sent, then they are ignored; repeated list values are stored once', async () => {
      const id = randomUUID();
      const r = await post(device(id, { ...ATTRS, extra: 1, user_products: ['mobile_premium', 'mobile_premium'] }));
      expect(r.status).toBe(200);
      expect((await devices.get(id))!.user_products).toEqual(['mobile_premium']);
    });
  });

  describe('bearer token (D4, D10)', () => {
    it('when the token is expired, then 403 TOKEN_EXPIRED token expired, nothing stored', async () => {
      await forbidden(`Bearer ${await token({ exp: now() - 10 })}`, 'TOKEN_EXPIRED', 'token expired');
    });

    it('when the signature is bad, then 403 token invalid', async () => {
      await forbidden(`Bearer ${await token({ secret: 'another-secret-another-secret-xx' })}`, 'FORBIDDEN', 'token invalid');
      const good = await token();
      const tampered = good.slice(0, -3) + (good.endsWith('AAA') ? 'BBB' : 'AAA');
      await forbidden(`Bearer ${tampered}`, 'FORBIDDEN', 'token invalid');
    });

    it('when the token uses another algorithm (HS512 with the right secret, or alg none), then 403 token invalid', async () => {
      await forbidden(`Bearer ${await token({ alg: 'HS512' })}`, 'FORBIDDEN', 'token invalid');
      const none = `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ sub: 'user-1', exp: now() + 600 })}.`;
      await forbidden(`Bearer ${none}`, 'FORBIDDEN', 'token invalid');
    });

    it('when the token is malformed, then 403 token invalid', async () => {
      for (const t of ['abc', 'a.b.c', `${b64({ alg: 'HS256' })}.notjson.sig`]) {
        await forbidden(`Bearer ${t}`, 'FORBIDDEN', 'token invalid');
      }
    });

    it('when the token has no exp, a lifetime over TOKEN_MAX_LIFETIME_S or a future nbf, then 403 token invalid (D103)', async () => {
      await forbidden(`Bearer ${await token({ exp: null })}`, 'FORBIDDEN', 'token invalid');
      await forbidden(`Bearer ${await token({ exp: null, iat: null })}`, 'FORBIDDEN', 'token invalid');
      await forbidden(`Bearer ${await token({ exp: now() + 86_401 })}`, 'FORBIDDEN', 'token invalid');
      await forbidden(`Bearer ${await token({ iat: null, exp: now() + 86_500 })}`, 'FORBIDDEN', 'token invalid');
      await forbidden(`Bearer ${await token({ nbf: now() + 600 })}`, 'FORBIDDEN', 'token invalid');
      // The whole lifetime counts from iat: issued long ago for a long time is refused even if it ends soon.
      await forbidden(`Bearer ${await token({ iat: now() - 200_000, exp: now() + 60 })}`, 'FORBIDDEN', 'token invalid');
      const ok = await post(device(randomUUID()), `Bearer ${await token({ iat: null, exp: now() + 3600 })}`);
      expect(ok.status, ok.text).toBe(200);
    });

    it('when the token\'s iat lies in the future, then 403 token invalid, and the lifetime counts from now (D177)', async () => {
      // iat = exp far ahead: exp − iat is 0, the lifetime from now is decades.
      await forbidden(`Bearer ${await token({ iat: 1e15, exp: 1e15 })}`, 'FORBIDDEN', 'token invalid');
      await forbidden(`Bearer ${await token({ iat: now() + 3600, exp: now() + 7200 })}`, 'FORBIDDEN', 'token invalid');
      // iat within the skew of 60 s, but exp more than the maximum lifetime from now.
      await forbidden(`Bearer ${await token({ iat: now() + 30, exp: now() + 86_420 })}`, 'FORBIDDEN', 'token invalid');
      // An issuer whose clock runs 30 s ahead still works.
      const ok = await post(device(randomUUID()), `Bearer ${await token({ iat: now() + 30, exp: now() + 3600 })}`);
      expect(ok.status, ok.text).toBe(200);
    });

    it('when an expired token has no sub, then 403 token invalid: claims before expiry (D4)', async () => {
      await forbidden(`Bearer ${await token({ sub: null, exp: now() - 10 })}`, 'FORBIDDEN', 'token invalid');
      await forbidden(`Bearer ${await token({ sub: '', exp: now() - 10 })}`, 'FORBIDDEN', 'token invalid');
    });

    it('when the token has no sub, then 403 token invalid', async () => {
      await forbidden(`Bearer ${await token({ sub: null })}`, 'FORBIDDEN', 'token invalid');
      await forbidden(`Bearer ${await token({ sub: '' })}`, 'FORBIDDEN', 'token invalid');
    });

    it('when the Authorization header is not a Bearer token, then 403 token invalid', async () => {
      await forbidden('Basic dXNlcjpwYXNz', 'FORBIDDEN', 'token invalid');
      await forbidden('Bearer', 'FORBIDDEN', 'token invalid');
    });

    it('when both the token and the body are bad, then the token answers first (403 before 400)', async () => {
      await forbidden(`Bearer ${await token({ exp: now() - 10 })}`, 'TOKEN_EXPIRED', 'token expired', { data: { id: 'x' } });
      await forbidden('Bearer abc', 'FORBIDDEN', 'token invalid', { data: {} });
    });

    it('when the key lacks the group and the token is expired, then the key answers first', async () => {
      const r = await post(device(randomUUID()), `Bearer ${await token({ exp: now() - 10 })}`, keyFor('feedback'));
      expect(r.json).toEqual({ errors: [{ status: '403', code: 'FORBIDDEN', title: 'action write_crm_devices not allowed' }] });
    });

    it('when another endpoint gets a bad Authorization header, then it is ignored', async () => {
      const r = await call(srv, 'POST', '/v1/partner_feedback', {
        key: keyFor('feedback'),
        body: { data: { type: 'tariff_update', attributes: { content: '', tariff: '', cpo: '', emp: '', language: '' } } },
        headers: { Authorization: 'Bearer abc' },
      });
      expect(r.status).toBe(204);
    });
  });

  describe('validation (D44)', () => {
    it('when id is missing, not a string, not a UUID or a UUID of another version, then 400 at /data/id', async () => {
      await rejected({ data: { type: 'crm_device', attributes: ATTRS } }, '/data/id');
      await rejected(device(42 as unknown as string), '/data/id');
      const r = await rejected(device('not-a-uuid'), '/data/id');
      expect(r.errors[0].title).toBe('/data/id must be a UUID version 4');
      await rejected(device('6ba7b810-9dad-11d1-80b4-00c04fd430c8'), '/data/id'); // v1
      await rejected(device('00000000-0000-4000-c000-000000000000'), '/data/id'); // wrong variant
    });

    it('when type is missing or not crm_device, then 400 at /data/type', async () => {
      await rejected({ data: { id: randomUUID(), attributes: ATTRS } }, '/data/type');
      await rejected(device(randomUUID(), ATTRS, 'device'), '/data/type');
    });

    for (const name of Object.keys(ATTRS)) {
      it(`when ${name} is missing or null, then 400`, async () => {
        const { [name]: _d, ...rest } = ATTRS as Record<string, unknown>;
        const r = await rejected(device(randomUUID(), rest), `/data/attributes/${name}`);
        expect(r.errors[0].title).toBe(`/data/attributes/${name} is required`);
        await rejected(device(randomUUID(), { ...ATTRS, [name]: null }), `/data/attributes/${name}`);
      });
    }

    it('when fcmToken is sent in snake_case only, then 400 (the camelCase name is required)', async () => {
      const { fcmToken, ...rest } = ATTRS;
      await rejected(device(randomUUID(), { ...rest, fcm_token: fcmToken }), '/data/attributes/fcmToken');
    });

    it('when a string attribute is empty or of another type, then 400', async () => {
      for (const name of ['fcmToken', 'app_version', 'os_version']) {
        await rejected(device(randomUUID(), { ...ATTRS, [name]: '' }), `/data/attributes/${name}`);
        await rejected(device(randomUUID(), { ...ATTRS, [name]: 5 }), `/data/attributes/${name}`);
      }
    });

    it('when country or language are not two letters, then 400', async () => {
      for (const v of ['', 'D', 'DEU', 'd1', 'é']) {
        const r = await rejected(device(randomUUID(), { ...ATTRS, country: v }), '/data/attributes/country');
        expect(r.errors[0].title).toBe('/data/attributes/country must be a two-letter code');
        await rejected(device(randomUUID(), { ...ATTRS, language: v }), '/data/attributes/language');
      }
    });

    it('when the lists hold unknown values or are not arrays, then 400', async () => {
      await rejected(device(randomUUID(), { ...ATTRS, user_products: ['mobile_basic'] }), '/data/attributes/user_products/0');
      await rejected(device(randomUUID(), { ...ATTRS, user_products: 'mobile_premium' }), '/data/attributes/user_products');
      await rejected(device(randomUUID(), { ...ATTRS, disabled_notifications: ['product_updates', 'marketing'] }), '/data/attributes/disabled_notifications/1');
      await rejected(device(randomUUID(), { ...ATTRS, disabled_notifications: {} }), '/data/attributes/disabled_notifications');
    });

    it('when every notification type is disabled, then all four are stored', async () => {
      const id = randomUUID();
      const all = ['promotion_external_generic', 'promotion_external_personalized', 'promotion_native_premium', 'product_updates'];
      expect((await post(device(id, { ...ATTRS, disabled_notifications: all }))).status).toBe(200);
      expect((await devices.get(id))!.disabled_notifications).toEqual(all);
    });

    it('when an invalid update arrives for a known device, then 400 and the stored device is unchanged', async () => {
      const id = randomUUID();
      await post(device(id));
      const before = await devices.get(id);
      expect(before).not.toBeNull();
      await rejected(device(id, { ...ATTRS, country: 'XXX' }), '/data/attributes/country');
      expect(await devices.get(id)).toEqual(before);
    });
  });

  describe('403 (nothing stored)', () => {
    it('missing key, invalid key, wrong group', async () => {
      const n = (await count());
      const b = device(randomUUID());
      const missing = await call(srv, 'POST', '/v1/crm/devices', { body: b });
      expect(missing.json).toEqual({ errors: [{ status: '403', code: 'FORBIDDEN', title: 'api_key missing' }] });
      const invalid = await call(srv, 'POST', '/v1/crm/devices', { key: 'nope-nope-nope', body: b });
      expect(invalid.json).toEqual({ errors: [{ status: '403', code: 'FORBIDDEN', title: 'api_key invalid' }] });
      const wrong = await call(srv, 'POST', '/v1/crm/devices', { key: keyFor('feedback'), body: b });
      expect(wrong.status).toBe(403);
      expect(wrong.json).toEqual({ errors: [{ status: '403', code: 'FORBIDDEN', title: 'action write_crm_devices not allowed' }] });
      expect((await count())).toBe(n);
    });
  });
});

describe('device registration with the generated secret and the token CLI', () => {
  it('when a token issued by `npm run token` is sent, then the device is linked to its subject', async () => {
    const srv = await startTestApp({ keys: { devices: 'WriteCrmDevices' } });
    try {
      const run = promisify(execFile);
      const cli = path.join(ROOT, 'dist/src/cli/token.js');
      const env = await cliEnv(srv.dataDir);
      const good = (await run(process.execPath, [cli, '--sub', 'cli-user', '--ttl', '60'], { cwd: ROOT, env })).stdout.trim();
      const expired = (await run(process.execPath, [cli, '--sub', 'cli-user', '--ttl', '-5'], { cwd: ROOT, env })).stdout.trim();
      const tooLong = await run(process.execPath, [cli, '--sub', 'cli-user', '--ttl', '86401'], { cwd: ROOT, env }).then(
        () => null,
        (e: { code?: number; stderr?: string }) => e,
      );
      expect(tooLong?.code).toBe(2);
      expect(tooLong?.stderr).toContain('TOKEN_MAX_LIFETIME_S');
      const id = randomUUID();
      const ok = await call(srv, 'POST', '/v1/crm/devices', { key: D, body: device(id), headers: { Authorization: `Bearer ${good}` } });
      expect(ok.status).toBe(200);
      const late = await call(srv, 'POST', '/v1/crm/devices', { key: D, body: device(id), headers: { Authorization: `Bearer ${expired}` } });
      expect(late.json).toEqual({ errors: [{ status: '403', code: 'TOKEN_EXPIRED', title: 'token expired' }] });
      const ro = await openLiveStoreReadonly(srv);
      try {
        expect((await new DeviceStore(ro).get(id))!.user_id).toBe('cli-user');
      } finally {
        await ro.close();
      }
    } finally {
      await srv.stop();
    }
  });
});
