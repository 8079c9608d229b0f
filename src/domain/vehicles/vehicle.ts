/**
 * Vehicles of the open EV data set (snapshot table `vehicles`, D62/D63) as typed, immutable records.
 * Pure: takes decoded snapshot rows, returns records; no I/O.
 *
 * A `Vehicle` carries the pricing fields of D62 under the names the pricing engine uses
 * (`ac_phases`, `ac_map`, `dc_ports`, `dc_max_power`, `dc_curve`, `brand_id`, `usable_battery_size`,
 * `ac_max_power`), so a record can be passed wherever pricing expects its vehicle shape
 * (`VehiclePricing`), plus the descriptive fields the vehicle endpoints serve. Records, their lists
 * and maps are frozen: readers must not modify them (copy before sorting).
 */

export interface DcCurvePoint {
  readonly percentage: number;
  readonly power: number;
}

export interface Vehicle {
  readonly id: string;
  readonly brand_id: string;
  /** Brand name as the data set writes it. */
  readonly brand: string;
  /** `bev` or `phev` (D63, D292). */
  readonly ev_type: EvType;
  /** `car` or `motorbike` in the data set (all are served as type `car`). */
  readonly vehicle_type: string;
  readonly model: string;
  readonly variant: string;
  readonly release_year: number | null;
  /** Net kWh. */
  readonly usable_battery_size: number;
  /** Usable AC phases: 1, 2 or 3. */
  readonly ac_phases: number;
  readonly ac_ports: readonly string[];
  /** kW; 0 when the car cannot charge AC. */
  readonly ac_max_power: number;
  /** Station kW (key as in the data set, e.g. "2.3", "11") → car kW; null when unknown. */
  readonly ac_map: Record<string, number> | null;
  /** DC plugs, e.g. `ccs`, `chademo`; empty without DC. */
  readonly dc_ports: string[];
  /** kW; null without DC. */
  readonly dc_max_power: number | null;
  /** Sorted by percentage; null without DC or when the data set has no curve. */
  readonly dc_curve: DcCurvePoint[] | null;
  /** The data set marks the curve as a generic default rather than a measured one. */
  readonly dc_default_charging_curve: boolean;
  /** kWh per 100 km, null when unknown. */
  readonly average_consumption: number | null;
  /** Display name for `/v1/vehicles`: model, variant and release year, e.g. `Model 3 Long Range (2021)`. */
  readonly name: string;
}

export interface Brand {
  readonly id: string;
  readonly name: string;
}

/** The snapshot's vehicle row: `data` is the raw record of the data set. */
export interface VehicleSource {
  id: string;
  brand_id: string;
  data: Record<string, unknown>;
}

export class VehicleDataError extends Error {}

/** A vehicle's drive (D63): battery electric or plug-in hybrid. */
export type EvType = 'bev' | 'phev';

/** The row's `type` (D292): `bev` or `phev`, absent or empty `bev`; anything else is a data error. */
function evType(id: string, t: unknown): EvType {
  if (t === undefined || t === null || t === '' || t === 'bev') return 'bev';
  if (t === 'phev') return 'phev';
  throw new VehicleDataError(`vehicle ${id}: type ${JSON.stringify(t)} is neither bev nor phev`);
}

const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const strings = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string' && x.length > 0) : [];

/** Collapses runs of white space and trims (the data set has e.g. a trailing space in `ë-C4 `). */
const clean = (s: string): string => s.replace(/\s+/g, ' ').trim();

export function displayName(model: string, variant: string, releaseYear: number | null): string {
  let n = model;
  if (variant.length > 0) n += ' ' + variant;
  if (releaseYear !== null) n += ` (${releaseYear})`;
  return clean(n);
}

/** Turns one snapshot row into a typed record; throws VehicleDataError on a record it cannot use. */
export function vehicleFromRow(row: VehicleSource, brandName?: string): Vehicle {
  const d = row.data;
  const battery = num(d.usable_battery_size);
  if (battery === null || battery <= 0) throw new VehicleDataError(`vehicle ${row.id}: usable_battery_size missing`);
  const ac = isObj(d.ac_charger) ? d.ac_charger : null;
  const dc = isObj(d.dc_charger) ? d.dc_charger : null;
  let acMap: Record<string, number> | null = null;
  if (ac && isObj(ac.power_per_charging_point)) {
    acMap = {};
    for (const [k, v] of Object.entries(ac.power_per_charging_point)) {
      const p = num(v);
      if (p !== null && Number.isFinite(Number(k))) acMap[k] = p;
    }
    Object.freeze(acMap);
  }
  const phases = num(ac?.usable_phases);
  const dcMax = dc ? num(dc.max_power) : null;
  let curve: DcCurvePoint[] | null = null;
  if (dc && Array.isArray(dc.charging_curve)) {
    curve = [];
    for (const p of dc.charging_curve) {
      if (!isObj(p)) continue;
      const pct = num(p.percentage);
      const kw = num(p.power);
      if (pct !== null && kw !== null) curve.push(Object.freeze({ percentage: pct, power: kw }));
    }
    curve.sort((a, b) => a.percentage - b.percentage);
    Object.freeze(curve);
  }
  const model = clean(str(d.model));
  const variant = clean(str(d.variant));
  const year = num(d.release_year);
  const releaseYear = year !== null && Number.isInteger(year) ? year : null;
  const consumption = isObj(d.energy_consumption) ? num(d.energy_consumption.average_consumption) : null;
  return Object.freeze({
    id: row.id.toLowerCase(),
    brand_id: row.brand_id.toLowerCase(),
    brand: clean(str(d.brand)) || brandName || '',
    ev_type: evType(row.id, d.type),
    vehicle_type: str(d.vehicle_type) || 'car',
    model,
    variant,
    release_year: releaseYear,
    usable_battery_size: battery,
    ac_phases: phases !== null && phases >= 1 && phases <= 3 ? Math.round(phases) : 1,
    ac_ports: Object.freeze(strings(ac?.ports)),
    ac_max_power: num(ac?.max_power) ?? 0,
    ac_map: acMap,
    dc_ports: Object.freeze(dc ? strings(dc.ports) : []) as string[],
    dc_max_power: dcMax,
    dc_curve: curve,
    dc_default_charging_curve: dc !== null && dc.is_default_charging_curve === true,
    average_consumption: consumption,
    name: displayName(model, variant, releaseYear),
  });
}

/** Compares two ids as lower-case strings ascending (D18 "by id"). */
const byId = (a: { id: string }, b: { id: string }): number => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * All vehicles and brands in memory, immutable: the list in id order (D18), lookups by id and by
 * brand, brands in name order. Built once at start from the snapshot.
 */
export class VehicleRegistry {
  /** Vehicles by id ascending. */
  readonly list: readonly Vehicle[];
  /** Brands by name (case-insensitive), then id (D18). */
  readonly brands: readonly Brand[];
  private readonly byIdMap: ReadonlyMap<string, Vehicle>;
  private readonly brandById: ReadonlyMap<string, Brand>;

  constructor(rows: readonly VehicleSource[], brands: readonly Brand[]) {
    const bMap = new Map<string, Brand>();
    for (const b of brands) bMap.set(b.id.toLowerCase(), Object.freeze({ id: b.id.toLowerCase(), name: b.name }));
    const list = rows.map((r) => vehicleFromRow(r, bMap.get(r.brand_id.toLowerCase())?.name)).sort(byId);
    this.list = Object.freeze(list);
    this.byIdMap = new Map(list.map((v) => [v.id, v]));
    this.brandById = bMap;
    this.brands = Object.freeze(
      [...bMap.values()].sort((a, b) => {
        const x = a.name.toLowerCase();
        const y = b.name.toLowerCase();
        return x < y ? -1 : x > y ? 1 : byId(a, b);
      }),
    );
  }

  /** The vehicle with this id (case-insensitive), or undefined. */
  get(id: string): Vehicle | undefined {
    return this.byIdMap.get(id) ?? this.byIdMap.get(id.toLowerCase());
  }

  has(id: string): boolean {
    return this.get(id) !== undefined;
  }

  brand(id: string): Brand | undefined {
    return this.brandById.get(id) ?? this.brandById.get(id.toLowerCase());
  }

  get size(): number {
    return this.list.length;
  }
}
