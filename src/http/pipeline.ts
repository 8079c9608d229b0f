/**
 * The request pipeline, the same for every route, with or without a body or a gate:
 *
 *   open → route → authenticate (key, group, rate limit) → gate (D151) → early answer (304, D106
 *   refusal) → read body → parse → dispatch → respond
 *
 * Each stage is a method over the request's one Exchange object. A stage answers by throwing an
 * ApiError (or by answering itself and returning false); the one catch boundary per continuation
 * hands errors to the Responder (src/http/respond.ts), the only writer of answers. The transport
 * (uWS in src/http/server.ts, or `inject` in process) copies the request head and calls `handle`.
 *
 * Order. The key is checked before the body is read (a 403 costs no body). With a shared live
 * store a key unknown here, or a route whose answer depends on the catalog, waits for the gate;
 * the body is read meanwhile (uWS hands it over only to a reader attached at once), and the
 * group check, rate limit, validator (304) and saturation check run after the gate. Without a
 * gate the early answers come before the body is read, so a refused price request costs no body.
 */
import type { AdmissionBudgets, RouteClass } from './budgets.js';
import { ApiError } from '../api/jsonapi/errors.js';
import { parseQueryString } from '../api/jsonapi/query.js';
import type { ApiResponse, RouteDef } from '../api/types.js';
import { GROUP_BIT, snakeCase } from '../auth/groups.js';
import { Router } from './router.js';
import { negotiateEncoding } from './compress.js';
import { ALLOW_HEADERS, MAX_AGE_S, corsPolicy, type CorsPolicy } from './cors.js';
import type { Tracing } from '../tracing.js';
import { schemeOf } from '../api/client-address.js';
import { clientAddress } from '../auth/client-address.js';
import type { BlockList } from 'node:net';

/** The token of `Authorization: Bearer <token>`, or ''. */
function bearerOf(h: string): string {
  const m = /^\s*bearer\s+(\S+)\s*$/i.exec(h);
  return m === null ? '' : m[1];
}

/** What a preflight of an unknown path allows (its request then gets the real 404). */
const ALL_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
import { etagOf, ifNoneMatchHits } from './conditional.js';
import { negotiate } from './negotiate.js';
import { acceptableMediaType, drainLimit, parseBody, readBody } from './body.js';
import { Exchange, type RequestHead, type ResponseSink } from './exchange.js';
import { Responder, type ResponderOptions } from './respond.js';

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

/** Rate limits per key (D24, D109, D217). */
export interface RateLimitCheck {
  /** Counts a request: 0, or the Retry-After seconds of a 429 (nothing counted). */
  take(key: string, priceWork: boolean): number;
  /** The RateLimit field of the key's answer (its windows after `take`). */
  field(key: string, priceWork: boolean): string;
  /** The RateLimit-Policy field of keyed routes and of price-work routes. */
  readonly policy: string;
  readonly pricesPolicy: string;
}

export interface PipelineOptions extends Omit<ResponderOptions, 'finished' | 'draining' | 'varyOrigin'> {
  routes: readonly RouteDef[];
  keys: KeyLookup;
  bodyLimitBytes: number;
  /** `*`, a list of origins, or null (no CORS headers). */
  corsOrigins: '*' | readonly string[] | null;
  /** D106: whether price work is saturated now (price-work routes are then refused unread). */
  priceWorkSaturated?: () => boolean;
  /** D176: admission budgets per route class (absent or null: none). */
  budgets?: AdmissionBudgets | null;
  /** D229: OpenTelemetry tracing, or null/absent (off: no span, no header read). */
  tracing?: Tracing | null;
  /** D245: the trusted proxies whose `X-Forwarded-For` names the client (the span's `client.address`, D251); null: none. */
  proxies?: BlockList | null;
  /** Rate limits per key (D24, D109, D217). Absent: no limits. */
  rateLimit?: RateLimitCheck;
  /** Read-your-writes (D151): null when this view cannot be behind, else a promise until it is current. */
  fresh?: () => Promise<void> | null;
}

/** D176: the admission class of a route. */
function classOf(r: RouteDef): RouteClass {
  if (r.admission !== undefined) return r.admission;
  if (r.priceWork === true) return 'price';
  return r.method === 'GET' ? 'read' : 'write';
}

const REQUEST_ID_RE = /^[A-Za-z0-9._:-]{1,128}$/;
/** The longest request target (path and query as sent) the service reads (D283). */
export const MAX_TARGET_BYTES = 8192;

export class Pipeline {
  private router: Router;
  readonly responder: Responder;
  private readonly cors: CorsPolicy | null;
  private inFlightCount = 0;
  /** Requests refused 403 by the key check since start, by reason (metrics, D120). */
  readonly authRefused = { missing: 0, invalid: 0, group: 0 };
  private draining = false;
  private drained: (() => void) | null = null;
  private readonly idPrefix = process.pid.toString(36) + '-' + Date.now().toString(36);
  private idCounter = 0;
  // Stages must not keep `o`: it holds the first route table, which would keep the first
  // snapshot's station data alive after a snapshot swap (routes live in `router` only).
  private readonly o: Omit<PipelineOptions, 'routes'>;

  constructor(opts: PipelineOptions) {
    const { routes, ...rest } = opts;
    this.o = rest;
    this.router = new Router(routes);
    this.cors = corsPolicy(opts.corsOrigins);
    this.responder = new Responder({
      ...rest,
      varyOrigin: this.cors?.varyOrigin ?? false,
      finished: (ex) => this.finished(ex),
      draining: () => this.draining,
    });
  }

  /** Requests routed from now on go to these handlers; those already routed finish in the old ones. */
  setRoutes(routes: readonly RouteDef[]): void {
    this.router = new Router(routes);
  }

  inFlight(): number {
    return this.inFlightCount;
  }

  /** Answers from now on close their connections; resolves when no request is in flight. */
  drain(): Promise<void> {
    this.draining = true;
    this.responder.flushHeld(true);
    if (this.inFlightCount === 0) return Promise.resolve();
    return new Promise((resolve) => (this.drained = resolve));
  }

  private finished(ex: Exchange): void {
    if (ex.entered) this.o.budgets?.leave(ex.cls);
    ex.trace?.end(ex.routePath, ex.status);
    this.inFlightCount--;
    if (this.draining && this.inFlightCount === 0 && this.drained !== null) this.drained();
  }

  /** One request, from its copied head to its answer. */
  handle(res: ResponseSink, h: RequestHead): void {
    const ex = this.open(res, h);
    try {
      this.stages(ex, h);
    } finally {
      const b = this.o.budgets;
      if (b) {
        // A refusal is no service the class used (D176).
        if (!ex.refused) b.chargeCpu(ex.cls, performance.now() - ex.t0);
        // Still in progress: its class has demand until it is answered (D176).
        if (!ex.done && !ex.aborted && !ex.refused) {
          ex.entered = true;
          b.enter(ex.cls);
        }
      }
    }
  }

  private stages(ex: Exchange, h: RequestHead): void {
    try {
      if (h.lengthConflict === true) {
        // The body's end is unknown, so the connection cannot carry another request.
        this.responder.fail(ex, new ApiError('BAD_REQUEST', 'conflicting Content-Length headers'), true);
        return;
      }
      // D283: as nginx answers a request line over its 8 KiB buffers, so that a page's links fit a head.
      if (h.path.length + (h.rawQuery.length > 0 ? h.rawQuery.length + 1 : 0) > MAX_TARGET_BYTES) throw new ApiError('URI_TOO_LONG', `request target longer than ${MAX_TARGET_BYTES} bytes`);
      if (!this.route(ex)) return;
      const tr = ex.trace;
      const t = tr === null ? 0 : performance.now();
      tr?.stage('route', ex.t0, t);
      this.authenticate(ex);
      tr?.stage('authenticate', t, performance.now());
      this.gate(ex);
      if (ex.gate === null && this.answeredEarly(ex)) return;
      if (ex.route!.body) this.readBody(ex);
      else this.afterBody(ex);
    } catch (e) {
      this.responder.fail(ex, e);
    }
  }

  /** The Exchange: request id (the client's when well-formed), CORS origin, encoding. */
  private open(res: ResponseSink, h: RequestHead): Exchange {
    const id = h.xRequestId;
    const reqId = id.length > 0 && REQUEST_ID_RE.test(id) ? id : `${this.idPrefix}-${(++this.idCounter).toString(36)}`;
    const origin = this.cors === null ? null : this.cors.allowOrigin(h.origin);
    const enc = this.o.compression ? negotiateEncoding(h.acceptEncoding) : null;
    const ex = new Exchange(res, h.method, h.path, h.rawQuery, h.headers, h.contentLength, reqId, performance.now(), origin, enc, h.ifNoneMatch, h.remote);
    ex.crossOrigin = h.origin.length > 0;
    ex.accept = h.accept;
    ex.format = negotiate(h.accept, undefined);
    if (this.o.tracing) {
      const hh = h.headers;
      const peers = { scheme: schemeOf(hh.forwardedProto), host: hh.host, client: clientAddress(h.remote, hh.forwardedFor, this.o.proxies ?? null), peer: h.remote };
      ex.trace = this.o.tracing.request(h.method, h.path, h.traceparent ?? '', h.tracestate ?? '', ex.t0, peers);
    }
    this.inFlightCount++;
    res.onAborted(() => this.responder.aborted(ex));
    return ex;
  }

  /** 404, 405 with `Allow`, or the CORS preflight (D93); true when a route matched. */
  private route(ex: Exchange): boolean {
    if (ex.method === 'OPTIONS') {
      this.preflight(ex);
      return false;
    }
    const m = this.router.match(ex.head ? 'GET' : ex.method, ex.path);
    if (m === null) throw new ApiError('NOT_FOUND', 'route not found');
    if ('allow' in m) {
      const allow: string[] = [...m.allow];
      if (allow.includes('GET')) allow.push('HEAD');
      throw new ApiError('METHOD_NOT_ALLOWED', 'method not allowed', { headers: { Allow: allow.join(', ') } });
    }
    ex.route = m.route;
    ex.params = m.params;
    ex.cls = classOf(m.route);
    const r = m.route;
    if (r.notJsonApi === true || r.bareBody === true || r.clientErrors === true) {
      ex.format = 'json';
      ex.negotiated = false;
    } else if (r.formats !== undefined) ex.format = negotiate(ex.accept, r.formats);
    // D263: a CSV export is its own admission class, whatever its route's.
    if (ex.format === 'csv') ex.cls = 'export';
    // D236: JSON:API asked for only with a parameter it forbids.
    if (ex.format === null) throw new ApiError('NOT_ACCEPTABLE', 'Accept names application/vnd.api+json only with media type parameters other than profile');
    return true;
  }

  /**
   * A known path answers 204 with its methods, no key needed. An unknown path: 204 with every
   * method for an allowed origin, so that the browser sends the request and shows its 404 (D93);
   * 404 otherwise.
   */
  private preflight(ex: Exchange): void {
    const at = this.router.methodsAt(ex.path);
    if (at === null && (ex.origin === null || !ex.crossOrigin)) throw new ApiError('NOT_FOUND', 'route not found');
    ex.label = at === null ? null : at.template;
    ex.cls = 'preflight';
    if (this.o.budgets?.admit('preflight') === false) {
      this.responder.refuse(ex);
      return;
    }
    const list: string[] = at === null ? [...ALL_METHODS] : [...at.allow];
    if (list.includes('GET')) list.push('HEAD');
    list.push('OPTIONS');
    const allow = list.join(', ');
    const h: Record<string, string> = { Allow: allow };
    if (ex.origin !== null) {
      h['Access-Control-Allow-Methods'] = allow;
      h['Access-Control-Allow-Headers'] = ALLOW_HEADERS;
      h['Access-Control-Max-Age'] = String(MAX_AGE_S);
    }
    if (this.cors?.varyOrigin) h.Vary = 'Origin';
    this.responder.send(ex, { status: 204, headers: h });
  }

  /**
   * The API key (403 when missing or unknown). A known key is admitted at once; a key unknown
   * here may have been created on another replica (D151): the gate rechecks it.
   */
  private authenticate(ex: Exchange): void {
    const r = ex.route!;
    if (r.groups === null) {
      this.admit(ex, 0);
      return;
    }
    ex.key = ex.headers.apiKey.trim();
    // Scrapers that send only a bearer token (Prometheus' authorization) give the key that way (D120).
    if (ex.key.length === 0 && r.keyAsBearer === true) ex.key = bearerOf(ex.headers.authorization);
    if (ex.key.length === 0) {
      this.authRefused.missing++;
      throw new ApiError('FORBIDDEN', 'api_key missing');
    }
    const mask = (ex.mask = this.o.keys.maskOfKey(ex.key));
    if (mask !== -1) {
      this.admit(ex, mask);
      return;
    }
    ex.gate = this.o.keys.recheck?.(ex.key) ?? null;
    if (ex.gate === null) {
      this.authRefused.invalid++;
      throw new ApiError('FORBIDDEN', 'api_key invalid');
    }
  }

  /** Group check and rate limit (D109: after the 403s, before the body); builds the request. */
  private admit(ex: Exchange, mask: number): void {
    const r = ex.route!;
    if (r.groups !== null) {
      if (mask === -1) {
        this.authRefused.invalid++;
        throw new ApiError('FORBIDDEN', 'api_key invalid');
      }
      ex.keyName = this.o.keys.nameOfKey?.(ex.key) ?? null;
      let allowed = false;
      for (const g of r.groups) if ((mask & GROUP_BIT[g]) !== 0) allowed = true;
      if (!allowed) {
        this.authRefused.group++;
        throw new ApiError('FORBIDDEN', `action ${snakeCase(r.groups[0])} not allowed`);
      }
      const limits = this.o.rateLimit;
      // Counted by the key's name (unique in the store, alike on every replica, D218; never the key itself).
      const id = ex.keyName ?? '';
      if (limits !== undefined && id !== '') {
        const priceWork = r.priceWork === true;
        const wait = limits.take(id, priceWork);
        ex.rateLimit = limits.field(id, priceWork);
        ex.rateLimitPolicy = priceWork ? limits.pricesPolicy : limits.policy;
        if (wait > 0) throw new ApiError('TOO_MANY_REQUESTS', 'rate limit exceeded', { headers: { 'Retry-After': String(wait) } });
      }
    }
    ex.req = {
      method: ex.method,
      path: ex.path,
      params: ex.params,
      query: parseQueryString(ex.rawQuery),
      headers: ex.headers,
      groups: r.groups === null ? 0 : mask,
      keyName: ex.keyName,
      requestId: ex.reqId,
      remote: ex.remote,
      body: undefined,
      format: ex.format!,
    };
  }

  /** Read-your-writes (D151): a route whose answer depends on the catalog waits for a current view. */
  private gate(ex: Exchange): void {
    const fence = ex.route!.fresh === true && this.o.fresh !== undefined ? this.o.fresh() : null;
    if (fence === null) return;
    const keyGate = ex.gate;
    const mask = ex.mask;
    ex.gate = keyGate === null ? fence.then(() => mask) : Promise.all([keyGate, fence]).then(([k]) => k);
  }

  /** 304 from the route's validator, or the D106 refusal while price work is saturated: true when answered. */
  private answeredEarly(ex: Exchange): boolean {
    const r = ex.route!;
    if (r.cache !== undefined) {
      const validator = r.cache(ex.req!);
      if (validator !== null) {
        ex.etag = etagOf(validator, ex.path, ex.rawQuery, ex.headers.acceptLanguage, ex.enc, ex.format!);
        if (ex.ifNoneMatch.length > 0 && ifNoneMatchHits(ex.ifNoneMatch, ex.etag)) {
          this.responder.send(ex, { status: 304 });
          return true;
        }
      }
    }
    if (this.o.budgets?.admit(ex.cls) === false) {
      // D176: this class used more than its share while the service is saturated.
      this.responder.refuse(ex);
      return true;
    }
    if (r.priceWork === true && r.answersWhenSaturated !== true && this.o.priceWorkSaturated?.() === true) {
      // Refused before the body is read or parsed (when nothing gated the request); uWS skips
      // the unread body and keeps the connection.
      this.responder.refuse(ex);
      return true;
    }
    return false;
  }

  /** 415 and 413 from the head, then the body off the transport; continues once it is all read. */
  private readBody(ex: Exchange): void {
    if (!acceptableMediaType(ex.headers.contentType)) throw new ApiError('UNSUPPORTED_MEDIA_TYPE', 'unsupported media type');
    const limit = this.o.bodyLimitBytes;
    const declared = ex.contentLength.length > 0 ? Number(ex.contentLength) : 0;
    if (declared > limit) {
      // A declared length: uWS skips exactly that many bytes after the answer, so the client
      // can send them and read the 413 (D108); beyond the drain limit the connection closes.
      this.responder.fail(ex, new ApiError('PAYLOAD_TOO_LARGE', 'request body too large'), declared > drainLimit(limit));
      return;
    }
    const started = ex.trace === null ? 0 : performance.now();
    readBody(ex, limit, (buf, close) => {
      const t = performance.now();
      ex.trace?.stage('body.read', started, t);
      if (buf === null) this.responder.fail(ex, new ApiError('PAYLOAD_TOO_LARGE', 'request body too large'), close);
      else {
        ex.raw = buf;
        this.afterBody(ex);
      }
      this.o.budgets?.chargeCpu(ex.cls, performance.now() - t);
    });
  }

  private afterBody(ex: Exchange): void {
    const gate = ex.gate;
    if (gate === null) {
      this.dispatch(ex);
      return;
    }
    gate.then(
      (mask) => {
        const t = performance.now();
        this.afterGate(ex, mask);
        this.o.budgets?.chargeCpu(ex.cls, performance.now() - t);
      },
      (e: unknown) => this.responder.fail(ex, e),
    );
  }

  /** After the gate: the stages that had to wait for a current view, then dispatch. */
  private afterGate(ex: Exchange, mask: number): void {
    if (ex.aborted) return;
    try {
      if (ex.req === null) this.admit(ex, mask);
      if (!this.answeredEarly(ex)) this.dispatch(ex);
    } catch (e) {
      this.responder.fail(ex, e);
    }
  }

  /** Parses the body (body routes), calls the handler, and hands its answer to the Responder. */
  private dispatch(ex: Exchange): void {
    let out: ApiResponse | Promise<ApiResponse>;
    const tr = ex.trace;
    let h0 = 0;
    try {
      const req = ex.req!;
      if (ex.raw !== null) {
        const p0 = tr === null ? 0 : performance.now();
        req.body = parseBody(ex.raw, ex.route!.bareBody === true);
        ex.raw = null;
        tr?.stage('body.parse', p0, performance.now());
      }
      const handler = ex.route!.handler;
      if (tr === null) out = handler(req);
      else {
        h0 = performance.now();
        out = tr.run(() => handler(req));
      }
    } catch (e) {
      if (h0 > 0) tr?.stage('handler', h0, performance.now());
      this.responder.fail(ex, e);
      return;
    }
    if (out instanceof Promise) {
      // D176: an ops handler (the metrics exposition) computes in microtasks without I/O, so the
      // time until its answer is main-thread time; other async handlers wait on the store.
      const started = ex.cls === 'ops' ? performance.now() : -1;
      out.then(
        (r) => {
          const t = performance.now();
          tr?.stage('handler', h0, t);
          this.responder.send(ex, r);
          this.o.budgets?.chargeCpu(ex.cls, performance.now() - (started >= 0 ? started : t));
        },
        (e: unknown) => {
          tr?.stage('handler', h0, performance.now());
          this.responder.fail(ex, e);
        },
      );
    } else {
      tr?.stage('handler', h0, performance.now());
      this.responder.send(ex, out);
    }
  }
}
