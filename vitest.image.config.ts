import { defineConfig } from 'vitest/config';

/**
 * Only the container image check (test/image/): the shipped Dockerfile built by podman on a local
 * stand-in base and run. Needs root, podman, runc and debootstrap; `.ci/run` installs them and
 * runs this, `npm test` does not.
 */
export default defineConfig({
  test: {
    include: ['test/image/**/*.test.ts'],
    setupFiles: ['test/helpers/setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 900_000,
    pool: 'forks',
  },
});
