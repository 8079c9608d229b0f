/** Raw tariff (D58) and tariff metadata (D61) resource objects, serialized once per record. */
import type { CompanyRegistry } from '../../domain/companies/registry.js';
import { totalMonthlyFee, type StoredTariff } from '../../domain/tariffs/model.js';
import type { ResourceObject } from '../jsonapi/document.js';
import type { RawTariffResource, SimpleTariffResource } from '../schemas/tariffs.js';

export const TARIFF_ATTRIBUTES = [
  'name',
  'created_at',
  'updated_at',
  'version',
  'monthly_min_sales',
  'monthly_fee',
  'yearly_service_fee',
  'is_flat_rate',
  'is_direct_payment',
  'provider_customer_only',
  'currency',
  'notes',
  'url',
  'no_price_policy',
  'no_price_reason',
  'apply_prices_to_sub_tariff',
  'supported_countries',
  'tags',
  'prices',
  'is_card_payment',
  'is_secondary_tariff',
  'existing_customer_only',
  'integration_status',
  'system_tags',
  'branding',
  'charge_card_id',
] as const;

export const TARIFF_FIELDS: readonly string[] = [...TARIFF_ATTRIBUTES, 'price_selection', 'min_price', 'max_price', 'vehicle_brands', 'super_tariffs', 'emp', 'cpo'];

export function rawTariffResource(t: StoredTariff, companies: CompanyRegistry): RawTariffResource {
  const attributes: RawTariffResource['attributes'] = {
    name: t.name,
    created_at: t.created_at,
    updated_at: t.updated_at,
    version: t.version,
    monthly_min_sales: t.monthly_min_sales,
    monthly_fee: t.monthly_fee,
    yearly_service_fee: t.yearly_service_fee,
    is_flat_rate: t.is_flat_rate,
    is_direct_payment: t.is_direct_payment,
    provider_customer_only: t.provider_customer_only,
    currency: t.currency,
    notes: t.notes,
    url: t.url,
    no_price_policy: t.no_price_policy,
    no_price_reason: t.no_price_reason,
    apply_prices_to_sub_tariff: t.apply_prices_to_sub_tariff,
    supported_countries: t.supported_countries,
    tags: t.tags,
    prices: t.prices,
    is_card_payment: t.is_card_payment,
    is_secondary_tariff: t.is_secondary_tariff,
    existing_customer_only: t.existing_customer_only,
    integration_status: t.integration_status,
    system_tags: t.system_tags,
    branding: t.branding,
    charge_card_id: t.charge_card_id,
  };
  // D147, D149: only on tariffs that select the first match (other tariffs read as before).
  if (t.price_selection === 'first_match') {
    attributes.price_selection = t.price_selection;
    attributes.min_price = t.min_price ?? null;
    attributes.max_price = t.max_price ?? null;
  }
  return {
    id: t.id,
    type: t.type,
    attributes,
    relationships: {
      vehicle_brands: { data: t.vehicle_brand_ids.map((id) => ({ type: 'brand', id })) },
      super_tariffs: { data: t.super_tariff_ids.map((id) => ({ type: 'tariff', id })) },
      emp: { data: companies.has(t.emp_id) ? { type: 'company', id: t.emp_id } : null },
      cpo: { data: t.cpo_id !== null && companies.has(t.cpo_id) ? { type: 'company', id: t.cpo_id } : null },
    },
  };
}

export function simpleTariffResource(t: StoredTariff, companies: CompanyRegistry): SimpleTariffResource {
  const emp = companies.get(t.emp_id);
  return {
    id: t.id,
    type: 'tariff',
    attributes: {
      provider: emp?.name ?? null,
      name: t.name,
      total_monthly_fee: totalMonthlyFee(t),
      currency: t.currency,
      is_direct_payment: t.is_direct_payment,
      is_vehicle_brand_restricted: t.vehicle_brand_ids.length > 0,
      is_card_payment: t.is_card_payment,
      existing_customer_only: t.existing_customer_only,
      is_secondary_tariff: t.is_secondary_tariff,
      provider_customer_only: t.provider_customer_only,
      integration_status: t.integration_status,
      branding: t.branding,
      supported_countries: t.supported_countries,
      charge_card_id: t.charge_card_id ?? '0',
    },
    relationships: {
      emp: { data: emp !== undefined ? { type: 'company', id: t.emp_id } : null },
      vehicle_brands: { data: t.vehicle_brand_ids.map((id) => ({ type: 'vehicle_brand', id })) },
    },
  };
}

interface Cached<R> {
  t: StoredTariff;
  gen: number;
  res: R;
  json: string;
}

/** Per-record serialization cache, valid while the record and the company registry are unchanged. */
export class ResourceCache<R extends ResourceObject> {
  private readonly cache = new Map<string, Cached<R>>();

  constructor(
    private readonly companies: CompanyRegistry,
    private readonly build: (t: StoredTariff, companies: CompanyRegistry) => R,
  ) {}

  private get(t: StoredTariff): Cached<R> {
    const gen = this.companies.generation;
    const hit = this.cache.get(t.id);
    if (hit !== undefined && hit.t === t && hit.gen === gen) return hit;
    const res = this.build(t, this.companies);
    const c = { t, gen, res, json: JSON.stringify(res) };
    this.cache.set(t.id, c);
    return c;
  }

  resource(t: StoredTariff): R {
    return this.get(t).res;
  }

  json(t: StoredTariff): string {
    return this.get(t).json;
  }

  forget(id: string): void {
    this.cache.delete(id);
  }
}
