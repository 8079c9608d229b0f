/**
 * The default tariff catalog of the snapshot, built deterministically at snapshot build time:
 *
 * (a) Real CPO ad-hoc (direct payment) tariffs: the published OCPI tariffs of French CPOs staged in
 *     snapshots/sources/tariffs/ocpi-fr (loco-philippe/IRVE, MIT; see its README), converted with
 *     the pricing engine's OCPI converter plus the catalog import rules of
 *     src/domain/tariffs/ocpi-import.ts. Each matched operator with French stations gets one
 *     `tariff` whose `emp` is the operator itself (direct use, D66) and whose components are its
 *     chosen OCPI tariff (cpo-tariffs.json), restricted to France. Stations the data links to a
 *     tariff get that tariff as EVSE-level prices (D64/D65).
 * (b) A clearly labelled SYNTHETIC EMP catalog from a seeded generator (this file; no generated
 *     file is committed): a few dozen invented EMPs ("… (synthetic)") with roaming relationships
 *     to real operators (supported_emps), kWh / minute / session / blocking-fee / time-of-day
 *     structures, monthly and yearly fees, brand-restricted and provider-customer tariffs, sub
 *     tariffs for single CPOs, and a few EMPs in CHF, GBP and DKK.
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { v5 as uuidv5 } from 'uuid';
import { ocpiToComponents } from '../domain/pricing/ocpi.js';
import { importOcpiTariff, type OcpiConverter, type OcpiTariffObject } from '../domain/tariffs/ocpi-import.js';
import type {
  StoredComponent,
  StoredRestriction,
  StoredSegment,
  StoredStationPrices,
  StoredTag,
  StoredTariff,
} from '../domain/tariffs/model.js';
import { mulberry32 } from '../domain/random.js';

/** Namespace of the catalog's name-based ids. */
const NS = '6d1f8a52-3c1e-4b7a-9d51-0f2b9a7c4e10';
const id = (name: string): string => uuidv5(name, NS);

/** Fixed timestamp of catalog records in the snapshot (the live store stamps its own on seeding). */
const CATALOG_TIME = Date.UTC(2026, 6, 1);
/** Date at which OCPI start_date/end_date restrictions are evaluated (the data's latest month). */
const OCPI_DATE = '2026-07-01';

export interface CatalogCompany {
  id: string;
  name: string;
  url: string | null;
  is_cpo: boolean;
  is_emp: boolean;
  emp_group: string | null;
}

export interface DefaultCatalog {
  /** Synthetic EMP companies (the real operators are the snapshot's operators). */
  companies: CatalogCompany[];
  /** operator id → synthetic EMP ids it supports (added to the operator's supported_emps). */
  roaming: Array<{ cpo_id: string; emp_ids: string[] }>;
  tariffs: StoredTariff[];
  stationPrices: StoredStationPrices[];
  warnings: string[];
}

export interface CatalogInput {
  sourcesDir: string;
  operators: ReadonlyArray<{ id: string; name: string; countries: string[]; station_count?: number }>;
  /** Ids of the stations in this snapshot (station prices are kept only for these). */
  stationIds: ReadonlySet<string>;
  brands: ReadonlyArray<{ id: string; name: string }>;
  /** OCPI → segment converter (default: the pricing engine's). */
  convert?: OcpiConverter;
}

// ---------------------------------------------------------------- helpers

function restriction(r: Partial<StoredRestriction>): StoredRestriction {
  return {
    allowance: 'allow',
    charge_point_powers: [],
    charge_point_energy_type: null,
    cpo_ids: [],
    countries: [],
    car_ac_phase: null,
    charge_point_power_is_range: false,
    use_consumed_charging_power: false,
    ...r,
  };
}

function seg(dimension: StoredSegment['dimension'], price: number, s: Partial<StoredSegment> = {}): StoredSegment {
  return {
    dimension,
    price,
    range_gte: null,
    range_lt: null,
    billing_increment: null,
    currency: null,
    time_of_day_start: null,
    time_of_day_end: null,
    is_average_price: false,
    occupancy_gte: null,
    occupancy_lt: null,
    ...s,
  };
}

function tariff(t: Partial<StoredTariff> & Pick<StoredTariff, 'id' | 'emp_id' | 'currency'>): StoredTariff {
  return {
    type: 'tariff',
    version: 1,
    created_at: CATALOG_TIME,
    updated_at: CATALOG_TIME,
    name: null,
    monthly_min_sales: 0,
    monthly_fee: 0,
    yearly_service_fee: 0,
    is_flat_rate: false,
    is_direct_payment: false,
    provider_customer_only: false,
    notes: null,
    url: null,
    no_price_policy: 'inherit',
    no_price_reason: 'inherit',
    apply_prices_to_sub_tariff: null,
    supported_countries: [],
    tags: [],
    prices: [],
    is_card_payment: false,
    is_secondary_tariff: false,
    existing_customer_only: false,
    integration_status: 'complete',
    system_tags: [],
    branding: null,
    charge_card_id: null,
    cpo_id: null,
    super_tariff_ids: [],
    vehicle_brand_ids: [],
    ...t,
  };
}

const round2 = (x: number): number => Math.round(x * 100) / 100;

// ---------------------------------------------------------------- (a) real CPO tariffs

interface CpoChoice {
  operator_id: string;
  operator_name: string;
  fr_station_count: number;
  file: string;
  party_id: string | null;
  tariff_id: string;
  reason: string;
}

interface StationLink {
  id: string;
  operator: string;
  tariffs: Array<{ file: string; party_id: string; id: string; linked_charge_points: number }>;
}

function cpoTariffs(input: CatalogInput, convert: OcpiConverter, warnings: string[]): { tariffs: StoredTariff[]; stationPrices: StoredStationPrices[] } {
  const dir = path.join(input.sourcesDir, 'tariffs', 'ocpi-fr');
  const files = JSON.parse(zlib.gunzipSync(fs.readFileSync(path.join(dir, 'tariffs.json.gz'))).toString('utf8')) as Record<string, OcpiTariffObject[]>;
  const choices = JSON.parse(fs.readFileSync(path.join(dir, 'cpo-tariffs.json'), 'utf8')) as CpoChoice[];
  const links = zlib
    .gunzipSync(fs.readFileSync(path.join(dir, 'station-tariffs.jsonl.gz')))
    .toString('utf8')
    .split('\n')
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l) as StationLink);
  const operatorIds = new Set(input.operators.map((o) => o.id));
  const find = (file: string, party: string | null, tid: string): OcpiTariffObject | undefined =>
    files[file]?.find((t) => t.id === tid && (party === null || t.party_id === undefined || t.party_id === party));
  type Converted = { currency: string; prices: StoredComponent[]; min_price: number | null; max_price: number | null };
  const converted = new Map<string, Converted>();
  const france = restriction({ countries: ['FR'] });
  const convertOne = (file: string, party: string | null, tid: string): Converted | null => {
    const key = `${file}|${party}|${tid}`;
    const hit = converted.get(key);
    if (hit) return hit;
    const obj = find(file, party, tid);
    if (obj === undefined) {
      warnings.push(`${key}: OCPI tariff not found`);
      return null;
    }
    const r = importOcpiTariff(obj, convert, { defaultVat: 20, defaultCurrency: 'EUR', date: OCPI_DATE });
    for (const w of r.warnings) warnings.push(`${key}: ${w}`);
    const out = {
      currency: r.currency,
      prices: r.prices.map((c) => ({ restrictions: [france, ...c.restrictions], decomposition: c.decomposition })),
      min_price: r.min_price,
      max_price: r.max_price,
    };
    converted.set(key, out);
    return out;
  };

  const tariffs: StoredTariff[] = [];
  const byOperator = new Map<string, string>();
  for (const c of choices) {
    if (c.fr_station_count === 0 || !operatorIds.has(c.operator_id) || byOperator.has(c.operator_id)) continue;
    const conv = convertOne(c.file, c.party_id, c.tariff_id);
    if (conv === null || conv.prices.length === 0) continue;
    const obj = find(c.file, c.party_id, c.tariff_id)!;
    const alt = obj.tariff_alt_text?.find((x) => x.language === 'fr')?.text;
    const tid = id(`cpo-adhoc:${c.operator_id}`);
    byOperator.set(c.operator_id, tid);
    tariffs.push(
      tariff({
        id: tid,
        emp_id: c.operator_id,
        name: `${c.operator_name} – paiement direct`,
        currency: conv.currency,
        is_direct_payment: true,
        is_card_payment: true,
        supported_countries: [],
        prices: conv.prices,
        // D147–D149: priced as OCPI prices it (first match, days, bounds).
        price_selection: 'first_match',
        ...(conv.min_price !== null ? { min_price: conv.min_price } : {}),
        ...(conv.max_price !== null ? { max_price: conv.max_price } : {}),
        notes:
          `Ad-hoc price published by the CPO as OCPI tariff ${c.party_id ?? '?'}/${c.tariff_id}` +
          (alt ? ` ("${alt}")` : '') +
          `; ${c.reason}. Source: loco-philippe/IRVE (MIT), QualiCharge survey data. Prices incl. 20 % VAT where the object gives none.`,
        system_tags: ['ocpi_import'],
      }),
    );
  }
  const stationPrices: StoredStationPrices[] = [];
  for (const l of links) {
    const tid = byOperator.get(l.operator);
    if (tid === undefined || !input.stationIds.has(l.id)) continue;
    // The tariff linked to most of the station's charge points (per-charge-point links are not modelled).
    const best = [...l.tariffs].sort((a, b) => b.linked_charge_points - a.linked_charge_points || (a.id < b.id ? -1 : 1))[0];
    const conv = convertOne(best.file, best.party_id, best.id);
    if (conv === null || conv.prices.length === 0) continue;
    stationPrices.push({ tariff_id: tid, station_id: l.id, prices: conv.prices });
  }
  return { tariffs, stationPrices };
}

// ---------------------------------------------------------------- (b) synthetic EMPs

const SYLLABLES_A = ['Volt', 'Ampe', 'Ohmi', 'Kilo', 'Watt', 'Flux', 'Spark', 'Curra', 'Ioni', 'Elek', 'Lumo', 'Nova', 'Zephy', 'Terra', 'Helio', 'Rivo'];
const SYLLABLES_B = ['ra', 'rio', 'nix', 'vora', 'len', 'lyx', 'mo', 'tica', 'go', 'sta'];
const SUFFIX = ['Mobility', 'Charge', 'Drive', 'Energy', 'Plug', 'Roam'];

interface Home {
  country: string;
  currency: string;
  lang: string;
}

const HOMES: Home[] = [
  ...Array.from({ length: 12 }, () => ({ country: 'DE', currency: 'EUR', lang: 'de' })),
  ...Array.from({ length: 11 }, () => ({ country: 'FR', currency: 'EUR', lang: 'fr' })),
  { country: 'NL', currency: 'EUR', lang: 'nl' },
  { country: 'NL', currency: 'EUR', lang: 'nl' },
  { country: 'BE', currency: 'EUR', lang: 'fr' },
  { country: 'AT', currency: 'EUR', lang: 'de' },
  { country: 'CH', currency: 'CHF', lang: 'de' },
  { country: 'CH', currency: 'CHF', lang: 'fr' },
  { country: 'CH', currency: 'CHF', lang: 'de' },
  { country: 'GB', currency: 'GBP', lang: 'en' },
  { country: 'GB', currency: 'GBP', lang: 'en' },
  { country: 'GB', currency: 'GBP', lang: 'en' },
  { country: 'DK', currency: 'DKK', lang: 'da' },
  { country: 'DK', currency: 'DKK', lang: 'da' },
];

/** Price scale of each currency against EUR-like price levels (rounded retail levels, not FX). */
const SCALE: Record<string, number> = { EUR: 1, CHF: 1.0, GBP: 0.85, DKK: 7.5 };

function syntheticEmps(input: CatalogInput, cpoTariffOperators: readonly string[]): Omit<DefaultCatalog, 'stationPrices' | 'warnings'> {
  const rnd = mulberry32(20260701);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
  const between = (a: number, b: number): number => a + (b - a) * rnd();
  const chance = (p: number): boolean => rnd() < p;

  // Roaming partners: the operators with most stations, plus the CPOs with real tariffs.
  const big = [...input.operators]
    .filter((o) => (o.station_count ?? 0) > 0)
    .sort((a, b) => (b.station_count ?? 0) - (a.station_count ?? 0) || (a.id < b.id ? -1 : 1))
    .slice(0, 80);
  const byCountry = (c: string) => big.filter((o) => o.countries.includes(c));
  const brandByName = new Map(input.brands.map((b) => [b.name.toLowerCase(), b.id]));
  const brandIds = (names: string[]): string[] => names.map((n) => brandByName.get(n.toLowerCase())).filter((x): x is string => x !== undefined);

  const companies: CatalogCompany[] = [];
  const tariffs: StoredTariff[] = [];
  const roaming = new Map<string, Set<string>>();
  const usedNames = new Set<string>();

  HOMES.forEach((home, i) => {
    let base: string;
    do base = `${pick(SYLLABLES_A)}${pick(SYLLABLES_B)} ${pick(SUFFIX)}`;
    while (usedNames.has(base));
    usedNames.add(base);
    const empId = id(`synthetic-emp:${i}`);
    const slug = base.toLowerCase().replace(/[^a-z]+/g, '-');
    // Two white-label EMPs share the partners of the EMP before them (emp_group, D66).
    const whiteLabel = i === 5 || i === 17;
    companies.push({
      id: empId,
      name: `${base} (synthetic)`,
      url: `https://${slug}.example`,
      is_cpo: false,
      is_emp: true,
      emp_group: whiteLabel ? companies[i - 1].id : null,
    });
    if (!whiteLabel) {
      const home_ = byCountry(home.country);
      const pool = home_.length > 0 ? home_ : big;
      const partners = new Set<string>();
      const n = Math.floor(between(8, 30));
      for (let k = 0; k < n; k++) partners.add(pick(chance(0.75) ? pool : big).id);
      for (const c of cpoTariffOperators) if (chance(0.5)) partners.add(c);
      for (const p of partners) {
        let s = roaming.get(p);
        if (!s) roaming.set(p, (s = new Set()));
        s.add(empId);
      }
    }

    const sc = SCALE[home.currency];
    const cur = home.currency;
    const tags: StoredTag[] = chance(0.3)
      ? [{ kind: 'info', localized_text: { en: 'Synthetic demo tariff', de: 'Synthetischer Demo-Tarif', fr: 'Tarif de démonstration synthétique' }, url: null, show_until: null, hide_for_owners: false }]
      : [];
    const notes = 'SYNTHETIC: generated demo tariff (src/import/default-catalog.ts), not a real offer.';
    const ac = restriction({ charge_point_energy_type: 'ac' });
    const dc = restriction({ charge_point_energy_type: 'dc' });
    const hpc = restriction({ charge_point_energy_type: 'dc', charge_point_powers: [150, 1000], charge_point_power_is_range: true });
    const lowDc = restriction({ charge_point_energy_type: 'dc', charge_point_powers: [0, 149.99], charge_point_power_is_range: true });
    const acKwh = round2(between(0.39, 0.59) * sc);
    const dcKwh = round2(between(0.49, 0.79) * sc);
    const blockAc = chance(0.5);
    const blockDc = chance(0.5);
    const session = chance(0.25) ? round2(between(0.25, 0.99) * sc) : 0;
    const timeBasedAc = chance(0.2);
    const nightCheaper = chance(0.2);

    const acSegs: StoredSegment[] = timeBasedAc
      ? [seg('minute', round2(between(0.025, 0.05) * sc), { billing_increment: 1 })]
      : nightCheaper
        ? [seg('kwh', acKwh, { time_of_day_start: 360, time_of_day_end: 1320 }), seg('kwh', round2(acKwh * 0.8), { time_of_day_start: 1320, time_of_day_end: 360 })]
        : [seg('kwh', acKwh)];
    if (blockAc) acSegs.push(seg('minute', round2(0.1 * sc), { range_gte: 240, billing_increment: 1 }));
    const dcSegs: StoredSegment[] = [seg('kwh', dcKwh)];
    if (blockDc) dcSegs.push(seg('minute', round2(between(0.1, 0.3) * sc), { range_gte: pick([45, 60]), billing_increment: 1 }));
    const prices: StoredComponent[] = [
      { restrictions: [ac], decomposition: acSegs },
      chance(0.3)
        ? { restrictions: [lowDc], decomposition: dcSegs }
        : { restrictions: [dc], decomposition: dcSegs },
    ];
    if (prices[1].restrictions[0] === lowDc) prices.push({ restrictions: [hpc], decomposition: [seg('kwh', round2(dcKwh * 1.15))] });
    if (session > 0) prices.push({ restrictions: [], decomposition: [seg('session', session)] });
    const foreign = chance(0.3) ? [home.country] : [];

    const flexId = id(`synthetic-tariff:${i}:flex`);
    tariffs.push(
      tariff({
        id: flexId,
        emp_id: empId,
        name: `${base} Flex`,
        currency: cur,
        supported_countries: foreign,
        tags,
        notes,
        prices,
        is_secondary_tariff: whiteLabel,
        url: `https://${slug}.example/tariffs/flex`,
        charge_card_id: chance(0.3) ? String(1000 + i) : null,
        no_price_policy: chance(0.3) ? 'show_reason' : 'inherit',
      }),
    );

    // A subscription tariff with a monthly (and sometimes yearly) fee and lower unit prices.
    if (chance(0.6)) {
      const fee = round2(pick([4.99, 5.99, 7.99, 9.99, 12.99]) * sc);
      tariffs.push(
        tariff({
          id: id(`synthetic-tariff:${i}:plus`),
          emp_id: empId,
          name: `${base} Plus`,
          currency: cur,
          monthly_fee: fee,
          yearly_service_fee: chance(0.3) ? round2(12 * sc) : 0,
          monthly_min_sales: chance(0.2) ? round2(10 * sc) : 0,
          supported_countries: foreign,
          notes,
          prices: [
            { restrictions: [ac], decomposition: [seg('kwh', round2(acKwh * 0.82))] },
            { restrictions: [dc], decomposition: [seg('kwh', round2(dcKwh * 0.82)), ...(blockDc ? [seg('minute', round2(0.2 * sc), { range_gte: 60, billing_increment: 1 })] : [])] },
          ],
        }),
      );
    }

    // A sub tariff with a surcharge at one partner CPO (cpo level, D65) for some EMPs; one of them
    // has no prices there ("no price at this CPO", D71) and shows the reason.
    const partnersOf = [...roaming.entries()].filter(([, s]) => s.has(empId)).map(([c]) => c).sort();
    if (partnersOf.length > 0 && (i % 4 === 1 || i === 2)) {
      const cpo = partnersOf[Math.floor(rnd() * partnersOf.length)];
      const empty = i === 2;
      tariffs.push(
        tariff({
          id: id(`synthetic-tariff:${i}:sub:${cpo}`),
          type: 'sub_tariff',
          emp_id: empId,
          name: null,
          currency: cur,
          cpo_id: cpo,
          super_tariff_ids: [flexId],
          notes,
          no_price_policy: empty ? 'show_reason' : 'inherit',
          no_price_reason: empty ? 'not_public' : 'inherit',
          prices: empty ? [] : [{ restrictions: [dc], decomposition: [seg('kwh', round2(dcKwh * 1.2)), seg('session', round2(0.5 * sc))] }],
        }),
      );
    }
  });

  // Brand-restricted tariffs of three EMPs (vehicle brands of the snapshot's vehicle data).
  const brandSets = [['Volkswagen', 'Audi', 'Skoda', 'Seat', 'CUPRA', 'Porsche'], ['Hyundai', 'Kia'], ['Renault', 'Dacia']];
  brandSets.forEach((names, k) => {
    const brands = brandIds(names);
    if (brands.length === 0) return;
    const emp = companies[3 + k * 7];
    tariffs.push(
      tariff({
        id: id(`synthetic-tariff:brand:${k}`),
        emp_id: emp.id,
        name: `${emp.name.replace(' (synthetic)', '')} ${names[0]} Drivers`,
        currency: 'EUR',
        monthly_fee: k === 0 ? 0 : 4.99,
        vehicle_brand_ids: brands,
        notes: 'SYNTHETIC: brand-restricted demo tariff, not a real offer.',
        tags: [{ kind: 'star', localized_text: { en: `For ${names[0]} owners`, de: `Für ${names[0]}-Fahrer` }, url: null, show_until: null, hide_for_owners: false }],
        prices: [
          { restrictions: [restriction({ charge_point_energy_type: 'ac' })], decomposition: [seg('kwh', 0.35)] },
          { restrictions: [restriction({ charge_point_energy_type: 'dc' })], decomposition: [seg('kwh', 0.45)] },
        ],
      }),
    );
  });

  // Provider-customer tariffs (home electricity customers) and one flat rate.
  [0, 12, 20].forEach((k, j) => {
    const emp = companies[k];
    tariffs.push(
      tariff({
        id: id(`synthetic-tariff:provider:${j}`),
        emp_id: emp.id,
        name: `${emp.name.replace(' (synthetic)', '')} Home Power`,
        currency: 'EUR',
        provider_customer_only: true,
        existing_customer_only: j === 2,
        notes: 'SYNTHETIC: provider-customer demo tariff, not a real offer.',
        prices: [{ restrictions: [], decomposition: [seg('kwh', 0.33 + j * 0.02)] }],
      }),
    );
  });
  tariffs.push(
    tariff({
      id: id('synthetic-tariff:flat'),
      emp_id: companies[8].id,
      name: `${companies[8].name.replace(' (synthetic)', '')} Unlimited`,
      currency: 'EUR',
      monthly_fee: 39,
      is_flat_rate: true,
      notes: 'SYNTHETIC: flat-rate demo tariff, not a real offer.',
      prices: [{ restrictions: [restriction({ charge_point_energy_type: 'ac' })], decomposition: [seg('kwh', 0)] }],
    }),
  );

  return {
    companies,
    roaming: [...roaming.entries()]
      .map(([cpo_id, s]) => ({ cpo_id, emp_ids: [...s].sort() }))
      .sort((a, b) => (a.cpo_id < b.cpo_id ? -1 : 1)),
    tariffs,
  };
}

/** Builds the whole default catalog; deterministic for the same inputs. */
export function buildDefaultCatalog(input: CatalogInput): DefaultCatalog {
  const warnings: string[] = [];
  const convert: OcpiConverter = input.convert ?? ocpiToComponents;
  const real = cpoTariffs(input, convert, warnings);
  const synthetic = syntheticEmps(
    input,
    real.tariffs.map((t) => t.emp_id),
  );
  const tariffs = [...real.tariffs, ...synthetic.tariffs].sort((a, b) => (a.id < b.id ? -1 : 1));
  const stationPrices = real.stationPrices.sort((a, b) =>
    a.tariff_id < b.tariff_id ? -1 : a.tariff_id > b.tariff_id ? 1 : a.station_id < b.station_id ? -1 : 1,
  );
  return { companies: synthetic.companies, roaming: synthetic.roaming, tariffs, stationPrices, warnings };
}

/** The catalog as snapshot rows (kind, id, JSON). */
export function catalogRows(c: DefaultCatalog): Array<{ kind: 'company' | 'roaming' | 'tariff' | 'station_prices'; id: string; data: string }> {
  return [
    ...c.companies.map((x) => ({ kind: 'company' as const, id: x.id, data: JSON.stringify(x) })),
    ...c.roaming.map((x) => ({ kind: 'roaming' as const, id: x.cpo_id, data: JSON.stringify(x) })),
    ...c.tariffs.map((x) => ({ kind: 'tariff' as const, id: x.id, data: JSON.stringify(x) })),
    ...c.stationPrices.map((x) => ({ kind: 'station_prices' as const, id: `${x.tariff_id}/${x.station_id}`, data: JSON.stringify(x) })),
  ];
}
