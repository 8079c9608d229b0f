/**
 * The refinements of D26 as station search, the map tiles and the clusters take them: parsed from a
 * query, in canonical form (D191) and compiled against the station index.
 */
import { bool, csv, float, type Query } from './jsonapi/query.js';
import type { CompanyRegistry } from '../domain/companies/registry.js';
import type { Refinement, StationIndex } from '../domain/stations/index.js';

/** The bounding box parameters of D25 (south, north, west, east). */
export const BBOX = ['filter[latitude.gte]', 'filter[latitude.lte]', 'filter[longitude.gte]', 'filter[longitude.lte]'] as const;
/** Station pages (D15): default and largest size. */
export const PAGE_DEFAULT = 400;
export const PAGE_MAX = 1000;

/**
 * Operators (by dictionary index) where at least one of the EMPs is usable (D26, D66); cached per
 * EMP list until the next company write.
 */
export class EmpOperatorMasks {
  private generation = -1;
  private readonly cache = new Map<string, Uint8Array>();

  constructor(
    private readonly index: StationIndex,
    private readonly companies: CompanyRegistry,
  ) {}

  mask(emps: readonly string[]): Uint8Array {
    if (this.generation !== this.companies.generation) {
      this.cache.clear();
      this.generation = this.companies.generation;
    }
    const key = [...new Set(emps)].sort().join(',');
    let m = this.cache.get(key);
    if (m === undefined) {
      const ops = this.index.c.dict.operators;
      const list = key.split(',');
      m = new Uint8Array(ops.length);
      for (let o = 0; o < ops.length; o++) {
        for (const e of list) {
          if (this.companies.usability(e, ops[o]) !== 'none') {
            m[o] = 1;
            break;
          }
        }
      }
      // Bounded (D101): 256 lists of at most 2 KiB each (about 2 KiB + one byte per operator each).
      if (key.length <= 2048) {
        if (this.cache.size >= 256) this.cache.delete(this.cache.keys().next().value as string);
        this.cache.set(key, m);
      }
    }
    return m;
  }
}


/** The compiled form of parsed refinements (the EMP list through the cached operator masks). */
export function compileRefinement(index: StationIndex, masks: EmpOperatorMasks, q: RefinementQuery): Refinement {
  return index.compile({
    plugs: q.plugs,
    powerGte: q.powerGte,
    powerLte: q.powerLte,
    operatorIds: q.operatorIds,
    evseOperators: q.evseOperators,
    supportedEmpOperators: q.supportedEmps === undefined ? undefined : masks.mask(q.supportedEmps),
    freeCharging: q.freeCharging,
    freeParking: q.freeParking,
    facilities: q.facilities,
    parkingTypes: q.parkingTypes,
    countries: q.countries,
  });
}

/** The refinements of D26 (operator and EVSE operator among them when `operators`). */
export interface RefinementQuery {
  operatorIds?: string[];
  evseOperators?: string[];
  plugs?: string[];
  powerGte?: number;
  powerLte?: number;
  supportedEmps?: string[];
  freeCharging?: boolean;
  freeParking?: boolean;
  facilities?: string[];
  parkingTypes?: string[];
  countries?: string[];
}

/** Parses the refinements of D26 from a query (400 naming the parameter when malformed). */
export function parseRefinements(q: Query, operators = true): RefinementQuery {
  const out: RefinementQuery = {};
  const set = <K extends keyof RefinementQuery>(k: K, v: RefinementQuery[K] | undefined): void => {
    if (v !== undefined) out[k] = v;
  };
  if (operators) {
    set('operatorIds', csv(q, 'filter[operator.id]'));
    set('evseOperators', csv(q, 'filter[evse_operator]'));
  }
  set('plugs', csv(q, 'filter[charge_points.plug.in]'));
  set('powerGte', float(q, 'filter[charge_points.power.gte]'));
  set('powerLte', float(q, 'filter[charge_points.power.lte]'));
  set('supportedEmps', csv(q, 'filter[operator.supported_emps.id]'));
  set('freeCharging', bool(q, 'filter[free_charging]'));
  set('freeParking', bool(q, 'filter[free_parking]'));
  set('facilities', csv(q, 'filter[facilities]'));
  set('parkingTypes', csv(q, 'filter[parking_type]'));
  set('countries', csv(q, 'filter[country]'));
  return out;
}

/**
 * One string per set of equal refinements (D191): lists deduplicated and sorted, folded to the case
 * D26 matches them in; '' for none.
 */
export function refinementKey(r: RefinementQuery): string {
  const list = (v: readonly string[] | undefined, fold: (s: string) => string): string | undefined => (v === undefined ? undefined : [...new Set(v.map(fold))].sort().join(','));
  const same = (s: string): string => s;
  const lower = (s: string): string => s.toLowerCase();
  const parts: Array<[string, string | undefined]> = [
    ['o', list(r.operatorIds, lower)],
    ['e', list(r.evseOperators, lower)],
    ['p', list(r.plugs, lower)],
    ['g', r.powerGte === undefined ? undefined : String(r.powerGte)],
    ['l', r.powerLte === undefined ? undefined : String(r.powerLte)],
    ['m', list(r.supportedEmps, same)],
    ['c', r.freeCharging === undefined ? undefined : String(r.freeCharging)],
    ['k', r.freeParking === undefined ? undefined : String(r.freeParking)],
    ['f', list(r.facilities, same)],
    ['t', list(r.parkingTypes, same)],
    ['n', list(r.countries, (s) => s.toUpperCase())],
  ];
  const given = parts.filter((p) => p[1] !== undefined);
  return given.length === 0 ? '' : JSON.stringify(given);
}
