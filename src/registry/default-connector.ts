import type { EraCache } from '../client/era-cache.js';
import type { ClientFeatures } from '../client/features.js';
import type { ManagedTransport } from '../client/server-connection.js';
import { createServerTransport, type TransportHooks } from '../client/transport-factory.js';
import type { ServerLogEvent } from '../client/types.js';
import { assertApproved } from '../config/trust.js';
import type { ServerConfig } from '../config/types.js';
import { createStdioServerTransport } from '../transport/stdio/server-transport.js';
import type { Connector } from './registry.js';

export interface DefaultConnectorOptions extends TransportHooks {
  /** Remembers which protocol era each server speaks (`openFileEraCache(home)`), so later starts skip the probe. */
  readonly eraCache?: EraCache;
  readonly connectTimeoutMs?: number;
  readonly requestTimeoutMs?: number;
  readonly onLog?: (event: ServerLogEvent) => void;
  /** Roots, sampling and elicitation handlers (capabilities are declared only for these). */
  readonly features?: ClientFeatures;
}

/**
 * The registry's connector for library users: mcpx's own transports (stdio,
 * Streamable HTTP with the SSE fallback) and the era negotiation, with the
 * registry's list-changed and cancellation hooks wired in.
 *
 * A stdio server is spawned before the protocol stack loads (on the first
 * connection of the process), so it boots meanwhile, as on the CLI's path.
 */
export function defaultConnector(options: DefaultConnectorOptions): Connector {
  const { eraCache, connectTimeoutMs, requestTimeoutMs, onLog, features, ...hooks } = options;
  return async (server, registryHooks) => {
    assertApproved(server);
    let early = registryHooks.signal?.aborted ? undefined : spawnEarly(server, hooks);
    try {
      const { connectServer } = await import('../client/server-connection.js');
      const connection = await connectServer(server, {
        createTransport: () => {
          const transport = early ?? createServerTransport(server, hooks);
          early = undefined;
          return transport;
        },
        onListChanged: registryHooks.onListChanged,
        ...(registryHooks.signal ? { signal: registryHooks.signal } : {}),
        ...(eraCache ? { eraCache } : {}),
        ...(connectTimeoutMs ? { connectTimeoutMs } : {}),
        ...(requestTimeoutMs ? { requestTimeoutMs } : {}),
        ...(onLog ? { onLog } : {}),
        ...(features ? { features } : {}),
      });
      // The verdict is kept for the next run (a file cache writes only here); failing to write
      // it costs that run one probe, nothing more.
      await eraCache?.flush().catch(() => {});
      return connection;
    } finally {
      // Whatever ended the connect before it asked for a transport, the early process goes with it.
      await early?.close();
    }
  };
}

function spawnEarly(server: ServerConfig, hooks: TransportHooks): ManagedTransport | undefined {
  if (server.transport !== 'stdio' || !server.command) return undefined;
  try {
    const transport = createStdioServerTransport({ ...server, command: server.command }, hooks);
    transport.spawnEarly();
    return transport;
  } catch {
    return undefined; // the connect builds it again, and reports the failure as any other
  }
}
