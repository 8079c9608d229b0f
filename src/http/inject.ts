/**
 * Requests without a socket (as hono's `app.request()` and fastify's `inject()`): the whole
 * pipeline (route, key, gate, body, parse, handler, answer path with its headers, compression and
 * HEAD) runs as it does behind uWS; only the socket is left out. Used by the endpoint tests and by
 * anything in process that wants the service's answer to a request.
 */
import type { RequestHead, ResponseSink } from './exchange.js';
import type { Pipeline } from './pipeline.js';

export interface InjectRequest {
  method: string;
  /** Path with an optional `?query`. */
  url: string;
  /** Header names in any case. */
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** The client's address for the access log. */
  remote?: string;
}

export interface InjectResponse {
  status: number;
  /** Header names in lower case; a repeated header keeps its values joined by `, `. */
  headers: Record<string, string>;
  /** The body bytes as they would go on the wire (compressed when negotiated). */
  body: Buffer;
  /** The answer asked for its connection to be closed. */
  closed: boolean;
}

/** Records one answer in memory; hands the body to the pipeline in one chunk. */
class MemorySink implements ResponseSink {
  status = 0;
  readonly headers: Record<string, string> = {};
  body: Buffer = Buffer.alloc(0);
  closed = false;
  private dataHandler: ((chunk: ArrayBuffer, isLast: boolean) => void) | null = null;

  constructor(private readonly done: (r: InjectResponse) => void) {}

  cork(cb: () => void): void {
    cb();
  }
  writeStatus(status: string): void {
    this.status = Number.parseInt(status, 10);
  }
  writeHeader(key: string, value: string): void {
    // uWS writes `key: value` and CRLF as given, so a value of CRLF-separated lines is that many
    // headers on the wire (the responder writes its head so, D286).
    if (!value.includes('\r\n')) {
      this.addHeader(key, value);
      return;
    }
    const lines = value.split('\r\n');
    this.addHeader(key, lines[0]);
    for (let i = 1; i < lines.length; i++) {
      const colon = lines[i].indexOf(': ');
      this.addHeader(lines[i].slice(0, colon), lines[i].slice(colon + 2));
    }
  }
  private addHeader(key: string, value: string): void {
    const k = key.toLowerCase();
    this.headers[k] = this.headers[k] === undefined ? value : `${this.headers[k]}, ${value}`;
  }
  end(body?: string | Uint8Array, closeConnection?: boolean): void {
    // Copied: the pipeline may reuse a body's memory (pool output slots) once it is handed over.
    this.body = body === undefined ? Buffer.alloc(0) : typeof body === 'string' ? Buffer.from(body) : Buffer.from(body);
    if (body !== undefined) this.headers['content-length'] ??= String(this.body.length);
    this.closed = closeConnection === true;
    this.finish();
  }
  endWithoutBody(reportedContentLength?: number, closeConnection?: boolean): void {
    if (reportedContentLength !== undefined) this.headers['content-length'] ??= String(reportedContentLength);
    this.closed = closeConnection === true || this.headers.connection === 'close';
    this.finish();
  }
  onData(handler: (chunk: ArrayBuffer, isLast: boolean) => void): void {
    this.dataHandler = handler;
  }
  onAborted(): void {
    /* an in-process request is never aborted */
  }

  /** Hands the request body over (once the pipeline has attached its reader, if it did). */
  deliver(body: Uint8Array): void {
    if (this.dataHandler === null) return;
    const ab = new ArrayBuffer(body.length);
    new Uint8Array(ab).set(body);
    this.dataHandler(ab, true);
  }

  private finish(): void {
    this.done({ status: this.status, headers: this.headers, body: this.body, closed: this.closed });
  }
}

/** Runs one request through the pipeline; resolves with the answer as the client would get it. */
export function inject(pipeline: Pipeline, r: InjectRequest): Promise<InjectResponse> {
  return new Promise((resolve) => {
    const sink = new MemorySink(resolve);
    const h: Record<string, string> = {};
    for (const k in r.headers) h[k.toLowerCase()] = r.headers[k];
    const q = r.url.indexOf('?');
    const body = typeof r.body === 'string' ? Buffer.from(r.body) : (r.body ?? null);
    const head: RequestHead = {
      method: r.method.toUpperCase(),
      path: q === -1 ? r.url : r.url.slice(0, q),
      rawQuery: q === -1 ? '' : r.url.slice(q + 1),
      headers: {
        apiKey: h['api-key'] ?? '',
        contentType: h['content-type'] ?? '',
        acceptLanguage: h['accept-language'] ?? '',
        authorization: h.authorization ?? '',
        crmDeviceId: h['crm-device-id'] ?? '',
        host: h.host ?? '',
        forwardedProto: h['x-forwarded-proto'] ?? '',
        forwardedFor: h['x-forwarded-for'] ?? '',
      },
      contentLength: h['content-length'] ?? (body !== null ? String(body.length) : ''),
      xRequestId: h['x-request-id'] ?? '',
      origin: h.origin ?? '',
      acceptEncoding: h['accept-encoding'] ?? '',
      accept: h.accept ?? '',
      ifNoneMatch: h['if-none-match'] ?? '',
      remote: r.remote ?? '127.0.0.1',
      traceparent: h.traceparent ?? '',
      tracestate: h.tracestate ?? '',
    };
    pipeline.handle(sink, head);
    sink.deliver(body ?? new Uint8Array(0));
  });
}
