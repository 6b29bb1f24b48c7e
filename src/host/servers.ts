/**
 * Which servers a host may start, and why any other one cannot be used: enabled,
 * not mcpx itself, and trusted or approved now by whoever can be asked.
 */

import type { ServerConfig } from '../config/index.js';
import {
  approvedRecord,
  type LoadedConfig,
  markApproved,
  suggest,
  type TrustStore,
  trustServers,
} from '../config/loading.js';
import { ErrorCode, McpxError } from '../errors/index.js';
import { forTerminal } from '../text/index.js';
import type { Ask, TrustQuestion } from './ask.js';
import { mcpxAncestors, type SelfContext, selfReference } from './self-reference.js';
import type { Env } from './types.js';

export interface ServerChoice {
  readonly usable: ServerConfig[];
  /** Project entries nobody approved. */
  readonly untrusted: ReadonlyMap<string, ServerConfig>;
  /** Entries that would start mcpx itself, with why. */
  readonly selfSkipped: ReadonlyMap<string, McpxError>;
}

export interface ChooseOptions {
  readonly config: LoadedConfig;
  readonly trust: TrustStore;
  readonly home: string;
  readonly env: Env;
  readonly approveServer: Ask['approveServer'];
  /** Who `approveServer` asks, for a notice when asking failed. */
  readonly who: string;
  /** The host's cancellation: a question it interrupts is no answer but a cancellation. */
  readonly signal?: AbortSignal | undefined;
  readonly omitBuiltinWhenConfigured: boolean;
  readonly notice: (message: string) => void;
}

/**
 * The config's servers that may start. An unapproved project entry is put to
 * `approveServer`: yes records it in the trust store, no (or nobody) skips it.
 */
export async function chooseServers(options: ChooseOptions): Promise<ServerChoice> {
  const { config, notice } = options;
  const selfSkipped = new Map<string, McpxError>();
  const untrusted = new Map<string, ServerConfig>();
  // Refused before trust is asked: approving what will not run anyway would be a wasted question.
  const self = selfContext(options.env);
  for (const server of [...config.servers, ...config.unapproved]) {
    const refused = server.enabled ? selfReference(server, self) : undefined;
    if (!refused) continue;
    selfSkipped.set(server.name, refused);
    notice(
      `skipped server '${server.name}' from ${server.origin.file ?? server.origin.layer}: ${refused.message}`,
    );
  }
  const runs = (s: ServerConfig) => s.enabled && !selfSkipped.has(s.name);
  const approved: ServerConfig[] = [];
  for (const server of config.unapproved.filter(runs)) {
    // The review text is for a question only: a command whose servers are all trusted (every
    // `mcpx call` after the first) never loads it.
    const { describeForTrust } = await import('../config/trust/trust-review.js');
    const description = describeForTrust(server, approvedRecord(options.trust, server)).map(forTerminal);
    const answer = await askApproval(options.approveServer, { server, description }, options.signal);
    if (answer === true) {
      approved.push(markApproved(server));
    } else {
      untrusted.set(server.name, server);
      const why = answer === false ? '' : ` (asking ${options.who} failed: ${answer.message})`;
      notice(
        `skipped server '${server.name}' from ${server.origin.file}: not trusted yet${why} — review it and run \`mcpx config trust\``,
      );
    }
  }
  if (approved.length) await trustServers(options.home, approved);
  // The entries approved just now come after those approved before.
  const all = [...config.servers.filter(runs), ...approved];
  const own = all.filter((s) => s.origin.layer !== 'builtin');
  const usable = options.omitBuiltinWhenConfigured && own.length > 0 ? own : all;
  return { usable, untrusted, selfSkipped };
}

/**
 * The approver's answer: yes, no (or nobody to ask), or the error it failed with — a
 * question with no terminal to put it to (stdin closed or at its end) is a no, not a crash.
 * A cancellation (Ctrl-C at the question) stays one.
 */
async function askApproval(
  approveServer: Ask['approveServer'],
  question: TrustQuestion,
  signal: AbortSignal | undefined,
): Promise<boolean | Error> {
  if (!approveServer) return false;
  try {
    return (await approveServer(question)) === true;
  } catch (error) {
    const cancelled =
      signal?.aborted === true ||
      (error instanceof McpxError && error.code === ErrorCode.Cancelled) ||
      (error instanceof Error && error.name === 'AbortError');
    if (cancelled) throw error;
    return error instanceof Error ? error : new Error(String(error));
  }
}

/** Why this mcpx must not start `server` (it would start itself), if so. */
export function refusedAsSelf(server: ServerConfig, env: Env): McpxError | undefined {
  return selfReference(server, selfContext(env));
}

/** The running mcpx, its ancestry read once, when a stdio server first asks. */
function selfContext(env: Env): SelfContext {
  const selfScript = process.argv[1];
  let ancestors: ReturnType<typeof mcpxAncestors> | undefined;
  return { env, selfScript, ancestors: () => (ancestors ??= mcpxAncestors(selfScript)) };
}

/** What the host knows when a server is asked for by name. */
export interface ServerLookup {
  readonly usable: readonly ServerConfig[];
  readonly adhoc: ServerConfig | undefined;
  readonly config: () => Promise<LoadedConfig>;
  readonly selfSkipped: ReadonlyMap<string, McpxError>;
  readonly untrusted: ReadonlyMap<string, ServerConfig>;
}

/** One server by name, or an error that says why it cannot be used and what to do. */
export async function findServer(name: string, lookup: ServerLookup): Promise<ServerConfig> {
  const { usable, adhoc } = lookup;
  const found = usable.find((s) => s.name === name);
  if (found) return found;
  if (adhoc) {
    const flag = adhoc.transport === 'stdio' ? '--stdio' : '--url';
    throw new McpxError(
      ErrorCode.UnknownServer,
      `with ${flag} the only server is '${adhoc.name}', not '${name}'`,
      {
        fixes: [`name the tool without a server prefix when using ${flag}`],
      },
    );
  }
  const config = await lookup.config();
  const unusable = config.unusable.get(name);
  if (unusable) throw unusable;
  const self = lookup.selfSkipped.get(name);
  if (self) throw self;
  const skipped = lookup.untrusted.get(name);
  if (skipped) {
    throw new McpxError(
      ErrorCode.ConfigUntrusted,
      `server '${name}' comes from a project config that is not trusted yet`,
      {
        server: name,
        origin: skipped.origin,
        fixes: ['review the entry, then run `mcpx config trust` to approve it'],
      },
    );
  }
  const disabled = [...config.servers, ...config.unapproved].find((s) => s.name === name && !s.enabled);
  if (disabled) {
    throw new McpxError(ErrorCode.UnknownServer, `server '${name}' is disabled`, {
      server: name,
      origin: disabled.origin,
      fixes: [`set "enabled": true for '${name}' in ${disabled.origin.file ?? 'the config'}`],
    });
  }
  const names = usable.map((s) => s.name);
  const guess = suggest(name, names);
  throw new McpxError(
    ErrorCode.UnknownServer,
    `no server named '${name}'${guess ? ` — did you mean '${guess}'?` : ''}`,
    {
      fixes: [
        names.length ? `configured servers: ${names.join(', ')}` : 'no servers are configured',
        'run `mcpx config path` to see which config files are read',
      ],
    },
  );
}
