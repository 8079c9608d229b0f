import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mulberry32 } from '../../src/domain/random.js';
import { call, keyFor, startTestApp, type TestApp } from '../helpers/server.js';

const W = keyFor('w');

const ODD: unknown[] = [null, true, false, 0, -1, 1.5, 1e300, '', 'x', '🙂', [], [null], {}, { a: 1 }, [1, 'a'], 'EUR', 'tariff', 'sub_tariff'];

/** Every path to a value inside a JSON document. */
function paths(v: unknown, p: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  out.push(p);
  if (Array.isArray(v)) v.forEach((x, i) => paths(x, [...p, i], out));
  else if (v !== null && typeof v === 'object') for (const k of Object.keys(v)) paths((v as Record<string, unknown>)[k], [...p, k], out);
  return out;
}

function mutate(doc: any, rnd: () => number): any {
  const d = structuredClone(doc);
  const all = paths(d).filter((p) => p.length > 0);
  const n = 1 + Math.floor(rnd() * 3);
  for (let k = 0; k < n; k++) {
    const p = all[Math.floor(rnd() * all.length)];
    let parent: any = d;
    for (const s of p.slice(0, -1)) {
      if (parent === null || typeof parent !== 'object') break;
      parent = parent[s];
    }
    if (parent === null || typeof parent !== 'object') continue;
    const last = p[p.length - 1];
    if (rnd() < 0.2) delete parent[last];
    else parent[last] = ODD[Math.floor(rnd() * ODD.length)];
  }
  return d;
}

describe('tariff and company writes never fail with 500 on mutated bodies', () => {
  let srv: TestApp;
  let emp: string;
  let sup: string;
  beforeAll(async () => {
    srv = await startTestApp({ keys: { w: 'all' } });
    emp = randomUUID();
    await call(srv, 'PUT', `/v1/companies/${emp}`, {
      key: W,
      body: { data: { id: emp, type: 'company', attributes: { name: 'Fuzz EMP', version: 1, is_cpo: true, is_emp: true, external_source_mapping: {} }, relationships: { supported_emps: { data: [] } } } },
    });
    sup = randomUUID();
    const r = await call(srv, 'PUT', `/v2/tariffs/${sup}`, {
      key: W,
      body: { data: { id: sup, type: 'tariff', attributes: { name: 'Fuzz', version: 1, currency: 'EUR' }, relationships: { emp: { data: { type: 'company', id: emp } } } } },
    });
    expect(r.status).toBe(201);
  });
  afterAll(async () => {
    await srv.stop();
  });

  it('answers 2xx, 400 or 409 (never 500) to 300 seeded mutations of valid tariff and company bodies', async () => {
    const rnd = mulberry32(4242);
    const statuses = new Map<number, number>();
    for (let i = 0; i < 300; i++) {
      const id = randomUUID();
      let path: string;
      let body: any;
      if (i % 3 === 0) {
        path = `/v1/companies/${id}`;
        body = {
          data: {
            id,
            type: 'company',
            attributes: { name: 'C', version: 1, url: 'https://c', is_cpo: true, is_emp: false, external_source_mapping: { ext_b_names: ['a'], evse_operator_ids: ['DE*ABC'] } },
            relationships: { supported_emps: { data: [{ type: 'company', id: emp }] }, cpo_group: { data: { type: 'company', id: emp } }, emp_group: { data: null } },
          },
        };
      } else {
        path = `/v2/tariffs/${id}`;
        const sub = i % 3 === 2;
        body = {
          data: {
            id,
            type: sub ? 'sub_tariff' : 'tariff',
            attributes: {
              ...(sub ? {} : { name: 'T', currency: 'EUR' }),
              version: 1,
              monthly_fee: 1,
              tags: [{ kind: 'info', localized_text: { en: 'x' }, url: 'https://u' }],
              prices: [
                {
                  restrictions: [{ allowance: 'allow', charge_point_powers: [11, 22], charge_point_power_is_range: true, countries: ['DE'] }],
                  decomposition: [{ dimension: 'kwh', price: 0.3, range_gte: 0, range_lt: 10, time_of_day_start: 60, time_of_day_end: 120, currency: 'EUR' }],
                },
              ],
            },
            relationships: {
              emp: { data: { type: 'company', id: emp } },
              ...(sub ? { super_tariffs: { data: [{ type: 'tariff', id: sup }] }, cpo: { data: { type: 'company', id: emp } } } : {}),
              vehicle_brands: { data: [] },
            },
          },
        };
      }
      const m = mutate(body, rnd);
      const r = await call(srv, 'PUT', path, { key: W, raw: JSON.stringify(m) });
      statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
      expect([200, 201, 400, 409], `${r.status} for ${JSON.stringify(m)}: ${r.text}`).toContain(r.status);
      if (r.status === 400) expect(r.json.errors.length).toBeGreaterThan(0);
    }
    // The mutations hit both accepted and rejected bodies.
    expect(statuses.get(400)).toBeGreaterThan(50);
    expect((statuses.get(201) ?? 0) + (statuses.get(200) ?? 0)).toBeGreaterThan(10);
  });
});
