/**
 * D265: a large answer is written as the client reads it, and the request stays in progress
 * (in flight, its class's demand for D176) until the last byte is taken or the client goes away;
 * the bytes are those the handler answered even when it reuses its buffer afterwards.
 */
import net from 'node:net';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RouteDef } from '../../src/api/types.js';
import { DEFAULT_BUDGETS } from '../../src/config.js';
import { AdmissionBudgets } from '../../src/http/budgets.js';
import { STREAM_MIN_BYTES } from '../../src/http/respond.js';
import { startServer, type HttpServer } from '../../src/http/server.js';
import { accessLog } from '../../src/log.js';

/** More than loopback's socket buffers hold for a client that does not read. */
const SIZE = 32 * 1024 * 1024;
/** The handler's scratch buffer: answered as a view, overwritten right after (as a page writer's is). */
const scratch = Buffer.alloc(SIZE);
const expected = Buffer.alloc(SIZE);
for (let i = 0; i < SIZE; i += 4) expected.writeUInt32LE(i, i);

const routes: RouteDef[] = [
  {
    method: 'GET',
    path: '/t/large',
    groups: null,
    body: false,
    handler: () => {
      expected.copy(scratch);
      queueMicrotask(() => scratch.fill(0xee));
      return { status: 200, body: scratch, headers: { 'Content-Type': 'application/octet-stream' } };
    },
  },
  { method: 'GET', path: '/t/small', groups: null, body: false, handler: () => ({ status: 200, body: Buffer.alloc(STREAM_MIN_BYTES - 1, 1) }) },
];

/** Sends a GET on a raw socket that reads nothing until `read` is called. */
function rawGet(port: number, p: string): { sock: net.Socket; read: () => Promise<Buffer> } {
  const sock = net.connect(port, '127.0.0.1');
  sock.pause();
  sock.write(`GET ${p} HTTP/1.1\r\nHost: t\r\n\r\n`);
  const read = (): Promise<Buffer> =>
    new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let got = 0;
      let want = -1;
      sock.on('data', (c: Buffer) => {
        chunks.push(c);
        got += c.length;
        if (want < 0) {
          const all = Buffer.concat(chunks);
          const end = all.indexOf('\r\n\r\n');
          if (end >= 0) want = end + 4 + Number(/content-length: (\d+)/i.exec(all.subarray(0, end).toString())![1]);
        }
        if (want >= 0 && got >= want) {
          const all = Buffer.concat(chunks);
          resolve(all.subarray(all.indexOf('\r\n\r\n') + 4));
        }
      });
      sock.on('error', reject);
      sock.resume();
    });
  return { sock, read };
}

const until = async (cond: () => boolean, ms = 20_000): Promise<void> => {
  for (const end = Date.now() + ms; !cond() && Date.now() < end; ) await new Promise((r) => setTimeout(r, 10));
};

describe('large answers are written as the client reads (D265)', () => {
  let server: HttpServer;
  let budgets: AdmissionBudgets;
  beforeAll(async () => {
    budgets = new AdmissionBudgets(DEFAULT_BUDGETS, () => false, 60_000);
    const silent = pino({ level: 'silent' });
    server = await startServer('127.0.0.1', 0, { routes, keys: { maskOfKey: () => -1 }, bodyLimitBytes: 1024, logger: silent, accessLog: accessLog(silent), budgets, refusalDelayMs: 0 });
  });
  afterAll(async () => {
    budgets.close();
    await server.close(1000);
  });

  it('keeps the request in progress until the client took the body, and the bytes are the answered ones', async () => {
    const { sock, read } = rawGet(server.port, '/t/large');
    await until(() => server.inFlight() === 1 && budgets.inProgressOf('read') === 1);
    await new Promise((r) => setTimeout(r, 200));
    // The client has read nothing: the answer is still going out.
    expect(server.inFlight()).toBe(1);
    expect(budgets.inProgressOf('read')).toBe(1);
    const body = await read();
    expect(body.length).toBe(SIZE);
    expect(body.equals(expected)).toBe(true);
    await until(() => server.inFlight() === 0);
    expect(server.inFlight()).toBe(0);
    expect(budgets.inProgressOf('read')).toBe(0);
    sock.destroy();
  }, 60_000);

  it('ends the request when the client goes away mid-way', async () => {
    const { sock } = rawGet(server.port, '/t/large');
    await until(() => server.inFlight() === 1);
    expect(server.inFlight()).toBe(1);
    sock.destroy();
    await until(() => server.inFlight() === 0);
    expect(server.inFlight()).toBe(0);
    expect(budgets.inProgressOf('read')).toBe(0);
  }, 60_000);

  it('answers a small body at once, whether or not the client reads', async () => {
    const { sock, read } = rawGet(server.port, '/t/small');
    await until(() => server.inFlight() === 0);
    expect(server.inFlight()).toBe(0);
    expect((await read()).length).toBe(STREAM_MIN_BYTES - 1);
    sock.destroy();
  }, 60_000);
});
