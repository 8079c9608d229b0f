import type { StationIndex } from '../../domain/stations/index.js';
import type { AvailabilityStore } from '../../storage/availability.js';

/**
 * Live availability per station group (D3), keyed by station index: -1 = unknown. Reloaded from
 * the live store only when its version moves (another process committed, or a local write).
 */
export class AvailabilityView {
  private version = -1;
  private byStation = new Map<number, Int32Array>();

  constructor(
    private readonly store: AvailabilityStore,
    private readonly index: StationIndex,
  ) {}

  /** Current values; empty map when the table is empty (then every `available_count` is null). */
  current(): ReadonlyMap<number, Int32Array> {
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
    return this.byStation;
  }
}
