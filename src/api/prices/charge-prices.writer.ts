/**
 * The `POST /v1/charge_prices` document written straight into one reusable UTF-8 byte buffer.
 *
 * The static part of every charge_price resource (computed id, provider, tariff name, url, flags,
 * system tags, branding, the tariff relationship, tags per language when no tag depends on the
 * request) is serialized once per tariff and kept as bytes until the catalog changes (its
 * generation moves). The charge point heads (`plug`, `power`) are serialized once per request and
 * shared by every entry. Entries are picked and sorted (D41, D92) from the price results without
 * building intermediate objects; the output is byte-for-byte the document that
 * `chargePriceEntries` (its straightforward twin, test/oracles/charge-price-entries.ts) + `JSON.stringify`
 * would give (test/http/prices-serialize.test.ts).
 */
import { Buffer } from 'node:buffer';
import { computedId } from '../../domain/ids.js';
import {
  REASONS,
  compareSortKeys,
  convertAmount,
  metaChargePoints,
  reasonText,
  visibleTags,
  type ChargePriceComputation,
  type CompiledTariff,
  type Language,
  type NoPriceReason,
  type PricingCatalog,
  type RateTable,
} from '../../domain/pricing/index.js';
import { storedOf } from '../../pool/catalog.js';
import type { ChargePricePartView } from '../../pool/protocol.js';
import { GrowableBytes } from '../../domain/bytes.js';

const js = JSON.stringify;

/** A number as JSON.stringify writes it (non-finite → null). */
const num = (x: number): string => (Number.isFinite(x) ? String(x) : 'null');

/** Documents up to this size are copied out of the writer; larger ones take its buffer along. */
const TAKE_COPY_LIMIT = 256 * 1024;
const EMPTY = Buffer.alloc(0);

/**
 * Growable byte buffer, reused across requests of a thread. Short strings are copied byte by byte
 * while they are ASCII (no call into the Buffer binding per piece); the rest go through
 * `Buffer.write`.
 */
export class ByteWriter extends GrowableBytes {
  /** Capacity of the buffer last handed over with a large document (see `take`). */
  private handedOver = 0;

  constructor(capacity = 1 << 16) {
    super(capacity);
  }

  /** Starts a document; after a hand-over, in a fresh buffer of the capacity handed over. */
  reset(): void {
    this.pos = 0;
    if (this.buf.length === 0) this.buf = Buffer.allocUnsafeSlow(this.handedOver);
  }

  /**
   * Takes back the buffer handed over with the last large document, once its holder is done
   * with it; false (and nothing done) for any other buffer.
   */
  takeBack(doc: Uint8Array): boolean {
    if (this.buf.length !== 0 || doc.byteOffset !== 0 || !(doc.buffer instanceof ArrayBuffer) || doc.buffer.byteLength !== this.handedOver) return false;
    this.buf = Buffer.from(doc.buffer);
    return true;
  }

  str(s: string): void {
    const n = s.length;
    this.ensure(n * 3);
    const buf = this.buf;
    let pos = this.pos;
    if (n <= 256) {
      let i = 0;
      for (; i < n; i++) {
        const c = s.charCodeAt(i);
        if (c >= 0x80) break;
        buf[pos++] = c;
      }
      if (i === n) {
        this.pos = pos;
        return;
      }
      pos = this.pos;
    }
    this.pos = pos + buf.write(s, pos, 'utf8');
  }

  /**
   * Appends a number as JSON.stringify writes it. Amounts that are whole cents below 1e13 in
   * magnitude (the usual price) are written digit by digit without a string: for them the
   * shortest round-trip form that JSON.stringify prints is exactly the cents decimal with trailing
   * zeros dropped (two decimals 0.01 apart cannot round to one double below 2^46). Anything
   * else goes through `String`.
   */
  number(x: number): void {
    const k = Math.round(x * 100);
    if (k / 100 !== x || k >= 1e15 || k <= -1e15) {
      this.str(num(x));
      return;
    }
    this.ensure(20);
    const buf = this.buf;
    let pos = this.pos;
    let a = k;
    if (a < 0) {
      buf[pos++] = 45; // '-'
      a = -a;
    }
    const frac = a % 100;
    let int = (a - frac) / 100;
    // Integer digits, written backwards into place.
    let digits = 1;
    for (let v = int; v >= 10; v = Math.floor(v / 10)) digits++;
    const end = pos + digits;
    for (let i = end - 1; i >= pos; i--) {
      const d = int % 10;
      buf[i] = 48 + d;
      int = (int - d) / 10;
    }
    pos = end;
    if (frac !== 0) {
      buf[pos++] = 46; // '.'
      const tens = (frac - (frac % 10)) / 10;
      buf[pos++] = 48 + tens;
      if (frac % 10 !== 0) buf[pos++] = 48 + (frac % 10);
    }
    this.pos = pos;
  }

  /** Appends a serialized piece. */
  bytes(b: Fragment): void {
    const n = b.length;
    this.ensure(n);
    if (n <= 16) {
      const buf = this.buf;
      let pos = this.pos;
      for (let i = 0; i < n; i++) buf[pos++] = b[i];
      this.pos = pos;
    } else {
      this.buf.set(b, this.pos);
      this.pos += n;
    }
  }

  /**
   * The written bytes in an ArrayBuffer of their own, which a worker transfers to the main thread
   * without a copy; the writer's buffer serves the next document. A small document is copied out
   * into a buffer of its exact size. A large one (over TAKE_COPY_LIMIT) is handed over with the
   * buffer under it: copying a megabyte costs more than starting the next document in a fresh
   * `allocUnsafeSlow` buffer (neither zero-filled nor a slice of Node's shared pool; its pages are
   * only touched as the document is written), and a holder that is done with the document early
   * gives the buffer back (`takeBack`), so that no fresh buffer is needed. Handing over a large
   * buffer with every small document instead would make each answer carry megabytes of external
   * memory and bring on frequent full collections.
   */
  take(): Uint8Array {
    const n = this.pos;
    this.pos = 0;
    if (n <= TAKE_COPY_LIMIT) {
      const out = Buffer.allocUnsafeSlow(n);
      this.buf.copy(out, 0, 0, n);
      return out;
    }
    const out = this.buf.subarray(0, n);
    this.handedOver = this.buf.length;
    this.buf = EMPTY;
    return out;
  }
}

/** UTF-8 bytes of a serialized piece. */
export type Fragment = Buffer;

const bytes = (s: string): Fragment => Buffer.from(s, 'utf8');

/** The request-independent parts of one tariff's charge_price resource. */
interface Fragments {
  /** `{"id":…,"type":"charge_price","attributes":{"provider":…,"tariff_name":…,"url":…,"monthly_min_sales":` */
  head: Fragment;
  /** `,"flat_rate":…,"provider_customer_tariff":…,"is_roaming":` */
  flags: Fragment;
  /**
   * Everything from `head` to the currency (`…"is_promoted":false,"currency":"EUR"`), with the
   * fees converted, per requested currency and roaming flag (key: currency + '0' | '1').
   */
  prefix: Map<string, Fragment>;
  /** `,"system_tags":…,"start_time":` */
  systemTags: Fragment;
  /** `,"branding":…,"charge_point_prices":[` */
  branding: Fragment;
  /** `]},"relationships":{"tariff":…}}` */
  tail: Fragment;
  /** `,"tags":[…]` per language when no tag depends on time or listing; else null. */
  tagsByLang: Map<string, Fragment> | null;
  /**
   * Everything before the first charge point price, from `{"id":` to `"charge_point_prices":[`,
   * per roaming flag (index) and request key (currency, language, start time); only when
   * `tagsByLang` is kept. At most HEAD_VARIANTS keys each.
   */
  heads: [Map<string, Fragment>, Map<string, Fragment>];
  /** D92 sort keys. */
  provider: string;
  name: string | null;
}

/** Per-thread cache; dropped when the catalog (or its generation) or the rate table changes. */
const cache = {
  generation: -1,
  catalog: null as PricingCatalog | null,
  rates: null as RateTable | null,
  byId: new Map<string, Fragments>(),
  ranks: null as Int32Array | null,
};

/** The cached prefix of a tariff's resource for a requested currency and roaming flag. */
function prefixOf(f: Fragments, b: CompiledTariff, target: string, currencyJson: string, roaming: boolean, rates: RateTable): Fragment {
  const key = roaming ? target + '1' : target + '0';
  let p = f.prefix.get(key);
  if (p === undefined) {
    const cur = b.tariff.currency ?? 'EUR';
    const fees = bytes(
      num(convertAmount(b.monthlyMinSales, cur, target, rates)) + ',"total_monthly_fee":' + num(convertAmount(b.totalMonthlyFee, cur, target, rates)),
    );
    p = Buffer.concat([f.head, fees, f.flags, IS_ROAMING[roaming ? 1 : 0], bytes(currencyJson)]);
    f.prefix.set(key, p);
  }
  return p;
}

function fragmentsOf(catalog: PricingCatalog, b: CompiledTariff): Fragments {
  const t = storedOf(b.tariff);
  let f = cache.byId.get(b.id);
  if (f !== undefined) return f;
  const emp = catalog.companies.get(t.emp_id);
  const provider = emp?.name ?? '';
  const tags = t.tags ?? [];
  const name = b.tariff.name ?? null;
  f = {
    head: bytes(
      `{"id":${js(computedId('charge_price', t.id))},"type":"charge_price","attributes":{"provider":${js(provider)},` +
        `"tariff_name":${js(t.name ?? null)},"url":${js(t.url ?? emp?.url ?? null)},"monthly_min_sales":`,
    ),
    flags: bytes(
      `,"flat_rate":${t.is_flat_rate === true},"direct_payment":${t.is_direct_payment === true},` +
        `"is_card_payment":${t.is_card_payment === true},"provider_customer_tariff":${t.provider_customer_only === true},"is_roaming":`,
    ),
    systemTags: bytes(`,"system_tags":${js(t.system_tags ?? [])},"start_time":`),
    branding: bytes(`,"branding":${js(t.branding ?? null)},"charge_point_prices":[`),
    tail: bytes(`]},"relationships":{"tariff":{"data":{"type":"tariff","id":${js(t.id)}}}}}`),
    prefix: new Map(),
    tagsByLang: tags.some((x) => x.show_until != null || x.hide_for_owners === true) ? null : new Map(),
    heads: [new Map<string, Fragment>(), new Map<string, Fragment>()],
    provider: provider.toLowerCase(),
    name: name === null ? null : name.toLowerCase(),
  };
  cache.byId.set(b.id, f);
  return f;
}

/** Request keys (currency, language, start time) kept per tariff and roaming flag. */
const HEAD_VARIANTS = 8;

/** `,` between entries. */
const COMMA = bytes(',');

/** Literal pieces of the entry. */
const L = {
  distOpen: bytes(',"price_distribution":{'),
  session: bytes('"session":'),
  kwh: bytes('"kwh":'),
  commaKwh: bytes(',"kwh":'),
  minute: bytes('"minute":'),
  commaMinute: bytes(',"minute":'),
  blocking: bytes('},"blocking_fee_start":'),
  averageTrue: bytes(',"no_price_reason":null,"is_average_price":true}'),
  averageFalse: bytes(',"no_price_reason":null,"is_average_price":false}'),
};

/** `},"blocking_fee_start":null,…}` to the end of a priced entry; index: average flag. */
const BLOCKING_NULL_TAIL = [false, true].map((avg) => bytes(`},"blocking_fee_start":null,"no_price_reason":null,"is_average_price":${avg}}`));

/**
 * The whole rest of a priced entry after its price when one dimension carries all of it (a
 * distribution fraction of exactly 1) and there is no blocking fee start: the common shape of
 * real tariffs. Index: dimension (0 session, 1 kwh, 2 minute) × 2 + average flag.
 */
const SINGLE_DIMENSION_TAIL = (['session', 'kwh', 'minute'] as const).flatMap((d) =>
  [false, true].map((avg) => bytes(`,"price_distribution":{"${d}":1},"blocking_fee_start":null,"no_price_reason":null,"is_average_price":${avg}}`)),
);

const IS_ROAMING = [bytes('false,"is_promoted":false,"currency":'), bytes('true,"is_promoted":false,"currency":')];

export interface ChargePriceWrite {
  showPriceUnavailable: boolean;
  lang: Language;
  nowMs: number;
  currency: string;
  startTime: number;
  /** `relationships.tariffs` IDs, or null. */
  listed: ReadonlySet<string> | null;
}

/** Reusable per-thread state. */
const state = { writer: new ByteWriter(), low: [] as number[] };

/** `,"tags":[…]` of a tariff's entry: cached per language unless a tag depends on time or listing. */
function tagsOf(f: Fragments, b: CompiledTariff, o: ChargePriceWrite): Fragment {
  let tags = f.tagsByLang?.get(o.lang);
  if (tags === undefined) {
    const tariff = storedOf(b.tariff);
    tags = bytes(`,"tags":${js(visibleTags(tariff.tags ?? [], o.lang, o.nowMs, o.listed !== null && o.listed.has(tariff.id)))}`);
    f.tagsByLang?.set(o.lang, tags);
  }
  return tags;
}

/**
 * Gives the writer back the buffer under a document it returned, once the caller is done with
 * the document (a worker that copied it into a shared output slot): the buffer of a large
 * document then serves the next one, with its pages already in place, instead of a fresh one.
 * Other documents are left alone.
 */
export function recycleDocument(doc: Uint8Array): void {
  state.writer.takeBack(doc);
}

/**
 * Writes the whole 200 document of `POST /v1/charge_prices` for a computation and returns its
 * UTF-8 bytes in an ArrayBuffer of their own (the UTF-8 encoding of the object + JSON.stringify
 * text, byte for byte), so a worker hands them to the main thread without a string in between.
 */
export function writeChargePrices(catalog: PricingCatalog, comp: ChargePriceComputation, rates: RateTable, o: ChargePriceWrite): Uint8Array {
  return write(catalog, comp, rates, o, null);
}

/**
 * One part of a split request (a share of the candidates, see `ChargePriceRequest.part`): its
 * entries in D92 order, each with a leading comma, and their index, from which
 * `mergeChargePriceParts` assembles the document the whole request would give.
 */
export interface ChargePricePart {
  bytes: Uint8Array;
  /** End offset of each entry in `bytes`. */
  ends: Int32Array;
  /** Each entry's lowest price (Infinity when it shows reasons only). */
  lows: Float64Array;
  /** Each entry's tariff rank in the catalog's provider, name, id order (`tariffRanks`). */
  ranks: Int32Array;
  /** `],"meta":…}}`: the document's end (the same in every part). */
  closing: string;
}

/** Writes the entries of one part of a split request (see ChargePricePart). */
export function writeChargePricePart(catalog: PricingCatalog, comp: ChargePriceComputation, rates: RateTable, o: ChargePriceWrite): ChargePricePart {
  const part: PartOut = { ends: [], lows: [], ranks: [], closing: '' };
  const bytes = write(catalog, comp, rates, o, part);
  return { bytes, ends: Int32Array.from(part.ends), lows: Float64Array.from(part.lows), ranks: Int32Array.from(part.ranks), closing: part.closing };
}

interface PartOut {
  ends: number[];
  lows: number[];
  ranks: number[];
  closing: string;
}

/**
 * Every tariff's position in the D92 tie-break order (provider, then tariff name, case-insensitive
 * with null last, then id), by slot; built once per catalog generation. Threads at the same
 * generation rank alike, so entries of parts written in different threads merge by (lowest
 * price, rank) into the order one thread would have written.
 */
function tariffRanks(catalog: PricingCatalog): Int32Array {
  if (cache.ranks !== null) return cache.ranks;
  const slots = catalog.slots();
  const blocks = slots.map((k) => catalog.block(k)!);
  const frags = blocks.map((b) => fragmentsOf(catalog, b));
  const order = slots.map((_, i) => i);
  order.sort((a, c) => compareTies(frags[a], blocks[a], frags[c], blocks[c]));
  const ranks = new Int32Array(catalog.slotCount).fill(-1);
  for (let r = 0; r < order.length; r++) ranks[slots[order[r]]] = r;
  cache.ranks = ranks;
  return ranks;
}

/** D92 after the lowest price: provider, then tariff name (case-insensitive, null last), then id. */
function compareTies(fa: Fragments, a: CompiledTariff, fc: Fragments, c: CompiledTariff): number {
  const r = compareSortKeys(fa.provider, fc.provider) || compareSortKeys(fa.name, fc.name);
  if (r !== 0) return r;
  return a.id < c.id ? -1 : a.id > c.id ? 1 : 0;
}

function write(catalog: PricingCatalog, comp: ChargePriceComputation, rates: RateTable, o: ChargePriceWrite, part: PartOut | null): Uint8Array {
  if (cache.catalog !== catalog || cache.generation !== catalog.generation || cache.rates !== rates) {
    cache.catalog = catalog;
    cache.generation = catalog.generation;
    cache.rates = rates;
    cache.byId.clear();
    cache.ranks = null;
  }
  const { results, usable, candidates } = comp;
  const nu = usable.length;
  const price = results.price;
  const reason = results.reason;

  // D41: the shown entries, each with its lowest non-null price.
  const low = state.low;
  low.length = 0;
  const shownT: number[] = [];
  for (let t = 0; t < candidates.slots.length; t++) {
    const showReasons = o.showPriceUnavailable && comp.policy[t] === 2;
    let best = Infinity;
    let priced = 0;
    for (let j = 0; j < nu; j++) {
      const p = price[t * nu + j];
      if (Number.isNaN(p)) continue;
      priced++;
      if (p < best) best = p;
    }
    if (priced === 0 && !showReasons) continue;
    shownT.push(t);
    low.push(best);
  }

  // D92: lowest price, then provider, then tariff name (case-insensitive, null last), then id.
  const frag: Fragments[] = new Array<Fragments>(shownT.length);
  const blocks: CompiledTariff[] = new Array<CompiledTariff>(shownT.length);
  for (let n = 0; n < shownT.length; n++) {
    const b = catalog.block(candidates.slots[shownT[n]])!;
    blocks[n] = b;
    frag[n] = fragmentsOf(catalog, b);
  }
  // Ties by each tariff's rank in the generation's tie-break order (`tariffRanks`): one order for
  // whole answers and for split parts, which are merged by the same (lowest price, rank).
  const ranks = tariffRanks(catalog);
  const order: number[] = new Array<number>(shownT.length);
  for (let n = 0; n < order.length; n++) order[n] = n;
  order.sort((a, c) => {
    const la = low[a];
    const lc = low[c];
    if (la !== lc) return la < lc ? -1 : 1;
    return ranks[blocks[a].slot] - ranks[blocks[c].slot];
  });
  if (part !== null) {
    for (let k = 0; k < order.length; k++) {
      part.lows.push(low[order[k]]);
      part.ranks.push(ranks[blocks[order[k]].slot]);
    }
  }

  // Per-request shared pieces.
  const w = state.writer;
  w.reset();
  const currency = js(o.currency);
  const startTime = num(o.startTime);
  // Per charge point: its head, and the same after a comma (entries after the first).
  const cpHead: Fragment[] = new Array<Fragment>(nu);
  const cpNext: Fragment[] = new Array<Fragment>(nu);
  for (let j = 0; j < nu; j++) {
    const cp = comp.chargePoints[usable[j]];
    cpHead[j] = bytes(`{"plug":${js(cp.plug)},"power":${num(cp.power)},"price":`);
    cpNext[j] = bytes(`,{"plug":${js(cp.plug)},"power":${num(cp.power)},"price":`);
  }
  const reasonJson = new Map<number, Fragment>();
  const target = comp.conversion.target;
  const dist = results.distribution;
  const blocking = results.blockingFeeStart;
  const isAverage = results.isAverage;

  const startTimeFrag = bytes(startTime);
  const headKey = `${target}|${o.lang}|${startTime}`;
  if (part === null) w.str('{"data":[');
  for (let k = 0; k < order.length; k++) {
    const n = order[k];
    const t = shownT[n];
    const b = blocks[n];
    const f = frag[n];
    // Parts write a comma before every entry: the merge copies runs of entries in one piece.
    if (k > 0 || part !== null) w.bytes(COMMA);
    const roaming = candidates.roaming[t];
    if (f.tagsByLang !== null) {
      const heads = f.heads[roaming ? 1 : 0];
      let head = heads.get(headKey);
      if (head === undefined) {
        const tags = tagsOf(f, b, o);
        head = Buffer.concat([prefixOf(f, b, target, currency, roaming, rates), tags, f.systemTags, startTimeFrag, f.branding]);
        if (heads.size >= HEAD_VARIANTS) heads.clear();
        heads.set(headKey, head);
      }
      w.bytes(head);
    } else {
      w.bytes(prefixOf(f, b, target, currency, roaming, rates));
      w.bytes(tagsOf(f, b, o));
      w.bytes(f.systemTags);
      w.bytes(startTimeFrag);
      w.bytes(f.branding);
    }
    const showReasons = o.showPriceUnavailable && comp.policy[t] === 2;
    let first = true;
    for (let j = 0; j < nu; j++) {
      const i = t * nu + j;
      const p = price[i];
      if (Number.isNaN(p) && !showReasons) continue;
      w.bytes(first ? cpHead[j] : cpNext[j]);
      first = false;
      if (Number.isNaN(p)) {
        const code = reason[i];
        let r = reasonJson.get(code);
        if (r === undefined) {
          r = bytes(
            'null,"price_distribution":{},"blocking_fee_start":null,"no_price_reason":' +
              js(reasonText(REASONS[code] as NoPriceReason, o.lang)) +
              ',"is_average_price":false}',
          );
          reasonJson.set(code, r);
        }
        w.bytes(r);
        continue;
      }
      w.number(p);
      const ds = dist[3 * i];
      const dk = dist[3 * i + 1];
      const dm = dist[3 * i + 2];
      const bf = blocking[i];
      if (Number.isNaN(bf)) {
        // NaN fractions are absent keys: exactly one key with fraction 1.
        const single = ds === 1 && Number.isNaN(dk) && Number.isNaN(dm) ? 0 : dk === 1 && Number.isNaN(ds) && Number.isNaN(dm) ? 1 : dm === 1 && Number.isNaN(ds) && Number.isNaN(dk) ? 2 : -1;
        if (single >= 0) {
          w.bytes(SINGLE_DIMENSION_TAIL[2 * single + isAverage[i]]);
          continue;
        }
      }
      w.bytes(L.distOpen);
      let none = true;
      if (!Number.isNaN(ds)) {
        w.bytes(L.session);
        w.number(ds);
        none = false;
      }
      if (!Number.isNaN(dk)) {
        w.bytes(none ? L.kwh : L.commaKwh);
        w.number(dk);
        none = false;
      }
      if (!Number.isNaN(dm)) {
        w.bytes(none ? L.minute : L.commaMinute);
        w.number(dm);
      }
      if (Number.isNaN(bf)) w.bytes(BLOCKING_NULL_TAIL[isAverage[i]]);
      else {
        w.bytes(L.blocking);
        w.number(bf);
        w.bytes(isAverage[i] === 1 ? L.averageTrue : L.averageFalse);
      }
    }
    w.bytes(f.tail);
    part?.ends.push(w.pos);
  }
  const closing = '],"meta":{"charge_points":' + js(metaChargePoints(comp)) + '}}';
  if (part === null) w.str(closing);
  else part.closing = closing;
  return w.take();
}

/** A part's entries as received by the thread that merges them (its bytes may sit in a shared output slot). */
/**
 * Assembles the `POST /v1/charge_prices` document from the parts of a split request, written at
 * one catalog generation: the entries merged by (lowest price, tariff rank), which is the D92
 * order one thread writes, so the result is byte for byte the document of the whole request.
 * Writes into `out` from its start and returns a view of the written bytes.
 */
export function mergeChargePriceParts(parts: readonly ChargePricePartView[], closing: string, out: GrowableBytes): Buffer {
  let total = OPEN_DATA.length + Buffer.byteLength(closing);
  let entries = 0;
  for (const p of parts) {
    total += p.ends.length === 0 ? 0 : p.ends[p.ends.length - 1];
    entries += p.ends.length;
  }
  out.pos = 0;
  out.ensure(total);
  const buf = out.buf;
  buf.set(OPEN_DATA, 0);
  let pos = OPEN_DATA.length;
  const at = new Int32Array(parts.length);
  let first = true;
  for (let k = 0; k < entries; ) {
    // The part whose next entry comes first (few parts: a linear scan).
    let best = -1;
    for (let q = 0; q < parts.length; q++) {
      const i = at[q];
      const p = parts[q];
      if (i >= p.ends.length) continue;
      if (best < 0 || before(p, i, parts[best], at[best])) best = q;
    }
    // Its run of entries that come before every other part's next one: one copy.
    const p = parts[best];
    const i0 = at[best];
    let i = i0 + 1;
    for (; i < p.ends.length; i++) {
      let next = true;
      for (let q = 0; q < parts.length; q++) {
        if (q !== best && at[q] < parts[q].ends.length && before(parts[q], at[q], p, i)) {
          next = false;
          break;
        }
      }
      if (!next) break;
    }
    // Entries carry their leading comma; the document's first one goes without.
    const start = (i0 === 0 ? 0 : p.ends[i0 - 1]) + (first ? 1 : 0);
    const end = p.ends[i - 1];
    buf.set(p.bytes.subarray(start, end), pos);
    pos += end - start;
    first = false;
    k += i - i0;
    at[best] = i;
  }
  pos += buf.write(closing, pos, 'utf8');
  out.pos = pos;
  return buf.subarray(0, pos);
}

/** Entry i of part a comes before entry j of part b: lower lowest price, then lower tariff rank. */
function before(a: ChargePricePartView, i: number, b: ChargePricePartView, j: number): boolean {
  const la = a.lows[i];
  const lb = b.lows[j];
  return la < lb || (la === lb && a.ranks[i] < b.ranks[j]);
}

const OPEN_DATA = Buffer.from('{"data":[', 'latin1');
