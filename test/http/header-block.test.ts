/**
 * The answer's head written as one header block (D286) must put on the wire the very bytes the
 * headers written one call each put there: a sink writes what uWS writes (`HTTP/1.1 <status>`,
 * then `name: value` per header, each line ended by CRLF), and every combination of origin, the
 * handler's own headers, rate limit fields, ETag, Vary bits, encoding, representation, status,
 * HEAD and closing is answered by both forms and compared byte for byte.
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { ApiResponse } from '../../src/api/types.js';
import { Exchange, type ResponseSink } from '../../src/http/exchange.js';
import { Responder, type ResponderOptions } from '../../src/http/respond.js';

/** The bytes uWS would write for these calls (its own Date and length headers left out). */
class WireSink implements ResponseSink {
  wire = '';
  cork(cb: () => void): void {
    cb();
  }
  writeStatus(status: string): void {
    this.wire += `HTTP/1.1 ${status}\r\n`;
  }
  writeHeader(key: string, value: string): void {
    this.wire += `${key}: ${value}\r\n`;
  }
  end(body?: string | Uint8Array, close?: boolean): void {
    this.wire += `[end ${body === undefined ? '' : Buffer.from(body).toString()} ${close === true}]`;
  }
  endWithoutBody(length?: number, close?: boolean): void {
    this.wire += `[endWithoutBody ${length ?? ''} ${close === true}]`;
  }
  onData(): void {}
  onAborted(): void {}
}

const silent = pino({ level: 'silent' });

function responder(oneByOne: boolean, o: Partial<ResponderOptions>): Responder {
  return new Responder({
    logger: silent,
    accessLog: () => undefined,
    compression: true,
    // Every body with an encoding is compressed (synchronously: the bodies are small).
    compressMinBytes: 0,
    cacheMaxAgeS: 60,
    varyOrigin: false,
    refusalDelayMs: 0,
    finished: () => undefined,
    draining: () => false,
    headersOneByOne: oneByOne,
    ...o,
  });
}

interface Case {
  method: string;
  origin: string | null;
  enc: 'br' | 'gzip' | null;
  etag: string | null;
  rateLimit: boolean;
  negotiated: boolean;
  format: 'json' | 'jsonapi' | 'geojson';
  r: ApiResponse;
  close: boolean;
}

function wireOf(oneByOne: boolean, opts: Partial<ResponderOptions>, c: Case): string {
  const sink = new WireSink();
  const ex = new Exchange(sink, c.method, '/v1/x', '', {} as never, '', 'req-1', performance.now(), c.origin, c.enc, '', '127.0.0.1');
  ex.etag = c.etag;
  ex.negotiated = c.negotiated;
  ex.format = c.format;
  if (c.rateLimit) {
    ex.rateLimit = '"requests";r=4999;t=300';
    ex.rateLimitPolicy = '"requests";q=5000;w=300';
  }
  responder(oneByOne, opts).send(ex, { ...c.r, headers: c.r.headers === undefined ? undefined : { ...c.r.headers } }, c.close);
  return sink.wire;
}

describe('answer head as one header block (D286)', () => {
  it('writes the bytes of one write per header for every combination', () => {
    const answers: ApiResponse[] = [
      { status: 200, body: '{"data":[]}' },
      { status: 200, body: Buffer.from('{"data":{}}'), headers: { Link: '<https://x/y?page[offset]=50>; rel="next"', 'X-More-Available': 'true' } },
      { status: 200, body: 'a,b\n', headers: { 'Content-Type': 'text/csv; charset=utf-8' } },
      { status: 200, body: '{}', final: false },
      { status: 201, body: '{}', headers: { Location: '/v1/tariffs/abc' } },
      { status: 204 },
      { status: 304 },
      { status: 404, body: '{"errors":[]}' },
      { status: 405, body: '{"errors":[]}', headers: { Allow: 'GET, HEAD' } },
      { status: 429, body: '{"errors":[]}', headers: { 'Retry-After': '7' } },
    ];
    let compared = 0;
    const seen = new Set<string>();
    for (const opts of [{}, { varyOrigin: true, cacheMaxAgeS: 0 }, { compression: false }])
      for (const r of answers)
        for (const method of ['GET', 'HEAD'])
          for (const origin of [null, '*'])
            for (const enc of [null, 'br', 'gzip'] as const)
              for (const etag of [null, '"abc-tag"'])
                for (const rateLimit of [false, true])
                  for (const negotiated of [true, false])
                    for (const format of ['json', 'jsonapi', 'geojson'] as const)
                      for (const close of [false, true]) {
                        const c: Case = { method, origin, enc, etag, rateLimit, negotiated, format, r, close };
                        const block = wireOf(false, opts, c);
                        expect(block, JSON.stringify({ opts, ...c })).toBe(wireOf(true, opts, c));
                        seen.add(block);
                        compared++;
                      }
    expect(compared).toBeGreaterThan(10_000);
    // The combinations gave heads that differ (the comparison saw what it is about).
    expect(seen.size).toBeGreaterThan(1000);
    const sample = wireOf(false, {}, { method: 'GET', origin: '*', enc: 'br', etag: '"t"', rateLimit: true, negotiated: true, format: 'jsonapi', r: answers[0], close: false });
    expect(sample.slice(0, sample.indexOf('[end'))).toBe(
      'HTTP/1.1 200 OK\r\nX-Request-Id: req-1\r\nAccess-Control-Allow-Origin: *\r\n' +
        'Access-Control-Expose-Headers: X-Request-Id, Retry-After, ETag, RateLimit, RateLimit-Policy, Link, X-More-Available, X-Snapshot-Version\r\n' +
        'RateLimit-Policy: "requests";q=5000;w=300\r\nRateLimit: "requests";r=4999;t=300\r\nETag: "t"\r\nCache-Control: private, max-age=60\r\n' +
        'Vary: Accept-Encoding, Accept, Accept-Language\r\nContent-Encoding: br\r\nContent-Type: application/vnd.api+json\r\n',
    );
  });
});
