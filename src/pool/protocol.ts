/**
 * The messages between the main thread's pool (src/pool/pool.ts) and the pricing workers
 * (workers/pricing.worker.ts): what a worker starts with, the tasks it is sent, what it answers,
 * and the station data channel. Both sides import it; neither imports the other.
 */
import type { OutputSlotsInit } from './output.js';
import type { SharedStationData } from './stations.js';
import type { ChargePricesPartTask, TaskInputs, TaskName } from './tasks.js';

export interface WorkerInit {
  dataDir: string;
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
