/**
 * Charge prices `POST /v1/charge_prices` (endpoint 3, D36–D42, D87–D92) and the bulk preview
 * `POST /v1/charge_prices/bulk` (endpoint 8, D50–D51, D91), both group ReadCosts. The main thread
 * validates (400), looks up the currency (404) and the vehicle (400, D20) in D10 order, resolves
 * the network and the station in context (D38, D39), then hands a plain task to the price pool.
 */
import { aroundInto } from '../../domain/stations/geo.js';
import {
  DEFAULT_CHARGE_PRICE_OPTIONS as DEFAULTS,
  pickLanguage,
  type ChargeInput,
  type ChargePointInput,
  type ChargePriceOptions,
  type EnergyType,
} from '../../domain/pricing/index.js';
import type { AppContext } from '../context.js';
import { ApiError, badPointer } from '../jsonapi/errors.js';
import type { ApiRequest, ApiResponse, RouteDef } from '../types.js';
import { currencyOf, startDayOf, vehicleOf } from '../price-inputs.js';
import type { ChargePricesTask } from '../../pool/protocol.js';
import { defineRoute } from '../contract.js';
import { ChargePriceAnswers } from './charge-price-answers.js';
import { type BulkBody, type ChargePricesBody, MAX_BULK_STATIONS, MAX_BULK_TARIFFS, validateBulk, validateChargePrices } from './prices.schema.js';

const A = '/data/attributes';
const O = '/data/attributes/options';
/** D39: the stored station within this distance of the coordinates is the station in context. */
const STATION_CONTEXT_RADIUS_M = 50;

/** D14 plugs accepted by the `native` adapter (case-insensitive, echoed as sent). */
const NATIVE_PLUGS = new Set(['ccs', 'type2', 'chademo', 'schuko', 'type1', 'type3', 'tesla_ccs', 'tesla_suc', 'ccs1', 'nacs']);

/** A name from a request body looks up a Map, never an object literal (`constructor` is not a country). */
function table<V>(o: Record<string, V>): ReadonlyMap<string, V> {
  return new Map(Object.entries(o));
}

/** D38 ext_b plug names → energy type (the DC names equal the native plug names case-insensitively). */
const EXT_B_PLUGS: ReadonlyMap<string, EnergyType> = table<EnergyType>({
  typ1: 'ac', typ2: 'ac', typ3: 'ac', type1: 'ac', type2: 'ac', type3: 'ac', schuko: 'ac', ccs: 'dc', chademo: 'dc',
});

/** D38: country names as the ext_b source writes them → ISO codes (the configured table). */
const EXT_B_COUNTRIES: ReadonlyMap<string, string> = table<string>({
  deutschland: 'DE', germany: 'DE', frankreich: 'FR', france: 'FR', österreich: 'AT', austria: 'AT',
  schweiz: 'CH', switzerland: 'CH', niederlande: 'NL', netherlands: 'NL', belgien: 'BE', belgium: 'BE',
  dänemark: 'DK', denmark: 'DK', luxemburg: 'LU', luxembourg: 'LU', italien: 'IT', italy: 'IT',
  spanien: 'ES', spain: 'ES', polen: 'PL', poland: 'PL', tschechien: 'CZ', 'czech republic': 'CZ',
  schweden: 'SE', sweden: 'SE', norwegen: 'NO', norway: 'NO', 'vereinigtes königreich': 'GB', 'united kingdom': 'GB',
});

export function pricesRoutes(ctx: AppContext): RouteDef[] {
  const rates = ctx.snapshot.rates();
  const st = ctx.stations;
  const cacheBytes = ctx.config.chargePriceCacheMb * 1024 * 1024;
  const answers = cacheBytes > 0 ? new ChargePriceAnswers(ctx, cacheBytes) : null;

  /**
   * D96: an alias of DATA_ADAPTER_ALIASES behaves exactly like its adapter; an unknown name is
   * refused listing every accepted name, aliases included.
   */
  const aliases = ctx.config.dataAdapterAliases;
  const adapterNames = ['native', 'ext_b', 'ext_c', ...aliases.keys()];
  function resolveAdapterAlias(body: unknown): void {
    const attrs = (body as { data?: { attributes?: { data_adapter?: unknown } } } | null)?.data?.attributes;
    if (attrs === null || typeof attrs !== 'object' || typeof attrs.data_adapter !== 'string') return;
    const adapter = aliases.get(attrs.data_adapter);
    if (adapter !== undefined) attrs.data_adapter = adapter;
    else if (!adapterNames.includes(attrs.data_adapter)) {
      throw new ApiError('BAD_REQUEST', `${A}/data_adapter must be one of ${adapterNames.join(', ')}`, {
        source: { pointer: `${A}/data_adapter` },
        detail: `${JSON.stringify(attrs.data_adapter)} is not a data adapter here; the operator can accept more names as aliases of native, ext_b or ext_c with the setting DATA_ADAPTER_ALIASES (D96)`,
      });
    }
  }


  /** D38: the network's CPO id for the adapter; '' when unresolved (→ empty data). */
  function networkOf(adapter: string, network: string): string {
    if (adapter === 'native') return ctx.companies.has(network) ? network : '';
    const want = network.trim().toLowerCase();
    for (const c of ctx.companies.values()) {
      const m = c.external_source_mapping;
      const list = adapter === 'ext_b' ? m.ext_b_names : m.ext_c_operator_ids;
      if (list?.some((x) => String(x).trim().toLowerCase() === want)) return c.id;
    }
    return '';
  }

  /** D39: the CPO's stored station nearest to the coordinates within 50 m, or null. */
  function stationInContext(cpoId: string, lat: number, lon: number): string | null {
    if (lat === 0 && lon === 0) return null;
    const op = st.operatorIndex.get(cpoId);
    if (op === undefined) return null;
    const out: number[] = [];
    const n = aroundInto(st.kd, lon, lat, STATION_CONTEXT_RADIUS_M, 1, (i) => st.c.operator[i] === op, out);
    return n > 0 ? st.idAt(out[0]) : null;
  }

  function chargePoints(adapter: string, cps: { power: number; plug: string }[]): ChargePointInput[] {
    return cps.map((cp, i) => {
      if (adapter === 'native') {
        if (!NATIVE_PLUGS.has(cp.plug.toLowerCase())) {
          throw badPointer(`${A}/station/charge_points/${i}/plug`, `${A}/station/charge_points/${i}/plug must be one of ${[...NATIVE_PLUGS].join(', ')}`);
        }
        return { plug: cp.plug, power: cp.power };
      }
      if (adapter === 'ext_b') {
        const e = EXT_B_PLUGS.get(cp.plug.trim().toLowerCase());
        return e === 'ac' ? { plug: cp.plug, power: cp.power, energy_type: 'ac' } : { plug: cp.plug, power: cp.power, energy_type: e ?? null };
      }
      // ext_c: "<connection type id>,<current type id>"; 30 = dc, 10/20 = ac; the plug name is not mappable.
      const current = cp.plug.split(',')[1]?.trim();
      const e: EnergyType | null = current === '30' ? 'dc' : current === '10' || current === '20' ? 'ac' : null;
      return { plug: cp.plug, power: cp.power, energy_type: e };
    });
  }

  async function chargePricesHandler(req: ApiRequest<ChargePricesBody>): Promise<ApiResponse> {
    const body = req.body;
    const a = body.data.attributes;
    const o = a.options;
    const rel = body.data.relationships ?? {};
    // D37: exactly one complete input set.
    const setA = rel.vehicle !== undefined || o.battery_range !== undefined;
    const setB = o.energy !== undefined || o.duration !== undefined;
    if (setA && setB) throw badPointer(O, 'give either vehicle and battery_range or energy and duration, not both');
    if (!setA && !setB) throw badPointer(O, 'one input set is required: vehicle and battery_range, or energy and duration');
    if (setA) {
      if (rel.vehicle === undefined) throw badPointer('/data/relationships/vehicle', 'vehicle is required with battery_range');
      if (o.battery_range === undefined) throw badPointer(`${O}/battery_range`, 'battery_range is required with a vehicle');
      if (!(o.battery_range[0] < o.battery_range[1])) throw badPointer(`${O}/battery_range`, 'battery_range start must be below its end');
    } else {
      if (o.energy === undefined) throw badPointer(`${O}/energy`, 'energy is required with duration');
      if (o.duration === undefined) throw badPointer(`${O}/duration`, 'duration is required with energy');
    }
    if (a.data_adapter === 'native' && !/^[A-Za-z]{2}$/.test(a.station.country)) {
      throw badPointer(`${A}/station/country`, 'country must be an ISO 3166 alpha-2 code');
    }
    const cps = chargePoints(a.data_adapter, a.station.charge_points);
    // Lookups (D10): currency, then vehicle.
    const currency = currencyOf(o.currency, rates);
    let input: ChargeInput;
    if (setA) input = { kind: 'vehicle', vehicle: vehicleOf(ctx, rel.vehicle!.data.id), battery_range: [o.battery_range![0], o.battery_range![1]] };
    else input = { kind: 'energy', energy: o.energy!, duration: o.duration! };

    const cpoId = networkOf(a.data_adapter, a.station.network);
    const country =
      a.data_adapter === 'ext_b' ? (EXT_B_COUNTRIES.get(a.station.country.trim().toLowerCase()) ?? '') : a.station.country.toUpperCase();
    const networkWide = a.station.latitude === 0 && a.station.longitude === 0;
    const options: ChargePriceOptions = {
      currency,
      start_time: o.start_time ?? DEFAULTS.start_time,
      start_day: startDayOf(o.start_date, `${A}/options/start_date`),
      car_ac_phases: o.car_ac_phases ?? DEFAULTS.car_ac_phases,
      allow_unbalanced_load: o.allow_unbalanced_load ?? DEFAULTS.allow_unbalanced_load,
      provider_customer_tariffs: o.provider_customer_tariffs ?? DEFAULTS.provider_customer_tariffs,
      foreign_tariffs: o.foreign_tariffs ?? DEFAULTS.foreign_tariffs,
      show_all_brand_restricted_tariffs: o.show_all_brand_restricted_tariffs ?? DEFAULTS.show_all_brand_restricted_tariffs,
      max_monthly_fees: o.max_monthly_fees ?? DEFAULTS.max_monthly_fees,
      average_prices: networkWide && (o.average_prices ?? DEFAULTS.average_prices),
    };
    const listed = rel.tariffs === undefined ? null : rel.tariffs.data.map((t) => t.id);
    const include = rel.tariffs?.meta?.include ?? 'filter';
    // Planned by its size (src/pool/planner.ts): at most the listed tariffs (filter, exclusive),
    // else the tariffs usable at the CPO (plus the listed ones with `always`), at every charge point.
    const candidates =
      listed !== null && include !== 'always' ? listed.length : ctx.prices.candidatesAt(cpoId) + (listed === null ? 0 : listed.length);
    const plan = ctx.prices.plan({ task: 'chargePrices', candidates, chargePoints: cps.length });
    const task: ChargePricesTask = {
      station: {
        id: cpoId === '' ? null : stationInContext(cpoId, a.station.latitude, a.station.longitude),
        country,
        cpo_id: cpoId,
        charge_points: cps,
      },
      input,
      options,
      listed,
      include,
      showPriceUnavailable: o.show_price_unavailable ?? false,
      lang: pickLanguage(req.headers.acceptLanguage),
      nowMs: Date.now(),
    };
    // D287: a repeated request is answered from memory while its stamp holds.
    return answers === null ? ctx.prices.run(plan, task) : answers.answer(task, () => ctx.prices.run(plan, task));
  }

  /** D50: limits before any other work (even before schema validation of the items). */
  function bulkLimits(body: unknown): void {
    const raw = body as { data?: { relationships?: Record<string, { data?: unknown } | undefined> } };
    const rels = raw.data?.relationships;
    if (rels !== null && typeof rels === 'object') {
      const s = rels.charging_stations?.data;
      if (Array.isArray(s) && s.length > MAX_BULK_STATIONS) {
        throw badPointer('/data/relationships/charging_stations/data', `at most ${MAX_BULK_STATIONS} charging stations per request`);
      }
      const t = rels.tariffs?.data;
      if (Array.isArray(t) && t.length > MAX_BULK_TARIFFS) {
        throw badPointer('/data/relationships/tariffs/data', `at most ${MAX_BULK_TARIFFS} tariffs per request`);
      }
    }
  }

  async function bulkHandler(req: ApiRequest<BulkBody>): Promise<ApiResponse> {
    const body = req.body;
    const a = body.data.attributes;
    const rel = body.data.relationships;
    if (!(a.battery_range[0] < a.battery_range[1])) {
      throw badPointer(`${A}/battery_range`, 'battery_range start must be below its end');
    }
    const currency = currencyOf(a.currency, rates);
    const vehicle = vehicleOf(ctx, rel.vehicle.data.id);
    const stationIds = rel.charging_stations.data.map((s) => s.id);
    const tariffIds = rel.tariffs.data.map((t) => t.id);
    const r = await ctx.prices.run(ctx.prices.plan({ task: 'bulk', stations: stationIds.length, tariffs: tariffIds.length }), {
      stationIds,
      tariffIds,
      vehicle,
      batteryRange: [a.battery_range[0], a.battery_range[1]],
      currency,
      startTime: a.start_time ?? DEFAULTS.start_time,
      startDay: startDayOf(a.start_date, `${A}/start_date`),
      allowUnbalancedLoad: a.allow_unbalanced_load ?? DEFAULTS.allow_unbalanced_load,
      includeDirectPayment: a.include_direct_payment ?? false,
      chargePointsPowerLte: a.charge_points_power_lte ?? null,
    });
    return r;
  }

  return [
    defineRoute({ method: 'POST', path: '/v1/charge_prices', answers: { status: 200, response: (s) => s.ChargePricesDocument, language: true }, groups: ['ReadCosts'], input: validateChargePrices, before: resolveAdapterAlias, priceWork: true, fresh: true, handler: chargePricesHandler }),
    defineRoute({ method: 'POST', path: '/v1/charge_prices/bulk', answers: { status: 200, response: (s) => s.BulkDocument }, groups: ['ReadCosts'], input: validateBulk, before: bulkLimits, priceWork: true, fresh: true, handler: bulkHandler }),
  ];
}

