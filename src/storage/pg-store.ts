/**
 * The PostgreSQL live store (`DATABASE_URL=postgres://…`, D150): shared by every replica of a
 * deployment. `pg` was chosen over `postgres` by measurement (`npm run bench:pg-client`): it does
 * the read-your-writes check 1.30× and the tariff-PUT transaction 1.30× as fast; `postgres` only
 * wins pipelined point reads, which the service does not do on a hot path.
 *
 * - Writes: one transaction each, serialized by a transaction-level advisory lock taken with its
 *   BEGIN (one round trip), so that checks inside hold until the commit exactly as SQLite's
 *   BEGIN IMMEDIATE makes them hold; commits are durable (synchronous_commit as configured, on by
 *   default).
 * - Reads: one REPEATABLE READ, READ ONLY transaction (one consistent view).
 * - Changes of other processes: LISTEN on `cps_live` (triggers of the schema NOTIFY every catalog
 *   and key generation), on a connection of its own that reconnects with backoff and then reports
 *   every kind as changed, so a gap is caught up from the change log (D151).
 * - Faults: a refused, lost or timed-out connection, a server shutting down, a full disk or a
 *   read-only standby is a StorageUnavailableError (503 `storage unavailable`, D152); any other
 *   database error is a bug and stays what it is. The pool reconnects by itself.
 */
import { traced } from '../tracing.js';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { POSTGRES_MIGRATIONS } from './migrations/index.js';
import { CHANNEL } from './migrations/postgres.js';
import { inLockOrder, type BucketCount, type SharedCounters } from './rate-counts.js';
import { PRUNE_AFTER_MS, PRUNE_EVERY_MS, type SharedAttempts } from './attempts.js';
import { parseSwapPayload, sharedSwapsOver, SWAP_KIND, type SharedSwaps } from './snapshot-swaps.js';
import { newestPerEvse, parseStatusPayload, STATUS_KIND, statusPayloads, type SharedStatuses, type StatusRow } from './evse-statuses.js';
import {
  FaultTracking,
  StorageUnavailableError,
  VERSIONS_SQL,
  type LiveStore,
  type Sql,
  type StoreChange,
  type StoreVersions,
} from './live.js';

// BIGINT columns (milliseconds, generations, counts) as numbers: every value is below 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

/** Advisory lock keys (arbitrary constants of this schema). */
const WRITE_LOCK = 7_340_001;
const MIGRATION_LOCK = 7_340_002;


/** SQLSTATE classes that mean the database, not the statement, failed. */
const FAULT_STATE = /^(08|53|57|58|XX)/;
const READ_ONLY_TRANSACTION = '25006';

function faultOf(e: unknown): StorageUnavailableError {
  if (e instanceof StorageUnavailableError) return e;
  const code = (e as { code?: unknown } | null)?.code;
  return new StorageUnavailableError(typeof code === 'string' ? code : 'ECONNECTION', (e as Error)?.message ?? String(e));
}

/** Whether an error of the client is the database's fault (else: a bug of the statement). */
function isFault(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  // Errors without a SQLSTATE come from the connection: refused, reset, terminated, timed out.
  if (typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code)) return true;
  return FAULT_STATE.test(code) || code === READ_ONLY_TRANSACTION;
}

/** `?` placeholders as `$1…$n` (the repositories' SQL has no `?` inside literals). */
function numbered(text: string): string {
  let n = 0;
  return text.replace(/\?/g, () => `$${++n}`);
}

export interface PgStoreOptions {
  /** Connections of the pool (default 10). */
  poolMax?: number;
  /** Apply the migrations (the service does; workers and CLIs reading only do not). */
  migrate?: boolean;
  /** Milliseconds to wait for a connection before the operation fails (default 2000). */
  connectTimeoutMs?: number;
  /**
   * Milliseconds a statement may take before it fails as a storage fault (default 10000): a
   * database that stopped answering must not hold requests forever (D152).
   */
  queryTimeoutMs?: number;
}

/** D216: one statement stores the statuses (newest per EVSE wins) and announces them, committed together. */
const WRITE_STATUSES = `WITH up AS (
  INSERT INTO evse_statuses(evse_id, state, at, uid_key)
  SELECT * FROM unnest($1::text[], $2::smallint[], $3::bigint[], $5::text[])
  ON CONFLICT (evse_id) DO UPDATE SET
    state = CASE WHEN evse_statuses.at <= excluded.at THEN excluded.state ELSE evse_statuses.state END,
    at = GREATEST(evse_statuses.at, excluded.at),
    uid_key = COALESCE(excluded.uid_key, evse_statuses.uid_key)
  RETURNING 1)
SELECT (SELECT count(*) FROM up) AS stored, (SELECT count(*) FROM (SELECT pg_notify('${CHANNEL}', p) FROM unnest($4::text[]) AS p) n) AS sent`;
/** D218: adds a replica's counts and reads back every replica's counts of its keys, in one statement. */
const EXCHANGE_COUNTS = `WITH up AS (
  INSERT INTO rate_counts(key_name, policy, bucket, count)
  SELECT * FROM unnest($1::text[], $2::smallint[], $3::bigint[], $4::int[])
  ON CONFLICT (key_name, policy, bucket) DO UPDATE SET count = rate_counts.count + excluded.count
  RETURNING key_name, policy, bucket, count)
SELECT key_name, policy, bucket, count FROM up
UNION ALL
SELECT r.key_name, r.policy, r.bucket, r.count FROM rate_counts r
WHERE r.key_name = ANY($5::text[]) AND r.bucket >= CASE r.policy WHEN 0 THEN $6::bigint ELSE $7::bigint END
  AND NOT EXISTS (SELECT 1 FROM up WHERE up.key_name = r.key_name AND up.policy = r.policy AND up.bucket = r.bucket)`;

const INSERT_ATTEMPT = 'INSERT INTO attempts(key_hash, at) VALUES (?, ?)';

/** Connections of the pool for statuses and rate counts: single statements of a few ms. */
const STATUS_CONNECTIONS = 2;
/** Statuses within the TTL, and every EVSE's OCPI uid (D222) however old its status. */
const LOAD_STATUSES = 'SELECT evse_id, state, at, uid_key FROM evse_statuses WHERE at >= $1 OR uid_key IS NOT NULL';

export class PgStore extends FaultTracking implements LiveStore {
  /** Connections of the main pool: open, idle, and queries waiting for one (D120). */
  poolStats(): { total: number; idle: number; waiting: number } {
    return { total: this.pool.totalCount, idle: this.pool.idleCount, waiting: this.pool.waitingCount };
  }

  readonly kind = 'postgres' as const;
  readonly shared = true;
  readonly where: string;
  private readonly pool: pg.Pool;
  /**
   * Connections for statuses (D216), rate counts (D218) and attempts (D219): UNLOGGED tables, not durable, so their
   * commits need not wait for the WAL flush; these connections say so, every other write keeps
   * synchronous commits.
   */
  private statusPool: pg.Pool | null = null;
  /** SQL text → its statement: numbered placeholders and a name (prepared once per connection). */
  private readonly statements = new Map<string, { name: string; text: string }>();
  private readonly listeners: Array<(change: StoreChange) => void> = [];
  private readonly statusSubscribers: Array<{ rows: (r: StatusRow[]) => void; reset: () => void }> = [];
  /** This process among the replicas: its own status announcements come back to it and are skipped. */
  private readonly origin = randomBytes(6).toString('base64url');
  sharedStatuses: SharedStatuses = {
    write: (rows) => this.writeStatuses(rows),
    load: (sinceAt) =>
      this.query<StatusRow & { uid_key: string | null }>(LOAD_STATUSES, [sinceAt], false).then((r) =>
        r.map((x) => ({ evse_id: x.evse_id, state: Number(x.state), at: Number(x.at), uid: x.uid_key })),
      ),
    subscribe: (rows, reset) => {
      this.statusSubscribers.push({ rows, reset });
      // Already listening (the catalog's follower came first): load now; else once connected.
      if (this.listener !== null) queueMicrotask(reset);
      else this.startListening();
    },
  };
  sharedCounters: SharedCounters = {
    exchange: (deltas, keys, since) => this.exchangeCounts(deltas, keys, since),
    prune: (before) =>
      this.query('DELETE FROM rate_counts WHERE bucket < CASE policy WHEN 0 THEN $1::bigint ELSE $2::bigint END', [before[0], before[1]], true, this.sharedPool()).then(() => undefined),
  };
  /** D219: the accounts' guessing limits, one transaction per attempt holding a lock on its key. */
  sharedAttempts: SharedAttempts = {
    take: (key, limit, windowMs, now, count) => this.within('BEGIN', (s) => this.takeAttempt(s, key, limit, windowMs, now, count), true, this.sharedPool()),
    count: (key, now) => this.within('BEGIN', (s) => s.run(INSERT_ATTEMPT, [key, now]).then(() => undefined), true, this.sharedPool()),
    release: (key, at) =>
      this.within('BEGIN', (s) => s.run('DELETE FROM attempts WHERE ctid IN (SELECT ctid FROM attempts WHERE key_hash = ? AND at = ? LIMIT 1)', [key, at]).then(() => undefined), true, this.sharedPool()),
  };
  private readonly swapSubscribers: Array<{ swap: (id: number) => void; reset: () => void }> = [];
  /** D220: snapshot swaps recorded and announced to every replica. */
  readonly sharedSwaps: SharedSwaps = sharedSwapsOver(
    (text, params, write) => this.query<never>(text, params, write),
    this.origin,
    CHANNEL,
    (swap, reset) => {
      this.swapSubscribers.push({ swap, reset });
      if (this.listener !== null) queueMicrotask(reset);
      else this.startListening();
    },
  );
  /** D221: the store holding this one's short-lived shared state, when that is another database. */
  private stateStore: PgStore | null = null;
  private attemptsPrunedAt = 0;
  private listener: pg.Client | null = null;
  /** The listening connection is being opened (one at a time, whoever asks first). */
  private connecting = false;
  private listenTimer: NodeJS.Timeout | null = null;
  private closed = false;

  private constructor(
    private readonly url: string,
    private readonly opts: PgStoreOptions,
  ) {
    super();
    const u = new URL(url);
    this.where = `postgres://${u.hostname}:${u.port || 5432}${u.pathname}`;
    this.pool = this.newPool(opts.poolMax ?? 10);
  }

  private newPool(max: number, options?: string): pg.Pool {
    const pool = new pg.Pool({
      connectionString: this.url,
      max,
      connectionTimeoutMillis: this.opts.connectTimeoutMs ?? 2000,
      query_timeout: this.opts.queryTimeoutMs ?? 10_000,
      idleTimeoutMillis: 30_000,
      keepAlive: true,
      ...(options !== undefined ? { options } : {}),
    });
    // An idle connection lost (a restart): the pool drops it and connects anew on demand.
    pool.on('error', () => {});
    // D174: a connection lost while checked out (between the statements of a transaction) emits
    // 'error' on its client, where the pool listens only while it is idle; unheard, that error
    // ended the process. Every client hears it: the next statement on it fails as a storage
    // fault, and the transaction releases the client as broken.
    pool.on('connect', (client) => client.on('error', () => {}));
    return pool;
  }

  /** Connects (and migrates, unless told not to); rejects when the database cannot be reached. */
  static async open(url: string, opts: PgStoreOptions = {}): Promise<PgStore> {
    const store = new PgStore(url, opts);
    try {
      if (opts.migrate !== false) await store.migrate();
      else {
        try {
          await store.versions();
        } catch (e) {
          if ((e as { code?: string }).code === '42P01') throw new Error(`no live store in ${store.where}: start the service once on this database`);
          throw e;
        }
      }
    } catch (e) {
      await store.close();
      throw e;
    }
    return store;
  }

  /**
   * Creates database `name` on the server of `adminUrl` unless it exists (throw-away clusters of
   * tests and benches); resolves to its URL.
   */
  static async createDatabase(adminUrl: string, name: string): Promise<string> {
    if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`not a plain database name: ${name}`);
    const c = new pg.Client({ connectionString: adminUrl });
    await c.connect();
    try {
      const exists = await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
      if (exists.rowCount === 0) await c.query(`CREATE DATABASE ${name}`);
    } finally {
      await c.end();
    }
    const u = new URL(adminUrl);
    u.pathname = `/${name}`;
    return u.toString();
  }

  private statement(text: string): { name: string; text: string } {
    let s = this.statements.get(text);
    if (s === undefined) this.statements.set(text, (s = { name: `cps${this.statements.size}`, text: numbered(text) }));
    return s;
  }

  private sqlOf(client: pg.PoolClient): Sql {
    const query = async <R>(text: string, params: readonly unknown[]): Promise<pg.QueryResult<R & pg.QueryResultRow>> => {
      const s = this.statement(text);
      try {
        return await client.query<R & pg.QueryResultRow>({ name: s.name, text: s.text, values: params as unknown[] });
      } catch (e) {
        throw isFault(e) ? faultOf(e) : e;
      }
    };
    return {
      all: async <R>(text: string, params: readonly unknown[] = []) => (await query<R>(text, params)).rows as R[],
      get: async <R>(text: string, params: readonly unknown[] = []) => (await query<R>(text, params)).rows[0] as R | undefined,
      run: async (text: string, params: readonly unknown[] = []) => (await query(text, params)).rowCount ?? 0,
    };
  }

  private async connect(pool: pg.Pool = this.pool): Promise<pg.PoolClient> {
    try {
      return await pool.connect();
    } catch (e) {
      throw faultOf(e);
    }
  }

  /** One transaction; only a committed write ends a fault period (reads work on a full disk too). */
  private async within<T>(begin: string, fn: (s: Sql) => Promise<T>, write: boolean, pool: pg.Pool = this.pool): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.connect(pool);
    } catch (e) {
      this.faults.failed(faultOf(e));
      throw faultOf(e);
    }
    let broken: Error | undefined;
    try {
      try {
        await client.query(begin);
      } catch (e) {
        throw isFault(e) ? faultOf(e) : e;
      }
      const r = await fn(this.sqlOf(client));
      try {
        await client.query('COMMIT');
      } catch (e) {
        throw isFault(e) ? faultOf(e) : e;
      }
      if (write) this.faults.worked();
      return r;
    } catch (e) {
      if (e instanceof StorageUnavailableError) {
        broken = e;
        this.faults.failed(e);
      } else {
        try {
          await client.query('ROLLBACK');
        } catch (r) {
          broken = r as Error;
        }
      }
      throw e;
    } finally {
      // A connection that failed is closed, not reused.
      client.release(broken);
    }
  }

  tx<T>(fn: (s: Sql) => Promise<T>): Promise<T> {
    return traced('store.write', () => this.within(`BEGIN; SELECT pg_advisory_xact_lock(${WRITE_LOCK})`, fn, true));
  }

  read<T>(fn: (s: Sql) => Promise<T>): Promise<T> {
    return traced('store.read', () => this.within('BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY', fn, false));
  }

  private async writeStatuses(rows: readonly StatusRow[]): Promise<void> {
    const newest = newestPerEvse(rows);
    if (newest.length === 0) return;
    const params = [newest.map((r) => r.evse_id), newest.map((r) => r.state), newest.map((r) => r.at), statusPayloads(this.origin, newest), newest.map((r) => r.uid ?? null)];
    await this.query(WRITE_STATUSES, params, true, this.sharedPool());
  }

  /** Connections for the short-lived shared state (statuses, rate counts), made on first use. */
  private sharedPool(): pg.Pool {
    return (this.statusPool ??= this.newPool(STATUS_CONNECTIONS, '-c synchronous_commit=off'));
  }

  private async takeAttempt(s: Sql, key: string, limit: number, windowMs: number, now: number, count: boolean): Promise<number> {
    await s.get('SELECT pg_advisory_xact_lock(hashtextextended(?, 0))', [key]);
    if (now - this.attemptsPrunedAt >= PRUNE_EVERY_MS) {
      this.attemptsPrunedAt = now;
      await s.run('DELETE FROM attempts WHERE at < ?', [now - PRUNE_AFTER_MS]);
    }
    await s.run('DELETE FROM attempts WHERE key_hash = ? AND at <= ?', [key, now - windowMs]);
    const r = (await s.get<{ n: string; oldest: string | null }>('SELECT count(*) AS n, min(at) AS oldest FROM attempts WHERE key_hash = ?', [key]))!;
    if (Number(r.n) >= limit) return Math.max(1, Math.ceil((Number(r.oldest) + windowMs - now) / 1000));
    if (count) await s.run(INSERT_ATTEMPT, [key, now]);
    return 0;
  }

  private async exchangeCounts(deltas: readonly BucketCount[], keys: readonly string[], since: readonly [number, number]): Promise<BucketCount[]> {
    const d = inLockOrder(deltas);
    const params = [d.map((x) => x.key), d.map((x) => x.policy), d.map((x) => x.bucket), d.map((x) => x.count), keys, since[0], since[1]];
    const rows = await this.query<{ key_name: string; policy: number; bucket: string; count: number }>(EXCHANGE_COUNTS, params, true, this.sharedPool());
    return rows.map((r) => ({ key: r.key_name, policy: Number(r.policy), bucket: Number(r.bucket), count: Number(r.count) }));
  }

  /** One statement outside a transaction (its own commit); storage faults count as in `within`. */
  private async query<R extends pg.QueryResultRow>(text: string, params: unknown[], write: boolean, pool: pg.Pool = this.pool): Promise<R[]> {
    try {
      const r = await pool.query<R>(text, params);
      if (write) this.faults.worked();
      return r.rows;
    } catch (e) {
      if (!isFault(e)) throw e;
      const f = faultOf(e);
      this.faults.failed(f);
      throw f;
    }
  }

  async versions(): Promise<StoreVersions> {
    const s = this.statement(VERSIONS_SQL);
    try {
      const r = await this.pool.query<{ catalog: number; keys: number }>({ name: s.name, text: s.text });
      return r.rows[0];
    } catch (e) {
      if (!isFault(e)) throw e;
      const f = faultOf(e);
      this.faults.failed(f);
      throw f;
    }
  }

  async writeProblem(): Promise<string | null> {
    try {
      const r = await this.pool.query<{ standby: boolean }>('SELECT pg_is_in_recovery() AS standby');
      if (r.rows[0].standby) return `${this.where} is a read-only standby`;
      return null;
    } catch (e) {
      return `database unreachable: ${(e as Error).message}`;
    }
  }

  listen(fn: (change: StoreChange) => void): void {
    this.listeners.push(fn);
    this.startListening();
  }

  /** Opens the listening connection unless it is open, being opened, or waiting to be opened again. */
  private startListening(): void {
    if (this.listener === null && this.listenTimer === null && !this.connecting) void this.connectListener(0);
  }

  private hearStatuses(payload: string): void {
    const p = parseStatusPayload(payload);
    if (p === null || p.origin === this.origin) return;
    for (const sub of this.statusSubscribers) sub.rows(p.rows);
  }

  private tell(change: StoreChange): void {
    for (const fn of this.listeners) fn(change);
  }

  private async connectListener(attempt: number): Promise<void> {
    this.listenTimer = null;
    if (this.closed) return;
    const c = new pg.Client({ connectionString: this.url, connectionTimeoutMillis: 2000, keepAlive: true });
    let lost = false;
    const again = (): void => {
      if (lost || this.closed) return;
      lost = true;
      if (this.listener === c) this.listener = null;
      void c.end().catch(() => {});
      const delay = Math.min(5000, 100 * 2 ** Math.min(attempt, 6));
      this.listenTimer = setTimeout(() => void this.connectListener(attempt + 1), delay);
      this.listenTimer.unref();
    };
    c.on('error', again);
    c.on('end', again);
    this.connecting = true;
    try {
      await c.connect();
      await c.query(`LISTEN ${CHANNEL}`);
    } catch {
      this.connecting = false;
      again();
      return;
    }
    this.connecting = false;
    if (this.closed) {
      await c.end().catch(() => {});
      return;
    }
    this.listener = c;
    attempt = 0;
    c.on('notification', (m) => {
      const payload = m.payload ?? '';
      const kind = payload.slice(0, payload.indexOf(':'));
      if (kind === 'catalog' || kind === 'keys') this.tell(kind);
      else if (kind === STATUS_KIND) this.hearStatuses(payload);
      else if (kind === SWAP_KIND) this.hearSwap(payload);
    });
    // Anything committed while not listening (before the first LISTEN, during an outage) is
    // caught up by the listeners from the store's own counters, and statuses loaded again.
    this.tell('catalog');
    this.tell('keys');
    for (const sub of this.statusSubscribers) sub.reset();
    for (const sub of this.swapSubscribers) sub.reset();
  }

  private hearSwap(payload: string): void {
    const p = parseSwapPayload(payload);
    if (p === null || p.origin === this.origin) return;
    for (const sub of this.swapSubscribers) sub.swap(p.id);
  }

  private async migrate(): Promise<void> {
    const client = await this.connect();
    try {
      await client.query(`SELECT pg_advisory_lock(${MIGRATION_LOCK})`);
      await client.query(
        'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)',
      );
      const done = new Set((await client.query<{ version: number }>('SELECT version FROM schema_migrations')).rows.map((r) => r.version));
      for (const m of POSTGRES_MIGRATIONS) {
        if (done.has(m.version)) continue;
        await client.query('BEGIN');
        try {
          await client.query(m.sql);
          await client.query('INSERT INTO schema_migrations(version, name, applied_at) VALUES ($1, $2, $3)', [m.version, m.name, Date.now()]);
          await client.query('COMMIT');
        } catch (e) {
          await client.query('ROLLBACK');
          throw e;
        }
      }
      await client.query(`SELECT pg_advisory_unlock(${MIGRATION_LOCK})`);
    } finally {
      client.release();
    }
  }

  /**
   * D221: statuses, rate counts and attempts go to `other` (SHARED_STATE_URL), which this store
   * closes with itself; snapshot swaps stay here, durable with the catalog.
   */
  shareStateThrough(other: PgStore): void {
    this.stateStore = other;
    this.sharedStatuses = other.sharedStatuses;
    this.sharedCounters = other.sharedCounters;
    this.sharedAttempts = other.sharedAttempts;
  }

  async close(): Promise<void> {
    await this.stateStore?.close();
    this.closed = true;
    if (this.listenTimer !== null) clearTimeout(this.listenTimer);
    const l = this.listener;
    this.listener = null;
    if (l !== null) await l.end().catch(() => {});
    await this.pool.end().catch(() => {});
    await this.statusPool?.end().catch(() => {});
  }
}
