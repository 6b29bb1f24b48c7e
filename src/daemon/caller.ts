/**
 * The daemon as a caller (the CLI) needs it, without the daemon's own host: the
 * gateway and the SDK server stay unloaded in a command that only calls.
 */

export { identify, isAlive, type ProcessIdentity, parseIdentity, processStart } from '../home/index.js';
export {
  type DaemonConnection,
  type DaemonRequestBody,
  type OpenDaemonOptions,
  openDaemon,
} from './client.js';
export { withCallerEnv } from './passthrough.js';
export { configKey, contentAlias, type DaemonPaths, daemonKey, daemonPaths, RUN_DIR } from './paths.js';
export { checkSocketSafe } from './socket-safety.js';
export { DaemonSocketTransport } from './socket-transport.js';
export { DAEMON_PROTOCOL, type DaemonStatus, type WarmServerStatus } from './wire.js';
