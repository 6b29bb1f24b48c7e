/**
 * `mcpx/low-level`: the pieces under the host, public for programs that
 * assemble their own — the config loader, a registry of servers, a
 * permission guard, agent tools over a registry, one connection without a
 * registry, a transport of their own, a connector with other defaults, an
 * OAuth sign-in, a trust store, the policy without a guard, other client
 * apps' config dialects, and the sanitizers every human-facing sink of mcpx
 * uses. Each of these skips some of what `createHost` does for a program
 * (trust, consent, the one guard), so a program that loads configs and gives
 * tools to an agent needs none of it: that is the main entry, `mcpx`.
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

// The audit log's masking of argument values, as the file writes them.
export { maskArguments } from './audit/index.js';
// OAuth: the browser sign-in, the token store, the SDK's provider interface, the sign-in every
// process shares (hand it to a transport rather than the provider: one refresh at a time), machine
// credentials.
export {
  type AssertionGrant,
  ClientCredentialsAuth,
  type ClientCredentialsAuthOptions,
  type CredentialSource,
  type DevicePrompt,
  type DeviceSignInOptions,
  type DeviceSignInOutcome,
  hasNoDisplay,
  type MachineCredentials,
  McpxOAuthProvider,
  type McpxOAuthProviderOptions,
  machineCredentials,
  SharedSignIn,
  type SharedSignInOptions,
  type SignInFetch,
  type SignInOptions,
  type SignInOutcome,
  type StoredCredentials,
  type StoredDpopKey,
  signIn,
  signInWithDevice,
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
  type ListKind,
  type ManagedTransport,
  openFileEraCache,
  type SdkDiagnostic,
  type SdkDiagnosticLevel,
  type TransportHooks,
} from './client/index.js';

// Interop: mcpx's servers written in another client app's config dialect.
export {
  CLIENT_APP_IDS,
  CLIENT_APPS,
  type ClientAppContext,
  type ClientAppDialect,
  type ClientAppFile,
  type ClientAppId,
  type ClientAppRead,
  type ClientAppServer,
  type ClientAppWrite,
  type ExportResult,
  entryFromServer,
  exportServers,
  type McpxEntry,
} from './config/client-apps/index.js';
// The config loader and validator, the trust store (what `mcpx config trust` writes) and the
// config files (what `mcpx add` edits).
export {
  type ConfigCandidate,
  type ConfigPathInfo,
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
  type LoadConfigOptions,
  loadConfig,
  loadTrustStore,
  markApproved,
  type NewServerEntry,
  resolveMcpxHome,
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
  type ValidationResult,
  validateConfig,
} from './config/index.js';
// The registry's default connector: stdio spawned first, HTTP retried, features declared.
export { type DefaultConnectorOptions, defaultConnector } from './host/index.js';
// The guard (what `host.guard()` returns), the policy under it, and what an approver shows.
export {
  type CallDecision,
  type ConfirmHint,
  type ConnectDecision,
  createPermissionGuard,
  decide,
  describeQuestion,
  describeToolChange,
  type PermissionGuard,
  type PermissionGuardOptions,
  type PermissionState,
  type PolicyRequest,
  type ToolCallCheckOptions,
  type ToolCallGuard,
  type ToolCallRequest,
  terminalApprover,
  toolFingerprint,
  type UnaskedQuestion,
  type Verdict,
  type VerdictRequest,
} from './permissions/index.js';

// The registry (what `host.registry()` returns): many servers at once, their lifecycle and events.
export {
  type Connector,
  DEFAULT_RECONNECT_POLICY,
  type ReconnectPolicy,
  type RegistryEvent,
  type ServerCondition,
  ServerRegistry,
  type ServerRegistryOptions,
  type ServerState,
  type ServerStatus,
  type Visibility,
} from './registry/index.js';

// The funnel to a terminal: the text `forTerminal` makes, and the terminal `terminalApprover` asks on.
export { type SafeText, Terminal, type TerminalStreams } from './text/index.js';
// Agent tools over a registry with a guard of the program's own (what `host.agentTools()` does),
// a prompt's messages, and the tools below them: naming, results, schemas, routing; the text
// sanitizers.
export {
  assignToolNames,
  type CatalogueOptions,
  type ChatMessage,
  type ChatPart,
  type ChatPartsOptions,
  type ConvertOptions,
  callForModel,
  checkAgainstSchema,
  convertToolResult,
  createAgentTools,
  createCatalogue,
  DEFAULT_MAX_TEXT_LENGTH,
  formatProblems,
  forTerminal,
  hasHiddenCharacters,
  type ListedItem,
  mcpToolSource,
  type PromptMessages,
  type PromptMessagesOptions,
  promptMessages,
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
