import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { CompanyRegistry } from '../domain/companies/registry.js';
import type { TariffCatalog } from '../domain/tariffs/catalog.js';
import type { VehicleRegistry } from '../domain/vehicles/vehicle.js';
import type { TokenIssuer, TokenVerifier } from '../auth/token.js';
import type { Passwords } from '../auth/passwords.js';
import type { AccountLimits } from '../auth/rate-limit.js';
import type { Mailer } from '../mail/mailer.js';
import type { LiveStore } from '../storage/live.js';
import type { LiveSync } from './live-sync.js';
import type { Snapshot } from '../storage/snapshot.js';
import type { StationIndex } from '../domain/stations/index.js';
import type { AvailabilitySource } from '../storage/availability.js';
import type { PricePool } from '../pool/pool.js';
import type { Metrics } from '../metrics.js';
import type { SnapshotControl } from './snapshot-control.js';
import type { LiveAvailability } from '../domain/stations/live-availability.js';

/** Everything handlers need, built by the composition root (src/app.ts) and again for each snapshot swap (src/snapshot-swap.ts). */
export interface AppContext {
  readonly config: Config;
  readonly logger: Logger;
  readonly snapshot: Snapshot;
  readonly live: LiveStore;
  /** Keeps companies, tariffs and keys current with the live store (D151). */
  readonly sync: LiveSync;
  /** All companies in memory; company writes update it after they commit. */
  readonly companies: CompanyRegistry;
  /** All vehicles and brands of the snapshot by id (D62), with their pricing fields; immutable. */
  readonly vehicles: VehicleRegistry;
  /** Bearer-token verification for device registration (D4). */
  readonly tokens: TokenVerifier;
  /** All tariffs, sub tariffs and EVSE-level prices in memory with the catalog generation; tariff and company writes update it after they commit. */
  readonly tariffs: TariffCatalog;
  /** All stations of the snapshot (columns, kdbush, fragments); immutable. */
  readonly stations: StationIndex;
  /** Live charge point availability (migration 002, D3). */
  readonly availability: AvailabilitySource;
  /** Price work (charge prices, bulk previews, tariff details): Piscina workers or inline. */
  readonly prices: PricePool;
  /** EVSE statuses of the status feeds, in memory (D134–D136); absent where no feed is served. */
  readonly liveAvailability?: LiveAvailability;
  /** Hot snapshot swap (D133); absent where the service runs without one (benchmarks, tools). */
  readonly snapshots?: SnapshotControl;
  /** performance.now() at start, for uptime. */
  readonly startedAt: number;
  /** Accounts (D200–D214): absent when off or when no token can be signed (D203). */
  readonly accounts?: AccountDeps;
  /** Prometheus metrics (`GET /metrics`); absent in contexts built by tests. */
  readonly metrics?: Metrics;
}

/** What the account routes share across snapshot swaps (the guessing limits must not reset with one). */
export interface AccountDeps {
  readonly issuer: TokenIssuer;
  readonly passwords: Passwords;
  readonly mailer: Mailer;
  readonly limits: AccountLimits;
}
