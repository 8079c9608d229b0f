/**
 * The service's logger (pino, JSON lines on stdout; the only runtime importer of pino) and its
 * access log: one line per request.
 *
 * The access line has a fixed shape and is written on every request, so it is built as one
 * template string and written to the logger's own destination, instead of going through pino's
 * generic object serializer (which walks the object and stringifies every value: about a fifth of
 * the main thread's time per request on a cached station read). The line is what pino itself
 * writes for `logger.info({reqId, method, route, status, ms, remoteAddress, keyName, bytesIn,
 * bytesOut}, 'request')`: the same keys in the same order, the logger's time function and bindings, the same stream and flushing
 * (test/http/access-log.test.ts compares the two). A request whose trace is recorded adds
 * `trace_id` and `span_id` after `bytesOut` (D251). Lines go to the stream together, at most
 * HOLD_MS after the first of them or once HOLD_CHARS wait (D284); lines still waiting at exit
 * are written and flushed synchronously.
 */
import pino, { type Logger } from 'pino';

/** JSON lines on stdout, or on `dest` (a service run in process, e.g. by the tests, keeps its own log). */
export function createLogger(level: string, dest?: { write(line: string): unknown }): Logger {
  return pino({ level, base: { pid: process.pid } }, dest ?? pino.destination({ dest: 1, sync: false }));
}

/**
 * Writes the access line of one request (no-op below level info): request id, method, route
 * template, status, service time in ms, the client's address, the name of the API key used (never
 * the key; null without one), the request and response body bytes (as sent on the wire), and
 * for a request to no route (`route` null) its path, cut to 200 characters; for a request whose
 * trace is recorded its trace id and server span id (D251; '' or absent otherwise).
 */
export type AccessLog = (
  reqId: string,
  method: string,
  route: string | null,
  status: number,
  ms: number,
  remoteAddress: string,
  keyName: string | null,
  bytesIn: number,
  bytesOut: number,
  path?: string,
  traceId?: string,
  spanId?: string,
) => void;

interface PinoInternals {
  [key: symbol]: unknown;
}

interface LineStream {
  write(line: string): unknown;
  flushSync?(): void;
}

/** Access lines wait at most this long (ms) … */
const HOLD_MS = 20;
/** … or until this many characters wait (sonic-boom's largest write, 16 KiB). */
const HOLD_CHARS = 16 * 1024;

/** Access lines waiting to be handed to their destination together (D284). */
class LineBatch {
  private text = '';
  private timer: NodeJS.Timeout | null = null;
  private readonly flushNow = (): void => this.flush();

  constructor(private readonly stream: LineStream) {}

  add(line: string): void {
    this.text += line;
    if (this.text.length >= HOLD_CHARS) this.flush();
    else if (this.timer === null) {
      waiting.add(this);
      this.timer = setTimeout(this.flushNow, HOLD_MS);
    }
  }

  flush(): void {
    if (this.timer !== null) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    waiting.delete(this);
    if (this.text.length === 0) return;
    const text = this.text;
    this.text = '';
    this.stream.write(text);
  }

  /** At exit: the waiting lines written and the destination flushed synchronously. */
  flushAtExit(): void {
    this.flush();
    try {
      this.stream.flushSync?.();
    } catch {
      // A destination that is closed or not open yet has nothing more to take.
    }
  }
}

/** Hands every waiting access line to its destination now (shutdown, tests reading the log). */
export function flushAccessLines(): void {
  for (const b of [...waiting]) b.flush();
}

/** Batches with lines waiting; one exit handler for all of them. */
const waiting = new Set<LineBatch>();
let exitHook = false;

function batchFor(stream: LineStream): LineBatch {
  if (!exitHook) {
    exitHook = true;
    process.on('exit', () => {
      for (const b of [...waiting]) b.flushAtExit();
    });
  }
  return new LineBatch(stream);
}

export function accessLog(logger: Logger): AccessLog {
  const internals = logger as unknown as PinoInternals;
  const stream = internals[pino.symbols.streamSym] as LineStream;
  const time = internals[pino.symbols.timeSym] as () => string;
  const bindings = internals[pino.symbols.chindingsSym] as string;
  const info = logger.levels.values.info;
  const js = JSON.stringify;
  const batch = batchFor(stream);
  return (reqId, method, route, status, ms, remoteAddress, keyName, bytesIn, bytesOut, path, traceId, spanId) => {
    if (!logger.isLevelEnabled('info')) return;
    // Trace and span ids are lower-case hex (W3C trace context): no escaping.
    const traced = traceId !== undefined && traceId.length > 0 ? `,"trace_id":"${traceId}","span_id":"${spanId}"` : '';
    const unrouted = route === null && path !== undefined ? `,"path":${js(path.length > 200 ? path.slice(0, 200) : path)}` : '';
    batch.add(
      `{"level":${info}${time()}${bindings},"reqId":${js(reqId)},"method":${js(method)},"route":${route === null ? 'null' : js(route)}${unrouted},` +
        `"status":${status},"ms":${ms},"remoteAddress":${js(remoteAddress)},"keyName":${keyName === null ? 'null' : js(keyName)},` +
        `"bytesIn":${bytesIn},"bytesOut":${bytesOut}${traced},"msg":"request"}\n`,
    );
  };
}
