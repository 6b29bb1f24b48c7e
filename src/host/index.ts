/**
 * The host: the one composition root every front end (the CLI, the shell,
 * chat, the gateway, the daemon, a library program) builds on. It loads the
 * config, asks `Ask` about what needs asking, connects servers through the one
 * connector, and guards what an agent may call.
 */

// Types a front end names when it hands the host its handlers.
export type { ClientFeatures, ServerConnection, ServerLogEvent } from '../client/index.js';
export type { SdkDiagnostic } from '../transport/index.js';
// A second Ctrl-C leaves at once: a front end ends unfinished package installs first.
export { rollBackInstallsNow } from '../transport/index.js';
export { type Ask, nobody, type TrustQuestion } from './ask.js';
export {
  type ConnectorOptions,
  createConnector,
  type DefaultConnectorOptions,
  defaultConnector,
  type RoutableConnector,
} from './connector.js';
export type { HostEvent, HostListener } from './events.js';
export { formatSdkDiagnostic } from './events.js';
export { createHost } from './host.js';
export type { Env, Host, HostDaemonOptions, HostOptions } from './types.js';
