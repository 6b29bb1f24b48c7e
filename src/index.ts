/**
 * mcpx as a library: load configs, connect many MCP servers, and give their
 * tools to an agent under a permission policy. The library never prints;
 * every failure is an `McpxError` with a stable `code`, rendered by
 * `formatError`. The provider formats are `mcpx/openai`, `mcpx/anthropic`
 * and `mcpx/ai-sdk`; transports, the connector, OAuth and the sanitizers are
 * `mcpx/low-level`.
 *
 * Every export added here becomes public API, checked against
 * `api/mcpx.api.md` by `npm run api`: named exports only, never `export *`.
 *
 * @example
 * const host = createHost({ ask: { who: 'this program', approveServer: async () => false } });
 * const registry = await host.registry();
 * await registry.connectAll();
 * await host.close();
 *
 * @packageDocumentation
 */

// The audit log: one record per tool call (who asked, the decision, the outcome), to the
// owner-only file and to sinks of a program's own (`createHost({ audit: { sink } })`).
export {
  type AuditAnswerer,
  type AuditCaller,
  type AuditCallStart,
  type AuditClient,
  type AuditDecision,
  type AuditedCall,
  type AuditOutcome,
  type AuditRecord,
  type AuditSink,
  type AuditTrail,
  maskArguments,
} from './audit/index.js';
// Client features: what a server may ask of the host (roots, sampling, elicitation), and a connection.
export {
  type CallToolOptions,
  type ClientFeatures,
  createRoots,
  type ElicitationHandlers,
  type InputRound,
  type ListKind,
  type ProgressEvent,
  type ProtocolEra,
  type RequestControl,
  RequestRefused,
  type ResourceSubscription,
  type RootsProvider,
  rootsForDirectories,
  type SamplingHandler,
  type ServerConnection,
  type ServerLogEvent,
  type SubscriptionEnd,
  samplingRefused,
  type TaskStatusEvent,
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
// Config: find, parse, validate and merge the config files; an ad-hoc server from a command or URL.
export {
  type AdhocStdioOptions,
  adhocHttpServer,
  adhocStdioServer,
  type ConfigFileInfo,
  type ConfigLayer,
  type ConfigPathInfo,
  type ConfigWarning,
  type HeldSettings,
  type InputRequest,
  type LoadConfigOptions,
  type LoadedConfig,
  loadConfig,
  type PermissionName,
  type ProfileConfig,
  type ProfileLayer,
  type ProtocolPin,
  resolveMcpxHome,
  type ServerConfig,
  type ServerOrigin,
  type ShadowedServer,
  type TransportKind,
  type ValidationResult,
  validateConfig,
} from './config/index.js';
// Errors: one class, a stable code per kind, one formatter.
export {
  ErrorCode,
  type ErrorContext,
  type ErrorOrigin,
  errorToJson,
  type FormatOptions,
  formatError,
  formatErrorLine,
  formatErrorVerbose,
  isMcpxError,
  McpxError,
  type McpxErrorOptions,
  toMcpxError,
} from './errors/index.js';
// The host: the one composition root (config → trust → servers → permissions → tools), handed
// who can be asked.
export {
  type Ask,
  createHost,
  type Env,
  type Host,
  type HostAuditOptions,
  type HostCallOptions,
  type HostCatalogueOptions,
  type HostEvent,
  type HostListener,
  type HostOptions,
  type HostPolicy,
  nobody,
  type TrustQuestion,
} from './host/index.js';

// Permissions: one guard decides every call an agent makes; an approver answers its questions.
export {
  type Approver,
  type CallQuestion,
  type ChangedQuestion,
  type ConfirmHint,
  type ConnectQuestion,
  type ConsentRequest,
  createPermissionGuard,
  denyingApprover,
  type NobodyApprover,
  nobodyApprover,
  type PermissionAnswers,
  type PermissionGuard,
  type PermissionGuardOptions,
  type PermissionLevel,
  type QuestionOptions,
  scriptedApprover,
  type ToolCallCheckOptions,
  type ToolCallGuard,
  type ToolCallRequest,
  type UnaskedQuestion,
  type VerdictRequest,
} from './permissions/index.js';

// Registry: many servers at once, their lifecycle and events.
export {
  type ConnectOptions,
  type Connector,
  DEFAULT_RECONNECT_POLICY,
  type ReconnectMode,
  type ReconnectPolicy,
  type RegistryEvent,
  type ServerCondition,
  ServerRegistry,
  type ServerRegistryOptions,
  type ServerState,
  type ServerStatus,
  type Visibility,
} from './registry/index.js';

// Agent tools: MCP tools (and the host's own functions) for a model, validated, guarded, converted;
// resources (the opt-in tool pair) and prompts (`promptMessages`) for a model's context.
export {
  type AgentTool,
  type AgentToolResult,
  type AgentToolSet,
  type AgentToolsOptions,
  type AgentToolWarning,
  CALL_TOOL,
  type Catalogue,
  type CatalogueEntry,
  type CatalogueNaming,
  type ChatMessage,
  type ChatPart,
  type ChatPartsOptions,
  createAgentTools,
  type InProcessTool,
  inProcessToolSource,
  LIST_RESOURCES_TOOL,
  type NamingStyle,
  type PromptMessages,
  type PromptMessagesOptions,
  promptMessages,
  READ_RESOURCE_TOOL,
  type RoutedTool,
  SEARCH_TOOL,
  type ToolCallOptions,
  type ToolDescriptor,
  type ToolResultPart,
  type ToolSource,
} from './tools/index.js';

export { VERSION } from './version.js';
