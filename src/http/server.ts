/**
 * The socket transport on uWebSockets.js (the only importer of it): listens, copies each request
 * head synchronously (uWS invalidates it after the callback) and hands it to the request pipeline
 * (src/http/pipeline.ts) with uWS's response as the sink. Draining and closing on shutdown.
 */
import './uws-env.js';
import uWS from 'uWebSockets.js';
import type { RouteDef } from '../api/types.js';
import { Pipeline, type KeyLookup, type PipelineOptions } from './pipeline.js';
import type { RequestHead } from './exchange.js';

export type { KeyLookup };

/**
 * The pipeline's options; the browser transport settings (D93–D97) default to CORS for any
 * origin, no compression and 60 s caching.
 */
export type ServerOptions = Omit<PipelineOptions, TransportSetting | 'refusalDelayMs'> &
  Partial<Pick<PipelineOptions, TransportSetting | 'refusalDelayMs'>>;
type TransportSetting = 'corsOrigins' | 'compression' | 'compressMinBytes' | 'cacheMaxAgeS';

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
  /** The request pipeline behind the socket (in-process requests: src/http/inject.ts). */
  readonly pipeline: Pipeline;
  /** Stops accepting, lets in-flight requests finish (at most `timeoutMs`), then closes all connections. */
  close(timeoutMs: number): Promise<void>;
  inFlight(): number;
  /** Connections open now, and accepted since start (uWS's connection filter; D228). */
  connections(): { open: number; accepted: number };
  /**
   * Replaces the route table (snapshot swap): requests that arrive afterwards are routed to the new
   * handlers; requests already routed finish in the old ones.
   */
  setRoutes(routes: readonly RouteDef[]): void;
}

/**
 * D179: uWS frames the body by the first Content-Length; a proxy in front may use another. Only
 * a head with a length pays for this walk over its headers (1.1 µs for twelve headers, measured
 * in a uWS handler; a POST's own work is 100 µs and more).
 */
function lengthsDiffer(req: uWS.HttpRequest, first: string): boolean {
  let differ = false;
  req.forEach((name, value) => {
    if (name === 'content-length' && value !== first) differ = true;
  });
  return differ;
}

/**
 * The request head as the pipeline needs it, one `getHeader` per field: the straightforward form
 * of `copyHead`, which test/http/request-head.test.ts holds it equal to.
 */
export function copyHeadByName(res: uWS.HttpResponse, req: uWS.HttpRequest, tracing: boolean): RequestHead {
  const contentLength = req.getHeader('content-length');
  return {
    method: req.getCaseSensitiveMethod().toUpperCase(),
    path: req.getUrl(),
    rawQuery: req.getQuery() ?? '',
    headers: {
      apiKey: req.getHeader('api-key'),
      contentType: req.getHeader('content-type'),
      acceptLanguage: req.getHeader('accept-language'),
      authorization: req.getHeader('authorization'),
      crmDeviceId: req.getHeader('crm-device-id'),
      host: req.getHeader('host'),
      forwardedProto: req.getHeader('x-forwarded-proto'),
      forwardedFor: req.getHeader('x-forwarded-for'),
    },
    contentLength,
    lengthConflict: contentLength.length > 0 && lengthsDiffer(req, contentLength),
    xRequestId: req.getHeader('x-request-id'),
    origin: req.getHeader('origin'),
    acceptEncoding: req.getHeader('accept-encoding'),
    accept: req.getHeader('accept'),
    ifNoneMatch: req.getHeader('if-none-match'),
    remote: Buffer.from(res.getRemoteAddressAsText()).toString(),
    traceparent: tracing ? req.getHeader('traceparent') : '',
    tracestate: tracing ? req.getHeader('tracestate') : '',
  };
}

/**
 * The header fields of one head, filled by one walk over its headers (D285). Each field holds
 * the first header of its name, as `getHeader` answers; `lengthConflict` says that a later
 * Content-Length differs from the first (D179). One instance per server, reset per request.
 */
export class HeadFields {
  apiKey: string | undefined = undefined;
  contentType: string | undefined = undefined;
  acceptLanguage: string | undefined = undefined;
  authorization: string | undefined = undefined;
  crmDeviceId: string | undefined = undefined;
  host: string | undefined = undefined;
  forwardedProto: string | undefined = undefined;
  forwardedFor: string | undefined = undefined;
  contentLength: string | undefined = undefined;
  lengthConflict = false;
  xRequestId: string | undefined = undefined;
  origin: string | undefined = undefined;
  acceptEncoding: string | undefined = undefined;
  accept: string | undefined = undefined;
  ifNoneMatch: string | undefined = undefined;
  traceparent: string | undefined = undefined;
  tracestate: string | undefined = undefined;

  /** The last client address seen, as uWS's bytes (4 or 16) and as text (D297). */
  private readonly lastAddress = new Uint8Array(16);
  private lastAddressLength = -1;
  private lastAddressText = '';

  /**
   * The client's address as text (D297): uWS's bytes of it compared with the last address
   * seen, whose text is kept; only another address is turned to text (as `copyHeadByName` reads
   * it). Consecutive requests mostly come from one address (a proxy, keep-alive connections).
   */
  remote(res: uWS.HttpResponse): string {
    const b = new Uint8Array(res.getRemoteAddress());
    const n = b.length;
    const last = this.lastAddress;
    let same = n === this.lastAddressLength;
    for (let k = 0; same && k < n; k++) same = b[k] === last[k];
    if (same) return this.lastAddressText;
    this.lastAddressText = Buffer.from(res.getRemoteAddressAsText()).toString();
    if (n <= 16) {
      last.set(b);
      this.lastAddressLength = n;
    } else this.lastAddressLength = -1;
    return this.lastAddressText;
  }

  reset(): void {
    this.apiKey = this.contentType = this.acceptLanguage = this.authorization = this.crmDeviceId = undefined;
    this.host = this.forwardedProto = this.forwardedFor = this.contentLength = this.xRequestId = undefined;
    this.origin = this.acceptEncoding = this.accept = this.ifNoneMatch = this.traceparent = this.tracestate = undefined;
    this.lengthConflict = false;
  }

  /** One header (uWS gives names in lower case). */
  readonly take = (name: string, value: string): void => {
    switch (name) {
      case 'api-key':
        this.apiKey ??= value;
        break;
      case 'accept':
        this.accept ??= value;
        break;
      case 'accept-encoding':
        this.acceptEncoding ??= value;
        break;
      case 'accept-language':
        this.acceptLanguage ??= value;
        break;
      case 'if-none-match':
        this.ifNoneMatch ??= value;
        break;
      case 'content-type':
        this.contentType ??= value;
        break;
      case 'content-length':
        if (this.contentLength === undefined) this.contentLength = value;
        else if (value !== this.contentLength) this.lengthConflict = true;
        break;
      default:
        this.takeRare(name, value);
    }
  };

  private takeRare(name: string, value: string): void {
    switch (name) {
      case 'host':
        this.host ??= value;
        break;
      case 'origin':
        this.origin ??= value;
        break;
      case 'x-request-id':
        this.xRequestId ??= value;
        break;
      case 'authorization':
        this.authorization ??= value;
        break;
      case 'crm-device-id':
        this.crmDeviceId ??= value;
        break;
      case 'x-forwarded-proto':
        this.forwardedProto ??= value;
        break;
      case 'x-forwarded-for':
        this.forwardedFor ??= value;
        break;
      case 'traceparent':
        this.traceparent ??= value;
        break;
      case 'tracestate':
        this.tracestate ??= value;
        break;
    }
  }
}

/**
 * The request head as the pipeline needs it, its headers read in one walk (D285): uWS's
 * `forEach` hands each header once, where a `getHeader` per field searched the head fourteen
 * times (3.0 µs per request against 1.0 µs for a client sending four headers, measured in a uWS
 * handler; alike for a browser's dozen). `fields` is the server's one HeadFields.
 */
export function copyHead(res: uWS.HttpResponse, req: uWS.HttpRequest, tracing: boolean, fields: HeadFields = new HeadFields()): RequestHead {
  const f = fields;
  f.reset();
  req.forEach(f.take);
  const contentLength = f.contentLength ?? '';
  return {
    method: req.getCaseSensitiveMethod().toUpperCase(),
    path: req.getUrl(),
    rawQuery: req.getQuery() ?? '',
    headers: {
      apiKey: f.apiKey ?? '',
      contentType: f.contentType ?? '',
      acceptLanguage: f.acceptLanguage ?? '',
      authorization: f.authorization ?? '',
      crmDeviceId: f.crmDeviceId ?? '',
      host: f.host ?? '',
      forwardedProto: f.forwardedProto ?? '',
      forwardedFor: f.forwardedFor ?? '',
    },
    contentLength,
    lengthConflict: contentLength.length > 0 && f.lengthConflict,
    xRequestId: f.xRequestId ?? '',
    origin: f.origin ?? '',
    acceptEncoding: f.acceptEncoding ?? '',
    accept: f.accept ?? '',
    ifNoneMatch: f.ifNoneMatch ?? '',
    remote: f.remote(res),
    traceparent: tracing ? (f.traceparent ?? '') : '',
    tracestate: tracing ? (f.tracestate ?? '') : '',
  };
}


/** Listens on host:port; `reusePort` shares the port with other processes (SO_REUSEPORT, D97). */
export function startServer(host: string, port: number, opts: ServerOptions, reusePort = false): Promise<HttpServer> {
  const pipeline = new Pipeline({ corsOrigins: '*', compression: false, compressMinBytes: 1024, cacheMaxAgeS: 60, refusalDelayMs: 0, ...opts });
  const app = uWS.App();
  const tracing = opts.tracing != null;
  // D228: +1 when a connection opens, −1 when it closes; nothing per request.
  const conns = { open: 0, accepted: 0 };
  app.filter((_res, count) => {
    conns.open += Number(count);
    if (Number(count) > 0) conns.accepted++;
  });
  const fields = new HeadFields();
  app.any('/*', (res, req) => {
    // Copy everything needed from req synchronously: it is invalid after this function returns.
    pipeline.handle(res, copyHead(res, req, tracing, fields));
  });

  return new Promise((resolve, reject) => {
    const onListen = (token: uWS.us_listen_socket | false): void => {
      if (!token) {
        // uWS does not say why; a port that is free but not ours to bind is rare next to a taken one.
        reject(port !== 0 ? new PortInUseError(host, port) : new Error(`cannot listen on ${host}:${port}`));
        return;
      }
      const listenSocket = token;
      const boundPort = uWS.us_socket_local_port(token);
      resolve({
        port: boundPort,
        pipeline,
        inFlight: () => pipeline.inFlight(),
        connections: () => conns,
        setRoutes: (routes) => pipeline.setRoutes(routes),
        close: (timeoutMs: number) =>
          new Promise<void>((done) => {
            uWS.us_listen_socket_close(listenSocket);
            let ended = false;
            const end = (): void => {
              if (ended) return;
              ended = true;
              clearTimeout(timer);
              // Let the last response leave before closing the remaining (idle) connections.
              setImmediate(() => {
                app.close();
                done();
              });
            };
            const timer = setTimeout(end, timeoutMs);
            void pipeline.drain().then(end);
          }),
      });
    };
    // D97: exclusive by default, so a second instance cannot silently take part of the traffic.
    const listen = app.listen as unknown as (h: string, p: number, options: number, cb: (t: uWS.us_listen_socket | false) => void) => void;
    if (reusePort) app.listen(host, port, onListen);
    else listen.call(app, host, port, (uWS as unknown as { LIBUS_LISTEN_EXCLUSIVE_PORT: number }).LIBUS_LISTEN_EXCLUSIVE_PORT, onListen);
  });
}
