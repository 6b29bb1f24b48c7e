import { readFileSync, watch } from 'node:fs';
import { isIP } from 'node:net';
import { basename, dirname } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import type { Server, ServerCapabilities } from '@modelcontextprotocol/server';
import type { LoadedConfig, ServerConfig } from '../../config/index.js';
import { ErrorCode, McpxError, toMcpxError } from '../../errors/index.js';
import type { ReloadResult } from '../../gateway/index.js';
import { claimConsole, coalescingWriter, ServingStdioTransport } from '../../host/index.js';
import { forTerminal } from '../../text/index.js';
import { openAccessLog } from '../access-log.js';
import { ExitCode } from '../exit-codes.js';
import { usageError } from '../global-options.js';
import { permissionLevel } from '../permission-level.js';
import type { CliSession } from '../session.js';
import { readStateKey } from '../state-key.js';

export interface ServeOptions {
  readonly http?: boolean;
  readonly host?: string;
  readonly port?: string;
  readonly token?: string;
  readonly tokenFile?: string;
  readonly stateKeyFile?: string;
  readonly allowedOrigin?: readonly string[];
  readonly allowedHost?: readonly string[];
  readonly server?: string;
  readonly servers?: string;
  readonly excludeTools?: readonly string[];
  readonly permission?: string;
  readonly allow?: string;
  readonly pageSize?: string;
  readonly accessLog?: string;
  readonly logArguments?: boolean;
  readonly instanceId?: string;
  readonly ssePoll?: string;
  /** With --http: seconds a 2025-11-25 session may sit unused before it is ended. */
  readonly sessionIdle?: string;
  /** Milliseconds a list request waits for servers still starting before it answers without them. */
  readonly listWait?: string;
}

// Safe in a header, a URL and an nginx regex, and short enough to leave the session id readable.
const INSTANCE_ID = /^[A-Za-z0-9_-]{1,32}$/;
// SIGTERM waits this long for calls in flight before closing the upstreams anyway.
const DRAIN_LIMIT_MS = 30_000;
// A list request waits this long for servers still starting: hosts give a request a few
// seconds (Claude Code's `claude mcp list` fails a tools/list it waited on for 5 s), and nine
// `npx` servers take longer than that to start.
const DEFAULT_LIST_WAIT_MS = 2_000;

/**
 * `mcpx serve`: the configured servers as one MCP server, on stdio or (with
 * --http) on Streamable HTTP, until stdin closes or SIGTERM/SIGINT; then the
 * calls in flight finish and every upstream is closed.
 */
export async function runServe(session: CliSession, options: ServeOptions): Promise<number> {
  const { io } = session;
  // This process is the gateway's alone: no per-call console capture (see claimConsole).
  claimConsole();
  const bind = options.host ?? '127.0.0.1';
  const token = readToken(options);
  if (options.http && !isLoopback(bind) && token === undefined)
    throw usageError(
      `--host ${bind} would let other machines reach every configured server with no credential`,
      'give --token <secret> or --token-file <file> (clients send "Authorization: Bearer <secret>"), or bind 127.0.0.1',
    );
  if (
    !options.http &&
    (options.host ||
      options.port ||
      token !== undefined ||
      options.instanceId !== undefined ||
      options.stateKeyFile !== undefined)
  )
    throw usageError(
      '--host, --port, --token, --token-file, --state-key-file and --instance-id go with --http',
    );
  if (!options.http && options.ssePoll !== undefined)
    throw usageError('--sse-poll goes with --http: a stdio client has no stream to resume');
  if (!options.http && options.sessionIdle !== undefined)
    throw usageError(
      '--session-idle goes with --http: a stdio client is one session, for as long as it runs',
    );
  // It runs until stopped: a script waits on its notices (where it listens) as they come.
  io.jsonStderr?.writeEachLine();
  // Read before anything starts: a key file others can read is refused, not used.
  const stateKey =
    options.stateKeyFile === undefined ? undefined : readStateKey(options.stateKeyFile, process.getuid?.());
  if (options.instanceId !== undefined && !INSTANCE_ID.test(options.instanceId))
    throw usageError(
      `--instance-id takes 1 to 32 letters, digits, '_' or '-', got '${forTerminal(options.instanceId)}'`,
      'e.g. --instance-id a (session ids become a.<uuid>, which a load balancer can route on)',
    );
  const port = options.port === undefined ? 0 : Number(options.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw usageError(`--port takes a port number, got '${options.port}'`);
  const ssePollMs = positiveWhole('--sse-poll', options.ssePoll, 'a positive number of milliseconds', '1000');
  const sessionIdleSeconds = positiveWhole(
    '--session-idle',
    options.sessionIdle,
    'a positive number of seconds',
    '600',
  );
  const pageSize = positiveWhole('--page-size', options.pageSize, 'a positive whole number');
  const listWaitMs =
    options.listWait === '0'
      ? 0
      : (positiveWhole('--list-wait', options.listWait, 'a number of milliseconds', '2000') ??
        DEFAULT_LIST_WAIT_MS);
  const level = await permissionLevel(session, options.permission);

  // The built-in demo is offered only when nothing else is configured (as agents get it).
  session.omitBuiltinWhenConfigured();
  session.nameForDaemon('mcpx serve');
  const served = await servedServers(session, options);
  const [{ GatewayHost, createSessionServer, startGatewayHttp, LiveSessions, Paginator }, { serveStdio }] =
    await Promise.all([import('../../gateway/index.js'), import('@modelcontextprotocol/server/stdio')]);
  let host: InstanceType<typeof GatewayHost> | undefined;
  session.reconnectLazily();
  session.useFeatures((server) => (host as InstanceType<typeof GatewayHost>).featuresFor(server.name));
  session.useServerLogs((event) => host?.serverLog(event));
  const registry = await session.registry();
  host = new GatewayHost({
    registry,
    servers: served,
    ...(options.server ? { transparent: options.server } : {}),
    ...(stateKey ? { stateKey } : {}),
    listWaitMs,
    policy: {
      level,
      ...(options.allow ? { allowServers: splitList(options.allow) } : {}),
      ...(options.excludeTools?.length ? { excludeTools: options.excludeTools } : {}),
    },
  });
  const gateway = host;

  // Transparent: the one server's own capabilities and instructions, so the bridge is invisible.
  let capabilities: ServerCapabilities | undefined;
  let instructions: string | undefined;
  if (options.server) {
    const connection = await registry.connect(options.server);
    const { tools, resources, prompts, completions, logging } = connection.capabilities as ServerCapabilities;
    capabilities = { tools, resources, prompts, completions, logging };
    instructions = connection.instructions;
  } else {
    // Connected at start, only the served ones: the first client's tools/list finds what is
    // ready (the rest are announced as they come), and a server that cannot start is reported
    // now, not in the middle of a client's session.
    const names = new Set(served.map((s) => s.name));
    void registry.connectAll({ only: [...names] }).then((statuses) => {
      for (const s of statuses) {
        if (!names.has(s.name)) continue;
        if (s.state === 'error' && s.error)
          session.notice(forTerminal(`mcpx serve: '${s.name}' is not available: ${s.error.message}`));
        else if (s.listingError)
          session.notice(forTerminal(`mcpx serve: '${s.name}' offers no tools: ${s.listingError.message}`));
      }
    });
  }
  const log =
    options.accessLog === undefined
      ? undefined
      : openAccessLog({
          target: options.accessLog,
          logArguments: Boolean(options.logArguments),
          stderr: io.stderr,
          notice: (message) => session.notice(message),
        });
  const pages = new Paginator(pageSize);
  const newServer = (client: string): Server =>
    createSessionServer(gateway, {
      client,
      pages,
      ...(capabilities ? { capabilities } : {}),
      ...(instructions ? { instructions } : {}),
      ...(log ? { onRequest: log.record } : {}),
    });
  const drain = async () => {
    // A call waiting for its client's next round cannot end while no new request is taken.
    gateway.rounds.close();
    const until = Date.now() + DRAIN_LIMIT_MS;
    while (gateway.inFlight > 0 && Date.now() < until) await delay(25);
  };
  // One reload at a time: a saved file and a SIGHUP together must not interleave their restarts.
  let reloading = Promise.resolve();
  const reloadNow = () => {
    reloading = reloading.then(() => reload(session, options, gateway));
  };
  const stopHangup = io.onHangup?.(reloadNow);
  const stopWatching = options.server ? () => {} : watchConfig(await session.config(), reloadNow);
  const stopped = new Promise<void>((resolve) => {
    if (io.signal.aborted) resolve();
    io.signal.addEventListener('abort', () => resolve(), { once: true });
  });

  if (options.http) {
    const listener = await startGatewayHttp({
      host: bind,
      port,
      newServer,
      onListChanged: (l) => gateway.onListChanged(l),
      onLog: (l) => gateway.onLog(l),
      subscribe: (uri, onUpdated) => gateway.subscribe(uri, onUpdated),
      toolInputSchema: async (name) =>
        (await gateway.toolRoute(name).catch(() => undefined))?.tool.inputSchema,
      ...(token !== undefined ? { token } : {}),
      ...(options.instanceId !== undefined ? { instanceId: options.instanceId } : {}),
      ...(ssePollMs !== undefined ? { ssePollMs } : {}),
      ...(sessionIdleSeconds !== undefined ? { sessionIdleMs: sessionIdleSeconds * 1000 } : {}),
      allowedOrigins: options.allowedOrigin ?? [],
      allowedHosts: [
        ...(options.allowedHost ?? []),
        ...(isLoopback(bind) || bind === '0.0.0.0' || bind === '::' ? [] : [bind]),
      ],
    });
    session.notice(
      `mcpx serve: listening on ${listener.url} (${served.length} server${served.length === 1 ? '' : 's'})`,
    );
    await stopped;
    stopHangup?.();
    stopWatching();
    await listener.close(drain);
    await log?.close();
    return ExitCode.Ok;
  }

  const live = new LiveSessions();
  const stopListening = gateway.onListChanged((kind) => live.listChanged(kind));
  const stopLogs = gateway.onLog((message) => live.log(message));
  const stdin = io.stdin ?? process.stdin;
  const ended = new Promise<void>((resolve) => stdin.once('end', () => resolve()));
  // Replies finished in one turn of the event loop reach the client in one write (see
  // coalescingWriter; it also takes the SDK's per-message 'drain' listeners off stdout).
  const output = coalescingWriter(io.stdout as NodeJS.WriteStream);
  const handle = serveStdio(
    () => {
      const server = newServer('stdio');
      live.add(server);
      return server;
    },
    {
      transport: new ServingStdioTransport(stdin as NodeJS.ReadStream, output),
      onerror: () => {},
    },
  );
  await Promise.race([stopped, ended]);
  stopHangup?.();
  stopWatching();
  await drain();
  stopListening();
  stopLogs();
  await handle.close();
  // The last replies reach the pipe, unless a client that stopped reading keeps it full.
  await Promise.race([
    new Promise<void>((resolve) => output.end(() => resolve())),
    delay(DRAIN_LIMIT_MS, undefined, { ref: false }),
  ]);
  await log?.close();
  return ExitCode.Ok;
}

/**
 * SIGHUP: read the config again (a fresh session: same discovery, same trust
 * rules) and hand the servers to the host, which restarts only what changed.
 * A config that no longer loads keeps the running set, with a notice.
 */
async function reload(
  session: CliSession,
  options: ServeOptions,
  host: { reload(servers: readonly ServerConfig[]): Promise<ReloadResult> },
): Promise<void> {
  const { CliSession } = await import('../session.js');
  const fresh = new CliSession(session.io, session.options);
  fresh.omitBuiltinWhenConfigured();
  try {
    const { added, removed, restarted } = await host.reload(await servedServers(fresh, options));
    const list = (names: readonly string[]) => (names.length ? names.join(', ') : 'none');
    session.notice(
      `mcpx serve: config reloaded — added ${list(added)}; removed ${list(removed)}; restarted ${list(restarted)}`,
    );
  } catch (error) {
    session.notice(
      `mcpx serve: config not reloaded, still serving the previous one: ${forTerminal(toMcpxError(error).message)}`,
    );
  } finally {
    await fresh.close();
  }
}

/**
 * A config file changed: reload as SIGHUP does. The folders are watched, not the
 * files, since editors save by writing a new file and renaming it over the old
 * one; a burst of events is one reload.
 */
function watchConfig(config: LoadedConfig, onChange: () => void): () => void {
  const byFolder = new Map<string, Set<string>>();
  for (const file of config.files) {
    const names = byFolder.get(dirname(file.path)) ?? new Set<string>();
    names.add(basename(file.path));
    byFolder.set(dirname(file.path), names);
  }
  let timer: NodeJS.Timeout | undefined;
  const watchers = [...byFolder].flatMap(([folder, names]) => {
    try {
      return [
        watch(folder, { persistent: false }, (_event, name) => {
          if (name !== null && !names.has(name.toString())) return;
          clearTimeout(timer);
          timer = setTimeout(onChange, 200);
        }),
      ];
    } catch {
      return []; // a folder that cannot be watched still reloads on SIGHUP
    }
  });
  return () => {
    clearTimeout(timer);
    for (const watcher of watchers) watcher.close();
  };
}

/** The servers to serve: `--server NAME` alone, `--servers a,b`, or every usable one. */
async function servedServers(session: CliSession, options: ServeOptions): Promise<ServerConfig[]> {
  if (options.server && options.servers) throw usageError('--server and --servers: give only one of them');
  if (options.server) return [await session.server(options.server)];
  if (options.servers) return Promise.all(splitList(options.servers).map((name) => session.server(name)));
  const usable = await session.usableServers();
  if (usable.length === 0)
    throw new McpxError(ErrorCode.ConfigNotFound, 'no servers to serve', {
      fixes: ['add servers to your mcpx config (`mcpx config path` shows where it is read from)'],
    });
  return usable;
}

/** An option's value as a whole number above 0, or undefined when not given; otherwise a usage error. */
function positiveWhole(
  option: string,
  value: string | undefined,
  wanted: string,
  example?: string,
): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (Number.isInteger(n) && n > 0) return n;
  throw usageError(
    `${option} takes ${wanted}, got '${forTerminal(value)}'`,
    example && `e.g. ${option} ${example}`,
  );
}

function readToken(options: ServeOptions): string | undefined {
  if (options.token !== undefined && options.tokenFile !== undefined)
    throw usageError('--token and --token-file: give only one of them');
  const token =
    options.tokenFile !== undefined ? readFileSync(options.tokenFile, 'utf8').trim() : options.token;
  if (token !== undefined && token.length < 16)
    throw usageError(
      'the bearer token is too short to be a secret: use at least 16 characters',
      'e.g. --token "$(openssl rand -hex 32)"',
    );
  return token;
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || (isIP(host) === 4 && host.startsWith('127.'));
}

function splitList(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}
