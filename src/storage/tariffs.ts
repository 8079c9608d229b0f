/**
 * Live-store repository of the tariff catalog: raw tariffs, sub tariff links, EVSE-level station
 * prices, and the catalog generation with its change log (migration 003). Writers call these inside
 * one `LiveStore.tx`; each committed write takes exactly one new generation.
 */
import type Database from 'better-sqlite3';
import type { StoredStationPrices, StoredTariff } from '../domain/tariffs/model.js';
import type { LiveStore } from './live.js';

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
