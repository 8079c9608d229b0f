/**
 * The SQLite driver behind the snapshot reader and writer and the SQLite live store (D281):
 * Node's built-in `node:sqlite` where the runtime has it whole (Node 22.16 and newer: `iterate`,
 * `setReturnArrays`, `isTransaction`), better-sqlite3 on Node 20, which has no `node:sqlite`.
 * Both bind the same SQLite C library; this module is the only importer of either, and the rest
 * of src/storage sees one small synchronous interface. Differences it evens out: node:sqlite
 * answers BLOBs as Uint8Array (better-sqlite3: Buffer; `asBuffer` views either without a copy),
 * names errors by number (`errcode`; better-sqlite3 by name: `sqliteErrorCode` gives the name),
 * has no `pluck`, `pragma` or `transaction` helpers and prints an ExperimentalWarning on load
 * (kept off stderr: the log names the driver instead).
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';

export type DriverName = 'node:sqlite' | 'better-sqlite3';

export interface Statement<R> {
  run(...params: unknown[]): { changes: number | bigint };
  get(...params: unknown[]): R | undefined;
  all(...params: unknown[]): R[];
  iterate(...params: unknown[]): IterableIterator<R>;
}

export interface Database {
  readonly driver: DriverName;
  readonly readonly: boolean;
  readonly open: boolean;
  readonly inTransaction: boolean;
  prepare<R = Record<string, unknown>>(sql: string): Statement<R>;
  /** A statement answering the first column's value of each row (better-sqlite3's `pluck`). */
  preparePluck<T = unknown>(sql: string): Statement<T>;
  exec(sql: string): void;
  /** `PRAGMA <text>`: its rows. */
  pragma(text: string): Array<Record<string, unknown>>;
  /** `PRAGMA <text>`: the first column of its first row. */
  pragmaValue(text: string): unknown;
  /** `fn` between `begin` (BEGIN, or BEGIN IMMEDIATE to take the write lock first) and COMMIT; ROLLBACK when it throws. */
  transaction<T>(fn: () => T, begin?: 'BEGIN' | 'BEGIN IMMEDIATE'): T;
  close(): void;
}

export interface OpenOptions {
  readonly?: boolean;
  fileMustExist?: boolean;
}

// Minimal shapes of the two drivers (node:sqlite's typings are not in @types/node 20).
interface NodeStatement {
  run(...p: unknown[]): { changes: number | bigint };
  get(...p: unknown[]): unknown;
  all(...p: unknown[]): unknown[];
  iterate(...p: unknown[]): IterableIterator<unknown>;
  setReturnArrays(on: boolean): void;
}
interface NodeDatabase {
  prepare(sql: string): NodeStatement;
  exec(sql: string): void;
  close(): void;
  readonly isTransaction: boolean;
}
type NodeDatabaseCtor = new (file: string, opts: { readOnly: boolean }) => NodeDatabase;
interface BetterStatement extends NodeStatement {
  pluck(on?: boolean): BetterStatement;
}
interface BetterDatabase {
  prepare(sql: string): BetterStatement;
  exec(sql: string): void;
  close(): void;
  pragma(text: string, opts?: { simple: boolean }): unknown;
  readonly readonly: boolean;
  readonly open: boolean;
  readonly inTransaction: boolean;
}
type BetterDatabaseCtor = new (file: string, opts: { readonly: boolean; fileMustExist: boolean }) => BetterDatabase;

const require = createRequire(import.meta.url);

/** node:sqlite's DatabaseSync when this runtime has every part used here, else null. */
function loadNodeSqlite(): NodeDatabaseCtor | null {
  const [major, minor] = process.versions.node.split('.').map(Number);
  if (major < 22 || (major === 22 && minor < 16)) return null;
  const emit = process.emitWarning;
  // Loading it emits "SQLite is an experimental feature"; that one warning stays off stderr.
  process.emitWarning = function (this: unknown, warning: string | Error, ...rest: unknown[]): void {
    const text = typeof warning === 'string' ? warning : warning.message;
    if (/^SQLite is an experimental feature/.test(text)) return;
    (emit as (...a: unknown[]) => void).call(process, warning, ...rest);
  };
  try {
    const mod = require('node:sqlite') as { DatabaseSync: NodeDatabaseCtor; StatementSync: { prototype: object } };
    if (!('setReturnArrays' in mod.StatementSync.prototype)) return null;
    const probe = new mod.DatabaseSync(':memory:', { readOnly: false });
    const whole = typeof probe.isTransaction === 'boolean';
    probe.close();
    return whole ? mod.DatabaseSync : null;
  } catch {
    return null;
  } finally {
    process.emitWarning = emit;
  }
}

let nodeSqlite: NodeDatabaseCtor | null | undefined;
let betterSqlite: BetterDatabaseCtor | undefined;

/** better-sqlite3's major version when installed, else 0. */
function betterMajor(): number {
  try {
    return Number((require('better-sqlite3/package.json') as { version: string }).version.split('.')[0]);
  } catch {
    return 0;
  }
}

/** The drivers this runtime can use, in the order of preference. */
export function availableDrivers(): DriverName[] {
  nodeSqlite ??= loadNodeSqlite();
  const out: DriverName[] = nodeSqlite === null ? [] : ['node:sqlite'];
  // better-sqlite3 12 aborts the process on Node 24 (its ObjectWrap destructor, D225); 13 runs there.
  const major = betterMajor();
  if (major > 0 && (Number(process.versions.node.split('.')[0]) < 24 || major >= 13)) out.push('better-sqlite3');
  return out;
}

let chosen: DriverName | undefined;

/**
 * The driver this process uses: `SQLITE_DRIVER` when set (`node:sqlite` or `better-sqlite3`, to
 * compare them), else node:sqlite from Node 22.16 and better-sqlite3 below.
 */
export function driverName(): DriverName {
  if (chosen !== undefined) return chosen;
  const available = availableDrivers();
  const asked = process.env.SQLITE_DRIVER ?? '';
  if (asked !== '') {
    if (asked !== 'node:sqlite' && asked !== 'better-sqlite3') throw new Error(`SQLITE_DRIVER must be node:sqlite or better-sqlite3, not ${asked}`);
    if (!available.includes(asked)) throw new Error(`SQLITE_DRIVER=${asked} is not usable on Node ${process.versions.node} (usable: ${available.join(', ') || 'none'})`);
    return (chosen = asked);
  }
  if (available.length === 0) {
    throw new Error(`no SQLite driver on Node ${process.versions.node}: node:sqlite needs Node 22.16 or newer, better-sqlite3 is not installed`);
  }
  return (chosen = available[0]);
}

/** Uses `driver` for every database opened from now on in this thread (the driver bench's rounds). */
export function useDriver(driver: DriverName): void {
  if (!availableDrivers().includes(driver)) throw new Error(`${driver} is not usable on Node ${process.versions.node}`);
  chosen = driver;
}

/** The version of a driver, for logs and figures: Node's SQLite library or better-sqlite3's package. */
export function driverVersion(driver: DriverName): string {
  return driver === 'node:sqlite' ? `node ${process.versions.node}, SQLite ${process.versions.sqlite ?? '?'}` : `better-sqlite3 ${(require('better-sqlite3/package.json') as { version: string }).version}`;
}

/** Opens a SQLite file with this runtime's driver (or the one named: the driver bench compares them). */
export function openDatabase(file: string, opts: OpenOptions = {}, driver: DriverName = driverName()): Database {
  return driver === 'node:sqlite' ? openNode(file, opts) : openBetter(file, opts);
}

function openNode(file: string, opts: OpenOptions): Database {
  nodeSqlite ??= loadNodeSqlite();
  if (nodeSqlite === null) throw new Error(`node:sqlite is not usable on Node ${process.versions.node}`);
  const readonly = opts.readonly === true;
  if ((opts.fileMustExist === true || readonly) && !fs.existsSync(file)) {
    throw Object.assign(new Error(`unable to open database file: ${file}`), { code: 'SQLITE_CANTOPEN' });
  }
  const db = new nodeSqlite(file, { readOnly: readonly });
  let open = true;
  const pragma = (text: string): Array<Record<string, unknown>> => db.prepare(`PRAGMA ${text}`).all() as Array<Record<string, unknown>>;
  return {
    driver: 'node:sqlite',
    readonly,
    get open() {
      return open;
    },
    get inTransaction() {
      return open && db.isTransaction;
    },
    prepare: <R>(sql: string) => db.prepare(sql) as unknown as Statement<R>,
    preparePluck: <T>(sql: string) => pluckOf<T>(db.prepare(sql)),
    exec: (sql) => db.exec(sql),
    pragma,
    pragmaValue: (text) => {
      const row = pragma(text)[0];
      return row === undefined ? undefined : Object.values(row)[0];
    },
    transaction: <T>(fn: () => T, begin: 'BEGIN' | 'BEGIN IMMEDIATE' = 'BEGIN'): T => inTransaction(db, fn, begin),
    close: () => {
      if (!open) return;
      open = false;
      db.close();
    },
  };
}

/** A node:sqlite statement answering the first column of each row. */
function pluckOf<T>(s: NodeStatement): Statement<T> {
  s.setReturnArrays(true);
  return {
    run: (...p) => s.run(...p),
    get: (...p) => (s.get(...p) as unknown[] | undefined)?.[0] as T | undefined,
    all: (...p) => (s.all(...p) as unknown[][]).map((r) => r[0] as T),
    iterate: function* (...p) {
      for (const r of s.iterate(...p)) yield (r as unknown[])[0] as T;
    },
  };
}

function inTransaction<T>(
  db: { exec(sql: string): void; readonly isTransaction?: boolean; readonly inTransaction?: boolean },
  fn: () => T,
  begin: string,
): T {
  db.exec(begin);
  try {
    const r = fn();
    db.exec('COMMIT');
    return r;
  } catch (e) {
    if (db.isTransaction ?? db.inTransaction) db.exec('ROLLBACK');
    throw e;
  }
}

function openBetter(file: string, opts: OpenOptions): Database {
  betterSqlite ??= require('better-sqlite3') as BetterDatabaseCtor;
  const db = new betterSqlite(file, { readonly: opts.readonly === true, fileMustExist: opts.fileMustExist === true });
  return {
    driver: 'better-sqlite3',
    readonly: db.readonly,
    get open() {
      return db.open;
    },
    get inTransaction() {
      return db.inTransaction;
    },
    prepare: <R>(sql: string) => db.prepare(sql) as unknown as Statement<R>,
    preparePluck: <T>(sql: string) => db.prepare(sql).pluck() as unknown as Statement<T>,
    exec: (sql) => db.exec(sql),
    pragma: (text) => db.pragma(text) as Array<Record<string, unknown>>,
    pragmaValue: (text) => db.pragma(text, { simple: true }),
    transaction: <T>(fn: () => T, begin: 'BEGIN' | 'BEGIN IMMEDIATE' = 'BEGIN'): T => inTransaction(db, fn, begin),
    close: () => {
      if (db.open) db.close();
    },
  };
}

/** A BLOB as read by either driver (Uint8Array or Buffer), as a Buffer over the same memory. */
export function asBuffer(u: Uint8Array): Buffer {
  return Buffer.isBuffer(u) ? u : Buffer.from(u.buffer, u.byteOffset, u.byteLength);
}

/** SQLite's primary result codes by number (node:sqlite's `errcode`; extended codes keep them in the low byte). */
const PRIMARY = [
  'OK', 'ERROR', 'INTERNAL', 'PERM', 'ABORT', 'BUSY', 'LOCKED', 'NOMEM', 'READONLY', 'INTERRUPT', 'IOERR', 'CORRUPT',
  'NOTFOUND', 'FULL', 'CANTOPEN', 'PROTOCOL', 'EMPTY', 'SCHEMA', 'TOOBIG', 'CONSTRAINT', 'MISMATCH', 'MISUSE', 'NOLFS',
  'AUTH', 'FORMAT', 'RANGE', 'NOTADB',
];

/**
 * The SQLite result code name of a driver error (`SQLITE_FULL`, `SQLITE_BUSY`, …): better-sqlite3's
 * `code` (extended names such as `SQLITE_IOERR_WRITE` included), or node:sqlite's `errcode` named by
 * its primary code; any other `code` (a system error's `ENOSPC`) as it is; undefined when none.
 */
export function sqliteErrorCode(e: unknown): string | undefined {
  const err = e as { code?: unknown; errcode?: unknown } | null;
  if (typeof err?.errcode === 'number' && err.code === 'ERR_SQLITE_ERROR') {
    const name = PRIMARY[err.errcode & 0xff];
    return name === undefined ? 'SQLITE_ERROR' : `SQLITE_${name}`;
  }
  return typeof err?.code === 'string' ? err.code : undefined;
}
