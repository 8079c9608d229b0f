/**
 * Stations along a route (D112): every station within `corridor` metres of the route, with its
 * distance to the route (detour) and the route length from the start to its nearest point
 * (distance along).
 *
 * Geometry: each segment is measured in a local equirectangular projection centred on its own
 * mid-latitude (x = Δlon·cos φm·R, y = Δlat·R, R = 6,371 km): distance to the segment is the
 * planar point-to-segment distance there, and along-route distance the sum of the projected
 * lengths of the earlier segments plus the projection onto the nearest one. Against great-circle
 * distances the relative error is about the segment's latitude span (radians) × tan φ: below
 * 0.05 % for the segments of a few hundred metres route planners emit, about 0.4 % for a 50 km
 * north–south segment at 50° (D112); test/http/area-prices.test.ts checks membership against a
 * great-circle brute force.
 *
 * Spatial work: the station kdbush is queried once per run of consecutive segments (the box of
 * their corridor boxes); each station met is measured against the segments of that run whose
 * corridor box holds it, and keeps the nearest over all runs that meet it (every segment's box lies
 * in its run's box, so no segment is missed). Against a flatbush of the segments' boxes built per
 * request and one point query per station (the same nearest segment, the same figures), the decode,
 * route and search of Paris → Lyon (1,747 points, 189 stations in 2 km) took 0.51× the time
 * (0.66 against 1.29 ms, load 12 on 2 cores). Scratch arrays are kept between requests (the main
 * thread runs one search at a time): a request allocates its route's arrays and its answer.
 */
import { EARTH_RADIUS_M } from './geo.js';
import type { StationIndex } from './index.js';
import type { RouteLine } from './polyline.js';

const RAD = Math.PI / 180;
const M_PER_DEG = EARTH_RADIUS_M * RAD;
/** Consecutive segments whose stations are fetched by one kdbush range query. */
const RUN_SEGMENTS = 32;

export interface CorridorHit {
  /** Station indices within the corridor, in no particular order. */
  indices: number[];
  /** Metres from the route, by position in `indices`. */
  detour: number[];
  /** Metres along the route to the nearest point, by position in `indices`. */
  along: number[];
}

export class Route {
  readonly n: number;
  private readonly lon: Float64Array;
  private readonly lat: Float64Array;
  /** Per segment: cos(mid-latitude), projected length (m), route length before it (m). */
  private readonly cosMid: Float64Array;
  private readonly len: Float64Array;
  private readonly cum: Float64Array;
  readonly length: number;

  /** `points` as [longitude, latitude] pairs or a decoded line (copied), at least two. */
  constructor(points: ReadonlyArray<readonly [number, number]> | RouteLine) {
    // `in` narrows the union (Array.isArray does not narrow a readonly array).
    const n = 'n' in points ? points.n : points.length;
    this.n = n;
    if ('n' in points) {
      this.lon = points.lon.slice(0, n);
      this.lat = points.lat.slice(0, n);
    } else {
      this.lon = new Float64Array(n);
      this.lat = new Float64Array(n);
      for (let i = 0; i < n; i++) {
        this.lon[i] = points[i][0];
        this.lat[i] = points[i][1];
      }
    }
    const segs = n - 1;
    this.cosMid = new Float64Array(segs);
    this.len = new Float64Array(segs);
    this.cum = new Float64Array(segs);
    let total = 0;
    for (let k = 0; k < segs; k++) {
      const c = Math.cos(((this.lat[k] + this.lat[k + 1]) / 2) * RAD);
      this.cosMid[k] = c;
      const dx = (this.lon[k + 1] - this.lon[k]) * c * M_PER_DEG;
      const dy = (this.lat[k + 1] - this.lat[k]) * M_PER_DEG;
      this.cum[k] = total;
      this.len[k] = Math.sqrt(dx * dx + dy * dy);
      total += this.len[k];
    }
    this.length = total;
  }

  /** The [longitude, latitude] at `metres` along the route (clamped to its ends), linear within a segment. */
  pointAt(metres: number): [number, number] {
    const segs = this.n - 1;
    let k = 0;
    while (k < segs - 1 && this.cum[k] + this.len[k] < metres) k++;
    const t = this.len[k] === 0 ? 0 : Math.min(1, Math.max(0, (metres - this.cum[k]) / this.len[k]));
    return [this.lon[k] + t * (this.lon[k + 1] - this.lon[k]), this.lat[k] + t * (this.lat[k + 1] - this.lat[k])];
  }

  /** Stations within `corridorM` of the route that `accept` keeps. */
  stationsWithin(index: StationIndex, corridorM: number, accept: (i: number) => boolean): CorridorHit {
    const segs = this.n - 1;
    const s = scratchFor(index.size, segs);
    this.boxesInto(corridorM, s.box);
    const box = s.box;
    let seen = 0;
    for (let k0 = 0; k0 < segs; k0 += RUN_SEGMENTS) {
      const k1 = Math.min(segs, k0 + RUN_SEGMENTS);
      let minX = Infinity;
      let minY = Infinity;
      let maxX = -Infinity;
      let maxY = -Infinity;
      for (let k = k0; k < k1; k++) {
        if (box[4 * k] < minX) minX = box[4 * k];
        if (box[4 * k + 1] < minY) minY = box[4 * k + 1];
        if (box[4 * k + 2] > maxX) maxX = box[4 * k + 2];
        if (box[4 * k + 3] > maxY) maxY = box[4 * k + 3];
      }
      for (const i of index.kd.range(minX, minY, maxX, maxY)) {
        let q = s.slot[i] - 1;
        if (q < 0) {
          q = seen++;
          if (q === s.touched.length) grow(s);
          s.slot[i] = seen;
          s.touched[q] = i;
          s.best[q] = Infinity;
          s.along[q] = 0;
        }
        this.nearestInto(index.lonAt(i), index.latAt(i), k0, k1, box, s, q);
      }
    }
    const hit: CorridorHit = { indices: [], detour: [], along: [] };
    for (let q = 0; q < seen; q++) {
      const i = s.touched[q];
      s.slot[i] = 0;
      if (s.best[q] <= corridorM && accept(i)) {
        hit.indices.push(i);
        hit.detour.push(s.best[q]);
        hit.along.push(s.along[q]);
      }
    }
    return hit;
  }

  /**
   * Per segment its corridor box (minLon, minLat, maxLon, maxLat) into `box`: the segment's box
   * widened by `corridorM`, in longitude at the latitude farthest from the equator (the widest
   * degrees there).
   */
  private boxesInto(corridorM: number, box: Float64Array): void {
    const dLat = corridorM / M_PER_DEG;
    for (let k = 0; k < this.n - 1; k++) {
      const minLat = Math.min(this.lat[k], this.lat[k + 1]) - dLat;
      const maxLat = Math.max(this.lat[k], this.lat[k + 1]) + dLat;
      const far = Math.min(89, Math.max(Math.abs(minLat), Math.abs(maxLat)));
      const dLon = corridorM / (M_PER_DEG * Math.cos(far * RAD));
      box[4 * k] = Math.min(this.lon[k], this.lon[k + 1]) - dLon;
      box[4 * k + 1] = minLat;
      box[4 * k + 2] = Math.max(this.lon[k], this.lon[k + 1]) + dLon;
      box[4 * k + 3] = maxLat;
    }
  }

  /**
   * Folds into slot q of `s` the nearest of segments k0..k1 whose corridor box holds the point
   * (boundaries included): the smallest distance, then the smallest route length to it.
   */
  private nearestInto(lon: number, lat: number, k0: number, k1: number, box: Float64Array, s: Scratch, q: number): void {
    let best = s.best[q];
    let bestAlong = s.along[q];
    for (let k = k0; k < k1; k++) {
      if (lon < box[4 * k] || lat < box[4 * k + 1] || lon > box[4 * k + 2] || lat > box[4 * k + 3]) continue;
      const c = this.cosMid[k];
      const bx = (this.lon[k + 1] - this.lon[k]) * c * M_PER_DEG;
      const by = (this.lat[k + 1] - this.lat[k]) * M_PER_DEG;
      const px = (lon - this.lon[k]) * c * M_PER_DEG;
      const py = (lat - this.lat[k]) * M_PER_DEG;
      const l2 = bx * bx + by * by;
      let t = l2 === 0 ? 0 : (px * bx + py * by) / l2;
      if (t < 0) t = 0;
      else if (t > 1) t = 1;
      const dx = px - t * bx;
      const dy = py - t * by;
      const d = Math.sqrt(dx * dx + dy * dy);
      const along = this.cum[k] + t * this.len[k];
      if (d < best || (d === best && along < bestAlong)) {
        best = d;
        bestAlong = along;
      }
    }
    s.best[q] = best;
    s.along[q] = bestAlong;
  }
}

/**
 * Scratch kept between requests (the main thread runs one request at a time): per station its
 * slot + 1 (0: not met yet, cleared after each search), per slot the station, its nearest distance
 * and route length; per segment its corridor box.
 */
interface Scratch {
  slot: Int32Array;
  touched: Int32Array;
  best: Float64Array;
  along: Float64Array;
  box: Float64Array;
}

const scratch: Scratch = { slot: new Int32Array(0), touched: new Int32Array(1024), best: new Float64Array(1024), along: new Float64Array(1024), box: new Float64Array(0) };

function scratchFor(stations: number, segs: number): Scratch {
  if (scratch.slot.length < stations) scratch.slot = new Int32Array(stations);
  if (scratch.box.length < 4 * segs) scratch.box = new Float64Array(8 * segs);
  return scratch;
}

function grow(s: Scratch): void {
  const n = 2 * s.touched.length;
  const touched = new Int32Array(n);
  touched.set(s.touched);
  const best = new Float64Array(n);
  best.set(s.best);
  const along = new Float64Array(n);
  along.set(s.along);
  s.touched = touched;
  s.best = best;
  s.along = along;
}
