/** The bearer-token verifier's memory of verified tokens (D4, D103, D203): only what passed every check, expired by time. */
import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { TokenVerifier } from '../../src/auth/token.js';
import type { Config } from '../../src/config.js';

const SECRET = 'verifier-test-secret-0123456789abcdef';
const config = { jwtAlgorithm: 'HS256', jwtSecret: SECRET, jwtPublicKey: null, tokenMaxLifetimeS: 86_400 } as unknown as Config;
const sign = (sub: string, iat: number, exp: number, secret = SECRET) =>
  new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject(sub).setIssuedAt(iat).setExpirationTime(exp).sign(new TextEncoder().encode(secret));

describe('TokenVerifier', () => {
  it('a verified token expires at its exp, also when remembered', async () => {
    const v = await TokenVerifier.create(config, null as never);
    const now = 1_800_000_000;
    const t = await sign('u1', now, now + 60);
    expect(await v.verify(t, now)).toEqual({ ok: true, sub: 'u1' });
    expect(await v.verify(t, now + 59)).toEqual({ ok: true, sub: 'u1' });
    expect(await v.verify(t, now + 60)).toEqual({ ok: false, code: 'TOKEN_EXPIRED', title: 'token expired' });
  });

  it('a refused token is refused again (never remembered), and a forged one never passes', async () => {
    const v = await TokenVerifier.create(config, null as never);
    const now = 1_800_000_000;
    const forged = await sign('u1', now, now + 60, 'another-secret-0123456789abcdef012');
    expect((await v.verify(forged, now)).ok).toBe(false);
    expect((await v.verify(forged, now)).ok).toBe(false);
    const future = await sign('u2', now + 3600, now + 3660); // iat an hour ahead
    expect(await v.verify(future, now)).toEqual({ ok: false, code: 'FORBIDDEN', title: 'token invalid' });
    expect((await v.verify(future, now + 3600)).ok).toBe(true);
  });
});
