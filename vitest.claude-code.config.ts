import { defineConfig } from 'vitest/config';

/**
 * Only the Claude Code check (test/claude-code/), which needs
 * `npm install --prefix claude-code` first; `.ci/run` runs it, `npm test` does not.
 */
export default defineConfig({
  test: {
    include: ['test/claude-code/**/*.test.ts'],
    setupFiles: ['test/helpers/setup.ts'],
    testTimeout: 90_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
