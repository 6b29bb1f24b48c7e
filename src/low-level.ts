/**
 * `mcpx/low-level`: the pieces under the host, public for programs that
 * assemble their own — one connection without a registry, a transport of
 * their own, a connector with other defaults, an OAuth sign-in, a trust
 * store, the policy without a guard, and the sanitizers every human-facing
 * sink of mcpx uses. A program that loads configs and gives tools to an agent
 * needs none of it: that is the main entry, `mcpx`.
 *
 * These follow mcpx's releases more closely than the main entry does. Every
 * export added here becomes public API, checked against
 * `api/mcpx-low-level.api.md` by `npm run api`: named exports only.
 *
 * @example
 * import { connectServer, createServerTransport } from 'mcpx/low-level';
 * const connection = await connectServer(server, {
 *   createTransport: () => createServerTransport(server, { hostEnv: process.env }),
 * });
 *
 * @packageDocumentation
 */

// OAuth: the browser sign-in, the token store, the SDK's provider interface, machine credentials.
export {
  ClientCredentialsAuth,
  type ClientCredentialsAuthOptions,
  type MachineCredentials,
  McpxOAuthProvider,
  type McpxOAuthProviderOptions,
  machineCredentials,
  type SignInOptions,
  type SignInOutcome,
  type StoredCredentials,
  signIn,
  TokenStore,
} from './auth/index.js';

// One connection to one server, and the transport under it.
export {
  type ConnectServerOptions,
  connectServer,
  createMemoryEraCache,
  createServerTransport,
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_REQUEST_TIMEOUT_MS,
  type EraCache,
  type ManagedTransport,
  openFileEraCache,
  type SdkDiagnostic,
  type SdkDiagnosticLevel,
  type TransportHooks,
} from './client/index.js';

// The trust store (what `mcpx config trust` writes) and the config files (what `mcpx add` edits).
export {
  type ConfigCandidate,
  type ConfigScope,
  configCandidates,
  configPaths,
  describeForTrust,
  type EditConfigFileOptions,
  type EditConfigFileResult,
  editConfigFile,
  type FileDialect,
  globalConfigPath,
  isTrusted,
  loadTrustStore,
  markApproved,
  type NewServerEntry,
  type ServerEdit,
  type SettingsApproval,
  saveTrustStore,
  scopeFile,
  type TextEditResult,
  type TrustRecord,
  type TrustStore,
  trustServers,
  trustStorePath,
  untrustedServers,
} from './config/index.js';
// The registry's default connector: stdio spawned first, HTTP retried, features declared.
export { type DefaultConnectorOptions, defaultConnector } from './host/index.js';
// The policy under the guard, and what an approver shows.
export {
  type CallDecision,
  type ConfirmHint,
  type ConnectDecision,
  decide,
  describeQuestion,
  describeToolChange,
  type PermissionState,
  type PolicyRequest,
  terminalApprover,
  toolFingerprint,
  type Verdict,
} from './permissions/index.js';

// The funnel to a terminal: the text `forTerminal` makes, and the terminal `terminalApprover` asks on.
export { type SafeText, Terminal, type TerminalStreams } from './text/index.js';
// Tools below createAgentTools: naming, results, schemas, routing; the text sanitizers.
export {
  assignToolNames,
  type CatalogueOptions,
  type ConvertOptions,
  callForModel,
  checkAgainstSchema,
  convertToolResult,
  createCatalogue,
  DEFAULT_MAX_TEXT_LENGTH,
  formatProblems,
  forTerminal,
  hasHiddenCharacters,
  type ListedItem,
  mcpToolSource,
  type QualifiedTool,
  renderContent,
  renderContentBlock,
  revealHidden,
  type SchemaCheck,
  type SchemaProblem,
  stripHidden,
  stripTerminalControls,
  ToolRouter,
} from './tools/index.js';

// The stdio transport: a server's process tree, its environment, its bounded output; the remote
// transport's hooks, as `createServerTransport` takes them.
export {
  type AuthChallenge,
  type BuildServerEnvOptions,
  buildServerEnv,
  type ExitInfo,
  type FetchLike,
  type HttpTransportHooks,
  type OrphanWatchdog,
  type PackageInstallEvent,
  type PackageRunnerName,
  type Resolver,
  type RetryInfo,
  SAFE_ENV_KEYS,
  StdioTransport,
  type StdioTransportOptions,
} from './transport/index.js';
