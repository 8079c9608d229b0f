/**
 * Price tiles (D197, D198; issue "the map at every zoom", item 7): zoom-12 tiles of a 1280 × 800 px
 * map over Paris panned by half its width east and west, with 200 tariffs (the catalog's plus ones
 * generated at the snapshot's busiest operator), on the default snapshot and on the 1 M synthetic
 * one (`--synthetic`). The service runs with TILE_CACHE_MB=0, so every tile is written when asked
 * for; measured one request at a time, passes alternating, medians:
 *
 * - `cold`: each tile with a profile of its own, registered just before (nothing of it priced yet:
 *   the first view of a map with new settings) — the target, p50 ≤ 25 ms;
 * - `warm`: the same tile again (its stations priced, the tile written again);
 * - `station tile`: the same tile without prices (the baseline: what the prices add);
 * - `client path`: what a client does without price tiles to price the same stations: station
 *   search of the tile's box and buffer (pages of 1,000), then bulk previews in chunks of 100.
 *
 * Checked once before measuring: every station priced by the client path is priced alike in the
 * price tile's cluster (each cluster's price is the cheapest of its stations' bulk previews, and the
 * priced counts of the trace's clusters add up to the stations the client path priced in the tiles).
 *
 *   npm run bench:price-tiles [-- --passes 5] [--synthetic /path/synthetic-1000000.sqlite] [--check]
 *
 * `--many`: map users each on a price profile of their own (bench/lib/map-users.ts), `--users
 * 20,200`, with and without a tariff write every 2 s, `--seconds` each, on this build and, with
 * `--baseline <checkout>`, on that checkout's build in the same run (one fresh service per case):
 * the share of 503 and of pending tiles, p50/p99 of tile answers and the peak RSS (D276,
 * D277, D278).
 *
 *   npm run bench:price-tiles -- --many [--users 20,200] [--seconds 20] [--baseline ../main]
 */
import { parseArgs } from 'node:util';
import { VectorTile } from '@mapbox/vector-tile';
import { PbfReader } from 'pbf';
import { defaultSnapshotPath } from '../src/config.js';
import { latY, lngX, xLng, yLat } from '../src/domain/stations/clusters.js';
import { BENCH_KEY, loadLine, machineLine, median, startService, waitIdle, writeJson, writeResultsSection } from './lib/harness.js';
import { mapUsers, type MapUsersRow } from './lib/map-users.js';
import { generateTariffs, pickFixture } from './scenarios.js';

const { values } = parseArgs({
  options: {
    passes: { type: 'string', default: '5' },
    synthetic: { type: 'string' },
    check: { type: 'boolean', default: false },
    many: { type: 'boolean', default: false },
    users: { type: 'string', default: '20,200' },
    seconds: { type: 'string', default: '20' },
    baseline: { type: 'string' },
  },
});
const passes = values.check ? 0 : Number(values.passes);
const Z = 12;
const PARIS: [number, number] = [2.3522, 48.8566];
const BUFFER = 256 / 4096;

async function http(port: number, method: string, path: string, body?: unknown): Promise<{ status: number; buf: Buffer; ms: number }> {
  const t = performance.now();
  const r = await fetch(`http://127.0.0.1:${port}${path}`, {
    method,
    headers: { 'Api-Key': BENCH_KEY, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const buf = Buffer.from(await r.arrayBuffer());
  return { status: r.status, buf, ms: performance.now() - t };
}

/** The z12 tiles of a 1280 × 800 px view centred on Paris and panned by 640 px east and west, in first-need order. */
function trace(): Array<[number, number]> {
  const z2 = 2 ** Z;
  const seen = new Set<string>();
  const out: Array<[number, number]> = [];
  for (const dx of [0, 640, -640]) {
    const cx = lngX(PARIS[0]) * z2 * 256 + dx;
    const cy = latY(PARIS[1]) * z2 * 256;
    for (let x = Math.floor((cx - 640) / 256); x <= Math.floor((cx + 640) / 256); x++) {
      for (let y = Math.floor((cy - 400) / 256); y <= Math.floor((cy + 400) / 256); y++) {
        if (!seen.has(`${x}/${y}`)) out.push([x, y]);
        seen.add(`${x}/${y}`);
      }
    }
  }
  return out;
}

interface Ctx {
  port: number;
  tariffs: string[];
  vehicle: string;
}

let profileSeq = 0;
/** A profile nothing has priced yet (start_time makes it new; 1,440 of them per battery range). */
async function newProfile(c: Ctx): Promise<string> {
  const k = profileSeq++;
  const r = await http(c.port, 'POST', '/v1/price_profiles', {
    data: {
      type: 'price_profile',
      attributes: { battery_range: [10, 80 - Math.floor(k / 1440)], start_time: k % 1440 },
      relationships: { tariffs: { data: c.tariffs.map((id) => ({ type: 'tariff', id })) }, vehicle: { data: { type: 'car', id: c.vehicle } } },
    },
  });
  if (r.status !== 201) throw new Error(`profile: ${r.status} ${r.buf.toString()}`);
  return (JSON.parse(r.buf.toString()) as { data: { id: string } }).data.id;
}

/** The client path: the stations of the tile's box and buffer, then their bulk previews (profile k's options). */
async function clientPath(c: Ctx, x: number, y: number, k: number): Promise<{ ms: number; prices: Map<string, number> }> {
  const z2 = 2 ** Z;
  const box = `filter[latitude.gte]=${yLat((y + 1 + BUFFER) / z2)}&filter[latitude.lte]=${yLat((y - BUFFER) / z2)}&filter[longitude.gte]=${xLng((x - BUFFER) / z2)}&filter[longitude.lte]=${xLng((x + 1 + BUFFER) / z2)}`;
  const t = performance.now();
  const ids: string[] = [];
  for (let page = 1; ; page++) {
    const r = await http(c.port, 'GET', `/v1/charging_stations?${box}&page[size]=1000&page[number]=${page}`);
    const j = JSON.parse(r.buf.toString()) as { data: Array<{ id: string }>; meta: { more_available: boolean } };
    ids.push(...j.data.map((d) => d.id));
    if (!j.meta.more_available) break;
  }
  const prices = new Map<string, number>();
  for (let i = 0; i < ids.length; i += 100) {
    const r = await http(c.port, 'POST', '/v1/charge_prices/bulk', {
      data: {
        type: 'bulk_price_preview_request',
        attributes: { battery_range: [10, 80 - Math.floor(k / 1440)], start_time: k % 1440 },
        relationships: {
          charging_stations: { data: ids.slice(i, i + 100).map((id) => ({ type: 'charging_station', id })) },
          tariffs: { data: c.tariffs.map((id) => ({ type: 'tariff', id })) },
          vehicle: { data: { type: 'car', id: c.vehicle } },
        },
      },
    });
    for (const d of (JSON.parse(r.buf.toString()) as { data: Array<{ id: string; attributes: { price: number } }> }).data) prices.set(d.id, d.attributes.price);
  }
  return { ms: performance.now() - t, prices };
}

type Props = Record<string, string | number | boolean>;
const clustersOf = (buf: Buffer): Props[] => {
  const l = new VectorTile(new PbfReader(buf)).layers.clusters;
  return l === undefined ? [] : Array.from({ length: l.length }, (_, i) => l.feature(i).properties as Props);
};

/** Each cluster's price is the cheapest bulk preview of the client path; priced counts are at most what it priced. */
async function check(c: Ctx, tiles: Array<[number, number]>): Promise<number> {
  let priced = 0;
  for (const [x, y] of tiles) {
    const id = await newProfile(c);
    const t = await http(c.port, 'GET', `/v1/tiles/prices/${id}/${Z}/${x}/${y}.mvt`);
    if (t.status === 204) continue;
    if (t.status !== 200) throw new Error(`price tile ${x}/${y}: ${t.status} ${t.buf.toString()}`);
    const client = await clientPath(c, x, y, profileSeq - 1);
    for (const f of clustersOf(t.buf)) {
      if (f.price === undefined) continue;
      const want = client.prices.get(f.price_station_id as string);
      // A cluster centred in the tile may hold stations outside its box and buffer: those are not in the client path.
      if (want !== undefined && want !== f.price) throw new Error(`tile ${x}/${y}: cluster price ${f.price} ≠ bulk ${want}`);
      priced += f.priced_count as number;
    }
  }
  return priced;
}

interface Row {
  snapshot: string;
  tiles: number;
  series: Record<string, number[]>;
}

async function dataset(name: string, snapshot: string): Promise<Row> {
  const svc = await startService({ snapshot, env: { TILE_CACHE_MB: '0' } });
  try {
    const fixture = pickFixture(snapshot);
    const catalog = (JSON.parse((await http(svc.port, 'GET', '/v1/tariffs?page[size]=1000')).buf.toString()) as { data: Array<{ id: string }> }).data.map((t) => t.id);
    const generated = await generateTariffs(svc.port, fixture.operator, Math.max(0, 200 - catalog.length));
    const cars = (JSON.parse((await http(svc.port, 'GET', '/v2/vehicles')).buf.toString()) as { data: Array<{ id: string; attributes: { dc_charger: unknown } }> }).data;
    const c: Ctx = { port: svc.port, tariffs: [...catalog, ...generated].slice(0, 200), vehicle: (cars.find((v) => v.attributes.dc_charger !== null) ?? cars[0]).id };
    const tiles = trace();
    const priced = await check(c, tiles);
    console.log(`${name}: ${tiles.length} tiles, ${priced} stations priced in their clusters; checked against the client path`);
    const series: Record<string, number[]> = { cold: [], warm: [], 'station tile': [], 'client path': [] };
    for (let p = 0; p < passes; p++) {
      for (const [x, y] of tiles) {
        const id = await newProfile(c);
        const k = profileSeq - 1;
        series.cold.push((await http(c.port, 'GET', `/v1/tiles/prices/${id}/${Z}/${x}/${y}.mvt`)).ms);
        series.warm.push((await http(c.port, 'GET', `/v1/tiles/prices/${id}/${Z}/${x}/${y}.mvt`)).ms);
        series['station tile'].push((await http(c.port, 'GET', `/v1/tiles/stations/${Z}/${x}/${y}.mvt`)).ms);
        series['client path'].push((await clientPath(c, x, y, k)).ms);
      }
    }
    return { snapshot: name, tiles: tiles.length, series };
  } finally {
    await svc.stop();
  }
}

const pct = (xs: number[], q: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))];

function table(rows: Row[]): string {
  const out = ['| snapshot | path | p50 ms | p99 ms | p50 / station tile p50 | client path p50 / this p50 |', '|---|---|---:|---:|---:|---:|'];
  for (const r of rows) {
    const base = median(r.series['station tile']);
    const client = median(r.series['client path']);
    for (const [k, xs] of Object.entries(r.series)) {
      out.push(`| ${r.snapshot} | ${k} | ${median(xs).toFixed(2)} | ${pct(xs, 0.99).toFixed(2)} | ${(median(xs) / base).toFixed(1)} | ${(client / median(xs)).toFixed(1)} |`);
    }
  }
  return out.join('\n');
}

/** `--many`: every case on a fresh service of each build, the builds alternating. */
async function many(): Promise<void> {
  const snapshot = defaultSnapshotPath();
  const operator = pickFixture(snapshot).operator;
  const builds: Array<[string, string | undefined]> = [['this build', undefined]];
  if (values.baseline !== undefined) builds.unshift(['baseline', values.baseline]);
  const rows: MapUsersRow[] = [];
  const loads: string[] = [];
  for (const users of values.users.split(',').map(Number)) {
    for (const writes of [false, true]) {
      for (const [build, root] of builds) {
        const svc = await startService({ snapshot, root, env: { PRICE_PROFILES_NEW_PER_KEY: '100000' } });
        try {
          await waitIdle(svc.proc.pid!, 0.1, 30_000);
          loads.push(loadLine());
          const row = await mapUsers({ build, port: svc.port, pid: svc.proc.pid!, operator, users, writes, seconds: Number(values.seconds), firstProfile: 0 });
          console.error(`${build} · ${users} users${writes ? ' + writes' : ''}: ${row.tiles} tiles, ${row.refusedPct.toFixed(1)} % 503, ${row.pendingPct.toFixed(1)} % pending, p50 ${row.p50.toFixed(1)} ms, p99 ${row.p99.toFixed(1)} ms, RSS ${row.rssMb.toFixed(0)} MB`);
          rows.push(row);
        } finally {
          await svc.stop();
        }
      }
    }
  }
  const out = ['| build | users | tariff write every 2 s | tile answers | 503 % | pending % | other | socket errors | p50 ms | p99 ms | 200/204 p50 ms | 200/204 p99 ms | final tiles /s | final /s ÷ baseline | peak RSS MB | writes |', '|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|'];
  for (const r of rows) {
    const base = rows.find((b) => b.build === 'baseline' && b.users === r.users && b.writes === r.writes);
    const ratio = base === undefined ? 'n/a' : (r.finalPerS / base.finalPerS).toFixed(2);
    out.push(`| ${r.build} | ${r.users} | ${r.writes ? 'yes' : 'no'} | ${r.tiles} | ${r.refusedPct.toFixed(1)} | ${r.pendingPct.toFixed(1)} | ${r.otherStatus} | ${r.socketErrors} | ${r.p50.toFixed(1)} | ${r.p99.toFixed(1)} | ${r.okP50.toFixed(1)} | ${r.okP99.toFixed(1)} | ${r.finalPerS.toFixed(1)} | ${ratio} | ${r.rssMb.toFixed(0)} | ${r.writesDone} |`);
  }
  const md = `### Many price profiles (\`npm run bench:price-tiles -- --many\`)\n\n${machineLine()}; load before each case: ${loads.join(' · ')}; ${values.seconds} s per case, each user on a profile of its own, views of 1024 × 768 px at zooms 3–14.\n\n${out.join('\n')}\n`;
  console.log(md);
  writeResultsSection('price-tiles-many', md);
  writeJson('price-tiles-many', rows);
}

if (values.many) {
  await many();
  process.exit(0);
}

const rows = [await dataset('default', defaultSnapshotPath())];
if (values.synthetic !== undefined) rows.push(await dataset('1 M synthetic', values.synthetic));
if (passes > 0) {
  const md = `### Price tiles (\`npm run bench:price-tiles\`)\n\n${machineLine()}; ${loadLine()}; zoom ${Z}, ${rows[0].tiles} tiles of a 1280 × 800 px view over Paris panned east and west, 200 tariffs, ${passes} passes one request at a time, TILE_CACHE_MB=0.\n\n${table(rows)}\n`;
  console.log(md);
  writeResultsSection('price-tiles', md);
  writeJson('price-tiles', rows);
}
process.exit(0);
