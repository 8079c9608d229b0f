/**
 * Admission control of price work over HTTP (D106): requests refused before their bodies are read
 * while the pool is saturated (answered REFUSAL_DELAY_MS after arrival), tasks that waited longer
 * than MAX_QUEUE_WAIT_MS or ran past PRICE_DEADLINE_MS answered 503, and the pool serving again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, keyFor, startTestApp, type TestApp } from '../helpers/server.js';
import { chargeBody, comp, heavySetup, PRICE_EVERY_REQUEST, putCompany, putTariff, seg } from './price-fixtures.js';

const W = keyFor('writer');
const C = keyFor('costs');
const KEYS = { writer: 'WriteTariffs,ReadTariffs', costs: 'ReadCosts' };

describe('admission control (D106)', () => {
  describe('a saturated pool', () => {
    let srv: TestApp;
    beforeAll(async () => {
      srv = await startTestApp({
        keys: KEYS,
        env: { WORKERS: '1', MAX_QUEUE: '2', MAX_QUEUE_WAIT_MS: '20000', PRICING_INLINE_MAX_EVALUATIONS: '0', REFUSAL_DELAY_MS: '300', ...PRICE_EVERY_REQUEST },
      });
    });
    afterAll(async () => {
      await srv.stop();
    });

    it('refuses price requests 503 before reading their bodies, then reads them again', async () => {
      const { body } = await heavySetup(srv, W);
      const heavy = Array.from({ length: 30 }, () => call(srv, 'POST', '/v1/charge_prices', { key: C, body }));
      // Malformed JSON would be a 400 if it were read: a 503 shows it was refused unread. Refusals
      // are held REFUSAL_DELAY_MS (300 here) from arrival.
      const malformed = Array.from({ length: 5 }, async () => {
        const t0 = performance.now();
        const r = await call(srv, 'POST', '/v1/charge_prices', { key: C, raw: '{"data": nope' });
        return Object.assign(r, { ms: performance.now() - t0 });
      });
      const [h, m] = await Promise.all([Promise.all(heavy), Promise.all(malformed)]);
      expect(h.every((r) => r.status === 200 || r.status === 503)).toBe(true);
      expect(h.filter((r) => r.status === 200).length).toBeGreaterThanOrEqual(1);
      expect(m.every((r) => r.status === 503 || r.status === 400)).toBe(true);
      const refused = m.filter((r) => r.status === 503);
      expect(refused.length).toBeGreaterThan(0);
      expect(refused[0].headers.get('retry-after')).toBe('1');
      for (const r of refused) expect(r.ms).toBeGreaterThanOrEqual(290);
      expect(refused[0].json).toEqual({ errors: [{ status: '503', code: 'SERVICE_UNAVAILABLE', title: 'overloaded, retry later' }] });
      // Not saturated any more: the same body is read and refused for what it is.
      const later = await call(srv, 'POST', '/v1/charge_prices', { key: C, raw: '{"data": nope' });
      expect(later.status).toBe(400);
      // Key checks come before the refusal.
      const noKey = await call(srv, 'POST', '/v1/charge_prices', { raw: '{}' });
      expect(noKey.status).toBe(403);
    });
  });

  describe('waiting and deadlines', () => {
    let srv: TestApp;
    beforeAll(async () => {
      srv = await startTestApp({ keys: KEYS, env: { WORKERS: '1', MAX_QUEUE_WAIT_MS: '1', PRICE_DEADLINE_MS: '10', PRICING_INLINE_MAX_EVALUATIONS: '0', ...PRICE_EVERY_REQUEST } });
    });
    afterAll(async () => {
      await srv.stop();
    });

    it('answers 503 for tasks that waited or ran too long, and serves small work again', async () => {
      const { body } = await heavySetup(srv, W);
      const emp = await putCompany(srv, W, {});
      const cpo = await putCompany(srv, W, { is_cpo: true, is_emp: false, supported_emps: [emp] });
      const t = await putTariff(srv, W, emp, { attributes: { prices: [comp([seg('kwh', 0.5)])] } });
      // 30,000 evaluations at 100 charge points take longer than 10 ms: past the deadline.
      for (let i = 0; i < 6; i++) {
        const r = await call(srv, 'POST', '/v1/charge_prices', { key: C, body });
        expect(r.status).toBe(503);
        expect(r.json.errors[0].title).toBe('overloaded, retry later');
      }
      const burst = await Promise.all(Array.from({ length: 20 }, () => call(srv, 'POST', '/v1/charge_prices', { key: C, body })));
      expect(burst.every((r) => r.status === 503)).toBe(true);
      // The worker finishes the abandoned tasks (they cannot be stopped, their answers are
      // dropped and their output slots freed); then a small request is answered again. On a busy
      // machine that takes a while: ask until it is, for at most 20 s.
      let ok = await call(srv, 'POST', '/v1/charge_prices', { key: C, body: chargeBody({ network: cpo }) });
      for (const t0 = Date.now(); ok.status === 503 && Date.now() - t0 < 20_000; ) {
        await new Promise((r) => setTimeout(r, 200));
        ok = await call(srv, 'POST', '/v1/charge_prices', { key: C, body: chargeBody({ network: cpo }) });
      }
      expect(ok.status, ok.text).toBe(200);
      expect(ok.json.data.map((d: any) => d.relationships.tariff.data.id)).toEqual([t]);
    });
  });
});
