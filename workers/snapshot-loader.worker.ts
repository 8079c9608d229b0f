/**
 * Loads a snapshot's station data off the main thread (hot snapshot swap): opens the file, checks
 * its format version and its structure (`PRAGMA quick_check`, every page read: a truncated or
 * damaged file fails here), reads the station column blobs and decodes them once as a check, then
 * hands the blobs to the main thread by transfer (no copy). Replies `{ok: false, error}` instead of
 * throwing.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { Snapshot, stationColumnsFromBlobs } from '../src/storage/snapshot.js';

const { file } = workerData as { file: string };

function own(u: Uint8Array): Uint8Array {
  if (u.byteOffset === 0 && u.byteLength === u.buffer.byteLength && u.buffer instanceof ArrayBuffer) return u;
  const copy = new Uint8Array(new ArrayBuffer(u.byteLength));
  copy.set(u);
  return copy;
}

try {
  const t0 = performance.now();
  const snap = Snapshot.open(file);
  try {
    const problems = snap.integrityProblems();
    if (problems.length > 0) throw new Error(`damaged file: ${problems.slice(0, 3).join('; ')}`);
    const stations = snap.stationCount();
    if (stations === 0) throw new Error('the snapshot has no stations');
    const raw = snap.stationColumnBlobs();
    const blobs = { named: raw.named.map(([k, v]) => [k, own(v)] as [string, Uint8Array]), fragments: raw.fragments.map(own) };
    const columns = stationColumnsFromBlobs(blobs);
    if (columns.n !== stations) throw new Error(`station columns hold ${columns.n} stations, the table ${stations}`);
    const transfer = [...blobs.named.map(([, v]) => v.buffer as ArrayBuffer), ...blobs.fragments.map((v) => v.buffer as ArrayBuffer)];
    parentPort!.postMessage(
      { ok: true, version: snap.meta.snapshotVersion, stations, blobs, ms: performance.now() - t0 },
      [...new Set(transfer)],
    );
  } finally {
    snap.close();
  }
} catch (e) {
  parentPort!.postMessage({ ok: false, error: e instanceof Error ? e.message : String(e) });
}
