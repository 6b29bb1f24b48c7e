import type { PriorDiscovery } from '@modelcontextprotocol/client';
import { assertApproved, type ServerConfig } from '../config/loading.js';
import { ErrorCode, McpxError } from '../errors/index.js';
import { DEFAULT_CONNECT_TIMEOUT_MS } from './connect.js';
import { type ConnectBudget, connectBudget } from './connect-budget.js';
import type { ConnectServerOptions, ManagedTransport } from './connect-options.js';
import { eraCacheKey, isProbeCasualty, isRecheckDue, rememberEra } from './era-verdict.js';
import { handshake } from './handshake.js';
import { keepHearingListChanges } from './list-changes.js';
import { SdkServerConnection } from './sdk-server-connection.js';
import type { ServerConnection } from './types.js';

// A server's connect, from the config to a ServerConnection, reads in the order it happens:
// the era remembered or negotiated (`era-verdict.ts`), one budget for every step
// (`connect-budget.ts`), the handshake (`handshake.ts`), and the connection over the SDK client
// (`sdk-server-connection.ts`) with its list changes and the server's requests to the host
// (`list-changes.ts`, `feature-handlers.ts`).

export type { ConnectServerOptions, ListKind, ManagedTransport } from './connect-options.js';
export { ERA_PROBE_TIMEOUT_MS } from './era-verdict.js';

// How long a command's end waits for a background era recheck still asking (once an hour per
// legacy server at most): enough for a server that is starting to answer, little for a person.
const ERA_RECHECK_GRACE_MS = 1_000;

/**
 * Connect to one server: spawn or dial through `createTransport`, negotiate
 * the protocol era (remembered in `eraCache` so later starts skip the probe),
 * and return a ServerConnection. Fails with ConnectTimeout, or with the
 * transport's own reason (command not found, crashed with its stderr tail).
 *
 * Everything — the probe, the 2025 fallback, a second start after a stale
 * remembered verdict or a probe that killed the server — shares one budget:
 * the server's `connect_timeout` (or `connectTimeoutMs`), 30 s by default.
 */
export async function connectServer(
  server: ServerConfig,
  options: ConnectServerOptions,
): Promise<ServerConnection> {
  assertApproved(server);
  const budget = connectBudget(
    server.connectTimeoutMs ?? options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
  );
  const prior = server.protocol === 'auto' ? options.eraCache?.get(eraCacheKey(server)) : undefined;
  if (!prior) return negotiate(server, options, budget);
  const recheckDue = prior.kind === 'legacy' && isRecheckDue(server, options.eraCache);
  // A remote server answers the probe at once (a 2025 one with an HTTP status): ask it now.
  if (recheckDue && server.transport !== 'stdio') return negotiate(server, options, budget);
  // The recheck asks for its transport first: the first one, spawned early, has a head start
  // that lets it finish while the command works, and the command loses only that head start.
  if (recheckDue) options.eraCache?.markChecked?.(eraCacheKey(server));
  const recheck = recheckDue ? recheckInBackground(server, options, budget.totalMs) : undefined;
  const connecting = attemptConnect(server, options, prior, budget);
  try {
    const connection = await connecting;
    if (recheck) connection.addCompanion(recheck.stop);
    return connection;
  } catch (error) {
    await recheck?.stop();
    if (!(error instanceof McpxError) || error.code === ErrorCode.Cancelled) throw error;
    // A refused token says nothing about the era; a second start would only meet the refusal again
    // (without the sign-in the first one could have offered: a failed refresh drops the token).
    if (error.code === ErrorCode.AuthRequired) throw error;
    // A remembered verdict went stale (the server was upgraded or replaced): forget it and negotiate afresh.
    options.eraCache?.delete(eraCacheKey(server));
    if (budget.remainingMs() <= 0) throw error;
    return negotiate(server, options, budget);
  }
}

/**
 * Asks a server remembered as legacy again, on a second start of it beside the
 * connection that uses the verdict (as the SDK probes its own stdio servers on a
 * disposable sibling): the command is not delayed, and a server upgraded to
 * 2026-07-28, or once misjudged, is corrected for the next one. What the probe
 * witnesses is remembered as on any connect, the legacy verdict re-dated when the
 * server confirms it. `stop` ends it (the connection's close awaits that), so no
 * process outlives the command: a recheck still asking gets `ERA_RECHECK_GRACE_MS`
 * more, then is cut short, leaving the verdict as it was for the next command.
 */
function recheckInBackground(
  server: ServerConfig,
  options: ConnectServerOptions,
  budgetMs: number,
): { stop: () => Promise<void> } {
  const abort = new AbortController();
  let transport: ManagedTransport | undefined;
  const quiet: ConnectServerOptions = {
    createTransport: async () => {
      transport = await options.createTransport();
      return transport;
    },
    signal: abort.signal,
    ...(options.eraCache ? { eraCache: options.eraCache } : {}),
    ...(options.clientInfo ? { clientInfo: options.clientInfo } : {}),
  };
  const done = attemptConnect(server, quiet, undefined, connectBudget(budgetMs), true)
    .then((connection) => connection.close())
    .then(() => options.eraCache?.flush())
    .catch(() => {});
  return {
    stop: async () => {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        done,
        new Promise((resolve) => (timer = setTimeout(resolve, ERA_RECHECK_GRACE_MS))),
      ]);
      clearTimeout(timer);
      abort.abort();
      await transport?.close().catch(() => {});
      await done;
    },
  };
}

/** Connect with era negotiation, nothing remembered. */
async function negotiate(
  server: ServerConfig,
  options: ConnectServerOptions,
  budget: ConnectBudget,
): Promise<SdkServerConnection> {
  try {
    return await attemptConnect(server, options, undefined, budget);
  } catch (error) {
    if (!(error instanceof McpxError) || server.protocol !== 'auto') throw error;
    if (!isProbeCasualty(error) || budget.remainingMs() <= 0) throw error;
    // Some legacy servers exit on any request before `initialize`; the probe
    // killed this one, so start it again and speak the 2025 handshake.
    const connection = await attemptConnect(server, options, { kind: 'legacy' }, budget);
    options.eraCache?.set(eraCacheKey(server), { kind: 'legacy' });
    return connection;
  }
}

/** One handshake, and the connection built on it (its era remembered, its list changes heard). */
async function attemptConnect(
  server: ServerConfig,
  options: ConnectServerOptions,
  prior: PriorDiscovery | undefined,
  budget: ConnectBudget,
  restamp = false,
): Promise<SdkServerConnection> {
  const { link, connectMs, witness, cleanup } = await handshake(server, options, prior, budget);
  if (server.protocol === 'auto' && options.eraCache)
    rememberEra(options.eraCache, eraCacheKey(server), link.client, witness, restamp);
  const connection = new SdkServerConnection(
    server,
    link,
    connectMs,
    options,
    prior?.kind === 'modern'
      ? () => {
          // The stale verdict is dropped first, so nothing can bring it back.
          options.eraCache?.delete(eraCacheKey(server));
          return negotiate(server, options, connectBudget(budget.totalMs));
        }
      : undefined,
  );
  connection.addCleanup(cleanup);
  if (link.era === 'modern' && options.onListChanged)
    keepHearingListChanges(link.client, connection, options.onListChanged);
  return connection;
}
