/**
 * Builds station clusters (D191) off the main thread: one input in, one cluster set out, both
 * moved (transferred), never copied.
 */
import { parentPort } from 'node:worker_threads';
import { buildClusters, clusterBuffers, type ClusterInput } from '../src/domain/stations/clusters.js';

interface Job {
  id: number;
  input: ClusterInput;
}

parentPort!.on('message', (m: Job) => {
  try {
    const set = buildClusters(m.input);
    parentPort!.postMessage({ id: m.id, set }, clusterBuffers(set));
  } catch (e) {
    parentPort!.postMessage({ id: m.id, error: e instanceof Error ? e.message : String(e) });
  }
});
