/**
 * Price work executor: a Piscina pool of pricing workers (the only importer of piscina on the main
 * side) with admission control, or inline evaluation on the main thread.
 *
 * - Every task carries the catalog generation the main thread had when it dispatched the task;
 *   the worker catches up to it from the live store before running (read-your-writes, see
 *   StoreCatalog.syncTo).
 * - Admission control (D106): tasks wait for a free worker in this module's own FIFO (Piscina
 *   only ever holds as many tasks as there are workers). A task is refused 503 SERVICE_UNAVAILABLE
 *   with `Retry-After` when `maxQueue` tasks already wait, answered 503 instead of computed when it
 *   waited longer than `maxQueueWaitMs`, and answered 503 when its answer is not ready
 *   `deadlineMs` after it was dispatched (the late answer is dropped). `saturated()` lets the
 *   HTTP layer refuse price requests before reading their bodies.
 * - What runs where is planned by src/pool/planner.ts (inline, one worker, or split).
 * - A worker's outcome is a typed value (`Outcome`): a reply, a storage fault (503, D152), a
 *   refusal (503, D106) or a failure (the worker died: Piscina replaces it; 500). One place turns
 *   an outcome other than a reply into the error the API answers.
 * - Results are values ({status, body}); a worker never throws a domain outcome.
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BroadcastChannel } from 'node:worker_threads';
import { Histogram } from '../domain/histogram.js';
import { Piscina } from 'piscina';
import type { Logger } from 'pino';
import type { PricingCatalog, RateTable } from '../domain/pricing/index.js';
import { GrowableBytes } from '../domain/bytes.js';
import { OutputSlots } from './output.js';
import type {
  ChargePricePartView,
  ChargePricesTask,
  PartMessage,
  PartReply,
  PriceWork,
  StationChannelMessage,
  TaskInputs,
  TaskMessage,
  TaskName,
  TaskReply,
  TaskResult,
  WorkerInit,
} from './protocol.js';
import { StationView, type SharedStationData } from './stations.js';
import { isStorageFaultReply } from './protocol.js';
import { PricePlanner, type Plan, type PriceWorkShape } from './planner.js';
import { StorageUnavailableError } from '../storage/live.js';
import { childSpan } from '../tracing.js';

/** Compiled worker module, located relative to this module (dist/src/pool → dist/workers). */
export const WORKER_FILE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../workers/pricing.worker.js');

/**
 * The workers' Node options (D290): the process's own, without require(esm) where the runtime has
 * it. Piscina loads the worker file with `require` first; with require(esm) (Node 20.19+, 22.12+)
 * that loads this ESM worker synchronously, and a worker terminated in the middle of it (a signal
 * during start-up ends the process, D102) aborts the whole process with a V8 fatal error
 * ("v8::Module::IsGraphAsync must be used on an instantiated module", SIGABRT). Without it,
 * `require` refuses the file and Piscina imports it, which a termination ends cleanly.
 */
export function workerExecArgv(): string[] | undefined {
  return process.features.require_module ? [...process.execArgv, '--no-experimental-require-module'] : undefined;
}

export interface PoolOptions {
  workers: number;
  maxQueue: number;
  /** A task that waited this long for a worker is answered 503 instead of computed (D106). */
  maxQueueWaitMs: number;
  /** A task whose answer is not ready this long after dispatch is answered 503 (D106). */
  deadlineMs: number;
  /**
   * Tasks whose caller estimates at most this many tariff × charge point evaluations run inline;
   * 0 = never (see `DEFAULT_INLINE_MAX_EVALUATIONS` in src/config.ts).
   */
  inlineMaxEvaluations: number;
  /**
   * Charge price tasks whose caller estimates at least this many evaluations are split over the
   * workers when enough of them are idle; 0 = never (see `DEFAULT_SPLIT_MIN_EVALUATIONS` in
   * src/config.ts).
   */
  splitMinEvaluations: number;
  init: WorkerInit;
  /** The task table for inline work and the merge of split requests (src/api/price-work.ts). */
  work: PriceWork;
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

/** A Buffer over the same bytes (no copy). */
const bufferOf = (bytes: Uint8Array): Buffer => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/**
 * Price work refused (D106): closed, `maxQueue` tasks waiting, waited longer than
 * `maxQueueWaitMs`, or past `deadlineMs`. The API answers it 503 `overloaded, retry later`.
 */
export class PoolOverloadedError extends Error {
  constructor(readonly reason: 'closed' | 'full' | 'expired' | 'deadline') {
    super(`price work refused: ${reason}`);
  }
}

/** The worker running a task died (it is replaced). The API answers it 500 `price calculation failed`. */
export class PoolTaskFailedError extends Error {}

/** What became of a task handed to a worker. */
type Outcome =
  | { kind: 'ok'; reply: unknown }
  | { kind: 'storage'; message: string }
  | { kind: 'overloaded'; error: PoolOverloadedError }
  | { kind: 'failed'; error: unknown };

/** A task waiting for a free worker. */
interface Waiting {
  since: number;
  start: () => void;
  refuse: () => void;
}

/** Admission counters (tests, metrics). */
export interface AdmissionCounts {
  /** Refused because `maxQueue` tasks waited. */
  full: number;
  /** Waited longer than `maxQueueWaitMs`. */
  expired: number;
  /** Not answered within `deadlineMs`. */
  deadline: number;
}

export class PricePool {
  private readonly piscina: Piscina | null;
  private stations: StationView;
  private stationGen: number;
  /** Worker tasks in flight per station generation (a generation is released when it drops to 0). */
  private readonly perStationGen = new Map<number, number>();
  private readonly channel: BroadcastChannel | null;
  private readonly catalog: PricingCatalog | null;
  private readonly output: OutputSlots;
  private closed = false;
  /** Tasks (and parts) handed to workers and not yet answered. */
  private inFlight = 0;
  /** Main-thread buffer split answers are merged into; `mergeBusy` while one is being sent. */
  private readonly merged = new GrowableBytes(1 << 20);
  private mergeBusy = false;
  /** Requests answered split, and split requests run again whole (parts at different generations). */
  readonly splits = { merged: 0, rerun: 0 };
  /** Tasks waiting for a worker, oldest first from `waitHead`. */
  private waiting: Waiting[] = [];
  private waitHead = 0;
  /** Tasks handed to Piscina (at most `workers`). */
  private running = 0;
  /** Moving average of a worker task's run time, for the wait estimate. */
  private serviceMs = 0;
  private sweep: NodeJS.Timeout | null = null;
  readonly admission: AdmissionCounts = { full: 0, expired: 0, deadline: 0 };
  readonly planner: PricePlanner;
  /** Tasks run inline and in workers, workers that died, and the time tasks waited (metrics). */
  readonly counts = { inline: 0, pooled: 0, workerDeaths: 0, waitMs: 0, waited: 0 };
  /** Time pooled tasks waited for a worker, and the time from dispatch to a worker's answer (metrics, D120). */
  readonly waitTimes = new Histogram();
  readonly workerTimes = new Histogram();
  /** Main-thread time of inline tasks (D120): what they hold the event loop for. */
  readonly inlineTimes = new Histogram();

  constructor(private readonly o: PoolOptions) {
    this.stations = new StationView(o.init.stations);
    this.stationGen = o.init.stationGeneration ??= 0;
    o.init.stationChannel ??= `stations-${process.pid}-${randomUUID()}`;
    this.channel = o.workers > 0 ? new BroadcastChannel(o.init.stationChannel) : null;
    this.channel?.unref();
    this.output = new OutputSlots(o.init.output);
    this.planner = new PricePlanner(o);
    this.catalog = this.planner.needsCatalog ? o.catalog() : null;
    this.piscina =
      o.workers > 0
        ? new Piscina({
            filename: WORKER_FILE,
            minThreads: o.workers,
            maxThreads: o.workers,
            // Tasks wait in `waiting`; Piscina's own queue (unbounded, its default) holds only
            // the few start-up and station-sync tasks sent past it, so it never refuses one.
            idleTimeout: 2 ** 31 - 1,
            // Idle workers wait for tasks on their message port, not blocked in Atomics.wait
            // (D288): the main thread spent less CPU per station price answer that way.
            atomics: 'disabled',
            workerData: o.init,
            execArgv: workerExecArgv(),
          })
        : null;
    this.piscina?.on('error', (e: unknown) => o.logger.error({ err: e }, 'pricing worker error'));
  }

  /**
   * Candidate tariffs at a CPO (D66, before option filters) for estimating a task on the main
   * thread. Without a main-thread catalog no plan depends on the estimate (the planner keeps one
   * whenever a plan could), and 0 is answered.
   */
  candidatesAt(cpoId: string): number {
    return this.catalog === null ? 0 : this.catalog.candidatesAt(cpoId).slots.length;
  }

  /** The plan of a request (src/pool/planner.ts), with the workers idle right now. */
  plan<W extends PriceWorkShape>(w: W): Plan & { task: W['task'] } {
    return this.planner.plan(w, Math.max(0, this.o.workers - this.inFlight));
  }

  /**
   * Swaps the station data (hot snapshot swap): inline tasks use it at once, worker tasks
   * dispatched from now on carry the new generation, and workers receive the data on the station
   * channel before such a task runs. Workers started later get it in their `workerData`. The old
   * generation is released in the workers once no task of it is in flight.
   */
  swapStations(generation: number, stations: SharedStationData): void {
    const old = this.stationGen;
    this.stations = new StationView(stations);
    this.stationGen = generation;
    // Piscina hands this same object to workers it starts later.
    this.o.init.stations = stations;
    this.o.init.stationGeneration = generation;
    this.channel?.postMessage({ generation, stations } satisfies StationChannelMessage);
    if ((this.perStationGen.get(old) ?? 0) === 0) this.releaseStations(old);
  }

  /**
   * Whether `ids` (a station index's id column) is the station data tasks are dispatched with now.
   * A handler of a route table from before a snapshot swap (its request's body was still being
   * read) holds the older index: its station indices mean other stations in the current data.
   */
  dispatchesStations(ids: ArrayBufferView): boolean {
    return ids.buffer === this.stations.d.ids.buffer;
  }

  /** The station data generation tasks are dispatched with. */
  get stationGeneration(): number {
    return this.stationGen;
  }

  private releaseStations(generation: number): void {
    this.perStationGen.delete(generation);
    if (generation !== this.stationGen) {
      this.channel?.postMessage({ release: generation } satisfies StationChannelMessage);
      this.syncWorkers();
    }
  }

  /**
   * One small task per worker, carrying the current generation, makes each take the new data and
   * drop the older ones now (D137), so that no worker keeps the old snapshot's shared data alive
   * (1 M stations: 0.7 GB) until its next collection. Piscina hands simultaneous tasks to idle
   * workers one each.
   */
  private syncWorkers(): void {
    const p = this.piscina;
    if (p === null || this.closed) return;
    for (let i = 0; i < this.o.workers; i++) {
      (p.run(this.stationGen, { name: 'syncStations' }) as Promise<unknown>).catch(() => undefined);
    }
  }

  /** How idle workers wait for tasks: `disabled` is on their message port (D288; tests). */
  get workerAtomics(): string | null {
    return this.piscina?.options.atomics ?? null;
  }

  /** Output slots taken right now (tests: every answer sent frees its slot). */
  outputSlotsTaken(): number {
    return this.output.taken();
  }

  /** Whether price work can run (readiness): not closed, and with workers configured, at least one thread. */
  alive(): boolean {
    return !this.closed && (this.piscina === null || this.piscina.threads.length > 0);
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
   * Runs a task as planned: inline, in a worker, or split over idle workers (charge prices; run
   * whole when the workers are no longer idle or the parts disagree). Rejects with
   * PoolOverloadedError when the work is refused (D106), StorageUnavailableError when a worker's
   * catalog cannot catch up (D152) and PoolTaskFailedError when the worker running the task died.
   */
  async run<K extends TaskName>(plan: Plan & { task: K }, input: TaskInputs[K]): Promise<TaskResult> {
    if (this.closed) throw new PoolOverloadedError('closed');
    const name = plan.task;
    const p = this.piscina;
    if (p === null || plan.mode === 'inline') {
      this.counts.inline++;
      const span = childSpan('price.inline');
      const t0 = performance.now();
      const r = this.o.work.runTask({ catalog: this.catalog!, rates: this.o.rates, stations: this.stations }, name, input);
      this.inlineTimes.observe((performance.now() - t0) / 1000);
      span?.end({ 'cps.task': name });
      return typeof r.body === 'string' ? { status: r.status, body: r.body } : { status: r.status, body: bufferOf(r.body) };
    }
    if (name === 'chargePrices' && plan.mode === 'split' && this.inFlight + plan.parts <= this.o.workers) {
      const r = await this.runSplit(p, input as ChargePricesTask, plan.parts);
      if (r !== null) return r;
    }
    const msg: TaskMessage = { name, generation: this.o.generation(), stations: this.stationGen, input };
    const reply = (await this.dispatch(p, msg, 'task', name)) as TaskReply;
    if (reply instanceof Uint8Array) return { status: 200, body: bufferOf(reply) };
    const slots = this.output;
    const k = reply.slot;
    return { status: 200, body: slots.view(k, reply.length), release: () => slots.release(k) };
  }

  /**
   * Whether a price request arriving now should be refused before its body is read (D106): the
   * pool is closed, `maxQueue` tasks wait, the oldest waiting task has used half of
   * `maxQueueWaitMs`, or the tasks waiting would keep the workers busy longer than that.
   */
  saturated(): boolean {
    if (this.closed) return true;
    if (this.piscina === null) return false;
    const waiting = this.waiting.length - this.waitHead;
    if (waiting === 0) return false;
    if (waiting >= this.o.maxQueue) return true;
    const limit = this.o.maxQueueWaitMs;
    if (performance.now() - this.waiting[this.waitHead].since > limit / 2) return true;
    return (waiting * this.serviceMs) / this.o.workers > limit;
  }

  /** Tasks waiting for a worker right now. */
  get queued(): number {
    return this.waiting.length - this.waitHead;
  }

  /** Resolves when a worker is free for this task; rejects 503 when the wait is refused or too long. */
  private acquire(): Promise<void> | null {
    if (this.running < this.o.workers && this.queued === 0) {
      this.running++;
      return null;
    }
    if (this.queued >= this.o.maxQueue) {
      this.admission.full++;
      throw new PoolOverloadedError('full');
    }
    return new Promise<void>((resolve, reject) => {
      this.waiting.push({
        since: performance.now(),
        start: () => {
          this.running++;
          resolve();
        },
        refuse: () => reject(new PoolOverloadedError('expired')),
      });
      if (this.sweep === null) {
        this.sweep = setInterval(() => this.pump(), Math.max(5, this.o.maxQueueWaitMs / 4));
        this.sweep.unref();
      }
    });
  }

  /** Starts waiting tasks on free workers; answers 503 to those that waited too long. */
  private pump(): void {
    const now = performance.now();
    const limit = this.o.maxQueueWaitMs;
    const q = this.waiting;
    while (this.waitHead < q.length) {
      const w = q[this.waitHead];
      const expired = now - w.since > limit;
      if (!expired && this.running >= this.o.workers) break;
      this.waitHead++;
      if (expired) {
        this.admission.expired++;
        w.refuse();
      } else w.start();
    }
    if (this.waitHead === q.length) {
      this.waiting = [];
      this.waitHead = 0;
      if (this.sweep !== null) {
        clearInterval(this.sweep);
        this.sweep = null;
      }
    } else if (this.waitHead > 1024) {
      this.waiting = q.slice(this.waitHead);
      this.waitHead = 0;
    }
  }

  /**
   * Runs a message in a worker once one is free: 503 when the wait is refused, too long, or the
   * answer misses the deadline; 500 when the worker died.
   */
  private async dispatch(p: Piscina, msg: TaskMessage | PartMessage, fn: 'task' | 'part', task: string): Promise<unknown> {
    const dispatched = performance.now();
    const waitSpan = childSpan('price.queue_wait');
    let wait: Promise<void> | null;
    try {
      wait = this.acquire();
    } catch (e) {
      waitSpan?.end({ 'cps.refused': 'full' });
      throw e;
    }
    if (wait !== null) await wait.finally(() => waitSpan?.end());
    else waitSpan?.end();
    const taskSpan = childSpan('price.task');
    this.counts.pooled++;
    this.counts.waited++;
    const waitedMs = performance.now() - dispatched;
    this.counts.waitMs += waitedMs;
    this.waitTimes.observe(waitedMs / 1000);
    // From here until the worker answers (also past a deadline) the task holds a worker, and its
    // station generation stays in use.
    this.inFlight++;
    const gen = msg.stations;
    this.perStationGen.set(gen, (this.perStationGen.get(gen) ?? 0) + 1);
    const t0 = performance.now();
    const settle = (): void => {
      const ms = performance.now() - t0;
      taskSpan?.end({ 'cps.task': task });
      this.workerTimes.observe(ms / 1000);
      this.serviceMs = this.serviceMs === 0 ? ms : this.serviceMs * 0.9 + ms * 0.1;
      this.running--;
      this.inFlight--;
      const left = (this.perStationGen.get(gen) ?? 1) - 1;
      if (left === 0 && gen !== this.stationGen) this.releaseStations(gen);
      else this.perStationGen.set(gen, left);
      this.pump();
    };
    const run: Promise<Outcome> = (p.run(msg, { name: fn }) as Promise<unknown>).then(
      (reply) => {
        settle();
        return isStorageFaultReply(reply) ? { kind: 'storage', message: reply.message } : { kind: 'ok', reply };
      },
      (error: unknown) => {
        settle();
        return { kind: 'failed', error };
      },
    );
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<Outcome>((resolve) => {
      timer = setTimeout(
        () => {
          this.admission.deadline++;
          // The answer still arrives later: free its output slot then.
          void run.then((o) => o.kind === 'ok' && this.drop(o.reply));
          resolve({ kind: 'overloaded', error: new PoolOverloadedError('deadline') });
        },
        Math.max(0, this.o.deadlineMs - (t0 - dispatched)),
      );
    });
    const outcome = await Promise.race([run, deadline]);
    clearTimeout(timer);
    return this.replyOf(outcome, task);
  }

  /** The reply of an outcome; any other outcome as the error the API answers. */
  private replyOf(o: Outcome, task: string): unknown {
    switch (o.kind) {
      case 'ok':
        return o.reply;
      case 'storage':
        throw new StorageUnavailableError('EWORKER', o.message);
      case 'overloaded':
        throw o.error;
      case 'failed':
        this.counts.workerDeaths++;
        this.o.logger.error({ err: o.error, task }, 'pricing worker failed');
        throw new PoolTaskFailedError('price calculation failed');
    }
  }

  /** Frees the output slot of an answer nobody waits for any more. */
  private drop(reply: unknown): void {
    if (reply !== null && typeof reply === 'object' && !(reply instanceof Uint8Array)) {
      const slot = (reply as { slot?: number }).slot;
      if (typeof slot === 'number' && slot >= 0) this.output.release(slot);
    }
  }

  /**
   * A large charge price request split over idle workers: each prices and writes every
   * `parts`-th candidate, and the main thread merges their sorted entries into the document the
   * whole request gives (`mergeChargePriceParts`). Null when the parts were written at different
   * catalog generations (a write landed in between): the caller then runs the request whole.
   */
  private async runSplit(p: Piscina, input: ChargePricesTask, parts: number): Promise<TaskResult | null> {
    const generation = this.o.generation();
    const stations = this.stationGen;
    const settled = await Promise.allSettled(
      Array.from({ length: parts }, (_, index) =>
        this.dispatch(p, { generation, stations, input: { ...input, part: { index, count: parts } } } satisfies PartMessage, 'part', 'chargePrices'),
      ),
    );
    const replies: PartReply[] = [];
    let failure: unknown = null;
    for (const s of settled) {
      if (s.status === 'fulfilled') replies.push(s.value as PartReply);
      else failure ??= s.reason;
    }
    const slots = this.output;
    const views: ChargePricePartView[] = replies.map((r) => ({
      bytes: r.slot >= 0 ? slots.view(r.slot, r.length) : bufferOf(r.bytes!),
      ends: r.ends,
      lows: r.lows,
      ranks: r.ranks,
    }));
    const consistent = failure === null && replies.every((r) => r.generation === replies[0].generation);
    let body: Buffer | null = null;
    let out = this.merged;
    if (consistent) {
      if (this.mergeBusy) out = new GrowableBytes(1 << 20);
      else this.mergeBusy = true;
      body = this.o.work.mergeChargePriceParts(views, replies[0].closing, out);
    }
    for (const r of replies) if (r.slot >= 0) slots.release(r.slot);
    if (failure !== null) throw failure;
    if (body === null) {
      this.splits.rerun++;
      return null;
    }
    this.splits.merged++;
    return { status: 200, body, release: out === this.merged ? () => (this.mergeBusy = false) : undefined };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.sweep !== null) clearInterval(this.sweep);
    await this.piscina?.close({ force: false });
    this.channel?.close();
  }
}
