/**
 * Price work executor: a Piscina pool of pricing workers (the only importer of piscina on the main
 * side) with admission control, or inline evaluation on the main thread.
 *
 * - Every task carries the catalog generation the main thread had when it dispatched the task;
 *   the worker catches up to it from the live store before running (read-your-writes, see
 *   StoreCatalog.syncTo).
 * - Bounded queue: when `maxQueue` tasks wait, `run` answers 503 SERVICE_UNAVAILABLE with
 *   `Retry-After` without queueing.
 * - A worker that dies mid-task: Piscina replaces it; the task's request is answered 500 and the
 *   pool keeps serving.
 * - Results are values ({status, body}); a worker never throws a domain outcome.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import type { Logger } from 'pino';
import { ApiError } from '../api/jsonapi/errors.js';
import type { PricingCatalog, RateTable } from '../domain/pricing/index.js';
import { OutputSlots, type OutputSlotsInit } from './output.js';
import { StationView, type SharedStationData } from './stations.js';
import { runTask, type TaskInputs, type TaskName, type TaskResult } from './tasks.js';

/** Compiled worker module, located relative to this module (dist/src/pool → dist/workers). */
export const WORKER_FILE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../workers/pricing.worker.js');

export interface WorkerInit {
  dataDir: string;
  snapshotPath: string;
  stations: SharedStationData;
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

export interface PoolOptions {
  workers: number;
  maxQueue: number;
  /**
   * Tasks whose caller estimates at most this many tariff × charge point evaluations run inline;
   * 0 = never (see `DEFAULT_INLINE_MAX_EVALUATIONS` in src/config.ts).
   */
  inlineMaxEvaluations: number;
  init: WorkerInit;
  /**
   * Builds the main-thread catalog (kept current by change events) for inline tasks; called once
   * at construction, and only when some task runs inline.
   */
  catalog: () => PricingCatalog;
  rates: RateTable;
  /** The catalog generation to hand to workers with each task. */
  generation: () => number;
  logger: Logger;
}

export interface TaskMessage {
  name: TaskName;
  generation: number;
  input: TaskInputs[TaskName];
}

/** A Buffer over the same bytes (no copy). */
const bufferOf = (bytes: Uint8Array): Buffer => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

export const overloaded = (): ApiError =>
  new ApiError('SERVICE_UNAVAILABLE', 'overloaded, retry later', { headers: { 'Retry-After': '1' } });

export class PricePool {
  private readonly piscina: Piscina | null;
  private readonly stations: StationView;
  private readonly catalog: PricingCatalog | null;
  private readonly output: OutputSlots;
  private closed = false;

  constructor(private readonly o: PoolOptions) {
    this.stations = new StationView(o.init.stations);
    this.output = new OutputSlots(o.init.output);
    this.catalog = o.workers === 0 || o.inlineMaxEvaluations > 0 ? o.catalog() : null;
    this.piscina =
      o.workers > 0
        ? new Piscina({
            filename: WORKER_FILE,
            minThreads: o.workers,
            maxThreads: o.workers,
            maxQueue: o.maxQueue,
            idleTimeout: 2 ** 31 - 1,
            workerData: o.init,
          })
        : null;
    this.piscina?.on('error', (e: unknown) => o.logger.error({ err: e }, 'pricing worker error'));
  }

  /**
   * Candidate tariffs at a CPO (D66, before option filters) for estimating a charge price task
   * on the main thread; Infinity when no main-thread catalog is kept.
   */
  candidatesAt(cpoId: string): number {
    return this.catalog === null ? Infinity : this.catalog.candidatesAt(cpoId).slots.length;
  }

  /** Output slots taken right now (tests: every answer sent frees its slot). */
  outputSlotsTaken(): number {
    return this.output.taken();
  }

  get threads(): number {
    return this.piscina?.threads.length ?? 0;
  }

  /** Waits until every worker has loaded its catalog (start-up and tests). */
  async ready(): Promise<void> {
    if (this.piscina === null) return;
    await Promise.all(
      Array.from({ length: this.o.workers }, () => this.piscina!.run(null, { name: 'ping' }) as Promise<unknown>),
    );
  }

  /**
   * Runs a task inline (no workers, or `evaluations` small enough) or in a worker. Rejects with ApiError 503 when the queue is full and 500
   * when the worker running the task died.
   */
  async run<K extends TaskName>(name: K, input: TaskInputs[K], evaluations = Infinity): Promise<TaskResult> {
    if (this.closed) throw overloaded();
    const p = this.piscina;
    if (p === null || evaluations <= this.o.inlineMaxEvaluations) {
      const r = runTask({ catalog: this.catalog!, rates: this.o.rates, stations: this.stations }, name, input);
      return typeof r.body === 'string' ? { status: r.status, body: r.body } : { status: r.status, body: bufferOf(r.body) };
    }
    if (p.queueSize >= this.o.maxQueue) throw overloaded();
    const msg: TaskMessage = { name, generation: this.o.generation(), input };
    try {
      const reply = (await p.run(msg, { name: 'task' })) as TaskReply;
      if (reply instanceof Uint8Array) return { status: 200, body: bufferOf(reply) };
      const slots = this.output;
      const k = reply.slot;
      return { status: 200, body: slots.view(k, reply.length), release: () => slots.release(k) };
    } catch (e) {
      if (e instanceof Error && e.message === 'Task queue is at limit') throw overloaded();
      this.o.logger.error({ err: e, task: name }, 'pricing worker failed');
      throw new ApiError('INTERNAL_SERVER_ERROR', 'price calculation failed');
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.piscina?.close({ force: false });
  }
}
