/**
 * The keep-alive daemon: servers marked `keep_alive` stay running between
 * commands in one per-user process per resolved config, reached over an
 * owner-only Unix socket under `~/.mcpx/run/`. It is the gateway's core
 * (`GatewayCore`) over the same composition root; the socket speaks MCP.
 */

export { identify, isAlive, type ProcessIdentity, parseIdentity, processStart } from '../home/index.js';
export { type CallerOffer, offerOf } from './caller-offer.js';
export {
  type DaemonConnection,
  type DaemonRequestBody,
  type OpenDaemonOptions,
  openDaemon,
} from './client.js';
export type { RemoteSession } from './gateway-session.js';
export type { GatewayRequest } from './gateway-wire.js';
export { configKey, contentAlias, type DaemonPaths, daemonKey, daemonPaths, RUN_DIR } from './paths.js';
export type { CallerElicitation, RunRequest } from './run-wire.js';
export type { RemoteTerminal } from './serve-run.js';
export { type DaemonServer, type DaemonServerOptions, startDaemonServer } from './server.js';
export { checkSocketSafe } from './socket-safety.js';
export { DaemonSocketTransport } from './socket-transport.js';
export { DAEMON_PROTOCOL, type DaemonStatus, type WarmServerStatus } from './wire.js';
