/**
 * Price tables (D198, D276, D277): a station is priced once however many tiles need it,
 * requests that need stations another request is pricing wait for it, a failed pricing leaves its
 * stations to the next request, one run prices at most MAX_TILE_PRICING stations; 200 profiles in
 * use are all kept within the memory bound, and a catalog write while a table is in use keeps the
 * previous generation answering until the new one has priced its stations.
 */
import { describe, expect, it } from 'vitest';
import { MAX_TILE_PRICING, PRICE_TABLES_BYTES, PriceTable, PriceTables } from '../../src/api/tiles/price-tables.js';
import type { FoundPrice } from '../../src/api/station-pricing.js';
import { decodeStationPriceRows, encodeStationPriceRows } from '../../src/pool/price-rows.js';

interface StationPrice {
  price: number;
  energy: number;
  duration: number;
  plug: string;
  power: number;
  tariffId: string;
}

/**
 * Hands the prices of `indices` to `found` as `priceStations` does: one record with a row per
 * priced station (`price(i)` not null), by position in `indices`.
 */
function give(found: FoundPrice, indices: readonly number[], price: (i: number) => StationPrice | null): void {
  const priced: Array<[number, StationPrice]> = [];
  indices.forEach((i, j) => {
    const p = price(i);
    if (p !== null) priced.push([j, p]);
  });
  const strings = [...new Set(priced.flatMap(([, p]) => [p.plug, p.tariffId]))];
  const rows = decodeStationPriceRows(
    encodeStationPriceRows(priced.length, strings, (v) => {
      priced.forEach(([j, p], r) => {
        v.position[r] = j;
        v.price[r] = p.price;
        v.energy[r] = p.energy;
        v.duration[r] = p.duration;
        v.power[r] = p.power;
        v.plug[r] = strings.indexOf(p.plug);
        v.tariff[r] = strings.indexOf(p.tariffId);
      });
    }),
  );
  for (let r = 0; r < rows.n; r++) found(rows.position[r], rows, r);
}

const priceOf = (i: number): StationPrice => ({ price: i / 10, energy: 20, duration: 30, plug: 'ccs', power: 50, tariffId: `t${i % 3}` });

/** A pricing that records what it was asked, prices even stations only and settles when told. */
function recorder() {
  const asked: number[][] = [];
  const gates: Array<() => void> = [];
  const work = async (indices: number[], found: FoundPrice): Promise<void> => {
    asked.push([...indices]);
    await new Promise<void>((r) => gates.push(r));
    give(found, indices, (i) => (i % 2 === 0 ? priceOf(i) : null));
  };
  return { asked, work, open: () => gates.splice(0).forEach((g) => g()) };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

describe('price tables (D198, D276, D277)', () => {
  it('prices each station once; overlapping requests wait for each other', async () => {
    const t = new PriceTable(100, 'EUR');
    const r = recorder();
    const a = t.fill([1, 2, 3, 4], r.work);
    const b = t.fill([3, 4, 5, 6], r.work);
    await tick();
    // b prices only what a is not pricing, then waits for a.
    expect(r.asked).toEqual([[1, 2, 3, 4], [5, 6]]);
    r.open();
    await Promise.all([a, b]);
    expect([1, 2, 3, 4, 5, 6].map((i) => t.has(i))).toEqual([false, true, false, true, false, true]);
    expect(t.price(4)).toBe(0.4);
    expect(t.pair(4)).toEqual({ tariffId: 't1', energy: 20, duration: 30, plug: 'ccs', power: 50 });
    // Known stations (priced or without a price) are not asked again.
    await t.fill([1, 2, 3, 4, 5, 6], r.work);
    expect(r.asked.length).toBe(2);
    expect(t.known).toBe(6);
  });

  it('a failed pricing leaves its stations unknown: the waiting request prices them itself', async () => {
    const t = new PriceTable(10, 'EUR');
    let fail = true;
    let calls = 0;
    const work = async (indices: number[], found: FoundPrice): Promise<void> => {
      calls++;
      await tick();
      if (fail) {
        fail = false;
        throw new Error('pool refused');
      }
      give(found, indices, priceOf);
    };
    const a = t.fill([1, 2], work);
    const b = t.fill([2], work);
    await expect(a).rejects.toThrow('pool refused');
    await b;
    expect(t.has(2)).toBe(true);
    expect(t.has(1)).toBe(false);
    expect(calls).toBe(2);
    await t.fill([1], work);
    expect(t.has(1)).toBe(true);
  });

  it('prices in runs of at most MAX_TILE_PRICING stations, one after the other, until every member is known (D278)', async () => {
    const n = MAX_TILE_PRICING + 10;
    const t = new PriceTable(n, 'EUR');
    const sizes: number[] = [];
    let running = 0;
    const work = async (indices: number[], found: FoundPrice): Promise<void> => {
      expect(++running).toBe(1);
      sizes.push(indices.length);
      await tick();
      give(found, indices, priceOf);
      running--;
    };
    const all = Array.from({ length: n }, (_, i) => i);
    await t.fill(all, work);
    expect(sizes).toEqual([MAX_TILE_PRICING, 10]);
    expect(t.known).toBe(n);
    expect(t.has(n - 1)).toBe(true);
    // Every priced station keeps its own values as the slots grew; the slots never outgrow the stations.
    for (const i of [0, 63, 64, 65_537, n - 1]) expect([t.price(i), t.pair(i).tariffId]).toEqual([i / 10, `t${i % 3}`]);
    expect(t.bytes).toBe(4 * n + 40 * n);
  });

  it('keeps 200 profiles in use on the default snapshot, every station priced, within the default bound (D276)', async () => {
    const stations = 18_539;
    const tables = new PriceTables(PRICE_TABLES_BYTES);
    const all = Array.from({ length: stations }, (_, i) => i);
    const work = async (indices: number[], found: FoundPrice): Promise<void> => {
      give(found, indices, priceOf);
    };
    const held = [];
    for (let p = 0; p < 200; p++) {
      const g = tables.get(`profile-${p}`, 1, stations, 'EUR');
      await g.current.fill(all, work);
      held.push(g.current);
    }
    expect(tables.size).toBe(200);
    // 4 bytes a station and 40 a priced station: 0.82 MB a profile, 163 MB for 200.
    expect(held[0].bytes).toBe(4 * stations + 40 * stations);
    expect(tables.bytes).toBe(200 * 44 * stations);
    expect(tables.bytes).toBeLessThanOrEqual(PRICE_TABLES_BYTES);
    for (let p = 0; p < 200; p++) expect(tables.get(`profile-${p}`, 1, stations, 'EUR').current).toBe(held[p]);
  });

  it('never refuses: beyond the bytes the least recently used is dropped, even while it is being filled (D276)', async () => {
    // 4 bytes a station and 2.5 KB of first slots: two tables of 10,000 stations fit in 100 KB, a third does not.
    const tables = new PriceTables(100_000);
    const r = recorder();
    const a = tables.get('a', 1, 10_000, 'EUR');
    expect(a.bytes).toBe(40_000 + 2560);
    const filling = a.current.fill([1, 2, 3], r.work);
    tables.get('b', 1, 10_000, 'EUR');
    expect(tables.size).toBe(2);
    const c = tables.get('c', 1, 10_000, 'EUR');
    expect(tables.size).toBe(2);
    expect(tables.get('c', 1, 10_000, 'EUR')).toBe(c);
    // The dropped table still completes the request that holds it.
    r.open();
    await filling;
    expect(a.has(2)).toBe(true);
    expect(tables.get('a', 1, 10_000, 'EUR')).not.toBe(a);
    const huge = tables.get('huge', 1, 100_000, 'EUR');
    expect(tables.size).toBe(1);
    expect(tables.get('huge', 1, 100_000, 'EUR')).toBe(huge);
  });

  it('a catalog write while the table is in use: the previous generation answers until the new one knows its stations (D277)', async () => {
    const tables = new PriceTables();
    const gen1 = tables.get('p', 1, 10, 'EUR');
    const r1 = recorder();
    await Promise.all([gen1.current.fill([0, 1, 2, 3], async (idx, found) => {
      give(found, idx, (i) => (i !== 1 ? priceOf(i) : null));
    })]);
    // A tile of generation 1 is pricing stations 4 and 5 when the write lands.
    const inUse = gen1.current.fill([4, 5], r1.work);
    await tick();
    const gen2 = tables.get('p', 2, 10, 'EUR');
    expect(gen2.current).not.toBe(gen1.current);
    expect(gen2.current.generation).toBe(2);
    expect(gen2.previous).toBe(gen1.current);
    // Before generation 2 knows anything, every station answers with generation 1's price (or lack of one).
    expect([0, 1, 2, 3].map((i) => gen2.has(i))).toEqual([true, false, true, true]);
    expect(gen2.price(2)).toBe(0.2);
    expect(gen2.pending([0, 1, 2, 3])).toBe(4);
    // Generation 2 prices station 2 anew (its tariff changed) and finds no price for station 3.
    const newPrice = { ...priceOf(2), price: 9.5 };
    await gen2.current.fill([2, 3], async (idx, found) => {
      give(found, idx, (i) => (i === 2 ? newPrice : null));
    });
    expect([gen2.price(2), gen2.has(3), gen2.price(0)]).toEqual([9.5, false, 0]);
    expect(gen2.pending([0, 1, 2, 3])).toBe(2);
    // The request of generation 1 finishes into its own table; generation 2 is untouched by it.
    r1.open();
    await inUse;
    expect([gen1.current.has(4), gen2.current.knows(4)]).toEqual([true, false]);
    // Generation 1 is retired: no new run is started for it.
    let asked = 0;
    await gen1.current.fill([6, 7], async () => {
      asked++;
    });
    expect([asked, gen1.current.knows(6)]).toEqual([0, false]);
    // A second write before generation 2 caught up keeps the better filled generation 1 as previous.
    const gen3 = tables.get('p', 3, 10, 'EUR');
    expect(gen3.previous).toBe(gen1.current);
    expect(tables.size).toBe(1);
    // Once the current generation knows as many stations, the previous one is dropped.
    await gen3.current.fill(Array.from({ length: 10 }, (_, i) => i), async (idx, found) => {
      give(found, idx, priceOf);
    });
    expect(tables.get('p', 3, 10, 'EUR').previous).toBeNull();
  });
});
