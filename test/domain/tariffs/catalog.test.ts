import { describe, expect, it } from 'vitest';
import { TariffCatalog, type CatalogChange } from '../../../src/domain/tariffs/catalog.js';
import type { StoredTariff } from '../../../src/domain/tariffs/model.js';

function t(id: string, emp: string, extra: Partial<StoredTariff> = {}): StoredTariff {
  return {
    id, type: 'tariff', version: 1, created_at: 0, updated_at: 0, name: id, currency: 'EUR', monthly_min_sales: 0, monthly_fee: 0,
    yearly_service_fee: 0, is_flat_rate: false, is_direct_payment: false, provider_customer_only: false, notes: null, url: null,
    no_price_policy: 'inherit', no_price_reason: 'inherit', apply_prices_to_sub_tariff: null, supported_countries: [], tags: [],
    prices: [], is_card_payment: false, is_secondary_tariff: false, existing_customer_only: false, integration_status: 'complete',
    system_tags: [], branding: null, charge_card_id: null, emp_id: emp, cpo_id: null, super_tariff_ids: [], vehicle_brand_ids: [], ...extra,
  };
}

describe('TariffCatalog', () => {
  it('orders by id, groups by EMP, tracks sub tariffs, generation and listeners', () => {
    const cat = new TariffCatalog([t('b', 'e1'), t('a', 'e2')], [{ tariff_id: 'a', station_id: 's1', prices: [] }], 7);
    expect(cat.generation).toBe(7);
    expect(cat.all().map((x) => x.id)).toEqual(['a', 'b']);
    const seen: CatalogChange[] = [];
    cat.onChange((c) => seen.push(c));
    cat.upsert(t('c', 'e1', { type: 'sub_tariff', name: null, super_tariff_ids: ['b'] }), 8);
    expect(cat.ofEmp('e1').map((x) => x.id)).toEqual(['b', 'c']);
    expect(cat.subTariffsOf('b').map((x) => x.id)).toEqual(['c']);
    cat.upsert(t('c', 'e1', { type: 'sub_tariff', name: null, super_tariff_ids: ['a'], version: 2 }), 9);
    expect(cat.subTariffsOf('b')).toEqual([]);
    expect(cat.subTariffsOf('a').map((x) => x.version)).toEqual([2]);
    expect(cat.stationPricesOf('a').has('s1')).toBe(true);
    cat.remove('a', 10);
    expect(cat.get('a')).toBeUndefined();
    expect(cat.stationPricesOf('a').size).toBe(0);
    cat.companyChanged('e9', 'delete', 11);
    expect(cat.generation).toBe(11);
    expect(seen.map((c) => [c.kind, c.op, c.generation])).toEqual([
      ['tariff', 'upsert', 8],
      ['tariff', 'upsert', 9],
      ['tariff', 'delete', 10],
      ['company', 'delete', 11],
    ]);
  });
});
