/**
 * The SQLite live store (the default, D150): `$DATA_DIR/live.sqlite` in WAL mode with
 * synchronous=FULL, so that an acknowledged write survives a crash.
 *
 * The SQLite driver (./sqlite-driver.ts) is synchronous; the store's interface is not. Every operation (`tx`, `read`)
 * holds the connection alone from its BEGIN to its COMMIT, so a read never sees another
 * operation's uncommitted rows even though `fn` awaits between statements. Statements are
 * prepared once per SQL text.
 */
import { traced } from '../tracing.js';
import fs from 'node:fs';
import path from 'node:path';
import { openDatabase, sqliteErrorCode, type Database, type Statement } from './sqlite-driver.js';
import { SQLITE_MIGRATIONS } from './migrations/index.js';
import {
  DataDirError,
  FaultTracking,
  StorageUnavailableError,
  VERSIONS_SQL,
  type LiveStore,
  type Sql,
  type StoreVersions,
} from './live.js';

/**
 * Creates the data directory (and missing parents) one level at a time and checks that it is a
 * writable directory. `fs.mkdirSync(…, { recursive: true })` never returns for a path under /proc
 * (it loops between ENOENT and EEXIST at 100 % CPU), so no recursive mkdir here.
 */
export function ensureDataDir(dataDir: string): void {
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
const SYSTEM_FAULT = new Set(['ENOSPC', 'EROFS', 'EIO', 'EDQUOT', 'EFBIG']);

/** The storage fault `e` stands for, or null when `e` is something else (a bug, a request error). */
export function faultOf(e: unknown): StorageUnavailableError | null {
  if (e instanceof StorageUnavailableError) return e;
  const code = sqliteErrorCode(e);
  if (code === undefined) return null;
  return FAULT_CODE.test(code) || SYSTEM_FAULT.has(code) ? new StorageUnavailableError(code, (e as Error).message) : null;
}


export class SqliteStore extends FaultTracking implements LiveStore {
  poolStats(): null {
    return null;
  }

  readonly kind = 'sqlite' as const;
  readonly sharedStatuses = null;
  readonly sharedCounters = null;
  readonly sharedAttempts = null;
  readonly sharedSwaps = null;
  readonly shared = false;
  readonly where: string;
  /** The connection, for the SQLite-only readers of src/storage (availability.ts). */
  readonly db: Database;
  private readonly stmts = new Map<string, Statement<unknown>>();
  private readonly sql: Sql;
  private busy = false;
  private readonly waiting: Array<() => void> = [];

  private constructor(readonly file: string, readonly: boolean) {
    super();
    this.where = file;
    this.db = openDatabase(file, { readonly, fileMustExist: readonly });
    this.db.pragma('busy_timeout = 5000');
    if (!readonly) {
      this.db.pragma('journal_mode = WAL');
      this.db.pragma('synchronous = FULL');
      this.db.pragma('foreign_keys = ON');
      this.migrate();
    }
    const st = (text: string): Statement<unknown> => {
      let s = this.stmts.get(text);
      if (s === undefined) this.stmts.set(text, (s = this.db.prepare(text)));
      return s;
    };
    this.sql = {
      all: <R>(text: string, params: readonly unknown[] = []) => Promise.resolve(st(text).all(...params) as R[]),
      get: <R>(text: string, params: readonly unknown[] = []) => Promise.resolve(st(text).get(...params) as R | undefined),
      run: (text: string, params: readonly unknown[] = []) => Promise.resolve(Number(st(text).run(...params).changes)),
    };
  }

  /** Opens (creating and migrating when needed) the live store in `dataDir`. */
  static open(dataDir: string): SqliteStore {
    ensureDataDir(dataDir);
    try {
      return new SqliteStore(path.join(dataDir, 'live.sqlite'), false);
    } catch (e) {
      throw new DataDirError(`DATA_DIR ${dataDir}: cannot open the live store: ${(e as Error).message}`);
    }
  }

  /** A read-only connection (pricing workers, the export CLI): never migrates or writes. */
  static openReadonly(dataDir: string): SqliteStore {
    return new SqliteStore(path.join(dataDir, 'live.sqlite'), true);
  }

  private migrate(): void {
    this.db.exec(
      'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL) STRICT',
    );
    const done = new Set(
      (this.db.prepare('SELECT version FROM schema_migrations').all() as { version: number }[]).map((r) => r.version),
    );
    const record = this.db.prepare('INSERT INTO schema_migrations(version, name, applied_at) VALUES (?, ?, ?)');
    for (const m of SQLITE_MIGRATIONS) {
      if (done.has(m.version)) continue;
      this.db.transaction(() => {
        this.db.exec(m.sql);
        record.run(m.version, m.name, Date.now());
      }, 'BEGIN IMMEDIATE');
    }
  }

  /** The connection alone for one operation (first come, first served). */
  private async acquire(): Promise<void> {
    if (!this.busy) {
      this.busy = true;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next !== undefined) next();
    else this.busy = false;
  }

  /** One operation; only a committed write ends a fault period (a read may work on a full disk). */
  private async run<T>(begin: string, fn: (s: Sql) => Promise<T>): Promise<T> {
    await this.acquire();
    // The driver is synchronous: from BEGIN to COMMIT (fsync included) the thread is held.
    const t0 = performance.now();
    let r: T;
    try {
      this.db.exec(begin);
      try {
        r = await fn(this.sql);
        this.db.exec('COMMIT');
      } catch (e) {
        if (this.db.inTransaction) this.db.exec('ROLLBACK');
        throw e;
      }
    } catch (e) {
      const f = faultOf(e);
      if (f === null) throw e;
      this.faults.failed(f);
      throw f;
    } finally {
      this.release();
      if (begin === 'BEGIN IMMEDIATE') this.onWriteWork?.(performance.now() - t0);
    }
    if (begin === 'BEGIN IMMEDIATE') this.faults.worked();
    return r;
  }

  tx<T>(fn: (s: Sql) => Promise<T>): Promise<T> {
    return traced('store.write', () => this.run('BEGIN IMMEDIATE', fn));
  }

  read<T>(fn: (s: Sql) => Promise<T>): Promise<T> {
    return traced('store.read', () => this.run('BEGIN', fn));
  }

  versions(): Promise<StoreVersions> {
    return this.read((s) => s.get<StoreVersions>(VERSIONS_SQL)).then((v) => v!);
  }

  /**
   * Whether a write could be made now (readiness, D105): the connection is not read-only, the
   * write lock can be taken (held by another writer counts as writable), and the data directory's
   * file system has at least 1 MiB free.
   */
  writeProblem(): Promise<string | null> {
    return Promise.resolve(this.writeProblemNow());
  }

  private writeProblemNow(): string | null {
    if (this.db.readonly) return 'opened read-only';
    const failing = this.faults.problem();
    if (failing !== null) return failing;
    if (this.busy) return null;
    const timeout = Number(this.db.pragmaValue('busy_timeout'));
    try {
      this.db.pragma('busy_timeout = 0');
      this.db.exec('BEGIN IMMEDIATE');
      this.db.exec('ROLLBACK');
    } catch (e) {
      if (sqliteErrorCode(e) !== 'SQLITE_BUSY') return `cannot take the write lock: ${(e as Error).message}`;
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

  listen(): void {
    // One writing process: the service's own writes update it directly; the keys CLI's are
    // picked up by the key registry's refresh.
  }

  close(): Promise<void> {
    if (this.db.open) this.db.close();
    return Promise.resolve();
  }
}
