/**
 * The compiled pricing catalog of one thread, kept at the catalog generation of the live store.
 *
 * - `mainCatalog` (main thread, inline price work): built from the in-memory registries and kept
 *   current synchronously by the tariff catalog's change events.
 * - `StoreCatalog` (pricing workers): loaded from a read-only live-store connection; before each
 *   task `syncTo(generation)` applies the store's change log after the catalog's own generation, so
 *   a write acknowledged before a request was dispatched is reflected in its answer (a current
 *   catalog costs one comparison; a catch-up one read of the store).
 */
import type { Company } from '../domain/companies/registry.js';
import { PricingCatalog, type CompanyInput, type RateTable, type TariffInput } from '../domain/pricing/index.js';
import type { StoredStationPrices, StoredTariff } from '../domain/tariffs/model.js';
import type { CompanyRegistry } from '../domain/companies/registry.js';
import type { TariffCatalog } from '../domain/tariffs/catalog.js';
import { loadCompanies } from '../storage/companies.js';
import type { LiveStore } from '../storage/live.js';
import { catalogGeneration, loadStationPrices, loadTariffs, readCatalogDelta } from '../storage/tariffs.js';

export function companyInput(c: Company): CompanyInput {
  return {
    id: c.id,
    name: c.name,
    url: c.url,
    is_emp: c.is_emp,
    is_cpo: c.is_cpo,
    supported_emp_ids: [...c.supported_emps],
    cpo_group_id: c.cpo_group,
    emp_group_id: c.emp_group,
  };
}

/** Stored tariffs carry every field pricing reads (StoredTariff is a superset of TariffInput). */
const tariffInput = (t: StoredTariff): TariffInput => t;

/**
 * The stored tariff behind a catalog entry, for the documents that show stored fields (name,
 * tags, fees, flags). Every catalog of the pool is built from StoredTariffs (`buildCatalog`,
 * `mainCatalog`, `StoreCatalog`), so each entry is one: this is the one place that says so.
 */
export function storedOf(t: TariffInput): StoredTariff;
export function storedOf(t: TariffInput | null): StoredTariff | null;
export function storedOf(t: TariffInput | null): StoredTariff | null {
  return t as StoredTariff | null;
}

export function buildCatalog(
  companies: Iterable<Company>,
  tariffs: Iterable<StoredTariff>,
  stationPrices: Iterable<StoredStationPrices>,
): PricingCatalog {
  const cat = new PricingCatalog();
  cat.batch(() => {
    for (const c of companies) cat.upsertCompany(companyInput(c));
    const subs: StoredTariff[] = [];
    for (const t of tariffs) {
      if (t.type === 'sub_tariff') subs.push(t);
      else cat.upsertTariff(tariffInput(t));
    }
    for (const t of subs) cat.upsertTariff(tariffInput(t));
    for (const sp of stationPrices) cat.upsertStationPrices(sp);
  });
  return cat;
}

/** Replaces all companies of the catalog by `companies` (company writes may touch others, D49). */
export function replaceCompanies(cat: PricingCatalog, companies: Iterable<Company>): void {
  const keep = new Set<string>();
  for (const c of companies) {
    keep.add(c.id);
    cat.upsertCompany(companyInput(c));
  }
  for (const id of [...cat.companies.keys()]) if (!keep.has(id)) cat.removeCompany(id);
}

export function rateTable(date: string, rates: Record<string, number>): RateTable {
  return { date, rates: { EUR: 1, ...rates } };
}

/** A main-thread catalog kept current by the registries' change events. */
export function mainCatalog(companies: CompanyRegistry, tariffs: TariffCatalog): PricingCatalog {
  const cat = buildCatalog(companies.values(), tariffs.all(), tariffs.stationPrices());
  tariffs.onChange((c) => {
    if (c.kind === 'company') {
      // A write changes one company; a delete also the companies that referred to it (D49), and
      // deletes are rare: then all of them.
      const now = companies.get(c.id);
      if (c.op === 'delete' || now === undefined) replaceCompanies(cat, companies.values());
      else cat.upsertCompany(companyInput(now));
    } else if (c.op === 'upsert') cat.upsertTariff(tariffInput(c.tariff));
    else cat.removeTariff(c.id);
  });
  return cat;
}

/** A worker's catalog over a read-only live-store connection. */
export class StoreCatalog {
  private syncing: Promise<void> | null = null;

  private constructor(
    private readonly store: LiveStore,
    readonly catalog: PricingCatalog,
    private gen: number,
  ) {}

  static async open(store: LiveStore): Promise<StoreCatalog> {
    const { gen, catalog } = await store.read(async (s) => ({
      gen: await catalogGeneration(s),
      catalog: buildCatalog(await loadCompanies(s), await loadTariffs(s), await loadStationPrices(s)),
    }));
    return new StoreCatalog(store, catalog, gen);
  }

  get generation(): number {
    return this.gen;
  }

  /**
   * Applies every stored change after the catalog's generation when `generation` is newer: null
   * when the catalog is current (no wait), else a promise that settles once it is applied.
   */
  syncTo(generation: number): Promise<void> | null {
    if (generation <= this.gen) return null;
    // One read at a time, each started after the call that needs it, so it sees the store at
    // least at `generation` (the main thread learned that generation from the store before).
    const run = async (): Promise<void> => {
      if (generation > this.gen) await this.apply();
    };
    const p = (this.syncing ?? Promise.resolve()).then(run, run);
    const tail = p.catch(() => {});
    this.syncing = tail;
    void tail.then(() => {
      if (this.syncing === tail) this.syncing = null;
    });
    return p;
  }

  private async apply(): Promise<void> {
    const d = await this.store.read((s) => readCatalogDelta(s, this.gen));
    // Only the companies that changed (D176: reloading all of them for every company write made a
    // flood of writes starve price work).
    if (d.companies !== null) {
      for (const c of d.companies.upserts) this.catalog.upsertCompany(companyInput(c));
      for (const id of d.companies.removed) this.catalog.removeCompany(id);
    }
    if (d.stationPrices !== null || d.removed.length > 0 || d.upserts.length > 0) this.catalog.batch(() => {
      for (const id of d.removed) this.catalog.removeTariff(id);
      for (const t of d.upserts) this.catalog.upsertTariff(tariffInput(t));
      if (d.stationPrices !== null) for (const sp of d.stationPrices) this.catalog.upsertStationPrices(sp);
    });
    if (d.generation > this.gen) this.gen = d.generation;
  }
}
