/**
 * The straightforward `POST /v1/charge_prices` document: `chargePriceEntries` objects, one
 * attributes object per entry and JSON.stringify. The service writes the same document straight
 * into bytes (src/api/prices/charge-prices.writer.ts); this path is the reference for its byte-for-byte test
 * (test/http/prices-serialize.test.ts) and the baseline of its micro-benchmark
 * (bench/charge-prices.bench.ts).
 */
import { computedId } from '../../src/domain/ids.js';
import {
  computeChargePrices,
  metaChargePoints,
  reasonText,
  visibleTags,
  type PricingCatalog,
  type RateTable,
} from '../../src/domain/pricing/index.js';
import { chargePriceEntries } from '../../test/oracles/charge-price-entries.js';
import type { StoredTariff } from '../../src/domain/tariffs/model.js';
import type { ChargePricesTask } from '../../src/pool/protocol.js';

export function straightforwardChargePrices(catalog: PricingCatalog, t: ChargePricesTask, rates: RateTable): string {
  const js = JSON.stringify;
  const comp = computeChargePrices(catalog, { station: t.station, input: t.input, options: t.options, listed: t.listed, include: t.include }, rates);
  const entries = chargePriceEntries(catalog, comp, t.showPriceUnavailable, rates);
  const listed = t.listed === null ? null : new Set(t.listed);
  const parts: string[] = [];
  for (const e of entries) {
    const tariff = e.tariff.tariff as unknown as StoredTariff;
    const emp = catalog.companies.get(tariff.emp_id);
    const prices = e.chargePointPrices.map((p) => ({
      plug: p.plug,
      power: p.power,
      price: p.price,
      price_distribution: p.price_distribution,
      blocking_fee_start: p.blocking_fee_start,
      no_price_reason: p.no_price_reason === null ? null : reasonText(p.no_price_reason, t.lang),
      is_average_price: p.is_average_price,
    }));
    const attributes = {
      provider: emp?.name ?? '',
      tariff_name: tariff.name ?? null,
      url: tariff.url ?? emp?.url ?? null,
      monthly_min_sales: e.monthlyMinSales,
      total_monthly_fee: e.totalMonthlyFee,
      flat_rate: tariff.is_flat_rate === true,
      direct_payment: tariff.is_direct_payment === true,
      is_card_payment: tariff.is_card_payment === true,
      provider_customer_tariff: tariff.provider_customer_only === true,
      is_roaming: e.isRoaming,
      is_promoted: false,
      currency: t.options.currency,
      tags: visibleTags(tariff.tags ?? [], t.lang, t.nowMs, listed !== null && listed.has(tariff.id)),
      system_tags: tariff.system_tags ?? [],
      start_time: t.options.start_time,
      branding: tariff.branding ?? null,
      charge_point_prices: prices,
    };
    parts.push(
      `{"id":${js(computedId('charge_price', tariff.id))},"type":"charge_price","attributes":${js(attributes)},` +
        `"relationships":{"tariff":{"data":{"type":"tariff","id":${js(tariff.id)}}}}}`,
    );
  }
  return `{"data":[${parts.join(',')}],"meta":{"charge_points":${js(metaChargePoints(comp))}}}`;
}
