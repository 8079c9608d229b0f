/**
 * The costliest cdr_cost bodies (D172, D226): per shape, the largest one its cost bound still
 * accepts and the smallest one it refuses, found by bisection on the shape's size. The shapes are
 * those D172 names: one 32-day period, periods of 4 minutes, a week across the change to summer
 * time, 4 long periods, 700 hourly periods; every element a one-minute window, spread over the day.
 */
import { checkBound, CdrTooComplex, type OcpiSessionInput, type OcpiTariffInput } from '../../src/domain/ocpi/cdr-cost.js';

export interface CdrAttributes {
  tariff: OcpiTariffInput;
  cdr: OcpiSessionInput;
  timezone: string;
}

const S = Date.parse('2026-03-10T00:00:00Z');
const iso = (t: number): string => new Date(t).toISOString();
const hhmm = (m: number): string => `${String(Math.floor(m / 60) % 24).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;
const elements = (n: number): OcpiTariffInput['elements'] =>
  Array.from({ length: n }, (_, i) => ({
    price_components: [{ type: 'TIME' as const, price: 1 }],
    restrictions: { start_time: hhmm(Math.floor((i * 1440) / n)), end_time: hhmm(Math.floor((i * 1440) / n) + 1) },
  }));
const time = [{ type: 'TIME', volume: 1 }];
const month = { start_date_time: iso(S), end_date_time: iso(S + 31 * 86_400_000) };
const tariff = (n: number): OcpiTariffInput => ({ currency: 'EUR', elements: elements(n) });

/** A shape: its body at size n (elements, or periods), and the largest size the schema allows. */
export interface Shape {
  name: string;
  make(n: number): CdrAttributes;
  max: number;
}

export const SHAPES: Shape[] = [
  {
    name: 'one 32-day period, n elements',
    max: 1000,
    make: (n) => ({ tariff: tariff(n), cdr: { ...month, charging_periods: [{ start_date_time: iso(S - 86_000_000), dimensions: time }] }, timezone: 'Europe/Berlin' }),
  },
  {
    name: 'n periods of 4 minutes, 3 elements',
    max: 10_000,
    make: (n) => ({ tariff: tariff(3), cdr: { ...month, charging_periods: Array.from({ length: n }, (_, i) => ({ start_date_time: iso(S + i * 267_000), dimensions: [] })) }, timezone: 'Europe/Berlin' }),
  },
  {
    name: 'a week across summer time, n elements',
    max: 1000,
    make: (n) => ({
      tariff: tariff(n),
      cdr: { start_date_time: '2026-03-25T00:00:00Z', end_date_time: '2026-04-01T00:00:00Z', charging_periods: [{ start_date_time: '2026-03-25T00:00:00Z', dimensions: time }] },
      timezone: 'Europe/Berlin',
    }),
  },
  {
    name: '4 long periods, n elements',
    max: 1000,
    make: (n) => ({ tariff: tariff(n), cdr: { ...month, charging_periods: [0, 1, 2, 3].map((i) => ({ start_date_time: iso(S + i * 7.75 * 86_400_000), dimensions: time })) }, timezone: 'Europe/Berlin' }),
  },
  {
    name: '700 hourly periods, n elements',
    max: 1000,
    make: (n) => ({
      tariff: tariff(n),
      cdr: {
        ...month,
        charging_periods: Array.from({ length: 700 }, (_, i) => ({ start_date_time: iso(S + i * 3_600_000), dimensions: [{ type: 'ENERGY', volume: 5 }, { type: 'TIME', volume: 1 }] })),
      },
      timezone: 'Europe/Berlin',
    }),
  },
];

function accepted(a: CdrAttributes): boolean {
  try {
    checkBound(a.tariff, a.cdr, a.timezone);
    return true;
  } catch (e) {
    if (e instanceof CdrTooComplex) return false;
    throw e;
  }
}

/** The largest size of a shape its bound accepts (bisection; the bound grows with the size). */
export function largestAccepted(shape: Shape): number {
  let lo = 1;
  let hi = shape.max;
  if (accepted(shape.make(hi))) return hi;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (accepted(shape.make(mid))) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

export const requestBody = (a: CdrAttributes): { data: { type: 'ocpi_cdr_cost_request'; attributes: CdrAttributes } } => ({ data: { type: 'ocpi_cdr_cost_request', attributes: a } });
