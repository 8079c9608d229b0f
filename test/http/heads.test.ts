/**
 * Heads that fit every client and proxy (D283), on the service's own socket: a head split over two
 * reads up to 16 KiB, request targets up to 8 KiB (414 beyond), and a CSV page's `Link` header
 * bounded so that Node's HTTP client (16 KiB of head at most) reads the answer.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LINK_HEADER_MAX } from '../../src/api/jsonapi/links.js';
import { MAX_TARGET_BYTES } from '../../src/http/pipeline.js';
import { call, keyFor, startTestServer, type TestServer } from '../helpers/server.js';

const KEY = keyFor('all');
const PAGE = '/v1/charging_stations?filter[latitude]=48.8566&filter[longitude]=2.3522&filter[radius]=3000&page[size]=2';

/** A request written in two parts, the second after a pause; the status line of the answer, or 'closed'. */
function sendInTwo(port: number, first: string, second: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1');
    let out = '';
    s.on('connect', () => {
      s.write(first);
      setTimeout(() => s.write(second), 150);
    });
    s.on('data', (d) => {
      out += d.toString('latin1');
      if (out.includes('\r\n\r\n')) {
        s.destroy();
        resolve(out.slice(0, out.indexOf('\r\n')));
      }
    });
    s.on('error', () => resolve(out.length > 0 ? out.slice(0, out.indexOf('\r\n')) : 'closed'));
    s.on('close', () => resolve(out.length > 0 ? out.slice(0, out.indexOf('\r\n')) : 'closed'));
    setTimeout(() => reject(new Error('no answer in 30 s')), 30_000).unref();
  });
}

/**
 * A page's query padded to `target` bytes of request target with a plug filter: type2 (every Paris
 * station of the test snapshot has one) or a plug that does not exist (so the same stations).
 */
function paddedTarget(target: number): string {
  const head = `${PAGE}&filter[charge_points.plug.in]=type2,`;
  return head + 'x'.repeat(target - head.length);
}

describe('request and answer heads (D283)', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer({ keys: { all: 'all' } });
  }, 120_000);
  afterAll(async () => {
    await srv?.stop();
  });

  it('reads a 12 KB head whose headers arrive in a second read (the core refused it with 431 at 4 KiB)', async () => {
    const first = `GET ${PAGE} HTTP/1.1\r\nHost: 127.0.0.1\r\n`;
    const second = `Api-Key: ${KEY}\r\nX-Padding: ${'p'.repeat(12_000)}\r\nConnection: close\r\n\r\n`;
    expect(await sendInTwo(srv.port, first, second)).toBe('HTTP/1.1 200 OK');
  });

  it('answers a request target over 8 KiB with 414 and one of exactly 8 KiB as usual', async () => {
    const over = await call(srv, 'GET', paddedTarget(MAX_TARGET_BYTES + 1), { key: KEY });
    expect(over.status).toBe(414);
    expect(over.json.errors[0]).toMatchObject({ status: '414', code: 'URI_TOO_LONG' });
    const at = await call(srv, 'GET', paddedTarget(MAX_TARGET_BYTES), { key: KEY });
    expect(at.status).toBe(200);
    // Before routing: an unknown path gets the same answer.
    const unknown = await fetch(`${srv.url}/nowhere?q=${'x'.repeat(MAX_TARGET_BYTES)}`);
    expect(unknown.status).toBe(414);
    expect(await unknown.json()).toMatchObject({ errors: [{ status: '414', code: 'URI_TOO_LONG' }] });
  });

  it('bounds a CSV page’s Link header so that Node’s client reads the answer, keeping next first', async () => {
    const url = paddedTarget(6_000).replace('page[size]=2', 'page[size]=1');
    const r = await call(srv, 'GET', url, { key: KEY, headers: { Accept: 'text/csv' } });
    expect(r.status).toBe(200);
    expect(r.headers.get('x-more-available')).toBe('true');
    const link = r.headers.get('link')!;
    expect(link.length).toBeLessThanOrEqual(LINK_HEADER_MAX);
    expect(link).toMatch(/; rel="next"$/);
    // self and first (6 KB each) no longer fit beside next.
    expect(link).not.toContain('rel="self"');
    // A short query keeps every link, in D238's order.
    const short = await call(srv, 'GET', PAGE.replace('page[size]=2', 'page[size]=1') + '&page[number]=2', { key: KEY, headers: { Accept: 'text/csv' } });
    expect([...short.headers.get('link')!.matchAll(/rel="([a-z]+)"/g)].map((m) => m[1])).toEqual(['self', 'first', 'prev', 'next']);
  });
});
