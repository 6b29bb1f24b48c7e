import type { ManagedTransport, ServerConnection } from '../client/index.js';
import type { ServerConfig } from '../config/index.js';
import type { Connector } from './registry.js';

/**
 * A connector a decorator can re-route (the daemon's route, src/daemon-client/route.ts,
 * around the host's connector, src/host/connector.ts). Any such is a registry's
 * `Connector`. Here, below both, so neither imports the other.
 */
export type RoutableConnector = (server: ServerConfig, hooks: RoutedHooks) => Promise<ServerConnection>;

/** The registry's hooks, plus a decorator's word on where the transports come from instead of the server's own. */
export type RoutedHooks = Parameters<Connector>[1] & {
  readonly transports?: () => Promise<ManagedTransport>;
};
