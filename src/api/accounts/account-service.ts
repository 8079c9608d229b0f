/**
 * The account flows (D202–D213) behind the routes: signup, login, refresh, reset and
 * confirmation, with their guessing limits. Secrets leave here only to their owner: tokens in
 * answers and mails, never in logs; the store sees their SHA-256 only.
 */
import crypto from 'node:crypto';
import { randomUUID } from 'node:crypto';
import type { BlockList } from 'node:net';
import { clientAddress, clientKey, trustedProxies } from '../../auth/client-address.js';
import { hashKey } from '../../auth/keys.js';
import { normaliseEmail, passwordProblem, PasswordsBusyError } from '../../auth/passwords.js';
import { AccountStore, type UserRow } from '../../storage/accounts.js';
import type { AccountDeps, AppContext } from '../context.js';
import { ApiError, HeldRefusal, badRequest } from '../jsonapi/errors.js';
import type { ApiRequest } from '../types.js';
import type { Mail } from '../../mail/mailer.js';
import { confirmMail, resetMail, signupAttemptMail } from './mails.js';

const CONFIRM_TTL_MS = 24 * 3_600_000;
const RESET_TTL_MS = 3_600_000;

export const newSecret = (): string => crypto.randomBytes(32).toString('base64url');

export const tooMany = (wait: number): ApiError =>
  new ApiError('TOO_MANY_REQUESTS', 'too many attempts, retry later', { headers: { 'Retry-After': String(wait) } });

/** Refuses when `wait` (a limiter's answer) is above 0. */
export function limit(wait: number): void {
  if (wait > 0) throw tooMany(wait);
}

const wrongPair = (): ApiError => new ApiError('UNAUTHORIZED', 'wrong email or password');

/** D243: the web client shows its own translated sentence for a 401 whose message is `email_unconfirmed`. */
const unconfirmed = (): ApiError =>
  new ApiError('UNAUTHORIZED', 'email_unconfirmed', {
    detail: 'Your email address is not confirmed yet. Open the link in the mail sent when you signed up (check your spam folder), or choose "Forgot password?": setting a new password also confirms your address.',
  });

export interface TokenPair {
  access_token: string;
  refresh_token: string;
}

export class AccountService {
  readonly store: AccountStore;
  private readonly proxies: BlockList | null;

  constructor(
    private readonly ctx: AppContext,
    readonly deps: AccountDeps,
  ) {
    this.store = new AccountStore(ctx.live);
    this.proxies = ctx.config.trustProxy === null ? null : trustedProxies(ctx.config.trustProxy);
  }

  /** The client's key for per-client limits (D245): its address behind trusted proxies, an IPv6 one by its /64. */
  client(req: ApiRequest): string {
    return clientKey(clientAddress(req.remote, req.headers.forwardedFor, this.proxies));
  }

  /** D206: 204 for a new and a taken address alike, after the same hashing; mails after the answer. */
  async signup(req: ApiRequest, a: { email: string; password: string; username: string; language?: string }): Promise<void> {
    const email = normaliseEmail(a.email);
    if (email === null) throw badRequest('email is not a valid address', { pointer: '/data/attributes/email' });
    const problem = passwordProblem(a.password, email);
    if (problem !== null) throw badRequest(problem, { pointer: '/data/attributes/password' });
    const username = a.username.trim().normalize('NFC');
    if (username.length === 0) throw badRequest('username must not be blank', { pointer: '/data/attributes/username' });
    limit(await this.deps.limits.authPerClient.take(this.client(req)));
    const hash = await this.hashing(() => this.deps.passwords.hash(a.password));
    const token = newSecret();
    const user = { id: randomUUID(), email, username, language: (a.language ?? 'en').toLowerCase(), password_hash: hash };
    const now = Date.now();
    const r = await this.store.createUser(user, hashKey(token), { confirm: now + CONFIRM_TTL_MS, reset: now + RESET_TTL_MS });
    // A taken address is told at most as often as reset mails are sent to it (no mail bombing through signups).
    if (!r.created && (await this.deps.limits.resetMails.take(email)) > 0) return;
    this.later(() => this.deps.mailer.send(r.created ? confirmMail(r.user, this.link('confirm', token)) : this.signupAttemptMail(r.user, token)));
  }

  /** D207: the password against the stored hash or a dummy one; 401 alike; then a new token family. */
  async login(req: ApiRequest, a: { email: string; password: string }): Promise<TokenPair> {
    const l = this.deps.limits;
    const client = this.client(req);
    limit(await l.authPerClient.take(client));
    const email = normaliseEmail(a.email) ?? '';
    // Counted before the hash, so parallel guesses cannot all pass the check; a right password takes
    // them back. Per address and client first, so one client cannot lock the owner out (D247).
    const at = Date.now();
    const pair = `${email}\n${client}`;
    limit(await l.loginFailures.take(pair, at));
    limit(await l.loginFailuresPerAddress.take(email, at));
    const user = email === '' ? undefined : await this.store.userByEmail(email);
    const ok = await this.hashing(() => (user === undefined ? this.deps.passwords.verifyDummy(a.password) : this.deps.passwords.verify(a.password, user.password_hash)));
    if (!ok || user === undefined) throw wrongPair();
    await l.loginFailures.release(pair, at);
    await l.loginFailuresPerAddress.release(email, at);
    if (user.confirmed_at === null) throw unconfirmed();
    if (this.deps.passwords.outdated(user.password_hash)) await this.store.rehash(user.id, await this.hashing(() => this.deps.passwords.hash(a.password)));
    const refresh = newSecret();
    await this.store.startFamily(user.id, hashKey(refresh), randomUUID(), this.refreshExpiry());
    return { access_token: await this.access(user), refresh_token: refresh };
  }

  /** D204: rotation; a used token revokes its family; every refusal is the same 401. */
  async refresh(req: ApiRequest, token: string): Promise<TokenPair> {
    limit(await this.deps.limits.authPerClient.take(this.client(req)));
    const next = newSecret();
    const r = await this.store.rotate(hashKey(token), hashKey(next), this.refreshExpiry(), this.ctx.config.accounts.refreshGraceS * 1000);
    if (r.ok && r.grace) this.ctx.logger.info({ reqId: req.requestId }, 'refresh token presented again within the grace period: a fresh pair of its family');
    if (!r.ok) {
      if (r.reason === 'reused') this.ctx.logger.warn({ reqId: req.requestId }, 'reused refresh token: its family is revoked');
      throw new ApiError('UNAUTHORIZED', 'refresh token invalid');
    }
    return { access_token: await this.access(r.user), refresh_token: next };
  }

  /** D209: 204 always; the look-up and the mail happen after the answer. */
  async triggerReset(req: ApiRequest, rawEmail: string): Promise<void> {
    const email = normaliseEmail(rawEmail);
    if (email === null) throw badRequest('email is not a valid address', { pointer: '/data/attributes/email' });
    limit(await this.deps.limits.authPerClient.take(this.client(req)));
    if ((await this.deps.limits.resetMails.take(email)) > 0) return;
    this.later(async () => {
      const user = await this.store.userByEmail(email);
      if (user !== undefined) await this.mailReset(user);
    });
  }

  /** D209: sets the password of the reset token's user; false when the token is not usable. */
  async reset(token: string, password: string): Promise<boolean> {
    const email = (await this.store.resetTokenEmail(hashKey(token))) ?? '';
    const problem = passwordProblem(password, email);
    if (problem !== null) throw badRequest(problem, { pointer: '/data/attributes/password' });
    const hash = await this.hashing(() => this.deps.passwords.hash(password));
    return this.store.resetPassword(hashKey(token), hash);
  }

  confirm(token: string): Promise<boolean> {
    return this.store.confirm(hashKey(token));
  }

  /** Whether a reset token can still be used (D243: the form only then). */
  resetUsable(token: string): Promise<boolean> {
    return this.store.resetTokenUsable(hashKey(token));
  }

  private sourceKeyOnce: Promise<Buffer> | undefined;

  /** The membership sources' HMAC key (D239), read once from the live store. */
  sourceKey(): Promise<Buffer> {
    this.sourceKeyOnce ??= this.store.productSourceKey().catch((e: unknown) => {
      this.sourceKeyOnce = undefined;
      throw e;
    });
    return this.sourceKeyOnce;
  }

  private access(user: UserRow): Promise<string> {
    return this.deps.issuer.sign(user.id, { email: user.email, username: user.username, gen: user.token_gen });
  }

  private refreshExpiry(): number {
    return Date.now() + this.ctx.config.accounts.refreshTokenTtlD * 86_400_000;
  }

  /** Password hashing, 503 while saturated (D202). */
  private async hashing<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (e) {
      // D246: held like D106's refusals, so a flood that ignores Retry-After is slowed to its connections' pace.
      if (e instanceof PasswordsBusyError) throw new HeldRefusal('password hashing saturated');
      throw e;
    }
  }

  /** Runs `fn` after the answer (mails, D208); a failure is logged without secrets. */
  private later(fn: () => Promise<void>): void {
    setImmediate(() => {
      fn().catch((e: unknown) => this.ctx.logger.warn({ err: { message: (e as Error).message } }, 'account mail not sent'));
    });
  }

  private link(page: 'confirm' | 'reset', token: string): string {
    const a = this.ctx.config.accounts;
    return `${a.publicUrl}${a.pathPrefix}/account/${page}?token=${token}`;
  }

  private async mailReset(user: UserRow): Promise<void> {
    const token = newSecret();
    await this.store.addMailToken(user.id, 'reset', hashKey(token), Date.now() + RESET_TTL_MS);
    await this.deps.mailer.send(resetMail(user, this.link('reset', token)));
  }

  /** D206: a signup with a taken address tells its owner, with the reset link stored with the attempt. */
  private signupAttemptMail(user: UserRow, token: string): Mail {
    return signupAttemptMail(user, user.confirmed_at !== null, this.link('reset', token));
  }
}
