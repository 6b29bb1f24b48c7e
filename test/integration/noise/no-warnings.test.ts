/**
 * No process warning at scale: thousands of calls in flight on one connection, sharing one
 * caller signal (as the CLI's Ctrl-C signal is shared), must not trip
 * MaxListenersExceededWarning — neither on the caller's signal nor on a signal the SDK shares
 * between every POST of a 2025 Streamable HTTP session.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ServerConnection } from '../../../src/client/types.js';
import { connect, testServer } from '../../helpers/servers.js';
import { Resources, remoteServer, textOf } from '../http/helpers.js';

const CALLS = 2_000;
const res = new Resources();
afterEach(() => res.closeAll());

/** Collects every process warning emitted while `work` runs (and shortly after, as they are emitted on the next tick). */
async function warningsDuring(work: () => Promise<void>): Promise<string[]> {
  const seen: string[] = [];
  const onWarning = (warning: Error) => seen.push(`${warning.name}: ${warning.message}`);
  process.on('warning', onWarning);
  try {
    await work();
    await new Promise((resolve) => setTimeout(resolve, 50));
  } finally {
    process.off('warning', onWarning);
  }
  return seen;
}

/** `CALLS` slow calls at once, all sharing one caller signal and asking for progress. */
async function flood(connection: ServerConnection): Promise<void> {
  const caller = new AbortController();
  let progress = 0;
  const results = await Promise.all(
    Array.from({ length: CALLS }, () =>
      connection.callTool(
        'slow_operation',
        { steps: 1, delay_ms: 200 },
        { signal: caller.signal, timeoutMs: 120_000, onProgress: () => progress++ },
      ),
    ),
  );
  expect(results.filter((r) => textOf(r) === 'completed 1 steps')).toHaveLength(CALLS);
  // Progress listeners ride on the same requests; not every notification need arrive before its result.
  expect(progress).toBeGreaterThan(0);
}

describe(`${CALLS} calls in flight on one connection print no process warning`, () => {
  it('over stdio', async () => {
    const connection = await connect(testServer('flood-stdio'));
    res.add(() => connection.close());
    const warnings = await warningsDuring(() => flood(connection));
    expect(warnings).toEqual([]);
  }, 180_000);

  it.each(['legacy', 'modern'] as const)(
    'over Streamable HTTP, %s era',
    async (era) => {
      // A slow server keeps every call in flight at once.
      const server = await res.server({ era, faults: { slowMs: 50 } });
      const connection = await res.connect(
        remoteServer(`flood-${era}`, server.url),
        {},
        { requestTimeoutMs: 120_000 },
      );
      expect(connection.era).toBe(era);
      const warnings = await warningsDuring(() => flood(connection));
      expect(warnings).toEqual([]);
    },
    180_000,
  );
});
