import { defineConfig } from 'vitest/config';

/**
 * Only the Prometheus scrape check (test/prometheus/), which needs Debian's `prometheus`
 * installed; `.ci/run` installs it and runs this with MCPX_REQUIRE_PROMETHEUS=1, `npm test` does not.
 */
export default defineConfig({
  test: {
    include: ['test/prometheus/**/*.test.ts'],
    setupFiles: ['test/helpers/setup.ts'],
    testTimeout: 90_000,
    hookTimeout: 90_000,
    pool: 'forks',
  },
});
