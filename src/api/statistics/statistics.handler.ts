/**
 * `GET /v1/charging_stations/statistics` (D52) and `GET /v1/country_statistics` (D53). Both are
 * code-less (D6). Station-derived counts are computed once (stations are immutable); the parts that
 * depend on companies (names, EMP counts, dangling operators) are recomputed after company writes.
 */
import { pageLinks } from '../jsonapi/links.js';
import { snapshotAndCatalog } from '../cache.js';
import {
  chargePointStatistics,
  countryCounts,
  countryStatisticsAttributes,
  countryStatisticsId,
  evseOperatorsByOperator,
  type ChargePointStatistic,
  type CountryCounts,
  type CountryStatisticsAttributes,
} from '../../domain/stations/statistics.js';
import type { AppContext } from '../context.js';
import { badParameter } from '../jsonapi/errors.js';
import { Q, defineQuery, type QueryField, type QueryInput } from '../jsonapi/query.js';
import { defineQueryRoute } from '../contract.js';
import { json, type ApiRequest, type ApiResponse, type RouteDef } from '../types.js';

interface CountryRecord {
  id: string;
  attributes: CountryStatisticsAttributes;
}

/** Countries, upper-cased as the records hold them. */
const countries = (): QueryField<string[] | undefined> => {
  const f = Q.csv('filter[country]', 'Countries');
  return { params: f.params, parse: (q) => f.parse(q)?.map((c) => c.toUpperCase()) };
};

/** The charge point statistics' query (9). */
export const CHARGE_POINT_QUERY = defineQuery({
  countries: countries(),
  include: Q.csv('include', 'operator: the operators with their eMI3 operator ids in `included`', (include) => {
    for (const v of include) if (v !== 'operator') throw badParameter('include', `include "${v}" is not supported; allowed: operator`);
  }),
});

/** The country statistics' query (11). */
export const COUNTRY_QUERY = defineQuery({
  countries: countries(),
  year: Q.integer('filter[year]', 'Year'),
  month: Q.integer('filter[month]', 'Month', 1, 12),
  page: Q.page(100, 100, 'default 100, at most 100'),
});

export function statisticsRoutes(ctx: AppContext): RouteDef[] {
  const columns = ctx.stations.c;
  let cpStats: ChargePointStatistic[] | null = null;
  let evseOps: Map<string, string[]> | null = null;
  let counts: CountryCounts[] | null = null;
  let countryCache: { generation: number; records: CountryRecord[] } | null = null;
  const history = ctx.snapshot.countryStatisticsHistory();
  const year = ctx.snapshot.meta.statisticsYear;
  const month = ctx.snapshot.meta.statisticsMonth;

  const chargePoints = (_req: ApiRequest, { countries, include }: QueryInput<typeof CHARGE_POINT_QUERY>): ApiResponse => {
    cpStats ??= chargePointStatistics(columns);
    const wanted = countries === undefined ? null : new Set(countries);
    const data: unknown[] = [];
    const included: unknown[] = [];
    const seen = new Set<string>();
    for (const s of cpStats) {
      if (wanted !== null && !wanted.has(s.country)) continue;
      const op = ctx.companies.get(s.operatorId);
      data.push({
        id: s.id,
        type: 'charge_point_statistics',
        attributes: { country: s.country, power: s.power, plug: s.plug, count: s.count },
        relationships: { operator: { data: op === undefined ? null : { type: 'company', id: op.id } } },
      });
      if (include !== undefined && op !== undefined && !seen.has(op.id)) {
        seen.add(op.id);
        evseOps ??= evseOperatorsByOperator(columns);
        const ids = [...new Set([...(op.external_source_mapping.evse_operator_ids ?? []), ...(evseOps.get(op.id) ?? [])])].sort();
        included.push({ id: op.id, type: 'company', attributes: { name: op.name, external_source_mapping: { evse_operator_ids: ids } } });
      }
    }
    return json(200, include === undefined ? { data } : { data, included });
  };

  /** All country records: stored history plus the snapshot's own month computed now (by id, D18). */
  const countryRecords = (): CountryRecord[] => {
    const gen = ctx.companies.generation;
    if (countryCache !== null && countryCache.generation === gen) return countryCache.records;
    counts ??= countryCounts(columns);
    const emps = [...ctx.companies.values()].filter((c) => c.is_emp).map((c) => c.id);
    const records: CountryRecord[] = [];
    for (const x of counts) {
      let empCount = 0;
      for (const e of emps) {
        for (const cpo of x.cpoIds) {
          if (ctx.companies.usability(e, cpo) !== 'none') {
            empCount++;
            break;
          }
        }
      }
      records.push({ id: countryStatisticsId(x.country, year, month), attributes: countryStatisticsAttributes(x, year, month, empCount) });
    }
    for (const h of history) {
      if (h.year === year && h.month === month) continue;
      records.push({ id: countryStatisticsId(h.country, h.year, h.month), attributes: h });
    }
    records.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    countryCache = { generation: gen, records };
    return records;
  };

  const countryStatistics = (req: ApiRequest, { countries, year: y, month: m, page: p }: QueryInput<typeof COUNTRY_QUERY>): ApiResponse => {
    const wanted = countries === undefined ? null : new Set(countries);
    const all = countryRecords().filter(
      (r) =>
        (wanted === null || wanted.has(r.attributes.country)) &&
        (y === undefined || r.attributes.year === y) &&
        (m === undefined || r.attributes.month === m),
    );
    const data = all.slice(p.offset, p.offset + p.size).map((r) => ({
      id: r.id,
      type: 'country_statistics',
      attributes: r.attributes,
    }));
    return json(200, { data, meta: { overall_count: all.length }, links: pageLinks(req.path, req.query, p, p.offset + p.size < all.length, all.length) });
  };

  return [
    defineQueryRoute({
      method: 'GET',
      path: '/v1/charging_stations/statistics', answers: { status: 200, response: (s) => s.StatisticsDocument },
      groups: ['ReadChargePointStatistics'],
      codeless: true,
      query: CHARGE_POINT_QUERY,
      handler: chargePoints,
      cache: snapshotAndCatalog(ctx),
    }),
    defineQueryRoute({ method: 'GET', path: '/v1/country_statistics', answers: { status: 200, response: (s) => s.CountryStatisticsDocument }, groups: ['ReadCountryStatistics'], codeless: true, query: COUNTRY_QUERY, handler: countryStatistics, cache: snapshotAndCatalog(ctx) }),
  ];
}
