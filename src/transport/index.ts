/**
 * Transports: how mcpx reaches a server. `stdio/` spawns local servers;
 * `http/` (imported from `./http/index.js`) dials remote ones. Both give the
 * SDK a `Transport` that can also say why it closed (`closeReason()`).
 */

// The remote transport's hooks, for the library's `mcpx/low-level` (types only: the HTTP stack
// still loads on first use, from `./http/index.js`).
export type {
  AuthChallenge,
  FetchLike,
  HttpTransportHooks,
  Resolver,
  RetryInfo,
} from './http/index.js';
// Exponential backoff, shared with the client's list subscriptions: this module alone, not the HTTP stack.
export { backoffDelay } from './http/retry-policy.js';
export { linkSignal } from './linked-signal.js';
export { inArrivalOrder } from './response-order.js';
export { MODERN_REVISION } from './revisions.js';
export {
  claimConsole,
  outsideSdkScope,
  type SdkDiagnostic,
  type SdkDiagnosticLevel,
  withSdkDiagnostics,
} from './sdk-diagnostics.js';
export {
  type AncestorProcess,
  asJsonRpcMessage,
  BoundedLineReader,
  type BoundedLineReaderOptions,
  type BuildServerEnvOptions,
  buildServerEnv,
  coalescingWriter,
  createStdioServerTransport,
  DEFAULT_CLOSE_GRACE_MS,
  DEFAULT_KILL_GRACE_MS,
  DEFAULT_MAX_LINE_BYTES,
  DEFAULT_PATHEXT,
  DEFAULT_STDERR_TAIL_LINES,
  type ExitInfo,
  findOnPath,
  getEnv,
  isRelayId,
  type KillTreeOptions,
  killTree,
  MAX_SERVER_CHAIN,
  type OrphanWatchdog,
  type PackageInstallEvent,
  type PackageRunnerName,
  processAncestry,
  RELAY_ID_PREFIX,
  type ResolveCommandOptions,
  type ResolvedCommand,
  readServerChain,
  resolveCommand,
  rollBackInstallsNow,
  SAFE_ENV_KEYS,
  ServingStdioTransport,
  type StdioServerHooks,
  StdioTransport,
  type StdioTransportOptions,
  serverChainKey,
  startedAlike,
} from './stdio/index.js';
