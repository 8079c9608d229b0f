/**
 * The request head the transport copies for the pipeline (D285): read in one walk over the
 * headers (`copyHead`), it must equal what one `getHeader` per field reads (`copyHeadByName`, the
 * straightforward form) for every head: no headers, a client's few, a browser's dozen, repeated
 * names (the first counts), empty values, two Content-Lengths (D179), trace context on and off.
 */
import net from 'node:net';
import uWS from 'uWebSockets.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HeadFields, copyHead, copyHeadByName } from '../../src/http/server.js';

const HEADS: string[][] = [
  [],
  ['Host: 127.0.0.1', 'Api-Key: k1', 'Content-Type: application/json'],
  [
    'Host: example.org:8443',
    'User-Agent: Mozilla/5.0 (X11; Linux x86_64) Gecko/20100101 Firefox/120.0',
    'Accept: application/vnd.api+json, */*;q=0.1',
    'Accept-Language: de-DE,de;q=0.9,en;q=0.5',
    'Accept-Encoding: gzip, deflate, br',
    'Origin: https://map.example.org',
    'Referer: https://map.example.org/',
    'Api-Key: browser-key',
    'If-None-Match: "abc", W/"def"',
    'X-Request-Id: req-42',
    'Sec-Fetch-Mode: cors',
    'Connection: keep-alive',
  ],
  ['API-KEY: first', 'api-key: second', 'Accept: text/csv', 'ACCEPT: application/json', 'X-Request-Id:', 'Origin: '],
  ['Authorization: Bearer tok', 'CRM-Device-Id: dev-1', 'X-Forwarded-Proto: https', 'X-Forwarded-For: 10.0.0.1, 10.0.0.2', 'X-Forwarded-For: 10.0.0.3'],
  ['traceparent: 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01', 'tracestate: a=b', 'traceparent: 00-ffffffffffffffffffffffffffffffff-0000000000000001-00'],
  ['Content-Length: 0', 'Content-Length: 0'],
  ['Content-Length: 0', 'Content-Length: 5', 'Content-Type: application/vnd.api+json'],
];

describe('request head copied in one walk (D285)', () => {
  let app: uWS.TemplatedApp;
  let listen: uWS.us_listen_socket;
  let port = 0;
  const pairs: { walk: unknown; byName: unknown }[] = [];
  const fields = new HeadFields();
  const seen: string[] = [];

  beforeAll(async () => {
    app = uWS.App();
    app.any('/*', (res, req) => {
      const tracing = req.getQuery('tracing') === '1';
      seen.push(req.getUrl());
      pairs.push({ walk: copyHead(res, req, tracing, fields), byName: copyHeadByName(res, req, tracing) });
      res.end('ok', true);
    });
    await new Promise<void>((resolve, reject) =>
      app.listen('127.0.0.1', 0, (t) => {
        if (!t) return reject(new Error('cannot listen'));
        listen = t;
        port = uWS.us_socket_local_port(t);
        resolve();
      }),
    );
  });
  afterAll(() => {
    uWS.us_listen_socket_close(listen);
    app.close();
  });

  /** One raw request (the head exactly as written), answered and closed. */
  const send = (head: string): Promise<void> =>
    new Promise((resolve, reject) => {
      const s = net.connect(port, '127.0.0.1', () => s.end(head));
      s.on('data', () => undefined);
      s.on('close', () => resolve());
      s.on('error', reject);
    });

  it('equals one getHeader per field for every head, tracing on and off', async () => {
    for (const tracing of ['0', '1'])
      for (const [k, lines] of HEADS.entries()) {
        // HTTP/1.1 needs Host (uWS refuses a head without one).
        const all = lines.some((l) => /^host:/i.test(l)) ? lines : ['Host: 127.0.0.1', ...lines];
        await send(`GET /v1/x/${k}?tracing=${tracing}&a=b HTTP/1.1\r\n${all.map((l) => `${l}\r\n`).join('')}\r\n`);
      }
    expect(seen).toHaveLength(HEADS.length * 2);
    for (const p of pairs) expect(p.walk).toEqual(p.byName);
    // The heads were read (not empty copies compared with empty copies).
    const heads = pairs.map((p) => p.walk as { headers: { apiKey: string }; lengthConflict: boolean; traceparent: string; accept: string });
    expect(heads[2].headers.apiKey).toBe('browser-key');
    expect(heads[3].headers.apiKey).toBe('first');
    expect(heads[3].accept).toBe('text/csv');
    expect(heads[7].lengthConflict).toBe(true);
    expect(heads[6].lengthConflict).toBe(false);
    expect(heads[HEADS.length + 5].traceparent).toBe('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01');
    expect(heads[5].traceparent).toBe('');
  });

  it('names each client address as the text uWS gives for it, when consecutive requests come from other addresses (D297)', async () => {
    // A listener on both families: IPv4 clients read as uWS writes them, ::1 as IPv6.
    const dual = uWS.App();
    const remotes: { kept: string; read: string }[] = [];
    const own = new HeadFields();
    dual.any('/*', (res, req) => {
      remotes.push({ kept: copyHead(res, req, false, own).remote, read: copyHeadByName(res, req, false).remote });
      res.end('ok', true);
    });
    const token = await new Promise<uWS.us_listen_socket>((resolve, reject) => dual.listen('::', 0, (t) => (t ? resolve(t) : reject(new Error('cannot listen')))));
    try {
      const p = uWS.us_socket_local_port(token);
      const from = (host: string, localAddress: string): Promise<void> =>
        new Promise((resolve, reject) => {
          const s = net.connect({ port: p, host, localAddress }, () => s.end('GET / HTTP/1.1\r\nHost: x\r\n\r\n'));
          s.on('data', () => undefined);
          s.on('close', () => resolve());
          s.on('error', reject);
        });
      const order: [string, string][] = [
        ['127.0.0.1', '127.0.0.1'], ['127.0.0.1', '127.0.0.1'], ['127.0.0.1', '127.0.0.2'], ['127.0.0.1', '127.0.0.3'], ['127.0.0.1', '127.0.0.2'],
        ['::1', '::1'], ['::1', '::1'], ['127.0.0.1', '127.0.0.1'],
      ];
      for (const [host, local] of order) await from(host, local);
      expect(remotes).toHaveLength(order.length);
      for (const r of remotes) expect(r.kept).toBe(r.read);
      // The addresses were told apart (not one text kept for all).
      expect(new Set(remotes.map((r) => r.kept)).size).toBe(4);
    } finally {
      uWS.us_listen_socket_close(token);
      dual.close();
    }
  });
});
