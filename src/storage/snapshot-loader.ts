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

export async function loadSnapshotOffThread(file: string): Promise<LoadedSnapshot> {
  if (!fs.existsSync(file)) throw new SnapshotRefused(`snapshot ${file} does not exist`, true);
  const reply = await new Promise<LoaderReply>((resolve) => {
    const w = new Worker(LOADER_FILE, { workerData: { file } });
    let done = false;
    w.once('message', (m: LoaderReply) => {
      done = true;
      resolve(m);
    });
    w.once('error', (e) => {
      if (!done) resolve({ ok: false, error: e.message });
      done = true;
    });
    w.once('exit', (code) => {
      if (!done) resolve({ ok: false, error: `loader exited with code ${code}` });
      done = true;
    });
  });
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
