/**
 * Live-store repository of the tariff catalog: raw tariffs, sub tariff links, EVSE-level station
 * prices, and the catalog generation with its change log (migration 003). Writers call these inside
 * one `LiveStore.tx`; each committed write takes exactly one new generation.
 */
import type Database from 'better-sqlite3';
import type { StoredStationPrices, StoredTariff } from '../domain/tariffs/model.js';
import type { LiveStore } from './live.js';
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

interface Stmts {
  bumpGen: Database.Statement<[], { value: number }>;
  getGen: Database.Statement<[], { value: number }>;
  log: Database.Statement<[number, string, string, string, number]>;
  changesSince: Database.Statement<[number], CatalogChangeRow>;
  head: Database.Statement<[string], TariffRowHead>;
  upsert: Database.Statement<[string, string, string, string | null, number, number, number, string, number]>;
  delLinks: Database.Statement<[string]>;
  addLink: Database.Statement<[string, string, number]>;
  del: Database.Statement<[string]>;
  delStationPrices: Database.Statement<[string]>;
  referencingSubs: Database.Statement<[string], { n: number }>;
  empTariffs: Database.Statement<[string], { n: number }>;
  all: Database.Statement<[], { data: string }>;
  allStationPrices: Database.Statement<[], { tariff_id: string; station_id: string; prices: string }>;
  upsertStationPrices: Database.Statement<[string, string, string, number]>;
}

const cache = new WeakMap<LiveStore, Stmts>();

function stmts(store: LiveStore): Stmts {
  let s = cache.get(store);
  if (s !== undefined) return s;
  const db = store.db;
  s = {
    bumpGen: db.prepare('UPDATE catalog_generation SET value = value + 1 WHERE one = 1 RETURNING value'),
    getGen: db.prepare('SELECT value FROM catalog_generation WHERE one = 1'),
    log: db.prepare('INSERT OR REPLACE INTO catalog_changes(generation, kind, id, op, at) VALUES (?, ?, ?, ?, ?)'),
    changesSince: db.prepare('SELECT * FROM catalog_changes WHERE generation > ? ORDER BY generation, kind, id'),
    head: db.prepare('SELECT id, type, version, created_at, data FROM tariffs WHERE id = ?'),
    upsert: db.prepare(
      `INSERT INTO tariffs(id, type, emp_id, cpo_id, version, created_at, updated_at, data, generation)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT(id) DO UPDATE SET type = excluded.type, emp_id = excluded.emp_id, cpo_id = excluded.cpo_id,
         version = excluded.version, updated_at = excluded.updated_at, data = excluded.data, generation = excluded.generation`,
    ),
    delLinks: db.prepare('DELETE FROM tariff_super_links WHERE sub_id = ?'),
    addLink: db.prepare('INSERT OR IGNORE INTO tariff_super_links(sub_id, super_id, position) VALUES (?, ?, ?)'),
    del: db.prepare('DELETE FROM tariffs WHERE id = ?'),
    delStationPrices: db.prepare('DELETE FROM station_prices WHERE tariff_id = ?'),
    referencingSubs: db.prepare('SELECT count(*) AS n FROM tariff_super_links WHERE super_id = ?'),
    empTariffs: db.prepare('SELECT count(*) AS n FROM tariffs WHERE emp_id = ?'),
    all: db.prepare('SELECT data FROM tariffs ORDER BY id'),
    allStationPrices: db.prepare('SELECT tariff_id, station_id, prices FROM station_prices ORDER BY tariff_id, station_id'),
    upsertStationPrices: db.prepare(
      `INSERT INTO station_prices(tariff_id, station_id, prices, generation) VALUES (?, ?, ?, ?)
       ON CONFLICT(tariff_id, station_id) DO UPDATE SET prices = excluded.prices, generation = excluded.generation`,
    ),
  };
  cache.set(store, s);
  return s;
}

/** Takes the next catalog generation (call inside the write transaction, once per write). */
export function nextGeneration(store: LiveStore): number {
  return stmts(store).bumpGen.get()!.value;
}

export function catalogGeneration(store: LiveStore): number {
  return stmts(store).getGen.get()!.value;
}

export function logChange(store: LiveStore, generation: number, kind: ChangeKind, id: string, op: ChangeOp, at: number): void {
  stmts(store).log.run(generation, kind, id, op, at);
}

/** Every change after generation `since`, in generation order (pricing workers catch up with it). */
export function changesSince(store: LiveStore, since: number): CatalogChangeRow[] {
  return stmts(store).changesSince.all(since);
}

export function tariffHead(store: LiveStore, id: string): TariffRowHead | undefined {
  return stmts(store).head.get(id);
}

export function getStoredTariff(store: LiveStore, id: string): StoredTariff | undefined {
  const h = stmts(store).head.get(id);
  return h === undefined ? undefined : (JSON.parse(h.data) as StoredTariff);
}

/** Inserts or replaces a tariff and its super tariff links, stamped with `generation`. */
export function writeTariff(store: LiveStore, t: StoredTariff, generation: number): void {
  const s = stmts(store);
  s.upsert.run(t.id, t.type, t.emp_id, t.cpo_id, t.version, t.created_at, t.updated_at, JSON.stringify(t), generation);
  s.delLinks.run(t.id);
  for (let i = 0; i < t.super_tariff_ids.length; i++) s.addLink.run(t.id, t.super_tariff_ids[i], i);
  logChange(store, generation, 'tariff', t.id, 'upsert', t.updated_at);
}

/** Deletes a tariff, its links and its station prices; false when it did not exist. */
export function deleteTariff(store: LiveStore, id: string, generation: number, at: number): boolean {
  const s = stmts(store);
  if (s.del.run(id).changes === 0) return false;
  s.delStationPrices.run(id);
  logChange(store, generation, 'tariff', id, 'delete', at);
  return true;
}

/** Number of sub tariffs listing `id` among their super tariffs. */
export function subTariffsReferencing(store: LiveStore, id: string): number {
  return stmts(store).referencingSubs.get(id)!.n;
}

/** Number of tariffs and sub tariffs whose `emp` is `companyId`. */
export function tariffsOfEmp(store: LiveStore, companyId: string): number {
  return stmts(store).empTariffs.get(companyId)!.n;
}

export function loadTariffs(store: LiveStore): StoredTariff[] {
  return stmts(store)
    .all.all()
    .map((r) => JSON.parse(r.data) as StoredTariff);
}

export function loadStationPrices(store: LiveStore): StoredStationPrices[] {
  return stmts(store)
    .allStationPrices.all()
    .map((r) => ({ tariff_id: r.tariff_id, station_id: r.station_id, prices: JSON.parse(r.prices) as StoredStationPrices['prices'] }));
}

export function writeStationPrices(store: LiveStore, sp: StoredStationPrices, generation: number): void {
  stmts(store).upsertStationPrices.run(sp.tariff_id, sp.station_id, JSON.stringify(sp.prices), generation);
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
export function seedDefaultCatalog(store: LiveStore, snapshotVersion: string, load: () => CatalogSeed, now: number): number {
  return store.tx(() => {
    if (store.getSetting('catalog_seeded_from') !== null) return 0;
    const seed = load();
    const db = store.db;
    const gen = nextGeneration(store);
    const mapping = JSON.stringify({
      ext_a_ids: null,
      ext_b_names: null,
      ext_b_charge_card_ids: null,
      sheet_names: null,
      ext_c_operator_ids: null,
      evse_operator_ids: [],
    });
    const insCompany = db.prepare(
      `INSERT OR IGNORE INTO companies(id, name, url, is_cpo, is_emp, version, created_at, updated_at, external_source_mapping, emp_group, generation)
       VALUES (?, ?, ?, ?, ?, 1, ?, ?, ?, ?, ?)`,
    );
    for (const c of seed.companies) {
      if (insCompany.run(c.id, c.name, c.url, c.is_cpo ? 1 : 0, c.is_emp ? 1 : 0, now, now, mapping, c.emp_group, gen).changes > 0) {
        logChange(store, gen, 'company', c.id, 'upsert', now);
      }
    }
    const exists = db.prepare('SELECT 1 FROM companies WHERE id = ?');
    const has = (id: string): boolean => exists.get(id) !== undefined;
    const addEmp = db.prepare('INSERT OR IGNORE INTO company_supported_emps(company_id, emp_id) VALUES (?, ?)');
    const stamp = db.prepare('UPDATE companies SET generation = ? WHERE id = ?');
    for (const r of seed.roaming) {
      if (!has(r.cpo_id)) continue;
      let n = 0;
      for (const e of r.emp_ids) if (has(e)) n += addEmp.run(r.cpo_id, e).changes;
      if (n > 0) {
        stamp.run(gen, r.cpo_id);
        logChange(store, gen, 'company', r.cpo_id, 'upsert', now);
      }
    }
    const seeded = new Set<string>();
    const ordered = [...seed.tariffs.filter((t) => t.type === 'tariff'), ...seed.tariffs.filter((t) => t.type === 'sub_tariff')];
    for (const t of ordered) {
      if (!has(t.emp_id) || (t.cpo_id !== null && !has(t.cpo_id))) continue;
      if (t.super_tariff_ids.some((s) => !seeded.has(s))) continue;
      if (tariffHead(store, t.id) !== undefined) continue;
      writeTariff(store, { ...t, version: 1, created_at: now, updated_at: now }, gen);
      seeded.add(t.id);
    }
    const withPrices = new Set<string>();
    for (const sp of seed.stationPrices) {
      if (!seeded.has(sp.tariff_id)) continue;
      writeStationPrices(store, sp, gen);
      withPrices.add(sp.tariff_id);
    }
    for (const t of withPrices) logChange(store, gen, 'station_prices', t, 'upsert', now);
    store.setSetting('catalog_seeded_from', snapshotVersion);
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
