/**
 * Opens the live store the configuration names (D150): PostgreSQL when `DATABASE_URL` is set,
 * else SQLite in the data directory. The only place that chooses between them.
 */
import fs from 'node:fs';
import path from 'node:path';
import { DataDirError, type LiveStore } from './live.js';
import { SqliteStore, ensureDataDir } from './sqlite-store.js';

export { ensureDataDir };

export interface StoreLocation {
  readonly dataDir: string;
  readonly databaseUrl: string | null;
  /** PostgreSQL pool size of the service (workers and CLIs use fewer). */
  readonly dbPoolMax?: number;
  /** D221: the database of the replicas' short-lived shared state, when not DATABASE_URL's. */
  readonly sharedStateUrl?: string | null;
}

/**
 * The PostgreSQL store's module, loaded only when a database is configured: loading `pg` costs an
 * SQLite-only process about 50 ms of CPU at start, and every pricing worker as much again.
 */
const pgStore = async (): Promise<typeof import('./pg-store.js').PgStore> => (await import('./pg-store.js')).PgStore;

/**
 * The service's store: created and migrated when needed. The data directory is made for either
 * store (D102): the service keeps more than the SQLite store there (the development key's file,
 * a default snapshot built at first start).
 */
export async function openLiveStore(loc: StoreLocation): Promise<LiveStore> {
  ensureDataDir(loc.dataDir);
  if (loc.databaseUrl === null) return SqliteStore.open(loc.dataDir);
  const Pg = await pgStore();
  const store = await Pg.open(loc.databaseUrl, { poolMax: loc.dbPoolMax ?? 10 });
  if (loc.sharedStateUrl == null) return store;
  try {
    // Statuses, rate counts and attempts on a database of their own (D221): the same schema, its own pools and listener.
    store.shareStateThrough(await Pg.open(loc.sharedStateUrl, { poolMax: 2 }));
  } catch (e) {
    await store.close();
    throw e;
  }
  return store;
}

/**
 * A connection that only reads (pricing workers, the export CLI): never migrates. SQLite: the
 * file must exist (DataDirError otherwise).
 */
export async function openLiveStoreReadonly(loc: StoreLocation, poolMax = 2): Promise<LiveStore> {
  if (loc.databaseUrl !== null) return (await pgStore()).open(loc.databaseUrl, { poolMax, migrate: false });
  const file = path.join(loc.dataDir, 'live.sqlite');
  if (!fs.existsSync(file)) throw new DataDirError(`no live store at ${file}; set DATA_DIR to the service's data directory`);
  return SqliteStore.openReadonly(loc.dataDir);
}
