/**
 * The messages between the main thread's pool (src/pool/pool.ts) and the pricing workers
 * (workers/pricing.worker.ts): what a worker starts with, the tasks it is sent, what it answers,
 * and the station data channel. Both sides import it; neither imports the other.
 */
import type { OutputSlotsInit } from './output.js';
import type { SharedStationData } from './stations.js';
import type {
  BulkRequest,
  ChargeInput,
  ChargePointInput,
  ChargePriceOptions,
  Dimension,
  IncludeMode,
  Language,
  PricingCatalog,
  RateTable,
  StationContext,
  VehiclePricing,
} from '../domain/pricing/index.js';
import type { GrowableBytes } from '../domain/bytes.js';
import type { StationView } from './stations.js';

/**
 * A worker's answer when its catalog could not catch up from the live store before the task
 * (D152): a value, so the pool tells it from a failed worker by its type, and the request is
 * answered as the storage fault it is (503 `storage unavailable`).
 */
export interface StorageFaultReply {
  fault: 'storage';
  message: string;
}

export function isStorageFaultReply(r: unknown): r is StorageFaultReply {
  return typeof r === 'object' && r !== null && (r as { fault?: unknown }).fault === 'storage';
}

export interface WorkerInit {
  dataDir: string;
  /** The PostgreSQL live store, when the service uses one (else the SQLite file in dataDir). */
  databaseUrl: string | null;
  snapshotPath: string;
  stations: SharedStationData;
  /**
   * Generation of `stations` (0 at start, +1 per snapshot swap); a worker started later gets the
   * current data and generation here, running workers get new data on `stationChannel`.
   */
  stationGeneration?: number;
  /** BroadcastChannel name for station data swaps (set by the pool). */
  stationChannel?: string;
  /** Test hook (never set in production): a worker thread exits when a task mentions this id. */
  exitOnNetwork: string | null;
  /** Shared output slots the workers copy their answers into (src/pool/output.ts). */
  output: OutputSlotsInit;
}

/** Size of one output slot: a busy station's charge prices (1,000 tariffs × 4 charge points) are about 1.2 MB. */
export const OUTPUT_SLOT_BYTES = 4 << 20;

/** Output slots per worker: one answer being sent while the next is written. */
export const OUTPUT_SLOTS_PER_WORKER = 2;

/** What a worker answers: an output slot and the answer's length, or the answer's bytes (transferred). */
export type TaskReply = { slot: number; length: number } | Uint8Array;

/** One part of a split charge price request (see `PricePool.run`). */
export interface PartMessage {
  generation: number;
  /** Station data generation the request was admitted on. */
  stations: number;
  input: ChargePricesPartTask;
}

/**
 * A part's entries (in output slot `slot`, or in `bytes` when `slot` is −1) with their index, and
 * the catalog generation the worker wrote them at.
 */
export interface PartReply {
  generation: number;
  slot: number;
  length: number;
  bytes: Uint8Array | null;
  ends: Int32Array;
  lows: Float64Array;
  ranks: Int32Array;
  closing: string;
}

export interface TaskMessage {
  name: TaskName;
  generation: number;
  /** Station data generation the request was admitted on (the worker uses that data). */
  stations: number;
  input: TaskInputs[TaskName];
}

/** Messages on the station channel: new data for a generation, or an old generation no task uses any more. */
export type StationChannelMessage = { generation: number; stations: SharedStationData } | { release: number };

// ---- Price tasks: the inputs the main thread resolves and the documents a thread returns ----

export interface ChargePricesTask {
  station: StationContext;
  input: ChargeInput;
  options: ChargePriceOptions;
  listed: string[] | null;
  include: IncludeMode;
  showPriceUnavailable: boolean;
  lang: Language;
  nowMs: number;
}

/** A bulk preview request with its stations as raw ids, resolved in the worker's station view. */
export interface BulkTask extends Omit<BulkRequest, 'stations'> {
  stationIds: string[];
}

export interface TariffDetailsFilter {
  brand_restricted_tariffs: boolean;
  foreign_tariffs: boolean;
  provider_customer_tariffs: boolean;
  tariffs_without_prices: boolean;
  average_prices: boolean;
  dimensions: Dimension[];
}

export interface TariffDetailsTask {
  /** CPO query (country + operator) or station query (ids, in request order). */
  query: { kind: 'cpo'; country: string; operatorId: string } | { kind: 'stations'; ids: string[] };
  chargePoint: ChargePointInput | null;
  filter: TariffDetailsFilter;
  /** `relationships.tariffs` IDs, or null when absent. */
  tariffs: string[] | null;
}

export type TaskName = 'chargePrices' | 'bulk' | 'tariffDetails' | 'stationPrices' | 'cdrCost' | 'tripPlan';

/**
 * An OCPI CDR cost (D226): the request's attributes, validated, checked and bounded on the main
 * thread, as JSON text (a structured clone of a large body costs the main thread 8× its text),
 * and the answer's id.
 */
export interface CdrCostTask {
  /** The request's attributes as JSON text. */
  text: string;
  /** Its tariff as JSON text: the key of the tariff's preparation (D280). */
  tariff: string;
  id: string;
}

/**
 * The bulk calculation (D91) over stations (area and route price search, D110–D114; price tiles, D198),
 * with their charge points narrowed to `plugs` (null: all) and power ≥ `chargePointsPowerGte`.
 * Answers station price rows (D288, src/pool/price-rows.ts): per priced station its position
 * in the given stations, price, energy, duration, plug, power and tariff, in input order.
 */
export interface StationPricesTask extends Omit<BulkRequest, 'stations'> {
  /**
   * Station indices in the station data the task is dispatched with. Indices rather than ids: a
   * worker looking 400 ids up by binary search (a string decoded per probe) spent 0.5 ms of a 7 ms
   * radius search on it. A handler whose index is not that data (a snapshot swap while its body
   * was read) sends ids instead, so snapshots are never mixed.
   */
  stations: { indices: Int32Array } | { ids: string[] };
  plugs: string[] | null;
  chargePointsPowerGte: number | null;
}

/**
 * A trip plan (D267–D271): the candidate stations of the corridor in route order (as station
 * prices send them, with their distances), the vehicle and the model's parameters. Answers
 * `{"ok":true,"cost":…,"arrival":…,"stops":[[position,arrival,from,to,cp,plug,power,tariff,price,energy,duration],…],"priced":…}`
 * or `{"ok":false,"runs_out":…,"start_soc_needed":…,"priced":…}`.
 */
export interface TripPlanTask {
  stations: { indices: Int32Array } | { ids: string[] };
  along: Float64Array;
  off: Float64Array;
  length: number;
  vehicle: VehiclePricing;
  consumption: number;
  startSoc: number;
  minSoc: number;
  maxSoc: number;
  step: number;
  timeValue: number;
  detourSpeed: number;
  tariffIds: string[] | null;
  includeDirectPayment: boolean;
  currency: string;
  startTime: number;
  startDay: number;
  allowUnbalancedLoad: boolean;
  plugs: string[] | null;
  chargePointsPowerGte: number | null;
  chargePointsPowerLte: number | null;
}

/**
 * A station prices task as sent to a thread: everything but the stations as JSON text (one string
 * per request, the same for each of its parts: a structured clone of its 200 tariff ids and the
 * vehicle cost the main thread several times the text's), and the stations.
 */
export interface StationPricesMessage {
  base: string;
  stations: StationPricesTask['stations'];
}

export interface TaskInputs {
  chargePrices: ChargePricesTask;
  bulk: BulkTask;
  tariffDetails: TariffDetailsTask;
  stationPrices: StationPricesMessage;
  cdrCost: CdrCostTask;
  tripPlan: TripPlanTask;
}

/**
 * What a task computes: the status and serialized document (always a value, never a throw), as
 * JSON text or as UTF-8 bytes in an ArrayBuffer of their own (transferable).
 */
export interface TaskDocument {
  status: number;
  body: string | Uint8Array;
}

/** Outcome handed to a handler: the document as JSON text (inline) or UTF-8 bytes (from a worker). */
export interface TaskResult {
  status: number;
  body: string | Buffer;
  /** Frees the body's shared output slot once it has been sent (see src/pool/output.ts). */
  release?: () => void;
}

/** Everything a thread needs to run tasks. */
export interface TaskEnv {
  catalog: PricingCatalog;
  rates: RateTable;
  stations: StationView;
}

/** One share of a charge price request's candidates (see `ChargePriceRequest.part`). */
export interface ChargePricesPartTask extends ChargePricesTask {
  part: { index: number; count: number };
}

/** Runs a named task against a thread's catalog (the task table, src/api/price-work.ts). */
export type RunTask = (env: TaskEnv, name: TaskName, input: TaskInputs[TaskName]) => TaskDocument;

/** A part's entries as received by the thread that merges them (its bytes may sit in a shared output slot). */
export interface ChargePricePartView {
  bytes: Buffer;
  ends: Int32Array;
  lows: Float64Array;
  ranks: Int32Array;
}

/** Merges the parts of a split charge price request into the whole document (src/api/prices/charge-prices.writer.ts). */
export type MergeParts = (parts: readonly ChargePricePartView[], closing: string, out: GrowableBytes) => Buffer;

/** The price work a pool runs: the task table and the merge of split charge prices (src/api/price-work.ts). */
export interface PriceWork {
  runTask: RunTask;
  mergeChargePriceParts: MergeParts;
}
