import { afterAll, describe, expect, it } from 'vitest';
import { FLOOR_STEPS, startFloorApp } from '../../src/http/floor-app.js';
import { flushAccessLines } from '../../src/log.js';

/** The rungs of bench:read-floor (D295): the same bytes at every step, each step doing its work. */
describe('the station read floor app (D295)', () => {
  const body = '{"data":{"id":"x","type":"charging_station"}}';
  const apps: { close(): void }[] = [];
  afterAll(() => {
    for (const a of apps) a.close();
  });
  const base = { path: '/v1/charging_stations/abc', body, contentType: 'application/json; charset=utf-8', operations: ['GET /v1/charging_stations/:id', 'GET /v1/charging_stations', 'PUT /v2/tariffs/:id'], key: 'k-1' };

  it('answers the given bytes at every step, with an access line from the log step on', async () => {
    for (const step of FLOOR_STEPS) {
      let log = '';
      const app = await startFloorApp({ ...base, step }, 0, { write: (l: string) => (log += l) });
      apps.push(app);
      const r = await fetch(`http://127.0.0.1:${app.port}${base.path}`, { headers: { 'Api-Key': 'k-1' } });
      expect(r.status, step).toBe(200);
      expect(r.headers.get('content-type')).toBe(base.contentType);
      expect(await r.text(), step).toBe(body);
      flushAccessLines();
      const lines = log.split('\n').filter((l) => l.length > 0);
      if (FLOOR_STEPS.indexOf(step) < FLOOR_STEPS.indexOf('log')) expect(lines, step).toEqual([]);
      else {
        expect(lines, step).toHaveLength(1);
        const line = JSON.parse(lines[0]) as Record<string, unknown>;
        expect(line).toMatchObject({ method: 'GET', status: 200, bytesOut: body.length, remoteAddress: expect.stringMatching(/127\.0\.0\.1/), msg: 'request' });
        // The route step looks the route up: the line names its template.
        expect(line.route, step).toBe(step === 'route' ? '/v1/charging_stations/:id' : base.path);
        expect(line.keyName, step).toBe(step === 'route' ? 'bench' : null);
      }
    }
  });

  it('at the route step, refuses an unknown key and a path of no operation', async () => {
    const app = await startFloorApp({ ...base, step: 'route' }, 0, { write: () => {} });
    apps.push(app);
    expect((await fetch(`http://127.0.0.1:${app.port}${base.path}`, { headers: { 'Api-Key': 'other' } })).status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${app.port}/v1/nothing/here`, { headers: { 'Api-Key': 'k-1' } })).status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${app.port}${base.path}`, { headers: { 'Api-Key': 'k-1' } })).status).toBe(200);
  });
});
