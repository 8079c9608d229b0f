/**
 * Currency conversion (D84–D85): amount_target = amount_src / rate[src] × rate[target], rates in
 * units per 1 EUR. The operation order is kept exactly so that results match the observed values
 * digit for digit (X7).
 */
import type { RateTable } from './model.js';

export function hasCurrency(rates: RateTable, code: string): boolean {
  return code === 'EUR' || Number.isFinite(rates.rates[code]);
}

export function rateOf(rates: RateTable, code: string): number {
  if (code === 'EUR' && rates.rates.EUR === undefined) return 1;
  const r = rates.rates[code];
  if (!Number.isFinite(r) || r <= 0) throw new RangeError(`No currency with iso ${code}`);
  return r;
}

/** Converts one amount; identity when both codes are equal. */
export function convertAmount(amount: number, from: string, to: string, rates: RateTable): number {
  if (from === to) return amount;
  return (amount / rateOf(rates, from)) * rateOf(rates, to);
}

/**
 * Per-request conversion into a target currency for the catalog's interned currency codes:
 * `srcRate[i]` is the rate of code i (NaN when the table lacks it), `targetIndex` the target's
 * interned index (−1 when no tariff uses the target currency).
 */
export interface Conversion {
  target: string;
  targetIndex: number;
  targetRate: number;
  srcRate: Float64Array;
}

export function buildConversion(codes: readonly string[], rates: RateTable, target: string): Conversion {
  const srcRate = new Float64Array(codes.length);
  for (let i = 0; i < codes.length; i++) srcRate[i] = hasCurrency(rates, codes[i]) ? rateOf(rates, codes[i]) : NaN;
  return { target, targetIndex: codes.indexOf(target), targetRate: rateOf(rates, target), srcRate };
}
