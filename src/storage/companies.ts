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
