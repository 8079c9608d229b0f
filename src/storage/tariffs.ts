/**
 * Live-store repository of the tariff catalog: raw tariffs, sub tariff links, EVSE-level station
 * prices, and the catalog generation with its change log (migration 003). Writers call these inside
 * one `LiveStore.tx`; each committed write takes exactly one new generation.
 */
import type { StoredStationPrices, StoredTariff } from '../domain/tariffs/model.js';
import type { Company } from '../domain/companies/registry.js';
import { loadCompaniesById } from './companies.js';
import type { LiveStore, Sql } from './live.js';
import { getSetting, setSetting } from './settings.js';
import type { Snapshot } from './snapshot.js';

export type ChangeKind = 'company' | 'tariff' | 'station_prices';
export type ChangeOp = 'upsert' | 'delete';

export interface CatalogChangeRow {
  generation: number;
  kind: ChangeKind;
  id: string;
  op: ChangeOp;
  at: number;
}

export interface TariffRowHead {
  id: string;
  type: 'tariff' | 'sub_tariff';
  version: number;
  created_at: number;
  data: string;
}

/** Takes the next catalog generation (call inside the write transaction, once per write). */
export async function nextGeneration(s: Sql): Promise<number> {
  return (await s.get<{ value: number }>('UPDATE catalog_generation SET value = value + 1 WHERE one = 1 RETURNING value'))!.value;
}

export async function catalogGeneration(s: Sql): Promise<number> {
  return (await s.get<{ value: number }>('SELECT value FROM catalog_generation WHERE one = 1'))!.value;
}

export async function logChange(s: Sql, generation: number, kind: ChangeKind, id: string, op: ChangeOp, at: number): Promise<void> {
  await s.run(
    `INSERT INTO catalog_changes(generation, kind, id, op, at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT(generation, kind, id) DO UPDATE SET op = excluded.op, at = excluded.at`,
    [generation, kind, id, op, at],
  );
}

/** Every change after generation `since`, in generation order (catalogs catch up with it). */
export function changesSince(s: Sql, since: number): Promise<CatalogChangeRow[]> {
  return s.all<CatalogChangeRow>('SELECT * FROM catalog_changes WHERE generation > ? ORDER BY generation, kind, id', [since]);
}

export function tariffHead(s: Sql, id: string): Promise<TariffRowHead | undefined> {
  return s.get<TariffRowHead>('SELECT id, type, version, created_at, data FROM tariffs WHERE id = ?', [id]);
}

export async function getStoredTariff(s: Sql, id: string): Promise<StoredTariff | undefined> {
  const h = await tariffHead(s, id);
  return h === undefined ? undefined : (JSON.parse(h.data) as StoredTariff);
}

/** Inserts or replaces a tariff and its super tariff links, stamped with `generation`. */
export async function writeTariff(s: Sql, t: StoredTariff, generation: number): Promise<void> {
  await s.run(
    `INSERT INTO tariffs(id, type, emp_id, cpo_id, version, created_at, updated_at, data, generation)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT(id) DO UPDATE SET type = excluded.type, emp_id = excluded.emp_id, cpo_id = excluded.cpo_id,
       version = excluded.version, updated_at = excluded.updated_at, data = excluded.data, generation = excluded.generation`,
    [t.id, t.type, t.emp_id, t.cpo_id, t.version, t.created_at, t.updated_at, JSON.stringify(t), generation],
  );
  await s.run('DELETE FROM tariff_super_links WHERE sub_id = ?', [t.id]);
  for (let i = 0; i < t.super_tariff_ids.length; i++) {
    await s.run('INSERT INTO tariff_super_links(sub_id, super_id, position) VALUES (?, ?, ?) ON CONFLICT DO NOTHING', [
      t.id,
      t.super_tariff_ids[i],
      i,
    ]);
  }
  await logChange(s, generation, 'tariff', t.id, 'upsert', t.updated_at);
}

/** Deletes a tariff, its links and its station prices; false when it did not exist. */
export async function deleteTariff(s: Sql, id: string, generation: number, at: number): Promise<boolean> {
  if ((await s.run('DELETE FROM tariffs WHERE id = ?', [id])) === 0) return false;
  await s.run('DELETE FROM station_prices WHERE tariff_id = ?', [id]);
  await logChange(s, generation, 'tariff', id, 'delete', at);
  return true;
}

/** Number of sub tariffs listing `id` among their super tariffs. */
export async function subTariffsReferencing(s: Sql, id: string): Promise<number> {
  return (await s.get<{ n: number }>('SELECT count(*) AS n FROM tariff_super_links WHERE super_id = ?', [id]))!.n;
}

/** Number of tariffs and sub tariffs whose `emp` is `companyId`. */
export async function tariffsOfEmp(s: Sql, companyId: string): Promise<number> {
  return (await s.get<{ n: number }>('SELECT count(*) AS n FROM tariffs WHERE emp_id = ?', [companyId]))!.n;
}

export async function loadTariffs(s: Sql): Promise<StoredTariff[]> {
  return (await s.all<{ data: string }>('SELECT data FROM tariffs ORDER BY id')).map((r) => JSON.parse(r.data) as StoredTariff);
}

export async function loadStationPrices(s: Sql): Promise<StoredStationPrices[]> {
  return (
    await s.all<{ tariff_id: string; station_id: string; prices: string }>(
      'SELECT tariff_id, station_id, prices FROM station_prices ORDER BY tariff_id, station_id',
    )
  ).map((r) => ({ tariff_id: r.tariff_id, station_id: r.station_id, prices: JSON.parse(r.prices) as StoredStationPrices['prices'] }));
}

export async function writeStationPrices(s: Sql, sp: StoredStationPrices, generation: number): Promise<void> {
  await s.run(
    `INSERT INTO station_prices(tariff_id, station_id, prices, generation) VALUES (?, ?, ?, ?)
     ON CONFLICT(tariff_id, station_id) DO UPDATE SET prices = excluded.prices, generation = excluded.generation`,
    [sp.tariff_id, sp.station_id, JSON.stringify(sp.prices), generation],
  );
}

/** What changed in the catalog after a generation, read in one consistent view (`readCatalogDelta`). */
export interface CatalogDelta {
  /** The store's catalog generation at the read: at least the newest change's (a generation can be taken without a logged change). */
  generation: number;
  /** Every change after the generation asked for, in generation order. */
  changes: CatalogChangeRow[];
  /** Changed tariffs that are gone. */
  removed: string[];
  /** Changed tariffs as they are now, super tariffs before sub tariffs (each block compiles with its current subs). */
  upserts: StoredTariff[];
  /**
   * The companies that changed (a delete logs the companies it touched too, D49): those that
   * exist as they are now, and the ids of those that are gone; null when none changed.
   */
  companies: { upserts: Company[]; removed: string[] } | null;
  /** Every EVSE-level price, when any changed; else null. */
  stationPrices: StoredStationPrices[] | null;
}

/**
 * The catalog's changes after generation `since` with the rows they touched, for a view of the
 * catalog that catches up (a replica's registries, a pricing worker's compiled catalog). Call
 * inside one `LiveStore.read`.
 */
export async function readCatalogDelta(s: Sql, since: number): Promise<CatalogDelta> {
  const changes = await changesSince(s, since);
  const generation = Math.max(await catalogGeneration(s), since, changes.length === 0 ? 0 : changes[changes.length - 1].generation);
  const companyIds = new Set<string>();
  let stationPrices = false;
  const tariffIds = new Set<string>();
  for (const c of changes) {
    if (c.kind === 'tariff') tariffIds.add(c.id);
    else if (c.kind === 'company') companyIds.add(c.id);
    else stationPrices = true;
  }
  const removed: string[] = [];
  const upserts: StoredTariff[] = [];
  for (const id of tariffIds) {
    const t = await getStoredTariff(s, id);
    if (t === undefined) removed.push(id);
    else upserts.push(t);
  }
  upserts.sort((a, b) => (a.type === b.type ? 0 : a.type === 'tariff' ? -1 : 1));
  return {
    generation,
    changes,
    removed,
    upserts,
    companies: companyIds.size === 0 ? null : await changedCompanies(s, [...companyIds]),
    stationPrices: stationPrices ? await loadStationPrices(s) : null,
  };
}

async function changedCompanies(s: Sql, ids: string[]): Promise<{ upserts: Company[]; removed: string[] }> {
  const upserts = await loadCompaniesById(s, ids);
  const found = new Set(upserts.map((c) => c.id));
  return { upserts, removed: ids.filter((id) => !found.has(id)) };
}

export interface CatalogSeed {
  companies: ReadonlyArray<{ id: string; name: string; url: string | null; is_cpo: boolean; is_emp: boolean; emp_group: string | null }>;
  roaming: ReadonlyArray<{ cpo_id: string; emp_ids: readonly string[] }>;
  tariffs: readonly StoredTariff[];
  stationPrices: readonly StoredStationPrices[];
}

/**
 * Seeds the default tariff catalog of the snapshot into the live store, once per store (like the
 * operator companies): EMP companies, their roaming relationships (added to the operators'
 * supported EMPs), tariffs and EVSE-level station prices, all under one new catalog generation.
 * Records whose references are missing in this store are skipped. Returns the number of tariffs.
 */
export function seedDefaultCatalog(store: LiveStore, snapshotVersion: string, load: () => CatalogSeed, now: number): Promise<number> {
  return store.tx(async (s) => {
    if ((await getSetting(s, 'catalog_seeded_from')) !== null) return 0;
    const seed = load();
    const gen = await nextGeneration(s);
    const mapping = JSON.stringify({
      ext_a_ids: null,
      ext_b_names: null,
      ext_b_charge_card_ids: null,
      sheet_names: null,
      ext_c_operator_ids: null,
      evse_operator_ids: [],
    });
    for (const c of seed.companies) {
      const n = await s.run(
        `INSERT INTO companies(id, name, url, is_cpo, is_emp, version, created_at, updated_at, external_source_mapping, emp_group, generation)
         VALUES (?, ?, ?, ?, ?, 1, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
        [c.id, c.name, c.url, c.is_cpo ? 1 : 0, c.is_emp ? 1 : 0, now, now, mapping, c.emp_group, gen],
      );
      if (n > 0) await logChange(s, gen, 'company', c.id, 'upsert', now);
    }
    const known = new Set((await s.all<{ id: string }>('SELECT id FROM companies')).map((r) => r.id));
    for (const r of seed.roaming) {
      if (!known.has(r.cpo_id)) continue;
      let n = 0;
      for (const e of r.emp_ids) {
        if (known.has(e)) {
          n += await s.run('INSERT INTO company_supported_emps(company_id, emp_id) VALUES (?, ?) ON CONFLICT DO NOTHING', [r.cpo_id, e]);
        }
      }
      if (n > 0) {
        await s.run('UPDATE companies SET generation = ? WHERE id = ?', [gen, r.cpo_id]);
        await logChange(s, gen, 'company', r.cpo_id, 'upsert', now);
      }
    }
    const existing = new Set((await s.all<{ id: string }>('SELECT id FROM tariffs')).map((r) => r.id));
    const seeded = new Set<string>();
    const ordered = [...seed.tariffs.filter((t) => t.type === 'tariff'), ...seed.tariffs.filter((t) => t.type === 'sub_tariff')];
    for (const t of ordered) {
      if (!known.has(t.emp_id) || (t.cpo_id !== null && !known.has(t.cpo_id))) continue;
      if (t.super_tariff_ids.some((id) => !seeded.has(id))) continue;
      if (existing.has(t.id) || seeded.has(t.id)) continue;
      await writeTariff(s, { ...t, version: 1, created_at: now, updated_at: now }, gen);
      seeded.add(t.id);
    }
    const withPrices = new Set<string>();
    for (const sp of seed.stationPrices) {
      if (!seeded.has(sp.tariff_id)) continue;
      await writeStationPrices(s, sp, gen);
      withPrices.add(sp.tariff_id);
    }
    for (const t of withPrices) await logChange(s, gen, 'station_prices', t, 'upsert', now);
    await setSetting(s, 'catalog_seeded_from', snapshotVersion);
    return seeded.size;
  });
}

/** The default catalog stored in a snapshot (empty for a snapshot without one). */
export function catalogSeedOf(snapshot: Snapshot): CatalogSeed {
  return {
    companies: snapshot.catalog('company') as CatalogSeed['companies'],
    roaming: snapshot.catalog('roaming') as CatalogSeed['roaming'],
    tariffs: snapshot.catalog('tariff') as StoredTariff[],
    stationPrices: snapshot.catalog('station_prices') as StoredStationPrices[],
  };
}
