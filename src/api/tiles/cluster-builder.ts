/**
 * Cluster builds off the main thread (D191): one worker thread, one build at a time, at most
 * MAX_WAITING more waiting (beyond: 503). The input and the result move between the threads by
 * transfer. Without the compiled worker (the sources run under tsx) a build runs on the calling
 * thread.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { buildClusters, inputBuffers, type ClusterInput, type ClusterSet } from '../../domain/stations/clusters.js';
import { overloadedError } from '../jsonapi/errors.js';

export const CLUSTER_WORKER_FILE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../workers/cluster.worker.js');
export const MAX_WAITING = 4;

interface Pending {
  id: number;
  input: ClusterInput;
  resolve: (s: ClusterSet) => void;
  reject: (e: Error) => void;
}

type Reply = { id: number; set: ClusterSet } | { id: number; error: string };

export class ClusterBuilder {
  private worker: Worker | null = null;
  private running: Pending | null = null;
  private readonly waiting: Pending[] = [];
  private nextId = 1;
  /** Builds finished (for tests and metrics). */
  built = 0;

  constructor(private readonly file = CLUSTER_WORKER_FILE) {}

  /** Whether a build that is not urgent would be taken now (else it is refused 503). */
  accepts(): boolean {
    return this.running === null || this.waiting.length < MAX_WAITING;
  }

  /** Clusters of `input`; `urgent` builds (a snapshot's unfiltered clusters) are never refused. */
  build(input: ClusterInput, urgent = false): Promise<ClusterSet> {
    if (!fs.existsSync(this.file)) {
      this.built++;
      return Promise.resolve(buildClusters(input));
    }
    if (!urgent && !this.accepts()) return Promise.reject(overloadedError());
    return new Promise<ClusterSet>((resolve, reject) => {
      const job: Pending = { id: this.nextId++, input, resolve, reject };
      if (urgent) this.waiting.unshift(job);
      else this.waiting.push(job);
      this.next();
    });
  }

  /** Ends the worker thread (pending builds fail). */
  async close(): Promise<void> {
    const w = this.worker;
    this.worker = null;
    this.failAll(new Error('cluster builder closed'));
    if (w !== null) await w.terminate();
  }

  private next(): void {
    if (this.running !== null) return;
    const job = this.waiting.shift();
    if (job === undefined) return;
    this.running = job;
    this.thread().postMessage({ id: job.id, input: job.input }, inputBuffers(job.input));
  }

  private thread(): Worker {
    if (this.worker !== null) return this.worker;
    const w = new Worker(this.file);
    w.on('message', (m: Reply) => this.reply(m));
    w.on('error', (e) => this.lost(w, e));
    w.on('exit', (code) => this.lost(w, new Error(`cluster worker exited with code ${code}`)));
    // After the listeners: attaching a 'message' listener refs the thread's port again, and the
    // shared, idle thread would then keep a stopped service's process alive.
    w.unref();
    this.worker = w;
    return w;
  }

  private reply(m: Reply): void {
    const job = this.running;
    if (job === null || job.id !== m.id) return;
    this.running = null;
    if ('error' in m) job.reject(new Error(m.error));
    else {
      this.built++;
      job.resolve(m.set);
    }
    this.next();
  }

  /** The thread died: its build fails, the next build starts a new thread. */
  private lost(w: Worker, e: Error): void {
    if (this.worker !== w) return;
    this.worker = null;
    const job = this.running;
    this.running = null;
    job?.reject(e);
    this.next();
  }

  private failAll(e: Error): void {
    const all = this.running === null ? this.waiting.splice(0) : [this.running, ...this.waiting.splice(0)];
    this.running = null;
    for (const j of all) j.reject(e);
  }
}
