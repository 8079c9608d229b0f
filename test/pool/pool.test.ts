/**
 * The price pool over HTTP: a worker that dies mid-task is replaced and its request answered 500;
 * a full queue answers 503 with Retry-After; inline mode (WORKERS=0) gives the same answers as the
 * pool (shutdown with busy workers: test/process/shutdown.test.ts).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Snapshot } from '../../src/storage/snapshot.js';
import { call, keyFor, startTestApp, type TestApp } from '../helpers/server.js';
import { chargeBody, comp, heavySetup, PRICE_EVERY_REQUEST, putCompany, putTariff, ref, seg } from './price-fixtures.js';

const W = keyFor('writer');
const C = keyFor('costs');
const V = keyFor('bench');
const KEYS = { writer: 'WriteTariffs,ReadTariffs', costs: 'ReadCosts', bench: 'ViewPriceBenchmark' };

describe('price pool', () => {
  // With two workers every charge price request is split over both when they are idle (split
  // from one evaluation on, inline work off): a part's worker dying fails the request the same way.
  describe.each(['1', '2'])('a worker that dies (%s workers)', (workers) => {
    const doomed = randomUUID();
    let srv: TestApp;
    beforeAll(async () => {
      // Requests queued behind the dying worker wait for its replacement to load (longer than
      // the default MAX_QUEUE_WAIT_MS on a busy test machine).
      srv = await startTestApp({
        keys: KEYS,
        env: {
          WORKERS: workers,
          PRICING_INLINE_MAX_EVALUATIONS: '0',
          PRICING_SPLIT_MIN_EVALUATIONS: '1',
          PRICING_TEST_EXIT_ON_NETWORK: doomed,
          MAX_QUEUE_WAIT_MS: '20000',
        },
      });
    });
    afterAll(async () => {
      await srv.stop();
    });

    it('answers its request 500, is replaced, and the service keeps serving', async () => {
      const emp = await putCompany(srv, W, {});
      await putCompany(srv, W, { is_cpo: true, is_emp: false, supported_emps: [emp] }, doomed);
      const healthy = await putCompany(srv, W, { is_cpo: true, is_emp: false, supported_emps: [emp] });
      const t = await putTariff(srv, W, emp, { attributes: { prices: [comp([seg('kwh', 0.5)])] } });
      for (let round = 0; round < 3; round++) {
        const dead = await call(srv, 'POST', '/v1/charge_prices', { key: C, body: chargeBody({ network: doomed }) });
        expect(dead.status).toBe(500);
        expect(dead.json).toEqual({ errors: [{ status: '500', code: 'INTERNAL_SERVER_ERROR', title: 'price calculation failed' }] });
        const ok = await call(srv, 'POST', '/v1/charge_prices', { key: C, body: chargeBody({ network: healthy }) });
        expect(ok.status, ok.text).toBe(200);
        expect(ok.json.data.map((d: any) => d.relationships.tariff.data.id)).toEqual([t]);
      }
      // Requests in flight beside a dying one are answered too.
      const mixed = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          call(srv, 'POST', '/v1/charge_prices', { key: C, body: chargeBody({ network: i === 5 ? doomed : healthy }) }),
        ),
      );
      expect(mixed.map((r) => r.status)).toEqual(Array.from({ length: 12 }, (_, i) => (i === 5 ? 500 : 200)));
      // Bulk and tariff details go through the pool too.
      const vehicle = (() => {
        const snap = Snapshot.open(inject('testSnapshot'));
        try {
          return snap.vehicles()[0].id;
        } finally {
          snap.close();
        }
      })();
      const deadBulk = await call(srv, 'POST', '/v1/charge_prices/bulk', {
        key: C,
        body: { data: { attributes: { battery_range: [10, 90] }, relationships: { charging_stations: { data: [] }, tariffs: { data: [ref('tariff', doomed)] }, vehicle: { data: ref('car', vehicle) } } } },
      });
      expect(deadBulk.status).toBe(500);
      const deadDetails = await call(srv, 'POST', '/v1/tariff_details', {
        key: V,
        body: { data: { attributes: { station: { country: 'DE', operator: { id: doomed, type: 'company' } } } } },
      });
      expect(deadDetails.status).toBe(500);
      const details = await call(srv, 'POST', '/v1/tariff_details', {
        key: V,
        body: { data: { attributes: { station: { country: 'DE', operator: { id: healthy, type: 'company' } } } } },
      });
      expect(details.status).toBe(200);
      expect((await call(srv, 'GET', '/health')).status).toBe(200);
    });
  });

  describe('a full queue', () => {
    let srv: TestApp;
    beforeAll(async () => {
      srv = await startTestApp({ keys: KEYS, env: { WORKERS: '1', MAX_QUEUE: '1', PRICING_INLINE_MAX_EVALUATIONS: '0', REFUSAL_DELAY_MS: '0', ...PRICE_EVERY_REQUEST } });
    });
    afterAll(async () => {
      await srv.stop();
    });

    it('answers 503 SERVICE_UNAVAILABLE with Retry-After while saturated, then serves again', async () => {
      const { body } = await heavySetup(srv, W);
      const one = await call(srv, 'POST', '/v1/charge_prices', { key: C, body });
      expect(one.status).toBe(200);
      expect(one.json.data).toHaveLength(300);
      const burst = await Promise.all(Array.from({ length: 40 }, () => call(srv, 'POST', '/v1/charge_prices', { key: C, body })));
      const statuses = burst.map((r) => r.status);
      expect(statuses.every((s) => s === 200 || s === 503)).toBe(true);
      expect(statuses.filter((s) => s === 503).length).toBeGreaterThan(0);
      expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(2);
      const rejected = burst.find((r) => r.status === 503)!;
      expect(rejected.headers.get('retry-after')).toBe('1');
      expect(rejected.json).toEqual({ errors: [{ status: '503', code: 'SERVICE_UNAVAILABLE', title: 'overloaded, retry later' }] });
      for (const r of burst.filter((x) => x.status === 200)) expect(r.text).toBe(one.text);
      const after = await call(srv, 'POST', '/v1/charge_prices', { key: C, body });
      expect(after.status).toBe(200);
    });
  });

  describe('inline evaluation (WORKERS=0) and the pool', () => {
    let pooled: TestApp;
    let inline: TestApp;
    beforeAll(async () => {
      [pooled, inline] = await Promise.all([
        // Every price request in a worker on one, on the main thread on the other.
        startTestApp({ keys: KEYS, env: { WORKERS: '2', PRICING_INLINE_MAX_EVALUATIONS: '0' } }),
        startTestApp({ keys: KEYS, env: { WORKERS: '0' } }),
      ]);
    });
    afterAll(async () => {
      await Promise.all([pooled.stop(), inline.stop()]);
    });

    it('give identical answers (write times aside) for all three endpoints, before and after writes', async () => {
      const ids = { emp: randomUUID(), cpo: randomUUID(), t: randomUUID() };
      const both = async (f: (s: TestApp) => Promise<unknown>) => Promise.all([f(pooled), f(inline)]);
      await both((s) => putCompany(s, W, { name: 'Same EMP' }, ids.emp));
      await both((s) => putCompany(s, W, { name: 'Same CPO', is_cpo: true, supported_emps: [ids.emp] }, ids.cpo));
      const requests = (): [string, string, unknown][] => [
        ['/v1/charge_prices', C, chargeBody({ network: ids.cpo, options: { energy: 30, duration: 45, show_price_unavailable: true } })],
        ['/v1/tariff_details', V, { data: { attributes: { station: { country: 'DE', operator: { id: ids.cpo, type: 'company' } } } } }],
        [
          '/v1/charge_prices/bulk',
          C,
          { data: { attributes: { battery_range: [10, 90] }, relationships: { charging_stations: { data: [] }, tariffs: { data: [ref('tariff', ids.t)] }, vehicle: { data: ref('car', 'nope') } } } },
        ],
      ];
      const compare = async () => {
        for (const [path, key, body] of requests()) {
          const [a, b] = await Promise.all([call(pooled, 'POST', path, { key, body }), call(inline, 'POST', path, { key, body })]);
          expect(a.status).toBe(b.status);
          // The two servers stamped their writes at different times.
          const norm = (x: string) => x.replace(/"updated_at":\d+/g, '"updated_at":0');
          expect(norm(a.text)).toBe(norm(b.text));
        }
      };
      await compare();
      await both((s) => putTariff(s, W, ids.emp, { attributes: { name: 'Same', prices: [comp([seg('kwh', 0.4), seg('minute', 0.05, { range_gte: 30 })])] } }, ids.t));
      await compare();
      const r = await call(inline, 'POST', '/v1/charge_prices', { key: C, body: requests()[0][2] });
      expect(r.json.data).toHaveLength(1);
      await both((s) => putTariff(s, W, ids.emp, { version: 2, attributes: { name: 'Same', prices: [comp([seg('session', 2)])] } }, ids.t));
      await compare();
      await both((s) => call(s, 'DELETE', `/v2/tariffs/${ids.t}`, { key: W }));
      await compare();
      // D120: the inline server timed each of its price tasks on the main thread; the pooled one ran none inline.
      const inlineCount = async (s: TestApp) => Number(/^cps_price_inline_task_seconds_count (\d+)$/m.exec((await call(s, 'GET', '/metrics')).text)?.[1]);
      const inlineTasks = async (s: TestApp) => Number(/^cps_price_tasks_total\{mode="inline"\} (\d+)$/m.exec((await call(s, 'GET', '/metrics')).text)?.[1]);
      expect(await inlineCount(inline)).toBeGreaterThan(0);
      expect(await inlineCount(inline)).toBe(await inlineTasks(inline));
      expect(await inlineCount(pooled)).toBe(0);
    });

    it('with inline work off, a small charge price request runs whole in one worker, never split (its estimate is finite)', async () => {
      const tasks = async (): Promise<Record<string, number>> => {
        const text = (await call(pooled, 'GET', '/metrics')).text;
        const out: Record<string, number> = {};
        for (const m of text.matchAll(/^cps_price_tasks_total\{mode="(\w+)"\} (\d+)$/gm)) out[m[1]] = Number(m[2]);
        for (const h of ['queue_wait', 'worker_task']) out[h] = Number(new RegExp(`^cps_price_${h}_seconds_count (\\d+)$`, 'm').exec(text)?.[1]);
        out.worker_le_5 = Number(/^cps_price_worker_task_seconds_bucket\{le="5"\} (\d+)$/m.exec(text)?.[1]);
        return out;
      };
      const ids = { emp: randomUUID(), cpo: randomUUID(), t: randomUUID() };
      await putCompany(pooled, W, { name: 'Small EMP' }, ids.emp);
      await putCompany(pooled, W, { name: 'Small CPO', is_cpo: true, supported_emps: [ids.emp] }, ids.cpo);
      await putTariff(pooled, W, ids.emp, { attributes: { name: 'Small', prices: [comp([seg('kwh', 0.4)])] } }, ids.t);
      const before = await tasks();
      const r = await call(pooled, 'POST', '/v1/charge_prices', { key: C, body: chargeBody({ network: ids.cpo, options: { energy: 30, duration: 45 } }) });
      expect(r.status, r.text).toBe(200);
      const after = await tasks();
      expect(after.split).toBe(before.split);
      expect(after.pooled).toBe(before.pooled + 1);
      // The histograms of D120 saw the one task: its wait for a worker and its time in the worker.
      expect([after.queue_wait - before.queue_wait, after.worker_task - before.worker_task, after.worker_le_5 - before.worker_le_5]).toEqual([1, 1, 1]);
    });
  });
});
