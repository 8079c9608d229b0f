/**
 * Live EVSE statuses (OCPI 2.2.1 status updates and the bulk feed, D134–D136): held in memory by
 * EVSE id, independent of the snapshot, and turned into `available_count` per charge point group
 * through a per-snapshot EVSE index. Statuses older than the TTL count as unknown.
 */
import { normalizeEvseId } from './normalize.js';

/** OCPI 2.2.1 EVSE `Status` values. */
export const EVSE_STATUSES = [
  'AVAILABLE', 'BLOCKED', 'CHARGING', 'INOPERATIVE', 'OUTOFORDER', 'PLANNED', 'REMOVED', 'RESERVED', 'UNKNOWN',
] as const;
export type EvseStatus = (typeof EVSE_STATUSES)[number];

/** The stored state of a status: 1 AVAILABLE, -1 UNKNOWN (counts as no status), 0 any other. */
export function stateOfStatus(status: EvseStatus): number {
  return status === 'AVAILABLE' ? 1 : status === 'UNKNOWN' ? -1 : 0;
}

interface Entry {
  /** 1 = AVAILABLE, 0 = a known status that is not available, -1 = UNKNOWN (counts as no status). */
  state: number;
  /** When the status was true (ms): the update's `last_updated`, never later than its arrival. */
  at: number;
}

/**
 * D175: the OCPI uids of EVSEs, at most one per EVSE (a later uid for the same EVSE replaces the
 * earlier one), so the map is bounded by the snapshot's EVSEs however many PUTs arrive; a swap
 * drops the EVSEs the new snapshot does not have.
 */
export class EvseUids {
  private readonly byKey = new Map<string, string>();
  private readonly byId = new Map<string, string>();

  get size(): number {
    return this.byKey.size;
  }

  get(key: string): string | undefined {
    return this.byKey.get(key);
  }

  set(key: string, id: string): void {
    const before = this.byId.get(id);
    if (before !== undefined && before !== key) this.byKey.delete(before);
    const was = this.byKey.get(key);
    if (was !== undefined && was !== id) this.byId.delete(was);
    this.byKey.set(key, id);
    this.byId.set(id, key);
  }

  /** Keeps the entries whose EVSE id passes `keep`. */
  retain(keep: (id: string) => boolean): void {
    for (const [id, key] of this.byId) {
      if (keep(id)) continue;
      this.byId.delete(id);
      this.byKey.delete(key);
    }
  }
}

export class LiveAvailability {
  private readonly byEvse = new Map<string, Entry>();
  /** D175: OCPI `CC*PPP:uid` → EVSE id of PUT bodies; on PostgreSQL also those other replicas took (D222). */
  readonly uids = new EvseUids();
  /** Updates applied since start (for tests and metrics). */
  applied = 0;
  /** Updates ignored as older than the status held, and updates of EVSEs no snapshot station has (metrics, D120). */
  stale = 0;
  unknownEvses = 0;
  /** When the last update was applied (ms since the epoch; 0 before the first). */
  lastAppliedAt = 0;

  constructor(readonly ttlMs: number) {}

  /**
   * Records a status of an EVSE (canonical eMI3 id). An update older than the one held is
   * ignored (`false`): feeds may deliver out of order.
   */
  set(evseId: string, status: EvseStatus, at: number): boolean {
    const state = stateOfStatus(status);
    const e = this.byEvse.get(evseId);
    if (e !== undefined) {
      if (at < e.at) {
        this.stale++;
        return false;
      }
      e.state = state;
      e.at = at;
    } else this.byEvse.set(evseId, { state, at });
    this.applied++;
    this.lastAppliedAt = Date.now();
    return true;
  }

  /**
   * A status another replica applied, or one loaded from the shared store (D216): kept unless
   * older than the one held; counted neither as applied nor as stale here.
   */
  merge(evseId: string, state: number, at: number): void {
    const e = this.byEvse.get(evseId);
    if (e === undefined) this.byEvse.set(evseId, { state, at });
    else if (at >= e.at) {
      e.state = state;
      e.at = at;
    }
  }

  /** 1 available, 0 not available, -1 unknown (no status, UNKNOWN, or older than the TTL). */
  stateOf(evseId: string, now: number): number {
    const e = this.byEvse.get(evseId);
    if (e === undefined || now - e.at > this.ttlMs) return -1;
    return e.state;
  }

  get size(): number {
    return this.byEvse.size;
  }
}

/**
 * The EVSEs of one snapshot: EVSE id → station index and the charge point groups listing it, and
 * per station the EVSEs of each group. Built when a snapshot is loaded (start and swap).
 */
export class EvseIndex {
  private readonly byEvse = new Map<string, { station: number; groups: number[] }>();
  /** Station index → per group, its EVSE ids. */
  private readonly byStation = new Map<number, string[][]>();

  /** `rows`: per station with EVSE ids, its index and each group's `evse_ids`. */
  constructor(rows: Iterable<{ station: number; groups: readonly (readonly string[])[] }>) {
    for (const r of rows) {
      const groups: string[][] = r.groups.map(() => []);
      r.groups.forEach((ids, k) => {
        for (const raw of ids) {
          const id = normalizeEvseId(raw) ?? raw.trim().toUpperCase();
          groups[k].push(id);
          const hit = this.byEvse.get(id);
          if (hit === undefined) this.byEvse.set(id, { station: r.station, groups: [k] });
          else if (hit.station === r.station && !hit.groups.includes(k)) hit.groups.push(k);
        }
      });
      this.byStation.set(r.station, groups);
    }
  }

  /** The EVSE's canonical id when this snapshot has it (any spelling eMI3 allows), else null. */
  resolve(raw: string): string | null {
    const id = normalizeEvseId(raw) ?? raw.trim().toUpperCase();
    return this.byEvse.has(id) ? id : null;
  }

  get size(): number {
    return this.byEvse.size;
  }

  /**
   * `available_count` per group of station i from live statuses: the number of AVAILABLE EVSEs of
   * the group when at least one of its EVSEs has a current status, else -1; undefined when no
   * group of the station has one.
   */
  countsOf(i: number, live: LiveAvailability, now: number): Int32Array | undefined {
    const groups = this.byStation.get(i);
    if (groups === undefined) return undefined;
    let out: Int32Array | undefined;
    for (let k = 0; k < groups.length; k++) {
      let known = false;
      let n = 0;
      for (const id of groups[k]) {
        const s = live.stateOf(id, now);
        if (s >= 0) {
          known = true;
          n += s;
        }
      }
      if (!known) continue;
      out ??= new Int32Array(groups.length).fill(-1);
      out[k] = n;
    }
    return out;
  }
}
