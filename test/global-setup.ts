import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { totalCounts } from './helpers/contract.js';
import { buildSnapshot } from '../src/import/default-snapshot.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The small test snapshot (stations of the Paris, Berlin and Hamburg boxes). */
    testSnapshot: string;
    testTmpRoot: string;
  }
}

/**
 * The tests run the compiled service (in process, and as a child process for the transport and
 * start-up suites): build it and a small snapshot once per run.
 */
export default function setup(project: TestProject): () => void {
  const root = fileURLToPath(new URL('..', import.meta.url));
  // Emit even when some file has a type error (`npm test` type-checks before vitest runs), so that
  // a focused `npx vitest run test/<dir>` is not blocked by unrelated work in progress.
  // `npm test` has just run tsc (CPS_BUILT=1): one compilation per run.
  if (process.env.CPS_BUILT !== '1') {
    try {
      execFileSync(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', path.join(root, 'tsconfig.json')], {
        stdio: 'pipe',
        cwd: root,
      });
    } catch (e) {
      process.stderr.write(`tsc reported errors (tests run on the emitted code):\n${String((e as { stdout?: Buffer }).stdout ?? '')}\n`);
    }
  }
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cps-test-'));
  const snap = path.join(tmp, 'sample.sqlite');
  buildSnapshot({ out: snap, sample: true, progress: false });
  project.provide('testSnapshot', snap);
  project.provide('testTmpRoot', tmp);
  return () => {
    const c = totalCounts(tmp);
    if (c.answers > 0) {
      const share = c.leaves === 0 ? 100 : (100 * c.typed) / c.leaves;
      process.stdout.write(`API contract (D234): ${c.checked} of ${c.answers} answers checked against /openapi.json (${c.unrouted} to paths it does not have), ${c.undescribed} of services without one (test routes); ${c.typed} of ${c.leaves} leaf values typed (${share.toFixed(2)} %); ${(c.ms / 1000).toFixed(1)} s spent checking\n`);
    }
    fs.rmSync(tmp, { recursive: true, force: true });
  };
}
