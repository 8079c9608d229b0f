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

/**
 * Growable byte buffer, reused across requests of a thread. Short strings are copied byte by byte
 * while they are ASCII (no call into the Buffer binding per piece); the rest go through
 * `Buffer.write`. It tracks whether everything written so far is ASCII, so the final text can be
 * taken as latin1 (a plain copy) instead of being UTF-8 decoded.
 */
export class ByteWriter extends GrowableBytes {
  ascii = true;

  constructor(capacity = 1 << 16) {
    super(capacity);
  }

  reset(): void {
    this.pos = 0;
    this.ascii = true;
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
    const written = buf.write(s, pos, 'utf8');
    if (written !== n) this.ascii = false;
    this.pos = pos + written;
  }

  /** Appends a fragment made by `fragment` (its ASCII-ness is known). */
  bytes(f: Fragment): void {
    const b = f.bytes;
    const n = b.length;
    this.ensure(n);
    if (!f.ascii) this.ascii = false;
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

  /** The written document as a (flat) string. */
  text(): string {
    return this.buf.toString(this.ascii ? 'latin1' : 'utf8', 0, this.pos);
  }
}

/** UTF-8 bytes of a serialized piece, and whether they are all ASCII. */
export interface Fragment {
  bytes: Buffer;
  ascii: boolean;
}

const bytes = (s: string): Fragment => {
  const b = Buffer.from(s, 'utf8');
  return { bytes: b, ascii: b.length === s.length };
};

/** The request-independent parts of one tariff's charge_price resource. */
interface Fragments {
  /** `{"id":…,"type":"charge_price","attributes":{"provider":…,"tariff_name":…,"url":…,"monthly_min_sales":` */
  head: Fragment;
  /** `,"flat_rate":…,"provider_customer_tariff":…,"is_roaming":` */
  flags: Fragment;
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

/** Per-thread cache; dropped when the catalog (or its generation) changes. */
const cache = { generation: -1, catalog: null as PricingCatalog | null, byId: new Map<string, Fragments>() };

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
  null: bytes('null'),
  totalMonthlyFee: bytes(',"total_monthly_fee":'),
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
 * Writes the whole 200 document of `POST /v1/charge_prices` for a computation and returns it as
 * a string (the same text as the object + JSON.stringify path, byte for byte).
 */
export function writeChargePrices(catalog: PricingCatalog, comp: ChargePriceComputation, rates: RateTable, o: ChargePriceWrite): string {
  if (cache.catalog !== catalog || cache.generation !== catalog.generation) {
    cache.catalog = catalog;
    cache.generation = catalog.generation;
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
  const cpHead: Fragment[] = new Array(nu);
  for (let j = 0; j < nu; j++) {
    const cp = comp.chargePoints[usable[j]];
    cpHead[j] = bytes(`{"plug":${js(cp.plug)},"power":${num(cp.power)},"price":`);
  }
  const reasonJson = new Map<number, Fragment>();
  const target = comp.conversion.target;
  const dist = results.distribution;
  const blocking = results.blockingFeeStart;
  const isAverage = results.isAverage;

  const currencyFrag = bytes(currency);
  const startTimeFrag = bytes(startTime);
  w.str('{"data":[');
  for (let k = 0; k < order.length; k++) {
    const n = order[k];
    const t = shownT[n];
    const b = blocks[n];
    const f = frag[n];
    const tariff = b.tariff as unknown as StoredTariff;
    const cur = b.tariff.currency ?? 'EUR';
    if (k > 0) w.bytes(L.comma);
    w.bytes(f.head);
    w.str(num(convertAmount(b.monthlyMinSales, cur, target, rates)));
    w.bytes(L.totalMonthlyFee);
    w.str(num(convertAmount(b.totalMonthlyFee, cur, target, rates)));
    w.bytes(f.flags);
    w.bytes(IS_ROAMING[candidates.roaming[t] ? 1 : 0]);
    let tags = f.tagsByLang?.get(o.lang);
    if (tags === undefined) {
      tags = bytes(`,"tags":${js(visibleTags(tariff.tags ?? [], o.lang, o.nowMs, o.listed !== null && o.listed.has(tariff.id)))}`);
      f.tagsByLang?.set(o.lang, tags);
    }
    w.bytes(currencyFrag);
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
      if (!first) w.bytes(L.comma);
      first = false;
      w.bytes(cpHead[j]);
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
      w.bytes(L.distOpen);
      const ds = dist[3 * i];
      const dk = dist[3 * i + 1];
      const dm = dist[3 * i + 2];
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
      w.bytes(L.blocking);
      const bf = blocking[i];
      if (Number.isNaN(bf)) w.bytes(L.null);
      else w.str(num(bf));
      w.bytes(isAverage[i] === 1 ? L.averageTrue : L.averageFalse);
    }
    w.bytes(f.tail);
  }
  w.str('],"meta":{"charge_points":' + js(metaChargePoints(comp)) + '}}');
  return w.text();
}
