import type { ServerConfig } from '../config/types.js';

/** One server in Claude Code's `mcpServers` dialect (`.mcp.json`, `~/.claude.json`, `--mcp-config`). */
export type ClaudeCodeServer =
  | {
      readonly type: 'stdio';
      readonly command: string;
      readonly args: readonly string[];
      readonly env?: Readonly<Record<string, string>>;
    }
  | {
      readonly type: 'http' | 'sse';
      readonly url: string;
      readonly headers?: Readonly<Record<string, string>>;
    };

/**
 * The `mcpServers` object Claude Code reads, for servers already loaded and
 * interpolated: stdio as `command`/`args`/`env`, remote as `type` (`http` or
 * `sse`), `url`, `headers`. Values are the resolved ones (`${VAR}` filled in),
 * since the agent that reads this file does not have mcpx's interpolation;
 * whoever writes it must keep the file private.
 *
 * What Claude Code's dialect cannot say is left out: a server's `cwd`, its
 * tool filters and timeouts, and mcpx's OAuth tokens (Claude Code signs in
 * by itself).
 *
 * @example
 * JSON.stringify({ mcpServers: claudeCodeServers(config.servers) })
 */
export function claudeCodeServers(servers: readonly ServerConfig[]): Record<string, ClaudeCodeServer> {
  const out: Record<string, ClaudeCodeServer> = {};
  for (const server of servers) {
    const headers = Object.keys(server.headers).length ? { headers: { ...server.headers } } : {};
    if (server.transport === 'stdio') {
      out[server.name] = {
        type: 'stdio',
        command: server.command ?? '',
        args: [...server.args],
        ...(Object.keys(server.env).length ? { env: { ...server.env } } : {}),
      };
    } else {
      out[server.name] = { type: server.transport, url: server.url ?? '', ...headers };
    }
  }
  return out;
}
