import type { ServerConfig } from '../types.js';
import { claudeCode } from './dialects/claude-code.js';
import { entryFromServer } from './from-config.js';

/**
 * The `mcpServers` object Claude Code reads (`--mcp-config`, `.mcp.json`),
 * written by its dialect (`client apps/claude-code.ts`) from the servers as they
 * will run: values are the resolved ones (`${VAR}` filled in), unlike
 * `exportServers`, which keeps references. `mcpx exec` hands this to an
 * agent that shares neither mcpx's environment rules nor its interpolation,
 * so whoever writes it must keep the file private and short-lived.
 *
 * What the dialect cannot say (a `cwd`, tool filters, timeouts) is left out,
 * and mcpx's OAuth tokens are never handed over (Claude Code signs in itself).
 *
 * @example
 * JSON.stringify({ mcpServers: claudeCodeServers(usableServers) })
 */
export function claudeCodeServers(servers: readonly ServerConfig[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const server of servers) {
    // Without what was written, the entry is made of the resolved values.
    const { value } = claudeCode.write(entryFromServer({ ...server, asWritten: undefined }));
    if (value !== undefined) out[server.name] = value;
  }
  return out;
}
