import type { ServerConfig } from '../config/index.js';
import { getEnv } from '../transport/index.js';

/**
 * The entry a caller hands the daemon: its `env_passthrough` resolved from the
 * caller's own environment into `env` (explicit `env` entries still win, as
 * they do when the server is started directly). The daemon's environment is
 * its first caller's; without this a server would see that caller's values.
 * The values are part of the entry, so a caller whose passthrough values
 * differ gets the server restarted with its own (see `configKey`).
 */
export function withCallerEnv(
  server: ServerConfig,
  callerEnv: Readonly<Record<string, string | undefined>>,
  platform: NodeJS.Platform,
): ServerConfig {
  const names = server.envPassthrough ?? [];
  if (names.length === 0) return server;
  const passed: Record<string, string> = {};
  for (const name of names) {
    const value = getEnv(callerEnv, name, platform);
    if (value !== undefined) passed[name] = value;
  }
  return { ...server, env: { ...passed, ...(server.env ?? {}) }, envPassthrough: [] };
}
