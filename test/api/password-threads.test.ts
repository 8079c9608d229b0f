// D246: password hashes run on threads of their own, never on libuv's pool; at most 16 per thread wait.
import crypto from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { Passwords, PasswordsBusyError } from '../../src/auth/passwords.js';

const cheap = { N: 4096, r: 8, p: 1 };
const made: Passwords[] = [];
const passwords = (threads = 1) => {
  const p = new Passwords(cheap, threads);
  made.push(p);
  return p;
};
afterAll(async () => {
  await Promise.all(made.map((p) => p.close()));
});

describe('password hashing threads (D246)', () => {
  it('a hash finishes while libuv’s whole pool is busy with work started before it', async () => {
    const p = passwords();
    const order: string[] = [];
    // Fill every libuv thread (4 by default) with scrypts 16× as costly as the password's.
    const pool = Array.from({ length: Number(process.env.UV_THREADPOOL_SIZE ?? 4) }, () =>
      new Promise<void>((r, j) => crypto.scrypt('x', 'salt', 32, { N: 65536, r: 8, p: 1, maxmem: 128 * 1024 * 1024 }, (e) => (e ? j(e) : r()))).then(() => order.push('pool')),
    );
    const hashed = p.hash('a long passphrase').then((h) => {
      order.push('password');
      return h;
    });
    await Promise.all(pool);
    expect(order[0]).toBe('password');
    expect(await p.verify('a long passphrase', await hashed)).toBe(true);
  });

  it('verifies in constant form and refuses beyond 16 waiting per thread', async () => {
    const p = passwords();
    const h = await p.hash('right passphrase');
    expect([await p.verify('right passphrase', h), await p.verify('wrong passphrase', h)]).toEqual([true, false]);
    const jobs = Array.from({ length: 18 }, () => p.hash('another passphrase').then(() => 'ok', (e: unknown) => (e instanceof PasswordsBusyError ? 'busy' : String(e))));
    const outcome = await Promise.all(jobs);
    expect(outcome.filter((o) => o === 'busy')).toHaveLength(1); // 1 running, 16 waiting, 1 refused
    expect(outcome.filter((o) => o === 'ok')).toHaveLength(17);
  });

  it('a thread that dies fails its hash and is replaced', async () => {
    const p = passwords();
    const threads = (p as unknown as { threads: { busy: Map<{ terminate(): Promise<number> }, unknown> } }).threads;
    const running = p.hash('doomed passphrase');
    await new Promise((r) => setImmediate(r));
    const [w] = [...threads.busy.keys()];
    await w.terminate();
    await expect(running).rejects.toThrow(/stopped/);
    expect(await p.verify('after passphrase', await p.hash('after passphrase'))).toBe(true);
  });
});
