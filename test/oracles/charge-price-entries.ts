/**
 * The straightforward twin of the charge price writer (src/api/prices/charge-prices.writer.ts):
 * D41's entries as objects, sorted per D92, for `JSON.stringify`. The writer must give the same
 * bytes (test/http/prices-serialize.test.ts); the pricing decision tests read entries from it, and
 * the HTTP bench uses it as the naive path. Test code: nothing in src/ depends on it.
 */
import {
  compareSortKeys,
  convertAmount,
  REASONS,
  type ChargePriceComputation,
  type CompiledTariff,
  type NoPriceReason,
  type PricingCatalog,
  type RateTable,
} from '../../src/domain/pricing/index.js';

export interface ChargePointPrice {
  plug: string;
  power: number;
  price: number | null;
  price_distribution: Record<string, number>;
  blocking_fee_start: number | null;
  /** Untranslated code (D69); translate with `reasonText` (D23). */
  no_price_reason: NoPriceReason | null;
  is_average_price: boolean;
}

export interface ChargePriceEntry {
  tariff: CompiledTariff;
  isRoaming: boolean;
  /** Converted into the requested currency (D85, D86). */
  totalMonthlyFee: number;
  monthlyMinSales: number;
  chargePointPrices: ChargePointPrice[];
}

/** D41: the shown entries, sorted per D92. `meta.charge_points` comes from `metaChargePoints`. */
export function chargePriceEntries(
  catalog: PricingCatalog,
  comp: ChargePriceComputation,
  showPriceUnavailable: boolean,
  rates: RateTable,
): ChargePriceEntry[] {
  const { results, usable, candidates } = comp;
  const nu = usable.length;
  const entries: ChargePriceEntry[] = [];
  for (let t = 0; t < candidates.slots.length; t++) {
    const b = catalog.block(candidates.slots[t])!;
    const showReasons = showPriceUnavailable && comp.policy[t] === 2;
    const prices: ChargePointPrice[] = [];
    let priced = 0;
    for (let j = 0; j < nu; j++) {
      const i = t * nu + j;
      const cp = comp.chargePoints[usable[j]];
      const p = results.price[i];
      if (Number.isNaN(p)) {
        if (!showReasons) continue;
        prices.push({
          plug: cp.plug,
          power: cp.power,
          price: null,
          price_distribution: {},
          blocking_fee_start: null,
          no_price_reason: REASONS[results.reason[i]] as NoPriceReason,
          is_average_price: false,
        });
        continue;
      }
      priced++;
      const blocking = results.blockingFeeStart[i];
      prices.push({
        plug: cp.plug,
        power: cp.power,
        price: p,
        price_distribution: results.distributionOf(i),
        blocking_fee_start: Number.isNaN(blocking) ? null : blocking,
        no_price_reason: null,
        is_average_price: results.isAverage[i] === 1,
      });
    }
    if (priced === 0 && !showReasons) continue;
    const cur = b.tariff.currency ?? 'EUR';
    entries.push({
      tariff: b,
      isRoaming: candidates.roaming[t],
      totalMonthlyFee: convertAmount(b.totalMonthlyFee, cur, comp.conversion.target, rates),
      monthlyMinSales: convertAmount(b.monthlyMinSales, cur, comp.conversion.target, rates),
      chargePointPrices: prices,
    });
  }
  return sortChargePrices(entries, (e) => catalog.companies.get(e.tariff.tariff.emp_id)?.name ?? '');
}

function lowestPrice(e: ChargePriceEntry): number {
  let best = Infinity;
  for (const p of e.chargePointPrices) if (p.price !== null && p.price < best) best = p.price;
  return best;
}

function compareText(a: string | null, b: string | null): number {
  return compareSortKeys(a === null ? null : a.toLowerCase(), b === null ? null : b.toLowerCase());
}

/**
 * D92: ascending by the lowest non-null price; entries with only null prices last; ties by
 * provider, then tariff name (case-insensitive, null last), then tariff ID.
 */
export function sortChargePrices(entries: ChargePriceEntry[], providerOf: (e: ChargePriceEntry) => string): ChargePriceEntry[] {
  const keyed = entries.map((e) => ({ e, low: lowestPrice(e), provider: providerOf(e) }));
  keyed.sort(
    (a, b) =>
      (a.low === b.low ? 0 : a.low < b.low ? -1 : 1) ||
      compareText(a.provider, b.provider) ||
      compareText(a.e.tariff.tariff.name, b.e.tariff.tariff.name) ||
      (a.e.tariff.id < b.e.tariff.id ? -1 : a.e.tariff.id > b.e.tariff.id ? 1 : 0),
  );
  return keyed.map((k) => k.e);
}

