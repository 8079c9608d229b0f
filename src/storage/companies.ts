import type { Company, ExternalSourceMapping } from '../domain/companies/registry.js';
import type { SeedCompany, Sql } from './live.js';
import { getSetting, setSetting } from './settings.js';

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
export async function loadCompanies(s: Sql): Promise<Company[]> {
  const rows = await s.all<CompanyDbRow>('SELECT * FROM companies ORDER BY id');
  const links = await s.all<{ company_id: string; emp_id: string }>('SELECT company_id, emp_id FROM company_supported_emps ORDER BY company_id, emp_id');
  return companiesOf(rows, links);
}

/** Companies by id (those that exist), with their supported EMPs; ids in chunks of 500 parameters. */
export async function loadCompaniesById(s: Sql, ids: readonly string[]): Promise<Company[]> {
  const rows: CompanyDbRow[] = [];
  const links: { company_id: string; emp_id: string }[] = [];
  for (let i = 0; i < ids.length; i += 500) {
    const chunk = ids.slice(i, i + 500);
    const marks = chunk.map(() => '?').join(', ');
    rows.push(...(await s.all<CompanyDbRow>(`SELECT * FROM companies WHERE id IN (${marks}) ORDER BY id`, chunk)));
    links.push(...(await s.all<{ company_id: string; emp_id: string }>(`SELECT company_id, emp_id FROM company_supported_emps WHERE company_id IN (${marks}) ORDER BY company_id, emp_id`, chunk)));
  }
  return companiesOf(rows, links);
}

function companiesOf(rows: readonly CompanyDbRow[], links: readonly { company_id: string; emp_id: string }[]): Company[] {
  const supported = new Map<string, string[]>();
  for (const r of links) {
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
export function companyHead(s: Sql, id: string): Promise<{ version: number; created_at: number } | undefined> {
  return s.get<{ version: number; created_at: number }>('SELECT version, created_at FROM companies WHERE id = ?', [id]);
}

/** The subset of `ids` that exist as companies. */
export async function existingCompanies(s: Sql, ids: Iterable<string>): Promise<Set<string>> {
  const out = new Set<string>();
  for (const id of ids) if (!out.has(id) && (await s.get('SELECT 1 AS one FROM companies WHERE id = ?', [id])) !== undefined) out.add(id);
  return out;
}

/** Inserts or replaces a company and its supported EMPs (call inside `LiveStore.tx`). */
export async function writeCompany(s: Sql, c: Company, generation: number): Promise<void> {
  await s.run(
      `INSERT INTO companies(id, name, url, is_cpo, is_emp, version, created_at, updated_at, external_source_mapping,
         cpo_group, emp_group, generation)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT(id) DO UPDATE SET name = excluded.name, url = excluded.url, is_cpo = excluded.is_cpo,
         is_emp = excluded.is_emp, version = excluded.version, updated_at = excluded.updated_at,
         external_source_mapping = excluded.external_source_mapping, cpo_group = excluded.cpo_group,
         emp_group = excluded.emp_group, generation = excluded.generation`,
    [
      c.id, c.name, c.url, c.is_cpo ? 1 : 0, c.is_emp ? 1 : 0, c.version, c.created_at, c.updated_at,
      JSON.stringify(c.external_source_mapping), c.cpo_group, c.emp_group, generation,
    ],
  );
  await s.run('DELETE FROM company_supported_emps WHERE company_id = ?', [c.id]);
  for (const e of c.supported_emps) {
    await s.run('INSERT INTO company_supported_emps(company_id, emp_id) VALUES (?, ?) ON CONFLICT DO NOTHING', [c.id, e]);
  }
}

/**
 * Deletes a company (call inside `LiveStore.tx`). Per D49 it disappears from other companies'
 * supported EMPs (foreign-key cascade) and group pointers to it become null; those companies keep
 * their version but are stamped with `generation`. Returns the ids of the companies so touched, or
 * null when the company did not exist.
 */
export async function deleteCompany(s: Sql, id: string, generation: number): Promise<string[] | null> {
  const touched = new Set<string>();
  for (const r of await s.all<{ id: string }>(
    `SELECT company_id AS id FROM company_supported_emps WHERE emp_id = ? AND company_id <> ?
     UNION SELECT id FROM companies WHERE (cpo_group = ? OR emp_group = ?) AND id <> ?`,
    [id, id, id, id, id],
  )) {
    touched.add(r.id);
  }
  if ((await s.run('DELETE FROM companies WHERE id = ?', [id])) === 0) return null;
  await s.run('UPDATE companies SET cpo_group = NULL WHERE cpo_group = ?', [id]);
  await s.run('UPDATE companies SET emp_group = NULL WHERE emp_group = ?', [id]);
  const out = [...touched].sort();
  for (const t of out) await s.run('UPDATE companies SET generation = ? WHERE id = ?', [generation, t]);
  return out;
}

/**
 * Seeds operator companies from the snapshot on first start (once per store; later snapshot swaps
 * never overwrite companies edited through the API). Call inside a write transaction.
 */
export async function seedCompanies(s: Sql, snapshotVersion: string, companies: Iterable<SeedCompany>, now: number): Promise<number> {
  if ((await getSetting(s, 'companies_seeded_from')) !== null) return 0;
  let n = 0;
  for (const c of companies) {
    const mapping = {
      ext_a_ids: null,
      ext_b_names: null,
      ext_b_charge_card_ids: null,
      sheet_names: null,
      ext_c_operator_ids: null,
      evse_operator_ids: [...c.evse_operator_ids],
    };
    n += await s.run(
      `INSERT INTO companies(id, name, url, is_cpo, is_emp, version, created_at, updated_at, external_source_mapping)
       VALUES (?, ?, NULL, 1, 0, 1, ?, ?, ?) ON CONFLICT DO NOTHING`,
      [c.id, c.name, now, now, JSON.stringify(mapping)],
    );
  }
  await setSetting(s, 'companies_seeded_from', snapshotVersion);
  return n;
}
