/**
 * A swapped-out snapshot is garbage once its requests are done: nothing (route tables, server
 * options) keeps its station index alive. In process (inline pricing), so a WeakRef can tell.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import type { Service } from '../../src/app.js';

// The compiled service (as the other HTTP tests run it): its snapshot loader is a worker file.
const dist = path.resolve(import.meta.dirname, '../../dist/src');
const { startService } = (await import(path.join(dist, 'app.js'))) as typeof import('../../src/app.js');
const { loadConfig } = (await import(path.join(dist, 'config.js'))) as typeof import('../../src/config.js');
const { collectGarbage } = (await import(path.join(dist, 'gc.js'))) as typeof import('../../src/gc.js');
const { createLogger } = (await import(path.join(dist, 'log.js'))) as typeof import('../../src/log.js');

describe('snapshot swap memory', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cps-swap-mem-'));
  let svc: Service | null = null;
  afterAll(async () => {
    await svc?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('releases the station index of every replaced snapshot', async () => {
    const snapshot = inject('testSnapshot');
    const config = loadConfig({ SNAPSHOT: snapshot, DATA_DIR: dataDir, HOST: '127.0.0.1', PORT: '0', WORKERS: '0', LOG_LEVEL: 'silent', SHUTDOWN_TIMEOUT_MS: '100' });
    svc = await startService(config, createLogger('silent'));
    const first = new WeakRef(svc.snapshots.current().stations);
    await svc.reloadSnapshot(snapshot);
    const second = new WeakRef(svc.snapshots.current().stations);
    await svc.reloadSnapshot(snapshot);
    // Old handles close max(1 s, SHUTDOWN_TIMEOUT_MS) after their swap.
    await new Promise((res) => setTimeout(res, 1300));
    collectGarbage();
    expect(first.deref()).toBeUndefined();
    expect(second.deref()).toBeUndefined();
    expect(svc.snapshots.current().stations.size).toBeGreaterThan(0);
  });
});
