/**
 * Builds the read-only snapshot from the compact sources committed in snapshots/sources.
 * Deterministic: the same sources give the same file (rows in id order, no wall-clock values).
 * The command line is snapshots/build.ts:
 *
 *   npm run snapshot:build [-- --out <file>] [--sample]
 *
 * `--sample` keeps only the stations inside the Paris, Berlin and Hamburg boxes (1,927 stations),
 * which is what the test suite uses. `--extra <file>` adds station records (JSONL, the snapshot's
 * station row shape; used for test fixtures with facilities, EVSE ids, parking descriptions, …).
 *
 * Country statistics history (D53): the snapshot's own month is computed by the service from its
 * stations; earlier months come from the committed file
 * snapshots/sources/country-statistics-history.jsonl (one record per country and month; `--history
 * <file>` reads another file). `--record-history` appends this build's month (computed from its
 * stations, emp_count 0 because the snapshot holds no EMPs) to that file, so it is kept when later
 * builds move to newer station data.
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import cliProgress from 'cli-progress';
import { PROJECT_ROOT, defaultSnapshotPath } from '../config.js';
import { buildDefaultCatalog, catalogRows } from './default-catalog.js';
import { sharedPointStrays } from './common.js';
import { StationColumnsBuilder } from '../domain/stations/columns.js';
import {
  countryCounts,
  countryStatisticsAttributes,
  type CountryStatisticsAttributes,
} from '../domain/stations/statistics.js';
import {
  writeSnapshot,
  type BrandRow,
  type ChargePointRow,
  type OperatorRow,
  type StationRow,
  type VehicleRow,
} from '../storage/snapshot.js';

export const SOURCES_DIR = path.join(PROJECT_ROOT, 'snapshots', 'sources');

/** Sample boxes: lat_min, lon_min, lat_max, lon_max. */
const SAMPLE_BOXES: ReadonlyArray<readonly [number, number, number, number]> = [
  [48.6, 2.0, 49.1, 2.7], // Paris
  [52.3, 13.0, 52.7, 13.8], // Berlin
  [53.35, 9.7, 53.75, 10.3], // Hamburg
];

/** Publication date of each station source (D-less: the register's "as of" dates). */
const SOURCE_DATES: Readonly<Record<string, number>> = {
  bnetza: Date.UTC(2019, 6, 19),
  irve: Date.UTC(2022, 11, 5),
};

export interface BuildOptions {
  out?: string;
  sample?: boolean;
  progress?: boolean;
  /** Extra station records (JSONL of StationRow). */
  extra?: string;
  /** Country statistics history (JSONL); default snapshots/sources/country-statistics-history.jsonl when present. */
  history?: string;
  /** Append this build's month to the history file. */
  recordHistory?: boolean;
}

export const HISTORY_FILE = path.join(SOURCES_DIR, 'country-statistics-history.jsonl');

/** The month the station data describes: that of the newest source date. */
export function statisticsMonthOf(builtAt: string): { year: number; month: number } {
  const d = new Date(builtAt);
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1 };
}

export function readHistory(file: string): CountryStatisticsAttributes[] {
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim().length > 0)
    .map((l) => JSON.parse(l) as CountryStatisticsAttributes);
}

export interface SourceStation {
  id: string;
  name: string;
  latitude: number;
  longitude: number;
  country: string;
  address: string;
  operator: string | null;
  evse_operator: string | null;
  evse_ids: string[];
  free_parking: boolean | null;
  free_charging: boolean | null;
  parking_type: string | null;
  facilities: string[];
  charge_points: Array<ChargePointRow & { power_estimated?: boolean }>;
  source_label: string;
  source_id: string;
}

function readGzipLines(file: string): string[] {
  return zlib
    .gunzipSync(fs.readFileSync(file))
    .toString('utf8')
    .split('\n')
    .filter((l) => l.length > 0);
}

/** The attribution text is the quoted block of ATTRIBUTION.md (one source of truth). */
export function readAttribution(): string {
  return fs
    .readFileSync(path.join(SOURCES_DIR, 'ATTRIBUTION.md'), 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('> '))
    .map((l) => l.slice(2))
    .join(' ');
}

/** The attribution of the reference data every snapshot carries (vehicles, tariffs): the block from "Vehicle data:" on. */
export function referenceAttribution(): string {
  const all = readAttribution();
  const at = all.indexOf('Vehicle data:');
  return at < 0 ? all : all.slice(at);
}

function inSample(lat: number, lon: number): boolean {
  for (const [a, b, c, d] of SAMPLE_BOXES) if (lat >= a && lat <= c && lon >= b && lon <= d) return true;
  return false;
}

export function toStationRow(s: SourceStation): StationRow {
  const label = s.source_label;
  const at = SOURCE_DATES[label] ?? 0;
  return {
    id: s.id,
    name: s.name,
    latitude: s.latitude,
    longitude: s.longitude,
    country: s.country.toUpperCase(),
    address: s.address,
    operator_id: s.operator,
    evse_operator: s.evse_operator,
    evse_ids: s.evse_ids,
    free_parking: s.free_parking,
    free_charging: s.free_charging,
    parking_type: s.parking_type,
    facilities: s.facilities,
    charge_points: s.charge_points.map((c) => ({
      plug: c.plug,
      energy_type: c.energy_type,
      power: c.power,
      count: c.count,
      evse_ids: c.evse_ids,
    })),
    source_label: label,
    source_id: s.source_id,
    version: 1,
    created_at: at,
    updated_at: at,
    parking_description: null,
    facility_details: [],
    branding: null,
  };
}

/**
 * D255: the committed register stations that D230 leaves out — on an exact point that register
 * stations of other addresses share (street before the house number, five-digit postcode).
 */
export function sharedPointStations(sources: readonly SourceStation[]): Set<SourceStation> {
  const items = sources
    .filter((s) => s.source_label === 'bnetza')
    .map((s) => {
      const comma = s.address.indexOf(', ');
      const street = (comma === -1 ? s.address : s.address.slice(0, comma)).replace(/\s+\d[\w\s/.-]*$/, '').trim();
      const postcode = comma === -1 ? '' : (/\b\d{5}\b/.exec(s.address.slice(comma + 2))?.[0] ?? '');
      return { s, lat: s.latitude, lon: s.longitude, street, postcode };
    });
  return new Set([...sharedPointStrays(items).keys()].map((i) => i.s));
}

export interface BuildResult {
  file: string;
  stations: number;
  ms: number;
  /** The committed stations left out on shared placeholder points (D255), as `lat, lon: address`. */
  leftOut: string[];
}

export function buildSnapshot(opts: BuildOptions = {}): BuildResult {
  const t0 = performance.now();
  const out = path.resolve(opts.out ?? defaultSnapshotPath());
  fs.mkdirSync(path.dirname(out), { recursive: true });
  const stationFile = fs.readFileSync(path.join(SOURCES_DIR, 'stations-eu.jsonl.gz'));
  const stationLines = zlib.gunzipSync(stationFile).toString('utf8').split('\n');
  const sources = stationLines.filter((l) => l.length > 0).map((l) => JSON.parse(l) as SourceStation);
  const stray = sharedPointStations(sources);
  const leftOut: string[] = [];
  const stations: StationRow[] = [];
  for (const s of sources) {
    if (opts.sample && !inSample(s.latitude, s.longitude)) continue;
    if (stray.has(s)) leftOut.push(`${s.latitude}, ${s.longitude}: ${s.address}`);
    else stations.push(toStationRow(s));
  }
  if (opts.extra) {
    const b = fs.readFileSync(opts.extra);
    for (const line of b.toString('utf8').split('\n')) if (line.trim().length > 0) stations.push(JSON.parse(line) as StationRow);
  }
  stations.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));

  const sourceOperators = readGzipLines(path.join(SOURCES_DIR, 'operators.jsonl.gz')).map(
    (l) => JSON.parse(l) as OperatorRow & { station_count: number },
  );
  const builtAt = process.env.SOURCE_DATE_EPOCH
    ? new Date(Number(process.env.SOURCE_DATE_EPOCH) * 1000).toISOString()
    : new Date(Math.max(...Object.values(SOURCE_DATES))).toISOString();
  writeServiceSnapshot({
    out,
    stations,
    operators: sourceOperators,
    builtAt,
    history: opts.history,
    recordHistory: opts.recordHistory,
    progress: opts.progress,
  });
  return { file: out, stations: stations.length, ms: performance.now() - t0, leftOut };
}

export interface ServiceSnapshotInput {
  out: string;
  /** Stations in id order. */
  stations: StationRow[];
  /** Operators with the number of their stations (used to pick the catalog's roaming partners). */
  operators: Array<OperatorRow & { station_count: number }>;
  /** The date the station data describes (ISO); also the statistics month. */
  builtAt: string;
  history?: string;
  recordHistory?: boolean;
  progress?: boolean;
  /** The station data's own attribution (an import's sources and dates); default: ATTRIBUTION.md's whole text. */
  stationAttribution?: string;
}

/**
 * Writes a snapshot of the given stations and operators with the reference data every snapshot
 * carries (vehicles, brands, rates, the default tariff catalog, statistics history, attribution),
 * read from snapshots/sources. Used by `snapshot:build` and by the station importers. Answers
 * the snapshot version (D253: a hash of what was written).
 */
export function writeServiceSnapshot(input: ServiceSnapshotInput): string {
  const { out, stations, builtAt } = input;
  fs.mkdirSync(path.dirname(out), { recursive: true });
  const read = (name: string): Buffer => fs.readFileSync(path.join(SOURCES_DIR, name));
  const operators: OperatorRow[] = input.operators
    .map((o) => ({ id: o.id, name: o.name, evse_operator_ids: o.evse_operator_ids, countries: o.countries }))
    .sort((a, b) => (a.id < b.id ? -1 : 1));

  const ev = JSON.parse(zlib.gunzipSync(read('ev-data.json.gz')).toString('utf8')) as {
    data: Array<Record<string, unknown> & { id: string; brand_id: string }>;
    brands: BrandRow[];
  };
  const brands = [...ev.brands].sort((a, b) => (a.id < b.id ? -1 : 1));
  const vehicles: VehicleRow[] = ev.data
    .map((v) => ({ id: v.id, brand_id: v.brand_id, data: v }))
    .sort((a, b) => (a.id < b.id ? -1 : 1));

  const rates = JSON.parse(read('rates.json').toString('utf8')) as { date: string; rates: Record<string, number> };
  const catalog = buildDefaultCatalog({
    sourcesDir: SOURCES_DIR,
    operators: input.operators,
    stationIds: new Set(stations.map((s) => s.id)),
    brands,
  });

  const month = statisticsMonthOf(builtAt);
  const historyFile = input.history ?? HISTORY_FILE;
  const history = readHistory(historyFile).filter((h) => !(h.year === month.year && h.month === month.month));
  if (input.recordHistory) {
    const cb = new StationColumnsBuilder();
    for (const s of stations) cb.add(s);
    const recs = countryCounts(cb.finish()).map((x) => countryStatisticsAttributes(x, month.year, month.month, 0));
    const keep = readHistory(historyFile).filter((h) => !(h.year === month.year && h.month === month.month));
    fs.writeFileSync(historyFile, [...keep, ...recs].map((r) => JSON.stringify(r) + '\n').join(''));
  }

  const bar =
    input.progress && process.stderr.isTTY
      ? new cliProgress.SingleBar(
          { format: 'snapshot {bar} {value}/{total} stations', stream: process.stderr },
          cliProgress.Presets.shades_classic,
        )
      : null;
  bar?.start(stations.length, 0);
  const version = writeSnapshot(
    out,
    {
      meta: {
        builtAt,
        statisticsYear: month.year,
        statisticsMonth: month.month,
        ratesDate: rates.date,
        attribution: input.stationAttribution === undefined ? readAttribution() : `${input.stationAttribution} ${referenceAttribution()}`,
      },
      operators,
      stations,
      brands,
      vehicles,
      rates: rates.rates,
      countryStatisticsHistory: history,
      catalog: catalogRows(catalog),
    },
    bar ? (n) => bar.update(n) : undefined,
  );
  bar?.stop();
  return version;
}
