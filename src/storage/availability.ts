import type Database from 'better-sqlite3';
import type { LiveStore } from './live.js';

export interface AvailabilityRow {
  station_id: string;
  group_index: number;
  available: number;
}

/**
 * Reads (and, for the coming status feed, writes) the live availability table of migration 002.
 * `version()` changes whenever the table may have changed: PRAGMA data_version covers commits of
 * other connections (another process), a local counter covers writes through this store; readers
 * cache on it and reload only when it moves.
 */
export class AvailabilityStore {
  private local = 0;
  private readonly all: Database.Statement<[], AvailabilityRow>;
  private readonly upsert: Database.Statement<[string, number, number, number]>;
  private readonly dataVersion: Database.Statement<[], number>;

  constructor(private readonly live: LiveStore) {
    this.dataVersion = live.db.prepare('PRAGMA data_version').pluck() as unknown as Database.Statement<[], number>;
    this.all = live.db.prepare('SELECT station_id, group_index, available FROM station_availability ORDER BY station_id, group_index');
    this.upsert = live.db.prepare(
      `INSERT INTO station_availability(station_id, group_index, available, updated_at) VALUES (?, ?, ?, ?)
       ON CONFLICT(station_id, group_index) DO UPDATE SET available = excluded.available, updated_at = excluded.updated_at`,
    );
  }

  version(): number {
    return this.dataVersion.get()! * 1_000_000 + this.local;
  }

  rows(): AvailabilityRow[] {
    return this.all.all();
  }

  /** Stores a batch of statuses in one transaction. */
  write(rows: readonly AvailabilityRow[], now: number): void {
    this.live.tx(() => {
      for (const r of rows) this.upsert.run(r.station_id, r.group_index, r.available, now);
    });
    this.local++;
  }
}
