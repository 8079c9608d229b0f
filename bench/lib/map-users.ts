/**
 * Map users on price profiles of their own (D276, D277, D278), for `npm run
 * bench:price-tiles -- --many`: each user registers a profile as the map page does (Set B, its own
 * energy and duration, direct payment) and then looks at views one after the other — a 1024 × 768
 * px view at a zoom and centre drawn from a fixed sequence (zooms 3–14 over France and Germany) —
 * fetching the view's price tiles 4 at a time, as a browser does. A tile answered with
 * `Price-Tile-Pending` is asked for again after its max-age (1 s), as MapLibre refreshes an expired
 * tile, while the view lasts (3 s); a 503 is not asked again (MapLibre does not). Optionally one
 * tariff write every 2 s (a catalog write). Per run: the share of tile answers that were 503, that
 * were pending, p50/p99 of every tile answer, and the service's peak RSS.
 */
import { latY, lngX } from '../../src/domain/stations/clusters.js';
import { mulberry32 } from '../../src/domain/random.js';
import { BENCH_KEY, rssOf } from './harness.js';
import { generatedTariffs } from '../scenarios.js';

export interface MapUsersRow {
  build: string;
  users: number;
  writes: boolean;
  tiles: number;
  refusedPct: number;
  pendingPct: number;
  otherStatus: number;
  socketErrors: number;
  p50: number;
  p99: number;
  okP50: number;
  okP99: number;
  finalPerS: number;
  rssMb: number;
  writesDone: number;
}

const CENTRES: Array<[number, number]> = [
  [2.3522, 48.8566],
  [13.405, 52.52],
  [9.9937, 53.5511],
  [11.582, 48.1351],
  [6.9603, 50.9375],
  [4.8357, 45.764],
  [8.6821, 50.1109],
  [-1.5536, 47.2184],
];
const ZOOMS = [3, 5, 6, 8, 10, 12, 14];
const VIEW_MS = 3000;

const rng = mulberry32;

/** The tiles of a 1024 × 768 px view (512 px tiles, as MapLibre asks for them) at zoom z. */
function viewTiles(z: number, [lng, lat]: [number, number]): Array<[number, number]> {
  const z2 = 2 ** z;
  const cx = lngX(lng) * z2 * 512;
  const cy = latY(lat) * z2 * 512;
  const out: Array<[number, number]> = [];
  for (let x = Math.floor((cx - 512) / 512); x <= Math.floor((cx + 512) / 512); x++) {
    for (let y = Math.floor((cy - 384) / 512); y <= Math.floor((cy + 384) / 512); y++) if (y >= 0 && y < z2) out.push([((x % z2) + z2) % z2, y]);
  }
  return out;
}

interface Tally {
  lat: number[];
  /** Latency of 200 and 204 answers only. */
  ok: number[];
  /** Answers that were final (200 without Price-Tile-Pending, or 204). */
  final: number;
  refused: number;
  pending: number;
  other: number;
  errors: number;
}

async function tile(port: number, path: string, t: Tally): Promise<boolean> {
  const t0 = performance.now();
  let r: Response;
  let body: ArrayBuffer;
  try {
    r = await fetch(`http://127.0.0.1:${port}${path}`, { headers: { 'Api-Key': BENCH_KEY } });
    body = await r.arrayBuffer();
  } catch {
    // A connection the service closed (its idle close racing the client's reuse): counted, not a status.
    t.errors++;
    return false;
  }
  t.lat.push(performance.now() - t0);
  if (r.status === 503) {
    t.refused++;
    if (process.env.DEBUG_503) console.error(Buffer.from(body).toString().slice(0, 200));
  }
  else if (r.status !== 200 && r.status !== 204) t.other++;
  const pending = r.headers.get('price-tile-pending') !== null;
  if (pending) t.pending++;
  if (r.status === 200 || r.status === 204) {
    t.ok.push(performance.now() - t0);
    if (!pending) t.final++;
  }
  return pending;
}

async function register(port: number, k: number): Promise<string> {
  const body = { data: { type: 'price_profile', attributes: { energy: 10 + (k % 50), duration: 20 + Math.floor(k / 50), include_direct_payment: true }, relationships: { tariffs: { data: [] } } } };
  const r = await fetch(`http://127.0.0.1:${port}/v1/price_profiles`, { method: 'POST', headers: { 'Api-Key': BENCH_KEY, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  const text = await r.text();
  if (r.status !== 201 && r.status !== 200) throw new Error(`profile ${k}: ${r.status} ${text}`);
  return (JSON.parse(text) as { data: { id: string } }).data.id;
}

/** One user's views until `end`: each view's tiles 4 at a time, pending ones again after 1 s within the view. */
async function user(port: number, id: string, seed: number, end: number, t: Tally): Promise<void> {
  const rnd = rng(seed);
  while (performance.now() < end) {
    const z = ZOOMS[Math.floor(rnd() * ZOOMS.length)];
    const c = CENTRES[Math.floor(rnd() * CENTRES.length)];
    const viewEnd = performance.now() + VIEW_MS;
    let todo = viewTiles(z, c);
    while (todo.length > 0 && performance.now() < end) {
      const again: Array<[number, number]> = [];
      for (let i = 0; i < todo.length; i += 4) {
        const part = todo.slice(i, i + 4);
        const pending = await Promise.all(part.map(([x, y]) => tile(port, `/v1/tiles/prices/${id}/${z}/${x}/${y}.mvt`, t)));
        part.forEach((xy, k) => pending[k] && again.push(xy));
      }
      if (again.length === 0 || performance.now() + 1000 > viewEnd) break;
      await new Promise((r) => setTimeout(r, 1000));
      todo = again;
    }
    const rest = viewEnd - performance.now();
    if (rest > 0) await new Promise((r) => setTimeout(r, Math.min(rest, 1000)));
  }
}

/** One tariff write every 2 s until `end` (the first generated tariff, its version counted up). */
async function writer(port: number, operator: string, end: number): Promise<number> {
  const t = generatedTariffs(1)[0];
  let version = 0;
  let done = 0;
  while (performance.now() < end) {
    const body = { data: { id: t.id, type: 'tariff', attributes: { ...t.attributes, version: ++version }, relationships: { emp: { data: { type: 'company', id: operator } } } } };
    const r = await fetch(`http://127.0.0.1:${port}/v2/tariffs/${t.id}`, { method: 'PUT', headers: { 'Api-Key': BENCH_KEY, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    await r.text();
    if (r.status === 200 || r.status === 201) done++;
    else throw new Error(`tariff write: ${r.status}`);
    await new Promise((res) => setTimeout(res, 2000));
  }
  return done;
}

const pct = (sorted: Float64Array, q: number): number => (sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]);

/** `users` map users for `seconds` against the service on `port` (profiles registered first, seeds fixed). */
export async function mapUsers(o: { build: string; port: number; pid: number; operator: string; users: number; writes: boolean; seconds: number; firstProfile: number }): Promise<MapUsersRow> {
  // The cluster index is built once after the start: waited for here, not in the measured tiles.
  const warm = await fetch(`http://127.0.0.1:${o.port}/v1/tiles/stations/0/0/0.mvt`, { headers: { 'Api-Key': BENCH_KEY } });
  await warm.arrayBuffer();
  const ids: string[] = [];
  for (let k = 0; k < o.users; k++) ids.push(await register(o.port, o.firstProfile + k));
  const t: Tally = { lat: [], ok: [], final: 0, refused: 0, pending: 0, other: 0, errors: 0 };
  const end = performance.now() + o.seconds * 1000;
  const w = o.writes ? writer(o.port, o.operator, end) : Promise.resolve(0);
  await Promise.all(ids.map((id, k) => user(o.port, id, 1 + k, end, t)));
  const writesDone = await w;
  const sorted = Float64Array.from(t.lat).sort();
  const ok = Float64Array.from(t.ok).sort();
  const n = t.lat.length;
  return {
    build: o.build,
    users: o.users,
    writes: o.writes,
    tiles: n,
    refusedPct: (100 * t.refused) / n,
    pendingPct: (100 * t.pending) / n,
    otherStatus: t.other,
    socketErrors: t.errors,
    p50: pct(sorted, 0.5),
    p99: pct(sorted, 0.99),
    okP50: pct(ok, 0.5),
    okP99: pct(ok, 0.99),
    finalPerS: t.final / o.seconds,
    rssMb: rssOf(o.pid).hwmMb,
    writesDone,
  };
}
