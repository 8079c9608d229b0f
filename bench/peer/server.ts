/**
 * The peer baseline: what a team would write without this service's design — a fastify server
 * that answers the benchmark requests straightforwardly. Same data, loaded through src/storage:
 *
 * - station search (radius, bbox): a linear scan over every station's coordinates (haversine per
 *   station for radius), matches sorted (distance then id; id for bbox), then one snapshot row read
 *   per listed station and the JSON document built per request with JSON.stringify;
 * - station read: one snapshot row read and JSON.stringify;
 * - charge prices: every tariff of the live store, usable at the station's operator (D66) and
 *   passing the request's filters and listed tariffs (D67), priced
 *   at every charge point by the reference evaluator (src/domain/pricing/reference.ts: plain
 *   objects, interpreted per request); the station context (D39) by a linear scan for the
 *   operator's nearest station within 50 m.
 *
 * No API-key check, no request logging (both favour the peer). Run by bench/http.ts:
 *
 *   node dist/bench/peer/server.js --snapshot <file> --data-dir <live store dir>
 *
 * Prints `listening <port>` once ready.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import Fastify from 'fastify';
import KDBush from 'kdbush';
import {
  energyTypeOfPlug,
  isChargePointUsable,
  referencePrice,
  sessionForEnergy,
  sessionForVehicle,
  type ChargeSession,
  type RateTable,
  type VehiclePricing,
} from '../../src/domain/pricing/index.js';
import { VehicleRegistry } from '../../src/domain/vehicles/vehicle.js';
import { vehiclePricing } from '../../src/api/price-inputs.js';
import { Snapshot } from '../../src/storage/snapshot.js';
import { loadRefCatalog, profileOf, usable } from '../lib/reference-catalog.js';

const R = 6_371_000;
const toRad = (d: number): number => (d * Math.PI) / 180;

/** Textbook haversine distance in metres. */
export function haversine(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const dLat = toRad(lat2 - lat1);
  const dLon = toRad(lon2 - lon1);
  const a = Math.sin(dLat / 2) ** 2 + Math.cos(toRad(lat1)) * Math.cos(toRad(lat2)) * Math.sin(dLon / 2) ** 2;
  return 2 * R * Math.asin(Math.sqrt(Math.min(1, a)));
}

type Query = Record<string, string | undefined>;

export async function startPeer(snapshotFile: string, dataDir: string, port = 0): Promise<{ port: number; close(): Promise<void> }> {
  const snap = Snapshot.open(snapshotFile);
  const cols = snap.stationColumns();
  const n = cols.n;
  const ids: string[] = new Array(n);
  for (let i = 0; i < n; i++) ids[i] = cols.ids.toString('latin1', i * 36, (i + 1) * 36);
  const lat = new Float64Array(n);
  const lon = new Float64Array(n);
  const kd = KDBush.from(cols.kdbush);
  for (let k = 0; k < n; k++) {
    lon[kd.ids[k]] = kd.coords[2 * k];
    lat[kd.ids[k]] = kd.coords[2 * k + 1];
  }
  const operatorOf = (i: number): string | null => (cols.operator[i] >= 0 ? cols.dict.operators[cols.operator[i]] : null);
  const catalog = await loadRefCatalog(dataDir);
  const rates: RateTable = { date: snap.meta.ratesDate, rates: { EUR: 1, ...snap.rates() } };
  const registry = new VehicleRegistry(snap.vehicles(), snap.brands());

  const resource = (id: string): unknown => {
    const s = snap.station(id)!;
    const { id: _id, operator_id, ...attributes } = s;
    return {
      id,
      type: 'charging_station',
      attributes,
      relationships: { operator: { data: operator_id === null ? null : { type: 'company', id: operator_id } } },
    };
  };

  const app = Fastify({ logger: false, bodyLimit: 1024 * 1024 });

  app.get('/health', async () => ({ status: 'ok', stations: n }));

  app.get('/v1/charging_stations', async (req, reply) => {
    const q = req.query as Query;
    const size = Number(q['page[size]'] ?? 100);
    const hits: { i: number; d: number }[] = [];
    if (q['filter[radius]'] !== undefined) {
      const cLat = Number(q['filter[latitude]']);
      const cLon = Number(q['filter[longitude]']);
      const radius = Number(q['filter[radius]']);
      for (let i = 0; i < n; i++) {
        const d = haversine(cLat, cLon, lat[i], lon[i]);
        if (d <= radius) hits.push({ i, d });
      }
      hits.sort((a, b) => a.d - b.d || a.i - b.i);
    } else {
      const la0 = Number(q['filter[latitude.gte]']);
      const la1 = Number(q['filter[latitude.lte]']);
      const lo0 = Number(q['filter[longitude.gte]']);
      const lo1 = Number(q['filter[longitude.lte]']);
      for (let i = 0; i < n; i++) if (lat[i] >= la0 && lat[i] <= la1 && lon[i] >= lo0 && lon[i] <= lo1) hits.push({ i, d: 0 });
    }
    const page = hits.slice(0, size);
    reply.type('application/json; charset=utf-8');
    return JSON.stringify({ data: page.map((h) => resource(ids[h.i])), meta: { more_available: hits.length > size } });
  });

  app.get('/v1/charging_stations/:id', async (req, reply) => {
    const id = (req.params as { id: string }).id;
    if (snap.station(id) === null) return reply.code(404).send({ errors: [{ status: '404', title: 'Not Found' }] });
    reply.type('application/json; charset=utf-8');
    return JSON.stringify({ data: resource(id) });
  });

  app.post('/v1/charge_prices', async (req, reply) => {
    const body = req.body as any;
    const a = body.data.attributes;
    const st = a.station as { latitude: number; longitude: number; country: string; network: string; charge_points: { plug: string; power: number }[] };
    const o = a.options ?? {};
    const vehicleId: string | undefined = body.data.relationships?.vehicle?.data?.id;
    const vehicleRecord = vehicleId ? registry.get(vehicleId)! : null;
    const vehicle: VehiclePricing | null = vehicleRecord ? vehiclePricing(vehicleRecord) : null;
    const country = st.country.toUpperCase();
    // D67 filters with the request's options (defaults as documented).
    const providerCustomer: boolean = o.provider_customer_tariffs ?? false;
    const foreign: boolean = o.foreign_tariffs ?? true;
    const allBrands: boolean = o.show_all_brand_restricted_tariffs ?? false;
    const maxFees: number | null = o.max_monthly_fees ?? null;
    const rateOf = (c: string): number => (c === 'EUR' ? 1 : rates.rates[c]);
    // Listed tariffs (relationships.tariffs) with meta.include: filter (default), exclusive or always.
    const listedRel = body.data.relationships?.tariffs as { data: { id: string }[]; meta?: { include?: string } } | undefined;
    const listed = listedRel ? new Set(listedRel.data.map((t) => t.id)) : null;
    const include = listedRel?.meta?.include ?? 'filter';
    const startTime: number = o.start_time ?? 720;
    const currency: string = (o.currency ?? 'EUR').toUpperCase();
    // D39: the operator's nearest station within 50 m gives the station context.
    let ctx: { d: number; id: string } | null = null;
    for (let i = 0; i < n; i++) {
      if (operatorOf(i) !== st.network) continue;
      const d = haversine(st.latitude, st.longitude, lat[i], lon[i]);
      if (d > 50) continue;
      if (ctx === null || d < ctx.d || (d === ctx.d && ids[i] < ctx.id)) ctx = { d, id: ids[i] };
    }
    const station = { id: ctx?.id ?? null, cpo_id: st.network, country };
    const points = st.charge_points
      .map((cp) => {
        const e = energyTypeOfPlug(cp.plug) ?? (cp.power > 43 ? 'dc' : 'ac');
        let session: ChargeSession | null;
        if (vehicle) {
          session = isChargePointUsable(vehicle, e, cp.plug)
            ? sessionForVehicle(vehicle, e, cp.power, o.battery_range ?? [20, 80], { carAcPhases: o.car_ac_phases ?? 3, allowUnbalancedLoad: o.allow_unbalanced_load ?? false })
            : null;
        } else session = sessionForEnergy(o.energy, o.duration);
        return { cp, e, profile: session === null ? null : profileOf(session) };
      })
      .filter((p) => p.profile !== null);
    const data: unknown[] = [];
    for (const t of catalog.tariffs.values()) {
      if ((t as { type?: string }).type === 'sub_tariff' || t.cpo_id) continue;
      if (usable(catalog, t.emp_id, st.network) === 'none') continue;
      const passes = (): boolean => {
        if (!providerCustomer && t.provider_customer_only) return false;
        if (!foreign && (t.supported_countries ?? []).length > 0 && !t.supported_countries!.some((c) => c.toUpperCase() === country)) return false;
        const brands = t.vehicle_brand_ids ?? [];
        if (!allBrands && brands.length > 0 && (vehicleRecord === null || !brands.includes(vehicleRecord.brand_id))) return false;
        if (maxFees !== null) {
          const fees = (((t.monthly_fee ?? 0) + (t.monthly_min_sales ?? 0)) / rateOf(t.currency ?? 'EUR')) * rateOf(currency);
          if (!(fees <= maxFees + 1e-9)) return false;
        }
        return true;
      };
      const isListed = listed !== null && listed.has(t.id);
      const take = listed === null ? passes() : include === 'exclusive' ? isListed : include === 'always' ? isListed || passes() : isListed && passes();
      if (!take) continue;
      const prices = points.map(({ cp, e, profile }) => {
        const r = referencePrice({
          tariff: t,
          subTariffs: catalog.subsOf.get(t.id) ?? [],
          evsePrices: station.id === null ? [] : (catalog.evse.get(t.id)?.get(station.id) ?? []),
          companies: catalog.companies,
          station,
          chargePoint: { energy_type: e, power: cp.power },
          profile: profile!,
          startTime,
          currency,
          rates,
          averagePrices: false,
        });
        return { plug: cp.plug, power: cp.power, price: r.price, price_distribution: r.distribution, blocking_fee_start: r.blockingFeeStart, is_average_price: r.isAverage };
      });
      if (!o.show_price_unavailable && prices.every((p) => p.price === null)) continue;
      data.push({
        type: 'charge_price',
        attributes: { tariff_name: t.name, currency, charge_point_prices: prices },
        relationships: { tariff: { data: { type: 'tariff', id: t.id } } },
      });
    }
    reply.type('application/json; charset=utf-8');
    return JSON.stringify({ data });
  });

  const address = await app.listen({ host: '127.0.0.1', port });
  return {
    port: Number(new URL(address).port),
    close: async () => {
      await app.close();
      snap.close();
    },
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const argv = process.argv.slice(2);
  let snapshot = '';
  let dataDir = '';
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--snapshot') snapshot = argv[++i];
    else if (argv[i] === '--data-dir') dataDir = argv[++i];
    else throw new Error(`unknown argument ${argv[i]}`);
  }
  void startPeer(snapshot, dataDir).then((p) => {
    process.stdout.write(`listening ${p.port}\n`);
    process.on('SIGTERM', () => void p.close().then(() => process.exit(0)));
  });
}
