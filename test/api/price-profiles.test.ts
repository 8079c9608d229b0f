/**
 * Price profiles in the live store (D196): kept while used, renewed by a use written at most once
 * an hour, gone (and deleted with the next registration) once unused for the TTL.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PriceProfiles, TOUCH_EVERY_MS, profileId, type PriceProfile } from '../../src/api/tiles/price-profiles.js';
import type { LiveStore } from '../../src/storage/live.js';
import { SqliteStore } from '../../src/storage/sqlite-store.js';

const HOUR = 3_600_000;
const TTL = 24 * HOUR;
const T0 = Date.UTC(2026, 10, 1);
const profile = (lte: number | null): PriceProfile => ({
  tariffs: ['a', 'b'],
  vehicle: 'car',
  battery_range: [10, 80],
  energy: null,
  duration: null,
  currency: 'EUR',
  start_time: 720,
  start_date: null,
  allow_unbalanced_load: false,
  include_direct_payment: false,
  charge_points_power_lte: lte,
});

describe('price profiles in the live store (D196)', () => {
  let dir: string;
  let live: LiveStore;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cps-profiles-'));
    live = SqliteStore.open(dir);
  });
  afterAll(async () => {
    await live.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const stored = (id: string) => live.read((s) => s.get<{ last_used_at: number }>('SELECT last_used_at FROM price_profiles WHERE id = ?', [id]));

  it('keeps at most PRICE_PROFILES_MAX, deleting the least recently used; a refused new one is not stored (D261)', async () => {
    const profiles = new PriceProfiles(live, TTL, () => undefined, 3);
    const t = T0 + 10 * TTL; // every profile of the other tests has expired by then
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await profiles.register(profile(60 + i), t + i)).id);
    await profiles.register(profile(61), t + 10); // a use keeps the second one among the newest
    const left = await live.read((s) => s.all<{ id: string }>('SELECT id FROM price_profiles WHERE last_used_at >= ?', [t]));
    expect(left.map((r) => r.id).sort()).toEqual([ids[1], ids[3], ids[4]].sort());
    expect((await profiles.register(profile(70), t + 20, false)).outcome).toBe('refused');
    expect(await stored(profileId(profile(70)))).toBeUndefined();
    expect((await profiles.register(profile(64), t + 21, false)).outcome).toBe('renewed'); // a known one is a use
  });

  it('derives the id from the normalised form, whatever the key order', () => {
    const p = profile(50);
    const reordered = Object.fromEntries(Object.entries(p).reverse()) as unknown as PriceProfile;
    expect(profileId(reordered)).toBe(profileId(p));
    expect(profileId(profile(51))).not.toBe(profileId(p));
  });

  it('expires a profile unused for the TTL; a use renews it, written at most once an hour', async () => {
    const profiles = new PriceProfiles(live, TTL, () => undefined);
    const { id, outcome } = await profiles.register(profile(null), T0);
    expect(outcome).toBe('created');
    expect((await profiles.register(profile(null), T0 + 1000)).outcome).toBe('renewed');
    // A use within the hour is kept in memory only; after an hour it is written.
    expect(await profiles.use(id, T0 + HOUR / 2)).toBeDefined();
    expect((await stored(id))?.last_used_at).toBe(T0 + 1000);
    expect(profiles.cached(id, T0 + TOUCH_EVERY_MS + 1000)).toBeDefined();
    await new Promise((r) => setTimeout(r, 20));
    expect((await stored(id))?.last_used_at).toBe(T0 + TOUCH_EVERY_MS + 1000);
    // Another replica (a fresh view of the store) sees it alive until the TTL after that use, then gone.
    // Another replica (a fresh view of the store) sees it alive until the TTL after the last use, and its use renews it.
    const last = T0 + TOUCH_EVERY_MS + 1000 + TTL;
    const other = new PriceProfiles(live, TTL, () => undefined);
    expect(await other.use(id, last)).toBeDefined();
    await new Promise((r) => setTimeout(r, 20));
    expect((await stored(id))?.last_used_at).toBe(last);
    const third = new PriceProfiles(live, TTL, () => undefined);
    expect(await third.use(id, last + TTL)).toBeDefined();
    const fourth = new PriceProfiles(live, TTL, () => undefined);
    expect(await fourth.use(id, last + 2 * TTL + 1)).toBeUndefined();
    expect(fourth.cached(id, last + 2 * TTL + 1)).toBeUndefined();
  });

  it('expires on every replica at once: uses only one replica knows of do not keep it alive (D196)', async () => {
    const a = new PriceProfiles(live, TTL, () => undefined);
    const { id } = await a.register(profile(33), T0);
    // Used on A within the hour after its registration: kept in A's memory only.
    expect(a.cached(id, T0 + HOUR / 2)).toBeDefined();
    // Past the TTL from the last use the store has, A refuses it as another replica would.
    expect(a.cached(id, T0 + TTL + 1)).toBeUndefined();
    expect(await a.use(id, T0 + TTL + 1)).toBeUndefined();
    expect(await new PriceProfiles(live, TTL, () => undefined).use(id, T0 + TTL + 1)).toBeUndefined();
  });

  it('forgets a profile the store no longer has when it writes its next use', async () => {
    const a = new PriceProfiles(live, TTL, () => undefined);
    const { id } = await a.register(profile(44), T0);
    await live.tx((s) => s.run('DELETE FROM price_profiles WHERE id = ?', [id]));
    // The hourly write of a use finds no row: the profile is gone here too, and not revived.
    expect(a.cached(id, T0 + HOUR)).toBeDefined();
    await new Promise((r) => setTimeout(r, 20));
    expect(a.cached(id, T0 + HOUR + 1)).toBeUndefined();
    expect(await stored(id)).toBeUndefined();
  });

  it('deletes expired profiles with the next registration', async () => {
    const profiles = new PriceProfiles(live, TTL, () => undefined);
    const old = await profiles.register(profile(11), T0);
    await profiles.register(profile(22), T0 + TTL + 1);
    expect(await stored(old.id)).toBeUndefined();
    // Registered again after it expired: a new profile (201), with the same id.
    const again = await profiles.register(profile(11), T0 + TTL + 2);
    expect(again).toEqual({ id: old.id, outcome: 'created' });
  });
});
