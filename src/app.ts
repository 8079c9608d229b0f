import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import { accessLog } from './log.js';
import { buildSnapshot } from './import/default-snapshot.js';
import type { AccountDeps, AppContext } from './api/context.js';
import { buildRoutes } from './api/routes.js';
import { PAGE_CACHE_COUNTS } from './api/body-cache.js';
import { CHARGE_PRICE_CACHE_COUNTS } from './api/prices/charge-price-answers.js';
import { CORRIDOR_CACHE_COUNTS } from './domain/stations/corridor-cache.js';
import { warmCdrCost } from './api/cdr-cost/cdr-cost.js';
import { KeyRegistry, ensureDevelopmentKey } from './auth/keys.js';
import { defaultSnapshotPath, trustedProxies, type Config } from './config.js';
import { SERVICE_VERSION } from './version.js';
import { startTracing, type SpanExporter, type Tracing } from './tracing.js';
import { startServer, type HttpServer } from './http/server.js';
import { Pipeline, type PipelineOptions } from './http/pipeline.js';
import { AdmissionBudgets } from './http/budgets.js';
import { inject, type InjectRequest, type InjectResponse } from './http/inject.js';
import { CompanyRegistry } from './domain/companies/registry.js';
import { VehicleRegistry } from './domain/vehicles/vehicle.js';
import { TokenIssuer, TokenVerifier } from './auth/token.js';
import { Passwords } from './auth/passwords.js';
import { Mailer } from './mail/mailer.js';
import { loadCompanies, seedCompanies } from './storage/companies.js';
import { TariffCatalog } from './domain/tariffs/catalog.js';
import { catalogGeneration, catalogSeedOf, loadStationPrices, loadTariffs, seedDefaultCatalog } from './storage/tariffs.js';
import { ensureDataDir, openLiveStore } from './storage/open.js';
import type { LiveStore } from './storage/live.js';
import { LiveSync } from './api/live-sync.js';
import { StatusFollower } from './api/availability/status-follower.js';
import { serviceError } from './api/service-errors.js';
import { AccountLimits, RateLimiter } from './auth/rate-limit.js';
import { RateLimitSync } from './auth/rate-limit-sync.js';
import { Metrics } from './metrics.js';
import { Snapshot, SnapshotFormatError } from './storage/snapshot.js';
import { driverName } from './storage/sqlite-driver.js';
import { StationIndex } from './domain/stations/index.js';
import { availabilitySource } from './storage/availability.js';
import { PricePool } from './pool/pool.js';
import { mergeChargePriceParts, runTask } from './api/price-work.js';
import { OUTPUT_SLOT_BYTES, OUTPUT_SLOTS_PER_WORKER } from './pool/protocol.js';
import { createOutputSlots } from './pool/output.js';
import { mainCatalog, rateTable } from './pool/catalog.js';
import { adoptSharedColumns, shareStationColumns } from './pool/stations.js';
import { SnapshotSwap } from './snapshot-swap.js';
import { SnapshotCluster } from './snapshot-cluster.js';
import { LiveAvailability } from './domain/stations/live-availability.js';
import type { SwapResult } from './api/admin/admin.handler.js';

/** D176: requests in progress from which a busy event loop counts as saturated (one client's sequence never is). */
const SATURATED_IN_FLIGHT = 32;

/**
 * D176: the admission budgets, saturated while the event loop is busy with at least
 * SATURATED_IN_FLIGHT requests in progress (counted once `watch` names the pipeline, which is
 * made after its options) or while price work is saturated; a write's synchronous store work
 * (SQLite) counts as the write class's main-thread time. Null with ADMISSION_BUDGETS=off.
 */
function admissionBudgets(config: Config, prices: PricePool, live: LiveStore): { budgets: AdmissionBudgets; watch(p: Pipeline): void } | null {
  if (config.admissionBudgets === null) return null;
  let inFlight = (): number => 0;
  const budgets = new AdmissionBudgets(config.admissionBudgets, (loopBusy) => (loopBusy && inFlight() >= SATURATED_IN_FLIGHT) || prices.saturated());
  live.onWriteWork = (ms) => budgets.chargeCpu('write', ms);
  return { budgets, watch: (p) => (inFlight = () => p.inFlight()) };
}

export interface Service {
  /** The bound port (0 when started without a socket). */
  readonly port: number;
  /** The socket server, or null when started without one (`listen: false`). */
  readonly server: HttpServer | null;
  /** The request pipeline (behind the socket, or alone). */
  readonly pipeline: Pipeline;
  /** Runs one request in process, through the whole pipeline except the socket. */
  request(r: InjectRequest): Promise<InjectResponse>;
  /** Stops accepting, drains in-flight requests (bounded by config), closes stores. */
  stop(): Promise<void>;
  /** The station snapshot in use and its hot swap (SIGHUP, `POST /admin/snapshot`, D133). */
  readonly snapshots: SnapshotSwap;
  /** Swaps in the snapshot at `file` (default SNAPSHOT); rejects with SwapError. */
  reloadSnapshot(file?: string): Promise<SwapResult>;
}

/** The default snapshot exists and has this service's format (else it is rebuilt from the sources). */
function snapshotUsable(file: string): boolean {
  if (!fs.existsSync(file)) return false;
  try {
    Snapshot.open(file).close();
    return true;
  } catch (e) {
    if (e instanceof SnapshotFormatError) return false;
    throw e;
  }
}

export interface StartOptions {
  /** Listen on config.host:config.port (default); false: requests only through `request`. */
  listen?: boolean;
  /** Show a new development key on stderr (default: when stderr is a terminal), else write it to a file (D104). */
  devKeyOnTerminal?: boolean;
  /** Spans go to this exporter, tracing on whatever TRACING says (tests: an in-memory exporter; D229). */
  spanExporter?: SpanExporter;
}

/**
 * Shows the development key of a first start once (D104): on a terminal (or PRINT_DEV_KEY=1) on
 * stderr, else in a file only its owner can read, and the log says where; never in the JSON log.
 * Called before the key is committed: a file that cannot be written rolls the key back.
 */
function deliverDevKey(key: string, config: Config, logger: Logger, start: StartOptions): void {
  if ((start.devKeyOnTerminal ?? process.stderr.isTTY === true) || config.printDevKey) {
    process.stderr.write(
      `\nDevelopment API key (all groups; shown only now, store it): ${key}\n` +
        `Use it as header "Api-Key: ${key}". Manage keys with \`npm run keys -- list|create|revoke\`.\n\n`,
    );
    return;
  }
  const file = path.join(config.dataDir, 'dev-key.txt');
  fs.writeFileSync(file, `${key}\n`, { mode: 0o600 });
  fs.chmodSync(file, 0o600);
  logger.info({ file }, 'development API key (all groups) written to a file only its owner can read');
}

/**
 * The snapshot file to load (D123): `SNAPSHOT`, or the default one, `snapshots/default.sqlite`,
 * built there from snapshots/sources when missing or of another format; where that directory
 * cannot be written (a read-only install, as systemd's ProtectSystem=strict makes it), the
 * default snapshot lives in DATA_DIR instead.
 */
export function snapshotToLoad(config: Pick<Config, 'snapshotPath' | 'dataDir'>, logger: Logger, defaultFile = defaultSnapshotPath(), canWrite = writableDir): string {
  const file = config.snapshotPath;
  if (file !== defaultFile || snapshotUsable(file)) return file;
  let out = file;
  if (!canWrite(path.dirname(file))) {
    out = path.join(config.dataDir, 'default.sqlite');
    if (snapshotUsable(out)) return out;
  }
  logger.info({ snapshot: out }, 'building the default snapshot from snapshots/sources');
  const r = buildSnapshot({ progress: true, out });
  logger.info({ stations: r.stations, leftOutOnSharedPoints: r.leftOut.length, ms: Math.round(r.ms) }, 'snapshot built');
  return out;
}

function writableDir(dir: string): boolean {
  try {
    fs.accessSync(dir, fs.constants.W_OK | fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** What /metrics reads (D120), each at scrape time; `pipeline` is made after the metrics. */
function serviceMetrics(d: {
  prices: PricePool;
  tariffs: TariffCatalog;
  swap: SnapshotSwap;
  pipeline: () => Pipeline | null;
  server: () => HttpServer | null;
  liveAvailability: LiveAvailability;
  live: LiveStore;
  limiter: RateLimiter | null;
  sync: LiveSync;
  passwords: Passwords | null;
  snapshotMaxAgeS: number;
}): Metrics {
  const { prices, swap } = d;
  return new Metrics({
    pool: () => ({
      queued: prices.queued,
      threads: prices.threads,
      inline: prices.counts.inline,
      pooled: prices.counts.pooled,
      split: prices.splits.merged,
      refusedFull: prices.admission.full,
      expired: prices.admission.expired,
      deadline: prices.admission.deadline,
      workerDeaths: prices.counts.workerDeaths,
      waitTimes: prices.waitTimes,
      workerTimes: prices.workerTimes,
      inlineTimes: prices.inlineTimes,
    }),
    catalogGeneration: () => d.tariffs.generation,
    snapshot: () => {
      const c = swap.current();
      return { version: c.version, stations: c.stationCount, builtAt: c.snapshot.meta.builtAt };
    },
    snapshotMaxAgeS: d.snapshotMaxAgeS,
    swaps: () => swap.results,
    inFlight: () => d.pipeline()?.inFlight() ?? 0,
    connections: () => d.server()?.connections() ?? null,
    authRefused: () => d.pipeline()?.authRefused ?? { missing: 0, invalid: 0, group: 0 },
    availabilityUpdates: () => d.liveAvailability.applied,
    availabilityStale: () => d.liveAvailability.stale,
    availabilityUnknown: () => d.liveAvailability.unknownEvses,
    availabilityLastUpdateAge: () => (d.liveAvailability.lastAppliedAt === 0 ? null : (Date.now() - d.liveAvailability.lastAppliedAt) / 1000),
    passwordHashes: () => d.passwords?.derived ?? 0,
    dbPool: () => d.live.poolStats(),
    build: { version: SERVICE_VERSION, node: process.version },
    storageErrors: () => d.live.faultsTotal,
    rateLimited: () => d.limiter?.limited ?? 0,
    pageCache: () => PAGE_CACHE_COUNTS,
    chargePriceCache: () => CHARGE_PRICE_CACHE_COUNTS,
    corridorCache: () => CORRIDOR_CACHE_COUNTS,
    storeChecks: () => d.sync.checks,
    storeCatchUps: () => d.sync.catchUps,
  });
}

/** What the start reads from the live store: keys, companies and tariffs kept in sync, tokens, accounts. */
interface LiveParts {
  keys: KeyRegistry;
  companies: CompanyRegistry;
  tariffs: TariffCatalog;
  sync: LiveSync;
  tokens: TokenVerifier;
  accounts: AccountDeps | null;
}

/**
 * The live store's part of the start: seeds the snapshot's operators and the default catalog
 * (first start), the development key (D104), then loads keys, companies and tariffs and starts
 * following other writers (D151), and the token verifier and account dependencies.
 */
async function liveParts(config: Config, logger: Logger, start: StartOptions, snapshot: Snapshot, live: LiveStore): Promise<LiveParts> {
  const operators = snapshot.operators().map((o) => ({ id: o.id, name: o.name, evse_operator_ids: o.evse_operator_ids }));
  const seeded = await live.tx((s) => seedCompanies(s, snapshot.meta.snapshotVersion, operators, Date.now()));
  if (seeded > 0) logger.info({ companies: seeded }, 'live store seeded with operator companies');
  const seededTariffs = await seedDefaultCatalog(live, snapshot.meta.snapshotVersion, () => catalogSeedOf(snapshot), Date.now());
  if (seededTariffs > 0) logger.info({ tariffs: seededTariffs }, 'live store seeded with the default tariff catalog');
  await ensureDevelopmentKey(live, (dev) => deliverDevKey(dev.key, config, logger, start));
  const keys = await KeyRegistry.create(live);
  keys.start(config.keyRefreshMs);
  const loaded = await live.read(async (s) => ({
    companies: await loadCompanies(s),
    tariffs: await loadTariffs(s),
    stationPrices: await loadStationPrices(s),
    generation: await catalogGeneration(s),
  }));
  const companies = new CompanyRegistry(loaded.companies);
  const tariffs = new TariffCatalog(loaded.tariffs, loaded.stationPrices, loaded.generation);
  const sync = new LiveSync(live, companies, tariffs, keys, logger);
  keys.fence = () => sync.fresh();
  sync.start();
  const tokens = await TokenVerifier.create(config, live);
  const accounts = await accountDeps(config, live, tokens, logger);
  return { keys, companies, tariffs, sync, tokens, accounts };
}

/**
 * The station index and the price pool, ready: the station columns without the list fragments
 * are shared first, so the pricing workers start on them while this thread reads the fragments
 * (most of the bytes).
 */
async function stationsAndPrices(config: Config, logger: Logger, snapshot: Snapshot, snapshotPath: string, parts: LiveParts): Promise<{ stations: StationIndex; prices: PricePool }> {
  const { companies, tariffs } = parts;
  const tStations = performance.now();
  const stationColumns = snapshot.stationColumns({ fragments: false });
  const sharedStations = shareStationColumns(stationColumns);
  adoptSharedColumns(stationColumns, sharedStations);
  const prices = new PricePool({
    workers: config.workers,
    maxQueue: config.maxQueue,
    maxQueueWaitMs: config.maxQueueWaitMs,
    deadlineMs: config.priceDeadlineMs,
    inlineMaxEvaluations: config.inlineMaxEvaluations,
    splitMinEvaluations: config.splitMinEvaluations,
    init: {
      dataDir: config.dataDir,
      databaseUrl: config.databaseUrl,
      snapshotPath,
      stations: sharedStations,
      exitOnNetwork: config.testExitOnNetwork,
      output: createOutputSlots(config.workers * OUTPUT_SLOTS_PER_WORKER, OUTPUT_SLOT_BYTES),
    },
    work: { runTask, mergeChargePriceParts },
    catalog: () => mainCatalog(companies, tariffs),
    rates: rateTable(snapshot.meta.ratesDate, snapshot.rates()),
    generation: () => tariffs.generation,
    logger,
  });
  snapshot.loadStationFragments(stationColumns);
  const stations = new StationIndex(stationColumns);
  logger.info({ stations: stations.size, ms: Math.round(performance.now() - tStations) }, 'station index loaded');
  // While the pricing workers start: the first cdr_cost's one-time set-up (D259).
  const tWarm = performance.now();
  warmCdrCost();
  logger.info({ ms: Math.round(performance.now() - tWarm) }, 'cdr_cost ready');
  await prices.ready();
  return { stations, prices };
}

/** The pipeline's options (D93–D97, D106, D109, D129, D176): the route table and what every request passes. */
function pipelineOptions(ctx: AppContext, parts: LiveParts, limiter: RateLimiter | null, budgets: AdmissionBudgets | null, tracing: Tracing | null): PipelineOptions {
  const { config, logger, prices, metrics } = ctx;
  return {
    routes: buildRoutes(ctx),
    tracing,
    proxies: ctx.config.trustProxy === null ? null : trustedProxies(ctx.config.trustProxy),
    mapError: serviceError,
    refusalDelayMs: config.refusalDelayMs,
    priceWorkSaturated: () => prices.saturated(),
    budgets,
    ...(limiter !== null ? { rateLimit: limiter } : {}),
    keys: parts.keys,
    fresh: () => parts.sync.fresh(),
    bodyLimitBytes: config.bodyLimitBytes,
    logger,
    accessLog: accessLog(logger),
    ...(metrics ? { observe: (method: string, route: string | null, status: number, ms: number, bytesOut: number) => metrics.observe(method, route, status, ms, bytesOut) } : {}),
    corsOrigins: config.corsOrigins,
    compression: config.compression,
    compressMinBytes: config.compressMinBytes,
    cacheMaxAgeS: config.cacheMaxAgeS,
  };
}

/** D107: one log line when writes start failing, one when they work again; no stack per request. */
function logStorageFaults(live: LiveStore, logger: Logger): void {
  live.faultListener = {
    failing: (code, message) => logger.error({ code, reason: message }, `storage unavailable: writes fail until ${live.kind === 'postgres' ? 'the database' : 'the data directory'} can be written again`),
    recovered: (failedWrites, ms) => logger.warn({ failedWrites, ms: Math.round(ms) }, 'storage recovered: writes work again'),
  };
}

/** The snapshot and the live store, opened; the snapshot is closed again when the store cannot be opened. */
async function openStores(config: Config, logger: Logger): Promise<{ snapshot: Snapshot; snapshotPath: string; live: LiveStore }> {
  ensureDataDir(config.dataDir);
  const snapshotPath = snapshotToLoad(config, logger);
  const snapshot = Snapshot.open(snapshotPath);
  try {
    const live = await openLiveStore(config);
    logger.info({ store: live.kind, where: live.where }, 'live store open');
    return { snapshot, snapshotPath, live };
  } catch (e) {
    snapshot.close();
    throw e;
  }
}

/** Composition root: config → snapshot → live store → keys → routes → pipeline (→ socket). */
export async function startService(config: Config, logger: Logger, start: StartOptions = {}): Promise<Service> {
  const startedAt = performance.now();
  const { snapshot, snapshotPath, live } = await openStores(config, logger);
  try {
    const parts = await liveParts(config, logger, start, snapshot, live);
    const { companies, tariffs, sync, tokens, accounts } = parts;
    const availability = availabilitySource(live);
    const { stations, prices } = await stationsAndPrices(config, logger, snapshot, snapshotPath, parts);
    const swap = new SnapshotSwap(
      { logger, prices, buildRoutes, defaultFile: snapshotPath, closeAfterMs: Math.max(1000, config.shutdownTimeoutMs), loadTimeoutMs: config.snapshotLoadTimeoutMs, dataDir: config.dataDir },
      snapshot,
      stations,
    );
    const limiter = config.rateLimits === null ? null : new RateLimiter(config.rateLimits);
    const limitSync = limiter === null || live.sharedCounters === null ? null : new RateLimitSync(limiter, live.sharedCounters, config.rateLimitSyncMs, logger);
    limitSync?.start();
    const liveAvailability = new LiveAvailability(config.availabilityTtlS * 1000);
    const statusFollower = live.sharedStatuses === null ? null : new StatusFollower(live.sharedStatuses, liveAvailability, logger);
    statusFollower?.start();
    // The pipeline is made after the metrics (its options need the route table, which needs the metrics).
    let pipelineRef: Pipeline | null = null;
    let serverRef: HttpServer | null = null;
    const metrics = !config.metrics ? undefined : serviceMetrics({ prices, tariffs, swap, pipeline: () => pipelineRef, server: () => serverRef, liveAvailability, live, limiter, sync, passwords: accounts?.passwords ?? null, snapshotMaxAgeS: config.snapshotMaxAgeS });
    const vehicles = new VehicleRegistry(snapshot.vehicles(), snapshot.brands());
    const ctx: AppContext = { config, logger, snapshot, live, sync, companies, tariffs, vehicles, tokens, stations, availability, prices, startedAt, snapshots: swap,
      liveAvailability, ...(metrics ? { metrics } : {}), ...(accounts ? { accounts } : {}) };
    logStorageFaults(live, logger);
    const admission = admissionBudgets(config, prices, live);
    const tracing = await startTracing({ ...config.tracing, version: SERVICE_VERSION, ...(start.spanExporter ? { exporter: start.spanExporter } : {}) });
    const http = pipelineOptions(ctx, parts, limiter, admission?.budgets ?? null, tracing);
    const server = start.listen === false ? null : await startServer(config.host, config.port, http, config.reusePort);
    const pipeline = server?.pipeline ?? new Pipeline(http);
    pipelineRef = pipeline;
    serverRef = server;
    admission?.watch(pipeline);
    swap.attach(ctx, pipeline);
    const cluster = live.sharedSwaps === null ? null : new SnapshotCluster({ shared: live.sharedSwaps, swap, logger, snapshotDir: config.snapshotDir ?? path.dirname(snapshotPath), waitMs: config.snapshotSwapWaitMs });
    swap.cluster = cluster;
    cluster?.start();
    logger.info(
      { port: server?.port ?? 0, host: config.host, snapshot: snapshot.meta.snapshotVersion, sqlite: driverName(), tracing: tracing === null ? 'off' : config.tracing.mode, ...(tracing !== null ? { instanceId: tracing.instanceId } : {}), ms: Math.round(performance.now() - startedAt) },
      server !== null ? 'listening' : 'serving in process',
    );
    const close = async (): Promise<void> => {
      await prices.close();
      parts.keys.stop();
      admission?.budgets.close();
      availability.close();
      statusFollower?.close();
      limitSync?.stop();
      await cluster?.stop();
      await live.close();
      swap.close();
      accounts?.mailer.close();
      await accounts?.passwords.close();
      await tracing?.shutdown();
    };
    return serviceHandle(config, server, pipeline, swap, close);
  } catch (e) {
    await live.close();
    snapshot.close();
    throw e;
  }
}

/** The running service: stopping drains the socket (or the in-process pipeline) within the shutdown time, then closes. */
function serviceHandle(config: Config, server: HttpServer | null, pipeline: Pipeline, swap: SnapshotSwap, close: () => Promise<void>): Service {
  let stopping: Promise<void> | null = null;
  return {
    port: server?.port ?? 0,
    server,
    pipeline,
    request: (r: InjectRequest) => inject(pipeline, r),
    snapshots: swap,
    reloadSnapshot: (file?: string) => swap.reload(file),
    stop: () =>
      (stopping ??= (async () => {
        if (server !== null) await server.close(config.shutdownTimeoutMs);
        else await Promise.race([pipeline.drain(), new Promise((r) => setTimeout(r, config.shutdownTimeoutMs).unref())]);
        await close();
      })()),
  };
}

/**
 * What the account routes need (D200–D203), or null when accounts are off or no access token can
 * be signed (RS256/ES256 without JWT_PRIVATE_KEY: logged). A private key that does not match the
 * public key stops the start (SigningKeyError, exit 2).
 */
async function accountDeps(config: Config, live: LiveStore, tokens: TokenVerifier, logger: Logger): Promise<AccountDeps | null> {
  if (!config.accounts.enabled) return null;
  const issuer = await TokenIssuer.create(config, live, tokens);
  if (issuer === null) {
    logger.warn({ algorithm: config.jwtAlgorithm }, 'accounts not served: JWT_PRIVATE_KEY is not set, so no access token can be signed');
    return null;
  }
  const mailer = new Mailer({ smtpUrl: config.accounts.smtpUrl, from: config.accounts.mailFrom, dataDir: config.dataDir });
  logger.info({ mail: mailer.where, prefix: config.accounts.pathPrefix || '/' }, 'accounts served');
  return { issuer, passwords: new Passwords(config.accounts.scrypt, config.accounts.hashThreads), mailer, limits: new AccountLimits(live.sharedAttempts) };
}
