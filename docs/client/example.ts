/**
 * A small client written against the types `npm run client:types` generates from /openapi.json
 * (D234). test/docs/client-types.test.ts compiles it against freshly generated types: a schema that
 * stops typing one of the fields read here fails that test. Copy it as a start for your client.
 */
import type { paths } from './api.js';

type Json<T> = T extends { content: { 'application/json': infer B } } ? B : never;
type Get<P extends keyof paths> = paths[P] extends { get: { responses: { 200: infer R } } } ? Json<R> : never;
type Post<P extends keyof paths, S extends number = 200> = paths[P] extends { post: { responses: { [K in S]: infer R } } } ? Json<R> : never;
type Put<P extends keyof paths> = paths[P] extends { put: { responses: { 201: infer R } } } ? Json<R> : never;

/**
 * `x` itself; compiles only when its schema gives it a type: an untyped member reads as `never`
 * (a member of `Record<string, never>`) or `unknown`, and either would let anything compile.
 */
type Typed<T> = [T] extends [never] ? false : unknown extends T ? false : true;
const typed = <T>(x: T, ok: Typed<T>): T => (ok ? x : x);

const BASE = 'http://127.0.0.1:8080';
const KEY = process.env.CPS_API_KEY ?? '';

async function get<P extends keyof paths>(path: P, query = ''): Promise<Get<P>> {
  const r = await fetch(`${BASE}${path}${query}`, { headers: { 'Api-Key': KEY } });
  return (await r.json()) as Get<P>;
}

async function post<P extends keyof paths>(path: P, body: unknown): Promise<Post<P>> {
  const r = await fetch(`${BASE}${path}`, { method: 'POST', headers: { 'Api-Key': KEY, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  return (await r.json()) as Post<P>;
}

/** Reads typed fields of every resource; each line would not compile if its schema were untyped. */
export async function tour(): Promise<string[]> {
  const out: string[] = [];
  const stations = await get('/v1/charging_stations', '?filter[latitude]=48.8566&filter[longitude]=2.3522&filter[radius]=1000');
  const more: boolean = typed(stations.meta.more_available, true);
  const snapshot: string = typed(stations.meta.snapshot_version, true);
  for (const s of stations.data) {
    const power: number = typed(s.attributes.charge_points[0].power, true);
    const free: boolean | null = typed(s.attributes.free_parking, true);
    out.push(`${s.attributes.name} ${typed(s.attributes.latitude, true).toFixed(3)},${typed(s.attributes.longitude, true).toFixed(3)} ${power} kW ${String(free)} ${s.relationships.operator.data?.id ?? ''}`);
  }
  out.push(`more: ${more} (${snapshot})`);

  // D237: the same search as GeoJSON, for a map source.
  type Geo = paths['/v1/charging_stations']['get']['responses'][200]['content']['application/geo+json'];
  const geo = (await (await fetch(`${BASE}/v1/charging_stations?filter[latitude]=48.8566&filter[longitude]=2.3522&filter[radius]=1000`, { headers: { 'Api-Key': KEY, Accept: 'application/geo+json' } })).json()) as Geo;
  for (const f of geo.features) out.push(`${typed(f.geometry.coordinates[0], true).toFixed(5)} ${typed(f.properties.operator_name, true) ?? ''} ${typed(f.properties.charge_points[0].power, true)}`);

  const one = await get('/v1/charging_stations/{id}');
  out.push(typed(one.meta.snapshot_version, true), one.data.attributes.facility_details.map((f) => f.latitude.toFixed(4)).join(' '), typed(one.data.attributes.address, true).toUpperCase());

  const clusters = await get('/v1/charging_stations/clusters');
  for (const c of clusters.data) out.push(c.type === 'station_cluster' ? `${typed(c.attributes.count, true)} stations, zoom ${c.attributes.expansion_zoom}` : c.attributes.name);

  const companies = await get('/v1/companies');
  out.push(...companies.data.map((c) => `${typed(c.attributes?.name, true) ?? ''} cpo=${String(typed(c.attributes?.is_cpo, true))}`), String(typed(companies.meta.overall_count, true) + 1));

  const tariffs = await get('/v2/tariffs');
  for (const t of tariffs.data) for (const p of t.attributes?.prices ?? []) for (const d of p.decomposition) out.push(`${d.dimension} ${typed(d.price, true).toFixed(2)} ${d.currency ?? t.attributes?.currency ?? ''}`);
  const simple = await get('/v1/tariffs');
  out.push(...simple.data.map((t) => `${typed(t.attributes.total_monthly_fee, true).toFixed(2)} ${typed(t.attributes.currency, true)}`));

  const prices = await post('/v1/charge_prices', {});
  for (const p of prices.data) {
    const first = typed(p.attributes.charge_point_prices[0], true);
    out.push(`${p.attributes.provider}: ${first.price === null ? 'no price' : typed(first.price, true).toFixed(2)} ${typed(p.attributes.currency, true)} at ${first.power} kW`);
  }
  out.push(...prices.meta.charge_points.map((c) => `${typed(c.energy, true).toFixed(1)} kWh in ${c.duration.toFixed(0)} min`));

  const bulk = await post('/v1/charge_prices/bulk', {});
  out.push(...bulk.data.map((b) => `${b.relationships.charging_station.data.id}: ${typed(b.attributes.price, true).toFixed(2)} ${typed(b.attributes.currency, true)}`));
  const area = await post('/v1/charge_prices/area', {});
  out.push(...area.data.map((a) => `${a.attributes.distance?.toFixed(0) ?? '-'} m ${a.attributes.charge_point.plug}`), String(typed(area.meta.more_available, true)));
  const route = await post('/v1/charge_prices/route', {});
  out.push(...route.data.map((a) => `${typed(a.attributes.detour, true).toFixed(0)} m off`), String(route.meta.stations_priced));

  const details = await post('/v1/tariff_details', {});
  out.push(...details.data.map((d) => `${typed(d.attributes.tariff_level, true)} ${typed(d.attributes.restricted_segments, true).length}`));
  const cdr = await post('/v1/ocpi/cdr_cost', {});
  out.push(`${typed(cdr.data.attributes.total_cost.incl_vat, true).toFixed(2)} ${typed(cdr.data.attributes.currency, true)} ${cdr.data.attributes.price_bound ?? ''}`);

  const stats = await get('/v1/charging_stations/statistics');
  out.push(...stats.data.map((s) => `${typed(s.attributes.country, true)} ${typed(s.attributes.count, true)}`));
  const countries = await get('/v1/country_statistics');
  out.push(...countries.data.map((c) => `${typed(c.attributes.year, true)}-${typed(c.attributes.month, true)} ${c.attributes.charge_points.map((p) => p.type).join(',')}`));
  const cars = await get('/v2/vehicles');
  out.push(...cars.data.map((v) => `${v.attributes?.model ?? ''} ${typed(v.attributes?.usable_battery_size, true)?.toFixed(1) ?? ''} kWh`));
  const oldCars = await get('/v1/vehicles');
  out.push(...oldCars.data.map((v) => `${typed(v.attributes.name, true)} ${typed(v.attributes.dc_max_power, true) ?? 0}`));
  const brands = await get('/v2/vehicle_brands');
  out.push(...brands.data.map((b) => typed(b.attributes.name, true).toLowerCase()));

  const profile = await post('/v1/price_profiles', {});
  out.push(typed(profile.data.links.tiles, true), typed(profile.data.attributes.expires_at, true));
  const device = await post('/v1/crm/devices', {});
  out.push(typed(device.data.id, true));
  const company: Put<'/v1/companies/{id}'> | null = null;
  if (company !== null) out.push(String((company as Put<'/v1/companies/{id}'>).data.attributes.version + 1));
  const health = await get('/health');
  out.push(typed(health.snapshot.version, true), typed(health.uptime_seconds, true).toFixed(0));
  return out;
}
