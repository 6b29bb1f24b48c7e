import { performance } from 'node:perf_hooks';
import {
  CLIENT_CAPABILITIES_META_KEY,
  type Client,
  type ClientCapabilities,
  type ClientOptions,
  type ElicitResult,
  LOG_LEVEL_META_KEY,
  type LoggingLevel,
  type PriorDiscovery,
  type RequestOptions,
  SdkError,
  SdkErrorCode,
  type Tool,
  type Transport,
} from '@modelcontextprotocol/client';
import { context, type Tracer, trace } from '@opentelemetry/api';
import { assertApproved, type ServerConfig } from '../config/index.js';
import { ErrorCode, McpxError } from '../errors/index.js';
import {
  ATTR_MCP_PROTOCOL_VERSION,
  ATTR_MCPX_ERA,
  ATTR_MCPX_SERVER,
  mcpxTracer,
  recordFailure,
} from '../tracing/index.js';
import {
  linkSignal,
  MODERN_REVISION,
  outsideSdkScope,
  type SdkDiagnostic,
  StdioTransport,
  withSdkDiagnostics,
} from '../transport/index.js';
import { DEFAULT_CONNECT_TIMEOUT_MS, DEFAULT_REQUEST_TIMEOUT_MS } from './connect.js';
import { ERA_RECHECK_MS, type EraCache } from './era-cache.js';
import {
  applyFormDefaults,
  type ClientFeatures,
  capabilitiesFor,
  capSampling,
  checkFormSchema,
  urlElicitationProblem,
} from './features.js';
import { DEFAULT_LIST_LIMITS, ListWalk, withListWalk } from './list-bounds.js';
import { keepListening } from './list-subscription.js';
import { locate } from './locate.js';
import { type ProbeWitness, witnessEraProbe } from './probe-witness.js';
import { RelayedCalls } from './relayed-call.js';
import { acceptResultsWithoutResultType } from './result-type.js';
import { SdkClient } from './sdk-client.js';
import { ResourceSubscriptions } from './subscriptions.js';
import { callToolAsTask, requiresTask, serverRunsToolTasks } from './tasks.js';
import { traceRequests } from './trace-requests.js';
import { translateRequestError } from './translate-error.js';
import type { ProtocolEra, RequestControl, ServerConnection, ServerLogEvent } from './types.js';

/** A transport that can also say why it closed (our stdio transport does). */
export interface ManagedTransport extends Transport {
  closeReason?(): McpxError | undefined;
  stderrTail?(): readonly string[];
  /** The transport's own account of a failure the SDK reports in its words (HTTP status, broken stream). */
  failureFor?(error: unknown): McpxError | undefined;
  /** The connect starts, with this budget: retries of a busy server must fit in it (HTTP). */
  beginConnect?(budgetMs: number): void;
  /**
   * Work before the handshake with a budget of its own — a package runner's
   * first install (stdio). Its time does not count against the connect
   * timeout; it resolves with extra time a first start may take on top.
   */
  prepare?(signal?: AbortSignal): Promise<number>;
  /**
   * A transport that relays a connection held elsewhere (the daemon's socket, which itself
   * speaks 2025-11-25) names the version that connection negotiated with the server.
   */
  readonly relayedProtocolVersion?: string;
}

export interface ConnectServerOptions {
  /** Builds a fresh transport; called again when a connect has to be retried. */
  readonly createTransport: () => ManagedTransport | Promise<ManagedTransport>;
  readonly connectTimeoutMs?: number;
  readonly requestTimeoutMs?: number;
  readonly eraCache?: EraCache;
  readonly onLog?: (event: ServerLogEvent) => void;
  /** The server said its tools, resources or prompts changed (either era). */
  readonly onListChanged?: (kind: ListKind) => void;
  readonly clientInfo?: { name: string; version: string };
  /** Cancels the connect attempt. */
  readonly signal?: AbortSignal;
  /** Roots, sampling and elicitation handlers; each capability is declared only when its handler exists. */
  readonly features?: ClientFeatures;
  /**
   * What the SDK would have printed with `console.*` while working for this server (it may
   * quote the server: sanitize before showing). Without a handler it is dropped: the library
   * never prints. See `sdk-diagnostics.ts`.
   */
  readonly onSdkDiagnostic?: (diagnostic: SdkDiagnostic) => void;
  /** Spans for the handshake and every request (default: the global API's, a no-op until a provider is registered). */
  readonly tracer?: Tracer;
}

// The server/discover probe only decides the era; a stdio legacy server that
// ignores it must not cost the whole connect budget on every start. After this
// the 2025 `initialize` is sent on the same pipe, and the slow server answers
// whichever it reads.
export const ERA_PROBE_TIMEOUT_MS = 2_000;

// How long a command's end waits for a background era recheck still asking (once an hour per
// legacy server at most): enough for a server that is starting to answer, little for a person.
const ERA_RECHECK_GRACE_MS = 1_000;

// The SDK's own cap, a step behind ours (list-bounds.ts), which says more.
const LIST_MAX_PAGES = DEFAULT_LIST_LIMITS.maxPages + 1;

export type ListKind = 'tools' | 'resources' | 'prompts';

/**
 * Connect to one server: spawn or dial through `createTransport`, negotiate
 * the protocol era (remembered in `eraCache` so later starts skip the probe),
 * and return a ServerConnection. Fails with ConnectTimeout, or with the
 * transport's own reason (command not found, crashed with its stderr tail).
 *
 * Everything — the probe, the 2025 fallback, a second start after a stale
 * remembered verdict or a probe that killed the server — shares one budget:
 * the server's `connect_timeout` (or `connectTimeoutMs`), 30 s by default.
 */
export async function connectServer(
  server: ServerConfig,
  options: ConnectServerOptions,
): Promise<ServerConnection> {
  assertApproved(server);
  const budget = connectBudget(
    server.connectTimeoutMs ?? options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
  );
  const prior = server.protocol === 'auto' ? options.eraCache?.get(eraCacheKey(server)) : undefined;
  if (!prior) return negotiate(server, options, budget);
  const recheckDue = prior.kind === 'legacy' && isRecheckDue(server, options.eraCache);
  // A remote server answers the probe at once (a 2025 one with an HTTP status): ask it now.
  if (recheckDue && server.transport !== 'stdio') return negotiate(server, options, budget);
  // The recheck asks for its transport first: the first one, spawned early, has a head start
  // that lets it finish while the command works, and the command loses only that head start.
  if (recheckDue) options.eraCache?.markChecked?.(eraCacheKey(server));
  const recheck = recheckDue ? recheckInBackground(server, options, budget.totalMs) : undefined;
  const connecting = attemptConnect(server, options, prior, budget);
  try {
    const connection = await connecting;
    if (recheck) connection.addCompanion(recheck.stop);
    return connection;
  } catch (error) {
    await recheck?.stop();
    if (!(error instanceof McpxError) || error.code === ErrorCode.Cancelled) throw error;
    // A refused token says nothing about the era; a second start would only meet the refusal again
    // (without the sign-in the first one could have offered: a failed refresh drops the token).
    if (error.code === ErrorCode.AuthRequired) throw error;
    // A remembered verdict went stale (the server was upgraded or replaced): forget it and negotiate afresh.
    options.eraCache?.delete(eraCacheKey(server));
    if (budget.remainingMs() <= 0) throw error;
    return negotiate(server, options, budget);
  }
}

/** A legacy verdict not asked about for long enough (reached or last re-checked an hour ago). */
function isRecheckDue(server: ServerConfig, eraCache: EraCache | undefined): boolean {
  const seen = eraCache?.lastSeen?.(eraCacheKey(server));
  return seen?.kind === 'legacy' && seen.checkedMsAgo >= ERA_RECHECK_MS;
}

/**
 * Asks a server remembered as legacy again, on a second start of it beside the
 * connection that uses the verdict (as the SDK probes its own stdio servers on a
 * disposable sibling): the command is not delayed, and a server upgraded to
 * 2026-07-28, or once misjudged, is corrected for the next one. What the probe
 * witnesses is remembered as on any connect, the legacy verdict re-dated when the
 * server confirms it. `stop` ends it (the connection's close awaits that), so no
 * process outlives the command: a recheck still asking gets `ERA_RECHECK_GRACE_MS`
 * more, then is cut short, leaving the verdict as it was for the next command.
 */
function recheckInBackground(
  server: ServerConfig,
  options: ConnectServerOptions,
  budgetMs: number,
): { stop: () => Promise<void> } {
  const abort = new AbortController();
  let transport: ManagedTransport | undefined;
  const quiet: ConnectServerOptions = {
    createTransport: async () => {
      transport = await options.createTransport();
      return transport;
    },
    signal: abort.signal,
    ...(options.eraCache ? { eraCache: options.eraCache } : {}),
    ...(options.clientInfo ? { clientInfo: options.clientInfo } : {}),
  };
  const done = attemptConnect(server, quiet, undefined, connectBudget(budgetMs), true)
    .then((connection) => connection.close())
    .then(() => options.eraCache?.flush())
    .catch(() => {});
  return {
    stop: async () => {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        done,
        new Promise((resolve) => (timer = setTimeout(resolve, ERA_RECHECK_GRACE_MS))),
      ]);
      clearTimeout(timer);
      abort.abort();
      await transport?.close().catch(() => {});
      await done;
    },
  };
}

/** Connect with era negotiation, nothing remembered. */
async function negotiate(
  server: ServerConfig,
  options: ConnectServerOptions,
  budget: ConnectBudget,
): Promise<SdkServerConnection> {
  try {
    return await attemptConnect(server, options, undefined, budget);
  } catch (error) {
    if (!(error instanceof McpxError) || server.protocol !== 'auto') throw error;
    if (!isProbeCasualty(error) || budget.remainingMs() <= 0) throw error;
    // Some legacy servers exit on any request before `initialize`; the probe
    // killed this one, so start it again and speak the 2025 handshake.
    const connection = await attemptConnect(server, options, { kind: 'legacy' }, budget);
    options.eraCache?.set(eraCacheKey(server), { kind: 'legacy' });
    return connection;
  }
}

/** The one deadline every step of a connect shares. */
interface ConnectBudget {
  readonly totalMs: number;
  remainingMs(): number;
  /** Time that does not count against the deadline (a package runner's install, which has a budget of its own). */
  credit(ms: number): void;
}

function connectBudget(totalMs: number): ConnectBudget {
  let startedAt = performance.now();
  return {
    totalMs,
    remainingMs: () => Math.max(0, totalMs - (performance.now() - startedAt)),
    credit: (ms) => {
      startedAt += ms;
    },
  };
}

/** The transport's own preparation (see ManagedTransport.prepare), kept out of the connect budget. */
async function prepareTransport(
  transport: ManagedTransport,
  budget: ConnectBudget,
  firstStart: boolean,
  server: ServerConfig,
  signal: AbortSignal | undefined,
): Promise<void> {
  if (!transport.prepare) return;
  const began = performance.now();
  let extraMs: number;
  try {
    extraMs = await transport.prepare(signal);
  } catch (error) {
    await transport.close().catch(() => {});
    throw error instanceof McpxError ? locate(error, server) : error;
  }
  budget.credit(performance.now() - began + (firstStart ? extraMs : 0));
}

function eraCacheKey(server: ServerConfig): string {
  return `${server.name}\u0000${server.fingerprint}`;
}

/** Why a handshake may time out, and what to do, for this kind of server. */
function handshakeTimeoutAdvice(server: ServerConfig): { causes: string[]; fixes: string[] } {
  const raise = 'raise connect_timeout (seconds) for this server in the config, or pass --timeout SECONDS';
  if (server.url) {
    return {
      causes: [
        'the server is slow to answer, or overloaded',
        'the URL is not an MCP endpoint that answers POST',
        'a proxy or firewall accepts the connection but never answers',
      ],
      fixes: [raise, `check that ${server.url} is the server's MCP endpoint`],
    };
  }
  const launcher = /(^|[\\/])(npx|uvx|bunx|pnpx|pnpm|yarn|pipx)(\.cmd|\.exe)?$/i.test(server.command ?? '');
  return {
    causes: [
      launcher
        ? `the server is still starting (${server.command} downloading a package can take a while on its first run)`
        : 'the server is still starting',
      'the command is not an MCP server, or waits for input of its own',
    ],
    fixes: [raise, 'run the command by hand to see what it prints'],
  };
}

/**
 * How long the `server/discover` probe may wait. The SDK falls back to
 * `initialize` after a probe timeout only on what it recognises as stdio (a
 * transport with `stderr` and `pid`); elsewhere a probe timeout is fatal (and
 * a 2025 HTTP server answers the probe at once, with 400), so a slow or busy
 * remote server gets the whole remaining budget to give its first answer.
 * A stdio server last seen speaking 2026-07-28 is not a silent legacy server
 * when it is slow (a busy machine, a cold start): its probe may wait half the
 * budget, the other half left for the fallback should it have been replaced.
 */
function probeTimeoutMs(transport: Transport, remainingMs: number, spokeModern: boolean): number {
  const stdio = 'stderr' in transport && 'pid' in transport;
  if (!stdio) return remainingMs;
  return Math.min(
    remainingMs,
    spokeModern ? Math.max(ERA_PROBE_TIMEOUT_MS, remainingMs / 2) : ERA_PROBE_TIMEOUT_MS,
  );
}

/**
 * Remembers the era a connect reached, when the server gave it (see
 * `probe-witness.ts`): a probe that timed out is no verdict, and a late
 * 2026-07-28 answer to it is remembered as what it is. `restamp` re-dates a
 * legacy verdict the server confirmed (a background recheck).
 */
function rememberEra(
  cache: EraCache,
  key: string,
  client: Client,
  witness: ProbeWitness | undefined,
  restamp: boolean,
): void {
  const discover = client.getDiscoverResult();
  if (client.getProtocolEra?.() === 'modern' && discover) {
    cache.set(key, { kind: 'modern', discover });
    return;
  }
  const outcome = witness?.outcome(true) ?? 'none';
  // A remembered or configured era was used: nothing learnt (and a recheck beside this
  // connection may have learnt better meanwhile).
  if (outcome === 'none') return;
  if (outcome === 'late-modern') {
    const late = witness?.lateDiscover;
    if (late) cache.set(key, { kind: 'modern', discover: late });
    else cache.delete(key);
    return;
  }
  if (restamp) cache.delete(key);
  cache.set(key, { kind: 'legacy' });
}

/** The SDK subscribes per era (notifications, or `subscriptions/listen` on 2026-07-28); we only need the signal. */
function listChangedHandlers(notify: (kind: ListKind) => void): NonNullable<ClientOptions['listChanged']> {
  const handler = (kind: ListKind) => ({
    autoRefresh: false,
    // No debounce: a call made right after a change must be able to wait for the new definitions
    // (the registry folds bursts into one re-listing).
    debounceMs: 0,
    onChanged: () => notify(kind),
  });
  return { tools: handler('tools'), resources: handler('resources'), prompts: handler('prompts') };
}

/**
 * The server went away during the era probe, and the probe may be what made
 * it exit: some SDKs end the process on any request before `initialize`.
 * Never when it exited before mcpx's first message reached it, and never when
 * its last words name another reason: a server that crashes at start ("API
 * key missing") is reported, not started a second time. A probe casualty
 * either says nothing or complains about the handshake or the method.
 */
function isProbeCasualty(error: McpxError): boolean {
  if (error.context.exitedBeforeInput === true) return false;
  if (error.code !== ErrorCode.ServerCrashed && error.code !== ErrorCode.ConnectionClosed) return false;
  const stderr = error.context.stderrTail ?? [];
  return stderr.length === 0 || stderr.some((line) => PROBE_COMPLAINT.test(line));
}

// What servers built on strict SDKs print when the first request is not `initialize`.
const PROBE_COMPLAINT =
  /initiali[sz]|server\/discover|unknown method|method not found|unexpected (request|message)|not (yet )?connected/i;

async function attemptConnect(
  server: ServerConfig,
  options: ConnectServerOptions,
  prior: PriorDiscovery | undefined,
  budget: ConnectBudget,
  restamp = false,
): Promise<SdkServerConnection> {
  const connectTimeoutMs = budget.totalMs;
  const tracer = options.tracer ?? mcpxTracer();
  const transport = await options.createTransport();
  let client: SdkClient | undefined;
  traceRequests(transport, {
    tracer,
    server: server.name,
    wire: server.transport === 'stdio' || transport.relayedProtocolVersion ? 'stdio' : 'http',
    protocolVersion: () => transport.relayedProtocolVersion ?? client?.getNegotiatedProtocolVersion(),
  });
  // A remembered verdict means the server has started before: a runner has nothing left to install.
  await prepareTransport(transport, budget, prior === undefined, server, options.signal);
  const remainingMs = Math.max(1, budget.remainingMs());
  const negotiating = server.protocol === 'auto' && prior === undefined;
  const witness = negotiating ? witnessEraProbe(transport, MODERN_REVISION) : undefined;
  const spokeModern = negotiating && options.eraCache?.lastSeen?.(eraCacheKey(server))?.kind === 'modern';
  const clientOptions: ClientOptions = {
    capabilities: capabilitiesFor(options.features),
    listMaxPages: LIST_MAX_PAGES,
    versionNegotiation:
      server.protocol === 'legacy'
        ? { mode: 'legacy' }
        : server.protocol === 'modern'
          ? { mode: { pin: MODERN_REVISION } }
          : { mode: 'auto', probe: { timeoutMs: probeTimeoutMs(transport, remainingMs, spokeModern) } },
    ...(options.onListChanged
      ? { listChanged: listChangedHandlers(outsideSdkScope(options.onListChanged)) }
      : {}),
  };
  client = new SdkClient(options.clientInfo ?? { name: 'mcpx', version: '0.1.0' }, clientOptions);
  const unsubscribeRoots = registerFeatureHandlers(client, options.features);
  if (options.onLog) {
    const onLog = outsideSdkScope(options.onLog);
    client.setNotificationHandler('notifications/message', (notification) => {
      const { level, logger, data } = notification.params;
      onLog({ server: server.name, level, ...(logger === undefined ? {} : { logger }), data });
    });
  }
  acceptResultsWithoutResultType(transport, () => client.getProtocolEra?.() === 'modern');
  const started = performance.now();
  transport.beginConnect?.(connectTimeoutMs);
  const timeoutError = () => {
    return new McpxError(
      ErrorCode.ConnectTimeout,
      `'${server.name}' did not complete the MCP handshake within ${connectTimeoutMs} ms`,
      {
        server: server.name,
        origin: server.origin,
        timeoutMs: connectTimeoutMs,
        stderrTail: transport.stderrTail?.() ?? [],
        ...(server.command ? { command: [server.command, ...server.args].join(' ') } : {}),
        ...(server.url ? { url: server.url } : {}),
        ...handshakeTimeoutAdvice(server),
      },
    );
  };
  // Many servers connect at once on the host's one Ctrl-C signal: one shared listener, not one per connect.
  const link = options.signal ? linkSignal(options.signal) : undefined;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(timeoutError()), remainingMs);
  });
  // The era probe (`server/discover`) and `initialize` are its children, as the wire sends them.
  const handshake = tracer.startSpan('handshake', {
    attributes: { [ATTR_MCPX_SERVER]: server.name, 'mcpx.era.remembered': prior?.kind ?? 'none' },
  });
  try {
    const connecting = client;
    await Promise.race([
      context.with(trace.setSpan(context.active(), handshake), () =>
        withSdkDiagnostics(server.name, options.onSdkDiagnostic, () =>
          connecting.connect(transport, {
            timeout: remainingMs,
            ...(link ? { signal: link.signal } : {}),
            ...(prior ? { prior } : {}),
          }),
        ),
      ),
      deadline,
    ]);
  } catch (error) {
    recordFailure(handshake, error);
    handshake.end();
    unsubscribeRoots();
    // The SDK's handshake timer and ours share a limit; whichever fires, it is a connect timeout.
    if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout && !options.signal?.aborted) {
      await client.close().catch(() => {});
      await transport.close().catch(() => {});
      throw timeoutError();
    }
    const reason = transport.closeReason?.();
    await client.close().catch(() => {});
    await transport.close().catch(() => {});
    // A request sent after the transport closed (the SDK's fallback `initialize`) says only
    // "not running": the reason it closed is the story.
    if (error instanceof McpxError) throw locate(reason && error.cause === reason ? reason : error, server);
    if (options.signal?.aborted) {
      throw new McpxError(ErrorCode.Cancelled, `connecting to '${server.name}' was cancelled`, {
        server: server.name,
      });
    }
    throw locate(
      reason ??
        transport.failureFor?.(error) ??
        translateRequestError(error, { server: server.name, method: 'initialize' }),
      server,
    );
  } finally {
    clearTimeout(timer);
    link?.release();
  }
  const era: ProtocolEra = client.getProtocolEra?.() === 'modern' ? 'modern' : 'legacy';
  handshake.setAttribute(ATTR_MCPX_ERA, era);
  const negotiated = transport.relayedProtocolVersion ?? client.getNegotiatedProtocolVersion();
  if (negotiated) handshake.setAttribute(ATTR_MCP_PROTOCOL_VERSION, negotiated);
  handshake.end();
  if (server.protocol === 'auto' && options.eraCache)
    rememberEra(options.eraCache, eraCacheKey(server), client, witness, restamp);
  const connection = new SdkServerConnection(
    server,
    { client, transport, era },
    performance.now() - started,
    options,
    prior?.kind === 'modern'
      ? () => {
          // The stale verdict is dropped first, so nothing can bring it back.
          options.eraCache?.delete(eraCacheKey(server));
          return negotiate(server, options, connectBudget(budget.totalMs));
        }
      : undefined,
  );
  connection.addCleanup(unsubscribeRoots);
  if (era === 'modern' && options.onListChanged)
    keepHearingListChanges(client, connection, options.onListChanged);
  return connection;
}

/**
 * 2026-07-28: the SDK opens the `subscriptions/listen` stream once; keep it
 * open across drops (see keepListening), and after each re-open report every
 * list it covers as changed, since announcements made meanwhile were lost.
 */
function keepHearingListChanges(
  client: Client,
  connection: SdkServerConnection,
  onListChanged: (kind: ListKind) => void,
): void {
  const caps = connection.capabilities;
  const filter = {
    ...(caps.tools?.listChanged ? { toolsListChanged: true } : {}),
    ...(caps.resources?.listChanged ? { resourcesListChanged: true } : {}),
    ...(caps.prompts?.listChanged ? { promptsListChanged: true } : {}),
  };
  if (Object.keys(filter).length === 0) return;
  const stop = keepListening(client, client.autoOpenedSubscription, {
    filter,
    ackTimeoutMs: connection.requestTimeoutMs,
    onReopened: (honored) => {
      if (honored.toolsListChanged) onListChanged('tools');
      if (honored.resourcesListChanged) onListChanged('resources');
      if (honored.promptsListChanged) onListChanged('prompts');
    },
  });
  connection.onClose(stop);
}

/** One connected SDK client with its transport: what a connection talks through. */
interface Link {
  readonly client: Client;
  readonly transport: ManagedTransport;
  readonly era: ProtocolEra;
}

/** Connect afresh, forgetting the remembered era verdict: for a connection whose verdict proved stale. */
type Renegotiate = () => Promise<SdkServerConnection>;

class SdkServerConnection implements ServerConnection {
  #link: Link;
  #closed = false;
  #closing: Promise<void> | undefined;
  #closeListeners = new Set<(reason: Error | undefined) => void>();
  readonly #requestTimeoutMs: number;
  readonly #onSdkDiagnostic: ((diagnostic: SdkDiagnostic) => void) | undefined;
  /** 2026-07-28 has no logging/setLevel: the level rides on each request's `_meta`. */
  #logLevel: LoggingLevel | undefined;
  /** Set while the era came from memory and no request has succeeded yet. */
  #renegotiate: Renegotiate | undefined;
  #renegotiating: Promise<void> | undefined;
  readonly #cleanups: (() => void)[] = [];
  /** Work beside the connection (a background era recheck) that ends with it. */
  readonly #companions: (() => Promise<void>)[] = [];
  readonly #stopping: Promise<void>[] = [];
  /** The last tools/list, to know which tools must run as tasks. */
  #tools: Promise<Tool[]> | undefined;
  #subscriptions: ResourceSubscriptions;
  /** The capabilities this connection declared (its handlers). */
  readonly #declared: ClientCapabilities;
  /** The line relay of each link, made on first use (`#relay`). */
  readonly #relays = new WeakMap<Link, RelayedCalls>();
  /** Of the last tools/list, by name: whether the tool declares an output schema (`#outputChecked`). */
  #outputSchemas: Map<string, boolean> | undefined;

  constructor(
    readonly server: ServerConfig,
    link: Link,
    readonly connectMs: number,
    options: ConnectServerOptions,
    renegotiate?: Renegotiate,
  ) {
    this.#link = link;
    this.#renegotiate = renegotiate;
    this.#requestTimeoutMs =
      server.requestTimeoutMs ?? options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.#subscriptions = new ResourceSubscriptions(link.client, link.era, server.name);
    this.#onSdkDiagnostic = options.onSdkDiagnostic;
    this.#declared = capabilitiesFor(options.features);
    this.#watch(link);
  }

  get era(): ProtocolEra {
    return this.#link.era;
  }
  get capabilities() {
    return this.client.getServerCapabilities() ?? {};
  }
  get protocolVersion() {
    return this.transport.relayedProtocolVersion ?? this.client.getNegotiatedProtocolVersion();
  }
  get serverInfo() {
    return this.client.getServerVersion();
  }
  get instructions() {
    return this.client.getInstructions();
  }
  private get client(): Client {
    return this.#link.client;
  }
  private get transport(): ManagedTransport {
    return this.#link.transport;
  }

  #watch(link: Link): void {
    link.client.onclose = () => {
      if (link !== this.#link) return; // a link replaced after a stale verdict closes quietly
      if (!this.#closing && this.#renegotiate) {
        // The server went away before anything worked: maybe our era killed it.
        const gone = () => this.#finish(link);
        void this.#recoverFromStaleVerdict(undefined).then((recovered) => recovered || gone(), gone);
        return;
      }
      this.#finish(link);
    };
  }

  #finish(link: Link): void {
    if (link !== this.#link || this.#closed) return;
    this.#closed = true;
    this.#subscriptions.connectionClosed();
    const reason = link.transport.closeReason?.();
    for (const listener of this.#closeListeners) listener(reason);
    this.#closeListeners.clear();
    for (const cleanup of this.#cleanups.splice(0)) cleanup();
    for (const stop of this.#companions.splice(0)) this.#stopping.push(stop());
  }

  /** Runs when the connection closes for good (not when a stale link is replaced). */
  addCleanup(cleanup: () => void): void {
    this.#cleanups.push(cleanup);
  }

  /** Stopped when the connection closes; its close waits for the stop (no process outlives it). */
  addCompanion(stop: () => Promise<void>): void {
    if (this.#closed || this.#closing) this.#stopping.push(stop());
    else this.#companions.push(stop);
  }

  /**
   * A remembered verdict is a hint, never a trap: when the first request on a
   * connection whose era came from memory fails the way a server of the
   * other era fails (it does not know the method, or it exits), connect
   * afresh with negotiation and take over that connection. Requests that
   * failed together share one renegotiation.
   */
  async #recoverFromStaleVerdict(error: unknown): Promise<boolean> {
    if (!this.#renegotiate && !this.#renegotiating) return false;
    if (!this.#renegotiating) {
      if (!looksLikeOtherEra(error, this.transport)) return false;
      const renegotiate = this.#renegotiate as Renegotiate;
      this.#renegotiate = undefined;
      this.#renegotiating = (async () => {
        const fresh = await renegotiate();
        const stale = this.#link;
        this.#link = fresh.#link;
        this.#tools = undefined;
        this.#subscriptions = new ResourceSubscriptions(this.#link.client, this.#link.era, this.server.name);
        this.#watch(this.#link);
        await stale.client.close().catch(() => {});
        await stale.transport.close().catch(() => {});
      })();
    }
    await this.#renegotiating;
    return true;
  }

  get closed(): boolean {
    return this.#closed;
  }

  get requestTimeoutMs(): number {
    return this.#requestTimeoutMs;
  }

  async listTools(options?: RequestControl) {
    if (!this.capabilities.tools) return [];
    const tools = (
      await this.#run('tools/list', options, (o) => this.client.listTools(undefined, this.#bounded(o)))
    ).tools;
    this.#tools = Promise.resolve(tools);
    const schemas = new Map<string, boolean>();
    // The first of a name, as the SDK client's lookup finds it.
    for (const tool of tools)
      if (!schemas.has(tool.name)) schemas.set(tool.name, tool.outputSchema !== undefined);
    this.#outputSchemas = schemas;
    return tools;
  }

  /** Only for a server that runs tools as tasks: one tools/list, unless one was already fetched. */
  async #mustRunAsTask(name: string, options: RequestControl): Promise<boolean> {
    if (!serverRunsToolTasks(this.capabilities)) return false;
    this.#tools ??= this.listTools(options).catch((error) => {
      this.#tools = undefined;
      throw error;
    });
    return requiresTask((await this.#tools).find((t) => t.name === name));
  }

  async listResources(options?: RequestControl) {
    if (!this.capabilities.resources) return [];
    return (
      await this.#run('resources/list', options, (o) =>
        this.client.listResources(undefined, this.#bounded(o)),
      )
    ).resources;
  }

  async listResourceTemplates(options?: RequestControl) {
    if (!this.capabilities.resources) return [];
    return (
      await this.#run('resources/templates/list', options, (o) =>
        this.client.listResourceTemplates(undefined, this.#bounded(o)),
      )
    ).resourceTemplates;
  }

  async listPrompts(options?: RequestControl) {
    if (!this.capabilities.prompts) return [];
    return (
      await this.#run('prompts/list', options, (o) => this.client.listPrompts(undefined, this.#bounded(o)))
    ).prompts;
  }

  async callTool(
    name: string,
    args: Record<string, unknown>,
    options: Parameters<ServerConnection['callTool']>[2] = {},
  ) {
    // Asked only of a server that runs tasks: a plain call does not wait a turn for the answer.
    if (serverRunsToolTasks(this.capabilities) && (await this.#mustRunAsTask(name, options))) {
      return this.#run(`tools/call ${name} (task)`, options, (o) =>
        callToolAsTask(
          this.client,
          {
            name,
            arguments: args,
            ...this.#meta(options.traceContext ? { traceContext: options.traceContext } : undefined),
          },
          o,
          options.onTaskStatus,
        ),
      );
    }
    const relay = options.relay && !options.onProgress && !options.inputRound ? this.#relay() : undefined;
    if (relay && Object.keys(this.#meta(options)).length === 0 && !this.#outputChecked(name)) {
      const { cancel } = options;
      return this.#run(
        `tools/call ${name}`,
        options,
        (o) =>
          relay.callTool(
            { name, arguments: args },
            {
              timeout: o.timeout ?? this.#requestTimeoutMs,
              ...(o.signal ? { signal: o.signal } : {}),
              ...(cancel ? { cancel } : {}),
            },
          ),
        true,
      );
    }
    const onProgress = options.onProgress ? outsideSdkScope(options.onProgress) : undefined;
    return this.#run(`tools/call ${name}`, options, (o) =>
      this.client.callTool(
        { name, arguments: args, ...this.#meta(options), ...options.inputRound },
        {
          ...o,
          ...(onProgress
            ? {
                onprogress: (p) =>
                  onProgress({
                    progress: p.progress,
                    ...(p.total === undefined ? {} : { total: p.total }),
                    ...(p.message === undefined ? {} : { message: p.message }),
                  }),
                resetTimeoutOnProgress: true,
              }
            : {}),
        },
      ),
    ) as ReturnType<ServerConnection['callTool']>;
  }

  /**
   * The line relay beside this connection's SDK client (`relayed-call.ts`): only to a
   * local stdio server on 2025-11-25, whose replies the transport can tell apart.
   */
  #relay(): RelayedCalls | undefined {
    const link = this.#link;
    if (link.era !== 'legacy' || this.#renegotiate || !(link.transport instanceof StdioTransport))
      return undefined;
    let relay = this.#relays.get(link);
    if (!relay) {
      const made = new RelayedCalls(link.transport);
      relay = made;
      this.#relays.set(link, made);
      this.onClose(() => made.close());
    }
    return relay;
  }

  /**
   * Whether the SDK client would check this tool's result against an output schema
   * (it keeps the schemas of the tools it listed), which the relay does not do.
   */
  #outputChecked(name: string): boolean {
    return this.#outputSchemas === undefined || this.#outputSchemas.get(name) === true;
  }

  readResource(uri: string, options?: RequestControl) {
    return this.#run(`resources/read ${uri}`, options, (o) =>
      this.client.readResource({ uri, ...this.#meta(options), ...options?.inputRound }, o),
    );
  }

  async subscribeResource(uri: string, onUpdated: (uri: string) => void, options?: RequestControl) {
    const resources = this.capabilities.resources as { subscribe?: boolean } | undefined;
    if (!resources?.subscribe) {
      throw locate(
        new McpxError(
          ErrorCode.ServerRejected,
          `'${this.server.name}' does not offer resource subscriptions`,
          {
            server: this.server.name,
            causes: ['its capabilities do not include resources.subscribe'],
            fixes: ['read the resource again when you need it instead of watching it'],
          },
        ),
        this.server,
      );
    }
    return this.#run(`subscribe ${uri}`, options, (o) => this.#subscriptions.subscribe(uri, onUpdated, o));
  }

  getPrompt(name: string, args: Record<string, string>, options?: RequestControl) {
    return this.#run(`prompts/get ${name}`, options, (o) =>
      this.client.getPrompt({ name, arguments: args, ...this.#meta(options), ...options?.inputRound }, o),
    );
  }

  complete(
    ref: Parameters<ServerConnection['complete']>[0],
    argument: Parameters<ServerConnection['complete']>[1],
    options?: RequestControl,
  ) {
    return this.#run('completion/complete', options, (o) => this.client.complete({ ref, argument }, o));
  }

  async ping(options?: RequestControl) {
    const started = performance.now();
    // 2026-07-28 has no ping; server/discover is its cheapest round trip.
    await this.#run('ping', options, (o) =>
      this.era === 'modern' ? this.client.discover(o) : this.client.ping(o),
    );
    return performance.now() - started;
  }

  async setLoggingLevel(level: LoggingLevel, options?: RequestControl) {
    if (this.era === 'modern') {
      this.#logLevel = level;
      return;
    }
    await this.#run('logging/setLevel', options, (o) => this.client.setLoggingLevel(level, o));
  }

  #meta(control?: RequestControl): { _meta?: Record<string, unknown> } {
    const meta: Record<string, unknown> = { ...control?.traceContext };
    if (this.#logLevel && control?.logs !== false) meta[LOG_LEVEL_META_KEY] = this.#logLevel;
    const answerers = control?.inputCapabilities;
    if (answerers && this.era === 'modern') {
      // The envelope's own key wins over the SDK's: this request declares what its answerer can do.
      const { sampling: _s, elicitation: _e, roots: _r, ...rest } = this.#declared;
      meta[CLIENT_CAPABILITIES_META_KEY] = {
        ...rest,
        ...(answerers.sampling && this.#declared.sampling ? { sampling: answerers.sampling } : {}),
        ...(answerers.elicitation && this.#declared.elicitation
          ? { elicitation: answerers.elicitation }
          : {}),
        ...(answerers.roots && this.#declared.roots ? { roots: answerers.roots } : {}),
      };
    }
    return Object.keys(meta).length > 0 ? { _meta: meta } : {};
  }

  onClose(listener: (reason: Error | undefined) => void): () => void {
    this.#closeListeners.add(listener);
    return () => this.#closeListeners.delete(listener);
  }

  close(): Promise<void> {
    this.#closing ??= (async () => {
      await this.#renegotiating?.catch(() => {}); // so a connection it is opening is closed too
      this.#stopping.push(...this.#companions.splice(0).map((stop) => stop()));
      const companions = Promise.all(this.#stopping);
      await withSdkDiagnostics(this.server.name, this.#onSdkDiagnostic, () => this.client.close()).catch(
        () => {},
      );
      await this.transport.close().catch(() => {});
      await companions;
      this.#closed = true;
    })();
    return this.#closing;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  /** Options for one list walk, bounded in pages, items and bytes (see `list-bounds.ts`). */
  #bounded(options: RequestOptions): RequestOptions {
    return withListWalk(options, new ListWalk(this.server.name));
  }

  async #run<T>(
    method: string,
    control: RequestControl | undefined,
    send: (options: RequestOptions) => Promise<T>,
    takesCancel = false,
  ): Promise<T> {
    const timeoutMs = control?.timeoutMs ?? this.#requestTimeoutMs;
    if (cancelledBy(control)) {
      throw new McpxError(ErrorCode.Cancelled, `${method} was cancelled`, { server: this.server.name });
    }
    if (this.#closed) {
      const reason = this.transport.closeReason?.();
      throw locate(
        reason ??
          new McpxError(ErrorCode.ConnectionClosed, `the connection to '${this.server.name}' is closed`, {
            server: this.server.name,
          }),
        this.server,
      );
    }
    const link = control?.signal && !control.ownSignal ? linkSignal(control.signal) : undefined;
    // A `cancel` becomes a signal here unless `send` takes it as it is (the line relay).
    const signal = link?.signal ?? control?.signal ?? (takesCancel ? undefined : control?.cancel?.signal);
    const options: RequestOptions = {
      timeout: timeoutMs,
      ...(signal ? { signal } : {}),
      ...(control?.manualInput ? { allowInputRequired: true } : {}),
    };
    try {
      const attempt = () => withSdkDiagnostics(this.server.name, this.#onSdkDiagnostic, () => send(options));
      let result: T;
      try {
        result = await attempt();
      } catch (error) {
        if (cancelledBy(control) || !(await this.#recoverFromStaleVerdict(error))) throw error;
        result = await attempt();
      }
      this.#renegotiate = undefined; // the era works: no later failure is blamed on it
      return result;
    } catch (error) {
      const cancelled = { aborted: cancelledBy(control) };
      const own = cancelled.aborted ? undefined : this.transport.failureFor?.(error);
      if (own) throw locate(own, this.server);
      throw locate(
        translateRequestError(error, {
          server: this.server.name,
          method,
          timeoutMs,
          cancelled,
          ...(this.transport.closeReason?.()
            ? { closeReason: this.transport.closeReason() as McpxError }
            : {}),
        }),
        this.server,
      );
    } finally {
      link?.release();
    }
  }
}

/** Whether the caller cancelled the request, whichever way (`cancel` is a `signal` made only when needed). */
function cancelledBy(control: RequestControl | undefined): boolean {
  return control?.cancel?.aborted === true || control?.signal?.aborted === true;
}

// JSON-RPC errors a 2025-era server gives a 2026-07-28 request it cannot take:
// method not found, invalid request ("not initialized"), unsupported version.
const OTHER_ERA_CODES = new Set([-32601, -32600, -32022]);

/** The failure a server of the other era would cause: an error code above, or the server went away. */
function looksLikeOtherEra(error: unknown, transport: ManagedTransport): boolean {
  if (transport.closeReason?.()) return true;
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'number' && OTHER_ERA_CODES.has(code);
}

/** Wire the host's roots, sampling and elicitation handlers into the SDK client. Returns a cleanup. */
function registerFeatureHandlers(client: Client, features: ClientFeatures | undefined): () => void {
  if (!features) return () => {};
  const { roots, sampling, elicitation } = features;
  let unsubscribe = () => {};
  if (roots) {
    client.setRequestHandler('roots/list', async () => ({
      roots: [...(await outsideSdkScope(() => roots.list())())],
    }));
    const stop = roots.subscribe(() => void client.sendRootsListChanged().catch(() => {}));
    unsubscribe = () => {
      stop();
    };
  }
  if (sampling) {
    client.setRequestHandler('sampling/createMessage', async (request, ctx) =>
      outsideSdkScope(() =>
        sampling.createMessage(capSampling(request.params, sampling.maxTokens), {
          signal: ctx.mcpReq.signal,
        }),
      )(),
    );
  }
  if (elicitation?.form || elicitation?.url) {
    client.setRequestHandler('elicitation/create', async (request, ctx) => {
      const params = request.params;
      const signal = ctx.mcpReq.signal;
      if (params.mode === 'url') {
        const problem = urlElicitationProblem(params.url);
        if (problem || !elicitation.url) return { action: 'decline' };
        const url = elicitation.url;
        return outsideSdkScope(() => url.call(elicitation, params, { signal }))();
      }
      if (!elicitation.form) return { action: 'decline' };
      checkFormSchema(params.requestedSchema);
      const form = elicitation.form;
      const answer = await outsideSdkScope(() => form.call(elicitation, params, { signal }))();
      return answer.action === 'accept'
        ? {
            ...answer,
            content: applyFormDefaults(
              params.requestedSchema,
              answer.content as Record<string, unknown>,
            ) as ElicitResult['content'],
          }
        : answer;
    });
  }
  return unsubscribe;
}
