/**
 * Password hashing (D202, D246): scrypt from node:crypto at OWASP's N = 2^15, r = 8, p = 3 by
 * default, stored as `scrypt$N$r$p$salt$key` (base64url) so that parameters can change; compared
 * in constant time. Hashes run on threads of their own (`HashThreads`, one hash at a time each),
 * never on libuv's pool, which verifies tokens and compresses answers; WAITING_PER_THREAD per
 * thread wait, beyond that `PasswordsBusyError` (the route answers 503).
 *
 * Measured (2-core reference machine, one hash, median of 7): N=2^14 r=8 p=5 148 ms,
 * N=2^15 r=8 p=3 294 ms, N=2^16 r=8 p=2 472 ms, N=2^17 r=8 p=1 738 ms.
 */
import crypto from 'node:crypto';
import { Worker } from 'node:worker_threads';
import { DEFAULT_SCRYPT, type ScryptParams } from '../config.js';

export { DEFAULT_SCRYPT };

const KEY_LEN = 32;
const SALT_LEN = 16;
/** Hashes that may wait per thread: about 5 s of work at the default cost (D246). */
const WAITING_PER_THREAD = 16;

export class PasswordsBusyError extends Error {}

/** A hashing thread's script: one scrypt at a time, synchronously, off the libuv pool (D246). */
const THREAD_JS = `
const { parentPort } = require('node:worker_threads');
const crypto = require('node:crypto');
parentPort.on('message', (m) => {
  try {
    const key = crypto.scryptSync(m.password, Buffer.from(m.salt), m.keyLen, { N: m.N, r: m.r, p: m.p, maxmem: m.maxmem });
    parentPort.postMessage({ key });
  } catch (e) {
    parentPort.postMessage({ error: String(e && e.message) });
  }
});
`;

interface Job {
  password: string;
  salt: Buffer;
  params: ScryptParams;
  resolve: (key: Buffer) => void;
  reject: (e: Error) => void;
}

/**
 * `size` threads that each derive one key at a time (D246); jobs wait in order, at most
 * WAITING_PER_THREAD per thread. A thread that dies fails its job and is replaced.
 */
export class HashThreads {
  private readonly idle: Worker[] = [];
  private readonly busy = new Map<Worker, Job>();
  private readonly waiting: Job[] = [];
  private closed = false;

  /** Threads start with the first hashes (a service that never hashes starts none). */
  constructor(readonly size: number) {}

  derive(password: string, salt: Buffer, params: ScryptParams): Promise<Buffer> {
    if (this.closed) return Promise.reject(new Error('password hashing stopped'));
    return new Promise<Buffer>((resolve, reject) => {
      const job = { password, salt, params, resolve, reject };
      const w = this.idle.pop() ?? (this.busy.size < this.size ? this.spawn() : undefined);
      if (w !== undefined) this.start(w, job);
      else if (this.waiting.length >= WAITING_PER_THREAD * this.size) reject(new PasswordsBusyError('password hashing saturated'));
      else this.waiting.push(job);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const j of this.waiting.splice(0)) j.reject(new Error('password hashing stopped'));
    await Promise.all([...this.idle.splice(0), ...this.busy.keys()].map((w) => w.terminate()));
  }

  private spawn(): Worker {
    const w = new Worker(THREAD_JS, { eval: true });
    w.unref();
    w.on('message', (m: { key?: Uint8Array; error?: string }) => {
      const job = this.busy.get(w);
      this.busy.delete(w);
      if (m.key !== undefined) job?.resolve(Buffer.from(m.key));
      else job?.reject(new Error(m.error ?? 'scrypt failed'));
      this.next(w);
    });
    w.on('error', () => undefined);
    w.on('exit', () => {
      const job = this.busy.get(w);
      this.busy.delete(w);
      job?.reject(new Error('a password hashing thread stopped'));
      const i = this.idle.indexOf(w);
      if (i >= 0) this.idle.splice(i, 1);
      if (!this.closed) this.next(this.spawn());
    });
    return w;
  }

  private next(w: Worker): void {
    const job = this.waiting.shift();
    if (job !== undefined) this.start(w, job);
    else this.idle.push(w);
  }

  private start(w: Worker, job: Job): void {
    this.busy.set(w, job);
    const { N, r, p } = job.params;
    w.postMessage({ password: job.password, salt: job.salt, keyLen: KEY_LEN, N, r, p, maxmem: 256 * N * r + 1_048_576 });
  }
}

const b64 = (b: Buffer): string => b.toString('base64url');

export class Passwords {
  /** Hashes computed so far (metrics: password_hashes_total). */
  derived = 0;

  private readonly dummy: string;
  private readonly threads: HashThreads;

  constructor(
    readonly params: Readonly<ScryptParams> = DEFAULT_SCRYPT,
    threads = 1,
  ) {
    this.threads = new HashThreads(threads);
    const { N, r, p } = params;
    this.dummy = `scrypt$${N}$${r}$${p}$${b64(crypto.randomBytes(SALT_LEN))}$${b64(crypto.randomBytes(KEY_LEN))}`;
  }

  async hash(password: string): Promise<string> {
    const salt = crypto.randomBytes(SALT_LEN);
    const { N, r, p } = this.params;
    const key = await this.derive(password, salt, this.params);
    return `scrypt$${N}$${r}$${p}$${b64(salt)}$${b64(key)}`;
  }

  /** True when `password` matches `stored`; a malformed stored hash matches nothing. */
  async verify(password: string, stored: string): Promise<boolean> {
    const parts = stored.split('$');
    if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
    const params = { N: Number(parts[1]), r: Number(parts[2]), p: Number(parts[3]) };
    const salt = Buffer.from(parts[4], 'base64url');
    const expected = Buffer.from(parts[5], 'base64url');
    const key = await this.derive(password, salt, params);
    return key.length === expected.length && crypto.timingSafeEqual(key, expected);
  }

  /**
   * Verifies against a stored form of the current parameters whose key is random (unknown
   * addresses, D207): the same derivation as a real verify, and nothing to compute or keep ahead.
   */
  async verifyDummy(password: string): Promise<false> {
    await this.verify(password, this.dummy);
    return false;
  }

  /** The stored hash was made with other parameters than the current ones. */
  outdated(stored: string): boolean {
    const { N, r, p } = this.params;
    return !stored.startsWith(`scrypt$${N}$${r}$${p}$`);
  }

  private derive(password: string, salt: Buffer, params: ScryptParams): Promise<Buffer> {
    return this.threads.derive(password.normalize('NFC'), salt, params).then((key) => {
      this.derived++;
      return key;
    });
  }

  close(): Promise<void> {
    return this.threads.close();
  }
}

/**
 * The most common passwords of 8 characters and more (from the public breach lists' top 100),
 * refused at signup and reset (D202).
 */
const COMMON = new Set([
  '12345678', '123456789', '1234567890', 'password', 'password1', 'password123', 'qwertyuiop', '11111111', '00000000',
  '87654321', '12341234', 'iloveyou', 'sunshine', 'princess', 'football', 'baseball', 'welcome1', 'abcd1234',
  'qwerty123', '1q2w3e4r', '1qaz2wsx', 'zaq12wsx', 'superman', 'starwars', 'trustno1', 'passw0rd', 'letmein1',
  'master123', 'asdfghjkl', 'qwertyui', '123123123', '1q2w3e4r5t', '11223344', 'aa123456', 'chargeprice', 'password!',
]);

export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 128;

/** D205: trimmed, NFC, lower case; null when it is not an address. */
export function normaliseEmail(raw: string): string | null {
  const e = raw.trim().normalize('NFC').toLowerCase();
  // No space, comma, angle bracket, quote or other separator of an address list: one mailbox only.
  if (e.length > 254 || !/^[^\s@,;:<>()[\]\\"]+@[^\s@,;:<>()[\]\\"]+\.[^\s@,;:<>()[\]\\".]+$/.test(e)) return null;
  return e;
}

/** Why the password is refused (D202), or null. `email` is the normalised address of the account. */
export function passwordProblem(password: string, email: string): string | null {
  const length = [...password.normalize('NFC')].length;
  if (length < PASSWORD_MIN) return `password must have at least ${PASSWORD_MIN} characters`;
  if (length > PASSWORD_MAX) return `password must have at most ${PASSWORD_MAX} characters`;
  const lower = password.toLowerCase();
  if (COMMON.has(lower)) return 'password is too common';
  if (lower === email || lower === email.slice(0, email.indexOf('@'))) return 'password must not be the email address';
  return null;
}
