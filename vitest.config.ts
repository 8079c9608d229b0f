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
    // wait on child processes. Three files at a time was measured fastest when most files waited on
    // child servers (114 s with the default, 74 s with 3, 73 s with 4).
    maxWorkers: 3,
    reporters: process.env.CI ? ['default'] : ['default'],
  },
});
