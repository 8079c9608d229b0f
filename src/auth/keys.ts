import crypto from 'node:crypto';
import type { LiveStore } from '../storage/live.js';
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
export function createKey(store: LiveStore, opts: { groups: Group[]; key?: string; name?: string }): CreatedKey {
  const key = opts.key ?? generateKey();
  if (key.length < 8) throw new KeyError('a key needs at least 8 characters');
  const hash = hashKey(key);
  return store.tx(() => {
    const name = opts.name ?? `key-${hash.slice(0, 8)}`;
    if (store.hasKeyName(name)) throw new KeyError(`a key named "${name}" exists already`);
    if (store.hasKeyHash(hash)) throw new KeyError('this key exists already');
    store.insertKey(name, hash, opts.groups);
    return { name, key, groups: opts.groups };
  });
}

/** When the store has no active key, creates one development key with all groups. */
export function ensureDevelopmentKey(store: LiveStore): CreatedKey | null {
  return store.tx(() => {
    if (store.keyCount() > 0) return null;
    return createKey(store, { groups: [...GROUPS], name: 'development' });
  });
}

const KEY_CACHE_LIMIT = 10_000;

/**
 * The in-memory view of the active keys: hash → group mask. Refreshed from the live store when
 * another process (the keys CLI) commits, checked every `refreshMs`, so a revocation takes effect
 * within about one refresh interval.
 */
interface KeyEntry {
  mask: number;
  name: string;
}

export class KeyRegistry {
  private byHash = new Map<string, KeyEntry>();
  /** Presented key → its entry (or null), so a key is hashed once per reload, not per request; bounded. */
  private byKey = new Map<string, KeyEntry | null>();
  private lastVersion = -1;
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly store: LiveStore) {
    this.reload();
  }

  reload(): void {
    const next = new Map<string, KeyEntry>();
    for (const row of this.store.activeKeys()) next.set(row.key_hash, { mask: maskOf(row.groups.split(',')), name: row.name });
    this.byHash = next;
    this.byKey = new Map();
    this.lastVersion = this.store.dataVersion();
  }

  /** Reloads when the store changed since the last look. */
  refresh(): void {
    const v = this.store.dataVersion();
    if (v !== this.lastVersion) this.reload();
  }

  start(refreshMs: number): void {
    this.timer = setInterval(() => this.refresh(), refreshMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
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
