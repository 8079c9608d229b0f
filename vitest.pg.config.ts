import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

/**
 * `npm run test:pg`: the HTTP, CLI and process suites with every test server on the PostgreSQL live store,
 * and the store's own tests (test/pg)
 * (scripts/test-pg.sh starts a throw-away cluster and sets TEST_DATABASE_URL; each data
 * directory gets a database of its own). Left out: the suites about SQLite's own file — its write
 * lock and data-directory faults (ready, storage-faults); PostgreSQL's faults are tested by
 * `npm run test:cluster`.
 */
export default defineConfig({
  test: {
    ...base.test,
    // Suites of child processes and databases: each file in a fresh fork, as they were written.
    isolate: true,
    include: ['test/http/**/*.test.ts', 'test/process/**/*.test.ts', 'test/pg/**/*.test.ts'],
    exclude: ['test/http/ready.test.ts', 'test/process/storage-faults.test.ts'],
  },
});
