import crypto from 'node:crypto';
import { SignJWT, compactVerify, importPKCS8, importSPKI, type CryptoKey, type KeyObject } from 'jose';
import type { Config } from '../config.js';
import type { LiveStore } from '../storage/live.js';
import { AccountStore } from '../storage/accounts.js';
import { getSetting, setSetting } from '../storage/settings.js';

const SECRET_SETTING = 'jwt_hs256_secret';

/** Verified tokens remembered at most (then forgotten all at once; about 3 MB). */
const VERIFIED_MAX = 10_000;

/** D177: how far a token's `iat` may lie ahead of this clock (issuer clocks differ a little). */
export const CLOCK_SKEW_S = 60;

/** The HS256 secret: configured, else generated and stored in the live store on first use. */
export async function hs256Secret(config: Pick<Config, 'jwtSecret'>, store: LiveStore): Promise<Uint8Array> {
  const s =
    config.jwtSecret ??
    (await store.tx(async (sql) => {
      const v = await getSetting(sql, SECRET_SETTING);
      if (v !== null) return v;
      const created = crypto.randomBytes(32).toString('base64url');
      await setSetting(sql, SECRET_SETTING, created);
      return created;
    }));
  return new TextEncoder().encode(s);
}

/** `gen`: the user's token generation when this service issued the token (D244), else undefined (a shared-key issuer, D4). */
export type TokenResult = { ok: true; sub: string; gen: number | undefined } | { ok: false; code: 'FORBIDDEN' | 'TOKEN_EXPIRED'; title: string };

type Checked = { ok: true; sub: string; exp: number; gen: number | undefined };

const INVALID = { ok: false, code: 'FORBIDDEN', title: 'token invalid' } as const;

/** D244: `aud` absent, the audience, or a list holding it. */
const audienceFits = (aud: unknown, audience: string): boolean =>
  aud === undefined || aud === audience || (Array.isArray(aud) && aud.includes(audience));

/**
 * Verifies bearer tokens per D4 and D103: the signature and algorithm first (a token is never
 * trusted on decoding alone), then the claims — `sub` required, `exp` required and at most
 * `maxLifetimeS` after both `iat` and now, `iat` at most CLOCK_SKEW_S ahead, `nbf` if present — and only then
 * whether `exp` has passed, so an expired token without `sub` is `token invalid`.
 */
export class TokenVerifier {
  private constructor(
    private readonly key: Uint8Array | CryptoKey | KeyObject,
    private readonly alg: string,
    private readonly maxLifetimeS: number,
    private readonly audience: string,
    /** The user's current token generation (undefined: no such user), read from the live store (D244). */
    private readonly generation: (sub: string) => Promise<number | undefined>,
  ) {}

  static async create(config: Config, store: LiveStore): Promise<TokenVerifier> {
    const accounts = new AccountStore(store);
    const generation = (sub: string) => accounts.tokenGeneration(sub);
    const key = config.jwtAlgorithm === 'HS256' ? await hs256Secret(config, store) : await importSPKI(config.jwtPublicKey ?? '', config.jwtAlgorithm);
    return new TokenVerifier(key, config.jwtAlgorithm, config.tokenMaxLifetimeS, config.jwtAudience, generation);
  }

  /**
   * Tokens verified before, with their subject and `exp`: a client sends the same access token with
   * every request for its lifetime, and the signature check is most of a settings read's work
   * (HS256 about 70 µs). Only tokens that passed every check enter; time can only expire them.
   */
  private readonly verified = new Map<string, Checked>();

  async verify(token: string, nowS = Math.floor(Date.now() / 1000)): Promise<TokenResult> {
    let r: Checked | Exclude<TokenResult, { ok: true }> | undefined = this.verified.get(token);
    if (r === undefined) {
      r = await this.check(token, nowS);
      if (r.ok) {
        if (this.verified.size >= VERIFIED_MAX) this.verified.clear();
        this.verified.set(token, r);
      }
    }
    if (!r.ok) return r;
    if (r.exp <= nowS) return { ok: false, code: 'TOKEN_EXPIRED', title: 'token expired' };
    // D244: a token of this service ends with its user's generation (a password reset, a deletion).
    if (r.gen !== undefined && (await this.generation(r.sub)) !== r.gen) return INVALID;
    return { ok: true, sub: r.sub, gen: r.gen };
  }

  private async check(token: string, nowS: number): Promise<Exclude<TokenResult, { ok: true }> | Checked> {
    const invalid = INVALID;
    let payload: Record<string, unknown>;
    try {
      const v = await compactVerify(token, this.key, { algorithms: [this.alg] });
      const p: unknown = JSON.parse(new TextDecoder().decode(v.payload));
      if (p === null || typeof p !== 'object' || Array.isArray(p)) return invalid;
      payload = p as Record<string, unknown>;
    } catch {
      return invalid;
    }
    const { sub, exp, iat, nbf, aud, gen } = payload;
    if (typeof sub !== 'string' || sub.length === 0) return invalid;
    if (!audienceFits(aud, this.audience)) return invalid;
    if (gen !== undefined && !(typeof gen === 'number' && Number.isSafeInteger(gen) && gen >= 0)) return invalid;
    if (typeof exp !== 'number' || !Number.isFinite(exp)) return invalid;
    if (iat !== undefined && (typeof iat !== 'number' || !Number.isFinite(iat) || iat > nowS + CLOCK_SKEW_S)) return invalid;
    if (nbf !== undefined && (typeof nbf !== 'number' || nbf > nowS)) return invalid;
    // D103/D177: the lifetime counts from `iat` and from now, so a future `iat` cannot stretch it.
    if (exp - nowS > this.maxLifetimeS || (typeof iat === 'number' && exp - iat > this.maxLifetimeS)) return invalid;
    if (exp <= nowS) return { ok: false, code: 'TOKEN_EXPIRED', title: 'token expired' };
    return { ok: true, sub, exp, gen };
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

/** The claims of an access token beyond `sub`, `aud`, `iat` and `exp` (D203, D244). */
export interface AccessClaims {
  email: string;
  username: string;
  /** The user's token generation (D244). */
  gen: number;
}

/** The signing key cannot sign tokens the verifier accepts (D203): the start stops (exit 2). */
export class SigningKeyError extends Error {}

/**
 * Signs access tokens (D203) with the service's algorithm: HS256 with the secret the verifier
 * uses, RS256/ES256 with JWT_PRIVATE_KEY. `create` answers null when no signing key exists
 * (RS256/ES256 without a private key: accounts are not served), and checks the key by signing
 * a probe token the verifier must accept.
 */
export class TokenIssuer {
  private constructor(
    private readonly key: Uint8Array | CryptoKey | KeyObject,
    private readonly alg: string,
    readonly ttlS: number,
    private readonly audience: string,
  ) {}

  static async create(config: Config, store: LiveStore, verifier: TokenVerifier): Promise<TokenIssuer | null> {
    const { jwtPrivateKey, accessTokenTtlS } = config.accounts;
    let issuer: TokenIssuer;
    if (config.jwtAlgorithm === 'HS256') issuer = new TokenIssuer(await hs256Secret(config, store), 'HS256', accessTokenTtlS, config.jwtAudience);
    else if (jwtPrivateKey === null) return null;
    else {
      let key: CryptoKey | KeyObject;
      try {
        key = await importPKCS8(jwtPrivateKey, config.jwtAlgorithm);
      } catch (e) {
        throw new SigningKeyError(`JWT_PRIVATE_KEY is not a PKCS#8 PEM ${config.jwtAlgorithm} private key: ${(e as Error).message}`);
      }
      issuer = new TokenIssuer(key, config.jwtAlgorithm, accessTokenTtlS, config.jwtAudience);
    }
    // The probe carries no generation (no user has it): the signature and the claims are what is checked.
    const probe = await verifier.verify(await issuer.sign('probe', { email: '', username: '', gen: undefined }));
    if (!probe.ok) throw new SigningKeyError('JWT_PRIVATE_KEY does not match JWT_PUBLIC_KEY: a token it signs is refused');
    return issuer;
  }

  sign(sub: string, claims: Omit<AccessClaims, 'gen'> & { gen: number | undefined }, nowS = Math.floor(Date.now() / 1000)): Promise<string> {
    return new SignJWT({ email: claims.email, username: claims.username, gen: claims.gen })
      .setProtectedHeader({ alg: this.alg, typ: 'JWT' })
      .setSubject(sub)
      .setAudience(this.audience)
      .setIssuedAt(nowS)
      .setExpirationTime(nowS + this.ttlS)
      .sign(this.key);
  }
}

/** The token of an `Authorization: Bearer <token>` header; '' when there is no header; null when malformed. */
export function bearerToken(header: string): string | null | '' {
  const h = header.trim();
  if (h.length === 0) return '';
  const m = /^bearer\s+(\S+)$/i.exec(h);
  return m ? m[1] : null;
}
