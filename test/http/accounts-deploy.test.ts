/**
 * How accounts are deployed (D200, D203, D208): RS256 and ES256 access tokens signed with
 * JWT_PRIVATE_KEY, a private key that does not match the public key, RS256 without a private key,
 * ACCOUNTS=off, the auth routes under AUTH_PATH_PREFIX, mail through a real SMTP server on loopback
 * (smtp-server), and expiring mail and refresh tokens in the store.
 */
import { exportPKCS8, exportSPKI, generateKeyPair, jwtVerify, importSPKI, decodeProtectedHeader } from 'jose';
import { SMTPServer } from 'smtp-server';
import { simpleParser } from 'mailparser';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { call, keyFor, startTestApp } from '../helpers/server.js';
import { nthMail } from '../helpers/mail.js';

const KEY = keyFor('accounts');
const keys = { accounts: 'UserAccounts' };
const SCRYPT = '1024,8,1';
const signup = (email: string) => ({ data: { type: 'user', attributes: { email, password: 'deploy passphrase', username: 'ops' } } });
const login = (email: string) => ({ data: { type: 'email_authentication', attributes: { email, password: 'deploy passphrase' } } });

async function pems(alg: 'RS256' | 'ES256'): Promise<{ pub: string; priv: string }> {
  const { publicKey, privateKey } = await generateKeyPair(alg, { extractable: true });
  return { pub: await exportSPKI(publicKey), priv: await exportPKCS8(privateKey) };
}

/** An SMTP server on loopback that keeps every message it receives. */
async function smtpSink(): Promise<{ url: string; messages: Buffer[]; close: () => Promise<void> }> {
  const messages: Buffer[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        messages.push(Buffer.concat(chunks));
        cb();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return { url: `smtp://127.0.0.1:${port}`, messages, close: () => new Promise((r) => server.close(() => r())) };
}

describe('signing keys (D203)', () => {
  for (const alg of ['RS256', 'ES256'] as const) {
    it(`${alg}: access tokens are signed with JWT_PRIVATE_KEY and verify with JWT_PUBLIC_KEY; the device endpoint takes them`, async () => {
      const { pub, priv } = await pems(alg);
      const smtp = await smtpSink();
      const app = await startTestApp({ keys: { ...keys, devices: 'WriteCrmDevices' }, env: { JWT_ALGORITHM: alg, JWT_PUBLIC_KEY: pub, JWT_PRIVATE_KEY: priv, PASSWORD_SCRYPT: SCRYPT, SMTP_URL: smtp.url, MAIL_FROM: 'accounts@example.org' } });
      try {
        const email = `${alg.toLowerCase()}@example.org`;
        expect((await call(app, 'POST', '/v1/users', { key: KEY, body: signup(email) })).status).toBe(204);
        for (let i = 0; i < 200 && smtp.messages.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
        const mail = await simpleParser(smtp.messages[0]);
        expect(mail.from?.text).toBe('accounts@example.org');
        const link = /(http\S+)/.exec(mail.text ?? '')![1];
        const u = new URL(link);
        expect((await call(app, 'GET', u.pathname + u.search)).status).toBe(200);
        const r = await call(app, 'POST', '/v1/authenticate', { key: KEY, body: login(email) });
        expect(r.status).toBe(200);
        const access = r.json.data.attributes.access_token as string;
        expect(decodeProtectedHeader(access).alg).toBe(alg);
        const { payload } = await jwtVerify(access, await importSPKI(pub, alg), { algorithms: [alg] });
        expect(payload.email).toBe(email);
        const device = {
          data: { id: '0b7c8a4e-5a6f-4d2b-9c1e-3f2a1b0c9d8e', type: 'crm_device', attributes: { fcmToken: 't', country: 'DE', language: 'de', app_version: '1', os_version: '1', user_products: [], disabled_notifications: [] } },
        };
        expect((await call(app, 'POST', '/v1/crm/devices', { key: keyFor('devices'), headers: { Authorization: `Bearer ${access}` }, body: device })).status).toBe(200);
      } finally {
        await app.stop();
        await smtp.close();
      }
    });
  }

  it('a private key that does not match the public key stops the start', async () => {
    const a = await pems('RS256');
    const b = await pems('RS256');
    await expect(startTestApp({ env: { JWT_ALGORITHM: 'RS256', JWT_PUBLIC_KEY: a.pub, JWT_PRIVATE_KEY: b.priv } })).rejects.toThrow(/does not match JWT_PUBLIC_KEY/);
    await expect(startTestApp({ env: { JWT_ALGORITHM: 'RS256', JWT_PUBLIC_KEY: a.pub, JWT_PRIVATE_KEY: 'not a key' } })).rejects.toThrow(/not a PKCS#8 PEM/);
  });

  it('RS256 without a private key, and ACCOUNTS=off, serve no account route', async () => {
    const { pub } = await pems('RS256');
    const envs: Record<string, string>[] = [{ JWT_ALGORITHM: 'RS256', JWT_PUBLIC_KEY: pub }, { ACCOUNTS: 'off' }];
    for (const env of envs) {
      const app = await startTestApp({ keys, env });
      try {
        expect((await call(app, 'POST', '/v1/authenticate', { key: KEY, body: login('x@example.org') })).status).toBe(404);
        expect((await call(app, 'GET', '/openapi.json')).json.paths['/v1/authenticate']).toBeUndefined();
        if ('JWT_PUBLIC_KEY' in env) expect(app.stdout()).toContain('accounts not served: JWT_PRIVATE_KEY is not set');
      } finally {
        await app.stop();
      }
    }
  });
});

describe('AUTH_PATH_PREFIX (D200)', () => {
  it('serves the authentication routes and mail pages under the prefix, the user routes where they are', async () => {
    const app = await startTestApp({ keys, env: { AUTH_PATH_PREFIX: '/auth', PASSWORD_SCRYPT: SCRYPT, PUBLIC_URL: 'https://auth.example.org/' } });
    try {
      expect((await call(app, 'POST', '/v1/users', { key: KEY, body: signup('prefix@example.org') })).status).toBe(404);
      expect((await call(app, 'POST', '/v1/authenticate', { key: KEY, body: login('prefix@example.org') })).status).toBe(404);
      expect((await call(app, 'POST', '/auth/v1/users', { key: KEY, body: signup('prefix@example.org') })).status).toBe(204);
      const mail = await nthMail(app.dataDir, 'prefix@example.org', 1);
      expect(mail.link.startsWith('https://auth.example.org/auth/account/confirm?token=')).toBe(true);
      const u = new URL(mail.link);
      expect((await call(app, 'GET', u.pathname + u.search)).status).toBe(200);
      const r = await call(app, 'POST', '/auth/v1/authenticate', { key: KEY, body: login('prefix@example.org') });
      expect(r.status).toBe(200);
      const doc = (await call(app, 'GET', '/openapi.json')).json;
      expect(Object.keys(doc.paths).filter((p) => p.includes('authenticate'))).toEqual(['/auth/v1/authenticate']);
    } finally {
      await app.stop();
    }
  });
});

describe.skipIf(process.env.TEST_DATABASE_URL === undefined)('replicas on one PostgreSQL store (D214, npm run test:pg)', () => {
  it('the guessing limits hold for the replicas together: 10 failed logins across two replicas refuse the 11th on both (D219)', async () => {
    const a = await startTestApp({ keys, env: { PASSWORD_SCRYPT: SCRYPT, JWT_SECRET: 'replica-secret-0123456789abcdef01' } });
    const b = await startTestApp({ dataDir: a.dataDir, env: { PASSWORD_SCRYPT: SCRYPT, JWT_SECRET: 'replica-secret-0123456789abcdef01' } });
    try {
      const email = 'guessed@example.org';
      const wrong = { data: { type: 'email_authentication', attributes: { email, password: 'not the passphrase' } } };
      // Of 20 wrong guesses at once, spread over both replicas, exactly 10 are answered 401.
      const r = await Promise.all(Array.from({ length: 20 }, (_, i) => call(i % 2 === 0 ? a : b, 'POST', '/v1/authenticate', { key: KEY, body: wrong })));
      expect(r.map((x) => x.status).sort()).toEqual([...Array(10).fill(401), ...Array(10).fill(429)]);
      for (const srv of [a, b]) expect((await call(srv, 'POST', '/v1/authenticate', { key: KEY, body: wrong })).status).toBe(429);
    } finally {
      await b.stop();
      await a.stop();
    }
  });

  it('a signup, a settings write and a refresh on one replica are read by the next request on another', async () => {
    // No grace period (D241): a second presentation of a used refresh token is reuse at once.
    const env = { PASSWORD_SCRYPT: SCRYPT, JWT_SECRET: 'replica-secret-0123456789abcdef01', REFRESH_GRACE_S: '0' };
    const a = await startTestApp({ keys, env });
    const b = await startTestApp({ dataDir: a.dataDir, env });
    try {
      const email = 'replica@example.org';
      expect((await call(a, 'POST', '/v1/users', { key: KEY, body: signup(email) })).status).toBe(204);
      const link = new URL((await nthMail(a.dataDir, email, 1)).link);
      expect((await call(b, 'GET', link.pathname + link.search)).status).toBe(200);
      const session = await call(b, 'POST', '/v1/authenticate', { key: KEY, body: login(email) });
      expect(session.status).toBe(200);
      const { access_token, refresh_token } = session.json.data.attributes;
      const sub = (JSON.parse(Buffer.from(access_token.split('.')[1], 'base64url').toString()) as { sub: string }).sub;
      const body = { data: { type: 'user_settings', id: sub, attributes: { version: 1 }, relationships: { vehicle: { data: { id: 'car-r', type: 'car' } } } } };
      const auth = { Authorization: `Bearer ${access_token}` };
      expect((await call(a, 'PUT', `/v1/users/${sub}/settings`, { key: KEY, headers: auth, body })).status).toBe(200);
      const read = await call(b, 'GET', `/v1/users/${sub}/settings`, { key: KEY, headers: auth });
      expect([read.status, read.json.data.relationships.vehicle.data.id]).toEqual([200, 'car-r']);
      const refresh = { data: { type: 'refresh_token_authentication', attributes: { refresh_token } } };
      expect((await call(a, 'POST', '/v1/authenticate', { key: KEY, body: refresh })).status).toBe(200);
      expect((await call(b, 'POST', '/v1/authenticate', { key: KEY, body: refresh })).status).toBe(401); // reuse seen by the other replica
    } finally {
      await b.stop();
      await a.stop();
    }
  });
});
