/**
 * mcpx never starts itself as one of its own servers unless the person asks for it on the
 * command line (`--stdio "mcpx serve …"`), and never deeper than `MAX_SERVER_CHAIN` even
 * then. A configured entry whose command line runs mcpx is refused before any spawn; an
 * entry already on this process's `MCPX_SERVER_CHAIN` is how this mcpx was reached, so
 * starting it again would close the loop. The depth is the larger of that chain and the
 * number of mcpx processes among this one's ancestors, which no wrapper can clear.
 */

import type { ServerConfig } from '../config/index.js';
import { isMcpxProcess, runsMcpx } from '../config/loading.js';
import { ErrorCode, McpxError } from '../errors/index.js';
import {
  type AncestorProcess,
  buildServerEnv,
  findOnPath,
  MAX_SERVER_CHAIN,
  processAncestry,
  readServerChain,
  serverChainKey,
  startedAlike,
} from '../transport/index.js';
import type { Env } from './types.js';

/** An mcpx process above this one. */
export interface McpxAncestor {
  readonly pid: number;
  /** Its command line, as one string. */
  readonly command: string;
  /** It was started exactly as this process was (command line, folder, environment). */
  readonly twin: boolean;
}

/** What {@link selfReference} knows of the running mcpx. */
export interface SelfContext {
  /** This process's environment (its `MCPX_SERVER_CHAIN`). */
  readonly env: Env;
  /** The running mcpx's script (`process.argv[1]`). */
  readonly selfScript?: string | undefined;
  /** The mcpx processes above this one, nearest first; asked only about a stdio server. */
  readonly ancestors?: () => readonly McpxAncestor[];
  readonly platform?: NodeJS.Platform;
}

/** Where {@link mcpxAncestors} reads processes (the real ones by default). */
export interface AncestryReader {
  readonly ancestry: () => readonly AncestorProcess[] | undefined;
  /** Whether the process `pid` was started exactly as this one was. */
  readonly twin: (pid: number) => boolean;
}

const processes: AncestryReader = {
  ancestry: processAncestry,
  twin: (pid) => startedAlike(process.pid, pid),
};

/**
 * The mcpx processes among this process's ancestors, nearest first (none where the ancestry
 * cannot be read: Windows).
 */
export function mcpxAncestors(
  selfScript: string | undefined,
  reader: AncestryReader = processes,
): McpxAncestor[] {
  return (reader.ancestry() ?? [])
    .filter((p) => isMcpxProcess(p.argv, { selfScript, cwd: p.cwd }))
    .map((p) => ({ pid: p.pid, command: p.argv.join(' '), twin: reader.twin(p.pid) }));
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
  const ancestors = self.ancestors?.() ?? [];
  if (Math.max(chain.length, ancestors.length) >= MAX_SERVER_CHAIN) {
    return tooDeep(chain.length, ancestors, context);
  }
  const twin = ancestors.find((a) => a.twin);
  if (twin) {
    return new McpxError(
      ErrorCode.SelfReference,
      `this mcpx was started exactly as mcpx pid ${twin.pid} above it was (same command line, folder and environment): it would start another copy of itself, without end, so it starts no stdio servers`,
      {
        ...context,
        causes: [
          `a server entry runs mcpx through a wrapper mcpx cannot read (a script, \`env -i\`): ${clip(twin.command)}`,
        ],
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
      causes: [
        'an entry meant for another client app (Claude Code reads .mcp.json too) that mcpx reads as well',
      ],
      fixes: [
        'nothing to do for the other host: mcpx leaves the entry to it',
        'to run it from mcpx anyway, give its command line to --stdio (e.g. mcpx --stdio "mcpx serve --config other.json" tools)',
      ],
    },
  );
}

function tooDeep(
  chain: number,
  ancestors: readonly McpxAncestor[],
  context: { server: string; origin: ServerConfig['origin']; command: string },
): McpxError {
  const depth = Math.max(chain, ancestors.length);
  const above = ancestors.length
    ? ` (pids ${ancestors.map((a) => a.pid).join(', ')}, nearest first)`
    : ' (MCPX_SERVER_CHAIN)';
  const nearest = ancestors[0];
  return new McpxError(
    ErrorCode.SelfReference,
    `this mcpx already runs ${depth} deep inside other mcpx processes${above}, so it starts no more stdio servers`,
    {
      ...context,
      causes: [
        'a config that runs mcpx through a wrapper (a script, `env -i`) keeps starting mcpx, or a chain of gateways',
        ...(nearest ? [`the nearest mcpx above this one: pid ${nearest.pid}, ${clip(nearest.command)}`] : []),
      ],
      fixes: ['look for an entry that runs mcpx, `mcpx serve` or a wrapper around it, and remove it'],
    },
  );
}

function clip(text: string): string {
  return text.length > 200 ? `${text.slice(0, 199)}…` : text;
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
