/**
 * Tariffs: `PUT /v2/tariffs/{id}` (endpoint 12, D56–D58), `GET /v2/tariffs` (endpoint 13, D59),
 * `DELETE /v2/tariffs/{id}` (endpoint 19, D60) — all three without `code` in errors (D6) — and the
 * tariff metadata list `GET /v1/tariffs` (endpoint 14, D61).
 */
import { linksMember, pageLinks } from '../jsonapi/links.js';
import { snapshotAndCatalog } from '../cache.js';
import type {
  StoredComponent,
  StoredRestriction,
  StoredSegment,
  StoredTariff,
} from '../../domain/tariffs/model.js';
import { existingCompanies } from '../../storage/companies.js';
import { deleteTariff, getStoredTariff, nextGeneration, subTariffsReferencing, tariffHead, writeTariff } from '../../storage/tariffs.js';
import type { AppContext } from '../context.js';
import { sparse } from '../jsonapi/document.js';
import { ApiError, badParameter, badPointer, notFound, versionConflict, type ErrorObject, pointerError } from '../jsonapi/errors.js';
import { Q, defineQuery, type QueryInput } from '../jsonapi/query.js';
import { defineQueryRoute, defineRoute } from '../contract.js';
import { noContent, type ApiRequest, type ApiResponse, type RouteDef } from '../types.js';
import { BodyCache, queryKey } from '../body-cache.js';
import { ResourceCache, TARIFF_FIELDS, rawTariffResource, simpleTariffResource } from './tariffs.document.js';
import { validateTariffPut, type TariffPutBody } from './tariffs.schema.js';

const A = '/data/attributes';
const R = '/data/relationships';

class Problems {
  readonly list: ErrorObject[] = [];
  add(pointer: string, title: string): void {
    this.list.push(pointerError(pointer, title));
  }
  throwIfAny(): void {
    if (this.list.length > 0) throw ApiError.many(400, this.list);
  }
}

/** The body's checks that need no stored data (D56 rules 2–6, enumerations, currency codes). */
function checkBody(d: TariffPutBody['data'], rates: Readonly<Record<string, number>>, p: Problems): void {
  const a = d.attributes;
  const rel = d.relationships;
  const isSub = d.type === 'sub_tariff';
  if (isSub) {
    if (a.name !== undefined) p.add(`${A}/name`, 'name must be null for a sub_tariff');
    if ((rel.super_tariffs?.data ?? []).length === 0) {
      p.add(`${R}/super_tariffs`, 'a sub_tariff needs at least one super tariff');
    }
  } else {
    if (a.name === undefined) p.add(`${A}/name`, `${A}/name is required`);
    if (a.currency === undefined) p.add(`${A}/currency`, `${A}/currency is required`);
    if ((rel.super_tariffs?.data ?? []).length > 0) p.add(`${R}/super_tariffs`, 'super_tariffs is allowed only for a sub_tariff');
    if (rel.cpo?.data !== undefined) p.add(`${R}/cpo`, 'cpo is allowed only for a sub_tariff');
  }
  if (a.currency !== undefined && rates[a.currency.toUpperCase()] === undefined) {
    p.add(`${A}/currency`, `unknown currency ${a.currency}`);
  }
  (a.prices ?? []).forEach((c, ci) => {
    (c.restrictions ?? []).forEach((r, ri) => {
      if (r.charge_point_power_is_range === true) {
        const pw = r.charge_point_powers ?? [];
        if (pw.length !== 2 || pw[0] > pw[1]) {
          p.add(
            `${A}/prices/${ci}/restrictions/${ri}/charge_point_powers`,
            'with charge_point_power_is_range, charge_point_powers must hold two values, the first <= the second',
          );
        }
      }
    });
    c.decomposition.forEach((s, si) => {
      const at = `${A}/prices/${ci}/decomposition/${si}`;
      if ((s.time_of_day_start === undefined) !== (s.time_of_day_end === undefined)) {
        p.add(
          `${at}/${s.time_of_day_start === undefined ? 'time_of_day_start' : 'time_of_day_end'}`,
          'time_of_day_start and time_of_day_end must both be set or both be empty',
        );
      }
      if (s.range_gte !== undefined && s.range_lt !== undefined && s.range_gte >= s.range_lt) {
        p.add(`${at}/range_lt`, 'range_lt must be greater than range_gte');
      }
      if (s.occupancy_gte !== undefined && s.occupancy_lt !== undefined && s.occupancy_gte >= s.occupancy_lt) {
        p.add(`${at}/occupancy_lt`, 'occupancy_lt must be greater than occupancy_gte');
      }
      if (s.currency !== undefined && rates[s.currency.toUpperCase()] === undefined) {
        p.add(`${at}/currency`, `unknown currency ${s.currency}`);
      }
      // D148: days apply only where the first match is selected (a sub tariff's, by its super tariffs).
      if (s.days_of_week !== undefined && d.type === 'tariff' && a.price_selection !== 'first_match') {
        p.add(`${at}/days_of_week`, 'days_of_week needs price_selection first_match');
      }
    });
  });
  // D147, D149: set on a tariff; its sub tariffs follow it.
  for (const k of ['price_selection', 'min_price', 'max_price'] as const) {
    if (a[k] === undefined) continue;
    if (d.type === 'sub_tariff') p.add(`${A}/${k}`, `${k} is set on the super tariff; a sub_tariff follows it`);
    else if (k !== 'price_selection' && a.price_selection !== 'first_match') p.add(`${A}/${k}`, `${k} needs price_selection first_match`);
  }
  if (a.min_price !== undefined && a.max_price !== undefined && a.min_price > a.max_price) p.add(`${A}/max_price`, 'max_price must not be below min_price');
}

function toComponents(d: TariffPutBody['data'], existing: StoredTariff | undefined): StoredComponent[] {
  return (d.attributes.prices ?? []).map((c, ci) => ({
    restrictions: (c.restrictions ?? []).map(
      (r, ri): StoredRestriction => ({
        allowance: r.allowance,
        charge_point_powers: r.charge_point_powers ?? [],
        charge_point_energy_type: r.charge_point_energy_type ?? null,
        cpo_ids: r.cpo_ids ?? [],
        countries: (r.countries ?? []).map((x) => x.toUpperCase()),
        car_ac_phase: r.car_ac_phase ?? null,
        charge_point_power_is_range: r.charge_point_power_is_range ?? false,
        // Read only (D56): the stored value is kept.
        use_consumed_charging_power: existing?.prices[ci]?.restrictions[ri]?.use_consumed_charging_power ?? false,
      }),
    ),
    decomposition: c.decomposition.map(
      (s): StoredSegment => ({
        dimension: s.dimension,
        price: s.price,
        range_gte: s.range_gte ?? null,
        range_lt: s.range_lt ?? null,
        billing_increment: s.billing_increment ?? null,
        currency: s.currency?.toUpperCase() ?? null,
        time_of_day_start: s.time_of_day_start ?? null,
        time_of_day_end: s.time_of_day_end ?? null,
        ...(s.days_of_week !== undefined ? { days_of_week: [...s.days_of_week].sort((x, y) => x - y) } : {}),
        is_average_price: s.is_average_price ?? false,
        occupancy_gte: s.occupancy_gte ?? null,
        occupancy_lt: s.occupancy_lt ?? null,
      }),
    ),
  }));
}

/** D84 currency rule: within one component every entry's effective currency is the same. */
function checkCurrencyRule(prices: readonly StoredComponent[], tariffCurrency: string, p: Problems): void {
  prices.forEach((c, ci) => {
    let first: string | null = null;
    c.decomposition.forEach((s, si) => {
      const cur = s.currency ?? tariffCurrency;
      if (first === null) first = cur;
      else if (cur !== first) {
        p.add(
          `${A}/prices/${ci}/decomposition/${si}/currency`,
          `mixed currencies in one price component (${first} and ${cur})`,
        );
      }
    });
  });
}

const unique = (ids: readonly string[]): string[] => [...new Set(ids)];

/** The raw tariff list's query (13): the EMP required, the filters, the fieldsets and the page. */
export const RAW_LIST_QUERY = defineQuery({
  emp: Q.required(Q.csv('filter[emp.id]', 'The EMPs')),
  ids: Q.csv('filter[id]', 'Only these ids'),
  types: Q.csv('filter[type]', 'tariff, sub_tariff', (types) => {
    for (const t of types) {
      if (t !== 'tariff' && t !== 'sub_tariff') throw badParameter('filter[type]', 'filter[type] must be tariff or sub_tariff');
    }
  }),
  cpo: Q.csv('filter[cpo.id]', 'Sub tariffs of these CPOs'),
  supers: Q.csv('filter[super_tariffs.id]', 'Sub tariffs of these tariffs'),
  fTariff: Q.fields('tariff', TARIFF_FIELDS, 'Members of a tariff'),
  fSub: Q.fields('sub_tariff', TARIFF_FIELDS, 'Members of a sub tariff'),
  page: Q.page(100, 100, 'default 100, at most 100'),
});

/** The tariff metadata's query (14): each filter also in the original client's unbracketed form. */
export const SIMPLE_LIST_QUERY = defineQuery(
  {
    pco: Q.either(
      Q.bool('filter[provider_customer_only]', 'Only provider-customer tariffs'),
      Q.bool('provider_customer_only', 'The same as filter[provider_customer_only] (the original client\'s form)'),
    ),
    direct: Q.either(Q.bool('filter[direct_payment]', 'Only direct-payment tariffs'), Q.bool('direct_payment', 'The same as filter[direct_payment] (the original client\'s form)')),
    ids: Q.either(Q.csv('filter[id]', 'Only these ids'), Q.csv('id', 'The same as filter[id] (the original client\'s form)')),
  },
  ['filter[provider_customer_only]', 'filter[direct_payment]', 'filter[id]'],
);

export function tariffsRoutes(ctx: AppContext): RouteDef[] {
  const rates = ctx.snapshot.rates();
  const brandIds = new Set(ctx.snapshot.brands().map((b) => b.id));
  const raw = new ResourceCache(ctx.companies, rawTariffResource);
  const simple = new ResourceCache(ctx.companies, simpleTariffResource);

  const put = async (req: ApiRequest<TariffPutBody>): Promise<ApiResponse> => {
    const body = req.body;
    const d = body.data;
    const id = req.params.id;
    if (d.id !== id) throw badPointer('/data/id', 'data.id must equal the tariff id of the path');
    const p = new Problems();
    checkBody(d, rates, p);
    p.throwIfAny();
    const a = d.attributes;
    const rel = d.relationships;
    const empId = rel.emp.data.id;
    const cpoId = rel.cpo?.data?.id ?? null;
    const superIds = unique((rel.super_tariffs?.data ?? []).map((r) => r.id));
    const brands = unique((rel.vehicle_brands?.data ?? []).map((r) => r.id));
    const now = Date.now();

    const { stored, created, generation } = await ctx.live.tx(async (s) => {
      const head = await tariffHead(s, id);
      const existing = head === undefined ? undefined : (JSON.parse(head.data) as StoredTariff);
      if (existing !== undefined && existing.type !== d.type) {
        throw badPointer('/data/type', `tariff ${id} is a ${existing.type}; its type cannot change`);
      }
      // References (D19): 400 with a pointer to each unknown one.
      const companies = await existingCompanies(s, cpoId === null ? [empId] : [empId, cpoId]);
      if (!companies.has(empId)) p.add(`${R}/emp/data/id`, `company ${empId} not found`);
      if (cpoId !== null && !companies.has(cpoId)) p.add(`${R}/cpo/data/id`, `company ${cpoId} not found`);
      let superCurrency: string | null = null;
      const supers = rel.super_tariffs?.data ?? [];
      for (let i = 0; i < supers.length; i++) {
        const r = supers[i];
        const st = r.id === id ? undefined : await getStoredTariff(s, r.id);
        if (st === undefined || st.type !== 'tariff') {
          p.add(`${R}/super_tariffs/data/${i}/id`, `tariff ${r.id} not found`);
        } else if (superCurrency === null) superCurrency = st.currency;
      }
      (rel.vehicle_brands?.data ?? []).forEach((r, i) => {
        if (!brandIds.has(r.id)) p.add(`${R}/vehicle_brands/data/${i}/id`, `brand ${r.id} not found`);
      });
      p.throwIfAny();
      const currency = a.currency?.toUpperCase() ?? superCurrency ?? 'EUR';
      const prices = toComponents(d, existing);
      checkCurrencyRule(prices, currency, p);
      p.throwIfAny();
      if (a.version !== (existing === undefined ? 1 : existing.version + 1)) throw versionConflict();
      const gen = await nextGeneration(s);
      const t: StoredTariff = {
        id,
        type: d.type,
        version: a.version,
        created_at: existing?.created_at ?? now,
        updated_at: now,
        name: d.type === 'tariff' ? a.name! : null,
        currency,
        monthly_min_sales: a.monthly_min_sales ?? 0,
        monthly_fee: a.monthly_fee ?? 0,
        yearly_service_fee: a.yearly_service_fee ?? 0,
        is_flat_rate: a.is_flat_rate ?? false,
        is_direct_payment: a.is_direct_payment ?? false,
        provider_customer_only: a.provider_customer_only ?? false,
        notes: a.notes ?? null,
        url: a.url ?? null,
        no_price_policy: a.no_price_policy ?? 'inherit',
        no_price_reason: a.no_price_reason ?? 'inherit',
        apply_prices_to_sub_tariff: a.apply_prices_to_sub_tariff ?? null,
        supported_countries: unique((a.supported_countries ?? []).map((c) => c.toUpperCase())),
        tags: (a.tags ?? []).map((g) => ({
          kind: g.kind,
          localized_text: g.localized_text,
          url: g.url ?? null,
          show_until: g.show_until ?? null,
          hide_for_owners: g.hide_for_owners ?? false,
        })),
        prices,
        ...(a.price_selection === 'first_match' ? { price_selection: 'first_match' as const } : {}),
        ...(a.price_selection === 'first_match' && a.min_price !== undefined ? { min_price: a.min_price } : {}),
        ...(a.price_selection === 'first_match' && a.max_price !== undefined ? { max_price: a.max_price } : {}),
        is_card_payment: a.is_card_payment ?? false,
        is_secondary_tariff: a.is_secondary_tariff ?? false,
        existing_customer_only: a.existing_customer_only ?? false,
        integration_status: a.integration_status ?? 'complete',
        system_tags: a.system_tags ?? [],
        branding: a.branding ?? null,
        charge_card_id: a.charge_card_id === undefined ? null : String(a.charge_card_id),
        emp_id: empId,
        cpo_id: cpoId,
        super_tariff_ids: superIds,
        vehicle_brand_ids: brands,
      };
      await writeTariff(s, t, gen);
      return { stored: t, created: existing === undefined, generation: gen };
    });
    await ctx.sync.afterWrite(generation, () => ctx.tariffs.upsert(stored, generation));
    return { status: created ? 201 : 200, body: `{"data":${raw.json(stored)}}` };
  };

  const del = async (req: ApiRequest): Promise<ApiResponse> => {
    const id = req.params.id;
    const now = Date.now();
    const generation = await ctx.live.tx(async (s) => {
      if ((await tariffHead(s, id)) === undefined) throw notFound(`tariff ${id}`);
      const n = await subTariffsReferencing(s, id);
      if (n > 0) throw new ApiError('BAD_REQUEST', `tariff ${id} is still a super tariff of ${n} sub_tariff${n === 1 ? '' : 's'}`);
      const gen = await nextGeneration(s);
      await deleteTariff(s, id, gen, now);
      return gen;
    });
    await ctx.sync.afterWrite(generation, () => ctx.tariffs.remove(id, generation));
    raw.forget(id);
    simple.forget(id);
    return noContent();
  };

  const rawBodies = new BodyCache(64);
  const listRaw = (req: ApiRequest, { emp, ids, types, cpo, supers, fTariff, fSub, page: pg }: QueryInput<typeof RAW_LIST_QUERY>): ApiResponse => {
    const q = req.query;
    const key = queryKey(q);
    const stamp = `${ctx.tariffs.generation}/${ctx.companies.generation}`;
    const hit = rawBodies.get(key, stamp);
    if (hit !== undefined) return { status: 200, body: hit };
    const idSet = ids === undefined ? undefined : new Set(ids.map((s) => s.toLowerCase()));
    const cpoSet = cpo === undefined ? undefined : new Set(cpo);
    const superSet = supers === undefined ? undefined : new Set(supers);
    let source: readonly StoredTariff[];
    if (emp.length === 1) source = ctx.tariffs.ofEmp(emp[0]);
    else {
      const empSet = new Set(emp);
      source = ctx.tariffs.all().filter((t) => empSet.has(t.emp_id));
    }
    const matches =
      idSet === undefined && types === undefined && cpoSet === undefined && superSet === undefined
        ? source
        : source.filter(
            (t) =>
              (idSet === undefined || idSet.has(t.id.toLowerCase())) &&
              (types === undefined || types.includes(t.type)) &&
              (cpoSet === undefined || (t.cpo_id !== null && cpoSet.has(t.cpo_id))) &&
              (superSet === undefined || t.super_tariff_ids.some((s) => superSet.has(s))),
          );
    const items = matches.slice(pg.offset, pg.offset + pg.size);
    const parts: string[] = new Array<string>(items.length);
    for (let i = 0; i < items.length; i++) {
      const t = items[i];
      const fs = t.type === 'tariff' ? fTariff : fSub;
      parts[i] = fs === undefined ? raw.json(t) : JSON.stringify(sparse(raw.resource(t), fs));
    }
    const links = linksMember(pageLinks(req.path, q, pg, pg.offset + pg.size < matches.length, matches.length));
    return { status: 200, body: rawBodies.set(key, stamp, `{"data":[${parts.join(',')}],"meta":{"overall_count":${matches.length}}${links}}`) };
  };

  const simpleBodies = new BodyCache(64);
  const listSimple = (req: ApiRequest, { pco, direct, ids }: QueryInput<typeof SIMPLE_LIST_QUERY>): ApiResponse => {
    const q = req.query;
    const key = queryKey(q);
    const stamp = `${ctx.tariffs.generation}/${ctx.companies.generation}`;
    const hit = simpleBodies.get(key, stamp);
    if (hit !== undefined) return { status: 200, body: hit };
    const idSet = ids === undefined ? undefined : new Set(ids.map((x) => x.toLowerCase()));
    const parts: string[] = [];
    for (const t of ctx.tariffs.all()) {
      if (t.type !== 'tariff') continue;
      if (pco !== undefined && t.provider_customer_only !== pco) continue;
      if (direct !== undefined && t.is_direct_payment !== direct) continue;
      if (idSet !== undefined && !idSet.has(t.id.toLowerCase())) continue;
      parts.push(simple.json(t));
    }
    return { status: 200, body: simpleBodies.set(key, stamp, `{"data":[${parts.join(',')}]}`) };
  };

  return [
    defineQueryRoute({ method: 'GET', path: '/v1/tariffs', answers: { status: 200, response: (s) => s.SimpleTariffListDocument }, groups: ['ReadSimpleTariffs'], fresh: true, query: SIMPLE_LIST_QUERY, handler: listSimple, cache: snapshotAndCatalog(ctx) }),
    defineQueryRoute({ method: 'GET', path: '/v2/tariffs', answers: { status: 200, response: (s) => s.RawTariffListDocument }, groups: ['ReadTariffs'], fresh: true, codeless: true, query: RAW_LIST_QUERY, handler: listRaw, cache: snapshotAndCatalog(ctx) }),
    defineRoute({ method: 'PUT', path: '/v2/tariffs/:id', answers: { status: 201, response: (s) => s.RawTariffDocument, alsoSuccess: { '200': 'Updated (the version sent was the stored one + 1)' } }, groups: ['WriteTariffs'], input: validateTariffPut, codeless: true, handler: put }),
    { method: 'DELETE', path: '/v2/tariffs/:id', answers: { status: 204 }, groups: ['WriteTariffs'], body: false, codeless: true, handler: del },
  ];
}
