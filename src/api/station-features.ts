/**
 * Station search and the price searches as GeoJSON (D237) and CSV (D238). The features are written
 * from the stations' list fragments (D28) as the JSON page is: each station's `attributes` bytes
 * become its `properties` (with `available_count` spliced in), its `longitude` and `latitude` bytes
 * its point, and the operator's id and name are appended. No parse, no object per station. The
 * straightforward twin (parse the JSON page, map it) is `featuresFromPage` below; a test compares
 * the two byte for byte over every station of the test snapshot. CSV is written from the features.
 */
import type { CompanyRegistry } from '../domain/companies/registry.js';
import type { StationIndex } from '../domain/stations/index.js';
import type { AvailabilityLookup } from './evse-availability.js';
import { StationBytesWriter } from './station-page.js';
import { csvRow } from '../domain/csv.js';
import { jsonStringEnd } from '../domain/bytes.js';

const TYPE_TO_ATTRIBUTES = Buffer.byteLength(',"type":"charging_station","attributes":{');
const K_RELATIONSHIPS = Buffer.from('},"relationships":');
const REL_TO_OPERATOR = Buffer.byteLength('},"relationships":{"operator":{"data":');
const NAME_KEY = Buffer.byteLength('"name":');
const LATITUDE_KEY = Buffer.byteLength(',"latitude":');
const LONGITUDE_KEY = Buffer.byteLength(',"longitude":');
const F_HEAD = Buffer.from('{"type":"FeatureCollection","features":[');
const F_ID = Buffer.from('{"type":"Feature","id":');
const F_POINT = Buffer.from(',"geometry":{"type":"Point","coordinates":[');
const F_PROPS = Buffer.from(']},"properties":{');
const NO_OPERATOR = Buffer.from(',"operator_id":null,"operator_name":null}');

export interface FeaturesInput {
  indices: readonly number[];
  /** Availability per station index (keys with ReadStationsWithAvailability), else null. */
  availability: AvailabilityLookup | null;
  /** More properties of feature j (`,"name":value…`, ASCII or UTF-8 JSON), or none. */
  extra?: (j: number) => string;
  /** Foreign members of the collection (`,"meta":{…},"links":{…}`), JSON text. */
  members: string;
}

/** The list-shape attributes of D28 in the order the JSON answers have them, then the operator: the CSV columns of D238. */
export const CSV_COLUMNS = [
  'id', 'name', 'latitude', 'longitude', 'country', 'address', 'free_parking', 'free_charging', 'evse_operator', 'evse_ids', 'charge_points',
  'facilities', 'parking_type', 'created_at', 'updated_at', 'version', 'source_label', 'operator_id', 'operator_name',
] as const;

export class FeatureWriter extends StationBytesWriter {
  /** Per operator dictionary index: its properties' end, or NO_OPERATOR when deleted (D21); until the next company write. */
  private operatorCache: (Buffer | undefined)[] = [];
  private operatorGeneration = -1;

  constructor(index: StationIndex, companies: CompanyRegistry) {
    super(index, companies, 1 << 20);
  }

  /** `,"operator_id":…,"operator_name":…}` of operator `o` of the dictionary (null values when deleted). */
  private operator(o: number): Buffer {
    if (this.operatorGeneration !== this.companies.generation) {
      this.operatorCache = [];
      this.operatorGeneration = this.companies.generation;
    }
    let b = this.operatorCache[o];
    if (b === undefined) {
      const id = this.index.c.dict.operators[o];
      const live = this.companies.has(id);
      b = live ? Buffer.from(`,"operator_id":${JSON.stringify(id)},"operator_name":${JSON.stringify(this.companies.get(id)!.name)}}`) : NO_OPERATOR;
      this.operatorCache[o] = b;
    }
    return b;
  }

  /**
   * The FeatureCollection as bytes, a view of a reused buffer valid until the next call (the
   * handlers are synchronous from here to the answer, as for the JSON page).
   */
  collection(p: FeaturesInput): Buffer {
    this.pos = 0;
    this.put(F_HEAD);
    for (let j = 0; j < p.indices.length; j++) {
      if (j > 0) this.putLatin1(',');
      this.feature(p.indices[j], p.availability);
      if (p.extra !== undefined) {
        // Before the properties' closing brace.
        this.pos--;
        this.putUtf8(`${p.extra(j)}}`);
      }
      this.putLatin1('}');
    }
    this.putLatin1(']');
    this.putUtf8(p.members);
    this.putLatin1('}');
    return this.buf.subarray(0, this.pos);
  }

  /** `{"type":"Feature","id":…,"geometry":…,"properties":{…}` (without the feature's closing brace). */
  private feature(i: number, availability: AvailabilityLookup | null): void {
    const c = this.index.c;
    const chunk = c.fragChunk[i];
    const f = c.fragments[chunk];
    // An int (the columns hold doubles): byte loops index by it.
    const start = (c.fragStart[i] - c.chunkStart[chunk]) | 0;
    // A fragment opens `{"id":"…","type":"charging_station","attributes":{"name":"…","latitude":…,"longitude":…,`; ids hold no quote.
    let idEnd = start + 7;
    while (f[idEnd] !== 0x22) idEnd++;
    const attrs = idEnd + 1 + TYPE_TO_ATTRIBUTES;
    const lat = jsonStringEnd(f, attrs + NAME_KEY) + LATITUDE_KEY;
    const latEnd = numberEnd(f, lat);
    const lon = latEnd + LONGITUDE_KEY;
    this.putShort(F_ID, 0, F_ID.length);
    this.putShort(f, start + 6, idEnd + 1);
    this.putShort(F_POINT, 0, F_POINT.length);
    this.putShort(f, lon, numberEnd(f, lon));
    this.putByte(0x2c);
    this.putShort(f, lat, latEnd);
    this.putShort(F_PROPS, 0, F_PROPS.length);
    // The operator reference sits at a known distance after `},"relationships":`; without one, search.
    const rel = c.opPos[i] >= 0 ? start + c.opPos[i] - REL_TO_OPERATOR : f.indexOf(K_RELATIONSHIPS, attrs);
    let at = attrs;
    const avail = availability === null ? undefined : availability.get(i);
    if (avail !== undefined) {
      const g0 = c.cpStart[i];
      for (let k = 0; k < avail.length; k++) {
        if (avail[k] < 0) continue;
        const pos = start + c.cpAvailPos[g0 + k];
        this.put(f, at, pos);
        this.putLatin1(String(avail[k]));
        at = pos + 4;
      }
    }
    this.put(f, at, rel);
    const o = c.operator[i];
    this.put(o === -1 ? NO_OPERATOR : this.operator(o));
  }
}

/** Where the JSON number starting at `at` ends (the next `,`). */
function numberEnd(f: Buffer, at: number): number {
  let k = at;
  while (f[k] !== 0x2c) k++;
  return k;
}

interface Resource {
  id: string;
  attributes: Record<string, unknown>;
  relationships?: { operator?: { data: { id: string } | null } };
}

/**
 * The straightforward twin of `FeatureWriter.collection`: the JSON:API list page, parsed and mapped
 * (kept for the byte-equality test; the writer above costs a fraction of a parse).
 */
export function featuresFromPage(page: { data: Resource[]; included: Resource[] }, members: Record<string, unknown>): unknown {
  const names = new Map(page.included.map((c) => [c.id, (c.attributes as { name: string }).name]));
  return {
    type: 'FeatureCollection',
    features: page.data.map((s) => {
      const op = s.relationships?.operator?.data ?? null;
      return {
        type: 'Feature',
        id: s.id,
        geometry: { type: 'Point', coordinates: [s.attributes.longitude, s.attributes.latitude] },
        properties: { ...s.attributes, operator_id: op === null ? null : op.id, operator_name: op === null ? null : (names.get(op.id) ?? null) },
      };
    }),
    ...members,
  };
}

/** D238: the CSV of a FeatureCollection of stations (header row, a row per feature, CRLF). */
export function csvOfFeatures(collection: Buffer): string {
  const doc = JSON.parse(collection.toString('utf8')) as { features: { id: string; properties: Record<string, unknown> }[] };
  const rows = [csvRow(CSV_COLUMNS)];
  for (const f of doc.features) rows.push(csvRow(CSV_COLUMNS.map((k) => (k === 'id' ? f.id : f.properties[k]))));
  return `${rows.join('\r\n')}\r\n`;
}
