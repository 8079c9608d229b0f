/**
 * The station import: reads the files of one format, normalises them, matches operators and
 * writes a snapshot the service loads (D130, D131). Deterministic: the same files give the same
 * snapshot bytes (stations in id order, dates from the data, no wall clock).
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { SOURCES_DIR, writeServiceSnapshot } from './default-snapshot.js';
import { stationIdOf } from '../domain/stations/normalize.js';
import type { StationRecord } from '../domain/stations/model.js';
import { readBnetza } from './bnetza.js';
import { ImportError, ImportTally, OperatorMatcher, toStationRecord, type KnownOperator, type OnBytes, type StationDraft } from './common.js';
import { readIrve } from './irve.js';
import { OcpiLocations, readOcpiFile } from './ocpi.js';

export const IMPORT_FORMATS = ['bnetza', 'irve', 'ocpi'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

export interface ImportOptions {
  /** Files with their format; one snapshot may combine formats (e.g. the German and French registers). */
  inputs: Array<{ format: ImportFormat; file: string }>;
  out: string;
  /** Progress of the file being read (bytes) and of the snapshot write; see the CLI. */
  onFile?: (file: string, size: number) => OnBytes | undefined;
  progress?: boolean;
}

export interface ImportSummary {
  formats: ImportFormat[];
  files: number;
  rowsRead: number;
  stationsWritten: number;
  operatorsAdded: number;
  skipped: Record<string, number>;
  evseIdsDropped: Record<string, number>;
  /** Kept rows the import completed or flagged (D254). */
  noted: Record<string, number>;
  examples: Record<string, string[]>;
  dataDate: string;
  snapshotVersion: string;
  out: string;
}

/** The operators of the committed sources (name variants included), for matching. */
export function knownOperators(): KnownOperator[] {
  return zlib
    .gunzipSync(fs.readFileSync(path.join(SOURCES_DIR, 'operators.jsonl.gz')))
    .toString('utf8')
    .split('\n')
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l) as KnownOperator);
}

const sortObj = (m: Map<string, number | string[]>): Record<string, never> =>
  Object.fromEntries([...m.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1))) as Record<string, never>;

const day = (ms: number | undefined): string => (ms === undefined ? 'date not given' : new Date(ms).toISOString().slice(0, 10));

/**
 * The attribution of imported station data (D131): each source actually imported, with its licence
 * and the newest data date it holds, in the order of first appearance on the command line.
 */
export function importAttribution(inputs: ImportOptions['inputs'], dates: ReadonlyMap<ImportFormat, number>, ocpiParties: readonly string[]): string {
  const parts: string[] = [];
  for (const format of [...new Set(inputs.map((i) => i.format))]) {
    if (format === 'bnetza') parts.push(`© Bundesnetzagentur, Ladesäulenregister (as of ${day(dates.get(format))}), licensed under CC BY 4.0 (https://creativecommons.org/licenses/by/4.0/)`);
    else if (format === 'irve') parts.push(`data.gouv.fr / Etalab, Fichier consolidé des Bornes de Recharge pour Véhicules Électriques (IRVE, as of ${day(dates.get(format))}), Licence Ouverte 2.0 (https://www.etalab.gouv.fr/licence-ouverte-open-licence/)`);
    else parts.push(`OCPI Locations published by ${ocpiParties.length > 0 ? ocpiParties.join(', ') : 'their CPOs'} (as of ${day(dates.get(format))}), under their publishers' terms`);
  }
  return `Charging station data: ${parts.join('; and ')}. Data modified: normalized, grouped into stations, plug names and powers harmonized.`;
}

export async function runImport(opts: ImportOptions): Promise<ImportSummary> {
  const tally = new ImportTally();
  const evseSeen = new Set<string>();
  const drafts: StationDraft[] = [];
  let dataDate: number | null = null;
  const later = (d: number | null): void => {
    if (d !== null && (dataDate === null || d > dataDate)) dataDate = d;
  };
  // The newest data date of each format, for the attribution (D131).
  const dates = new Map<ImportFormat, number>();
  const dated = (format: ImportFormat, d: number | null): void => {
    later(d);
    if (d !== null && d > (dates.get(format) ?? -Infinity)) dates.set(format, d);
  };
  const pdcSeen = new Set<string>();
  const deviceSeen = new Set<string>();
  const ocpi = new OcpiLocations(tally, evseSeen);
  for (const { format, file } of opts.inputs) {
    const size = fs.statSync(file).size;
    const onBytes = opts.onFile?.(file, size);
    if (format === 'bnetza') {
      const r = await readBnetza(file, tally, evseSeen, deviceSeen, onBytes);
      drafts.push(...r.stations);
      dated('bnetza', r.dataDate);
    } else if (format === 'irve') {
      const r = await readIrve(file, tally, evseSeen, pdcSeen, onBytes);
      drafts.push(...r.stations);
      dated('irve', r.dataDate);
    } else {
      await readOcpiFile(file, ocpi, tally, (s) => drafts.push(s), onBytes);
    }
  }
  if (opts.inputs.some((i) => i.format === 'ocpi')) dated('ocpi', ocpi.dataDate);

  // One station per id; later files do not overwrite earlier ones.
  const byId = new Map<string, StationDraft>();
  for (const d of drafts) {
    const id = stationIdOf(d.source_id);
    if (byId.has(id)) tally.skip('duplicate_station', d.source_id);
    else byId.set(id, d);
  }
  const matcher = new OperatorMatcher(knownOperators());
  const ids = [...byId.keys()].sort();
  const stations: StationRecord[] = [];
  const perOperator = new Map<string, number>();
  for (const id of ids) {
    const d = byId.get(id)!;
    const operatorId = matcher.match(d.operator_name, d.evse_operator, d.country);
    if (operatorId !== null) perOperator.set(operatorId, (perOperator.get(operatorId) ?? 0) + 1);
    if (d.evse_operator === null && operatorId !== null) d.evse_operator = matcher.soleEmi3(operatorId, d.country);
    stations.push(toStationRecord(d, operatorId, id));
  }
  if (stations.length === 0) throw new ImportError('no station could be read from the input; no snapshot written');
  const builtAt = new Date(dataDate ?? 0).toISOString();
  const snapshotVersion = writeServiceSnapshot({
    out: path.resolve(opts.out),
    stations,
    operators: matcher.operators().map((o) => ({ ...o, station_count: perOperator.get(o.id) ?? 0 })),
    builtAt,
    progress: opts.progress,
    // The formats that gave a station (by the source id's prefix), in command-line order.
    stationAttribution: importAttribution(
      opts.inputs.filter((i) => stations.some((st) => st.source_id?.startsWith(`${i.format}:`) === true)),
      dates,
      ocpi.parties(),
    ),
  });
  return {
    formats: [...new Set(opts.inputs.map((i) => i.format))],
    files: opts.inputs.length,
    rowsRead: tally.rowsRead,
    stationsWritten: stations.length,
    operatorsAdded: matcher.added.size,
    skipped: sortObj(tally.skipped),
    evseIdsDropped: sortObj(tally.evseIdsDropped),
    noted: sortObj(tally.noted),
    examples: sortObj(tally.examples),
    dataDate: builtAt,
    snapshotVersion,
    out: path.resolve(opts.out),
  };
}
