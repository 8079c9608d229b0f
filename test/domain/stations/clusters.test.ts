/**
 * The cluster index (D190, D191) against its twin, supercluster with the same options: for every
 * zoom the same clusters (count, centre, expansion zoom) over the test snapshot and over seeded
 * random points; the aggregates (max power, plug counts, bounding box) against the members; the
 * worker thread's build equal to the inline one.
 */
import { inject, describe, expect, it } from 'vitest';
import Supercluster from 'supercluster';
import path from 'node:path';
import { ClusterBuilder } from '../../../src/api/tiles/cluster-builder.js';
import { MAX_CLUSTER_ZOOM, NO_EXPANSION, buildClusters, clusterInput, type ClusterInput, type ClusterSet, xLng, yLat, latY, lngX } from '../../../src/domain/stations/clusters.js';
import { StationIndex } from '../../../src/domain/stations/index.js';
import { Snapshot } from '../../../src/storage/snapshot.js';
import { ROOT } from '../../helpers/server.js';
import { mulberry32 } from '../../../src/domain/random.js';

function snapshotIndex(): StationIndex {
  const s = Snapshot.open(inject('testSnapshot'));
  try {
    return new StationIndex(s.stationColumns({ fragments: false }));
  } finally {
    s.close();
  }
}

function randomInput(n: number, seed: number): ClusterInput {
  const rnd = mulberry32(seed);
  const p: ClusterInput = { n, x: new Float64Array(n), y: new Float64Array(n), station: new Int32Array(n), maxPower: new Float64Array(n), plugMask: new Uint32Array(n), lon: new Float64Array(n), lat: new Float64Array(n), plugTypes: 3 };
  for (let i = 0; i < n; i++) {
    // Dense spots and scattered points, as stations are.
    const spot = i % 3 === 0;
    p.lon[i] = spot ? 2 + rnd() * 0.05 : -10 + rnd() * 40;
    p.lat[i] = spot ? 48 + rnd() * 0.05 : 35 + rnd() * 25;
    p.x[i] = lngX(p.lon[i]);
    p.y[i] = latY(p.lat[i]);
    p.station[i] = i;
    p.maxPower[i] = Math.round(rnd() * 350);
    p.plugMask[i] = 1 + Math.floor(rnd() * 7);
  }
  return p;
}

/** A cluster as compared: count and expansion zoom exactly, the centre within 1e-4 degrees. */
type Row = [number, number, number, number];

/**
 * Each zoom's rows in one order (count, expansion, longitude). supercluster keeps coordinates as
 * 2^-30 fractions of the world, this index as doubles: centres differ in the sixth decimal.
 */
function sorted(rows: Row[]): Row[] {
  return rows.sort((a, b) => a[0] - b[0] || a[3] - b[3] || a[1] - b[1] || a[2] - b[2]);
}

function expectSame(got: Row[][], expected: Row[][], label: string): void {
  for (let z = 0; z <= MAX_CLUSTER_ZOOM; z++) {
    expect(got[z].length, `${label} zoom ${z}`).toBe(expected[z].length);
    for (let k = 0; k < got[z].length; k++) {
      const [g, e] = [got[z][k], expected[z][k]];
      expect([g[0], g[3]], `${label} zoom ${z} #${k}`).toEqual([e[0], e[3]]);
      expect(Math.abs(g[1] - e[1]) + Math.abs(g[2] - e[2]), `${label} zoom ${z} #${k} centre`).toBeLessThan(1e-4);
    }
  }
}

/** Each zoom's clusters as supercluster computes them: count, centre, expansion zoom. */
function twin(p: ClusterInput): Row[][] {
  const sc = new Supercluster({ radius: 40, extent: 512, maxZoom: MAX_CLUSTER_ZOOM, minPoints: 2 });
  const points = Array.from({ length: p.n }, (_, i) => ({ type: 'Feature' as const, properties: { i }, geometry: { type: 'Point' as const, coordinates: [p.lon[i], p.lat[i]] } }));
  sc.load(points);
  const out: Row[][] = [];
  for (let z = 0; z <= MAX_CLUSTER_ZOOM; z++) {
    out.push(
      sorted(
        sc.getClusters([-180, -90, 180, 90], z).map((f): Row => {
          const c = f.properties as { cluster?: boolean; point_count?: number; cluster_id?: number };
          const [lon, lat] = f.geometry.coordinates;
          return [c.point_count ?? 1, lon, lat, c.cluster ? sc.getClusterExpansionZoom(c.cluster_id!) : NO_EXPANSION];
        }),
      ),
    );
  }
  return out;
}

function mine(s: ClusterSet): Row[][] {
  return s.levels.map((l) => {
    const rows: Row[] = [];
    for (let k = 0; k < l.n; k++) rows.push([l.count[k], xLng(l.x[k]), yLat(l.y[k]), l.expansion[k]]);
    return sorted(rows);
  });
}

describe('cluster index (D190, D191)', () => {
  it('equals supercluster at every zoom over the test snapshot', () => {
    const index = snapshotIndex();
    const input = clusterInput(index, null);
    expect(input.n).toBe(index.size);
    const expected = twin(input);
    const got = mine(buildClusters(input));
    expectSame(got, expected, 'snapshot');
    // The hierarchy is not trivial: zoom 0 holds a few clusters, zoom 13 mostly single stations.
    expect(got[0].length).toBeLessThan(10);
    expect(got[MAX_CLUSTER_ZOOM].length).toBeGreaterThan(index.size / 2);
  });

  it('equals supercluster at every zoom over seeded random points', () => {
    for (const seed of [1, 2, 3]) {
      const input = randomInput(3000, seed);
      const expected = twin(input);
      expectSame(mine(buildClusters(input)), expected, `seed ${seed}`);
    }
  });

  it('every zoom partitions the points, and each cluster holds its members’ aggregates', () => {
    const input = randomInput(2000, 7);
    const s = buildClusters(input);
    for (let z = 0; z <= MAX_CLUSTER_ZOOM; z++) {
      const l = s.levels[z];
      let total = 0;
      for (let k = 0; k < l.n; k++) total += l.count[k];
      expect(total, `zoom ${z}`).toBe(input.n);
    }
    // At the deepest zoom a cluster's aggregates are those of the points within its box.
    const l = s.levels[MAX_CLUSTER_ZOOM];
    for (let k = 0; k < l.n; k++) {
      if (l.count[k] === 1) {
        const i = l.station[k];
        expect([l.maxPower[k], l.bbox[4 * k], l.bbox[4 * k + 1]]).toEqual([input.maxPower[i], input.lon[i], input.lat[i]]);
        continue;
      }
      const members: number[] = [];
      for (let i = 0; i < input.n; i++) {
        if (input.lon[i] >= l.bbox[4 * k] && input.lon[i] <= l.bbox[4 * k + 2] && input.lat[i] >= l.bbox[4 * k + 1] && input.lat[i] <= l.bbox[4 * k + 3]) members.push(i);
      }
      expect(members.length).toBeGreaterThanOrEqual(l.count[k]);
      expect(l.maxPower[k]).toBeLessThanOrEqual(Math.max(...members.map((i) => input.maxPower[i])));
      let plugs = 0;
      for (let p = 0; p < s.plugTypes; p++) plugs += l.plugCounts[k * s.plugTypes + p];
      expect(plugs).toBeGreaterThanOrEqual(l.count[k]);
    }
  });

  it('each cluster’s stations are one range of the cluster order, with its count, centre, box and max power (D198)', () => {
    const input = randomInput(2500, 5);
    // Station indices other than the input positions, as a filtered set has them.
    for (let j = 0; j < input.n; j++) input.station[j] = 3 * j + 1;
    const pos = new Map<number, number>();
    for (let j = 0; j < input.n; j++) pos.set(input.station[j], j);
    const s = buildClusters(input);
    expect([...s.order].sort((a, b) => a - b)).toEqual([...input.station].sort((a, b) => a - b));
    for (let z = 0; z <= MAX_CLUSTER_ZOOM; z++) {
      const l = s.levels[z];
      for (let k = 0; k < l.n; k++) {
        const members = [...s.order.subarray(l.start[k], l.start[k] + l.count[k])].map((i) => pos.get(i)!);
        const mean = (a: Float64Array): number => members.reduce((t, j) => t + a[j], 0) / members.length;
        expect(Math.abs(mean(input.x) - l.x[k]) + Math.abs(mean(input.y) - l.y[k]), `zoom ${z} #${k} centre`).toBeLessThan(1e-9);
        expect(Math.max(...members.map((j) => input.maxPower[j])), `zoom ${z} #${k} power`).toBe(l.maxPower[k]);
        expect(Math.min(...members.map((j) => input.lon[j])), `zoom ${z} #${k} west`).toBe(l.bbox[4 * k]);
        expect(Math.max(...members.map((j) => input.lat[j])), `zoom ${z} #${k} north`).toBe(l.bbox[4 * k + 3]);
        if (l.count[k] === 1) expect(members.map((j) => input.station[j])).toEqual([l.station[k]]);
      }
    }
  });

  it('a worker thread builds the same clusters as the calling thread', async () => {
    const builder = new ClusterBuilder(path.join(ROOT, 'dist/workers/cluster.worker.js'));
    try {
      const inline = buildClusters(randomInput(1500, 11));
      const threaded = await builder.build(randomInput(1500, 11));
      expect(builder.built).toBe(1);
      expect(mine(threaded)).toEqual(mine(inline));
      expect(threaded.levels.map((l) => [...l.plugCounts])).toEqual(inline.levels.map((l) => [...l.plugCounts]));
      expect([...threaded.order]).toEqual([...inline.order]);
      expect(threaded.levels.map((l) => [...l.start])).toEqual(inline.levels.map((l) => [...l.start]));
    } finally {
      await builder.close();
    }
  });

  it('refuses a build beyond one running and four waiting, never an urgent one', async () => {
    const builder = new ClusterBuilder(path.join(ROOT, 'dist/workers/cluster.worker.js'));
    try {
      const runs = Array.from({ length: 5 }, (_, k) => builder.build(randomInput(20_000, k)));
      await expect(builder.build(randomInput(10, 99))).rejects.toMatchObject({ status: 503 });
      const urgent = builder.build(randomInput(10, 98), true);
      await Promise.all([...runs, urgent]);
      expect(builder.built).toBe(6);
    } finally {
      await builder.close();
    }
  });
});
