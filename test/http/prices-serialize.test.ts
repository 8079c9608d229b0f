/**
 * The charge price document writer (src/api/prices/charge-prices.writer.ts, used by runChargePrices) against
 * the reference path it replaced: `chargePriceEntries` objects + JSON.stringify. Seeded random
 * catalogs and requests (languages, currencies, show_price_unavailable, include modes, listed
 * tariffs, tags with show_until / hide_for_owners, null names and urls, non-ASCII and quoted text,
 * provider names differing only in case, EVSE-less no-price tariffs); the documents must be
 * byte-for-byte equal. Repeated requests on one catalog exercise the per-tariff fragment cache,
 * and a catalog change (generation moves) must drop it.
 */
import { describe, expect, it } from 'vitest';
import { straightforwardChargePrices } from '../../bench/lib/charge-document.js';
import { generatedTariffs } from '../../bench/scenarios.js';
import {
  DEFAULT_CHARGE_PRICE_OPTIONS,
  PricingCatalog,
  type ChargePointInput,
  type CompanyInput,
  type IncludeMode,
  type Language,
  type PriceComponent,
  type RateTable,
  type Segment,
  type Tag,
  type TariffInput,
} from '../../src/domain/pricing/index.js';
import { mulberry32 } from '../../src/domain/random.js';
import type { StationView } from '../../src/pool/stations.js';
import { ByteWriter, mergeChargePriceParts, recycleDocument } from '../../src/api/prices/charge-prices.writer.js';
import { GrowableBytes } from '../../src/domain/bytes.js';
import { runChargePrices, runChargePricesPart } from '../../src/api/prices/prices.tasks.js';
import type { ChargePricesTask } from '../../src/pool/protocol.js';

const RATES: RateTable = { date: '2025-01-01', rates: { EUR: 1, CHF: 1.23, GBP: 0.85, DKK: 7.46, SEK: 11.2 } };
const CPO = 'c0000000-0000-4000-8000-000000000001';
const LANGS: Language[] = ['en', 'de', 'fr', 'nl', 'da'];
const CURRENCIES = ['EUR', 'CHF', 'GBP', 'DKK', 'SEK'];
const PLUGS = ['type2', 'ccs', 'chademo', 'schuko'];
const NOW = Date.UTC(2026, 0, 15);

/** The reference: the object + JSON.stringify document (the path before the direct writer). */
const referenceDocument = (catalog: PricingCatalog, t: ChargePricesTask): string => straightforwardChargePrices(catalog, t, RATES);

const uuid = (r: () => number): string => {
  const h = (n: number) => Array.from({ length: n }, () => Math.floor(r() * 16).toString(16)).join('');
  return `${h(8)}-${h(4)}-4${h(3)}-8${h(3)}-${h(12)}`;
};

function randomCatalog(seed: number) {
  const r = mulberry32(seed);
  const pick = <T,>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
  const chance = (p: number) => r() < p;
  const int = (lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));
  const text = () =>
    pick(['Ladestrom', 'Électricité "rapide"', 'ÆØÅ tarif', 'plain', 'back\\slash', 'emoji ⚡', 'tab\tnew\nline', 'Zürich <tag>']) + int(0, 9);

  const catalog = new PricingCatalog();
  const emps: string[] = [];
  const nEmp = int(3, 8);
  for (let k = 0; k < nEmp; k++) {
    const id = uuid(r);
    emps.push(id);
    // Names that differ only in case, and shared names, exercise the D92 tie-breaks.
    const name = pick(['Alpha', 'alpha', 'ALPHA', 'Beta', 'Ça charge', 'zeta', 'Émile', '']) + (chance(0.3) ? ` ${k}` : '');
    const co: CompanyInput = { id, name, is_emp: true, is_cpo: false, supported_emp_ids: [], url: chance(0.5) ? `https://emp${k}.example/?q="x"` : null };
    catalog.upsertCompany(co);
  }
  catalog.upsertCompany({ id: CPO, name: 'The CPO', is_emp: false, is_cpo: true, supported_emp_ids: emps.filter(() => chance(0.6)) });

  const tag = (): Tag => {
    const t: Tag = { kind: pick(['info', 'promo', 'warning']), localized_text: {} };
    for (const l of LANGS) if (chance(0.5)) t.localized_text[l] = text();
    if (chance(0.5)) t.url = chance(0.5) ? `https://tag.example/${int(0, 99)}` : null;
    if (chance(0.3)) t.show_until = NOW + (chance(0.5) ? -1 : 1) * int(1, 10) * 86_400_000;
    if (chance(0.3)) t.hide_for_owners = chance(0.7);
    return t;
  };
  const segment = (): Segment => {
    const s: Segment = { dimension: pick(['session', 'kwh', 'kwh', 'minute'] as const), price: Math.round(r() * 1000) / 1000 };
    if (s.dimension === 'minute' && chance(0.3)) s.range_gte = int(0, 120);
    return s;
  };
  const component = (): PriceComponent => {
    const restrictions = chance(0.4)
      ? [{ allowance: chance(0.7) ? ('allow' as const) : ('deny' as const), charge_point_energy_type: pick(['ac', 'dc'] as const) }]
      : [];
    return { restrictions, decomposition: Array.from({ length: int(1, 3) }, segment) };
  };
  const ids: string[] = [];
  const nTariffs = int(20, 90);
  for (let k = 0; k < nTariffs; k++) {
    const id = uuid(r);
    ids.push(id);
    const t: TariffInput = {
      id,
      type: 'tariff',
      name: chance(0.15) ? null : pick(['Basic', 'basic', 'Flex "Plus"', 'Öko', 'Zoom', 'a']) + (chance(0.5) ? ` ${int(0, 3)}` : ''),
      currency: pick(['EUR', 'EUR', 'CHF', 'GBP', 'DKK']),
      prices: chance(0.15) ? [] : Array.from({ length: int(1, 3) }, component),
      emp_id: pick(emps),
      monthly_fee: chance(0.5) ? Math.round(r() * 2000) / 100 : null,
      yearly_service_fee: chance(0.3) ? Math.round(r() * 5000) / 100 : null,
      monthly_min_sales: chance(0.3) ? Math.round(r() * 1000) / 100 : null,
      is_flat_rate: chance(0.2) ? true : chance(0.5) ? false : null,
      is_direct_payment: chance(0.3),
      is_card_payment: chance(0.3) ? true : null,
      provider_customer_only: chance(0.2),
      no_price_policy: chance(0.3) ? pick(['hide', 'show_reason', 'inherit'] as const) : null,
      no_price_reason: chance(0.3) ? pick(['prices_per_station', 'not_public', 'not_yet_listed', 'no_reliable_data_available'] as const) : null,
      tags: chance(0.6) ? Array.from({ length: int(1, 3) }, tag) : chance(0.5) ? [] : null,
      system_tags: chance(0.5) ? ['sys-' + int(0, 5), 'ümlaut'] : null,
      branding: chance(0.3) ? { background_color: '#ffffff', text_color: '#000"00', logo_url: 'https://logo.example/x.png' } : null,
      url: chance(0.5) ? `https://tariff.example/${k}` : null,
    };
    catalog.upsertTariff(t);
  }
  return { catalog, ids, emps, r, pick, chance, int };
}

function randomTask(g: ReturnType<typeof randomCatalog>): ChargePricesTask {
  const { ids, emps, r, pick, chance, int } = g;
  const chargePoints: ChargePointInput[] = Array.from({ length: int(1, 4) }, () => ({
    plug: pick(PLUGS),
    power: pick([3.7, 11, 22, 50, 150, 7.4]),
  }));
  const include = pick<IncludeMode>(['filter', 'always', 'exclusive']);
  const listed = chance(0.6) ? ids.filter(() => r() < 0.2) : null;
  return {
    // At an EMP's own station its tariffs are direct, elsewhere roaming (cached prefixes differ).
    station: { id: null, country: pick(['DE', 'FR']), cpo_id: chance(0.3) ? pick(emps) : CPO, charge_points: chargePoints },
    input: { kind: 'energy', energy: int(1, 80), duration: int(5, 300) },
    options: {
      ...DEFAULT_CHARGE_PRICE_OPTIONS,
      currency: pick(CURRENCIES),
      start_time: int(0, 1439),
      provider_customer_tariffs: chance(0.5),
    },
    listed,
    include: listed === null ? 'filter' : include,
    showPriceUnavailable: chance(0.5),
    lang: pick(LANGS),
    nowMs: NOW,
  };
}

const env = (catalog: PricingCatalog) => ({ catalog, rates: RATES, stations: null as unknown as StationView });

describe('charge price document writer', () => {
  it('writes numbers as JSON.stringify does (whole cents digit by digit, the rest through String)', () => {
    const r = mulberry32(99);
    const xs: number[] = [0, -0, 1, -1, 0.1, 0.01, 0.05, 0.1 + 0.2, 10.8, 99.99, 100, 1234.5, -7.25, 1e12 + 0.01, 9999999999999.99, 1e13, 1e15, 123456789012345.67, 1e21, 1e-7, 0.004, -0.004, NaN, Infinity, -Infinity, 2 ** 53, Number.MAX_VALUE, Number.MIN_VALUE];
    for (let k = 0; k < 20_000; k++) {
      const scale = 10 ** Math.floor(r() * 14);
      const v = (r() - 0.3) * scale;
      xs.push(v, Math.round(v * 100) / 100, Math.round(v * 1000) / 1000, Math.round(v) / 100, Math.round(r() * 100000) / 100);
    }
    const w = new ByteWriter();
    for (const x of xs) {
      w.reset();
      w.number(x);
      const got = Buffer.from(w.take()).toString('latin1');
      if (got !== JSON.stringify(x)) expect({ x, got }).toEqual({ x, got: JSON.stringify(x) });
    }
  });

  it('is byte-for-byte the object + JSON.stringify document on seeded random catalogs and requests', () => {
    let entries = 0;
    let withReasons = 0;
    let previous: ArrayBufferLike | null = null;
    for (let seed = 1; seed <= 40; seed++) {
      const g = randomCatalog(seed);
      for (let q = 0; q < 25; q++) {
        const task = randomTask(g);
        const expected = referenceDocument(g.catalog, task);
        const got = runChargePrices(env(g.catalog), task);
        expect(got.status).toBe(200);
        expect(got.body).toBeInstanceOf(Uint8Array);
        const bytes = got.body as Uint8Array;
        // An ArrayBuffer of its own (transferable): the next document is written elsewhere.
        expect(bytes.byteOffset).toBe(0);
        expect(bytes.buffer).not.toBe(previous);
        previous = bytes.buffer;
        const text = Buffer.from(bytes).toString('utf8');
        if (text !== expected) expect({ seed, q, got: text }).toEqual({ seed, q, got: expected });
        expect(Buffer.from(bytes).equals(Buffer.from(expected, 'utf8'))).toBe(true);
        const doc = JSON.parse(expected) as { data: { attributes: { charge_point_prices: { no_price_reason: string | null }[] } }[] };
        entries += doc.data.length;
        withReasons += doc.data.filter((d) => d.attributes.charge_point_prices.some((p) => p.no_price_reason !== null)).length;
      }
    }
    // The generator reaches the interesting cases.
    expect(entries).toBeGreaterThan(5000);
    expect(withReasons).toBeGreaterThan(50);
  }, 120_000);

  it('merges the parts of a split request into the document of the whole request', () => {
    const out = new GrowableBytes(1 << 10);
    let merged = 0;
    for (let seed = 1; seed <= 30; seed++) {
      const g = randomCatalog(seed);
      for (let q = 0; q < 10; q++) {
        const task = randomTask(g);
        const whole = Buffer.from(runChargePrices(env(g.catalog), task).body as Uint8Array).toString('utf8');
        const count = 2 + (q % 3);
        const parts = Array.from({ length: count }, (_, index) => {
          const p = runChargePricesPart(env(g.catalog), { ...task, part: { index, count } });
          return { ...p, bytes: Buffer.from(p.bytes) };
        });
        // Every part ends alike; each holds its share of the entries, in merge order.
        for (const p of parts) {
          expect(p.closing).toBe(parts[0].closing);
          for (let i = 1; i < p.lows.length; i++) expect(p.lows[i - 1] < p.lows[i] || (p.lows[i - 1] === p.lows[i] && p.ranks[i - 1] < p.ranks[i])).toBe(true);
        }
        const got = mergeChargePriceParts(parts, parts[0].closing, out).toString('utf8');
        if (got !== whole) expect({ seed, q, count, got }).toEqual({ seed, q, count, got: whole });
        merged += parts.reduce((n, p) => n + p.ends.length, 0);
      }
    }
    expect(merged).toBeGreaterThan(2000);
  });

  it('drops its cached fragments when the catalog changes', () => {
    const g = randomCatalog(7);
    const task = { ...randomTask(g), listed: null, include: 'filter' as const, showPriceUnavailable: true };
    const text = (body: string | Uint8Array) => Buffer.from(body as Uint8Array).toString('utf8');
    const before = text(runChargePrices(env(g.catalog), task).body);
    expect(before).toBe(referenceDocument(g.catalog, task));
    // Rename every company and retitle every tariff: the cached heads must not survive.
    for (const co of [...g.catalog.companies.values()]) g.catalog.upsertCompany({ ...co, name: co.name + ' (renamed)', url: 'https://new.example' });
    for (const t of [...g.catalog.tariffs.values()]) {
      g.catalog.upsertTariff({ ...t, name: 'Renamed ' + (t.name ?? ''), url: null, tags: [{ kind: 'info', localized_text: { en: 'new' } }] });
    }
    const after = text(runChargePrices(env(g.catalog), task).body);
    expect(after).toBe(referenceDocument(g.catalog, task));
    expect(after).not.toBe(before);
    expect(after).toContain('(renamed)');
  });

  it('hands over large documents with their buffer and copies small ones out, each in an ArrayBuffer of its own', () => {
    const big = new PricingCatalog();
    big.upsertCompany({ id: CPO, name: 'Busy', is_emp: true, is_cpo: true, supported_emp_ids: [] });
    for (const t of generatedTariffs(1200)) big.upsertTariff({ id: t.id, type: 'tariff', emp_id: CPO, ...t.attributes } as unknown as TariffInput);
    const small = randomCatalog(7);
    const task = (catalog: PricingCatalog, cpo: string): ChargePricesTask => ({
      ...randomTask(small),
      station: { id: null, country: 'DE', cpo_id: cpo, charge_points: [{ plug: 'type2', power: 22 }, { plug: 'ccs', power: 150 }] },
      listed: null,
      include: 'filter',
      options: { ...DEFAULT_CHARGE_PRICE_OPTIONS, currency: catalog === big ? 'EUR' : 'CHF' },
    });
    const seen = new Set<ArrayBufferLike>();
    for (const [catalog, cpo] of [[big, CPO], [small.catalog, CPO], [big, CPO], [big, CPO], [small.catalog, CPO]] as const) {
      const t = task(catalog, cpo);
      const body = runChargePrices(env(catalog), t).body as Uint8Array;
      expect(seen.has(body.buffer)).toBe(false);
      seen.add(body.buffer);
      expect(Buffer.from(body).toString('utf8')).toBe(referenceDocument(catalog, t));
      if (catalog === big) expect(body.byteLength).toBeGreaterThan(256 * 1024);
      else expect(body.buffer.byteLength).toBe(body.byteLength);
    }
  });

  it('takes back the buffer of a large document its holder is done with, and writes the next one into it', () => {
    const big = new PricingCatalog();
    big.upsertCompany({ id: CPO, name: 'Busy', is_emp: true, is_cpo: true, supported_emp_ids: [] });
    for (const t of generatedTariffs(1200)) big.upsertTariff({ id: t.id, type: 'tariff', emp_id: CPO, ...t.attributes } as unknown as TariffInput);
    const t: ChargePricesTask = {
      ...randomTask(randomCatalog(3)),
      station: { id: null, country: 'DE', cpo_id: CPO, charge_points: [{ plug: 'type2', power: 11 }, { plug: 'ccs', power: 50 }] },
      listed: null,
      include: 'filter',
      options: { ...DEFAULT_CHARGE_PRICE_OPTIONS },
    };
    const expected = referenceDocument(big, t);
    const first = runChargePrices(env(big), t).body as Uint8Array;
    expect(Buffer.from(first).toString('utf8')).toBe(expected);
    const small = new Uint8Array(16);
    recycleDocument(small); // not one of the writer's: left alone
    recycleDocument(first);
    const second = runChargePrices(env(big), t).body as Uint8Array;
    expect(second.buffer).toBe(first.buffer);
    expect(Buffer.from(second).toString('utf8')).toBe(expected);
    // Not given back: the next document goes into a fresh buffer.
    const third = runChargePrices(env(big), t).body as Uint8Array;
    expect(third.buffer).not.toBe(second.buffer);
    expect(Buffer.from(third).toString('utf8')).toBe(expected);
  });
});
