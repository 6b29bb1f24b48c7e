/**
 * What a reloaded config changes among the served servers: which are new, which are gone, and
 * which must restart because their entry changed. The gateway core (`GatewayCore.reload`) then
 * stops, adds and restarts only those, leaving the others and their calls alone.
 */
import type { ServerConfig } from '../config/index.js';

/** What a reload changed, by server name. */
export interface ReloadResult {
  readonly added: readonly string[];
  readonly removed: readonly string[];
  readonly restarted: readonly string[];
}

/** Everything of an entry that matters to how it runs (where it was written does not). */
function entryKey(config: ServerConfig): string {
  const { origin: _origin, asWritten: _asWritten, ...rest } = config;
  return JSON.stringify(rest);
}

/** The servers added, removed and restarted going from `current` to `next` (both by name). */
export function reloadPlan(
  current: ReadonlyMap<string, ServerConfig>,
  next: ReadonlyMap<string, ServerConfig>,
): ReloadResult {
  const removed = [...current.keys()].filter((name) => !next.has(name));
  const added = [...next.keys()].filter((name) => !current.has(name));
  const restarted = [...next.keys()].filter((name) => {
    const before = current.get(name);
    return before !== undefined && entryKey(before) !== entryKey(next.get(name) as ServerConfig);
  });
  return { added, removed, restarted };
}
