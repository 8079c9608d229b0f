import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Snapshot } from '../../src/storage/snapshot.js';
import { call, keyFor, startTestApp, type TestApp } from '../helpers/server.js';

const W = keyFor('writer');
const R = keyFor('reader');

interface CompanyOpts {
  name?: string;
  version?: number;
  is_cpo?: boolean;
  is_emp?: boolean;
  supported?: string[];
  cpo_group?: string | null;
  emp_group?: string | null;
  mapping?: Record<string, unknown>;
  url?: string;
}

function companyBody(id: string, o: CompanyOpts = {}): any {
  const relationships: any = {
    supported_emps: { data: (o.supported ?? []).map((x) => ({ type: 'company', id: x })) },
  };
  if (o.cpo_group !== undefined) relationships.cpo_group = { data: o.cpo_group === null ? null : { type: 'company', id: o.cpo_group } };
  if (o.emp_group !== undefined) relationships.emp_group = { data: o.emp_group === null ? null : { type: 'company', id: o.emp_group } };
  return {
    data: {
      id,
      type: 'company',
      attributes: {
        name: o.name ?? 'Company ' + id.slice(0, 8),
        version: o.version ?? 1,
        ...(o.url !== undefined ? { url: o.url } : {}),
        is_cpo: o.is_cpo ?? false,
        is_emp: o.is_emp ?? true,
        external_source_mapping: o.mapping ?? {},
      },
      relationships,
    },
  };
}

describe('companies over HTTP', () => {
  let srv: TestApp;
  let operator: { id: string; name: string; evse: string[] };
  beforeAll(async () => {
    srv = await startTestApp({
      keys: { writer: 'WriteTariffs,ReadTariffs', reader: 'ReadTariffs', stations: 'ReadStations' },
    });
    // An operator of the test snapshot whose stations carry an evse_operator.
    const snap = Snapshot.open(inject('testSnapshot'));
    try {
      const pairs = snap.stationEvseOperators();
      const opId = pairs[0].operator_id;
      const op = snap.operators().find((o) => o.id === opId)!;
      operator = { id: opId, name: op.name, evse: pairs.filter((p) => p.operator_id === opId).map((p) => p.evse_operator) };
    } finally {
      snap.close();
    }
  });
  afterAll(async () => {
    await srv.stop();
  });

  const put = (id: string, body: unknown, key = W) => call(srv, 'PUT', `/v1/companies/${id}`, { key, body });

  it('when a new company is PUT with version 1, then 201 with the whole stored resource', async () => {
    const emp = randomUUID();
    await put(emp, companyBody(emp, { name: 'Roaming Partner One' }));
    const id = randomUUID();
    const t0 = Date.now();
    const r = await put(
      id,
      companyBody(id, {
        name: 'Alpha Charge',
        url: 'https://alpha.example',
        is_cpo: true,
        is_emp: false,
        supported: [emp],
        mapping: { ext_b_names: ['Alpha'], evse_operator_ids: ['DE*ZZB', 'DE*ZZA'], unknown_key: [1] },
      }),
    );
    expect(r.status).toBe(201);
    const a = r.json.data.attributes;
    expect(a.created_at).toBeGreaterThanOrEqual(t0 - 5);
    expect(a.updated_at).toBe(a.created_at);
    expect(r.json).toEqual({
      data: {
        id,
        type: 'company',
        attributes: {
          name: 'Alpha Charge',
          created_at: a.created_at,
          updated_at: a.updated_at,
          version: 1,
          url: 'https://alpha.example',
          is_cpo: true,
          is_emp: false,
          external_source_mapping: {
            ext_a_ids: null,
            ext_b_names: ['Alpha'],
            ext_b_charge_card_ids: null,
            sheet_names: null,
            ext_c_operator_ids: null,
            evse_operator_ids: ['DE*ZZA', 'DE*ZZB'],
          },
        },
        relationships: {
          supported_emps: { data: [{ type: 'company', id: emp }] },
          cpo_group: { data: null },
          emp_group: { data: null },
        },
      },
    });
  });

  it('when the same id is PUT with version 1 again, then 409 Version conflict and nothing changes', async () => {
    const id = randomUUID();
    expect((await put(id, companyBody(id, { name: 'First Name' }))).status).toBe(201);
    const r = await put(id, companyBody(id, { name: 'Second Name' }));
    expect(r.status).toBe(409);
    expect(r.json).toEqual({ errors: [{ status: '409', code: 'VERSION_CONFLICT', title: 'Version conflict' }] });
    const l = await call(srv, 'GET', `/v1/companies?filter[id]=${id}`, { key: R });
    expect(l.json.data[0].attributes.name).toBe('First Name');
    expect(l.json.data[0].attributes.version).toBe(1);
  });

  it('when an update sends the stored version + 1, then 200 with created_at kept; any other version gives 409', async () => {
    const id = randomUUID();
    const c = await put(id, companyBody(id, { name: 'Versioned' }));
    for (const v of [1, 3, 7]) {
      const bad = await put(id, companyBody(id, { name: 'Nope', version: v }));
      expect(bad.status).toBe(409);
    }
    const u = await put(id, companyBody(id, { name: 'Versioned 2', version: 2 }));
    expect(u.status).toBe(200);
    expect(u.json.data.attributes.version).toBe(2);
    expect(u.json.data.attributes.name).toBe('Versioned 2');
    expect(u.json.data.attributes.created_at).toBe(c.json.data.attributes.created_at);
    expect(u.json.data.attributes.updated_at).toBeGreaterThanOrEqual(c.json.data.attributes.updated_at);
    expect((await put(id, companyBody(id, { name: 'Versioned 3', version: 3 }))).status).toBe(200);
  });

  it('when a version 1 create is not for a new id (version 2 on an unknown id), then 409', async () => {
    const id = randomUUID();
    const r = await put(id, companyBody(id, { version: 2 }));
    expect(r.status).toBe(409);
    const l = await call(srv, 'GET', `/v1/companies?filter[id]=${id}`, { key: R });
    expect(l.json.data).toEqual([]);
  });

  it('when two PUTs with the same version race, then exactly one wins and the other gets 409', async () => {
    const id = randomUUID();
    const [a, b] = await Promise.all([
      put(id, companyBody(id, { name: 'Racer A' })),
      put(id, companyBody(id, { name: 'Racer B' })),
    ]);
    expect([a.status, b.status].sort()).toEqual([201, 409]);
    const winner = a.status === 201 ? 'Racer A' : 'Racer B';
    const [c, d] = await Promise.all([
      put(id, companyBody(id, { name: 'Update C', version: 2 })),
      put(id, companyBody(id, { name: 'Update D', version: 2 })),
    ]);
    expect([c.status, d.status].sort()).toEqual([200, 409]);
    const l = await call(srv, 'GET', `/v1/companies?filter[id]=${id}`, { key: R });
    expect(l.json.data[0].attributes.version).toBe(2);
    expect(l.json.data[0].attributes.name).toBe(c.status === 200 ? 'Update C' : 'Update D');
    expect(winner).toMatch(/Racer/);
  });

  it.each([
    ['name missing', (b: any) => delete b.data.attributes.name, '/data/attributes/name'],
    ['name null', (b: any) => (b.data.attributes.name = null), '/data/attributes/name'],
    ['version missing', (b: any) => delete b.data.attributes.version, '/data/attributes/version'],
    ['version a string', (b: any) => (b.data.attributes.version = '1'), '/data/attributes/version'],
    ['version fractional', (b: any) => (b.data.attributes.version = 1.5), '/data/attributes/version'],
    ['is_cpo missing', (b: any) => delete b.data.attributes.is_cpo, '/data/attributes/is_cpo'],
    ['is_emp a string', (b: any) => (b.data.attributes.is_emp = 'yes'), '/data/attributes/is_emp'],
    ['mapping missing', (b: any) => delete b.data.attributes.external_source_mapping, '/data/attributes/external_source_mapping'],
    ['mapping an array', (b: any) => (b.data.attributes.external_source_mapping = []), '/data/attributes/external_source_mapping'],
    ['evse_operator_ids of numbers', (b: any) => (b.data.attributes.external_source_mapping = { evse_operator_ids: [1] }), '/data/attributes/external_source_mapping/evse_operator_ids/0'],
    ['ext_b_names a string', (b: any) => (b.data.attributes.external_source_mapping = { ext_b_names: 'x' }), '/data/attributes/external_source_mapping/ext_b_names'],
    // D291: the external id lists hold strings, as the answer's schema says.
    ['ext_a_ids with a number', (b: any) => (b.data.attributes.external_source_mapping = { ext_a_ids: ['a', 1] }), '/data/attributes/external_source_mapping/ext_a_ids/1'],
    ['ext_b_charge_card_ids with an object', (b: any) => (b.data.attributes.external_source_mapping = { ext_b_charge_card_ids: [{ id: 'x' }] }), '/data/attributes/external_source_mapping/ext_b_charge_card_ids/0'],
    ['sheet_names with a boolean', (b: any) => (b.data.attributes.external_source_mapping = { sheet_names: ['Sheet 1', true] }), '/data/attributes/external_source_mapping/sheet_names/1'],
    ['ext_c_operator_ids with null', (b: any) => (b.data.attributes.external_source_mapping = { ext_c_operator_ids: [null] }), '/data/attributes/external_source_mapping/ext_c_operator_ids/0'],
    ['url a number', (b: any) => (b.data.attributes.url = 5), '/data/attributes/url'],
    ['supported_emps missing', (b: any) => delete b.data.relationships.supported_emps, '/data/relationships/supported_emps'],
    ['supported_emps not an array', (b: any) => (b.data.relationships.supported_emps = { data: {} }), '/data/relationships/supported_emps/data'],
    ['relationships missing', (b: any) => delete b.data.relationships, '/data/relationships'],
    ['type wrong', (b: any) => (b.data.type = 'tariff'), '/data/type'],
    ['id not a UUID', (b: any) => (b.data.id = 'not-a-uuid'), '/data/id'],
    ['reference of the wrong type', (b: any) => (b.data.relationships.cpo_group = { data: { type: 'tariff', id: randomUUID() } }), '/data/relationships/cpo_group/data/type'],
  ])('when %s, then 400 with a pointer to it', async (_name, mutate, pointer) => {
    const id = randomUUID();
    const b = companyBody(id);
    mutate(b);
    const r = await put(id, b);
    expect(r.status).toBe(400);
    expect(r.json.errors.map((e: any) => e.source?.pointer)).toContain(pointer);
    for (const e of r.json.errors) expect(e).toMatchObject({ status: '400', code: 'BAD_REQUEST' });
    const l = await call(srv, 'GET', `/v1/companies?filter[id]=${id}`, { key: R });
    expect(l.json.data).toEqual([]);
  });

  it('when data.id differs from the path id, then 400 pointing at /data/id', async () => {
    const r = await put(randomUUID(), companyBody(randomUUID()));
    expect(r.status).toBe(400);
    expect(r.json.errors[0].source).toEqual({ pointer: '/data/id' });
  });

  it('when references are unknown, then 400 with a pointer per unknown reference', async () => {
    const id = randomUUID();
    const missing = randomUUID();
    const r = await put(id, companyBody(id, { supported: [operator.id, missing], cpo_group: randomUUID(), emp_group: operator.id }));
    expect(r.status).toBe(400);
    expect(r.json.errors).toEqual([
      { status: '400', code: 'BAD_REQUEST', title: `company ${missing} not found`, source: { pointer: '/data/relationships/supported_emps/data/1/id' } },
      { status: '400', code: 'BAD_REQUEST', title: expect.stringMatching(/not found$/), source: { pointer: '/data/relationships/cpo_group/data/id' } },
    ]);
  });

  it('when cpo_group or emp_group names the company itself, then 400', async () => {
    const id = randomUUID();
    const a = await put(id, companyBody(id, { cpo_group: id }));
    expect(a.status).toBe(400);
    expect(a.json.errors[0].source.pointer).toBe('/data/relationships/cpo_group/data/id');
    const b = await put(id, companyBody(id, { emp_group: id }));
    expect(b.status).toBe(400);
    expect(b.json.errors[0].source.pointer).toBe('/data/relationships/emp_group/data/id');
  });

  it('when the body is not JSON:API (no data object), then 400', async () => {
    const r = await call(srv, 'PUT', `/v1/companies/${randomUUID()}`, { key: W, body: { foo: 1 } });
    expect(r.status).toBe(400);
    expect(r.json.errors[0].code).toBe('BAD_REQUEST');
  });

  it('serializes evse_operator_ids as the sorted union of stored values and the company stations', async () => {
    const before = await call(srv, 'GET', `/v1/companies?filter[id]=${operator.id}`, { key: R });
    const cur = before.json.data[0];
    expect(cur.attributes.external_source_mapping.evse_operator_ids).toEqual(
      expect.arrayContaining(operator.evse),
    );
    const r = await put(
      operator.id,
      companyBody(operator.id, {
        name: operator.name,
        version: cur.attributes.version + 1,
        is_cpo: true,
        is_emp: false,
        mapping: { evse_operator_ids: ['ZZ*TEST'] },
      }),
    );
    expect(r.status).toBe(200);
    expect(r.json.data.attributes.external_source_mapping.evse_operator_ids).toEqual([...new Set(['ZZ*TEST', ...operator.evse])].sort());
  });

  describe('list', () => {
    const prefix = 'Zqlist ' + Math.random().toString(36).slice(2, 7);
    const made: { id: string; name: string; is_emp: boolean; is_cpo: boolean }[] = [];
    beforeAll(async () => {
      const names = ['Delta', 'alpha', 'Charlie', 'bravo', 'Echo'];
      for (let i = 0; i < names.length; i++) {
        const id = randomUUID();
        const c = { id, name: `${prefix} ${names[i]}`, is_emp: i % 2 === 0, is_cpo: i % 2 === 1 };
        made.push(c);
        expect((await put(id, companyBody(id, c))).status).toBe(201);
      }
    });

    it('filters by id, is_emp and is_cpo, sorted by name case-insensitively, with meta.overall_count', async () => {
      const ids = made.map((m) => m.id).join(',');
      const r = await call(srv, 'GET', `/v1/companies?filter[id]=${ids}`, { key: R });
      expect(r.status).toBe(200);
      expect(r.json.data.map((d: any) => d.attributes.name)).toEqual(
        ['alpha', 'bravo', 'Charlie', 'Delta', 'Echo'].map((n) => `${prefix} ${n}`),
      );
      expect(r.json.meta).toEqual({ overall_count: 5 });
      const e = await call(srv, 'GET', `/v1/companies?filter[id]=${ids}&filter[is_emp]=true`, { key: R });
      expect(e.json.data.map((d: any) => d.id).sort()).toEqual(made.filter((m) => m.is_emp).map((m) => m.id).sort());
      const c = await call(srv, 'GET', `/v1/companies?filter[id]=${ids}&filter[is_cpo]=TRUE&filter[is_emp]=false`, { key: R });
      expect(c.json.meta.overall_count).toBe(2);
    });

    it('pages with page[size]/page[number]; past the end is empty; overall_count counts all matches', async () => {
      const ids = made.map((m) => m.id).join(',');
      const p2 = await call(srv, 'GET', `/v1/companies?filter[id]=${ids}&page[size]=2&page[number]=2`, { key: R });
      expect(p2.json.data.map((d: any) => d.attributes.name)).toEqual([`${prefix} Charlie`, `${prefix} Delta`]);
      expect(p2.json.meta.overall_count).toBe(5);
      const p9 = await call(srv, 'GET', `/v1/companies?filter[id]=${ids}&page[size]=2&page[number]=9`, { key: R });
      expect(p9.json).toEqual({ data: [], meta: { overall_count: 5 }, links: expect.any(Object) });
      const all = await call(srv, 'GET', '/v1/companies', { key: R });
      expect(all.json.data.length).toBe(100);
      expect(all.json.meta.overall_count).toBeGreaterThan(100);
    });

    it('an update replaces supported_emps and groups, and a repeated list query shows it', async () => {
      const path = `/v1/companies?filter[id]=${made[1].id}`;
      const a = await call(srv, 'GET', path, { key: R });
      expect(a.json.data[0].relationships.supported_emps).toEqual({ data: [] });
      const u = await put(made[1].id, companyBody(made[1].id, { ...made[1], version: 2, supported: [made[0].id, made[2].id], emp_group: made[3].id }));
      expect(u.status).toBe(200);
      const b = await call(srv, 'GET', path, { key: R });
      expect(b.json.data[0].relationships).toEqual({
        supported_emps: { data: [{ type: 'company', id: made[0].id }, { type: 'company', id: made[2].id }] },
        cpo_group: { data: null },
        emp_group: { data: { type: 'company', id: made[3].id } },
      });
      const v = await put(made[1].id, companyBody(made[1].id, { ...made[1], version: 3 }));
      expect(v.json.data.relationships).toEqual({ supported_emps: { data: [] }, cpo_group: { data: null }, emp_group: { data: null } });
      expect((await call(srv, 'GET', path, { key: R })).json.data[0].attributes.version).toBe(3);
    });

    it('returns only the named members with fields[company]', async () => {
      const r = await call(srv, 'GET', `/v1/companies?filter[id]=${made[0].id}&fields[company]=name,supported_emps`, { key: R });
      expect(r.json.data).toEqual([
        { id: made[0].id, type: 'company', attributes: { name: made[0].name }, relationships: { supported_emps: { data: [] } } },
      ]);
    });

    it.each([
      ['fields[company]=nope', 'fields[company]'],
      ['page[size]=101', 'page[size]'],
      ['page[size]=0', 'page[size]'],
      ['page[number]=0', 'page[number]'],
      ['filter[is_emp]=maybe', 'filter[is_emp]'],
      ['filter[id]=', 'filter[id]'],
      ['q=', 'q'],
      ['q=%20%20', 'q'],
      ['q=abc&filter[is_emp]=true', 'q'],
    ])('when %s, then 400 naming the parameter', async (qs, parameter) => {
      const r = await call(srv, 'GET', `/v1/companies?${qs}`, { key: R });
      expect(r.status).toBe(400);
      expect(r.json.errors[0]).toMatchObject({ status: '400', code: 'BAD_REQUEST', source: { parameter } });
    });

    it('q: trimmed case-insensitive prefix search, exact match first, at most 10, paging within them', async () => {
      const exactId = randomUUID();
      await put(exactId, companyBody(exactId, { name: prefix.toUpperCase() }));
      const r = await call(srv, 'GET', `/v1/companies?q=${encodeURIComponent('  ' + prefix.toLowerCase() + ' ')}`, { key: R });
      expect(r.status).toBe(200);
      expect(r.json.data.map((d: any) => d.attributes.name)).toEqual([
        prefix.toUpperCase(),
        ...['alpha', 'bravo', 'Charlie', 'Delta', 'Echo'].map((n) => `${prefix} ${n}`),
      ]);
      expect(r.json.meta.overall_count).toBe(6);
      for (let i = 0; i < 6; i++) {
        const id = randomUUID();
        await put(id, companyBody(id, { name: `${prefix} x${i}` }));
      }
      const many = await call(srv, 'GET', `/v1/companies?q=${encodeURIComponent(prefix)}`, { key: R });
      expect(many.json.data.length).toBe(10);
      expect(many.json.meta.overall_count).toBe(10);
      const p = await call(srv, 'GET', `/v1/companies?q=${encodeURIComponent(prefix)}&page[size]=4&page[number]=3&fields[company]=name`, { key: R });
      expect(p.json.data.length).toBe(2);
      expect(p.json.meta.overall_count).toBe(10);
      const none = await call(srv, 'GET', '/v1/companies?q=zzzz-no-such-company', { key: R });
      expect(none.json).toEqual({ data: [], meta: { overall_count: 0 }, links: expect.any(Object) });
    });
  });

  describe('delete', () => {
    it('when the id is unknown, then 404 company <id> with code', async () => {
      const id = randomUUID();
      const r = await call(srv, 'DELETE', `/v1/companies/${id}`, { key: W });
      expect(r.status).toBe(404);
      expect(r.json).toEqual({ errors: [{ status: '404', code: 'NOT_FOUND', title: `company ${id}` }] });
    });

    it('when the company is the emp of a tariff, then 400 and it stays', async () => {
      const emp = randomUUID();
      await put(emp, companyBody(emp));
      const tid = randomUUID();
      const t = await call(srv, 'PUT', `/v2/tariffs/${tid}`, {
        key: W,
        body: { data: { id: tid, type: 'tariff', attributes: { name: 'T', version: 1, currency: 'EUR' }, relationships: { emp: { data: { type: 'company', id: emp } } } } },
      });
      expect(t.status).toBe(201);
      const r = await call(srv, 'DELETE', `/v1/companies/${emp}`, { key: W });
      expect(r.status).toBe(400);
      expect(r.json.errors[0]).toMatchObject({ status: '400', code: 'BAD_REQUEST' });
      expect((await call(srv, 'GET', `/v1/companies?filter[id]=${emp}`, { key: R })).json.data.length).toBe(1);
      expect((await call(srv, 'DELETE', `/v2/tariffs/${tid}`, { key: W })).status).toBe(204);
      expect((await call(srv, 'DELETE', `/v1/companies/${emp}`, { key: W })).status).toBe(204);
    });

    it('when deleted, then 204, it leaves supported_emps and group pointers of others, whose version is unchanged', async () => {
      const gone = randomUUID();
      await put(gone, companyBody(gone, { name: 'To Be Deleted' }));
      const keep = randomUUID();
      await put(keep, companyBody(keep));
      const cpo = randomUUID();
      await put(cpo, companyBody(cpo, { is_cpo: true, supported: [gone, keep], cpo_group: gone, emp_group: gone }));
      const r = await call(srv, 'DELETE', `/v1/companies/${gone}`, { key: W });
      expect(r.status).toBe(204);
      expect(r.text).toBe('');
      const l = await call(srv, 'GET', `/v1/companies?filter[id]=${cpo},${gone}`, { key: R });
      expect(l.json.data.length).toBe(1);
      expect(l.json.data[0].attributes.version).toBe(1);
      expect(l.json.data[0].relationships).toEqual({
        supported_emps: { data: [{ type: 'company', id: keep }] },
        cpo_group: { data: null },
        emp_group: { data: null },
      });
      expect((await call(srv, 'DELETE', `/v1/companies/${gone}`, { key: W })).status).toBe(404);
      // The id can be created again from scratch.
      expect((await put(gone, companyBody(gone))).status).toBe(201);
    });
  });

  describe('keys and groups (403)', () => {
    const id = randomUUID();
    it.each([
      ['PUT', `/v1/companies/${id}`, undefined, 'api_key missing'],
      ['PUT', `/v1/companies/${id}`, 'wrong-key', 'api_key invalid'],
      ['PUT', `/v1/companies/${id}`, R, 'action write_tariffs not allowed'],
      ['DELETE', `/v1/companies/${id}`, undefined, 'api_key missing'],
      ['DELETE', `/v1/companies/${id}`, 'wrong-key', 'api_key invalid'],
      ['DELETE', `/v1/companies/${id}`, keyFor('stations'), 'action write_tariffs not allowed'],
      ['GET', '/v1/companies', undefined, 'api_key missing'],
      ['GET', '/v1/companies', 'wrong-key', 'api_key invalid'],
      ['GET', '/v1/companies', keyFor('stations'), 'action read_tariffs not allowed'],
    ])('%s %s with key %s → 403 %s', async (method, path, key, title) => {
      const r = await call(srv, method, path, { key, body: method === 'PUT' ? companyBody(id) : undefined });
      expect(r.status).toBe(403);
      expect(r.json).toEqual({ errors: [{ status: '403', code: 'FORBIDDEN', title }] });
    });
  });
});
