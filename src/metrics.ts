/**
 * Prometheus metrics (prom-client; the only importer of it), served by `GET /metrics`.
 *
 * Per request the HTTP layer calls `observe` (requests by route template, method and status; a
 * latency histogram per route and method; bytes out per route). That runs on every request, so
 * it adds to plain counters in maps keyed by one string (no label objects, no prom-client call);
 * the exposition turns them into prom-client metric objects when scraped. Everything else
 * (price queue, tasks inline / pooled / split, worker deaths, catalog generation, snapshot,
 * storage errors, rate-limited requests) is read from its owner at scrape time, and
 * prom-client's default process metrics come with it.
 */
import client from 'prom-client';
import { LATENCY_BUCKETS_S as BUCKETS, type Histogram } from './domain/histogram.js';

const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
/** D173: most latency series (route × method); request series at most four times as many. */
const MAX_SERIES = 1024;


export interface MetricSources {
  pool(): {
    queued: number;
    threads: number;
    inline: number;
    pooled: number;
    split: number;
    refusedFull: number;
    expired: number;
    deadline: number;
    workerDeaths: number;
    /** Time pooled tasks waited for a worker. */
    waitTimes: Histogram;
    /** Time from dispatch to the worker's answer of pooled tasks (compute and transfer). */
    workerTimes: Histogram;
    inlineTimes: Histogram;
  };
  catalogGeneration(): number;
  snapshot(): { version: string; stations: number; builtAt: string };
  /** D256: how old the station data may be (s), or 0 when the deployment set no limit. */
  snapshotMaxAgeS?: number;
  /** Snapshot swaps since start by result (D133). */
  swaps(): Record<'swapped' | 'refused' | 'missing', number>;
  /** Requests in progress (admitted and not yet answered). */
  inFlight(): number;
  /** HTTP connections open now and accepted since start; null without a socket (in-process service). */
  connections(): { open: number; accepted: number } | null;
  /** Requests refused 403 by the key check, by reason. */
  authRefused(): Record<'missing' | 'invalid' | 'group', number>;
  /** EVSE status updates applied from the feeds (D134). */
  availabilityUpdates(): number;
  /** Feed updates ignored as stale, updates of unknown EVSEs, and the seconds since the last applied one (null: none yet). */
  availabilityStale(): number;
  availabilityUnknown(): number;
  availabilityLastUpdateAge(): number | null;
  /** Password hashes computed (signups, logins, resets; D202), 0 without accounts. */
  passwordHashes(): number;
  /** The service's version and runtime (`cps_build_info`). */
  build: { version: string; node: string };
  storageErrors(): number;
  rateLimited(): number;
  /** GeoJSON and CSV page lookups by result (D262). */
  pageCache?(): Record<'hit' | 'miss', number>;
  chargePriceCache?(): Record<'hit' | 'miss', number>;
  /** Route corridors looked up among those kept (D294). */
  corridorCache?(): Record<'hit' | 'miss', number>;
  /** Read-your-writes checks of the shared live store (D151), and the catch-ups they or notifications caused. */
  storeChecks(): number;
  /** The PostgreSQL pool of the live store, or null (SQLite). */
  dbPool(): { total: number; idle: number; waiting: number } | null;
  storeCatchUps(): number;
}

interface RequestSlot {
  method: string;
  route: string;
  status: string;
  count: number;
}

interface LatencySlot {
  method: string;
  route: string;
  buckets: Float64Array;
  sum: number;
  count: number;
  bytes: number;
}

type Value = { metricName?: string; labels: Record<string, string | number>; value: number };

/** The `_bucket`, `_sum` and `_count` values of a histogram with `labels`. */
function histogramValues(name: string, labels: Record<string, string | number>, h: { counts: ArrayLike<number>; sum: number; count: number }): Value[] {
  const out: Value[] = [];
  let acc = 0;
  for (let k = 0; k < BUCKETS.length; k++) {
    acc += h.counts[k];
    out.push({ metricName: `${name}_bucket`, labels: { ...labels, le: BUCKETS[k] }, value: acc });
  }
  out.push({ metricName: `${name}_bucket`, labels: { ...labels, le: '+Inf' }, value: h.count });
  out.push({ metricName: `${name}_sum`, labels, value: h.sum });
  out.push({ metricName: `${name}_count`, labels, value: h.count });
  return out;
}

/** A metric object the registry formats like its own (name, help, type and values at scrape time). */
function custom(name: string, help: string, type: 'counter' | 'histogram' | 'gauge', values: () => Value[]) {
  return {
    name,
    help,
    type,
    aggregator: 'sum',
    get: async () => ({ name, help, type, aggregator: 'sum', values: values() }),
    reset: () => undefined,
  };
}

/** Registers metrics read from their owners at scrape time. */
interface Registrar {
  custom(metric: ReturnType<typeof custom>): void;
  gauge(name: string, help: string, read: () => number): void;
  counter(name: string, help: string, read: () => number): void;
  /** A histogram without labels. */
  histogram(name: string, help: string, read: () => Histogram): void;
  /** A counter with one label. */
  counterBy(name: string, help: string, label: string, read: () => Record<string, number>): void;
}

function registrar(r: client.Registry): Registrar {
  return {
    custom: (metric) => r.registerMetric(metric as never),
    gauge: (name, help, read) => {
      new client.Gauge({ name, help, registers: [r], collect() {
        this.set(read());
      } });
    },
    counter: (name, help, read) => r.registerMetric(custom(name, help, 'counter', () => [{ labels: {}, value: read() }]) as never),
    histogram: (name, help, read) => r.registerMetric(custom(name, help, 'histogram', () => histogramValues(name, {}, read())) as never),
    counterBy: (name, help, label, read) =>
      r.registerMetric(custom(name, help, 'counter', () => Object.entries(read()).map(([k, value]) => ({ labels: { [label]: k }, value }))) as never),
  };
}

/** The price pool: queue, workers, waits, tasks by mode, refusals, worker deaths. */
function registerPriceWork(reg: Registrar, sources: MetricSources): void {
  const { gauge, histogram, counterBy, counter } = reg;
  const pool = sources.pool;
  gauge('cps_price_queue_depth', 'Price tasks waiting for a worker.', () => pool().queued);
  gauge('cps_price_workers', 'Pricing worker threads running.', () => pool().threads);
  histogram('cps_price_queue_wait_seconds', 'Time pooled price tasks waited for a worker.', () => pool().waitTimes);
  histogram('cps_price_worker_task_seconds', 'Time from dispatching a price task to its worker\'s answer (compute and transfer).', () => pool().workerTimes);
  histogram('cps_price_inline_task_seconds', 'Main-thread time of price tasks run inline (the event loop is held meanwhile).', () => pool().inlineTimes);
  counterBy('cps_price_tasks_total', 'Price tasks run, by where: inline on the main thread, pooled in a worker, or split over the workers.', 'mode', () => {
    const p = pool();
    return { inline: p.inline, pooled: p.pooled, split: p.split };
  });
  counterBy('cps_price_refused_total', 'Price work refused 503 (D106), by reason: queue full, waited too long, past the deadline.', 'reason', () => {
    const p = pool();
    return { full: p.refusedFull, expired: p.expired, deadline: p.deadline };
  });
  counter('cps_price_worker_deaths_total', 'Pricing workers that died running a task (each was replaced).', () => pool().workerDeaths);
}

/** Catalog, snapshot, requests in flight, keys, availability feed, accounts, build, live store. */
function registerServiceState(reg: Registrar, sources: MetricSources): void {
  const { gauge, counterBy, counter } = reg;
  gauge('cps_catalog_generation', 'Generation of the tariff catalog (every company and tariff write).', () => sources.catalogGeneration());
  reg.custom(
    custom('cps_snapshot_info', 'The station snapshot served (value 1; its version as a label).', 'gauge', () => [{ labels: { version: sources.snapshot().version }, value: 1 }]),
  );
  gauge('cps_snapshot_stations', 'Stations in the snapshot served.', () => sources.snapshot().stations);
  gauge('cps_snapshot_data_age_seconds', 'Age of the station data served: now minus the snapshot\'s built_at (the newest data date of its input).', () => {
    const at = Date.parse(sources.snapshot().builtAt);
    return Number.isFinite(at) ? (Date.now() - at) / 1000 : 0;
  });
  reg.custom(
    custom('cps_snapshot_data_max_age_seconds', 'How old the station data may be (SNAPSHOT_MAX_AGE_DAYS; absent when unset): CpsStaleSnapshot fires above it (D256).', 'gauge', () =>
      (sources.snapshotMaxAgeS ?? 0) > 0 ? [{ labels: {}, value: sources.snapshotMaxAgeS! }] : [],
    ),
  );
  counterBy('cps_snapshot_swaps_total', 'Snapshot swaps since start (SIGHUP, POST /admin/snapshot), by result: swapped, refused (a bad file), missing.', 'result', () => sources.swaps());
  gauge('cps_http_requests_in_flight', 'Requests admitted and not yet answered.', () => sources.inFlight());
  gauge('cps_http_open_connections', 'HTTP connections open now (idle keep-alive ones included; D228).', () => sources.connections()?.open ?? 0);
  counter('cps_http_connections_total', 'HTTP connections accepted since start (D228).', () => sources.connections()?.accepted ?? 0);
  counterBy('cps_auth_refused_total', 'Requests refused 403 by the key check, by reason: key missing, key invalid, group not allowed.', 'reason', () => sources.authRefused());
  counter('cps_availability_updates_total', 'EVSE status updates applied from the feeds (D134).', () => sources.availabilityUpdates());
  counter('cps_availability_stale_total', 'EVSE status updates ignored as older than the status held (D134).', () => sources.availabilityStale());
  counter('cps_availability_unknown_evse_total', 'EVSE status updates for EVSEs no station of the snapshot has (D134).', () => sources.availabilityUnknown());
  reg.custom(
    custom('cps_availability_last_update_age_seconds', 'Seconds since the last EVSE status update was applied (absent before the first).', 'gauge', () => {
      const age = sources.availabilityLastUpdateAge();
      return age === null ? [] : [{ labels: {}, value: age }];
    }),
  );
  counter('cps_password_hashes_total', 'Password hashes computed for signups, logins (unknown addresses too) and resets (D202).', () => sources.passwordHashes());
  reg.custom(
    custom('cps_build_info', 'The service (value 1; its version and Node.js version as labels).', 'gauge', () => [{ labels: { version: sources.build.version, node: sources.build.node }, value: 1 }]),
  );
  counter('cps_storage_errors_total', 'Live-store operations that failed for the storage (D107, D152).', () => sources.storageErrors());
  counter('cps_rate_limited_total', 'Requests refused 429 by the rate limits (D109).', () => sources.rateLimited());
  counterBy('cps_charge_price_cache_total', 'Charge price answers looked up in memory, by result: hit (served from memory) or miss (priced, D287).', 'result', () => sources.chargePriceCache?.() ?? { hit: 0, miss: 0 });
  counterBy('cps_corridor_cache_total', 'Route corridors looked up among those kept, by result: hit (kept stations refined) or miss (decoded and searched, D294).', 'result', () => sources.corridorCache?.() ?? { hit: 0, miss: 0 });
  counterBy('cps_page_cache_total', 'GeoJSON and CSV station pages looked up in the page cache, by result: hit (served from memory) or miss (written, D262).', 'result', () => sources.pageCache?.() ?? { hit: 0, miss: 0 });
  reg.custom(
    custom('cps_db_pool_connections', 'Connections of the PostgreSQL live store pool, by state: idle or busy (absent on SQLite).', 'gauge', () => {
      const p = sources.dbPool();
      return p === null ? [] : [{ labels: { state: 'idle' }, value: p.idle }, { labels: { state: 'busy' }, value: p.total - p.idle }];
    }),
  );
  reg.custom(
    custom('cps_db_pool_waiting', 'Queries waiting for a connection of the PostgreSQL live store pool (absent on SQLite).', 'gauge', () => {
      const p = sources.dbPool();
      return p === null ? [] : [{ labels: {}, value: p.waiting }];
    }),
  );
  counter('cps_live_store_checks_total', 'Generation queries of the read-your-writes check on a shared live store (D151).', () => sources.storeChecks());
  counter('cps_live_store_catch_ups_total', 'Catalog catch-ups that applied changes of other writers (D151).', () => sources.storeCatchUps());
}

/** The latency slot of one (route, method) and its request slots by status. */
interface HotSlots {
  l: LatencySlot;
  byStatus: Map<number, RequestSlot>;
}

export class Metrics {
  readonly registry = new client.Registry();
  private readonly requests = new Map<string, RequestSlot>();
  private readonly latency = new Map<string, LatencySlot>();

  constructor(sources: MetricSources) {
    client.collectDefaultMetrics({ register: this.registry });
    const reg = registrar(this.registry);
    this.registerRequests(reg);
    registerPriceWork(reg, sources);
    registerServiceState(reg, sources);
  }

  /** The per-request series: answers, service time and bytes by route (filled by `observe`). */
  private registerRequests(reg: Registrar): void {
    reg.custom(
      custom('cps_http_requests_total', 'Requests answered, by route template, method and status.', 'counter', () =>
        [...this.requests.values()].map((s) => ({ labels: { route: s.route, method: s.method, status: s.status }, value: s.count })),
      ),
    );
    reg.custom(
      custom('cps_http_request_duration_seconds', 'Service time of requests, by route template and method.', 'histogram', () =>
        [...this.latency.values()].flatMap((s) => histogramValues('cps_http_request_duration_seconds', { route: s.route, method: s.method }, { counts: s.buckets, sum: s.sum, count: s.count })),
      ),
    );
    reg.custom(
      custom('cps_http_response_bytes_total', 'Response body bytes sent (compressed where compressed), by route template.', 'counter', () => {
        const byRoute = new Map<string, number>();
        for (const s of this.latency.values()) byRoute.set(s.route, (byRoute.get(s.route) ?? 0) + s.bytes);
        return [...byRoute].map(([route, value]) => ({ labels: { route }, value }));
      }),
    );
  }

  /**
   * The slots of (route, method) and per status, found by the route template and method strings
   * themselves (the route table's, whose hashes V8 keeps) instead of a label key concatenated per
   * request; filled by `slots`, bounded as the series are (D173).
   */
  private readonly hot = new Map<string | null, Map<string, HotSlots>>();
  private hotCount = 0;

  /** Records one answered request (hot path: three map lookups and a few additions). */
  observe(rawMethod: string, route: string | null, status: number, ms: number, bytesOut: number): void {
    const h = this.hot.get(route)?.get(rawMethod);
    let l: LatencySlot;
    let q = h?.byStatus.get(status);
    if (h !== undefined && q !== undefined) l = h.l;
    else [l, q] = this.slots(rawMethod, route, status);
    const s = ms / 1000;
    let k = 0;
    while (k < BUCKETS.length && s > BUCKETS[k]) k++;
    if (k < BUCKETS.length) l.buckets[k]++;
    l.sum += s;
    l.count++;
    l.bytes += bytesOut;
    q.count++;
  }

  /** The series of one request by their label keys (made when new, D173's caps), kept in `hot`. */
  private slots(rawMethod: string, route: string | null, status: number): [LatencySlot, RequestSlot] {
    const rt = route ?? 'unmatched';
    // Clients choose the method: only the known ones become labels (bounded series).
    const method = KNOWN_METHODS.has(rawMethod) ? rawMethod : 'OTHER';
    let key = method + ' ' + rt;
    let l = this.latency.get(key);
    if (l === undefined) {
      // Routes are templates and statuses the service's own, so the series are bounded by the
      // route table; the cap holds even if a label ever came from a request (D173).
      const label = this.latency.size < MAX_SERIES ? rt : 'overflow';
      key = method + ' ' + label;
      l = this.latency.get(key) ?? { method, route: label, buckets: new Float64Array(BUCKETS.length), sum: 0, count: 0, bytes: 0 };
      this.latency.set(key, l);
    }
    let rkey = key + ' ' + status;
    let q = this.requests.get(rkey);
    if (q === undefined) {
      const st = this.requests.size < MAX_SERIES * 4 ? String(status) : 'overflow';
      rkey = key + ' ' + st;
      q = this.requests.get(rkey) ?? { method, route: l.route, status: st, count: 0 };
      this.requests.set(rkey, q);
    }
    if (this.hotCount < MAX_SERIES * 4) {
      let byMethod = this.hot.get(route);
      if (byMethod === undefined) this.hot.set(route, (byMethod = new Map<string, HotSlots>()));
      let h = byMethod.get(rawMethod);
      if (h === undefined) byMethod.set(rawMethod, (h = { l, byStatus: new Map<number, RequestSlot>() }));
      h.byStatus.set(status, q);
      this.hotCount++;
    }
    return [l, q];
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }
}
