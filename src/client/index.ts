/**
 * Client: one live connection to one MCP server over the SDK `Client`, with
 * era negotiation (remembered between runs), every page of every list,
 * timeouts, cancellation and progress, and failures translated into McpxError.
 */

export type { SdkDiagnostic, SdkDiagnosticLevel } from '../transport/index.js';
export { CallCancel, type CancelWatcher } from './call-cancel.js';
export { connectServer, DEFAULT_CONNECT_TIMEOUT_MS, DEFAULT_REQUEST_TIMEOUT_MS } from './connect.js';
export { createMemoryEraCache, type EraCache, openFileEraCache } from './era-cache.js';
export {
  applyFormDefaults,
  type ClientFeatures,
  capabilitiesFor,
  createRoots,
  type ElicitationHandlers,
  RequestRefused,
  type RootsProvider,
  rootsForDirectories,
  type SamplingHandler,
  samplingRefused,
} from './features.js';
export { locate } from './locate.js';
export {
  APP_MIME_TYPE,
  APP_URI_SCHEME,
  APPS_EXTENSION,
  appResourceUri,
  appsClientCapability,
  declaresApps,
  isAppOnly,
  isVisibleToApps,
  LEGACY_RESOURCE_URI_KEY,
} from './mcp-apps.js';
export type { ConnectServerOptions, ListKind, ManagedTransport } from './server-connection.js';
export { type Throttle, throttle } from './throttle.js';
export { createServerTransport, type TransportHooks } from './transport-factory.js';
export type {
  CallToolOptions,
  InputRound,
  ProgressEvent,
  ProtocolEra,
  RequestControl,
  ResourceSubscription,
  ServerConnection,
  ServerLogEvent,
  ServerSkills,
  SubscriptionEnd,
  TaskStatusEvent,
} from './types.js';
