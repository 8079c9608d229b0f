import crypto from 'node:crypto';
import type { LiveStore, Sql } from '../storage/live.js';
import { activeKeyCount, activeKeys, hasKeyHash, hasKeyName, insertKey, keyGeneration } from '../storage/keys.js';
import { GROUPS, maskOf, type Group } from './groups.js';

/** Keys are stored only as SHA-256 hashes (hex). */
export function hashKey(key: string): string {
  return crypto.createHash('sha256').update(key, 'utf8').digest('hex');
}

export function generateKey(): string {
  return 'cps_' + crypto.randomBytes(24).toString('base64url');
}

export interface CreatedKey {
  name: string;
  key: string;
  groups: Group[];
}

export class KeyError extends Error {}

/** Creates a key (random unless given) and stores its hash with its groups. */
export function createKey(store: LiveStore, opts: { groups: Group[]; key?: string; name?: string }): Promise<CreatedKey> {
  return store.tx((s) => insertNewKey(s, opts));
}

async function insertNewKey(s: Sql, opts: { groups: Group[]; key?: string; name?: string }): Promise<CreatedKey> {
  const key = opts.key ?? generateKey();
  if (key.length < 8) throw new KeyError('a key needs at least 8 characters');
  const hash = hashKey(key);
  const name = opts.name ?? `key-${hash.slice(0, 8)}`;
  if (await hasKeyName(s, name)) throw new KeyError(`a key named "${name}" exists already`);
  if (await hasKeyHash(s, hash)) throw new KeyError('this key exists already');
  await insertKey(s, name, hash, opts.groups);
  return { name, key, groups: opts.groups };
}

/**
 * When the store has no active key, creates one development key with all groups. `deliver` shows
 * or writes it inside the transaction, before the commit (D104): a key that cannot be delivered is
 * rolled back, never left active and unknown.
 */
export function ensureDevelopmentKey(store: LiveStore, deliver: (key: CreatedKey) => void): Promise<CreatedKey | null> {
  return store.tx(async (s) => {
    if ((await activeKeyCount(s)) > 0) return null;
    const key = await insertNewKey(s, { groups: [...GROUPS], name: 'development' });
    deliver(key);
    return key;
  });
}

const KEY_CACHE_LIMIT = 10_000;

interface KeyEntry {
  mask: number;
  name: string;
}

/**
 * The in-memory view of the active keys: hash → group mask. Reloaded when the key generation
 * moved (every key creation and revocation bumps it, whoever made it: the keys CLI, another
 * replica): looked at every `refreshMs`, and at once on a shared store's notification, so a
 * revocation takes effect within one refresh interval (D151). A key unknown here is rechecked
 * against the store before it is refused when the store is shared (`recheck`).
 */
export class KeyRegistry {
  private byHash = new Map<string, KeyEntry>();
  /** Presented key → its entry (or null), so a key is hashed once per reload, not per request; bounded. */
  private byKey = new Map<string, KeyEntry | null>();
  private gen = -1;
  private timer: NodeJS.Timeout | null = null;
  private loading: Promise<void> | null = null;
  /** Read-your-writes for an unknown key (a shared store, D151): set by the service. */
  fence: (() => Promise<void> | null) | null = null;

  private constructor(private readonly store: LiveStore) {}

  static async create(store: LiveStore): Promise<KeyRegistry> {
    const r = new KeyRegistry(store);
    await r.reload();
    return r;
  }

  /** The key generation of the loaded view. */
  get version(): number {
    return this.gen;
  }

  /** Loads the active keys (concurrent calls share one load). */
  reload(): Promise<void> {
    return (this.loading ??= this.store
      .read(async (s) => ({ rows: await activeKeys(s), gen: await keyGeneration(s) }))
      .then(({ rows, gen }) => {
        const next = new Map<string, KeyEntry>();
        for (const row of rows) next.set(row.key_hash, { mask: maskOf(row.groups.split(',')), name: row.name });
        this.byHash = next;
        this.byKey = new Map();
        this.gen = gen;
      })
      .finally(() => {
        this.loading = null;
      }));
  }

  /** Reloads when the key generation moved since the last load. */
  async refresh(): Promise<void> {
    const v = await this.store.versions();
    if (v.keys !== this.gen) await this.reload();
  }

  start(refreshMs: number): void {
    this.timer = setInterval(() => {
      this.refresh().catch(() => {
        // Kept: the last view; the store's fault log says what failed.
      });
    }, refreshMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /**
   * For a key unknown here: null when the view cannot be behind (nothing else writes the store
   * between refreshes), else a promise of its mask once the view is as new as the store (D151);
   * when the store cannot be read, the key stays unknown.
   */
  recheck(key: string): Promise<number> | null {
    const f = this.fence?.() ?? null;
    if (f === null) return null;
    return f.then(
      () => {
        this.byKey.delete(key);
        return this.maskOfKey(key);
      },
      () => -1,
    );
  }

  private entryOf(key: string): KeyEntry | null {
    let e = this.byKey.get(key);
    if (e === undefined) {
      e = this.byHash.get(hashKey(key)) ?? null;
      // Unknown keys are cached too; the bound keeps a flood of random keys from growing memory.
      if (this.byKey.size >= KEY_CACHE_LIMIT) this.byKey.clear();
      this.byKey.set(key, e);
    }
    return e;
  }

  /** Group mask of a presented key, or -1 when the key is unknown. */
  maskOfKey(key: string): number {
    return this.entryOf(key)?.mask ?? -1;
  }

  /** The name of a presented key (for the access log; never the key itself), or null when unknown. */
  nameOfKey(key: string): string | null {
    return this.entryOf(key)?.name ?? null;
  }
}
