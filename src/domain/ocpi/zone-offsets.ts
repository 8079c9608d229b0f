/**
 * UTC offsets of IANA time zones as tables of transitions, found once per zone and year with
 * Intl and then read by binary search (D224): pricing a CDR needs the local clock at every cut,
 * and `Intl.DateTimeFormat.formatToParts` costs 5–10 µs a call, more than the rest of a simple CDR.
 *
 * A year's table is built from the offset at every UTC midnight of the year (366 look-ups, about
 * 2 ms once per zone and year); where two midnights differ, the instant of the change is found to
 * the second by bisection. Two changes within one day would be missed; the tz database has none
 * since 1970 in any zone. `intlOffset` stays as the straightforward twin (tests compare them).
 */

const DAY_MS = 86_400_000;

/** Intl formatters by zone: making one costs tens of µs. */
const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(tz: string): Intl.DateTimeFormat {
  let f = formatters.get(tz);
  if (f === undefined) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: tz, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' });
    if (formatters.size >= 256) formatters.clear();
    formatters.set(tz, f);
  }
  return f;
}

/** Offset of local time from UTC at an instant (ms), from Intl: the reference the tables are built from. */
export function intlOffset(tz: string, ms: number): number {
  const p: Record<string, number> = {};
  for (const x of formatter(tz).formatToParts(ms)) if (x.type !== 'literal') p[x.type] = Number(x.value);
  return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second) - Math.floor(ms / 1000) * 1000;
}

/** One year of a zone: the offset from each start instant on (starts ascending, the first the year's start). */
interface YearTable {
  starts: number[];
  offsets: number[];
}

function buildYear(tz: string, year: number): YearTable {
  const from = Date.UTC(year, 0, 1);
  const to = Date.UTC(year + 1, 0, 1);
  const starts = [from];
  const offsets = [intlOffset(tz, from)];
  let prev = offsets[0];
  for (let d = from + DAY_MS; d <= to; d += DAY_MS) {
    const o = intlOffset(tz, d);
    if (o === prev) continue;
    // The change lies in (d - 1 day, d]: bisect to the second.
    let lo = d - DAY_MS;
    let hi = d;
    while (hi - lo > 1000) {
      const mid = lo + Math.floor((hi - lo) / 2000) * 1000;
      if (intlOffset(tz, mid) === prev) lo = mid;
      else hi = mid;
    }
    if (hi < to) {
      starts.push(hi);
      offsets.push(o);
    }
    prev = o;
  }
  return { starts, offsets };
}

const MAX_ZONES = 512;
const MAX_YEARS = 64;
const tables = new Map<string, Map<number, YearTable>>();

function yearTable(tz: string, year: number): YearTable {
  let years = tables.get(tz);
  if (years === undefined) {
    if (tables.size >= MAX_ZONES) tables.clear();
    tables.set(tz, (years = new Map<number, YearTable>()));
  }
  let t = years.get(year);
  if (t === undefined) {
    // Requests choose the years (any CDR date): kept boundedly, rebuilt on demand.
    if (years.size >= MAX_YEARS) years.clear();
    years.set(year, (t = buildYear(tz, year)));
  }
  return t;
}

const isUtc = (tz: string): boolean => tz === 'UTC' || tz === 'Etc/UTC' || tz === 'Etc/GMT' || tz === 'GMT';

/** The proleptic Gregorian year of an instant (ms), by arithmetic (H. Hinnant's civil_from_days): no Date. */
export function yearOf(ms: number): number {
  const z = Math.floor(ms / DAY_MS) + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  return yoe + era * 400 + (mp >= 10 ? 1 : 0);
}

const NO_STARTS: number[] = [];

/**
 * A zone read from its tables: the offset at an instant and the changes of offset, with the year
 * last read kept, so that reading a session allocates nothing (D280). One reader per zone is
 * kept (`zone`); the tables stay shared with `zoneOffset` and `offsetChangesIn`.
 */
export class Zone {
  readonly utc: boolean;
  private from = 0;
  private to = 0;
  private starts: number[] = NO_STARTS;
  private offsets: number[] = NO_STARTS;

  constructor(readonly tz: string) {
    this.utc = isUtc(tz);
  }

  /** Offset of local time from UTC at `ms` (ms). */
  offset(ms: number): number {
    if (this.utc) return 0;
    if (!(ms >= this.from && ms < this.to)) {
      const y = yearOf(ms);
      const t = yearTable(this.tz, y);
      this.starts = t.starts;
      this.offsets = t.offsets;
      this.from = Date.UTC(y, 0, 1);
      this.to = Date.UTC(y + 1, 0, 1);
    }
    const starts = this.starts;
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= ms) lo = mid;
      else hi = mid - 1;
    }
    return this.offsets[lo];
  }

  /** The first instant strictly inside (a, b) where the offset changes, or Infinity (as `offsetChangesIn`). */
  changeAfter(a: number, b: number): number {
    if (this.utc || !(b > a)) return Infinity;
    const last = yearOf(b);
    for (let y = yearOf(a); y <= last; y++) {
      const { starts } = yearTable(this.tz, y);
      for (let i = 1; i < starts.length; i++) if (starts[i] > a && starts[i] < b) return starts[i];
    }
    return Infinity;
  }
}

const readers = new Map<string, Zone>();

/** The reader of zone `tz` (kept, at most MAX_ZONES). */
export function zone(tz: string): Zone {
  let z = readers.get(tz);
  if (z === undefined) {
    if (readers.size >= MAX_ZONES) readers.clear();
    readers.set(tz, (z = new Zone(tz)));
  }
  return z;
}

/** The offset function of a zone (ms → ms), read from its tables. */
export function zoneOffset(tz: string): (ms: number) => number {
  const z = new Zone(tz);
  return (ms) => z.offset(ms);
}

/**
 * Instants strictly inside (a, b) where the zone's offset changes, read from its year tables (the
 * changes they were built from; none for UTC). A change exactly at a year's first instant is not
 * one of them, as `zoneOffset` does not see it either.
 */
export function offsetChangesIn(tz: string, a: number, b: number): number[] {
  if (isUtc(tz) || !(b > a)) return [];
  const out: number[] = [];
  const last = new Date(b).getUTCFullYear();
  for (let y = new Date(a).getUTCFullYear(); y <= last; y++) {
    const { starts } = yearTable(tz, y);
    for (let i = 1; i < starts.length; i++) if (starts[i] > a && starts[i] < b) out.push(starts[i]);
  }
  return out;
}
