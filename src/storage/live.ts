/**
 * The live store: everything that changes at run time (keys, companies, tariffs, feedback,
 * devices, settings such as the token secret). One interface, two implementations (D150):
 *
 * - SQLite (`sqlite-store.ts`, the default): `$DATA_DIR/live.sqlite`, WAL, synchronous=FULL; one
 *   process writes it.
 * - PostgreSQL (`pg-store.ts`, when `DATABASE_URL` is set): shared by every replica; changes of
 *   other replicas are announced by NOTIFY and checked before catalog-dependent work (D151).
 *
 * Repositories (companies.ts, tariffs.ts, keys.ts, feedback.ts, devices.ts) are written once, as
 * async functions over `Sql` with portable SQL (`?` placeholders, `ON CONFLICT`, `RETURNING`).
 * Nothing above src/storage knows which store it has.
 */

import type { SharedSwaps } from './snapshot-swaps.js';
import type { SharedStatuses } from './evse-statuses.js';
import type { SharedCounters } from './rate-counts.js';
import type { SharedAttempts } from './attempts.js';

/** One connection (inside `tx` or `read`): portable SQL with `?` placeholders. */
export interface Sql {
  all<R>(sql: string, params?: readonly unknown[]): Promise<R[]>;
  get<R>(sql: string, params?: readonly unknown[]): Promise<R | undefined>;
  /** Runs a statement; resolves to the number of rows it changed. */
  run(sql: string, params?: readonly unknown[]): Promise<number>;
}

/** Counters that move with every committed change of the shared state (the read-your-writes fence). */
export interface StoreVersions {
  /** The catalog generation (companies, tariffs, station prices). */
  catalog: number;
  /** Bumped by every key creation and revocation. */
  keys: number;
}

export type StoreChange = 'catalog' | 'keys';

/** The one query of `versions()` (the same text on both stores). */
export const VERSIONS_SQL =
  'SELECT (SELECT value FROM catalog_generation WHERE one = 1) AS catalog, (SELECT value FROM key_generation WHERE one = 1) AS keys';

export interface LiveStore {
  readonly kind: 'sqlite' | 'postgres';
  /**
   * Other processes write this store while the service runs (PostgreSQL): answers that depend on
   * the catalog or the keys check `versions()` first (D151). False for SQLite, whose only writer
   * besides the service is the keys CLI (picked up within KEY_REFRESH_MS).
   */
  readonly shared: boolean;
  /** Where the store is (a file, or host:port/database; never a password), for logs. */
  readonly where: string;
  /** Set by the service (src/app.ts) to log fault periods (D107). */
  faultListener: StorageFaultListener | null;
  /**
   * Set by the service (src/app.ts): the main-thread milliseconds each write transaction held the
   * thread, where the store works synchronously (SQLite; D176 counts them against writes).
   */
  onWriteWork: ((ms: number) => void) | null;
  /** Operations that failed for the storage since start (metrics). */
  readonly faultsTotal: number;
  /** The connection pool of a PostgreSQL store (metrics, D120); null for SQLite (one connection, no pool). */
  poolStats(): { total: number; idle: number; waiting: number } | null;
  /**
   * Runs `fn` in one write transaction. Writers are serialized (SQLite: the write lock taken up
   * front; PostgreSQL: one transaction-level advisory lock), so a check inside (the optimistic
   * `version`, references) holds until the commit. Rejects with StorageUnavailableError when the
   * storage fails; anything `fn` throws rolls the transaction back and is rethrown as is.
   */
  tx<T>(fn: (s: Sql) => Promise<T>): Promise<T>;
  /** Runs `fn` on one consistent view of the store (a read-only transaction). */
  read<T>(fn: (s: Sql) => Promise<T>): Promise<T>;
  /** The current change counters (one cheap query). */
  versions(): Promise<StoreVersions>;
  /** Why a write could not be made now (readiness, D105), or null when it could. */
  writeProblem(): Promise<string | null>;
  /** Operations failed since the last one that worked (0: none). */
  failingWrites(): number;
  /**
   * Calls `fn` when another process commits a change (PostgreSQL LISTEN/NOTIFY), and with every
   * kind after a lost connection is back (changes may have been missed meanwhile). SQLite: never.
   */
  listen(fn: (change: StoreChange) => void): void;
  /** EVSE statuses shared with the other replicas of this store (D216); null for SQLite (one process, D136). */
  readonly sharedStatuses: SharedStatuses | null;
  /** Rate-limit counts shared with the other replicas of this store (D218); null for SQLite. */
  readonly sharedCounters: SharedCounters | null;
  /** Attempts of the accounts' guessing limits shared with the other replicas (D219); null for SQLite. */
  readonly sharedAttempts: SharedAttempts | null;
  /** Snapshot swaps recorded for every replica of this store (D220); null for SQLite. */
  readonly sharedSwaps: SharedSwaps | null;
  close(): Promise<void>;
}

/** The data directory cannot hold the live store (D102): the service does not start (exit 2). */
export class DataDirError extends Error {}

/** A write or read failed for the storage's sake (D107); `code` is the store's or the system's. */
export class StorageUnavailableError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** Whether `e` is a storage fault (D107): answered 503 `storage unavailable`, never a 500. */
export function isStorageFault(e: unknown): boolean {
  return e instanceof StorageUnavailableError;
}

/** Told once when the storage starts failing and once when it works again (one log line each, D107). */
export interface StorageFaultListener {
  failing(code: string, message: string): void;
  recovered(failedWrites: number, ms: number): void;
}

/** Fault periods of a store: one `failing` when operations start failing, one `recovered` after. */
export class FaultPeriods {
  private fault: { since: number; count: number; code: string } | null = null;
  listener: StorageFaultListener | null = null;
  total = 0;

  failed(e: StorageUnavailableError): void {
    this.total++;
    if (this.fault === null) {
      this.fault = { since: performance.now(), count: 1, code: e.code };
      this.listener?.failing(e.code, e.message);
    } else this.fault.count++;
  }

  worked(): void {
    if (this.fault === null) return;
    const f = this.fault;
    this.fault = null;
    this.listener?.recovered(f.count, performance.now() - f.since);
  }

  /** Failed operations of the current period (0: none). */
  get count(): number {
    return this.fault?.count ?? 0;
  }

  /** Why the store is failing now, or null. */
  problem(): string | null {
    if (this.fault === null) return null;
    const at = new Date(Date.now() - (performance.now() - this.fault.since)).toISOString();
    return `writes failing since ${at} (${this.fault.code})`;
  }
}

/** The fault bookkeeping both stores share (D107, D152). */
export abstract class FaultTracking {
  protected readonly faults = new FaultPeriods();
  onWriteWork: ((ms: number) => void) | null = null;

  get faultListener(): StorageFaultListener | null {
    return this.faults.listener;
  }

  set faultListener(l: StorageFaultListener | null) {
    this.faults.listener = l;
  }

  get faultsTotal(): number {
    return this.faults.total;
  }

  failingWrites(): number {
    return this.faults.count;
  }
}

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
