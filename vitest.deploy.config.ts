import { defineConfig } from 'vitest/config';

/**
 * Only the deployment checks (test/deploy/), which need nginx installed;
 * `.ci/run` installs it and runs them, `npm test` does not.
 */
export default defineConfig({
  test: {
    include: ['test/deploy/**/*.test.ts'],
    setupFiles: ['test/helpers/setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 90_000,
    pool: 'forks',
  },
});
