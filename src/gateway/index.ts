/**
 * The gateway: every configured server as one MCP server (`mcpx serve`), for
 * any MCP client. `GatewayCore` is the long-lived core over the registry
 * (namespacing, filters, policy, routing); `createSessionServer` makes the SDK
 * server one client talks to; `startGatewayHttp` serves both protocol eras on
 * Streamable HTTP behind the guard. Stdio is the SDK's `serveStdio`. `createGateway`
 * runs the whole of it over a host (`mcpx serve` is its flags and its words).
 */

export { Callers } from './callers.js';
export {
  CATALOGUE_FOLDER,
  type CatalogueMemory,
  type CatalogueMemoryOptions,
  openCatalogueMemory,
} from './catalogue-memory.js';
export {
  type DownstreamCall,
  GatewayCore,
  type GatewayCoreOptions,
  type LogMessage,
  type ReloadResult,
} from './core.js';
export { FastPath, type FastPathOptions } from './fast-path.js';
export { type FleetState, type FleetStoreStatus, openFleetState } from './fleet/index.js';
export {
  createGateway,
  type Gateway,
  type GatewayBase,
  type GatewayEvent,
  type GatewayHttpListen,
  type GatewayOptions,
  servedServers,
} from './gateway.js';
export { type GatewayAsk, type GatewayWiring, gatewayWiring } from './gateway-wiring.js';
export { HeldCalls, type HeldCallsOptions } from './held-calls.js';
export { createHttpGuard, type HttpGuardOptions } from './http/guard.js';
export {
  DEFAULT_MAX_BODY_BYTES,
  type GatewayHttpOptions,
  type GatewayHttpServer,
  startGatewayHttp,
} from './http/listener.js';
export { type Namespace, namespacedNames, type Qualified, transparentNames } from './namespace.js';
export { DEFAULT_PAGE_SIZE, Paginator } from './paginate.js';
export { gatewayApprover } from './refusal.js';
export { recordingRequests } from './request-metrics.js';
export { createSessionServer, type RequestEvent, type SessionServerOptions } from './session-server.js';
export { LiveSessions } from './sessions.js';
export { SKILLS_EXTENSION } from './skill-passthrough.js';
