/**
 * Other hosts' config files: where each host keeps its servers (per OS and
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
import { HOST_IDS, type HostContext, type HostDialect, type HostId } from './types.js';

export { inputVariable } from '../input-variable.js';
export { canonicalEntry, sameEntry } from './entry.js';
export { entryFromServer } from './from-config.js';
export type {
  HostContext,
  HostDialect,
  HostFile,
  HostId,
  HostRead,
  HostServer,
  HostWrite,
  McpxEntry,
} from './types.js';
export { HOST_IDS };

/** Every host's dialect, by id. */
export const HOSTS: Readonly<Record<HostId, HostDialect>> = Object.freeze({
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

export function isHostId(name: string): name is HostId {
  return (HOST_IDS as readonly string[]).includes(name);
}

/** What `exportServers` made: the host's file text and what could not be said in its dialect. */
export interface ExportResult {
  readonly text: string;
  /** `server: setting` pairs left out, and servers the host cannot hold. */
  readonly notes: readonly string[];
  /** The servers written, by name, in the host's spelling. */
  readonly servers: Readonly<Record<string, unknown>>;
}

/**
 * `servers` as a file of `host`'s dialect, `${VAR}` references kept as
 * written. For Claude Code this is `{"mcpServers": {...}}`, what
 * `claude --mcp-config <file>` reads. `base` is an existing file to merge
 * into (its other keys and comments kept).
 *
 * @example exportServers('claude-code', config.servers.filter((s) => s.enabled), ctx).text
 */
export function exportServers(
  host: HostId,
  servers: readonly ServerConfig[],
  ctx: HostContext,
  base?: string,
): ExportResult {
  const dialect = HOSTS[host];
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
