/**
 * The keep-alive daemon's own server: servers marked `keep_alive` stay running between
 * commands in one per-user process per resolved config, reached over an
 * owner-only Unix socket under `~/.mcpx/run/`. It is the gateway's core
 * (`GatewayCore`) over the same composition root; the socket speaks MCP.
 * Its callers' side (the socket's paths, client and wires) is daemon-client/.
 */

export type { RemoteSession } from './gateway-session.js';
export type { RemoteTerminal } from './serve-run.js';
export { type DaemonServer, type DaemonServerOptions, startDaemonServer } from './server.js';
