/**
 * Accounts over HTTP (D200–D214), in process: the whole logged-in flow of the original web client
 * (signup → confirmation from the outbox → login → settings → products → refresh rotation and
 * reuse detection → reset → delete), the client's error shape, and each security rule with a test
 * that fails without it. Passwords are hashed with test-cheap scrypt parameters (PASSWORD_SCRYPT);
 * test/http/accounts-keys.test.ts covers RS256/ES256 signing and SMTP delivery.
 */
import path from 'node:path';
import { decodeJwt, decodeProtectedHeader, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, cliEnv, keyFor, startTestApp, type TestApp } from '../helpers/server.js';
import { mailLinks, nthMail } from '../helpers/mail.js';

const SECRET = 'accounts-test-secret-0123456789abcdef';
const KEY = keyFor('accounts');
const OTHER = keyFor('no-accounts');
const TEST_SCRYPT = '1024,8,1';

const pathOf = (link: string): string => {
  const u = new URL(link);
  return u.pathname + u.search;
};

const signupBody = (email: string, password: string, username = 'driver') => ({ data: { type: 'user', attributes: { email, password, username, language: 'de' } } });
const loginBody = (email: string, password: string) => ({ data: { type: 'email_authentication', attributes: { email, password } } });
const refreshBody = (refresh_token: string) => ({ data: { type: 'refresh_token_authentication', attributes: { refresh_token } } });
const bearer = (t: string) => ({ Authorization: `Bearer ${t}` });

let app: TestApp;

let clients = 0;

/** A confirmed, logged-in user; each from a client address of its own (the per-client limits are tested apart). */
async function signupConfirmLogin(email: string, password: string): Promise<{ access: string; refresh: string; sub: string }> {
  const headers = { 'X-Forwarded-For': `203.0.113.${++clients}` };
  expect((await call(app, 'POST', '/v1/users', { key: KEY, body: signupBody(email, password), headers })).status).toBe(204);
  const mail = await nthMail(app.dataDir, email.trim().toLowerCase(), 1);
  expect((await call(app, 'GET', pathOf(mail.link), { headers })).status).toBe(200);
  const r = await call(app, 'POST', '/v1/authenticate', { key: KEY, body: loginBody(email, password), headers });
  expect(r.status, r.text).toBe(200);
  const { access_token, refresh_token } = r.json.data.attributes;
  return { access: access_token, refresh: refresh_token, sub: decodeJwt(access_token).sub! };
}

async function metric(name: string): Promise<number> {
  const r = await call(app, 'GET', '/metrics');
  return Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(r.text)?.[1] ?? 'NaN');
}

beforeAll(async () => {
  app = await startTestApp({
    keys: { accounts: 'UserAccounts', 'no-accounts': 'ReadStations' },
    env: { JWT_SECRET: SECRET, PASSWORD_SCRYPT: TEST_SCRYPT, PUBLIC_URL: 'https://prices.example.org', TRUST_PROXY: 'on' },
  });
});
afterAll(async () => {
  await app?.stop();
});

describe('the logged-in flow of the web client', () => {
  it('signup → confirm → login → settings → products → refresh → reset → delete', async () => {
    const email = 'flow@example.org';
    expect((await call(app, 'POST', '/v1/users', { key: KEY, body: signupBody(email, 'first passphrase') })).status).toBe(204);
    // Unconfirmed: the right password says so, as the 401 the client turns into its own sentence (D243).
    const early = await call(app, 'POST', '/v1/authenticate', { key: KEY, body: loginBody(email, 'first passphrase') });
    expect(early.status).toBe(401);
    expect(early.json.errors[0]).toMatchObject({ status: 401, message: 'email_unconfirmed', detail: expect.stringContaining('Forgot password?') });
    const mail = await nthMail(app.dataDir, email, 1);
    expect(mail.subject).toBe('Confirm your email address');
    expect(mail.link.startsWith('https://prices.example.org/account/confirm?token=')).toBe(true);
    const page = await call(app, 'GET', pathOf(mail.link));
    expect([page.status, page.headers.get('content-type')]).toEqual([200, 'text/html; charset=utf-8']);
    expect(page.text).toContain('confirmed');
    expect((await call(app, 'GET', pathOf(mail.link))).status).toBe(400); // single use

    const login = await call(app, 'POST', '/v1/authenticate', { key: KEY, body: loginBody(email, 'first passphrase') });
    expect(login.status).toBe(200);
    expect(login.json.data.type).toBe('authentication_result');
    const { access_token, refresh_token } = login.json.data.attributes;
    const claims = decodeJwt(access_token);
    expect(claims).toMatchObject({ email, username: 'driver' });
    expect(claims.exp! - claims.iat!).toBe(900);
    const sub = claims.sub!;
    const settingsPath = `/v1/users/${sub}/settings`;

    expect((await call(app, 'GET', settingsPath, { key: KEY, headers: bearer(access_token) })).status).toBe(404);
    const wrapped = {
      data: {
        attributes: {
          data: { id: sub, type: 'user_settings', version: 1, vehicle: { id: 'car-1', type: 'car' }, tariffs: [{ id: 't-1', type: 'tariff' }, { id: 't-2', type: 'tariff' }] },
          meta: { products: [] },
        },
        relationships: {},
      },
    };
    const first = await call(app, 'PUT', settingsPath, { key: KEY, headers: bearer(access_token), body: wrapped });
    expect(first.status, first.text).toBe(200);
    expect(first.json).toEqual({
      data: {
        id: sub,
        type: 'user_settings',
        attributes: { version: 1 },
        relationships: { vehicle: { data: { id: 'car-1', type: 'car' } }, tariffs: { data: [{ id: 't-1', type: 'tariff' }, { id: 't-2', type: 'tariff' }] } },
      },
      meta: { products: [] },
    });
    expect((await call(app, 'GET', settingsPath, { key: KEY, headers: bearer(access_token) })).json).toEqual(first.json);
    const update = (version: number, vehicle: string) => ({
      data: { type: 'user_settings', id: sub, attributes: { version }, relationships: { vehicle: { data: { id: vehicle, type: 'car' } }, tariffs: { data: [] } } },
    });
    const second = await call(app, 'PUT', settingsPath, { key: KEY, headers: bearer(access_token), body: update(2, 'car-2') });
    expect([second.status, second.json.data.attributes.version, second.json.data.relationships.vehicle.data.id]).toEqual([200, 2, 'car-2']);
    // A stale device (made from version 1) never overwrites what it did not change, and reads the newer settings (D242).
    const v1 = update(2, 'car-1');
    const unchanged = { data: { ...v1.data, relationships: { ...v1.data.relationships, tariffs: { data: [{ id: 't-1', type: 'tariff' }, { id: 't-2', type: 'tariff' }] } } } };
    const stale = await call(app, 'PUT', settingsPath, { key: KEY, headers: bearer(access_token), body: unchanged });
    expect([stale.status, stale.json.data.attributes.version, stale.json.data.relationships.vehicle.data.id]).toEqual([200, 2, 'car-2']);
    const staleWrapped = await call(app, 'PUT', settingsPath, { key: KEY, headers: bearer(access_token), body: wrapped });
    expect([staleWrapped.status, staleWrapped.json.data.attributes.version]).toEqual([200, 2]);

    // Refresh: rotation; the old token again within the grace period gets a fresh pair (D241;
    // its reuse after the grace period revokes the family: test/http/accounts-client.test.ts).
    const r1 = await call(app, 'POST', '/v1/authenticate', { key: KEY, body: refreshBody(refresh_token) });
    expect(r1.status).toBe(200);
    const next = r1.json.data.attributes.refresh_token;
    expect(next).not.toBe(refresh_token);
    expect(decodeJwt(r1.json.data.attributes.access_token).sub).toBe(sub);
    const again2 = await call(app, 'POST', '/v1/authenticate', { key: KEY, body: refreshBody(refresh_token) });
    expect(again2.status).toBe(200);
    expect(again2.json.data.attributes.refresh_token).not.toBe(next);
    expect((await call(app, 'POST', '/v1/authenticate', { key: KEY, body: refreshBody(next) })).status).toBe(200);

    // Reset: the mail's page sets the password, and every refresh token of the user is revoked.
    const again = await call(app, 'POST', '/v1/authenticate', { key: KEY, body: loginBody(email, 'first passphrase') });
    const beforeReset = again.json.data.attributes.refresh_token;
    expect((await call(app, 'POST', '/v1/trigger_reset_password', { key: KEY, body: { data: { type: 'trigger_reset_password', attributes: { email } } } })).status).toBe(204);
    const resetMail = await nthMail(app.dataDir, email, 2);
    expect(resetMail.subject).toBe('Reset your password');
    const form = await call(app, 'GET', pathOf(resetMail.link));
    expect(form.status).toBe(200);
    expect(form.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(form.headers.get('referrer-policy')).toBe('no-referrer');
    expect(form.text).not.toMatch(/<script>[^<]/); // no inline script
    const token = new URL(resetMail.link).searchParams.get('token')!;
    const resetBody = (password: string) => ({ data: { type: 'password_reset', attributes: { token, password } } });
    const weak = await call(app, 'POST', '/account/reset', { body: resetBody('short') });
    expect([weak.status, weak.json.errors[0].message]).toEqual([400, 'password must have at least 8 characters']);
    expect((await call(app, 'POST', '/account/reset', { body: resetBody('second passphrase') })).status).toBe(204);
    expect((await call(app, 'POST', '/account/reset', { body: resetBody('third passphrase') })).status).toBe(400); // single use
    expect((await call(app, 'POST', '/v1/authenticate', { key: KEY, body: refreshBody(beforeReset) })).status).toBe(401);
    expect((await call(app, 'POST', '/v1/authenticate', { key: KEY, body: loginBody(email, 'first passphrase') })).status).toBe(401);
    const fresh = await call(app, 'POST', '/v1/authenticate', { key: KEY, body: loginBody(email, 'second passphrase') });
    expect(fresh.status).toBe(200);

    // Delete: the account, its settings and tokens are gone; its tokens stop working at once.
    const access = fresh.json.data.attributes.access_token;
    expect((await call(app, 'DELETE', `/v1/users/${sub}`, { key: KEY, headers: bearer(access) })).status).toBe(204);
    expect((await call(app, 'GET', settingsPath, { key: KEY, headers: bearer(access) })).status).toBe(403);
    expect((await call(app, 'POST', '/v1/authenticate', { key: KEY, body: refreshBody(fresh.json.data.attributes.refresh_token) })).status).toBe(401);
    expect((await call(app, 'POST', '/v1/authenticate', { key: KEY, body: loginBody(email, 'second passphrase') })).status).toBe(401);
  });
});

describe('errors in the client shape (D201)', () => {
  it('key, group, content type, body types, missing fields and limits are refused with a numeric status and a message', async () => {
    const body = loginBody('x@example.org', 'whatever1');
    const cases: [string, Parameters<typeof call>[3], number, RegExp][] = [
      ['no key', { body }, 403, /api_key missing/],
      ['wrong key', { key: 'nope', body }, 403, /api_key invalid/],
      ['wrong group', { key: OTHER, body }, 403, /action user_accounts not allowed/],
      ['not JSON', { key: KEY, raw: '{', headers: { 'Content-Type': 'application/json' } }, 400, /./],
      ['wrong content type', { key: KEY, raw: 'a', headers: { 'Content-Type': 'text/plain' } }, 415, /./],
      ['unknown type', { key: KEY, body: { data: { type: 'magic', attributes: {} } } }, 400, /email_authentication or refresh_token_authentication/],
      ['password a number', { key: KEY, body: { data: { type: 'email_authentication', attributes: { email: 'a@b.org', password: 5 } } } }, 400, /password/],
      ['no password', { key: KEY, body: { data: { type: 'email_authentication', attributes: { email: 'a@b.org' } } } }, 400, /password/],
      ['refresh token too long', { key: KEY, body: refreshBody('x'.repeat(201)) }, 400, /refresh_token/],
      ['body too large', { key: KEY, raw: JSON.stringify({ data: { type: 'email_authentication', attributes: { email: 'a@b.org', password: 'p'.repeat(2_000_000) } } }) }, 413, /./],
    ];
    for (const [what, o, status, message] of cases) {
      const r = await call(app, 'POST', '/v1/authenticate', o);
      expect(r.status, what).toBe(status);
      expect(r.json.errors[0].status, what).toBe(status);
      expect(r.json.errors[0].message, what).toMatch(message);
    }
    const get = await call(app, 'GET', '/v1/authenticate', { key: KEY });
    expect([get.status, get.headers.get('allow')]).toEqual([405, 'POST']);
  });

  it('signup: bad address, weak passwords, over-long names, a bad language', async () => {
    const cases: [unknown, string][] = [
      [signupBody('not-an-address', 'long enough pass'), 'email is not a valid address'],
      [signupBody('a,victim@example.org', 'long enough pass'), 'email is not a valid address'],
      [signupBody('a <victim@example.org>', 'long enough pass'), 'email is not a valid address'],
      [signupBody('a@example.org', 'long enough pass', 'name\r\nBcc: x'), '/data/attributes/username'],
      [signupBody('a@example.org', 'long enough pass', '   '), 'username must not be blank'],
      [signupBody('a@example.org', 'short'), 'password must have at least 8 characters'],
      [signupBody('a@example.org', 'x'.repeat(129)), 'password must have at most 128 characters'],
      [signupBody('a@example.org', 'Password123'), 'password is too common'],
      [signupBody('someone@example.org', 'someone@example.org'), 'password must not be the email address'],
      [signupBody('someone@example.org', 'SOMEONE'), 'password must have at least 8 characters'],
      [signupBody('someone.else@example.org', 'someone.else'), 'password must not be the email address'],
      [signupBody('a@example.org', 'long enough pass', 'n'.repeat(51)), '/data/attributes/username must have at most 50 characters'],
      [{ data: { type: 'user', attributes: { email: 'a@example.org', password: 'long enough pass', username: 'x', language: 'deu' } } }, '/data/attributes/language'],
      [{ data: { type: 'user', attributes: { email: 'a@example.org', password: 'long enough pass' } } }, 'username'],
    ];
    for (const [body, message] of cases) {
      const r = await call(app, 'POST', '/v1/users', { key: KEY, body });
      expect(r.status, message).toBe(400);
      expect(r.json.errors.at(-1).message, message).toContain(message);
    }
  });
});

describe('no account enumeration (D206, D207, D209)', () => {
  it('signup with a taken address answers 204 after a hash, changes no password, and tells the owner', async () => {
    const email = 'taken@example.org';
    await signupConfirmLogin(email, 'owner passphrase');
    const hashes = await metric('cps_password_hashes_total');
    const r = await call(app, 'POST', '/v1/users', { key: KEY, body: signupBody(email, 'attacker passphrase') });
    expect([r.status, r.text]).toEqual([204, '']);
    expect(await metric('cps_password_hashes_total')).toBe(hashes + 1);
    const mail = await nthMail(app.dataDir, email, 2);
    expect(mail.subject).toBe('Someone tried to sign up with your address');
    expect(mail.link).toContain('/account/reset?token=');
    expect((await call(app, 'POST', '/v1/authenticate', { key: KEY, body: loginBody(email, 'attacker passphrase') })).status).toBe(401);
    expect((await call(app, 'POST', '/v1/authenticate', { key: KEY, body: loginBody(email, 'owner passphrase') })).status).toBe(200);
    // The owner is told at most 3 times an hour, however often someone tries.
    for (let i = 0; i < 4; i++) expect((await call(app, 'POST', '/v1/users', { key: KEY, body: signupBody(email, `attacker passphrase ${i}`) })).status).toBe(204);
    await nthMail(app.dataDir, email, 4);
    await new Promise((res) => setTimeout(res, 150));
    expect(await mailLinks(app.dataDir, email)).toHaveLength(4); // the confirmation and 3 attempts
  });

  it('an unknown address and a wrong password get the same answer after the same hashing', async () => {
    await signupConfirmLogin('known@example.org', 'known passphrase');
    const hashes = await metric('cps_password_hashes_total');
    const unknown = await call(app, 'POST', '/v1/authenticate', { key: KEY, body: loginBody('nobody@example.org', 'known passphrase') });
    expect(await metric('cps_password_hashes_total')).toBe(hashes + 1);
    const wrong = await call(app, 'POST', '/v1/authenticate', { key: KEY, body: loginBody('known@example.org', 'wrong passphrase') });
    expect(await metric('cps_password_hashes_total')).toBe(hashes + 2);
    expect([unknown.status, unknown.text]).toEqual([wrong.status, wrong.text]);
    expect(unknown.json.errors[0]).toEqual({ status: 401, code: 'UNAUTHORIZED', title: 'wrong email or password', message: 'wrong email or password' });
  });

  it('whoever signs up with somebody else\'s address first never keeps that password: the owner gets a reset link', async () => {
    const email = 'owner-later@example.org';
    expect((await call(app, 'POST', '/v1/users', { key: KEY, body: signupBody(email, 'squatter passphrase') })).status).toBe(204);
    expect((await call(app, 'POST', '/v1/users', { key: KEY, body: signupBody(email, 'owner passphrase x') })).status).toBe(204);
    const mail = await nthMail(app.dataDir, email, 2);
    expect(mail.subject).toBe('Someone tried to sign up with your address');
    const token = new URL(mail.link).searchParams.get('token')!;
    expect(mail.link).toContain('/account/reset?token=');
    // The reset keeps D202's rules, the address's own name included.
    const weak = await call(app, 'POST', '/account/reset', { body: { data: { type: 'password_reset', attributes: { token, password: 'owner-later' } } } });
    expect([weak.status, weak.json.errors[0].message]).toEqual([400, 'password must not be the email address']);
    expect((await call(app, 'POST', '/account/reset', { body: { data: { type: 'password_reset', attributes: { token, password: 'owner passphrase y' } } } })).status).toBe(204);
    expect((await call(app, 'POST', '/v1/authenticate', { key: KEY, body: loginBody(email, 'squatter passphrase') })).status).toBe(401);
    expect((await call(app, 'POST', '/v1/authenticate', { key: KEY, body: loginBody(email, 'owner passphrase y') })).status).toBe(200);
  });

  it('a reset for an unknown address answers 204 and sends nothing', async () => {
    const r = await call(app, 'POST', '/v1/trigger_reset_password', { key: KEY, body: { data: { type: 'trigger_reset_password', attributes: { email: 'ghost@example.org' } } } });
    expect([r.status, r.text]).toEqual([204, '']);
    await new Promise((res) => setTimeout(res, 100));
    expect(await mailLinks(app.dataDir, 'ghost@example.org')).toEqual([]);
  });
});

describe('stored secrets and addresses (D202, D204, D205, D209)', () => {
  it('stores passwords as scrypt hashes and refresh and mail tokens as SHA-256 only', async () => {
    const { openLiveStoreReadonly } = await import('../../src/storage/open.js');
    const { createHash } = await import('node:crypto');
    const sha = (s: string) => createHash('sha256').update(s).digest('hex');
    const t = await signupConfirmLogin('stored@example.org', 'stored passphrase');
    const token = new URL((await nthMail(app.dataDir, 'stored@example.org', 1)).link).searchParams.get('token')!;
    const live = await openLiveStoreReadonly({ dataDir: app.dataDir, databaseUrl: app.databaseUrl });
    try {
      const count = (table: string, hash: string) => live.read((s) => s.get<{ n: number }>(`SELECT count(*) AS n FROM ${table} WHERE hash = ?`, [hash])).then((r) => Number(r!.n));
      const u = await live.read((s) => s.get<{ password_hash: string }>('SELECT password_hash FROM users WHERE email = ?', ['stored@example.org']));
      expect(u!.password_hash).toMatch(/^scrypt\$1024\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
      expect(u!.password_hash).not.toContain('stored passphrase');
      expect([await count('refresh_tokens', sha(t.refresh)), await count('refresh_tokens', t.refresh)]).toEqual([1, 0]);
      expect([await count('mail_tokens', sha(token)), await count('mail_tokens', token)]).toEqual([1, 0]);
    } finally {
      await live.close();
    }
  });

  it('normalises addresses: one account however the address is typed', async () => {
    await signupConfirmLogin('  Mixed.Case@Example.ORG ', 'mixed passphrase');
    expect((await call(app, 'POST', '/v1/authenticate', { key: KEY, body: loginBody('MIXED.case@example.org', 'mixed passphrase') })).status).toBe(200);
    expect((await call(app, 'POST', '/v1/users', { key: KEY, body: signupBody('mixed.case@EXAMPLE.org', 'other passphrase') })).status).toBe(204);
    expect((await nthMail(app.dataDir, 'mixed.case@example.org', 2)).subject).toBe('Someone tried to sign up with your address');
  });

  it('a wrong, unknown or malformed confirmation link shows the invalid page', async () => {
    for (const q of ['', '?token=short', `?token=${'a'.repeat(43)}`]) {
      const r = await call(app, 'GET', `/account/confirm${q}`, { headers: { 'X-Forwarded-For': '203.0.113.50' } });
      expect([r.status, r.text.includes('has expired'), r.text.includes('Forgot password?')]).toEqual([400, true, true]);
    }
    expect((await call(app, 'GET', '/account/reset?token=bad', { headers: { 'X-Forwarded-For': '203.0.113.50' } })).status).toBe(400);
  });
});

describe('bearer tokens on user routes (D210)', () => {
  it('refuses a missing, malformed, foreign, expired or forged token', async () => {
    const a = await signupConfirmLogin('bearer-a@example.org', 'bearer passphrase');
    const b = await signupConfirmLogin('bearer-b@example.org', 'bearer passphrase');
    const p = `/v1/users/${a.sub}/settings`;
    const now = Math.floor(Date.now() / 1000);
    const sign = (sub: string, iat: number, exp: number, secret = SECRET) =>
      new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject(sub).setIssuedAt(iat).setExpirationTime(exp).sign(new TextEncoder().encode(secret));
    const cases: [Record<string, string>, number, string][] = [
      [{}, 403, 'token missing'],
      [{ Authorization: 'Basic abc' }, 403, 'token invalid'],
      [bearer(b.access), 403, 'token invalid'],
      [bearer(await sign(a.sub, now - 1000, now - 10)), 403, 'token expired'],
      [bearer(await sign(a.sub, now, now + 60, 'another-secret-0123456789abcdef0')), 403, 'token invalid'],
    ];
    for (const [headers, status, message] of cases) {
      const r = await call(app, 'GET', p, { key: KEY, headers });
      expect([r.status, r.json.errors[0].message], message).toEqual([status, message]);
    }
    const expired = await call(app, 'GET', p, { key: KEY, headers: bearer(await sign(a.sub, now - 1000, now - 10)) });
    expect(expired.json.errors[0].code).toBe('TOKEN_EXPIRED');
    expect(decodeProtectedHeader(a.access).alg).toBe('HS256');
    // Another user's token can delete nothing either.
    expect((await call(app, 'DELETE', `/v1/users/${a.sub}`, { key: KEY, headers: bearer(b.access) })).status).toBe(403);
    expect((await call(app, 'GET', p, { key: KEY, headers: bearer(a.access) })).status).toBe(404);
  });

  it('settings bodies: wrong types, missing vehicle, a foreign id, too many tariffs', async () => {
    const a = await signupConfirmLogin('settings-bad@example.org', 'settings passphrase');
    const p = `/v1/users/${a.sub}/settings`;
    const doc = (over: Record<string, unknown>) => ({
      data: { type: 'user_settings', id: a.sub, attributes: { version: 1 }, relationships: { vehicle: { data: { id: 'v', type: 'car' } } }, ...over },
    });
    const cases: [unknown, string][] = [
      [doc({ attributes: { version: '1' } }), '/data/attributes/version'],
      [doc({ attributes: { version: 0 } }), '/data/attributes/version'],
      [doc({ relationships: {} }), 'vehicle'],
      [doc({ relationships: { vehicle: { data: null } } }), '/data/relationships/vehicle/data'],
      [doc({ id: 'someone-else' }), 'data.id must be the user id of the path'],
      [doc({ relationships: { vehicle: { data: { id: 'v', type: 'car' } }, tariffs: { data: Array.from({ length: 201 }, (_, i) => ({ id: `t${i}`, type: 'tariff' })) } } }), '/data/relationships/tariffs/data'],
      [{ data: { attributes: { data: { version: 1 } } } }, 'vehicle'],
    ];
    for (const [body, message] of cases) {
      const r = await call(app, 'PUT', p, { key: KEY, headers: bearer(a.access), body });
      expect(r.status, message).toBe(400);
      expect(r.json.errors[0].message, message).toContain(message);
    }
    expect((await call(app, 'GET', p, { key: KEY, headers: bearer(a.access) })).status).toBe(404); // nothing written
  });
});

describe('guessing limits (D207, D209, D212)', () => {
  it('10 failed logins from one client refuse its 11th, even with the right password; the owner from another client logs in (D247)', async () => {
    const email = 'limited@example.org';
    await signupConfirmLogin(email, 'limited passphrase');
    const stranger = { 'X-Forwarded-For': '198.51.100.77' };
    for (let i = 0; i < 10; i++) {
      const r = await call(app, 'POST', '/v1/authenticate', { key: KEY, body: loginBody(email, `wrong ${i} passphrase`), headers: stranger });
      expect(r.status).toBe(401);
    }
    const hashes = await metric('cps_password_hashes_total');
    const r = await call(app, 'POST', '/v1/authenticate', { key: KEY, body: loginBody(email, 'limited passphrase'), headers: stranger });
    expect(r.status).toBe(429);
    expect(r.json.errors[0]).toMatchObject({ status: 429, message: 'too many attempts, retry later' });
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await metric('cps_password_hashes_total')).toBe(hashes); // refused before hashing
    // The stranger did not lock the owner out (OWASP ASVS 2.2.1).
    const owner = await call(app, 'POST', '/v1/authenticate', { key: KEY, body: loginBody(email, 'limited passphrase'), headers: { 'X-Forwarded-For': '198.51.100.78' } });
    expect(owner.status).toBe(200);
  });

  it('100 failed logins of an address from any clients within an hour refuse the 101st from anywhere (D247)', async () => {
    const email = 'spread@example.org';
    await signupConfirmLogin(email, 'spread passphrase');
    for (let c = 0; c < 10; c++) {
      const wrong = await Promise.all(Array.from({ length: 10 }, (_, i) => call(app, 'POST', '/v1/authenticate', { key: KEY, body: loginBody(email, `wrong ${i} passphrase`), headers: { 'X-Forwarded-For': `198.51.104.${c}` } })));
      expect(wrong.map((r) => r.status)).toEqual(Array(10).fill(401));
    }
    const r = await call(app, 'POST', '/v1/authenticate', { key: KEY, body: loginBody(email, 'spread passphrase'), headers: { 'X-Forwarded-For': '198.51.104.200' } });
    expect(r.status).toBe(429);
  });

  it('parallel wrong guesses cannot pass the limit together: of 20 at once from one client, 10 are hashed and 10 refused', async () => {
    const email = 'parallel@example.org';
    await signupConfirmLogin(email, 'parallel passphrase');
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => call(app, 'POST', '/v1/authenticate', { key: KEY, body: loginBody(email, `guess ${i} passphrase`), headers: { 'X-Forwarded-For': '198.51.101.1' } })),
    );
    expect(answers.map((r) => r.status).sort()).toEqual([...Array(10).fill(401), ...Array(10).fill(429)]);
  });

  it('right passwords take their count back: a user who logs in often is never limited', async () => {
    const email = 'often@example.org';
    await signupConfirmLogin(email, 'often passphrase');
    for (let i = 0; i < 15; i++) {
      expect((await call(app, 'POST', '/v1/authenticate', { key: KEY, body: loginBody(email, 'often passphrase'), headers: { 'X-Forwarded-For': `198.51.102.${i}` } })).status).toBe(200);
    }
  });

  it('100 authentication requests from one client address refuse the 101st; another address goes on', async () => {
    const headers = { 'X-Forwarded-For': '10.0.0.1, 192.0.2.77' };
    for (let i = 0; i < 100; i++) {
      const r = await call(app, 'POST', '/v1/authenticate', { key: KEY, body: refreshBody(`unknown-${i}`), headers });
      expect(r.status).toBe(401);
    }
    expect((await call(app, 'POST', '/v1/authenticate', { key: KEY, body: refreshBody('unknown'), headers })).status).toBe(429);
    // The client address is the last entry (the proxy's view), not one the client wrote before it.
    expect((await call(app, 'POST', '/v1/authenticate', { key: KEY, body: refreshBody('unknown'), headers: { 'X-Forwarded-For': '192.0.2.77' } })).status).toBe(429);
    expect((await call(app, 'POST', '/v1/authenticate', { key: KEY, body: refreshBody('unknown'), headers: { 'X-Forwarded-For': '192.0.2.78' } })).status).toBe(401);
  });

  it('3 reset mails per address and hour; further requests answer 204 and send nothing', async () => {
    const email = 'resets@example.org';
    await signupConfirmLogin(email, 'resets passphrase');
    const body = { data: { type: 'trigger_reset_password', attributes: { email } } };
    for (let i = 0; i < 5; i++) expect((await call(app, 'POST', '/v1/trigger_reset_password', { key: KEY, body, headers: { 'X-Forwarded-For': '192.0.2.90' } })).status).toBe(204);
    await nthMail(app.dataDir, email, 4);
    await new Promise((res) => setTimeout(res, 150));
    expect(await mailLinks(app.dataDir, email)).toHaveLength(4); // the confirmation and 3 resets
  });
});

describe('products (D212)', () => {
  it('codes from the CLI are used once; unknown and used codes have their codes; settings list the products', async () => {
    const { execFileSync } = await import('node:child_process');
    const env = await cliEnv(app.dataDir);
    const cli = path.join(import.meta.dirname, '../../dist/src/cli/products.js');
    const codes = execFileSync(process.execPath, [cli, 'create', '--products', 'web_pro,mobile_premium', '--count', '2'], { env, encoding: 'utf8' }).trim().split('\n');
    expect(codes).toHaveLength(2);
    const a = await signupConfirmLogin('products@example.org', 'products passphrase');
    const b = await signupConfirmLogin('products-b@example.org', 'products passphrase');
    const p = `/v1/users/${a.sub}/products`;
    const activate = (code: string, type = 'code', who = a) =>
      call(app, 'POST', `/v1/users/${who.sub}/products`, { key: KEY, headers: bearer(who.access), body: { data: { type: 'user_products', attributes: { source: { type, code } } } } });
    const ok = await activate(codes[0]);
    expect([ok.status, ok.json]).toEqual([201, { data: { type: 'user_products', attributes: { products: ['mobile_premium', 'web_pro'] } } }]);
    const used = await activate(codes[0], 'code', b);
    expect([used.status, used.json.errors[0].code, used.json.errors[0].status]).toEqual([409, 'PRODUCT_SOURCE_ALREADY_USED', 409]);
    const unknown = await activate('no-such-code');
    expect([unknown.status, unknown.json.errors[0].code]).toEqual([404, 'PRODUCT_SOURCE_NOT_FOUND']);
    expect((await activate(codes[1], 'voucher')).status).toBe(404); // the type is part of the source
    const missing = await call(app, 'POST', p, { key: KEY, headers: bearer(a.access), body: { data: { type: 'user_products', attributes: {} } } });
    expect([missing.status, missing.json.errors[0].message]).toEqual([400, expect.stringContaining('source')]);
    await call(app, 'PUT', `/v1/users/${a.sub}/settings`, {
      key: KEY, headers: bearer(a.access), body: { data: { type: 'user_settings', id: a.sub, attributes: { version: 1 }, relationships: { vehicle: { data: { id: 'v', type: 'car' } } } } },
    });
    const s = await call(app, 'GET', `/v1/users/${a.sub}/settings`, { key: KEY, headers: bearer(a.access) });
    expect(s.json.meta.products).toEqual(['mobile_premium', 'web_pro']);
    // Guessing: 10 activations per user and hour (4 used above, counting the refused ones).
    for (let i = 0; i < 6; i++) expect((await activate(`guess-${i}`)).status).toBe(404);
    expect((await activate('guess-x')).status).toBe(429);
    const list = execFileSync(process.execPath, [cli, 'list'], { env, encoding: 'utf8' });
    expect(list.split('\n').filter((l) => l.startsWith('code\tmobile_premium,web_pro'))).toHaveLength(2);
    expect(list).not.toContain(codes[1]);
  });
});

describe('expiring tokens in the store (D204, D209)', () => {
  it('mail tokens expire after their time, refresh tokens after REFRESH_TOKEN_TTL_D', async () => {
    const { openLiveStore } = await import('../../src/storage/open.js');
    const { AccountStore } = await import('../../src/storage/accounts.js');
    const { freshDataDir } = await import('../helpers/server.js');
    const live = await openLiveStore({ dataDir: freshDataDir(), databaseUrl: await (await import('../helpers/server.js')).databaseUrlOf('accounts-expiry') });
    try {
      const store = new AccountStore(live);
      const t0 = 1_700_000_000_000;
      const user = { id: 'u1', email: 'e@example.org', username: 'e', language: 'en', password_hash: 'scrypt$1024$8$1$a$b' };
      await store.createUser(user, 'confirm-hash', { confirm: t0 + 1000, reset: t0 + 500 }, t0);
      expect(await store.confirm('confirm-hash', t0 + 1000)).toBe(false); // expired at its time
      expect(await store.confirm('confirm-hash', t0 + 999)).toBe(true);
      await store.addMailToken('u1', 'reset', 'reset-hash', t0 + 500);
      expect(await store.resetPassword('reset-hash', 'scrypt$new', t0 + 600)).toBe(false);
      await store.startFamily('u1', 'r1', 'fam', t0 + 1000, t0);
      const grace = 10_000;
      expect(await store.rotate('r1', 'r2', t0 + 5000, grace, t0 + 1000)).toEqual({ ok: false, reason: 'expired' });
      expect(await store.rotate('r1', 'r2', t0 + 5000, grace, t0 + 999)).toMatchObject({ ok: true, grace: false });
      expect(await store.rotate('r1', 'r3', t0 + 5000, grace, t0 + 1001)).toEqual({ ok: false, reason: 'expired' }); // expired before its grace ends
      // D241: a used token again within the grace period gets a sibling of its successor; past it, the family is revoked.
      const day = 86_400_000;
      await store.startFamily('u1', 'g1', 'fam-g', t0 + day, t0);
      expect(await store.rotate('g1', 'g2', t0 + day, grace, t0 + 100)).toMatchObject({ ok: true, grace: false });
      expect(await store.rotate('g1', 'g2b', t0 + day, grace, t0 + 100 + grace)).toMatchObject({ ok: true, grace: true });
      expect(await store.rotate('g1', 'g3', t0 + day, grace, t0 + 101 + grace)).toEqual({ ok: false, reason: 'reused' });
      for (const t of ['g2', 'g2b']) expect(await store.rotate(t, `${t}-next`, t0 + day, grace, t0 + 102 + grace)).toEqual({ ok: false, reason: 'reused' }); // revoked
      // Without a grace period (0) the first reuse revokes.
      await store.startFamily('u1', 'h1', 'fam-h', t0 + day, t0);
      expect((await store.rotate('h1', 'h2', t0 + day, 0, t0 + 100)).ok).toBe(true);
      expect(await store.rotate('h1', 'h3', t0 + day, 0, t0 + 101)).toEqual({ ok: false, reason: 'reused' });
    } finally {
      await live.close();
    }
  });
});

describe('export (D214)', () => {
  it('npm run export -- user-settings lists every user’s settings without address or name', async () => {
    const a = await signupConfirmLogin('export@example.org', 'export passphrase');
    const body = { data: { type: 'user_settings', id: a.sub, attributes: { version: 3 }, relationships: { vehicle: { data: { id: 'car-x', type: 'car' } }, tariffs: { data: [{ id: 'tx', type: 'tariff' }] } } } };
    expect((await call(app, 'PUT', `/v1/users/${a.sub}/settings`, { key: KEY, headers: bearer(a.access), body })).status).toBe(200);
    const { execFileSync } = await import('node:child_process');
    const cli = path.join(import.meta.dirname, '../../dist/src/cli/export.js');
    const out = execFileSync(process.execPath, [cli, 'user-settings'], { env: await cliEnv(app.dataDir), encoding: 'utf8' });
    const rows = out.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(rows.find((r) => r.user_id === a.sub)).toMatchObject({ version: 3, vehicle_id: 'car-x', tariff_ids: ['tx'], products: [] });
    expect(out).not.toContain('export@example.org');
    expect(execFileSync(process.execPath, [cli, 'user-settings', '--since', '2999-01-01'], { env: await cliEnv(app.dataDir), encoding: 'utf8' })).toBe('');
  });
});

describe('npm run outbox (D208)', () => {
  it('prints the newest mails to an address decoded, with their links', async () => {
    await call(app, 'POST', '/v1/users', { key: KEY, body: signupBody('outbox@example.org', 'outbox passphrase') });
    const mail = await nthMail(app.dataDir, 'outbox@example.org', 1);
    const { execFileSync } = await import('node:child_process');
    const cli = path.join(import.meta.dirname, '../../dist/src/cli/outbox.js');
    const out = execFileSync(process.execPath, [cli, '--to', 'OUTBOX@example.org', '--last', '1'], { env: { PATH: process.env.PATH ?? '', DATA_DIR: app.dataDir }, encoding: 'utf8' });
    expect(out).toMatch(/^\S+Z {2}outbox@example\.org {2}Confirm your email address\n {2}https:\/\/prices\.example\.org\/account\/confirm\?token=[\w-]{43}\n$/);
    expect(out).toContain(mail.link);
  });
});
