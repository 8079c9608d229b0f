/**
 * The documents of charge prices (`POST /v1/charge_prices`, whole or one share of a split
 * request) and bulk previews (`POST /v1/charge_prices/bulk`), computed from plain-data task inputs
 * against a thread's compiled catalog. They run inline and in the pricing workers alike; nothing
 * here throws for a domain outcome.
 */
import { bulkPreview, computeChargePrices, type StationContext } from '../../domain/pricing/index.js';
import type { BulkTask, ChargePricesPartTask, ChargePricesTask, TaskDocument, TaskEnv } from '../../pool/protocol.js';
import { scratch } from '../price-scratch.js';
import { writeChargePricePart, writeChargePrices, type ChargePricePart } from './charge-prices.writer.js';

const js = JSON.stringify;

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
