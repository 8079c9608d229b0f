/**
 * The refinements of D26 as station search, the map tiles and the clusters take them: parsed from a
 * query, in canonical form (D191) and compiled against the station index.
 */
import { Q, given, type QueryField } from './jsonapi/query.js';
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

/** The operator refinements (D26): station search takes them as search types of their own too. */
export const OPERATOR_FIELDS = {
  operatorIds: Q.csv('filter[operator.id]', 'Operators'),
  evseOperators: Q.csv('filter[evse_operator]', 'EVSE operators (eMI3)'),
};

/** The other refinements of D26, in the order they are parsed. */
export const STATION_FIELDS = {
  plugs: Q.csv('filter[charge_points.plug.in]', 'Plugs'),
  powerGte: Q.number('filter[charge_points.power.gte]', 'Minimum power (kW)'),
  powerLte: Q.number('filter[charge_points.power.lte]', 'Maximum power (kW)'),
  supportedEmps: Q.csv('filter[operator.supported_emps.id]', 'EMPs supported at the station'),
  freeCharging: Q.bool('filter[free_charging]', 'Only free charging'),
  freeParking: Q.bool('filter[free_parking]', 'Only free parking'),
  facilities: Q.csv('filter[facilities]', 'Facilities nearby'),
  parkingTypes: Q.csv('filter[parking_type]', 'Parking types'),
  countries: Q.csv('filter[country]', 'Countries'),
};

/** The refinements of D26 as the map routes take them (400 naming the parameter when malformed). */
export const REFINEMENTS: QueryField<RefinementQuery> = Q.group({ ...OPERATOR_FIELDS, ...STATION_FIELDS }, given);

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
