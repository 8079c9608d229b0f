/**
 * The availability table's version on SQLite (D266): `data_version` is read once per turn of
 * the event loop, so the requests of one turn share it, and a commit of another connection shows
 * from the next turn on; this process's own writes show at once.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { availabilitySource } from '../../src/storage/availability.js';
import { openLiveStore } from '../../src/storage/open.js';

const nextTurn = (): Promise<void> => new Promise((r) => setImmediate(r));

describe('availability version on SQLite (D266)', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cps-avail-turn-'));
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('moves from the next turn on after another connection commits, at once after its own write', async () => {
    const store = await openLiveStore({ dataDir, databaseUrl: null });
    const other = await openLiveStore({ dataDir, databaseUrl: null });
    const source = availabilitySource(store);
    try {
      await nextTurn();
      const v0 = source.version();
      // Committed by the other connection within this turn (SQLite answers without I/O waits).
      await other.tx((s) => s.run('INSERT INTO station_availability VALUES (?, ?, ?, ?)', ['s-1', 0, 2, Date.now()]));
      expect(source.version()).toBe(v0);
      await nextTurn();
      const v1 = source.version();
      expect(v1).not.toBe(v0);
      expect(source.rows()).toEqual([{ station_id: 's-1', group_index: 0, available: 2 }]);
      await source.write([{ station_id: 's-1', group_index: 0, available: 1 }], Date.now());
      expect(source.version()).not.toBe(v1);
    } finally {
      source.close();
      await other.close();
      await store.close();
    }
  });
});
