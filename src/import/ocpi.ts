/**
 * OCPI 2.2.1 Locations: a JSON array of Location objects, a saved `GET /locations` response
 * (`{"data": [Location…], "status_code": …}`, one file per page), or a single Location object.
 * Streamed with @streamparser/json: one Location at a time is held in memory. Unknown fields are
 * ignored; 2.1.1 connector field names (`voltage`, `amperage`) are read as a fallback.
 */
import fs from 'node:fs';
import { JSONParser } from '@streamparser/json';
import {
  COUNTRY_BOXES,
  emi3OperatorOf,
  groupChargePoints,
  normalizeEvseId,
  normalizePower,
  parseDecimal,
  plugFromOcpi,
  round6,
  validCoordinates,
  type Connector,
} from '../domain/stations/normalize.js';
import { ImportTally, mostFrequent, type OnBytes, type StationDraft } from './common.js';

/** ISO 3166-1 alpha-3 → alpha-2 for the countries OCPI feeds in Europe carry. */
const ALPHA2: Readonly<Record<string, string>> = {
  AUT: 'AT', BEL: 'BE', BGR: 'BG', CHE: 'CH', CYP: 'CY', CZE: 'CZ', DEU: 'DE', DNK: 'DK', ESP: 'ES', EST: 'EE',
  FIN: 'FI', FRA: 'FR', GBR: 'GB', GRC: 'GR', HRV: 'HR', HUN: 'HU', IRL: 'IE', ISL: 'IS', ITA: 'IT', LIE: 'LI',
  LTU: 'LT', LUX: 'LU', LVA: 'LV', MLT: 'MT', NLD: 'NL', NOR: 'NO', POL: 'PL', PRT: 'PT', ROU: 'RO', SVK: 'SK',
  SVN: 'SI', SWE: 'SE', MCO: 'MC', AND: 'AD', SMR: 'SM', SRB: 'RS', MNE: 'ME', MKD: 'MK', ALB: 'AL', BIH: 'BA',
  TUR: 'TR', UKR: 'UA', MDA: 'MD', REU: 'RE', GLP: 'GP', MTQ: 'MQ', GUF: 'GF', MYT: 'YT', USA: 'US', CAN: 'CA',
};

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === 'string' ? v.trim() : '');
const num = (v: unknown): number | null => (typeof v === 'number' ? v : typeof v === 'string' ? parseDecimal(v) : null);

/** Power of an OCPI connector in kW: `max_electric_power` (W), else volts × amps (× 3 on three phases). */
function connectorKw(c: Obj): number | null {
  const w = num(c.max_electric_power);
  if (w !== null && w > 0) return w / 1000;
  const v = num(c.max_voltage ?? c.voltage);
  const a = num(c.max_amperage ?? c.amperage);
  if (v === null || a === null || v <= 0 || a <= 0) return null;
  return (v * a * (c.power_type === 'AC_3_PHASE' ? 3 : 1)) / 1000;
}

/** The eMI3 operator id (`CC*PPP`) most of a Location's well-formed EVSE ids carry, or null (D254). */
export function partyOfEvses(evses: unknown): string | null {
  const parties: string[] = [];
  for (const e of Array.isArray(evses) ? evses : []) {
    const evse = isObj(e) ? normalizeEvseId(str(e.evse_id)) : null;
    const op = evse === null ? null : emi3OperatorOf(evse);
    if (op !== null) parties.push(op);
  }
  return mostFrequent(parties);
}

export class OcpiLocations {
  private readonly ids = new Set<string>();
  private readonly publishers = new Set<string>();
  dataDate: number | null = null;

  /** The parties (`CC*PTY`) whose Locations were read, sorted (the attribution, D131). */
  parties(): string[] {
    return [...this.publishers].sort();
  }

  constructor(
    private readonly tally: ImportTally,
    private readonly evseSeen: Set<string>,
  ) {}

  /** One Location → a station draft, or null (counted as skipped). */
  location(v: unknown, where: string): StationDraft | null {
    const t = this.tally;
    t.rowsRead++;
    if (!isObj(v) || !('evses' in v || 'coordinates' in v)) {
      t.skip('not_a_location', where);
      return null;
    }
    const id = str(v.id);
    if (id.length === 0) {
      t.skip('missing_id', where);
      return null;
    }
    let cc = str(v.country_code).toUpperCase();
    let party = str(v.party_id).toUpperCase();
    if (cc.length === 0 || party.length === 0) {
      // D254: no party named (OCPI 2.1.1's shape): the one its EVSE ids carry.
      const fromEvses = partyOfEvses(v.evses);
      if (fromEvses !== null) {
        [cc, party] = fromEvses.split('*');
        t.note('party_from_evse_ids', `${where}: ${fromEvses}:${id}`);
      }
    }
    const key = cc.length > 0 && party.length > 0 ? `${cc}*${party}:${id}` : id;
    if (this.ids.has(key)) {
      t.skip('duplicate_id', `${where}: ${key}`);
      return null;
    }
    this.ids.add(key);
    if (v.publish === false) {
      t.skip('not_published', `${where}: ${key}`);
      return null;
    }
    const country = ALPHA2[str(v.country).toUpperCase()] ?? (cc.length === 2 ? cc : '');
    const coords = isObj(v.coordinates) ? v.coordinates : {};
    const lat = num(coords.latitude);
    const lon = num(coords.longitude);
    if (country.length !== 2 || !validCoordinates(lat, lon, COUNTRY_BOXES[country])) {
      t.skip('bad_coordinates', `${where}: ${key} ${JSON.stringify(v.coordinates ?? null)} ${country}`);
      return null;
    }
    const connectors: Connector[] = [];
    for (const e of Array.isArray(v.evses) ? v.evses : []) {
      if (!isObj(e)) continue;
      if (e.status === 'REMOVED') {
        t.dropEvse('evse_removed', `${where}: ${key} ${str(e.uid)}`);
        continue;
      }
      let evse: string | null = null;
      const raw = str(e.evse_id);
      if (raw.length > 0) {
        evse = normalizeEvseId(raw);
        if (evse === null) t.dropEvse('evse_id_invalid', `${where}: ${key} ${JSON.stringify(raw.slice(0, 40))}`);
        else if (this.evseSeen.has(evse)) {
          t.dropEvse('evse_id_duplicate', `${where}: ${key} ${evse}`);
          evse = null;
        } else this.evseSeen.add(evse);
      }
      for (const c of Array.isArray(e.connectors) ? e.connectors : []) {
        if (!isObj(c)) continue;
        const plug = plugFromOcpi(str(c.standard), str(c.power_type));
        if (plug === null) continue;
        connectors.push({ ...plug, power: normalizePower(plug, connectorKw(c)), evse_id: evse });
      }
    }
    if (connectors.length === 0) {
      t.skip('no_connectors', `${where}: ${key}`);
      return null;
    }
    const updated = Date.parse(str(v.last_updated));
    const at = Number.isFinite(updated) ? updated : 0;
    if (at > 0 && (this.dataDate === null || at > this.dataDate)) this.dataDate = at;
    const operatorName =
      (isObj(v.operator) && str(v.operator.name)) ||
      (isObj(v.owner) && str(v.owner.name)) ||
      (isObj(v.suboperator) && str(v.suboperator.name)) ||
      (cc.length > 0 && party.length > 0 ? `${cc}*${party}` : '');
    const emi3 =
      mostFrequent(connectors.flatMap((c) => (c.evse_id === null ? [] : [emi3OperatorOf(c.evse_id)!]))) ??
      (cc.length === 2 && /^[A-Z0-9]{3}$/.test(party) ? `${cc}*${party}` : null);
    const address = str(v.address);
    const place = [str(v.postal_code), str(v.city)].filter((s) => s.length > 0).join(' ');
    // Only parties with a Location kept are named in the attribution (D131).
    if (cc.length > 0 && party.length > 0) this.publishers.add(`${cc}*${party}`);
    return {
      source_id: `ocpi:${key}`,
      source_label: 'ocpi',
      name: str(v.name) || address || id,
      latitude: round6(lat!),
      longitude: round6(lon!),
      country,
      address: [address, place].filter((s) => s.length > 0).join(', '),
      operator_name: operatorName,
      evse_operator: emi3,
      free_charging: null,
      parking_type: str(v.parking_type).length > 0 ? str(v.parking_type).toLowerCase() : null,
      facilities: (Array.isArray(v.facilities) ? v.facilities : [])
        .filter((f): f is string => typeof f === 'string')
        .map((f) => f.toLowerCase())
        .sort(),
      charge_points: groupChargePoints(connectors),
      at,
    };
  }
}

/**
 * Streams the Locations of one file into `sink`. A file that is not valid JSON keeps the
 * Locations read before the error and counts the rest as one `malformed_json` skip.
 */
export async function readOcpiFile(
  file: string,
  reader: OcpiLocations,
  tally: ImportTally,
  sink: (s: StationDraft) => void,
  onBytes?: OnBytes,
): Promise<void> {
  const head = Buffer.alloc(4096);
  const fd = fs.openSync(file, 'r');
  const n = fs.readSync(fd, head, 0, head.length, 0);
  fs.closeSync(fd);
  let start = n >= 3 && head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0;
  while (start < n && (head[start] === 0x20 || head[start] === 0x0a || head[start] === 0x0d || head[start] === 0x09)) start++;
  const isArray = head[start] === 0x5b; // [
  const parser = new JSONParser({ paths: isArray ? ['$.*'] : ['$.data.*', '$'], keepStack: false });
  let count = 0;
  let failed: Error | null = null;
  parser.onValue = ({ value, stack }) => {
    if (isArray || stack.length === 2) {
      count++;
      const s = reader.location(value, `${file}:#${count}`);
      if (s !== null) sink(s);
      return;
    }
    // The root of an object file: a single Location, or a response whose data was streamed above.
    if (stack.length === 0 && !(isObj(value) && 'data' in value)) {
      count++;
      const s = reader.location(value, `${file}:#${count}`);
      if (s !== null) sink(s);
    }
  };
  parser.onError = (e) => {
    failed ??= e;
  };
  const input = fs.createReadStream(file, { start, highWaterMark: 1 << 16 });
  let bytes = start;
  for await (const chunk of input as AsyncIterable<Buffer>) {
    bytes += chunk.length;
    onBytes?.(bytes);
    if (failed !== null) break;
    try {
      parser.write(chunk);
    } catch (e) {
      failed ??= e as Error;
    }
  }
  input.destroy();
  if (failed === null && !parser.isEnded) {
    try {
      parser.end();
    } catch (e) {
      failed = e as Error;
    }
  }
  if (failed !== null) tally.skip('malformed_json', `${file}: ${failed.message} (after ${count} locations)`);
}
