/**
 * The one composition root: config → trust → servers → connector → registry →
 * permission guard → agent tools. A front end (the CLI, the shell, chat, the
 * gateway, the daemon, a library program) hands it who can be asked (`Ask`)
 * and its knobs, and listens to its events; the host never prints.
 */
import { homedir as osHomedir } from 'node:os';
import type { LoggingLevel } from '@modelcontextprotocol/client';
import type { EraCache } from '../client/era-cache.js';
import type { ManagedTransport } from '../client/server-connection.js';
import type { TransportHooks } from '../client/transport-factory.js';
import type { ServerConnection, ServerLogEvent } from '../client/types.js';
import {
  approvedRecord,
  describeForTrust,
  type LoadedConfig,
  loadConfig,
  loadTrustStore,
  markApproved,
  resolveMcpxHome,
  trustServers,
} from '../config/index.js';
import type { InputRequest } from '../config/input-variable.js';
import type { ServerConfig } from '../config/types.js';
import { type DaemonCaller, DaemonRoute, viaDaemon } from '../daemon/route.js';
import type { McpxError } from '../errors/index.js';
import type { PermissionGuard } from '../permissions/guard.js';
import type { PermissionLevel } from '../permissions/types.js';
import type { ConnectOptions, ServerRegistry } from '../registry/index.js';
import type { ReconnectMode } from '../registry/reconnect-policy.js';
import type { AgentToolSet, AgentToolsOptions } from '../tools/agent-tools.js';
import { forTerminal } from '../tools/sanitize.js';
import { type Ask, nobody } from './ask.js';
import { createConnector, type RoutableConnector, spawnEarly } from './connector.js';
import { formatLog, formatSdkDiagnostic, type HostEvent, type HostListener, preview } from './events.js';
import { selfReference } from './self-reference.js';
import { findServer } from './server-lookup.js';

type Env = Readonly<Record<string, string | undefined>>;

/**
 * What a host is made of. The knobs that shape servers and the registry are
 * read when those are first made (a front end may settle them until then).
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
  /** Wins over every server's connect and request timeouts. */
  readonly timeoutMs?: number | undefined;
  /** Every server's log messages from `level` up (default `info`). */
  readonly serverLogs?: { readonly listener: (event: ServerLogEvent) => void; readonly level?: LoggingLevel };
  /** `verbose` events: servers' stderr and logs, retries, the SDK's diagnostics, registry warnings. */
  readonly verbose?: boolean;
  /** `install` events for package runners' installs. */
  readonly installs?: boolean;
  /** The keep-alive daemon's route. Absent: this process starts every server itself. */
  readonly daemon?: HostDaemonOptions;
  readonly platform?: NodeJS.Platform;
}

export interface HostDaemonOptions {
  /** This process is the daemon holding these servers (more as callers ask): it starts them itself. */
  readonly held?: readonly ServerConfig[];
  /** This command runs inside the daemon for a light caller: only servers the daemon holds are used. */
  readonly caller?: DaemonCaller;
}

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
  /** Project entries skipped because nobody approved them (known once `servers()` ran). */
  untrusted(): Promise<ServerConfig[]>;
  /** Entries skipped because they would start mcpx itself, each with why. */
  selfSkipped(): Promise<ReadonlyMap<string, McpxError>>;
  /** One usable server by name, or an error that says why it cannot be used. */
  server(name: string): Promise<ServerConfig>;
  /** The registry of `servers()`, closed by `close()`. */
  registry(): Promise<ServerRegistry>;
  /** Another registry wired as `registry()` is, for exactly `servers`; its maker closes it. */
  createRegistry(servers: readonly ServerConfig[]): Promise<ServerRegistry>;
  /** Connect one server (a stdio one is spawned before the protocol code loads). */
  connect(server: ServerConfig, options?: ConnectOptions): Promise<ServerConnection>;
  /** The one permission engine: level from the options or the config, questions to `ask.approver`. */
  guard(): Promise<PermissionGuard>;
  /** The servers' tools for an agent, behind `guard()`: every server (or `options.servers`) connected first. */
  agentTools(options?: Omit<AgentToolsOptions, 'guard'>): Promise<AgentToolSet>;
  /** The daemon's route, when `daemon` was given. */
  readonly daemon: DaemonRoute | undefined;
  /** Listen to notices, warnings and installs; returns the unsubscribe. */
  on(listener: HostListener): () => void;
  /** Close the registry and every process this host started. */
  close(): Promise<void>;
}

/**
 * Make a host; nothing is read or started until asked for.
 *
 * @example
 * const host = createHost({ ask: { who: 'this program', approveServer: async (q) => confirm(q.description) } });
 * const tools = await host.agentTools();
 * await host.close();
 */
export function createHost(options: HostOptions = {}): Host {
  return new McpxHost(options);
}

class McpxHost implements Host {
  readonly home: string;
  readonly daemon: DaemonRoute | undefined;
  readonly #o: HostOptions;
  readonly #env: Env;
  readonly #cwd: string;
  readonly #homedir: string;
  readonly #listeners = new Set<HostListener>();
  #config: Promise<LoadedConfig> | undefined;
  #trust: ReturnType<typeof loadTrustStore> | undefined;
  #usable: Promise<ServerConfig[]> | undefined;
  readonly #untrusted = new Map<string, ServerConfig>();
  readonly #selfSkipped = new Map<string, McpxError>();
  /** `${input:id}` answers, asked once per host and kept only in memory. */
  readonly #inputs = new Map<string, Promise<string | undefined>>();
  #registry: Promise<ServerRegistry> | undefined;
  #eraCache: Promise<EraCache | undefined> | undefined;
  #guard: Promise<PermissionGuard> | undefined;
  /** Stdio servers spawned before the protocol code was loaded, waiting for their connect. */
  readonly #early = new Map<string, ManagedTransport>();

  constructor(options: HostOptions) {
    // Kept, not copied: the knobs are read when what they shape is first made.
    this.#o = options;
    this.#env = options.env ?? process.env;
    this.#cwd = options.cwd ?? process.cwd();
    this.#homedir = options.homedir ?? osHomedir();
    this.home = resolveMcpxHome(this.#env, this.#homedir);
    this.daemon = options.daemon ? this.#daemonRoute(options.daemon) : undefined;
  }

  get #ask(): Ask {
    return this.#o.ask ?? nobody();
  }

  on(listener: HostListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #emit(event: HostEvent): void {
    for (const listener of this.#listeners) listener(event);
  }

  #notice(message: string): void {
    this.#emit({ type: 'notice', message: forTerminal(message) });
  }

  #verbose(message: string): void {
    this.#emit({ type: 'verbose', message: forTerminal(message) });
  }

  config(): Promise<LoadedConfig> {
    this.#config ??= (async () => {
      const caller = this.#o.daemon?.caller;
      const ask = this.#o.ask;
      const config = await loadConfig({
        cwd: this.#cwd,
        env: this.#env,
        home: this.home,
        trust: await this.#trustStore(),
        ...(caller?.configFiles ? { fileCache: caller.configFiles } : {}),
        homedir: this.#homedir,
        platform: this.#o.platform ?? process.platform,
        ...(ask?.input ? { askInput: (r: InputRequest) => this.#input(r) } : {}),
        ...(this.#o.configFile ? { configFile: this.#o.configFile } : {}),
      });
      // Keys come from a file, hence forTerminal.
      for (const warning of config.warnings)
        this.#emit({ type: 'warning', message: forTerminal(warning.message) });
      return config;
    })();
    return this.#config;
  }

  /** The trust store, read once (the config's settings and the servers' trust both need it). */
  #trustStore(): ReturnType<typeof loadTrustStore> {
    // Inside the daemon: kept between its callers' commands while trust.json is unchanged.
    const kept = this.#o.daemon?.caller?.configFiles;
    this.#trust ??= kept
      ? kept.trustStore(this.home, () => loadTrustStore(this.home))
      : loadTrustStore(this.home);
    return this.#trust;
  }

  #input(request: InputRequest): Promise<string | undefined> {
    let answer = this.#inputs.get(request.variable);
    if (!answer) {
      answer = this.#ask.input?.(request) ?? Promise.resolve(undefined);
      this.#inputs.set(request.variable, answer);
    }
    return answer;
  }

  servers(): Promise<ServerConfig[]> {
    const held = this.#o.daemon?.held;
    if (held) return Promise.resolve([...held]);
    this.#usable ??= this.#selectServers();
    return this.#usable;
  }

  async #selectServers(): Promise<ServerConfig[]> {
    const { adhoc } = this.#o;
    if (adhoc) {
      // The person's own request; only a chain that keeps growing refuses it.
      const refused = this.#selfReference(adhoc);
      if (refused) throw refused;
      return [adhoc];
    }
    const config = await this.config();
    // Refused before trust is asked: approving what will not run anyway would be a wasted question.
    for (const server of [...config.servers, ...config.unapproved]) {
      const refused = server.enabled ? this.#selfReference(server) : undefined;
      if (!refused) continue;
      this.#selfSkipped.set(server.name, refused);
      this.#notice(
        `skipped server '${server.name}' from ${server.origin.file ?? server.origin.layer}: ${refused.message}`,
      );
    }
    const runs = (s: ServerConfig) => s.enabled && !this.#selfSkipped.has(s.name);
    const store = await this.#trustStore();
    const approve = this.#ask.approveServer;
    const approved: ServerConfig[] = [];
    for (const server of config.unapproved.filter(runs)) {
      const description = describeForTrust(server, approvedRecord(store, server)).map(forTerminal);
      if (approve && (await approve({ server, description }))) {
        approved.push(markApproved(server));
      } else {
        this.#untrusted.set(server.name, server);
        this.#notice(
          `skipped server '${server.name}' from ${server.origin.file}: not trusted yet — review it and run \`mcpx config trust\``,
        );
      }
    }
    if (approved.length) await trustServers(this.home, approved);
    // The entries approved just now come after those approved before.
    const usable = [...config.servers.filter(runs), ...approved];
    const own = usable.filter((s) => s.origin.layer !== 'builtin');
    return this.#o.omitBuiltinWhenConfigured && own.length > 0 ? own : usable;
  }

  #selfReference(server: ServerConfig): McpxError | undefined {
    return selfReference(server, { env: this.#env, selfScript: process.argv[1] });
  }

  async untrusted(): Promise<ServerConfig[]> {
    await this.servers();
    return [...this.#untrusted.values()];
  }

  async selfSkipped(): Promise<ReadonlyMap<string, McpxError>> {
    await this.servers();
    return this.#selfSkipped;
  }

  async server(name: string): Promise<ServerConfig> {
    const usable = await this.servers();
    return findServer(name, {
      usable,
      adhoc: this.#o.adhoc,
      config: () => this.config(),
      selfSkipped: this.#selfSkipped,
      untrusted: this.#untrusted,
    });
  }

  registry(): Promise<ServerRegistry> {
    this.#registry ??= this.#newRegistry();
    return this.#registry;
  }

  createRegistry(servers: readonly ServerConfig[]): Promise<ServerRegistry> {
    return this.#newRegistry(servers);
  }

  async #newRegistry(given?: readonly ServerConfig[]): Promise<ServerRegistry> {
    const servers = given ?? (await this.servers());
    // The protocol stack (the SDK and its schemas) is most of a cold start: loaded
    // here, after any early spawn, so the server boots while it loads.
    const { ServerRegistry } = await import('../registry/index.js');
    const direct = this.#connector();
    const connector = this.daemon ? await viaDaemon(direct, this.daemon) : direct;
    const registry = new ServerRegistry(servers, {
      reconnect: { mode: this.#o.reconnect ?? 'lazy' },
      connector,
    });
    if (this.#o.verbose) {
      registry.on((event) => {
        if (event.type === 'warning') this.#emit({ type: 'warning', message: forTerminal(event.message) });
      });
    }
    return registry;
  }

  #connector(): RoutableConnector {
    const { verbose, serverLogs } = this.#o;
    const features = this.#ask.features;
    const onLog =
      serverLogs?.listener ??
      (verbose ? (event: ServerLogEvent) => this.#verbose(formatLog(event)) : undefined);
    const logLevel = verbose ? 'debug' : serverLogs ? (serverLogs.level ?? 'info') : undefined;
    return createConnector({
      transportHooks: (server) => this.#transportHooks(server),
      // Inside the daemon for a light caller every server is reached through it: no era to remember.
      ...(this.#o.daemon?.caller ? {} : { eraCache: () => this.#openEraCache() }),
      ...(this.#o.timeoutMs !== undefined ? { timeoutMs: this.#o.timeoutMs } : {}),
      ...(onLog ? { onLog } : {}),
      ...(logLevel ? { logLevel } : {}),
      ...(verbose ? { onSdkDiagnostic: (d) => this.#verbose(formatSdkDiagnostic(d)) } : {}),
      ...(features ? { features } : {}),
      ...(this.#o.listChanges === false ? { listChanges: false } : {}),
      ...(this.#o.signal ? { signal: this.#o.signal } : {}),
      takeEarly: (name) => {
        const transport = this.#early.get(name);
        this.#early.delete(name);
        return transport;
      },
    });
  }

  /** Opened once, however many registries (the daemon makes one per server instance). */
  #openEraCache(): Promise<EraCache | undefined> {
    this.#eraCache ??= import('../client/era-cache.js').then(({ openFileEraCache }) =>
      openFileEraCache(this.home),
    );
    return this.#eraCache;
  }

  #transportHooks(server: ServerConfig): TransportHooks {
    const isDaemon = this.#o.daemon?.held !== undefined;
    const present = this.#ask.presentSignIn;
    // A signed-in server that asks for a wider scope (or moved to another authorization server)
    // midway gets a new sign-in shown by whoever can be asked, then the request again. The daemon
    // asks no one: its callers sign in at their own terminals (daemon/route.ts).
    const signIn: TransportHooks['signIn'] =
      present && !isDaemon ? { present: (url) => present(server.name, url.href) } : undefined;
    const hooks: TransportHooks = {
      hostEnv: this.#env,
      ...(this.#o.platform ? { platform: this.#o.platform } : {}),
      oauthHome: this.home,
      ...(signIn ? { signIn } : {}),
      ...(isDaemon ? { callerSignsIn: true } : {}),
      // A garbled message is a server's failure: told always, not only when verbose.
      onMalformedMessage: (error) => this.#emit({ type: 'warning', message: forTerminal(error.message) }),
      ...(this.#o.installs ? { onPackageInstall: (event) => this.#emit({ type: 'install', event }) } : {}),
    };
    if (!this.#o.verbose) return hooks;
    return {
      ...hooks,
      http: {
        onRetry: (retry) =>
          this.#verbose(
            `${server.name}: ${retry.what} failed (${forTerminal(retry.reason)}), retry ${retry.attempt} of ${retry.maxRetries} in ${Math.round(retry.delayMs)} ms`,
          ),
      },
      onInvalidLine: (line) =>
        this.#verbose(`${server.name}: ignored a line that is not JSON-RPC: ${preview(line)}`),
      onStderrLine: (line) => this.#verbose(`${server.name} stderr: ${preview(line)}`),
    };
  }

  #daemonRoute(options: HostDaemonOptions): DaemonRoute {
    const present = this.#o.ask?.presentSignIn;
    return new DaemonRoute({
      home: this.home,
      cwd: this.#cwd,
      env: this.#env,
      ...(this.#o.platform ? { platform: this.#o.platform } : {}),
      ...(this.#o.configFile ? { configFile: this.#o.configFile } : {}),
      configFiles: async () => (await this.config()).files.map((f) => f.path),
      isDaemon: () => this.#o.daemon?.held !== undefined,
      ...(options.caller ? { caller: options.caller } : {}),
      adhoc: () => this.#o.adhoc !== undefined,
      ...(this.#o.signal ? { signal: this.#o.signal } : {}),
      ...(present ? { presentSignIn: (server: string, url: URL) => present(server, url.href) } : {}),
      ...(this.#o.verbose
        ? { onSdkDiagnostic: (d) => this.#verbose(formatSdkDiagnostic(d)), verbose: true }
        : {}),
      notice: (line) => this.#notice(line),
    });
  }

  async connect(server: ServerConfig, options: ConnectOptions = {}): Promise<ServerConnection> {
    if (!this.#registry && !(await this.daemon?.routes(server))) {
      const caller = this.#o.daemon?.caller;
      if (caller) throw caller.direct(server.name);
      this.#spawnEarly(server);
    }
    return (await this.registry()).connect(server.name, {}, options);
  }

  /** Start a stdio server's process now; its connect picks it up (see the connector). */
  #spawnEarly(server: ServerConfig): void {
    if (this.#early.has(server.name) || server.unapproved) return;
    const transport = spawnEarly(server, this.#transportHooks(server));
    if (transport) this.#early.set(server.name, transport);
  }

  guard(): Promise<PermissionGuard> {
    this.#guard ??= (async () => {
      const [{ createPermissionGuard }, { denyingApprover }] = await Promise.all([
        import('../permissions/guard.js'),
        import('../permissions/approver.js'),
      ]);
      const configured = this.#o.adhoc ? undefined : (await this.config()).permission;
      const ask = this.#ask;
      return createPermissionGuard({
        level: this.#o.permission ?? configured ?? 'trusted',
        approver: ask.approver ?? denyingApprover(`nobody can be asked (${ask.who})`),
        servers: await this.servers(),
      });
    })();
    return this.#guard;
  }

  async agentTools(options: Omit<AgentToolsOptions, 'guard'> = {}): Promise<AgentToolSet> {
    const [{ createAgentTools }, registry, guard] = await Promise.all([
      import('../tools/agent-tools.js'),
      this.registry(),
      this.guard(),
    ]);
    // Each server connected in parallel; one that fails is left out (its status says why), never waited on by the others.
    await registry.connectAll({
      ...(this.#o.signal ? { signal: this.#o.signal } : {}),
      ...(options.servers ? { only: options.servers } : {}),
    });
    return createAgentTools(registry, { ...options, guard });
  }

  async close(): Promise<void> {
    // A registry that never came to be (bad config) has nothing to close.
    const registry = await this.#registry?.catch(() => undefined);
    await registry?.close();
    // Spawned early but never connected (the registry failed to load): end them too.
    await Promise.all([...this.#early.values()].map((t) => t.close()));
    this.#early.clear();
  }
}
