import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Suites that need outside programs, spawn the service as a process or take long run on their
    // own (npm run test:process, npm run test:proxy, npm run test:pg, …; D215).
    exclude: ['test/opt-in/**', 'test/pg/**', 'test/process/**', 'test/bench/**', 'node_modules/**'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // The compiled service is loaded by Node itself, not transformed again by vite.
    server: { deps: { external: [/\/dist\//] } },
    pool: 'forks',
    // Each of the 2 forks runs its files one after another in one module graph: the compiled
    // service, vitest and the test helpers are loaded and warmed once per fork, not once per file
    // (every suite starts its own service with a fresh DATA_DIR, so nothing else is shared).
    // Measured on this 2-core machine, the same 73 files: 117 s isolated, 70 s not (D215).
    isolate: false,
    // The suites here are CPU-bound (the service runs in process): one fork per core.
    maxWorkers: 2,
    reporters: process.env.CI ? ['default'] : ['default'],
  },
});
