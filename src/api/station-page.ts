/**
 * Station documents. The list page is built by joining the pre-serialized station fragments of the
 * snapshot (D28) and splicing in the few per-request values: the operator reference (null when the
 * company was deleted, D21) and `available_count` (D3). Included operator companies (D29) come
 * from a per-company cache invalidated by the company registry's generation.
 */
import type { CompanyRegistry } from '../domain/companies/registry.js';
import type { StationIndex } from '../domain/stations/index.js';
import type { AvailabilityLookup } from './evse-availability.js';
import { GrowableBytes } from '../domain/bytes.js';

const HEAD = Buffer.from('{"data":[');
const COMMA = Buffer.from(',');
export const NULL = Buffer.from('null');
const MID = Buffer.from('],"included":[');
export const OP_REF_OVERHEAD = Buffer.byteLength('{"type":"company","id":""}');

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
