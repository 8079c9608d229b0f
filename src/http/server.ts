/**
 * The socket transport on uWebSockets.js (the only importer of it): listens, copies each request
 * head synchronously (uWS invalidates it after the callback) and hands it to the request pipeline
 * (src/http/pipeline.ts) with uWS's response as the sink. Draining and closing on shutdown.
 */
import './uws-env.js';
import uWS from 'uWebSockets.js';
import type { RouteDef } from '../api/types.js';
import { Pipeline, type KeyLookup, type PipelineOptions } from './pipeline.js';

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
  app.any('/*', (res, req) => {
    // Copy everything needed from req synchronously: it is invalid after this function returns.
    const contentLength = req.getHeader('content-length');
    pipeline.handle(res, {
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
    });
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
