/**
 * A synthetic scale snapshot for benchmarks (data README, "Scale benchmarks"): the 18,585 real
 * stations, then replica k = 1, 2, … of each real station until the requested count is reached:
 * new id uuid5(NS, "station:synthetic:<k>:<source_id>"), name suffix " #k", source_label
 * "synthetic", position moved uniformly within 5 km (RNG seeded by k and source_id), no EVSE ids.
 * Deterministic: the same count gives the same file. Everything else (operators, vehicles, rates)
 * as in the default snapshot.
 *
 *   npm run snapshot:synthetic -- --stations 1000000 [--out snapshots/synthetic-1000000.sqlite]
 */
import { parseArgs } from 'node:util';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import zlib from 'node:zlib';
import { v5 as uuidv5 } from 'uuid';
import { PROJECT_ROOT } from '../src/config.js';
import { writeSnapshot, type BrandRow, type OperatorRow, type StationRow, type VehicleRow } from '../src/storage/snapshot.js';
import { HISTORY_FILE, SOURCES_DIR, readAttribution, readHistory, statisticsMonthOf, toStationRow } from '../src/import/default-snapshot.js';
import { mulberry32, fnv1a } from '../src/domain/random.js';

/** The namespace of the station ids of the committed data (data README). */
const STATION_NS = uuidv5('urn:charging-price-api:stations-snapshot:v1', uuidv5.URL);
const REPLICA_RADIUS_M = 5000;
const BUILT_AT = '2022-12-05T00:00:00.000Z';

export function replica(s: StationRow, k: number): StationRow {
  const rnd = mulberry32(fnv1a(`${k}:${s.source_id}`));
  const r = REPLICA_RADIUS_M * Math.sqrt(rnd());
  const theta = 2 * Math.PI * rnd();
  const dLat = (r * Math.cos(theta)) / 111_320;
  const lat = Math.max(-90, Math.min(90, s.latitude + dLat));
  const dLon = (r * Math.sin(theta)) / (111_320 * Math.max(0.01, Math.cos((s.latitude * Math.PI) / 180)));
  let lon = s.longitude + dLon;
  if (lon > 180) lon -= 360;
  if (lon < -180) lon += 360;
  return {
    ...s,
    id: uuidv5(`station:synthetic:${k}:${s.source_id}`, STATION_NS),
    name: `${s.name} #${k}`,
    latitude: Math.round(lat * 1e6) / 1e6,
    longitude: Math.round(lon * 1e6) / 1e6,
    evse_ids: [],
    charge_points: s.charge_points.map((c) => ({ ...c, evse_ids: [] })),
    source_label: 'synthetic',
    source_id: `synthetic:${k}:${s.source_id}`,
  };
}

export function buildSynthetic(count: number, out: string): { file: string; stations: number; ms: number } {
  const t0 = performance.now();
  const gz = (name: string): string => zlib.gunzipSync(fs.readFileSync(path.join(SOURCES_DIR, name))).toString('utf8');
  const real: StationRow[] = gz('stations-eu.jsonl.gz')
    .split('\n')
    .filter((l) => l.length > 0)
    .map((l) => {
      const s = JSON.parse(l) as Parameters<typeof toStationRow>[0];
      return toStationRow(s);
    });
  real.sort((a, b) => (a.source_id! < b.source_id! ? -1 : 1));
  const n = Math.max(count, 0);
  // Ids of every station first (real: index < real.length; replica k of real r: k * real.length + r),
  // sorted; rows are generated lazily in id order so 1 M rows never sit in memory at once.
  const ids: string[] = new Array(n);
  for (let j = 0; j < n; j++) {
    const r = j % real.length;
    const k = Math.floor(j / real.length);
    ids[j] = k === 0 ? real[r].id : uuidv5(`station:synthetic:${k}:${real[r].source_id}`, STATION_NS);
  }
  const order = Uint32Array.from({ length: n }, (_, j) => j).sort((a, b) => (ids[a] < ids[b] ? -1 : ids[a] > ids[b] ? 1 : 0));
  function* stations(): IterableIterator<StationRow> {
    for (let x = 0; x < n; x++) {
      const j = order[x];
      const r = j % real.length;
      const k = Math.floor(j / real.length);
      yield k === 0 ? real[r] : replica(real[r], k);
    }
  }
  const operators: OperatorRow[] = gz('operators.jsonl.gz')
    .split('\n')
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l) as OperatorRow)
    .map((o) => ({ id: o.id, name: o.name, evse_operator_ids: o.evse_operator_ids, countries: o.countries }))
    .sort((a, b) => (a.id < b.id ? -1 : 1));
  const ev = JSON.parse(gz('ev-data.json.gz')) as { data: Array<Record<string, unknown> & { id: string; brand_id: string }>; brands: BrandRow[] };
  const brands = [...ev.brands].sort((a, b) => (a.id < b.id ? -1 : 1));
  const vehicles: VehicleRow[] = ev.data.map((v) => ({ id: v.id, brand_id: v.brand_id, data: v })).sort((a, b) => (a.id < b.id ? -1 : 1));
  const rates = JSON.parse(fs.readFileSync(path.join(SOURCES_DIR, 'rates.json'), 'utf8')) as { date: string; rates: Record<string, number> };
  const month = statisticsMonthOf(BUILT_AT);
  fs.mkdirSync(path.dirname(out), { recursive: true });
  writeSnapshot(
    out,
    {
      meta: {
        builtAt: BUILT_AT,
        statisticsYear: month.year,
        statisticsMonth: month.month,
        ratesDate: rates.date,
        attribution: readAttribution(),
      },
      operators,
      stations: stations(),
      brands,
      vehicles,
      rates: rates.rates,
      countryStatisticsHistory: readHistory(HISTORY_FILE).filter((h) => !(h.year === month.year && h.month === month.month)),
    },
    (done) => {
      if (process.stderr.isTTY && done % 65536 === 0) process.stderr.write(`\r${done}/${n} stations`);
    },
  );
  if (process.stderr.isTTY) process.stderr.write('\n');
  return { file: out, stations: n, ms: performance.now() - t0 };
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const USAGE = 'usage: snapshot:synthetic [--stations <n, default 1000000>] [--out <file>]';
  const argv = process.argv.slice(2);
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(USAGE);
    process.exit(0);
  }
  let values;
  try {
    ({ values } = parseArgs({ args: argv, strict: true, options: { stations: { type: 'string' }, out: { type: 'string' } } }));
  } catch (e) {
    console.error(`${(e as Error).message}\n${USAGE}`);
    process.exit(2);
  }
  const count = values.stations === undefined ? 1_000_000 : Number(values.stations);
  const out = values.out;
  if (!Number.isInteger(count) || count < 1) throw new Error('--stations must be a positive integer');
  const file = path.resolve(out ?? path.join(PROJECT_ROOT, 'snapshots', `synthetic-${count}.sqlite`));
  const r = buildSynthetic(count, file);
  console.log(`synthetic snapshot ${r.file}: ${r.stations} stations in ${Math.round(r.ms)} ms`);
}
