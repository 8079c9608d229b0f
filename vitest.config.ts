import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Suites that need outside programs or take long run on their own (npm run test:proxy,
    // npm run test:pg, …).
    exclude: ['test/opt-in/**', 'test/pg/**', 'node_modules/**'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Endpoint suites run the service in process (CPU-bound); transport, start-up and CLI suites
    // wait on child processes. On this 2-core machine, one quiet sitting: 135 s with 2 files at a
    // time, 152 s with 3 (3 was fastest while most files waited on child servers).
    maxWorkers: 2,
    reporters: process.env.CI ? ['default'] : ['default'],
  },
});
