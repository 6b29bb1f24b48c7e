import { spawn } from 'node:child_process';
import type { LoggingLevel } from '@modelcontextprotocol/client';
import type { ClientFeatures } from '../client/features.js';
import type { ManagedTransport } from '../client/server-connection.js';
import type { TransportHooks } from '../client/transport-factory.js';
import type { ServerConnection, ServerLogEvent } from '../client/types.js';
import {
  adhocHttpServer,
  adhocStdioServer,
  approvedRecord,
  describeForTrust,
  type LoadedConfig,
  loadConfig,
  loadTrustStore,
  markApproved,
  resolveMcpxHome,
  suggest,
  trustServers,
} from '../config/index.js';
import type { InputRequest } from '../config/input-variable.js';
import type { ServerConfig } from '../config/types.js';
import type { CallerSignIn } from '../daemon/socket-transport.js';
import { ErrorCode, McpxError } from '../errors/index.js';
import type { ConnectOptions, ServerRegistry } from '../registry/index.js';
import { forTerminal, stripTerminalControls } from '../text/index.js';
import type { SdkDiagnostic } from '../transport/sdk-diagnostics.js';
import { type PackageInstallEvent, rollBackInstallsNow } from '../transport/stdio/runner/install-watch.js';
import { createStdioServerTransport, type StdioServerHooks } from '../transport/stdio/server-transport.js';
import type { StdioTransport } from '../transport/stdio/stdio-transport.js';
import { adhocFlags } from './adhoc-flags.js';
import { type GlobalOptions, timeoutMs, usageError } from './global-options.js';
import type { CliIo } from './io.js';
import { installNotice } from './output/install-notice.js';
import { selfReference } from './self-reference.js';

/**
 * What one CLI invocation knows: the loaded config (after trust), the servers
 * it may start, and the connections it opened (all closed by `close()`).
 */
export class CliSession {
  readonly home: string;
  #config: Promise<LoadedConfig> | undefined;
  #usable: Promise<ServerConfig[]> | undefined;
  #skipped = new Map<string, ServerConfig>();
  /** Entries that would start mcpx itself, with why (see self-reference.ts). */
  #selfSkipped = new Map<string, McpxError>();
  #registry: Promise<ServerRegistry> | undefined;
  #eraCache: Promise<import('../client/era-cache.js').EraCache | undefined> | undefined;
  #features: ((server: ServerConfig) => ClientFeatures) | undefined;
  #serverLogs: { listener: (event: ServerLogEvent) => void; level: LoggingLevel } | undefined;
  // A person's command makes one attempt; a long-lived command (chat) opts into lazy reconnects.
  #reconnect: 'never' | 'lazy' = 'never';
  #builtinOnlyAlone = false;
  #listChanges = true;
  /** Stdio servers spawned before the protocol code was loaded, waiting for their connect. */
  readonly #early = new Map<string, StdioTransport>();
  /** This process is the keep-alive daemon: it starts its servers itself. */
  #isDaemon = false;
  /** Whether an `mcpx daemon start --all` daemon runs for this config (asked once). */
  #allDaemon: Promise<boolean> | undefined;
  #link: Promise<NonNullable<CliIo['daemonCaller']>['link']> | undefined;

  constructor(
    readonly io: CliIo,
    readonly options: GlobalOptions,
  ) {
    this.home = resolveMcpxHome(io.env, io.homedir);
    // A second Ctrl-C leaves at once: a package runner still installing is ended and its
    // unfinished folder removed first, never left half written.
    io.onForcedExit?.(rollBackInstallsNow);
  }

  /** The merged config (global → ancestors → project, or --config), plus an ad-hoc --stdio server. */
  config(): Promise<LoadedConfig> {
    this.#config ??= (async () => {
      const config = await loadConfig({
        cwd: this.io.cwd,
        env: this.io.env,
        home: this.home,
        trust: await this.#trustStore(),
        ...(this.io.daemonCaller?.configFiles ? { fileCache: this.io.daemonCaller.configFiles } : {}),
        homedir: this.io.homedir,
        platform: process.platform,
        ...(this.io.interactive && this.io.ask ? { askInput: (r: InputRequest) => this.#askInput(r) } : {}),
        ...(this.options.config ? { configFile: this.options.config } : {}),
      });
      // Always stderr, so `--json` stdout stays one document; keys come from a file, hence forTerminal.
      for (const warning of config.warnings) this.notice(`warning: ${forTerminal(warning.message)}`);
      return config;
    })();
    return this.#config;
  }

  #trust: ReturnType<typeof loadTrustStore> | undefined;

  /** The trust store, read once per command (the config's settings and the servers' trust both need it). */
  #trustStore(): ReturnType<typeof loadTrustStore> {
    // Inside the daemon: kept between its callers' commands while trust.json is unchanged.
    const kept = this.io.daemonCaller?.configFiles;
    this.#trust ??= kept
      ? kept.trustStore(this.home, () => loadTrustStore(this.home))
      : loadTrustStore(this.home);
    return this.#trust;
  }

  /** `${input:id}` answers, asked once per process and kept only in memory. */
  readonly #inputs = new Map<string, Promise<string | undefined>>();

  #askInput(request: InputRequest): Promise<string | undefined> {
    const ask = this.io.ask;
    if (!ask) return Promise.resolve(undefined);
    let answer = this.#inputs.get(request.variable);
    if (!answer) {
      const what = request.description ? `${request.description} (${request.id})` : request.id;
      const question = forTerminal(
        `${what}${request.file ? ` for ${request.file}` : ''} — or set ${request.variable} next time:`,
      );
      answer = ask(question, { secret: request.password });
      this.#inputs.set(request.variable, answer);
    }
    return answer;
  }

  /**
   * Say which host-wide settings of repository files are not in force (agent
   * commands, where `permission` and `roots` matter).
   */
  async noticeHeldSettings(): Promise<void> {
    if (this.adhoc()) return;
    for (const held of (await this.config()).heldSettings) {
      const what = [held.permission ? `permission "${held.permission}"` : '', held.roots ? 'roots' : '']
        .filter(Boolean)
        .join(' and ');
      this.notice(
        held.reason === 'untrusted'
          ? `ignored ${what} from ${held.file}: not trusted yet — review it and run \`mcpx config trust\``
          : `ignored permission "${held.permission}" from ${held.file}: a project file can only lower the level you set`,
      );
    }
  }

  /** The ad-hoc server from --stdio or --url, if any. */
  adhoc(): ServerConfig | undefined {
    const { stdio, url, sse } = this.options;
    if (stdio !== undefined && url !== undefined) {
      throw usageError('--stdio and --url each name the one ad-hoc server: give only one of them');
    }
    if (sse && url === undefined)
      throw usageError('--sse goes with --url', 'e.g. --url https://example.com/sse --sse');
    const { env, cwd, name } = adhocFlags(this.options, this.io.cwd);
    if (url !== undefined) return adhocHttpServer(url, sse ? 'sse' : 'http', name);
    if (stdio === undefined) {
      if (name !== undefined)
        throw usageError(
          '--name goes with --stdio or --url',
          'e.g. --stdio "npx -y @modelcontextprotocol/server-everything" --name everything',
        );
      return undefined;
    }
    return adhocStdioServer(stdio, cwd, { ...(env ? { env } : {}), ...(name ? { name } : {}) });
  }

  /**
   * Servers that may be started: enabled, and trusted or approved now. An
   * untrusted project entry is asked about on a terminal and skipped (with a
   * notice naming `mcpx config trust`) without one.
   */
  usableServers(): Promise<ServerConfig[]> {
    this.#usable ??= (async () => {
      const adhoc = this.adhoc();
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
        this.notice(
          forTerminal(
            `skipped server '${server.name}' from ${server.origin.file ?? server.origin.layer}: ${refused.message}`,
          ),
        );
      }
      const runs = (s: ServerConfig) => s.enabled && !this.#selfSkipped.has(s.name);
      const store = await this.#trustStore();
      const approved: ServerConfig[] = [];
      for (const server of config.unapproved.filter(runs)) {
        const question = forTerminal(describeForTrust(server, approvedRecord(store, server)).join('\n'));
        if (this.io.interactive && this.io.confirm && (await this.io.confirm(question))) {
          approved.push(markApproved(server));
        } else {
          this.#skipped.set(server.name, server);
          this.notice(
            `skipped server '${server.name}' from ${server.origin.file}: not trusted yet — review it and run \`mcpx config trust\``,
          );
        }
      }
      if (approved.length) await trustServers(this.home, approved);
      // The entries approved just now come after those approved before.
      const usable = [...config.servers.filter(runs), ...approved];
      const own = usable.filter((s) => s.origin.layer !== 'builtin');
      return this.#builtinOnlyAlone && own.length > 0 ? own : usable;
    })();
    return this.#usable;
  }

  /** Entries left out because they would start mcpx itself, each with why (known once `usableServers()` ran). */
  async selfSkippedServers(): Promise<ReadonlyMap<string, McpxError>> {
    await this.usableServers();
    return this.#selfSkipped;
  }

  #selfReference(server: ServerConfig): McpxError | undefined {
    return selfReference(server, { env: this.io.env, selfScript: process.argv[1] });
  }

  /** Project entries left out because they are not trusted yet (known once `usableServers()` ran). */
  async untrustedServers(): Promise<ServerConfig[]> {
    await this.usableServers();
    return [...this.#skipped.values()];
  }

  /** One server by name, with an error that says what to do when it cannot be used. */
  async server(name: string): Promise<ServerConfig> {
    const usable = await this.usableServers();
    const found = usable.find((s) => s.name === name);
    if (found) return found;
    if (this.options.stdio !== undefined || this.options.url !== undefined) {
      const flag = this.options.url !== undefined ? '--url' : '--stdio';
      throw new McpxError(
        ErrorCode.UnknownServer,
        `with ${flag} the only server is '${usable[0]?.name}', not '${name}'`,
        {
          fixes: [`name the tool without a server prefix when using ${flag}`],
        },
      );
    }
    const config = await this.config();
    const unusable = config.unusable.get(name);
    if (unusable) throw unusable;
    const self = this.#selfSkipped.get(name);
    if (self) throw self;
    const skipped = this.#skipped.get(name);
    if (skipped) {
      throw new McpxError(
        ErrorCode.ConfigUntrusted,
        `server '${name}' comes from a project config that is not trusted yet`,
        {
          server: name,
          origin: skipped.origin,
          fixes: ['review the entry, then run `mcpx config trust` to approve it'],
        },
      );
    }
    const disabled = [...config.servers, ...config.unapproved].find((s) => s.name === name && !s.enabled);
    if (disabled) {
      throw new McpxError(ErrorCode.UnknownServer, `server '${name}' is disabled`, {
        server: name,
        origin: disabled.origin,
        fixes: [`set "enabled": true for '${name}' in ${disabled.origin.file ?? 'the config'}`],
      });
    }
    const names = usable.map((s) => s.name);
    const guess = suggest(name, names);
    throw new McpxError(
      ErrorCode.UnknownServer,
      `no server named '${name}'${guess ? ` — did you mean '${guess}'?` : ''}`,
      {
        fixes: [
          names.length ? `configured servers: ${names.join(', ')}` : 'no servers are configured',
          'run `mcpx config path` to see which config files are read',
        ],
      },
    );
  }

  /**
   * The registry of usable servers, wired to mcpx's transports, the era cache
   * and (with --verbose) the server's stderr, stray output and log messages.
   */
  registry(): Promise<ServerRegistry> {
    this.#registry ??= this.#newRegistry();
    return this.#registry;
  }

  /**
   * Another registry wired as `registry()` is, for exactly `servers` (the
   * daemon keeps one per instance it holds). Whoever makes it closes it:
   * `close()` does not know it (the daemon makes and drops them all its life).
   */
  createRegistry(servers: readonly ServerConfig[]): Promise<ServerRegistry> {
    return this.#newRegistry(servers);
  }

  #newRegistry(given?: readonly ServerConfig[]): Promise<ServerRegistry> {
    return (async () => {
      const servers = given ?? (await this.usableServers());
      // The protocol stack (the SDK and its schemas) is most of a cold start: loaded
      // here, after any early spawn, so the server boots while it loads.
      const [{ openFileEraCache }, { connectServer }, { createServerTransport }, { ServerRegistry }] =
        await Promise.all([
          import('../client/era-cache.js'),
          import('../client/server-connection.js'),
          import('../client/transport-factory.js'),
          import('../registry/index.js'),
        ]);
      // Inside the daemon for a light caller every server is reached through it: no era to remember.
      // Opened once, however many registries (the daemon makes one per server instance).
      this.#eraCache ??= this.io.daemonCaller ? Promise.resolve(undefined) : openFileEraCache(this.home);
      const eraCache = await this.#eraCache;
      const allDaemon = await this.#allDaemonRunning();
      const timeout = timeoutMs(this.options);
      const verbose = this.options.verbose === true;
      const registry = new ServerRegistry(servers, {
        reconnect: { mode: this.#reconnect },
        connector: async (server, hooks) => {
          // --timeout is the person's word for this command: it wins over the config's timeouts.
          const timed =
            timeout === undefined
              ? server
              : { ...server, connectTimeoutMs: timeout, requestTimeoutMs: timeout };
          // A keep-alive server is reached through the daemon, which speaks 2025 MCP on its socket
          // whatever era the server itself speaks (so no probe, and no era to remember here).
          // Decided without waiting (allDaemon was asked before the registry existed): a close
          // while this connector awaited would otherwise let it spawn a server after the close.
          const viaDaemon = this.#viaDaemonWith(server, allDaemon)
            ? await this.#daemonTransports(server)
            : undefined;
          // Inside the daemon for a light caller: a server it does not hold is the caller's to start.
          if (!viaDaemon && this.io.daemonCaller) throw this.io.daemonCaller.direct(server.name);
          const connection = await connectServer(viaDaemon ? { ...timed, protocol: 'legacy' } : timed, {
            createTransport: () =>
              viaDaemon
                ? viaDaemon()
                : (this.#takeEarly(server.name) ?? createServerTransport(server, this.#stdioHooks(server))),
            ...(viaDaemon || !eraCache ? {} : { eraCache }),
            signal: hooks.signal ?? this.io.signal,
            ...(this.#listChanges ? { onListChanged: hooks.onListChanged } : {}),
            ...(verbose
              ? {
                  onLog: (event: ServerLogEvent) => this.notice(formatLog(event)),
                  onSdkDiagnostic: (d: SdkDiagnostic) => this.sdkNotice(d),
                }
              : {}),
            ...(this.#serverLogs ? { onLog: this.#serverLogs.listener } : {}),
            ...(this.#features ? { features: this.#features(server) } : {}),
          });
          await eraCache?.flush().catch(() => {});
          if (viaDaemon) this.io.daemonCaller?.warm();
          if (verbose) await askForLogs(connection);
          else if (this.#serverLogs) await askForLogs(connection, this.#serverLogs.level);
          return connection;
        },
      });
      if (verbose) {
        registry.on((event) => {
          if (event.type === 'warning') this.notice(`warning: ${event.message}`);
        });
      }
      return registry;
    })();
  }

  /**
   * Roots, sampling and elicitation handlers for the servers this session
   * connects (agent commands offer them; a person's own `mcpx call` does not).
   * Must be set before the registry is first used.
   */
  useFeatures(features: (server: ServerConfig) => ClientFeatures): void {
    this.#features = features;
  }

  /**
   * Hand every server's log messages (from `level` up) to `listener` instead of
   * the --verbose notices (the gateway passes them on to its clients). Must be
   * set before the registry is first used.
   */
  useServerLogs(listener: (event: ServerLogEvent) => void, level: LoggingLevel = 'info'): void {
    this.#serverLogs = { listener, level };
  }

  /**
   * Leave out the built-in `demo` server when the person has servers of their
   * own (an agent should not be offered a test server beside real ones). Must be
   * set before the servers are first used.
   */
  omitBuiltinWhenConfigured(): void {
    this.#builtinOnlyAlone = true;
  }

  /**
   * A crashed server comes back on its next use (the registry's lazy policy), for a
   * command that lives longer than one request. Must be set before the registry is first used.
   */
  reconnectLazily(): void {
    this.#reconnect = 'lazy';
  }

  /**
   * A one-shot command that uses what it gets and exits hears no list changes: on 2026-07-28
   * hearing them is a `subscriptions/listen` request whose acknowledgement the connect waits
   * for. Must be set before the registry is first used.
   */
  ignoreListChanges(): void {
    this.#listChanges = false;
  }

  /**
   * Make this session the keep-alive daemon's: it holds exactly `servers` (more
   * are added as callers ask) and starts them itself. Must be set before the
   * registry is first used.
   */
  runAsDaemon(servers: readonly ServerConfig[]): void {
    this.#isDaemon = true;
    this.#usable = Promise.resolve([...servers]);
  }

  /** The daemon's socket, pid and lock files for this session's resolved config. */
  async daemonPaths(): Promise<import('../daemon/paths.js').DaemonPaths> {
    const [{ daemonKey, daemonPaths, thisHost }, { createHomeFiles }] = await Promise.all([
      import('../daemon/paths.js'),
      import('../home/index.js'),
    ]);
    const files = (await this.config()).files.map((f) => f.path);
    return daemonPaths(createHomeFiles(this.home), daemonKey(files), thisHost(this.io.env));
  }

  /** Start a detached daemon for this config (`mcpx daemon run`); it outlives this command on purpose. */
  spawnDaemon(key: string, options: { all?: boolean; idleSeconds?: string } = {}): void {
    const args = [
      ...process.execArgv.filter((a) => !a.startsWith('--inspect')),
      process.argv[1] ?? '',
      ...(this.options.config ? ['--config', this.options.config] : []),
      'daemon',
      'run',
      '--key',
      key,
      ...(options.all ? ['--all'] : []),
      ...(options.idleSeconds ? ['--idle', options.idleSeconds] : []),
    ];
    const child = spawn(process.execPath, args, {
      cwd: this.io.cwd,
      env: { ...this.io.env },
      detached: true,
      stdio: 'ignore',
    });
    child.on('error', () => {});
    child.unref();
  }

  /**
   * Whether the daemon runs this server: a keep-alive one, or any one while a
   * `--all` daemon runs for this config (`allDaemon`); never inside the daemon
   * itself, for an ad-hoc server, or with MCPX_DAEMON=off.
   */
  #viaDaemonWith(server: ServerConfig, allDaemon: boolean): boolean {
    if (this.#isDaemon || this.io.env.MCPX_DAEMON === 'off' || server.origin.layer === 'adhoc') return false;
    return server.keepAlive === true || allDaemon;
  }

  async #viaDaemon(server: ServerConfig): Promise<boolean> {
    if (server.keepAlive === true) return this.#viaDaemonWith(server, false);
    return this.#viaDaemonWith(server, await this.#allDaemonRunning());
  }

  /** Whether an `mcpx daemon start --all` daemon runs for this config (asked once per command). */
  #allDaemonRunning(): Promise<boolean> {
    this.#allDaemon ??= (async () => {
      if (this.#isDaemon || this.io.env.MCPX_DAEMON === 'off' || this.adhoc()) return false;
      const link = await this.#daemonLink();
      if (link) return link.all;
      // Only the pid file and /proc: a command that calls no warm server loads nothing more.
      const [{ isAlive, parseIdentity }, { createHomeFiles }] = await Promise.all([
        import('../daemon/liveness.js'),
        import('../home/index.js'),
      ]);
      const paths = await this.daemonPaths();
      const text = await createHomeFiles(this.home)
        .readText(paths.pidFile)
        .catch(() => undefined);
      const recorded = parseIdentity(text);
      return recorded?.all === true && (await isAlive(recorded));
    })();
    return this.#allDaemon;
  }

  /**
   * Inside the daemon for a light caller whose config is the daemon's own: its
   * in-process link to the servers it holds (no dial of its own socket, no hello).
   */
  #daemonLink(): Promise<NonNullable<CliIo['daemonCaller']>['link']> {
    this.#link ??= (async () => {
      const link = this.io.daemonCaller?.link;
      if (!link) return undefined;
      const { daemonKey } = await import('../daemon/paths.js');
      const files = (await this.config()).files.map((f) => f.path);
      return daemonKey(files) === link.key ? link : undefined;
    })();
    return this.#link;
  }

  /**
   * Transports to the daemon for a keep-alive server (starting the daemon on
   * demand), or undefined when it cannot be reached: then the server is
   * started directly, with a --verbose note. A socket someone else could reach
   * is refused, and a server that failed inside the daemon is reported as is.
   */
  async #daemonTransports(server: ServerConfig): Promise<(() => Promise<ManagedTransport>) | undefined> {
    const signIn = this.#callerSignIn(server);
    const link = await this.#daemonLink();
    const open = link
      ? await this.#linkOpener(server, link, signIn)
      : await this.#socketOpener(server, signIn);
    const openSignedIn = this.#signedIn(open, signIn);
    let first: ManagedTransport;
    try {
      first = await openSignedIn();
    } catch (error) {
      if (!(error instanceof McpxError) || error.code !== ErrorCode.DaemonUnavailable) throw error;
      // Inside the daemon, the registry's connector hands such a server back to the caller.
      if (this.options.verbose && !link)
        this.notice(`${server.name}: ${error.message}; starting it directly instead of in the mcpx daemon`);
      return undefined;
    }
    return firstThenFresh(first, openSignedIn);
  }

  /** Opens the daemon's socket for `server` (starting the daemon on demand for a keep-alive one). */
  async #socketOpener(
    server: ServerConfig,
    signIn: CallerSignIn | undefined,
  ): Promise<() => Promise<ManagedTransport>> {
    const [{ openDaemon, DaemonSocketTransport, withCallerEnv }, { createHomeFiles }] = await Promise.all([
      import('../daemon/caller.js'),
      import('../home/index.js'),
    ]);
    const paths = await this.daemonPaths();
    return async () => {
      const { socket, reply } = await openDaemon(
        { op: 'serve', server: withCallerEnv(server, this.io.env, process.platform) },
        {
          home: createHomeFiles(this.home),
          paths,
          pid: process.pid,
          uid: process.getuid?.(),
          // Only a keep_alive entry starts a daemon; any other one uses a running `--all` daemon.
          ...(server.keepAlive === true
            ? { start: () => this.spawnDaemon(paths.key, { idleSeconds: this.io.env.MCPX_DAEMON_IDLE }) }
            : {}),
        },
      );
      if (reply.notice) this.notice(forTerminal(reply.notice));
      return new DaemonSocketTransport(socket, server.name, reply.protocolVersion, signIn);
    };
  }

  /** For a command inside the daemon: its in-process link to the held server. */
  async #linkOpener(
    server: ServerConfig,
    link: NonNullable<NonNullable<CliIo['daemonCaller']>['link']>,
    signIn: CallerSignIn | undefined,
  ): Promise<() => Promise<ManagedTransport>> {
    const { withCallerEnv } = await import('../daemon/passthrough.js');
    return async () => {
      const { transport, notice } = await link.open(withCallerEnv(server, this.io.env, process.platform));
      if (notice) this.notice(forTerminal(notice));
      if (signIn) transport.useSignIn(signIn);
      return transport;
    };
  }

  /** A held server whose token the daemon could not renew: signed in at the caller, then asked again (once). */
  #signedIn(
    open: () => Promise<ManagedTransport>,
    signIn: CallerSignIn | undefined,
  ): () => Promise<ManagedTransport> {
    return async () => {
      try {
        return await open();
      } catch (error) {
        const needed = error instanceof McpxError && error.code === ErrorCode.AuthRequired;
        if (!signIn || !needed || !error.context.signIn) throw error;
        await signIn(error.context.signIn.scope);
        return open();
      }
    };
  }

  /** Connect to a server (closed with the session). */
  async connect(server: ServerConfig, options: ConnectOptions = {}): Promise<ServerConnection> {
    if (!this.#registry && !(await this.#viaDaemon(server))) {
      if (this.io.daemonCaller) throw this.io.daemonCaller.direct(server.name);
      this.#spawnEarly(server);
    }
    return (await this.registry()).connect(server.name, {}, options);
  }

  #stdioHooks(server: ServerConfig): StdioServerHooks & Omit<TransportHooks, 'hostEnv'> {
    // On a terminal, a signed-in server that asks for a wider scope (or moved to another
    // authorization server) mid-command gets a new sign-in in the browser, then the request again.
    // The daemon asks no one: its callers sign in at their own terminals (#daemonTransports).
    const signIn: TransportHooks['signIn'] =
      this.io.interactive && !this.#isDaemon
        ? { present: (url) => this.#presentSignIn(server.name, url) }
        : undefined;
    const remote = {
      oauthHome: this.home,
      ...(signIn ? { signIn } : {}),
      ...(this.#isDaemon ? { callerSignsIn: true } : {}),
    };
    // A garbled message is a server's failure: told by default, not only with --verbose.
    const onMalformedMessage = (error: McpxError) => this.notice(`warning: ${forTerminal(error.message)}`);
    // A package runner's install is shown at a terminal (and with --verbose), never inside --json's stderr.
    const install =
      this.options.verbose === true || (this.io.stderrIsTTY && this.options.json !== true)
        ? { onPackageInstall: (event: PackageInstallEvent) => this.notice(installNotice(event)) }
        : {};
    if (this.options.verbose !== true)
      return { hostEnv: this.io.env, ...remote, ...install, onMalformedMessage };
    return {
      hostEnv: this.io.env,
      ...remote,
      ...install,
      onMalformedMessage,
      http: {
        onRetry: (retry) =>
          this.notice(
            `${server.name}: ${retry.what} failed (${forTerminal(retry.reason)}), retry ${retry.attempt} of ${retry.maxRetries} in ${Math.round(retry.delayMs)} ms`,
          ),
      },
      onInvalidLine: (line) =>
        this.notice(`${server.name}: ignored a line that is not JSON-RPC: ${preview(line)}`),
      onStderrLine: (line) => this.notice(`${server.name} stderr: ${preview(line)}`),
    };
  }

  /**
   * A sign-in a command needs midway, shown at this command's terminal: the
   * caller's, for a light caller's command the daemon runs (its browser opens
   * on the caller's desktop, not in the daemon).
   */
  async #presentSignIn(serverName: string, url: URL): Promise<void> {
    const { showSignIn, signInAgainNotice } = await import('./sign-in-prompt.js');
    this.notice(signInAgainNotice(serverName));
    if (this.io.presentSignIn) await this.io.presentSignIn(serverName, url.href);
    else await showSignIn((line) => this.notice(line), serverName, url.href, true);
  }

  /**
   * The direct path's own sign-in, for a server the daemon holds: it refused
   * the token and named the scope. The tokens land in the same store, where the
   * daemon (and the next direct command) picks them up.
   */
  #callerSignIn(server: ServerConfig): CallerSignIn | undefined {
    const { url } = server;
    if (!this.io.interactive || url === undefined) return undefined;
    return async (scope) => {
      const { signIn, TokenStore } = await import('../auth/index.js');
      await signIn(
        { ...server, url },
        {
          store: new TokenStore(this.home),
          present: (authorizationUrl) => this.#presentSignIn(server.name, authorizationUrl),
          signal: this.io.signal,
          ...(scope ? { scope } : {}),
          ...(this.options.verbose ? { onSdkDiagnostic: (d: SdkDiagnostic) => this.sdkNotice(d) } : {}),
        },
      );
    };
  }

  /** Start a stdio server's process now; its connect picks it up (see registry()). */
  #spawnEarly(server: ServerConfig): void {
    if (server.transport !== 'stdio' || !server.command || this.#early.has(server.name)) return;
    const transport = createStdioServerTransport(
      { ...server, command: server.command },
      this.#stdioHooks(server),
    );
    transport.spawnEarly();
    this.#early.set(server.name, transport);
  }

  #takeEarly(name: string): ManagedTransport | undefined {
    const transport = this.#early.get(name);
    this.#early.delete(name);
    return transport;
  }

  /**
   * A line for the person on stderr (never stdout, which --json reserves for the result).
   * Notices quote servers (logs, errors, tool results): every one is made fit for a terminal
   * here, whatever its caller did.
   */
  notice(line: string): void {
    this.io.stderr.write(`${forTerminal(line)}\n`);
  }

  /** What the SDK said about a server (--verbose); it quotes the server, so it is sanitized. */
  sdkNotice(diagnostic: SdkDiagnostic): void {
    this.notice(formatSdkDiagnostic(diagnostic));
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

/** The transport opened already for the first connect, then a fresh one for each retry. */
function firstThenFresh(
  first: ManagedTransport,
  open: () => Promise<ManagedTransport>,
): () => Promise<ManagedTransport> {
  let pending: ManagedTransport | undefined = first;
  return async () => {
    const transport = pending ?? (await open());
    pending = undefined;
    return transport;
  };
}

/**
 * With --verbose, ask for every log message. On 2026-07-28 the level rides on each
 * request's `_meta` (without one a modern server sends none); a 2025 server is asked
 * with logging/setLevel when it declares logging. A refusal only costs the logs.
 */
async function askForLogs(connection: ServerConnection, level: LoggingLevel = 'debug'): Promise<void> {
  if (connection.era === 'legacy' && !connection.capabilities.logging) return;
  await connection.setLoggingLevel(level).catch(() => {});
}

function preview(line: string): string {
  const clean = forTerminal(line);
  return clean.length > 200 ? `${clean.slice(0, 200)}… (${line.length} chars)` : clean;
}

/** What the SDK said about a server; it quotes the server (tool names, schema text), so terminal controls go. */
function formatSdkDiagnostic(diagnostic: SdkDiagnostic): string {
  const clean = stripTerminalControls(diagnostic.message.replace(/^\[mcp-sdk\]\s*/, ''));
  const text = clean.length > 1000 ? `${clean.slice(0, 1000)}…` : clean;
  return `${diagnostic.server}: sdk ${diagnostic.level}: ${text}`;
}

function formatLog(event: ServerLogEvent): string {
  const data = typeof event.data === 'string' ? event.data : JSON.stringify(event.data);
  // Level and logger come from the server too.
  return forTerminal(
    `${event.server} [${event.level}]${event.logger ? ` ${event.logger}:` : ''} ${preview(data ?? '')}`,
  );
}
