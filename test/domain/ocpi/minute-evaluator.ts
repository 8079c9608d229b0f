/**
 * A deliberately simple OCPI cost evaluator for the property test of the CDR cost engine: it walks
 * the session second by second (local time looked up once per minute), asks every tariff element
 * in order for each second, and sums. No period cuts, no boundary arithmetic. Sessions are built
 * so that every restriction can only change on a whole second: powers of 3.6 kW multiples give
 * whole Wh per second, kWh limits are whole Wh, durations whole seconds, times of day whole minutes.
 * Reservations (D144): reserved time before the charging, or alone (the reservation expired), is
 * priced per second by the first element with a `reservation` restriction that holds
 * (RESERVATION_EXPIRES elements first when nothing follows), their FLAT once.
 */
import type { OcpiComponent, OcpiPeriod, OcpiRestrictions, OcpiTariffInput } from '../../../src/domain/ocpi/cdr-cost.js';

export interface Run {
  /** Seconds. */
  seconds: number;
  /** kW while charging; null while parked or reserved. */
  power: number | null;
  current: number | null;
  /** Reserved time before the session's charging (RESERVATION_TIME, D144). */
  reservation?: boolean;
}

type ReservationKind = 'RESERVATION' | 'RESERVATION_EXPIRES' | null;

function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4294967296;
  };
}

const DAYS = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'];
const ZONES = ['UTC', 'Europe/Paris', 'America/New_York'];

export function randomCase(seed: number) {
  const r = rng(seed * 7919);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
  const maybe = (p: number) => r() < p;
  // Start: a whole minute somewhere in 2024, now and then just before a DST change.
  const base = maybe(0.15) ? pick([Date.UTC(2024, 2, 30, 22), Date.UTC(2024, 9, 26, 22), Date.UTC(2024, 2, 10, 4), Date.UTC(2024, 10, 3, 3)]) : Date.UTC(2024, 0, 1);
  const start = base + Math.floor(r() * (maybe(0.15) ? 300 : 366 * 24 * 60)) * 60_000;
  const timezone = pick(ZONES);
  const runs: Run[] = [];
  const nRuns = 1 + Math.floor(r() * 4);
  for (let i = 0; i < nRuns; i++) {
    const charging = i === 0 || maybe(0.6);
    const power = charging ? pick([3.6, 7.2, 18, 36, 72]) : null;
    let seconds = 60 * (1 + Math.floor(r() * 90)) + (maybe(0.3) ? Math.floor(r() * 60) : 0);
    // Whole multiples of 20 Wh at every run's end, so that kWh limits (multiples of 100 Wh) are
    // reached on a whole second whatever the power.
    if (power !== null) seconds -= seconds % (72 / power);
    runs.push({ seconds, power, current: charging ? pick([10, 16, 32, 63]) : null });
  }
  // A reservation before the charging, now and then one that expired (nothing after it).
  if (maybe(0.12)) {
    const reserved: Run = { seconds: 60 * (1 + Math.floor(r() * 60)) + (maybe(0.3) ? Math.floor(r() * 60) : 0), power: null, current: null, reservation: true };
    if (maybe(0.3)) runs.splice(0, runs.length, reserved);
    else runs.unshift(reserved);
  }
  const component = (type: OcpiComponent['type']): OcpiComponent => ({
    type,
    price: Math.round(r() * 500) / 100,
    ...(maybe(0.7) ? { vat: pick([0, 5.5, 10, 20]) } : {}),
    step_size: type === 'FLAT' ? 1 : type === 'ENERGY' ? pick([0, 1, 100, 500, 1000]) : pick([0, 1, 60, 300, 900, 1800]),
  });
  const hhmm = (m: number) => `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;
  const localDate = (ms: number) => new Date(ms).toLocaleDateString('sv-SE', { timeZone: timezone });
  const elements: OcpiTariffInput['elements'] = [];
  const nEls = 1 + Math.floor(r() * 5);
  for (let i = 0; i < nEls; i++) {
    const types = (['ENERGY', 'TIME', 'PARKING_TIME', 'FLAT'] as const).filter(() => maybe(0.45));
    if (types.length === 0) types.push(pick(['ENERGY', 'TIME', 'PARKING_TIME'] as const));
    const rs: OcpiRestrictions = {};
    if (i < nEls - 1 || maybe(0.3)) {
      if (maybe(0.35)) rs.start_time = hhmm(15 * Math.floor(r() * 96));
      if (maybe(0.35)) rs.end_time = hhmm(15 * Math.floor(r() * 96));
      if (maybe(0.15)) rs.day_of_week = DAYS.filter(() => maybe(0.5));
      if (maybe(0.25)) rs.min_kwh = Math.floor(r() * 40) / (maybe(0.5) ? 1 : 10);
      if (maybe(0.25)) rs.max_kwh = Math.floor(r() * 60) / (maybe(0.5) ? 1 : 10);
      if (maybe(0.25)) rs.min_duration = 60 * Math.floor(r() * 180) + (maybe(0.2) ? 7 : 0);
      if (maybe(0.25)) rs.max_duration = 60 * Math.floor(r() * 240);
      if (maybe(0.15)) rs.min_power = pick([5, 10, 20, 40]);
      if (maybe(0.15)) rs.max_power = pick([10, 20, 40, 100]);
      if (maybe(0.1)) rs.min_current = pick([16, 32]);
      if (maybe(0.1)) rs.max_current = pick([16, 32, 64]);
      if (maybe(0.08)) rs.start_date = localDate(start + Math.floor((r() - 0.3) * 3) * 86_400_000);
      if (maybe(0.08)) rs.end_date = localDate(start + Math.floor(r() * 3) * 86_400_000);
    }
    if (maybe(runs[0].reservation ? 0.45 : 0.1)) rs.reservation = pick(['RESERVATION', 'RESERVATION_EXPIRES'] as const);
    elements.push({ price_components: types.map(component), ...(Object.keys(rs).length > 0 ? { restrictions: rs } : {}) });
  }
  const tariff: OcpiTariffInput = { currency: 'EUR', elements };
  if (maybe(0.2)) tariff.min_price = { excl_vat: Math.round(r() * 1000) / 100, ...(maybe(0.5) ? { incl_vat: Math.round(r() * 1200) / 100 } : {}) };
  if (maybe(0.2)) tariff.max_price = { excl_vat: Math.round(r() * 3000) / 100, ...(maybe(0.5) ? { incl_vat: Math.round(r() * 3600) / 100 } : {}) };

  // The CDR: one charging period per run, volumes from the run.
  let t = start;
  const periods: OcpiPeriod[] = runs.map((run) => {
    const p: OcpiPeriod = {
      start_date_time: new Date(t).toISOString(),
      dimensions: run.reservation
        ? [{ type: 'RESERVATION_TIME', volume: run.seconds / 3600 }]
        : run.power === null
          ? [{ type: 'PARKING_TIME', volume: run.seconds / 3600 }]
          : [
              { type: 'ENERGY', volume: (run.power * run.seconds) / 3600 },
              { type: 'TIME', volume: run.seconds / 3600 },
              { type: 'MAX_POWER', volume: run.power },
              { type: 'MAX_CURRENT', volume: run.current! },
            ],
    };
    t += run.seconds * 1000;
    return p;
  });
  return { tariff, timezone, start, minutes: runs, session: { start_date_time: new Date(start).toISOString(), end_date_time: new Date(t).toISOString(), charging_periods: periods } };
}

interface Clock {
  minuteOfDay: number;
  date: string;
  day: string;
}

const formats = new Map<string, [Intl.DateTimeFormat, Intl.DateTimeFormat]>();
function clockAt(ms: number, tz: string): Clock {
  let f = formats.get(tz);
  if (f === undefined) {
    f = [new Intl.DateTimeFormat('sv-SE', { timeZone: tz, dateStyle: 'short', timeStyle: 'short' }), new Intl.DateTimeFormat('en-GB', { timeZone: tz, weekday: 'long' })];
    formats.set(tz, f);
  }
  const s = f[0].format(ms); // "2024-06-03 09:30"
  return { minuteOfDay: Number(s.slice(11, 13)) * 60 + Number(s.slice(14, 16)), date: s.slice(0, 10), day: f[1].format(ms).toUpperCase() };
}

function active(rs: OcpiRestrictions | null | undefined, clock: Clock, second: number, wh: number, run: Run): boolean {
  if (!rs) return true;
  const m = clock.minuteOfDay;
  const from = rs.start_time ? Number(rs.start_time.slice(0, 2)) * 60 + Number(rs.start_time.slice(3)) : null;
  const to = rs.end_time ? Number(rs.end_time.slice(0, 2)) * 60 + Number(rs.end_time.slice(3)) : null;
  if (from !== null && to !== null && from !== to) {
    const inside = from < to ? m >= from && m < to : m >= from || m < to;
    if (!inside) return false;
  } else if (from !== null && to === null && m < from) return false;
  else if (to !== null && from === null && to !== 0 && m >= to) return false; // a lone 00:00 ends the day
  if (rs.start_date && clock.date < rs.start_date) return false;
  if (rs.end_date && clock.date >= rs.end_date) return false;
  if (rs.day_of_week && rs.day_of_week.length > 0 && !rs.day_of_week.includes(clock.day)) return false;
  if (rs.min_kwh != null && wh < Math.round(rs.min_kwh * 1000)) return false;
  if (rs.max_kwh != null && wh >= Math.round(rs.max_kwh * 1000)) return false;
  if (rs.min_duration != null && second < rs.min_duration) return false;
  if (rs.max_duration != null && second >= rs.max_duration) return false;
  if (rs.min_power != null && (run.power === null || run.power < rs.min_power)) return false;
  if (rs.max_power != null && (run.power === null || run.power >= rs.max_power)) return false;
  if (rs.min_current != null && (run.current === null || run.current < rs.min_current)) return false;
  if (rs.max_current != null && (run.current === null || run.current >= rs.max_current)) return false;
  return true;
}

type Billed = 'ENERGY' | 'TIME' | 'PARKING_TIME' | 'RESERVATION_TIME';
const BILLED = ['ENERGY', 'TIME', 'PARKING_TIME', 'RESERVATION_TIME'] as const;
const PER_UNIT: Record<Billed, number> = { ENERGY: 1000, TIME: 3600, PARKING_TIME: 3600, RESERVATION_TIME: 3600 };

/** The first element of a reservation kind (null: none) with a component of `dim` that holds. */
function firstMatch(tariff: OcpiTariffInput, dim: string, kind: ReservationKind, clock: Clock, second: number, wh: number, run: Run): [number, OcpiComponent] | null {
  for (let i = 0; i < tariff.elements.length; i++) {
    const e = tariff.elements[i];
    if ((e.restrictions?.reservation ?? null) !== kind) continue;
    const c = e.price_components.find((x) => x.type === dim);
    if (c && active(e.restrictions, clock, second, wh, run)) return [i, c];
  }
  return null;
}

/** Reserved time and fees: RESERVATION_EXPIRES elements first when nothing follows the reservation. */
function reservationMatch(tariff: OcpiTariffInput, dim: string, expired: boolean, clock: Clock, second: number, run: Run): [number, OcpiComponent] | null {
  return (expired ? firstMatch(tariff, dim, 'RESERVATION_EXPIRES', clock, second, 0, run) : null) ?? firstMatch(tariff, dim, 'RESERVATION', clock, second, 0, run);
}

/** Total cost {excl, incl}, unrounded, of the runs from `start` under the tariff. */
export function minuteCost(tariff: OcpiTariffInput, runs: Run[], start: number, tz: string): { excl: number; incl: number } {
  const sum: Record<Billed, number> = { ENERGY: 0, TIME: 0, PARKING_TIME: 0, RESERVATION_TIME: 0 }; // units: Wh, s, s, s
  const excl: Record<Billed, number> = { ENERGY: 0, TIME: 0, PARKING_TIME: 0, RESERVATION_TIME: 0 };
  const incl: Record<Billed, number> = { ENERGY: 0, TIME: 0, PARKING_TIME: 0, RESERVATION_TIME: 0 };
  const lastComp: Partial<Record<Billed, OcpiComponent>> = {};
  const lastSecond: Partial<Record<Billed, number>> = {};
  const lastElement: Partial<Record<Billed, number>> = {};
  const expired = runs.every((run) => run.reservation);
  const bill = (dim: Billed, units: number, c: OcpiComponent): void => {
    excl[dim] += (units / PER_UNIT[dim]) * c.price;
    incl[dim] += (units / PER_UNIT[dim]) * c.price * (1 + (c.vat ?? 0) / 100);
  };
  let wh = 0;
  let second = 0;
  let clock = clockAt(start, tz);
  for (const run of runs) {
    const whPerSecond = run.power === null ? 0 : Math.round((run.power * 1000) / 3600);
    for (let s = 0; s < run.seconds; s++, second++) {
      if (second % 60 === 0) clock = clockAt(start + second * 1000, tz);
      const billed: [Billed, number][] = run.reservation ? [['RESERVATION_TIME', 1]] : run.power === null ? [['PARKING_TIME', 1]] : [['ENERGY', whPerSecond], ['TIME', 1]];
      for (const [dim, units] of billed) {
        const hit = dim === 'RESERVATION_TIME' ? reservationMatch(tariff, 'TIME', expired, clock, second, run) : firstMatch(tariff, dim, null, clock, second, wh, run);
        if (hit === null) continue;
        const [index, c] = hit;
        sum[dim] += units;
        bill(dim, units, c);
        lastComp[dim] = c;
        lastSecond[dim] = second;
        lastElement[dim] = index;
      }
      wh += whPerSecond;
    }
  }
  // Parking billed after the last charging second: no TIME step; the parking step counts the
  // charging seconds too when one element priced both last (D257).
  const intoParking = lastSecond.TIME !== undefined && lastSecond.PARKING_TIME !== undefined && lastSecond.PARKING_TIME > lastSecond.TIME;
  for (const dim of BILLED) {
    const c = lastComp[dim];
    if (!c || !c.step_size || (dim === 'TIME' && intoParking)) continue;
    const held = sum[dim] + (dim === 'PARKING_TIME' && intoParking && lastElement.PARKING_TIME === lastElement.TIME ? sum.TIME : 0);
    bill(dim, Math.ceil(held / c.step_size - 1e-9) * c.step_size - held, c);
  }
  const total = { excl: BILLED.reduce((x, d) => x + excl[d], 0), incl: BILLED.reduce((x, d) => x + incl[d], 0) };
  addFlats(tariff, runs, start, tz, expired, total);
  return bounded(tariff, total);
}

/** FLAT of the session (when anything but a reservation happened) and of a reservation, once each. */
function addFlats(tariff: OcpiTariffInput, runs: Run[], start: number, tz: string, expired: boolean, total: { excl: number; incl: number }): void {
  const clock = clockAt(start, tz);
  const flats = [
    expired ? null : firstMatch(tariff, 'FLAT', null, clock, 0, 0, runs[0]),
    runs.some((run) => run.reservation) ? reservationMatch(tariff, 'FLAT', expired, clock, 0, runs[0]) : null,
  ];
  for (const flat of flats) {
    if (flat === null) continue;
    total.excl += flat[1].price;
    total.incl += flat[1].price * (1 + (flat[1].vat ?? 0) / 100);
  }
}

/**
 * Bounds: excl and incl each by their own value; a bound without incl_vat moves incl with excl
 * at the session's VAT share (none without a total to take it from).
 */
function bounded(tariff: OcpiTariffInput, total: { excl: number; incl: number }): { excl: number; incl: number } {
  let { excl: totalExcl, incl: totalIncl } = total;
  const limit = (b: typeof tariff.min_price, lower: boolean): void => {
    if (!b) return;
    const moved = lower ? Math.max(totalExcl, b.excl_vat) : Math.min(totalExcl, b.excl_vat);
    if (b.incl_vat != null) totalIncl = lower ? Math.max(totalIncl, b.incl_vat) : Math.min(totalIncl, b.incl_vat);
    else if (moved !== totalExcl) totalIncl = totalExcl > 0 ? (totalIncl / totalExcl) * moved : moved;
    totalExcl = moved;
  };
  limit(tariff.min_price, true);
  limit(tariff.max_price, false);
  return { excl: totalExcl, incl: totalIncl };
}
