/**
 * The tariff details document (`POST /v1/tariff_details`) computed against a thread's compiled
 * catalog, with the tariffs it lists included.
 */
import { computedId } from '../../domain/ids.js';
import { DEFAULT_DETAIL_DIMENSIONS, tariffDetails, type ChargePointInput } from '../../domain/pricing/index.js';
import { totalMonthlyFee, type StoredTariff } from '../../domain/tariffs/model.js';
import { storedOf } from '../../pool/catalog.js';
import type { TariffDetailsTask, TaskDocument, TaskEnv } from '../../pool/protocol.js';

const js = JSON.stringify;

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
