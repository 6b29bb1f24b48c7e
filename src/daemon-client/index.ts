/**
 * The keep-alive daemon's callers' side: where its socket is and whether it is safe to dial, the
 * socket client and transport, the caller's offer of features, and the wire formats the daemon's
 * server (daemon/) reads from below. Nothing here loads the gateway or the SDK's server: a command
 * that only calls (`mcpx daemon status|stop`) leaves them unloaded. The host's connector is
 * decorated with route.ts, imported on its own (see DEEP_IMPORTS_ALLOWED).
 */

export { identify, isAlive, type ProcessIdentity, parseIdentity, processStart } from '../home/index.js';
export { type CallerOffer, NO_OFFER, offeredFeatures, offerOf, readOffer } from './caller-offer.js';
export { type CallerSignIn, CallerSignInRelay, daemonFailure } from './caller-sign-in.js';
export {
  type DaemonConnection,
  type DaemonRequestBody,
  type OpenDaemonOptions,
  openDaemon,
} from './client.js';
export { CONTROL, controlLine, type GatewayEvent, type GatewayRequest } from './gateway-wire.js';
export { withCallerEnv } from './passthrough.js';
export { configKey, contentAlias, type DaemonPaths, daemonKey, daemonPaths, RUN_DIR } from './paths.js';
export type { DaemonLink, LinkedTransport } from './route.js';
export type { CallerElicitation, GivenAnswer, RunEvent, RunReply, RunRequest } from './run-wire.js';
export { checkSocketSafe, ensureSocketFolder } from './socket-safety.js';
export { DaemonSocketTransport } from './socket-transport.js';
export {
  DAEMON_PROTOCOL,
  type DaemonCallerInfo,
  type DaemonReply,
  type DaemonRequest,
  type DaemonStatus,
  errorToWire,
  readLine,
  type WarmServerStatus,
  writeLine,
} from './wire.js';
