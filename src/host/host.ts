/**
 * The one composition root: config → trust → servers → connector → registry →
 * permission guard → agent tools. A front end (the CLI, the shell, chat, the
 * gateway, the daemon, a library program) hands it who can be asked (`Ask`)
 * and its knobs, and listens to its events; the host never prints.
 */
import { homedir as osHomedir } from 'node:os';
import { resolve } from 'node:path';
import type { CallToolResult, Tool } from '@modelcontextprotocol/client';
import {
  type AuditClient,
  type AuditDecision,
  type AuditedCall,
  type AuditSink,
  type AuditTrail,
  createAuditTrail,
  defaultAuditPath,
  openAuditFile,
} from '../audit/index.js';
import { type ClientFeatures, createRoots, rootsForDirectories } from '../client/features.js';
import type {
  CallToolOptions,
  EraCache,
  ManagedTransport,
  ServerConnection,
  ServerLogEvent,
  TransportHooks,
} from '../client/index.js';
import type { InputRequest, ProfileConfig, ServerConfig } from '../config/index.js';
import { type LoadedConfig, loadConfig, loadTrustStore, resolveMcpxHome } from '../config/loading.js';
import { DaemonRoute, viaDaemon } from '../daemon-client/route.js';
import { formatOrigin, type McpxError, toMcpxError } from '../errors/index.js';
import type { PermissionGuard, PermissionGuardOptions, PermissionLevel } from '../permissions/index.js';
import type { ConnectOptions, ServerRegistry } from '../registry/index.js';
import { createHostSkills, type HostSkills, listConnectionSkills, skillAction } from '../skills/index.js';
import { forTerminal } from '../text/index.js';
import type { AgentToolSet, AgentToolsOptions, Catalogue } from '../tools/index.js';
import { toolForApp } from './app-call.js';
import { type Ask, nobody } from './ask.js';
import { createConnector, type RoutableConnector, spawnTraced, type Traced, tracedBy } from './connector.js';
import { formatLog, formatSdkDiagnostic, type HostEvent, type HostListener } from './events.js';
import { hasServer, narrowedLevel, outsideProfile, profileForHost } from './profile.js';
import { chooseServers, findServer, refusedAsSelf, type ServerChoice } from './servers.js';
import { transportHooks } from './transport-hooks.js';
import type {
  Env,
  Host,
  HostCallOptions,
  HostCatalogueOptions,
  HostDaemonOptions,
  HostOptions,
} from './types.js';

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
  /** What this host has said once and will not say again (an ended sign-in, per server and ending). */
  readonly #told = new Set<string>();
  #config: Promise<LoadedConfig> | undefined;
  #profile: Promise<ProfileConfig | undefined> | undefined;
  #trust: ReturnType<typeof loadTrustStore> | undefined;
  #usable: Promise<ServerConfig[]> | undefined;
  #choice: Omit<ServerChoice, 'usable'> = { untrusted: new Map(), selfSkipped: new Map() };
  /** `${input:id}` answers, asked once per host and kept only in memory. */
  readonly #inputs = new Map<string, Promise<string | undefined>>();
  #registry: Promise<ServerRegistry> | undefined;
  #eraCache: Promise<EraCache | undefined> | undefined;
  #guard: Promise<PermissionGuard> | undefined;
  #audit: AuditTrail | undefined;
  /** Stdio servers spawned before the protocol code was loaded, waiting for their connect. */
  readonly #early = new Map<string, ManagedTransport>();
  /** The registry of a `sandboxed` agent's tools: no server at all. */
  #noServers: Promise<ServerRegistry> | undefined;
  #toldSandboxed = false;
  #roots: Promise<ClientFeatures['roots']> | undefined;
  #skills: HostSkills | undefined;

  constructor(options: HostOptions) {
    // A frozen copy: what the host was made with is what it is (a front end settles everything first).
    this.#o = frozenOptions(options);
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

  /** A server's failure, told as an event: a program must not find out only by having fewer tools. */
  #failure(server: string, error: McpxError, what?: string): void {
    const message = what ? `${server} ${what}: ${error.message}` : error.message;
    this.#emit({ type: 'failure', server, error, message: forTerminal(message) });
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

  profile(): Promise<ProfileConfig | undefined> {
    this.#profile ??= (async () => {
      const { profile } = this.#o;
      if (profile === undefined) return undefined;
      return profileForHost(await this.config(), profile, this.#o.adhoc);
    })();
    return this.#profile;
  }

  servers(): Promise<ServerConfig[]> {
    const held = this.#o.daemon?.held;
    if (held && held !== 'usable') return Promise.resolve([...held]);
    this.#usable ??= this.#selectServers();
    return this.#usable;
  }

  async #selectServers(): Promise<ServerConfig[]> {
    const { adhoc } = this.#o;
    if (adhoc) {
      // The person's own request; only a chain that keeps growing refuses it.
      const refused = refusedAsSelf(adhoc, this.#env);
      if (refused) throw refused;
      return [adhoc];
    }
    const profile = await this.profile();
    const config = await this.config();
    const choice = await chooseServers({
      // Outside the profile a server is not started, nor put to anyone for approval.
      config: profile
        ? {
            ...config,
            servers: config.servers.filter((s) => hasServer(profile, s.name)),
            unapproved: config.unapproved.filter((s) => hasServer(profile, s.name)),
          }
        : config,
      trust: await this.#trustStore(),
      home: this.home,
      env: this.#env,
      approveServer: this.#ask.approveServer,
      who: this.#ask.who,
      signal: this.#o.signal,
      omitBuiltinWhenConfigured: this.#o.omitBuiltinWhenConfigured === true,
      notice: (message) => this.#notice(message),
    });
    this.#choice = choice;
    return choice.usable;
  }

  async untrusted(): Promise<ServerConfig[]> {
    await this.servers();
    return [...this.#choice.untrusted.values()];
  }

  async selfSkipped(): Promise<ReadonlyMap<string, McpxError>> {
    await this.servers();
    return this.#choice.selfSkipped;
  }

  async server(name: string): Promise<ServerConfig> {
    const usable = await this.servers();
    const profile = await this.profile();
    if (profile) {
      const outside = outsideProfile(profile, name, await this.config());
      if (outside) throw outside;
    }
    return findServer(name, {
      usable,
      adhoc: this.#o.adhoc,
      config: () => this.config(),
      selfSkipped: this.#choice.selfSkipped,
      untrusted: this.#choice.untrusted,
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
      ...(this.#o.retryAdvice ? { retryAdvice: this.#o.retryAdvice } : {}),
    });
    registry.on((event) => {
      if (event.type === 'state' && event.state === 'error' && event.error)
        this.#failure(event.server, event.error, 'is not available');
      if (event.type !== 'warning') return;
      if (event.listing && event.error) this.#failure(event.server, event.error);
      if (this.#o.verbose) this.#emit({ type: 'warning', message: forTerminal(event.message) });
    });
    return registry;
  }

  #connector(): RoutableConnector {
    const { verbose, serverLogs } = this.#o;
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
      features: (server) => this.#features(server),
      ...(this.#o.listChanges === false ? { listChanges: false } : {}),
      ...(this.#o.signal ? { signal: this.#o.signal } : {}),
      ...(this.#o.tracerProvider ? { tracerProvider: this.#o.tracerProvider } : {}),
      takeEarly: (name) => {
        const transport = this.#early.get(name);
        this.#early.delete(name);
        return transport;
      },
    });
  }

  /** Opened once, however many registries (the daemon makes one per server instance). */
  /** What a server is offered: the config's roots when `offerConfigRoots`, then `ask.features`'s own. */
  async #features(server: ServerConfig): Promise<ClientFeatures | undefined> {
    const own = this.#ask.features?.(server);
    const roots = this.#o.offerConfigRoots ? await this.#configRoots() : undefined;
    return roots ? { roots, ...own } : own;
  }

  /** The config's trusted `roots` as one provider, for every server; none for an ad-hoc server. */
  #configRoots(): Promise<ClientFeatures['roots']> {
    this.#roots ??= (async () => {
      if (this.#o.adhoc) return undefined;
      // `roots` of an untrusted repository file are held back by loadConfig (see heldSettings).
      const { roots } = await this.config();
      return roots ? createRoots(rootsForDirectories(roots)) : undefined;
    })();
    return this.#roots;
  }

  #openEraCache(): Promise<EraCache | undefined> {
    this.#eraCache ??= import('../client/era-cache.js').then(({ openFileEraCache }) =>
      openFileEraCache(this.home),
    );
    return this.#eraCache;
  }

  #transportHooks(server: ServerConfig): TransportHooks {
    return transportHooks(server, {
      env: this.#env,
      ...(this.#o.platform ? { platform: this.#o.platform } : {}),
      home: this.home,
      isDaemon: this.#o.daemon?.held !== undefined,
      presentSignIn: this.#ask.presentSignIn,
      installs: this.#o.installs === true,
      verbose: this.#o.verbose === true,
      // A one-shot command's error says it already; a long-running host says it once for all its calls.
      ...(this.#o.reconnect === 'never' ? {} : { signInWarnings: { once: (key) => this.#toldOnce(key) } }),
      emit: (event) => this.#emit(event),
    });
  }

  /** Whether `key` is new to this host (and from now on, not). */
  #toldOnce(key: string): boolean {
    if (this.#told.has(key)) return false;
    this.#told.add(key);
    return true;
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
      label: () => this.#o.daemon?.label,
      ...(options.caller ? { caller: options.caller } : {}),
      adhoc: () => this.#o.adhoc !== undefined,
      ...(this.#o.signal ? { signal: this.#o.signal } : {}),
      ...(present ? { presentSignIn: (server: string, url: URL) => present(server, url.href) } : {}),
      ...(this.#o.verbose
        ? { onSdkDiagnostic: (d) => this.#verbose(formatSdkDiagnostic(d)), verbose: true }
        : {}),
      notice: (line) => this.#notice(line),
      features: (server) => this.#features(server),
    });
  }

  async connect(server: ServerConfig, options: ConnectOptions = {}): Promise<ServerConnection> {
    if (!this.#registry && !(await this.daemon?.routes(server))) {
      const caller = this.#o.daemon?.caller;
      if (caller) throw caller.direct(server.name);
      const found = tracedBy(this.#o.tracerProvider);
      this.#spawnEarly(server, found instanceof Promise ? await found : found);
    }
    return (await this.registry()).connect(server.name, {}, options);
  }

  /** Start a stdio server's process now; its connect picks it up (see the connector). */
  #spawnEarly(server: ServerConfig, traced: Traced | undefined): void {
    if (this.#early.has(server.name) || server.unapproved) return;
    const transport = spawnTraced(traced, server, this.#transportHooks(server));
    if (transport) this.#early.set(server.name, transport);
  }

  async permissionLevel(): Promise<PermissionLevel> {
    const configured = this.#o.permission ?? (this.#o.adhoc ? undefined : (await this.config()).permission);
    const granted = configured ?? 'trusted';
    const profile = await this.profile();
    return profile ? narrowedLevel(profile, granted, this.#o.permission !== undefined) : granted;
  }

  guard(): Promise<PermissionGuard> {
    this.#guard ??= (async () => {
      const registry = await this.registry();
      // Looked up at each call: a gateway's reload replaces entries, and their allow/deny lists with them.
      return this.#newGuard((name) => registry.configOf(name));
    })();
    return this.#guard;
  }

  createGuard(servers: readonly ServerConfig[]): Promise<PermissionGuard> {
    return this.#newGuard(servers);
  }

  async #newGuard(servers: PermissionGuardOptions['servers']): Promise<PermissionGuard> {
    const [{ createPermissionGuard }, { denyingApprover }] = await Promise.all([
      import('../permissions/guard.js'),
      import('../permissions/approver.js'),
    ]);
    const ask = this.#ask;
    const { allowServers = [], excludeTools = [] } = this.#o.policy ?? {};
    const profile = await this.profile();
    const guard = createPermissionGuard({
      level: await this.permissionLevel(),
      ...(profile ? { profile } : {}),
      approver: ask.approver ?? denyingApprover(`nobody can be asked (${ask.who})`),
      servers,
      ...(excludeTools.length > 0 ? { excludeTools } : {}),
    });
    for (const server of allowServers) guard.allowAll(server);
    return guard;
  }

  audit(): AuditTrail {
    this.#audit ??= this.#openAudit();
    return this.#audit;
  }

  #openAudit(): AuditTrail {
    const options = this.#o.audit;
    const { profile } = this.#o;
    if (options === false) return createAuditTrail([], profile);
    const sinks: AuditSink[] = options?.sink ? [options.sink] : [];
    if (options?.file !== false) {
      sinks.push(
        openAuditFile({
          path: this.#auditPath(options?.file),
          ...(options?.values ? { values: true } : {}),
          onError: (message) => this.#emit({ type: 'warning', message: forTerminal(`mcpx: ${message}`) }),
        }),
      );
    }
    return createAuditTrail(sinks, profile);
  }

  /** The file named by the front end, else by the user's own config, else the home's. */
  async #auditPath(given: string | undefined): Promise<string | false> {
    if (given !== undefined) return resolve(this.#cwd, given);
    const configured = await this.config().then(
      (config) => config.auditLog,
      () => undefined,
    );
    if (configured !== undefined) return configured;
    return defaultAuditPath(this.home);
  }

  fresh(): Host {
    const fresh = new McpxHost(this.#o);
    fresh.on((event) => this.#emit(event));
    return fresh;
  }

  async failures(): Promise<ReadonlyMap<string, McpxError>> {
    const registry = await this.#registry?.catch(() => undefined);
    const failed = new Map<string, McpxError>();
    for (const status of registry?.list() ?? []) {
      const error = status.state === 'error' ? status.error : status.listingError;
      if (error) failed.set(status.name, error);
    }
    return failed;
  }

  /**
   * At `sandboxed` an agent has no MCP access: no server is asked about, started or
   * listed, as in `mcpx chat --permission sandboxed`, and the host says so once.
   */
  async #sandboxed(): Promise<boolean> {
    if ((await this.permissionLevel()) !== 'sandboxed') return false;
    if (!this.#toldSandboxed) {
      this.#toldSandboxed = true;
      this.#notice(
        "permission 'sandboxed': the agent has no MCP access, so no server is started and no MCP tool is offered " +
          "(give it 'trusted' or 'yolo' to use servers)",
      );
    }
    return true;
  }

  async agentTools(options: Omit<AgentToolsOptions, 'guard'> = {}): Promise<AgentToolSet> {
    if (await this.#sandboxed()) {
      const [{ createAgentTools }, guard] = await Promise.all([
        import('../tools/agent-tools.js'),
        this.#newGuard(() => undefined),
      ]);
      this.#noServers ??= this.#newRegistry([]);
      // The program's own tools (extraSources) are still its own to offer.
      return createAgentTools(await this.#noServers, { ...options, guard, servers: [] });
    }
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
    const denied = await this.#askConsent(registry, guard, options);
    const servers =
      denied.size > 0
        ? (options.servers ?? registry.list().map((s) => s.name)).filter((name) => !denied.has(name))
        : options.servers;
    return createAgentTools(registry, {
      audit: { trail: this.audit(), who: { client: this.#auditClient() } },
      ...options,
      ...(servers ? { servers } : {}),
      guard,
    });
  }

  /** The front end this host's calls are recorded as: `audit.client`, else `library`. */
  #auditClient(): AuditClient {
    const audit = this.#o.audit;
    return (audit ? audit.client : undefined) ?? 'library';
  }

  /**
   * Seed 004's consent, before an agent gets any tool: each connected server, where it is
   * configured and its tools, put to `ask.approver` when someone answers it (see `asksSomeone`).
   * A denied server is closed and its name returned, so that its tools are never offered. With
   * nobody to ask, nothing is asked here: each call is refused with the reason the model is told.
   */
  async #askConsent(
    registry: ServerRegistry,
    guard: PermissionGuard,
    options: Pick<AgentToolsOptions, 'agentId' | 'servers'>,
  ): Promise<Set<string>> {
    const denied = new Set<string>();
    const approver = this.#o.ask?.approver;
    if (!approver) return denied;
    const { asksSomeone } = await import('../permissions/approver.js');
    if (!asksSomeone(approver)) return denied;
    for (const status of registry.list()) {
      if (status.state !== 'ready' || (options.servers && !options.servers.includes(status.name))) continue;
      const decision = await guard.consent({
        ...(options.agentId !== undefined ? { agentId: options.agentId } : {}),
        server: status.name,
        origin: formatOrigin(status.config.origin, this.#homedir),
        // Its skills too, each as its `skill:<name>` action: the approval covers their manifests.
        tools: [...status.tools, ...(await skillActionsOf(status.connection))],
      });
      if (decision !== 'deny') continue;
      denied.add(status.name);
      await registry.disconnect(status.name);
      this.#notice(`'${status.name}' denied: closed, and its tools are not offered`);
    }
    return denied;
  }

  async callTool(
    server: string,
    tool: string,
    args: Record<string, unknown>,
    options: HostCallOptions = {},
  ): Promise<CallToolResult> {
    if (options.app) return this.#appCall(server, tool, args, options);
    const registry = await this.registry();
    const { client } = options;
    // Nothing to decide: the call is the person's (or the program's) own, not an agent's.
    const audited = this.audit().begin({
      who: { client: client ?? this.#auditClient() },
      server,
      tool,
      args,
    });
    audited.decided({ result: 'allowed', by: 'person' });
    return this.#audited(audited, () => registry.callTool(server, tool, args, callOptions(options)));
  }

  /** `run`, its result or failure recorded on the call's audit line. */
  async #audited(audited: AuditedCall, run: () => Promise<CallToolResult>): Promise<CallToolResult> {
    try {
      const result = await run();
      audited.returned(result);
      return result;
    } catch (error) {
      audited.failed(error);
      throw error;
    }
  }

  /**
   * An MCP App's own call: not the person's, so decided as an agent's is — a tool its server
   * marks for apps only (`toolForApp`), then `guard()` (the policy; a question goes to
   * `ask.approver`) — and audited with the App named, from the moment it is asked for.
   */
  async #appCall(
    server: string,
    tool: string,
    args: Record<string, unknown>,
    options: HostCallOptions,
  ): Promise<CallToolResult> {
    const { signal, client, app } = options;
    const audited = this.audit().begin({
      who: { client: client ?? this.#auditClient(), ...(app ? { app } : {}) },
      server,
      tool,
      args,
    });
    return this.#audited(audited, async () => {
      const registry = await this.registry();
      await this.connect(await this.server(server));
      const definition = toolForApp(server, tool, registry.status(server).tools);
      const guard = await this.guard();
      let decision: AuditDecision = { result: 'allowed', by: 'guard' };
      await guard.check(
        { server, tool: definition, args },
        {
          ...(signal ? { signal } : {}),
          onDecision: (d) => {
            decision = d;
            audited.decided(d);
          },
        },
      );
      audited.decided(decision);
      return registry.callTool(server, tool, args, callOptions(options));
    });
  }

  async catalogue(options: HostCatalogueOptions = {}): Promise<Catalogue<Tool>> {
    if (await this.#sandboxed()) {
      const { createCatalogue } = await import('../tools/catalogue.js');
      return createCatalogue<Tool>([], { naming: options.naming ?? 'prefixed' });
    }
    const [{ createCatalogue }, registry, guard] = await Promise.all([
      import('../tools/catalogue.js'),
      this.registry(),
      this.guard(),
    ]);
    const { servers } = options;
    await registry.connectAll({
      ...(this.#o.signal ? { signal: this.#o.signal } : {}),
      ...(servers ? { only: servers } : {}),
    });
    // What an agent is offered: a server's tools while it can be used (see `mcpToolSource`).
    const listed = registry
      .list()
      .filter((s) => s.usable && (!servers || servers.includes(s.name)))
      .flatMap((s) => s.tools.map((item) => ({ server: s.name, item })));
    return createCatalogue(listed, {
      naming: options.naming ?? 'prefixed',
      offers: (server, tool) => guard.offers(server, tool),
    });
  }

  skills(): HostSkills {
    this.#skills ??= createHostSkills({
      connectAll: async ({ servers }) => {
        const names = servers ?? (await this.servers()).map((s) => s.name);
        return Promise.all(
          names.map(async (server) => {
            try {
              return { server, connection: await this.#skillsConnection(server) };
            } catch (error) {
              // A server named alone fails alone; among all, one failure hides no other's skills.
              if (servers) throw error;
              return { server, error: toMcpxError(error) };
            }
          }),
        );
      },
      connect: (server) => this.#skillsConnection(server),
    });
    return this.#skills;
  }

  /**
   * One server by name (unknown, untrusted or outside the profile: thrown), connected without a
   * tools/list. A server the keep-alive daemon holds is reached through it: the daemon passes the
   * skills extension on, each file verified there and again here.
   */
  async #skillsConnection(name: string): Promise<ServerConnection> {
    return this.connect(await this.server(name), { listTools: false });
  }

  async close(): Promise<void> {
    // A registry that never came to be (bad config) has nothing to close.
    const registry = await this.#registry?.catch(() => undefined);
    await registry?.close();
    await (await this.#noServers?.catch(() => undefined))?.close();
    // After the registry: a call it ended on the way out is recorded too.
    await this.#audit?.close();
    // Spawned early but never connected (the registry failed to load): end them too.
    await Promise.all([...this.#early.values()].map((t) => t.close()));
    this.#early.clear();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

/**
 * A frozen copy of `options`, with the plain settings under it frozen too: assigning to one
 * later throws in strict mode. Functions, the signal, sinks and providers stay the caller's.
 */
function frozenOptions(options: HostOptions): HostOptions {
  const { policy, daemon, audit, serverLogs } = options;
  return Object.freeze({
    ...options,
    ...(policy
      ? {
          policy: Object.freeze({
            ...policy,
            ...(policy.allowServers ? { allowServers: Object.freeze([...policy.allowServers]) } : {}),
            ...(policy.excludeTools ? { excludeTools: Object.freeze([...policy.excludeTools]) } : {}),
          }),
        }
      : {}),
    ...(daemon
      ? {
          daemon: Object.freeze({
            ...daemon,
            ...(Array.isArray(daemon.held) ? { held: Object.freeze([...daemon.held]) } : {}),
          }),
        }
      : {}),
    ...(audit ? { audit: Object.freeze({ ...audit }) } : {}),
    ...(serverLogs ? { serverLogs: Object.freeze({ ...serverLogs }) } : {}),
  });
}

/**
 * What a server's skills are approved as (see `skillAction`): its manifest only, no file read.
 * A server without the extension, or whose listing fails, has none to approve.
 */
async function skillActionsOf(connection: ServerConnection | undefined): Promise<Tool[]> {
  if (!connection?.skills.supported) return [];
  const listed = await listConnectionSkills(connection, undefined).catch(() => undefined);
  return listed?.skills.map(skillAction) ?? [];
}

/** What the registry's call takes of a host call's options. */
function callOptions({ signal, onProgress, onTaskStatus }: HostCallOptions): CallToolOptions {
  return {
    ...(signal ? { signal } : {}),
    ...(onProgress ? { onProgress } : {}),
    ...(onTaskStatus ? { onTaskStatus } : {}),
  };
}
