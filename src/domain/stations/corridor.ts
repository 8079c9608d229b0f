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
 * Spatial work: flatbush over the segments' corridor boxes (rectangles, built per request) and the
 * station kdbush, queried once per run of consecutive segments; per candidate station one flatbush
 * point query finds the segments whose box holds it. Scratch marks are kept between requests (the
 * main thread runs one request at a time), so a request allocates per segment, not per station.
 */
import Flatbush from 'flatbush';
import { EARTH_RADIUS_M } from './geo.js';
import type { StationIndex } from './index.js';

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

  /** `points` as [longitude, latitude] pairs, at least two. */
  constructor(points: ReadonlyArray<readonly [number, number]>) {
    const n = points.length;
    this.n = n;
    this.lon = new Float64Array(n);
    this.lat = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      this.lon[i] = points[i][0];
      this.lat[i] = points[i][1];
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

  /** Distance (m) from a point to segment k and the route length to its nearest point; writes into `out`. */
  private toSegment(k: number, lon: number, lat: number, out: Float64Array): void {
    const c = this.cosMid[k];
    const ax = 0;
    const ay = 0;
    const bx = (this.lon[k + 1] - this.lon[k]) * c * M_PER_DEG;
    const by = (this.lat[k + 1] - this.lat[k]) * M_PER_DEG;
    const px = (lon - this.lon[k]) * c * M_PER_DEG;
    const py = (lat - this.lat[k]) * M_PER_DEG;
    const l2 = bx * bx + by * by;
    let t = l2 === 0 ? 0 : ((px - ax) * bx + (py - ay) * by) / l2;
    if (t < 0) t = 0;
    else if (t > 1) t = 1;
    const dx = px - t * bx;
    const dy = py - t * by;
    out[0] = Math.sqrt(dx * dx + dy * dy);
    out[1] = this.cum[k] + t * this.len[k];
  }

  /** Stations within `corridorM` of the route that `accept` keeps. */
  stationsWithin(index: StationIndex, corridorM: number, accept: (i: number) => boolean): CorridorHit {
    const segs = this.n - 1;
    const dLat = corridorM / M_PER_DEG;
    const boxes = new Flatbush(segs);
    const bMinX = new Float64Array(segs);
    const bMinY = new Float64Array(segs);
    const bMaxX = new Float64Array(segs);
    const bMaxY = new Float64Array(segs);
    for (let k = 0; k < segs; k++) {
      const minLat = Math.min(this.lat[k], this.lat[k + 1]) - dLat;
      const maxLat = Math.max(this.lat[k], this.lat[k + 1]) + dLat;
      // Longitude margin at the latitude farthest from the equator (the widest degrees there).
      const far = Math.min(89, Math.max(Math.abs(minLat), Math.abs(maxLat)));
      const dLon = corridorM / (M_PER_DEG * Math.cos(far * RAD));
      bMinX[k] = Math.min(this.lon[k], this.lon[k + 1]) - dLon;
      bMaxX[k] = Math.max(this.lon[k], this.lon[k + 1]) + dLon;
      bMinY[k] = minLat;
      bMaxY[k] = maxLat;
      boxes.add(bMinX[k], bMinY[k], bMaxX[k], bMaxY[k]);
    }
    boxes.finish();

    const mark = scratchMark(index.size);
    const hit: CorridorHit = { indices: [], detour: [], along: [] };
    const d = new Float64Array(2);
    let best = Infinity;
    let bestAlong = 0;
    let sLon = 0;
    let sLat = 0;
    const visit = (k: number): boolean => {
      this.toSegment(k, sLon, sLat, d);
      if (d[0] < best || (d[0] === best && d[1] < bestAlong)) {
        best = d[0];
        bestAlong = d[1];
      }
      return false;
    };
    const touched: number[] = [];
    for (let k0 = 0; k0 < segs; k0 += RUN_SEGMENTS) {
      const k1 = Math.min(segs, k0 + RUN_SEGMENTS);
      let minX = Infinity;
      let minY = Infinity;
      let maxX = -Infinity;
      let maxY = -Infinity;
      for (let k = k0; k < k1; k++) {
        if (bMinX[k] < minX) minX = bMinX[k];
        if (bMinY[k] < minY) minY = bMinY[k];
        if (bMaxX[k] > maxX) maxX = bMaxX[k];
        if (bMaxY[k] > maxY) maxY = bMaxY[k];
      }
      for (const i of index.kd.range(minX, minY, maxX, maxY)) {
        if (mark[i] !== 0) continue;
        mark[i] = 1;
        touched.push(i);
        sLon = index.lonAt(i);
        sLat = index.latAt(i);
        best = Infinity;
        boxes.search(sLon, sLat, sLon, sLat, visit);
        if (best <= corridorM && accept(i)) {
          hit.indices.push(i);
          hit.detour.push(best);
          hit.along.push(bestAlong);
        }
      }
    }
    for (const i of touched) mark[i] = 0;
    return hit;
  }
}

let mark = new Uint8Array(0);
function scratchMark(n: number): Uint8Array {
  if (mark.length < n) mark = new Uint8Array(n);
  return mark;
}
