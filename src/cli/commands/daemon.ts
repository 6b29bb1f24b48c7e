import { setTimeout as delay } from 'node:timers/promises';
import { createConfigFileCache, type ServerConfig } from '../../config/index.js';
import type { DaemonServer } from '../../daemon/index.js';
import type { CallerOffer, DaemonPaths, DaemonStatus } from '../../daemon-client/index.js';
import { ErrorCode, McpxError } from '../../errors/index.js';
import { createHomeFiles } from '../../home/index.js';
import {
  type ClientFeatures,
  claimConsole,
  createRoots,
  type Host,
  rootsForDirectories,
} from '../../host/index.js';
import { forTerminal, say } from '../../text/index.js';
import { commandFeatures, sessionRoots } from '../context/command-features.js';
import type { CliContext, CliDoor } from '../context/context.js';
import { usageError } from '../context/global-options.js';
import { ExitCode } from '../io/exit-codes.js';
import { toJson } from '../output/json.js';
import { renderTable } from '../output/table.js';

export interface DaemonOptions {
  readonly all?: boolean;
  readonly idle?: string;
  readonly key?: string;
}

// Without a client for this long the daemon ends (and its servers with it).
const DEFAULT_DAEMON_IDLE_S = 1800;
// A warm server with no request for this long is stopped, unless its keep_alive_idle says otherwise.
const DEFAULT_SERVER_IDLE_S = 600;

/** `mcpx daemon start|stop|status|metrics|restart|run`: a thin front end over `src/daemon/`. */
export async function runDaemon(door: CliDoor, action: string, options: DaemonOptions): Promise<number> {
  if (action === 'run') return run(door, options);
  const session = door.open();
  switch (action) {
    case 'start':
      return start(session, options);
    case 'stop':
      return stop(session);
    case 'status':
      return status(session);
    case 'metrics':
      return printMetrics(session);
    case 'restart': {
      await stop(session, true);
      return start(session, options);
    }
    default:
      throw usageError(
        `unknown daemon action '${action}'`,
        'use mcpx daemon start | stop | status | metrics | restart',
      );
  }
}

/** The host's route to the daemon: a CLI host always has one (`hostOptionsFor` gives it `daemon`). */
function route(session: CliContext): NonNullable<Host['daemon']> {
  const { daemon } = session.host;
  if (!daemon) throw new McpxError(ErrorCode.Internal, 'this command was given no daemon route');
  return daemon;
}

async function connection(session: CliContext) {
  const daemon = await import('../../daemon-client/index.js');
  const paths = await route(session).paths();
  const base = {
    home: createHomeFiles(session.host.home),
    paths,
    pid: process.pid,
    uid: process.getuid?.(),
  };
  return { daemon, paths, base };
}

/** The running daemon's status, or undefined when none runs (`mcpx console` shows it too). */
export async function currentStatus(session: CliContext): Promise<DaemonStatus | undefined> {
  const { daemon, base } = await connection(session);
  try {
    const { socket, reply } = await daemon.openDaemon({ op: 'status' }, base);
    socket.destroy();
    return reply.status;
  } catch (error) {
    if (error instanceof McpxError && error.code === ErrorCode.DaemonUnavailable) return undefined;
    throw error;
  }
}

async function start(session: CliContext, options: DaemonOptions): Promise<number> {
  const idle = idleSeconds(options.idle);
  const running = await currentStatus(session);
  if (running) {
    if (options.all && !running.all)
      throw usageError(
        `an mcpx daemon already runs for this config (pid ${running.pid}) without --all`,
        'run `mcpx daemon restart --all`',
      );
    session.notice(`mcpx daemon: already running (pid ${running.pid})`);
    return ExitCode.Ok;
  }
  const { daemon, paths, base } = await connection(session);
  const { socket, reply } = await daemon.openDaemon(
    { op: 'status' },
    {
      ...base,
      start: () =>
        route(session).spawnDaemon(paths.key, {
          ...(options.all ? { all: true } : {}),
          ...(idle !== undefined ? { idleSeconds: String(idle) } : {}),
        }),
    },
  );
  socket.destroy();
  // The daemon answers on its socket a moment before its pid file says what it is: a call made
  // the moment this returns learns from that file whether an `--all` daemon runs.
  const until = Date.now() + RECORDS_WAIT_MS;
  while (Date.now() < until) {
    const recorded = daemon.parseIdentity(await base.home.readText(paths.pidFile).catch(() => undefined));
    if (recorded?.pid === reply.status?.pid) break;
    await delay(25);
  }
  session.notice(`mcpx daemon: started (pid ${reply.status?.pid}), socket ${paths.absolute.socket}`);
  return ExitCode.Ok;
}

/** How long `daemon start` waits for the started daemon's pid file once its socket answered. */
const RECORDS_WAIT_MS = 5_000;

async function stop(session: CliContext, quiet = false): Promise<number> {
  const { daemon, paths, base } = await connection(session);
  const recorded = daemon.parseIdentity(await base.home.readText(paths.pidFile).catch(() => undefined));
  try {
    const { socket } = await daemon.openDaemon({ op: 'stop' }, base);
    socket.destroy();
  } catch (error) {
    if (!(error instanceof McpxError && error.code === ErrorCode.DaemonUnavailable)) throw error;
    if (!quiet) session.notice('mcpx daemon: not running');
    return ExitCode.Ok;
  }
  // Stopped means gone, servers and all: wait for the process to end.
  const until = Date.now() + 15_000;
  while (recorded && (await daemon.isAlive(recorded)) && Date.now() < until) await delay(50);
  if (!quiet) session.notice(`mcpx daemon: stopped${recorded ? ` (pid ${recorded.pid})` : ''}`);
  return ExitCode.Ok;
}

async function status(session: CliContext): Promise<number> {
  const current = await currentStatus(session);
  const paths = await route(session).paths();
  if (session.options.json) {
    session.io.stdout.write(
      say`${toJson(current ? { running: true, socket: paths.absolute.socket, ...current } : { running: false })}\n`,
    );
    return ExitCode.Ok;
  }
  if (!current) {
    session.io.stdout.write(say`mcpx daemon: not running\n`);
    return ExitCode.Ok;
  }
  const lines = [
    `mcpx daemon: running (pid ${current.pid}, up ${duration(current.uptimeMs)}${current.all ? ', all servers' : ''}, ${current.clients - 1} client${current.clients - 1 === 1 ? '' : 's'} connected)`,
    `socket: ${paths.absolute.socket}`,
  ];
  session.io.stdout.write(say`${session.forPerson(lines.join('\n'))}\n`);
  if (current.servers.length === 0) {
    session.io.stdout.write(say`no warm servers\n`);
    return ExitCode.Ok;
  }
  const rows = current.servers.map((s) => [
    forTerminal(s.name),
    forTerminal(s.envTag ?? '-'),
    s.state,
    s.uptimeMs === undefined ? '-' : duration(s.uptimeMs),
    String(s.calls),
    String(s.sessions?.length ?? '-'),
    s.lastError ? forTerminal(s.lastError) : '-',
  ]);
  session.io.stdout.write(
    say`${renderTable(['SERVER', 'ENV', 'STATE', 'UPTIME', 'CALLS', 'SESSIONS', 'LAST ERROR'], rows)}\n`,
  );
  const sessions = sessionRows(current);
  if (sessions.length > 0)
    session.io.stdout.write(
      say`\n${renderTable(['SESSION PID', 'COMMAND', 'SINCE', 'SERVERS (CALLS)'], sessions)}\n`,
    );
  return ExitCode.Ok;
}

/**
 * The running daemon's metrics in the Prometheus text format (for a textfile collector, or
 * a look); no daemon is a failure that says how to start one. Label values were cleaned
 * when recorded, and pass `forTerminal` once more on their way to the terminal.
 */
async function printMetrics(session: CliContext): Promise<number> {
  const { daemon, base } = await connection(session);
  const { socket } = await daemon.openDaemon({ op: 'metrics' }, base);
  const chunks: Buffer[] = [];
  for await (const chunk of socket) chunks.push(chunk as Buffer);
  session.io.stdout.write(forTerminal(Buffer.concat(chunks).toString('utf8')));
  return ExitCode.Ok;
}

/** One row per caller process: which warm servers it uses, with its calls on each. */
function sessionRows(status: DaemonStatus): string[][] {
  const byCaller = new Map<string, { pid?: number; command: string; sinceMs: number; uses: string[] }>();
  for (const server of status.servers)
    for (const s of server.sessions ?? []) {
      const key = s.pid === undefined ? `-${s.command}` : String(s.pid);
      const row = byCaller.get(key) ?? { ...s, uses: [] };
      row.sinceMs = Math.max(row.sinceMs, s.sinceMs);
      row.uses.push(`${server.name} (${s.calls})`);
      byCaller.set(key, row);
    }
  return [...byCaller.values()].map((row) => [
    row.pid === undefined ? '-' : String(row.pid),
    forTerminal(row.command),
    duration(row.sinceMs),
    forTerminal(row.uses.join(', ')),
  ]);
}

/** The daemon itself (started detached by `start` or on demand): serves until stopped or idle. */
// Long because it starts the daemon process in order (console, metrics, registry, socket, signals),
// each step using the ones before.
async function run(door: CliDoor, options: DaemonOptions): Promise<number> {
  // This process is the daemon's alone: no per-call console capture (see claimConsole).
  claimConsole();
  // Bound before its first caller arrives (`bind`), which may be before startDaemonServer resolves.
  let server: Omit<DaemonServer, 'close'> | undefined;
  const session = door.open({
    // --all holds every usable server; untrusted ones are skipped, since the daemon never asks anyone.
    daemon: { held: options.all ? 'usable' : [] },
    // The built-in demo is held only when nothing else is configured (as the gateway serves it).
    ...(options.all ? { omitBuiltinWhenConfigured: true } : {}),
    reconnect: 'lazy',
    // `yolo` here is not "no policy": the policy is the caller's. The daemon only serves the
    // person's own mcpx commands (its socket is theirs alone, 0600 in a private folder), and
    // each of them passes its own guard before a call reaches the socket: chat asks at its
    // terminal or refuses without one, a gateway refuses without `--allow` (see
    // test/e2e/daemon-consent.test.ts), `mcpx call` is the person's own call. The caller's level
    // cannot stand in here: one instance serves many callers at different levels, consent
    // answers live in the caller's session, and the daemon has nobody to ask, so `trusted`
    // would refuse every call a person approved. The entry's allow_tools / deny_tools still
    // hold (the engine checks them before the level).
    permission: 'yolo',
    // A server's questions (roots, elicitation, sampling) go to the CLI whose call is in flight on
    // that instance, declared as that instance's callers offered them.
    features: (config) => server?.featuresFor(config) ?? {},
    // Its servers' log messages go to their callers, as `mcpx serve`'s go to its clients.
    serverLogs: { listener: (event) => server?.serverLog(event) },
  });
  // Its figures are kept from the start, for `mcpx daemon metrics` and an OTLP push when asked.
  const [{ startDaemonServer }, { identify, configKey, offerOf }, metrics] = await Promise.all([
    import('../../daemon/index.js'),
    import('../../daemon-client/index.js'),
    import('../../metrics/index.js').then((m) => m.createMetrics({ env: session.io.env })),
  ]);
  const idle = idleSeconds(options.idle ?? session.io.env.MCPX_DAEMON_IDLE) ?? DEFAULT_DAEMON_IDLE_S;
  const paths = await route(session).paths();
  if (options.key !== undefined && options.key !== paths.key)
    throw usageError(`this folder's config is not the one daemon ${options.key} was started for`);
  const held = options.all ? [...(await session.host.servers())] : [];
  const configFiles = createConfigFileCache();
  let stop: () => void = () => {};
  const stopped = new Promise<void>((resolve) => {
    stop = resolve;
  });
  if (session.io.signal.aborted) stop();
  session.io.signal.addEventListener('abort', () => stop(), { once: true });
  // This process is the daemon alone: once told to stop (SIGTERM, `daemon stop`, idle) or failed
  // to start, it ends, whatever is left open or slow to close. SIGTERM only aborts the CLI's signal
  // (process-io.ts), so a daemon that stopped listening to it would otherwise ignore it for good.
  void stopped.then(exitSoon);
  // The daemon's in-process link to the servers it holds, for a command it runs for `caller`.
  const link = (caller: { pid?: number; command: string }) =>
    server
      ? {
          link: {
            key: paths.key,
            all: options.all === true,
            open: (config: ServerConfig, offer: CallerOffer) =>
              (server as NonNullable<typeof server>).link(config, caller, offer),
          },
        }
      : {};
  let daemon: DaemonServer;
  try {
    daemon = await startDaemonServer({
      // One registry per instance (one per distinct environment of a server), closed by the daemon.
      createRegistry: (config) => session.host.createRegistry([config]),
      createGuard: (config) => session.host.createGuard([config]),
      home: createHomeFiles(session.host.home),
      paths,
      contentKey: configKey((await session.host.config()).files.map((f) => f.path)),
      identity: await identify(process.pid),
      all: options.all === true,
      servers: held,
      // A server held from the start is told what a plain `mcpx call` can answer: the command
      // most of its callers run (a caller that answers more gets an instance of its own).
      heldOffer: async (config) => offerOf(await heldFeatures(session, config)),
      idleMs: idle * 1000,
      serverIdleMs: DEFAULT_SERVER_IDLE_S * 1000,
      metrics,
      // MCPX_GATEWAY_FAST_PATH=0, as for `mcpx serve`: every caller's request the full way.
      fastPath: session.io.env.MCPX_GATEWAY_FAST_PATH !== '0',
      onStop: () => stop(),
      // Its commands reach the servers it holds in memory, not through its own socket.
      runCommand: async (request, terminal) =>
        (await import('../daemon-handoff/daemon-run.js')).runForCaller(request, terminal, {
          configFiles,
          ...link({ command: 'mcpx (warm command)' }),
        }),
      // A thin `mcpx serve`'s session runs here, on the same links, named for its own process.
      runGateway: async (request, remote) =>
        (await import('../daemon-handoff/daemon-run.js')).serveForCaller(request, remote, {
          configFiles,
          ...link({
            ...(Number.isSafeInteger(request.pid) ? { pid: request.pid as number } : {}),
            command: 'mcpx serve',
          }),
        }),
      bind: (serving) => {
        server = serving;
      },
    });
  } catch (error) {
    exitSoon();
    throw error;
  }
  await stopped;
  await daemon.close();
  await metrics.shutdown();
  return ExitCode.Ok;
}

// Time for the servers' process groups to be closed before the daemon exits regardless.
const EXIT_GRACE_MS = 10_000;

/** The process exits (with the command's exit code) at most EXIT_GRACE_MS from now; unref'd, so a clean end comes first. */
function exitSoon(): void {
  setTimeout(() => process.exit(), EXIT_GRACE_MS).unref();
}

function idleSeconds(value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  const n = Number(value);
  if (!(Number.isFinite(n) && n > 0)) throw usageError(`--idle takes a number of seconds, got '${value}'`);
  return n;
}

function duration(ms: number): string {
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

export type { DaemonPaths };

/**
 * What a plain `mcpx call` offers `config`: the config's roots (as its host offers them) and
 * its own features.
 */
async function heldFeatures(session: CliContext, config: ServerConfig): Promise<ClientFeatures> {
  const directories = await sessionRoots(session);
  const own = (await commandFeatures(session.io))(config);
  return directories ? { roots: createRoots(rootsForDirectories(directories)), ...own } : own;
}
