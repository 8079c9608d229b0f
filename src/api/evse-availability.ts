import { randomUUID } from 'node:crypto';
import type { AppContext } from './context.js';
import type { StationIndex } from '../domain/stations/index.js';
import { EvseIndex, type LiveAvailability } from '../domain/stations/live-availability.js';
import type { AvailabilitySource } from '../storage/availability.js';
import type { Snapshot } from '../storage/snapshot.js';

/** Per station index, `available_count` per group (-1 = unknown); undefined = all unknown. */
export interface AvailabilityLookup {
  get(i: number): Int32Array | undefined;
}

const evseIndexes = new WeakMap<Snapshot, EvseIndex>();

/** The EVSE index of a snapshot, built once per snapshot (start and each swap). */
export function evseIndexOf(snapshot: Snapshot, index: StationIndex): EvseIndex {
  let e = evseIndexes.get(snapshot);
  if (e === undefined) {
    const rows: Array<{ station: number; groups: string[][] }> = [];
    for (const r of snapshot.stationEvseGroups()) {
      const i = index.find(r.id);
      if (i !== -1) rows.push({ station: i, groups: r.groups });
    }
    e = new EvseIndex(rows);
    evseIndexes.set(snapshot, e);
  }
  return e;
}

/**
 * Live availability per station group (D3), keyed by station index: -1 = unknown. Two sources:
 * the availability table of the live store (counts per group written by another process; reloaded
 * only when its version moves) and the EVSE statuses of the status feeds (D134–D136), which win
 * for a group where they have a current status.
 */
/** The step at which expiring statuses move an answer's tag (D95). */
export const EXPIRY_STEP_MS = 60_000;

export class AvailabilityView {
  private version = -1;
  private readonly epoch = randomUUID().slice(0, 8);
  private byStation = new Map<number, Int32Array>();
  private readonly lookup: AvailabilityLookup;

  constructor(
    private readonly store: AvailabilitySource,
    private readonly index: StationIndex,
    private readonly live?: { statuses: LiveAvailability; evses: EvseIndex },
  ) {
    this.lookup =
      live === undefined || live.evses.size === 0
        ? { get: (i) => this.byStation.get(i) }
        : {
            get: (i) => {
              const fromFeed = live.evses.countsOf(i, live.statuses, Date.now());
              const fromTable = this.byStation.get(i);
              if (fromFeed === undefined || fromTable === undefined) return fromFeed ?? fromTable;
              for (let k = 0; k < fromFeed.length && k < fromTable.length; k++) if (fromFeed[k] < 0) fromFeed[k] = fromTable[k];
              return fromFeed;
            },
          };
  }

  /**
   * What the live counts of an answer depend on (its ETag, D95): the availability table's version,
   * the status updates applied and, while there are statuses that can expire (D135), the current
   * minute (the TTL when shorter) — an expiry shows within that step.
   */
  tag(): string {
    // The counters are this process's own (SQLite's data_version, the poll count, the updates
    // applied): the view's random epoch keeps a tag from another process or an earlier start
    // from ever matching.
    const table = `${this.epoch}.${this.store.version()}`;
    const live = this.live;
    if (live === undefined || live.evses.size === 0 || live.statuses.size === 0) return table;
    return `${table}.${live.statuses.applied}.${Math.floor(Date.now() / Math.min(EXPIRY_STEP_MS, live.statuses.ttlMs))}`;
  }

  /** Current values; every `available_count` is null for a station the lookup has nothing for. */
  current(): AvailabilityLookup {
    const v = this.store.version();
    if (v !== this.version) {
      const c = this.index.c;
      const next = new Map<number, Int32Array>();
      for (const r of this.store.rows()) {
        const i = this.index.find(r.station_id);
        if (i === -1) continue;
        const groups = c.cpStart[i + 1] - c.cpStart[i];
        if (r.group_index >= groups) continue;
        let a = next.get(i);
        if (!a) next.set(i, (a = new Int32Array(groups).fill(-1)));
        a[r.group_index] = r.available;
      }
      this.byStation = next;
      this.version = v;
    }
    return this.lookup;
  }
}

/** The availability view of a context's station index (one per route table, shared by its routes). */
export function stationAvailability(ctx: AppContext): AvailabilityView {
  const live = ctx.liveAvailability;
  return new AvailabilityView(ctx.availability, ctx.stations, live === undefined ? undefined : { statuses: live, evses: evseIndexOf(ctx.snapshot, ctx.stations) });
}
