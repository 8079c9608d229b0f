/**
 * Representations chosen by `Accept` (D236–D238) over HTTP: JSON:API's media type (same bytes,
 * own ETag, 406 and 415 for the parameters JSON:API 1.1 forbids), `meta.snapshot_version` of the
 * single read, station search and the price searches as GeoJSON, station search as CSV, each
 * compared with the JSON answer to the same request.
 */
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { negotiate } from '../../src/http/negotiate.js';
import { mulberry32 } from '../../src/domain/random.js';
import { CSV_COLUMNS } from '../../src/api/station-features.js';
import { call, keyFor, startTestApp, type TestApp } from '../helpers/server.js';

const ALL = keyFor('all');
const COSTS = keyFor('costs');
const Q = '/v1/charging_stations?filter[latitude]=48.8566&filter[longitude]=2.3522&filter[radius]=3000&page[size]=25';
const GEO = { Accept: 'application/geo+json' };
const CSV = { Accept: 'text/csv' };
const API = { Accept: 'application/vnd.api+json' };

/** A station's list-shape attributes and operator as flat properties (D237). */
function propertiesOf(station: any, included: any[]): Record<string, unknown> {
  const op = station.relationships.operator.data;
  const name = op === null ? null : included.find((c) => c.type === 'company' && c.id === op.id).attributes.name;
  return { ...station.attributes, operator_id: op === null ? null : op.id, operator_name: name };
}

/** A value as D238 writes it into a cell (before RFC 4180 quoting, which the parser undoes). */
function cellOf(v: unknown): string {
  if (v === null) return '';
  if (typeof v === 'string') return /^[=+\-@\t\r]/.test(v) ? `'${v}` : v;
  return typeof v === 'object' ? JSON.stringify(v) : String(v);
}

/** The URL of `rel` in a Link header (RFC 8288), with the brackets and commas the JSON links leave readable decoded. */
const linkOf = (header: string | null, rel: string): string | undefined =>
  header
    ?.split(', ')
    .map((l) => /^<([^<>\s,[\]]*)>; rel="([a-z]+)"$/.exec(l))
    .find((m) => m?.[2] === rel)?.[1]
    .replace(/%5B/g, '[')
    .replace(/%5D/g, ']')
    .replace(/%2C/g, ',');

describe('Accept (D236)', () => {
  it('weighs media ranges as RFC 9110 says and keeps D12\'s default', () => {
    const cases: [string, 'json' | 'jsonapi' | 'geojson' | 'csv' | null][] = [
      ['', 'json'],
      ['*/*', 'json'],
      ['application/json', 'json'],
      ['application/vnd.api+json', 'jsonapi'],
      ['application/json, application/vnd.api+json', 'json'],
      ['application/json;q=0.5, application/vnd.api+json', 'jsonapi'],
      ['application/vnd.api+json;q=0.9, */*;q=0.1', 'jsonapi'],
      ['text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', 'json'],
      ['application/geo+json', 'geojson'],
      ['application/geo+json;q=0.5, application/json', 'json'],
      ['text/*', 'csv'],
      ['text/csv', 'csv'],
      ['application/*;q=0.2, text/csv;q=0.1', 'json'],
      ['image/png', 'json'],
      [';;,/,"', 'json'],
      [';', 'json'],
      [',,', 'json'],
      ['text/csv;q=x', 'json'],
      ['text/csv;q=2', 'json'],
      ['/csv, text/, */', 'json'],
      // A quoted-pair: the escaped backslash does not escape the closing quote.
      ['application/vnd.api+json; profile="a\\\\";q=0.5, application/geo+json', 'geojson'],
      ['application/vnd.api+json; profile="a\\"b,c";q=0.5, application/geo+json', 'geojson'],
      ['application/vnd.api+json; profile="https://example.com/p"', 'jsonapi'],
      ['application/vnd.api+json; ext="https://example.com/e"', null],
      ['application/vnd.api+json; charset=utf-8', null],
      ['application/vnd.api+json; charset=utf-8, application/vnd.api+json', 'jsonapi'],
      ['application/vnd.api+json; charset=utf-8, application/json', null],
    ];
    for (const [accept, want] of cases) expect(negotiate(accept, ['geojson', 'csv']), accept).toBe(want);
    // Any header at all gets an answer (the transport negotiates before its error handling).
    const rnd = mulberry32(236);
    const alphabet = 'ab/*;,=" qtx.0123+\\';
    for (let n = 0; n < 20_000; n++) {
      const h = Array.from({ length: Math.floor(rnd() * 24) }, () => alphabet[Math.floor(rnd() * alphabet.length)]).join('');
      expect(['json', 'jsonapi', 'geojson', 'csv', null], h).toContain(negotiate(h, n % 2 === 0 ? ['geojson', 'csv'] : undefined));
    }
    // Without the route's offers, GeoJSON and CSV are not chosen.
    expect(negotiate('application/geo+json', undefined)).toBe('json');
    expect(negotiate('text/csv', [])).toBe('json');
  });
});

describe('representations over HTTP (D236–D238)', () => {
  let srv: TestApp;
  beforeAll(async () => {
    srv = await startTestApp({ keys: { all: 'all', costs: 'ReadCosts', stations: 'ReadStations' }, env: { WORKERS: '1' } });
  });
  afterAll(async () => {
    await srv?.stop();
  });

  it('answers JSON:API\'s media type when asked: the same document, its own ETag, Vary: Accept', async () => {
    const plain = await call(srv, 'GET', Q, { key: ALL });
    const api = await call(srv, 'GET', Q, { key: ALL, headers: API });
    expect(plain.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(api.headers.get('content-type')).toBe('application/vnd.api+json');
    expect(api.text).toBe(plain.text);
    expect(api.headers.get('vary')).toContain('Accept');
    const etag = api.headers.get('etag')!;
    expect(etag).not.toBe(plain.headers.get('etag'));
    expect((await call(srv, 'GET', Q, { key: ALL, headers: { ...API, 'If-None-Match': etag } })).status).toBe(304);
    // The JSON:API entity tag does not stand for the JSON answer.
    expect((await call(srv, 'GET', Q, { key: ALL, headers: { 'If-None-Match': etag } })).status).toBe(200);
    // Errors too; answers that are no JSON:API document stay application/json.
    const missing = await call(srv, 'GET', '/v1/charging_stations/no-such-station', { key: ALL, headers: API });
    expect([missing.status, missing.headers.get('content-type')]).toEqual([404, 'application/vnd.api+json']);
    for (const p of ['/health', '/ready']) expect((await call(srv, 'GET', p, { headers: API })).headers.get('content-type'), p).toBe('application/json; charset=utf-8');
  });

  it('refuses JSON:API with forbidden parameters: 406 on Accept, 415 on a body, nothing stored', async () => {
    const r = await call(srv, 'GET', Q, { key: ALL, headers: { Accept: 'application/vnd.api+json; ext="https://example.com/ext"' } });
    expect(r.status).toBe(406);
    expect(r.json.errors[0]).toMatchObject({ status: '406', code: 'NOT_ACCEPTABLE' });
    const profile = await call(srv, 'GET', Q, { key: ALL, headers: { Accept: 'application/vnd.api+json; profile="https://example.com/p"' } });
    expect([profile.status, profile.headers.get('content-type')]).toEqual([200, 'application/vnd.api+json']);
    // The probes are not JSON:API documents: no 406 there.
    expect((await call(srv, 'GET', '/health', { headers: { Accept: 'application/vnd.api+json; charset=utf-8' } })).status).toBe(200);

    const id = 'c7d1e0a2-5b1f-4f3e-9a51-0d2c3b4a5e60';
    const company = {
      data: { id, type: 'company', attributes: { name: 'Representations', version: 1, is_cpo: false, is_emp: true, external_source_mapping: {} }, relationships: { supported_emps: { data: [] } } },
    };
    const refused = await call(srv, 'PUT', `/v1/companies/${id}`, { key: ALL, body: company, headers: { 'Content-Type': 'application/vnd.api+json; charset=utf-8' } });
    expect(refused.status).toBe(415);
    expect((await call(srv, 'GET', `/v1/companies?filter[id]=${id}`, { key: ALL })).json.data).toEqual([]);
    const ok = await call(srv, 'PUT', `/v1/companies/${id}`, { key: ALL, body: company, headers: { 'Content-Type': 'application/vnd.api+json; profile="https://example.com/p"', ...API } });
    expect([ok.status, ok.headers.get('content-type')]).toEqual([201, 'application/vnd.api+json']);
  });

  it('names the snapshot in the single read\'s meta, as in the search pages', async () => {
    const version = (await call(srv, 'GET', '/health')).json.snapshot.version;
    const page = await call(srv, 'GET', Q, { key: ALL });
    expect(page.json.meta.snapshot_version).toBe(version);
    for (const s of page.json.data.slice(0, 5)) {
      const one = await call(srv, 'GET', `/v1/charging_stations/${encodeURIComponent(s.id)}`, { key: ALL });
      expect(one.json.meta).toEqual({ snapshot_version: version });
    }
  });

  it('answers station search as GeoJSON: a point feature per station with its attributes and operator, meta and links', async () => {
    const json = await call(srv, 'GET', Q, { key: ALL });
    const geo = await call(srv, 'GET', Q, { key: ALL, headers: GEO });
    expect(geo.status).toBe(200);
    expect(geo.headers.get('content-type')).toBe('application/geo+json');
    expect(geo.json.type).toBe('FeatureCollection');
    expect(json.json.data.length).toBe(25);
    expect(geo.json.features.map((f: any) => f.id)).toEqual(json.json.data.map((d: any) => d.id));
    json.json.data.forEach((d: any, k: number) => {
      const f = geo.json.features[k];
      expect(f.geometry).toEqual({ type: 'Point', coordinates: [d.attributes.longitude, d.attributes.latitude] });
      expect(f.properties).toEqual(propertiesOf(d, json.json.included));
    });
    expect(json.json.data.some((d: any) => d.relationships.operator.data !== null)).toBe(true);
    expect(geo.json.meta).toEqual(json.json.meta);
    expect(geo.json.links).toEqual(json.json.links);
    expect(geo.headers.get('etag')).not.toBe(json.headers.get('etag'));
    // An error is a JSON:API document whatever was asked for.
    const bad = await call(srv, 'GET', '/v1/charging_stations?filter[radius]=x', { key: ALL, headers: GEO });
    expect([bad.status, bad.headers.get('content-type')]).toEqual([400, 'application/json; charset=utf-8']);
  });

  it('answers station search as CSV: a header, a row per station, paging in Link and X- headers', async () => {
    const json = await call(srv, 'GET', Q, { key: ALL });
    const r = await call(srv, 'GET', Q, { key: ALL, headers: CSV });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/csv; charset=utf-8; header=present');
    expect(r.text.split('\r\n')[0]).toBe(CSV_COLUMNS.join(','));
    const rows = parse(r.text, { columns: true }) as Record<string, string>[];
    expect(rows.map((x) => x.id)).toEqual(json.json.data.map((d: any) => d.id));
    json.json.data.forEach((d: any, k: number) => {
      const props = propertiesOf(d, json.json.included);
      for (const c of CSV_COLUMNS) if (c !== 'id') expect(rows[k][c], `${d.id} ${c}`).toBe(cellOf(props[c]));
    });
    expect(r.headers.get('x-more-available')).toBe(String(json.json.meta.more_available));
    expect(r.headers.get('x-snapshot-version')).toBe(json.json.meta.snapshot_version);
    expect(linkOf(r.headers.get('link'), 'next')).toBe(json.json.links.next);
    expect(linkOf(r.headers.get('link'), 'self')).toBe(json.json.links.self);
  });

  it('pages through an export as CSV by its Link headers, every station once', async () => {
    let url: string | undefined = '/v1/charging_stations?export=true&page[size]=1000';
    const ids: string[] = [];
    let pages = 0;
    while (url !== undefined && pages < 20) {
      const r = await call(srv, 'GET', url, { key: ALL, headers: CSV });
      expect(r.status).toBe(200);
      ids.push(...(parse(r.text, { columns: true }) as { id: string }[]).map((x) => x.id));
      url = linkOf(r.headers.get('link'), 'next');
      expect(r.headers.get('x-more-available')).toBe(String(url !== undefined));
      pages++;
    }
    expect(pages).toBeGreaterThan(1);
    expect(new Set(ids).size).toBe(ids.length);
    const whole = await call(srv, 'GET', `/v1/charging_stations?export=true&page[size]=1000&page[number]=${pages + 1}`, { key: ALL });
    expect(whole.json.data).toEqual([]);
  });

  it('serves a repeated GeoJSON or CSV page from memory until its validator changes (D262)', async () => {
    const counts = async (): Promise<{ hit: number; miss: number }> => {
      const text = (await call(srv, 'GET', '/metrics')).text;
      const n = (r: string) => Number(new RegExp(`^cps_page_cache_total\\{result="${r}"\\} (\\d+)$`, 'm').exec(text)?.[1]);
      return { hit: n('hit'), miss: n('miss') };
    };
    const q = '/v1/charging_stations?filter[latitude]=48.8566&filter[longitude]=2.3522&filter[radius]=4000&page[size]=30';
    const reordered = '/v1/charging_stations?page[size]=30&filter[radius]=4000&filter[longitude]=2.3522&filter[latitude]=48.8566';
    const c0 = await counts();
    const first = await call(srv, 'GET', q, { key: ALL, headers: CSV });
    const again = await call(srv, 'GET', reordered, { key: ALL, headers: CSV });
    expect(await counts()).toEqual({ hit: c0.hit + 1, miss: c0.miss + 1 });
    expect(again.text).toBe(first.text);
    for (const h of ['link', 'x-more-available', 'x-snapshot-version', 'content-type']) expect(again.headers.get(h), h).toBe(first.headers.get(h));
    // Another representation, or the key that sees no live counts, is its own page.
    const geo = await call(srv, 'GET', q, { key: ALL, headers: GEO });
    expect((await call(srv, 'GET', q, { key: ALL, headers: GEO })).text).toBe(geo.text);
    expect((await call(srv, 'GET', q, { key: keyFor('stations'), headers: CSV })).status).toBe(200);
    expect(await counts()).toEqual({ hit: c0.hit + 2, miss: c0.miss + 3 });
    // Compressed answers: the copy kept with the page, the same bytes decoded.
    const gz1 = await call(srv, 'GET', q, { key: ALL, headers: { ...CSV, 'Accept-Encoding': 'gzip' } });
    const gz2 = await call(srv, 'GET', q, { key: ALL, headers: { ...CSV, 'Accept-Encoding': 'gzip' } });
    expect([gz1.headers.get('content-encoding'), gz2.text]).toEqual(['gzip', first.text]);
    // A company write changes the validator: the page is written again with the new name.
    const row = (parse(first.text, { columns: true }) as Record<string, string>[]).find((x) => x.operator_id !== '')!;
    const company = (await call(srv, 'GET', `/v1/companies?filter[id]=${row.operator_id}`, { key: ALL })).json.data[0];
    const renamed = { ...company, attributes: { ...company.attributes, name: 'Renamed Operator', version: company.attributes.version + 1 } };
    for (const k of ['created_at', 'updated_at']) delete renamed.attributes[k];
    expect((await call(srv, 'PUT', `/v1/companies/${row.operator_id}`, { key: ALL, body: { data: renamed } })).status).toBe(200);
    const c1 = await counts();
    const after = await call(srv, 'GET', q, { key: ALL, headers: CSV });
    expect(await counts()).toEqual({ hit: c1.hit, miss: c1.miss + 1 });
    expect((parse(after.text, { columns: true }) as Record<string, string>[]).find((x) => x.id === row.id)!.operator_name).toBe('Renamed Operator');
    expect(after.headers.get('etag')).not.toBe(first.headers.get('etag'));
  });

  it('answers the area and route price searches as GeoJSON: the previews with their stations\' properties', async () => {
    const tariffs = (await call(srv, 'GET', '/v1/tariffs', { key: ALL })).json.data.map((t: { id: string }) => t.id).slice(0, 50);
    const vehicle = (await call(srv, 'GET', '/v2/vehicles', { key: ALL })).json.data[0].id;
    const body = (type: string, attributes: Record<string, unknown>) => ({
      data: { type, attributes: { battery_range: [10, 80], ...attributes }, relationships: { tariffs: { data: tariffs.map((id: string) => ({ type: 'tariff', id })) }, vehicle: { data: { type: 'car', id: vehicle } } } },
    });
    const requests: [string, object][] = [
      ['/v1/charge_prices/area', body('area_price_preview_request', { latitude: 48.8566, longitude: 2.3522, radius: 3000, limit: 20 })],
      ['/v1/charge_prices/route', body('route_price_preview_request', { route: { coordinates: [[2.3522, 48.8566], [2.2945, 48.8584]] }, limit: 20 })],
    ];
    for (const [p, b] of requests) {
      const json = await call(srv, 'POST', p, { key: COSTS, body: b });
      const geo = await call(srv, 'POST', p, { key: COSTS, body: b, headers: GEO });
      expect(geo.status, p).toBe(200);
      expect(geo.headers.get('content-type')).toBe('application/geo+json');
      expect(json.json.data.length, p).toBeGreaterThan(0);
      expect(geo.json.features.map((f: any) => f.id)).toEqual(json.json.data.map((d: any) => d.id));
      json.json.data.forEach((d: any, k: number) => {
        const station = json.json.included.find((s: any) => s.type === 'charging_station' && s.id === d.id);
        expect(geo.json.features[k].properties).toEqual({ ...propertiesOf(station, json.json.included), ...d.attributes });
        expect(geo.json.features[k].geometry.coordinates).toEqual([station.attributes.longitude, station.attributes.latitude]);
      });
      expect(geo.json.meta).toEqual(json.json.meta);
      // CSV is not offered here: the default answers.
      const csv = await call(srv, 'POST', p, { key: COSTS, body: b, headers: CSV });
      expect(csv.headers.get('content-type')).toBe('application/json; charset=utf-8');
    }
  });

  it('describes each representation in /openapi.json', async () => {
    const doc = (await call(srv, 'GET', '/openapi.json')).json;
    const search = doc.paths['/v1/charging_stations'].get;
    expect(Object.keys(search.responses['200'].content)).toEqual(['application/json', 'application/vnd.api+json', 'application/geo+json', 'text/csv']);
    expect(search.responses['200'].headers.Link).toBeDefined();
    expect(search.description).toContain('`text/csv` (D238)');
    expect(doc.paths['/health'].get.description).not.toContain('Representations');
    // OpenAPI ignores a header parameter named Accept: the representations are in `content` and the description.
    expect(JSON.stringify(doc.paths)).not.toContain('"name":"Accept"');
    // Every $ref is a URI fragment (`{` `}` percent-encoded, RFC 6901 §6) that resolves in the document.
    const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"([^"]*)"/g)].map((m) => m[1]);
    // Shapes are referred to in components only, never into /paths (D274).
    expect(refs.filter((r) => r.startsWith('#/paths/'))).toEqual([]);
    expect(refs.some((r) => r.startsWith('#/components/schemas/'))).toBe(true);
    for (const ref of new Set(refs)) {
      expect(ref, ref).toMatch(/^#(\/[A-Za-z0-9._~%!$&'()*+,;=:@-]*)*$/);
      let node: any = doc;
      for (const part of ref.slice(2).split('/')) node = node?.[decodeURIComponent(part).replace(/~1/g, '/').replace(/~0/g, '~')];
      expect(node, ref).toBeDefined();
    }
    // Errors of routes that answer no JSON:API document are JSON only.
    expect(doc.paths['/ready'].get.responses['503']).toEqual({ $ref: '#/components/responses/J503' });
    expect(Object.keys(doc.components.responses.E400.content)).toEqual(['application/json', 'application/vnd.api+json']);
    expect(Object.keys(doc.components.responses.J400.content)).toEqual(['application/json']);
    for (const p of ['/v1/charge_prices/area', '/v1/charge_prices/route']) expect(Object.keys(doc.paths[p].post.responses['200'].content)).toContain('application/geo+json');
    expect(doc.paths['/v1/charging_stations/{id}'].get.responses['406']).toEqual({ $ref: '#/components/responses/E406' });
    expect(doc.paths['/health'].get.responses['406']).toBeUndefined();
  });
});
