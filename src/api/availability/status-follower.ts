/**
 * D216: a replica's copy of the EVSE statuses the other replicas of its PostgreSQL store accept.
 * Announced statuses are merged into memory as they arrive (newest per EVSE wins, so order does
 * not matter); when the listening connection opens (start) or is back (a database restart), the
 * stored statuses not older than the TTL are loaded, retried every second until that works.
 * OCPI uids that PUTs named EVSEs by come along with their statuses (D222).
 */
import type { Logger } from 'pino';
import type { LiveAvailability } from '../../domain/stations/live-availability.js';
import type { SharedStatuses, StatusRow } from '../../storage/evse-statuses.js';

const RELOAD_RETRY_MS = 1000;

export class StatusFollower {
  private closed = false;
  private retry: NodeJS.Timeout | null = null;
  /** Statuses merged from other replicas and loads since start (tests and logs). */
  merged = 0;
  loads = 0;

  constructor(
    private readonly shared: SharedStatuses,
    private readonly live: LiveAvailability,
    private readonly logger: Logger,
  ) {}

  start(): void {
    this.shared.subscribe(
      (rows) => this.merge(rows),
      () => void this.reload(),
    );
  }

  close(): void {
    this.closed = true;
    if (this.retry !== null) clearTimeout(this.retry);
  }

  private merge(rows: readonly StatusRow[]): void {
    for (const r of rows) {
      this.live.merge(r.evse_id, r.state, r.at);
      if (r.uid != null) this.live.uids.set(r.uid, r.evse_id);
    }
    this.merged += rows.length;
  }

  private async reload(): Promise<void> {
    if (this.closed) return;
    if (this.retry !== null) clearTimeout(this.retry);
    this.retry = null;
    try {
      const rows = await this.shared.load(Date.now() - this.live.ttlMs);
      this.merge(rows);
      this.loads++;
      this.logger.info({ statuses: rows.length }, 'EVSE statuses loaded from the live store');
    } catch (e) {
      this.logger.warn({ reason: (e as Error).message }, 'EVSE statuses could not be loaded from the live store; trying again');
      if (!this.closed) this.retry = setTimeout(() => void this.reload(), RELOAD_RETRY_MS).unref();
    }
  }
}
