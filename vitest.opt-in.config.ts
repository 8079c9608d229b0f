import { defineConfig } from 'vitest/config';

/** The opt-in suites (test/opt-in): `npm run test:proxy`, `npm run test:crash`, `npm run fuzz`. */
export default defineConfig({
  test: {
    include: ['test/opt-in/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 300_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
