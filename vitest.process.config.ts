import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

/**
 * `npm run test:process`: the service as a process (D215): start-up and restart, signals and
 * shutdown, hot snapshot swaps under load, ports and settings refused at start, storage faults of
 * a running process, the CLIs and npm scripts, and the benches' quick runs. Every test here spawns
 * `dist/src/main.js` or a CLI; `npm test` hands its requests to the service in process instead.
 */
export default defineConfig({
  test: {
    ...base.test,
    // Suites of child processes and databases: each file in a fresh fork, as they were written.
    isolate: true,
    include: ['test/process/**/*.test.ts', 'test/bench/**/*.test.ts'],
    exclude: ['node_modules/**'],
  },
});
