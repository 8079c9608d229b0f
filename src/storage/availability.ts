/**
 * The availability table of the live store (D3): counts per station group written by another
 * process (a status feed). Read on every station answer, so reads are synchronous and cheap:
 *
 * - SQLite: the rows are read again only when the file's `data_version` moved (another
 *   connection committed) or this process wrote; `data_version` itself is read once per turn of
 *   the event loop (D266: each read starts a read transaction on the file, 7 µs, a fifth of
 *   a cached station read's time), so requests handled in one turn share it;
 * - PostgreSQL: the rows are polled every `pollMs` in the background (one small query when
 *   nothing changed); a failed poll keeps the last rows, so station answers never wait for, or
 *   fail with, the database (D152).
 */
import type { Statement } from './sqlite-driver.js';
import type { LiveStore } from './live.js';
import { SqliteStore } from './sqlite-store.js';

export interface AvailabilityRow {
  station_id: string;
  group_index: number;
  available: number;
}

export interface AvailabilitySource {
  /** Moves whenever the rows may have changed. */
  version(): number;
  rows(): AvailabilityRow[];
  /** Writes rows (status feeds and tests). */
  write(rows: readonly AvailabilityRow[], now: number): Promise<void>;
  close(): void;
}

const ALL = 'SELECT station_id, group_index, available FROM station_availability ORDER BY station_id, group_index';
const UPSERT = `INSERT INTO station_availability(station_id, group_index, available, updated_at) VALUES (?, ?, ?, ?)
  ON CONFLICT(station_id, group_index) DO UPDATE SET available = excluded.available, updated_at = excluded.updated_at`;

function writeRows(store: LiveStore, rows: readonly AvailabilityRow[], now: number): Promise<void> {
  return store.tx(async (s) => {
    for (const r of rows) await s.run(UPSERT, [r.station_id, r.group_index, r.available, now]);
  });
}

class SqliteAvailability implements AvailabilitySource {
  private local = 0;
  /** `data_version` as read in this turn of the event loop, or -1 (D266). */
  private turnVersion = -1;
  private readonly endTurn = (): void => {
    this.turnVersion = -1;
  };
  private readonly all: Statement<AvailabilityRow>;
  private readonly dataVersion: Statement<number>;

  constructor(private readonly store: SqliteStore) {
    this.dataVersion = store.db.preparePluck<number>('PRAGMA data_version');
    this.all = store.db.prepare<AvailabilityRow>(ALL);
  }

  version(): number {
    if (this.turnVersion < 0) {
      this.turnVersion = this.dataVersion.get()!;
      setImmediate(this.endTurn);
    }
    return this.turnVersion * 1_000_000 + this.local;
  }

  rows(): AvailabilityRow[] {
    return this.all.all();
  }

  async write(rows: readonly AvailabilityRow[], now: number): Promise<void> {
    await writeRows(this.store, rows, now);
    this.local++;
  }

  close(): void {}
}

class PolledAvailability implements AvailabilitySource {
  private v = 0;
  private current: AvailabilityRow[] = [];
  private stamp = '';
  private readonly timer: NodeJS.Timeout;
  private polling = false;

  constructor(
    private readonly store: LiveStore,
    pollMs: number,
  ) {
    this.timer = setInterval(() => void this.poll(), pollMs);
    this.timer.unref();
    void this.poll();
  }

  private async poll(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    try {
      await this.store.read(async (s) => {
        const h = await s.get<{ n: number; at: number | null; a: number | null }>('SELECT count(*) AS n, max(updated_at) AS at, sum(available) AS a FROM station_availability');
        const stamp = `${h!.n}/${h!.at}/${h!.a}`;
        if (stamp === this.stamp) return;
        this.current = await s.all<AvailabilityRow>(ALL);
        this.stamp = stamp;
        this.v++;
      });
    } catch {
      // Kept: the last rows; the store's fault log says what failed.
    } finally {
      this.polling = false;
    }
  }

  version(): number {
    return this.v;
  }

  rows(): AvailabilityRow[] {
    return this.current;
  }

  async write(rows: readonly AvailabilityRow[], now: number): Promise<void> {
    await writeRows(this.store, rows, now);
    this.stamp = '';
    await this.poll();
  }

  close(): void {
    clearInterval(this.timer);
  }
}

/** The availability source of a store (`pollMs`: how often a shared store is read again). */
export function availabilitySource(store: LiveStore, pollMs = 1000): AvailabilitySource {
  return store instanceof SqliteStore ? new SqliteAvailability(store) : new PolledAvailability(store, pollMs);
}
