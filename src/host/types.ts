/** What a host is given, and what it offers its front end. */
import type { CallToolResult, LoggingLevel, Tool } from '@modelcontextprotocol/client';
import type { TracerProvider } from '@opentelemetry/api';
import type { AuditApp, AuditClient, AuditSink, AuditTrail } from '../audit/index.js';
import type { ProgressEvent, ServerConnection, ServerLogEvent, TaskStatusEvent } from '../client/index.js';
import type { LoadedConfig, ProfileConfig, ServerConfig } from '../config/index.js';
import type { DaemonCaller, DaemonRoute } from '../daemon-client/route.js';
import type { McpxError } from '../errors/index.js';
import type { PermissionGuard, PermissionLevel } from '../permissions/index.js';
import type { ConnectOptions, ReconnectMode, ServerRegistry } from '../registry/index.js';
import type { HostSkills } from '../skills/index.js';
import type { AgentToolSet, AgentToolsOptions, Catalogue, CatalogueNaming } from '../tools/index.js';
import type { Ask } from './ask.js';
import type { HostListener } from './events.js';

/** Environment variables, as `process.env` holds them. */
export type Env = Readonly<Record<string, string | undefined>>;

/**
 * What a host is made of, settled before it is made: `createHost` keeps a frozen copy, so
 * every field (and the plain settings under it) is read-only, in the types and at run time.
 */
export interface HostOptions {
  /** Where the project config is looked for. Default: `process.cwd()`. */
  readonly cwd?: string;
  /** Default: `process.env`. A stdio server gets only its safe keys and `env_passthrough` names. */
  readonly env?: Env;
  /** For `~/.mcpx` when MCPX_HOME is unset. Default: `os.homedir()`. */
  readonly homedir?: string;
  /** One config file instead of the discovered ones. */
  readonly configFile?: string;
  /** Who answers the questions servers and repositories raise. Default: `nobody()`. */
  readonly ask?: Ask;
  /** Overrides the config's permission level for `guard()` and `agentTools()`. */
  readonly permission?: PermissionLevel;
  /** What the person running this host allowed or excluded up front, applied by `guard()`. */
  readonly policy?: HostPolicy;
  /**
   * The audit log of tool calls (agents', the gateway's clients', a person's `mcpx call`): by
   * default a file only its owner can read, `audit_log` in the user's config or
   * `<home>/logs/audit.jsonl`. `false`: no audit log at all.
   */
  readonly audit?: HostAuditOptions | false;
  /**
   * The config's profile (`"profiles"`) this host is limited to: `servers()` holds only its
   * servers, `guard()` offers only its tools (a call of another is refused as "not in
   * profile"), so `catalogue()` and `agentTools()` list only those, and `permissionLevel()`
   * is at most its `permission` (a profile asking for more than the level in force is an error).
   */
  readonly profile?: string;
  /** Cancels connects that are under way. */
  readonly signal?: AbortSignal;
  /** The one server instead of the config's (the CLI's `--stdio` / `--url`). */
  readonly adhoc?: ServerConfig | undefined;
  /** What a crashed server does: `never` come back until asked, or on its next use (`lazy`, the default). */
  readonly reconnect?: ReconnectMode;
  /** False: list-changed notifications are not listened for (a one-shot command exits anyway). */
  readonly listChanges?: boolean;
  /** Leave out the built-in `demo` server when the config has servers of its own. */
  readonly omitBuiltinWhenConfigured?: boolean;
  /**
   * Offer every server the config's `roots` (those of trusted files; none for `adhoc`), beside
   * what `ask.features` offers; roots are not declared at all when the config names none.
   */
  readonly offerConfigRoots?: boolean;
  /** Wins over every server's connect and request timeouts. */
  readonly timeoutMs?: number | undefined;
  /** Every server's log messages from `level` up (default `info`). */
  readonly serverLogs?: { readonly listener: (event: ServerLogEvent) => void; readonly level?: LoggingLevel };
  /** `verbose` events: servers' stderr and logs, retries, the SDK's diagnostics, registry warnings. */
  readonly verbose?: boolean;
  /** `install` events for package runners' installs. */
  readonly installs?: boolean;
  /**
   * The keep-alive daemon's route, for the mcpx CLI itself (a daemon it starts on demand runs
   * this process's script as `… daemon run`). Absent: this process starts every server itself.
   * @internal
   */
  readonly daemon?: HostDaemonOptions;
  /**
   * How a failed tool listing's advice names listing them again, in the front end's words
   * (`mcpx shell`: `/mcp retry NAME`). Default: `` `mcpx retry NAME` ``.
   * @internal
   */
  readonly retryAdvice?: (server: string) => string;
  readonly platform?: NodeJS.Platform;
  /**
   * Where this host's spans go (connects, handshakes, every request). Default: the global
   * OpenTelemetry API, a no-op until a provider is registered. The W3C trace context reaches
   * each request's `_meta` through the global propagator, and a span is the parent of what it
   * awaits through the global context manager: register both (the SDK's `NodeSDK` does, or
   * `context.setGlobalContextManager` and `propagation.setGlobalPropagator`).
   */
  readonly tracerProvider?: TracerProvider;
}

/** Standing permission choices (`mcpx serve --allow a,b --exclude-tools …`). */
export interface HostPolicy {
  /** Servers whose every tool is allowed without asking. */
  readonly allowServers?: readonly string[];
  /** Globs on `<server>.<tool>` or `<tool>`: such tools are neither offered nor callable. */
  readonly excludeTools?: readonly string[];
}

/** Where a host's audit records go, and how it names itself in them. */
export interface HostAuditOptions {
  /** A sink of the program's own, beside the file. */
  readonly sink?: AuditSink;
  /** The file (`--audit-log PATH`), or `false` for none. Default: the config's `audit_log`, else `<home>/logs/audit.jsonl`. */
  readonly file?: string | false;
  /** Write the arguments' values (secrets masked) to the file, not only their names. */
  readonly values?: boolean;
  /** The front end `agentTools()` records its calls as (default `library`). */
  readonly client?: AuditClient;
}

/** How `Host.callTool()` makes one call, and what it tells along the way. */
export interface HostCallOptions {
  /** Cancels the call: the server is told (`notifications/cancelled`) and the call rejects. */
  readonly signal?: AbortSignal;
  /** The server's progress notifications for this call. */
  readonly onProgress?: (event: ProgressEvent) => void;
  /** Status changes of a tool that runs as a task. */
  readonly onTaskStatus?: (event: TaskStatusEvent) => void;
  /** The front end the audit log records the call as (default `audit.client`, else `library`). */
  readonly client?: AuditClient;
  /**
   * The call is an MCP App's own (`tools/call` from its frame), not the person's: the tool must be
   * one of the App's server's that Apps may call (`_meta.ui.visibility` absent or with `"app"`),
   * and the call is decided by `guard()` (the policy, questions to `ask.approver`) as an agent's
   * is; the audit record names the App.
   */
  readonly app?: AuditApp;
}

/** Which tools `Host.catalogue()` lists, and under which names. */
export interface HostCatalogueOptions {
  /** Default `prefixed` (as `agentTools()`); `transparent` is for one server. */
  readonly naming?: CatalogueNaming;
  /** Only these servers (default: every usable one). */
  readonly servers?: readonly string[];
}

export interface HostDaemonOptions {
  /**
   * This process is the daemon holding these servers (more as callers ask): it starts them
   * itself. `usable`: every server `servers()` chooses.
   */
  readonly held?: readonly ServerConfig[] | 'usable';
  /** This command runs inside the daemon for a light caller: only servers the daemon holds are used. */
  readonly caller?: DaemonCaller;
  /** What this process is, as `mcpx daemon status` lists the sessions of each warm server (`mcpx serve`). */
  readonly label?: string;
}

/** What `createHost` returns: the config, the servers and their connections, the permission guard, and the tools for an agent, with events and one `close()`. */
export interface Host {
  /** The mcpx home (MCPX_HOME, or `~/.mcpx`). */
  readonly home: string;
  /** The merged config (global → ancestors → project, or `configFile`). */
  config(): Promise<LoadedConfig>;
  /**
   * The servers that may start: enabled, and trusted or approved now. A
   * project's unapproved entry is put to `ask.approveServer`; yes records the
   * approval in the trust store, no (or nobody to ask) skips it with a notice.
   */
  servers(): Promise<ServerConfig[]>;
  /** The profile in force (`HostOptions.profile`), checked against the config; undefined without one. */
  profile(): Promise<ProfileConfig | undefined>;
  /** Project entries skipped because nobody approved them (known once `servers()` ran). */
  untrusted(): Promise<ServerConfig[]>;
  /** Entries skipped because they would start mcpx itself, each with why. */
  selfSkipped(): Promise<ReadonlyMap<string, McpxError>>;
  /**
   * The servers that failed, as they stand now, each with its typed error: one that could
   * not start or connect, or whose connection was lost (until it comes back), or whose
   * listing of its tools (or resources, or prompts) failed. Each failure is also a
   * `failure` event when it happens. Empty until servers are connected.
   */
  failures(): Promise<ReadonlyMap<string, McpxError>>;
  /** One usable server by name, or an error that says why it cannot be used. */
  server(name: string): Promise<ServerConfig>;
  /** The registry of `servers()`, closed by `close()`. */
  registry(): Promise<ServerRegistry>;
  /** Another registry wired as `registry()` is, for exactly `servers`; its maker closes it. */
  createRegistry(servers: readonly ServerConfig[]): Promise<ServerRegistry>;
  /** Connect one server (a stdio one is spawned before the protocol code loads). */
  connect(server: ServerConfig, options?: ConnectOptions): Promise<ServerConnection>;
  /**
   * The level an agent runs at: `permission`, else the config's (a repository's file may only
   * lower the person's own; an ad-hoc server runs without the config's), else `trusted`.
   */
  permissionLevel(): Promise<PermissionLevel>;
  /**
   * The one permission engine: at `permissionLevel()`, with `policy`, questions to
   * `ask.approver`; each server's allow/deny lists as the registry holds it now.
   */
  guard(): Promise<PermissionGuard>;
  /** Another guard made as `guard()` is, for exactly `servers` (the daemon keeps one per instance). */
  createGuard(servers: readonly ServerConfig[]): Promise<PermissionGuard>;
  /**
   * Another host with the same options that reads the config and the trust store
   * afresh (a gateway's reload); its events reach this host's listeners. Close it after use.
   */
  fresh(): Host;
  /**
   * The servers' tools for an agent, behind `guard()`: every server (or `options.servers`)
   * connected first; one that fails is left out, told by a `failure` event and in `failures()`.
   * When someone answers `ask.approver` (not a refusing or nobody approver), each connected
   * server is put to it first (seed 004's consent: where it is configured and its tools, before
   * the agent sees any of them); a server denied is closed, its tools never offered, and a
   * `notice` says so. With nobody to ask, each call is refused instead, in words the model is told.
   * At `sandboxed` no server is started and no MCP tool is offered (a `notice` says so);
   * `options.extraSources` are still offered.
   */
  agentTools(options?: Omit<AgentToolsOptions, 'guard'>): Promise<AgentToolSet>;
  /**
   * One call of `tool` of `server` that the host's own user makes (a person's `mcpx call` or
   * shell line, a program's direct call), not an agent's: it is not put to `guard()`, and
   * `audit()` records it as allowed by the person, with how it ended. The server is connected
   * on first use. A tool that fails is a result (`isError`); a server that cannot be reached,
   * or a cancelled call, rejects. With `options.app` the call is an MCP App's, not the person's:
   * only a tool Apps may call, decided by `guard()` (see `HostCallOptions.app`).
   *
   * @example
   * const result = await host.callTool('demo', 'echo', { message: 'hi' });
   */
  callTool(
    server: string,
    tool: string,
    args: Record<string, unknown>,
    options?: HostCallOptions,
  ): Promise<CallToolResult>;
  /**
   * The tools of `servers()` (or `options.servers`) under one set of public names, behind
   * `guard()`: a tool the policy does not offer is neither listed nor resolvable. The names
   * are those every front end gives: `agentTools()` in the same style, `mcpx serve`'s
   * `tools/list` in `namespaced`. Every server is connected first, as for `agentTools()`;
   * at `sandboxed`, none is, and the catalogue is empty.
   */
  catalogue(options?: HostCatalogueOptions): Promise<Catalogue<Tool>>;
  /**
   * The servers' skills (the SEP-2640 extension) under the host's rules: only servers the host
   * may use are asked (an untrusted project's are not); listing reads each server's manifest and
   * no file; a skill's `SKILL.md` and files are verified (size, sha256 digest, frontmatter) on
   * every read, and a file its skill does not list is refused; names are kept per server
   * (`<server>.<skill>`); each skill carries its manifest's fingerprint for approvals.
   *
   * @example
   * const { skills } = await host.skills().list();
   * const pdf = await host.skills().get('docs', 'pdf-processing');
   */
  skills(): HostSkills;
  /**
   * The daemon's route, when `daemon` was given.
   * @internal
   */
  readonly daemon: DaemonRoute | undefined;
  /**
   * The one audit trail of this host's tool calls, for every front end: `agentTools()` records
   * into it, and so do the gateway, chat and the CLI's calls. Its file opens at the first record;
   * a file that cannot be written is one `warning` event, and the calls go on.
   */
  audit(): AuditTrail;
  /** Listen to notices, warnings and installs; returns the unsubscribe. */
  on(listener: HostListener): () => void;
  /** Close the registry and every process this host started. */
  close(): Promise<void>;
  /**
   * `close()`, so that `await using host = createHost(…)` closes the host when the block ends
   * (TypeScript 5.2+; the Node 24+ runtime has the syntax natively).
   */
  [Symbol.asyncDispose](): Promise<void>;
}
