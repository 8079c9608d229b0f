/**
 * The price tasks (charge prices, bulk preview, tariff details): plain-data inputs validated and
 * resolved on the main thread, evaluated against a thread's compiled catalog, returning the
 * serialized response document as a value. The same functions run inline (WORKERS=0 or the inline
 * policy) and inside pricing workers; nothing here throws for a domain outcome.
 */
import { computedId } from '../domain/ids.js';
import {
  BulkScratch,
  DEFAULT_DETAIL_DIMENSIONS,
  PlanScratch,
  PriceResults,
  bulkPreview,
  computeChargePrices,
  tariffDetails,
  type ChargeInput,
  type ChargePointInput,
  type ChargePriceOptions,
  type Dimension,
  type IncludeMode,
  type Language,
  type PricingCatalog,
  type RateTable,
  type BulkRequest,
  type StationContext,
} from '../domain/pricing/index.js';
import { totalMonthlyFee, type StoredTariff } from '../domain/tariffs/model.js';
import { storedOf } from './catalog.js';
import { writeChargePricePart, writeChargePrices, type ChargePricePart } from './charge-writer.js';
import type { StationView } from './stations.js';

export interface ChargePricesTask {
  station: StationContext;
  input: ChargeInput;
  options: ChargePriceOptions;
  listed: string[] | null;
  include: IncludeMode;
  showPriceUnavailable: boolean;
  lang: Language;
  nowMs: number;
}

/** A bulk preview request with its stations as raw ids, resolved in the worker's station view. */
export interface BulkTask extends Omit<BulkRequest, 'stations'> {
  stationIds: string[];
}

export interface TariffDetailsFilter {
  brand_restricted_tariffs: boolean;
  foreign_tariffs: boolean;
  provider_customer_tariffs: boolean;
  tariffs_without_prices: boolean;
  average_prices: boolean;
  dimensions: Dimension[];
}

export interface TariffDetailsTask {
  /** CPO query (country + operator) or station query (ids, in request order). */
  query: { kind: 'cpo'; country: string; operatorId: string } | { kind: 'stations'; ids: string[] };
  chargePoint: ChargePointInput | null;
  filter: TariffDetailsFilter;
  /** `relationships.tariffs` IDs, or null when absent. */
  tariffs: string[] | null;
}

export type TaskName = 'chargePrices' | 'bulk' | 'tariffDetails' | 'stationPrices';

/**
 * The bulk calculation (D91) over stations given by id (area and route price search, D110–D114;
 * ids, not indices, so that a snapshot swap between routing and pricing cannot mix snapshots),
 * with their charge points narrowed to `plugs` (null: all) and power ≥ `chargePointsPowerGte`.
 * Answers `{"p":[[position,price,energy,duration,plug,power],…]}` per priced station, position
 * in `stationIds`, in input order.
 */
export interface StationPricesTask extends Omit<BulkRequest, 'stations'> {
  stationIds: string[];
  plugs: string[] | null;
  chargePointsPowerGte: number | null;
}

export interface TaskInputs {
  chargePrices: ChargePricesTask;
  bulk: BulkTask;
  tariffDetails: TariffDetailsTask;
  stationPrices: StationPricesTask;
}

/**
 * What a task computes: the status and serialized document (always a value, never a throw), as
 * JSON text or as UTF-8 bytes in an ArrayBuffer of their own (transferable).
 */
export interface TaskDocument {
  status: number;
  body: string | Uint8Array;
}

/** Outcome handed to a handler: the document as JSON text (inline) or UTF-8 bytes (from a worker). */
export interface TaskResult {
  status: number;
  body: string | Buffer;
  /** Frees the body's shared output slot once it has been sent (see src/pool/output.ts). */
  release?: () => void;
}

/** Everything a thread needs to run tasks. */
export interface TaskEnv {
  catalog: PricingCatalog;
  rates: RateTable;
  stations: StationView;
}

/** Per-thread reusable buffers. */
const scratch = { plan: new PlanScratch(), results: new PriceResults(), bulk: new BulkScratch() };

const js = JSON.stringify;

/** One share of a charge price request's candidates (see `ChargePriceRequest.part`). */
export interface ChargePricesPartTask extends ChargePricesTask {
  part: { index: number; count: number };
}

/** Prices a request (or its share `part`) and gathers what the document writer needs. */
function priceForWriting(env: TaskEnv, t: ChargePricesTask, part?: { index: number; count: number }) {
  const { catalog, rates } = env;
  const comp = computeChargePrices(
    catalog,
    { station: t.station, input: t.input, options: t.options, listed: t.listed, include: t.include, part },
    rates,
    scratch.plan,
    scratch.results,
  );
  const write = {
    showPriceUnavailable: t.showPriceUnavailable,
    lang: t.lang,
    nowMs: t.nowMs,
    currency: t.options.currency,
    startTime: t.options.start_time,
    listed: t.listed === null ? null : new Set(t.listed),
  };
  return { comp, write };
}

export function runChargePrices(env: TaskEnv, t: ChargePricesTask): TaskDocument {
  const { comp, write } = priceForWriting(env, t);
  return { status: 200, body: writeChargePrices(env.catalog, comp, env.rates, write) };
}

/** The entries of one part of a split charge price request, for `mergeChargePriceParts`. */
export function runChargePricesPart(env: TaskEnv, t: ChargePricesPartTask): ChargePricePart {
  const { comp, write } = priceForWriting(env, t, t.part);
  return writeChargePricePart(env.catalog, comp, env.rates, write);
}

export function runBulk(env: TaskEnv, t: BulkTask): TaskDocument {
  const { catalog, rates, stations } = env;
  const contexts: StationContext[] = [];
  const ids: string[] = [];
  for (const raw of t.stationIds) {
    const i = stations.find(raw);
    if (i < 0) continue;
    const op = stations.operatorAt(i);
    if (op === null) continue;
    const id = stations.idAt(i);
    ids.push(id);
    contexts.push({ id, country: stations.countryAt(i), cpo_id: op, charge_points: stations.chargePointsAt(i) });
  }
  const previews = bulkPreview(
    catalog,
    { ...t, stations: contexts },
    rates,
    scratch.bulk,
  );
  const parts: string[] = [];
  const cur = js(t.currency);
  for (const p of previews) {
    const id = js(ids[p.station]);
    parts.push(
      `{"id":${id},"type":"charge_price_preview","attributes":{"energy":${js(p.energy)},"duration":${js(p.duration)},` +
        `"price":${js(p.price)},"currency":${cur}},"relationships":{"charging_station":{"data":{"type":"charging_station","id":${id}}}}}`,
    );
  }
  return { status: 200, body: `{"data":[${parts.join(',')}]}` };
}

export function runStationPrices(env: TaskEnv, t: StationPricesTask): TaskDocument {
  const { catalog, rates, stations } = env;
  const contexts: StationContext[] = [];
  const at: number[] = [];
  const plugs = t.plugs === null ? null : new Set(t.plugs.map((p) => p.toLowerCase()));
  const gte = t.chargePointsPowerGte;
  for (let pos = 0; pos < t.stationIds.length; pos++) {
    const i = stations.find(t.stationIds[pos]);
    if (i < 0) continue;
    const op = stations.operatorAt(i);
    if (op === null) continue;
    let cps = stations.chargePointsAt(i);
    if (plugs !== null || gte !== null) cps = cps.filter((cp) => (plugs === null || plugs.has(cp.plug.toLowerCase())) && (gte === null || cp.power >= gte));
    if (cps.length === 0) continue;
    at.push(pos);
    contexts.push({ id: stations.idAt(i), country: stations.countryAt(i), cpo_id: op, charge_points: cps });
  }
  const previews = bulkPreview(catalog, { ...t, stations: contexts }, rates, scratch.bulk);
  const parts: string[] = [];
  for (const p of previews) {
    const cp = contexts[p.station].charge_points[p.chargePoint];
    parts.push(`[${at[p.station]},${js(p.price)},${js(p.energy)},${js(p.duration)},${js(cp.plug)},${js(cp.power)}]`);
  }
  return { status: 200, body: `{"p":[${parts.join(',')}]}` };
}

interface DetailsTarget {
  stationId: string | null;
  cpoId: string;
  country: string;
  groups: ChargePointInput[];
}

export function runTariffDetails(env: TaskEnv, t: TariffDetailsTask): TaskDocument {
  const { catalog, stations } = env;
  const targets: DetailsTarget[] = [];
  if (t.query.kind === 'cpo') {
    const country = t.query.country.toUpperCase();
    if (catalog.companies.has(t.query.operatorId)) {
      targets.push({ stationId: null, cpoId: t.query.operatorId, country, groups: stations.groupsOf(t.query.operatorId, country) });
    }
  } else {
    const seen = new Set<number>();
    for (const raw of t.query.ids) {
      const i = stations.find(raw);
      if (i < 0 || seen.has(i)) continue;
      seen.add(i);
      const op = stations.operatorAt(i);
      if (op === null) continue;
      targets.push({ stationId: stations.idAt(i), cpoId: op, country: stations.countryAt(i).toUpperCase(), groups: stations.chargePointsAt(i) });
    }
  }
  const f = t.filter;
  const listed = t.tariffs === null ? null : new Set(t.tariffs);
  // Tariff ids usable at any target CPO, in id order (D18: tariff id, then stations in request order).
  const perTarget = targets.map((tg) => {
    const usable = catalog.candidatesAt(tg.cpoId);
    const idsOf = new Set<string>();
    for (let k = 0; k < usable.slots.length; k++) {
      const b = catalog.block(usable.slots[k])!;
      if (listed !== null && !listed.has(b.id)) continue;
      const tr = b.tariff;
      if (!f.brand_restricted_tariffs && (tr.vehicle_brand_ids ?? []).length > 0) continue;
      const sc = tr.supported_countries ?? [];
      if (!f.foreign_tariffs && sc.length > 0 && !sc.some((c) => c.toUpperCase() === tg.country)) continue;
      if (!f.provider_customer_tariffs && tr.provider_customer_only === true) continue;
      idsOf.add(b.id);
    }
    return idsOf;
  });
  const allIds = new Set<string>();
  for (const s of perTarget) for (const id of s) allIds.add(id);
  const sortedIds = [...allIds].sort();
  const dimensions = f.dimensions.length > 0 ? f.dimensions : [...DEFAULT_DETAIL_DIMENSIONS];
  const records: string[] = [];
  const included: string[] = [];
  const seenIncluded = new Set<string>();
  const include = (key: string, make: () => string): void => {
    if (seenIncluded.has(key)) return;
    seenIncluded.add(key);
    included.push(make());
  };
  for (const tariffId of sortedIds) {
    const tariff = storedOf(catalog.tariffs.get(tariffId)!);
    for (let ti = 0; ti < targets.length; ti++) {
      if (!perTarget[ti].has(tariffId)) continue;
      const tg = targets[ti];
      const d = tariffDetails(catalog, tariffId, {
        cpoId: tg.cpoId,
        country: tg.country,
        stationId: tg.stationId,
        chargePoint: t.chargePoint,
        averagePrices: tg.stationId === null && f.average_prices,
        dimensions,
        groups: tg.groups,
      });
      if (d === null) continue;
      if (!f.tariffs_without_prices && d.restrictedSegments.length === 0) continue;
      const sub = storedOf(d.subTariff);
      const updatedAt = Math.max(tariff.updated_at ?? 0, sub?.updated_at ?? 0);
      const perStation = catalog.stationPricesOf(tariffId);
      const perStationAvailable = perStation.size > 0 && stations.operatorHasAny(tg.cpoId, perStation.keys());
      const attributes = {
        country: tg.country,
        updated_at: updatedAt,
        is_roaming: d.isRoaming,
        tariff_level: d.tariffLevel,
        restricted_segments: d.restrictedSegments,
        no_price_reason: d.noPriceReason,
        prices_per_station_available: perStationAvailable,
      };
      const relationships: Record<string, unknown> = {
        emp: { data: { type: 'company', id: tariff.emp_id } },
        tariff: { data: { type: 'tariff', id: tariffId } },
        cpo: { data: { type: 'company', id: tg.cpoId } },
      };
      if (tg.stationId !== null) relationships.station = { data: { type: 'charging_station', id: tg.stationId } };
      records.push(
        js({
          id: computedId(tariffId, tg.cpoId, tg.stationId ?? '', tg.country),
          type: 'station_tariff_details',
          attributes,
          relationships,
        }),
      );
      const emp = catalog.companies.get(tariff.emp_id);
      if (emp) include(`company|${emp.id}`, () => js({ id: emp.id, type: 'company', attributes: { name: emp.name } }));
      include(`tariff|${tariffId}`, () => js(includedTariff(tariff)));
    }
  }
  return { status: 200, body: `{"data":[${records.join(',')}],"included":[${included.join(',')}]}` };
}

/** D35: the included tariff record. */
function includedTariff(t: StoredTariff): unknown {
  return {
    id: t.id,
    type: 'tariff',
    attributes: {
      name: t.name,
      total_monthly_fee: totalMonthlyFee(t),
      is_direct_payment: t.is_direct_payment === true,
      is_card_payment: t.is_card_payment === true,
      is_secondary_tariff: t.is_secondary_tariff === true,
      provider_customer_only: t.provider_customer_only === true,
      existing_customer_only: t.existing_customer_only === true,
      allowed_customer_countries: t.supported_countries ?? [],
      currency: t.currency,
      url: t.url ?? null,
    },
    relationships: { vehicle_brands: { data: (t.vehicle_brand_ids ?? []).map((id) => ({ type: 'brand', id })) } },
  };
}

export function runTask(env: TaskEnv, name: TaskName, input: TaskInputs[TaskName]): TaskDocument {
  switch (name) {
    case 'chargePrices':
      return runChargePrices(env, input as ChargePricesTask);
    case 'bulk':
      return runBulk(env, input as BulkTask);
    case 'tariffDetails':
      return runTariffDetails(env, input as TariffDetailsTask);
    case 'stationPrices':
      return runStationPrices(env, input as StationPricesTask);
  }
}
