import crypto from 'node:crypto';
import { SignJWT, errors as joseErrors, importSPKI, jwtVerify, type CryptoKey, type KeyObject } from 'jose';
import type { Config } from '../config.js';
import type { LiveStore } from '../storage/live.js';

const SECRET_SETTING = 'jwt_hs256_secret';

/** The HS256 secret: configured, else generated and stored in the live store on first use. */
export function hs256Secret(config: Pick<Config, 'jwtSecret'>, store: LiveStore): Uint8Array {
  const s = config.jwtSecret ?? store.getOrCreateSetting(SECRET_SETTING, () => crypto.randomBytes(32).toString('base64url'));
  return new TextEncoder().encode(s);
}

export type TokenResult = { ok: true; sub: string } | { ok: false; code: 'FORBIDDEN' | 'TOKEN_EXPIRED'; title: string };

/** Verifies bearer tokens per D4: signature and algorithm always checked, then `sub`, then `exp`. */
export class TokenVerifier {
  private constructor(
    private readonly key: Uint8Array | CryptoKey | KeyObject,
    private readonly alg: string,
  ) {}

  static async create(config: Config, store: LiveStore): Promise<TokenVerifier> {
    if (config.jwtAlgorithm === 'HS256') return new TokenVerifier(hs256Secret(config, store), 'HS256');
    const key = await importSPKI(config.jwtPublicKey ?? '', config.jwtAlgorithm);
    return new TokenVerifier(key, config.jwtAlgorithm);
  }

  async verify(token: string): Promise<TokenResult> {
    try {
      const { payload } = await jwtVerify(token, this.key, { algorithms: [this.alg] });
      if (typeof payload.sub !== 'string' || payload.sub.length === 0) {
        return { ok: false, code: 'FORBIDDEN', title: 'token invalid' };
      }
      return { ok: true, sub: payload.sub };
    } catch (e) {
      if (e instanceof joseErrors.JWTExpired) return { ok: false, code: 'TOKEN_EXPIRED', title: 'token expired' };
      return { ok: false, code: 'FORBIDDEN', title: 'token invalid' };
    }
  }
}

/** Issues an HS256 token for `sub` that expires after `ttlSeconds` (negative = already expired). */
export async function issueToken(secret: Uint8Array, sub: string, ttlSeconds: number): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({})
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(sub)
    .setIssuedAt(now)
    .setExpirationTime(now + ttlSeconds)
    .sign(secret);
}
