/**
 * Snapshot swaps across the replicas of one PostgreSQL live store (D220): the replicas alive, the
 * swaps recorded (announced on the live channel as `snapshot:<origin>:<swap id>`) and each
 * replica's outcome. The statements run on the store's main pool, with durable commits.
 */

/** Where a swap's snapshot comes from: a file name relative to SNAPSHOT_DIR, or a URL with its SHA-256. */
export type SwapSource = { file: string } | { url: string; sha256: string };

export interface RecordedSwap {
  id: number;
  version: string;
  source: SwapSource;
  byReplica: string;
  at: number;
}

/** `swapped`, `refused`, `missing`, `unreachable` (D220); `pending` in answers for one not heard of. */
/** What a replica did with a swap (D220). */
export type SwapResultKind = 'swapped' | 'refused' | 'missing' | 'unreachable';

export interface SwapOutcome {
  replica: string;
  name: string;
  outcome: SwapResultKind;
  version: string;
  detail: string | null;
}

export interface ReplicaRow {
  id: string;
  name: string;
}

export interface SharedSwaps {
  /** This process's id among the replicas (the same as its status announcements'). */
  readonly replica: string;
  /** Records this replica as alive (again) with the snapshot it serves; deletes replicas unseen for a day. */
  heartbeat(name: string, startedAt: number, version: string, now: number): Promise<void>;
  /** This replica stops: it is no longer waited on. */
  leave(): Promise<void>;
  /** The replicas seen at or after `since` (ms). */
  alive(since: number): Promise<ReplicaRow[]>;
  /** Records a swap, announces it, and resolves to its id. */
  record(version: string, source: SwapSource, now: number): Promise<number>;
  get(id: number): Promise<RecordedSwap | null>;
  /** The newest swap recorded at or after `since` by another replica, if any. */
  newestSince(since: number): Promise<RecordedSwap | null>;
  report(swapId: number, o: SwapOutcome, now: number): Promise<void>;
  outcomes(swapId: number): Promise<SwapOutcome[]>;
  /** `swap`: another replica recorded swap `id`; `reset`: the listening connection is (again) open. */
  subscribe(swap: (id: number) => void, reset: () => void): void;
}

/** Payload kind on the live channel. */
export const SWAP_KIND = 'snapshot';

export const swapPayload = (origin: string, id: number): string => `${SWAP_KIND}:${origin}:${id}`;

/** Origin and swap id of a payload of `swapPayload`, or null when it is not one. */
export function parseSwapPayload(payload: string): { origin: string; id: number } | null {
  const m = /^snapshot:([^:]+):(\d+)$/.exec(payload);
  return m === null ? null : { origin: m[1], id: Number(m[2]) };
}

/** One statement of the store; `write` says whether it ends a fault period (D152). */
export type Query = <R>(text: string, params: unknown[], write: boolean) => Promise<R[]>;

const DAY_MS = 86_400_000;

interface SwapDbRow {
  id: number;
  version: string;
  file: string | null;
  url: string | null;
  sha256: string | null;
  by_replica: string;
  at: number;
}

const toSwap = (r: SwapDbRow): RecordedSwap => ({
  id: Number(r.id),
  version: r.version,
  source: r.url !== null ? { url: r.url, sha256: r.sha256 ?? '' } : { file: r.file ?? '' },
  byReplica: r.by_replica,
  at: Number(r.at),
});

const RECORD = `WITH s AS (INSERT INTO snapshot_swaps(version, file, url, sha256, by_replica, at) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id)
  SELECT id, pg_notify($7, 'snapshot:' || $5 || ':' || id) FROM s`;
const SWAP_COLUMNS = 'id, version, file, url, sha256, by_replica, at';

/** The PostgreSQL statements of SharedSwaps over `query`; `subscribe` comes from the store's listener. */
export function sharedSwapsOver(
  query: Query,
  replica: string,
  channel: string,
  subscribe: SharedSwaps['subscribe'],
): SharedSwaps {
  return {
    replica,
    subscribe,
    heartbeat: async (name, startedAt, version, now) => {
      await query(
        `INSERT INTO replicas(id, name, started_at, seen_at, snapshot_version) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (id) DO UPDATE SET seen_at = excluded.seen_at, snapshot_version = excluded.snapshot_version`,
        [replica, name, startedAt, now, version],
        true,
      );
      await query('DELETE FROM replicas WHERE seen_at < $1', [now - DAY_MS], true);
    },
    leave: () => query('DELETE FROM replicas WHERE id = $1', [replica], true).then(() => undefined),
    alive: (since) => query<ReplicaRow>('SELECT id, name FROM replicas WHERE seen_at >= $1 ORDER BY name, id', [since], false),
    record: async (version, source, now) => {
      const [file, url, sha] = 'url' in source ? [null, source.url, source.sha256] : [source.file, null, null];
      const rows = await query<{ id: number }>(RECORD, [version, file, url, sha, replica, now, channel], true);
      return Number(rows[0].id);
    },
    get: async (id) => {
      const rows = await query<SwapDbRow>(`SELECT ${SWAP_COLUMNS} FROM snapshot_swaps WHERE id = $1`, [id], false);
      return rows.length === 0 ? null : toSwap(rows[0]);
    },
    newestSince: async (since) => {
      const rows = await query<SwapDbRow>(
        `SELECT ${SWAP_COLUMNS} FROM snapshot_swaps WHERE at >= $1 AND by_replica <> $2 ORDER BY id DESC LIMIT 1`,
        [since, replica],
        false,
      );
      return rows.length === 0 ? null : toSwap(rows[0]);
    },
    report: (swapId, o, now) =>
      query(
        `INSERT INTO snapshot_outcomes(swap_id, replica, name, outcome, version, detail, at) VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (swap_id, replica) DO UPDATE SET outcome = excluded.outcome, version = excluded.version, detail = excluded.detail, at = excluded.at`,
        [swapId, o.replica, o.name, o.outcome, o.version, o.detail, now],
        true,
      ).then(() => undefined),
    outcomes: (swapId) =>
      query<SwapOutcome>('SELECT replica, name, outcome, version, detail FROM snapshot_outcomes WHERE swap_id = $1 ORDER BY name, replica', [swapId], false),
  };
}
