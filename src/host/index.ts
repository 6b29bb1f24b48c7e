/**
 * The host: the one composition root every front end (the CLI, the shell,
 * chat, the gateway, the daemon, a library program) builds on. It loads the
 * config, asks `Ask` about what needs asking, connects servers through the one
 * connector, and guards what an agent may call.
 */

// What a front end needs from the floors under the host, so that front ends reach the protocol
// and the transports only through it (the layer rule holds cli/ to that).
// The handlers a front end hands over, and what it shows of a connection.
export {
  type ClientFeatures,
  createRoots,
  type ElicitationHandlers,
  rootsForDirectories,
  samplingRefused,
} from '../client/features.js';
export type { ProgressEvent, ServerConnection, ServerLogEvent, TaskStatusEvent } from '../client/index.js';
/** A tool's MCP App resource, and whether the tool is its App's alone, for the front ends that show them. */
export { appResourceUri, isAppOnly } from '../client/index.js';
export type { PackageInstallEvent, SdkDiagnostic } from '../transport/index.js';
// A second Ctrl-C leaves at once: a front end ends unfinished package installs first.
// A long-lived process whose stdio is mcpx's alone (`mcpx serve`, the daemon): the console is
// claimed, and a gateway on stdio reads and writes through these.
export {
  claimConsole,
  coalescingWriter,
  rollBackInstallsNow,
  ServingStdioTransport,
} from '../transport/index.js';
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
export type {
  Env,
  Host,
  HostAuditOptions,
  HostCallOptions,
  HostCatalogueOptions,
  HostDaemonOptions,
  HostOptions,
  HostPolicy,
} from './types.js';
