/**
 * D290: the pricing workers run where `require` refuses their ESM module, so Piscina imports it
 * (a worker terminated while `require` instantiates it synchronously aborts the process).
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/server.js';

interface Seen {
  required: string;
  execArgv: string[];
}

async function inWorker(execArgv: string[] | undefined, file: string): Promise<Seen> {
  const code = `const { parentPort } = require('node:worker_threads');
let required;
try { require(${JSON.stringify(file)}); required = 'loaded'; } catch (e) { required = e.code ?? e.name; }
parentPort.postMessage({ required, execArgv: process.execArgv });`;
  const w = new Worker(code, { eval: true, ...(execArgv ? { execArgv } : {}) });
  try {
    return await new Promise<Seen>((resolve, reject) => {
      w.once('message', resolve);
      w.once('error', reject);
    });
  } finally {
    await w.terminate();
  }
}

describe('pricing worker options (D290)', () => {
  it('make `require` refuse the worker module, and keep the process options', async () => {
    const pool = (await import(pathToFileURL(path.join(ROOT, 'dist/src/pool/pool.js')).href)) as typeof import('../../src/pool/pool.js');
    const seen = await inWorker(pool.workerExecArgv(), pool.WORKER_FILE);
    expect(seen.required).toBe('ERR_REQUIRE_ESM');
    expect(seen.execArgv.slice(0, process.execArgv.length)).toEqual(process.execArgv);
  });

  it('are needed on this runtime when it has require(esm)', async () => {
    const pool = (await import(pathToFileURL(path.join(ROOT, 'dist/src/pool/pool.js')).href)) as typeof import('../../src/pool/pool.js');
    const seen = await inWorker(undefined, pool.WORKER_FILE);
    expect(seen.required === 'ERR_REQUIRE_ESM').toBe(!process.features.require_module);
  });
});
