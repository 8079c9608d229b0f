import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { FeedbackStore } from '../../src/storage/feedback.js';
import { openLiveStoreReadonly } from '../../src/storage/open.js';
import { call, keyFor, startTestServer } from '../helpers/server.js';
import { heavySetup, PRICE_EVERY_REQUEST } from '../pool/price-fixtures.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Resolves true when a TCP connection to the port succeeds, false when it is refused. */
function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect({ host: '127.0.0.1', port });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

describe('graceful shutdown', () => {
  it('when SIGTERM arrives while a request body is half sent, then that request still completes with 204, new connections are refused, and the process exits 0', async () => {
    const srv = await startTestServer({ keys: { writer: 'WriteUserFeedback' } });
    const body = JSON.stringify({
      data: { type: 'tariff_update', attributes: { content: 'sent across SIGTERM', tariff: 't', cpo: 'c', emp: 'e', language: 'en' } },
    });
    const head =
      'POST /v1/partner_feedback HTTP/1.1\r\n' +
      `Host: 127.0.0.1:${srv.port}\r\n` +
      `Api-Key: ${keyFor('writer')}\r\n` +
      'Content-Type: application/json\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      '\r\n';
    const half = Math.floor(body.length / 2);

    const sock = net.connect({ host: '127.0.0.1', port: srv.port });
    await new Promise<void>((resolve, reject) => {
      sock.once('connect', () => resolve());
      sock.once('error', reject);
    });
    let received = '';
    const closed = new Promise<void>((resolve) => {
      sock.on('data', (d) => (received += d.toString('latin1')));
      sock.on('close', () => resolve());
      sock.on('error', () => resolve());
    });
    sock.write(head + body.slice(0, half));
    await sleep(100);
    // A request answered on another connection after those bytes arrived: the server has read the
    // head and half the body by then, however busy the machine (a fixed wait alone was not enough
    // under the PostgreSQL suite's load), so the request is in flight.
    expect((await call(srv, 'GET', '/health')).status).toBe(200);

    srv.proc.kill('SIGTERM');
    await sleep(200);
    expect(srv.proc.exitCode).toBeNull(); // still draining the in-flight request
    expect(await canConnect(srv.port)).toBe(false);

    sock.write(body.slice(half));
    const code = await srv.exited;
    await closed;
    expect(received, srv.stdout()).toMatch(/^HTTP\/1\.1 204/);
    expect(code).toBe(0);

    // The acknowledged write is durable.
    const store = await openLiveStoreReadonly(srv);
    try {
      const rows = [];
      for await (const r of new FeedbackStore(store).partnerFeedback()) rows.push(r);
      expect(rows.map((r) => r.content)).toEqual(['sent across SIGTERM']);
    } finally {
      await store.close();
    }
  });
});

describe('the price pool at shutdown', () => {
  it('shutdown closes the pool: SIGTERM with busy workers exits 0', async () => {
    const srv = await startTestServer({ keys: { writer: 'WriteTariffs,ReadTariffs', costs: 'ReadCosts' }, env: { WORKERS: '2', ...PRICE_EVERY_REQUEST } });
    const { body } = await heavySetup(srv, keyFor('writer'));
    const inFlight = Promise.all(Array.from({ length: 6 }, () => call(srv, 'POST', '/v1/charge_prices', { key: keyFor('costs'), body }).catch(() => null)));
    await new Promise((r) => setTimeout(r, 20));
    expect(await srv.stop('SIGTERM')).toBe(0);
    const answered = (await inFlight).filter((r) => r !== null);
    for (const r of answered) expect([200, 503]).toContain(r!.status);
    // 300 tariff writes (fsynced on PostgreSQL in test:pg) and a drain of up to SHUTDOWN_TIMEOUT_MS:
    // 6 s on a quiet machine, over 30 s at load 15.
  }, 120_000);
});
