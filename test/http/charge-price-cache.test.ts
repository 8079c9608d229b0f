/**
 * Charge price answers kept in memory (D287): a service with the cache answers every request
 * with the very bytes a service without it gives (identity, br and gzip), over random requests
 * repeated, across catalog writes and across a tag's `show_until`; repeats are served from memory.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { mulberry32 } from '../../src/domain/random.js';
import { call, keyFor, startTestApp, type TestApp } from '../helpers/server.js';
import { chargeBody, comp, putCompany, putTariff, ref, seg } from '../pool/price-fixtures.js';

const W = keyFor('writer');
const C = keyFor('costs');
const KEYS = { writer: 'WriteTariffs,ReadTariffs', costs: 'ReadCosts,ReadMetrics' };
/** The instants tags stop being shown at: the clock is set around them. */
const T1 = Date.UTC(2031, 0, 1);
const T2 = T1 + 60_000;

async function cacheCounts(srv: TestApp): Promise<{ hit: number; miss: number }> {
  const text = (await call(srv, 'GET', '/metrics', { key: C })).text;
  const n = (r: string) => Number(new RegExp(`^cps_charge_price_cache_total\\{result="${r}"\\} (\\d+)$`, 'm').exec(text)?.[1]);
  return { hit: n('hit'), miss: n('miss') };
}

describe('charge price answers kept in memory (D287)', () => {
  let cached: TestApp;
  let fresh: TestApp;
  const both = () => [cached, fresh];
  const ids = { emp: randomUUID(), emp2: randomUUID(), cpo: randomUUID(), tariffs: [] as string[] };

  /** The same tariff written to both services. */
  async function tariff(i: number, version = 1, id: string = randomUUID()): Promise<string> {
    const tags = [
      { kind: 'info', localized_text: { en: `Until T1 ${i}`, de: `Bis T1 ${i}` }, show_until: T1 },
      { kind: 'star', localized_text: { en: `Until T2 ${i}`, fr: `Jusqu'à T2 ${i}` }, show_until: T2, hide_for_owners: i % 2 === 0 },
      { kind: 'info', localized_text: { en: 'Always' } },
    ];
    const attributes = {
      tags,
      prices: [
        comp([seg('kwh', 0.3 + i / 100 + version / 1000, { time_of_day_start: 360, time_of_day_end: 1320 }), seg('kwh', 0.25, { time_of_day_start: 1320, time_of_day_end: 360 }), seg('minute', 0.02 * i, { range_gte: 30 })]),
        comp([seg('session', i)], [{ allowance: 'allow', charge_point_energy_type: 'dc' }]),
      ],
    };
    for (const srv of both()) await putTariff(srv, W, i % 3 === 0 ? ids.emp2 : ids.emp, { attributes, version }, id);
    return id;
  }

  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: T1 - 3_600_000 });
    [cached, fresh] = await Promise.all([
      startTestApp({ keys: KEYS, env: { PRICING_INLINE_MAX_EVALUATIONS: '1', WORKERS: '2' } }),
      startTestApp({ keys: KEYS, env: { PRICING_INLINE_MAX_EVALUATIONS: '1', WORKERS: '2', CHARGE_PRICE_CACHE_MB: '0' } }),
    ]);
    for (const srv of both()) {
      await putCompany(srv, W, { name: 'EMP one' }, ids.emp);
      await putCompany(srv, W, { name: 'EMP two' }, ids.emp2);
      await putCompany(srv, W, { name: 'CPO', is_cpo: true, is_emp: false, supported_emps: [ids.emp, ids.emp2] }, ids.cpo);
    }
    for (let i = 0; i < 12; i++) ids.tariffs.push(await tariff(i));
  }, 120_000);
  afterAll(async () => {
    vi.useRealTimers();
    await Promise.all(both().map((s) => s.stop()));
  });

  /** A pool of distinct requests (body and headers), drawn at random and repeated. */
  function requests(seed: number): { body: unknown; headers: Record<string, string> }[] {
    const rnd = mulberry32(seed);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
    return Array.from({ length: 10 }, () => {
      const cps = Array.from({ length: 1 + Math.floor(rnd() * 4) }, () => ({ plug: pick(['ccs', 'type2', 'chademo']), power: pick([11, 22, 50, 150]) }));
      const options: Record<string, unknown> = { energy: pick([10, 22, 40]), duration: pick([30, 60, 240]) };
      if (rnd() < 0.5) options.start_time = pick([0, 400, 1300]);
      if (rnd() < 0.3) options.currency = pick(['EUR', 'eur']);
      if (rnd() < 0.3) options.show_price_unavailable = true;
      const listed = rnd() < 0.4 ? { tariffs: { data: ids.tariffs.slice(0, 1 + Math.floor(rnd() * 4)).map((t) => ref('tariff', t)), meta: { include: pick(['filter', 'always', 'exclusive']) } } } : undefined;
      const headers: Record<string, string> = { 'Accept-Language': pick(['en', 'de', 'fr', 'de-CH, fr;q=0.5']) };
      const enc = pick(['', 'gzip', 'br']);
      if (enc !== '') headers['Accept-Encoding'] = enc;
      return { body: chargeBody({ network: ids.cpo, charge_points: cps, options, ...(listed ? { relationships: listed } : {}) }), headers };
    });
  }

  /** `n` random requests from the pool, each answered alike by both services; the answers' texts. */
  async function compare(seed: number, n: number): Promise<string[]> {
    const pool = requests(seed);
    const rnd = mulberry32(seed + 1);
    const texts: string[] = [];
    for (let i = 0; i < n; i++) {
      const q = pool[Math.floor(rnd() * pool.length)];
      const [a, b] = await Promise.all(both().map((s) => call(s, 'POST', '/v1/charge_prices', { key: C, body: q.body, headers: q.headers })));
      expect(a.status, a.text).toBe(200);
      expect([a.status, a.headers.get('content-encoding'), a.text]).toEqual([b.status, b.headers.get('content-encoding'), b.text]);
      texts.push(a.text);
    }
    return texts;
  }

  it('answers the bytes a service without it gives, across catalog writes and tags that stop being shown', async () => {
    const before = await cacheCounts(cached);
    let texts = await compare(1, 40);
    expect(texts.some((t) => t.includes('Until T1'))).toBe(true);
    const afterFirst = await cacheCounts(cached);
    expect(afterFirst.hit - before.hit).toBeGreaterThan(10);
    // A catalog write: a new version of a tariff, and a new tariff.
    await tariff(1, 2, ids.tariffs[1]);
    ids.tariffs.push(await tariff(12));
    texts = await compare(1, 40);
    expect(texts.some((t) => t.includes('Until T1 12'))).toBe(true);
    // The clock passes the first tags' show_until (T1 itself still shows them), then the second's.
    vi.setSystemTime(T1);
    texts = await compare(2, 30);
    expect(texts.some((t) => t.includes('Until T1'))).toBe(true);
    vi.setSystemTime(T1 + 1);
    texts = await compare(1, 30);
    expect(texts.some((t) => t.includes('Until T1'))).toBe(false);
    expect(texts.some((t) => t.includes('Until T2'))).toBe(true);
    vi.setSystemTime(T2 + 1);
    texts = await compare(1, 30);
    expect(texts.some((t) => t.includes('Until T2'))).toBe(false);
    expect(texts.every((t) => t.includes('Always'))).toBe(true);
    const end = await cacheCounts(cached);
    expect(end.hit - afterFirst.hit).toBeGreaterThan(40);
    expect(end.miss - afterFirst.miss).toBeGreaterThan(10);
  }, 180_000);

  it('a service without it prices every request', async () => {
    const counts = await cacheCounts(fresh);
    const body = requests(3)[0].body;
    for (let i = 0; i < 3; i++) expect((await call(fresh, 'POST', '/v1/charge_prices', { key: C, body })).status).toBe(200);
    expect(await cacheCounts(fresh)).toEqual(counts);
  });
});
