import type { Socket } from 'node:net';
import type { ClientFeatures } from '../client/features.js';
import type { ServerLogEvent } from '../client/index.js';
import type { ServerConfig } from '../config/index.js';
import {
  type CallerOffer,
  type DaemonCallerInfo,
  type DaemonLink,
  type DaemonPaths,
  ensureSocketFolder,
  NO_OFFER,
  offeredFeatures,
} from '../daemon-client/index.js';
import { ErrorCode, McpxError } from '../errors/index.js';
import type { HomeFiles, ProcessIdentity } from '../home/index.js';
import type { ServingMetrics } from '../metrics/index.js';
import type { PermissionGuard } from '../permissions/index.js';
import type { ServerRegistry } from '../registry/index.js';
import { type Attach, createAttach } from './attach.js';
import type { GatewayCommand } from './gateway-session.js';
import { linkedPair } from './in-process-link.js';
import { createInstancePool, type Instance, type InstancePool } from './instance-pool.js';
import { listenPrivately } from './private-socket.js';
import {
  assertNoOtherDaemon,
  type DaemonRecords,
  removeDaemonRecords,
  writeDaemonRecords,
} from './records.js';
import type { RunCommand } from './serve-run.js';
import { answerSocket } from './socket-requests.js';
import { daemonStatus } from './status.js';

// The daemon in pieces, each in its own module: callers joining instances (`attach.ts`), the
// socket's requests (`socket-requests.ts`), `daemon status` (`status.ts`), the owner-only socket
// (`private-socket.ts`) and the pid file and alias (`records.ts`). This module composes them.

export interface DaemonServerOptions {
  /**
   * A registry for one held entry, from the composition root (the daemon's own
   * host, `createHost`: its connector, lazy reconnects on). Each instance has its own,
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
  /**
   * A caller's plain `tools/call` takes the gateway's fast path in its session (see
   * `createAttach`). Default true; false sends every request the full way.
   */
  readonly fastPath?: boolean;
  readonly now?: () => number;
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
  const stopObserving = observePool(pool, options.metrics);
  const attach = createAttach(pool, options.metrics, now, options.fastPath !== false);
  /** Whether this daemon serves `config` for a caller (a keep-alive entry, or any with --all). */
  const refusal = (config: ServerConfig): McpxError | undefined =>
    !options.all && config.keepAlive !== true
      ? new McpxError(ErrorCode.DaemonUnavailable, `'${config.name}' is not a keep-alive server`, {
          server: config.name,
        })
      : undefined;
  const records: DaemonRecords = {
    home,
    paths,
    identity: options.identity,
    all: options.all,
    ...(options.contentKey !== undefined ? { contentKey: options.contentKey } : {}),
  };

  await assertNoOtherDaemon(records);
  await home.ensureDir(paths.dir);
  await ensureSocketFolder(paths, process.getuid?.());
  // Bound before the socket takes its first caller: the front end routes its held servers'
  // questions and logs here, and a caller that dials the moment the socket appears is one.
  const serving = servingFor(pool, attach, refusal);
  options.bind?.(serving);

  const clients = countClients(options.idleMs, () => options.onStop());
  const listener = await listenPrivately(paths, options.identity.pid, (socket) => {
    if (!clients.admit(socket)) return;
    void answerSocket(socket, {
      attach,
      refusal,
      status: () =>
        daemonStatus(
          pool,
          { pid: options.identity.pid, startedAt, all: options.all, clients: clients.count() },
          now,
        ),
      onStop: () => options.onStop(),
      ...(options.metrics ? { metrics: options.metrics } : {}),
      ...(options.runCommand ? { runCommand: options.runCommand } : {}),
      ...(options.runGateway ? { runGateway: options.runGateway } : {}),
    }).catch(() => socket.destroy());
  });
  const alias = await writeDaemonRecords(records);
  clients.touch();
  const held: Instance[] = [];
  for (const config of options.servers ?? [])
    held.push(await pool.hold(config, (await options.heldOffer?.(config)) ?? NO_OFFER));
  // Warm from the start (`--all`): the first call finds its server ready (failures are in `status`).
  for (const instance of held) void instance.registry.connect(instance.config.name).catch(() => {});

  let closed = false;
  return {
    ...serving,
    async close() {
      if (closed) return;
      closed = true;
      stopObserving?.();
      const stopped = new Promise<void>((resolve) => listener.close(() => resolve()));
      clients.hangUp();
      await stopped;
      await pool.close();
      await removeDaemonRecords(records, alias);
    },
  };
}

/** What the front end is handed before the socket opens: in-process links, features and log routing. */
function servingFor(
  pool: InstancePool,
  attach: Attach,
  refusal: (config: ServerConfig) => McpxError | undefined,
): Omit<DaemonServer, 'close'> {
  return {
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
}

/** The pool's connections and sessions, read by the metrics when they are collected. */
function observePool(pool: InstancePool, metrics: ServingMetrics | undefined): (() => void) | undefined {
  return metrics?.observe({
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
}

/**
 * The socket's connected clients, and the daemon's idleness: with none connected for `idleMs`,
 * `onStop`. Once hung up, it admits no one and stops counting time.
 */
function countClients(idleMs: number, onStop: () => void) {
  const sockets = new Set<Socket>();
  let idle: NodeJS.Timeout | undefined;
  let closed = false;
  const touch = () => {
    clearTimeout(idle);
    idle = undefined;
    if (sockets.size > 0 || closed) return;
    idle = setTimeout(onStop, idleMs);
  };
  return {
    touch,
    count: () => sockets.size,
    /** Counts a new connection in; false (and it is dropped) once the daemon is closing. */
    admit(socket: Socket): boolean {
      if (closed) {
        socket.destroy();
        return false;
      }
      sockets.add(socket);
      touch();
      socket.on('error', () => {});
      socket.once('close', () => {
        sockets.delete(socket);
        touch();
      });
      return true;
    },
    hangUp(): void {
      closed = true;
      clearTimeout(idle);
      for (const socket of sockets) socket.destroy();
    },
  };
}
