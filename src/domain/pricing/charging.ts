/**
 * Charging model (D74–D79): what one charge at one charge point looks like, computed once per
 * charge point per request and then shared by every tariff evaluation.
 *
 * A session is a piecewise-constant power profile over elapsed minutes [0, duration): step i runs
 * until `tEnd[i]` at `power[i]` kW, and `eEnd[i]` is the cumulative energy at its end.
 */
import type { ChargePointInput, EnergyType, VehiclePricing } from './model.js';

export interface ChargeSession {
  /** kWh delivered, including the 10 % charging losses for Set A. */
  energy: number;
  /** Minutes. */
  duration: number;
  steps: number;
  tEnd: Float64Array;
  eEnd: Float64Array;
  power: Float64Array;
  /** The power the car draws, for `use_consumed_charging_power` (D68). */
  consumedPower: number;
}

/** Charging losses of D75. */
export const CHARGING_LOSS_FACTOR = 1.1;
/** Power cap for one-phase charging without unbalanced load (D76). */
export const UNBALANCED_LOAD_CAP_KW = 4.5;
/** Lowest DC step power (D77). */
export const MIN_DC_POWER_KW = 0.1;

const DC_PLUGS = new Set(['ccs', 'ccs1', 'chademo', 'tesla_ccs', 'tesla_suc', 'nacs']);
const AC_PLUGS = new Set(['type1', 'type2', 'type3', 'schuko']);

/** D68: energy type of a native plug value, case-insensitive; null for plugs outside D14. */
export function energyTypeOfPlug(plug: string): EnergyType | null {
  const p = plug.toLowerCase();
  if (DC_PLUGS.has(p)) return 'dc';
  if (AC_PLUGS.has(p)) return 'ac';
  return null;
}

/** Stored energy type, else the plug's (D68), else the D38 fallback: DC above 43 kW. */
export function resolveEnergyType(cp: ChargePointInput): EnergyType {
  if (cp.energy_type) return cp.energy_type;
  return energyTypeOfPlug(cp.plug) ?? (cp.power > 43 ? 'dc' : 'ac');
}

/**
 * D78: DC needs the plug among the vehicle's DC ports and a DC maximum; AC needs an AC maximum
 * above 0. `checkPort` is false for plugs that could not be mapped (D38: no port check).
 */
export function isChargePointUsable(
  vehicle: VehiclePricing,
  energyType: EnergyType,
  plug: string,
  checkPort = true,
): boolean {
  if (energyType === 'ac') return vehicle.ac_max_power > 0;
  if (vehicle.dc_max_power == null || !(vehicle.dc_max_power > 0)) return false;
  if (!checkPort) return true;
  const p = plug.toLowerCase();
  for (const port of vehicle.dc_ports) if (port.toLowerCase() === p) return true;
  return false;
}

function singleStep(energy: number, duration: number, power: number): ChargeSession {
  return {
    energy,
    duration,
    steps: 1,
    tEnd: Float64Array.of(duration),
    eEnd: Float64Array.of(energy),
    power: Float64Array.of(power),
    consumedPower: power,
  };
}

/** D74, Set B: the given energy over the given duration at constant power. */
export function sessionForEnergy(energy: number, duration: number): ChargeSession {
  return singleStep(energy, duration, energy / (duration / 60));
}

/**
 * A session from explicit steps of `minutes` and `kwh` each, e.g. the charging periods of a
 * recorded charge; the consumed power is the average power.
 */
export function sessionFromSteps(steps: readonly { minutes: number; kwh: number }[]): ChargeSession {
  const n = steps.length;
  const tEnd = new Float64Array(n);
  const eEnd = new Float64Array(n);
  const power = new Float64Array(n);
  let t = 0;
  let e = 0;
  for (let i = 0; i < n; i++) {
    t += steps[i].minutes;
    e += steps[i].kwh;
    tEnd[i] = t;
    eEnd[i] = e;
    power[i] = steps[i].kwh / (steps[i].minutes / 60);
  }
  if (n === 1) return singleStep(e, t, power[0]);
  return { energy: e, duration: t, steps: n, tEnd, eEnd, power, consumedPower: e / (t / 60) };
}

/** D75: E = usable × (e − s)/100 × 1.1, computed directly. */
export function energyForBatteryRange(vehicle: VehiclePricing, range: readonly [number, number]): number {
  return ((vehicle.usable_battery_size * (range[1] - range[0])) / 100) * CHARGING_LOSS_FACTOR;
}

/** D76: the constant power p a vehicle draws at an AC charge point of power P. */
export function acPower(vehicle: VehiclePricing, stationPower: number, carAcPhases: number, allowUnbalancedLoad: boolean): number {
  let p = NaN;
  let bestKey = -Infinity;
  const map = vehicle.ac_map;
  if (map) {
    for (const key in map) {
      const k = Number(key);
      if (k <= stationPower + 1e-9 && k > bestKey) {
        bestKey = k;
        p = map[key];
      }
    }
  }
  if (Number.isNaN(p)) p = Math.min(stationPower, vehicle.ac_max_power);
  p = Math.min(p, stationPower);
  if ((carAcPhases === 1 || vehicle.ac_phases === 1) && !allowUnbalancedLoad) p = Math.min(p, UNBALANCED_LOAD_CAP_KW);
  return p;
}

/** D77: the vehicle's DC curve, or the default one, as parallel arrays sorted by percentage. */
function dcCurve(vehicle: VehiclePricing): { pct: number[]; kw: number[] } {
  const dcMax = vehicle.dc_max_power ?? 0;
  if (vehicle.dc_curve && vehicle.dc_curve.length > 0) {
    const pts = vehicle.dc_curve.slice().sort((a, b) => a.percentage - b.percentage);
    return { pct: pts.map((p) => p.percentage), kw: pts.map((p) => p.power) };
  }
  const end = vehicle.ac_max_power > 0 ? vehicle.ac_max_power : 0.1 * dcMax;
  return { pct: [0, 75, 100], kw: [0.95 * dcMax, dcMax, end] };
}

/** Linear interpolation between curve points, flat outside them. */
function curveAt(curve: { pct: number[]; kw: number[] }, x: number): number {
  const { pct, kw } = curve;
  if (x <= pct[0]) return kw[0];
  const last = pct.length - 1;
  if (x >= pct[last]) return kw[last];
  let i = 1;
  while (pct[i] < x) i++;
  const x0 = pct[i - 1];
  const x1 = pct[i];
  if (x1 === x0) return kw[i];
  return kw[i - 1] + ((x - x0) * (kw[i] - kw[i - 1])) / (x1 - x0);
}

export interface VehicleSessionOptions {
  carAcPhases: number;
  allowUnbalancedLoad: boolean;
}

/**
 * D75–D77, Set A: the session of a vehicle charging `range` percent at a charge point of
 * `stationPower` kW. The caller checks usability (D78) first.
 */
export function sessionForVehicle(
  vehicle: VehiclePricing,
  energyType: EnergyType,
  stationPower: number,
  range: readonly [number, number],
  opts: VehicleSessionOptions,
): ChargeSession {
  const energy = energyForBatteryRange(vehicle, range);
  if (energyType === 'ac') {
    const p = acPower(vehicle, stationPower, opts.carAcPhases, opts.allowUnbalancedLoad);
    return singleStep(energy, (energy / p) * 60, p);
  }
  const curve = dcCurve(vehicle);
  const cap = Math.min(stationPower, vehicle.dc_max_power ?? 0);
  const [s, e] = range;
  const bounds: number[] = [s];
  for (let k = Math.floor(s) + 1; k < e; k++) bounds.push(k);
  bounds.push(e);
  const n = bounds.length - 1;
  const tEnd = new Float64Array(n);
  const eEnd = new Float64Array(n);
  const power = new Float64Array(n);
  let t = 0;
  let cum = 0;
  for (let i = 0; i < n; i++) {
    const a = bounds[i];
    const b = bounds[i + 1];
    const kw = Math.max(MIN_DC_POWER_KW, Math.min(cap, curveAt(curve, (a + b) / 2)));
    const dE = ((vehicle.usable_battery_size * (b - a)) / 100) * CHARGING_LOSS_FACTOR;
    t += (dE / kw) * 60;
    cum += dE;
    tEnd[i] = t;
    eEnd[i] = cum;
    power[i] = kw;
  }
  if (n > 0) eEnd[n - 1] = energy;
  return { energy, duration: t, steps: n, tEnd, eEnd, power, consumedPower: energy / (t / 60) };
}

/** Cumulative energy after `t` elapsed minutes (Ecum of D79), exact at 0 and at the end. */
export function energyAt(s: ChargeSession, t: number): number {
  if (t <= 0) return 0;
  if (t >= s.duration) return s.energy;
  if (s.steps === 1) return (s.energy * t) / s.duration;
  const tEnd = s.tEnd;
  let lo = 0;
  let hi = s.steps - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (tEnd[mid] > t) hi = mid;
    else lo = mid + 1;
  }
  const t0 = lo === 0 ? 0 : tEnd[lo - 1];
  const e0 = lo === 0 ? 0 : s.eEnd[lo - 1];
  return e0 + (s.power[lo] * (t - t0)) / 60;
}

/** Vehicle record of the open EV data set (shared/data/vehicles/ev-data.json) → pricing fields. */
export interface EvDataVehicle {
  id: string;
  brand_id: string | null;
  usable_battery_size: number;
  ac_charger: {
    usable_phases: number;
    max_power: number;
    power_per_charging_point?: Record<string, number> | null;
  } | null;
  dc_charger: {
    ports: string[];
    max_power: number;
    charging_curve?: { percentage: number; power: number }[] | null;
  } | null;
}

export function vehicleFromEvData(v: EvDataVehicle): VehiclePricing {
  return {
    id: v.id,
    brand_id: v.brand_id,
    usable_battery_size: v.usable_battery_size,
    ac_phases: v.ac_charger?.usable_phases ?? 0,
    ac_max_power: v.ac_charger?.max_power ?? 0,
    ac_map: v.ac_charger?.power_per_charging_point ?? null,
    dc_ports: v.dc_charger?.ports ?? [],
    dc_max_power: v.dc_charger?.max_power ?? null,
    dc_curve: v.dc_charger?.charging_curve ?? null,
  };
}

/**
 * The longest session priced, in minutes: the bound of an explicit `options.duration`. A vehicle
 * session longer than that (or without end: a charge point of 0 kW) makes the charge point
 * unusable (D78) instead of a session whose evaluation would walk a day at a time for ever.
 */
export const MAX_SESSION_MINUTES = 1_000_000;

/** `s` when it ends within MAX_SESSION_MINUTES, else null (unusable, D78). */
export function boundedSession(s: ChargeSession): ChargeSession | null {
  return s.duration <= MAX_SESSION_MINUTES ? s : null;
}

