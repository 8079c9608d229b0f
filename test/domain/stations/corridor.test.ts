/**
 * The corridor search (D112) and the polyline decoder it reads, against their straightforward
 * twins kept here: the decoder gives the doubles of @mapbox/polyline's `decode` (bit for bit) and
 * refuses what the text check refuses; `Route.stationsWithin` finds exactly the stations, with
 * exactly the distances and route lengths, of a scan of every station against every segment whose
 * corridor box holds it (the nearest by distance, then route length), over many random routes and
 * corridors on the test snapshot, with and without refinements, also from a decoded polyline.
 */
import polyline from '@mapbox/polyline';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { mulberry32 } from '../../../src/domain/random.js';
import { EARTH_RADIUS_M } from '../../../src/domain/stations/geo.js';
import { StationIndex } from '../../../src/domain/stations/index.js';
import { Route, type CorridorHit } from '../../../src/domain/stations/corridor.js';
import { CorridorCache } from '../../../src/domain/stations/corridor-cache.js';
import { decodePolylineInto, polylineValues, type RouteLine } from '../../../src/domain/stations/polyline.js';
import { Snapshot } from '../../../src/storage/snapshot.js';

const RAD = Math.PI / 180;
const M = EARTH_RADIUS_M * RAD;

/** The twin: every station against every segment, with the corridor boxes' arithmetic. */
function scanWithin(index: StationIndex, pts: ReadonlyArray<readonly [number, number]>, corridorM: number, accept: (i: number) => boolean): Map<number, [number, number]> {
  const out = new Map<number, [number, number]>();
  const dLat = corridorM / M;
  const cum: number[] = [];
  let total = 0;
  for (let k = 0; k + 1 < pts.length; k++) {
    const c = Math.cos(((pts[k][1] + pts[k + 1][1]) / 2) * RAD);
    const dx = (pts[k + 1][0] - pts[k][0]) * c * M;
    const dy = (pts[k + 1][1] - pts[k][1]) * M;
    cum.push(total);
    total += Math.sqrt(dx * dx + dy * dy);
  }
  for (let i = 0; i < index.size; i++) {
    const lon = index.lonAt(i);
    const lat = index.latAt(i);
    let best = Infinity;
    let bestAlong = 0;
    for (let k = 0; k + 1 < pts.length; k++) {
      const [[lo0, la0], [lo1, la1]] = [pts[k], pts[k + 1]];
      const minLat = Math.min(la0, la1) - dLat;
      const maxLat = Math.max(la0, la1) + dLat;
      const dLon = corridorM / (M * Math.cos(Math.min(89, Math.max(Math.abs(minLat), Math.abs(maxLat))) * RAD));
      if (lon < Math.min(lo0, lo1) - dLon || lon > Math.max(lo0, lo1) + dLon || lat < minLat || lat > maxLat) continue;
      const c = Math.cos(((la0 + la1) / 2) * RAD);
      const bx = (lo1 - lo0) * c * M;
      const by = (la1 - la0) * M;
      const px = (lon - lo0) * c * M;
      const py = (lat - la0) * M;
      const l2 = bx * bx + by * by;
      const t = l2 === 0 ? 0 : Math.min(1, Math.max(0, (px * bx + py * by) / l2));
      const ex = px - t * bx;
      const ey = py - t * by;
      const d = Math.sqrt(ex * ex + ey * ey);
      const len = Math.sqrt(bx * bx + by * by);
      const along = cum[k] + t * len;
      if (d < best || (d === best && along < bestAlong)) [best, bestAlong] = [d, along];
    }
    if (best <= corridorM && accept(i)) out.set(i, [best, bestAlong]);
  }
  return out;
}

function expectSame(hit: CorridorHit, twin: Map<number, [number, number]>, what: string): void {
  expect(new Set(hit.indices).size, what).toBe(hit.indices.length);
  expect([...hit.indices].sort((a, b) => a - b), what).toEqual([...twin.keys()].sort((a, b) => a - b));
  hit.indices.forEach((i, j) => {
    expect(Object.is(hit.detour[j], twin.get(i)![0]), `${what}: detour of ${i}`).toBe(true);
    expect(Object.is(hit.along[j], twin.get(i)![1]), `${what}: along of ${i}`).toBe(true);
  });
}

describe('polyline decoding', () => {
  it('gives @mapbox/polyline’s doubles over random routes and refuses what is not a polyline', () => {
    const rnd = mulberry32(521);
    const line: RouteLine = { lon: new Float64Array(0), lat: new Float64Array(0), n: 0 };
    for (let n = 0; n < 500; n++) {
      const count = 1 + Math.floor(rnd() * 300);
      let lat = -89 + rnd() * 178;
      let lon = -179 + rnd() * 358;
      const pts: [number, number][] = [];
      for (let k = 0; k < count; k++) {
        const far = rnd() < 0.1;
        lat = Math.max(-90, Math.min(90, lat + (rnd() - 0.5) * (far ? 40 : 0.02)));
        lon = Math.max(-180, Math.min(180, lon + (rnd() - 0.5) * (far ? 80 : 0.02)));
        pts.push([lat, lon]);
      }
      const text = polyline.encode(pts, 5);
      expect(decodePolylineInto(text, line)).toBe(true);
      const twin = polyline.decode(text, 5);
      expect(line.n).toBe(twin.length);
      for (let k = 0; k < twin.length; k++) {
        expect(Object.is(line.lat[k], twin[k][0]) && Object.is(line.lon[k], twin[k][1]), `${text} at ${k}`).toBe(true);
      }
      // Cut inside a value or after an odd number of values: refused, the line untouched.
      const cut = text.slice(0, 1 + Math.floor(rnd() * (text.length - 1)));
      const valid = polylineValues(cut) >= 0;
      expect(decodePolylineInto(cut, line)).toBe(valid);
      if (!valid) expect(line.n).toBe(twin.length);
    }
    for (const bad of ['?', '_', 'ab cd', '~~~~', '\u00e9?', '??' + String.fromCharCode(62) + '?']) expect(decodePolylineInto(bad, line), bad).toBe(false);
    expect(decodePolylineInto('??', line)).toBe(true);
    expect([line.n, line.lat[0], line.lon[0]]).toEqual([1, 0, 0]);
  });
});

describe('corridor search', () => {
  let index: StationIndex;
  beforeAll(() => {
    const snapshot = Snapshot.open(inject('testSnapshot'));
    index = new StationIndex(snapshot.stationColumns());
    snapshot.close();
  });

  it('finds exactly the stations, distances and route lengths of the scan over random routes and corridors', () => {
    const rnd = mulberry32(522);
    let found = 0;
    for (let n = 0; n < 120; n++) {
      // Routes from a station of the snapshot: short or long steps, some turning back on themselves.
      const from = Math.floor(rnd() * index.size);
      let lon = index.lonAt(from);
      let lat = index.latAt(from);
      const pts: [number, number][] = [[lon, lat]];
      const count = 1 + Math.floor(rnd() * 120);
      const step = rnd() < 0.5 ? 0.005 : 0.08;
      for (let k = 0; k < count; k++) {
        // Back to an earlier point (a zero-length segment when it is the last one).
        if (rnd() < 0.05) pts.push(pts[rnd() < 0.5 ? pts.length - 1 : Math.floor(rnd() * pts.length)]);
        else pts.push([(lon += (rnd() - 0.5) * step), (lat += (rnd() - 0.5) * step)]);
      }
      const corridor = rnd() < 0.2 ? 1 + Math.floor(rnd() * 100) : 100 + Math.floor(rnd() * 20_000);
      const refined = rnd() < 0.3;
      const accept = (i: number): boolean => !refined || i % 3 !== 0;
      const twin = scanWithin(index, pts, corridor, accept);
      found += twin.size;
      expectSame(new Route(pts).stationsWithin(index, corridor, accept), twin, `route ${n}, corridor ${corridor}`);
      // From a decoded polyline: the decoded points, the same search.
      const line: RouteLine = { lon: new Float64Array(0), lat: new Float64Array(0), n: 0 };
      expect(decodePolylineInto(polyline.encode(pts.map(([lo, la]) => [la, lo]), 5), line)).toBe(true);
      const decoded = Array.from({ length: line.n }, (_, k) => [line.lon[k], line.lat[k]] as [number, number]);
      expectSame(new Route(line).stationsWithin(index, corridor, accept), scanWithin(index, decoded, corridor, accept), `decoded route ${n}`);
    }
    // The routes met stations (the comparison is not over empty sets).
    expect(found).toBeGreaterThan(1000);
  });
});

describe('corridors kept (D294)', () => {
  const hit = (n: number): CorridorHit => ({ indices: Array.from({ length: n }, (_, k) => 3 * k), detour: Array.from({ length: n }, (_, k) => k + 0.5), along: Array.from({ length: n }, (_, k) => 10 * k) });

  it('keeps the most recently used within its bytes, refines in the kept order', () => {
    // An entry of 10 stations and a 10-character key: 200 + 20 + 200 bytes.
    const cache = new CorridorCache(3 * 420);
    for (const k of ['key-000001', 'key-000002', 'key-000003']) cache.set(k, hit(10));
    expect(cache.size).toBe(3);
    expect(cache.get('key-000001')).toBeDefined();
    cache.set('key-000004', hit(10));
    // The least recently used (2) went, 1 was used since.
    expect(['key-000001', 'key-000002', 'key-000003', 'key-000004'].map((k) => cache.get(k) !== undefined)).toEqual([true, false, true, true]);
    // Larger than the bound alone: handed back, not kept, nothing else dropped.
    const big = cache.set('key-000005', hit(100));
    expect(big.indices.length).toBe(100);
    expect([cache.size, cache.get('key-000005')]).toEqual([3, undefined]);
    const r = CorridorCache.refine(cache.get('key-000003')!, (i) => i % 2 === 0);
    expect(r).toEqual({ indices: [0, 6, 12, 18, 24], detour: [0.5, 2.5, 4.5, 6.5, 8.5], along: [0, 20, 40, 60, 80] });
  });
});
