/**
 * The station search's query (D25, D26, D15, D16, D29): one declaration states the parameters in
 * the API description and parses them; every failure is a 400 with `source.parameter`.
 */
import type { PrimarySearch } from '../../domain/stations/index.js';
import { badParameter } from '../jsonapi/errors.js';
import { BBOX, OPERATOR_FIELDS, PAGE_DEFAULT, PAGE_MAX, STATION_FIELDS, type RefinementQuery } from '../refinements.js';
import { Q, defineQuery, given, type Page, type QueryOf, type QuerySchema } from '../jsonapi/query.js';

export const RADIUS = ['filter[latitude]', 'filter[longitude]', 'filter[radius]'] as const;
export const MAX_IDS = 50;

export interface SearchQuery extends RefinementQuery {
  primary: PrimarySearch;
  companyFields?: Set<string>;
  page: Page;
}

const lat = (name: string, description: string) => Q.number(name, description, -90, 90);
const lon = (name: string, description: string) => Q.number(name, description, -180, 180);

/** The search type's parameters: values first (malformed → 400 naming the parameter), then the rules between them. */
const SEARCH_FIELDS = {
  latGte: lat(BBOX[0], 'Box: lower latitude'),
  latLte: lat(BBOX[1], 'Box: upper latitude'),
  lonGte: lon(BBOX[2], 'Box: lower longitude'),
  lonLte: lon(BBOX[3], 'Box: upper longitude'),
  latitude: lat(RADIUS[0], 'Radius search centre'),
  longitude: lon(RADIUS[1], 'Radius search centre'),
  radius: Q.integer(RADIUS[2], 'Radius in metres', 1),
  id: Q.csv('filter[id]', `Station ids, at most ${MAX_IDS}`, (ids) => {
    if (ids.length > MAX_IDS) throw badParameter('filter[id]', `filter[id] allows at most ${MAX_IDS} ids`);
  }),
  export: Q.bool('export', 'Every station, page by page (the export search type, D26)'),
  ...OPERATOR_FIELDS,
};


type Search = Pick<SearchQuery, 'primary' | 'operatorIds' | 'evseOperators'>;

/** The search type (D25, D26): exactly one of bbox, radius, id, export, or the operator searches. */
function searchOf(v: QueryOf<typeof SEARCH_FIELDS>): Search {
  const box = [v.latGte, v.latLte, v.lonGte, v.lonLte];
  const bboxGiven = box.filter((x) => x !== undefined).length;
  if (bboxGiven > 0 && bboxGiven < 4) {
    const missing = BBOX[box.indexOf(undefined)];
    throw badParameter(missing, `bounding box search needs all of ${BBOX.join(', ')}; ${missing} is missing`);
  }
  const centre = [v.latitude, v.longitude, v.radius];
  const radiusGiven = centre.filter((x) => x !== undefined).length;
  if (radiusGiven > 0 && radiusGiven < 3) {
    const missing = RADIUS[centre.indexOf(undefined)];
    throw badParameter(missing, `radius search needs all of ${RADIUS.join(', ')}; ${missing} is missing`);
  }
  const types: Array<{ p: PrimarySearch; param: string }> = [];
  if (bboxGiven === 4) {
    if (v.latGte! > v.latLte!) throw badParameter(BBOX[0], 'filter[latitude.gte] must not be greater than filter[latitude.lte]');
    if (v.lonGte! > v.lonLte!) throw badParameter(BBOX[2], 'filter[longitude.gte] must not be greater than filter[longitude.lte]');
    types.push({ p: { kind: 'bbox', latGte: v.latGte!, latLte: v.latLte!, lonGte: v.lonGte!, lonLte: v.lonLte! }, param: BBOX[0] });
  }
  if (radiusGiven === 3) types.push({ p: { kind: 'radius', latitude: v.latitude!, longitude: v.longitude!, radius: v.radius! }, param: RADIUS[0] });
  if (v.id !== undefined) types.push({ p: { kind: 'id', ids: v.id }, param: 'filter[id]' });
  if (v.export === true) types.push({ p: { kind: 'export' }, param: 'export' });
  if (types.length > 1) {
    throw badParameter(types[1].param, `only one search type is allowed (bbox, radius, id or export); got ${types.map((t) => t.p.kind).join(' and ')}`);
  }
  const { operatorIds, evseOperators } = v;
  if (types.length === 1) {
    const primary = types[0].p;
    if (primary.kind === 'id' || primary.kind === 'export') {
      if (operatorIds !== undefined) throw badParameter('filter[operator.id]', `filter[operator.id] cannot be combined with the ${primary.kind} search`);
      if (evseOperators !== undefined) throw badParameter('filter[evse_operator]', `filter[evse_operator] cannot be combined with the ${primary.kind} search`);
      return { primary };
    }
    return { primary, ...given({ operatorIds, evseOperators }) };
  }
  if (operatorIds !== undefined && evseOperators !== undefined) {
    throw badParameter('filter[evse_operator]', 'filter[operator.id] and filter[evse_operator] together need a bbox or radius search');
  }
  if (operatorIds !== undefined) return { primary: { kind: 'operator', operatorIds } };
  if (evseOperators !== undefined) return { primary: { kind: 'evse_operator', evseOperators } };
  throw badParameter('filter', 'a search type is required: bbox, radius, filter[id], export=true, filter[operator.id] or filter[evse_operator]');
}

/** `GET /v1/charging_stations`'s query: the search type, then the page, the refinements and the company fields. */
const SEARCH_QUERY = defineQuery(
  {
    search: Q.group(SEARCH_FIELDS, searchOf),
    page: Q.page(PAGE_DEFAULT, PAGE_MAX, `default ${PAGE_DEFAULT}, at most ${PAGE_MAX}`),
    refinements: Q.group(STATION_FIELDS, given),
    companyFields: Q.fields('company', ['name', 'supported_emps'], 'Company fields: name, supported_emps'),
  },
  // As the description lists them: the search types, the refinements, the fields and the page.
  ['filter[id]', ...RADIUS, ...BBOX, 'export', 'filter[operator.id]', 'filter[evse_operator]', ...Object.values(STATION_FIELDS).map((f) => f.params[0].name), 'fields[company]'],
);

/** The station search's query contract: its parameters, and the search as the index runs it. */
export const SEARCH: QuerySchema<SearchQuery> = {
  params: SEARCH_QUERY.params,
  parse: (q) => {
    const v = SEARCH_QUERY.parse(q);
    const out: SearchQuery = { primary: v.search.primary, page: v.page };
    if (v.search.operatorIds !== undefined) out.operatorIds = v.search.operatorIds;
    if (v.search.evseOperators !== undefined) out.evseOperators = v.search.evseOperators;
    Object.assign(out, v.refinements);
    if (v.companyFields !== undefined) out.companyFields = v.companyFields;
    return out;
  },
};
