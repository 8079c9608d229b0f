import {
  DEFAULT_CHARGE_PRICE_OPTIONS,
  PricingCatalog,
  computeChargePrices,
  metaChargePoints,
  type ChargeInput,
  type ChargePointInput,
  type ChargePriceOptions,
  type CompanyInput,
  type PriceComponent,
  type RateTable,
  type Restriction,
  type Segment,
  type StationPrices,
  type TariffInput,
} from '../../../src/domain/pricing/index.js';
import { chargePriceEntries } from '../../oracles/charge-price-entries.js';

export const RATES: RateTable = { date: '2025-01-01', rates: { EUR: 1, CHF: 1.23, GBP: 0.85, DKK: 7.46, SEK: 11.2 } };
export const CPO = 'c0000000-0000-4000-8000-000000000001';
export const EMP = 'e0000000-0000-4000-8000-000000000001';

export function company(id: string, extra: Partial<CompanyInput> = {}): CompanyInput {
  return { id, name: id, is_emp: true, is_cpo: true, supported_emp_ids: [], ...extra };
}

export function seg(dimension: Segment['dimension'], price: number, extra: Partial<Segment> = {}): Segment {
  return { dimension, price, ...extra };
}

export function comp(decomposition: Segment[], restrictions: Restriction[] = []): PriceComponent {
  return { restrictions, decomposition };
}

export function tariff(id: string, prices: PriceComponent[], extra: Partial<TariffInput> = {}): TariffInput {
  return { id, type: 'tariff', name: id, currency: 'EUR', prices, emp_id: EMP, ...extra };
}

export function subTariff(id: string, superId: string, cpoId: string | null, prices: PriceComponent[], extra: Partial<TariffInput> = {}): TariffInput {
  return { id, type: 'sub_tariff', name: null, currency: null, prices, emp_id: EMP, cpo_id: cpoId, super_tariff_ids: [superId], ...extra };
}

/** A catalog where the EMP is a roaming partner of the CPO unless companies are given. */
export function catalogWith(tariffs: TariffInput[], companies: CompanyInput[] = [company(CPO, { supported_emp_ids: [EMP] }), company(EMP)], stationPrices: StationPrices[] = []): PricingCatalog {
  const c = new PricingCatalog();
  for (const co of companies) c.upsertCompany(co);
  for (const t of tariffs.filter((t) => t.type === 'tariff')) c.upsertTariff(t);
  for (const t of tariffs.filter((t) => t.type === 'sub_tariff')) c.upsertTariff(t);
  for (const sp of stationPrices) c.upsertStationPrices(sp);
  return c;
}

export interface PriceCase {
  input?: ChargeInput;
  chargePoints?: ChargePointInput[];
  options?: Partial<ChargePriceOptions>;
  stationId?: string | null;
  country?: string;
  cpoId?: string;
}

/** Prices one tariff (listed exclusively, reasons shown) and returns its entry and the meta. */
export function priceOf(catalog: PricingCatalog, tariffId: string, c: PriceCase = {}) {
  const comp = computeChargePrices(
    catalog,
    {
      station: {
        id: c.stationId ?? null,
        country: c.country ?? 'DE',
        cpo_id: c.cpoId ?? CPO,
        charge_points: c.chargePoints ?? [{ plug: 'type2', power: 22 }],
      },
      input: c.input ?? { kind: 'energy', energy: 22, duration: 60 },
      options: { ...DEFAULT_CHARGE_PRICE_OPTIONS, ...c.options },
      listed: [tariffId],
      include: 'exclusive',
    },
    RATES,
  );
  const entries = chargePriceEntries(catalog, comp, true, RATES);
  return { entry: entries[0], prices: entries[0]?.chargePointPrices ?? [], meta: metaChargePoints(comp), comp };
}
