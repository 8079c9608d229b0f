/**
 * Shared output slots (src/pool/output.ts): the slot protocol itself, and a real pricing worker
 * answering through them: a taken slot is freed by its answer's `release`, answers beyond the
 * free slots come back transferred, and every answer equals the inline one.
 */
import type { Plan, PriceWorkShape } from '../../src/pool/planner.js';
import fs from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { OutputSlots, createOutputSlots } from '../../src/pool/output.js';
import type { ChargePricesTask, TaskResult } from '../../src/pool/protocol.js';
import { DEFAULT_CHARGE_PRICE_OPTIONS } from '../../src/domain/pricing/index.js';

// The pool module resolves its worker file next to itself, so it is loaded from the build.
const ROOT = path.resolve(import.meta.dirname, '../..');
const dist = (p: string) => path.join(ROOT, 'dist', p);

/** A charge price request planned as large: pooled whole, or split where splitting is on. */
const LARGE = { task: 'chargePrices', candidates: 1_000_000, chargePoints: 1 } as const;

describe('output slots', () => {
  it('hands out free slots, refuses when full or too large, and frees on release', () => {
    const init = createOutputSlots(2, 8);
    const worker = new OutputSlots(init);
    const main = new OutputSlots(init);
    const a = worker.put(Uint8Array.of(1, 2, 3));
    const b = worker.put(Uint8Array.of(4, 5));
    expect([a, b].sort()).toEqual([0, 1]);
    expect(worker.put(Uint8Array.of(6))).toBe(-1);
    expect(main.taken()).toBe(2);
    expect([...main.view(a, 3)]).toEqual([1, 2, 3]);
    expect([...main.view(b, 2)]).toEqual([4, 5]);
    main.release(a);
    expect(worker.put(new Uint8Array(9))).toBe(-1);
    expect(worker.put(Uint8Array.of(7, 8, 9, 10, 11, 12, 13, 14))).toBe(a);
    expect([...main.view(a, 8)]).toEqual([7, 8, 9, 10, 11, 12, 13, 14]);
    main.release(a);
    main.release(b);
    expect(main.taken()).toBe(0);
  });
});

describe('a pricing worker answering through the slots', () => {
  let pool: {
    plan<W extends PriceWorkShape>(w: W): Plan & { task: W['task'] };
    run(plan: Plan & { task: 'chargePrices' }, input: ChargePricesTask): Promise<TaskResult>;
    outputSlotsTaken(): number;
    readonly workerAtomics: string | null;
    readonly splits: { merged: number; rerun: number };
    ready(): Promise<void>;
    close(): Promise<void>;
  };
  let inline: typeof pool;
  let split: typeof pool;
  let dataDir: string;
  let ops: string[] = [];
  /** Generation the split pool hands to its workers (the tests move it by hand). */
  let splitGeneration = 0;
  let rewriteTariff: () => Promise<number>;

  beforeAll(async () => {
    const { PricePool } = await import(dist('src/pool/pool.js'));
    const work = await import(dist('src/api/price-work.js'));
    const { createOutputSlots: create } = await import(dist('src/pool/output.js'));
    const { SqliteStore } = await import(dist('src/storage/sqlite-store.js'));
    const { Snapshot } = await import(dist('src/storage/snapshot.js'));
    const { seedDefaultCatalog, catalogSeedOf, loadTariffs, loadStationPrices, catalogGeneration } = await import(dist('src/storage/tariffs.js'));
    const { loadCompanies, seedCompanies } = await import(dist('src/storage/companies.js'));
    const { CompanyRegistry } = await import(dist('src/domain/companies/registry.js'));
    const { TariffCatalog } = await import(dist('src/domain/tariffs/catalog.js'));
    const { mainCatalog, rateTable } = await import(dist('src/pool/catalog.js'));
    const { shareStationColumns } = await import(dist('src/pool/stations.js'));
    dataDir = fs.mkdtempSync(path.join(inject('testTmpRoot'), 'slots-'));
    const snapshot = Snapshot.open(inject('testSnapshot'));
    const live = SqliteStore.open(dataDir);
    await live.tx((s: unknown) =>
      seedCompanies(
        s,
        snapshot.meta.snapshotVersion,
        snapshot.operators().map((o: { id: string; name: string; evse_operator_ids: string[] }) => ({ id: o.id, name: o.name, evse_operator_ids: o.evse_operator_ids })),
        Date.now(),
      ),
    );
    await seedDefaultCatalog(live, snapshot.meta.snapshotVersion, () => catalogSeedOf(snapshot), Date.now());
    const companies = new CompanyRegistry(await live.read(loadCompanies));
    const tariffs = new TariffCatalog(await live.read(loadTariffs), await live.read(loadStationPrices), await live.read(catalogGeneration));
    const { getStoredTariff, writeTariff, nextGeneration } = await import(dist('src/storage/tariffs.js'));
    const make = (workers: number, splitMinEvaluations = 0, generation = () => tariffs.generation) =>
      new PricePool({
        workers,
        maxQueue: 16,
        maxQueueWaitMs: 250,
        deadlineMs: 2000,
        inlineMaxEvaluations: 0,
        splitMinEvaluations,
        init: {
          dataDir,
          databaseUrl: null,
          snapshotPath: inject('testSnapshot'),
          stations: shareStationColumns(snapshot.stationColumns({ fragments: false })),
          exitOnNetwork: null,
          output: create(2, 1 << 20),
        },
        work: { runTask: work.runTask, mergeChargePriceParts: work.mergeChargePriceParts },
        catalog: () => mainCatalog(companies, tariffs),
        rates: rateTable(snapshot.meta.ratesDate, snapshot.rates()),
        generation,
        logger: pino({ level: 'silent' }),
      });
    // Two operators with candidate tariffs in the default catalog, so the answers are not empty.
    const catalog = mainCatalog(companies, tariffs);
    ops = [...new Set([...catalog.tariffs.values()].filter((t: { type: string }) => t.type === 'tariff').map((t: { emp_id: string }) => t.emp_id))]
      .filter((id) => catalog.candidatesAt(id).slots.length > 0)
      .slice(0, 2) as string[];
    pool = make(1);
    inline = make(0);
    splitGeneration = await live.read(catalogGeneration);
    split = make(2, 2, () => splitGeneration);
    // Rewrites one stored tariff unchanged at a new generation (its answers stay the same).
    const anyTariff = [...catalog.tariffs.values()].find((t: { type: string }) => t.type === 'tariff') as { id: string };
    rewriteTariff = () =>
      live.tx(async (s: unknown) => {
        const g = await nextGeneration(s);
        await writeTariff(s, await getStoredTariff(s, anyTariff.id), g);
        return g;
      });
    await Promise.all([pool.ready(), split.ready()]);
  }, 60_000);

  afterAll(async () => {
    await pool?.close();
    await inline?.close();
    await split?.close();
  });

  const task = (cpo: string): ChargePricesTask => ({
    station: { id: null, country: 'FR', cpo_id: cpo, charge_points: [{ plug: 'type2', power: 22 }, { plug: 'ccs', power: 150 }] },
    input: { kind: 'energy', energy: 30, duration: 45 },
    options: { ...DEFAULT_CHARGE_PRICE_OPTIONS },
    listed: null,
    include: 'filter',
    showPriceUnavailable: true,
    lang: 'en',
    nowMs: Date.UTC(2026, 0, 15),
  });

  it('starts workers that wait for tasks on their message port, not in Atomics.wait (D288)', () => {
    expect(pool.workerAtomics).toBe('disabled');
    expect(inline.workerAtomics).toBeNull();
  });

  it('frees a slot when the answer is released; answers beyond the free slots come transferred; all equal inline answers', async () => {
    expect(ops).toHaveLength(2);
    const expected = (await inline.run(inline.plan(LARGE), task(ops[0]))).body.toString();
    expect(JSON.parse(expected).data.length).toBeGreaterThan(0);
    const held: TaskResult[] = [];
    for (let i = 0; i < 3; i++) held.push(await pool.run(pool.plan(LARGE), task(ops[0])));
    for (const r of held) expect(r.body.toString()).toBe(expected);
    expect(held.map((r) => r.release !== undefined)).toEqual([true, true, false]);
    expect(pool.outputSlotsTaken()).toBe(2);
    held[0].release!();
    expect(pool.outputSlotsTaken()).toBe(1);
    const next = await pool.run(pool.plan(LARGE), task(ops[1]));
    expect(next.release).toBeDefined();
    expect(next.body.toString()).toBe((await inline.run(inline.plan(LARGE), task(ops[1]))).body.toString());
    next.release!();
    held[1].release!();
    expect(pool.outputSlotsTaken()).toBe(0);
    for (let i = 0; i < 10; i++) {
      const r = await pool.run(pool.plan(LARGE), task(ops[i % 2]));
      expect(r.release).toBeDefined();
      r.release!();
    }
    expect(pool.outputSlotsTaken()).toBe(0);
  });

  it('splits a large request over idle workers and merges the parts into the inline answer', async () => {
    const variants = (cpo: string): ChargePricesTask[] => [
      task(cpo),
      { ...task(cpo), showPriceUnavailable: false, lang: 'de' },
      { ...task(cpo), options: { ...DEFAULT_CHARGE_PRICE_OPTIONS, currency: 'CHF', start_time: 90 } },
    ];
    let n = 0;
    for (const cpo of ops) {
      for (const t of variants(cpo)) {
        const before = split.splits.merged;
        const r = await split.run(split.plan(LARGE), t);
        expect(split.splits.merged).toBe(before + 1);
        // The parts' slots are free once merged; the merged buffer is released after sending.
        expect(split.outputSlotsTaken()).toBe(0);
        expect(r.body.toString()).toBe((await inline.run(inline.plan(LARGE), t)).body.toString());
        r.release?.();
        n++;
      }
    }
    expect(n).toBe(6);
  });

  it('does not split while workers are busy, and keeps held merged answers intact', async () => {
    const t = task(ops[0]);
    const expected = (await inline.run(inline.plan(LARGE), t)).body.toString();
    const before = { ...split.splits };
    // Two at once: the first takes both workers, the second runs whole.
    const [a, b] = await Promise.all([split.run(split.plan(LARGE), t), split.run(split.plan(LARGE), t)]);
    expect(split.splits.merged).toBe(before.merged + 1);
    // A merged answer not yet released: the next one is merged elsewhere.
    const c = await split.run(split.plan(LARGE), t);
    expect(split.splits.merged).toBe(before.merged + 2);
    for (const r of [a, b, c]) expect(r.body.toString()).toBe(expected);
    for (const r of [a, b, c]) r.release?.();
    expect(split.outputSlotsTaken()).toBe(0);
  });

  it('runs a split request again whole when its parts were written at different catalog generations', async () => {
    const t = task(ops[0]);
    const expected = (await inline.run(inline.plan(LARGE), t)).body.toString();
    // One worker catches up with a newer generation through a small task; the split request
    // still carries the older one, so the other worker stays behind.
    const newer = await rewriteTariff();
    const old = splitGeneration;
    splitGeneration = newer;
    const caught = await split.run(split.plan({ task: 'chargePrices', candidates: 1, chargePoints: 1 }), t);
    caught.release?.();
    splitGeneration = old;
    const before = { ...split.splits };
    const r = await split.run(split.plan(LARGE), t);
    expect(split.splits).toEqual({ merged: before.merged, rerun: before.rerun + 1 });
    expect(r.body.toString()).toBe(expected);
    r.release?.();
    splitGeneration = newer;
    expect(split.outputSlotsTaken()).toBe(0);
  });
});
