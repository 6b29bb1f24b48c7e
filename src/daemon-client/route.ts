/**
 * The keep-alive daemon's route, as a decorator of the one connector: a
 * keep-alive server (or any server while an `mcpx daemon start --all` daemon
 * runs for this config) is reached through the daemon, which speaks 2025 MCP
 * on its socket whatever era the server itself speaks. Everything else goes to
 * the connector as it is.
 */
import { spawn } from 'node:child_process';
import { dirname, isAbsolute } from 'node:path';
import type { ClientFeatures } from '../client/features.js';
import type { ManagedTransport } from '../client/index.js';
import type { ConfigFileCache, ServerConfig } from '../config/index.js';
import { ErrorCode, McpxError } from '../errors/index.js';
import type { RoutableConnector } from '../registry/index.js';
import { forTerminal } from '../text/index.js';
import type { SdkDiagnostic } from '../transport/index.js';
import { type CallerOffer, offerOf } from './caller-offer.js';
import type { CallerSignIn } from './caller-sign-in.js';
import type { DaemonPaths } from './paths.js';

/** The CLI's end of the daemon's in-process link to a held server (daemon/in-process-link.ts). */
export interface LinkedTransport extends ManagedTransport {
  /**
   * The caller can sign in (a terminal): a request the held server refuses for
   * want of a sign-in is sent again after it, as over the socket (`CallerSignInRelay`).
   */
  useSignIn(signIn: CallerSignIn): void;
}

/**
 * A command the daemon runs for a light caller, joined to a held server in memory
 * (`DaemonServer#link`, daemon/server.ts).
 */
export interface DaemonLink {
  readonly transport: LinkedTransport;
  /** For the caller's terminal: the server crashed since the last call and was started again. */
  readonly notice?: string;
  readonly protocolVersion?: string;
}

/**
 * A light caller's command run inside the keep-alive daemon
 * (src/cli/daemon-handoff/light-caller.ts): it may use only servers the daemon holds.
 */
export interface DaemonCaller {
  /** The command reached its server warm: its output may stream to the caller now. */
  warm(): void;
  /** The command needs `server` started directly: the caller runs it itself (the error ends it here). */
  direct(server: string): Error;
  /** The daemon's parsed config files, kept between its callers' commands (checked for changes each time). */
  readonly configFiles?: ConfigFileCache;
  /**
   * The daemon's in-process link to a server it holds (src/daemon/in-process-link.ts), used
   * instead of dialling its own socket when the command's config is the daemon's (`key`).
   */
  readonly link?: {
    readonly key: string;
    /** A `--all` daemon: it holds every server, not only keep-alive ones. */
    readonly all: boolean;
    open(server: ServerConfig, offer: CallerOffer): Promise<DaemonLink>;
  };
}

type Link = NonNullable<DaemonCaller['link']>;

export interface DaemonRouteOptions {
  readonly home: string;
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly platform?: NodeJS.Platform;
  /** The config file given instead of the discovered ones (`--config`), for a daemon started on demand. */
  readonly configFile?: string;
  /** The resolved config's files: the daemon's key. */
  readonly configFiles: () => Promise<readonly string[]>;
  /** This process is the daemon (asked each time: a command becomes it after it started). */
  readonly isDaemon: () => boolean;
  readonly caller?: DaemonCaller;
  /** An ad-hoc server's command: never routed, and no `--all` daemon is looked for. */
  readonly adhoc: () => boolean;
  readonly signal?: AbortSignal;
  /** Shows a sign-in the caller needs; absent, nobody can sign in here. */
  readonly presentSignIn?: (server: string, url: URL) => Promise<void>;
  readonly onSdkDiagnostic?: (diagnostic: SdkDiagnostic) => void;
  readonly notice: (line: string) => void;
  /** Say when a server is started directly because the daemon cannot be reached. */
  readonly verbose?: boolean;
  /** What this process is, as `mcpx daemon status` lists its sessions (`mcpx serve`); default `mcpx`. */
  readonly label?: () => string | undefined;
  /**
   * This process's roots, sampling and elicitation for a server (its `Ask`'s): the held server is
   * told it can answer exactly these, as it would be told directly (see `caller-offer.ts`).
   */
  readonly features?: (
    server: ServerConfig,
  ) => ClientFeatures | undefined | Promise<ClientFeatures | undefined>;
}

export class DaemonRoute {
  #allDaemon: Promise<boolean> | undefined;
  #link: Promise<Link | undefined> | undefined;

  constructor(readonly options: DaemonRouteOptions) {}

  /**
   * The daemon's socket, pid and lock files for this config: its own key's, or,
   * while no daemon runs there, those of a live daemon started for files with
   * the same text at other paths (`contentAlias`), which serves this config too.
   */
  async paths(): Promise<DaemonPaths> {
    const [
      { configKey, contentAlias, daemonKey, daemonPaths, thisMachine },
      { createHomeFiles, isAlive, parseIdentity },
    ] = await Promise.all([import('./paths.js'), import('../home/index.js')]);
    const home = createHomeFiles(this.options.home);
    const files = await this.options.configFiles();
    const machine = thisMachine(this.options.env);
    const own = daemonPaths(home, daemonKey(files), machine);
    const alive = async (text: string | undefined) => {
      const identity = parseIdentity(text);
      return identity && (await isAlive(identity)) ? identity : undefined;
    };
    if (await alive(await home.readText(own.pidFile).catch(() => undefined))) return own;
    const other = await alive(await home.readText(contentAlias(configKey(files))).catch(() => undefined));
    const key = other?.key;
    const socket = other?.socket;
    if (typeof key !== 'string' || !/^[0-9a-f]{16}$/.test(key) || key === own.key) return own;
    if (typeof socket !== 'string' || !isAbsolute(socket)) return own;
    const theirs = daemonPaths(home, key, machine);
    return theirs.namedPipe ? theirs : { ...theirs, absolute: { dir: dirname(socket), socket } };
  }

  /** Start a detached daemon for this config (`mcpx daemon run`); it outlives this command on purpose. */
  spawnDaemon(key: string, options: { all?: boolean; idleSeconds?: string | undefined } = {}): void {
    const { configFile } = this.options;
    const args = [
      ...process.execArgv.filter((a) => !a.startsWith('--inspect')),
      process.argv[1] ?? '',
      ...(configFile ? ['--config', configFile] : []),
      'daemon',
      'run',
      '--key',
      key,
      ...(options.all ? ['--all'] : []),
      ...(options.idleSeconds ? ['--idle', options.idleSeconds] : []),
    ];
    const child = spawn(process.execPath, args, {
      cwd: this.options.cwd,
      env: { ...this.options.env },
      detached: true,
      stdio: 'ignore',
    });
    child.on('error', () => {});
    child.unref();
  }

  /** Whether the daemon runs this server (asks about an `--all` daemon only when it must). */
  async routes(server: ServerConfig): Promise<boolean> {
    if (server.keepAlive === true) return this.routesWith(server, false);
    return this.routesWith(server, await this.allDaemonRunning());
  }

  /**
   * A keep-alive server, or any one while a `--all` daemon runs (`allDaemon`);
   * never inside the daemon itself, for an ad-hoc server, or with MCPX_DAEMON=off.
   */
  routesWith(server: ServerConfig, allDaemon: boolean): boolean {
    if (this.options.isDaemon() || this.options.env.MCPX_DAEMON === 'off' || server.origin.layer === 'adhoc')
      return false;
    return server.keepAlive === true || allDaemon;
  }

  /** Whether an `mcpx daemon start --all` daemon runs for this config (asked once). */
  allDaemonRunning(): Promise<boolean> {
    this.#allDaemon ??= (async () => {
      if (this.options.isDaemon() || this.options.env.MCPX_DAEMON === 'off' || this.options.adhoc())
        return false;
      const link = await this.#daemonLink();
      if (link) return link.all;
      // Only the pid file and /proc: a command that calls no warm server loads nothing more.
      const { createHomeFiles, isAlive, parseIdentity } = await import('../home/index.js');
      const paths = await this.paths();
      const text = await createHomeFiles(this.options.home)
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
  #daemonLink(): Promise<Link | undefined> {
    this.#link ??= (async () => {
      const link = this.options.caller?.link;
      if (!link) return undefined;
      // Its own config's: this process is that daemon, so no pid file need say it is alive.
      const { daemonKey } = await import('./paths.js');
      if (daemonKey(await this.options.configFiles()) === link.key) return link;
      // Or one with the same text elsewhere (see `paths`).
      return (await this.paths()).key === link.key ? link : undefined;
    })();
    return this.#link;
  }

  /**
   * Transports to the daemon for a routed server (starting the daemon on
   * demand), or undefined when it cannot be reached: then the server is
   * started directly, with a --verbose note. A socket someone else could reach
   * is refused, and a server that failed inside the daemon is reported as is.
   */
  async transports(server: ServerConfig): Promise<(() => Promise<ManagedTransport>) | undefined> {
    const signIn = this.#callerSignIn(server);
    const link = await this.#daemonLink();
    const open = link
      ? await this.#linkOpener(server, link, signIn)
      : await this.#socketOpener(server, signIn);
    const openSignedIn = signedIn(open, signIn);
    let first: ManagedTransport;
    try {
      first = await openSignedIn();
    } catch (error) {
      if (!(error instanceof McpxError) || error.code !== ErrorCode.DaemonUnavailable) throw error;
      // Inside the daemon, the connector hands such a server back to the caller.
      if (this.options.verbose && !link)
        this.options.notice(
          `${server.name}: ${error.message}; starting it directly instead of in the mcpx daemon`,
        );
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
      import('./index.js'),
      import('../home/index.js'),
    ]);
    const { env, home } = this.options;
    const paths = await this.paths();
    return async () => {
      const { socket, reply } = await openDaemon(
        {
          op: 'serve',
          server: withCallerEnv(server, env, this.#platform()),
          caller: { pid: process.pid, command: this.options.label?.() ?? 'mcpx' },
          offer: await this.#offer(server),
        },
        {
          home: createHomeFiles(home),
          paths,
          pid: process.pid,
          uid: process.getuid?.(),
          // Only a keep_alive entry starts a daemon; any other one uses a running `--all` daemon.
          ...(server.keepAlive === true
            ? { start: () => this.spawnDaemon(paths.key, { idleSeconds: env.MCPX_DAEMON_IDLE }) }
            : {}),
        },
      );
      if (reply.notice) this.options.notice(forTerminal(reply.notice));
      return new DaemonSocketTransport(socket, server.name, reply.protocolVersion, signIn);
    };
  }

  /** For a command inside the daemon: its in-process link to the held server. */
  async #linkOpener(
    server: ServerConfig,
    link: Link,
    signIn: CallerSignIn | undefined,
  ): Promise<() => Promise<ManagedTransport>> {
    const { withCallerEnv } = await import('./passthrough.js');
    return async () => {
      const { transport, notice } = await link.open(
        withCallerEnv(server, this.options.env, this.#platform()),
        await this.#offer(server),
      );
      if (notice) this.options.notice(forTerminal(notice));
      if (signIn) transport.useSignIn(signIn);
      return transport;
    };
  }

  /**
   * The direct path's own sign-in, for a server the daemon holds: it refused
   * the token and named the scope. The tokens land in the same store, where the
   * daemon (and the next direct command) picks them up.
   */
  #callerSignIn(server: ServerConfig): CallerSignIn | undefined {
    const { url } = server;
    const { presentSignIn, onSdkDiagnostic, signal, home } = this.options;
    if (!presentSignIn || url === undefined) return undefined;
    return async (scope) => {
      const { signIn, TokenStore } = await import('../auth/index.js');
      await signIn(
        { ...server, url },
        {
          store: new TokenStore(home),
          present: (authorizationUrl) => presentSignIn(server.name, authorizationUrl),
          ...(signal ? { signal } : {}),
          ...(scope ? { scope } : {}),
          ...(onSdkDiagnostic ? { onSdkDiagnostic } : {}),
        },
      );
    };
  }

  /** What this process can answer for `server`, asked when each connection opens (roots may change). */
  async #offer(server: ServerConfig): Promise<CallerOffer> {
    return offerOf(await this.options.features?.(server));
  }

  #platform(): NodeJS.Platform {
    return this.options.platform ?? process.platform;
  }
}

/**
 * `connector` with the daemon's route in front: a routed server's transports
 * come from the daemon; inside the daemon for a light caller, a server it does
 * not hold is handed back to the caller. Whether an `--all` daemon runs is
 * asked here, before any connect: deciding it inside a connect would let a
 * close that came meanwhile be followed by a spawn.
 */
export async function viaDaemon(
  connector: RoutableConnector,
  route: DaemonRoute,
): Promise<RoutableConnector> {
  const allDaemon = await route.allDaemonRunning();
  const { caller } = route.options;
  return async (server, hooks) => {
    const transports = route.routesWith(server, allDaemon) ? await route.transports(server) : undefined;
    if (!transports) {
      if (caller) throw caller.direct(server.name);
      return connector(server, hooks);
    }
    const connection = await connector({ ...server, protocol: 'legacy' }, { ...hooks, transports });
    caller?.warm();
    return connection;
  };
}

/** A held server whose token the daemon could not renew: signed in at the caller, then asked again (once). */
function signedIn(
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
