import { chmod, rename, rm } from 'node:fs/promises';
import { createServer, type Server as NetServer, type Socket } from 'node:net';
import type { ServerCapabilities, Transport } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import type { ClientFeatures } from '../client/features.js';
import type { ServerLogEvent } from '../client/index.js';
import type { ServerConfig } from '../config/index.js';
import { ErrorCode, McpxError, toMcpxError } from '../errors/index.js';
import { createSessionServer, recordingRequests } from '../gateway/index.js';
import type { HomeFiles } from '../home/index.js';
import { isAlive, type ProcessIdentity, parseIdentity } from '../home/index.js';
import type { ServingMetrics } from '../metrics/index.js';
import type { PermissionGuard } from '../permissions/index.js';
import type { ServerRegistry } from '../registry/index.js';
import { ServingStdioTransport } from '../transport/index.js';
import { type CallerOffer, NO_OFFER, offeredFeatures, readOffer } from './caller-offer.js';
import { type GatewayCommand, serveGatewaySession } from './gateway-session.js';
import { controlLine } from './gateway-wire.js';
import { type LinkedTransport, linkedPair } from './in-process-link.js';
import { createInstancePool, type Instance, type InstanceSession } from './instance-pool.js';
import { contentAlias, type DaemonPaths } from './paths.js';
import { type RunCommand, serveRun } from './serve-run.js';
import { ensureSocketFolder } from './socket-safety.js';
import {
  DAEMON_PROTOCOL,
  type DaemonCallerInfo,
  type DaemonReply,
  type DaemonRequest,
  type DaemonStatus,
  errorToWire,
  readLine,
  type WarmServerStatus,
  writeLine,
} from './wire.js';

export interface DaemonServerOptions {
  /**
   * A registry for one held entry, from the composition root (the daemon's own
   * `CliSession`: its connector, lazy reconnects on). Each instance has its own,
   * so one caller's entry never replaces what another caller's call runs on.
   */
  readonly createRegistry: (config: ServerConfig) => Promise<ServerRegistry>;
  /** The guard of one instance's calls, from the same root (`yolo`: see `run` in cli/commands/daemon.ts). */
  readonly createGuard: (config: ServerConfig) => Promise<PermissionGuard>;
  readonly home: HomeFiles;
  readonly paths: DaemonPaths;
  /** The text of the config it was started for (`configKey`): recorded so same-text configs elsewhere find it. */
  readonly contentKey?: string;
  readonly identity: ProcessIdentity;
  /** Serve every server (`mcpx daemon start --all`), not only `keep_alive` ones. */
  readonly all: boolean;
  /** Servers to hold from the start (`--all`). */
  readonly servers?: readonly ServerConfig[];
  /** What the callers of a server held from the start are expected to offer (a plain `mcpx call`'s). */
  readonly heldOffer?: (config: ServerConfig) => Promise<CallerOffer>;
  /** The daemon stops after this long with no client connected. */
  readonly idleMs: number;
  /** A server stops after this long without a request, unless its `keep_alive_idle` says otherwise. */
  readonly serverIdleMs: number;
  /** An idle instance beside others of its server (other environments) stops after this. */
  readonly extraIdleMs?: number;
  /** Instances of one server at most, one per distinct environment. */
  readonly maxInstancesPerServer?: number;
  /** Asked to stop (by `mcpx daemon stop` or idleness): the front end closes it and the registry. */
  readonly onStop: () => void;
  /** Runs a light caller's command (`op: 'run'`); absent: such callers are told to go direct. */
  readonly runCommand?: RunCommand;
  /**
   * Where the daemon's requests, upstream calls, servers and sessions are counted; read with
   * `op: 'metrics'` (`mcpx daemon metrics`). Without it, that request gets no figures.
   */
  readonly metrics?: ServingMetrics;
  /** Runs a thin `mcpx serve`'s session (`op: 'gateway'`); absent: such callers serve in full themselves. */
  readonly runGateway?: GatewayCommand;
  /**
   * Handed the daemon's links, features and log routing before its socket takes
   * the first caller (who may dial the moment it appears, before this function resolves).
   */
  readonly bind?: (serving: Omit<DaemonServer, 'close'>) => void;
  readonly now?: () => number;
}

/** A command the daemon runs for a light caller, joined to a held server in memory (see `link`). */
export interface DaemonLink {
  readonly transport: LinkedTransport;
  /** For the caller's terminal: the server crashed since the last call and was started again. */
  readonly notice?: string;
  readonly protocolVersion?: string;
}

export interface DaemonServer {
  /**
   * Join a command running inside the daemon (`runCommand`) to the held server
   * for `config`, as a socket's `serve` would, without the socket: the same
   * session server, questions, progress and cancellation, and the same
   * instance rules (one per distinct environment and offer, a crash told once).
   */
  link(config: ServerConfig, caller?: DaemonCallerInfo, offer?: CallerOffer): Promise<DaemonLink>;
  /**
   * Roots, sampling and elicitation for one held entry (the object its registry
   * was given): exactly what its instance's callers offered, asked of the CLI
   * whose call is in flight on that instance.
   */
  featuresFor(config: ServerConfig): ClientFeatures;
  /**
   * A held server's log message: to the caller whose call is in flight there, else to every
   * caller of its instance. It names only its server: with that server held for several
   * environments, nobody can tell whose it is, and it is dropped rather than shown to the wrong one.
   */
  serverLog(event: ServerLogEvent): void;
  /** Stop listening, hang up every client, stop every held server, remove the socket and pid file. */
  close(): Promise<void>;
}

/** A caller joined to an instance: what it is told, and its session server on a transport (ended by the returned function). */
interface Attached {
  readonly notice?: string;
  readonly protocolVersion?: string;
  serveOn(transport: Transport): () => Promise<void>;
}

// Requests wait this long for their first line; a client that says nothing is dropped.
const REQUEST_TIMEOUT_MS = 10_000;

/**
 * The keep-alive daemon: the gateway's core (`GatewayCore`, `createSessionServer`)
 * on an owner-only Unix socket. Each connection asks for one server; the daemon
 * connects it through the registry (once; later callers find it warm) and then
 * re-serves it transparently over the socket, so the CLI is an ordinary MCP client
 * and progress, cancellation and the server's questions travel as MCP does.
 */
export async function startDaemonServer(options: DaemonServerOptions): Promise<DaemonServer> {
  const { home, paths } = options;
  const now = options.now ?? Date.now;
  const startedAt = now();
  const pool = createInstancePool({
    createRegistry: options.createRegistry,
    createGuard: options.createGuard,
    serverIdleMs: options.serverIdleMs,
    ...(options.extraIdleMs !== undefined ? { extraIdleMs: options.extraIdleMs } : {}),
    ...(options.maxInstancesPerServer !== undefined ? { maxPerServer: options.maxInstancesPerServer } : {}),
    ...(options.metrics ? { metrics: options.metrics } : {}),
    now,
  });
  const stopObserving = options.metrics?.observe({
    connections: () =>
      pool.list().map((instance) => ({
        server: instance.config.name,
        instance: instance.key.tag,
        state: instance.registry.status(instance.config.name).state,
      })),
    sessions: () =>
      pool.list().map((instance) => ({
        server: instance.config.name,
        instance: instance.key.tag,
        count: instance.sessions.size,
      })),
  });
  const sockets = new Set<Socket>();
  let clientCount = 0;
  // Names each caller's session server (a server's questions are routed back by it).
  let links = 0;
  let daemonIdle: NodeJS.Timeout | undefined;
  let closed = false;

  const touchDaemon = () => {
    clearTimeout(daemonIdle);
    daemonIdle = undefined;
    if (clientCount > 0 || closed) return;
    daemonIdle = setTimeout(() => options.onStop(), options.idleMs);
  };

  /**
   * A caller joins the instance for `config` (its server connected, warm or now):
   * what to tell it, and how to serve it the instance's session server over a
   * transport; `release` when it leaves. A server that cannot be reached is its error.
   */
  const attach = async (
    config: ServerConfig,
    caller: DaemonCallerInfo | undefined,
    offer: CallerOffer,
  ): Promise<Attached> => {
    const instance = await pool.acquire(config, offer);
    const crashed = instance.crashed;
    instance.crashed = undefined;
    const session: InstanceSession = {
      ...(caller?.pid !== undefined ? { pid: caller.pid } : {}),
      command: caller?.command ?? 'mcpx',
      since: now(),
      calls: 0,
    };
    instance.sessions.add(session);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      instance.sessions.delete(session);
      pool.release(instance);
    };
    let capabilities: ServerCapabilities;
    let instructions: string | undefined;
    let protocolVersion: string | undefined;
    try {
      const connection = await instance.registry.connect(config.name);
      protocolVersion = connection.protocolVersion;
      const { tools, resources, prompts, completions, logging } =
        connection.capabilities as ServerCapabilities;
      capabilities = { tools, resources, prompts, completions, logging };
      instructions = connection.instructions;
    } catch (error) {
      release();
      instance.lastError = toMcpxError(error).message;
      throw toMcpxError(error);
    }
    links += 1;
    const client = `daemon-${links}-${now()}`;
    return {
      ...(protocolVersion ? { protocolVersion } : {}),
      ...(crashed
        ? { notice: `'${config.name}' stopped since the last call (${crashed}); the daemon started it again` }
        : {}),
      serveOn: (transport) => {
        const handle = serveStdio(
          () => {
            const server = createSessionServer(instance.core, {
              client,
              pages: instance.pages,
              capabilities,
              hop: 'daemon',
              ...(instructions ? { instructions } : {}),
              onRequest: recordingRequests(options.metrics, (event) => {
                if (event.method !== 'tools/call') return;
                instance.calls += 1;
                session.calls += 1;
              }),
            });
            instance.live.add(server);
            return server;
          },
          { transport, onerror: () => {} },
        );
        return async () => {
          release();
          await handle.close().catch(() => {});
        };
      },
    };
  };

  const serve = async (
    socket: Socket,
    config: ServerConfig,
    caller: DaemonCallerInfo | undefined,
    offer: CallerOffer,
  ) => {
    let attached: Attached;
    try {
      attached = await attach(config, caller, offer);
    } catch (error) {
      reply(socket, { ok: false, error: errorToWire(toMcpxError(error)) });
      socket.end();
      return;
    }
    const { serveOn, ...said } = attached;
    reply(socket, { ok: true, ...said });
    // mcpx's own newline transport, as `mcpx serve`'s stdio: no zod parse of every line.
    const leave = serveOn(new ServingStdioTransport(socket, socket));
    // readLine() paused the socket; a listener added to a paused stream does not resume it.
    socket.resume();
    socket.once('close', () => void leave());
  };

  /** Whether this daemon serves `config` for a caller (a keep-alive entry, or any with --all). */
  const refusal = (config: ServerConfig): McpxError | undefined =>
    !options.all && config.keepAlive !== true
      ? new McpxError(ErrorCode.DaemonUnavailable, `'${config.name}' is not a keep-alive server`, {
          server: config.name,
        })
      : undefined;

  const status = (): DaemonStatus => ({
    pid: options.identity.pid,
    uptimeMs: now() - startedAt,
    all: options.all,
    clients: clientCount,
    servers: pool.list().map(
      (instance): WarmServerStatus => ({
        name: instance.config.name,
        envTag: instance.key.tag,
        state: instance.registry.status(instance.config.name).state,
        offers: Object.keys(instance.offer.capabilities),
        ...(instance.connectedAt !== undefined ? { uptimeMs: now() - instance.connectedAt } : {}),
        calls: instance.calls,
        ...(instance.lastError ? { lastError: instance.lastError } : {}),
        sessions: [...instance.sessions].map((s) => ({
          ...(s.pid !== undefined ? { pid: s.pid } : {}),
          command: s.command,
          sinceMs: now() - s.since,
          calls: s.calls,
        })),
      }),
    ),
  });

  const accept = async (socket: Socket) => {
    let request: DaemonRequest;
    try {
      request = JSON.parse(await readLine(socket, REQUEST_TIMEOUT_MS)) as DaemonRequest;
      if (request.protocol !== DAEMON_PROTOCOL)
        throw new Error(`unknown protocol ${String(request.protocol)}`);
    } catch (error) {
      reply(socket, {
        ok: false,
        error: errorToWire(
          new McpxError(
            ErrorCode.DaemonUnavailable,
            `the mcpx daemon could not read the request: ${(error as Error).message}`,
            {
              fixes: ['a different mcpx version may be running: run `mcpx daemon restart`'],
            },
          ),
        ),
      });
      socket.end();
      return;
    }
    if (request.op === 'status') {
      reply(socket, { ok: true, status: status() });
      socket.end();
    } else if (request.op === 'metrics') {
      const text = (await options.metrics?.prometheus()) ?? '';
      reply(socket, { ok: true });
      socket.end(text);
    } else if (request.op === 'run') {
      reply(socket, { ok: true });
      const { protocol: _protocol, op: _op, ...run } = request;
      if (options.runCommand) await serveRun(socket, run, options.runCommand);
      else {
        writeLine(socket, { t: 'direct' });
        socket.end();
      }
    } else if (request.op === 'gateway') {
      reply(socket, { ok: true });
      const { protocol: _protocol, op: _op, ...session } = request;
      if (options.runGateway) await serveGatewaySession(socket, session, options.runGateway);
      else socket.end(controlLine({ t: 'direct' }));
    } else if (request.op === 'stop') {
      reply(socket, { ok: true });
      socket.end();
      options.onStop();
    } else if (request.op === 'serve') {
      const refused = refusal(request.server);
      if (refused) {
        reply(socket, { ok: false, error: errorToWire(refused) });
        socket.end();
        return;
      }
      await serve(socket, request.server, callerInfo(request.caller), readOffer(request.offer));
    }
  };

  // A second daemon for the same config (`mcpx daemon run` typed by hand while one serves)
  // would rename its socket over the live one and strand the first one's servers.
  const running = parseIdentity(await home.readText(paths.pidFile).catch(() => undefined));
  if (running && running.pid !== options.identity.pid && (await isAlive(running)))
    throw new McpxError(
      ErrorCode.DaemonAlreadyRunning,
      `an mcpx daemon (pid ${running.pid}) already serves this config`,
      {
        origin: { file: paths.absolute.socket },
        fixes: ['use that one (`mcpx daemon status`), or stop it first with `mcpx daemon stop`'],
      },
    );

  await home.ensureDir(paths.dir);
  await ensureSocketFolder(paths, process.getuid?.());
  // Bound before the socket takes its first caller: the front end routes its held servers'
  // questions and logs here, and a caller that dials the moment the socket appears is one.
  const serving: Omit<DaemonServer, 'close'> = {
    async link(config, caller, offer = NO_OFFER) {
      const refused = refusal(config);
      if (refused) throw refused;
      const { serveOn, ...said } = await attach(config, caller, offer);
      // The caller closing its end is its leaving the instance (the daemon's end closes with it).
      const [client, daemon] = linkedPair(config.name, {
        ...(said.protocolVersion ? { relayedProtocolVersion: said.protocolVersion } : {}),
        onClosed: () => void leave(),
      });
      const leave = serveOn(daemon);
      return { transport: client, ...said };
    },
    featuresFor(config) {
      const instance = pool.owning(config);
      if (!instance) return {};
      const { offer } = instance;
      return offeredFeatures(
        instance.core.featuresFor(config.name, { roots: () => offer.roots ?? [] }),
        offer,
      );
    },
    serverLog(event) {
      const held = pool.list().filter((instance) => instance.config.name === event.server);
      if (held.length === 1) held[0]?.core.serverLog(event);
    },
  };
  options.bind?.(serving);

  // Listened on under a temporary name and renamed once private: a caller never sees a socket
  // with the umask's mode (which checkSocketSafe would rightly refuse).
  // A Windows named pipe has no mode to set and cannot be renamed: it is listened on as it is
  // (its default security descriptor keeps other users out, see socket-safety.ts).
  const staging = paths.namedPipe
    ? paths.absolute.socket
    : `${paths.absolute.socket}.${options.identity.pid}.tmp`;
  if (!paths.namedPipe) await rm(staging, { force: true });
  const listener: NetServer = createServer((socket) => {
    if (closed) {
      socket.destroy();
      return;
    }
    sockets.add(socket);
    clientCount += 1;
    touchDaemon();
    socket.on('error', () => {});
    socket.once('close', () => {
      sockets.delete(socket);
      clientCount -= 1;
      touchDaemon();
    });
    void accept(socket).catch(() => socket.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    listener.once('error', reject);
    listener.listen(staging, () => {
      listener.off('error', reject);
      resolve();
    });
  });
  if (!paths.namedPipe) {
    try {
      await chmod(staging, 0o600);
      await rename(staging, paths.absolute.socket);
    } catch (error) {
      // A daemon that cannot publish its socket must not stay behind listening on nothing.
      await new Promise<void>((resolve) => listener.close(() => resolve()));
      await rm(staging, { force: true });
      throw error;
    }
  }
  await home.writeText(
    paths.pidFile,
    // The socket's path too: a caller whose environment names another socket folder finds it here.
    JSON.stringify({ ...options.identity, all: options.all, key: paths.key, socket: paths.absolute.socket }),
  );
  const alias = options.contentKey !== undefined ? contentAlias(options.contentKey) : undefined;
  if (alias)
    await home.writeText(
      alias,
      JSON.stringify({
        ...options.identity,
        all: options.all,
        key: paths.key,
        socket: paths.absolute.socket,
      }),
    );
  touchDaemon();
  const held: Instance[] = [];
  for (const config of options.servers ?? [])
    held.push(await pool.hold(config, (await options.heldOffer?.(config)) ?? NO_OFFER));
  // Warm from the start (`--all`): the first call finds its server ready (failures are in `status`).
  for (const instance of held) void instance.registry.connect(instance.config.name).catch(() => {});

  return {
    ...serving,
    async close() {
      if (closed) return;
      closed = true;
      clearTimeout(daemonIdle);
      stopObserving?.();
      const stopped = new Promise<void>((resolve) => listener.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await stopped;
      await pool.close();
      const recorded = parseIdentity(await home.readText(paths.pidFile).catch(() => undefined));
      const aliased = alias && parseIdentity(await home.readText(alias).catch(() => undefined));
      if (alias && aliased && aliased.pid === options.identity.pid) await home.remove(alias).catch(() => {});
      if (recorded?.pid === options.identity.pid) {
        await home.remove(paths.pidFile).catch(() => {});
        if (!paths.namedPipe) await rm(paths.absolute.socket, { force: true });
      }
    },
  };
}

/** The caller's introduction as far as it is well formed (its words reach a terminal only through forTerminal). */
function callerInfo(value: unknown): DaemonCallerInfo | undefined {
  const { pid, command } = (value ?? {}) as Partial<DaemonCallerInfo>;
  if (typeof command !== 'string') return undefined;
  return { ...(Number.isSafeInteger(pid) ? { pid: pid as number } : {}), command: command.slice(0, 80) };
}

function reply(socket: Socket, value: DaemonReply): void {
  writeLine(socket, value);
}
