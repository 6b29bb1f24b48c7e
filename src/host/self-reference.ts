/**
 * mcpx never starts itself as one of its own servers unless the person asks for it on the
 * command line (`--stdio "mcpx serve …"`), and never deeper than `MAX_SERVER_CHAIN` even
 * then. A configured entry whose command line runs mcpx is refused before any spawn; an
 * entry already on this process's `MCPX_SERVER_CHAIN` is how this mcpx was reached, so
 * starting it again would close the loop.
 */

import type { ServerConfig } from '../config/index.js';
import { runsMcpx } from '../config/index.js';
import { ErrorCode, McpxError } from '../errors/index.js';
import {
  buildServerEnv,
  findOnPath,
  MAX_SERVER_CHAIN,
  readServerChain,
  serverChainKey,
} from '../transport/index.js';
import type { Env } from './types.js';

/** What {@link selfReference} knows of the running mcpx. */
export interface SelfContext {
  /** This process's environment (its `MCPX_SERVER_CHAIN`). */
  readonly env: Env;
  /** The running mcpx's script (`process.argv[1]`). */
  readonly selfScript?: string | undefined;
  readonly platform?: NodeJS.Platform;
}

/**
 * Why `server` must not be started by this mcpx, as the error a person sees (code
 * `SELF_REFERENCE`), or `undefined` when it may. An ad-hoc server is the person's
 * own request: only the chain can refuse it.
 */
export function selfReference(server: ServerConfig, self: SelfContext): McpxError | undefined {
  if (server.transport !== 'stdio' || !server.command) return undefined;
  const context = { server: server.name, origin: server.origin, command: server.command };
  const chain = readServerChain(self.env);
  if (chain.length >= MAX_SERVER_CHAIN) {
    return new McpxError(
      ErrorCode.SelfReference,
      `this mcpx already runs ${chain.length} servers deep inside other mcpx processes (MCPX_SERVER_CHAIN), so it starts no more stdio servers`,
      {
        ...context,
        causes: ['a chain of gateways (or a config that runs mcpx through a wrapper) keeps starting mcpx'],
        fixes: ['look for an entry that runs mcpx, `mcpx serve` or a wrapper around it, and remove it'],
      },
    );
  }
  if (chain.includes(serverChainKey({ command: server.command, args: server.args, cwd: server.cwd }))) {
    return new McpxError(
      ErrorCode.SelfReference,
      'this mcpx was itself started through this entry (MCPX_SERVER_CHAIN): starting it again would start another mcpx, without end',
      {
        ...context,
        fixes: [
          `leave '${server.name}' out of the config this mcpx reads, or give this mcpx --config with a file without it`,
        ],
      },
    );
  }
  if (server.origin.layer === 'adhoc') return undefined;
  const how = runsMcpx(server, {
    selfScript: self.selfScript,
    cwd: server.cwd,
    files: { which: lookUp(server, self) },
  });
  if (how === undefined) return undefined;
  return new McpxError(
    ErrorCode.SelfReference,
    `it runs mcpx itself (${how}), which would read this config and start another mcpx, without end`,
    {
      ...context,
      causes: ['an entry meant for another host (Claude Code reads .mcp.json too) that mcpx reads as well'],
      fixes: [
        'nothing to do for the other host: mcpx leaves the entry to it',
        'to run it from mcpx anyway, give its command line to --stdio (e.g. mcpx --stdio "mcpx serve --config other.json" tools)',
      ],
    },
  );
}

/** Where the entry's command would be found: its own PATH (as the server gets it) and folder. */
function lookUp(
  server: ServerConfig,
  self: SelfContext,
): (command: string, at: { cwd?: string | undefined; path?: string | undefined }) => string | undefined {
  let env: Env | undefined;
  return (command, at) => {
    env ??= buildServerEnv({
      hostEnv: self.env,
      env: server.env,
      envPassthrough: server.envPassthrough,
      ...(self.platform ? { platform: self.platform } : {}),
    });
    const cwd = at.cwd ?? server.cwd;
    return (
      findOnPath(command, {
        env: at.path === undefined ? env : { ...env, PATH: at.path },
        ...(cwd ? { cwd } : {}),
        ...(self.platform ? { platform: self.platform } : {}),
      }) ?? undefined
    );
  };
}
