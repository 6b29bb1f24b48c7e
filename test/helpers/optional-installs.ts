/**
 * vitest globalSetup: says, before any test runs, which tests a fresh clone's
 * `npm test` skips because a folder with its own install is missing, and the
 * command that brings it. CI installs them all (.ci/run), where the tests fail
 * rather than skip.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const repoRoot = join(import.meta.dirname, '../..');

const optional = [
  {
    probe: 'conformance/node_modules/.bin/inspector',
    tests: 'the MCP Inspector CLI tests (test/e2e/gateway-inspector.test.ts)',
    command: 'npm install --prefix conformance --no-audit --no-fund',
  },
] as const;

export default function noteMissingInstalls(): void {
  for (const { probe, tests, command } of optional) {
    if (existsSync(join(repoRoot, probe))) continue;
    process.stdout.write(`note: skipping ${tests}: run \`${command}\` once to include them\n`);
  }
}
