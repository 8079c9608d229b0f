/**
 * The OpenAPI description (D121): valid OpenAPI 3.1 (checked with @seriousme/openapi-schema-validator
 * against the official schema), the same operations as the route table, every example request
 * accepted by the running service with the documented status, and every example answer (stored in
 * the description, and the live one) matching its schema. Also the docs page's files.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { buildSnapshot } from '../../src/import/default-snapshot.js';
import { openApiDocument } from '../../src/api/openapi/openapi.js';
import * as Schemas from '../../src/api/schemas/index.js';
import { type Send, runExamples } from '../../src/api/openapi/examples-runner.js';
import { ROOT, call, keyFor, startTestApp, type TestApp } from '../helpers/server.js';

const SECRET = 'openapi-test-secret-0123456789abcdef';
const ALL = keyFor('all');

describe('OpenAPI description and docs page', () => {
  let srv: TestApp;
  let doc: any;

  beforeAll(async () => {
    // The snapshot the examples were captured on: the sample plus the fixture stations with EVSEs.
    const snapshot = path.join(fs.mkdtempSync(path.join(inject('testTmpRoot'), 'openapi-')), 'sample-extra.sqlite');
    buildSnapshot({ out: snapshot, sample: true, progress: false, extra: path.join(ROOT, 'test/fixtures/stations-extra.jsonl') });
    srv = await startTestApp({ keys: { all: 'all', reader: 'ReadStations' }, env: { SNAPSHOT: snapshot, JWT_SECRET: SECRET } });
    const r = await call(srv, 'GET', '/openapi.json');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/json');
    doc = r.json;
  });
  afterAll(async () => {
    await srv?.stop();
  });

  it('is a valid OpenAPI 3.1 document, served without a key', async () => {
    const v = new Validator();
    const res = await v.validate(doc);
    expect(res.errors ?? [], JSON.stringify(res.errors ?? []).slice(0, 2000)).toEqual([]);
    expect(res.valid).toBe(true);
    expect(v.version).toBe('3.1');
    expect(doc.components.securitySchemes.ApiKey).toEqual(expect.objectContaining({ type: 'apiKey', in: 'header', name: 'Api-Key' }));
    // Conditional GET works on it like on any cacheable answer.
    const again = await call(srv, 'GET', '/openapi.json', { headers: { 'If-None-Match': (await call(srv, 'GET', '/openapi.json')).headers.get('etag')! } });
    expect(again.status).toBe(304);
  });

  it('lists the route table: every documented path answers a preflight with exactly its methods', async () => {
    const ops: string[] = [];
    for (const [p, item] of Object.entries<Record<string, any>>(doc.paths)) {
      // HEAD and OPTIONS are documented for every path (D234); the preflight lists them besides.
      expect(item.options, p).toBeDefined();
      if (item.get !== undefined) expect(item.head, p).toBeDefined();
      const methods = Object.keys(item).map((m) => m.toUpperCase()).filter((m) => m !== 'HEAD' && m !== 'OPTIONS' && m !== 'PARAMETERS');
      ops.push(...methods.map((m) => `${m} ${p}`));
      const concrete = p.replace(/\{[a-z_]+\}/g, (m) => (m === '{file}' ? 'init.js' : m === '{country_code}' ? 'DK' : m === '{party_id}' ? 'FIX' : 'x1'));
      const r = await call(srv, 'OPTIONS', concrete, { headers: { Origin: 'https://app.example', 'Access-Control-Request-Method': methods[0] } });
      expect(r.status, p).toBe(204);
      const allowed = r.headers.get('access-control-allow-methods')!.split(/,\s*/).filter((m) => m !== 'HEAD' && m !== 'OPTIONS').sort();
      expect(allowed, p).toEqual([...methods].sort());
      for (const [k, m] of Object.entries(item)) {
        if (k === 'parameters') continue;
        expect(m.summary, `${p}`).toBeTruthy();
        expect(m.responses).toBeTruthy();
        const bearer = (m.security as Record<string, unknown>[]).some((x) => 'BearerToken' in x);
        if (m['x-groups']) expect(m.security[0], p).toEqual(bearer && m.security.length === 1 ? { ApiKey: [], BearerToken: [] } : { ApiKey: [] });
        else expect(m.security, p).toEqual(bearer ? [{ BearerToken: [] }] : []);
      }
    }
    expect(ops.length).toBeGreaterThanOrEqual(32);
    // A path not in the description is not served: its preflight passes (D93) so that the browser sees the 404 itself.
    const pre = await call(srv, 'OPTIONS', '/v1/nothing', { headers: { Origin: 'https://app.example', 'Access-Control-Request-Method': 'GET' } });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe('*');
    expect(pre.headers.get('access-control-allow-methods')).toBe('GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS');
    expect(pre.headers.get('access-control-allow-headers')).toContain('Api-Key');
    const real = await call(srv, 'GET', '/v1/nothing', { headers: { Origin: 'https://app.example' } });
    expect([real.status, real.headers.get('access-control-allow-origin')]).toEqual([404, '*']);
    expect((await call(srv, 'OPTIONS', '/v1/nothing')).status).toBe(404);
  });

  it('refuses to describe a route table with an undescribed route', () => {
    const handler = () => ({ status: 200 });
    expect(() => openApiDocument([{ method: 'GET', path: '/v1/undescribed', groups: null, body: false, handler }], '0', Schemas)).toThrow(/no description/);
  });

  it('refuses a route without its answers', () => {
    const handler = () => ({ status: 204 });
    const feedback = { method: 'POST', path: '/v1/user_feedback', groups: null, body: true, bodySchema: { schema: { type: 'object' } }, handler } as const;
    expect(() => openApiDocument([feedback], '0', Schemas)).toThrow(/POST \/v1\/user_feedback states no answers/);
  });

  it('every example request is accepted with its documented status, and every answer matches its schema', async () => {
    // The answer schemas refer to /components/schemas: compiled within the document.
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
    ajv.addSchema(doc, 'openapi.json');
    const escape = (x: string): string => x.replace(/~/g, '~0').replace(/\//g, '~1');
    const ops = new Map<string, any>();
    const pointers = new Map<string, string>();
    for (const [p, item] of Object.entries<Record<string, any>>(doc.paths)) {
      for (const [m, op] of Object.entries(item)) {
        if (m === 'head' || m === 'options' || m === 'parameters') continue;
        // The route table's key: `{y}.mvt` is the route's `:y` (D273).
        const key = `${m.toUpperCase()} ${p.replace(/\{([a-z_]+)\}[^/]*/g, ':$1')}`;
        ops.set(key, op);
        pointers.set(key, `openapi.json#/paths/${escape(p)}/${m}/responses`);
      }
    }
    const now = Math.floor(Date.now() / 1000);
    const token = await new SignJWT({ sub: 'example-user' }).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).setIssuedAt(now).setExpirationTime(now + 600).sign(new TextEncoder().encode(SECRET));
    const send: Send = async (method, p, headers, body) => {
      const r = await call(srv, method, p, { headers, ...(body !== undefined ? { raw: body } : {}) });
      return { status: r.status, contentType: r.headers.get('content-type') ?? '', text: r.text };
    };
    const results = await runExamples(send, ALL, token, [...ops.keys()]);
    const stateful = [...ops.values()].filter((op) => op['x-example-request'].stateful === true).length;
    expect(stateful).toBeGreaterThan(0);
    expect(results).toHaveLength(ops.size - stateful);
    let stored = 0;
    for (const r of results) {
      const op = ops.get(r.key);
      // A documented success status (PUT: 201 creates, 200 updates).
      const status = String(r.status);
      expect(status.startsWith('2') && op.responses[status] !== undefined, `${r.key} answered ${status}: ${JSON.stringify(r.body).slice(0, 300)}`).toBe(true);
      const success = op.responses[status];
      const content = success.content as Record<string, { schema?: object; example?: unknown }> | undefined;
      if (content === undefined) continue;
      const [media, c] = Object.entries(content)[0];
      expect(r.contentType.split(';')[0], r.key).toBe(media === 'application/javascript' && r.key === 'GET /docs/:file' ? 'application/javascript' : media);
      if (c.schema === undefined) continue;
      const validate = ajv.compile({ $ref: `${pointers.get(r.key)}/${status}/content/${escape(media)}/schema` });
      expect(validate(r.body), `${r.key} live answer: ${ajv.errorsText(validate.errors)}`).toBe(true);
      expect(c.example, `${r.key} has an example answer`).toBeDefined();
      expect(validate(c.example), `${r.key} example answer: ${ajv.errorsText(validate.errors)}`).toBe(true);
      stored++;
    }
    expect(stored).toBeGreaterThanOrEqual(25);
    // Every request body example is valid under its own schema too.
    for (const [k, op] of ops) {
      const body = op.requestBody?.content && Object.values<any>(op.requestBody.content)[0];
      if (body) expect(ajv.validate({ $ref: `openapi.json${body.schema.$ref}` }, body.example), `${k} request example`).toBe(true);
    }
  }, 120_000);

  it('names every shared shape in components/schemas, and each media type of an answer or a body the same component', () => {
    // No reference into /paths (a generator types those as an invalid indexed type).
    expect(JSON.stringify(doc).match(/"\$ref":"#\/paths[^"]*"/g) ?? []).toEqual([]);
    let bodies = 0;
    let answers = 0;
    for (const [p, item] of Object.entries<Record<string, any>>(doc.paths)) {
      for (const [m, op] of Object.entries<any>(item)) {
        if (m === 'parameters') continue;
        const json = (content: Record<string, any> | undefined): string[] => Object.entries(content ?? {}).filter(([t]) => /json/.test(t)).map(([, c]) => JSON.stringify(c.schema));
        const body = json(op.requestBody?.content);
        if (body.length > 0) {
          bodies++;
          expect(new Set(body).size, `${m} ${p} body`).toBe(1);
          expect(body[0], `${m} ${p} body`).toMatch(/^\{"\$ref":"#\/components\/schemas\/\w+"\}$/);
        }
        for (const [status, r] of Object.entries<any>(op.responses)) {
          const types = Object.keys(r.content ?? {});
          if (!types.includes('application/vnd.api+json') || r.$ref !== undefined) continue;
          answers++;
          expect(r.content['application/vnd.api+json'].schema, `${m} ${p} ${status}`).toEqual(r.content['application/json'].schema);
          expect(r.content['application/json'].schema.$ref, `${m} ${p} ${status}`).toMatch(/^#\/components\/schemas\/\w+$/);
        }
      }
    }
    expect([bodies, answers].every((n) => n >= 15), `${bodies} bodies, ${answers} answers`).toBe(true);
  });

  it('describes what the service sends: timestamps in milliseconds (D13), tile paths, empty tiles, Location, /metrics refusals', async () => {
    const stamps = JSON.stringify(doc.components.schemas).match(/"description":"Unix time[^"]*"/g) ?? [];
    expect(stamps.length).toBeGreaterThan(0);
    expect(stamps.every((d) => d.includes('milliseconds'))).toBe(true);
    const tariffs = await call(srv, 'GET', '/v2/tariffs?filter[emp.id]=5bb4ebcc-4dc7-5caa-b5b6-46accf7b9554&page[size]=1', { key: ALL });
    expect(tariffs.json.data[0].attributes.updated_at).toBeGreaterThan(1e12);
    // Tiles: `{y}.mvt` with whole numbers, the bytes as a binary string, 204 for an empty tile (D273).
    const tiles = doc.paths['/v1/tiles/stations/{z}/{x}/{y}.mvt'];
    expect(tiles.parameters.map((q: any) => [q.name, q.schema.type])).toEqual([['z', 'integer'], ['x', 'integer'], ['y', 'integer']]);
    expect(tiles.get.responses['200'].content['application/vnd.mapbox-vector-tile'].schema).toEqual(expect.objectContaining({ type: 'string', format: 'binary' }));
    expect(doc.paths['/v1/tiles/prices/{profile_id}/{z}/{x}/{y}.mvt'].get.responses['204']).toBeDefined();
    expect(doc.paths['/v1/tiles/stations/{z}/{x}/{y}']).toBeUndefined();
    expect((await call(srv, 'GET', '/v1/tiles/stations/10/0/0.mvt', { key: ALL })).status).toBe(204);
    // The profile's address, on its creation and on finding it again.
    const created = doc.paths['/v1/price_profiles'].post.responses;
    expect([created['201'].headers.Location, created['200'].headers.Location]).toEqual([{ $ref: '#/components/headers/Location' }, { $ref: '#/components/headers/Location' }]);
    // /metrics with METRICS_KEY_REQUIRED=on refuses a missing key and a flood.
    expect(Object.keys(doc.paths['/metrics'].get.responses)).toEqual(expect.arrayContaining(['403', '429']));
  });

  it('errors are documented with the JSON:API error schema, and an example answers them', async () => {
    const ajv = new Ajv({ strict: false });
    const errors = doc.components.schemas.Errors;
    // Every error status has an example answer that fits its shape (D5 or the account routes', D201).
    const within = new Ajv2020({ strict: false, validateSchema: false });
    within.addSchema(doc, 'openapi.json');
    for (const [name, resp] of Object.entries<any>(doc.components.responses)) {
      const media = resp.content['application/json'];
      expect(media.example, name).toBeDefined();
      const v = within.compile({ $ref: `openapi.json#/components/schemas/${name.startsWith('C') ? 'ClientErrors' : 'Errors'}` });
      expect(v(media.example), `${name}: ${within.errorsText(v.errors)}`).toBe(true);
    }
    const r = await call(srv, 'GET', '/v1/charging_stations?filter[radius]=x', { key: keyFor('reader') });
    expect(r.status).toBe(400);
    expect(ajv.validate(errors, r.json)).toBe(true);
    expect(doc.paths['/v1/charging_stations'].get.responses['403']).toEqual({ $ref: '#/components/responses/E403' });
    // The header fields a client must read on a refusal (D106, D217).
    expect(Object.keys(doc.components.responses.E429.headers)).toEqual(['X-Request-Id', 'Vary', 'Retry-After', 'RateLimit', 'RateLimit-Policy']);
    expect(Object.keys(doc.components.responses.C503.headers)).toEqual(['X-Request-Id', 'Vary', 'Retry-After']);
    // A keyed route's other errors carry its RateLimit fields too (D217), and every answer with a body `Vary` (D274).
    expect(Object.keys(doc.components.responses.E404.headers)).toEqual(['X-Request-Id', 'Vary', 'RateLimit', 'RateLimit-Policy']);
    // Catalog reads can meet an unreachable shared live store (D152), and every route but the
    // probes can be refused for load (D176); /health never answers 503.
    for (const p of ['/v1/companies', '/v1/tariffs', '/v2/tariffs', '/v1/charging_stations']) expect(doc.paths[p].get.responses['503'], p).toEqual({ $ref: '#/components/responses/E503' });
    expect(doc.paths['/health'].get.responses['503']).toBeUndefined();
    // Routes whose answers are no JSON:API documents answer errors as application/json only (D236).
    for (const p of ['/ready', '/metrics']) expect(doc.paths[p].get.responses['503'], p).toEqual({ $ref: '#/components/responses/J503' });
  });

  it('serves the docs page and its self-hosted files; unknown files are 404', async () => {
    const page = await call(srv, 'GET', '/docs');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = page.text;
    for (const src of [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1])) {
      expect(src.startsWith('/docs/'), `${src} is served here, not from a CDN`).toBe(true);
      const f = await call(srv, 'GET', src);
      expect(f.status, src).toBe(200);
      expect(f.text.length, src).toBeGreaterThan(100);
    }
    expect((await call(srv, 'GET', '/package.json')).status).toBe(404);
    expect((await call(srv, 'GET', '/docs/../package.json')).status).toBe(404);
    expect((await call(srv, 'GET', '/docs/index.html')).status).toBe(404);
    expect((await call(srv, 'POST', '/docs')).status).toBe(405);
  });
});
