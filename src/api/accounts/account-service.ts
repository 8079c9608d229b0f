/**
 * The account flows (D202–D213) behind the routes: signup, login, refresh, reset and
 * confirmation, with their guessing limits. Secrets leave here only to their owner: tokens in
 * answers and mails, never in logs; the store sees their SHA-256 only.
 */
import crypto from 'node:crypto';
import { randomUUID } from 'node:crypto';
import { hashKey } from '../../auth/keys.js';
import { normaliseEmail, passwordProblem, PasswordsBusyError } from '../../auth/passwords.js';
import { AccountStore, type UserRow } from '../../storage/accounts.js';
import type { AccountDeps, AppContext } from '../context.js';
import { ApiError, badRequest } from '../jsonapi/errors.js';
import type { ApiRequest } from '../types.js';
import type { Mail } from '../../mail/mailer.js';
import { clientAddressOf } from '../client-address.js';
import { confirmMail, resetMail, signupAttemptMail } from './mails.js';

const CONFIRM_TTL_MS = 24 * 3_600_000;
const RESET_TTL_MS = 3_600_000;

export const newSecret = (): string => crypto.randomBytes(32).toString('base64url');

/** The client address (D207): the socket's peer, or behind a trusted proxy the last `X-Forwarded-For` entry. */
export const clientAddress = (req: ApiRequest, trustProxy: boolean): string => clientAddressOf(req.remote, req.headers.forwardedFor, trustProxy);

export const tooMany = (wait: number): ApiError =>
  new ApiError('TOO_MANY_REQUESTS', 'too many attempts, retry later', { headers: { 'Retry-After': String(wait) } });

/** Refuses when `wait` (a limiter's answer) is above 0. */
export function limit(wait: number): void {
  if (wait > 0) throw tooMany(wait);
}

const wrongPair = (): ApiError => new ApiError('UNAUTHORIZED', 'wrong email or password');

export interface TokenPair {
  access_token: string;
  refresh_token: string;
}

export class AccountService {
  readonly store: AccountStore;

  constructor(
    private readonly ctx: AppContext,
    readonly deps: AccountDeps,
  ) {
    this.store = new AccountStore(ctx.live);
  }

  client(req: ApiRequest): string {
    return clientAddress(req, this.ctx.config.trustProxy);
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
    limit(await l.authPerClient.take(this.client(req)));
    const email = normaliseEmail(a.email) ?? '';
    // Counted before the hash, so parallel guesses cannot all pass the check; a right password takes it back.
    const at = Date.now();
    limit(await l.loginFailures.take(email, at));
    const user = email === '' ? undefined : await this.store.userByEmail(email);
    const ok = await this.hashing(() => (user === undefined ? this.deps.passwords.verifyDummy(a.password) : this.deps.passwords.verify(a.password, user.password_hash)));
    if (!ok || user === undefined) throw wrongPair();
    await l.loginFailures.release(email, at);
    if (user.confirmed_at === null) throw new ApiError('BAD_REQUEST', 'email_unconfirmed');
    if (this.deps.passwords.outdated(user.password_hash)) await this.store.rehash(user.id, await this.hashing(() => this.deps.passwords.hash(a.password)));
    const refresh = newSecret();
    await this.store.startFamily(user.id, hashKey(refresh), randomUUID(), this.refreshExpiry());
    return { access_token: await this.access(user), refresh_token: refresh };
  }

  /** D204: rotation; a used token revokes its family; every refusal is the same 401. */
  async refresh(req: ApiRequest, token: string): Promise<TokenPair> {
    limit(await this.deps.limits.authPerClient.take(this.client(req)));
    const next = newSecret();
    const r = await this.store.rotate(hashKey(token), hashKey(next), this.refreshExpiry());
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

  private access(user: UserRow): Promise<string> {
    return this.deps.issuer.sign(user.id, { email: user.email, username: user.username });
  }

  private refreshExpiry(): number {
    return Date.now() + this.ctx.config.accounts.refreshTokenTtlD * 86_400_000;
  }

  /** Password hashing, 503 while saturated (D202). */
  private async hashing<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (e) {
      if (e instanceof PasswordsBusyError) throw new ApiError('SERVICE_UNAVAILABLE', 'overloaded, retry later', { headers: { 'Retry-After': '1' } });
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
