/**
 * Accounts as the original web client uses them (D239–D244), over the whole pipeline: the
 * membership sources its activation dialog sends and `npm run products -- import`, every call to
 * its auth base with and without AUTH_PATH_PREFIX, two refreshes with one token, two quick settings
 * changes, the messages and pages it leads people to, and access tokens that end with the password
 * and the account. Each rule has a test that fails without it.
 */
import crypto from 'node:crypto';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { decodeJwt, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, cliEnv, databaseUrlOf, freshDataDir, keyFor, startTestApp, type TestApp } from '../helpers/server.js';
import { nthMail } from '../helpers/mail.js';
import { AccountStore } from '../../src/storage/accounts.js';
import type { LiveStore } from '../../src/storage/live.js';
import { openLiveStore } from '../../src/storage/open.js';

const SECRET = 'accounts-client-test-secret-0123456789';
const KEY = keyFor('accounts');
const DEVICES = keyFor('devices');
const SCRYPT = '1024,8,1';
const APP_URL = 'https://app.example.org/';
const CLI = path.join(import.meta.dirname, '../../dist/src/cli/products.js');

const signupBody = (email: string, password: string) => ({ data: { type: 'user', attributes: { email, password, username: 'driver', language: 'de' } } });
const loginBody = (email: string, password: string) => ({ data: { type: 'email_authentication', attributes: { email, password } } });
const refreshBody = (refresh_token: string) => ({ data: { type: 'refresh_token_authentication', attributes: { refresh_token } } });
const bearer = (t: string) => ({ Authorization: `Bearer ${t}` });
const pathOf = (link: string): string => new URL(link).pathname + new URL(link).search;
const device = (id: string) => ({
  data: { id, type: 'crm_device', attributes: { fcmToken: 'fcm', country: 'AT', language: 'de', app_version: '1', os_version: '1', user_products: [], disabled_notifications: [] } },
});

let app: TestApp;
let clients = 0;

interface Session {
  access: string;
  refresh: string;
  sub: string;
  headers: Record<string, string>;
}

/** A confirmed, logged-in user on `target` (auth routes under `prefix`), from a client address of its own. */
async function session(target: TestApp, email: string, prefix = '', password = 'client passphrase'): Promise<Session> {
  const headers = { 'X-Forwarded-For': `198.51.100.${++clients}` };
  expect((await call(target, 'POST', `${prefix}/v1/users`, { key: KEY, body: signupBody(email, password), headers })).status).toBe(204);
  const mail = await nthMail(target.dataDir, email, 1);
  expect((await call(target, 'GET', pathOf(mail.link), { headers })).status).toBe(200);
  const r = await call(target, 'POST', `${prefix}/v1/authenticate`, { key: KEY, body: loginBody(email, password), headers });
  expect(r.status, r.text).toBe(200);
  const { access_token, refresh_token } = r.json.data.attributes;
  return { access: access_token, refresh: refresh_token, sub: decodeJwt(access_token).sub!, headers };
}

function products(target: TestApp, args: string[], input?: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return cliEnv(target.dataDir).then((env) => {
    const dir = fs.mkdtempSync(path.join(target.dataDir, 'csv-'));
    const file = path.join(dir, 'sources.csv');
    if (input !== undefined) fs.writeFileSync(file, input);
    const r = spawnSync(process.execPath, [CLI, ...args, ...(input !== undefined ? [file] : [])], { env, encoding: 'utf8' });
    return { status: r.status, stdout: r.stdout, stderr: r.stderr };
  });
}

/** A fresh live store (the suite's store: SQLite, or PostgreSQL under `npm run test:pg`) with its account tables. */
async function withStore(fn: (live: LiveStore, store: AccountStore) => Promise<void>): Promise<void> {
  const dataDir = freshDataDir();
  const live = await openLiveStore({ dataDir, databaseUrl: await databaseUrlOf(dataDir) });
  try {
    await fn(live, new AccountStore(live));
  } finally {
    await live.close();
  }
}

beforeAll(async () => {
  app = await startTestApp({
    keys: { accounts: 'UserAccounts', devices: 'WriteCrmDevices' },
    env: { JWT_SECRET: SECRET, PASSWORD_SCRYPT: SCRYPT, PUBLIC_URL: 'https://prices.example.org', TRUST_PROXY: 'on', APP_URL },
  });
});
afterAll(async () => {
  await app?.stop();
});

describe('membership sources of the web client (D239)', () => {
  const activate = (s: Session, source: Record<string, unknown>) =>
    call(app, 'POST', `/v1/users/${s.sub}/products`, { key: KEY, headers: { ...bearer(s.access), ...s.headers }, body: { data: { type: 'user_products', attributes: { source } } } });

  it('imported memberships are activated by the client’s two shapes, once; typing differences do not matter', async () => {
    const emc = await products(app, ['import', '--type', 'emc_membership', '--products', 'mobile_premium'], 'member_number,card_number\nM-104233,4711000012345678\nM-200001,4711000099990000\n');
    expect([emc.status, emc.stdout.trim()], emc.stderr).toEqual([0, 'imported 2 emc_membership source(s) granting mobile_premium']);
    const thg = await products(app, ['import', '--type', 'carbonify_thg', '--products', 'mobile_premium,web_pro'], '\uFEFFEmail,Country,Quota_Year\nDriver@Example.org,at,2026\n');
    expect([thg.status, thg.stdout.trim()], thg.stderr).toEqual([0, 'imported 1 carbonify_thg source(s) granting mobile_premium, web_pro']);
    const again = await products(app, ['import', '--type', 'emc_membership', '--products', 'mobile_premium'], 'card_number,member_number\n4711000012345678,M-104233\n');
    expect([again.status, again.stdout.trim()]).toEqual([0, 'imported 0 emc_membership source(s) granting mobile_premium (1 already stored, left as they were)']);

    const a = await session(app, 'emc-a@example.org');
    const b = await session(app, 'emc-b@example.org');
    // The dialog's exact body: strings from its inputs, spaces as people type them.
    const ok = await activate(a, { type: 'emc_membership', member_number: ' m-104233 ', card_number: '4711 0000 1234 5678' });
    expect([ok.status, ok.json]).toEqual([201, { data: { type: 'user_products', attributes: { products: ['mobile_premium'] } } }]);
    const used = await activate(b, { type: 'emc_membership', member_number: 'M-104233', card_number: '4711000012345678' });
    expect([used.status, used.json.errors[0].code, used.json.errors[0].status]).toEqual([409, 'PRODUCT_SOURCE_ALREADY_USED', 409]);
    const thgOk = await activate(b, { type: 'carbonify_thg', email: 'driver@example.org', country: 'AT', quota_year: 2026 });
    expect([thgOk.status, thgOk.json.data.attributes.products]).toEqual([201, ['mobile_premium', 'web_pro']]);
    // The client reloads and reads the products from the settings' meta.
    const put = { data: { type: 'user_settings', id: b.sub, attributes: { version: 1 }, relationships: { vehicle: { data: { id: 'v', type: 'car' } } } } };
    expect((await call(app, 'PUT', `/v1/users/${b.sub}/settings`, { key: KEY, headers: bearer(b.access), body: put })).json.meta.products).toEqual(['mobile_premium', 'web_pro']);
  });

  it('an unknown shape is 404 PRODUCT_SOURCE_NOT_FOUND; a body without a source object is 400', async () => {
    const s = await session(app, 'shapes@example.org');
    const notFound: Record<string, unknown>[] = [
      { type: 'emc_membership', member_number: 'M-200001', card_number: '4711000099990001' }, // wrong card
      { type: 'emc_membership', member_number: '', card_number: '4711000099990000' }, // the field left empty
      { type: 'emc_membership', member_number: 'M-200001' },
      { type: 'carbonify_thg', email: 'driver@example.org', country: 'AT', quota_year: 1999 },
      { type: 'carbonify_thg', email: 'not an address', country: 'AT', quota_year: 2026 },
      { type: 'paypal', account: 'x' },
    ];
    for (const source of notFound) {
      const r = await activate(s, source);
      expect([r.status, r.json.errors[0].code, r.json.errors[0].status], JSON.stringify(source)).toEqual([404, 'PRODUCT_SOURCE_NOT_FOUND', 404]);
    }
    // Ten activations per user and hour (D212): the bodies below come from another user.
    const t = await session(app, 'shapes-b@example.org');
    const bad: unknown[] = [undefined, 'emc', { member_number: 'M-1' }, { type: 5 }, { type: 'code', code: 'x'.repeat(300) }];
    for (const source of bad) {
      const r = await call(app, 'POST', `/v1/users/${t.sub}/products`, { key: KEY, headers: { ...bearer(t.access), ...t.headers }, body: { data: { type: 'user_products', attributes: source === undefined ? {} : { source } } } });
      expect([r.status, r.json.errors[0].status], JSON.stringify(source)).toEqual([400, 400]);
    }
  });

  it('memberships are stored under a keyed hash, never their bare SHA-256; a bad file imports nothing', async () => {
    const bad = await products(app, ['import', '--type', 'emc_membership', '--products', 'mobile_premium'], 'member_number,card_number\nM-1,1234\nM-2,12 34 ab!\n,5555\n');
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toContain('nothing imported: 2 row(s) do not fit emc_membership (member_number, card_number), on line(s) 3, 4');
    expect((await products(app, ['import', '--type', 'carbonify_thg', '--products', 'x'], 'email,quota_year\na@b.org,2026\n')).stderr).toContain('the header lacks country');
    expect((await products(app, ['import', '--type', 'code', '--products', 'x'], 'code\nabc\n')).status).not.toBe(0);
    const live = await openLiveStore({ dataDir: app.dataDir, databaseUrl: await databaseUrlOf(app.dataDir) });
    try {
      const rows = await live.read((s) => s.all<{ hash: string; type: string }>('SELECT hash, type FROM product_sources'));
      const bare = crypto.createHash('sha256').update('emc_membership\nM-104233\n4711000012345678').digest('hex');
      expect(rows.some((r) => r.type === 'emc_membership')).toBe(true);
      expect(rows.map((r) => r.hash)).not.toContain(bare);
      expect(rows.filter((r) => r.hash.startsWith('M-') || r.type === 'emc_membership' && r.hash.length !== 64)).toEqual([]);
      expect(rows.some((r) => r.type === 'emc_membership' && r.hash.includes('1234'))).toBe(false);
      expect(await live.read((s) => s.get<{ n: number }>("SELECT COUNT(*) AS n FROM product_sources WHERE type = 'emc_membership'"))).toMatchObject({ n: 2 });
    } finally {
      await live.close();
    }
  });
});

describe('the auth base, with and without AUTH_PATH_PREFIX (D240)', () => {
  for (const prefix of ['', '/auth']) {
    it(`every call the client sends to its auth base is served at "${prefix || '/'}", deletion included`, async () => {
      const target = prefix === '' ? app : await startTestApp({ keys: { accounts: 'UserAccounts' }, env: { JWT_SECRET: SECRET, PASSWORD_SCRYPT: SCRYPT, AUTH_PATH_PREFIX: prefix, TRUST_PROXY: 'on' } });
      try {
        const email = `base${prefix.replace('/', '-')}@example.org`;
        const s = await session(target, email, prefix);
        const calls: [string, string, unknown, number][] = [
          ['POST', `${prefix}/v1/authenticate`, refreshBody(s.refresh), 200],
          ['POST', `${prefix}/v1/users`, signupBody('second@example.org', 'client passphrase'), 204],
          ['POST', `${prefix}/v1/trigger_reset_password`, { data: { type: 'trigger_reset_password', attributes: { email } } }, 204],
          ['DELETE', `${prefix}/v1/users/${s.sub}`, undefined, 204],
        ];
        for (const [method, p, body, status] of calls) {
          const r = await call(target, method, p, { key: KEY, headers: { ...s.headers, ...(method === 'DELETE' ? bearer(s.access) : {}) }, ...(body !== undefined ? { body } : {}) });
          expect(r.status, `${method} ${p}: ${r.text}`).toBe(status);
        }
        // The deletion took effect: the account is gone.
        const login = await call(target, 'POST', `${prefix}/v1/authenticate`, { key: KEY, body: loginBody(email, 'client passphrase'), headers: s.headers });
        expect(login.status).toBe(401);
        if (prefix !== '') {
          // Under a prefix the authentication routes are served there only; deletion also beside the settings.
          expect((await call(target, 'POST', '/v1/authenticate', { key: KEY, body: loginBody(email, 'x') })).status).toBe(404);
          const t = await session(target, 'api-base@example.org', prefix);
          expect((await call(target, 'DELETE', `/v1/users/${t.sub}`, { key: KEY, headers: bearer(t.access) })).status).toBe(204);
        }
      } finally {
        if (target !== app) await target.stop();
      }
    });
  }
});

describe('two refreshes with one token (D241)', () => {
  it('both succeed within the grace period, in one family', async () => {
    const s = await session(app, 'twice@example.org');
    const [a, b] = await Promise.all([0, 1].map(() => call(app, 'POST', '/v1/authenticate', { key: KEY, body: refreshBody(s.refresh), headers: s.headers })));
    expect([a.status, b.status]).toEqual([200, 200]);
    const tokens = [a, b].map((r) => r.json.data.attributes.refresh_token as string);
    expect(new Set(tokens).size).toBe(2);
    for (const r of [a, b]) {
      const access = r.json.data.attributes.access_token as string;
      expect((await call(app, 'GET', `/v1/users/${s.sub}/settings`, { key: KEY, headers: bearer(access) })).status).toBe(404); // valid, no settings yet
    }
    for (const t of tokens) expect((await call(app, 'POST', '/v1/authenticate', { key: KEY, body: refreshBody(t), headers: s.headers })).status).toBe(200);
  });

  it('a reuse after the grace period still revokes the family', async () => {
    const target = await startTestApp({ keys: { accounts: 'UserAccounts' }, env: { JWT_SECRET: SECRET, PASSWORD_SCRYPT: SCRYPT, REFRESH_GRACE_S: '1', TRUST_PROXY: 'on' } });
    try {
      const s = await session(target, 'late@example.org');
      const first = await call(target, 'POST', '/v1/authenticate', { key: KEY, body: refreshBody(s.refresh), headers: s.headers });
      expect(first.status).toBe(200);
      await new Promise((r) => setTimeout(r, 1_500)); // past the 1 s grace period
      const late = await call(target, 'POST', '/v1/authenticate', { key: KEY, body: refreshBody(s.refresh), headers: s.headers });
      expect([late.status, late.json.errors[0].message]).toEqual([401, 'refresh token invalid']);
      expect((await call(target, 'POST', '/v1/authenticate', { key: KEY, body: refreshBody(first.json.data.attributes.refresh_token), headers: s.headers })).status).toBe(401);
    } finally {
      await target.stop();
    }
  });
});

describe('two quick settings changes (D242)', () => {
  const put = (s: Session, version: number, vehicle: string, tariffs: string[]) =>
    call(app, 'PUT', `/v1/users/${s.sub}/settings`, {
      key: KEY,
      headers: bearer(s.access),
      body: { data: { type: 'user_settings', id: s.sub, attributes: { version }, relationships: { vehicle: { data: { id: vehicle, type: 'car' } }, tariffs: { data: tariffs.map((id) => ({ id, type: 'tariff' })) } } } },
    });
  const state = async (s: Session) => {
    const r = await call(app, 'GET', `/v1/users/${s.sub}/settings`, { key: KEY, headers: bearer(s.access) });
    return [r.json.data.attributes.version, r.json.data.relationships.vehicle.data.id, r.json.data.relationships.tariffs.data.map((t: { id: string }) => t.id)];
  };

  it('a double click: both changes, made from the same version, are kept', async () => {
    const s = await session(app, 'double@example.org');
    expect((await put(s, 1, 'car-a', ['t1'])).status).toBe(200);
    // Two actions before the first answer: each sends version 2, each with its own change.
    const [x, y] = await Promise.all([put(s, 2, 'car-a', ['t1', 't2']), put(s, 2, 'car-b', ['t1'])]);
    expect([x.status, y.status]).toEqual([200, 200]);
    expect(await state(s)).toEqual([3, 'car-b', ['t1', 't2']]);
    // Each answer is the stored state after it: the later one names both changes.
    expect([x.json.data.attributes.version, y.json.data.attributes.version].sort()).toEqual([2, 3]);
    // Two additions and a removal from one base (the tariffs' order follows which request came first).
    await Promise.all([put(s, 4, 'car-b', ['t1', 't2', 't3']), put(s, 4, 'car-b', ['t2', 't4'])]);
    const [version, vehicle, tariffs] = await state(s);
    expect([version, vehicle, [...(tariffs as string[])].sort()]).toEqual([5, 'car-b', ['t2', 't3', 't4']]);
  });

  it('a stale device never overwrites what it did not change; a retry or an old base changes nothing', async () => {
    const s = await session(app, 'stale@example.org');
    await put(s, 1, 'car-a', ['t1']);
    await put(s, 2, 'car-b', ['t1']); // device A changes the vehicle
    const stale = await put(s, 2, 'car-a', ['t1', 't9']); // device B, still on version 1, adds a tariff
    expect([stale.status, stale.json.data.attributes.version]).toEqual([200, 3]);
    expect(await state(s)).toEqual([3, 'car-b', ['t1', 't9']]);
    expect((await put(s, 2, 'car-a', ['t1', 't9'])).json.data.attributes.version).toBe(3); // the same request again: nothing new
    expect((await put(s, 1, 'car-z', ['tz'])).json.data.attributes.version).toBe(3); // a first-login upload never overrides the account
    for (let v = 4; v <= 25; v++) await put(s, v, `car-${v}`, ['t1']);
    const old = await put(s, 3, 'car-old', ['t1', 'old']); // its base (version 2) is older than the 20 versions kept
    expect([old.json.data.attributes.version, old.json.data.relationships.vehicle.data.id]).toEqual([25, 'car-25']);
  });
});

describe('messages and pages (D243)', () => {
  it('pages lead back to the app; a used reset link shows the invalid page at once', async () => {
    const email = 'pages@example.org';
    const headers = { 'X-Forwarded-For': '198.51.100.200' };
    expect((await call(app, 'POST', '/v1/users', { key: KEY, body: signupBody(email, 'pages passphrase'), headers })).status).toBe(204);
    const confirmed = await call(app, 'GET', pathOf((await nthMail(app.dataDir, email, 1)).link), { headers });
    expect(confirmed.text).toContain('<a id="app" href="https://app.example.org">Open the app</a>');
    const invalid = await call(app, 'GET', pathOf((await nthMail(app.dataDir, email, 1)).link), { headers });
    expect(invalid.status).toBe(400);
    expect(invalid.text).toContain('<strong>Forgot password?</strong>');
    expect(invalid.text).toContain('href="https://app.example.org"');
    expect(invalid.text).not.toContain('Ask for a new one');
    await call(app, 'POST', '/v1/trigger_reset_password', { key: KEY, body: { data: { type: 'trigger_reset_password', attributes: { email } } }, headers });
    const link = pathOf((await nthMail(app.dataDir, email, 2)).link);
    const form = await call(app, 'GET', link, { headers });
    expect([form.status, form.text.includes('id="reset"'), form.text.includes('id="done" hidden')]).toEqual([200, true, true]);
    const token = new URL(`https://x${link}`).searchParams.get('token')!;
    expect((await call(app, 'POST', '/account/reset', { body: { data: { type: 'password_reset', attributes: { token, password: 'pages new passphrase' } } }, headers })).status).toBe(204);
    const used = await call(app, 'GET', link, { headers });
    expect([used.status, used.text.includes('id="reset"'), used.text.includes('Forgot password?')]).toEqual([400, false, true]);
  });
});

describe('access tokens end with the password and the account (D244)', () => {
  const settings = (s: Session, token = s.access) => call(app, 'GET', `/v1/users/${s.sub}/settings`, { key: KEY, headers: bearer(token) });
  const register = (token: string) => call(app, 'POST', '/v1/crm/devices', { key: DEVICES, headers: bearer(token), body: device(crypto.randomUUID()) });

  it('a password reset ends every access token of the user, on the user routes and the device endpoint', async () => {
    const s = await session(app, 'reset-ends@example.org');
    expect([(await settings(s)).status, (await register(s.access)).status]).toEqual([404, 200]);
    await call(app, 'POST', '/v1/trigger_reset_password', { key: KEY, body: { data: { type: 'trigger_reset_password', attributes: { email: 'reset-ends@example.org' } } }, headers: s.headers });
    const token = new URL((await nthMail(app.dataDir, 'reset-ends@example.org', 2)).link).searchParams.get('token')!;
    expect((await call(app, 'POST', '/account/reset', { body: { data: { type: 'password_reset', attributes: { token, password: 'a fresh passphrase' } } }, headers: s.headers })).status).toBe(204);
    expect((await settings(s)).json.errors[0].message).toBe('token invalid');
    expect((await register(s.access)).json.errors[0]).toMatchObject({ status: '403', title: 'token invalid' });
    const again = await call(app, 'POST', '/v1/authenticate', { key: KEY, body: loginBody('reset-ends@example.org', 'a fresh passphrase'), headers: s.headers });
    const fresh = again.json.data.attributes.access_token as string;
    expect([(await settings(s, fresh)).status, (await register(fresh)).status]).toEqual([404, 200]);
  });

  it('an account deletion ends its tokens on the device endpoint too', async () => {
    const s = await session(app, 'delete-ends@example.org');
    expect((await call(app, 'DELETE', `/v1/users/${s.sub}`, { key: KEY, headers: bearer(s.access) })).status).toBe(204);
    expect((await register(s.access)).status).toBe(403);
  });

  it('tokens carry the audience; another audience is refused; the user routes take only tokens of this service', async () => {
    const s = await session(app, 'audience@example.org');
    expect(decodeJwt(s.access)).toMatchObject({ aud: 'charging-price-service', gen: 0 });
    const secret = new TextEncoder().encode(SECRET);
    const now = Math.floor(Date.now() / 1000);
    const sign = (claims: Record<string, unknown>) => new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setSubject(s.sub).setIssuedAt(now).setExpirationTime(now + 600).sign(secret);
    const other = await sign({ aud: 'another-service', gen: 0 });
    expect([(await settings(s, other)).status, (await register(other)).status]).toEqual([403, 403]);
    const listed = await sign({ aud: ['another-service', 'charging-price-service'], gen: 0 });
    expect((await settings(s, listed)).status).toBe(404);
    const shared = await sign({}); // a shared-key issuer's token (D4): devices only
    expect([(await settings(s, shared)).status, (await register(shared)).status]).toEqual([403, 200]);
    expect((await settings(s, await sign({ gen: 1 }))).status).toBe(403); // a generation the user does not have
  });

  it('expired refresh and mail tokens are deleted', async () => {
    await withStore(async (live, store) => {
      const t0 = 1_700_000_000_000;
      await store.createUser({ id: 'u1', email: 'p@example.org', username: 'p', language: 'en', password_hash: 'scrypt$x' }, 'c1', { confirm: t0 + 1000, reset: t0 + 500 }, t0);
      await store.startFamily('u1', 'old', 'f1', t0 + 1000, t0);
      await store.startFamily('u1', 'live', 'f2', t0 + 9000, t0);
      const count = (table: string) => live.read((s) => s.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table}`)).then((r) => Number(r!.n));
      expect([await count('refresh_tokens'), await count('mail_tokens')]).toEqual([2, 1]);
      await store.startFamily('u1', 'new', 'f3', t0 + 9000, t0 + 1000); // a login once 'old' has expired
      await store.addMailToken('u1', 'reset', 'r1', t0 + 5000, t0 + 1000);
      expect(await live.read((s) => s.all<{ hash: string }>('SELECT hash FROM refresh_tokens ORDER BY hash'))).toEqual([{ hash: 'live' }, { hash: 'new' }]);
      expect(await live.read((s) => s.all<{ hash: string }>('SELECT hash FROM mail_tokens'))).toEqual([{ hash: 'r1' }]);
    });
  });
});

describe('per-client limits of IPv6 clients (D245)', () => {
  it('count every address of one /64 as one client', async () => {
    const junk = `/account/confirm?token=${'k'.repeat(43)}`;
    for (let i = 1; i <= 20; i++) expect((await call(app, 'GET', junk, { headers: { 'X-Forwarded-For': `2001:db8:5:6::${i.toString(16)}` } })).status).toBe(400);
    expect((await call(app, 'GET', junk, { headers: { 'X-Forwarded-For': '2001:db8:5:6:ffff:1:2:3' } })).status).toBe(429);
    expect((await call(app, 'GET', junk, { headers: { 'X-Forwarded-For': '2001:db8:5:7::1' } })).status).toBe(400);
  });
});

describe('unconfirmed accounts and the mails they cause (D249)', () => {
  it('an account nobody confirmed within 7 days is deleted by a later signup; confirmed ones stay', async () => {
    await withStore(async (live, store) => {
      const t0 = 1_700_000_000_000;
      const user = (id: string) => ({ id, email: `${id}@example.org`, username: id, language: 'en', password_hash: 'scrypt$x' });
      await store.createUser(user('stale'), 'c-stale', { confirm: t0 + 86_400_000, reset: t0 }, t0);
      await store.createUser(user('kept'), 'c-kept', { confirm: t0 + 86_400_000, reset: t0 }, t0);
      expect(await store.confirm('c-kept', t0 + 1000)).toBe(true);
      await store.createUser(user('young'), 'c-young', { confirm: t0 + 86_400_000, reset: t0 }, t0 + 6 * 86_400_000);
      await store.createUser(user('later'), 'c-later', { confirm: t0 + 9 * 86_400_000, reset: t0 }, t0 + 7 * 86_400_000 + 1);
      const ids = await live.read((s) => s.all<{ id: string }>('SELECT id FROM users ORDER BY id'));
      expect(ids.map((r) => r.id)).toEqual(['kept', 'later', 'young']);
      expect(await live.read((s) => s.get<{ n: number }>("SELECT COUNT(*) AS n FROM mail_tokens WHERE user_id = 'stale'"))).toMatchObject({ n: 0 });
    });
  });

  it('a reset mail names the user only once the address is confirmed', async () => {
    const { simpleParser } = await import('mailparser');
    const email = 'victim@example.org';
    const headers = { 'X-Forwarded-For': '198.51.100.240' };
    const body = { data: { type: 'user', attributes: { email, password: 'stranger passphrase', username: 'Call +1 555 0100 now', language: 'en' } } };
    expect((await call(app, 'POST', '/v1/users', { key: KEY, body, headers })).status).toBe(204);
    await nthMail(app.dataDir, email, 1); // the outbox orders mails by name: one written in the same millisecond could come first
    await call(app, 'POST', '/v1/trigger_reset_password', { key: KEY, body: { data: { type: 'trigger_reset_password', attributes: { email } } }, headers });
    expect((await nthMail(app.dataDir, email, 2)).subject).toBe('Reset your password');
    const dir = path.join(app.dataDir, 'outbox');
    const texts = await Promise.all(fs.readdirSync(dir).filter((f) => f.endsWith('.eml')).map(async (f) => simpleParser(fs.readFileSync(path.join(dir, f)))));
    const toVictim = texts.filter((m) => (Array.isArray(m.to) ? m.to[0] : m.to)?.value[0]?.address === email);
    expect(toVictim).toHaveLength(2);
    for (const m of toVictim) expect(m.text).not.toContain('555');
    expect(toVictim.some((m) => (m.text ?? '').startsWith('Hello,'))).toBe(true);
  });
});

describe('npm run products -- create (D212)', () => {
  it('issues codes only: another type is refused with the way to import it', async () => {
    const r = await products(app, ['create', '--products', 'web_pro', '--type', 'emc_membership']);
    expect([r.status, r.stderr.includes('memberships are loaded with import')]).toEqual([2, true]);
    const ok = await products(app, ['create', '--products', 'web_pro']);
    expect([ok.status, /^[A-Za-z0-9_-]{22}\n$/.test(ok.stdout)]).toEqual([0, true]);
  });
});
