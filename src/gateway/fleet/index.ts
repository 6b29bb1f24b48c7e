import type { FleetState, FleetStateOptions } from './fleet-state.js';

export type { FleetState, FleetStateOptions, FleetStoreStatus } from './fleet-state.js';

/**
 * `openFleetState` of fleet-state.ts, loaded on first use: the Redis client is only for a
 * fleet instance (`--state`), so every other `mcpx serve` and the daemon never read it.
 */
export async function openFleetState(url: string, options: FleetStateOptions): Promise<FleetState> {
  const { openFleetState: open } = await import('./fleet-state.js');
  return open(url, options);
}
