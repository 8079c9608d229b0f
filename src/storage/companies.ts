import type { Company, ExternalSourceMapping } from '../domain/companies/registry.js';
import type { LiveStore } from './live.js';

interface CompanyDbRow {
  id: string;
  name: string;
  url: string | null;
  is_cpo: number;
  is_emp: number;
  version: number;
  created_at: number;
  updated_at: number;
  external_source_mapping: string;
  cpo_group: string | null;
  emp_group: string | null;
}

/** All companies of the live store with their supported EMPs (ordered by id). */
export function loadCompanies(store: LiveStore): Company[] {
  const rows = store.db.prepare('SELECT * FROM companies ORDER BY id').all() as CompanyDbRow[];
  const supported = new Map<string, string[]>();
  for (const r of store.db
    .prepare('SELECT company_id, emp_id FROM company_supported_emps ORDER BY company_id, emp_id')
    .all() as { company_id: string; emp_id: string }[]) {
    let l = supported.get(r.company_id);
    if (!l) supported.set(r.company_id, (l = []));
    l.push(r.emp_id);
  }
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    url: r.url,
    is_cpo: r.is_cpo !== 0,
    is_emp: r.is_emp !== 0,
    version: r.version,
    created_at: r.created_at,
    updated_at: r.updated_at,
    external_source_mapping: JSON.parse(r.external_source_mapping) as ExternalSourceMapping,
    supported_emps: supported.get(r.id) ?? [],
    cpo_group: r.cpo_group,
    emp_group: r.emp_group,
  }));
}

/** Stored head of one company (for the version check inside a write transaction). */
export function companyHead(store: LiveStore, id: string): { version: number; created_at: number } | undefined {
  return store.db.prepare('SELECT version, created_at FROM companies WHERE id = ?').get(id) as
    | { version: number; created_at: number }
    | undefined;
}

/** The subset of `ids` that exist as companies. */
export function existingCompanies(store: LiveStore, ids: Iterable<string>): Set<string> {
  const st = store.db.prepare('SELECT 1 FROM companies WHERE id = ?');
  const out = new Set<string>();
  for (const id of ids) if (!out.has(id) && st.get(id) !== undefined) out.add(id);
  return out;
}

/** Inserts or replaces a company and its supported EMPs (call inside `LiveStore.tx`). */
export function writeCompany(store: LiveStore, c: Company, generation: number): void {
  store.db
    .prepare(
      `INSERT INTO companies(id, name, url, is_cpo, is_emp, version, created_at, updated_at, external_source_mapping,
         cpo_group, emp_group, generation)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT(id) DO UPDATE SET name = excluded.name, url = excluded.url, is_cpo = excluded.is_cpo,
         is_emp = excluded.is_emp, version = excluded.version, updated_at = excluded.updated_at,
         external_source_mapping = excluded.external_source_mapping, cpo_group = excluded.cpo_group,
         emp_group = excluded.emp_group, generation = excluded.generation`,
    )
    .run(
      c.id, c.name, c.url, c.is_cpo ? 1 : 0, c.is_emp ? 1 : 0, c.version, c.created_at, c.updated_at,
      JSON.stringify(c.external_source_mapping), c.cpo_group, c.emp_group, generation,
    );
  store.db.prepare('DELETE FROM company_supported_emps WHERE company_id = ?').run(c.id);
  const add = store.db.prepare('INSERT OR IGNORE INTO company_supported_emps(company_id, emp_id) VALUES (?, ?)');
  for (const e of c.supported_emps) add.run(c.id, e);
}

/**
 * Deletes a company (call inside `LiveStore.tx`). Per D49 it disappears from other companies'
 * supported EMPs (foreign-key cascade) and group pointers to it become null; those companies keep
 * their version but are stamped with `generation`. Returns the ids of the companies so touched, or
 * null when the company did not exist.
 */
export function deleteCompany(store: LiveStore, id: string, generation: number): string[] | null {
  const db = store.db;
  const touched = new Set<string>();
  for (const r of db
    .prepare(
      `SELECT company_id AS id FROM company_supported_emps WHERE emp_id = ? AND company_id <> ?
       UNION SELECT id FROM companies WHERE (cpo_group = ? OR emp_group = ?) AND id <> ?`,
    )
    .all(id, id, id, id, id) as { id: string }[]) {
    touched.add(r.id);
  }
  if (db.prepare('DELETE FROM companies WHERE id = ?').run(id).changes === 0) return null;
  db.prepare('UPDATE companies SET cpo_group = NULL WHERE cpo_group = ?').run(id);
  db.prepare('UPDATE companies SET emp_group = NULL WHERE emp_group = ?').run(id);
  const stamp = db.prepare('UPDATE companies SET generation = ? WHERE id = ?');
  const out = [...touched].sort();
  for (const t of out) stamp.run(generation, t);
  return out;
}
