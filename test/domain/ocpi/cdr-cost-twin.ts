/**
 * The straightforward twin of the cdr_cost engine (src/domain/ocpi/cdr-cost.ts): the engine as it
 * was before it prepared tariffs once and priced periods in scratch arrays (D280) — a Pricer
 * per session with its restrictions read per request, objects per piece and line. The tests hold
 * the engine's answers equal to these on seeded cases and the worked examples.
 */
import type { OcpiDimension, OcpiPriceComponent, OcpiRestrictions, OcpiTariff } from '../../../src/domain/ocpi/model.js';
import { offsetChangesIn, zoneOffset } from '../../../src/domain/ocpi/zone-offsets.js';

export type DimensionName = OcpiDimension;
export type OcpiComponent = OcpiPriceComponent<OcpiDimension>;
export type { OcpiRestrictions };
/** A tariff as cdr_cost prices it: its component types validated. */
export type OcpiTariffInput = OcpiTariff<OcpiDimension>;

export interface OcpiPeriod {
  start_date_time: string;
  dimensions: { type: string; volume: number }[];
}

export interface OcpiSessionInput {
  start_date_time: string;
  /** 2.2.1 `end_date_time`, or 2.1.1 `stop_date_time` (the caller picks one). */
  end_date_time: string;
  charging_periods: OcpiPeriod[];
}

export interface Money {
  excl_vat: number;
  incl_vat: number;
}

export interface PeriodPricing {
  start_date_time: string;
  /** Dimension → index of the tariff element that priced it in this period (first piece). */
  elements: Partial<Record<'ENERGY' | 'TIME' | 'PARKING_TIME' | 'RESERVATION_TIME', number>>;
}

export interface CdrCost {
  total_cost: Money;
  total_energy_cost: Money;
  total_time_cost: Money;
  total_parking_time_cost: Money;
  total_fixed_cost: Money;
  total_reservation_cost: Money;
  /** Volumes as billed (after step_size): kWh and hours. */
  billed: { energy: number; time: number; parking_time: number; reservation_time: number };
  /** Whether min_price or max_price set the total. */
  price_bound: 'min_price' | 'max_price' | null;
  periods: PeriodPricing[];
}


/** Local calendar parts of an instant in a time zone: day number (days since 1970-01-01), minute of the day, weekday (0 Sunday). */
interface Local {
  day: number;
  minutes: number;
  dow: number;
}

const WEEKDAYS = ['SUNDAY', 'MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY'];

/** Calendar parts of a local clock reading given as ms: arithmetic only, no Date or string. */
function localAt(localMs: number): Local {
  const day = Math.floor(localMs / 86_400_000);
  // 1970-01-01 was a Thursday (4).
  return { day, minutes: Math.floor((localMs - day * 86_400_000) / 60_000), dow: (((day + 4) % 7) + 7) % 7 };
}

/** Day number of a validated `YYYY-MM-DD` date (restrictions' start_date, end_date): days from civil, no Date. */
export function dayOf(date: string): number {
  let y = digit(date, 0) * 1000 + digit(date, 1) * 100 + digit(date, 2) * 10 + digit(date, 3);
  const m = digit(date, 5) * 10 + digit(date, 6);
  const d = digit(date, 8) * 10 + digit(date, 9);
  y -= m <= 2 ? 1 : 0;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  return era * 146_097 + yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy - 719_468;
}

/** The local clock of a zone, from its offset tables (no Intl per reading, D224). */
function localClock(offset: (ms: number) => number): (ms: number) => Local {
  return (ms) => localAt(ms + offset(ms));
}

/** Whether `tz` names a time zone Intl knows. */
export function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** Digit `i` of a validated string (character codes: no substring is made). */
const digit = (s: string, i: number): number => s.charCodeAt(i) - 48;
/** Minutes of a validated `HH:MM`. */
const hhmm = (s: string): number => (digit(s, 0) * 10 + digit(s, 1)) * 60 + digit(s, 3) * 10 + digit(s, 4);

interface Ctx {
  local: Local;
  durationS: number;
  kwhBefore: number;
  /** The period's current and power as `min_*` (its minimum) and `max_*` (its maximum) restrictions read them (D258). */
  minCurrent: number | null;
  maxCurrent: number | null;
  minPower: number | null;
  maxPower: number | null;
}

/** Restrictions with their times of day parsed once. */
interface Rule {
  r: OcpiRestrictions | null | undefined;
  s: number | null;
  e: number | null;
  /** Day numbers of start_date and end_date; weekdays as a bit mask (bit 0 Sunday; 0: every day). */
  from: number | null;
  until: number | null;
  days: number;
}

function ruleOf(r: OcpiRestrictions | null | undefined): Rule {
  let days = 0;
  for (const d of r?.day_of_week ?? []) days |= 1 << WEEKDAYS.indexOf(d);
  return {
    r,
    s: r?.start_time != null ? hhmm(r.start_time) : null,
    e: r?.end_time != null ? hhmm(r.end_time) : null,
    from: r?.start_date != null ? dayOf(r.start_date) : null,
    until: r?.end_date != null ? dayOf(r.end_date) : null,
    days,
  };
}

function holds({ r, s, e, from, until, days }: Rule, c: Ctx): boolean {
  if (!r) return true;
  if (s !== null || e !== null) {
    const m = c.local.minutes;
    if (s !== null && e !== null) {
      if (s < e ? !(m >= s && m < e) : s > e ? !(m >= s || m < e) : false) return false;
    } else if (s !== null && m < s) return false;
    // A lone end_time of 00:00 is the end of the day ("to stop at the end of the day use 00:00").
    else if (e !== null && e !== 0 && m >= e) return false;
  }
  if (from !== null && c.local.day < from) return false;
  if (until !== null && c.local.day >= until) return false;
  if (r.min_kwh != null && !(c.kwhBefore >= r.min_kwh - 1e-12)) return false;
  if (r.max_kwh != null && !(c.kwhBefore < r.max_kwh - 1e-12)) return false;
  if (r.min_duration != null && !(c.durationS >= r.min_duration - 1e-9)) return false;
  if (r.max_duration != null && !(c.durationS < r.max_duration - 1e-9)) return false;
  if (r.min_current != null && !(c.minCurrent !== null && c.minCurrent >= r.min_current)) return false;
  if (r.max_current != null && !(c.maxCurrent !== null && c.maxCurrent < r.max_current)) return false;
  if (r.min_power != null && !(c.minPower !== null && c.minPower >= r.min_power)) return false;
  if (r.max_power != null && !(c.maxPower !== null && c.maxPower < r.max_power)) return false;
  if (days !== 0 && (days & (1 << c.local.dow)) === 0) return false;
  return true;
}

type Billed = 'ENERGY' | 'TIME' | 'PARKING_TIME' | 'RESERVATION_TIME';

interface Line {
  component: OcpiComponent;
  /** Volume in the component's step unit: Wh for energy, seconds for time. */
  units: number;
}

const UNIT: Record<Billed, number> = { ENERGY: 1000, TIME: 3600, PARKING_TIME: 3600, RESERVATION_TIME: 3600 };

function volumeOf(p: OcpiPeriod, type: string): number {
  let v = 0;
  for (const d of p.dimensions) if (d.type === type) v += d.volume;
  return v;
}
function firstOf(p: OcpiPeriod, types: string[]): number | null {
  for (const t of types) for (const d of p.dimensions) if (d.type === t) return d.volume;
  return null;
}

type Levels = Pick<Ctx, 'minCurrent' | 'maxCurrent' | 'minPower' | 'maxPower'>;
const NO_LEVELS: Levels = { minCurrent: null, maxCurrent: null, minPower: null, maxPower: null };
const MIN_CURRENT = ['MIN_CURRENT', 'CURRENT', 'MAX_CURRENT'];
const MAX_CURRENT = ['MAX_CURRENT', 'CURRENT', 'MIN_CURRENT'];
const MIN_POWER = ['MIN_POWER', 'POWER', 'MAX_POWER'];
const MAX_POWER = ['MAX_POWER', 'POWER', 'MIN_POWER'];
/** A period's minimum and maximum current and power, each from the nearest dimension it reports (D258). */
function levelsOf(p: OcpiPeriod): Levels {
  return { minCurrent: firstOf(p, MIN_CURRENT), maxCurrent: firstOf(p, MAX_CURRENT), minPower: firstOf(p, MIN_POWER), maxPower: firstOf(p, MAX_POWER) };
}

/** Thrown when a session would need more than MAX_ELEMENT_CHECKS to price. */
export class CdrTooComplex extends Error {}

/**
 * The work of pricing, in element checks (one `holds` of one element on one piece; D260):
 * a piece costs PIECE_COST beyond its checks (its clock reading, context and billed lines), a
 * period PERIOD_COST (its readings, cuts and answer), a local time of day looked at as a cut
 * candidate CANDIDATE_COST. Calibrated so that the bound of the slowest bodies, times the measured
 * cost of a check, is at least their measured time (bench/cdr-cost-long.ts).
 */
const PIECE_COST = 12;
const PERIOD_COST = 60;
const CANDIDATE_COST = 1;
const DAY_MS = 86_400_000;

/** Most elements a tariff may have and still be priced with any CDR the schema accepts (D260). */
export const ELEMENTS_ALWAYS_PRICED = 100;

/** What `costBound` counts of a tariff: its local times of day, its limits, its elements per dimension. */
interface TariffShape {
  tods: number;
  limits: number;
  /** Elements with a component of ENERGY, TIME, PARKING_TIME, FLAT. */
  energy: number;
  time: number;
  parking: number;
  flat: number;
}

function shapeOf(tariff: OcpiTariffInput): TariffShape {
  const todSet = new Set<number>([0]);
  const durations = new Set<number>();
  const kwhs = new Set<number>();
  const shape: TariffShape = { tods: 0, limits: 0, energy: 0, time: 0, parking: 0, flat: 0 };
  for (const e of tariff.elements) {
    const r = e.restrictions;
    const has = (t: string): number => Number(e.price_components.some((c) => c.type === t));
    shape.energy += has('ENERGY');
    shape.time += has('TIME');
    shape.parking += has('PARKING_TIME');
    shape.flat += has('FLAT');
    if (!r) continue;
    if (r.start_time != null) todSet.add(hhmm(r.start_time));
    if (r.end_time != null) todSet.add(hhmm(r.end_time));
    for (const d of [r.min_duration, r.max_duration]) if (d != null) durations.add(d);
    for (const q of [r.min_kwh, r.max_kwh]) if (q != null) kwhs.add(q);
  }
  shape.tods = todSet.size;
  shape.limits = durations.size + kwhs.size;
  return shape;
}

/**
 * An upper bound of the work of pricing a session in zone `tz`, in element checks, counted from
 * the inputs and the zone's offset changes before anything is cut (D172, D260). Periods do not
 * overlap, so the cuts are counted once for the whole session rather than per period: every local
 * time of day at most once per local day the session spans (once more per change of offset, which
 * can repeat an hour), every duration and kWh limit once (durations grow, energy only adds up),
 * every change of offset once. Each period's first piece costs its own checks (the elements of the
 * dimensions it bills; a reservation looks twice), every further piece the costliest period's.
 * The cut candidates looked at are the cuts, one per period and local day, and a day's times
 * around each period whose offset is not steady (one per change of offset, and those over a week).
 */
export function costBound(tariff: OcpiTariffInput, session: OcpiSessionInput, tz: string): number {
  const t = shapeOf(tariff);
  const periods = session.charging_periods;
  const first = Date.parse(periods[0].start_date_time);
  const end = Date.parse(session.end_date_time);
  let cost = 2 * t.flat;
  let worstPiece = 0;
  for (let k = 0; k < periods.length; k++) {
    const checks = pieceChecks(periods[k], t);
    cost += PERIOD_COST + checks;
    if (checks > worstPiece) worstPiece = checks;
  }
  // Periods over a week: no more than the weeks the session spans (no DateTime read per period).
  const long = Math.floor(Math.max(0, end - first) / (7 * DAY_MS));
  return cost + sessionCuts(t, periods.length, end - first, offsetChangesIn(tz, first, end).length, long, worstPiece);
}

/** A piece's cost in a period: the elements of each dimension it bills (D142; a reservation looks twice, D144). */
function pieceChecks(p: OcpiPeriod, t: TariffShape): number {
  let checks = PIECE_COST;
  for (const d of p.dimensions) {
    if (!(d.volume > 0)) continue;
    if (d.type === 'ENERGY') checks += t.energy;
    else if (d.type === 'TIME') checks += t.time;
    else if (d.type === 'PARKING_TIME') checks += t.parking;
    else if (d.type === 'RESERVATION_TIME') checks += 2 * t.time;
  }
  return checks;
}

/** The cost of the cuts of a session spanning `spanMs` and of looking for them (see costBound). */
function sessionCuts(t: TariffShape, periods: number, spanMs: number, changes: number, long: number, worstPiece: number): number {
  const days = Math.floor(Math.max(0, spanMs) / DAY_MS) + 1 + changes;
  const cuts = days * t.tods + t.limits + changes;
  const candidates = cuts + periods + days + (changes + long) * t.tods;
  return cuts * worstPiece + candidates * CANDIDATE_COST;
}

/**
 * Most element checks one session may need when its tariff has more than ELEMENTS_ALWAYS_PRICED
 * elements: the bound of the costliest session the schema accepts (10,000 periods billing every
 * dimension over 31 days and the 24 hours before, across two changes of offset, every period
 * but the last of 4.6 minutes) under the costliest tariff of ELEMENTS_ALWAYS_PRICED elements (each
 * with a window of its own, four limits of its own and a component of every dimension).
 */
export const MAX_ELEMENT_CHECKS = (() => {
  const n = ELEMENTS_ALWAYS_PRICED;
  const shape: TariffShape = { tods: 2 * n + 1, limits: 4 * n, energy: n, time: n, parking: n, flat: n };
  const worstPiece = PIECE_COST + shape.energy + 3 * shape.time + shape.parking;
  return 2 * shape.flat + 10_000 * (PERIOD_COST + worstPiece) + sessionCuts(shape, 10_000, 32 * DAY_MS, 2, 0, worstPiece);
})();

/**
 * Refuses a session whose tariff has more than ELEMENTS_ALWAYS_PRICED elements and whose cost bound
 * exceeds MAX_ELEMENT_CHECKS, before any work (D172, D260); else its bound.
 */
export function checkBound(tariff: OcpiTariffInput, session: OcpiSessionInput, tz: string): number {
  const bound = costBound(tariff, session, tz);
  if (tariff.elements.length > ELEMENTS_ALWAYS_PRICED && !(bound <= MAX_ELEMENT_CHECKS)) {
    throw new CdrTooComplex(`pricing this session under this tariff of more than ${ELEMENTS_ALWAYS_PRICED} elements would take more than ${MAX_ELEMENT_CHECKS} element checks`);
  }
  return bound;
}

/** Half the last digit of the OCPI `number` type's 4 decimals, in the CDR's units (kWh, hours; D143). */
export const STEP_FORGIVEN_CDR = 0.5e-4;

type Bound = { excl_vat: number; incl_vat?: number | null } | null | undefined;

/**
 * The session total within `min_price` and `max_price` (D145): first the minimum, then the
 * maximum; `excl_vat` bounds the total excluding VAT, `incl_vat` when given the total including
 * it. A bound given excluding VAT only moves the total including VAT with it, keeping the
 * session's VAT share (without a total to take the share from, it adds none).
 */
export function boundTotal(excl: number, incl: number, min: Bound, max: Bound): { money: Money; bound: CdrCost['price_bound'] } {
  let bound: CdrCost['price_bound'] = null;
  const apply = (limit: Bound, kind: 'min_price' | 'max_price'): void => {
    if (limit == null) return;
    const outside = (x: number, l: number): boolean => (kind === 'min_price' ? x < l : x > l);
    if (limit.incl_vat != null) {
      if (outside(excl, limit.excl_vat)) [excl, bound] = [limit.excl_vat, kind];
      if (outside(incl, limit.incl_vat)) [incl, bound] = [limit.incl_vat, kind];
    } else if (outside(excl, limit.excl_vat)) {
      incl = excl > 0 ? incl * (limit.excl_vat / excl) : limit.excl_vat;
      [excl, bound] = [limit.excl_vat, kind];
    }
  };
  apply(min, 'min_price');
  apply(max, 'max_price');
  return { money: { excl_vat: excl, incl_vat: incl }, bound };
}

/** Prices a session; the inputs are assumed valid (see `checkCdrCost`). */
export function cdrCost(tariff: OcpiTariffInput, session: OcpiSessionInput, tz: string): CdrCost {
  checkBound(tariff, session, tz);
  return cdrCostBounded(tariff, session, tz);
}

/** The work pricing a session does, in the units of `costBound` (tests and benches hold the bound to it, D260). */
export function pricingWork(tariff: OcpiTariffInput, session: OcpiSessionInput, tz: string): number {
  const pricer = new Pricer(tariff, session, tz);
  for (let k = 0; k < session.charging_periods.length; k++) pricer.pricePeriod(k);
  pricer.result();
  return pricer.work;
}

/** Prices a session whose cost bound was checked already (`checkBound`; D226: on the main thread, before a worker prices it). */
export function cdrCostBounded(tariff: OcpiTariffInput, session: OcpiSessionInput, tz: string): CdrCost {
  const pricer = new Pricer(tariff, session, tz);
  for (let k = 0; k < session.charging_periods.length; k++) pricer.pricePeriod(k);
  return pricer.result();
}

const BILLED = ['ENERGY', 'TIME', 'PARKING_TIME', 'RESERVATION_TIME'] as const;
const NO_MONEY: Money = { excl_vat: 0, incl_vat: 0 };
/** More than any offset change: the slack of a window whose offset is not steady. */
const OFFSET_SLACK_MS = 3 * 3_600_000;

type Hit = { index: number; component: OcpiComponent };

/** One session under one tariff: the tariff's restrictions prepared once, then period by period (D141–D145). */
class Pricer {
  private readonly offset: (ms: number) => number;
  private readonly clock: (ms: number) => Local;
  private readonly t0: number;
  private readonly tEnd: number;
  private readonly periods: OcpiPeriod[];
  private readonly els: OcpiTariffInput['elements'];
  private readonly rules: Rule[];
  /** Local times of day (minutes, sorted) where any element can switch, midnight included. */
  private readonly tods: number[];
  /** Instants (ms) of the duration limits and the kWh limits, each sorted and distinct. */
  private readonly durationAt: number[];
  private readonly kwhs: number[];
  /** Per dimension, the elements that have a component of it, in list order. */
  private readonly byDim = new Map<DimensionName, (Hit & { reservation: OcpiRestrictions['reservation'] | null })[]>();
  private readonly hasCharging: boolean;
  private readonly lines: Record<Billed, Line[]> = { ENERGY: [], TIME: [], PARKING_TIME: [], RESERVATION_TIME: [] };
  /** Per dimension, the component that billed it last, its element and the piece (in order). */
  private readonly last: Partial<Record<Billed, { component: OcpiComponent; index: number; at: number }>> = {};
  private readonly out: PeriodPricing[] = [];
  private kwh = 0;
  private seq = 0;
  /** The work done, in the units of `costBound` (D260). */
  work = 0;

  constructor(
    private readonly tariff: OcpiTariffInput,
    session: OcpiSessionInput,
    private readonly tz: string,
  ) {
    this.offset = zoneOffset(tz);
    this.clock = localClock(this.offset);
    this.t0 = Date.parse(session.start_date_time);
    this.tEnd = Date.parse(session.end_date_time);
    this.periods = session.charging_periods;
    this.els = tariff.elements;
    this.rules = this.els.map((e) => ruleOf(e.restrictions));
    const todSet = new Set<number>([0]);
    const durations = new Set<number>();
    const kwhs = new Set<number>();
    for (const e of this.els) {
      const r = e.restrictions;
      if (!r) continue;
      if (r.start_time != null) todSet.add(hhmm(r.start_time));
      if (r.end_time != null) todSet.add(hhmm(r.end_time));
      for (const d of [r.min_duration, r.max_duration]) if (d != null) durations.add(this.t0 + d * 1000);
      for (const q of [r.min_kwh, r.max_kwh]) if (q != null) kwhs.add(q);
    }
    this.durationAt = [...durations].sort((x, y) => x - y);
    this.kwhs = [...kwhs].sort((x, y) => x - y);
    this.tods = [...todSet].sort((x, y) => x - y);
    this.els.forEach((e, index) => {
      for (const component of e.price_components) {
        let list = this.byDim.get(component.type);
        if (list === undefined) this.byDim.set(component.type, (list = []));
        if (!list.some((x) => x.index === index)) list.push({ index, component, reservation: e.restrictions?.reservation ?? null });
      }
    });
    this.hasCharging = this.periods.some((p) => volumeOf(p, 'ENERGY') > 0 || volumeOf(p, 'TIME') > 0 || volumeOf(p, 'PARKING_TIME') > 0);
  }

  /** The first element with a component of `type` whose restrictions hold (D142). */
  private pick(type: DimensionName, c: Ctx, reservation: OcpiRestrictions['reservation'] | null): Hit | null {
    for (const hit of this.byDim.get(type) ?? []) {
      this.work++;
      if (hit.reservation === reservation && holds(this.rules[hit.index], c)) return hit;
    }
    return null;
  }

  /** Reservation time and fees: RESERVATION_EXPIRES elements first when nothing follows the reservation (D144). */
  private reservationKind(c: Ctx, type: DimensionName): Hit | null {
    return (!this.hasCharging ? this.pick(type, c, 'RESERVATION_EXPIRES') : null) ?? this.pick(type, c, 'RESERVATION');
  }

  /**
   * Instants strictly inside (a, b) where a local time of day in `tods` falls. `steady` is the
   * offset when it is the same at a and b and the window is at most a week (no zone changes its
   * offset twice in a week): then local = UTC + offset throughout, with no look-ups.
   */
  private todCuts(a: number, b: number, steady: number | null): number[] {
    const { tods, offset } = this;
    const out: number[] = [];
    // The local clock readings the window can show (with slack for an offset change inside it).
    const la = steady !== null ? a + steady : a + offset(a) - OFFSET_SLACK_MS;
    const lb = steady !== null ? b + steady : b + offset(b) + OFFSET_SLACK_MS;
    for (let d = Math.floor(la / 86_400_000); d * 86_400_000 <= lb; d++) {
      const day = d * 86_400_000;
      let lo = 0;
      let hi = tods.length;
      const first = (la - day) / 60_000;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (tods[mid] < first) lo = mid + 1;
        else hi = mid;
      }
      for (let i = lo; i < tods.length; i++) {
        const localMs = day + tods[i] * 60_000;
        this.work += CANDIDATE_COST;
        if (localMs > lb) break;
        // Local → UTC: subtract the offset, settled twice across offset changes.
        const u = steady !== null ? localMs - steady : localMs - offset(localMs - offset(localMs));
        if (u > a && u < b) out.push(u);
      }
    }
    return out;
  }

  /**
   * The cuts of a period as sorted fractions of it, 0 and 1 included: time restrictions cut where
   * their instant falls, kWh limits where the energy so far reaches them (energy spread evenly over
   * the period; a period without duration is cut by energy alone).
   */
  private boundsOf(a: number, b: number, energy: number, steady: number | null): number[] {
    const cuts = new Set<number>();
    if (b > a) {
      for (const u of this.todCuts(a, b, steady)) cuts.add((u - a) / (b - a));
      // Where the offset changes, the local clock jumps: a window can open or close right there
      // (02:00–02:15 of a night the clocks go back exists only after the change).
      if (steady === null) for (const u of offsetChangesIn(this.tz, a, b)) cuts.add((u - a) / (b - a));
      const ds = this.durationAt;
      for (let i = firstAbove(ds, a); i < ds.length && ds[i] < b; i++) cuts.add((ds[i] - a) / (b - a));
    }
    const qs = this.kwhs;
    if (energy > 0) for (let i = firstAbove(qs, this.kwh); i < qs.length && qs[i] < this.kwh + energy; i++) cuts.add((qs[i] - this.kwh) / energy);
    return [0, ...[...cuts].sort((x, y) => x - y), 1];
  }

  /** Prices period `k` piece by piece: each piece at its start, by the first matching element per dimension. */
  pricePeriod(k: number): void {
    const { periods } = this;
    const p = periods[k];
    this.work += PERIOD_COST;
    const a = Date.parse(p.start_date_time);
    const b = k + 1 < periods.length ? Date.parse(periods[k + 1].start_date_time) : this.tEnd;
    const energy = volumeOf(p, 'ENERGY');
    const vols: Record<Billed, number> = { ENERGY: energy, TIME: volumeOf(p, 'TIME'), PARKING_TIME: volumeOf(p, 'PARKING_TIME'), RESERVATION_TIME: volumeOf(p, 'RESERVATION_TIME') };
    const levels = levelsOf(p);
    const offA = this.offset(a);
    const steady = b - a <= 7 * 86_400_000 && this.offset(b) === offA ? offA : null;
    const bounds = this.boundsOf(a, b, energy, steady);
    const pricing: PeriodPricing = { start_date_time: p.start_date_time, elements: {} };
    for (let s = 0; s + 1 < bounds.length; s++) {
      const f = bounds[s];
      const share = bounds[s + 1] - f;
      const sa = a + f * Math.max(0, b - a);
      const c: Ctx = { local: steady !== null ? localAt(sa + steady) : this.clock(sa), durationS: (sa - this.t0) / 1000, kwhBefore: this.kwh + energy * f, ...levels };
      const at = ++this.seq;
      this.work += PIECE_COST;
      for (const dim of BILLED) {
        const v = vols[dim] * share;
        if (!(v > 0)) continue;
        const hit = dim === 'RESERVATION_TIME' ? this.reservationKind(c, 'TIME') : this.pick(dim, c, null);
        if (hit === null) continue;
        this.lines[dim].push({ component: hit.component, units: v * UNIT[dim] });
        this.last[dim] = { component: hit.component, index: hit.index, at };
        if (pricing.elements[dim] === undefined) pricing.elements[dim] = hit.index;
      }
    }
    this.out.push(pricing);
    this.kwh += energy;
  }

  /**
   * step_size on each dimension's total, at the component that billed it last (D143). When parking
   * is billed after the last charging time, the TIME step is not applied; the parking step rounds
   * the parking time alone, or the charging and parking time together when one element priced
   * both last (D257).
   */
  private stepExtras(): Partial<Record<Billed, Line>> {
    const extra: Partial<Record<Billed, Line>> = {};
    const time = this.last.TIME;
    const parking = this.last.PARKING_TIME;
    const intoParking = time !== undefined && parking !== undefined && parking.at > time.at;
    for (const dim of BILLED) {
      const l = this.last[dim];
      if (l === undefined || (dim === 'TIME' && intoParking)) continue;
      const step = l.component.step_size ?? 0;
      if (!(step > 0)) continue;
      let total = sumUnits(this.lines[dim]);
      // Charging time already billed counts towards the step of the element that prices both.
      const before = dim === 'PARKING_TIME' && intoParking && parking.index === time.index ? sumUnits(this.lines.TIME) : 0;
      total += before;
      // Only what lies below the CDR's own precision is forgiven (half the last digit of the OCPI
      // number's 4 decimals: 0.05 Wh, 0.18 s), and float noise (a billionth of a step, so that no
      // round volume sits on the threshold); never a fraction of the step.
      const stepped = Math.ceil((total - STEP_FORGIVEN_CDR * UNIT[dim]) / step - 1e-9) * step;
      if (stepped > total) extra[dim] = { component: l.component, units: stepped - total };
    }
    return extra;
  }

  /** FLAT at the session's start, and a reservation's FLAT from a reservation element (D142, D144). */
  private flats(): { fixed: Money; reservation: Money } {
    const p0 = this.periods[0];
    const start: Ctx = {
      local: this.clock(this.t0),
      durationS: 0,
      kwhBefore: 0,
      ...(p0 !== undefined ? levelsOf(p0) : NO_LEVELS),
    };
    const flatOf = (hit: Hit | null): Money => (hit === null ? NO_MONEY : { excl_vat: hit.component.price, incl_vat: hit.component.price * (1 + (hit.component.vat ?? 0) / 100) });
    const hasReservation = this.periods.some((p) => volumeOf(p, 'RESERVATION_TIME') > 0);
    return {
      fixed: this.hasCharging ? flatOf(this.pick('FLAT', start, null)) : NO_MONEY,
      reservation: hasReservation ? flatOf(this.reservationKind(start, 'FLAT')) : NO_MONEY,
    };
  }

  /** The priced session: costs per dimension with their steps, FLAT fees, the bounded total, 4 decimals (D145, D146). */
  result(): CdrCost {
    const extra = this.stepExtras();
    const withStep = (dim: Billed): Line[] => (extra[dim] ? [...this.lines[dim], extra[dim]] : this.lines[dim]);
    const cost = (dim: Billed): Money => {
      let excl = 0;
      let incl = 0;
      for (const l of withStep(dim)) {
        const x = (l.units / UNIT[dim]) * l.component.price;
        excl += x;
        incl += x * (1 + (l.component.vat ?? 0) / 100);
      }
      return { excl_vat: excl, incl_vat: incl };
    };
    const [energyCost, timeCost, parkingCost, reservationTimeCost] = [cost('ENERGY'), cost('TIME'), cost('PARKING_TIME'), cost('RESERVATION_TIME')];
    const { fixed, reservation: reservationFlat } = this.flats();
    const reservation: Money = { excl_vat: reservationTimeCost.excl_vat + reservationFlat.excl_vat, incl_vat: reservationTimeCost.incl_vat + reservationFlat.incl_vat };
    const parts = [energyCost, timeCost, parkingCost, fixed, reservation];
    const total = boundTotal(
      parts.reduce((x, m) => x + m.excl_vat, 0),
      parts.reduce((x, m) => x + m.incl_vat, 0),
      this.tariff.min_price,
      this.tariff.max_price,
    );
    const billedVolume = (dim: Billed): number => r4(withStep(dim).reduce((x, y) => x + y.units, 0) / UNIT[dim]);
    return {
      total_cost: m4(total.money),
      total_energy_cost: m4(energyCost),
      total_time_cost: m4(timeCost),
      total_parking_time_cost: m4(parkingCost),
      total_fixed_cost: m4(fixed),
      total_reservation_cost: m4(reservation),
      billed: { energy: billedVolume('ENERGY'), time: billedVolume('TIME'), parking_time: billedVolume('PARKING_TIME'), reservation_time: billedVolume('RESERVATION_TIME') },
      price_bound: total.bound,
      periods: this.out,
    };
  }
}

/** Index of the first element of sorted `xs` greater than `x` (binary search). */
function firstAbove(xs: readonly number[], x: number): number {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (xs[mid] <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
const sumUnits = (lines: readonly Line[]): number => lines.reduce((x, y) => x + y.units, 0);
const r4 = (x: number): number => Math.round(x * 1e4) / 1e4 + 0;
const m4 = (m: Money): Money => ({ excl_vat: r4(m.excl_vat), incl_vat: r4(m.incl_vat) });
