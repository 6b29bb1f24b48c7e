import { defineConfig } from 'vitest/config';

/**
 * Only the browser checks (test/browser/), which need Debian's chromium at /usr/bin/chromium;
 * `.ci/run` installs it and runs them, `npm test` does not (nothing to install by hand for it).
 */
export default defineConfig({
  test: {
    include: ['test/browser/**/*.test.ts'],
    setupFiles: ['test/helpers/setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 90_000,
    pool: 'forks',
  },
});
