/**
 * The `POST /v1/charge_prices` document written straight into one reusable UTF-8 byte buffer.
 *
 * The static part of every charge_price resource (computed id, provider, tariff name, url, flags,
 * system tags, branding, the tariff relationship, tags per language when no tag depends on the
 * request) is serialized once per tariff and kept as bytes until the catalog changes (its
 * generation moves). The charge point heads (`plug`, `power`) are serialized once per request and
 * shared by every entry. Entries are picked and sorted (D41, D92) from the price results without
 * building intermediate objects; the output is byte-for-byte the document that
 * `chargePriceEntries` + `JSON.stringify` would give (test/http/prices-serialize.test.ts).
 */
import { Buffer } from 'node:buffer';
import { computedId } from '../domain/ids.js';
import {
  REASONS,
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
} from '../domain/pricing/index.js';
import type { StoredTariff } from '../domain/tariffs/model.js';
import { GrowableBytes } from '../domain/bytes.js';

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
  /** D92 sort keys. */
  provider: string;
  name: string | null;
}

/** Per-thread cache; dropped when the catalog (or its generation) or the rate table changes. */
const cache = { generation: -1, catalog: null as PricingCatalog | null, rates: null as RateTable | null, byId: new Map<string, Fragments>() };

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
  const t = b.tariff as unknown as StoredTariff;
  let f = cache.byId.get(b.id);
  if (f !== undefined) return f;
  const emp = catalog.companies.get(t.emp_id);
  const provider = emp?.name ?? '';
  const tags = t.tags ?? [];
  const name = (b.tariff.name ?? null) as string | null;
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
    provider: provider.toLowerCase(),
    name: name === null ? null : name.toLowerCase(),
  };
  cache.byId.set(b.id, f);
  return f;
}

/** Literal pieces of the entry. */
const L = {
  comma: bytes(','),
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

function compareText(x: string | null, y: string | null): number {
  if (x === null || y === null) return x === y ? 0 : x === null ? 1 : -1;
  return x < y ? -1 : x > y ? 1 : 0;
}

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
const state = { writer: new ByteWriter(), slots: [] as number[], low: [] as number[] };

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
  if (cache.catalog !== catalog || cache.generation !== catalog.generation || cache.rates !== rates) {
    cache.catalog = catalog;
    cache.generation = catalog.generation;
    cache.rates = rates;
    cache.byId.clear();
  }
  const { results, usable, candidates } = comp;
  const nu = usable.length;
  const price = results.price;
  const reason = results.reason;

  // D41: the shown entries, each with its lowest non-null price.
  const slots = state.slots;
  const low = state.low;
  slots.length = 0;
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
  const frag: Fragments[] = new Array(shownT.length);
  const blocks: CompiledTariff[] = new Array(shownT.length);
  for (let n = 0; n < shownT.length; n++) {
    const b = catalog.block(candidates.slots[shownT[n]])!;
    blocks[n] = b;
    frag[n] = fragmentsOf(catalog, b);
  }
  const order: number[] = new Array(shownT.length);
  for (let n = 0; n < order.length; n++) order[n] = n;
  order.sort((a, c) => {
    const la = low[a];
    const lc = low[c];
    if (la !== lc) return la < lc ? -1 : 1;
    const fa = frag[a];
    const fc = frag[c];
    const r = compareText(fa.provider, fc.provider) || compareText(fa.name, fc.name);
    if (r !== 0) return r;
    const ia = blocks[a].id;
    const ic = blocks[c].id;
    return ia < ic ? -1 : ia > ic ? 1 : 0;
  });

  // Per-request shared pieces.
  const w = state.writer;
  w.reset();
  const currency = js(o.currency);
  const startTime = num(o.startTime);
  // Per charge point: its head, and the same after a comma (entries after the first).
  const cpHead: Fragment[] = new Array(nu);
  const cpNext: Fragment[] = new Array(nu);
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
  w.str('{"data":[');
  for (let k = 0; k < order.length; k++) {
    const n = order[k];
    const t = shownT[n];
    const b = blocks[n];
    const f = frag[n];
    const tariff = b.tariff as unknown as StoredTariff;
    if (k > 0) w.bytes(L.comma);
    w.bytes(prefixOf(f, b, target, currency, candidates.roaming[t], rates));
    let tags = f.tagsByLang?.get(o.lang);
    if (tags === undefined) {
      tags = bytes(`,"tags":${js(visibleTags(tariff.tags ?? [], o.lang, o.nowMs, o.listed !== null && o.listed.has(tariff.id)))}`);
      f.tagsByLang?.set(o.lang, tags);
    }
    w.bytes(tags);
    w.bytes(f.systemTags);
    w.bytes(startTimeFrag);
    w.bytes(f.branding);
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
      w.str(num(p));
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
        w.str(num(ds));
        none = false;
      }
      if (!Number.isNaN(dk)) {
        w.bytes(none ? L.kwh : L.commaKwh);
        w.str(num(dk));
        none = false;
      }
      if (!Number.isNaN(dm)) {
        w.bytes(none ? L.minute : L.commaMinute);
        w.str(num(dm));
      }
      if (Number.isNaN(bf)) w.bytes(BLOCKING_NULL_TAIL[isAverage[i]]);
      else {
        w.bytes(L.blocking);
        w.str(num(bf));
        w.bytes(isAverage[i] === 1 ? L.averageTrue : L.averageFalse);
      }
    }
    w.bytes(f.tail);
  }
  w.str('],"meta":{"charge_points":' + js(metaChargePoints(comp)) + '}}');
  return w.take();
}
