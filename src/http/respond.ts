/**
 * The answer path, the only place that writes to a response: status line, the headers of D93–D95
 * (request id, CORS, ETag and Cache-Control, Vary, Content-Encoding), compression (sync below
 * ASYNC_MIN_BYTES, on the thread pool above), one corked write, HEAD without a body, the access
 * log and the metrics observation. Errors become JSON:API documents here (an unexpected error a
 * 500 without internals, logged with its stack), and refusals of D106 wait here until they are due.
 */
import type { AdmissionBudgets } from './budgets.js';
import type { Logger } from 'pino';
import type { AccessLog } from '../log.js';
import { ApiError, HeldRefusal, errorDocument, overloadedError, type ErrorObject, type ErrorStyle } from '../api/jsonapi/errors.js';
import { CONTENT_TYPE, type ApiResponse } from '../api/types.js';
import { ASYNC_MIN_BYTES, compressAsync, compressSync, type Encoding } from './compress.js';
import { EXPOSE_HEADERS } from './cors.js';

const EXPOSE_LINE = `\r\nAccess-Control-Expose-Headers: ${EXPOSE_HEADERS}`;
import type { Exchange } from './exchange.js';

const REASONS: Record<number, string> = {
  200: 'OK', 201: 'Created', 204: 'No Content', 304: 'Not Modified', 400: 'Bad Request', 403: 'Forbidden', 404: 'Not Found',
  405: 'Method Not Allowed', 406: 'Not Acceptable', 409: 'Conflict', 413: 'Payload Too Large', 415: 'Unsupported Media Type',
  429: 'Too Many Requests', 500: 'Internal Server Error', 503: 'Service Unavailable',
};
const statusLine = (s: number): string => `${s} ${REASONS[s] ?? ''}`.trimEnd();

/**
 * D282: uWebSockets.js 3.0.6's binary for Node 24 (ABI 137) sends a JS string whose characters
 * are all Latin-1 (a one-byte string in V8) as Latin-1 bytes, not UTF-8: `©` went out as 0xA9 and
 * Content-Length counted characters, while compressed answers (Buffer.from) and HEAD
 * (Buffer.byteLength) said UTF-8. Its binaries for Node 20 and 22 send UTF-8. On such a binary a
 * string body that is not plain ASCII is handed over as its UTF-8 bytes (header values are ASCII).
 */
const LATIN1_STRINGS = Number(process.versions.modules) >= 137;

/** Text as uWS must get it to send UTF-8: the string itself, or its UTF-8 bytes where needed. */
export function wireText(s: string, latin1Strings = LATIN1_STRINGS): string | Buffer {
  return latin1Strings && Buffer.byteLength(s) !== s.length ? Buffer.from(s) : s;
}

export interface ResponderOptions {
  logger: Logger;
  accessLog: AccessLog;
  /** D176: the time each answered request was in progress, by admission class. */
  budgets?: Pick<AdmissionBudgets, 'chargeWall' | 'leave'> | null;
  /** Called once per answered request (metrics): method, route template, status, ms, body bytes out. */
  observe?: (method: string, route: string | null, status: number, ms: number, bytesOut: number) => void;
  /** Maps an error that is not an ApiError to one (a storage fault → 503, D107), or null (500). */
  mapError?: (e: unknown) => ApiError | null;
  compression: boolean;
  compressMinBytes: number;
  cacheMaxAgeS: number;
  /** Answers vary by `Origin` (a CORS origin list). */
  varyOrigin: boolean;
  /** D106: refused price requests are answered this many ms after they arrived (0: at once). */
  refusalDelayMs: number;
  /** Called once per request when its answer is written or it was aborted. */
  finished: (ex: Exchange) => void;
  /** The server is draining: answers close their connection. */
  draining: () => boolean;
  /** Headers written one call each instead of as one block (the block's straightforward twin, for tests). */
  headersOneByOne?: boolean;
}

export class Responder {
  private readonly cacheControl: string;
  /**
   * `Vary` of answers with a body: they differ by encoding (compression on) and origin (a list);
   * by `Accept` where the representation is negotiated (D236), by `Accept-Language` where the
   * ETag names the language (D95). Indexed by those two bits.
   */
  private readonly vary: readonly string[];
  /** The fixed ends of heads by combination (D286; at most 3 × 4 × 3 × 3 × 2 of them). */
  private readonly ends: (string | undefined)[] = [];
  /** Refused requests waiting for their answer to be due (D106), oldest first. */
  private held: Exchange[] = [];
  private heldTimer: NodeJS.Timeout | null = null;

  constructor(private readonly o: ResponderOptions) {
    this.cacheControl = o.cacheMaxAgeS > 0 ? `private, max-age=${o.cacheMaxAgeS}` : 'no-cache';
    const base = [o.varyOrigin ? 'Origin' : '', o.compression ? 'Accept-Encoding' : ''];
    this.vary = [0, 1, 2, 3].map((bits) => [...base, bits & 1 ? 'Accept' : '', bits & 2 ? 'Accept-Language' : ''].filter((v) => v.length > 0).join(', '));
  }

  /** Ends an exchange whose socket went away: its answer, if any comes, is dropped. */
  aborted(ex: Exchange): void {
    ex.aborted = true;
    this.finish(ex);
  }

  private finish(ex: Exchange): void {
    if (ex.done) return;
    ex.done = true;
    this.o.finished(ex);
  }

  /** Writes one whole answer, compressed when negotiated and large enough; never after an abort. */
  send(ex: Exchange, r: ApiResponse, closeConnection = false): void {
    if (ex.aborted || ex.done) {
      r.release?.();
      return;
    }
    const body = r.body;
    const enc = ex.enc;
    if (body === undefined || enc === null || body.length < this.o.compressMinBytes) {
      try {
        this.write(ex, r, body, null, closeConnection);
      } finally {
        // uWS has written the body, or copied what the socket did not take yet.
        r.release?.();
      }
      return;
    }
    const ready = r.compressed?.get(enc);
    if (ready !== undefined) {
      this.write(ex, r, ready, enc, closeConnection);
      r.release?.();
      return;
    }
    if (body.length >= ASYNC_MIN_BYTES) {
      this.sendCompressedLater(ex, r, body, enc, closeConnection);
      return;
    }
    let out: Buffer;
    try {
      out = compressSync(body, enc);
      r.compressed?.keep(enc, out);
    } finally {
      r.release?.();
    }
    this.write(ex, r, out, enc, closeConnection);
  }

  /**
   * Large bodies are compressed on the thread pool: the event loop serves others meanwhile (D94).
   * The pool reads the body later, so it must stay as it is until then: a body with `release` (a
   * pool output slot, a merged answer) is held until the compression is done; any other Buffer
   * may be a view of memory the next request reuses (the station page writer's scratch buffer)
   * and is copied first.
   */
  private sendCompressedLater(ex: Exchange, r: ApiResponse, body: string | Buffer, enc: Encoding, closeConnection: boolean): void {
    const held = r.release !== undefined;
    const input = typeof body === 'string' ? Buffer.from(body) : held ? body : Buffer.from(body);
    compressAsync(input, enc).then(
      (out) => {
        r.release?.();
        r.compressed?.keep(enc, out);
        this.write(ex, r, out, enc, closeConnection);
      },
      (e: unknown) => {
        this.o.logger.warn({ reqId: ex.reqId, err: e }, 'compression failed; answered uncompressed');
        this.write(ex, r, input, null, closeConnection);
        r.release?.();
      },
    );
  }

  /** Status, headers and body in one corked write (D93–D95 headers on every answer). */
  private write(ex: Exchange, r: ApiResponse, body: string | Buffer | undefined, enc: Encoding | null, closeConnection: boolean): void {
    if (ex.aborted || ex.done) return;
    const close = closeConnection || this.o.draining();
    const res = ex.res;
    res.cork(() => {
      res.writeStatus(statusLine(r.status));
      const tagged = ex.etag !== null && r.final !== false && (r.status === 200 || r.status === 304);
      const varyBits = (ex.negotiated ? 1 : 0) | (tagged ? 2 : 0);
      if (this.o.headersOneByOne === true) this.headersOneByOne(ex, r, body === undefined, enc, tagged, varyBits);
      else res.writeHeader('X-Request-Id', this.headBlock(ex, r, body === undefined, enc, tagged, varyBits));
      if (body === undefined) {
        // 204/304: no Content-Length at all (endWithoutBody with no arguments reports none).
        if (closeConnection) res.writeHeader('Connection', 'close');
        res.endWithoutBody();
        return;
      }
      if (ex.head) {
        // The header written by hand keeps the connection alive (HEAD answers carry no body
        // either way). A HEAD answer that must close (D179, draining) is ended with
        // endWithoutBody(0, true), the one form of this uWS build that closes: a hand-written
        // `Connection: close` is not acted on, a reported length above 0 leaves the connection
        // open and none reports 2^63. So it says `Content-Length: 0`.
        if (close) res.endWithoutBody(0, true);
        else {
          res.writeHeader('Content-Length', String(byteLength(body)));
          res.endWithoutBody();
        }
      } else res.end(typeof body === 'string' ? wireText(body) : body, close);
    });
    ex.status = r.status;
    this.finish(ex);
    const bytesOut = body === undefined || ex.head ? 0 : byteLength(body);
    const ms = Math.round((performance.now() - ex.t0) * 1000) / 1000;
    this.o.accessLog(ex.reqId, ex.method, ex.routePath, r.status, ms, ex.remote, ex.keyName, ex.bytesIn, bytesOut, ex.path, ex.trace?.traceId, ex.trace?.spanId);
    this.o.observe?.(ex.method, ex.routePath, r.status, ms, bytesOut);
    // A refusal held for REFUSAL_DELAY_MS is not service the class used (D176).
    if (!ex.refused) this.o.budgets?.chargeWall(ex.cls, ms);
  }

  /**
   * The value of `X-Request-Id` followed by every other header of the answer's head up to its
   * Content-Type, as one header write (D286): on the wire, uWS writes a header as `name:
   * value` and CRLF, so a value holding CRLF-separated lines is those headers, in the order
   * `headersOneByOne` writes them one call each (test/http/header-block.test.ts holds the bytes
   * equal). The fixed end (Cache-Control, Vary, Content-Encoding, Content-Type) is built once per
   * combination. Header values are the service's own (request ids are checked, D93).
   */
  private headBlock(ex: Exchange, r: ApiResponse, noBody: boolean, enc: Encoding | null, tagged: boolean, varyBits: number): string {
    let h = ex.reqId;
    if (ex.origin !== null) h += `\r\nAccess-Control-Allow-Origin: ${ex.origin}${EXPOSE_LINE}`;
    const own = r.headers;
    if (own) for (const k in own) h += `\r\n${k}: ${own[k]}`;
    if (ex.rateLimit !== null) h += `\r\nRateLimit-Policy: ${ex.rateLimitPolicy!}\r\nRateLimit: ${ex.rateLimit}`;
    if (tagged) h += `\r\nETag: ${ex.etag!}`;
    const typed = noBody || own?.['Content-Type'] !== undefined ? 0 : ex.format === 'jsonapi' ? 2 : 1;
    const key = (tagged ? 1 : 0) | (varyBits << 1) | ((noBody ? (r.status === 304 ? 1 : 2) : 0) << 3) | ((enc === null ? 0 : enc === 'gzip' ? 1 : 2) << 5) | (typed << 7);
    let end = this.ends[key];
    if (end === undefined) end = this.ends[key] = this.endOfHead(tagged, varyBits, noBody, r.status, enc, typed);
    return h + end;
  }

  /** The fixed end of a head after its ETag (lines each starting with CRLF). */
  private endOfHead(tagged: boolean, varyBits: number, noBody: boolean, status: number, enc: Encoding | null, typed: number): string {
    let e = tagged ? `\r\nCache-Control: ${this.cacheControl}` : '';
    const vary = this.vary[varyBits];
    if (noBody) return status === 304 && vary.length > 0 ? `${e}\r\nVary: ${vary}` : e;
    if (vary.length > 0) e += `\r\nVary: ${vary}`;
    if (enc !== null) e += `\r\nContent-Encoding: ${enc}`;
    if (typed !== 0) e += `\r\nContent-Type: ${typed === 2 ? CONTENT_TYPE.jsonapi : CONTENT_TYPE.json}`;
    return e;
  }

  /** The same headers as `headBlock`, one write each: its straightforward form (tests). */
  private headersOneByOne(ex: Exchange, r: ApiResponse, noBody: boolean, enc: Encoding | null, tagged: boolean, varyBits: number): void {
    const res = ex.res;
    res.writeHeader('X-Request-Id', ex.reqId);
    if (ex.origin !== null) {
      res.writeHeader('Access-Control-Allow-Origin', ex.origin);
      res.writeHeader('Access-Control-Expose-Headers', EXPOSE_HEADERS);
    }
    if (r.headers) for (const k in r.headers) res.writeHeader(k, r.headers[k]);
    if (ex.rateLimit !== null) {
      res.writeHeader('RateLimit-Policy', ex.rateLimitPolicy!);
      res.writeHeader('RateLimit', ex.rateLimit);
    }
    if (tagged) {
      res.writeHeader('ETag', ex.etag!);
      res.writeHeader('Cache-Control', this.cacheControl);
    }
    const vary = this.vary[varyBits];
    if (noBody) {
      if (r.status === 304 && vary.length > 0) res.writeHeader('Vary', vary);
      return;
    }
    if (vary.length > 0) res.writeHeader('Vary', vary);
    if (enc !== null) res.writeHeader('Content-Encoding', enc);
    // JSON unless the handler said otherwise (GET /metrics, GeoJSON, CSV), as JSON:API's type when asked for (D236).
    if (r.headers?.['Content-Type'] === undefined) res.writeHeader('Content-Type', ex.format === 'jsonapi' ? CONTENT_TYPE.jsonapi : CONTENT_TYPE.json);
  }

  /** Answers an error: an ApiError (or one mapError knows) as it says, anything else 500. */
  fail(ex: Exchange, e: unknown, closeConnection = false): void {
    if (e instanceof HeldRefusal && !ex.refused) {
      this.refuse(ex);
      return;
    }
    const known = e instanceof ApiError ? e : (this.o.mapError?.(e) ?? null);
    if (known !== null) {
      this.send(ex, errorResponse(known, ex.errorStyle), closeConnection);
      return;
    }
    const tr = ex.trace !== null && ex.trace.traceId.length > 0 ? { trace_id: ex.trace.traceId, span_id: ex.trace.spanId } : {};
    this.o.logger.error({ reqId: ex.reqId, method: ex.method, route: ex.routePath, ...tr, err: e }, 'unhandled error');
    const title = `internal error (request ${ex.reqId})`;
    this.send(ex, { status: 500, body: errorDocument([{ status: '500', code: 'INTERNAL_SERVER_ERROR', title } satisfies ErrorObject], ex.errorStyle === 'client' ? 'client' : 'jsonapi') });
  }

  /** D106: 503 for price work refused while saturated, answered once `refusalDelayMs` has passed. */
  refuse(ex: Exchange): void {
    ex.refused = true;
    // A refusal held for its delay is no demand of its class (D176).
    if (ex.entered) {
      ex.entered = false;
      this.o.budgets?.leave(ex.cls);
    }
    const delay = this.o.refusalDelayMs;
    if (delay <= 0 || this.o.draining()) {
      this.fail(ex, overloadedError());
      return;
    }
    this.held.push(ex);
    this.heldTimer ??= setInterval(() => this.flushHeld(false), Math.max(5, Math.min(50, delay / 4)));
  }

  /** Answers the held refusals that are due (all of them when draining). */
  flushHeld(all: boolean): void {
    const now = performance.now();
    const held = this.held;
    let k = 0;
    for (; k < held.length; k++) {
      if (!all && now - held[k].t0 < this.o.refusalDelayMs) break;
      this.fail(held[k], overloadedError());
    }
    this.held = k === held.length ? [] : held.slice(k);
    if (this.held.length === 0 && this.heldTimer !== null) {
      clearInterval(this.heldTimer);
      this.heldTimer = null;
    }
  }
}

function byteLength(body: string | Buffer): number {
  return typeof body === 'string' ? Buffer.byteLength(body) : body.length;
}

export function errorResponse(e: ApiError, style: ErrorStyle): ApiResponse {
  return { status: e.status, body: errorDocument(e.errors, style), headers: e.headers ? { ...e.headers } : undefined };
}
