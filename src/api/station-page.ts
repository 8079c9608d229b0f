/**
 * Station documents. The list page is built by joining the pre-serialized station fragments of the
 * snapshot (D28) and splicing in the few per-request values: the operator reference (null when the
 * company was deleted, D21) and `available_count` (D3). Included operator companies (D29) come
 * from a per-company cache invalidated by the company registry's generation.
 */
import type { CompanyRegistry } from '../domain/companies/registry.js';
import type { StationIndex } from '../domain/stations/index.js';
import type { AvailabilityLookup } from './evse-availability.js';
import type { StationRecord } from '../domain/stations/model.js';
import { localized, type Language } from '../domain/language.js';
import { GrowableBytes } from '../domain/bytes.js';
import type { StationDocument } from './schemas/stations.js';

const HEAD = Buffer.from('{"data":[');
const COMMA = Buffer.from(',');
const NULL = Buffer.from('null');
const MID = Buffer.from('],"included":[');
const OP_REF_OVERHEAD = Buffer.byteLength('{"type":"company","id":""}');

export interface PageInput {
  indices: readonly number[];
  moreAvailable: boolean;
  /** Availability per station index (only for keys with ReadStationsWithAvailability), else null. */
  availability: AvailabilityLookup | null;
  /** fields[company]; undefined = name only. */
  companyFields: ReadonlySet<string> | undefined;
  /** filter[operator.supported_emps.id], for the filtered supported_emps (D29). */
  supportedEmpsFilter: readonly string[] | undefined;
  /** `,"links":{…}` (ASCII) of a paged list (D235), spliced before the document's closing brace. */
  links?: string;
}

/** Output buffer plus the included operator records with `name` only, cached until the next company write. */
export abstract class StationBytesWriter extends GrowableBytes {
  private nameCache = new Map<string, Buffer>();
  private cacheGeneration = -1;

  constructor(
    protected readonly index: StationIndex,
    protected readonly companies: CompanyRegistry,
    capacity: number,
  ) {
    super(capacity);
  }

  protected companyName(id: string): Buffer {
    if (this.cacheGeneration !== this.companies.generation) {
      this.nameCache = new Map();
      this.cacheGeneration = this.companies.generation;
    }
    let b = this.nameCache.get(id);
    if (b === undefined) {
      const c = this.companies.get(id)!;
      b = Buffer.from(JSON.stringify({ id: c.id, type: 'company', attributes: { name: c.name } }));
      this.nameCache.set(id, b);
    }
    return b;
  }
}

export class StationPageWriter extends StationBytesWriter {
  private readonly tail: (more: boolean) => Buffer;
  /** Where the last page's `],"included":[` and its closing `],"meta":` start (area price search splices the parts). */
  midAt = 0;
  tailAt = 0;

  /** `snapshotVersion`: the snapshot of `index`, in every page's meta (D27) so a paged reader sees a swap. */
  constructor(index: StationIndex, companies: CompanyRegistry, disabledExtBCountries: readonly string[], snapshotVersion: string) {
    super(index, companies, 1 << 20);
    const rest = `"disabled_ext_b_countries":${JSON.stringify(disabledExtBCountries)},"snapshot_version":${JSON.stringify(snapshotVersion)}}}`;
    const t = Buffer.from(`],"meta":{"more_available":true,${rest}`);
    const f = Buffer.from(`],"meta":{"more_available":false,${rest}`);
    this.tail = (more) => (more ? t : f);
  }


  private companyRecord(id: string, p: PageInput): Buffer {
    const f = p.companyFields;
    if (f === undefined || (f.size === 1 && f.has('name'))) return this.companyName(id);
    const c = this.companies.get(id)!;
    const rec: Record<string, unknown> = { id: c.id, type: 'company' };
    if (f.has('name')) rec.attributes = { name: c.name };
    if (f.has('supported_emps')) {
      const wanted = p.supportedEmpsFilter === undefined ? null : new Set(p.supportedEmpsFilter);
      const emps = wanted === null ? [] : c.supported_emps.filter((e) => wanted.has(e) && this.companies.has(e));
      rec.relationships = { supported_emps: { data: emps.map((e) => ({ type: 'company', id: e })) } };
    }
    return Buffer.from(JSON.stringify(rec));
  }


  /**
   * The whole list document as bytes: fragments are copied into a reused scratch buffer (no
   * per-station views or objects), splicing the dynamic values in. The result is a view of that
   * buffer, valid until the next call: the search handler is synchronous and the server writes the
   * body before it returns (uWS copies what it cannot send at once), so no copy is made. A fresh
   * 300 KB buffer per response costs more in page faults than building the page.
   */
  page(p: PageInput): Buffer {
    const c = this.index.c;
    this.pos = 0;
    this.put(HEAD);
    const ops: string[] = [];
    const seen = new Set<number>();
    for (let j = 0; j < p.indices.length; j++) {
      const i = p.indices[j];
      if (j > 0) {
        this.ensure(1);
        this.buf[this.pos++] = 0x2c;
      }
      const chunk = c.fragChunk[i];
      const frags = c.fragments[chunk];
      const base = c.chunkStart[chunk];
      const start = c.fragStart[i] - base;
      const end = c.fragStart[i + 1] - base;
      const avail = p.availability === null ? undefined : p.availability.get(i);
      const o = c.operator[i];
      let opLive = true;
      if (o !== -1) {
        const opId = c.dict.operators[o];
        opLive = this.companies.has(opId);
        if (opLive && !seen.has(o)) {
          seen.add(o);
          ops.push(opId);
        }
      }
      if (avail === undefined && opLive) {
        this.put(frags, start, end);
        continue;
      }
      // Splice: available counts (ascending positions), then the operator reference.
      let at = start;
      if (avail !== undefined) {
        const g0 = c.cpStart[i];
        for (let k = 0; k < avail.length; k++) {
          if (avail[k] < 0) continue;
          const pos = start + c.cpAvailPos[g0 + k];
          this.put(frags, at, pos);
          this.putLatin1(String(avail[k]));
          at = pos + 4;
        }
      }
      if (!opLive) {
        const pos = start + c.opPos[i];
        this.put(frags, at, pos);
        this.put(NULL);
        at = pos + OP_REF_OVERHEAD + Buffer.byteLength(c.dict.operators[o]);
      }
      this.put(frags, at, end);
    }
    this.midAt = this.pos;
    this.put(MID);
    for (let k = 0; k < ops.length; k++) {
      if (k > 0) this.put(COMMA);
      this.put(this.companyRecord(ops[k], p));
    }
    this.tailAt = this.pos;
    this.put(this.tail(p.moreAvailable));
    if (p.links !== undefined) {
      this.pos--;
      this.putLatin1(`${p.links}}`);
    }
    return this.buf.subarray(0, this.pos);
  }
}

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
