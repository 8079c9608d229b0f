import crypto from 'node:crypto';
import fs from 'node:fs';
import { asBuffer, openDatabase, type Database, type Statement } from './sqlite-driver.js';
import { StationColumnsBuilder, attachFragments, decodeColumns, encodeColumns, type StationColumns } from '../domain/stations/columns.js';
import type { ChargePointRecord, FacilityDetail, StationRecord } from '../domain/stations/model.js';
import type { CountryStatisticsAttributes } from '../domain/stations/statistics.js';

/**
 * The read-only snapshot: stations and charge points, operator companies as first seen, vehicles
 * and brands, currency reference rates. Built deterministically by `npm run snapshot:build`;
 * carries a format version that the service checks before use.
 */
export const SNAPSHOT_FORMAT_VERSION = 4;

const DDL = `
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;
CREATE TABLE operators (
  id TEXT PRIMARY KEY, name TEXT NOT NULL, evse_operator_ids TEXT NOT NULL, countries TEXT NOT NULL
) STRICT;
CREATE TABLE stations (
  id TEXT PRIMARY KEY, name TEXT NOT NULL, latitude REAL NOT NULL, longitude REAL NOT NULL,
  country TEXT NOT NULL, address TEXT NOT NULL, operator_id TEXT, evse_operator TEXT,
  evse_ids TEXT NOT NULL, free_parking INTEGER, free_charging INTEGER, parking_type TEXT,
  facilities TEXT NOT NULL, charge_points TEXT NOT NULL, source_label TEXT, source_id TEXT,
  version INTEGER NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
  parking_description TEXT, facility_details TEXT NOT NULL, branding TEXT
) STRICT;
CREATE TABLE brands (id TEXT PRIMARY KEY, name TEXT NOT NULL) STRICT;
CREATE TABLE vehicles (id TEXT PRIMARY KEY, brand_id TEXT NOT NULL, data TEXT NOT NULL) STRICT;
CREATE TABLE currency_rates (code TEXT PRIMARY KEY, rate REAL NOT NULL) STRICT;
CREATE TABLE catalog (kind TEXT NOT NULL, id TEXT NOT NULL, data TEXT NOT NULL, PRIMARY KEY (kind, id)) STRICT, WITHOUT ROWID;
CREATE TABLE station_columns (name TEXT PRIMARY KEY, data BLOB NOT NULL) STRICT;
CREATE TABLE station_evse (evse_id TEXT PRIMARY KEY, station_id TEXT NOT NULL) STRICT, WITHOUT ROWID;
CREATE TABLE country_statistics_history (
  country TEXT NOT NULL, year INTEGER NOT NULL, month INTEGER NOT NULL, data TEXT NOT NULL,
  PRIMARY KEY (country, year, month)
) STRICT, WITHOUT ROWID;
`;

export interface SnapshotMeta {
  formatVersion: number;
  snapshotVersion: string;
  builtAt: string;
  ratesDate: string;
  attribution: string;
  /** The month the station data describes (D53). */
  statisticsYear: number;
  statisticsMonth: number;
}

export interface OperatorRow {
  id: string;
  name: string;
  evse_operator_ids: string[];
  countries: string[];
}

export type { ChargePointRecord as ChargePointRow, FacilityDetail } from '../domain/stations/model.js';
export type StationRow = StationRecord;

export interface BrandRow {
  id: string;
  name: string;
}

export interface VehicleRow {
  id: string;
  brand_id: string;
  /** The vehicle record as in the committed vehicle data set. */
  data: Record<string, unknown>;
}

export interface SnapshotContent {
  /** The version is not given: it is derived from what is written (D253). */
  meta: Omit<SnapshotMeta, 'formatVersion' | 'snapshotVersion'>;
  operators: Iterable<OperatorRow>;
  stations: Iterable<StationRow>;
  brands: Iterable<BrandRow>;
  vehicles: Iterable<VehicleRow>;
  rates: Record<string, number>;
  /**
   * Country statistics of past months (D53), kept from earlier builds; the snapshot's own month is
   * computed at run time from its stations. Omitted → none.
   */
  countryStatisticsHistory?: Iterable<CountryStatisticsAttributes>;
  /**
   * The default tariff catalog (src/import/default-catalog.ts): rows of kind `company`, `roaming`, `tariff`
   * and `station_prices`, each a JSON document; seeded into the live store on first start. Omitted → none.
   */
  catalog?: Iterable<CatalogRow>;
}

export interface CatalogRow {
  kind: 'company' | 'roaming' | 'tariff' | 'station_prices';
  id: string;
  data: string;
}

export class SnapshotFormatError extends Error {}

const boolToInt = (b: boolean | null): number | null => (b === null ? null : b ? 1 : 0);
const intToBool = (n: number | null): boolean | null => (n === null ? null : n !== 0);

/**
 * Writes a snapshot file from its content in one transaction, atomically (temp file + rename).
 * Rows are inserted in the order given, so the same content gives the same file. Answers the
 * snapshot version: a hash of every value written (D253; the station column blobs are
 * computed from the station rows and not hashed again).
 */
export function writeSnapshot(file: string, content: SnapshotContent, onStation?: (n: number) => void): string {
  const tmp = `${file}.tmp-${process.pid}`;
  fs.rmSync(tmp, { force: true });
  const db = openDatabase(tmp);
  let version = '';
  try {
    // In memory: OFF is refused by the driver's defensive mode, and no on-disk journal can be disturbed.
    db.pragma('journal_mode = MEMORY');
    db.pragma('synchronous = OFF');
    // Large pages: the station column blobs (hundreds of MB at scale) read about twice as fast.
    db.pragma('page_size = 65536');
    db.exec(DDL);
    db.transaction(() => {
      const hash = crypto.createHash('sha256');
      /** Inserts one row and adds its table and values to the version. */
      const insert = (table: string, stmt: Statement<unknown>, values: Array<string | number | null>): void => {
        stmt.run(...values);
        hash.update(`${table}${JSON.stringify(values)}\n`);
      };
      const meta = db.prepare('INSERT INTO meta(key, value) VALUES (?, ?)');
      const m = content.meta;
      const month = `${m.statisticsYear}-${String(m.statisticsMonth).padStart(2, '0')}`;
      for (const row of [['format_version', String(SNAPSHOT_FORMAT_VERSION)], ['built_at', m.builtAt], ['rates_date', m.ratesDate], ['attribution', m.attribution], ['statistics_month', month]]) {
        insert('meta', meta, row);
      }
      const op = db.prepare('INSERT INTO operators VALUES (?, ?, ?, ?)');
      for (const o of content.operators) insert('operators', op, [o.id, o.name, JSON.stringify(o.evse_operator_ids), JSON.stringify(o.countries)]);
      const columns = writeStations(db, content.stations, insert, onStation);
      const blob = db.prepare('INSERT INTO station_columns VALUES (?, ?)');
      for (const [name, data] of encodeColumns(columns.finish())) blob.run(name, data);
      const hist = db.prepare('INSERT OR REPLACE INTO country_statistics_history VALUES (?, ?, ?, ?)');
      for (const h of content.countryStatisticsHistory ?? []) insert('history', hist, [h.country, h.year, h.month, JSON.stringify(h)]);
      const br = db.prepare('INSERT INTO brands VALUES (?, ?)');
      for (const b of content.brands) insert('brands', br, [b.id, b.name]);
      const ve = db.prepare('INSERT INTO vehicles VALUES (?, ?, ?)');
      for (const v of content.vehicles) insert('vehicles', ve, [v.id, v.brand_id, JSON.stringify(v.data)]);
      const ra = db.prepare('INSERT INTO currency_rates VALUES (?, ?)');
      for (const code of Object.keys(content.rates).sort()) insert('rates', ra, [code, content.rates[code]]);
      const cat = db.prepare('INSERT INTO catalog VALUES (?, ?, ?)');
      for (const c of content.catalog ?? []) insert('catalog', cat, [c.kind, c.id, c.data]);
      version = hash.digest('hex').slice(0, 16);
      meta.run('snapshot_version', version);
    });
    db.exec('VACUUM');
  } finally {
    db.close();
  }
  fs.renameSync(tmp, file);
  return version;
}

type Insert = (table: string, stmt: Statement<unknown>, values: Array<string | number | null>) => void;

/** The station rows and their EVSE ids; answers the column builder holding them. */
function writeStations(db: Database, stations: Iterable<StationRow>, insert: Insert, onStation?: (n: number) => void): StationColumnsBuilder {
  const st = db.prepare('INSERT INTO stations VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)');
  const evse = db.prepare('INSERT OR IGNORE INTO station_evse VALUES (?, ?)');
  const columns = new StationColumnsBuilder();
  let n = 0;
  for (const s of stations) {
    columns.add(s);
    // The EVSE index follows from the station row (its evse_ids are hashed there).
    for (const e of s.evse_ids) evse.run(e.toLowerCase(), s.id);
    insert('stations', st, [
      s.id, s.name, s.latitude, s.longitude, s.country, s.address, s.operator_id, s.evse_operator,
      JSON.stringify(s.evse_ids), boolToInt(s.free_parking), boolToInt(s.free_charging), s.parking_type,
      JSON.stringify(s.facilities), JSON.stringify(s.charge_points), s.source_label, s.source_id,
      s.version, s.created_at, s.updated_at,
      s.parking_description === null ? null : JSON.stringify(s.parking_description),
      JSON.stringify(s.facility_details), s.branding === null ? null : JSON.stringify(s.branding),
    ]);
    n++;
    if (onStation !== undefined && (n & 1023) === 0) onStation(n);
  }
  if (onStation !== undefined) onStation(n);
  return columns;
}

interface RawStation {
  id: string; name: string; latitude: number; longitude: number; country: string; address: string;
  operator_id: string | null; evse_operator: string | null; evse_ids: string; free_parking: number | null;
  free_charging: number | null; parking_type: string | null; facilities: string; charge_points: string;
  source_label: string | null; source_id: string | null; version: number; created_at: number;
  updated_at: number; parking_description: string | null; facility_details: string; branding: string | null;
}

function decodeStation(r: RawStation): StationRow {
  return {
    id: r.id, name: r.name, latitude: r.latitude, longitude: r.longitude, country: r.country,
    address: r.address, operator_id: r.operator_id, evse_operator: r.evse_operator,
    evse_ids: JSON.parse(r.evse_ids) as string[],
    free_parking: intToBool(r.free_parking), free_charging: intToBool(r.free_charging),
    parking_type: r.parking_type, facilities: JSON.parse(r.facilities) as string[],
    charge_points: JSON.parse(r.charge_points) as ChargePointRecord[],
    source_label: r.source_label, source_id: r.source_id, version: r.version,
    created_at: r.created_at, updated_at: r.updated_at,
    parking_description:
      r.parking_description === null ? null : (JSON.parse(r.parking_description) as Record<string, string>),
    facility_details: JSON.parse(r.facility_details) as FacilityDetail[],
    branding: r.branding === null ? null : (JSON.parse(r.branding) as { map_pin_icon_url: string }),
  };
}

/** The station column blobs of a snapshot: named columns and the fragment parts in name order. */
export interface StationColumnBlobs {
  named: Array<[string, Uint8Array]>;
  fragments: Uint8Array[];
}

/** Station columns from blobs read by `Snapshot.stationColumnBlobs` (possibly in another thread). */
export function stationColumnsFromBlobs(b: StationColumnBlobs): StationColumns {
  const buf = (u: Uint8Array): Buffer => Buffer.from(u.buffer, u.byteOffset, u.byteLength);
  const byName = new Map(b.named.map(([k, v]) => [k, buf(v)]));
  const c = decodeColumns((k) => byName.get(k), null);
  attachFragments(c, b.fragments.map(buf));
  return c;
}

/** A read-only, immutable snapshot file. */
export class Snapshot {
  readonly file: string;
  readonly meta: SnapshotMeta;
  private readonly db: Database;
  private stmtStation: Statement<RawStation> | undefined;
  private stmtEvse: Statement<{ station_id: string }> | undefined;

  private constructor(file: string) {
    this.file = file;
    if (!fs.existsSync(file)) throw new SnapshotFormatError(`snapshot ${file} does not exist`);
    this.db = openDatabase(file, { readonly: true, fileMustExist: true });
    let rows: { key: string; value: string }[];
    try {
      rows = this.db.prepare('SELECT key, value FROM meta').all() as { key: string; value: string }[];
    } catch {
      this.db.close();
      throw new SnapshotFormatError(`${file} is not a snapshot of this service (no meta table)`);
    }
    const m = new Map(rows.map((r) => [r.key, r.value]));
    const formatVersion = Number(m.get('format_version'));
    if (formatVersion !== SNAPSHOT_FORMAT_VERSION) {
      this.db.close();
      throw new SnapshotFormatError(
        `snapshot ${file} has format version ${m.get('format_version') ?? 'none'}, this service reads version ` +
          `${SNAPSHOT_FORMAT_VERSION}; rebuild it with \`npm run snapshot:build\``,
      );
    }
    this.meta = {
      formatVersion,
      snapshotVersion: m.get('snapshot_version') ?? '',
      builtAt: m.get('built_at') ?? '',
      ratesDate: m.get('rates_date') ?? '',
      attribution: m.get('attribution') ?? '',
      statisticsYear: Number((m.get('statistics_month') ?? '1970-01').slice(0, 4)),
      statisticsMonth: Number((m.get('statistics_month') ?? '1970-01').slice(5, 7)),
    };
  }

  /** Opens a snapshot and checks its format version (SnapshotFormatError when wrong or missing). */
  static open(file: string): Snapshot {
    return new Snapshot(file);
  }

  operators(): OperatorRow[] {
    return (this.db.prepare('SELECT * FROM operators ORDER BY id').all() as Record<string, string>[]).map((r) => ({
      id: r.id,
      name: r.name,
      evse_operator_ids: JSON.parse(r.evse_operator_ids) as string[],
      countries: JSON.parse(r.countries) as string[],
    }));
  }

  stationCount(): number {
    return (this.db.prepare('SELECT count(*) AS n FROM stations').get() as { n: number }).n;
  }

  /** All stations in id order, decoded. */
  *stations(): IterableIterator<StationRow> {
    const it = this.db.prepare('SELECT * FROM stations ORDER BY id').iterate() as IterableIterator<RawStation>;
    for (const r of it) yield decodeStation(r);
  }

  /** Distinct (operator, evse_operator) pairs of the stations, for companies' `evse_operator_ids` (D48). */
  stationEvseOperators(): Array<{ operator_id: string; evse_operator: string }> {
    return this.db
      .prepare(
        `SELECT DISTINCT operator_id, evse_operator FROM stations
         WHERE operator_id IS NOT NULL AND evse_operator IS NOT NULL ORDER BY operator_id, evse_operator`,
      )
      .all() as Array<{ operator_id: string; evse_operator: string }>;
  }

  /** One station by id (exact, lower-case), decoded; null when unknown. */
  station(id: string): StationRow | null {
    const r = (this.stmtStation ??= this.db.prepare('SELECT * FROM stations WHERE id = ?')).get(id);
    return r === undefined ? null : decodeStation(r);
  }

  /** Stations that list EVSE ids: id and each charge point group's `evse_ids` (live availability, D134). */
  *stationEvseGroups(): IterableIterator<{ id: string; groups: string[][] }> {
    const it = this.db.prepare("SELECT id, charge_points FROM stations WHERE evse_ids <> '[]' ORDER BY id").iterate() as IterableIterator<{
      id: string;
      charge_points: string;
    }>;
    for (const r of it) yield { id: r.id, groups: (JSON.parse(r.charge_points) as ChargePointRecord[]).map((c) => c.evse_ids) };
  }

  /** The station holding an EVSE id (case-insensitive), or null. */
  stationIdByEvse(evseId: string): string | null {
    const r = (this.stmtEvse ??= this.db.prepare('SELECT station_id FROM station_evse WHERE evse_id = ?')).get(
      evseId.toLowerCase(),
    );
    return r?.station_id ?? null;
  }

  /**
   * The station columns (typed arrays, kdbush data, pre-serialized list fragments). With
   * `fragments: false` the fragments (most of the bytes) are left out; `loadStationFragments`
   * attaches them later, so their read can overlap other start-up work.
   */
  stationColumns(opts: { fragments?: boolean } = {}): StationColumns {
    // One blob at a time; typed arrays become views of the blob buffers and fragment chunks stay
    // as read, so nothing is copied twice and the peak is the data itself.
    const byName = new Map<string, Buffer>();
    const it = this.db
      .prepare("SELECT name, data FROM station_columns WHERE name NOT LIKE 'fragments:%' ORDER BY name")
      .iterate() as IterableIterator<{ name: string; data: Uint8Array }>;
    for (const r of it) byName.set(r.name, asBuffer(r.data));
    const c = decodeColumns((k) => byName.get(k), null);
    if (opts.fragments !== false) this.loadStationFragments(c);
    return c;
  }

  /**
   * SQLite's structural check of the whole file (`PRAGMA quick_check`): empty when the file is
   * sound, else the problems found (a truncated or damaged file). Reads every page.
   */
  integrityProblems(): string[] {
    try {
      const rows = this.db.pragma('quick_check');
      return rows.map((r) => String(r.quick_check)).filter((r) => r !== 'ok');
    } catch (e) {
      return [(e as Error).message];
    }
  }

  /** The raw station column blobs (what `stationColumns` decodes), for a load in another thread. */
  stationColumnBlobs(): StationColumnBlobs {
    const named: Array<[string, Buffer]> = [];
    const fragments: Buffer[] = [];
    const it = this.db.prepare('SELECT name, data FROM station_columns ORDER BY name').iterate() as IterableIterator<{
      name: string;
      data: Uint8Array;
    }>;
    for (const r of it) {
      if (r.name.startsWith('fragments:')) fragments.push(asBuffer(r.data));
      else named.push([r.name, asBuffer(r.data)]);
    }
    return { named, fragments };
  }

  /** Reads the pre-serialized fragments into columns decoded without them. */
  loadStationFragments(c: StationColumns): void {
    const parts: Buffer[] = [];
    const it = this.db.preparePluck<Uint8Array>("SELECT data FROM station_columns WHERE name LIKE 'fragments:%' ORDER BY name").iterate();
    for (const b of it) parts.push(asBuffer(b));
    attachFragments(c, parts);
  }

  /** Stored country statistics of earlier months (D53). */
  countryStatisticsHistory(): CountryStatisticsAttributes[] {
    return (
      this.db.prepare('SELECT data FROM country_statistics_history ORDER BY country, year, month').all() as { data: string }[]
    ).map((r) => JSON.parse(r.data) as CountryStatisticsAttributes);
  }

  /** Rows of one kind of the default tariff catalog, by id. */
  catalog(kind: CatalogRow['kind']): unknown[] {
    return (this.db.prepare('SELECT data FROM catalog WHERE kind = ? ORDER BY id').all(kind) as { data: string }[]).map(
      (r) => JSON.parse(r.data) as unknown,
    );
  }

  brands(): BrandRow[] {
    return this.db.prepare<BrandRow>('SELECT id, name FROM brands ORDER BY id').all();
  }

  vehicles(): VehicleRow[] {
    return (this.db.prepare('SELECT * FROM vehicles ORDER BY id').all() as { id: string; brand_id: string; data: string }[]).map(
      (r) => ({ id: r.id, brand_id: r.brand_id, data: JSON.parse(r.data) as Record<string, unknown> }),
    );
  }

  rates(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const r of this.db.prepare('SELECT code, rate FROM currency_rates ORDER BY code').all() as {
      code: string;
      rate: number;
    }[]) {
      out[r.code] = r.rate;
    }
    return out;
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
