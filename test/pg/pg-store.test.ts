/**
 * The PostgreSQL live store itself (D150–D152), on the throw-away cluster of `npm run test:pg`
 * (TEST_DATABASE_URL; `npm test` leaves test/pg out). The HTTP behaviour on it is the whole HTTP suite
 * under `npm run test:pg`; this file covers what only the store can show.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { StorageUnavailableError, type StoreChange } from '../../src/storage/live.js';
import { PgStore } from '../../src/storage/pg-store.js';
import { catalogGeneration, nextGeneration } from '../../src/storage/tariffs.js';

const ADMIN = process.env.TEST_DATABASE_URL;
if (ADMIN === undefined) throw new Error('test/pg needs TEST_DATABASE_URL: run it with `npm run test:pg`');

const fresh = async (): Promise<string> => PgStore.createDatabase(ADMIN, `cps_store_${randomUUID().slice(0, 8)}`);

describe('PostgreSQL live store', () => {
  it('serializes writers: of two transactions reading then writing one counter, the second sees the first', async () => {
    const store = await PgStore.open(await fresh());
    try {
      const before = await store.read(catalogGeneration);
      // Each reads the generation, waits, then takes the next one: without the write lock both
      // would read the same value and the second would not see the first's.
      const seen = await Promise.all(
        [0, 1].map(() =>
          store.tx(async (s) => {
            const read = await catalogGeneration(s);
            await new Promise((r) => setTimeout(r, 100));
            const next = await nextGeneration(s);
            return { read, next };
          }),
        ),
      );
      seen.sort((a, b) => a.read - b.read);
      expect(seen).toEqual([
        { read: before, next: before + 1 },
        { read: before + 1, next: before + 2 },
      ]);
    } finally {
      await store.close();
    }
  });

  it('keeps the guessing limits’ attempts in a logged table, which a crash does not empty (D248)', async () => {
    const store = await PgStore.open(await fresh());
    try {
      const r = await store.read((s) => s.get<{ relpersistence: string }>("SELECT relpersistence FROM pg_class WHERE relname = 'attempts'"));
      expect(r?.relpersistence).toBe('p');
    } finally {
      await store.close();
    }
  });

  it('rolls back everything a failed transaction wrote', async () => {
    const store = await PgStore.open(await fresh());
    try {
      const before = await store.read(catalogGeneration);
      await expect(
        store.tx(async (s) => {
          await nextGeneration(s);
          throw new Error('refused');
        }),
      ).rejects.toThrow('refused');
      expect(await store.read(catalogGeneration)).toBe(before);
    } finally {
      await store.close();
    }
  });

  it('announces catalog and key generations to listeners, whoever commits them', async () => {
    const url = await fresh();
    const listener = await PgStore.open(url);
    const writer = await PgStore.open(url, { migrate: false });
    try {
      const heard: StoreChange[] = [];
      listener.listen((c) => heard.push(c));
      // After connecting, every kind is reported once (the catch-up after a connect).
      await expect.poll(() => heard.length, { timeout: 3000 }).toBe(2);
      heard.length = 0;
      await writer.tx(nextGeneration);
      await writer.tx((s) => s.run('UPDATE key_generation SET value = value + 1 WHERE one = 1'));
      await expect.poll(() => [...heard], { timeout: 3000 }).toEqual(['catalog', 'keys']);
      // A rolled-back write announces nothing.
      await writer.tx(async (s) => {
        await nextGeneration(s);
        throw new Error('no');
      }).catch(() => {});
      await new Promise((r) => setTimeout(r, 200));
      expect(heard).toEqual(['catalog', 'keys']);
    } finally {
      await writer.close();
      await listener.close();
    }
  });

  it('fails a statement that takes too long as a storage fault, and keeps working after it', async () => {
    const store = await PgStore.open(await fresh(), { queryTimeoutMs: 300 });
    try {
      const t0 = performance.now();
      const e = await store.read((s) => s.get('SELECT pg_sleep(2) AS slept')).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(StorageUnavailableError);
      expect(performance.now() - t0).toBeLessThan(1500);
      expect(store.failingWrites()).toBe(1);
      expect(await store.read(catalogGeneration)).toBeGreaterThanOrEqual(0);
    } finally {
      await store.close();
    }
  });

  it('survives its connection being terminated between the statements of a transaction: a storage fault, no crash (D174)', async () => {
    const url = await fresh();
    const store = await PgStore.open(url);
    const killer = await PgStore.open(url, { migrate: false, poolMax: 1 });
    try {
      const failed = store.tx(async (s) => {
        await catalogGeneration(s);
        // The server ends this connection while the transaction holds it, between two statements.
        await killer.read((k) => k.all('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND datname = current_database()'));
        await new Promise((r) => setTimeout(r, 200));
        return nextGeneration(s);
      });
      await expect(failed).rejects.toBeInstanceOf(StorageUnavailableError);
      // The broken connection was dropped: the next transaction works.
      expect(await store.tx(nextGeneration)).toBeGreaterThan(0);
    } finally {
      await killer.close();
      await store.close();
    }
  });

  it('answers a database the service never ran on with “no live store” when opened read-only', async () => {
    await expect(PgStore.open(await fresh(), { migrate: false })).rejects.toThrow(/no live store in postgres:\/\/.*: start the service once/);
  });

  it('fails fast with a storage fault when the server cannot be reached', async () => {
    const t0 = performance.now();
    const e = await PgStore.open('postgres://cps@127.0.0.1:1/cps').catch((x: unknown) => x);
    expect(e).toBeInstanceOf(StorageUnavailableError);
    expect(performance.now() - t0).toBeLessThan(3000);
  });
});

describe('the listening connection (D151, D216)', () => {
  it('is one per store, however many follow the channel and however fast they ask', async () => {
    const url = await fresh();
    const store = await PgStore.open(url);
    const probe = await PgStore.open(url, { migrate: false });
    try {
      const sql = "SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN %'";
      const listening = async () => Number((await probe.read((q) => q.get<{ n: string }>(sql)))!.n);
      let resets = 0;
      // The catalog's follower and the statuses' ask in the same tick, before any connection is open.
      store.listen(() => {});
      store.sharedStatuses.subscribe(() => {}, () => resets++);
      for (let i = 0; i < 100 && (await listening()) < 1; i++) await new Promise((r) => setTimeout(r, 20));
      await new Promise((r) => setTimeout(r, 300));
      expect(await listening()).toBe(1);
      expect(resets).toBe(1);
    } finally {
      await probe.close();
      await store.close();
    }
  });
});
