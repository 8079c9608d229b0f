/**
 * Seeded OCPI tariffs × charging-model sessions for the agreement of charge prices (converted
 * tariffs, D147) with cdr_cost (D140–D146): `randomCase(seed)` draws what converts without a
 * warning; `randomCase(seed, true)` adds what the converter must cut or report (D227): start_date
 * and end_date around the session's days, duration bounds in seconds that are not whole minutes,
 * kWh bounds that are not whole, ranges empty as given, min_price above max_price, step sizes
 * beyond the stored billing increments.
 */
import type { OcpiComponent, OcpiRestrictions, OcpiTariffInput } from '../../../src/domain/ocpi/cdr-cost.js';
import { sessionForVehicle, type ChargeSession, type VehiclePricing } from '../../../src/domain/pricing/index.js';
import { mulberry32 } from '../../../src/domain/random.js';

const DAYS = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'];

export function randomCase(seed: number, messy = false) {
  const r = mulberry32(seed);
  const pick = <T,>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
  const chance = (p: number) => r() < p;
  const int = (lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));
  const hhmm = (m: number) => `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;
  const component = (type: OcpiComponent['type']): OcpiComponent => ({
    type,
    price: Math.round(r() * 300) / 100,
    ...(chance(0.8) ? { vat: pick([0, 7, 19, 20]) } : {}),
    step_size: type === 'FLAT' ? 1 : type === 'ENERGY' ? pick([0, 1, 100, 500, 1000]) : messy && chance(0.03) ? 1e9 : pick([0, 1, 60, 300, 900]),
  });
  /** Dated elements (messy): their date restrictions as day offsets from the session's date, set once it is drawn. */
  const dated: { rs: OcpiRestrictions; start: number | null; end: number | null }[] = [];
  const elements: OcpiTariffInput['elements'] = [];
  for (let i = int(1, 5); i > 0; i--) {
    const kind = pick(['energy', 'time', 'flat', 'mixed'] as const);
    const types: OcpiComponent['type'][] = kind === 'energy' ? ['ENERGY'] : kind === 'time' ? ['TIME'] : kind === 'flat' ? ['FLAT'] : ['ENERGY', 'TIME', 'FLAT'].filter(() => chance(0.6)) as OcpiComponent['type'][];
    if (types.length === 0) types.push('ENERGY');
    const rs: OcpiRestrictions = {};
    if (i > 1 || chance(0.3)) {
      if (chance(0.4)) {
        rs.start_time = hhmm(15 * int(0, 95));
        rs.end_time = hhmm(15 * int(0, 95));
      }
      if (chance(0.25)) rs.day_of_week = DAYS.filter(() => chance(0.5));
      if (kind === 'energy' && chance(0.4)) {
        if (chance(0.6)) rs.min_kwh = messy && chance(0.3) ? int(0, 400) / 10 : int(0, 40);
        if (chance(0.6)) rs.max_kwh = messy && chance(0.3) ? int(1, 400) / 10 : int(1, 80);
      }
      if (kind === 'time' && chance(0.4)) {
        if (chance(0.6)) rs.min_duration = messy && chance(0.3) ? int(0, 7200) : 60 * int(0, 120);
        if (chance(0.6)) rs.max_duration = messy && chance(0.3) ? int(1, 7200) : 60 * int(1, 240);
      }
      if (messy && chance(0.4)) dated.push({ rs, start: chance(0.7) ? int(-2, 2) : null, end: chance(0.7) ? int(-1, 3) : null });
    }
    elements.push({ price_components: types.map(component), ...(Object.keys(rs).length > 0 || dated.some((d) => d.rs === rs) ? { restrictions: rs } : {}) });
  }
  const ocpi: OcpiTariffInput = { currency: 'EUR', elements };
  if (chance(0.2)) ocpi.min_price = { excl_vat: 0, incl_vat: Math.round(r() * 2000) / 100 };
  if (chance(0.2)) ocpi.max_price = { excl_vat: 0, incl_vat: Math.round(r() * 5000) / 100 };
  if (messy && chance(0.1)) ocpi.min_price = { excl_vat: 0, incl_vat: (ocpi.max_price?.incl_vat ?? 10) + int(1, 500) / 100 };

  // The charging model: a vehicle with a DC curve, or AC at constant power.
  const vehicle: VehiclePricing = {
    id: 'v',
    brand_id: null,
    usable_battery_size: 20 + r() * 80,
    ac_phases: 3,
    ac_max_power: pick([7.4, 11, 22]),
    ac_map: null,
    dc_ports: ['ccs'],
    dc_max_power: 50 + r() * 200,
    dc_curve: [
      { percentage: 0, power: 40 + r() * 100 },
      { percentage: 50, power: 30 + r() * 150 },
      { percentage: 80, power: 20 + r() * 60 },
      { percentage: 100, power: 5 + r() * 20 },
    ],
  };
  const dc = chance(0.6);
  const s = int(0, 60);
  const range: [number, number] = [s, int(s + 5, 100)];
  const session = sessionForVehicle(vehicle, dc ? 'dc' : 'ac', dc ? pick([50, 150, 300]) : 22, range, { carAcPhases: 3, allowUnbalancedLoad: false });
  const t0 = int(0, 1439);
  const day0 = int(1, 7);
  const dateOf = (offset: number) => new Date(Date.UTC(2024, 0, day0 + offset)).toISOString().slice(0, 10);
  for (const d of dated) {
    if (d.start !== null) d.rs.start_date = dateOf(d.start);
    if (d.end !== null) d.rs.end_date = dateOf(d.end);
  }
  return { ocpi, session, dc, t0, day0, sessionDate: dateOf(0) };
}

/**
 * The session as a CDR starting on ISO weekday day0 at t0 (UTC), one charging period per step.
 * Timestamps have whole milliseconds; each period's TIME volume is its length as written, so the
 * CDR is consistent in itself (the charging model's end differs by less than half a millisecond).
 */
export function cdrOf(session: ChargeSession, t0: number, day0: number) {
  const start = Date.UTC(2024, 0, day0, 0, 0, 0) + t0 * 60_000; // 1 January 2024 was a Monday
  const at = (min: number) => Math.round(start + min * 60_000);
  const iso = (ms: number) => new Date(ms).toISOString();
  const charging_periods = [];
  let t = 0;
  let e = 0;
  for (let i = 0; i < session.steps; i++) {
    const [a, b] = [at(t), at(session.tEnd[i])];
    charging_periods.push({ start_date_time: iso(a), dimensions: [{ type: 'ENERGY', volume: session.eEnd[i] - e }, { type: 'TIME', volume: (b - a) / 3_600_000 }] });
    t = session.tEnd[i];
    e = session.eEnd[i];
  }
  return { start_date_time: iso(at(0)), end_date_time: iso(at(session.duration)), charging_periods };
}

