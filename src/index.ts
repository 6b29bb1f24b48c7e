/**
 * mcpx as a library: `createHost` loads the configs (with their trust),
 * connects many MCP servers, and gives their tools to an agent under a
 * permission policy. This entry is what a `createHost` user needs: the host,
 * its options and events, the types its methods take and return, who can be
 * asked (`Ask`, the approvers, client features), and the errors. The library
 * never prints; every failure is an `McpxError` with a stable `code`,
 * rendered by `formatError`. The provider formats are `mcpx/openai`,
 * `mcpx/anthropic` and `mcpx/ai-sdk`; the pieces under the host (the
 * registry, the guard, the config loader, the connector, transports, OAuth,
 * the sanitizers) are `mcpx/low-level`.
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

// Generated code (`mcpx generate`): the runtime a generated module binds its functions with,
// the manifest it records, and the drift from what a server lists now.
export type { CallToolResult, GetPromptResult, ReadResourceResult } from '@modelcontextprotocol/client';
// The audit log: one record per tool call (who asked, the decision, the outcome), to the
// owner-only file and to sinks of a program's own (`createHost({ audit: { sink } })`).
export type {
  AuditAnswerer,
  AuditApp,
  AuditCaller,
  AuditCallStart,
  AuditClient,
  AuditDecision,
  AuditedCall,
  AuditOutcome,
  AuditRecord,
  AuditSink,
  AuditTrail,
} from './audit/index.js';
// Client features: what a server may ask of the host (roots, sampling, elicitation), and a
// connection as `host.connect()` returns it.
export {
  type CallToolOptions,
  type ClientFeatures,
  createRoots,
  type ElicitationHandlers,
  type InputRound,
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
  type ServerSkills,
  type SubscriptionEnd,
  samplingRefused,
  type TaskStatusEvent,
} from './client/index.js';
export {
  type BindOptions,
  type BoundTools,
  boundTools,
  type GeneratedEntry,
  type GeneratedManifest,
  type GeneratedTool,
  type ToolDrift,
} from './codegen/index.js';
// Config: what `host.config()` and `host.servers()` return; an ad-hoc server for `adhoc`.
export {
  type AdhocStdioOptions,
  adhocHttpServer,
  adhocStdioServer,
  type ConfigFileInfo,
  type ConfigLayer,
  type ConfigWarning,
  type HeldSettings,
  type InputRequest,
  type LoadedConfig,
  type PermissionName,
  type ProfileConfig,
  type ProfileLayer,
  type ProtocolPin,
  type ServerConfig,
  type ServerOrigin,
  type ShadowedServer,
  type TransportKind,
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

// Permissions: the level a host runs at, and the approver `ask.approver` is, with its questions.
export {
  type Approver,
  type CallDecision,
  type CallQuestion,
  type ChangedQuestion,
  type ConfirmHint,
  type ConnectDecision,
  type ConnectQuestion,
  type ConsentRequest,
  denyingApprover,
  type NobodyApprover,
  nobodyApprover,
  type PermissionAnswers,
  type PermissionLevel,
  type QuestionOptions,
  scriptedApprover,
} from './permissions/index.js';

// What `host.connect()` takes and how `reconnect` behaves.
export type { ConnectOptions, ReconnectMode } from './registry/index.js';

// Skills (SEP-2640): what `host.skills()` returns and lists.
export type {
  HostSkills,
  ListedSkill,
  LoadedSkill,
  RefusedSkillEntry,
  SkillFileContent,
  SkillFileEntry,
  SkillsListing,
  SkillsRequestOptions,
} from './skills/index.js';

// Agent tools: what `host.agentTools()` and `host.catalogue()` return, and a program's own tools
// beside the servers' (`extraSources`).
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
  type InProcessTool,
  inProcessToolSource,
  LIST_RESOURCES_TOOL,
  LOAD_SKILL_TOOL,
  type NamingStyle,
  READ_RESOURCE_TOOL,
  READ_SKILL_FILE_TOOL,
  type RoutedTool,
  SEARCH_TOOL,
  type ToolCallOptions,
  type ToolDescriptor,
  type ToolResultPart,
  type ToolSource,
} from './tools/index.js';

export { VERSION } from './version.js';
