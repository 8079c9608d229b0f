/**
 * Radius search (D25): haversine distance with R = 6,371,000 m, match when distance ≤ radius,
 * nearest first and ties by id (D18).
 *
 * geokdbush's `around` walks the kdbush tree best-first with a priority queue of points and tree
 * nodes; that is exactly what a paged radius search needs (page 1 pops only ~page-size points).
 * It cannot be used as is, though: points at the same distance leave its queue in arbitrary order,
 * and its distances are in km with its own constant. `aroundInto` is the same walk (same node
 * lower bounds) with the service's haversine and a total order (distance, then station index =
 * id order). geokdbush itself serves as the independent reference in tests and benchmarks.
 */
import type KDBush from 'kdbush';

export const EARTH_RADIUS_M = 6_371_000;
const RAD = Math.PI / 180;

const hav = (theta: number): number => {
  const s = Math.sin(theta / 2);
  return s * s;
};

/** Haversine term h of two points (distance = 2R·asin(√h)). */
function havDist(lon1: number, lat1: number, lon2: number, lat2: number, cosLat1: number): number {
  return cosLat1 * Math.cos(lat2 * RAD) * hav((lon1 - lon2) * RAD) + hav((lat1 - lat2) * RAD);
}

const distOf = (h: number): number => 2 * EARTH_RADIUS_M * Math.asin(Math.sqrt(Math.min(1, h)));

/** Great-circle distance in metres (D25). */
export function haversineMeters(lat1: number, lon1: number, lat2: number, lon2: number): number {
  return distOf(havDist(lon1, lat1, lon2, lat2, Math.cos(lat1 * RAD)));
}

interface Item {
  /** Haversine term (points) or a lower bound of it (nodes). */
  h: number;
  /** Station index for a point, -1 for a node. */
  id: number;
  left: number;
  right: number;
  axis: number;
  minLng: number;
  minLat: number;
  maxLng: number;
  maxLat: number;
}

/** Order: h ascending; at equal h nodes first (they may hold a smaller id), then points by id. */
function less(a: Item, b: Item): boolean {
  if (a.h !== b.h) return a.h < b.h;
  if (a.id === -1) return b.id !== -1;
  if (b.id === -1) return false;
  return a.id < b.id;
}

class Heap {
  readonly a: Item[] = [];
  push(x: Item): void {
    const a = this.a;
    let i = a.length;
    a.push(x);
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!less(x, a[p])) break;
      a[i] = a[p];
      i = p;
    }
    a[i] = x;
  }
  pop(): Item | undefined {
    const a = this.a;
    if (a.length === 0) return undefined;
    const top = a[0];
    const last = a.pop()!;
    const n = a.length;
    if (n > 0) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= n) break;
        const r = l + 1;
        const c = r < n && less(a[r], a[l]) ? r : l;
        if (!less(a[c], last)) break;
        a[i] = a[c];
        i = c;
      }
      a[i] = last;
    }
    return top;
  }
}

const point = (h: number, id: number): Item => ({ h, id, left: 0, right: 0, axis: 0, minLng: 0, minLat: 0, maxLng: 0, maxLat: 0 });

/**
 * Writes into `out` the indices of up to `limit` accepted points within `radiusM` metres of
 * (lon, lat), nearest first, ties by index; returns how many were written. `accept` is called
 * only for points inside the radius, in output order.
 */
export function aroundInto(
  index: KDBush,
  lon: number,
  lat: number,
  radiusM: number,
  limit: number,
  accept: ((i: number) => boolean) | null,
  out: number[],
): number {
  if (limit <= 0 || index.numItems === 0) return 0;
  const ids = index.ids;
  const coords = index.coords;
  const nodeSize = index.nodeSize;
  const cosLat = Math.cos(lat * RAD);
  // Node pruning bound, slightly widened against rounding (points are checked exactly).
  const hMax = radiusM >= Math.PI * EARTH_RADIUS_M ? 2 : hav(radiusM / EARTH_RADIUS_M) * (1 + 1e-9) + 1e-15;
  const q = new Heap();
  let count = 0;
  let node: Item | undefined = {
    h: 0, id: -1, left: 0, right: ids.length - 1, axis: 0, minLng: -180, minLat: -90, maxLng: 180, maxLat: 90,
  };
  while (node !== undefined) {
    const left = node.left;
    const right = node.right;
    if (right - left <= nodeSize) {
      for (let i = left; i <= right; i++) {
        const h = havDist(lon, lat, coords[2 * i], coords[2 * i + 1], cosLat);
        if (h <= hMax) q.push(point(h, ids[i]));
      }
    } else {
      const m = (left + right) >> 1;
      const midLng = coords[2 * m];
      const midLat = coords[2 * m + 1];
      const h = havDist(lon, lat, midLng, midLat, cosLat);
      if (h <= hMax) q.push(point(h, ids[m]));
      const axis = 1 - node.axis;
      const l: Item = {
        h: 0, id: -1, left, right: m - 1, axis,
        minLng: node.minLng, minLat: node.minLat,
        maxLng: node.axis === 0 ? midLng : node.maxLng, maxLat: node.axis === 1 ? midLat : node.maxLat,
      };
      const r: Item = {
        h: 0, id: -1, left: m + 1, right, axis,
        minLng: node.axis === 0 ? midLng : node.minLng, minLat: node.axis === 1 ? midLat : node.minLat,
        maxLng: node.maxLng, maxLat: node.maxLat,
      };
      l.h = boxDist(lon, lat, cosLat, l);
      r.h = boxDist(lon, lat, cosLat, r);
      if (l.left <= l.right && l.h <= hMax) q.push(l);
      if (r.left <= r.right && r.h <= hMax) q.push(r);
    }
    let c: Item | undefined;
    while ((c = q.pop()) !== undefined && c.id !== -1) {
      if (distOf(c.h) > radiusM) continue;
      if (accept === null || accept(c.id)) {
        out[count++] = c.id;
        if (count === limit) return count;
      }
    }
    node = c;
  }
  return count;
}

/** geokdbush's lower bound of h from the query point to any point of a node's box. */
function boxDist(lng: number, lat: number, cosLat: number, n: Item): number {
  if (lng >= n.minLng && lng <= n.maxLng) {
    if (lat < n.minLat) return hav((lat - n.minLat) * RAD);
    if (lat > n.maxLat) return hav((lat - n.maxLat) * RAD);
    return 0;
  }
  const havDLng = Math.min(hav((lng - n.minLng) * RAD), hav((lng - n.maxLng) * RAD));
  const extremumLat = vertexLat(lat, havDLng);
  if (extremumLat > n.minLat && extremumLat < n.maxLat) return partial(havDLng, cosLat, lat, extremumLat);
  return Math.min(partial(havDLng, cosLat, lat, n.minLat), partial(havDLng, cosLat, lat, n.maxLat));
}

function partial(havDLng: number, cosLat1: number, lat1: number, lat2: number): number {
  // Slightly lowered so that rounding never makes a bound exceed a contained point's h.
  return (cosLat1 * Math.cos(lat2 * RAD) * havDLng + hav((lat1 - lat2) * RAD)) * (1 - 1e-12);
}

function vertexLat(lat: number, havDLng: number): number {
  const cosDLng = 1 - 2 * havDLng;
  if (cosDLng <= 0) return lat > 0 ? 90 : -90;
  return Math.atan(Math.tan(lat * RAD) / cosDLng) / RAD;
}
