import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    setupFiles: ['test/helpers/setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Integration tests spawn real processes; two cores are all CI has.
    maxWorkers: 2,
    pool: 'forks',
  },
});
