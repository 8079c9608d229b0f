/** Query parsing of the station search (D25, D26, D15, D16, D29); every failure is a 400 with `source.parameter`. */
import type { PrimarySearch } from '../../domain/stations/index.js';
import { badParameter } from '../jsonapi/errors.js';
import { BBOX, PAGE_DEFAULT, PAGE_MAX, parseRefinements, type RefinementQuery } from '../refinements.js';
import { bool, csv, fields, float, int, page, type Page, type Query } from '../jsonapi/query.js';

export const RADIUS = ['filter[latitude]', 'filter[longitude]', 'filter[radius]'] as const;
export const MAX_IDS = 50;

export interface SearchQuery extends RefinementQuery {
  primary: PrimarySearch;
  companyFields?: Set<string>;
  page: Page;
}

const lat = (q: Query, name: string): number | undefined => float(q, name, -90, 90);
const lon = (q: Query, name: string): number | undefined => float(q, name, -180, 180);

export function parseSearch(q: Query): SearchQuery {
  // Values first (malformed → 400 naming the parameter), then the search-type rules.
  const latGte = lat(q, BBOX[0]);
  const latLte = lat(q, BBOX[1]);
  const lonGte = lon(q, BBOX[2]);
  const lonLte = lon(q, BBOX[3]);
  const cLat = lat(q, RADIUS[0]);
  const cLon = lon(q, RADIUS[1]);
  const radius = int(q, RADIUS[2], 1);
  const ids = csv(q, 'filter[id]');
  if (ids !== undefined && ids.length > MAX_IDS) throw badParameter('filter[id]', `filter[id] allows at most ${MAX_IDS} ids`);
  const exp = bool(q, 'export') === true;
  const operatorIds = csv(q, 'filter[operator.id]');
  const evseOperators = csv(q, 'filter[evse_operator]');

  const bboxGiven = [latGte, latLte, lonGte, lonLte].filter((v) => v !== undefined).length;
  if (bboxGiven > 0 && bboxGiven < 4) {
    const missing = BBOX.find((n) => !q.has(n))!;
    throw badParameter(missing, `bounding box search needs all of ${BBOX.join(', ')}; ${missing} is missing`);
  }
  const radiusGiven = [cLat, cLon, radius].filter((v) => v !== undefined).length;
  if (radiusGiven > 0 && radiusGiven < 3) {
    const missing = RADIUS.find((n) => !q.has(n))!;
    throw badParameter(missing, `radius search needs all of ${RADIUS.join(', ')}; ${missing} is missing`);
  }
  const types: Array<{ p: PrimarySearch; param: string }> = [];
  if (bboxGiven === 4) {
    if (latGte! > latLte!) throw badParameter(BBOX[0], 'filter[latitude.gte] must not be greater than filter[latitude.lte]');
    if (lonGte! > lonLte!) throw badParameter(BBOX[2], 'filter[longitude.gte] must not be greater than filter[longitude.lte]');
    types.push({ p: { kind: 'bbox', latGte: latGte!, latLte: latLte!, lonGte: lonGte!, lonLte: lonLte! }, param: BBOX[0] });
  }
  if (radiusGiven === 3) {
    types.push({ p: { kind: 'radius', latitude: cLat!, longitude: cLon!, radius: radius! }, param: RADIUS[0] });
  }
  if (ids !== undefined) types.push({ p: { kind: 'id', ids }, param: 'filter[id]' });
  if (exp) types.push({ p: { kind: 'export' }, param: 'export' });
  if (types.length > 1) {
    throw badParameter(types[1].param, `only one search type is allowed (bbox, radius, id or export); got ${types.map((t) => t.p.kind).join(' and ')}`);
  }
  let primary: PrimarySearch;
  let opRefine: string[] | undefined;
  let evseRefine: string[] | undefined;
  if (types.length === 1) {
    primary = types[0].p;
    if (primary.kind === 'id' || primary.kind === 'export') {
      if (operatorIds !== undefined) throw badParameter('filter[operator.id]', `filter[operator.id] cannot be combined with the ${primary.kind} search`);
      if (evseOperators !== undefined) throw badParameter('filter[evse_operator]', `filter[evse_operator] cannot be combined with the ${primary.kind} search`);
    } else {
      opRefine = operatorIds;
      evseRefine = evseOperators;
    }
  } else if (operatorIds !== undefined && evseOperators !== undefined) {
    throw badParameter('filter[evse_operator]', 'filter[operator.id] and filter[evse_operator] together need a bbox or radius search');
  } else if (operatorIds !== undefined) {
    primary = { kind: 'operator', operatorIds };
  } else if (evseOperators !== undefined) {
    primary = { kind: 'evse_operator', evseOperators };
  } else {
    throw badParameter('filter', 'a search type is required: bbox, radius, filter[id], export=true, filter[operator.id] or filter[evse_operator]');
  }

  const out: SearchQuery = { primary, page: page(q, PAGE_DEFAULT, PAGE_MAX) };
  if (opRefine !== undefined) out.operatorIds = opRefine;
  if (evseRefine !== undefined) out.evseOperators = evseRefine;
  const set = <K extends keyof SearchQuery>(k: K, v: SearchQuery[K] | undefined): void => {
    if (v !== undefined) out[k] = v;
  };
  Object.assign(out, parseRefinements(q, false));
  set('companyFields', fields(q, 'company', ['name', 'supported_emps']));
  return out;
}

