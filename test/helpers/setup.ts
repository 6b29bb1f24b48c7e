// Shared test setup (vitest setupFiles). Every test runs under the process-leak guard: any
// process spawned during the test that outlives it (after a 2 s grace) fails the test and is killed.
// Hooks run in stack order, so this afterEach runs after the test file's own cleanup.
import { afterEach, beforeEach } from 'vitest';
import { assertNoLeakedProcesses, type ProcessTreeTracker, trackProcessTree } from './processes.js';

let tracker: ProcessTreeTracker | undefined;

beforeEach(() => {
  tracker = trackProcessTree(process.pid);
});

afterEach(async () => {
  const current = tracker;
  tracker = undefined;
  if (!current) return;
  try {
    await assertNoLeakedProcesses(current);
  } finally {
    current.stop();
  }
});
