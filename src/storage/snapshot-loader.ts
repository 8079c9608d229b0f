/**
 * Loading a snapshot for a hot swap without blocking the main thread: a short-lived worker thread
 * (workers/snapshot-loader.worker.ts) checks the file and reads the station column blobs; the main
 * thread then only wraps them (typed-array views) and opens its own read-only handle.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { StationColumns } from '../domain/stations/columns.js';
import { Snapshot, stationColumnsFromBlobs, type StationColumnBlobs } from './snapshot.js';

function runLoader(file: string, timeoutMs: number): Promise<LoaderReply> {
  return new Promise<LoaderReply>((resolve) => {
    const w = new Worker(LOADER_FILE, { workerData: { file } });
    let done = false;
    const finish = (r: LoaderReply): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve(r);
    };
    const timer = setTimeout(() => {
      finish({ ok: false, error: `the loader did not finish within ${timeoutMs} ms` });
      void w.terminate();
    }, timeoutMs);
    w.once('message', (m: LoaderReply) => finish(m));
    w.once('error', (e) => finish({ ok: false, error: e.message }));
    w.once('exit', (code) => finish({ ok: false, error: `loader exited with code ${code}` }));
  });
}

/** Compiled loader module, relative to this one (dist/src/storage → dist/workers). */
export const LOADER_FILE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../workers/snapshot-loader.worker.js');

/** A snapshot file that cannot be swapped in: missing, of another format, damaged, empty. */
export class SnapshotRefused extends Error {
  constructor(
    message: string,
    readonly missing = false,
  ) {
    super(message);
  }
}

export interface LoadedSnapshot {
  snapshot: Snapshot;
  columns: StationColumns;
  /** Time the loader thread took (check and read). */
  loadMs: number;
}

type LoaderReply = { ok: true; version: string; stations: number; blobs: StationColumnBlobs; ms: number } | { ok: false; error: string };

/**
 * Checks and reads `file` on a loader thread. Only a regular file is opened (D178: a named pipe
 * or a device would block the open forever, on the loader and then on the main thread), and a
 * loader that has not answered within `timeoutMs` is terminated and the file refused.
 */
export async function loadSnapshotOffThread(file: string, timeoutMs: number): Promise<LoadedSnapshot> {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch {
    throw new SnapshotRefused(`snapshot ${file} does not exist`, true);
  }
  if (!stat.isFile()) throw new SnapshotRefused(`snapshot ${file} refused: not a regular file`);
  const reply = await runLoader(file, timeoutMs);
  if (!reply.ok) throw new SnapshotRefused(`snapshot ${file} refused: ${reply.error}`);
  let snapshot: Snapshot;
  try {
    snapshot = Snapshot.open(file);
  } catch (e) {
    throw new SnapshotRefused(`snapshot ${file} refused: ${(e as Error).message}`);
  }
  // The file was replaced between the check and this open: refuse rather than mix two files.
  if (snapshot.meta.snapshotVersion !== reply.version) {
    snapshot.close();
    throw new SnapshotRefused(`snapshot ${file} changed while it was loaded; try again`);
  }
  return { snapshot, columns: stationColumnsFromBlobs(reply.blobs), loadMs: reply.ms };
}
