import { performance } from 'node:perf_hooks';
import type { ServerConfig } from '../config/index.js';
import { McpxError } from '../errors/index.js';
import type { ManagedTransport } from './connect-options.js';
import { locate } from './locate.js';

/** The one deadline every step of a connect shares. */
export interface ConnectBudget {
  readonly totalMs: number;
  remainingMs(): number;
  /** Time that does not count against the deadline (a package runner's install, which has a budget of its own). */
  credit(ms: number): void;
}

export function connectBudget(totalMs: number): ConnectBudget {
  let startedAt = performance.now();
  return {
    totalMs,
    remainingMs: () => Math.max(0, totalMs - (performance.now() - startedAt)),
    credit: (ms) => {
      startedAt += ms;
    },
  };
}

/** The transport's own preparation (see ManagedTransport.prepare), kept out of the connect budget. */
export async function prepareTransport(
  transport: ManagedTransport,
  budget: ConnectBudget,
  firstStart: boolean,
  server: ServerConfig,
  signal: AbortSignal | undefined,
): Promise<void> {
  if (!transport.prepare) return;
  const began = performance.now();
  let extraMs: number;
  try {
    extraMs = await transport.prepare(signal);
  } catch (error) {
    await transport.close().catch(() => {});
    throw error instanceof McpxError ? locate(error, server) : error;
  }
  budget.credit(performance.now() - began + (firstStart ? extraMs : 0));
}
