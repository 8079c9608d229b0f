/**
 * The read-your-writes bookkeeping of a replica (src/api/live-sync.ts, D151) against a scripted
 * shared store: the counter query is shared only by requests that arrived before it started,
 * own writes apply directly or catch up, and nothing older ever replaces something newer.
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { LiveSync } from '../../src/api/live-sync.js';
import type { KeyRegistry } from '../../src/auth/keys.js';
import { CompanyRegistry } from '../../src/domain/companies/registry.js';
import { TariffCatalog } from '../../src/domain/tariffs/catalog.js';
import type { StoredTariff } from '../../src/domain/tariffs/model.js';
import type { LiveStore, Sql, StoreVersions } from '../../src/storage/live.js';

const tariff = (id: string, name: string): StoredTariff => ({ id, type: 'tariff', name, emp_id: 'emp', cpo_id: null, super_tariff_ids: [] }) as unknown as StoredTariff;

/** A shared store whose counter queries the test answers one by one, with a scripted change log. */
class ScriptedStore {
  readonly shared = true;
  readonly queries: Array<(v: StoreVersions) => void> = [];
  readonly changes: Array<{ generation: number; kind: 'tariff'; id: string; op: 'upsert' | 'delete'; at: number }> = [];
  readonly rows = new Map<string, StoredTariff>();
  /** The store's catalog generation: the newest change's, or higher (a generation without a change). */
  generation = 0;
  reads = 0;

  versions(): Promise<StoreVersions> {
    return new Promise((resolve) => this.queries.push(resolve));
  }

  read<T>(fn: (s: Sql) => Promise<T>): Promise<T> {
    this.reads++;
    const sql: Sql = {
      all: async <R>(text: string, params: readonly unknown[] = []) => {
        if (text.startsWith('SELECT * FROM catalog_changes')) return this.changes.filter((c) => c.generation > (params[0] as number)) as R[];
        throw new Error(`unexpected ${text}`);
      },
      get: async <R>(text: string, params: readonly unknown[] = []) => {
        if (text.startsWith('SELECT value FROM catalog_generation')) {
          return { value: Math.max(this.generation, ...this.changes.map((c) => c.generation)) } as R;
        }
        if (text.startsWith('SELECT id, type, version, created_at, data FROM tariffs')) {
          const t = this.rows.get(params[0] as string);
          return (t === undefined ? undefined : { id: t.id, type: t.type, version: 1, created_at: 0, data: JSON.stringify(t) }) as R;
        }
        throw new Error(`unexpected ${text}`);
      },
      run: () => Promise.reject(new Error('read only')),
    };
    return fn(sql);
  }

  listen(): void {}
}

function setup(generation: number) {
  const store = new ScriptedStore();
  const tariffs = new TariffCatalog([], [], generation);
  const keys = { version: 0, reload: async () => {} } as unknown as KeyRegistry;
  const sync = new LiveSync(store as unknown as LiveStore, new CompanyRegistry([]), tariffs, keys, pino({ level: 'silent' }));
  return { store, tariffs, sync };
}

const settled = async (p: Promise<unknown>): Promise<boolean> => {
  let done = false;
  void p.then(() => (done = true));
  for (let k = 0; k < 10; k++) await Promise.resolve();
  return done;
};

describe('the read-your-writes check (D151)', () => {
  it('is free when nothing else writes the store', () => {
    const { sync, store } = setup(0);
    (store as { shared: boolean }).shared = false;
    expect(sync.fresh()).toBeNull();
    expect(store.queries.length).toBe(0);
  });

  it('shares one counter query among requests that arrived before it started, and only those', async () => {
    const { sync, store } = setup(3);
    const first = sync.fresh()!;
    const second = sync.fresh()!;
    const third = sync.fresh()!;
    expect(store.queries.length).toBe(1);
    store.queries[0]({ catalog: 3, keys: 0 });
    expect(await settled(first)).toBe(true);
    // The two later requests arrived while the first query ran: they wait for the next one.
    expect(await settled(second)).toBe(false);
    expect(store.queries.length).toBe(2);
    const fourth = sync.fresh()!;
    expect(store.queries.length).toBe(2);
    store.queries[1]({ catalog: 3, keys: 0 });
    expect(await settled(second)).toBe(true);
    expect(await settled(third)).toBe(true);
    expect(await settled(fourth)).toBe(false);
    store.queries[2]({ catalog: 3, keys: 0 });
    expect(await settled(fourth)).toBe(true);
    expect(sync.checks).toBe(3);
    expect(store.reads).toBe(0);
  });

  it('catches up before answering when another replica wrote', async () => {
    const { sync, store, tariffs } = setup(3);
    store.changes.push({ generation: 4, kind: 'tariff', id: 't1', op: 'upsert', at: 0 });
    store.rows.set('t1', tariff('t1', 'from replica A'));
    const f = sync.fresh()!;
    store.queries[0]({ catalog: 4, keys: 0 });
    await f;
    expect(tariffs.generation).toBe(4);
    expect((tariffs.all()[0] as unknown as { name: string }).name).toBe('from replica A');
  });

  it('moves to a generation taken without a logged change, and does not read again for it', async () => {
    const { sync, store, tariffs } = setup(3);
    store.generation = 4; // e.g. a seed that found everything there already
    const f = sync.fresh()!;
    store.queries[0]({ catalog: 4, keys: 0 });
    await f;
    expect(tariffs.generation).toBe(4);
    expect(store.reads).toBe(1);
    const g = sync.fresh()!;
    store.queries[1]({ catalog: 4, keys: 0 });
    await g;
    expect(store.reads).toBe(1);
    expect(sync.catchUps).toBe(0);
  });
});

describe('own writes after their commit', () => {
  it('apply directly when next, catch up over a gap, and skip what a catch-up applied', async () => {
    const { sync, store, tariffs } = setup(4);
    // Replica A wrote generation 5; this replica's own write took 6 and finishes first.
    store.changes.push({ generation: 5, kind: 'tariff', id: 'a', op: 'upsert', at: 0 }, { generation: 6, kind: 'tariff', id: 'b', op: 'upsert', at: 0 });
    store.rows.set('a', tariff('a', 'A v1'));
    store.rows.set('b', tariff('b', 'B v1'));
    const applied: number[] = [];
    await sync.afterWrite(6, () => applied.push(6));
    expect(applied).toEqual([]);
    expect(tariffs.generation).toBe(6);
    expect(tariffs.all().map((t) => t.id).sort()).toEqual(['a', 'b']);
    // A late continuation of generation 5 must not apply an older state.
    await sync.afterWrite(5, () => applied.push(5));
    expect(applied).toEqual([]);
    await sync.afterWrite(7, () => {
      applied.push(7);
      tariffs.upsert(tariff('a', 'A v2'), 7);
    });
    expect(applied).toEqual([7]);
    expect(store.reads).toBe(1);
    expect((tariffs.all().find((t) => t.id === 'a') as unknown as { name: string }).name).toBe('A v2');
  });
});
