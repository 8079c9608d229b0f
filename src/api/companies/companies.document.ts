/** Company resource objects (D48), serialized once per company and registry generation. */
import type { Company, CompanyRegistry } from '../../domain/companies/registry.js';
import type { ResourceObject } from '../jsonapi/document.js';

export const COMPANY_FIELDS = [
  'name',
  'created_at',
  'updated_at',
  'version',
  'url',
  'is_cpo',
  'is_emp',
  'external_source_mapping',
  'supported_emps',
  'cpo_group',
  'emp_group',
] as const;

interface Cached {
  gen: number;
  res: ResourceObject;
  json: string;
}

/**
 * Builds company resources. `evse_operator_ids` is the sorted union of the stored values and the
 * `evse_operator` values of the company's stations (per-operator sets computed once at start).
 */
export class CompanyDocuments {
  private readonly cache = new Map<string, Cached>();

  constructor(
    private readonly registry: CompanyRegistry,
    private readonly stationEvse: ReadonlyMap<string, readonly string[]>,
  ) {}

  resource(c: Company): ResourceObject {
    return this.cached(c).res;
  }

  json(c: Company): string {
    return this.cached(c).json;
  }

  private cached(c: Company): Cached {
    const gen = this.registry.generation;
    const hit = this.cache.get(c.id);
    if (hit !== undefined && hit.gen === gen && hit.res.attributes!.version === c.version) return hit;
    const res = this.build(c);
    const entry = { gen, res, json: JSON.stringify(res) };
    this.cache.set(c.id, entry);
    return entry;
  }

  private build(c: Company): ResourceObject {
    const reg = this.registry;
    const m = c.external_source_mapping;
    const evse = new Set<string>(m.evse_operator_ids ?? []);
    for (const e of this.stationEvse.get(c.id) ?? []) evse.add(e);
    const ref = (id: string | null): { data: { type: string; id: string } | null } => ({
      data: id !== null && reg.has(id) ? { type: 'company', id } : null,
    });
    return {
      id: c.id,
      type: 'company',
      attributes: {
        name: c.name,
        created_at: c.created_at,
        updated_at: c.updated_at,
        version: c.version,
        url: c.url,
        is_cpo: c.is_cpo,
        is_emp: c.is_emp,
        external_source_mapping: {
          ext_a_ids: m.ext_a_ids ?? null,
          ext_b_names: m.ext_b_names ?? null,
          ext_b_charge_card_ids: m.ext_b_charge_card_ids ?? null,
          sheet_names: m.sheet_names ?? null,
          ext_c_operator_ids: m.ext_c_operator_ids ?? null,
          evse_operator_ids: [...evse].sort(),
        },
      },
      relationships: {
        supported_emps: {
          data: c.supported_emps.filter((id) => reg.has(id)).map((id) => ({ type: 'company', id })),
        },
        cpo_group: ref(c.cpo_group),
        emp_group: ref(c.emp_group),
      },
    };
  }
}
