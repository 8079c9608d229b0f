/**
 * Map tiles (issue "the map at every zoom", item 7): station and cluster vector tiles at zooms 4, 8,
 * 12 and 16, drawn from a pan trace over Paris and Germany (a 1280 × 800 px map panned by half its
 * width from Paris to Munich through Frankfurt, Cologne, Hamburg and Berlin at zooms 4 and 8, and
 * around each of those cities at zooms 12 and 16; the tiles in the order a client first needs them), on the default snapshot and on the 1 M synthetic one
 * (`--synthetic`), beside the PostGIS peer serving the same tiles as pg_tileserv and Martin do
 * (bench/peer/postgis.ts: `ST_AsMVT` over `ST_AsMVTGeom` with the GiST index, `ST_SnapToGrid`
 * clusters below zoom 14). Before anything is measured the tiles are checked alike: from zoom 14
 * the same stations in both, below it clusters standing for the same stations within 5 %.
 *
 * Targets: the service is measured three ways — `uncached` (TILE_CACHE_MB=0: every tile built when
 * asked for), `cached` (the service's tile cache warm) and `ETag` (clients revalidating with
 * If-None-Match: 304) — at 50 connections (tiles/s) and one at a time (p50/p99 latency), the peer
 * the same way.
 *
 * `--startup`: instead, per snapshot the service's start-up to listening, RSS then, how long the
 * first cluster tile waits for the snapshot's clusters (built in a worker thread meanwhile) and RSS
 * once they are built.
 *
 *   npm run bench:tiles [-- --duration 5] [--runs 3] [--connections 50] [--synthetic snapshots/synthetic-1000000.sqlite] [--check] [--startup]
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { VectorTile } from '@mapbox/vector-tile';
import { PbfReader } from 'pbf';
import { defaultSnapshotPath } from '../src/config.js';
import { lngX, latY } from '../src/domain/stations/clusters.js';
import { ROOT, load, loadLine, startThrowAwayPostgres, machineLine, median, rssOf, spawnAndWait, startBare, startService, writeJson, writeResultsSection, type DynamicRequests, type Measure, type Scenario } from './lib/harness.js';

const { values } = parseArgs({
  options: {
    check: { type: 'boolean', default: false },
    duration: { type: 'string', default: '5' },
    runs: { type: 'string', default: '3' },
    connections: { type: 'string', default: '50' },
    synthetic: { type: 'string' },
    'max-tiles': { type: 'string', default: '1500' },
    startup: { type: 'boolean', default: false },
  },
});
const durationS = Number(values.duration);
const runs = values.check ? 0 : Number(values.runs);
const connections = Number(values.connections);
const ZOOMS = [4, 8, 12, 16];
/** A trace whose one-at-a-time pass takes longer is not measured at 50 connections. */
const SLOW_TRACE_MS = 60_000;
/** A target taking longer for one tile is measured one tile at a time (its backlog would slow the next runs). */
const SLOW_TILE_MS = 200;

/** Paris → Munich through the German cities (longitude, latitude). */
const PATH: Array<[number, number]> = [
  [2.3522, 48.8566],
  [4.0317, 49.2583],
  [6.1296, 49.6116],
  [8.6821, 50.1109],
  [6.9603, 50.9375],
  [9.9937, 53.5511],
  [13.405, 52.52],
  [11.582, 48.1351],
];

/**
 * The tiles of zoom z a 1280 × 800 px map (512 px tiles) needs, in first-needed order: below zoom
 * 12 panned along PATH by half its width; from zoom 12 (a city) panned in a square spiral around
 * each city of PATH, max / 8 tiles each.
 */
export function trace(z: number, max: number): string[] {
  const z2 = 2 ** z;
  const seen = new Set<string>();
  const out: string[] = [];
  const [hw, hh] = [1280 / 2 / 512, 800 / 2 / 512];
  const view = (cx: number, cy: number, cap: number): void => {
    for (let x = Math.floor(cx - hw); x <= Math.floor(cx + hw); x++) {
      for (let y = Math.max(0, Math.floor(cy - hh)); y <= Math.min(z2 - 1, Math.floor(cy + hh)); y++) {
        const k = `${z}/${((x % z2) + z2) % z2}/${y}`;
        if (!seen.has(k) && out.length < cap) {
          seen.add(k);
          out.push(k);
        }
      }
    }
  };
  if (z < 12) {
    for (let i = 0; i + 1 < PATH.length; i++) {
      const [a, b] = [PATH[i], PATH[i + 1]];
      const [ax, ay, bx, by] = [lngX(a[0]) * z2, latY(a[1]) * z2, lngX(b[0]) * z2, latY(b[1]) * z2];
      const steps = Math.max(1, Math.ceil(Math.hypot(bx - ax, by - ay) / hw));
      for (let s = 0; s <= steps; s++) view(ax + ((bx - ax) * s) / steps, ay + ((by - ay) * s) / steps, max);
    }
    return out;
  }
  PATH.forEach(([lon, lat], c) => {
    const cap = Math.round((max * (c + 1)) / PATH.length);
    let [x, y] = [lngX(lon) * z2, latY(lat) * z2];
    // A square spiral of half-view steps: right 1, down 1, left 2, up 2, right 3, …
    const dirs = [[hw, 0], [0, hh], [-hw, 0], [0, -hh]];
    for (let leg = 0; out.length < cap && leg < 400; leg++) {
      const [dx, dy] = dirs[leg % 4];
      for (let s = 0; s < (leg >> 1) + 1 && out.length < cap; s++) {
        view(x, y, cap);
        x += dx;
        y += dy;
      }
    }
  });
  return out;
}

const tileUrl = (k: string): string => `/v1/tiles/stations/${k}.mvt`;
/** A station reader's key: its station tiles carry no live counts, so they are cached and have ETags (D192). */
const READER_KEY = 'bench-key-read-stations-01';

async function fetchTile(port: number, k: string, headers: Record<string, string> = {}): Promise<{ status: number; body: Buffer; etag: string | null }> {
  const r = await fetch(`http://127.0.0.1:${port}${tileUrl(k)}`, { headers: { 'Api-Key': READER_KEY, ...headers } });
  return { status: r.status, body: Buffer.from(await r.arrayBuffer()), etag: r.headers.get('etag') };
}

/**
 * What a tile answer holds: its features, the stations its features inside the tile (not in the
 * buffer) stand for (a cluster its count, a station one), and from zoom 14 the station ids.
 */
function features(status: number, body: Buffer): { n: number; inside: number; ids: string[]; at: Map<string, [number, number]> } {
  const at = new Map<string, [number, number]>();
  if (status === 204 || body.length === 0) return { n: 0, inside: 0, ids: [], at };
  const t = new VectorTile(new PbfReader(body));
  const ids: string[] = [];
  let [n, inside] = [0, 0];
  for (const l of Object.values(t.layers)) {
    n += l.length;
    for (let k = 0; k < l.length; k++) {
      const f = l.feature(k);
      const [[p]] = f.loadGeometry();
      if (p.x >= 0 && p.x < l.extent && p.y >= 0 && p.y < l.extent) inside += l.name === 'stations' ? 1 : Number(f.properties.count);
      if (l.name === 'stations') {
        ids.push(String(f.properties.id));
        at.set(String(f.properties.id), [p.x, p.y]);
      }
    }
  }
  return { n, inside, ids: ids.sort(), at };
}

/**
 * The two sides serve the same tiles: from zoom 14 the same stations in every tile; below it the
 * clusters of the whole trace stand for the same stations within 5 % (the service clusters as
 * supercluster does, the peer by grid cells, so clusters at a tile's edge fall on either side).
 */
async function checkAlike(svc: number, peer: number, tiles: string[]): Promise<{ service: number; peer: number; tiles: number; empty: number; stations: [number, number] }> {
  let [a, b, empty, sa, sb] = [0, 0, 0, 0, 0];
  const t0 = performance.now();
  let checked = 0;
  for (const k of tiles) {
    // A peer that takes seconds a tile (low zooms on 1 M stations) is checked on the first minute's tiles.
    if (checked >= 4 && performance.now() - t0 > SLOW_TRACE_MS) break;
    checked++;
    const [s, p] = [await fetchTile(svc, k), await fetchTile(peer, k)];
    if (![200, 204].includes(s.status) || ![200, 204].includes(p.status)) throw new Error(`tile ${k}: service ${s.status}, peer ${p.status}`);
    const [fs1, fp] = [features(s.status, s.body), features(p.status, p.body)];
    if (Number(k.split('/')[0]) >= 14) sameStations(k, fs1, fp);
    a += fs1.n;
    b += fp.n;
    sa += fs1.inside;
    sb += fp.inside;
    if (fs1.n === 0) empty++;
  }
  if (Math.abs(sa - sb) > 0.05 * Math.max(sa, sb)) throw new Error(`zoom ${tiles[0]?.split('/')[0]}: the clusters stand for ${sa} stations in the service, ${sb} in the peer`);
  return { service: a, peer: b, tiles: checked, empty, stations: [sa, sb] };
}

/**
 * The same stations in a station tile, but for stations on the buffer's edge: the service cuts
 * the box in degrees, the peer in Web Mercator metres, so a station within a tile unit of the
 * edge may fall on either side.
 */
function sameStations(k: string, a: ReturnType<typeof features>, b: ReturnType<typeof features>): void {
  const onEdge = (p: [number, number] | undefined): boolean => p !== undefined && p.some((v) => Math.abs(v + 256) <= 1 || Math.abs(v - 4352) <= 1);
  const differ = [...a.ids.filter((id) => !b.at.has(id)), ...b.ids.filter((id) => !a.at.has(id))];
  const real = differ.filter((id) => !onEdge(a.at.get(id) ?? b.at.get(id)));
  if (real.length > 0) throw new Error(`tile ${k}: the stations differ (service ${a.ids.length}, peer ${b.ids.length}; ${real.join(', ')})`);
}

/** Requests cycling through the trace (one shared position: every tile is asked for in turn). */
function cycling(tiles: string[], etags?: Map<string, string>): () => DynamicRequests {
  return () => {
    let i = 0;
    return {
      // autocannon hands over its request (with the run's headers) and sends what comes back.
      setupRequest: (req) => {
        const k = tiles[i++ % tiles.length];
        const etag = etags?.get(k);
        return { ...req, method: 'GET', path: tileUrl(k), headers: { ...req.headers, 'Api-Key': READER_KEY, ...(etag !== undefined ? { 'If-None-Match': etag } : {}) } };
      },
    };
  };
}

interface Row {
  snapshot: string;
  zoom: number;
  target: string;
  tilesPerS: number;
  runsPerS: number[];
  p50: number;
  p99: number;
  non2xx: number;
  /** Measured one tile at a time over the trace (a target too slow for runs of 50 connections). */
  oneAtATime?: boolean;
}

async function measure(port: number, tiles: string[], label: { snapshot: string; zoom: number; target: string }, etags?: Map<string, string>): Promise<Row> {
  const sc: Scenario = { name: `${label.target} z${label.zoom}`, method: 'GET', path: tileUrl(tiles[0]), headers: { 'Api-Key': READER_KEY }, ...(etags !== undefined ? { expect: 304 } : {}) };
  const dyn = cycling(tiles, etags);
  // Warm-up (and the cache fill of the cached run): the whole trace once, one tile at a time.
  const once: number[] = [];
  let total = 0;
  for (const k of tiles) {
    const t = performance.now();
    await fetchTile(port, k, etags?.has(k) ? { 'If-None-Match': etags.get(k)! } : {});
    once.push(performance.now() - t);
    total += once[once.length - 1];
    if (total > SLOW_TRACE_MS) break;
  }
  if (runs > 0 && (total > SLOW_TRACE_MS || Math.max(...once) > SLOW_TILE_MS)) {
    // A target this slow (the peer's low zooms on 1 M stations: seconds a tile) would still be
    // answering one run's requests during the next: its one-at-a-time pass is its measurement.
    once.sort((a, b) => a - b);
    return { ...label, tilesPerS: (once.length * 1000) / total, runsPerS: [], p50: once[Math.floor(once.length / 2)], p99: once[Math.min(once.length - 1, Math.ceil(once.length * 0.99) - 1)], non2xx: 0, oneAtATime: true };
  }
  const all: Measure[] = [];
  for (let r = 0; r < runs; r++) all.push(await load(port, sc, durationS, connections, dyn()));
  const one = runs > 0 ? await load(port, sc, Math.min(3, durationS), 1, dyn()) : null;
  const rps = all.map((m) => m.rps);
  return {
    ...label,
    tilesPerS: runs > 0 ? median(rps) : NaN,
    runsPerS: rps,
    p50: one?.p50 ?? NaN,
    p99: one?.p99 ?? NaN,
    non2xx: all.reduce((n, m) => n + (label.target === 'service, ETag' ? 0 : m.non2xx), 0),
  };
}

async function dataset(name: string, snapshot: string, pgUrl: string): Promise<Row[]> {
  const rows: Row[] = [];
  const t0 = performance.now();
  const peer = await spawnAndWait([path.join(ROOT, 'dist/bench/peer/postgis.js'), '--snapshot', snapshot, '--database-url', pgUrl], {}, (line) => {
    const m = /^listening (\d+)$/.exec(line.trim());
    return m ? Number(m[1]) : null;
  });
  console.error(`${name}: PostGIS peer loaded and listening in ${Math.round(performance.now() - t0)} ms`);
  try {
    const traces = new Map(ZOOMS.map((z) => [z, trace(z, Number(values['max-tiles']))]));
    for (const cacheMb of ['0', '64']) {
      const svc = await startService({ snapshot, env: { TILE_CACHE_MB: cacheMb }, keys: { [READER_KEY]: ['ReadStations'] } });
      try {
        // The snapshot's clusters are built in a worker thread after start: not part of any tile's time.
        await fetchTile(svc.port, '4/8/5');
        for (const z of ZOOMS) {
          const tiles = traces.get(z)!;
          if (cacheMb === '0') {
            const alike = await checkAlike(svc.port, peer.port, tiles);
            console.error(`${name} z${z}: ${alike.tiles} of ${tiles.length} tiles (${alike.empty} empty) alike; features service ${alike.service}, peer ${alike.peer}; stations in the tiles ${alike.stations.join(' / ')}`);
            rows.push(await measure(svc.port, tiles, { snapshot: name, zoom: z, target: 'service, uncached' }));
            // The ceiling: a bare uWS app answering the same tile bytes, no routing, key or cache.
            const bare = await startBare(await Promise.all(tiles.map(async (k) => {
              const r = await fetchTile(svc.port, k);
              return { method: 'GET', path: tileUrl(k), status: r.status, body: r.body.toString('base64'), base64: true, contentType: 'application/vnd.mapbox-vector-tile' };
            })));
            try {
              rows.push(await measure(bare.port, tiles, { snapshot: name, zoom: z, target: 'bare uWS, same bytes' }));
            } finally {
              await bare.stop();
            }
            rows.push(await measure(peer.port, tiles, { snapshot: name, zoom: z, target: 'PostGIS peer' }));
          } else {
            rows.push(await measure(svc.port, tiles, { snapshot: name, zoom: z, target: 'service, cached' }));
            const etags = new Map<string, string>();
            for (const k of tiles) {
              const r = await fetchTile(svc.port, k);
              if (r.etag !== null && r.status === 200) etags.set(k, r.etag);
            }
            rows.push(await measure(svc.port, [...etags.keys()], { snapshot: name, zoom: z, target: 'service, ETag' }, etags));
          }
          if (runs > 0) console.error(rows.slice(-2).map((r) => `${name} z${r.zoom} ${r.target}: ${Math.round(r.tilesPerS)} tiles/s, p50 ${r.p50.toFixed(3)} ms`).join('\n'));
        }
      } finally {
        await svc.stop();
      }
    }
  } finally {
    await peer.stop();
  }
  return rows;
}

function table(rows: Row[]): string {
  const out = ['| snapshot | zoom | target | tiles/s (50 conns) | × PostGIS peer | × bare uWS | p50 ms (1 conn) | p99 ms (1 conn) |', '|---|---:|---|---:|---:|---:|---:|---:|'];
  for (const r of rows) {
    const like = (t: string): Row | undefined => rows.find((p) => p.snapshot === r.snapshot && p.zoom === r.zoom && p.target === t);
    const peer = like('PostGIS peer')!;
    const bare = like('bare uWS, same bytes')!;
    // A peer that finished no tile within a run: its rate is below one tile per run.
    const vsPeer = peer.tilesPerS > 0 ? (r.tilesPerS / peer.tilesPerS).toFixed(1) : `> ${Math.round(r.tilesPerS * durationS)}`;
    const rate = r.tilesPerS >= 10 ? String(Math.round(r.tilesPerS)) : r.tilesPerS > 0 ? r.tilesPerS.toFixed(2) : `< ${(1 / durationS).toFixed(1)}`;
    out.push(`| ${r.snapshot} | ${r.zoom} | ${r.target}${r.oneAtATime === true ? ' (one at a time)' : ''} | ${rate} | ${vsPeer} | ${(r.tilesPerS / bare.tilesPerS).toFixed(2)} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} |`);
  }
  return out.join('\n');
}

/** Start-up, the wait for the clusters and RSS before and after them (the median of 3 starts). */
async function startup(name: string, snapshot: string): Promise<string> {
  const rows: number[][] = [];
  for (let k = 0; k < 3; k++) {
    const svc = await startService({ snapshot, keys: { [READER_KEY]: ['ReadStations'] } });
    try {
      const atListen = rssOf(svc.proc.pid!).rssMb;
      const t = performance.now();
      const r = await fetchTile(svc.port, '4/8/5');
      if (r.status !== 200) throw new Error(`tile 4/8/5 answered ${r.status}`);
      const wait = performance.now() - t;
      await new Promise((done) => setTimeout(done, 2000));
      rows.push([svc.startMs, atListen, wait, rssOf(svc.proc.pid!).rssMb]);
    } finally {
      await svc.stop();
    }
  }
  const m = (i: number): number => median(rows.map((r) => r[i]));
  return `| ${name} | ${Math.round(m(0))} | ${Math.round(m(1))} | ${Math.round(m(2))} | ${Math.round(m(3))} | +${Math.round((100 * (m(3) - m(1))) / m(1))} % |`;
}

if (values.startup) {
  const lines = ['| snapshot | start-up to listening ms | RSS at listening MB | first cluster tile waits ms | RSS with the clusters MB | RSS growth |', '|---|---:|---:|---:|---:|---:|'];
  lines.push(await startup('default', defaultSnapshotPath()));
  if (values.synthetic !== undefined) lines.push(await startup('1 M synthetic', values.synthetic));
  const md = `### Map clusters at start-up (\`npm run bench:tiles -- --startup\`)\n\n${machineLine()}; median of 3 starts.\n\n${lines.join('\n')}\n`;
  console.log(md);
  writeResultsSection('tiles-startup', md);
  process.exit(0);
}

const pg = startThrowAwayPostgres('cps-tiles-');
const { url } = pg;
let exitCode = 0;
try {
  const rows = await dataset('default', defaultSnapshotPath(), url);
  if (values.synthetic !== undefined) rows.push(...(await dataset('1 M synthetic', values.synthetic, url)));
  if (runs > 0) {
    const md = `### Map tiles (\`npm run bench:tiles\`)\n\n${machineLine()}; ${loadLine()}; ${connections} connections, ${durationS} s × ${runs} runs (median), latency one request at a time.\n\n${table(rows)}\n`;
    console.log(md);
    writeResultsSection('tiles', md);
    writeJson('tiles', { rows, options: { durationS, runs, connections } });
  } else console.log('checked: every trace tile answered alike by the service and the PostGIS peer');
} catch (e) {
  console.error(e);
  exitCode = 1;
} finally {
  pg.stop();
}
process.exit(exitCode);
