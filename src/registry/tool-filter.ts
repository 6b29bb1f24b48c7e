import type { Tool } from '@modelcontextprotocol/client';
import type { ServerConfig } from '../config/index.js';

/**
 * The config's allow list (if any) and deny list applied to a tool list. Its
 * own module, so the CLI can apply it without loading the registry (and with
 * it the SDK) before a server is spawned.
 */
export function filterTools(config: ServerConfig, tools: readonly Tool[]): Tool[] {
  const allow = config.allowTools ? new Set(config.allowTools) : undefined;
  const deny = new Set(config.denyTools ?? []);
  return tools.filter((t) => (!allow || allow.has(t.name)) && !deny.has(t.name));
}
