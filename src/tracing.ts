/**
 * OpenTelemetry tracing (D229), the only importer of `@opentelemetry/*`. Off by default, and then
 * not loaded at all: `TRACING=otlp` imports the SDK at start and exports spans over OTLP/HTTP (the
 * exporter reads the standard `OTEL_EXPORTER_OTLP_*` settings). Nothing is registered globally:
 * each service has its own tracer provider, and the request a span belongs to travels in this
 * module's AsyncLocalStorage, so the pool and the stores open child spans of the request that
 * called them without being handed it.
 *
 * Spans per request: a SERVER span `<METHOD> <route>` (child of the W3C `traceparent` the client
 * sent, if any) with the HTTP server semantic conventions (D251) and children `route`, `authenticate`, `body.read`, `body.parse`, `handler`, and
 * under the handler `price.queue_wait`, `price.task` (a worker's run, dispatch to answer),
 * `price.inline`, `store.read` and `store.write`.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { Context, Span, Tracer } from '@opentelemetry/api';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';

export type { SpanExporter };

export type TracingMode = 'off' | 'otlp';

export interface TracingOptions {
  mode: TracingMode;
  /** Share of new traces recorded (0–1); a request with a sampled `traceparent` is always recorded. */
  sampleRatio: number;
  serviceName: string;
  version: string;
  /** Spans go here instead of OTLP (tests: an in-memory exporter), exported one by one. */
  exporter?: SpanExporter;
}

/** Where a request came from and went to, for the server span's semantic conventions (D251). */
export interface RequestPeers {
  /** `http` or `https`. */
  scheme: string;
  /** `Host` as received ('' when absent). */
  host: string;
  /** The client address (D207). */
  client: string;
  /** The socket's peer. */
  peer: string;
}

/** One request's trace: its server span and the children the pipeline records. */
export interface RequestTrace {
  /** The trace's id and the server span's ('' when the request is not recorded). */
  readonly traceId: string;
  readonly spanId: string;
  /** A finished child span from `start` to `end` (performance.now() milliseconds). */
  stage(name: string, start: number, end: number): void;
  /** Runs `fn` with this request current: spans opened meanwhile (also after awaits) are its children. */
  run<T>(fn: () => T): T;
  /** Ends the server span with the route template and status of the answer. */
  end(route: string | null, status: number): void;
}

export interface Tracing {
  /** `service.instance.id` of the spans' resource: a random UUID per start. */
  readonly instanceId: string;
  /** Opens the server span of a request; `traceparent`/`tracestate` as received ('' when absent). */
  request(method: string, path: string, traceparent: string, tracestate: string, t0: number, peers: RequestPeers): RequestTrace;
  /** Exports what is pending and stops. */
  shutdown(): Promise<void>;
}

/** A child span of the current request, open until `end`. */
export interface ChildSpan {
  end(attributes?: Record<string, string | number>): void;
}

interface Current {
  tracer: Tracer;
  context: Context;
}

const current = new AsyncLocalStorage<Current>();
/** Services in this process with tracing on: while 0, `childSpan` does not even look at the storage. */
let tracingServices = 0;

/** A child span of the request running now, or null (tracing off, or no traced request current). */
export function childSpan(name: string): ChildSpan | null {
  if (tracingServices === 0) return null;
  const c = current.getStore();
  if (c === undefined) return null;
  const span = c.tracer.startSpan(name, undefined, c.context);
  return { end: (attributes) => (attributes !== undefined && span.setAttributes(attributes), span.end()) };
}

/** `fn`'s promise, inside a child span of the current request when there is one. */
export function traced<T>(name: string, fn: () => Promise<T>): Promise<T> {
  const span = childSpan(name);
  if (span === null) return fn();
  return fn().finally(() => span.end());
}

/** Starts tracing for one service, or null when off (nothing is loaded then). */
export async function startTracing(o: TracingOptions): Promise<Tracing | null> {
  if (o.mode === 'off' && o.exporter === undefined) return null;
  const api = await import('@opentelemetry/api');
  const sdk = await import('@opentelemetry/sdk-trace-base');
  const { W3CTraceContextPropagator } = await import('@opentelemetry/core');
  const { resourceFromAttributes } = await import('@opentelemetry/resources');
  const instanceId = randomUUID();
  const exporter = o.exporter ?? new (await import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter();
  const provider = new sdk.BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': o.serviceName, 'service.version': o.version, 'service.instance.id': instanceId }),
    // New traces are sampled in `request` before any span is made; a client's sampled flag is followed.
    sampler: new sdk.ParentBasedSampler({ root: new sdk.AlwaysOnSampler() }),
    spanProcessors: [o.exporter !== undefined ? new sdk.SimpleSpanProcessor(exporter) : new sdk.BatchSpanProcessor(exporter)],
  });
  const tracer = provider.getTracer('charging-price-service', o.version);
  const propagator = new W3CTraceContextPropagator();
  const getter = { keys: (c: Record<string, string>) => Object.keys(c), get: (c: Record<string, string>, k: string) => c[k] };
  tracingServices++;
  let stopped = false;
  return {
    instanceId,
    request(method, path, traceparent, tracestate, t0, peers) {
      if (traceparent.length === 0 && o.sampleRatio < 1 && Math.random() >= o.sampleRatio) return UNSAMPLED;
      const carrier: Record<string, string> = traceparent.length > 0 ? { traceparent, tracestate } : {};
      const parent = traceparent.length > 0 ? propagator.extract(api.ROOT_CONTEXT, carrier, getter) : api.ROOT_CONTEXT;
      const span = tracer.startSpan(method, { kind: api.SpanKind.SERVER, startTime: t0, attributes: serverAttributes(method, path, peers) }, parent);
      // Not sampled: no child is recorded either, so none is made (measured: 11 µs a request otherwise).
      if (!span.isRecording()) return UNSAMPLED;
      return requestTrace(api, tracer, span, api.trace.setSpan(parent, span), method);
    },
    async shutdown() {
      if (stopped) return;
      stopped = true;
      tracingServices--;
      await provider.shutdown();
    },
  };
}

type Api = typeof import('@opentelemetry/api');

/** `Host`'s name and port (IPv6 literals without their brackets); the port null when it names none. */
export function hostAndPort(host: string): [string, number | null] {
  const m = /^(\[[^\]]*\]|[^:]*)(?::(\d{1,5}))?$/.exec(host);
  if (m === null) return [host, null];
  const name = m[1].startsWith('[') ? m[1].slice(1, -1) : m[1];
  return [name, m[2] === undefined ? null : Number(m[2])];
}

/** The HTTP server semantic conventions known when a request opens (D251). */
function serverAttributes(method: string, path: string, p: RequestPeers): Record<string, string | number> {
  const a: Record<string, string | number> = { 'http.request.method': method, 'url.path': path, 'url.scheme': p.scheme, 'client.address': p.client, 'network.peer.address': p.peer };
  if (p.host.length > 0) {
    const [name, port] = hostAndPort(p.host);
    a['server.address'] = name;
    a['server.port'] = port ?? (p.scheme === 'https' ? 443 : 80);
  }
  return a;
}

/** The trace of a request that is not recorded: its stages and children cost nothing. */
const UNSAMPLED: RequestTrace = { traceId: '', spanId: '', stage: () => undefined, run: (fn) => fn(), end: () => undefined };

function requestTrace(api: Api, tracer: Tracer, span: Span, context: Context, method: string): RequestTrace {
  const here: Current = { tracer, context };
  const sc = span.spanContext();
  return {
    traceId: sc.traceId,
    spanId: sc.spanId,
    stage: (name, start, end) => tracer.startSpan(name, { startTime: start }, context).end(end),
    run: (fn) => current.run(here, fn),
    end(route, status) {
      if (route !== null) {
        span.updateName(`${method} ${route}`);
        span.setAttribute('http.route', route);
      }
      // 0: the client went away before an answer.
      if (status > 0) span.setAttribute('http.response.status_code', status);
      if (status >= 500) span.setStatus({ code: api.SpanStatusCode.ERROR });
      span.end();
    },
  };
}
