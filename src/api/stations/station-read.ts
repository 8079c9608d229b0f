/**
 * The single-station read (D30): the document as objects (the straightforward form) and the
 * writer that derives it from the station's list fragment, byte for byte the same.
 */
import type { CompanyRegistry } from '../../domain/companies/registry.js';
import type { StationIndex } from '../../domain/stations/index.js';
import type { StationRecord } from '../../domain/stations/model.js';
import { localized, type Language } from '../../domain/language.js';
import type { StationDocument } from '../schemas/stations.js';
import { NULL, OP_REF_OVERHEAD, StationBytesWriter } from '../station-page.js';

/** The single-read document (D30). */
export function singleStationDocument(
  s: StationRecord,
  lang: Language,
  availability: Int32Array | null | undefined,
  companies: CompanyRegistry,
  snapshotVersion: string,
): StationDocument {
  const withAvail = availability !== undefined;
  const op = s.operator_id !== null && companies.has(s.operator_id) ? companies.get(s.operator_id)! : null;
  return {
    data: {
      id: s.id,
      type: 'charging_station',
      attributes: {
        name: s.name,
        latitude: s.latitude,
        longitude: s.longitude,
        country: s.country,
        address: s.address,
        free_parking: s.free_parking,
        free_charging: s.free_charging,
        evse_ids: s.evse_ids,
        charge_points: s.charge_points.map((c, k) => {
          const cp: StationDocument['data']['attributes']['charge_points'][number] = { plug: c.plug, energy_type: c.energy_type, power: c.power, count: c.count };
          if (withAvail) cp.available_count = availability !== null && availability[k] >= 0 ? availability[k] : null;
          return cp;
        }),
        facilities: s.facilities,
        parking_type: s.parking_type,
        version: s.version,
        source_label: s.source_label,
        parking_description: localized(s.parking_description, lang),
        facility_details: s.facility_details,
      },
      relationships: { operator: { data: op === null ? null : { type: 'company', id: op.id } } },
      meta: { branding: s.branding === null ? null : { map_pin_icon_url: s.branding.map_pin_icon_url } },
    },
    included: op === null ? [] : [{ id: op.id, type: 'company', attributes: { name: op.name } }],
    meta: { snapshot_version: snapshotVersion },
  };
}

const S_HEAD = Buffer.from('{"data":');
const K_EVSE_OPERATOR = Buffer.from(',"evse_operator":');
const K_EVSE_IDS = Buffer.from(',"evse_ids":');
const K_CHARGE_POINTS = Buffer.from('"charge_points":[');
const K_CREATED_AT = Buffer.from(',"created_at":');
const K_VERSION = Buffer.from(',"version":');
const K_RELATIONSHIPS = Buffer.from('},"relationships":');
const AVAILABLE_COUNT = Buffer.from(',"available_count":');
const NO_EXTRAS = Buffer.from(',"parking_description":null,"facility_details":[]');
const INCLUDED = Buffer.from(',"included":[');

/**
 * The single-read document (D30) of a station derived from its list fragment, with no snapshot
 * read and no JSON.stringify: the list variant differs only by `evse_operator`, `created_at`,
 * `updated_at` and the groups' `evse_ids` (dropped), `available_count` (only with availability),
 * and `parking_description` / `facility_details` (added; null and [] for the stations the columns
 * mark as having none). Keys are found by byte search: a key with its quotes and colon cannot
 * occur inside a JSON string value (its quotes would be escaped), so the first match after a known
 * position is the key. Output is byte-for-byte that of `singleStationDocument` + JSON.stringify
 * (test/http/stations-single-writer.test.ts compares every station of the test snapshot).
 */
export class SingleStationWriter extends StationBytesWriter {
  /** `],"meta":{"snapshot_version":…}}`: the end of every document (D236). */
  private readonly tail: Buffer;

  constructor(index: StationIndex, companies: CompanyRegistry, snapshotVersion: string) {
    super(index, companies, 64 * 1024);
    this.tail = Buffer.from(`],"meta":{"snapshot_version":${JSON.stringify(snapshotVersion)}}}`);
  }

  /** True when station i can be written from memory (the columns say it has no parking description or facility details). */
  canWrite(i: number): boolean {
    const x = this.index.c.extras;
    return x !== undefined && x[i] === 0;
  }



  /**
   * The document of station i (canWrite(i) must hold). `availability`: undefined without the
   * availability option, null when the station has no values, else per group (-1 = unknown). The
   * result is a view of a reused buffer, valid until the next call (the handler is synchronous and
   * the server writes the body before it returns).
   */
  write(i: number, availability: Int32Array | null | undefined): Buffer {
    const c = this.index.c;
    const chunk = c.fragChunk[i];
    const f = c.fragments[chunk];
    const base = c.chunkStart[chunk];
    const start = c.fragStart[i] - base;
    const end = c.fragStart[i + 1] - base;
    this.pos = 0;
    this.put(S_HEAD);
    const evseOp = f.indexOf(K_EVSE_OPERATOR, start);
    this.put(f, start, evseOp);
    const evseIds = f.indexOf(K_EVSE_IDS, evseOp + K_EVSE_OPERATOR.length);
    const cps = f.indexOf(K_CHARGE_POINTS, evseIds + K_EVSE_IDS.length) + K_CHARGE_POINTS.length;
    this.put(f, evseIds, cps);
    const g0 = c.cpStart[i];
    const groups = c.cpStart[i + 1] - g0;
    let at = cps;
    for (let k = 0; k < groups; k++) {
      // Group k: `{"plug":…,"count":N,"evse_ids":[…],"available_count":null}`; `at` is its `{`.
      const ids = f.indexOf(K_EVSE_IDS, at);
      this.put(f, at, ids);
      if (availability !== undefined) {
        this.put(AVAILABLE_COUNT);
        const v = availability === null ? -1 : availability[k];
        this.putLatin1(v >= 0 ? String(v) : 'null');
      }
      this.ensure(2);
      this.buf[this.pos++] = 0x7d; // }
      const next = start + c.cpAvailPos[g0 + k] + 5; // past `null}`: `,` before the next group, or `]`
      if (k + 1 < groups) {
        this.buf[this.pos++] = 0x2c; // ,
        at = next + 1;
      } else at = next;
    }
    const created = f.indexOf(K_CREATED_AT, at);
    this.put(f, at, created);
    const version = f.indexOf(K_VERSION, created + K_CREATED_AT.length);
    const rel = f.indexOf(K_RELATIONSHIPS, version + K_VERSION.length);
    this.put(f, version, rel);
    this.put(NO_EXTRAS);
    const o = c.operator[i];
    const opId = o === -1 ? null : c.dict.operators[o];
    const opLive = opId !== null && this.companies.has(opId);
    if (opId !== null && !opLive) {
      const pos = start + c.opPos[i];
      this.put(f, rel, pos);
      this.put(NULL);
      this.put(f, pos + OP_REF_OVERHEAD + Buffer.byteLength(opId), end);
    } else this.put(f, rel, end);
    this.put(INCLUDED);
    if (opLive) this.put(this.companyName(opId));
    this.put(this.tail);
    return this.buf.subarray(0, this.pos);
  }
}
