/**
 * Other client apps' config files: where each client app keeps its servers (per OS and
 * per project), a reader from its dialect to mcpx's own spelling, and a
 * writer back. `mcpx config import` and `mcpx config export` are built on
 * these; `exportServers` hands servers to another agent (`mcpx exec`).
 */
import type { ServerConfig } from '../types.js';
import { claudeCode } from './dialects/claude-code.js';
import { claudeDesktop } from './dialects/claude-desktop.js';
import { codex } from './dialects/codex.js';
import { cursor } from './dialects/cursor.js';
import { gemini } from './dialects/gemini.js';
import { opencode } from './dialects/opencode.js';
import { vscode } from './dialects/vscode.js';
import { windsurf } from './dialects/windsurf.js';
import { zed } from './dialects/zed.js';
import { entryFromServer } from './from-config.js';
import { CLIENT_APP_IDS, type ClientAppContext, type ClientAppDialect, type ClientAppId } from './types.js';

export { inputVariable } from '../resolve/input-variable.js';
export { canonicalEntry, sameEntry } from './entry.js';
export { entryFromServer } from './from-config.js';
export type {
  ClientAppContext,
  ClientAppDialect,
  ClientAppFile,
  ClientAppId,
  ClientAppRead,
  ClientAppServer,
  ClientAppWrite,
  McpxEntry,
} from './types.js';
export { CLIENT_APP_IDS };

/** Every client app's dialect, by id. */
export const CLIENT_APPS: Readonly<Record<ClientAppId, ClientAppDialect>> = Object.freeze({
  'claude-desktop': claudeDesktop,
  'claude-code': claudeCode,
  cursor,
  vscode,
  windsurf,
  codex,
  gemini,
  opencode,
  zed,
});

export function isClientAppId(name: string): name is ClientAppId {
  return (CLIENT_APP_IDS as readonly string[]).includes(name);
}

/** What `exportServers` made: the client app's file text and what could not be said in its dialect. */
export interface ExportResult {
  readonly text: string;
  /** `server: setting` pairs left out, and servers the client app cannot hold. */
  readonly notes: readonly string[];
  /** The servers written, by name, in the client app's spelling. */
  readonly servers: Readonly<Record<string, unknown>>;
}

/**
 * `servers` as a file of `client app`'s dialect, `${VAR}` references kept as
 * written. For Claude Code this is `{"mcpServers": {...}}`, what
 * `claude --mcp-config <file>` reads. `base` is an existing file to merge
 * into (its other keys and comments kept).
 *
 * @example exportServers('claude-code', config.servers.filter((s) => s.enabled), ctx).text
 */
export function exportServers(
  app: ClientAppId,
  servers: readonly ServerConfig[],
  ctx: ClientAppContext,
  base?: string,
): ExportResult {
  const dialect = CLIENT_APPS[app];
  const written: Record<string, unknown> = {};
  const notes: string[] = [];
  for (const server of servers) {
    const { value, dropped, caveats } = dialect.write(entryFromServer(server));
    if (value === undefined) {
      notes.push(`${server.name}: ${dialect.label} cannot hold a remote server in its file; left out`);
      continue;
    }
    written[server.name] = value;
    for (const caveat of caveats ?? []) notes.push(`${server.name}: ${caveat}`);
    if (dropped.length)
      notes.push(`${server.name}: ${dialect.label} has no setting for ${dropped.join(', ')}; left out`);
  }
  return { text: dialect.merge(base, written, ctx), notes, servers: written };
}
export { claudeCodeServers } from './claude-code-servers.js';
export { type HandOverPlan, isClaudeCode, planHandOver } from './hand-over-args.js';
