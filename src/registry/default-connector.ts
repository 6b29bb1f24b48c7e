import type { EraCache } from '../client/era-cache.js';
import type { ClientFeatures } from '../client/features.js';
import { connectServer } from '../client/server-connection.js';
import { createServerTransport, type TransportHooks } from '../client/transport-factory.js';
import type { ServerLogEvent } from '../client/types.js';
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
 */
export function defaultConnector(options: DefaultConnectorOptions): Connector {
  const { eraCache, connectTimeoutMs, requestTimeoutMs, onLog, features, ...hooks } = options;
  return (server, registryHooks) =>
    connectServer(server, {
      createTransport: () => createServerTransport(server, hooks),
      onListChanged: registryHooks.onListChanged,
      ...(registryHooks.signal ? { signal: registryHooks.signal } : {}),
      ...(eraCache ? { eraCache } : {}),
      ...(connectTimeoutMs ? { connectTimeoutMs } : {}),
      ...(requestTimeoutMs ? { requestTimeoutMs } : {}),
      ...(onLog ? { onLog } : {}),
      ...(features ? { features } : {}),
    });
}
