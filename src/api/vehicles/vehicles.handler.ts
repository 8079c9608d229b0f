/**
 * Vehicles and brands (group ReadVehicles):
 *   GET /v1/vehicles        deprecated, all cars by id, no parameters (D62)
 *   GET /v2/vehicle_brands  all brands by name, `meta.overall_count` (D62)
 *   GET /v2/vehicles        filters, fuzzy `q`, paging, `fields[car]`, included brands (D63)
 * The data is immutable for the life of the process: the v1 and brand documents are serialized
 * once, and each v2 car once per variant (with and without the ReadVehiclesFull attributes), so a
 * page is a join of cached fragments unless `fields[car]` asks for a sparse fieldset.
 */
import { linksMember, pageLinks } from '../jsonapi/links.js';
import { snapshotAndCatalog } from '../cache.js';
import { GROUP_BIT } from '../../auth/groups.js';
import { VehicleSearch } from '../../domain/vehicles/search.js';
import type { Vehicle } from '../../domain/vehicles/vehicle.js';
import type { AppContext } from '../context.js';
import { sparse } from '../jsonapi/document.js';
import { badParameter } from '../jsonapi/errors.js';
import { Q, defineQuery, type Query, type QueryInput } from '../jsonapi/query.js';
import { defineQueryRoute } from '../contract.js';
import type { ApiRequest, ApiResponse, RouteDef } from '../types.js';
import { V2_CAR_FIELDS, v1Car, v2Car, vehicleBrand } from './vehicles.document.js';

/** D63: page size default and maximum; at most 25 `q` results. */
export const V2_PAGE_SIZE = 100;
export const Q_LIMIT = 25;

/** `q`: the text search as sent; not combined with a filter, not blank. */
const textSearch = (q: Query): string | undefined => {
  const text = q.get('q');
  if (text === undefined) return undefined;
  for (const k of q.keys()) {
    if (k.startsWith('filter[')) throw badParameter('q', `q cannot be combined with ${k}`);
  }
  if (text.trim().length === 0) throw badParameter('q', 'q must not be empty');
  return text;
};

/** The vehicle list's query (18): fieldset, page, the text search, else the filters. */
export const VEHICLE_LIST_QUERY = defineQuery(
  {
    fields: Q.fields('car', V2_CAR_FIELDS, 'Members of a car'),
    page: Q.page(V2_PAGE_SIZE, V2_PAGE_SIZE, `${V2_PAGE_SIZE} per page`),
    text: Q.param('q', { type: 'string', minLength: 1 }, 'Text search over brand, model and variant', textSearch),
    // A text search takes no filter (refused above): they are read only without one.
    ids: Q.csv('filter[id]', 'Only these cars (with their AC power table and DC curve)'),
    brands: Q.csv('filter[manufacturer.id]', 'Only cars of these brands'),
  },
  ['q', 'filter[id]', 'filter[manufacturer.id]', 'fields[car]'],
);

export function vehiclesRoutes(ctx: AppContext): RouteDef[] {
  const reg = ctx.vehicles;
  const search = new VehicleSearch(reg.list);

  const v1Body = JSON.stringify({ data: reg.list.map(v1Car) });
  const brandsBody = JSON.stringify({ data: reg.brands.map(vehicleBrand), meta: { overall_count: reg.brands.length } });

  // Serialized once: each car in both variants, each brand as an included record.
  const basicJson = new Map<string, string>();
  const fullJson = new Map<string, string>();
  for (const v of reg.list) {
    basicJson.set(v.id, JSON.stringify(v2Car(v, false)));
    fullJson.set(v.id, JSON.stringify(v2Car(v, true)));
  }
  const brandJson = new Map<string, string>();
  for (const b of reg.brands) brandJson.set(b.id, JSON.stringify(vehicleBrand(b)));

  const v2 = (req: ApiRequest, { fields: fieldSet, page: pg, text, ids, brands }: QueryInput<typeof VEHICLE_LIST_QUERY>): ApiResponse => {
    const q = req.query;
    const full = (req.groups & GROUP_BIT.ReadVehiclesFull) !== 0;
    let matches: readonly Vehicle[];
    if (text !== undefined) {
      matches = search.search(text, Q_LIMIT);
    } else {
      if (ids === undefined && brands === undefined) {
        matches = reg.list;
      } else {
        const idSet = ids && new Set(ids.map((s) => s.toLowerCase()));
        const brandSet = brands && new Set(brands.map((s) => s.toLowerCase()));
        matches = reg.list.filter((v) => (!idSet || idSet.has(v.id)) && (!brandSet || brandSet.has(v.brand_id)));
      }
    }
    const pageItems = matches.slice(pg.offset, pg.offset + pg.size);
    const withBrands = fieldSet === undefined || fieldSet.has('manufacturer');
    const parts: string[] = new Array<string>(pageItems.length);
    const brandIds: string[] = [];
    const seen = new Set<string>();
    for (let i = 0; i < pageItems.length; i++) {
      const v = pageItems[i];
      parts[i] =
        fieldSet === undefined
          ? (full ? fullJson : basicJson).get(v.id)!
          : JSON.stringify(sparse(v2Car(v, full), fieldSet));
      if (withBrands && !seen.has(v.brand_id) && brandJson.has(v.brand_id)) {
        seen.add(v.brand_id);
        brandIds.push(v.brand_id);
      }
    }
    let body = '{"data":[' + parts.join(',') + ']';
    body += ',"included":[' + brandIds.map((id) => brandJson.get(id)!).join(',') + ']';
    body += ',"meta":{"overall_count":' + matches.length + '}';
    body += linksMember(pageLinks(req.path, q, pg, pg.offset + pg.size < matches.length, matches.length)) + '}';
    return { status: 200, body };
  };

  const cache = snapshotAndCatalog(ctx);
  return [
    { method: 'GET', path: '/v1/vehicles', answers: { status: 200, response: (s) => s.CarV1ListDocument }, groups: ['ReadVehicles'], body: false, handler: () => ({ status: 200, body: v1Body }), cache },
    {
      method: 'GET',
      path: '/v2/vehicle_brands', answers: { status: 200, response: (s) => s.BrandListDocument },
      groups: ['ReadVehicles'],
      body: false,
      handler: () => ({ status: 200, body: brandsBody }),
      cache,
    },
    defineQueryRoute({ method: 'GET', path: '/v2/vehicles', answers: { status: 200, response: (s) => s.CarV2ListDocument }, groups: ['ReadVehicles'], query: VEHICLE_LIST_QUERY, handler: v2, cache }),
  ];
}
