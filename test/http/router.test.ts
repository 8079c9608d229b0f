/**
 * The route table (src/http/router.ts): static paths before patterns, patterns of the path's
 * segment count in table order, 405 with the methods of a known path, parameters decoded.
 */
import { describe, expect, it } from 'vitest';
import { json, type Method, type RouteDef } from '../../src/api/types.js';
import { Router } from '../../src/http/router.js';

const route = (method: Method, path: string): RouteDef => ({ method, path, groups: null, body: false, handler: () => json(200, {}) });

const routes = [
  route('GET', '/v1/charging_stations'),
  route('GET', '/v1/charging_stations/statistics'),
  route('GET', '/v1/charging_stations/:id'),
  route('DELETE', '/v1/charging_stations/:id'),
  route('GET', '/v1/companies/:id/tariffs/:tariff'),
  route('PUT', '/v1/:kind/:id/tariffs/:tariff'),
  route('GET', '/v1/tiles/:z/:x/:y'),
];

describe('Router', () => {
  const r = new Router(routes);
  const at = (method: string, path: string) => {
    const m = r.match(method, path);
    return m === null ? null : 'allow' in m ? { allow: m.allow, template: m.template } : { path: m.route.path, method: m.route.method, params: m.params };
  };

  it('matches static paths first, then the patterns of the same segment count in table order', () => {
    expect(at('GET', '/v1/charging_stations/statistics')).toEqual({ path: '/v1/charging_stations/statistics', method: 'GET', params: {} });
    expect(at('GET', '/v1/charging_stations/FR*ABC')).toEqual({ path: '/v1/charging_stations/:id', method: 'GET', params: { id: 'FR*ABC' } });
    expect(at('DELETE', '/v1/charging_stations/x/')).toEqual({ path: '/v1/charging_stations/:id', method: 'DELETE', params: { id: 'x' } });
    expect(at('GET', '/v1/companies/c1/tariffs/t%2F1')).toEqual({ path: '/v1/companies/:id/tariffs/:tariff', method: 'GET', params: { id: 'c1', tariff: 't/1' } });
    // The first pattern of that length whose literals match decides the path's methods.
    expect(at('PUT', '/v1/companies/c1/tariffs/t1')).toEqual({ allow: ['GET'], template: '/v1/companies/:id/tariffs/:tariff' });
    expect(at('PUT', '/v1/operators/o1/tariffs/t1')).toEqual({ path: '/v1/:kind/:id/tariffs/:tariff', method: 'PUT', params: { kind: 'operators', id: 'o1', tariff: 't1' } });
    expect(at('GET', '/v1/tiles/3/4/5')).toEqual({ path: '/v1/tiles/:z/:x/:y', method: 'GET', params: { z: '3', x: '4', y: '5' } });
    // A malformed escape is kept as sent.
    expect(at('GET', '/v1/charging_stations/%E0%A4%A')).toMatchObject({ params: { id: '%E0%A4%A' } });
  });

  it('answers 405 with the methods of a known path and null for an unknown one', () => {
    expect(at('POST', '/v1/charging_stations/abc')).toEqual({ allow: ['GET', 'DELETE'], template: '/v1/charging_stations/:id' });
    expect(at('POST', '/v1/charging_stations')).toEqual({ allow: ['GET'], template: '/v1/charging_stations' });
    expect(at('GET', '/v1/charging_stations//')).toBeNull();
    expect(at('GET', '/v1/charging_stations/a/b')).toBeNull();
    expect(at('GET', '/v1/tiles/3/4')).toBeNull();
    expect(at('GET', '/v2/charging_stations/abc')).toBeNull();
    expect(r.methodsAt('/v1/tiles/1/2/3')).toEqual({ allow: ['GET'], template: '/v1/tiles/:z/:x/:y' });
    expect(r.methodsAt('/nothing')).toBeNull();
  });
});
