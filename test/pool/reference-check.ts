/**
 * Test-side access to the reference evaluator (src/domain/pricing/reference.ts) over the live
 * store of a running test server, to cross-check HTTP answers on real stations and tariffs.
 */
import { referencePrice, type ChargeSession, type RateTable, type ReferenceResult } from '../../src/domain/pricing/index.js';
import { profileOf, type RefCatalog } from '../../bench/lib/reference-catalog.js';

export { loadRefCatalog, profileOf, usable, type RefCatalog } from '../../bench/lib/reference-catalog.js';

export function refPrice(
  cat: RefCatalog,
  tariffId: string,
  station: { id: string | null; cpo_id: string; country: string },
  chargePoint: { energy_type: 'ac' | 'dc'; power: number },
  session: ChargeSession,
  o: { startTime: number; currency: string; rates: RateTable; averagePrices?: boolean },
): ReferenceResult {
  const tariff = cat.tariffs.get(tariffId)!;
  return referencePrice({
    tariff,
    subTariffs: cat.subsOf.get(tariffId) ?? [],
    evsePrices: station.id === null ? [] : (cat.evse.get(tariffId)?.get(station.id) ?? []),
    companies: cat.companies,
    station,
    chargePoint,
    profile: profileOf(session),
    startTime: o.startTime,
    currency: o.currency,
    rates: o.rates,
    averagePrices: o.averagePrices ?? false,
  });
}

export function close(a: number, b: number): boolean {
  return Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));
}
