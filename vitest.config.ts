import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Claude Code's own CLI is a separate ~370 MB install: .ci/run runs it (vitest.claude-code.config.ts).
    // nginx is installed by .ci/run only, which runs test/deploy/ itself (vitest.deploy.config.ts);
    // so is Prometheus, for test/prometheus/ (vitest.prometheus.config.ts), and Debian's chromium, for
    // test/browser/ (vitest.browser.config.ts).
    exclude: [
      ...configDefaults.exclude,
      'test/claude-code/**',
      'test/deploy/**',
      'test/prometheus/**',
      'test/browser/**',
      'test/image/**',
    ],
    setupFiles: ['test/helpers/setup.ts'],
    globalSetup: ['test/helpers/optional-installs.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Integration tests spawn real processes; two cores are all CI has.
    maxWorkers: 2,
    pool: 'forks',
  },
});
