import { defineConfig } from 'vitest/config';

/**
 * Only the fleet checks (test/fleet/): `mcpx serve --http --state redis://…` instances sharing
 * a real Redis (Debian's `redis-server`) and, where the recipe says so, behind nginx. `.ci/run`
 * installs both and runs this; `npm test` does not.
 */
export default defineConfig({
  test: {
    include: ['test/fleet/**/*.test.ts'],
    setupFiles: ['test/helpers/setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 90_000,
    pool: 'forks',
    // Each file runs its own Redis and instances: two files at once would crowd two cores.
    fileParallelism: false,
  },
});
