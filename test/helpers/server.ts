/**
 * The service under test, with a fresh DATA_DIR and the small test snapshot, in one of two ways:
 * - `startTestApp`: the compiled service (dist/src/app.js) in this process, without a socket;
 *   `call` hands each request to its whole pipeline (route, key, gate, body, handler, headers,
 *   compression) in process. Every endpoint test that does not test the transport uses it.
 * - `startTestServer`: the compiled server (dist/src/main.js) as a child process on an ephemeral
 *   port, spoken to over HTTP: for the transport, start-up, signals, shutdown and crash tests.
 */
import net from 'node:net';
import type { SpanExporter } from '../../src/tracing.js';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import zlib from 'node:zlib';
import { inject } from 'vitest';
import { createKey } from '../../src/auth/keys.js';
import { parseGroupList } from '../../src/auth/groups.js';
import { openLiveStore } from '../../src/storage/open.js';
import { hasKeyName } from '../../src/storage/keys.js';
import { PgStore } from '../../src/storage/pg-store.js';
import type { Service } from '../../src/app.js';
import type { InjectRequest, InjectResponse } from '../../src/http/inject.js';
import { Contract, COUNTS, saveCounts } from './contract.js';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const MAIN = path.join(ROOT, 'dist/src/main.js');

/** The test environment of the service (both ways), before the test's own `env`. */
function serviceEnv(dataDir: string, databaseUrl: string | null, env: Record<string, string> | undefined): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOST: '127.0.0.1',
    PORT: '0',
    DATA_DIR: dataDir,
    SNAPSHOT: inject('testSnapshot'),
    LOG_LEVEL: 'info',
    WORKERS: '1',
    // Load shedding (D106) is tested where asked for; elsewhere a busy test machine must not
    // turn bursts of correct requests into 503s.
    MAX_QUEUE_WAIT_MS: '10000',
    PRICE_DEADLINE_MS: '60000',
    // Tests scrape, act and scrape again at once: each scrape its own exposition (D233 is tested where asked for).
    METRICS_CACHE_MS: '0',
    ...(databaseUrl !== null ? { DATABASE_URL: databaseUrl } : {}),
    ...env,
  };
}

/** Creates the named keys of `opts.keys` (value `test-key-<name>`) in the data directory's live store. */
async function createTestKeys(dataDir: string, databaseUrl: string | null, keys: Record<string, string> | undefined): Promise<void> {
  if (!keys) return;
  const store = await openLiveStore({ dataDir, databaseUrl });
  try {
    for (const [name, groups] of Object.entries(keys)) {
      if (!(await store.read((s) => hasKeyName(s, name)))) await createKey(store, { name, key: keyFor(name), groups: parseGroupList(groups) });
    }
  } finally {
    await store.close();
  }
}

export interface StartOptions {
  /** Extra API keys created before start: name → groups CSV ("all", "none" or group names). Key value = `test-key-<name>`. */
  keys?: Record<string, string>;
  env?: Record<string, string>;
  /** Reuse a data directory (restart tests); default a fresh one. */
  dataDir?: string;
  /** In-process services only: spans go to this OpenTelemetry exporter (D229). */
  spanExporter?: SpanExporter;
}

export interface TestServer {
  readonly url: string;
  readonly port: number;
  readonly dataDir: string;
  /** The server's PostgreSQL live store (`npm run test:pg`), or null (SQLite in dataDir). */
  readonly databaseUrl: string | null;
  readonly proc: ChildProcess;
  /** The development key printed on first start (all groups), or '' when the data dir had keys. */
  readonly devKey: string;
  /** Everything the process wrote to stdout so far. */
  stdout(): string;
  /** Everything the process wrote to stderr so far. */
  stderr(): string;
  /** Sends a signal and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  exited: Promise<number | null>;
}

let counter = 0;

export function freshDataDir(): string {
  const dir = path.join(inject('testTmpRoot'), `data-${process.pid}-${++counter}-${Date.now()}`);
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

export const keyFor = (name: string): string => `test-key-${name}`;

/**
 * `TEST_DATABASE_URL` (a PostgreSQL server the tests may create databases on; `npm run test:pg`):
 * every data directory gets a database of its own, so the suite runs on the PostgreSQL store.
 */
const PG_ADMIN = process.env.TEST_DATABASE_URL ?? null;
const databases = new Map<string, Promise<string>>();

/** The DATABASE_URL of a data directory's own database (created on first use), or null for SQLite. */
export function databaseUrlOf(dataDir: string): Promise<string | null> {
  if (PG_ADMIN === null) return Promise.resolve(null);
  let u = databases.get(dataDir);
  if (u === undefined) {
    const name = `cps_${path.basename(dataDir).replace(/[^a-z0-9]/gi, '_').toLowerCase()}`.slice(0, 60);
    databases.set(dataDir, (u = PgStore.createDatabase(PG_ADMIN, name)));
  }
  return u;
}

/** The environment of a CLI run on a data directory (and its database under `npm run test:pg`). */
export async function cliEnv(dataDir: string): Promise<Record<string, string>> {
  const url = await databaseUrlOf(dataDir);
  return { PATH: process.env.PATH ?? '', DATA_DIR: dataDir, ...(url !== null ? { DATABASE_URL: url } : {}) };
}

export async function startTestServer(opts: StartOptions = {}): Promise<TestServer> {
  const dataDir = opts.dataDir ?? freshDataDir();
  const databaseUrl = await databaseUrlOf(dataDir);
  await createTestKeys(dataDir, databaseUrl, opts.keys);
  const proc = spawn(process.execPath, [MAIN], {
    cwd: ROOT,
    env: serviceEnv(dataDir, databaseUrl, opts.env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${out}\n${err}`)), 30_000);
    proc.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    proc.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      for (const line of out.split('\n')) {
        if (!line.startsWith('{')) continue;
        try {
          const j = JSON.parse(line) as { msg?: string; port?: number };
          if (j.msg === 'listening' && j.port) {
            clearTimeout(timer);
            resolve(j.port);
          }
        } catch {
          /* partial line */
        }
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before listening:\n${out}\n${err}`));
    });
  });
  // D104: written to DATA_DIR/dev-key.txt when stderr is not a terminal (as here).
  const devKeyFile = path.join(dataDir, 'dev-key.txt');
  const devKey = out.includes('"msg":"development API key') && fs.existsSync(devKeyFile) ? fs.readFileSync(devKeyFile, 'utf8').trim() : '';
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    dataDir,
    databaseUrl,
    proc,
    devKey,
    stdout: () => out,
    stderr: () => err,
    exited,
    stop: async (signal: NodeJS.Signals = 'SIGTERM') => {
      if (proc.exitCode === null) proc.kill(signal);
      return exited;
    },
  };
}

export interface CallOptions {
  key?: string;
  body?: unknown;
  /** Raw body text (sent as is). */
  raw?: string;
  headers?: Record<string, string>;
  /** The query carries parameters the API ignores, on purpose (hardening probes): not checked against the description. */
  ignoredQuery?: true;
  /** In-process services only: the socket peer's address (default 127.0.0.1). */
  remote?: string;
}

export interface CallResult {
  status: number;
  headers: Headers;
  text: string;
  /** Parsed JSON body, or undefined when empty. */
  json: any;
}

/**
 * One HTTP call; JSON bodies get `Content-Type: application/json` unless headers say otherwise.
 * The answer is checked against the target's `/openapi.json` (test/helpers/contract.ts, D234).
 */
export async function call(srv: Target, method: string, p: string, o: CallOptions = {}): Promise<CallResult> {
  const t0 = performance.now();
  const off = process.env.CPS_CONTRACT === 'off';
  const contract = off ? null : await contractOf(srv);
  COUNTS.ms += performance.now() - t0;
  const r = await send(srv, method, p, o);
  if (contract === null && !off) {
    COUNTS.undescribed++;
    saveCounts(inject('testTmpRoot'), []);
  }
  if (contract !== null) {
    const t1 = performance.now();
    const problems = contract.check({ method, path: p, status: r.status, headers: r.headers, text: r.text, ignoredQuery: o.ignoredQuery === true });
    COUNTS.ms += performance.now() - t1;
    saveCounts(inject('testTmpRoot'), problems);
    if (problems.length > 0 && process.env.CPS_CONTRACT !== 'count') throw new Error(`answer outside the API contract (D234):\n${problems.join('\n')}`);
  }
  return r;
}

const contracts = new WeakMap<Target, Promise<Contract | null>>();
/** One compiled contract per distinct document: most services of a run describe the same API. */
const byDocument = new Map<string, Contract>();

/** The target's document, fetched once; null when the target serves none (a prefix, a stopped service). */
function contractOf(srv: Target): Promise<Contract | null> {
  let c = contracts.get(srv);
  if (c === undefined) {
    c = send(srv, 'GET', '/openapi.json', {}).then(
      (r) => {
        if (r.status !== 200) return null;
        let known = byDocument.get(r.text);
        if (known === undefined) byDocument.set(r.text, (known = new Contract(r.json, COUNTS)));
        return known;
      },
      () => null,
    );
    contracts.set(srv, c);
  }
  return c;
}

async function send(srv: Target, method: string, p: string, o: CallOptions): Promise<CallResult> {
  const headers: Record<string, string> = { ...o.headers };
  if (o.key !== undefined) headers['Api-Key'] = o.key;
  let body: string | undefined;
  if (o.raw !== undefined) body = o.raw;
  else if (o.body !== undefined) body = JSON.stringify(o.body);
  if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) {
    headers['Content-Type'] = 'application/json';
  }
  if (srv.request !== undefined) {
    const r = await srv.request({ method, url: p, headers, body, ...(o.remote !== undefined ? { remote: o.remote } : {}) });
    const text = decodedText(r.body, r.headers['content-encoding']);
    const type = r.headers['content-type'] ?? '';
    return { status: r.status, headers: new Headers(r.headers), text, json: text.length > 0 && (type === '' || type.includes('json')) ? JSON.parse(text) : undefined };
  }
  const r = await fetch(srv.url + p, { method, headers, body });
  const text = await r.text();
  const type = r.headers.get('content-type') ?? '';
  return { status: r.status, headers: r.headers, text, json: text.length > 0 && (type === '' || type.includes('json')) ? JSON.parse(text) : undefined };
}

/** The body as fetch would hand it over: decompressed by its Content-Encoding. */
function decodedText(body: Buffer, encoding: string | undefined): string {
  if (encoding === 'br') return zlib.brotliDecompressSync(body).toString('utf8');
  if (encoding === 'gzip') return zlib.gunzipSync(body).toString('utf8');
  return body.toString('utf8');
}

/** Anything `call` can talk to: a server over HTTP (`url`), or a service in process (`request`). */
export interface Target {
  readonly url: string;
  readonly request?: (r: InjectRequest) => Promise<InjectResponse>;
}

export interface TestApp extends Target {
  readonly request: (r: InjectRequest) => Promise<InjectResponse>;
  readonly dataDir: string;
  readonly databaseUrl: string | null;
  /** The development key of the first start (all groups), or '' when the data dir had keys. */
  readonly devKey: string;
  /** The service itself (snapshot swap, pool, pipeline). */
  readonly service: Service;
  /** Everything the service logged so far (JSON lines, as the process writes them on stdout). */
  stdout(): string;
  stop(): Promise<void>;
}

type AppModule = typeof import('../../src/app.js');
type ConfigModule = typeof import('../../src/config.js');
type LogModule = typeof import('../../src/log.js');

/** The compiled modules (the same the child process runs; the pricing workers load dist/workers). */
async function compiled(): Promise<{ app: AppModule; config: ConfigModule; log: LogModule }> {
  const at = (p: string): string => pathToFileURL(path.join(ROOT, 'dist/src', p)).href;
  const [app, config, log] = await Promise.all([import(at('app.js')), import(at('config.js')), import(at('log.js'))]);
  return { app: app as AppModule, config: config as ConfigModule, log: log as LogModule };
}

/** The service in this process, without a socket: requests go through `call` (or `request`). */
export async function startTestApp(opts: StartOptions = {}): Promise<TestApp> {
  const dataDir = opts.dataDir ?? freshDataDir();
  const databaseUrl = await databaseUrlOf(dataDir);
  await createTestKeys(dataDir, databaseUrl, opts.keys);
  const m = await compiled();
  const config = m.config.loadConfig(serviceEnv(dataDir, databaseUrl, { PRINT_DEV_KEY: '0', ...opts.env }));
  let out = '';
  const logger = m.log.createLogger(config.logLevel, { write: (line: string) => (out += line) });
  const service = await m.app.startService(config, logger, { listen: false, devKeyOnTerminal: false, ...(opts.spanExporter !== undefined ? { spanExporter: opts.spanExporter } : {}) });
  const devKeyFile = path.join(dataDir, 'dev-key.txt');
  const devKey = out.includes('"msg":"development API key') && fs.existsSync(devKeyFile) ? fs.readFileSync(devKeyFile, 'utf8').trim() : '';
  return {
    url: 'in-process:',
    request: (r) => service.request(r),
    dataDir,
    databaseUrl,
    devKey,
    service,
    stdout: () => {
      // Access lines wait a few ms to be written together (D284).
      m.log.flushAccessLines();
      return out;
    },
    stop: () => service.stop(),
  };
}

/** A TCP port free on loopback now (for a server a test starts itself). */
export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(p));
    });
  });
}
