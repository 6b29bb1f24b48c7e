/**
 * A running gateway over a host: what `mcpx serve` is once its flags are read,
 * and what a library program gets from `createHost` + `createGateway`.
 */

import { setTimeout as delay } from 'node:timers/promises';
import type { Server, ServerCapabilities } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import type { AuditTrail } from '../audit/index.js';
import { APPS_EXTENSION } from '../client/index.js';
import type { ServerConfig } from '../config/index.js';
import { ErrorCode, McpxError, toMcpxError } from '../errors/index.js';
import type { ServingMetrics } from '../metrics/index.js';
import type { PermissionGuard } from '../permissions/index.js';
import type { ServerRegistry } from '../registry/index.js';
import { coalescingWriter, ServingStdioTransport } from '../transport/index.js';
import { openCatalogueMemory } from './catalogue-memory.js';
import { GatewayCore, type ReloadResult } from './core.js';
import { FastPath } from './fast-path.js';
import { fleetConsents } from './fleet/fleet-consent.js';
import { type FanoutSource, notFannedOut, startFanout } from './fleet/fleet-fanout.js';
import { type GatewayWiring, wire } from './gateway-wiring.js';
import { type GatewayHttpOptions, type ServerPurpose, startGatewayHttp } from './http/listener.js';
import { Paginator } from './paginate.js';
import { recordingRequests } from './request-metrics.js';
import {
  createSessionServer,
  type RequestEvent,
  sessionServerInfo,
  sessionToolCall,
} from './session-server.js';
import { LiveSessions } from './sessions.js';
import { watchConfigFiles } from './watch-config.js';

/** Which servers may be served and how they may be used: `Host` is one. */
export interface GatewayBase {
  /** The config files, watched with `watchConfig`. */
  config(): Promise<{ readonly files: readonly { readonly path: string }[] }>;
  /** Every usable server (enabled, and trusted or approved). */
  servers(): Promise<ServerConfig[]>;
  /** One usable server, or an error that says why it cannot be used. */
  server(name: string): Promise<ServerConfig>;
  /** The registry the served servers run in. */
  registry(): Promise<ServerRegistry>;
  /** The permission guard every call passes (its approver should be `gatewayApprover()`). */
  guard(): Promise<PermissionGuard>;
  /** Where each client's tool call is recorded (`Host.audit()`); absent, they are not. */
  audit?(): AuditTrail;
  /** The same base reading its config afresh, for a reload; closed once read. */
  fresh(): Pick<GatewayBase, 'servers' | 'server'> & { close(): Promise<void> };
  /**
   * The mcpx home (`Host.home`): each served server's tool list is remembered there
   * (`catalogues/`), so a client's first list is whole while servers still start (see
   * `GatewayOptions.listWaitMs`). Without it nothing is remembered.
   */
  readonly home?: string;
}

/** Something a running gateway tells its front end (which words it in its own voice). */
export type GatewayEvent =
  /** A served server could not start; the gateway serves the others. */
  | { readonly type: 'unavailable'; readonly server: string; readonly error: McpxError }
  /** A served server started but its tools could not be listed. */
  | { readonly type: 'no-tools'; readonly server: string; readonly error: McpxError }
  | { readonly type: 'reloaded'; readonly result: ReloadResult }
  /** A reload failed (a config that no longer loads): the previous servers are still served. */
  | { readonly type: 'not-reloaded'; readonly error: McpxError }
  /** A remembered tool list could not be read or written safely (a planted link, a full disk): it is not used. */
  | { readonly type: 'catalogue-unusable'; readonly error: McpxError }
  /** The fleet's shared store failed where it was needed (a consent answer not read, or not shared). */
  | { readonly type: 'fleet-store'; readonly error: McpxError }
  /** An HTTP+SSE session ended because its client left more than `limit` bytes unread on its stream. */
  | {
      readonly type: 'sse-overflow';
      readonly sessionId: string;
      readonly buffered: number;
      readonly limit: number;
    };

/** Where the gateway listens: Streamable HTTP, minus what the gateway wires itself. */
export type GatewayHttpListen = Omit<
  GatewayHttpOptions,
  | 'newServer'
  | 'onListChanged'
  | 'onLog'
  | 'subscribe'
  | 'toolInputSchema'
  | 'metrics'
  | 'ready'
  | 'onSessionEnded'
>;

/**
 * What a session server is for: a 2025-11-25 session over HTTP, one 2026-07-28 request, the
 * shared handler of the fast path's requests that have no session, or the one stdio client.
 */
type ServerFor = ServerPurpose | 'sessionless' | 'stdio';

export interface GatewayOptions {
  /**
   * The wiring the base's host was made with (`gatewayWiring()`): the servers'
   * questions and logs then reach the gateway's clients. Without it they do not.
   */
  readonly wiring?: GatewayWiring;
  /** Streamable HTTP; else `stdio`. */
  readonly http?: GatewayHttpListen;
  /** One client on these streams; `closed` resolves when `stdin` ends. */
  readonly stdio?: { readonly stdin: NodeJS.ReadableStream; readonly stdout: NodeJS.WritableStream };
  /** Re-serve this one server unchanged: no prefixes, its own capabilities and instructions. */
  readonly transparent?: string;
  /** Serve only these servers; default every one of `base.servers()`. */
  readonly servers?: readonly string[];
  /**
   * Offer only the servers' skills, as the gateway's own `mcpx__load_skill` / `mcpx__read_skill_file`
   * (`skill-tools.ts`): no upstream tool, resource or prompt. For a client that is handed the servers
   * themselves too (`mcpx exec`), which would otherwise see each server twice.
   */
  readonly skillsOnly?: boolean;
  readonly pageSize?: number;
  /**
   * How long a list request waits for servers still starting (default: for every one). With
   * it, a server still starting whose tool list is remembered from an earlier run (`base.home`)
   * is listed at once with it instead, and its call waits for it.
   */
  readonly listWaitMs?: number;
  /** The key sealing 2026-07-28 request states, shared by every instance behind a load balancer. */
  readonly stateKey?: Uint8Array;
  /** Each request a client made, once answered (an access log; `tools/call` is also the audit trail's). */
  readonly onRequest?: (event: RequestEvent) => void;
  /**
   * Where requests, upstream calls, connections, sessions and restarts are counted
   * (`createMetrics()` of `src/metrics/`); over HTTP they are also served on `GET /metrics`.
   */
  readonly metrics?: ServingMetrics;
  /** Reload when a config file changes, as `reload()` does. */
  readonly watchConfig?: boolean;
  /** How long `close()` waits for calls in flight. Default 30 s. */
  readonly drainMs?: number;
  /**
   * Over HTTP, how long `/readyz` waits for the served servers' first connection and listing
   * before it answers ready anyway (a server that never starts must not keep the instance out
   * of its balancer). Default 30 s.
   */
  readonly readyWaitMs?: number;
  /**
   * A client's plain `tools/call` skips the SDK server's dispatch (and over HTTP the web
   * Request/Response conversions and, for 2026-07-28, the per-request server), and its
   * upstream hop the SDK client where a line relay serves (`gateway/fast-path.ts`): the
   * same handler, the same answers, for less. Default true; false sends every request the full way.
   */
  readonly fastPath?: boolean;
  readonly on?: (event: GatewayEvent) => void;
}

export interface Gateway {
  /** `http://HOST:PORT/mcp` with `http`. */
  readonly url: string | undefined;
  /** How many calls took the fast path so far (see `GatewayOptions.fastPath`). */
  readonly fastCalls: number;
  /** The names served now. */
  readonly servers: readonly string[];
  /** Resolves when the gateway stops: its stdio client left, or `close()` finished. */
  readonly closed: Promise<void>;
  /** Read the config again (`base.fresh()`) and serve what it says; one reload at a time. */
  reload(): Promise<void>;
  /** Take no new requests, let the calls in flight finish (up to `drainMs`), then stop. */
  close(): Promise<void>;
}

const DEFAULT_DRAIN_MS = 30_000;
const DEFAULT_READY_WAIT_MS = 30_000;

/**
 * Serve `base`'s servers as one MCP server until `close()`. The base keeps its
 * servers: closing the gateway leaves them to the base's own `close()`.
 *
 * Long because it is the gateway's composition root: each step (host, sessions, listener, shutdown)
 * uses the ones before.
 *
 * @example
 * const wiring = gatewayWiring();
 * const host = createHost({ ...wiring, permission: 'yolo' });
 * const gateway = await createGateway(host, { wiring, http: { port: 0 } });
 */
export async function createGateway(base: GatewayBase, options: GatewayOptions): Promise<Gateway> {
  if (!options.http === !options.stdio)
    throw new McpxError(ErrorCode.Usage, 'a gateway listens on one of HTTP and stdio', {
      fixes: ['give createGateway `http` (e.g. { port: 0 }) or `stdio` ({ stdin, stdout }), not both'],
    });
  if (options.skillsOnly && options.transparent)
    throw new McpxError(
      ErrorCode.Usage,
      'a transparent bridge re-serves its server unchanged: it has no skills-only mode',
      {
        fixes: ['give either `transparent` (--server) or `skillsOnly` (--skills-only)'],
      },
    );
  const served = await servedServers(base, options);
  const [registry, guard] = await Promise.all([base.registry(), base.guard()]);
  const emit = (event: GatewayEvent) => options.on?.(event);
  const catalogues =
    base.home === undefined
      ? undefined
      : openCatalogueMemory(base.home, { onError: (error) => emit({ type: 'catalogue-unusable', error }) });
  const fleet = options.http?.fleet;
  // A fleet's clients' and sessions' consent is shared through its store; its failures told as events.
  const consents =
    fleet && fleetConsents(fleet, options.stateKey, (error) => emit({ type: 'fleet-store', error }));
  const core = new GatewayCore({
    registry,
    servers: served,
    guard,
    ...(options.transparent ? { transparent: options.transparent } : {}),
    ...(options.stateKey ? { stateKey: options.stateKey } : {}),
    ...(options.listWaitMs !== undefined ? { listWaitMs: options.listWaitMs } : {}),
    ...(base.audit ? { audit: base.audit() } : {}),
    ...(options.metrics ? { metrics: options.metrics } : {}),
    ...(catalogues ? { catalogues } : {}),
    ...(consents ? { consents } : {}),
  });
  if (options.wiring) wire(options.wiring, core);

  // Ready (`/readyz`) once the first connection and listing of every served server is done, or
  // timed out; a transparent bridge connects its one server before it listens.
  const readiness = firstListing(options.readyWaitMs ?? DEFAULT_READY_WAIT_MS);
  // Transparent: the one server's own capabilities and instructions, so the bridge is invisible.
  let transparent: { capabilities: ServerCapabilities; instructions?: string } | undefined;
  if (options.transparent) {
    const connection = await registry.connect(options.transparent);
    const { tools, resources, prompts, completions, logging, extensions } =
      connection.capabilities as ServerCapabilities;
    // Its MCP Apps pass unchanged, so the extension it declares is declared as it is.
    const apps = extensions?.[APPS_EXTENSION];
    transparent = {
      capabilities: {
        tools,
        resources,
        prompts,
        completions,
        logging,
        ...(apps ? { extensions: { [APPS_EXTENSION]: apps } } : {}),
      },
      ...(connection.instructions ? { instructions: connection.instructions } : {}),
    };
  } else {
    // Connected at start, only the served ones: the first client's tools/list finds what is
    // ready (the rest are announced as they come, or stand in with their remembered lists,
    // read first), and a server that cannot start is reported now, not in the middle of a
    // client's session.
    await core.recalled;
    const names = new Set(served.map((s) => s.name));
    void registry.connectAll({ only: [...names] }).then((statuses) => {
      readiness.done();
      for (const s of statuses) {
        if (!names.has(s.name)) continue;
        if (s.state === 'error' && s.error) emit({ type: 'unavailable', server: s.name, error: s.error });
        else if (s.listingError) emit({ type: 'no-tools', server: s.name, error: s.listingError });
      }
    });
  }

  // A fleet's list changes and resource updates reach every instance's listeners.
  const fanout =
    fleet &&
    startFanout(fleet, core, (cause) => emit({ type: 'fleet-store', error: notFannedOut(fleet, cause) }));
  const pages = new Paginator(options.pageSize);
  const onRequest = recordingRequests(options.metrics, options.onRequest);
  const newServer = (client: string, purpose: ServerFor): Server =>
    createSessionServer(core, {
      client,
      pages,
      // A 2025-11-25 session's person's answers outlive the instance that asked (a failover).
      ...(consents && purpose === 'session'
        ? { keptConsent: (credentials: string) => consents.ofSession(client, credentials) }
        : {}),
      ...transparent,
      ...(options.skillsOnly ? { skillsOnly: true } : {}),
      ...(onRequest ? { onRequest } : {}),
      ...(fanout ? { subscribe: fanout.subscribe } : {}),
    });
  const drainMs = options.drainMs ?? DEFAULT_DRAIN_MS;
  const drain = async () => {
    // A call waiting for its client's next round cannot end while no new request is taken.
    core.rounds.close();
    const until = Date.now() + drainMs;
    while (core.inFlight > 0 && Date.now() < until) await delay(25);
  };

  let reloading = Promise.resolve();
  const reload = () => {
    reloading = reloading.then(async () => {
      const fresh = base.fresh();
      try {
        emit({ type: 'reloaded', result: await core.reload(await servedServers(fresh, options)) });
      } catch (error) {
        emit({ type: 'not-reloaded', error: toMcpxError(error) });
      } finally {
        await fresh.close();
      }
    });
    return reloading;
  };
  const stopWatching =
    options.watchConfig && !options.transparent
      ? watchConfigFiles(
          (await base.config()).files.map((f) => f.path),
          () => void reload(),
        )
      : () => {};

  if (options.transparent) readiness.done();
  const listening = options.http
    ? await listenHttp(
        fanout ?? core,
        core,
        {
          ...options.http,
          ready: readiness.ready,
          ...(options.http.legacySse
            ? {
                legacySse: {
                  ...options.http.legacySse,
                  onOverflow: (overflow) => emit({ type: 'sse-overflow', ...overflow }),
                },
              }
            : {}),
          // A session's DELETE ends its person's answers in the store with it.
          ...(consents ? { onSessionEnded: (id, credentials) => consents.endSession(id, credentials) } : {}),
        },
        newServer,
        options.metrics,
        options.fastPath !== false,
      )
    : listenStdio(core, options, newServer, drainMs);
  const stopMetrics = measure(core, listening, options.metrics);
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      stopWatching();
      readiness.done();
      await listening.close(drain);
      stopMetrics();
      core.dispose();
      fanout?.close();
    })();
    return closing;
  };
  return {
    url: listening.url,
    get fastCalls() {
      return listening.fastCalls();
    },
    get servers() {
      return core.servers;
    },
    closed: Promise.race([listening.ended, listening.stopped]),
    reload,
    close,
  };
}

/** Whether the first listing is done (`done()`), or `waitMs` passed since this was made. */
function firstListing(waitMs: number): { ready(): boolean; done(): void } {
  let ready = false;
  const timer = setTimeout(() => {
    ready = true;
  }, waitMs);
  timer.unref();
  return {
    ready: () => ready,
    done: () => {
      ready = true;
      clearTimeout(timer);
    },
  };
}

/** Report the served servers' connections, the sessions and the restarts to `metrics` until the returned function. */
function measure(core: GatewayCore, listening: Listening, metrics: ServingMetrics | undefined): () => void {
  if (!metrics) return () => {};
  const stopRestarts = metrics.watchRestarts(core.registry);
  const stopObserving = metrics.observe({
    connections: () =>
      core.servers.flatMap((server) => {
        // A server between a reload's stop and its start is in neither state: left out of this reading.
        try {
          return [{ server, state: core.registry.status(server).state }];
        } catch {
          return [];
        }
      }),
    sessions: () => [{ count: listening.sessions() }],
  });
  return () => {
    stopRestarts();
    stopObserving();
  };
}

interface Listening {
  readonly url: string | undefined;
  /** Downstream sessions open now. */
  sessions(): number;
  /** The client went away on its own (stdio's stdin ended); never, on HTTP. */
  readonly ended: Promise<void>;
  /** `close()` finished. */
  readonly stopped: Promise<void>;
  fastCalls(): number;
  close(drain: () => Promise<void>): Promise<void>;
}

async function listenHttp(
  changes: FanoutSource,
  core: GatewayCore,
  http: GatewayHttpListen & Pick<GatewayHttpOptions, 'ready' | 'onSessionEnded'>,
  newServer: (client: string, purpose: ServerFor) => Server,
  metrics: ServingMetrics | undefined,
  fastPath: boolean,
): Promise<Listening> {
  // Requests without a session share one handler (its server never connects): each call is
  // told its own client, as a fresh server per request would be.
  const sessionless = fastPath ? sessionToolCall(newServer('sessionless', 'sessionless')) : undefined;
  const listener = await startGatewayHttp({
    ...http,
    newServer,
    ...(sessionless ? { fastPath: { toolCall: sessionless, serverInfo: sessionServerInfo(core) } } : {}),
    ...(metrics ? { metrics: () => metrics.prometheus() } : {}),
    onListChanged: (l) => changes.onListChanged(l),
    onLog: (l, audience) => core.onLog(l, audience),
    subscribe: (uri, onUpdated) => changes.subscribe(uri, onUpdated),
    // A tool listed now is found without waiting a turn (asked on every 2026-07-28 call).
    toolInputSchema: async (name) =>
      (core.knownTool(name) ?? (await core.toolRoute(name).catch(() => undefined)))?.tool.inputSchema,
  });
  const stopped = settled();
  return {
    url: listener.url,
    sessions: () => listener.sessions + listener.sseSessions,
    fastCalls: () => listener.fastCalls,
    ended: new Promise(() => {}),
    stopped: stopped.promise,
    close: async (drain) => {
      await listener.close(drain);
      stopped.resolve();
    },
  };
}

function listenStdio(
  core: GatewayCore,
  options: GatewayOptions,
  newServer: (client: string, purpose: ServerFor) => Server,
  drainMs: number,
): Listening {
  const { stdin, stdout } = options.stdio as NonNullable<GatewayOptions['stdio']>;
  const live = new LiveSessions();
  const stopListening = core.onListChanged((kind) => live.listChanged(kind));
  const stopLogs = core.onLog((message) => live.log(message));
  const ended = new Promise<void>((resolve) => stdin.once('end', () => resolve()));
  // Replies finished in one turn of the event loop reach the client in one write (see
  // coalescingWriter); replies behind a full pipe share one wait for it (ServingStdioTransport).
  const output = coalescingWriter(stdout as NodeJS.WriteStream);
  const transport = new ServingStdioTransport(stdin as NodeJS.ReadStream, output);
  let session: Server | undefined;
  const fast =
    options.fastPath === false
      ? undefined
      : new FastPath({ core, server: () => session, send: (m) => transport.send(m) });
  if (fast) {
    transport.intercept = (message) => fast.take(message);
    // As the SDK server aborts its handlers when the client leaves.
    void ended.then(() => fast.close());
  }
  const handle = serveStdio(
    () => {
      const server = newServer('stdio', 'stdio');
      session = server;
      live.add(server);
      return server;
    },
    { transport, onerror: () => {} },
  );
  const stopped = settled();
  let open = true;
  void ended.then(() => {
    open = false;
  });
  return {
    url: undefined,
    // One client on stdio, until its stdin ends.
    sessions: () => (open ? 1 : 0),
    fastCalls: () => fast?.taken ?? 0,
    ended,
    stopped: stopped.promise,
    close: async (drain) => {
      await drain();
      stopListening();
      stopLogs();
      await handle.close();
      fast?.close();
      // The last replies reach the pipe, unless a client that stopped reading keeps it full.
      await Promise.race([
        new Promise<void>((resolve) => output.end(() => resolve())),
        delay(drainMs, undefined, { ref: false }),
      ]);
      stopped.resolve();
    },
  };
}

/** The servers to serve: the transparent one alone, the named ones, or every usable one. */
export async function servedServers(
  base: Pick<GatewayBase, 'servers' | 'server'>,
  options: Pick<GatewayOptions, 'transparent' | 'servers'>,
): Promise<ServerConfig[]> {
  if (options.transparent) return [await base.server(options.transparent)];
  if (options.servers) return Promise.all(options.servers.map((name) => base.server(name)));
  const usable = await base.servers();
  if (usable.length === 0)
    throw new McpxError(ErrorCode.ConfigNotFound, 'no servers to serve', {
      fixes: ['add servers to your mcpx config (`mcpx config path` shows where it is read from)'],
    });
  return usable;
}

function settled(): { promise: Promise<void>; resolve: () => void } {
  let resolve: () => void = () => {};
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}
