/**
 * A route's body contract (src/api/contract.ts): the route's schema is the one AJV checks and the
 * one the API description shows, the handler runs only on a body that passed it, and its input is
 * typed from the schema (the `@ts-expect-error` lines fail `tsc` if the type were loose). A route's
 * query contract: every parameter the description states is one its parser reads, and the
 * handler's input is typed from the declaration.
 */
import { describe, expect, it } from 'vitest';
import { defineQueryRoute, defineRoute } from '../../src/api/contract.js';
import { parseQueryString, type QuerySchema } from '../../src/api/jsonapi/query.js';
import { SEARCH } from '../../src/api/stations/stations.query.js';
import { READ_QUERY } from '../../src/api/stations/stations.handler.js';
import { CLUSTERS_QUERY } from '../../src/api/tiles/clusters.handler.js';
import { MAP_QUERY, tileAddress } from '../../src/api/tiles/tiles.handler.js';
import { COMPANY_LIST_QUERY } from '../../src/api/companies/companies.handler.js';
import { productsSchema } from '../../src/api/accounts/accounts.schema.js';
import { RAW_LIST_QUERY, SIMPLE_LIST_QUERY } from '../../src/api/tariffs/tariffs.handler.js';
import { VEHICLE_LIST_QUERY } from '../../src/api/vehicles/vehicles.handler.js';
import { CHARGE_POINT_QUERY, COUNTRY_QUERY } from '../../src/api/statistics/statistics.handler.js';
import { ApiError } from '../../src/api/jsonapi/errors.js';
import { validateBulk } from '../../src/api/prices/prices.schema.js';
import { checkDescribed } from '../../src/api/openapi/openapi.js';
import { OPERATIONS } from '../../src/api/openapi/operations.js';
import type { ApiRequest } from '../../src/api/types.js';

const bulk = OPERATIONS['POST /v1/charge_prices/bulk'].example.body;
const request = (body: unknown): ApiRequest => ({ body }) as ApiRequest;

describe('defineRoute', () => {
  const seen: unknown[] = [];
  const order: string[] = [];
  const route = defineRoute({
    method: 'POST',
    path: '/v1/charge_prices/bulk',
    groups: ['ReadCosts'],
    input: validateBulk,
    before: () => void order.push('before'),
    handler: (req) => {
      order.push('handler');
      seen.push(req.body);
      const ids: string[] = req.body.data.relationships.tariffs.data.map((t) => t.id);
      // @ts-expect-error: the body's type is the schema's, and the schema has no such member.
      void req.body.data.attributes.nonsense;
      // @ts-expect-error: battery_range is a pair of numbers.
      const s: string = req.body.data.attributes.battery_range[0];
      return { status: 200, body: JSON.stringify([ids, s]) };
    },
  });

  it('carries its body schema, the validator\'s own', () => {
    expect(route.body).toBe(true);
    expect(route.bodySchema).toBe(validateBulk);
    expect(route.bodySchema!.schema).toBe(validateBulk.schema);
  });

  it('hands the handler the body it checked, nulls of optional members dropped (D8)', async () => {
    const body = structuredClone(bulk) as { data: { attributes: Record<string, unknown> } };
    body.data.attributes.currency = null;
    order.length = 0;
    await route.handler(request(body));
    expect(order).toEqual(['before', 'handler']);
    expect(seen.at(-1)).toBe(body);
    expect('currency' in body.data.attributes).toBe(false);
  });

  it('answers 400 with a pointer before the handler runs on a body the schema refuses', () => {
    const body = structuredClone(bulk) as { data: { attributes: Record<string, unknown> } };
    body.data.attributes.battery_range = [10];
    order.length = 0;
    let error: unknown;
    try {
      void route.handler(request(body));
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(400);
    expect(JSON.stringify((error as ApiError).errors)).toContain('/data/attributes/battery_range');
    expect(order).toEqual(['before']);
  });

  it('a route that takes a body without stating its schema stops the start', () => {
    const bare = { ...route, method: 'POST' as const, path: '/v1/charge_prices/bulk' };
    expect(() => checkDescribed([bare])).not.toThrow(/states no body schema/);
    const { bodySchema: _, ...unstated } = bare;
    expect(() => checkDescribed([unstated])).toThrow(/POST \/v1\/charge_prices\/bulk takes a body but states no body schema/);
  });
});

/** The 400 a parse throws: its `source.parameter` and title. */
function refusal(parse: () => unknown): { parameter?: string; title: string } | null {
  try {
    parse();
    return null;
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    return { parameter: e.errors[0].source?.parameter, title: e.errors[0].title };
  }
}

describe('defineQueryRoute', () => {
  /** A query each parser takes (a search type and a box where they are required). */
  const QUERIES: Array<[string, QuerySchema<unknown>, string]> = [
    ['station search', SEARCH, 'filter[id]=a'],
    ['station read', READ_QUERY, ''],
    ['clusters', CLUSTERS_QUERY, 'filter[latitude.gte]=1&filter[latitude.lte]=2&filter[longitude.gte]=1&filter[longitude.lte]=2&zoom=3'],
    ['map routes', MAP_QUERY, ''],
    ['company list', COMPANY_LIST_QUERY, ''],
    ['raw tariff list', RAW_LIST_QUERY, 'filter[emp.id]=e'],
    ['tariff metadata', SIMPLE_LIST_QUERY, ''],
    ['vehicle list', VEHICLE_LIST_QUERY, ''],
    ['charge point statistics', CHARGE_POINT_QUERY, ''],
    ['country statistics', COUNTRY_QUERY, ''],
  ];

  it.each(QUERIES)('%s: every parameter the description states is one its parser reads, a malformed value refused naming it', (_name, query, base) => {
    expect(refusal(() => query.parse(parseQueryString(base)))).toBeNull();
    expect(query.params.length).toBeGreaterThan(0);
    for (const p of query.params) {
      const type = (p.schema as { type: string }).type;
      const bad = type === 'string' ? '' : 'x';
      const q = parseQueryString(base);
      q.set(p.name, bad);
      expect(refusal(() => query.parse(q)), p.name).toMatchObject({ parameter: p.name });
    }
  });

  it('states the bounds its parser holds the values to (D25: latitudes within ±90)', () => {
    const lat = SEARCH.params.find((p) => p.name === 'filter[latitude.gte]')!;
    expect(lat.schema).toEqual({ type: 'number', minimum: -90, maximum: 90 });
    const q = parseQueryString('filter[latitude.gte]=90.5&filter[latitude.lte]=91&filter[longitude.gte]=1&filter[longitude.lte]=2');
    expect(refusal(() => SEARCH.parse(q))).toEqual({ parameter: 'filter[latitude.gte]', title: 'filter[latitude.gte] must be between -90 and 90' });
  });

  it('hands the handler the query typed, the path parsed first', async () => {
    const order: string[] = [];
    const route = defineQueryRoute({
      method: 'GET',
      path: '/v1/tiles/stations/:z/:x/:y',
      groups: null,
      pathInput: (params) => (order.push('path'), tileAddress(params)),
      query: MAP_QUERY,
      handler: (_req, q, { z }) => {
        // @ts-expect-error: powerGte is a number.
        const s: string = q.refinements.powerGte!;
        return { status: 200, body: JSON.stringify([z, q.refinements.plugs, s]) };
      },
    });
    expect(route.querySchema).toBe(MAP_QUERY);
    const req = (y: string, query: string): ApiRequest => ({ params: { z: '1', x: '0', y }, query: parseQueryString(query) }) as unknown as ApiRequest;
    const answer = await route.handler(req('1.mvt', 'filter[charge_points.plug.in]=ccs,type2'));
    expect(answer.body).toBe('[1,["ccs","type2"],null]');
    // Both wrong: the path answers, as the handlers did before their query had a contract.
    expect(refusal(() => route.handler(req('9.mvt', 'filter[free_parking]=maybe')))).toMatchObject({ parameter: 'y' });
    expect(order).toEqual(['path', 'path']);
  });

  it('a query stated on the route and in the description as well stops the start', () => {
    const key = 'GET /v1/tariffs';
    const route = defineQueryRoute({ method: 'GET', path: '/v1/tariffs', groups: null, query: SIMPLE_LIST_QUERY, handler: () => ({ status: 204 }) });
    expect(() => checkDescribed([route])).not.toThrow(/query on the route/);
    const saved = OPERATIONS[key];
    const mutable = OPERATIONS as Record<string, typeof saved>;
    mutable[key] = { ...saved, query: SIMPLE_LIST_QUERY.params };
    try {
      expect(() => checkDescribed([route])).toThrow(/query on the route and in src\/api\/openapi\/operations.ts/);
    } finally {
      mutable[key] = saved;
    }
  });
});

describe('bodies checked in their handlers, typed from their schemas', () => {
  it('a product source: its named fields typed as the schema states them (D239)', () => {
    const b = productsSchema({ data: { type: 'user_products', attributes: { source: { type: 'code', code: 'ABC', quota_year: 2025 } } } });
    const code: string | undefined = b.data.attributes.source.code;
    const year: number | string | undefined = b.data.attributes.source.quota_year;
    // @ts-expect-error: the type is a string.
    const t: number = b.data.attributes.source.type;
    expect([code, year, t]).toEqual(['ABC', 2025, 'code']);
    expect(refusal(() => productsSchema({ data: { type: 'user_products', attributes: { source: { type: 'code', code: 5 } } } }))).toMatchObject({ title: expect.any(String) });
  });
});

describe('the request schema builders', () => {
  /** Key-sorted JSON: the builders write members in their own order. */
  const canonical = (v: unknown): string =>
    JSON.stringify(v, (_k, x: unknown) => (x !== null && typeof x === 'object' && !Array.isArray(x) ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => (a < b ? -1 : 1))) : x));

  it('write the JSON Schema TypeBox writes for the same calls (TypeBox is their straightforward twin)', async () => {
    const { Type: T } = await import('@sinclair/typebox');
    const { Type: L } = await import('../../src/api/jsonapi/schemas.js');
    const build = (t: typeof L) =>
      t.Object(
        {
          s: t.String({ minLength: 1, maxLength: 9 }),
          n: t.Optional(t.Number({ minimum: 0 })),
          i: t.Integer({ maximum: 3 }),
          b: t.Optional(t.Boolean()),
          a: t.Array(t.Object({ o: t.Optional(t.String()) }), { maxItems: 2 }),
          u: t.Unsafe<'x'>({ const: 'x' }),
          none: t.Optional(t.Object({ x: t.Optional(t.Integer()) }, { additionalProperties: false })),
        },
        { description: 'd' },
      );
    expect(canonical(build(L))).toBe(canonical(build(T as unknown as typeof L)));
    expect(canonical(build(L))).toContain('"required":["s","i","a","u"]');
  });
});
