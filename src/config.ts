import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import net from 'node:net';

/** Repository root (works from src/ under tsx and from dist/src/ after the build). */
export const PROJECT_ROOT = (() => {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 4; i++) {
    if (path.basename(dir) === 'dist') return path.dirname(dir);
    if (path.basename(dir) === 'src') {
      const parent = path.dirname(dir);
      return path.basename(parent) === 'dist' ? path.dirname(parent) : parent;
    }
    dir = path.dirname(dir);
  }
  return process.cwd();
})();

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

/**
 * Default of `inlineMaxEvaluations`, chosen by measurement (bench/RESULTS.md, price endpoints):
 * a pool hop costs 0.1–0.3 ms of latency on this machine, more than pricing and writing a
 * typical station's answer (tens of candidates at a few charge points) on the main thread, while
 * a busy station's thousands of evaluations would hold up every other request there.
 */
export const DEFAULT_INLINE_MAX_EVALUATIONS = 256;

/**
 * Default of `splitMinEvaluations`, chosen by measurement (bench/RESULTS.md, price endpoints):
 * from about this size on, pricing and writing half the candidates in each of two idle workers
 * and merging the halves on the main thread answers sooner than one worker doing all of it.
 */
export const DEFAULT_SPLIT_MIN_EVALUATIONS = 2000;

/**
 * Default of `maxQueueWaitMs` (D106), chosen by measurement (bench/RESULTS.md, overload): long
 * enough that a burst of busy-station requests queued behind each other is still computed, short
 * enough that an answer that waited is worth more to its client than a quick 503.
 */
export const DEFAULT_MAX_QUEUE_WAIT_MS = 100;

/**
 * Default of `refusalDelayMs` (D106), chosen by measurement (bench/RESULTS.md, overload): a
 * client that ignores Retry-After and asks again at once would otherwise turn the service's
 * cheapest answer into its main load.
 */
export const DEFAULT_REFUSAL_DELAY_MS = 1000;

/** The PostgreSQL URL of setting `name`, or null when unset. */
function postgresUrl(env: NodeJS.ProcessEnv, name: 'DATABASE_URL' | 'SHARED_STATE_URL', example: string): string | null {
  const v = env[name]?.trim();
  if (v === undefined || v === '') return null;
  if (name === 'SHARED_STATE_URL' && /^rediss?:/i.test(v)) {
    throw new ConfigError('SHARED_STATE_URL: Redis is not supported; replicas share state through PostgreSQL (D221): give a postgres:// URL or leave it unset');
  }
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    throw new ConfigError(`${name} must be a URL such as ${example}`);
  }
  if (u.protocol !== 'postgres:' && u.protocol !== 'postgresql:') throw new ConfigError(`${name} must start with postgres:// or postgresql://`);
  return v;
}

const databaseUrl = (env: NodeJS.ProcessEnv): string | null => postgresUrl(env, 'DATABASE_URL', 'postgres://user@127.0.0.1:5432/cps');

/**
 * D221: SHARED_STATE_URL, the database for the replicas' short-lived shared state, or null (that
 * of DATABASE_URL). PostgreSQL only (chosen by measurement); it needs DATABASE_URL.
 */
function sharedStateUrl(env: NodeJS.ProcessEnv, database: string | null): string | null {
  const v = postgresUrl(env, 'SHARED_STATE_URL', 'postgres://user@127.0.0.1:5432/cps_state');
  if (v === null) return null;
  if (database === null) throw new ConfigError('SHARED_STATE_URL needs DATABASE_URL: replicas share state only on a PostgreSQL live store (one process on SQLite has nothing to share)');
  return v === database ? null : v;
}

export interface Config {
  readonly host: string;
  readonly port: number;
  readonly dataDir: string;
  /**
   * The PostgreSQL live store (D150), `postgres://user:password@host:port/database`; null: the
   * SQLite live store in `dataDir`.
   */
  readonly databaseUrl: string | null;
  /** D221: a separate PostgreSQL database for statuses, rate counts and attempts; null: DATABASE_URL's. */
  readonly sharedStateUrl: string | null;
  /** Connections of the PostgreSQL pool of the main thread (each pricing worker has one more). */
  readonly dbPoolMax: number;
  readonly snapshotPath: string;
  /** D176: the most of the service each route class may hold while saturated; null: no budgets. */
  readonly admissionBudgets: Readonly<Record<BudgetedClass, number>> | null;
  /** D178: a snapshot swap whose loader has not finished after this long is refused. */
  readonly snapshotLoadTimeoutMs: number;
  /** Piscina worker threads for price work (0 = run price work inline on the main thread). */
  readonly workers: number;
  /** Queued price tasks beyond which requests get 503. */
  readonly maxQueue: number;
  /** D106: a price task that waited this long for a worker is answered 503 instead of computed. */
  readonly maxQueueWaitMs: number;
  /** D106: a price task not answered this long after it was admitted is answered 503. */
  readonly priceDeadlineMs: number;
  /** D106: a price request refused for saturation is answered this long after it arrived. */
  readonly refusalDelayMs: number;
  /** Prometheus metrics: recorded per request and served at `GET /metrics` (default on). */
  readonly metrics: boolean;
  /** `GET /metrics` needs a key with group ReadMetrics (default: no key). */
  readonly metricsKeyRequired: boolean;
  /** D233: scrapes within this many milliseconds of an exposition get that exposition (0: each its own). */
  readonly metricsCacheMs: number;
  /** D256: how old the station data may be, in seconds (`SNAPSHOT_MAX_AGE_DAYS`), or 0 (no expectation). */
  readonly snapshotMaxAgeS: number;
  /** D229: OpenTelemetry tracing (`off`, the default, or `otlp`), the share of new traces recorded, the service name. */
  readonly tracing: { mode: 'off' | 'otlp'; sampleRatio: number; serviceName: string };
  /** D24, D109: rate limits per key, or null (off, the default). */
  readonly rateLimits: { perWindow: number; windowS: number; pricesPerWindow: number; pricesWindowS: number } | null;
  /** How often replicas on PostgreSQL exchange their rate-limit counts (D218), ms. */
  readonly rateLimitSyncMs: number;
  /**
   * Price requests whose estimated evaluations (candidate tariffs × charge points) are at most
   * this run on the main thread instead of a worker (0 = always a worker).
   */
  readonly inlineMaxEvaluations: number;
  /**
   * Charge price requests whose estimated evaluations are at least this are split over the
   * workers when enough of them are idle (0 = never split).
   */
  readonly splitMinEvaluations: number;
  readonly bodyLimitBytes: number;
  readonly logLevel: LogLevel;
  readonly shutdownTimeoutMs: number;
  /** How often the server looks for API key changes made by other processes (the keys CLI). */
  readonly keyRefreshMs: number;
  /** EVSE statuses older than this read as unknown (`available_count` null), D135. */
  readonly availabilityTtlS: number;
  /** Bearer-token verification (D4): an HS256 secret, or a PEM public key for RS256/ES256. */
  readonly jwtSecret: string | null;
  readonly jwtPublicKey: string | null;
  readonly jwtAlgorithm: 'HS256' | 'RS256' | 'ES256';
  /** JWT_AUDIENCE: the `aud` of the access tokens the service issues; a token for another audience is refused (D244). */
  readonly jwtAudience: string;
  /** D103: bearer tokens must carry `exp`, at most this many seconds after `iat` (or now). */
  readonly tokenMaxLifetimeS: number;
  /** D104: show the development key on stderr even when stderr is not a terminal. */
  readonly printDevKey: boolean;
  /** Test hook only (PRICING_TEST_EXIT_ON_NETWORK, never set in production): a pricing worker thread exits when a task mentions this id. */
  readonly testExitOnNetwork: string | null;
  /** D27: country names (as the ext_b source writes them) where clients hide ext_b stations. */
  readonly disabledExtBCountries: readonly string[];
  /** D93: `*` (any origin), a list of origins echoed with `Vary: Origin`, or null (no CORS headers). */
  readonly corsOrigins: '*' | readonly string[] | null;
  /** D94: compress answers (br, gzip) of at least `compressMinBytes` when the client accepts it. */
  readonly compression: boolean;
  readonly compressMinBytes: number;
  /** D133: the directory `POST /admin/snapshot` may load files from; null: the directory of the snapshot loaded at start. */
  readonly snapshotDir: string | null;
  /** D220: URL prefixes `POST /admin/snapshot` may download snapshots from (empty: none). */
  readonly snapshotUrlPrefixes: readonly string[];
  /** D220: how long a swap across replicas waits for their outcomes. */
  readonly snapshotSwapWaitMs: number;
  /** D192: memory for answered map tiles per snapshot, in MiB (0: every tile is built when asked for). */
  readonly tileCacheMb: number;
  /** D287: memory for whole charge price answers and their br/gzip forms, in MiB (0: none kept). */
  readonly chargePriceCacheMb: number;
  /** D294: memory for the stations of route corridors searched, per polyline and width, in MiB (0: none kept). */
  readonly corridorCacheMb: number;
  /** D196: hours a price profile lives after its last use. */
  readonly priceProfileTtlH: number;
  /** D261: new price profiles one key may register per hour (PRICE_PROFILES_NEW_PER_KEY). */
  readonly priceProfilesNewPerKey: number;
  /** D261: price profiles the store keeps at most (PRICE_PROFILES_MAX); the least recently used beyond are deleted. */
  readonly priceProfilesMax: number;
  /** D276: memory for the price tables of a snapshot, in MiB (PRICE_TABLES_MB); least recently used dropped beyond. */
  readonly priceTablesMb: number;
  /** D278: how long a price tile waits for its stations' prices before answering what is priced (PRICE_TILE_WAIT_MS). */
  readonly priceTileWaitMs: number;
  /** D95: `Cache-Control: private, max-age=N` of answers with an ETag (0 sends `no-cache`). */
  readonly cacheMaxAgeS: number;
  /** D96: `alias → adapter` names accepted as `data_adapter` of charge prices. */
  readonly dataAdapterAliases: ReadonlyMap<string, string>;
  /** D97: share the port with other processes (SO_REUSEPORT); by default a taken port stops the start. */
  readonly reusePort: boolean;
  /** D200–D214: accounts of the client's logged-in flows. */
  readonly accounts: AccountsConfig;
  /** D245: the trusted proxies (addresses and CIDRs) whose `X-Forwarded-For` names the client; null: none. */
  readonly trustProxy: readonly string[] | null;
}

export interface ScryptParams {
  N: number;
  r: number;
  p: number;
}

/** D202: OWASP's N = 2^15, r = 8, p = 3. */
export const DEFAULT_SCRYPT: Readonly<ScryptParams> = Object.freeze({ N: 32768, r: 8, p: 3 });

export interface AccountsConfig {
  /** ACCOUNTS (default on); the routes are served only when tokens can be signed (D203). */
  readonly enabled: boolean;
  /** AUTH_PATH_PREFIX: '' or a path such as `/auth` before the authentication routes and mail pages (D200). */
  readonly pathPrefix: string;
  /** PUBLIC_URL: where clients reach the service; mail links start with it (D208). */
  readonly publicUrl: string;
  readonly smtpUrl: string | null;
  readonly mailFrom: string;
  /** JWT_PRIVATE_KEY: PKCS#8 PEM signing key for RS256/ES256 (D203). */
  readonly jwtPrivateKey: string | null;
  readonly accessTokenTtlS: number;
  readonly refreshTokenTtlD: number;
  /** REFRESH_GRACE_S: a used refresh token presented again this soon after its rotation gets a fresh pair (D241). */
  readonly refreshGraceS: number;
  /** APP_URL: where the web client runs; the mail pages link back to it (D243). */
  readonly appUrl: string | null;
  readonly scrypt: Readonly<ScryptParams>;
  /** PASSWORD_HASH_THREADS: threads of their own that hash passwords (D246). */
  readonly hashThreads: number;
}

/** `N,r,p` of PASSWORD_SCRYPT (N a power of two from 1,024). */
export function parseScrypt(v: string | undefined): ScryptParams {
  if (v === undefined || v.trim() === '') return { ...DEFAULT_SCRYPT };
  const m = /^\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*$/.exec(v);
  const [N, r, p] = m === null ? [0, 0, 0] : [Number(m[1]), Number(m[2]), Number(m[3])];
  if (N < 1024 || N > 2 ** 20 || (N & (N - 1)) !== 0 || r < 1 || r > 32 || p < 1 || p > 16) {
    throw new ConfigError('PASSWORD_SCRYPT must be "N,r,p" with N a power of two from 1024 to 1048576, r 1–32, p 1–16');
  }
  return { N, r, p };
}

/** TRUST_PROXY's `loopback` (and `on`): a proxy on the same host, as the shipped deployments run it. */
export const LOOPBACK = ['127.0.0.0/8', '::1/128'];

/** The trusted proxies of TRUST_PROXY's entries (addresses or CIDRs); throws on an entry that is neither. */
export function trustedProxies(entries: readonly string[]): net.BlockList {
  const list = new net.BlockList();
  for (const e of entries) {
    const [addr, bits] = e.split('/');
    const type = net.isIPv4(addr) ? 'ipv4' : net.isIPv6(addr) ? 'ipv6' : null;
    const max = type === 'ipv4' ? 32 : 128;
    const prefix = bits === undefined ? max : /^\d{1,3}$/.test(bits) ? Number(bits) : -1;
    if (type === null || prefix < 0 || prefix > max || e.split('/').length > 2) throw new Error(`"${e}" is not an IP address or CIDR range`);
    list.addSubnet(addr, prefix, type);
  }
  return list;
}

/** D245: TRUST_PROXY — off, `loopback` (or `on`), or a CSV of addresses and CIDR ranges. */
function trustProxy(v: string | undefined): readonly string[] | null {
  const t = (v ?? '').trim().toLowerCase();
  if (t === '' || t === 'off' || t === 'false' || t === '0') return null;
  if (t === 'on' || t === 'true' || t === '1' || t === 'loopback') return LOOPBACK;
  const entries = t.split(',').map((e) => e.trim()).filter((e) => e.length > 0);
  try {
    trustedProxies(entries);
  } catch (e) {
    throw new ConfigError(`TRUST_PROXY: ${(e as Error).message} (off, loopback, or comma-separated addresses and CIDR ranges of the proxies)`);
  }
  return entries;
}

/** An optional http(s) URL setting without a trailing slash (null when unset). */
function httpUrl(env: NodeJS.ProcessEnv, name: string): string | null {
  const v = env[name]?.trim().replace(/\/+$/, '') ?? '';
  if (v === '') return null;
  try {
    const u = new URL(v);
    if ((u.protocol === 'http:' || u.protocol === 'https:') && u.username === '' && u.password === '') return u.href.replace(/\/+$/, '');
  } catch {
    // refused below
  }
  throw new ConfigError(`${name}: "${v}" is not an http(s) URL`);
}

/** A text setting that must match `re`. */
function text(env: NodeJS.ProcessEnv, name: string, fallback: string, re: RegExp, problem: string): string {
  const v = env[name]?.trim() ?? '';
  if (v === '') return fallback;
  if (!re.test(v)) throw new ConfigError(problem);
  return v;
}

function accountsConfig(env: NodeJS.ProcessEnv, port: number, tokenMaxLifetimeS: number): AccountsConfig {
  const prefix = (env.AUTH_PATH_PREFIX ?? '').trim().replace(/\/+$/, '');
  if (prefix !== '' && !/^(\/[a-z0-9_-]+)+$/i.test(prefix)) throw new ConfigError(`AUTH_PATH_PREFIX: "${prefix}" is not a path such as /auth`);
  const publicUrl = (env.PUBLIC_URL ?? `http://127.0.0.1:${port}`).trim().replace(/\/+$/, '');
  let host: string;
  try {
    const u = new URL(publicUrl);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('scheme');
    host = u.hostname;
  } catch {
    throw new ConfigError(`PUBLIC_URL: "${publicUrl}" is not an http(s) URL`);
  }
  const smtpUrl = env.SMTP_URL?.trim() || null;
  if (smtpUrl !== null && !/^smtps?:\/\//.test(smtpUrl)) throw new ConfigError('SMTP_URL must start with smtp:// or smtps://');
  const accessTokenTtlS = int(env, 'ACCESS_TOKEN_TTL_S', 900, 30, 86_400);
  if (accessTokenTtlS > tokenMaxLifetimeS) throw new ConfigError('ACCESS_TOKEN_TTL_S must be at most TOKEN_MAX_LIFETIME_S');
  return {
    enabled: onOff(env, 'ACCOUNTS', true),
    pathPrefix: prefix,
    publicUrl,
    smtpUrl,
    mailFrom: env.MAIL_FROM?.trim() || `no-reply@${host}`,
    jwtPrivateKey: env.JWT_PRIVATE_KEY || null,
    accessTokenTtlS,
    refreshTokenTtlD: int(env, 'REFRESH_TOKEN_TTL_D', 30, 1, 365),
    refreshGraceS: int(env, 'REFRESH_GRACE_S', 10, 0, 60),
    appUrl: httpUrl(env, 'APP_URL'),
    scrypt: parseScrypt(env.PASSWORD_SCRYPT),
    hashThreads: int(env, 'PASSWORD_HASH_THREADS', 1, 1, Math.max(1, os.availableParallelism())),
  };
}

const ADAPTERS = ['native', 'ext_b', 'ext_c'];

function corsOrigins(raw: string | undefined): '*' | readonly string[] | null {
  if (raw === undefined) return '*';
  const list = raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  if (list.length === 0) return null;
  if (list.includes('*')) return '*';
  for (const o of list) {
    if (!/^https?:\/\/[^/\s]+$/.test(o)) throw new ConfigError(`CORS_ORIGINS: "${o}" is not an origin (scheme://host[:port], no path)`);
  }
  return list.map((o) => o.toLowerCase());
}

function adapterAliases(raw: string | undefined): ReadonlyMap<string, string> {
  const m = new Map<string, string>();
  for (const item of (raw ?? '').split(',')) {
    const t = item.trim();
    if (t.length === 0) continue;
    const [alias, adapter, extra] = t.split(':').map((s) => s.trim());
    if (extra !== undefined || !alias || !adapter || !/^[A-Za-z0-9_.-]{1,64}$/.test(alias)) {
      throw new ConfigError(`DATA_ADAPTER_ALIASES: "${t}" is not alias:adapter`);
    }
    if (!ADAPTERS.includes(adapter)) throw new ConfigError(`DATA_ADAPTER_ALIASES: "${adapter}" is not one of ${ADAPTERS.join(', ')}`);
    if (ADAPTERS.includes(alias)) throw new ConfigError(`DATA_ADAPTER_ALIASES: "${alias}" is an adapter name itself`);
    if (m.has(alias)) throw new ConfigError(`DATA_ADAPTER_ALIASES: "${alias}" is given twice`);
    m.set(alias, adapter);
  }
  return m;
}

function onOff(env: NodeJS.ProcessEnv, name: string, def: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  const v = raw.toLowerCase();
  if (v === 'on' || v === 'true' || v === '1' || v === 'yes') return true;
  if (v === 'off' || v === 'false' || v === '0' || v === 'no') return false;
  throw new ConfigError(`${name} must be on or off, got "${raw}"`);
}

export class ConfigError extends Error {}

/** D229: `TRACING` (off | otlp), `TRACING_SAMPLE_RATIO` (0–1, default 1), `OTEL_SERVICE_NAME`. */
function parseTracing(env: NodeJS.ProcessEnv): Config['tracing'] {
  const raw = (env.TRACING ?? '').trim().toLowerCase();
  if (raw !== '' && raw !== 'off' && raw !== 'otlp') throw new ConfigError(`TRACING must be off or otlp, got "${env.TRACING}"`);
  const ratioRaw = env.TRACING_SAMPLE_RATIO;
  const sampleRatio = ratioRaw === undefined || ratioRaw === '' ? 1 : Number(ratioRaw);
  if (!(sampleRatio >= 0 && sampleRatio <= 1)) throw new ConfigError(`TRACING_SAMPLE_RATIO must be a number from 0 to 1, got "${ratioRaw}"`);
  return { mode: raw === 'otlp' ? 'otlp' : 'off', sampleRatio, serviceName: env.OTEL_SERVICE_NAME || 'charging-price-service' };
}

/** D176: admission classes with a budget. */
export const BUDGETED = ['read', 'write', 'cost', 'ops', 'preflight', 'export'] as const;
export type BudgetedClass = (typeof BUDGETED)[number];

/** D176 defaults: the most of the service a class may hold while saturated (`export`: CSV answers, D263). */
export const DEFAULT_BUDGETS: Readonly<Record<BudgetedClass, number>> = { read: 0.5, write: 0.25, cost: 0.25, ops: 0.1, preflight: 0.1, export: 0.25 };

/** `ADMISSION_BUDGETS`: `off`, or `class:share` pairs over the defaults (`read:0.5,cost:0.2`). */
function parseBudgets(raw: string | undefined): Readonly<Record<BudgetedClass, number>> | null {
  if (raw === undefined || raw.trim() === '') return DEFAULT_BUDGETS;
  if (raw.trim().toLowerCase() === 'off') return null;
  const out: Record<BudgetedClass, number> = { ...DEFAULT_BUDGETS };
  for (const part of raw.split(',')) {
    const [name, value] = part.split(':').map((s) => s.trim());
    const c = BUDGETED.find((x) => x === name);
    const v = Number(value);
    if (c === undefined || value === undefined || !(v > 0 && v <= 1)) {
      throw new ConfigError(`ADMISSION_BUDGETS: "${part.trim()}" is not <class>:<share> with a class of ${BUDGETED.join(', ')} and a share in (0, 1]`);
    }
    out[c] = v;
  }
  return out;
}


function int(env: NodeJS.ProcessEnv, name: string, def: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return n;
}

function bool(env: NodeJS.ProcessEnv, name: string, def: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  const v = raw.toLowerCase();
  if (v === 'true' || v === '1' || v === 'yes') return true;
  if (v === 'false' || v === '0' || v === 'no') return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

/** D220: SNAPSHOT_URL_PREFIXES, comma-separated http(s) URL prefixes with a host (a bare `https://` would allow every address). */
function urlPrefixes(raw: string | undefined): string[] {
  const out: string[] = [];
  for (const item of (raw ?? '').split(',')) {
    const p = item.trim();
    if (p === '') continue;
    let u: URL | null = null;
    try {
      u = new URL(p);
    } catch {
      u = null;
    }
    if (u === null || (u.protocol !== 'http:' && u.protocol !== 'https:') || !/^https?:\/\/[^/]+\//.test(p)) {
      throw new ConfigError(`SNAPSHOT_URL_PREFIXES: "${p}" is not an http(s) URL prefix with a host and a path, such as https://files.example/snapshots/`);
    }
    out.push(p);
  }
  return out;
}

const LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export function defaultSnapshotPath(): string {
  return path.join(PROJECT_ROOT, 'snapshots', 'default.sqlite');
}

/** Reads the environment once into a frozen, validated Config. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const logLevel = (env.LOG_LEVEL ?? 'info').toLowerCase() as LogLevel;
  if (!LEVELS.includes(logLevel)) throw new ConfigError(`LOG_LEVEL must be one of ${LEVELS.join(', ')}`);
  const alg = (env.JWT_ALGORITHM ?? 'HS256').toUpperCase();
  if (alg !== 'HS256' && alg !== 'RS256' && alg !== 'ES256') {
    throw new ConfigError('JWT_ALGORITHM must be HS256, RS256 or ES256');
  }
  const cores = Math.max(1, os.availableParallelism());
  const cfg: Config = {
    host: env.HOST || '127.0.0.1',
    port: int(env, 'PORT', 8080, 0, 65535),
    dataDir: path.resolve(env.DATA_DIR || path.join(PROJECT_ROOT, 'data')),
    databaseUrl: databaseUrl(env),
    sharedStateUrl: sharedStateUrl(env, databaseUrl(env)),
    dbPoolMax: int(env, 'DB_POOL_MAX', 10, 1, 200),
    snapshotPath: path.resolve(env.SNAPSHOT || defaultSnapshotPath()),
    snapshotDir: env.SNAPSHOT_DIR ? path.resolve(env.SNAPSHOT_DIR) : null,
    snapshotLoadTimeoutMs: int(env, 'SNAPSHOT_LOAD_TIMEOUT_MS', 120_000, 1, 3_600_000),
    snapshotUrlPrefixes: urlPrefixes(env.SNAPSHOT_URL_PREFIXES),
    snapshotSwapWaitMs: int(env, 'SNAPSHOT_SWAP_WAIT_MS', 60_000, 0, 600_000),
    admissionBudgets: parseBudgets(env.ADMISSION_BUDGETS),
    workers: int(env, 'WORKERS', cores, 0, 256),
    maxQueue: int(env, 'MAX_QUEUE', 256, 1, 1_000_000),
    maxQueueWaitMs: int(env, 'MAX_QUEUE_WAIT_MS', DEFAULT_MAX_QUEUE_WAIT_MS, 1, 600_000),
    priceDeadlineMs: int(env, 'PRICE_DEADLINE_MS', 2_000, 10, 600_000),
    refusalDelayMs: int(env, 'REFUSAL_DELAY_MS', DEFAULT_REFUSAL_DELAY_MS, 0, 60_000),
    metrics: onOff(env, 'METRICS', true),
    metricsKeyRequired: onOff(env, 'METRICS_KEY_REQUIRED', false),
    metricsCacheMs: int(env, 'METRICS_CACHE_MS', 1000, 0, 60_000),
    snapshotMaxAgeS: int(env, 'SNAPSHOT_MAX_AGE_DAYS', 0, 0, 3650) * 86_400,
    tracing: parseTracing(env),
    rateLimitSyncMs: int(env, 'RATE_LIMIT_SYNC_MS', 100, 10, 10_000),
    rateLimits: onOff(env, 'RATE_LIMIT', false)
      ? {
          perWindow: int(env, 'RATE_LIMIT_REQUESTS', 5000, 1, 100_000_000),
          windowS: int(env, 'RATE_LIMIT_WINDOW_S', 300, 1, 86_400),
          pricesPerWindow: int(env, 'RATE_LIMIT_PRICE_REQUESTS', 400, 1, 100_000_000),
          pricesWindowS: int(env, 'RATE_LIMIT_PRICE_WINDOW_S', 60, 1, 86_400),
        }
      : null,
    inlineMaxEvaluations: int(env, 'PRICING_INLINE_MAX_EVALUATIONS', DEFAULT_INLINE_MAX_EVALUATIONS, 0, 1_000_000),
    splitMinEvaluations: int(env, 'PRICING_SPLIT_MIN_EVALUATIONS', DEFAULT_SPLIT_MIN_EVALUATIONS, 0, 1_000_000_000),
    bodyLimitBytes: int(env, 'BODY_LIMIT_BYTES', 1024 * 1024, 1024, 1024 * 1024 * 1024),
    logLevel,
    shutdownTimeoutMs: int(env, 'SHUTDOWN_TIMEOUT_MS', 10_000, 0, 600_000),
    keyRefreshMs: int(env, 'KEY_REFRESH_MS', 500, 50, 60_000),
    availabilityTtlS: int(env, 'AVAILABILITY_TTL_S', 900, 1, 604_800),
    jwtSecret: env.JWT_SECRET || null,
    jwtPublicKey: env.JWT_PUBLIC_KEY || null,
    jwtAlgorithm: alg,
    jwtAudience: text(env, 'JWT_AUDIENCE', 'charging-price-service', /^[\x21-\x7e]{1,200}$/, 'JWT_AUDIENCE must be 1–200 printable ASCII characters without spaces'),
    tokenMaxLifetimeS: int(env, 'TOKEN_MAX_LIFETIME_S', 86_400, 60, 31_536_000),
    printDevKey: bool(env, 'PRINT_DEV_KEY', false),
    testExitOnNetwork: env.PRICING_TEST_EXIT_ON_NETWORK || null,
    disabledExtBCountries: (env.DISABLED_EXT_B_COUNTRIES ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s.length > 0),
    corsOrigins: corsOrigins(env.CORS_ORIGINS),
    compression: onOff(env, 'COMPRESSION', true),
    compressMinBytes: int(env, 'COMPRESS_MIN_BYTES', 1024, 0, 1024 * 1024 * 1024),
    tileCacheMb: int(env, 'TILE_CACHE_MB', 64, 0, 65_536),
    chargePriceCacheMb: int(env, 'CHARGE_PRICE_CACHE_MB', 64, 0, 65_536),
    corridorCacheMb: int(env, 'CORRIDOR_CACHE_MB', 8, 0, 65_536),
    priceProfileTtlH: int(env, 'PRICE_PROFILE_TTL_H', 168, 1, 87_600),
    priceProfilesNewPerKey: int(env, 'PRICE_PROFILES_NEW_PER_KEY', 200, 1, 1_000_000),
    priceProfilesMax: int(env, 'PRICE_PROFILES_MAX', 50_000, 100, 10_000_000),
    priceTablesMb: int(env, 'PRICE_TABLES_MB', 256, 1, 65_536),
    priceTileWaitMs: int(env, 'PRICE_TILE_WAIT_MS', 1000, 0, 60_000),
    cacheMaxAgeS: int(env, 'CACHE_MAX_AGE_S', 60, 0, 31_536_000),
    dataAdapterAliases: adapterAliases(env.DATA_ADAPTER_ALIASES),
    reusePort: onOff(env, 'REUSE_PORT', false),
    accounts: accountsConfig(env, int(env, 'PORT', 8080, 0, 65535), int(env, 'TOKEN_MAX_LIFETIME_S', 86_400, 60, 31_536_000)),
    trustProxy: trustProxy(env.TRUST_PROXY),
  };
  if (cfg.jwtAlgorithm !== 'HS256' && !cfg.jwtPublicKey) {
    throw new ConfigError(`JWT_ALGORITHM ${cfg.jwtAlgorithm} needs JWT_PUBLIC_KEY (a PEM public key)`);
  }
  return Object.freeze(cfg);
}
