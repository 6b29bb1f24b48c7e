import type { ServerConfig } from '../config/types.js';
import { ErrorCode, McpxError } from '../errors/index.js';
import { createHttpTransport, type HttpTransportHooks } from '../transport/http/index.js';
import { buildServerEnv, resolveCommand, StdioTransport } from '../transport/index.js';
import type { ManagedTransport } from './server-connection.js';

export interface TransportHooks {
  /** The host's environment; only safe keys and `env_passthrough` names reach a stdio server. */
  readonly hostEnv: Readonly<Record<string, string | undefined>>;
  readonly platform?: NodeJS.Platform;
  readonly onStderrLine?: (line: string) => void;
  readonly onInvalidLine?: (line: string) => void;
  /** Remote servers: retry reporting, size cap and (tests) network fakes. */
  readonly http?: HttpTransportHooks;
}

/** The transport a server's config asks for: stdio, or Streamable HTTP / HTTP+SSE for a `url`. */
export function createServerTransport(server: ServerConfig, hooks: TransportHooks): ManagedTransport {
  if ((server.transport === 'http' || server.transport === 'sse') && server.url) {
    return createHttpTransport(server, hooks.http);
  }
  if (server.transport !== 'stdio' || !server.command) {
    throw new McpxError(
      ErrorCode.UnsupportedTransport,
      `'${server.name}' is a remote (${server.transport}) server, which this mcpx version cannot connect to yet`,
      {
        server: server.name,
        origin: server.origin,
        ...(server.url ? { url: server.url } : {}),
        fixes: ['use a stdio server for now, or a bridge such as `npx mcp-remote <url>` as its command'],
      },
    );
  }
  const platform = hooks.platform ?? process.platform;
  const env = buildServerEnv({
    hostEnv: hooks.hostEnv,
    env: server.env,
    envPassthrough: server.envPassthrough,
    platform,
  });
  const resolved = resolveCommand(server.command, {
    env,
    platform,
    ...(server.cwd ? { cwd: server.cwd } : {}),
  });
  return new StdioTransport({
    command: resolved.file,
    args: [...resolved.args, ...server.args],
    env,
    serverName: server.name,
    ...(server.cwd ? { cwd: server.cwd } : {}),
    ...(server.maxLineBytes ? { maxLineBytes: server.maxLineBytes } : {}),
    ...(hooks.onStderrLine ? { onStderrLine: hooks.onStderrLine } : {}),
    ...(hooks.onInvalidLine ? { onInvalidLine: hooks.onInvalidLine } : {}),
  });
}
