/**
 * Bundesnetzagentur Ladesäulenregister (DE), CSV: the official file with its preamble (2026
 * layout, 47 columns, `Ladeeinrichtungs-ID`) and the 2021/22 layout (26 columns, `P1 [kW]`, no id).
 * Columns are found by header name; the header row by its first cell; the data date from
 * `Letzte Aktualisierung vom:` (older `Stand:`). One record per charging device; devices of the
 * same operator at the same street, house number and postcode within 250 m form one station.
 */
import {
  COUNTRY_BOXES,
  emi3OperatorOf,
  groupChargePoints,
  metresBetween,
  normalizeEvseId,
  normalizeOperatorName,
  normalizePower,
  parseDecimal,
  plugFromGerman,
  round6,
  validCoordinates,
  type Connector,
} from '../domain/stations/normalize.js';
import { Columns, ImportError, ImportTally, csvRecords, mostFrequent, offZone, sharedPointStrays, type OnBytes, type StationDraft } from './common.js';

/**
 * Column names by role, newest first: the 2017–2019 releases (xlsx, converted to CSV with
 * snapshots/tools/xlsx-to-csv.py) have `Breitengrad [DG]`, one `Adresse` cell and `Postleitzahl Ort`.
 */
const LAT = ['Breitengrad', 'Breitengrad [DG]'];
const LON = ['Längengrad', 'Längengrad [DG]'];
const STREET = ['Straße', 'Adresse', 'Standort'];
const POSTCODE = ['Postleitzahl', 'Postleitzahl Ort'];
const GROUP_RADIUS_M = 250;

interface Device {
  /** `Ladeeinrichtungs-ID`, or null in layouts without one (then the record number is used). */
  id: string | null;
  record: number;
  operator: string;
  street: string;
  houseNumber: string;
  postcode: string;
  town: string;
  lat: number;
  lon: number;
  connectors: Connector[];
}

/**
 * D230: an exact point that devices of different addresses share is a placeholder (a district's
 * centre, a copied position) for some of them; those are left out as `coordinates_shared`
 * (`sharedPointStrays`).
 */
function offSharedPoints(devices: readonly Device[], tally: ImportTally, file: string): Device[] {
  const stray = sharedPointStrays(devices);
  if (stray.size === 0) return [...devices];
  for (const [d, others] of stray) {
    tally.skip('coordinates_shared', `${file}:record ${d.record}: ${d.lat} / ${d.lon} (${d.street} ${d.houseNumber}, ${d.postcode}) shared with ${others} other address(es)`);
  }
  return devices.filter((d) => !stray.has(d));
}

/** D231: devices far from the other devices of their postcode zone (the postcode's first two digits) are left out. */
function offPostcodeZone(devices: readonly Device[], tally: ImportTally, file: string): Device[] {
  const zoned = devices.map((d) => ({ d, zone: /^\d{5}$/.test(d.postcode) ? d.postcode.slice(0, 2) : null, lat: d.lat, lon: d.lon }));
  const far = offZone(zoned);
  if (far.size === 0) return [...devices];
  for (const z of far) tally.skip('coordinates_off_zone', `${file}:record ${z.d.record}: ${z.lat} / ${z.lon} is far from the other devices of postcode zone ${z.zone}xxx (${z.d.postcode} ${z.d.town})`);
  return zoned.filter((z) => !far.has(z)).map((z) => z.d);
}

/** `DD.MM.YYYY` → ms since epoch (UTC), or null. */
function germanDate(s: string): number | null {
  const m = /(\d{1,2})\.(\d{1,2})\.(\d{4})/.exec(s);
  return m === null ? null : Date.UTC(Number(m[3]), Number(m[2]) - 1, Number(m[1]));
}

export async function readBnetza(
  file: string,
  tally: ImportTally,
  evseSeen: Set<string>,
  ids: Set<string>,
  onBytes?: OnBytes,
): Promise<{ stations: StationDraft[]; dataDate: number | null }> {
  let cols: Columns | null = null;
  let dataDate: number | null = null;
  const devices: Device[] = [];
  let plugColumns: Array<{ plug: string; power: string; evse: string }> = [];
  let names = { lat: LAT[0], lon: LON[0], street: STREET[0], postcode: POSTCODE[0] };
  for await (const { record, fields } of csvRecords(file, ';', tally, onBytes)) {
    const where = `${file}:record ${record}`;
    if (cols === null) {
      if (fields === null) continue;
      const first = (fields[0] ?? '').trim();
      const d = /^(Letzte Aktualisierung vom|Stand):\s*(.*)$/.exec(first);
      if (d !== null) dataDate = germanDate(d[2]);
      // Some xlsx releases hold the date as an Excel serial (days since 1899-12-30).
      else if (/^\d{5}$/.test(first) && fields.slice(1).every((f) => f.trim() === '')) {
        dataDate = Date.UTC(1899, 11, 30) + Number(first) * 86_400_000;
      }
      if (first === 'Ladeeinrichtungs-ID' || first === 'Betreiber') {
        cols = new Columns(fields);
        const c = cols;
        const pick = (names: string[]): string | null => names.find((n) => c.has(n)) ?? null;
        const missing = [['Betreiber'], LAT, LON].filter((names) => pick(names) === null).map((names) => names[0]);
        if (pick(POSTCODE) === null && pick(STREET) === null) missing.push('Postleitzahl');
        if (missing.length > 0) throw new ImportError(`${file}: header row ${record} lacks the column(s) ${missing.join(', ')}`);
        names = { lat: pick(LAT)!, lon: pick(LON)!, street: pick(STREET) ?? 'Straße', postcode: pick(POSTCODE) ?? '' };
        plugColumns = [];
        for (let n = 1; n <= 12; n++) {
          const plug = pick([`Steckertypen${n}`, `Steckertypen ${n}`, `Steckertypen ${n}#`]);
          if (plug === null) continue;
          const power = pick([`Nennleistung Stecker${n}`, `P${n} [kW]`, `P${n}`]) ?? `P${n} [kW]`;
          plugColumns.push({ plug, power, evse: `EVSE-ID${n}` });
        }
      }
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
    const latS = get(names.lat);
    const lonS = get(names.lon);
    if (latS === undefined || lonS === undefined || fields.length < cols.width) {
      tally.skip('missing_columns', `${where}: ${fields.length} of ${cols.width} fields`);
      continue;
    }
    let id: string | null = null;
    if (cols.has('Ladeeinrichtungs-ID')) {
      const raw = get('Ladeeinrichtungs-ID') ?? '';
      if (!/^\d+$/.test(raw)) {
        tally.skip('missing_id', `${where}: id ${JSON.stringify(raw)}`);
        continue;
      }
      if (ids.has(raw)) {
        tally.skip('duplicate_id', `${where}: id ${raw}`);
        continue;
      }
      ids.add(raw);
      id = raw;
    }
    const status = get('Status') ?? '';
    if (status.length > 0 && status !== 'In Betrieb') {
      tally.skip('not_in_operation', `${where}: ${status}`);
      continue;
    }
    const lat = parseDecimal(latS);
    const lon = parseDecimal(lonS);
    if (!validCoordinates(lat, lon, COUNTRY_BOXES.DE)) {
      tally.skip('bad_coordinates', `${where}: ${latS} / ${lonS}`);
      continue;
    }
    const connectors: Connector[] = [];
    for (const pc of plugColumns) {
      const plugCell = get(pc.plug) ?? '';
      if (plugCell.length === 0) continue;
      const names = plugCell.split(/\s*[;,]\s*/).filter((s) => s.length > 0);
      const powers = (get(pc.power) ?? '').split(/\s*;\s*/).map(parseDecimal);
      let evse: string | null = null;
      const rawEvse = get(pc.evse) ?? '';
      if (rawEvse.trim().length > 0) {
        evse = normalizeEvseId(rawEvse);
        if (evse === null) tally.dropEvse('evse_id_invalid', `${where}: ${JSON.stringify(rawEvse.slice(0, 40))}`);
        else if (evseSeen.has(evse)) {
          tally.dropEvse('evse_id_duplicate', `${where}: ${evse}`);
          evse = null;
        } else evseSeen.add(evse);
      }
      names.forEach((name, i) => {
        const plug = plugFromGerman(name);
        if (plug === null) return;
        const kw = powers.length === names.length ? powers[i] : powers[0];
        connectors.push({ ...plug, power: normalizePower(plug, kw ?? null), evse_id: evse });
      });
    }
    if (connectors.length === 0) {
      tally.skip('no_connectors', where);
      continue;
    }
    let street = get(names.street) ?? '';
    let postcode = names.postcode === '' ? '' : (get(names.postcode) ?? '');
    let town = get('Ort') ?? '';
    if (names.postcode === 'Postleitzahl Ort') {
      const m = /^(\d{4,5})\s*(.*)$/.exec(postcode);
      [postcode, town] = m === null ? ['', postcode] : [m[1], m[2]];
    } else if (names.postcode === '') {
      // The oldest layout: one `Standort` cell "street no, PLZ town".
      const m = /^(.*?),?\s*(\d{5})\s+(.+)$/.exec(street);
      if (m !== null) [street, postcode, town] = [m[1], m[2], m[3]];
    }
    devices.push({
      id,
      record,
      operator: get('Betreiber') ?? '',
      street,
      houseNumber: get('Hausnummer') ?? '',
      postcode,
      town,
      lat: lat!,
      lon: lon!,
      connectors,
    });
  }
  if (cols === null) throw new ImportError(`${file}: no header row (first cell "Ladeeinrichtungs-ID" or "Betreiber") found`);

  // Group devices into stations, in file order (deterministic).
  const groups = new Map<string, Device[][]>();
  const ordered: Device[][] = [];
  for (const d of offSharedPoints(offPostcodeZone(devices, tally, file), tally, file)) {
    const key = `${normalizeOperatorName(d.operator)}|${d.street.toLowerCase()}|${d.houseNumber.toLowerCase()}|${d.postcode}`;
    const list = groups.get(key) ?? [];
    groups.set(key, list);
    let g = list.find((x) => metresBetween(x[0].lat, x[0].lon, d.lat, d.lon) <= GROUP_RADIUS_M);
    if (g === undefined) {
      g = [];
      list.push(g);
      ordered.push(g);
    }
    g.push(d);
  }
  const date = dataDate === null ? 'undated' : new Date(dataDate).toISOString().slice(0, 10);
  const stations = ordered.map((g): StationDraft => {
    const first = g[0];
    const connectors = g.flatMap((d) => d.connectors);
    const emi3 = mostFrequent(connectors.flatMap((c) => (c.evse_id === null ? [] : [emi3OperatorOf(c.evse_id)!])));
    const street = [first.street, first.houseNumber].filter((s) => s.length > 0).join(' ');
    return {
      // Stable across releases where the register has device ids; else dated row numbers.
      source_id: first.id !== null ? `bnetza:device:${first.id}` : `bnetza:${date}:row${first.record}`,
      source_label: 'bnetza',
      name: first.street.length > 0 ? `${first.operator}, ${first.street}` : first.operator,
      latitude: round6(g.reduce((s, d) => s + d.lat, 0) / g.length),
      longitude: round6(g.reduce((s, d) => s + d.lon, 0) / g.length),
      country: 'DE',
      address: `${street}, ${first.postcode} ${first.town}`.trim(),
      operator_name: first.operator,
      evse_operator: emi3,
      free_charging: null,
      parking_type: null,
      facilities: [],
      charge_points: groupChargePoints(connectors),
      at: dataDate ?? 0,
    };
  });
  return { stations, dataDate };
}
