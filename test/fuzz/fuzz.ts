/**
 * `npm run fuzz`: mutated requests over every route of the running service (the compiled service on
 * the default snapshot, its own data directory). Each request starts from a valid one and is
 * mutated: wrong types, nulls, huge numbers, deep nesting, long strings, invalid UTF-8, prototype
 * keys, missing and unknown members, truncated and non-JSON text, other content types, repeated and
 * bracketed query parameters, odd path ids, missing or wrong keys, chunked bodies, and bodies cut
 * off mid-way (the client hangs up). Round 3 shapes: bodies with tens of thousands of wrong items
 * (D170), names of Object.prototype in any path segment (D171), cdr_cost periods decades before
 * the session (D172), and CORS preflights of distinct paths (D173); the account routes (D200–D213)
 * with a confirmed user's bearer token, mangled now and then, the web client's membership shapes
 * (D239) among them; after the run `/metrics` must
 * stay small. Fails on any 5xx other than 503, an answer slower than
 * `--hang-ms`, a reset of a well-formed request, or the service exiting.
 *
 *   npm run fuzz [-- --count 50000] [--time 300] [--concurrency 16] [--seed 1] [--hang-ms 5000]
 *                 [--floods login,profiles,csv] [--flood-every 20] [--flood-ms 4000] [--flood-connections 64]
 *
 * Beside the mutated requests, floods of one class at a time (test/fuzz/floods.ts: wrong logins,
 * new price profiles and their tiles, CSV pages) come from many connections while `/health` is
 * probed; every kind floods at least once per run (`--floods ''` for none).
 *
 * It stops at `--count` requests or after `--time` seconds, whichever comes first, and prints
 * requests per route and status, and the first failures with the request that caused each.
 */
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { simpleParser } from 'mailparser';
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { defaultSnapshotPath } from '../../src/config.js';
import { mulberry32 } from '../../src/domain/random.js';
import { BENCH_KEY, startService } from '../../bench/lib/harness.js';
import { bulkBody, chargeBody, pickFixture, tariffBody } from '../../bench/scenarios.js';
import { flood, floodLine, tileOf, type FloodKind, type FloodResult, type FloodSetup } from './floods.js';

const USAGE =
  'npm run fuzz [-- --count 50000] [--time 300] [--concurrency 16] [--seed 1] [--hang-ms 5000] ' +
  '[--floods login,profiles,csv] [--flood-every 20] [--flood-ms 4000] [--flood-connections 64]';
const { values } = parseArgs({
  options: {
    count: { type: 'string', default: '50000' },
    time: { type: 'string', default: '300' },
    concurrency: { type: 'string', default: '16' },
    seed: { type: 'string', default: '1' },
    'hang-ms': { type: 'string', default: '5000' },
    floods: { type: 'string', default: 'login,profiles,csv' },
    'flood-every': { type: 'string', default: '20' },
    'flood-ms': { type: 'string', default: '4000' },
    'flood-connections': { type: 'string', default: '64' },
    help: { type: 'boolean', default: false },
  },
});
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
const COUNT = Number(values.count);
const TIME_MS = Number(values.time) * 1000;
const CONCURRENCY = Number(values.concurrency);
const HANG_MS = Number(values['hang-ms']);
const FLOODS = values.floods.split(',').filter((k) => k.length > 0) as FloodKind[];
for (const k of FLOODS) if (!['login', 'profiles', 'csv'].includes(k)) throw new Error(`unknown flood ${k}; known: login, profiles, csv`);
const FLOOD_EVERY_MS = Number(values['flood-every']) * 1000;
const FLOOD_MS = Number(values['flood-ms']);
const FLOOD_CONNECTIONS = Number(values['flood-connections']);
const rnd = mulberry32(Number(values.seed));
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];

interface Template {
  name: string;
  method: string;
  path: string;
  query?: Record<string, string>;
  body?: unknown;
  /** Body-less routes still get a body now and then. */
  bare?: boolean;
  /** Headers the route needs (a user's bearer token), sent with most of its requests. */
  headers?: Record<string, string>;
}

async function put(port: number, p: string, body: unknown): Promise<void> {
  const r = await fetch(`http://127.0.0.1:${port}${p}`, { method: 'PUT', headers: { 'Api-Key': BENCH_KEY, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  if (r.status >= 300) throw new Error(`setup PUT ${p}: ${r.status} ${await r.text()}`);
}

async function templates(port: number, dataDir: string): Promise<{ ts: Template[]; floodAt: Omit<FloodSetup, 'port' | 'rnd' | 'hangMs'> }> {
  const snapshot = defaultSnapshotPath();
  const f = pickFixture(snapshot);
  const emp = randomUUID();
  const tariff = randomUUID();
  const station = f.busy.id;
  const company = { data: { id: emp, type: 'company', attributes: { name: 'Fuzz EMP', version: 1, is_cpo: false, is_emp: true, external_source_mapping: {} }, relationships: { supported_emps: { data: [] } } } };
  const area = { data: { type: 'area_price_preview_request', attributes: { battery_range: [10, 80], latitude: f.busy.latitude, longitude: f.busy.longitude, radius: 3000, limit: 20 }, relationships: { tariffs: { data: [{ type: 'tariff', id: tariff }] }, vehicle: { data: { type: 'car', id: f.vehicle } } } } };
  const route = { data: { type: 'route_price_preview_request', attributes: { battery_range: [10, 80], route: { coordinates: [[f.busy.longitude, f.busy.latitude], [f.busy.longitude + 0.05, f.busy.latitude + 0.05]] }, corridor: 2000, limit: 20 }, relationships: { tariffs: { data: [{ type: 'tariff', id: tariff }] }, vehicle: { data: { type: 'car', id: f.vehicle } } } } };
  // The EMP and its tariff exist, so that unmutated and lightly mutated requests reach the work.
  await put(port, `/v1/companies/${emp}`, company);
  const user = await accountTemplates(port, dataDir);
  await put(port, `/v2/tariffs/${tariff}`, tariffBody(tariff, emp, 1));
  const profile = await registerProfile(port, { data: { type: 'price_profile', attributes: { energy: 30, duration: 45 }, relationships: { tariffs: { data: [{ type: 'tariff', id: tariff }] } } } });
  const [tx, ty] = tileOf(f.busy.latitude, f.busy.longitude, 10);
  const nextCompany = JSON.parse(JSON.stringify(company)) as typeof company;
  nextCompany.data.attributes.version = 2;
  const nextTariff = tariffBody(tariff, emp, 2);
  const ts: Template[] = [
    { name: 'GET /health', method: 'GET', path: '/health' },
    { name: 'GET /ready', method: 'GET', path: '/ready' },
    { name: 'GET /attribution', method: 'GET', path: '/attribution' },
    { name: 'GET /openapi.json', method: 'GET', path: '/openapi.json' },
    { name: 'GET /docs/:file', method: 'GET', path: '/docs/init.js' },
    { name: 'GET /v1/charging_stations', method: 'GET', path: '/v1/charging_stations', query: { 'filter[latitude]': String(f.busy.latitude), 'filter[longitude]': String(f.busy.longitude), 'filter[radius]': '2000', 'page[size]': '50' } },
    { name: 'GET /v1/charging_stations (CSV)', method: 'GET', path: '/v1/charging_stations', query: { 'filter[latitude]': String(f.busy.latitude), 'filter[longitude]': String(f.busy.longitude), 'filter[radius]': '20000', 'page[size]': '400' }, headers: { Accept: 'text/csv' } },
    { name: 'GET /v1/charging_stations (GeoJSON)', method: 'GET', path: '/v1/charging_stations', query: { 'filter[latitude]': String(f.busy.latitude), 'filter[longitude]': String(f.busy.longitude), 'filter[radius]': '5000', 'page[size]': '100' }, headers: { Accept: 'application/geo+json' } },
    { name: 'GET /v1/charging_stations/clusters', method: 'GET', path: '/v1/charging_stations/clusters', query: { 'filter[latitude.gte]': String(f.busy.latitude - 1), 'filter[latitude.lte]': String(f.busy.latitude + 1), 'filter[longitude.gte]': String(f.busy.longitude - 1), 'filter[longitude.lte]': String(f.busy.longitude + 1), zoom: '8' } },
    { name: 'GET /v1/tiles/stations/:z/:x/:y', method: 'GET', path: `/v1/tiles/stations/10/${tx}/${ty}.mvt` },
    { name: 'GET /v1/tiles/stations.json', method: 'GET', path: '/v1/tiles/stations.json' },
    { name: 'POST /v1/price_profiles', method: 'POST', path: '/v1/price_profiles', body: { data: { type: 'price_profile', attributes: { energy: 20, duration: 30 }, relationships: { tariffs: { data: [{ type: 'tariff', id: tariff }] } } } } },
    { name: 'GET /v1/price_profiles/:id', method: 'GET', path: `/v1/price_profiles/${profile}` },
    { name: 'GET /v1/tiles/prices/:profile/:z/:x/:y', method: 'GET', path: `/v1/tiles/prices/${profile}/10/${tx}/${ty}.mvt` },
    { name: 'GET /map', method: 'GET', path: '/map' },
    { name: 'GET /v1/charging_stations/:id', method: 'GET', path: `/v1/charging_stations/${station}` },
    { name: 'GET /v1/charging_stations/statistics', method: 'GET', path: '/v1/charging_stations/statistics', query: { 'filter[country]': 'DE' } },
    { name: 'GET /v1/country_statistics', method: 'GET', path: '/v1/country_statistics', query: { 'filter[country]': 'FR' } },
    { name: 'GET /v1/vehicles', method: 'GET', path: '/v1/vehicles', query: { 'page[size]': '10' } },
    { name: 'GET /v2/vehicles', method: 'GET', path: '/v2/vehicles', query: { 'page[size]': '10' } },
    { name: 'GET /v2/vehicle_brands', method: 'GET', path: '/v2/vehicle_brands' },
    { name: 'GET /v1/companies', method: 'GET', path: '/v1/companies', query: { 'filter[is_emp]': 'true' } },
    { name: 'PUT /v1/companies/:id', method: 'PUT', path: `/v1/companies/${emp}`, body: nextCompany },
    { name: 'DELETE /v1/companies/:id', method: 'DELETE', path: `/v1/companies/${randomUUID()}` },
    { name: 'GET /v1/tariffs', method: 'GET', path: '/v1/tariffs', query: { 'filter[emp.id]': emp } },
    { name: 'GET /v2/tariffs', method: 'GET', path: '/v2/tariffs', query: { 'filter[emp.id]': emp } },
    { name: 'PUT /v2/tariffs/:id', method: 'PUT', path: `/v2/tariffs/${tariff}`, body: nextTariff },
    { name: 'DELETE /v2/tariffs/:id', method: 'DELETE', path: `/v2/tariffs/${randomUUID()}` },
    { name: 'POST /v1/charge_prices', method: 'POST', path: '/v1/charge_prices', body: chargeBody(f, f.busy, f.operator) },
    { name: 'POST /v1/charge_prices/bulk', method: 'POST', path: '/v1/charge_prices/bulk', body: bulkBody(f, f.bulkStations.slice(0, 10), [tariff]) },
    { name: 'POST /v1/charge_prices/area', method: 'POST', path: '/v1/charge_prices/area', body: area },
    { name: 'POST /v1/charge_prices/route', method: 'POST', path: '/v1/charge_prices/route', body: route },
    { name: 'POST /v1/tariff_details', method: 'POST', path: '/v1/tariff_details', body: { data: { attributes: { station: { country: f.busy.country, operator: { id: f.operator, type: 'company' } } }, relationships: { tariffs: { data: [{ type: 'tariff', id: tariff }] } } } } },
    {
      name: 'POST /v1/ocpi/cdr_cost',
      method: 'POST',
      path: '/v1/ocpi/cdr_cost',
      body: {
        data: {
          type: 'ocpi_cdr_cost_request',
          attributes: {
            tariff: { currency: 'EUR', min_price: { excl_vat: 1 }, elements: [{ price_components: [{ type: 'TIME', price: 2, vat: 20, step_size: 300 }], restrictions: { start_time: '22:00', end_time: '06:00', min_kwh: 5, day_of_week: ['MONDAY'] } }, { price_components: [{ type: 'ENERGY', price: 0.3, step_size: 100 }, { type: 'PARKING_TIME', price: 5 }] }] },
            cdr: { start_date_time: '2026-03-02T21:00:00Z', end_date_time: '2026-03-02T23:30:00Z', charging_periods: [{ start_date_time: '2026-03-02T21:00:00Z', dimensions: [{ type: 'ENERGY', volume: 20 }, { type: 'TIME', volume: 2 }] }, { start_date_time: '2026-03-02T23:00:00Z', dimensions: [{ type: 'PARKING_TIME', volume: 0.5 }] }] },
            timezone: 'Europe/Berlin',
          },
        },
      },
    },
    {
      // D172: charging periods that start decades before the session, over many elements.
      name: 'POST /v1/ocpi/cdr_cost (periods in the past)',
      method: 'POST',
      path: '/v1/ocpi/cdr_cost',
      body: {
        data: {
          type: 'ocpi_cdr_cost_request',
          attributes: {
            tariff: { currency: 'EUR', elements: Array.from({ length: 200 }, (_, i) => ({ price_components: [{ type: 'TIME', price: 1 }], restrictions: { start_time: `${String(i % 24).padStart(2, '0')}:${String((i * 7) % 60).padStart(2, '0')}` } })) },
            cdr: { start_date_time: '2026-03-02T21:00:00Z', end_date_time: '2026-03-30T23:30:00Z', charging_periods: [{ start_date_time: '1970-01-01T00:00:00Z', dimensions: [{ type: 'TIME', volume: 2 }] }, { start_date_time: '2026-03-03T00:00:00Z', dimensions: [{ type: 'TIME', volume: 200 }] }] },
            timezone: 'Europe/Berlin',
          },
        },
      },
    },
    { name: 'POST /v1/user_feedback', method: 'POST', path: '/v1/user_feedback', body: { data: { type: 'other_feedback', attributes: { notes: 'n', email: '', context: '', language: 'en' } } } },
    { name: 'POST /v1/partner_feedback', method: 'POST', path: '/v1/partner_feedback', body: { data: { type: 'tariff_update', attributes: { content: 'c', tariff: '', cpo: '', emp: '', language: 'en' } } } },
    { name: 'POST /v1/crm/devices', method: 'POST', path: '/v1/crm/devices', body: { data: { id: randomUUID(), type: 'crm_device', attributes: { fcmToken: 'fcm:x', country: 'de', language: 'DE', app_version: '1', os_version: 'x', user_products: [], disabled_notifications: [] } } } },
    { name: 'POST /v1/availability', method: 'POST', path: '/v1/availability', body: { data: { type: 'evse_statuses', attributes: { statuses: [{ evse_id: 'DE*ION*E1', status: 'CHARGING' }] } } } },
    { name: 'PATCH /ocpi/2.2.1/locations/…', method: 'PATCH', path: '/ocpi/2.2.1/locations/DE/ION/loc1/DE*ION*E1', body: { status: 'AVAILABLE' } },
    { name: 'PUT /ocpi/2.2.1/locations/…', method: 'PUT', path: '/ocpi/2.2.1/locations/DE/ION/loc1/DE*ION*E1', body: { uid: 'DE*ION*E1', evse_id: 'DE*ION*E1', status: 'AVAILABLE', last_updated: '2026-01-01T00:00:00Z' } },
    { name: 'POST /admin/snapshot', method: 'POST', path: '/admin/snapshot', body: { data: { type: 'snapshot_reload', attributes: { path: '/nonexistent/fuzz.sqlite' } } } },
    ...user,
  ];
  return { ts, floodAt: { latitude: f.busy.latitude, longitude: f.busy.longitude, tariff } };
}

async function registerProfile(port: number, body: unknown): Promise<string> {
  const r = await fetch(`http://127.0.0.1:${port}/v1/price_profiles`, { method: 'POST', headers: { 'Api-Key': BENCH_KEY, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  if (r.status !== 201 && r.status !== 200) throw new Error(`setup POST /v1/price_profiles: ${r.status} ${await r.text()}`);
  return ((await r.json()) as { data: { id: string } }).data.id;
}

/** A confirmed account (signup, the outbox's link, login) and the account routes' templates (D200–D213). */
async function accountTemplates(port: number, dataDir: string): Promise<Template[]> {
  const email = 'fuzz@example.org';
  const password = 'fuzz passphrase';
  const send = (method: string, p: string, body?: unknown) =>
    fetch(`http://127.0.0.1:${port}${p}`, { method, headers: { 'Api-Key': BENCH_KEY, 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  await send('POST', '/v1/users', { data: { type: 'user', attributes: { email, password, username: 'fuzz' } } });
  const outbox = path.join(dataDir, 'outbox');
  for (let i = 0; i < 500 && !(fs.existsSync(outbox) && fs.readdirSync(outbox).some((f) => f.endsWith('.eml'))); i++) await new Promise((r) => setTimeout(r, 10));
  const mail = await simpleParser(fs.readFileSync(path.join(outbox, fs.readdirSync(outbox).find((f) => f.endsWith('.eml'))!)));
  const link = new URL(/(https?:\/\/\S+)/.exec(mail.text ?? '')![1]);
  await fetch(`http://127.0.0.1:${port}${link.pathname}${link.search}`);
  const login = (await (await send('POST', '/v1/authenticate', { data: { type: 'email_authentication', attributes: { email, password } } })).json()) as { data: { attributes: { access_token: string; refresh_token: string } } };
  const { access_token, refresh_token } = login.data.attributes;
  const sub = (JSON.parse(Buffer.from(access_token.split('.')[1], 'base64url').toString()) as { sub: string }).sub;
  const bearer = { Authorization: `Bearer ${access_token}` };
  const settings = { data: { type: 'user_settings', id: sub, attributes: { version: 2 }, relationships: { vehicle: { data: { id: 'car', type: 'car' } }, tariffs: { data: [{ id: 't', type: 'tariff' }] } } } };
  return [
    { name: 'POST /v1/authenticate (email)', method: 'POST', path: '/v1/authenticate', body: { data: { type: 'email_authentication', attributes: { email, password } } } },
    { name: 'POST /v1/authenticate (refresh)', method: 'POST', path: '/v1/authenticate', body: { data: { type: 'refresh_token_authentication', attributes: { refresh_token } } } },
    { name: 'POST /v1/users', method: 'POST', path: '/v1/users', body: { data: { type: 'user', attributes: { email: 'other@example.org', password, username: 'u', language: 'de' } } } },
    { name: 'POST /v1/trigger_reset_password', method: 'POST', path: '/v1/trigger_reset_password', body: { data: { type: 'trigger_reset_password', attributes: { email } } } },
    { name: 'GET /account/confirm', method: 'GET', path: link.pathname, query: { token: link.searchParams.get('token')! } },
    { name: 'POST /account/reset', method: 'POST', path: '/account/reset', body: { data: { type: 'password_reset', attributes: { token: 'x'.repeat(43), password } } } },
    { name: 'GET /v1/users/:sub/settings', method: 'GET', path: `/v1/users/${sub}/settings`, headers: bearer },
    { name: 'PUT /v1/users/:sub/settings', method: 'PUT', path: `/v1/users/${sub}/settings`, headers: bearer, body: settings },
    { name: 'PUT /v1/users/:sub/settings (wrapped)', method: 'PUT', path: `/v1/users/${sub}/settings`, headers: bearer, body: { data: { attributes: { data: { version: 3, vehicle: { id: 'car', type: 'car' }, tariffs: [] } } } } },
    { name: 'POST /v1/users/:sub/products', method: 'POST', path: `/v1/users/${sub}/products`, headers: bearer, body: { data: { type: 'user_products', attributes: { source: { type: 'code', code: 'nope' } } } } },
    // The web client's membership shapes (D239).
    { name: 'POST /v1/users/:sub/products (emc)', method: 'POST', path: `/v1/users/${sub}/products`, headers: bearer, body: { data: { type: 'user_products', attributes: { source: { type: 'emc_membership', member_number: 'M-1', card_number: '4711 0000 1234 5678' } } } } },
    { name: 'POST /v1/users/:sub/products (carbonify)', method: 'POST', path: `/v1/users/${sub}/products`, headers: bearer, body: { data: { type: 'user_products', attributes: { source: { type: 'carbonify_thg', email, country: 'AT', quota_year: 2026 } } } } },
    { name: 'DELETE /v1/users/:sub', method: 'DELETE', path: `/v1/users/${sub}-x`, headers: bearer },
  ];
}

// ---- mutations ----

const deep = (n: number): unknown => {
  let v: unknown = 1;
  for (let i = 0; i < n; i++) v = rnd() < 0.5 ? [v] : { a: v };
  return v;
};
const EVIL: (() => unknown)[] = [
  () => null, () => true, () => 0, () => -1, () => 1e308, () => -1e308, () => 2 ** 53 + 1, () => 0.1 + 0.2, () => -0,
  () => '', () => 'x'.repeat(100_000), () => '\u0000', () => '\u202e\ud83d\ude00', () => '../../etc/passwd', () => '%00',
  () => [], () => ({}), () => [null], () => deep(70), () => deep(20), () => ({ __proto__: { polluted: 1 } }), () => ({ constructor: { prototype: { polluted: 1 } } }),
  () => Array.from({ length: 2000 }, (_, i) => i), () => '2026-02-30T25:61:00Z', () => 'NaN', () => '1e400',
];
const PROTO_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty'];

/** Every container path in a JSON value. */
function paths(v: unknown, at: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  out.push(at);
  if (v !== null && typeof v === 'object' && at.length < 12) {
    for (const k of Object.keys(v)) paths((v as Record<string, unknown>)[k], [...at, Array.isArray(v) ? Number(k) : k], out);
  }
  return out;
}

function mutateJson(doc: unknown): unknown {
  const copy = JSON.parse(JSON.stringify(doc)) as unknown;
  const n = 1 + Math.floor(rnd() * 3);
  let root = copy;
  for (let m = 0; m < n; m++) {
    const all = paths(root);
    const p = pick(all);
    if (p.length === 0) {
      root = pick(EVIL)();
      continue;
    }
    let parent = root as Record<string | number, unknown> | null;
    for (const k of p.slice(0, -1)) {
      const child: unknown = parent === null || typeof parent !== 'object' ? null : parent[k];
      parent = child !== null && typeof child === 'object' ? (child as Record<string | number, unknown>) : null;
    }
    if (parent === null || typeof parent !== 'object') continue;
    const last = p[p.length - 1];
    const r = rnd();
    if (r < 0.6) parent[last] = pick(EVIL)();
    else if (r < 0.8) delete parent[last];
    else Object.defineProperty(parent, pick(PROTO_KEYS), { value: pick(EVIL)(), enumerable: true, configurable: true, writable: true });
  }
  return root;
}

/** Bytes of a body: mutated JSON, or text no parser likes. */
function bodyBytes(t: Template): Buffer {
  const base = t.body ?? { data: {} };
  if (rnd() < 0.01) return bomb(t);
  const r = rnd();
  if (r < 0.7) return Buffer.from(JSON.stringify(mutateJson(base)));
  const text = JSON.stringify(base);
  if (r < 0.76) return Buffer.from(text.slice(0, Math.floor(rnd() * text.length)));
  if (r < 0.82) {
    // Invalid UTF-8 inside a string value.
    const b = Buffer.from(text);
    const at = text.indexOf('"', 10) + 1 || 1;
    return Buffer.concat([b.subarray(0, at), Buffer.from([0xff, 0xfe, 0xc3]), b.subarray(at)]);
  }
  if (r < 0.86) return Buffer.from(text.replace(/\}$/, ',"data":null}'));
  if (r < 0.9) return Buffer.from('[' .repeat(5000) + ']'.repeat(5000));
  if (r < 0.94) return Buffer.from('{"data":{"a":1e99999,"b":-1e99999,"c":123456789012345678901234567890}}');
  if (r < 0.97) return Buffer.alloc(0);
  return Buffer.from('not json at all \u0000');
}

const QUERY_EVIL = ['', '-1', '0', '1e309', '99999999999999999999', 'NaN', 'true', '%zz', '%00', 'é', 'x'.repeat(10_000), '[]', '{}', ',,,', '1,2,3', '-180.5', '91'];
const QUERY_KEYS = ['filter[latitude]', 'filter[longitude]', 'filter[radius]', 'filter[bbox]', 'page[size]', 'page[number]', 'page[offset]', 'filter[id]', 'filter[emp.id]', 'filter[operator.supported_emps.id]', 'filter[country]', 'include', 'sort', 'filter[a][b]', 'page[size][]', '__proto__', 'constructor[prototype]', 'q'];

function queryString(t: Template): string {
  const q: [string, string][] = Object.entries(t.query ?? {});
  const n = Math.floor(rnd() * 4);
  for (let i = 0; i < n; i++) {
    const r = rnd();
    if (r < 0.4 && q.length > 0) q[Math.floor(rnd() * q.length)][1] = pick(QUERY_EVIL);
    else if (r < 0.7) q.push([pick(QUERY_KEYS), pick(QUERY_EVIL)]);
    else if (q.length > 0) q.push([...q[Math.floor(rnd() * q.length)]]); // repeated
    else q.push(['&&', '=']);
  }
  const enc = (s: string): string => (rnd() < 0.1 ? s : encodeURIComponent(s).replace(/%5B/g, '[').replace(/%5D/g, ']'));
  const s = q.map(([k, v]) => `${enc(k)}=${enc(v)}`).join('&');
  return s.length > 0 ? `?${s}` : '';
}

function pathOf(t: Template): string {
  if (rnd() < 0.1 && /\/[0-9a-f-]{36}$|\/[A-Z0-9*]+$/i.test(t.path)) {
    return t.path.replace(/\/[^/]+$/, '/' + pick(['%00', 'x'.repeat(3000), '..%2F..%2Fetc', 'ÿ', '%E2%82', '*', 'null']));
  }
  // D171: a name of Object.prototype in any one segment.
  if (rnd() < 0.05) {
    const segs = t.path.split('/');
    segs[1 + Math.floor(rnd() * (segs.length - 1))] = pick(PROTO_KEYS);
    return segs.join('/');
  }
  return t.path;
}

/** D170: a body whose array holds thousands of wrong items, at some array of the template. */
function bomb(t: Template): Buffer {
  const copy = JSON.parse(JSON.stringify(t.body ?? { data: {} })) as unknown;
  const arrays = paths(copy).filter((p) => p.length > 0);
  const items = Array.from({ length: 20_000 + Math.floor(rnd() * 80_000) }, () => pick([1, 'x', null, true, {}]));
  let at = copy as Record<string | number, unknown>;
  const p = arrays.length > 0 ? pick(arrays) : ['data'];
  for (const k of p.slice(0, -1)) {
    const next = at[k];
    if (next === null || typeof next !== 'object') break;
    at = next as Record<string | number, unknown>;
  }
  at[p[p.length - 1]] = items;
  return Buffer.from(JSON.stringify(copy));
}

const CONTENT_TYPES = ['application/json', 'application/json', 'application/json', 'application/vnd.api+json; charset=utf-8', 'text/plain', '', 'multipart/form-data; boundary=x', 'application/json; charset=latin1'];

interface Req {
  route: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Buffer | null;
  mode: 'normal' | 'chunked' | 'truncated';
}

function next(ts: readonly Template[]): Req {
  const t = pick(ts);
  // D173: preflights of distinct paths (known templates with fresh ids, and unknown paths).
  if (rnd() < 0.03) {
    const p = pick([`/v1/charging_stations/${randomUUID()}`, `/nowhere/${randomUUID()}`, `/docs/${randomUUID()}`, `${pathOf(t)}/${Math.floor(rnd() * 1e9)}`]);
    return { route: 'OPTIONS (distinct paths)', method: 'OPTIONS', path: p, headers: { Origin: 'https://fuzz.example', 'Access-Control-Request-Method': 'GET' }, body: null, mode: 'normal' };
  }
  const method = rnd() < 0.03 ? pick(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD']) : t.method;
  const headers: Record<string, string> = {};
  const k = rnd();
  if (k < 0.9) headers['Api-Key'] = BENCH_KEY;
  else if (k < 0.95) headers['Api-Key'] = 'wrong-' + Math.floor(rnd() * 1e6);
  const ct = pick(CONTENT_TYPES);
  if (ct !== '') headers['Content-Type'] = ct;
  if (rnd() < 0.05) headers['Accept-Encoding'] = pick(['br', 'gzip', 'br;q=0, gzip;q=0', '*', 'x'.repeat(500)]);
  if (rnd() < 0.05) {
    headers.Accept = pick(['application/vnd.api+json', 'application/geo+json', 'text/csv', 'application/vnd.api+json; ext="x"', 'text/*;q=x, */*;q=0', ';;,/,"', 'a/b;q=0.5'.repeat(200)]);
  }
  if (rnd() < 0.03) headers['If-None-Match'] = pick(['*', '"x"', 'W/"1", "2"', '"'.repeat(100)]);
  for (const [h, v] of Object.entries(t.headers ?? {})) headers[h] = rnd() < 0.9 ? v : pick(['', 'Bearer', `Bearer ${v.slice(7, -5)}`, 'Bearer x.y.z', v.toLowerCase()]);
  if (rnd() < 0.1) headers['X-Forwarded-For'] = pick(['1.2.3.4', '', ' , ', 'x'.repeat(300), '::1, 10.0.0.1']);
  const hasBody = t.body !== undefined || rnd() < 0.05;
  const body = hasBody && method !== 'GET' && method !== 'HEAD' ? bodyBytes(t) : null;
  const m = rnd();
  const mode = body !== null && m < 0.04 ? 'chunked' : body !== null && m < 0.06 ? 'truncated' : 'normal';
  return { route: t.name, method, path: pathOf(t) + queryString(t), headers, body, mode };
}

// ---- sending ----

interface Outcome {
  status: number | 'hang' | 'reset' | 'hung up';
  ms: number;
  /** What the client's error said, for a reset: the socket's (ECONNRESET) or its parser's (a head too large). */
  error?: string;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });

function sendHttp(port: number, r: Req): Promise<Outcome> {
  const t0 = performance.now();
  return new Promise((resolve) => {
    let settled = false;
    const done = (status: Outcome['status'], error?: unknown): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ status, ms: performance.now() - t0, ...(error === undefined ? {} : { error: String((error as NodeJS.ErrnoException).code ?? error) + ` ${String(error)}` }) });
    };
    const req = http.request({ host: '127.0.0.1', port, method: r.method, path: r.path, agent, headers: { ...r.headers, ...(r.body ? { 'Content-Length': String(r.body.length) } : {}) } }, (res) => {
      res.on('data', () => undefined);
      res.on('end', () => done(res.statusCode ?? 0));
      res.on('error', (e) => done('reset', e));
    });
    const timer = setTimeout(() => {
      done('hang');
      req.destroy();
    }, HANG_MS);
    req.on('error', (e) => done('reset', e));
    req.end(r.body ?? undefined);
  });
}

/** Chunked bodies and bodies cut off mid-way go over a raw socket. */
function sendRaw(port: number, r: Req): Promise<Outcome> {
  const t0 = performance.now();
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    let out = '';
    let settled = false;
    const done = (status: Outcome['status']): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      s.destroy();
      resolve({ status, ms: performance.now() - t0 });
    };
    const timer = setTimeout(() => done(r.mode === 'truncated' ? 'hung up' : 'hang'), r.mode === 'truncated' ? 300 : HANG_MS);
    const head = [`${r.method} ${r.path} HTTP/1.1`, 'Host: fuzz', ...Object.entries(r.headers).map(([k, v]) => `${k}: ${v}`)];
    const body = r.body!;
    s.on('connect', () => {
      if (r.mode === 'chunked') {
        s.write(head.concat('Transfer-Encoding: chunked', '', '').join('\r\n'));
        let at = 0;
        while (at < body.length) {
          const n = Math.min(body.length - at, 1 + Math.floor(rnd() * 4096));
          s.write(`${n.toString(16)}\r\n`);
          s.write(body.subarray(at, at + n));
          s.write('\r\n');
          at += n;
        }
        s.write('0\r\n\r\n');
      } else {
        // Declares the whole body, sends part of it, and hangs up: the service must just drop it.
        s.write(head.concat(`Content-Length: ${body.length + 10}`, '', '').join('\r\n'));
        s.write(body.subarray(0, Math.floor(body.length / 2)));
        setTimeout(() => done('hung up'), 20);
      }
    });
    s.on('data', (d) => {
      out += d.toString('latin1');
      const m = /^HTTP\/1\.1 (\d{3})/.exec(out);
      if (m && out.includes('\r\n\r\n')) done(Number(m[1]));
    });
    s.on('error', () => done(r.mode === 'truncated' ? 'hung up' : 'reset'));
    s.on('close', () => done(r.mode === 'truncated' ? 'hung up' : 'reset'));
  });
}

async function main(): Promise<void> {
  // Test-cheap password hashes, so that logins that get through do not hold the fuzzer back.
  const svc = await startService({ snapshot: defaultSnapshotPath(), env: { PASSWORD_SCRYPT: '1024,8,1' } });
  console.error(`service on port ${svc.port}; fuzzing…`);
  let exited: number | null | undefined;
  svc.proc.on('exit', (code) => (exited = code));
  const { ts, floodAt } = await templates(svc.port, svc.dataDir);
  const floodSetup: FloodSetup = { ...floodAt, port: svc.port, rnd, hangMs: HANG_MS };
  const floods: FloodResult[] = [];
  const counts = new Map<string, Map<string, number>>();
  const failures: { why: string; req: Req; outcome: Outcome }[] = [];
  let sent = 0;
  const t0 = Date.now();
  const worker = async (): Promise<void> => {
    while (sent < COUNT && Date.now() - t0 < TIME_MS && exited === undefined) {
      sent++;
      if (sent % 5000 === 0) console.error(`${sent} requests, ${failures.length} failures, ${((Date.now() - t0) / 1000).toFixed(0)} s`);
      const r = next(ts);
      const o = r.mode === 'normal' ? await sendHttp(svc.port, r) : await sendRaw(svc.port, r);
      const byStatus = counts.get(r.route) ?? new Map<string, number>();
      byStatus.set(String(o.status), (byStatus.get(String(o.status)) ?? 0) + 1);
      counts.set(r.route, byStatus);
      let why: string | null = null;
      if (typeof o.status === 'number' && o.status >= 500 && o.status !== 503) why = `status ${o.status}`;
      else if (o.status === 'hang') why = `no answer within ${HANG_MS} ms`;
      else if (o.status === 'reset' && r.mode === 'normal') why = `connection reset (${o.error ?? 'no error'})`;
      if (why !== null) failures.push({ why, req: r, outcome: o });
    }
  };
  // Floods every FLOOD_EVERY_MS beside the mutated requests, each kind in turn; the kinds the run
  // was too short for follow it, so that every run floods each kind once.
  let stop = false;
  const pause = async (ms: number): Promise<void> => {
    for (const until = Date.now() + ms; !stop && Date.now() < until; ) await new Promise((r) => setTimeout(r, 100));
  };
  const flooder = async (): Promise<void> => {
    let k = 0;
    const one = async (): Promise<void> => {
      const kind = FLOODS[k++ % FLOODS.length];
      console.error(`${kind} flood: ${FLOOD_CONNECTIONS} connections for ${FLOOD_MS} ms`);
      floods.push(await flood(kind, floodSetup, FLOOD_CONNECTIONS, FLOOD_MS));
    };
    while (FLOODS.length > 0 && !stop) {
      await pause(k === 0 ? Math.min(5000, FLOOD_EVERY_MS) : FLOOD_EVERY_MS);
      if (!stop && exited === undefined) await one();
    }
    while (k < FLOODS.length && exited === undefined) await one();
  };
  const flooding = flooder();
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  stop = true;
  await flooding;
  const seconds = (Date.now() - t0) / 1000;
  for (const r of floods) for (const why of r.failures) failures.push({ why, req: next(ts), outcome: { status: 'hang', ms: 0 } });
  const health =
    exited === undefined ? await fetch(`http://127.0.0.1:${svc.port}/health`, { signal: AbortSignal.timeout(HANG_MS) }).then((r) => r.status, () => 0) : 0;
  // D173: the distinct paths and methods sent left the metrics exposition small.
  const metricsBytes =
    exited === undefined ? await fetch(`http://127.0.0.1:${svc.port}/metrics`, { signal: AbortSignal.timeout(HANG_MS) }).then(async (r) => (await r.text()).length, () => -1) : -1;
  if (metricsBytes > 1 << 20) failures.push({ why: `/metrics grew to ${metricsBytes} bytes`, req: next(ts), outcome: { status: 200, ms: 0 } });
  if (exited !== undefined) failures.push({ why: `the service exited with ${exited}`, req: next(ts), outcome: { status: 'reset', ms: 0 } });
  else if (health !== 200) failures.push({ why: `/health answered ${health === 0 ? 'nothing' : health} after the run`, req: next(ts), outcome: { status: health, ms: 0 } });
  // A service that no longer answers may not handle SIGTERM either.
  const stopped = await Promise.race([svc.stop().then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 15_000))]);
  if (!stopped) {
    svc.proc.kill('SIGKILL');
    failures.push({ why: 'the service did not stop within 15 s of SIGTERM', req: next(ts), outcome: { status: 'hang', ms: 0 } });
  }
  console.log(`${sent} mutated requests over ${ts.length} routes in ${seconds.toFixed(1)} s (${Math.round(sent / seconds)}/s), seed ${values.seed}`);
  console.log('| route | answers by status |\n| --- | --- |');
  for (const name of [...ts.map((t) => t.name), 'OPTIONS (distinct paths)']) {
    const m = counts.get(name);
    console.log(`| ${name} | ${m ? [...m.entries()].sort().map(([s, n]) => `${s}: ${n}`).join(', ') : '–'} |`);
  }
  if (floods.length > 0) {
    console.log(`\nfloods (${FLOOD_CONNECTIONS} connections, ${FLOOD_MS} ms each, /health probed every 100 ms):`);
    console.log('| flood | requests | answers by status | probes | worst probe ms |\n| --- | ---: | --- | ---: | ---: |');
    for (const r of floods) console.log(floodLine(r));
  }
  console.log(`\n/metrics after the run: ${metricsBytes} bytes`);
  if (failures.length > 0) {
    console.log(`\n${failures.length} failures; the first ones:`);
    for (const f of failures.slice(0, 10)) {
      console.log(`- ${f.why}: ${f.req.method} ${f.req.path.slice(0, 300)} (${f.req.mode}) ${JSON.stringify(f.req.headers)} body ${f.req.body?.subarray(0, 300).toString('latin1') ?? ''}`);
    }
    process.exitCode = 1;
  } else console.log('\nno failures: every answer was below 500 or a 503, none hung, nothing reset, the service kept running');
  agent.destroy();
}

main().then(
  () => process.exit(),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
