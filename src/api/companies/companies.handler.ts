/**
 * Companies: `PUT /v1/companies/{id}` (endpoint 7, D46–D48), `GET /v1/companies` (endpoint 10,
 * D54–D55) and `DELETE /v1/companies/{id}` (endpoint 18, D49).
 */
import { linksMember, pageLinks } from '../jsonapi/links.js';
import { snapshotAndCatalog } from '../cache.js';
import type { Company, ExternalSourceMapping } from '../../domain/companies/registry.js';
import { companyHead, deleteCompany, existingCompanies, writeCompany } from '../../storage/companies.js';
import { logChange, nextGeneration, tariffsOfEmp } from '../../storage/tariffs.js';
import type { AppContext } from '../context.js';
import { ApiError, badParameter, badPointer, notFound, versionConflict, type ErrorObject, pointerError } from '../jsonapi/errors.js';
import { Q, defineQuery, type Query, type QueryInput } from '../jsonapi/query.js';
import { sparse } from '../jsonapi/document.js';
import { defineQueryRoute, defineRoute } from '../contract.js';
import { noContent, type ApiRequest, type ApiResponse, type RouteDef } from '../types.js';
import { BodyCache, queryKey } from '../body-cache.js';
import { COMPANY_FIELDS, CompanyDocuments } from './companies.document.js';
import { validateCompanyPut, type CompanyPutBody } from './companies.schema.js';

const Q_LIMIT = 10;

/** `q`: the name search, trimmed and lower-cased; not combined with a filter. */
const nameSearch = (q: Query): string | undefined => {
  const search = q.get('q');
  if (search === undefined) return undefined;
  const term = search.trim().toLowerCase();
  if (term.length === 0) throw badParameter('q', 'q must not be empty');
  for (const k of q.keys()) {
    if (k.startsWith('filter[')) throw badParameter('q', `q cannot be combined with ${k}`);
  }
  return term;
};

/** The company list's query (D16, D15, the name search and the filters, parsed in that order). */
export const COMPANY_LIST_QUERY = defineQuery(
  {
    fields: Q.fields('company', COMPANY_FIELDS, 'Members of a company'),
    page: Q.page(100, 100, 'default 100, at most 100'),
    q: Q.param('q', { type: 'string', minLength: 1 }, 'Name search: exact matches, then names starting with it (case-insensitive), at most 10; not combined with filter[…]', nameSearch),
    // A name search takes no filter (refused above): they are read only without one.
    filters: Q.group(
      { ids: Q.csv('filter[id]', 'Only these ids'), isEmp: Q.bool('filter[is_emp]', 'EMPs'), isCpo: Q.bool('filter[is_cpo]', 'CPOs') },
      (v) => v,
    ),
  },
  ['q', 'filter[id]', 'filter[is_emp]', 'filter[is_cpo]', 'fields[company]'],
);

export function companiesRoutes(ctx: AppContext): RouteDef[] {
  // evse_operator values of each operator's stations, computed once (the snapshot is immutable).
  const stationEvse = new Map<string, string[]>();
  for (const r of ctx.snapshot.stationEvseOperators()) {
    let l = stationEvse.get(r.operator_id);
    if (l === undefined) stationEvse.set(r.operator_id, (l = []));
    l.push(r.evse_operator);
  }
  const docs = new CompanyDocuments(ctx.companies, stationEvse);

  let sorted: { gen: number; list: Company[] } | null = null;
  const sortedCompanies = (): Company[] => {
    const gen = ctx.companies.generation;
    if (sorted !== null && sorted.gen === gen) return sorted.list;
    const list = [...ctx.companies.values()].map((c) => ({ c, k: c.name.toLowerCase() }));
    list.sort((a, b) => (a.k < b.k ? -1 : a.k > b.k ? 1 : a.c.id < b.c.id ? -1 : a.c.id > b.c.id ? 1 : 0));
    sorted = { gen, list: list.map((x) => x.c) };
    return sorted.list;
  };

  const put = async (req: ApiRequest<CompanyPutBody>): Promise<ApiResponse> => {
    const body = req.body;
    const d = body.data;
    const id = req.params.id;
    if (d.id !== id) throw badPointer('/data/id', 'data.id must equal the company id of the path');
    const a = d.attributes;
    const rel = d.relationships;
    const supported = [...new Set(rel.supported_emps.data.map((r) => r.id))];
    const cpoGroup = rel.cpo_group?.data?.id ?? null;
    const empGroup = rel.emp_group?.data?.id ?? null;
    if (cpoGroup === id) throw badPointer('/data/relationships/cpo_group/data/id', 'a company cannot be its own cpo_group');
    if (empGroup === id) throw badPointer('/data/relationships/emp_group/data/id', 'a company cannot be its own emp_group');
    const m = a.external_source_mapping;
    const mapping: ExternalSourceMapping = {
      ext_a_ids: m.ext_a_ids ?? null,
      ext_b_names: m.ext_b_names ?? null,
      ext_b_charge_card_ids: m.ext_b_charge_card_ids ?? null,
      sheet_names: m.sheet_names ?? null,
      ext_c_operator_ids: m.ext_c_operator_ids ?? null,
      evse_operator_ids: [...new Set(m.evse_operator_ids ?? [])].sort(),
    };
    const now = Date.now();
    const { company, created, generation } = await ctx.live.tx(async (s) => {
      const head = await companyHead(s, id);
      const refs: Array<[string, string]> = [];
      rel.supported_emps.data.forEach((r, i) => refs.push([r.id, `/data/relationships/supported_emps/data/${i}/id`]));
      if (cpoGroup !== null) refs.push([cpoGroup, '/data/relationships/cpo_group/data/id']);
      if (empGroup !== null) refs.push([empGroup, '/data/relationships/emp_group/data/id']);
      const exist = await existingCompanies(
        s,
        refs.map((r) => r[0]).filter((x) => x !== id),
      );
      const errors: ErrorObject[] = [];
      for (const [ref, pointer] of refs) {
        if (ref !== id && !exist.has(ref)) {
          errors.push(pointerError(pointer, `company ${ref} not found`));
        }
      }
      if (errors.length > 0) throw ApiError.many(400, errors);
      if (a.version !== (head === undefined ? 1 : head.version + 1)) throw versionConflict();
      const gen = await nextGeneration(s);
      const c: Company = {
        id,
        name: a.name,
        url: a.url ?? null,
        is_cpo: a.is_cpo,
        is_emp: a.is_emp,
        version: a.version,
        created_at: head === undefined ? now : head.created_at,
        updated_at: now,
        external_source_mapping: mapping,
        supported_emps: supported,
        cpo_group: cpoGroup,
        emp_group: empGroup,
      };
      await writeCompany(s, c, gen);
      await logChange(s, gen, 'company', id, 'upsert', now);
      return { company: c, created: head === undefined, generation: gen };
    });
    await ctx.sync.afterWrite(generation, () => {
      ctx.companies.upsert(company);
      ctx.tariffs.companyChanged(id, 'upsert', generation);
    });
    return { status: created ? 201 : 200, body: `{"data":${docs.json(company)}}` };
  };

  const del = async (req: ApiRequest): Promise<ApiResponse> => {
    const id = req.params.id;
    const now = Date.now();
    const generation = await ctx.live.tx(async (s) => {
      if ((await companyHead(s, id)) === undefined) throw notFound(`company ${id}`);
      const n = await tariffsOfEmp(s, id);
      if (n > 0) throw new ApiError('BAD_REQUEST', `company ${id} is still the emp of ${n} tariff${n === 1 ? '' : 's'}`);
      const gen = await nextGeneration(s);
      const touched = (await deleteCompany(s, id, gen))!;
      await logChange(s, gen, 'company', id, 'delete', now);
      for (const t of touched) await logChange(s, gen, 'company', t, 'upsert', now);
      return gen;
    });
    await ctx.sync.afterWrite(generation, () => {
      ctx.companies.remove(id);
      ctx.tariffs.companyChanged(id, 'delete', generation);
    });
    return noContent();
  };

  const bodies = new BodyCache();
  const list = (req: ApiRequest, { fields: fieldset, page: pg, q: term, filters }: QueryInput<typeof COMPANY_LIST_QUERY>): ApiResponse => {
    const q = req.query;
    const key = queryKey(q);
    const stamp = String(ctx.companies.generation);
    const hit = bodies.get(key, stamp);
    if (hit !== undefined) return { status: 200, body: hit };
    let matches: Company[];
    let overall: number;
    if (term !== undefined) {
      const exact: Company[] = [];
      const prefix: Company[] = [];
      for (const c of sortedCompanies()) {
        const n = c.name.toLowerCase();
        if (n === term) exact.push(c);
        else if (n.startsWith(term)) prefix.push(c);
      }
      matches = exact.concat(prefix).slice(0, Q_LIMIT);
      overall = matches.length;
    } else {
      const { ids, isEmp, isCpo } = filters;
      const idSet = ids === undefined ? undefined : new Set(ids.map((s) => s.toLowerCase()));
      const all = sortedCompanies();
      matches =
        idSet === undefined && isEmp === undefined && isCpo === undefined
          ? all
          : all.filter(
              (c) =>
                (idSet === undefined || idSet.has(c.id.toLowerCase())) &&
                (isEmp === undefined || c.is_emp === isEmp) &&
                (isCpo === undefined || c.is_cpo === isCpo),
            );
      overall = matches.length;
    }
    const pageItems = matches.slice(pg.offset, pg.offset + pg.size);
    const parts: string[] = new Array<string>(pageItems.length);
    for (let i = 0; i < pageItems.length; i++) {
      parts[i] = fieldset === undefined ? docs.json(pageItems[i]) : JSON.stringify(sparse(docs.resource(pageItems[i]), fieldset));
    }
    const links = linksMember(pageLinks(req.path, q, pg, pg.offset + pg.size < overall, overall));
    return { status: 200, body: bodies.set(key, stamp, `{"data":[${parts.join(',')}],"meta":{"overall_count":${overall}}${links}}`) };
  };

  return [
    defineQueryRoute({ method: 'GET', path: '/v1/companies', answers: { status: 200, response: (s) => s.CompanyListDocument }, groups: ['ReadTariffs'], query: COMPANY_LIST_QUERY, handler: list, fresh: true, cache: snapshotAndCatalog(ctx) }),
    defineRoute({ method: 'PUT', path: '/v1/companies/:id', answers: { status: 201, response: (s) => s.CompanyDocument, alsoSuccess: { '200': 'Updated (the version sent was the stored one + 1)' } }, groups: ['WriteTariffs'], input: validateCompanyPut, handler: put }),
    { method: 'DELETE', path: '/v1/companies/:id', answers: { status: 204 }, groups: ['WriteTariffs'], body: false, handler: del },
  ];
}

