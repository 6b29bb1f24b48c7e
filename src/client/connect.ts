/**
 * The library's door to a connection. The protocol stack (the SDK and the
 * schemas it builds at load) is most of a cold start, so it is loaded with
 * the first connection rather than with `import 'mcpx'`: a program pays for
 * it once it asks for a server, and while that server boots.
 */

import type { ServerConfig } from '../config/index.js';
import type { ConnectServerOptions } from './server-connection.js';
import type { ServerConnection } from './types.js';

/** How long a connect (spawn or request, then the handshake) may take, unless the server or the caller says otherwise. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 30_000;
/** How long one request to a server may take, unless the server or the caller says otherwise. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;

/**
 * Connect to one server: the era negotiated (or remembered), the SDK `Client`
 * wired to the transport `createTransport` builds, failures as `McpxError`.
 */
export async function connectServer(
  server: ServerConfig,
  options: ConnectServerOptions,
): Promise<ServerConnection> {
  const { connectServer: connect } = await import('./server-connection.js');
  return connect(server, options);
}
