/**
 * One request on its way through the pipeline (src/http/pipeline.ts): what the transport copied
 * out of the request head, and what the stages found so far. One object per request; the stages
 * are server-scope functions over it (no closure per request).
 */
import type { RouteClass } from './budgets.js';
import type { ApiRequest, Format, RequestHeaders, RouteDef } from '../api/types.js';
import type { Encoding } from './compress.js';
import type { ErrorStyle } from '../api/jsonapi/errors.js';
import type { RequestTrace } from '../tracing.js';

/**
 * The part of a uWS `HttpResponse` the pipeline uses. The socket server hands uWS's own object;
 * the in-process `inject` (src/http/inject.ts) hands one that records the answer.
 */
export interface ResponseSink {
  cork(cb: () => void): unknown;
  writeStatus(status: string): unknown;
  writeHeader(key: string, value: string): unknown;
  end(body?: string | Uint8Array, closeConnection?: boolean): unknown;
  endWithoutBody(reportedContentLength?: number, closeConnection?: boolean): unknown;
  /** Body chunks; the ArrayBuffer is reused by the transport after the call. */
  onData(handler: (chunk: ArrayBuffer, isLast: boolean) => void): unknown;
  onAborted(handler: () => void): unknown;
}

/** What the transport copies out of the request head before the pipeline runs. */
export interface RequestHead {
  /** Upper case. */
  method: string;
  path: string;
  rawQuery: string;
  headers: RequestHeaders;
  contentLength: string;
  /** D179: the head carries two Content-Length headers that differ (the framing is unknown). */
  lengthConflict?: boolean;
  xRequestId: string;
  origin: string;
  acceptEncoding: string;
  /** `Accept` (D236). */
  accept: string;
  ifNoneMatch: string;
  remote: string;
  /** W3C trace context as received (D229; copied only while tracing is on). */
  traceparent?: string;
  tracestate?: string;
}

/** The request as handlers see it, writable by the pipeline only (the body is set once read). */
export type PipelineRequest = { -readonly [K in keyof ApiRequest]: ApiRequest[K] };

export class Exchange {
  /** Set by the route stage. */
  route: RouteDef | null = null;
  /** The admission class of D176 (set by the route stage; unknown paths count as `ops`). */
  cls: RouteClass = 'ops';
  /** Counted in its class's requests in progress (D176) until it finishes. */
  entered = false;
  /** Refused for load (D106, D176): answered 503 after the refusal delay. */
  refused = false;
  /** The route template of a preflight (logs and metrics label it by template, never by path). */
  label: string | null = null;
  /** The request named an `Origin` (a browser's cross-origin request or preflight). */
  crossOrigin = false;
  params: Record<string, string> = {};
  /** The API key as sent (trimmed), and its group mask: -1 unknown (a gate may still find it). */
  key = '';
  mask = 0;
  /** Read-your-writes (D151): settles with the key's mask once this replica's view is current. */
  gate: Promise<number> | null = null;
  /** Built by the authenticate stage (at once, or after the gate for a key not known yet). */
  req: PipelineRequest | null = null;
  /** The body as read (body routes), until it is parsed. */
  raw: Buffer | null = null;
  /** The socket went away; nothing may be written to `res` any more. */
  aborted = false;
  /** The answer was written (or dropped after an abort). */
  done = false;
  /** ETag of a cacheable answer (D95), or null. */
  etag: string | null = null;
  /** The RateLimit and RateLimit-Policy fields of a rate-limited route's answer (D217), or null. */
  rateLimit: string | null = null;
  rateLimitPolicy: string | null = null;
  /** For the access log: the name of the key used (never the key) and the body bytes read. */
  keyName: string | null = null;
  bytesIn = 0;
  /** The status answered (0 until then, and for an aborted request). */
  status = 0;
  /** `Accept` as received, and the representation chosen by it (null: 406, D236). */
  accept = '';
  format: Format | null = 'json';
  /** The answer depends on `Accept` (false for routes whose answers are no JSON:API documents). */
  negotiated = true;
  /** The request's trace while tracing is on (D229), else null. */
  trace: RequestTrace | null = null;
  readonly head: boolean;

  constructor(
    readonly res: ResponseSink,
    readonly method: string,
    readonly path: string,
    readonly rawQuery: string,
    readonly headers: RequestHeaders,
    readonly contentLength: string,
    readonly reqId: string,
    readonly t0: number,
    /** `Access-Control-Allow-Origin` of this request, or null. */
    readonly origin: string | null,
    /** Negotiated content encoding (null: identity). */
    readonly enc: Encoding | null,
    readonly ifNoneMatch: string,
    readonly remote: string,
  ) {
    this.head = method === 'HEAD';
  }

  /** The route template for logs and metrics (null before routing, or for an unknown path). */
  get routePath(): string | null {
    return this.route?.path ?? this.label;
  }

  /** How this route writes its errors (D5, D6, D201). */
  get errorStyle(): ErrorStyle {
    const r = this.route;
    return r === null ? 'jsonapi' : r.clientErrors === true ? 'client' : r.codeless === true ? 'codeless' : 'jsonapi';
  }
}
