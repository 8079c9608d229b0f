/**
 * The map view's cluster sets (D191): equal refinement keys share one build, the sets of
 * refinements are kept while there are at most 16 and 128 MiB of them (the newest always), a
 * build refused while the builder is busy is a 503 and is not kept; the tile cache (D192) is
 * bounded by entries and bytes, and with no memory keeps nothing.
 */
import { describe, expect, it } from 'vitest';
import type { ClusterBuilder } from '../../src/api/tiles/cluster-builder.js';
import { FILTERED_SETS, MapView, TileCache, type MapIndex } from '../../src/api/tiles/map-view.js';
import { buildClusters, type ClusterInput, type ClusterSet } from '../../src/domain/stations/clusters.js';
import type { Refinement } from '../../src/domain/stations/index.js';

const point: ClusterInput = { n: 1, x: Float64Array.of(0.5), y: Float64Array.of(0.5), station: Int32Array.of(0), maxPower: Float64Array.of(22), plugMask: Uint32Array.of(1), lon: Float64Array.of(0), lat: Float64Array.of(0), plugTypes: 1 };

/** A builder that counts its builds and answers sets of `mb` megabytes. */
function fakeBuilder(mb: () => number): { builder: Pick<ClusterBuilder, 'accepts' | 'build'>; builds: () => number; busy: (b: boolean) => void } {
  let builds = 0;
  let busy = false;
  const builder = {
    accepts: () => !busy,
    build: (): Promise<ClusterSet> => {
      builds++;
      const set = buildClusters(point);
      // Extra bytes in one level's box array stand for a large set.
      set.levels[0] = { ...set.levels[0], bbox: new Float64Array((mb() * 1024 * 1024) / 8) };
      return Promise.resolve(set);
    },
  };
  return { builder, builds: () => builds, busy: (b) => (busy = b) };
}

const index: MapIndex = { size: 1, lonAt: () => 0, latAt: () => 0, matches: () => true, c: { cpStart: Uint32Array.of(0, 1), cpPlug: Uint8Array.of(0), cpPower: Float64Array.of(22), dict: { plugs: ['ccs'] } } };
const r = {} as Refinement;
const settle = (): Promise<void> => new Promise((done) => setImmediate(done));

describe('map view (D191, D192)', () => {
  it('builds once per refinement key and keeps the 16 most recently used', async () => {
    const f = fakeBuilder(() => 1);
    const view = new MapView(index, f.builder);
    await view.ready();
    expect(f.builds()).toBe(1);
    const a = view.clusters('a', r);
    expect(view.clusters('a', r)).toBe(a);
    await a;
    expect(f.builds()).toBe(2);
    for (let k = 0; k < FILTERED_SETS; k++) await view.clusters(`k${k}`, r);
    await settle();
    expect(f.builds()).toBe(2 + FILTERED_SETS);
    // 'a' was the least recently used of 17: built again when asked for.
    await view.clusters('a', r);
    expect(f.builds()).toBe(3 + FILTERED_SETS);
    // The unfiltered set is never rebuilt.
    await view.clusters('', null);
    expect(f.builds()).toBe(3 + FILTERED_SETS);
  });

  it('keeps the sets of refinements within 128 MiB, always the newest', async () => {
    let mb = 50;
    const f = fakeBuilder(() => mb);
    const view = new MapView(index, f.builder);
    for (const k of ['a', 'b', 'c']) await view.clusters(k, r);
    await settle();
    const before = f.builds();
    await view.clusters('b', r);
    await view.clusters('c', r);
    expect(f.builds()).toBe(before);
    await view.clusters('a', r);
    expect(f.builds()).toBe(before + 1);
    mb = 300;
    await view.clusters('huge', r);
    await settle();
    await view.clusters('huge', r);
    expect(f.builds()).toBe(before + 2);
  });

  it('a build refused while the builder is busy is 503 and not kept', async () => {
    const f = fakeBuilder(() => 1);
    const view = new MapView(index, f.builder);
    f.busy(true);
    await expect(view.clusters('x', r)).rejects.toMatchObject({ status: 503 });
    f.busy(false);
    await view.clusters('x', r);
    expect(f.builds()).toBe(2);
  });

  it('the tile cache is bounded by entries and bytes; with no memory it keeps nothing', () => {
    const c = new TileCache(3, 10_000);
    for (let k = 0; k < 5; k++) c.put(`t${k}`, new Uint8Array(100));
    expect(c.size).toBe(3);
    expect(c.get('t0')).toBeUndefined();
    expect(c.get('t4')?.body?.length).toBe(100);
    const t = c.put('big', new Uint8Array(5000));
    t.keep('br', Buffer.alloc(4000));
    expect(c.byteSize).toBeLessThanOrEqual(10_000);
    expect(c.get('big')?.get('br')?.length).toBe(4000);
    const none = new TileCache(3, 0);
    none.put('a', new Uint8Array(10));
    expect(none.size).toBe(0);
    expect(none.get('a')).toBeUndefined();
  });
});
