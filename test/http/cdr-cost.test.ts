/**
 * POST /v1/ocpi/cdr_cost against the real server (D140–D146): answers, the time zone, OCPI 2.1.1
 * input, `npm run ocpi:cost` printing the same document, and every kind of bad input.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { costliestTariff, longestSession } from '../domain/ocpi/costly-cases.js';
import { call, keyFor, ROOT, startTestApp, type TestApp } from '../helpers/server.js';
import { threadCpuMs } from '../helpers/cpu.js';

const FIX = path.join(ROOT, 'test/fixtures/ocpi');
const readJson = (...p: string[]): any => JSON.parse(fs.readFileSync(path.join(FIX, ...p), 'utf8'));
const C = keyFor('costs');
const PATH = '/v1/ocpi/cdr_cost';
const body = (attributes: Record<string, unknown>) => ({ data: { type: 'ocpi_cdr_cost_request', attributes } });

const complex = readJson('ocpi-spec-2.2.1', 'tariff_4_complex.json');
/** Monday 09:30 UTC: 165 minutes at 16 A, then 42 minutes parked (the text at the tag 2.2.1: 9.00 / 10.30). */
const monday = {
  id: 'CDR-MON',
  currency: 'EUR',
  start_date_time: '2024-06-03T09:30:00Z',
  end_date_time: '2024-06-03T12:57:00Z',
  charging_periods: [
    { start_date_time: '2024-06-03T09:30:00Z', dimensions: [{ type: 'ENERGY', volume: 8 }, { type: 'TIME', volume: 2.75 }, { type: 'MAX_CURRENT', volume: 16 }] },
    { start_date_time: '2024-06-03T12:15:00Z', dimensions: [{ type: 'PARKING_TIME', volume: 0.7 }] },
  ],
};

describe('POST /v1/ocpi/cdr_cost', () => {
  let srv: TestApp;
  beforeAll(async () => {
    srv = await startTestApp({ keys: { costs: 'ReadCosts', tariffs: 'ReadTariffs' } });
  });
  afterAll(async () => {
    await srv.stop();
  });

  it('has the first request’s one-time set-up done at start: the schema compiled, a CDR priced (D259)', async () => {
    // Before any cdr_cost request: the service's own module instance (the in-process service runs dist/).
    const m = (await import(pathToFileURL(path.join(ROOT, 'dist/src/api/cdr-cost/cdr-cost.js')).href)) as typeof import('../../src/api/cdr-cost/cdr-cost.js');
    expect(m.validateCdrCost.compiled).toBe(true);
    expect(srv.stdout()).toContain('"msg":"cdr_cost ready"');
    expect(m.warmCdrCost()).toBe(2.5);
  });

  it('prices the complex example of the OCPI text: totals, billed volumes and the element of each period', async () => {
    const r = await call(srv, 'POST', PATH, { key: C, body: body({ tariff: complex, cdr: monday }) });
    expect(r.status, r.text).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(r.json.data.type).toBe('cdr_cost');
    expect(r.json.data.id).toBe('CDR-MON');
    const a = r.json.data.attributes;
    expect(a.total_cost).toEqual({ excl_vat: 9, incl_vat: 10.3 });
    expect(a.total_fixed_cost).toEqual({ excl_vat: 2.5, incl_vat: 2.875 });
    expect(a.total_time_cost).toEqual({ excl_vat: 2.75, incl_vat: 3.3 });
    expect(a.total_parking_time_cost).toEqual({ excl_vat: 3.75, incl_vat: 4.125 });
    expect(a.total_energy_cost).toEqual({ excl_vat: 0, incl_vat: 0 });
    expect(a.total_reservation_cost).toEqual({ excl_vat: 0, incl_vat: 0 });
    expect([a.total_time, a.total_parking_time]).toEqual([2.75, 0.75]);
    expect(a.charging_periods).toEqual([
      { start_date_time: '2024-06-03T09:30:00Z', tariff_elements: { TIME: 1 } },
      { start_date_time: '2024-06-03T12:15:00Z', tariff_elements: { PARKING_TIME: 4 } },
    ]);
    expect(a.price_bound).toBeNull();
  });

  it('reads restrictions in the given time zone (the tandemdrive step_size CDR: 0.3834 in UTC, 0.4835 in Amsterdam)', async () => {
    const tariff = readJson('tandemdrive/test_data/step_size/tariff.json');
    const cdr = readJson('tandemdrive/test_data/step_size/cdr1.json');
    const utc = await call(srv, 'POST', PATH, { key: C, body: body({ tariff, cdr }) });
    const ams = await call(srv, 'POST', PATH, { key: C, body: body({ tariff, cdr, timezone: 'Europe/Amsterdam' }) });
    expect(utc.json.data.attributes.total_cost.excl_vat).toBe(0.3834);
    expect(utc.json.data.attributes.timezone).toBe('UTC');
    expect(ams.json.data.attributes.total_cost.excl_vat).toBe(0.4835);
    expect(ams.json.data.attributes.timezone).toBe('Europe/Amsterdam');
  });

  it('accepts OCPI 2.1.1 tariffs and CDRs (stop_date_time)', async () => {
    const tariff = readJson('ocpi-tariffs-py/test_data/v2_1_1/step_size/tariff.json');
    const cdr = readJson('ocpi-tariffs-py/test_data/v2_1_1/step_size/cdr.json');
    const r = await call(srv, 'POST', PATH, { key: C, body: body({ tariff, cdr: { ...cdr, stop_date_time: cdr.end_date_time, end_date_time: undefined } }) });
    expect(r.status, r.text).toBe(200);
    // The CDR states 0.55; the text at the tag 2.2.1 states 0.383 for this session (D257).
    expect(cdr.total_cost).toBe(0.55);
    expect(Math.abs(r.json.data.attributes.total_cost.excl_vat - 0.383)).toBeLessThanOrEqual(0.02);
  });

  it('checks the body as sent: a null is a value OCPI gives, not an absent member (a null CDR currency or timezone is refused)', async () => {
    for (const [attributes, pointer] of [
      [{ tariff: complex, cdr: { ...monday, currency: null } }, '/data/attributes/cdr/currency'],
      [{ tariff: complex, cdr: monday, timezone: null }, '/data/attributes/timezone'],
    ] as const) {
      const r = await call(srv, 'POST', PATH, { key: C, body: body(attributes) });
      expect(r.status, r.text).toBe(400);
      expect(r.json.errors.map((e: { source?: { pointer?: string } }) => e.source?.pointer)).toContain(pointer);
    }
  });

  it('npm run ocpi:cost prints the same document', async () => {
    const dir = fs.mkdtempSync(path.join(srv.dataDir, 'cli-'));
    fs.writeFileSync(path.join(dir, 't.json'), JSON.stringify(complex));
    fs.writeFileSync(path.join(dir, 'c.json'), JSON.stringify(monday));
    const run = promisify(execFile);
    const { stdout } = await run(process.execPath, [path.join(ROOT, 'dist/src/cli/ocpi-cost.js'), '--tariff', path.join(dir, 't.json'), '--cdr', path.join(dir, 'c.json'), '--timezone', 'UTC']);
    const r = await call(srv, 'POST', PATH, { key: C, body: body({ tariff: complex, cdr: monday, timezone: 'UTC' }) });
    expect(JSON.parse(stdout)).toEqual(r.json);
    const bad = await run(process.execPath, [path.join(ROOT, 'dist/src/cli/ocpi-cost.js'), '--tariff', path.join(dir, 't.json'), '--cdr', path.join(dir, 't.json')]).catch((e) => e);
    expect(bad.code).toBe(1);
    expect(JSON.parse(bad.stderr).errors[0].source.pointer).toBe('/data/attributes/cdr/start_date_time');
  });

  it('reads an OCPI DateTime without a zone designator as UTC (D141)', async () => {
    const noZone = (t: string) => t.replace(/Z$/, '');
    const plain = { ...monday, start_date_time: noZone(monday.start_date_time), end_date_time: noZone(monday.end_date_time), charging_periods: monday.charging_periods.map((p) => ({ ...p, start_date_time: noZone(p.start_date_time) })) };
    const r = await call(srv, 'POST', PATH, { key: C, body: body({ tariff: complex, cdr: plain, timezone: 'Europe/Paris' }) });
    const z = await call(srv, 'POST', PATH, { key: C, body: body({ tariff: complex, cdr: monday, timezone: 'Europe/Paris' }) });
    expect(r.status, r.text).toBe(200);
    expect(r.json.data.attributes).toEqual(z.json.data.attributes);
  });

  it('npm run ocpi:cost answers a leap second with the error and exit code 1, not a crash', async () => {
    const dir = fs.mkdtempSync(path.join(srv.dataDir, 'cli-leap-'));
    fs.writeFileSync(path.join(dir, 't.json'), JSON.stringify(complex));
    fs.writeFileSync(path.join(dir, 'c.json'), JSON.stringify({ ...monday, end_date_time: '2024-06-30T23:59:60Z' }));
    const bad = await promisify(execFile)(process.execPath, [path.join(ROOT, 'dist/src/cli/ocpi-cost.js'), '--tariff', path.join(dir, 't.json'), '--cdr', path.join(dir, 'c.json')]).catch((e) => e);
    expect(bad.code).toBe(1);
    expect(JSON.parse(bad.stderr).errors[0].source.pointer).toBe('/data/attributes/cdr/end_date_time');
  });

  it('answers 400 with a pointer for each kind of bad input', async () => {
    const cases: [string, unknown, string][] = [
      ['no tariff', body({ cdr: monday }), '/data/attributes/tariff'],
      ['wrong resource type', { data: { type: 'cdr', attributes: { tariff: complex, cdr: monday } } }, '/data/type'],
      ['price as text', body({ tariff: { ...complex, elements: [{ price_components: [{ type: 'TIME', price: '2' }] }] }, cdr: monday }), '/data/attributes/tariff/elements/0/price_components/0/price'],
      ['unknown tariff dimension', body({ tariff: { ...complex, elements: [{ price_components: [{ type: 'SESSION_TIME', price: 2 }] }] }, cdr: monday }), '/data/attributes/tariff/elements/0/price_components/0/type'],
      ['unknown CDR dimension', body({ tariff: complex, cdr: { ...monday, charging_periods: [{ start_date_time: monday.start_date_time, dimensions: [{ type: 'SESSION_TIME', volume: 1 }] }] } }), '/data/attributes/cdr/charging_periods/0/dimensions/0/type'],
      ['negative volume', body({ tariff: complex, cdr: { ...monday, charging_periods: [{ start_date_time: monday.start_date_time, dimensions: [{ type: 'TIME', volume: -1 }] }] } }), '/data/attributes/cdr/charging_periods/0/dimensions/0/volume'],
      ['bad time of day', body({ tariff: { ...complex, elements: [{ price_components: [{ type: 'TIME', price: 2 }], restrictions: { start_time: '24:00' } }] }, cdr: monday }), '/data/attributes/tariff/elements/0/restrictions/start_time'],
      ['unknown day', body({ tariff: { ...complex, elements: [{ price_components: [{ type: 'TIME', price: 2 }], restrictions: { day_of_week: ['FUNDAY'] } }] }, cdr: monday }), '/data/attributes/tariff/elements/0/restrictions/day_of_week/0'],
      ['currencies differ', body({ tariff: complex, cdr: { ...monday, currency: 'CHF' } }), '/data/attributes/cdr/currency'],
      ['periods out of order', body({ tariff: complex, cdr: { ...monday, charging_periods: [...monday.charging_periods].reverse() } }), '/data/attributes/cdr/charging_periods/1/start_date_time'],
      ['period after the end', body({ tariff: complex, cdr: { ...monday, end_date_time: '2024-06-03T11:00:00Z' } }), '/data/attributes/cdr/charging_periods/1/start_date_time'],
      ['ends before it starts', body({ tariff: complex, cdr: { ...monday, end_date_time: '2024-06-03T09:00:00Z' } }), '/data/attributes/cdr/end_date_time'],
      ['no end', body({ tariff: complex, cdr: { ...monday, end_date_time: undefined } }), '/data/attributes/cdr/end_date_time'],
      ['not a date', body({ tariff: complex, cdr: { ...monday, start_date_time: 'monday' } }), '/data/attributes/cdr/start_date_time'],
      ['a leap second', body({ tariff: complex, cdr: { ...monday, end_date_time: '2024-06-30T23:59:60Z' } }), '/data/attributes/cdr/end_date_time'],
      ['a day the month lacks', body({ tariff: complex, cdr: { ...monday, start_date_time: '2024-02-30T09:30:00' } }), '/data/attributes/cdr/start_date_time'],
      ['a period at a leap second', body({ tariff: complex, cdr: { ...monday, charging_periods: [monday.charging_periods[0], { ...monday.charging_periods[1], start_date_time: '2024-06-03T11:56:60+00:00' }] } }), '/data/attributes/cdr/charging_periods/1/start_date_time'],
      ['unknown time zone', body({ tariff: complex, cdr: monday, timezone: 'Mars/Olympus' }), '/data/attributes/timezone'],
      ['no periods', body({ tariff: complex, cdr: { ...monday, charging_periods: [] } }), '/data/attributes/cdr/charging_periods'],
      ['over 31 days', body({ tariff: complex, cdr: { ...monday, end_date_time: '2024-07-10T00:00:00Z' } }), '/data/attributes/cdr/end_date_time'],
      ['over 10,000 periods', body({ tariff: complex, cdr: { ...monday, charging_periods: Array.from({ length: 10_001 }, () => ({ start_date_time: monday.start_date_time, dimensions: [] })) } }), '/data/attributes/cdr/charging_periods'],
    ];
    for (const [name, b, pointer] of cases) {
      const r = await call(srv, 'POST', PATH, { key: C, body: b });
      expect(r.status, `${name}: ${r.text}`).toBe(400);
      expect(r.json.errors.map((e: { source?: { pointer: string } }) => e.source?.pointer), name).toContain(pointer);
    }
  });

  it('answers 400 for a tariff and session too complex to price on the main thread', async () => {
    const elements = Array.from({ length: 1000 }, (_, i) => ({ price_components: [{ type: 'TIME', price: 1 }], restrictions: { start_time: `${String(Math.floor((i * 1.44) / 60)).padStart(2, '0')}:${String(Math.floor(i * 1.44) % 60).padStart(2, '0')}` } }));
    const t0 = Date.parse('2024-06-01T00:00:00Z');
    const charging_periods = Array.from({ length: 3000 }, (_, i) => ({ start_date_time: new Date(t0 + i * 600_000).toISOString(), dimensions: [{ type: 'TIME', volume: 1 / 6 }] }));
    const cdr = { start_date_time: charging_periods[0].start_date_time, end_date_time: new Date(t0 + 3000 * 600_000).toISOString(), charging_periods };
    const r = await call(srv, 'POST', PATH, { key: C, body: body({ tariff: { currency: 'EUR', elements }, cdr }) });
    expect(r.status, r.text).toBe(400);
    expect(r.json.errors[0].title).toMatch(/^pricing this session under this tariff of more than 100 elements would take more than \d+ element checks$/);
    expect(r.json.errors[0].source.pointer).toBe('/data/attributes/cdr/charging_periods');
  });

  it('refuses the worst body of each shape before any work: at most 500 ms of the event loop thread\'s CPU for it and a /health behind it (D172)', async () => {
    const S = Date.parse('2026-03-10T00:00:00Z');
    const iso = (t: number) => new Date(t).toISOString();
    const hhmm = (m: number) => `${String(Math.floor(m / 60) % 24).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;
    const els = (n: number) => Array.from({ length: n }, (_, i) => ({ price_components: [{ type: 'TIME', price: 1 }], restrictions: { start_time: hhmm(Math.floor((i * 1440) / n)), end_time: hhmm(Math.floor((i * 1440) / n) + 1) } }));
    const dims = [{ type: 'TIME', volume: 1 }];
    const month = { start_date_time: iso(S), end_date_time: iso(S + 31 * 86_400_000) };
    const worst: [string, unknown, string][] = [
      // 405 bytes that once blocked the event loop for 1.4 s: a period starting in 1970.
      ['a period decades before the session', body({ tariff: { currency: 'EUR', elements: els(2) }, cdr: { ...month, charging_periods: [{ start_date_time: '1970-01-01T00:00:00Z', dimensions: dims }] }, timezone: 'Europe/Berlin' }), '/data/attributes/cdr/charging_periods/0/start_date_time'],
      ['1,000 elements, one 32-day period', body({ tariff: { currency: 'EUR', elements: els(1000) }, cdr: { ...month, charging_periods: [{ start_date_time: iso(S - 86_000_000), dimensions: dims }] }, timezone: 'Europe/Berlin' }), '/data/attributes/cdr/charging_periods'],
      ['1,000 elements, 5,000 periods of 9 minutes', body({ tariff: { currency: 'EUR', elements: els(1000) }, cdr: { ...month, charging_periods: Array.from({ length: 5000 }, (_, i) => ({ start_date_time: iso(S + i * 534_000), dimensions: dims })) }, timezone: 'Europe/Berlin' }), '/data/attributes/cdr/charging_periods'],
      // A week whose offset changes inside it (summer time on 29 March) prices every piece with look-ups.
      ['1,000 elements, a week across summer time', body({ tariff: { currency: 'EUR', elements: els(1000) }, cdr: { start_date_time: '2026-03-25T00:00:00Z', end_date_time: '2026-04-01T00:00:00Z', charging_periods: [{ start_date_time: '2026-03-25T00:00:00Z', dimensions: dims }] }, timezone: 'Europe/Berlin' }), '/data/attributes/cdr/charging_periods'],
      ['1,000 elements, 4 long periods', body({ tariff: { currency: 'EUR', elements: els(1000) }, cdr: { ...month, charging_periods: [0, 1, 2, 3].map((i) => ({ start_date_time: iso(S + i * 7.75 * 86_400_000), dimensions: dims })) }, timezone: 'Europe/Berlin' }), '/data/attributes/cdr/charging_periods'],
    ];
    for (const [name, b, pointer] of worst) {
      const raw = JSON.stringify(b);
      expect(raw.length).toBeLessThan(1 << 20);
      // The request and a /health sent right behind it, both served by this thread's event loop
      // (the app runs in process). CPU time, not wall time: a loaded machine stretches the latter
      // (550–840 ms at load 15–18 for this same work) but not the work itself. Before D172 the
      // first body alone held the loop for 1.4 s; reading and validating the 5,000-period body
      // takes a few tens of ms.
      const cpu0 = threadCpuMs();
      const cost = call(srv, 'POST', PATH, { key: C, raw });
      const health = call(srv, 'GET', '/health');
      const [r, h] = await Promise.all([cost, health]);
      const cpu1 = threadCpuMs();
      expect(r.status, `${name}: ${r.text.slice(0, 300)}`).toBe(400);
      expect(r.json.errors[0].source.pointer, name).toBe(pointer);
      expect(h.status, name).toBe(200);
      if (cpu0 !== null && cpu1 !== null) expect(cpu1 - cpu0, name).toBeLessThan(500);
    }
  });

  it('prices every CDR the schema accepts under a tariff of up to 100 elements, in a pricing worker (D260)', async () => {
    const tasks = async () => Number(/^cps_price_tasks_total\{mode="pooled"\} (\d+)$/m.exec((await call(srv, 'GET', '/metrics')).text)?.[1] ?? 0);
    const S = Date.parse('2026-03-10T00:00:00Z');
    const iso = (t: number) => new Date(t).toISOString();
    // Three days of one-minute periods under 20 elements (before: 400 over 3,147 periods), and
    // 10,000 periods over 32 days under the costliest 100 elements.
    const minutes = { start_date_time: iso(S), end_date_time: iso(S + 4320 * 60_000), charging_periods: Array.from({ length: 4320 }, (_, i) => ({ start_date_time: iso(S + i * 60_000), dimensions: [{ type: 'ENERGY', volume: 0.1 }, { type: 'TIME', volume: 1 / 60 }] })) };
    const longest = longestSession(10_000);
    for (const [name, tariff, cdr] of [['4,320 one-minute periods, 20 elements', costliestTariff(20), minutes], ['10,000 periods, 100 elements', costliestTariff(100), { ...longest, charging_periods: longest.charging_periods.map((p) => ({ ...p, dimensions: p.dimensions.slice(1, 2) })) }]] as const) {
      const raw = JSON.stringify(body({ tariff, cdr, timezone: 'Europe/Berlin' }));
      expect(raw.length, name).toBeLessThan(1 << 20);
      const before = await tasks();
      const r = await call(srv, 'POST', PATH, { key: C, raw });
      expect(r.status, `${name}: ${r.text.slice(0, 300)}`).toBe(200);
      expect(r.json.data.attributes.charging_periods.length, name).toBe(cdr.charging_periods.length);
      expect(await tasks(), name).toBe(before + 1);
    }
  });

  it('answers 400 for broken JSON, 413 over the body limit, 415 for other media types, 403 without the ReadCosts group, 405 for GET', async () => {
    expect((await call(srv, 'POST', PATH, { key: C, raw: '{"data":' })).status).toBe(400);
    expect((await call(srv, 'POST', PATH, { key: C, raw: `{"x":"${'a'.repeat(1024 * 1024 + 10)}"}` })).status).toBe(413);
    expect((await call(srv, 'POST', PATH, { key: C, raw: '{}', headers: { 'Content-Type': 'text/plain' } })).status).toBe(415);
    expect((await call(srv, 'POST', PATH, { body: body({ tariff: complex, cdr: monday }) })).status).toBe(403);
    expect((await call(srv, 'POST', PATH, { key: 'wrong-key-123', body: body({ tariff: complex, cdr: monday }) })).status).toBe(403);
    const g = await call(srv, 'POST', PATH, { key: keyFor('tariffs'), body: body({ tariff: complex, cdr: monday }) });
    expect(g.status).toBe(403);
    expect((await call(srv, 'GET', PATH, { key: C })).status).toBe(405);
  });

  it('prices small bounds inline and large ones in a pricing worker, the same bytes either way (D226)', async () => {
    const pooled = await startTestApp({ keys: { costs: 'ReadCosts' }, env: { PRICING_INLINE_MAX_EVALUATIONS: '0' } });
    try {
      const tasks = async (s: TestApp) => {
        const out: Record<string, number> = { inline: 0, pooled: 0 };
        for (const m of (await call(s, 'GET', '/metrics')).text.matchAll(/^cps_price_tasks_total\{mode="(\w+)"\} (\d+)$/gm)) out[m[1]] = Number(m[2]);
        return out;
      };
      const S = Date.parse('2026-03-10T00:00:00Z');
      const hourly = {
        start_date_time: new Date(S).toISOString(),
        end_date_time: new Date(S + 700 * 3_600_000).toISOString(),
        charging_periods: Array.from({ length: 700 }, (_, i) => ({ start_date_time: new Date(S + i * 3_600_000).toISOString(), dimensions: [{ type: 'ENERGY', volume: 5 }, { type: 'TIME', volume: 1 }] })),
      };
      const hourlyTariff = { currency: 'EUR', elements: Array.from({ length: 48 }, (_, i) => ({ price_components: [{ type: 'ENERGY', price: 0.2 + i / 100 }], restrictions: { start_time: `${String(Math.floor(i / 2)).padStart(2, '0')}:${i % 2 ? '30' : '00'}` } })) };
      const real = readJson('ocpi-tariffs-py', 'test_data', 'v2_2_1', 'codeberg_issue_228', 'cdr.json');
      const cases: [string, unknown, 'inline' | 'pooled'][] = [
        ['the complex example', body({ tariff: complex, cdr: monday }), 'inline'],
        ['a real CDR with 48 prices', body({ tariff: real.tariffs[0], cdr: real, timezone: 'Europe/Amsterdam' }), 'inline'],
        ['700 hourly periods under 48 prices', body({ tariff: hourlyTariff, cdr: hourly, timezone: 'Europe/Berlin' }), 'pooled'],
      ];
      for (const [name, b, mode] of cases) {
        const before = await tasks(srv);
        const here = await call(srv, 'POST', PATH, { key: C, body: b });
        const after = await tasks(srv);
        expect(here.status, `${name}: ${here.text.slice(0, 300)}`).toBe(200);
        expect(after[mode] - before[mode], name).toBe(1);
        const poolBefore = await tasks(pooled);
        const there = await call(pooled, 'POST', PATH, { key: C, body: b });
        expect((await tasks(pooled)).pooled - poolBefore.pooled, name).toBe(1);
        expect(there.text, name).toBe(here.text);
      }
    } finally {
      await pooled.stop();
    }
  });
});
