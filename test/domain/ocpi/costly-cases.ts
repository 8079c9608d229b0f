/**
 * The costliest cdr_cost inputs the schema accepts (D260): tariffs whose every element cuts and
 * scans, sessions of the most periods over the longest span. Used by the bound's tests and by
 * bench/cdr-cost-long.ts.
 */
import type { OcpiPeriod, OcpiTariffInput } from '../../../src/domain/ocpi/cdr-cost.js';

/** The costliest tariff of `n` elements: every element a window, four limits and every dimension of its own, none matching on a Monday. */
export function costliestTariff(n: number): OcpiTariffInput {
  const hhmm = (m: number) => `${String(Math.floor(m / 60) % 24).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;
  return {
    currency: 'EUR',
    elements: Array.from({ length: n }, (_, i) => ({
      price_components: [{ type: 'ENERGY', price: 0.3, step_size: 1 }, { type: 'TIME', price: 1, step_size: 60 }, { type: 'PARKING_TIME', price: 2, step_size: 300 }, { type: 'FLAT', price: 1 }],
      restrictions: { start_time: hhmm(Math.floor((i * 1440) / n)), end_time: hhmm(Math.floor((i * 1440) / n) + 1), min_kwh: i * 0.37, max_kwh: 1000 - i * 0.41, min_duration: 7 + i * 1013, max_duration: 2_600_000 - i * 977, day_of_week: ['SUNDAY'] },
    })),
  };
}
/** `periods` periods over 31 days and the 24 hours before (Europe/Berlin's change to summer time inside), each billing every dimension. */
export function longestSession(periods: number) {
  const s = Date.parse('2026-03-10T00:00:00Z');
  const t0 = s - 86_400_000;
  const t1 = s + 31 * 86_400_000;
  const step = (t1 - t0) / periods;
  const dims = [{ type: 'ENERGY', volume: 0.01 }, { type: 'TIME', volume: step / 3.6e6 }, { type: 'PARKING_TIME', volume: 0.01 }, { type: 'RESERVATION_TIME', volume: 0.01 }];
  const iso = (t: number) => new Date(Math.round(t)).toISOString();
  return { start_date_time: iso(s), end_date_time: iso(t1), charging_periods: Array.from({ length: periods }, (_, i): OcpiPeriod => ({ start_date_time: iso(t0 + i * step), dimensions: dims })) };
}

