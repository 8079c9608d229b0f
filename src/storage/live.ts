import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { MIGRATIONS } from './migrations/index.js';

export type Db = Database.Database;

export interface ApiKeyRow {
  name: string;
  key_hash: string;
  groups: string;
  created_at: number;
  revoked_at: number | null;
}

export interface SeedCompany {
  id: string;
  name: string;
  evse_operator_ids: readonly string[];
}

/**
 * The live store: `$DATA_DIR/live.sqlite` in WAL mode with synchronous=FULL, so that an acknowledged
 * write survives a crash. Holds everything that changes at run time (keys, companies, tariffs,
 * feedback, devices). Feature repositories in src/storage use `db` and `tx`.
 */
/** The data directory cannot hold the live store (D102): the service does not start (exit 2). */
export class DataDirError extends Error {}

/**
 * Creates the data directory (and missing parents) one level at a time and checks that it is a
 * writable directory. `fs.mkdirSync(…, { recursive: true })` never returns for a path under /proc
 * (it loops between ENOENT and EEXIST at 100 % CPU), so no recursive mkdir here.
 */
function ensureDataDir(dataDir: string): void {
  const dir = path.resolve(dataDir);
  const missing: string[] = [];
  let d = dir;
  while (!fs.existsSync(d)) {
    missing.push(d);
    const parent = path.dirname(d);
    if (parent === d) break;
    d = parent;
  }
  try {
    if (!fs.statSync(d).isDirectory()) throw new DataDirError(`DATA_DIR ${dataDir}: ${d} is not a directory`);
    for (let k = missing.length - 1; k >= 0; k--) fs.mkdirSync(missing[k]);
    fs.accessSync(dir, fs.constants.W_OK | fs.constants.X_OK);
  } catch (e) {
    if (e instanceof DataDirError) throw e;
    throw new DataDirError(`DATA_DIR ${dataDir} is not a usable directory: ${(e as Error).message}`);
  }
}

/**
 * SQLite result codes that mean the storage itself failed (a full disk, a read-only or vanished
 * file system, an I/O error, the write lock held past the busy timeout), not the request (D107).
 */
const FAULT_CODE = /^SQLITE_(FULL|READONLY|IOERR|CANTOPEN|BUSY|LOCKED|CORRUPT|NOTADB|PROTOCOL|NOLFS|PERM)/;

/** Whether `e` is a storage fault (D107): answered 503 `storage unavailable`, never a 500. */
export function isStorageFault(e: unknown): boolean {
  if (e instanceof StorageUnavailableError) return true;
  const code = (e as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return false;
  return FAULT_CODE.test(code) || code === 'ENOSPC' || code === 'EROFS' || code === 'EIO' || code === 'EDQUOT' || code === 'EFBIG';
}

/** A write failed for the storage's sake (D107); `code` is SQLite's or the system's. */
export class StorageUnavailableError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** Told once when writes start failing and once when they work again (one log line each, D107). */
export interface StorageFaultListener {
  failing(code: string, message: string): void;
  recovered(failedWrites: number, ms: number): void;
}

export class LiveStore {
  readonly db: Db;
  readonly file: string;
  /** The current fault period: since when writes fail, how many failed (null: writes work). */
  private fault: { since: number; count: number; code: string; message: string } | null = null;
  /** Set by the service (src/app.ts) to log fault periods. */
  faultListener: StorageFaultListener | null = null;
  /** Writes that failed for the storage since start (metrics). */
  faultsTotal = 0;
  private readonly stmts: {
    getSetting: Database.Statement<[string], { value: string }>;
    setSetting: Database.Statement<[string, string]>;
    activeKeys: Database.Statement<[], ApiKeyRow>;
    allKeys: Database.Statement<[], ApiKeyRow>;
  };

  private constructor(file: string, opts: { readonly?: boolean }) {
    this.file = file;
    this.db = new Database(file, { readonly: opts.readonly === true, fileMustExist: opts.readonly === true });
    this.db.pragma('busy_timeout = 5000');
    if (!opts.readonly) {
      this.db.pragma('journal_mode = WAL');
      this.db.pragma('synchronous = FULL');
      this.db.pragma('foreign_keys = ON');
      this.migrate();
    }
    this.stmts = {
      getSetting: this.db.prepare('SELECT value FROM settings WHERE key = ?'),
      setSetting: this.db.prepare(
        'INSERT INTO settings(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value',
      ),
      activeKeys: this.db.prepare('SELECT * FROM api_keys WHERE revoked_at IS NULL ORDER BY name'),
      allKeys: this.db.prepare('SELECT * FROM api_keys ORDER BY name'),
    };
  }

  /** Opens (creating and migrating when needed) the live store in `dataDir`. */
  static open(dataDir: string): LiveStore {
    ensureDataDir(dataDir);
    try {
      return new LiveStore(path.join(dataDir, 'live.sqlite'), {});
    } catch (e) {
      throw new DataDirError(`DATA_DIR ${dataDir}: cannot open the live store: ${(e as Error).message}`);
    }
  }

  /**
   * Whether a write could be made now (readiness, D105): the connection is not read-only, the
   * write lock can be taken (held by another writer counts as writable), and the data directory's
   * file system has at least 1 MiB free. Null when so, else why not.
   */
  writeProblem(): string | null {
    if (this.db.readonly) return 'opened read-only';
    if (this.fault !== null) return `writes failing since ${new Date(Date.now() - (performance.now() - this.fault.since)).toISOString()} (${this.fault.code})`;
    const timeout = this.db.pragma('busy_timeout', { simple: true }) as number;
    try {
      this.db.pragma('busy_timeout = 0');
      this.db.exec('BEGIN IMMEDIATE');
      this.db.exec('ROLLBACK');
    } catch (e) {
      const code = (e as { code?: string }).code;
      if (code !== 'SQLITE_BUSY') return `cannot take the write lock: ${(e as Error).message}`;
    } finally {
      this.db.pragma(`busy_timeout = ${timeout}`);
    }
    try {
      const st = fs.statfsSync(path.dirname(this.file));
      if (st.bavail * st.bsize < 1024 * 1024) return 'less than 1 MiB free in the data directory';
    } catch (e) {
      return `data directory: ${(e as Error).message}`;
    }
    return null;
  }

  /** A read-only connection for pricing workers (never migrates or writes). */
  static openReadonly(dataDir: string): LiveStore {
    return new LiveStore(path.join(dataDir, 'live.sqlite'), { readonly: true });
  }

  private migrate(): void {
    this.db.exec(
      'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL) STRICT',
    );
    const done = new Set(
      (this.db.prepare('SELECT version FROM schema_migrations').all() as { version: number }[]).map((r) => r.version),
    );
    const record = this.db.prepare('INSERT INTO schema_migrations(version, name, applied_at) VALUES (?, ?, ?)');
    for (const m of MIGRATIONS) {
      if (done.has(m.version)) continue;
      this.db.transaction(() => {
        this.db.exec(m.sql);
        record.run(m.version, m.name, Date.now());
      }).immediate();
    }
  }

  /** Runs `fn` in one IMMEDIATE transaction (the write lock is taken up front, so checks inside are race-free). */
  tx<T>(fn: () => T): T {
    let r: T;
    try {
      r = this.db.transaction(fn).immediate();
    } catch (e) {
      if (!isStorageFault(e)) throw e;
      const code = e instanceof StorageUnavailableError ? e.code : String((e as { code: unknown }).code);
      const message = (e as Error).message;
      this.faultsTotal++;
      if (this.fault === null) {
        this.fault = { since: performance.now(), count: 1, code, message };
        this.faultListener?.failing(code, message);
      } else this.fault.count++;
      throw e instanceof StorageUnavailableError ? e : new StorageUnavailableError(code, message);
    }
    if (this.fault !== null) {
      const f = this.fault;
      this.fault = null;
      this.faultListener?.recovered(f.count, performance.now() - f.since);
    }
    return r;
  }

  /** Writes failed since the last one that worked (0: none; readiness and tests). */
  failingWrites(): number {
    return this.fault?.count ?? 0;
  }

  /** Changes whenever another connection (another process, e.g. the keys CLI) commits. */
  dataVersion(): number {
    return this.db.pragma('data_version', { simple: true }) as number;
  }

  getSetting(key: string): string | null {
    return this.stmts.getSetting.get(key)?.value ?? null;
  }

  setSetting(key: string, value: string): void {
    this.stmts.setSetting.run(key, value);
  }

  /** Returns the stored value, or stores and returns `make()` when absent (atomically). */
  getOrCreateSetting(key: string, make: () => string): string {
    return this.tx(() => {
      const v = this.getSetting(key);
      if (v !== null) return v;
      const created = make();
      this.setSetting(key, created);
      return created;
    });
  }

  // ---- API keys ----

  activeKeys(): ApiKeyRow[] {
    return this.stmts.activeKeys.all();
  }

  allKeys(): ApiKeyRow[] {
    return this.stmts.allKeys.all();
  }

  keyCount(): number {
    return (this.db.prepare('SELECT count(*) AS n FROM api_keys WHERE revoked_at IS NULL').get() as { n: number }).n;
  }

  insertKey(name: string, keyHash: string, groups: readonly string[]): void {
    this.db
      .prepare('INSERT INTO api_keys(name, key_hash, groups, created_at) VALUES (?, ?, ?, ?)')
      .run(name, keyHash, groups.join(','), Date.now());
  }

  hasKeyName(name: string): boolean {
    return this.db.prepare('SELECT 1 FROM api_keys WHERE name = ?').get(name) !== undefined;
  }

  hasKeyHash(keyHash: string): boolean {
    return this.db.prepare('SELECT 1 FROM api_keys WHERE key_hash = ?').get(keyHash) !== undefined;
  }

  /** Marks a key revoked; returns false when no active key has that name. */
  revokeKey(name: string): boolean {
    return (
      this.db.prepare('UPDATE api_keys SET revoked_at = ? WHERE name = ? AND revoked_at IS NULL').run(Date.now(), name)
        .changes === 1
    );
  }

  // ---- seeding ----

  /**
   * Seeds operator companies from the snapshot on first start (once per store; later snapshot swaps
   * never overwrite companies edited through the API).
   */
  seedCompanies(snapshotVersion: string, companies: Iterable<SeedCompany>, now: number): number {
    return this.tx(() => {
      if (this.getSetting('companies_seeded_from') !== null) return 0;
      const insert = this.db.prepare(
        `INSERT OR IGNORE INTO companies(id, name, url, is_cpo, is_emp, version, created_at, updated_at, external_source_mapping)
         VALUES (?, ?, NULL, 1, 0, 1, ?, ?, ?)`,
      );
      let n = 0;
      for (const c of companies) {
        const mapping = {
          ext_a_ids: null,
          ext_b_names: null,
          ext_b_charge_card_ids: null,
          sheet_names: null,
          ext_c_operator_ids: null,
          evse_operator_ids: [...c.evse_operator_ids],
        };
        n += insert.run(c.id, c.name, now, now, JSON.stringify(mapping)).changes;
      }
      this.setSetting('companies_seeded_from', snapshotVersion);
      return n;
    });
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
