/**
 * Price tables (D198): a station is priced once however many tiles need it, requests that need
 * stations another request is pricing wait for it, a failed pricing leaves its stations to the
 * next request, and one request prices at most MAX_TILE_PRICING stations.
 */
import { describe, expect, it } from 'vitest';
import { MAX_TILE_PRICING, PRICE_TABLES_BYTES, PriceTable, PriceTables } from '../../src/api/tiles/price-tables.js';
import type { StationPrice } from '../../src/api/station-pricing.js';

const priceOf = (i: number): StationPrice => ({ price: i / 10, energy: 20, duration: 30, plug: 'ccs', power: 50, tariffId: `t${i % 3}` });

/** A pricing that records what it was asked, prices even stations only and settles when told. */
function recorder() {
  const asked: number[][] = [];
  const gates: Array<() => void> = [];
  const work = async (indices: number[], found: (i: number, p: StationPrice) => void): Promise<void> => {
    asked.push([...indices]);
    await new Promise<void>((r) => gates.push(r));
    for (const i of indices) if (i % 2 === 0) found(i, priceOf(i));
  };
  return { asked, work, open: () => gates.splice(0).forEach((g) => g()) };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

describe('price tables (D198)', () => {
  it('prices each station once; overlapping requests wait for each other', async () => {
    const t = new PriceTable(100, 'EUR');
    const r = recorder();
    const a = t.fill([1, 2, 3, 4], r.work);
    const b = t.fill([3, 4, 5, 6], r.work);
    await tick();
    // b prices only what a is not pricing, then waits for a.
    expect(r.asked).toEqual([[1, 2, 3, 4], [5, 6]]);
    r.open();
    expect(await Promise.all([a, b])).toEqual([true, true]);
    expect([1, 2, 3, 4, 5, 6].map((i) => t.has(i))).toEqual([false, true, false, true, false, true]);
    expect(t.price(4)).toBe(0.4);
    expect(t.pair(4)).toEqual({ tariffId: 't1', energy: 20, duration: 30, plug: 'ccs', power: 50 });
    // Known stations (priced or without a price) are not asked again.
    expect(await t.fill([1, 2, 3, 4, 5, 6], r.work)).toBe(true);
    expect(r.asked.length).toBe(2);
  });

  it('a failed pricing leaves its stations unknown: the waiting request prices them itself', async () => {
    const t = new PriceTable(10, 'EUR');
    let fail = true;
    let calls = 0;
    const work = async (indices: number[], found: (i: number, p: StationPrice) => void): Promise<void> => {
      calls++;
      await tick();
      if (fail) {
        fail = false;
        throw new Error('pool refused');
      }
      for (const i of indices) found(i, priceOf(i));
    };
    const a = t.fill([1, 2], work);
    const b = t.fill([2], work);
    await expect(a).rejects.toThrow('pool refused');
    expect(await b).toBe(true);
    expect(t.has(2)).toBe(true);
    expect(t.has(1)).toBe(false);
    expect(calls).toBe(2);
    expect(await t.fill([1], work)).toBe(true);
    expect(t.has(1)).toBe(true);
  });

  it('prices at most MAX_TILE_PRICING stations per request and continues with the next', async () => {
    const n = MAX_TILE_PRICING + 10;
    const t = new PriceTable(n, 'EUR');
    const sizes: number[] = [];
    const work = async (indices: number[], found: (i: number, p: StationPrice) => void): Promise<void> => {
      sizes.push(indices.length);
      for (const i of indices) found(i, priceOf(i));
    };
    const all = Array.from({ length: n }, (_, i) => i);
    expect(await t.fill(all, work)).toBe(false);
    expect(await t.fill(all, work)).toBe(true);
    expect(sizes).toEqual([MAX_TILE_PRICING, 10]);
    expect(t.has(n - 1)).toBe(true);
    // Every priced station keeps its own values as the slots grew.
    for (const i of [0, 63, 64, 65_537, n - 1]) expect([t.price(i), t.pair(i).tariffId]).toEqual([i / 10, `t${i % 3}`]);
  });

  it('keeps the most recently used tables', () => {
    const tables = new PriceTables(2, PRICE_TABLES_BYTES, 0);
    const a = tables.get('a', 10, 'EUR');
    tables.get('b', 10, 'EUR');
    expect(tables.get('a', 10, 'EUR')).toBe(a);
    tables.get('c', 10, 'EUR');
    expect(tables.size).toBe(2);
    expect(tables.get('a', 10, 'EUR')).toBe(a);
    expect(tables.get('b', 10, 'EUR')).not.toBe(a);
  });

  it('never drops a table in use: a new one that would need that is refused 503 (D198)', async () => {
    const tables = new PriceTables(2, PRICE_TABLES_BYTES, 60_000);
    tables.get('a', 10, 'EUR');
    tables.get('b', 10, 'EUR');
    // Both were used just now: a third profile's table is refused, not made by dropping one.
    expect(() => tables.get('c', 10, 'EUR')).toThrow(expect.objectContaining({ status: 503 }));
    expect(tables.size).toBe(2);
    // Known tables are still served.
    expect(tables.get('a', 10, 'EUR')).toBeDefined();
    // Idle tables make room.
    const idle = new PriceTables(2, PRICE_TABLES_BYTES, 0);
    idle.get('a', 10, 'EUR');
    idle.get('b', 10, 'EUR');
    expect(idle.get('c', 10, 'EUR')).toBeDefined();
    expect(idle.size).toBe(2);
  });

  it('keeps the tables within their bytes, the newest always', () => {
    // 4 bytes a station and 2.5 KB of first slots: two tables of 10,000 stations fit in 100 KB, a third does not.
    const tables = new PriceTables(8, 100_000, 0);
    const a = tables.get('a', 10_000, 'EUR');
    expect(a.bytes).toBe(40_000 + 2560);
    tables.get('b', 10_000, 'EUR');
    expect(tables.size).toBe(2);
    tables.get('c', 10_000, 'EUR');
    expect(tables.size).toBe(2);
    expect(tables.get('a', 10_000, 'EUR')).not.toBe(a);
    const huge = tables.get('huge', 100_000, 'EUR');
    expect(tables.size).toBe(1);
    expect(tables.get('huge', 100_000, 'EUR')).toBe(huge);
  });
});
