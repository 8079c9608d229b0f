/**
 * Charge point statistics (D52) and country statistics (D53) computed from the station columns.
 * Pure; the EMP count of D53 needs usability (D66) and comes in as a callback.
 */
import { computedId } from '../ids.js';
import { NO_OPERATOR, type StationColumns } from './columns.js';

export interface ChargePointStatistic {
  id: string;
  country: string;
  operatorId: string;
  power: number;
  plug: string;
  count: number;
}

/** One record per (country, operator, power, plug), count = sum of group counts; by id (D18). */
export function chargePointStatistics(c: StationColumns): ChargePointStatistic[] {
  const acc = new Map<string, ChargePointStatistic>();
  for (let i = 0; i < c.n; i++) {
    const o = c.operator[i];
    if (o === NO_OPERATOR) continue;
    const country = c.dict.countries[c.country[i]];
    const operatorId = c.dict.operators[o];
    for (let k = c.cpStart[i]; k < c.cpStart[i + 1]; k++) {
      const count = c.cpCount[k];
      if (count === 0) continue;
      const plug = c.dict.plugs[c.cpPlug[k]];
      const power = c.cpPower[k];
      const key = `${country}\u0000${operatorId}\u0000${power}\u0000${plug}`;
      const s = acc.get(key);
      if (s) s.count += count;
      else acc.set(key, { id: computedId(country, operatorId, power, plug), country, operatorId, power, plug, count });
    }
  }
  return [...acc.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** EVSE operator ids seen at each operator's stations (operator id → sorted ids). */
export function evseOperatorsByOperator(c: StationColumns): Map<string, string[]> {
  const sets = new Map<number, Set<number>>();
  for (let i = 0; i < c.n; i++) {
    const o = c.operator[i];
    const e = c.evseOperator[i];
    if (o === NO_OPERATOR || e === -1) continue;
    let s = sets.get(o);
    if (!s) sets.set(o, (s = new Set()));
    s.add(e);
  }
  const out = new Map<string, string[]>();
  for (const [o, s] of sets) out.set(c.dict.operators[o], [...s].map((e) => c.dict.evseOperators[e]).sort());
  return out;
}

export const CP_TYPES = ['total', 'ac', 'dc', 'hpc'] as const;
export const TOP_CPOS = 15;
export const ALL_COUNTRIES = 'XX';

/** Connector counts of one country: totals per type and per CPO. */
export interface CountryCounts {
  country: string;
  cpoIds: string[];
  /** total, ac, dc, hpc. */
  totals: [number, number, number, number];
  perCpo: Map<string, [number, number, number, number]>;
}

export interface CountryStatisticsAttributes {
  country: string;
  year: number;
  month: number;
  emp_count: number;
  cpo_count: number;
  charge_points: Array<{ type: string; count: number }>;
  top_cpos_by_charge_points: Array<{ type: string; cpo_counts: Array<{ cpo_id: string; count: number }> }>;
}

/** Counts per country plus `XX` for all countries combined (D53). */
export function countryCounts(c: StationColumns): CountryCounts[] {
  const by = new Map<string, CountryCounts>();
  const get = (country: string): CountryCounts => {
    let x = by.get(country);
    if (!x) by.set(country, (x = { country, cpoIds: [], totals: [0, 0, 0, 0], perCpo: new Map() }));
    return x;
  };
  const all = get(ALL_COUNTRIES);
  for (let i = 0; i < c.n; i++) {
    const country = get(c.dict.countries[c.country[i]]);
    const o = c.operator[i];
    const op = o === NO_OPERATOR ? null : c.dict.operators[o];
    for (let k = c.cpStart[i]; k < c.cpStart[i + 1]; k++) {
      const n = c.cpCount[k];
      if (n === 0) continue;
      const t = c.cpEnergy[k] === 0 ? 1 : c.cpPower[k] >= 150 ? 3 : 2;
      for (const x of [country, all]) {
        x.totals[0] += n;
        x.totals[t] += n;
        if (op !== null) {
          let p = x.perCpo.get(op);
          if (!p) x.perCpo.set(op, (p = [0, 0, 0, 0]));
          p[0] += n;
          p[t] += n;
        }
      }
    }
    if (op !== null) {
      // Operators with a station in the country count even without connectors (cpo_count, D53).
      for (const x of [country, all]) if (!x.perCpo.has(op)) x.perCpo.set(op, [0, 0, 0, 0]);
    }
  }
  for (const x of by.values()) x.cpoIds = [...x.perCpo.keys()].sort();
  return [...by.values()].sort((a, b) => (a.country < b.country ? -1 : 1));
}

export function countryStatisticsAttributes(
  x: CountryCounts,
  year: number,
  month: number,
  empCount: number,
): CountryStatisticsAttributes {
  const top = CP_TYPES.map((type, t) => ({
    type,
    cpo_counts: [...x.perCpo]
      .filter(([, v]) => v[t] > 0)
      .sort((a, b) => b[1][t] - a[1][t] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
      .slice(0, TOP_CPOS)
      .map(([cpo_id, v]) => ({ cpo_id, count: v[t] })),
  }));
  return {
    country: x.country,
    year,
    month,
    emp_count: empCount,
    cpo_count: x.cpoIds.length,
    charge_points: CP_TYPES.map((type, t) => ({ type, count: x.totals[t] })),
    top_cpos_by_charge_points: top,
  };
}

export const countryStatisticsId = (country: string, year: number, month: number): string =>
  computedId(country, year, month);
