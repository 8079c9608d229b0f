/**
 * French consolidated IRVE file, schema "IRVE statique" 2.x (CSV, `,`, header in line 1, one row
 * per charge point `id_pdc_itinerance`, a station `id_station_itinerance` spanning `nbre_pdc` rows).
 * Columns are found by name; extra columns (pandas index, `tariff_id`, the consolidation's other
 * fields) are ignored, but a row the consolidation marks `consolidated_is_lon_lat_correct = False`
 * is skipped (`coordinates_flagged`). `coordonneesXY` is `[lon, lat]`.
 */
import {
  COUNTRY_BOXES,
  emi3OperatorOf,
  groupChargePoints,
  normalizeEvseId,
  normalizePower,
  parseDecimal,
  plugsFromIrve,
  round6,
  validCoordinates,
  type Connector,
} from '../domain/stations/normalize.js';
import { Columns, ImportError, ImportTally, csvRecords, offZone, type OnBytes, type StationDraft } from './common.js';

const REQUIRED = [
  'id_station_itinerance', 'id_pdc_itinerance', 'nom_station', 'adresse_station', 'coordonneesXY',
  'puissance_nominale', 'prise_type_ef', 'prise_type_2', 'prise_type_combo_ccs', 'prise_type_chademo',
] as const;

/** Overseas departments by INSEE department code (first three digits of `code_insee_commune`). */
const OVERSEAS: Readonly<Record<string, string>> = { '971': 'GP', '972': 'MQ', '973': 'GF', '974': 'RE', '976': 'YT' };

const PARKING: Readonly<Record<string, string | null>> = {
  voirie: 'on_street',
  'parking public': 'parking_lot',
  'parking privé à usage public': 'parking_lot',
  'parking privé réservé à la clientèle': 'parking_lot',
  'station dédiée à la recharge rapide': null,
};

/** `true/TRUE/True/1/oui` → true, `false/…/0/non` → false, else null (case-insensitive). */
function bool(s: string | undefined): boolean | null {
  const t = (s ?? '').trim().toLowerCase();
  if (t === 'true' || t === '1' || t === 'oui' || t === 'vrai') return true;
  if (t === 'false' || t === '0' || t === 'non' || t === 'faux') return false;
  return null;
}

/** `[lon, lat]` (with or without a space, optionally quoted numbers) → [lat, lon], or null. */
function coordinatesXY(s: string): [number, number] | null {
  const m = /^\[\s*"?([^,\]"]+)"?\s*,\s*"?([^,\]"]+)"?\s*\]$/.exec(s.trim());
  if (m === null) return null;
  const lon = parseDecimal(m[1]);
  const lat = parseDecimal(m[2]);
  return lon === null || lat === null ? null : [lat, lon];
}

interface Pending {
  draft: StationDraft;
  connectors: Connector[];
  emi3: string | null;
  /** The department of the station's INSEE commune code (D231), or null. */
  zone: string | null;
  lat: number;
  lon: number;
  /** Its rows (charge points) read, and where the first is. */
  rows: number;
  where: string;
}

/** The department of an INSEE commune code: two characters (2A, 2B for Corsica), three overseas (97x). */
function departmentOf(insee: string): string | null {
  const c = insee.trim().toUpperCase();
  if (!/^(\d{5}|2[AB]\d{3})$/.test(c)) return null;
  return c.startsWith('97') ? c.slice(0, 3) : c.slice(0, 2);
}

export async function readIrve(
  file: string,
  tally: ImportTally,
  evseSeen: Set<string>,
  pdcSeen: Set<string>,
  onBytes?: OnBytes,
): Promise<{ stations: StationDraft[]; dataDate: number | null }> {
  let cols: Columns | null = null;
  let dataDate: number | null = null;
  const stations = new Map<string, Pending>();
  for await (const { record, fields } of csvRecords(file, ',', tally, onBytes)) {
    const where = `${file}:record ${record}`;
    if (cols === null) {
      if (fields === null) throw new ImportError(`${file}: the header row is not valid text`);
      cols = new Columns(fields);
      const missing = cols.missing(REQUIRED);
      if (missing.length > 0) throw new ImportError(`${file}: not an IRVE 2.x file, the header lacks ${missing.join(', ')}`);
      continue;
    }
    if (fields === null) {
      tally.rowsRead++;
      tally.skip('bad_encoding', where);
      continue;
    }
    if (fields.every((f) => f.trim().length === 0)) continue;
    tally.rowsRead++;
    const get = (name: string): string | undefined => cols!.get(fields, name);
    if (fields.length < cols.width) {
      tally.skip('missing_columns', `${where}: ${fields.length} of ${cols.width} fields`);
      continue;
    }
    const stationId = (get('id_station_itinerance') ?? '').toUpperCase();
    const pdcId = (get('id_pdc_itinerance') ?? '').toUpperCase();
    if (stationId.length === 0 || pdcId.length === 0) {
      tally.skip('missing_id', where);
      continue;
    }
    if (pdcSeen.has(pdcId)) {
      tally.skip('duplicate_id', `${where}: ${pdcId}`);
      continue;
    }
    pdcSeen.add(pdcId);
    // The national consolidation checks each position and flags those it found wrong (D132).
    if (bool(get('consolidated_is_lon_lat_correct')) === false) {
      tally.skip('coordinates_flagged', `${where}: ${get('coordonneesXY')}`);
      continue;
    }
    const insee = get('code_insee_commune') ?? '';
    const country = OVERSEAS[insee.slice(0, 3)] ?? 'FR';
    const xy = coordinatesXY(get('coordonneesXY') ?? '');
    if (xy === null || !validCoordinates(xy[0], xy[1], COUNTRY_BOXES[country])) {
      tally.skip('bad_coordinates', `${where}: ${get('coordonneesXY')}`);
      continue;
    }
    const plugs = plugsFromIrve({
      ef: bool(get('prise_type_ef')) === true,
      t2: bool(get('prise_type_2')) === true,
      ccs: bool(get('prise_type_combo_ccs')) === true,
      chademo: bool(get('prise_type_chademo')) === true,
    });
    if (plugs.length === 0) {
      tally.skip('no_connectors', `${where}: ${pdcId}`);
      continue;
    }
    let evse = normalizeEvseId(pdcId);
    if (evse === null) tally.dropEvse('evse_id_invalid', `${where}: ${pdcId}`);
    else if (evseSeen.has(evse)) {
      tally.dropEvse('evse_id_duplicate', `${where}: ${evse}`);
      evse = null;
    } else evseSeen.add(evse);
    let kw = parseDecimal(get('puissance_nominale'));
    // Schema 2.x says kW; a few publishers give watts.
    if (kw !== null && kw > 1000) kw = kw / 1000;
    const maj = get('date_maj') ?? '';
    const at = /^\d{4}-\d{2}-\d{2}/.test(maj) ? Date.parse(maj.slice(0, 10)) : NaN;
    if (Number.isFinite(at) && (dataDate === null || at > dataDate)) dataDate = at;

    let p = stations.get(stationId);
    if (p === undefined) {
      const operatorName = get('nom_operateur') || get('nom_enseigne') || get('nom_amenageur') || '';
      const implantation = (get('implantation_station') ?? '').toLowerCase();
      p = {
        draft: {
          source_id: `irve:${stationId}`,
          source_label: 'irve',
          name: get('nom_station') || stationId,
          latitude: round6(xy[0]),
          longitude: round6(xy[1]),
          country,
          address: get('adresse_station') ?? '',
          operator_name: operatorName,
          evse_operator: emi3OperatorOf(stationId),
          free_charging: bool(get('gratuit')),
          parking_type: PARKING[implantation] ?? null,
          facilities: [],
          charge_points: [],
          at: Number.isFinite(at) ? at : 0,
        },
        connectors: [],
        emi3: emi3OperatorOf(stationId),
        zone: departmentOf(insee),
        lat: xy[0],
        lon: xy[1],
        rows: 0,
        where,
      };
      stations.set(stationId, p);
    } else if (Number.isFinite(at) && at > p.draft.at) p.draft.at = at;
    p.rows++;
    for (const plug of plugs) p.connectors.push({ ...plug, power: normalizePower(plug, kw), evse_id: evse });
  }
  if (cols === null) throw new ImportError(`${file}: empty file`);
  // D231: stations far from the other stations of their department.
  const far = offZone([...stations.values()]);
  const out: StationDraft[] = [];
  for (const p of stations.values()) {
    if (far.has(p)) {
      for (let i = 0; i < p.rows; i++) tally.skip('coordinates_off_zone', `${p.where}: ${p.lat} / ${p.lon} is far from the other stations of department ${p.zone}`);
      continue;
    }
    p.draft.charge_points = groupChargePoints(p.connectors);
    out.push(p.draft);
  }
  return { stations: out, dataDate };
}
