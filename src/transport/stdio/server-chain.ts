/**
 * The chain of servers a process runs inside. Every stdio server mcpx starts gets
 * `MCPX_SERVER_CHAIN` in its environment: the chain mcpx itself was started in, plus a
 * key for the entry it runs (a hash of its command, args and cwd). An mcpx that finds
 * itself inside a chain knows it is some mcpx's server (perhaps through another gateway
 * or a wrapper script, which pass their environment on), how deep, and which entries
 * led to it: starting one of those again would start this mcpx again, without end.
 */
import { createHash } from 'node:crypto';

/** The environment variable mcpx sets on every stdio server it starts. */
export const SERVER_CHAIN_VARIABLE = 'MCPX_SERVER_CHAIN';

/**
 * How deep an mcpx may run inside other mcpx processes' servers and still start stdio
 * servers: a gateway behind a gateway behind a gateway is plenty, and a chain that keeps
 * growing (an entry whose arguments differ at each level) still ends.
 */
export const MAX_SERVER_CHAIN = 6;

/** What makes two entries start the same thing. */
export interface ChainEntry {
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd?: string | undefined;
}

/** The keys of the entries that led to this process, outermost first (empty outside any mcpx). */
export function readServerChain(env: Readonly<Record<string, string | undefined>>): string[] {
  const value = env[SERVER_CHAIN_VARIABLE];
  if (!value) return [];
  // Only our own keys count: a hand-set value cannot make mcpx skip what it would not.
  return value.split(',').filter((key) => /^[0-9a-f]{16}$/.test(key));
}

/** An entry's key in the chain: the same command, args and cwd give the same key in every mcpx. */
export function serverChainKey(entry: ChainEntry): string {
  return createHash('sha256')
    .update(JSON.stringify([entry.command, entry.args, entry.cwd ?? null]))
    .digest('hex')
    .slice(0, 16);
}

/** The value a server started for `entry` gets: the host's chain, then the entry's key. */
export function extendServerChain(
  hostEnv: Readonly<Record<string, string | undefined>>,
  entry: ChainEntry,
): string {
  return [...readServerChain(hostEnv), serverChainKey(entry)].join(',');
}
