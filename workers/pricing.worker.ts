/**
 * Pricing worker (Piscina). At start it opens the stores read-only (the snapshot for currency
 * rates, the live store for companies, tariffs and EVSE prices), compiles its catalog, and wraps
 * the station data the main thread shares through SharedArrayBuffers. Before each task it catches
 * up with the catalog generation the task carries. Results are values, never thrown outcomes.
 */
import { BroadcastChannel, workerData } from 'node:worker_threads';
import { move, transferableSymbol, valueSymbol } from 'piscina';
import { StoreCatalog, rateTable } from '../src/pool/catalog.js';
import { OutputSlots } from '../src/pool/output.js';
import { type PartMessage, type StorageFaultReply, type PartReply, type StationChannelMessage, type TaskMessage, type TaskReply, type WorkerInit } from '../src/pool/protocol.js';
import { isStorageFault } from '../src/storage/live.js';
import { collectGarbage } from '../src/gc.js';
import { StationView } from '../src/pool/stations.js';
import { recycleDocument, runChargePricesPart, runTask } from '../src/api/price-work.js';
import type { TaskDocument } from '../src/pool/protocol.js';
import { openLiveStoreReadonly } from '../src/storage/open.js';
import { Snapshot } from '../src/storage/snapshot.js';

const init = workerData as WorkerInit;

const snapshot = Snapshot.open(init.snapshotPath);
const rates = rateTable(snapshot.meta.ratesDate, snapshot.rates());
snapshot.close();
const store = await openLiveStoreReadonly({ dataDir: init.dataDir, databaseUrl: init.databaseUrl }, 1);
const catalog = await StoreCatalog.open(store);
const output = new OutputSlots(init.output);

/**
 * Station data by generation (hot snapshot swap): the newest, plus older ones until a task of the
 * newest arrives or the main thread releases them (no task of theirs in flight; the release is
 * read when the worker next runs its event loop). A task names the generation it was admitted
 * on; one newer than any received waits for the channel message (the main thread posts the data
 * before dispatching such a task).
 */
const views = new Map<number, StationView>([[init.stationGeneration ?? 0, new StationView(init.stations)]]);
let newest = init.stationGeneration ?? 0;
// The view holds the data; workerData must not keep a released generation alive.
(init as { stations: unknown }).stations = null;
const waiting = new Map<number, Array<() => void>>();
if (init.stationChannel !== undefined) {
  const channel = new BroadcastChannel(init.stationChannel);
  channel.unref();
  channel.onmessage = (ev: unknown) => {
    const m = (ev as { data: StationChannelMessage }).data;
    if ('release' in m) {
      if (m.release !== newest && views.delete(m.release)) collectGarbage();
      return;
    }
    if (views.has(m.generation)) return;
    views.set(m.generation, new StationView(m.stations));
    if (m.generation > newest) newest = m.generation;
    for (const [g, fns] of waiting) {
      if (g > newest) continue;
      waiting.delete(g);
      for (const f of fns) f();
    }
  };
}

/** The station data of a generation; an older one that was released gives the oldest kept. */
function stationsAt(generation: number): StationView | null {
  const v = views.get(generation);
  if (v !== undefined) {
    // Tasks leave the queue in order and this worker runs one at a time: once a task of the newest
    // generation arrives, no task of an older one can still come here.
    if (generation === newest && views.size > 1) dropOlderThan(generation);
    return v;
  }
  if (generation > newest) return null;
  let best = newest;
  for (const g of views.keys()) if (g < best) best = g;
  return views.get(best)!;
}

function dropOlderThan(generation: number): void {
  for (const g of [...views.keys()]) if (g < generation) views.delete(g);
  // Free the old shared data now: an idle worker would otherwise keep it until its next collection.
  collectGarbage();
}

/** Waits for the data of a generation not received yet (at most 10 s, then the newest is used). */
function whenStations(generation: number): Promise<StationView> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      resolve(stationsAt(generation) ?? views.get(newest)!);
    };
    const timer = setTimeout(done, 10_000);
    const list = waiting.get(generation) ?? [];
    list.push(done);
    waiting.set(generation, list);
  });
}

/** Takes the station data of `generation` and drops older ones (after a snapshot swap, D137). */
export async function syncStations(generation: number): Promise<number> {
  if (stationsAt(generation) === null) await whenStations(generation);
  return generation;
}

/** A catch-up that failed for the storage's sake is answered as such, told apart from a failed task (D152). */
function storageFault(e: unknown): StorageFaultReply {
  if (isStorageFault(e)) return { fault: 'storage', message: (e as Error).message };
  throw e;
}

export function ping(): number {
  return catalog.generation;
}

const encoder = new TextEncoder();

/**
 * Runs a task; the serialized document goes back as UTF-8 bytes, copied into a free shared
 * output slot (src/pool/output.ts) or, when none is free or it is too large, in an ArrayBuffer of
 * its own, transferred (not cloned). Either way the main thread neither copies nor encodes it.
 * A task that wrote bytes (charge prices) hands over its own; text is encoded here. Tasks only
 * produce 200 documents: every error outcome is decided on the main thread before dispatch.
 */
export function task(msg: TaskMessage): unknown {
  // A CDR cost needs neither stations nor the catalog: no catch-up to wait for (D226).
  if (msg.name === 'cdrCost') return runCurrent(msg, views.get(newest)!);
  const stations = stationsAt(msg.stations);
  if (stations === null) return whenStations(msg.stations).then((v) => runWith(msg, v));
  return runWith(msg, stations);
}

function runWith(msg: TaskMessage, stations: StationView): unknown {
  const sync = catalog.syncTo(msg.generation);
  if (sync !== null) return sync.then(() => runCurrent(msg, stations), storageFault);
  return runCurrent(msg, stations);
}

function runCurrent(msg: TaskMessage, stations: StationView): unknown {
  faultHook(msg.input);
  const r: TaskDocument = runTask({ catalog: catalog.catalog, rates, stations }, msg.name, msg.input);
  const bytes = typeof r.body === 'string' ? encoder.encode(r.body) : r.body;
  const slot = output.put(bytes);
  if (slot >= 0) {
    // The charge price writer may take its buffer back (it handed it over with a large answer).
    recycleDocument(bytes);
    return { slot, length: bytes.length } satisfies TaskReply;
  }
  return move(bytes);
}

/**
 * Runs one part of a split charge price request: its entries go back like a document (output
 * slot or transfer), with their index and the catalog generation they were written at.
 */
export function part(msg: PartMessage): unknown {
  const stations = stationsAt(msg.stations);
  if (stations === null) return whenStations(msg.stations).then((v) => partWith(msg, v));
  return partWith(msg, stations);
}

function partWith(msg: PartMessage, stations: StationView): unknown {
  const sync = catalog.syncTo(msg.generation);
  if (sync !== null) return sync.then(() => partCurrent(msg, stations), storageFault);
  return partCurrent(msg, stations);
}

function partCurrent(msg: PartMessage, stations: StationView): unknown {
  faultHook(msg.input);
  const p = runChargePricesPart({ catalog: catalog.catalog, rates, stations }, msg.input);
  const slot = output.put(p.bytes);
  const index = { generation: catalog.generation, ends: p.ends, lows: p.lows, ranks: p.ranks, closing: p.closing };
  if (slot >= 0) {
    recycleDocument(p.bytes);
    return { ...index, slot, length: p.bytes.length, bytes: null } satisfies PartReply;
  }
  // No free slot: the reply carries the bytes, their buffer transferred (not cloned).
  const reply: PartReply = { ...index, slot: -1, length: p.bytes.length, bytes: p.bytes };
  return move({ [transferableSymbol]: [p.bytes.buffer], [valueSymbol]: reply });
}

/** Test hook only (PRICING_TEST_EXIT_ON_NETWORK): the thread dies mid-task. */
function faultHook(input: unknown): void {
  if (init.exitOnNetwork !== null && JSON.stringify(input).includes(init.exitOnNetwork)) process.exit(1);
}
