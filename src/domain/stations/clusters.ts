/**
 * Station clusters per zoom (D190, D191), built as supercluster builds them — greedy, from the
 * deepest zoom up, a point absorbing the unvisited points within 40 px of a 512 px tile, at the
 * count-weighted centre — but over typed arrays only: the index of 1 M stations is a few dozen
 * ArrayBuffers that a worker thread builds and hands over without copying, with the aggregates
 * the tiles show (count, max power, stations per plug type, bounding box, expansion zoom).
 * supercluster itself is the test's twin (test/domain/clusters.test.ts compares every zoom).
 * Pure: no I/O.
 */
import KDBush from 'kdbush';

/** Deepest clustered zoom: from zoom 14 the stations stand apart (D190). */
export const MAX_CLUSTER_ZOOM = 13;
/** Cluster radius as a fraction of a tile (supercluster's 40 px of 512). */
export const CLUSTER_RADIUS = 40 / 512;
export const NO_EXPANSION = 255;

/** The points to cluster: stations (by station index) with their own aggregates. */
export interface ClusterInput {
  n: number;
  /** Web Mercator x and y in [0, 1] (lngX / latY). */
  x: Float64Array;
  y: Float64Array;
  station: Int32Array;
  maxPower: Float64Array;
  /** Bit k: the station has a charge point of plug type k (k < 32). */
  plugMask: Uint32Array;
  lon: Float64Array;
  lat: Float64Array;
  /** Number of plug types (the counts' stride). */
  plugTypes: number;
}

/** The clusters of one zoom (a cluster of one carries its station). */
export interface ClusterLevel {
  n: number;
  x: Float64Array;
  y: Float64Array;
  count: Uint32Array;
  /** Station index of a cluster of one, else -1. */
  station: Int32Array;
  maxPower: Float64Array;
  /** n × plugTypes: stations with at least one charge point of that plug type. */
  plugCounts: Uint32Array;
  /** n × 4: west, south, east, north of the cluster's stations. */
  bbox: Float64Array;
  /** The zoom at which the cluster splits (NO_EXPANSION for a single station). */
  expansion: Uint8Array;
  /** kdbush data over (x, y); item id = position in this level. */
  tree: ArrayBuffer;
  /** Where the cluster's stations begin in `ClusterSet.order` (they are the next `count`). */
  start: Uint32Array;
}

export interface ClusterSet {
  plugTypes: number;
  /** levels[z], z = 0 … MAX_CLUSTER_ZOOM. */
  levels: ClusterLevel[];
  /**
   * Station indices in cluster order: the stations of every cluster of every zoom are
   * `order[start … start + count)` (D198), so a cluster's stations are read without a tree walk.
   */
  order: Int32Array;
}

export const lngX = (lng: number): number => lng / 360 + 0.5;

export function latY(lat: number): number {
  const sin = Math.sin((lat * Math.PI) / 180);
  const y = 0.5 - (0.25 * Math.log((1 + sin) / (1 - sin))) / Math.PI;
  return y < 0 ? 0 : y > 1 ? 1 : y;
}

export const xLng = (x: number): number => (x - 0.5) * 360;

export function yLat(y: number): number {
  const y2 = ((180 - y * 360) * Math.PI) / 180;
  return (360 * Math.atan(Math.exp(y2))) / Math.PI - 90;
}

/** The input points as the deepest level (every point a cluster of one). */
function inputLevel(p: ClusterInput): ClusterLevel {
  const n = p.n;
  const P = p.plugTypes;
  const plugCounts = new Uint32Array(n * P);
  const bbox = new Float64Array(n * 4);
  for (let i = 0; i < n; i++) {
    const m = p.plugMask[i];
    for (let k = 0; k < P; k++) if ((m & (1 << k)) !== 0) plugCounts[i * P + k] = 1;
    bbox[4 * i] = bbox[4 * i + 2] = p.lon[i];
    bbox[4 * i + 1] = bbox[4 * i + 3] = p.lat[i];
  }
  return {
    n,
    x: p.x,
    y: p.y,
    count: new Uint32Array(n).fill(1),
    station: p.station,
    maxPower: p.maxPower,
    plugCounts,
    bbox,
    expansion: new Uint8Array(n).fill(NO_EXPANSION),
    tree: treeOf(p.x, p.y, n),
    start: new Uint32Array(n),
  };
}

function treeOf(x: Float64Array, y: Float64Array, n: number): ArrayBuffer {
  const kd = new KDBush(n, 64, Float64Array);
  for (let i = 0; i < n; i++) kd.add(x[i], y[i]);
  kd.finish();
  return kd.data as ArrayBuffer;
}

function emptyLevel(n: number, P: number): ClusterLevel {
  return {
    n: 0,
    x: new Float64Array(n),
    y: new Float64Array(n),
    count: new Uint32Array(n),
    station: new Int32Array(n),
    maxPower: new Float64Array(n),
    plugCounts: new Uint32Array(n * P),
    bbox: new Float64Array(n * 4),
    expansion: new Uint8Array(n),
    tree: new ArrayBuffer(0),
    start: new Uint32Array(0),
  };
}

/** Appends item i of `a` to `out` as it is (a point nothing joined at this zoom). */
function copyItem(a: ClusterLevel, i: number, out: ClusterLevel, P: number, up: Int32Array): void {
  const o = out.n++;
  up[i] = o;
  out.x[o] = a.x[i];
  out.y[o] = a.y[i];
  out.count[o] = a.count[i];
  out.station[o] = a.station[i];
  out.maxPower[o] = a.maxPower[i];
  out.expansion[o] = a.expansion[i];
  for (let k = 0; k < P; k++) out.plugCounts[o * P + k] = a.plugCounts[i * P + k];
  for (let k = 0; k < 4; k++) out.bbox[o * 4 + k] = a.bbox[i * 4 + k];
}

/** Adds item i of `a` into cluster o of `out` (weighted centre sums in x, y). */
function absorb(a: ClusterLevel, i: number, out: ClusterLevel, o: number, P: number): void {
  const c = a.count[i];
  out.x[o] += a.x[i] * c;
  out.y[o] += a.y[i] * c;
  out.count[o] += c;
  if (a.maxPower[i] > out.maxPower[o]) out.maxPower[o] = a.maxPower[i];
  for (let k = 0; k < P; k++) out.plugCounts[o * P + k] += a.plugCounts[i * P + k];
  const b = out.bbox;
  if (a.bbox[4 * i] < b[4 * o]) b[4 * o] = a.bbox[4 * i];
  if (a.bbox[4 * i + 1] < b[4 * o + 1]) b[4 * o + 1] = a.bbox[4 * i + 1];
  if (a.bbox[4 * i + 2] > b[4 * o + 2]) b[4 * o + 2] = a.bbox[4 * i + 2];
  if (a.bbox[4 * i + 3] > b[4 * o + 3]) b[4 * o + 3] = a.bbox[4 * i + 3];
}

/**
 * One zoom's clusters from the next zoom's (supercluster's `_cluster` with minPoints 2), with
 * `up`: the cluster each item of `a` went into.
 */
function clusterLevel(a: ClusterLevel, z: number, P: number): { level: ClusterLevel; up: Int32Array } {
  const out = emptyLevel(a.n, P);
  const up = new Int32Array(a.n);
  const tree = KDBush.from(a.tree);
  const r = CLUSTER_RADIUS / 2 ** z;
  const visited = new Uint8Array(a.n);
  for (let i = 0; i < a.n; i++) {
    if (visited[i] === 1) continue;
    visited[i] = 1;
    const near = tree.within(a.x[i], a.y[i], r);
    let joins = false;
    for (let j = 0; j < near.length; j++) if (visited[near[j]] === 0) joins = true;
    if (!joins) {
      copyItem(a, i, out, P, up);
      continue;
    }
    const o = out.n++;
    out.station[o] = -1;
    out.expansion[o] = z + 1;
    out.bbox[4 * o] = out.bbox[4 * o + 1] = Infinity;
    out.bbox[4 * o + 2] = out.bbox[4 * o + 3] = -Infinity;
    absorb(a, i, out, o, P);
    up[i] = o;
    for (let j = 0; j < near.length; j++) {
      const b = near[j];
      if (visited[b] === 1) continue;
      visited[b] = 1;
      absorb(a, b, out, o, P);
      up[b] = o;
    }
    out.x[o] /= out.count[o];
    out.y[o] /= out.count[o];
  }
  return { level: trimmed(out, P), up };
}

function trimmed(l: ClusterLevel, P: number): ClusterLevel {
  const n = l.n;
  const x = l.x.slice(0, n);
  const y = l.y.slice(0, n);
  return {
    n,
    x,
    y,
    count: l.count.slice(0, n),
    station: l.station.slice(0, n),
    maxPower: l.maxPower.slice(0, n),
    plugCounts: l.plugCounts.slice(0, n * P),
    bbox: l.bbox.slice(0, n * 4),
    expansion: l.expansion.slice(0, n),
    tree: treeOf(x, y, n),
    start: new Uint32Array(n),
  };
}

/**
 * The clusters of zooms 0 … MAX_CLUSTER_ZOOM for the input points, deepest first. A zoom where
 * nothing joins shares the next zoom's arrays (as supercluster shares its tree).
 */
export function buildClusters(p: ClusterInput): ClusterSet {
  const P = p.plugTypes;
  const levels: ClusterLevel[] = new Array<ClusterLevel>(MAX_CLUSTER_ZOOM + 1);
  // ups[z]: the zoom-z cluster of each item of the level below (zoom z + 1, or the input at 13); null: the same items.
  const ups: Array<Int32Array | null> = new Array<Int32Array | null>(MAX_CLUSTER_ZOOM + 1);
  let prev = inputLevel(p);
  for (let z = MAX_CLUSTER_ZOOM; z >= 0; z--) {
    const { level, up } = clusterLevel(prev, z, P);
    const same = level.n === prev.n;
    levels[z] = same ? prev : level;
    ups[z] = same ? null : up;
    prev = levels[z];
  }
  return { plugTypes: P, levels, order: clusterOrder(p, levels, ups) };
}

/**
 * Numbers the stations so that every cluster's stations are contiguous (D198): zoom 0's clusters
 * take consecutive ranges by count, and each cluster's children split its range in their order.
 * Fills each level's `start` and answers the station order.
 */
function clusterOrder(p: ClusterInput, levels: ClusterLevel[], ups: Array<Int32Array | null>): Int32Array {
  const top = levels[0];
  for (let i = 0, s = 0; i < top.n; i++) {
    top.start[i] = s;
    s += top.count[i];
  }
  for (let z = 1; z <= MAX_CLUSTER_ZOOM; z++) {
    if (levels[z] !== levels[z - 1]) splitRanges(levels[z - 1], ups[z - 1], levels[z].n, (i) => levels[z].count[i], (i, at) => (levels[z].start[i] = at));
  }
  const order = new Int32Array(p.n);
  splitRanges(levels[MAX_CLUSTER_ZOOM], ups[MAX_CLUSTER_ZOOM], p.n, () => 1, (j, at) => (order[at] = p.station[j]));
  return order;
}

/** Places the n items below `parent` (their cluster through `up`, null: the same item) inside its ranges. */
function splitRanges(parent: ClusterLevel, up: Int32Array | null, n: number, count: (i: number) => number, place: (i: number, at: number) => void): void {
  const fill = new Uint32Array(parent.n);
  for (let i = 0; i < n; i++) {
    const c = up === null ? i : up[i];
    place(i, parent.start[c] + fill[c]);
    fill[c] += count(i);
  }
}

/** The ArrayBuffers of a cluster set (to transfer it between threads without copying). */
export function clusterBuffers(s: ClusterSet): ArrayBuffer[] {
  const seen = new Set<ArrayBuffer>();
  for (const l of s.levels) {
    for (const a of [l.x, l.y, l.count, l.station, l.maxPower, l.plugCounts, l.bbox, l.expansion, l.start]) seen.add(a.buffer as ArrayBuffer);
    seen.add(l.tree);
  }
  seen.add(s.order.buffer as ArrayBuffer);
  return [...seen];
}

/** Station data the clusters need (the station index's arrays, D191). */
export interface ClusterSource {
  readonly size: number;
  lonAt(i: number): number;
  latAt(i: number): number;
  readonly c: { cpStart: Uint32Array; cpPlug: Uint8Array; cpPower: Float64Array; dict: { plugs: readonly string[] } };
}

/** The stations `accept` keeps (all when null), in station order, as clustering input. */
export function clusterInput(s: ClusterSource, accept: ((i: number) => boolean) | null): ClusterInput {
  let n = 0;
  const pick = new Int32Array(s.size);
  for (let i = 0; i < s.size; i++) if (accept === null || accept(i)) pick[n++] = i;
  const p: ClusterInput = {
    n,
    x: new Float64Array(n),
    y: new Float64Array(n),
    station: pick.slice(0, n),
    maxPower: new Float64Array(n),
    plugMask: new Uint32Array(n),
    lon: new Float64Array(n),
    lat: new Float64Array(n),
    plugTypes: Math.min(32, s.c.dict.plugs.length),
  };
  const { cpStart, cpPlug, cpPower } = s.c;
  for (let j = 0; j < n; j++) {
    const i = p.station[j];
    p.lon[j] = s.lonAt(i);
    p.lat[j] = s.latAt(i);
    p.x[j] = lngX(p.lon[j]);
    p.y[j] = latY(p.lat[j]);
    let mp = 0;
    let mask = 0;
    for (let k = cpStart[i]; k < cpStart[i + 1]; k++) {
      if (cpPower[k] > mp) mp = cpPower[k];
      if (cpPlug[k] < 32) mask |= 1 << cpPlug[k];
    }
    p.maxPower[j] = mp;
    p.plugMask[j] = mask >>> 0;
  }
  return p;
}

/** The ArrayBuffers of a clustering input (moved to the building thread). */
export function inputBuffers(p: ClusterInput): ArrayBuffer[] {
  return [p.x, p.y, p.station, p.maxPower, p.plugMask, p.lon, p.lat].map((a) => a.buffer as ArrayBuffer);
}
