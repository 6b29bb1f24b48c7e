import type { ServerConfig } from '../../config/index.js';
import type { McpxError } from '../../errors/index.js';
import { resolveCommand } from './resolve-command.js';
import type { PackageInstallEvent } from './runner/install-watch.js';
import { buildServerEnv } from './safe-env.js';
import { extendServerChain, SERVER_CHAIN_VARIABLE } from './server-chain.js';
import { StdioTransport } from './stdio-transport.js';

export interface StdioServerHooks {
  /** The host's environment; only safe keys and `env_passthrough` names reach the server. */
  readonly hostEnv: Readonly<Record<string, string | undefined>>;
  readonly platform?: NodeJS.Platform;
  readonly onStderrLine?: (line: string) => void;
  readonly onInvalidLine?: (line: string) => void;
  readonly onMalformedMessage?: (error: McpxError) => void;
  /** A package runner's install (npx, uvx, …): started, finished, waited for, rolled back. */
  readonly onPackageInstall?: (event: PackageInstallEvent) => void;
}

/**
 * The stdio transport for a configured server: its safe environment (with
 * `MCPX_SERVER_CHAIN`, so an mcpx it starts knows how it was reached), its
 * command resolved as the server's own PATH (and PATHEXT) would, its limits.
 * Loads no HTTP or protocol code, so the CLI can spawn a server first thing.
 */
export function createStdioServerTransport(
  server: ServerConfig & { readonly command: string },
  hooks: StdioServerHooks,
): StdioTransport {
  const platform = hooks.platform ?? process.platform;
  const env = buildServerEnv({
    hostEnv: hooks.hostEnv,
    env: server.env,
    envPassthrough: server.envPassthrough,
    platform,
  });
  // Set last and always: the chain is mcpx's to keep, not the config's.
  env[SERVER_CHAIN_VARIABLE] = extendServerChain(hooks.hostEnv, server);
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
    ...(hooks.onMalformedMessage ? { onMalformedMessage: hooks.onMalformedMessage } : {}),
    ...(server.installTimeoutMs ? { installTimeoutMs: server.installTimeoutMs } : {}),
    ...(hooks.onPackageInstall ? { onPackageInstall: hooks.onPackageInstall } : {}),
  });
}
