/**
 * The HTTP front end on uWebSockets.js (the only importer of it). Per request: copy the head
 * synchronously, attach onAborted, route (404/405), check the API key and group (403), check the
 * media type (415), read the body under the limit (413) copying each chunk, parse JSON (400), call
 * the transport-agnostic handler, and write status, headers and body once inside cork. One catch
 * boundary answers 500 without internals.
 */
import uWS from 'uWebSockets.js';
import type { Logger } from 'pino';
import type { AccessLog } from '../log.js';
import { ApiError, errorDocument, overloadedError, type ErrorObject } from '../api/jsonapi/errors.js';
import { parseQueryString } from '../api/jsonapi/query.js';
import { MAX_DEPTH, deepPointer, tooDeep } from '../api/jsonapi/depth.js';
import type { ApiRequest, ApiResponse, RequestHeaders, RouteDef } from '../api/types.js';
import { GROUP_BIT, snakeCase } from '../auth/groups.js';
import { Router } from './router.js';
import { ASYNC_MIN_BYTES, compressAsync, compressSync, negotiateEncoding, type Encoding } from './compress.js';
import { ALLOW_HEADERS, EXPOSE_HEADERS, MAX_AGE_S, corsPolicy } from './cors.js';
import { etagOf, ifNoneMatchHits } from './conditional.js';

export interface KeyLookup {
  /** Group mask of a key, or -1 when unknown. */
  maskOfKey(key: string): number;
  /**
   * For a key unknown here: null when that is final, else a promise of its mask once the key view
   * is as new as the live store (another replica may have created it, D151).
   */
  recheck?(key: string): Promise<number> | null;
  /** The key's name for the access log (never the key), or null. */
  nameOfKey?(key: string): string | null;
}

export interface ServerOptions {
  routes: readonly RouteDef[];
  keys: KeyLookup;
  bodyLimitBytes: number;
  logger: Logger;
  /** One line per request (src/log.ts). */
  accessLog: AccessLog;
  /** Browser transport (D93–D97); absent: CORS for any origin, no compression, 60 s caching. */
  transport?: TransportOptions;
  /**
   * Maps an error that is not an ApiError to one (a storage fault → 503, D107), or null for an
   * unexpected error (500, logged with its stack).
   */
  mapError?: (e: unknown) => ApiError | null;
  /**
   * D106: a request refused because price work is saturated is answered this many ms after it
   * arrived (0: at once), so a client that ignores Retry-After cannot come back faster.
   */
  refusalDelayMs?: number;
  /** D106: whether price work is saturated now (price-work routes are then refused unread). */
  priceWorkSaturated?: () => boolean;
  /**
   * Rate limits per key (D24, D109): counts a keyed request and answers 0, or the Retry-After
   * seconds of a 429. Absent: no limits.
   */
  rateLimit?: (key: string, priceWork: boolean) => number;
  /**
   * Read-your-writes (D151): null when this process's view of the live store cannot be behind,
   * else a promise that settles once it is current; awaited before routes marked `fresh`.
   */
  fresh?: () => Promise<void> | null;
  /** Called once per answered request (metrics): method, route template, status, ms, body bytes out. */
  observe?: (method: string, route: string | null, status: number, ms: number, bytesOut: number) => void;
}

export interface TransportOptions {
  /** `*`, a list of origins, or null (no CORS headers). */
  corsOrigins: '*' | readonly string[] | null;
  compression: boolean;
  compressMinBytes: number;
  cacheMaxAgeS: number;
  /** Share the port with other processes (SO_REUSEPORT) instead of refusing a taken one. */
  reusePort: boolean;
}

const DEFAULT_TRANSPORT: TransportOptions = { corsOrigins: '*', compression: false, compressMinBytes: 1024, cacheMaxAgeS: 60, reusePort: false };

/** The port is taken by another process (D97). */
export class PortInUseError extends Error {
  constructor(
    readonly host: string,
    readonly port: number,
  ) {
    super(`port ${port} on ${host} is already in use by another process; stop it, choose another PORT, or set REUSE_PORT=on to share the port on purpose`);
  }
}

export interface HttpServer {
  readonly port: number;
  /** Stops accepting, lets in-flight requests finish (at most `timeoutMs`), then closes all connections. */
  close(timeoutMs: number): Promise<void>;
  inFlight(): number;
  /**
   * Replaces the route table (snapshot swap): requests that arrive afterwards are routed to the new
   * handlers; requests already routed finish in the old ones.
   */
  setRoutes(routes: readonly RouteDef[]): void;
}

const REASONS: Record<number, string> = {
  200: 'OK', 201: 'Created', 204: 'No Content', 304: 'Not Modified', 400: 'Bad Request', 403: 'Forbidden', 404: 'Not Found',
  405: 'Method Not Allowed', 409: 'Conflict', 413: 'Payload Too Large', 415: 'Unsupported Media Type',
  429: 'Too Many Requests', 500: 'Internal Server Error', 503: 'Service Unavailable',
};
const statusLine = (s: number): string => `${s} ${REASONS[s] ?? ''}`.trimEnd();
const JSON_TYPE = 'application/json; charset=utf-8';

/** D12: JSON media types (parameters allowed) or no Content-Type at all. */
function acceptableMediaType(ct: string): boolean {
  if (ct.length === 0) return true;
  const semi = ct.indexOf(';');
  const base = (semi === -1 ? ct : ct.slice(0, semi)).trim().toLowerCase();
  return base === 'application/json' || base === 'application/vnd.api+json';
}

const REQUEST_ID_RE = /^[A-Za-z0-9._:-]{1,128}$/;

/** A matched request between its route match and its dispatch (one object per request). */
interface Pending {
  r: RouteDef;
  params: ApiRequest['params'];
  key: string;
  state: State;
  method: string;
  path: string;
  rawQuery: string;
  headers: RequestHeaders;
  reqId: string;
  t0: number;
  enc: Encoding | null;
  ifNoneMatch: string;
}

interface State {
  aborted: boolean;
  done: boolean;
  /** `Access-Control-Allow-Origin` of this request, or null. */
  origin: string | null;
  /** Negotiated content encoding (null: identity). */
  enc: Encoding | null;
  /** HEAD: headers of the GET answer, no body. */
  head: boolean;
  /** ETag of a cacheable answer (D95), or null. */
  etag: string | null;
  /** For the access log: the client's address, the name of the key used, the body bytes read. */
  remote: string;
  keyName: string | null;
  bytesIn: number;
}

export function startServer(host: string, port: number, opts: ServerOptions): Promise<HttpServer> {
  let router = new Router(opts.routes);
  // Handlers below must not capture `opts`: it holds the first route table, which would keep the
  // first snapshot's station data alive after a snapshot swap.
  const { logger: log, accessLog, keys, bodyLimitBytes, mapError, rateLimit, observe, priceWorkSaturated, fresh } = opts;
  const refusalDelayMs = opts.refusalDelayMs ?? 0;
  const transport = opts.transport ?? DEFAULT_TRANSPORT;
  const cors = corsPolicy(transport.corsOrigins);
  const compression = transport.compression;
  const compressMin = transport.compressMinBytes;
  const cacheControl = transport.cacheMaxAgeS > 0 ? `private, max-age=${transport.cacheMaxAgeS}` : 'no-cache';
  /** `Vary` of answers with a body: they differ by encoding (compression on) and origin (a list). */
  const vary = [cors?.varyOrigin ? 'Origin' : '', compression ? 'Accept-Encoding' : ''].filter((v) => v.length > 0).join(', ');
  const app = uWS.App();
  let inFlight = 0;
  let draining = false;
  let drained: (() => void) | null = null;
  const idPrefix = process.pid.toString(36) + '-' + Date.now().toString(36);
  let idCounter = 0;

  const finish = (state: State): void => {
    if (state.done) return;
    state.done = true;
    inFlight--;
    if (draining && inFlight === 0 && drained) drained();
  };

  /** Writes one whole response (status, headers, body) corked; never after an abort. */
  const send = (
    res: uWS.HttpResponse,
    state: State,
    r: ApiResponse,
    reqId: string,
    method: string,
    routePath: string | null,
    t0: number,
    closeConnection = false,
  ): void => {
    if (state.aborted || state.done) {
      r.release?.();
      return;
    }
    const body = r.body;
    const enc = state.enc;
    if (body !== undefined && enc !== null && body.length >= compressMin) {
      if (body.length >= ASYNC_MIN_BYTES) {
        // Large bodies on the thread pool: the event loop serves others meanwhile (D94). The pool
        // reads the body later, so it must stay as it is until then: a body with `release` (a
        // pool output slot, a merged answer) is held until the compression is done; any other
        // Buffer may be a view of memory the next request reuses (the station page writer's
        // scratch buffer) and is copied first.
        const held = r.release !== undefined;
        const input = typeof body === 'string' ? Buffer.from(body) : held ? body : Buffer.from(body);
        compressAsync(input, enc).then(
          (out) => {
            r.release?.();
            write(res, state, r, out, enc, reqId, method, routePath, t0, closeConnection);
          },
          (e: unknown) => {
            log.warn({ reqId, err: e }, 'compression failed; answered uncompressed');
            write(res, state, r, input, null, reqId, method, routePath, t0, closeConnection);
            r.release?.();
          },
        );
        return;
      }
      let out: Buffer;
      try {
        out = compressSync(body, enc);
      } finally {
        r.release?.();
      }
      write(res, state, r, out, enc, reqId, method, routePath, t0, closeConnection);
      return;
    }
    try {
      write(res, state, r, body, null, reqId, method, routePath, t0, closeConnection);
    } finally {
      // uWS has written the body, or copied what the socket did not take yet.
      r.release?.();
    }
  };

  /** Status, headers and body in one corked write (D93–D95 headers on every answer). */
  const write = (
    res: uWS.HttpResponse,
    state: State,
    r: ApiResponse,
    body: string | Buffer | undefined,
    enc: Encoding | null,
    reqId: string,
    method: string,
    routePath: string | null,
    t0: number,
    closeConnection: boolean,
  ): void => {
    if (state.aborted || state.done) return;
    res.cork(() => {
      res.writeStatus(statusLine(r.status));
      res.writeHeader('X-Request-Id', reqId);
      if (state.origin !== null) {
        res.writeHeader('Access-Control-Allow-Origin', state.origin);
        res.writeHeader('Access-Control-Expose-Headers', EXPOSE_HEADERS);
      }
      if (r.headers) for (const k in r.headers) res.writeHeader(k, r.headers[k]);
      if (state.etag !== null && (r.status === 200 || r.status === 304)) {
        res.writeHeader('ETag', state.etag);
        res.writeHeader('Cache-Control', cacheControl);
      }
      if (body === undefined) {
        if (r.status === 304 && vary.length > 0) res.writeHeader('Vary', vary);
        // 204/304: no Content-Length at all (endWithoutBody with no arguments reports none).
        if (closeConnection) res.writeHeader('Connection', 'close');
        res.endWithoutBody();
      } else {
        if (vary.length > 0) res.writeHeader('Vary', vary);
        if (enc !== null) res.writeHeader('Content-Encoding', enc);
        // JSON unless the handler said otherwise (GET /metrics).
        if (r.headers?.['Content-Type'] === undefined) res.writeHeader('Content-Type', JSON_TYPE);
        if (state.head) {
          // endWithoutBody(length) of this uWS build closes the connection after the answer; the
          // header written by hand keeps it alive (HEAD answers carry no body either way).
          res.writeHeader('Content-Length', String(typeof body === 'string' ? Buffer.byteLength(body) : body.length));
          if (closeConnection || draining) res.writeHeader('Connection', 'close');
          res.endWithoutBody();
        } else res.end(body, closeConnection || draining);
      }
    });
    finish(state);
    const bytesOut = body === undefined || state.head ? 0 : typeof body === 'string' ? Buffer.byteLength(body) : body.length;
    const ms = Math.round((performance.now() - t0) * 1000) / 1000;
    accessLog(reqId, method, routePath, r.status, ms, state.remote, state.keyName, state.bytesIn, bytesOut);
    observe?.(method, routePath, r.status, ms, bytesOut);
  };

  const errorResponse = (e: ApiError, withCode: boolean): ApiResponse => ({
    status: e.status,
    body: errorDocument(e.errors, withCode),
    headers: e.headers ? { ...e.headers } : undefined,
  });

  const internalError = (reqId: string): ApiResponse => ({
    status: 500,
    body: errorDocument(
      [{ status: '500', code: 'INTERNAL_SERVER_ERROR', title: `internal error (request ${reqId})` } satisfies ErrorObject],
      true,
    ),
  });

  /** Group check and rate limit of the key's mask; the request as handlers see it (D109). */
  const admit = (q: Pending, mask: number): { -readonly [K in keyof ApiRequest]: ApiRequest[K] } => {
    const r = q.r;
    let groups = 0;
    if (r.groups !== null) {
      if (mask === -1) throw new ApiError('FORBIDDEN', 'api_key invalid');
      q.state.keyName = keys.nameOfKey?.(q.key) ?? null;
      let allowed = false;
      for (const g of r.groups) if ((mask & GROUP_BIT[g]) !== 0) allowed = true;
      if (!allowed) throw new ApiError('FORBIDDEN', `action ${snakeCase(r.groups[0])} not allowed`);
      // D109: after the key and group checks (403s are not counted), before the body is read.
      if (rateLimit !== undefined) {
        const wait = rateLimit(q.key, r.priceWork === true);
        if (wait > 0) throw new ApiError('TOO_MANY_REQUESTS', 'rate limit exceeded', { headers: { 'Retry-After': String(wait) } });
      }
      groups = mask;
    }
    // Mutable here only: the body is set once it has been read (one object per request).
    return {
      method: q.method,
      path: q.path,
      params: q.params,
      query: parseQueryString(q.rawQuery),
      headers: q.headers,
      groups,
      requestId: q.reqId,
      body: undefined,
    };
  };

  /** 304 from the route's validator, or 503 while price work is saturated: true when answered. */
  const answeredEarly = (res: uWS.HttpResponse, q: Pending, base: ApiRequest): boolean => {
    const r = q.r;
    if (r.cache !== undefined) {
      const validator = r.cache(base);
      if (validator !== null) {
        q.state.etag = etagOf(validator, q.path, q.rawQuery, q.headers.acceptLanguage, q.enc);
        if (q.ifNoneMatch.length > 0 && ifNoneMatchHits(q.ifNoneMatch, q.state.etag)) {
          send(res, q.state, { status: 304 }, q.reqId, q.method, r.path, q.t0);
          return true;
        }
      }
    }
    if (r.priceWork === true && priceWorkSaturated?.() === true) {
      // D106: refused before the body is read or parsed (when nothing gated the request); uWS
      // skips the unread body and keeps the connection.
      refuse(res, q.state, r, q.reqId, q.method, q.t0);
      return true;
    }
    return false;
  };

  /** Parses the body into `base`; answers 400 and returns false when it is not acceptable JSON. */
  const withBody = (res: uWS.HttpResponse, q: Pending, base: { body: unknown }, buf: Buffer): boolean => {
    try {
      base.body = parseBody(buf, q.r.bareBody === true);
      return true;
    } catch (e) {
      send(res, q.state, errorResponse(e as ApiError, !q.r.codeless), q.reqId, q.method, q.r.path, q.t0);
      return false;
    }
  };

  app.any('/*', (res, req) => {
    const t0 = performance.now();
    // Copy everything needed from req synchronously: it is invalid after this function returns.
    const method = req.getCaseSensitiveMethod().toUpperCase();
    const path = req.getUrl();
    const rawQuery = req.getQuery() ?? '';
    const headers: RequestHeaders = {
      apiKey: req.getHeader('api-key'),
      contentType: req.getHeader('content-type'),
      acceptLanguage: req.getHeader('accept-language'),
      authorization: req.getHeader('authorization'),
      crmDeviceId: req.getHeader('crm-device-id'),
    };
    const contentLength = req.getHeader('content-length');
    const sentId = req.getHeader('x-request-id');
    const reqId = sentId.length > 0 && REQUEST_ID_RE.test(sentId) ? sentId : `${idPrefix}-${(++idCounter).toString(36)}`;
    const origin = cors === null ? null : cors.allowOrigin(req.getHeader('origin'));
    const head = method === 'HEAD';
    const enc = compression ? negotiateEncoding(req.getHeader('accept-encoding')) : null;
    const ifNoneMatch = req.getHeader('if-none-match');

    const remote = Buffer.from(res.getRemoteAddressAsText()).toString();
    const state: State = { aborted: false, done: false, origin, enc, head, etag: null, remote, keyName: null, bytesIn: 0 };
    inFlight++;
    res.onAborted(() => {
      state.aborted = true;
      finish(state);
    });

    let route: RouteDef | null = null;
    try {
      if (method === 'OPTIONS') {
        preflight(res, state, path, reqId, t0);
        return;
      }
      const m = router.match(head ? 'GET' : method, path);
      if (m === null) {
        throw new ApiError('NOT_FOUND', 'route not found');
      }
      if ('allow' in m) {
        const allow: string[] = [...m.allow];
        if (allow.includes('GET')) allow.push('HEAD');
        throw new ApiError('METHOD_NOT_ALLOWED', 'method not allowed', { headers: { Allow: allow.join(', ') } });
      }
      route = m.route;
      const r = route;
      let key = '';
      let known = 0;
      // Read-your-writes (D151): an unknown key may have been created on another replica, and an
      // answer that depends on the catalog waits until this replica's view is current. Both are
      // null unless the live store is shared, and then the request continues once they settle.
      let gate: Promise<number> | null = null;
      if (r.groups !== null) {
        key = headers.apiKey.trim();
        if (key.length === 0) throw new ApiError('FORBIDDEN', 'api_key missing');
        known = keys.maskOfKey(key);
        if (known === -1) {
          gate = keys.recheck?.(key) ?? null;
          if (gate === null) throw new ApiError('FORBIDDEN', 'api_key invalid');
        }
      }
      const fence = r.fresh === true && fresh !== undefined ? fresh() : null;
      if (fence !== null) {
        const g = gate;
        gate = g === null ? fence.then(() => known) : Promise.all([g, fence]).then(([k]) => k);
      }
      const q: Pending = { r, params: m.params, key, state, method, path, rawQuery, headers, reqId, t0, enc, ifNoneMatch };
      if (gate !== null && !r.body) {
        const failed = (e: unknown): void => respondError(res, state, e, r, reqId, method, t0);
        gate.then((mask) => {
          if (state.aborted) return;
          try {
            const base = admit(q, mask);
            if (!answeredEarly(res, q, base)) dispatch(res, state, r, base, t0);
          } catch (e) {
            failed(e);
          }
        }, failed);
        return;
      }
      const base = gate === null ? admit(q, known) : null;
      if (base !== null && answeredEarly(res, q, base)) return;
      if (!r.body) {
        dispatch(res, state, r, base!, t0);
        return;
      }
      if (!acceptableMediaType(headers.contentType)) {
        throw new ApiError('UNSUPPORTED_MEDIA_TYPE', 'unsupported media type');
      }
      const declared = contentLength.length > 0 ? Number(contentLength) : 0;
      const tooLarge = (close: boolean): void =>
        send(res, state, errorResponse(new ApiError('PAYLOAD_TOO_LARGE', 'request body too large'), !r.codeless), reqId, method, r.path, t0, close);
      if (declared > bodyLimitBytes) {
        // A declared length: uWS skips exactly that many bytes after the answer, so the client
        // can send them and read the 413 (D108); beyond the drain limit the connection closes.
        tooLarge(declared > drainLimit(bodyLimitBytes));
        return;
      }
      // The body is read at once (uWS hands it over only to a reader attached now); a gate is
      // awaited after it, then the checks run as they would have before it.
      readBody(res, state, bodyLimitBytes, (buf, close) => {
        if (buf === null) {
          tooLarge(close);
          return;
        }
        if (base !== null) {
          if (withBody(res, q, base, buf)) dispatch(res, state, r, base, t0);
          return;
        }
        const failed = (e: unknown): void => respondError(res, state, e, r, reqId, method, t0);
        gate!.then((mask) => {
          if (state.aborted) return;
          try {
            const b = admit(q, mask);
            if (!answeredEarly(res, q, b) && withBody(res, q, b, buf)) dispatch(res, state, r, b, t0);
          } catch (e) {
            failed(e);
          }
        }, failed);
      });
    } catch (e) {
      respondError(res, state, e, route, reqId, method, t0);
    }
  });

  /** Refused requests waiting for their answer to be due (D106), oldest first. */
  let held: { res: uWS.HttpResponse; state: State; route: RouteDef; reqId: string; method: string; t0: number }[] = [];
  let heldTimer: NodeJS.Timeout | null = null;
  const flushHeld = (all: boolean): void => {
    const now = performance.now();
    let k = 0;
    for (; k < held.length; k++) {
      const h = held[k];
      if (!all && now - h.t0 < refusalDelayMs) break;
      send(h.res, h.state, errorResponse(overloadedError(), !h.route.codeless), h.reqId, h.method, h.route.path, h.t0);
    }
    held = k === held.length ? [] : held.slice(k);
    if (held.length === 0 && heldTimer !== null) {
      clearInterval(heldTimer);
      heldTimer = null;
    }
  };
  const refuse = (res: uWS.HttpResponse, state: State, route: RouteDef, reqId: string, method: string, t0: number): void => {
    if (refusalDelayMs <= 0 || draining) {
      send(res, state, errorResponse(overloadedError(), !route.codeless), reqId, method, route.path, t0);
      return;
    }
    held.push({ res, state, route, reqId, method, t0 });
    heldTimer ??= setInterval(() => flushHeld(false), Math.max(5, Math.min(50, refusalDelayMs / 4)));
  };

  /** CORS preflight (D93): a known path answers 204 with its methods, no key needed; unknown paths 404. */
  const preflight = (res: uWS.HttpResponse, state: State, path: string, reqId: string, t0: number): void => {
    const methods = router.methodsAt(path);
    if (methods === null) throw new ApiError('NOT_FOUND', 'route not found');
    const list: string[] = [...methods];
    if (list.includes('GET')) list.push('HEAD');
    list.push('OPTIONS');
    const allow = list.join(', ');
    const h: Record<string, string> = { Allow: allow };
    if (state.origin !== null) {
      h['Access-Control-Allow-Methods'] = allow;
      h['Access-Control-Allow-Headers'] = ALLOW_HEADERS;
      h['Access-Control-Max-Age'] = String(MAX_AGE_S);
    }
    if (cors?.varyOrigin) h.Vary = 'Origin';
    send(res, state, { status: 204, headers: h }, reqId, 'OPTIONS', path, t0);
  };

  const respondError = (
    res: uWS.HttpResponse,
    state: State,
    e: unknown,
    route: RouteDef | null,
    reqId: string,
    method: string,
    t0: number,
  ): void => {
    const known = e instanceof ApiError ? e : (mapError?.(e) ?? null);
    if (known !== null) {
      send(res, state, errorResponse(known, !(route?.codeless ?? false)), reqId, method, route?.path ?? null, t0);
    } else {
      log.error({ reqId, method, route: route?.path ?? null, err: e }, 'unhandled error');
      send(res, state, internalError(reqId), reqId, method, route?.path ?? null, t0);
    }
  };

  const dispatch = (res: uWS.HttpResponse, state: State, route: RouteDef, req: ApiRequest, t0: number): void => {
    let out: ApiResponse | Promise<ApiResponse>;
    try {
      out = route.handler(req);
    } catch (e) {
      respondError(res, state, e, route, req.requestId, req.method, t0);
      return;
    }
    if (out instanceof Promise) {
      out.then(
        (r) => send(res, state, r, req.requestId, req.method, route.path, t0),
        (e: unknown) => respondError(res, state, e, route, req.requestId, req.method, t0),
      );
    } else {
      send(res, state, out, req.requestId, req.method, route.path, t0);
    }
  };

  return new Promise((resolve, reject) => {
    const onListen = (token: uWS.us_listen_socket | false): void => {
      if (!token) {
        // uWS does not say why; a port that is free but not ours to bind is rare next to a taken one.
        reject(port !== 0 ? new PortInUseError(host, port) : new Error(`cannot listen on ${host}:${port}`));
        return;
      }
      const listenSocket = token;
      const boundPort = uWS.us_socket_local_port(token as unknown as uWS.us_socket);
      resolve({
        port: boundPort,
        inFlight: () => inFlight,
        setRoutes: (routes) => {
          router = new Router(routes);
        },
        close: (timeoutMs: number) =>
          new Promise<void>((done) => {
            draining = true;
            uWS.us_listen_socket_close(listenSocket);
            flushHeld(true);
            const end = (): void => {
              clearTimeout(timer);
              // Let the last response leave before closing the remaining (idle) connections.
              setImmediate(() => {
                app.close();
                done();
              });
            };
            const timer = setTimeout(end, timeoutMs);
            if (inFlight === 0) end();
            else drained = end;
          }),
      });
    };
    // D97: exclusive by default, so a second instance cannot silently take part of the traffic.
    const listen = app.listen as unknown as (h: string, p: number, options: number, cb: (t: uWS.us_listen_socket | false) => void) => void;
    if (transport.reusePort) app.listen(host, port, onListen);
    else listen.call(app, host, port, (uWS as unknown as { LIBUS_LISTEN_EXCLUSIVE_PORT: number }).LIBUS_LISTEN_EXCLUSIVE_PORT, onListen);
  });
}

/**
 * How much of an oversized body is read (and dropped) so that the client, which is still sending,
 * can read the 413 (D108): 4 × the limit, at least 64 MiB. Past it the 413 closes the connection.
 */
const drainLimit = (limit: number): number => Math.max(64 * 1024 * 1024, 4 * limit);

/**
 * Reads the body, copying each chunk (uWS reuses the ArrayBuffer); null when over the limit. A
 * body without a declared length (chunked) that goes over the limit is read on and dropped until
 * it ends, then refused, so the client reads the 413 instead of a reset (`close` false); one that
 * is still sending at the drain limit is refused with the connection closed (`close` true).
 */
function readBody(res: uWS.HttpResponse, state: State, limit: number, cb: (buf: Buffer | null, close: boolean) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  let over = false;
  const drain = drainLimit(limit);
  res.onData((ab, isLast) => {
    if (state.aborted || state.done) return;
    size += ab.byteLength;
    state.bytesIn = size;
    if (over || size > limit) {
      if (!over) {
        over = true;
        chunks.length = 0;
      }
      if (isLast) cb(null, false);
      else if (size > drain) cb(null, true);
      return;
    }
    chunks.push(Buffer.from(ab.slice(0)));
    if (isLast) cb(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size), false);
  });
}

/** D8: the body must be a JSON object with a `data` object (any object on `bareBody` routes). */
function parseBody(buf: Buffer, bare: boolean): unknown {
  if (buf.length === 0) throw new ApiError('BAD_REQUEST', 'request body is required', { source: { pointer: '' } });
  const deep = tooDeep(buf);
  let v: unknown;
  try {
    v = JSON.parse(buf.toString('utf8'));
  } catch {
    throw new ApiError('BAD_REQUEST', 'malformed JSON in request body');
  }
  if (deep) {
    throw new ApiError('BAD_REQUEST', `request body nests deeper than ${MAX_DEPTH} levels`, { source: { pointer: deepPointer(v) ?? '' } });
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) {
    throw new ApiError('BAD_REQUEST', 'request body must be a JSON object', { source: { pointer: '' } });
  }
  if (bare) return v;
  const data = (v as { data?: unknown }).data;
  if (data === null || data === undefined || typeof data !== 'object' || Array.isArray(data)) {
    throw new ApiError('BAD_REQUEST', 'request body must have a data object', { source: { pointer: '/data' } });
  }
  return v;
}
