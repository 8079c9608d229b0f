/**
 * In-memory view of all companies (CPOs and EMPs), the single source for names, supported EMPs,
 * groups and usability (D66) on read paths. Loaded from the live store at start; company writes
 * call `upsert` / `remove` after their transaction commits, so readers see a write immediately.
 */

export interface ExternalSourceMapping {
  ext_a_ids: string[] | null;
  ext_b_names: string[] | null;
  ext_b_charge_card_ids: string[] | null;
  sheet_names: string[] | null;
  ext_c_operator_ids: string[] | null;
  evse_operator_ids: string[];
}

export interface Company {
  id: string;
  name: string;
  url: string | null;
  is_cpo: boolean;
  is_emp: boolean;
  version: number;
  created_at: number;
  updated_at: number;
  external_source_mapping: ExternalSourceMapping;
  supported_emps: string[];
  cpo_group: string | null;
  emp_group: string | null;
}

export type Usability = 'direct' | 'roaming' | 'none';

export class CompanyRegistry {
  private readonly byId = new Map<string, Company>();
  /** Bumped on every change; caches keyed on it stay valid until a company write. */
  private gen = 0;

  constructor(companies: Iterable<Company>) {
    for (const c of companies) this.byId.set(c.id, c);
  }

  get generation(): number {
    return this.gen;
  }

  get(id: string): Company | undefined {
    return this.byId.get(id);
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }

  size(): number {
    return this.byId.size;
  }

  values(): IterableIterator<Company> {
    return this.byId.values();
  }

  upsert(c: Company): void {
    this.byId.set(c.id, c);
    this.gen++;
  }

  /** Removes a company and, as D49 requires, every reference to it held by other companies. */
  remove(id: string): void {
    if (!this.byId.delete(id)) return;
    for (const c of this.byId.values()) {
      if (c.supported_emps.includes(id)) c.supported_emps = c.supported_emps.filter((x) => x !== id);
      if (c.cpo_group === id) c.cpo_group = null;
      if (c.emp_group === id) c.emp_group = null;
    }
    this.gen++;
  }

  /**
   * D66: can customers of `empId` use the stations of `cpoId`? Direct when the EMP is the CPO or its
   * cpo_group; roaming when the EMP (or its emp_group) is among the supported EMPs of the CPO or of
   * its cpo_group. References to deleted companies never match (D21).
   */
  usability(empId: string, cpoId: string): Usability {
    const cpo = this.byId.get(cpoId);
    if (cpo === undefined) return 'none';
    const groupId = cpo.cpo_group !== null && this.byId.has(cpo.cpo_group) ? cpo.cpo_group : null;
    if (empId === cpoId || empId === groupId) return this.byId.has(empId) ? 'direct' : 'none';
    const emp = this.byId.get(empId);
    if (emp === undefined) return 'none';
    const h = emp.emp_group !== null && this.byId.has(emp.emp_group) ? emp.emp_group : null;
    const group = groupId === null ? undefined : this.byId.get(groupId);
    if (supports(cpo, empId, h) || (group !== undefined && supports(group, empId, h))) return 'roaming';
    return 'none';
  }
}

function supports(c: Company, empId: string, empGroup: string | null): boolean {
  const s = c.supported_emps;
  for (let i = 0; i < s.length; i++) if (s[i] === empId || (empGroup !== null && s[i] === empGroup)) return true;
  return false;
}
