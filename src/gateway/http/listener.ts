import { randomUUID } from 'node:crypto';
import {
  createServer,
  type IncomingMessage,
  type Server as NodeServer,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createMcpHandler,
  DEFAULT_MAX_REQUEST_BODY_SIZE,
  isInitializeRequest,
  isLegacyRequest,
  type Server,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import type { ListKind } from '../../client/index.js';
import type { LogMessage } from '../core.js';
import type { FleetState } from '../fleet/index.js';
import { requestCredentials } from '../input-rounds.js';
import type { SessionToolCall } from '../session-server.js';
import { LiveSessions } from '../sessions.js';
import { type ClientLimit, createClientLimit, IN_FLIGHT_RETRY_AFTER_SECONDS } from './client-limit.js';
import {
  createDrainState,
  type DrainState,
  drainRefusal,
  readinessResponse,
  resumesCallStream,
  startsWork,
} from './drain.js';
import { createSseEventLog, type SseEventLog, type SseEventLogBounds } from './event-store.js';
import { HttpFastCalls } from './fast-calls.js';
import { fleetClientLimit } from './fleet-client-limit.js';
import { createHttpGuard, type HttpGuardOptions, refusal } from './guard.js';
import { DEFAULT_JSON_SHAPE_LIMITS, type JsonShapeLimits } from './json-shape.js';
import { LegacySse } from './legacy-sse.js';
import {
  headerLookup,
  outliveClientKeepAlive,
  toWebRequest,
  trackSockets,
  writeWebResponse,
} from './node-glue.js';
import { declaredParamHeaders, HEADER_MISMATCH, paramHeaderMismatch } from './param-headers.js';
import { readBounded } from './read-bounded.js';
import { SessionActivity } from './session-idle.js';
import { keepSetting, settingsRequests } from './session-settings.js';
import { createSharedSseEventLog, type SharedSseEventLog } from './shared-event-log.js';
import { createSharedSessions, type SharedSessions, sessionRecordOf } from './shared-sessions.js';
import { pollCallStreams } from './sse-polling.js';
import type { SseOverflow } from './sse-transport.js';
import { takeOverStream } from './stream-takeover.js';

/** What a server of `GatewayHttpOptions.newServer` is for: a 2025-11-25 session, or one 2026-07-28 request. */
export type ServerPurpose = 'session' | 'request';

/** Largest request body accepted (413 beyond): MCP requests are small; the SDK's own default is 4 MiB. */
export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;

/** Requests one client (a session, else an address) may have uploading at once (429 beyond). */
export const DEFAULT_MAX_IN_FLIGHT_PER_CLIENT = 32;

/** How long a 2025-11-25 session may sit unused (no request, no open stream) before it is ended. */
export const DEFAULT_SESSION_IDLE_MS = 30 * 60 * 1000;

/** The `retry` a 2025-11-25 client is told to wait before resuming a stream that ended early (the SDK client's own default). */
export const SSE_RETRY_MS = 1000;

export interface GatewayHttpOptions extends HttpGuardOptions {
  /** Default 127.0.0.1. */
  readonly host?: string;
  /** Default 0: a port chosen by the OS. */
  readonly port?: number;
  readonly maxBodyBytes?: number;
  /** Nesting depth and element count of a body, checked before it is parsed (default `DEFAULT_JSON_SHAPE_LIMITS`). */
  readonly jsonLimits?: JsonShapeLimits;
  /** Default `DEFAULT_MAX_IN_FLIGHT_PER_CLIENT`. */
  readonly maxInFlightPerClient?: number;
  /**
   * Prefix of every session id this instance mints (`<id>.<uuid>`), so a load
   * balancer can send a legacy session back to the instance that holds it by
   * the id alone (nginx OSS has no sticky learning). Checked by the caller.
   */
  readonly instanceId?: string;
  /**
   * The fleet's shared store (`mcpx serve --state redis://…`), connected; without it every
   * piece of state below lives in this instance's memory. `/healthz` says whether it answers.
   */
  readonly fleet?: FleetState;
  /**
   * What the instance keeps of its 2025-11-25 sessions' SSE events, so a client
   * whose stream broke resumes it with `Last-Event-ID` (default
   * `DEFAULT_SSE_EVENT_LOG_BOUNDS`). 2026-07-28 is stateless: nothing to resume.
   */
  readonly sseEventBounds?: SseEventLogBounds;
  /**
   * End a 2025-11-25 call's SSE stream once it has run this many ms (SSE
   * polling: the client resumes it; see `pollCallStreams`); off when undefined.
   */
  readonly ssePollMs?: number;
  /**
   * End a 2025-11-25 session after this many ms with no request and no open
   * stream (default `DEFAULT_SESSION_IDLE_MS`): a client that exits without a
   * DELETE would otherwise keep its server and event log for the life of the process.
   */
  readonly sessionIdleMs?: number;
  /**
   * Whether the instance is ready to take work (`GET /readyz` answers 200 while it says so and
   * the instance is not draining); default: ready once listening.
   */
  readonly ready?: () => boolean;
  /**
   * A fresh downstream server for one client: a 2025-11-25 session's (`client` its session id),
   * or one 2026-07-28 request's (`client` a per-request id).
   */
  readonly newServer: (client: string, purpose: ServerPurpose) => Server;
  /**
   * A 2025-11-25 session ended by its client's DELETE (fleet-wide), with the credentials (hashed)
   * the DELETE carried: what the gateway keeps of the session elsewhere (its consent) goes too.
   */
  readonly onSessionEnded?: (sessionId: string, credentials: string) => Promise<void>;
  /** Subscribe to upstream list changes (the gateway core's `onListChanged`). */
  readonly onListChanged: (listener: (kind: ListKind) => void) => () => void;
  /**
   * Watch a resource by its public URI (the gateway core's `subscribe`): a 2026-07-28
   * client's `subscriptions/listen` names the URIs, and the stream lives as
   * long as its HTTP response.
   */
  readonly subscribe?: (
    uri: string,
    onUpdated: (uri: string) => void,
  ) => Promise<{ unsubscribe(): Promise<void> }>;
  /**
   * A served tool's input schema by its public name, so a 2026-07-28 `tools/call` whose
   * `Mcp-Param-*` headers disagree with its arguments is refused as the spec requires.
   */
  readonly toolInputSchema?: (name: string) => Promise<unknown>;
  /**
   * Subscribe to upstream log messages for every session (the gateway core's `onLog`); `audience`
   * says whether there is a session to tell (2026-07-28 requests have none).
   */
  readonly onLog?: (listener: (message: LogMessage) => void, audience: () => boolean) => () => void;
  /**
   * The process's metrics in the Prometheus text format, answered on `GET /metrics` behind
   * the same guard as `/mcp` (the bearer token included); without it `/metrics` is not found.
   */
  readonly metrics?: () => Promise<string>;
  /**
   * Take plain `tools/call` requests off the wire before the SDK (`gateway/fast-path.ts`):
   * a 2025-11-25 session's through its own server's handler, a 2026-07-28 request through
   * `toolCall` (a session handler made once, for requests that have no session), answered
   * as the SDK would name `serverInfo`. Without it every request goes through the SDK.
   */
  readonly fastPath?: {
    readonly toolCall: SessionToolCall;
    readonly serverInfo: { readonly name: string; readonly version: string };
  };
  /**
   * Also serve the deprecated HTTP+SSE transport (2024-11-05) on `/sse` and `/messages`
   * (`legacy-sse.ts`), behind the same guard and limits; `onOverflow`: a session ended because
   * its client stopped reading its stream. Off when undefined.
   */
  readonly legacySse?: { readonly maxBufferedBytes?: number; readonly onOverflow?: (o: SseOverflow) => void };
}

export interface GatewayHttpServer {
  /** `http://HOST:PORT/mcp` */
  readonly url: string;
  readonly port: number;
  /** The resumable streams' event log (its usage: what is held now). */
  readonly events: SseEventLog;
  /** 2025-11-25 sessions open now (a 2026-07-28 client has none: each request stands alone). */
  readonly sessions: number;
  /** `tools/call` requests that took the fast path so far (see `GatewayHttpOptions.fastPath`). */
  readonly fastCalls: number;
  /** HTTP+SSE sessions open now (`GatewayHttpOptions.legacySse`): one per stream. */
  readonly sseSessions: number;
  /**
   * Drain, then stop: `/readyz` turns 503, new work is refused with 503 and `Retry-After`
   * (what serves the calls in flight still passes), the streams that would outlive the drain
   * end (a session's standalone `GET` stream, `subscriptions/listen`) so their clients resume
   * elsewhere; then wait for `drain` (the calls in flight), end every session and resolve once
   * the listener is closed.
   */
  close(drain?: () => Promise<void>): Promise<void>;
}

/**
 * The gateway on Streamable HTTP: `/mcp` speaks 2026-07-28 statelessly (a
 * fresh server per request, the SDK's `createMcpHandler`) and 2025-11-25 with
 * sessions (one server and transport per session), routed per request by the
 * SDK's `isLegacyRequest`; `/healthz` answers `{"ok":true}` and nothing else (liveness), and
 * `/readyz` whether the instance takes work now (readiness: not while starting or draining).
 * Every `/mcp` request passes the guard (query credentials, Host, Origin,
 * bearer token) and the body cap before any server sees it. The client's
 * Authorization header stops here: upstream requests are the registry's own.
 */
export async function startGatewayHttp(options: GatewayHttpOptions): Promise<GatewayHttpServer> {
  const listener = createListener(options);
  const { sessions, live, modern, events } = listener;
  const sweeper = sweepIdleSessions(listener, options.sessionIdleMs ?? DEFAULT_SESSION_IDLE_MS);
  const stopRelays = relayUpstream(listener);
  // A DELETE on another instance ends the session here too (only this copy: the store is done).
  const stopEnded = listener.shared?.sessions.onEnded((id) => {
    void sessions
      .get(id)
      ?.close()
      .catch(() => {});
  });
  const server: NodeServer = createServer((req, res) => {
    route(listener, req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
      else res.destroy();
    });
  });
  outliveClientKeepAlive(server);
  const destroySockets = trackSockets(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port: options.port ?? 0, host: options.host ?? '127.0.0.1', backlog: 4096 }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port, address } = server.address() as AddressInfo;
  const shown = address.includes(':') ? `[${address}]` : address;
  return {
    url: `http://${shown}:${port}/mcp`,
    port,
    events,
    get sessions() {
      return sessions.size;
    },
    get fastCalls() {
      return (listener.fast?.taken ?? 0) + (listener.sse?.fastCalls ?? 0);
    },
    get sseSessions() {
      return listener.sse?.size ?? 0;
    },
    async close(drain) {
      clearInterval(sweeper);
      stopRelays();
      stopEnded?.();
      // The listener stays open while the calls in flight finish: a balancer still sending here
      // (its readiness check not yet run) gets a 503 that says retry, not a refused connection.
      listener.drain.begin();
      for (const transport of sessions.values()) transport.closeStandaloneSSEStream();
      await drain?.();
      // An SSE session's answers come on its stream: it ends once the calls in flight are answered.
      await listener.sse?.closeAll();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      await live.closeAll();
      for (const transport of sessions.values()) await transport.close().catch(() => {});
      await modern.close().catch(() => {});
      destroySockets();
      await closed;
    },
  };
}

/** What the listener's routes share: its options and limits, the two eras' handlers, the sessions. */
interface Listener {
  readonly options: GatewayHttpOptions;
  readonly guard: ReturnType<typeof createHttpGuard>;
  readonly origins: ReturnType<typeof originChecker>;
  readonly maxBody: number;
  readonly jsonLimits: JsonShapeLimits;
  readonly clients: ClientLimit & { scope?(): 'fleet' | 'instance' };
  /** 2026-07-28: a fresh server per request. */
  readonly modern: ReturnType<typeof createMcpHandler>;
  /** 2025-11-25: the servers of the live sessions, and their transports by session id. */
  readonly live: LiveSessions;
  readonly sessions: Map<string, WebStandardStreamableHTTPServerTransport>;
  readonly events: SseEventLog;
  readonly activity: SessionActivity;
  readonly fast: HttpFastCalls | undefined;
  readonly drain: DrainState;
  /** The HTTP+SSE transport, when served. */
  readonly sse: LegacySse | undefined;
  /** In a fleet: the sessions and their events in the shared store, and the sessions being restored here. */
  readonly shared: SharedState | undefined;
}

interface SharedState {
  readonly events: SharedSseEventLog;
  readonly sessions: SharedSessions;
  readonly restoring: Map<string, Promise<WebStandardStreamableHTTPServerTransport | undefined>>;
}

/** How often idle sessions are looked for (and, in a fleet, held ones renewed in the store). */
const sweepInterval = (idleMs: number): number => Math.max(10, Math.min(idleMs / 2, 60_000));

function createListener(options: GatewayHttpOptions): Listener {
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
  const idleMs = options.sessionIdleMs ?? DEFAULT_SESSION_IDLE_MS;
  const activity = new SessionActivity(idleMs);
  const live = new LiveSessions();
  // A session held somewhere is renewed every sweep, so its records outlive a sweep's gap.
  const ttlMs = idleMs + sweepInterval(idleMs);
  const shared: SharedState | undefined = options.fleet
    ? {
        events: createSharedSseEventLog(options.fleet, {
          ttlMs,
          ...(options.sseEventBounds ? { bounds: options.sseEventBounds } : {}),
        }),
        sessions: createSharedSessions(options.fleet, ttlMs),
        restoring: new Map(),
      }
    : undefined;
  return {
    options,
    guard: createHttpGuard(options),
    origins: originChecker(),
    maxBody,
    jsonLimits: options.jsonLimits ?? DEFAULT_JSON_SHAPE_LIMITS,
    clients: (options.fleet
      ? (max: number) => fleetClientLimit(options.fleet as FleetState, max)
      : createClientLimit)(options.maxInFlightPerClient ?? DEFAULT_MAX_IN_FLIGHT_PER_CLIENT),
    modern: createMcpHandler(() => options.newServer(randomUUID(), 'request'), {
      legacy: 'reject',
      keepAliveMs: 0,
      maxRequestBodySize: maxBody,
    }),
    live,
    sessions,
    events: shared?.events ?? createSseEventLog(options.sseEventBounds),
    shared,
    activity,
    fast: options.fastPath
      ? new HttpFastCalls({
          ...options.fastPath,
          isSession: (id) => sessions.has(id),
          activity,
          paramHeaderRefusal: (message, headers) =>
            refuseParamHeaderMismatch(options, message as ModernMessage, headers),
        })
      : undefined,
    drain: createDrainState(),
    sse: options.legacySse
      ? new LegacySse({
          ...options.legacySse,
          newServer: (id) => options.newServer(id, 'session'),
          live,
          fastPath: options.fastPath !== undefined,
          ...(options.instanceId !== undefined ? { instanceId: options.instanceId } : {}),
        })
      : undefined,
  };
}

/** Sessions left idle past `idleMs` are closed; the sweep alone never keeps the process alive. */
function sweepIdleSessions({ sessions, activity, shared }: Listener, idleMs: number): NodeJS.Timeout {
  const sweeper = setInterval(() => {
    const idle = activity.idle();
    // Closed here only: in a fleet the session lives on in the store until its expiry.
    for (const id of idle) {
      const transport = sessions.get(id);
      if (transport) void transport.close().catch(() => {});
      else activity.forget(id);
    }
    if (shared) {
      const held = [...sessions.keys()].filter((id) => !idle.includes(id));
      shared.sessions.touch(held);
      shared.events.touch(held);
    }
  }, sweepInterval(idleMs));
  sweeper.unref();
  return sweeper;
}

/** Upstream list changes and log messages passed on to the clients; the function stops both. */
function relayUpstream({ options, live, modern }: Listener): () => void {
  const stopListening = options.onListChanged((kind) => {
    live.listChanged(kind);
    if (kind === 'tools') modern.notify.toolsChanged();
    else if (kind === 'prompts') modern.notify.promptsChanged();
    else modern.notify.resourcesChanged();
  });
  const stopLogs = options.onLog?.(
    (message) => live.log(message),
    () => live.size > 0,
  );
  return () => {
    stopListening();
    stopLogs?.();
  };
}

/** One `/mcp` (or `/metrics`) request: admitted, its body read and parsed once, handed to its era. */
async function route(listener: Listener, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const { options, fast } = listener;
  const origin = `http://${req.headers.host ?? '127.0.0.1'}`;
  const path = (req.url ?? '/').split('?')[0];
  if (path === '/healthz' && (req.method === 'GET' || req.method === 'HEAD')) {
    req.resume();
    return void res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(health(options.fleet, listener.clients.scope?.()));
  }
  if (path === '/readyz' && (req.method === 'GET' || req.method === 'HEAD')) {
    req.resume();
    return writeWebResponse(res, readinessResponse(options.ready?.() ?? true, listener.drain.draining));
  }
  const scrape = path === '/metrics' && options.metrics !== undefined;
  const sse = listener.sse?.serves(path) ? listener.sse : undefined;
  if (path !== '/mcp' && !scrape && !sse) {
    req.resume();
    return void res.writeHead(404).end();
  }
  const refused = listener.guard({ url: req.url ?? '/', headers: headerLookup(req) });
  if (refused) {
    req.resume();
    return writeWebResponse(res, refused);
  }
  if (scrape) {
    req.resume();
    return writeWebResponse(res, await metricsResponse(req.method, options.metrics));
  }
  if (sse)
    return sse.route(req, res, path as string, { ...listener, maxInFlightRefusal: tooManyInFlight(options) });
  const draining = listener.drain.draining;
  if (draining && !(await servesWorkInFlight(listener, req))) {
    req.resume();
    return writeWebResponse(res, drainRefusal());
  }
  const client = req.headers['mcp-session-id'];
  const release = listener.clients.enter(
    typeof client === 'string' ? `session ${client}` : clientAddress(req),
  );
  if (!release) {
    req.resume();
    return writeWebResponse(res, tooManyInFlight(options)());
  }
  res.once('close', release);
  let body: Uint8Array | undefined;
  if (req.method === 'POST') {
    const read = await readBounded(req, listener.maxBody, listener.jsonLimits);
    if (read instanceof Response) return writeWebResponse(res, read);
    body = read;
  }
  // The slot bounds what a client can make the gateway buffer and scan at once; a request
  // whose body is in waits on its server at no such cost, so many concurrent calls still go.
  release();
  // Parsed once, for the fast path, the era, the gateway's own checks and the SDK (no
  // Request.clone(), no second parse); a body that does not parse is left to the SDK to answer.
  const parsed = body ? parseMessage(body) : undefined;
  if (draining && startsWork(parsed)) return writeWebResponse(res, drainRefusal());
  if (fast && parsed !== undefined && (await fast.take(req, res, parsed))) return;
  // A listen stream ends with the drain, so its client listens elsewhere.
  const listen = (parsed as ModernMessage | undefined)?.method === 'subscriptions/listen';
  const request = toWebRequest(
    req,
    listener.origins.safe(origin),
    body,
    listen ? listener.drain.signal : undefined,
  );
  const isLegacy = await isLegacyRequest(request, parsed);
  const message = isLegacy ? undefined : parsed;
  if (message) {
    const mismatch = await refuseParamHeaderMismatch(options, message, request.headers);
    if (mismatch) return writeWebResponse(res, mismatch);
    watchListenedResources(listener, message, res);
  }
  const response = isLegacy
    ? await serveLegacy(listener, request, res, parsed, body?.byteLength)
    : await listener.modern.fetch(request, parsed === undefined ? undefined : { parsedBody: parsed });
  await writeWebResponse(res, response);
}

/** The answer to a client past its limit of requests in flight. */
function tooManyInFlight(options: GatewayHttpOptions): () => Response {
  return () =>
    refusal(
      429,
      `too many requests in flight from this client (the gateway's limit is ${options.maxInFlightPerClient ?? DEFAULT_MAX_IN_FLIGHT_PER_CLIENT}); retry after ${IN_FLIGHT_RETRY_AFTER_SECONDS} s`,
      { 'retry-after': String(IN_FLIGHT_RETRY_AFTER_SECONDS) },
    );
}

/**
 * During a drain, what may still reach a 2025-11-25 session of this instance: its `DELETE`, a
 * `POST` (its body is checked for new requests once read), and a `GET` resuming a call's
 * stream. Everything else is new work, or a stream that would only keep the client here.
 */
async function servesWorkInFlight({ sessions, events }: Listener, req: IncomingMessage): Promise<boolean> {
  const sessionId = req.headers['mcp-session-id'];
  const transport = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
  if (!transport) return false;
  if (req.method === 'DELETE' || req.method === 'POST') return true;
  const lastEventId = req.headers['last-event-id'];
  if (req.method !== 'GET' || typeof lastEventId !== 'string') return false;
  return resumesCallStream(transport, events.forSession(sessionId as string), lastEventId);
}

/** A 2025-11-25 request: to its session's transport, or an initialize that starts a session. */
async function serveLegacy(
  listener: Listener,
  request: Request,
  res: ServerResponse,
  parsed: unknown,
  size: number | undefined,
): Promise<Response> {
  const { sessions, activity, events, fast } = listener;
  const sessionId = request.headers.get('mcp-session-id');
  if (sessionId) {
    const transport = sessions.get(sessionId) ?? (await restoreSession(listener, sessionId));
    if (transport instanceof Response) return transport;
    if (!transport) return refusal(404, 'Session not found');
    res.once('close', activity.begin(sessionId));
    const lastEventId = request.headers.get('last-event-id');
    if (
      request.method === 'GET' &&
      lastEventId &&
      request.headers.get('accept')?.includes('text/event-stream')
    )
      await takeOverStream(transport, events.forSession(sessionId), lastEventId);
    if (request.method === 'GET' && !lastEventId) fast?.streamOpened(sessionId, res);
    const notKept =
      request.method === 'POST' && listener.shared
        ? await keepSetting(listener.shared.sessions, sessionId, parsed)
        : undefined;
    if (notKept) return notKept;
    // The body parsed once; over the transport's own cap (the SDK default) it reads and refuses it.
    const handOver = parsed !== undefined && (size ?? 0) <= DEFAULT_MAX_REQUEST_BODY_SIZE;
    const response = await transport.handleRequest(request, handOver ? { parsedBody: parsed } : undefined);
    if (request.method === 'DELETE' && response.ok && listener.options.onSessionEnded)
      await listener.options.onSessionEnded(sessionId, requestCredentials(request)).catch(() => {});
    return response;
  }
  // A new session starts only with an initialize request (its body already parsed, once).
  const body = isInitializeRequest(parsed) ? (parsed as { params?: unknown }) : undefined;
  if (!body) return refusal(400, 'Bad Request: No valid session ID provided');
  return startSession(listener, request, res, body);
}

/** A 2025-11-25 session begun by its initialize request: a server and a transport of its own. */
async function startSession(
  listener: Listener,
  request: Request,
  res: ServerResponse,
  body: { params?: unknown },
): Promise<Response> {
  const { options, sessions, activity, shared } = listener;
  const id = options.instanceId ? `${options.instanceId}.${randomUUID()}` : randomUUID();
  res.once('close', activity.begin(id));
  const { transport } = await openSession(listener, id, false);
  const response = await transport.handleRequest(request, { parsedBody: body });
  // Refused before it became a session (a malformed initialize): nothing will ever reach it again.
  if (!sessions.has(id)) await transport.close().catch(() => {});
  else if (shared) {
    // Kept before the client can use it, so its next request may land on any instance. A store
    // that is down leaves the session to this instance (the client re-initialises elsewhere).
    const record = sessionRecordOf(body.params);
    if (record) await shared.sessions.save(id, record).catch(() => {});
  }
  return response;
}

/**
 * A session another instance began (or this one, before a restart), continued here: a fresh
 * server and transport, initialised with what the client said in its `initialize` (kept in the
 * fleet's store). The SDK has no way to make a transport initialised but to hand it an
 * `initialize` request, so it is handed the stored one (and `notifications/initialized`), and
 * their answers go nowhere. The client's request then goes to it as to any held session.
 * Undefined when the store has no such session; a 404 saying why when the store is down.
 */
async function restoreSession(
  listener: Listener,
  id: string,
): Promise<WebStandardStreamableHTTPServerTransport | Response | undefined> {
  const { shared, sessions } = listener;
  if (!shared) return undefined;
  const found = await shared.sessions.load(id);
  if ('unavailable' in found)
    return refusal(
      404,
      `Session not found: this instance does not hold it and the fleet's shared state cannot be read (${found.unavailable}); initialize a new session`,
    );
  if ('missing' in found) return undefined;
  // Many requests of one session may arrive at once: one restore, which they all wait for.
  const pending = shared.restoring.get(id);
  if (pending) return pending;
  const restoring = (async () => {
    const held = sessions.get(id);
    if (held) return held;
    const { transport, quiet } = await openSession(listener, id, true);
    const record = found.found;
    const post = (message: object) =>
      transport
        .handleRequest(
          new Request('http://restore.invalid/mcp', {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              accept: 'application/json, text/event-stream',
              'mcp-session-id': id,
              'mcp-protocol-version': record.protocolVersion,
            },
            body: JSON.stringify(message),
          }),
          { parsedBody: message },
        )
        .then((response) => response.arrayBuffer());
    await post({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: record.protocolVersion,
        capabilities: record.capabilities,
        clientInfo: record.clientInfo,
      },
    });
    await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
    // What the client set since (its log level, its subscriptions), set again through the
    // session server's own handlers; a subscription that fails here is left out, as it would be.
    await Promise.all(settingsRequests(found.settings).map((message) => post(message).catch(() => {})));
    quiet.done = true;
    if (sessions.get(id) !== transport) {
      await transport.close().catch(() => {});
      return undefined;
    }
    return transport;
  })().finally(() => shared.restoring.delete(id));
  shared.restoring.set(id, restoring);
  return restoring;
}

/**
 * A session's server and transport, connected; the transport is registered under `id` once it
 * is initialised. `quiet` holds back what a restore's replayed `initialize` would store as events.
 */
async function openSession(
  listener: Listener,
  id: string,
  restoring: boolean,
): Promise<{ transport: WebStandardStreamableHTTPServerTransport; quiet: { done: boolean } }> {
  const { options, sessions, activity, events, live, fast, shared } = listener;
  const server = options.newServer(id, 'session');
  // The session's own view of the log: it replays only this session's streams.
  const store = events.forSession(id);
  const quiet = { done: !restoring };
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: () => id,
    keepAliveMs: 0,
    eventStore: restoring
      ? {
          storeEvent: (streamId, message) =>
            quiet.done ? store.storeEvent(streamId, message) : Promise.resolve(`${streamId}_restore`),
          getStreamIdForEventId: store.getStreamIdForEventId,
          replayEventsAfter: store.replayEventsAfter,
        }
      : store,
    retryInterval: SSE_RETRY_MS,
    onsessioninitialized: () => {
      sessions.set(id, transport);
    },
    onsessionclosed: async () => {
      sessions.delete(id);
      // A DELETE ends the session fleet-wide; a store that is down lets it expire instead.
      if (shared) await Promise.all([shared.sessions.end(id), shared.events.endSession(id)]).catch(() => {});
    },
  });
  live.add(server, id);
  // A call of a session under SSE polling needs its own stream, to be resumed.
  if (options.ssePollMs === undefined) fast?.addSession(id, server);
  await server.connect(transport);
  if (options.ssePollMs !== undefined) pollCallStreams(transport, options.ssePollMs);
  const closed = transport.onclose;
  transport.onclose = () => {
    if (sessions.get(id) === transport) sessions.delete(id);
    events.dropSession(id);
    activity.forget(id);
    fast?.closeSession(id);
    closed?.();
  };
  return { transport, quiet };
}

/**
 * The SDK serves subscriptions/listen from its bus; the gateway subscribes upstream for each URI
 * a stream names and publishes the updates there, until the stream's response closes.
 */
function watchListenedResources({ options, modern }: Listener, message: ModernMessage, res: ServerResponse) {
  if (!options.subscribe || message.method !== 'subscriptions/listen') return;
  const uris = message.params?.notifications?.resourceSubscriptions;
  if (!Array.isArray(uris)) return;
  const subscriptions = uris
    .filter((u): u is string => typeof u === 'string')
    .map((uri) =>
      (options.subscribe as NonNullable<GatewayHttpOptions['subscribe']>)(uri, (changed) =>
        modern.notify.resourceUpdated(changed),
      ).catch(() => undefined),
    );
  res.once('close', () => {
    for (const pending of subscriptions) void pending.then((s) => s?.unsubscribe().catch(() => {}));
  });
}

/** A `tools/call` whose parameter headers (SEP-2243's `x-mcp-header`) disagree with its body: a 400 to send. */
async function refuseParamHeaderMismatch(
  options: GatewayHttpOptions,
  message: ModernMessage,
  headers: { get(name: string): string | null },
): Promise<Response | undefined> {
  if (!options.toolInputSchema) return undefined;
  if (message.method !== 'tools/call' || typeof message.params?.name !== 'string') return undefined;
  const declared = declaredParamHeaders(
    await options.toolInputSchema(message.params.name).catch(() => undefined),
  );
  const mismatch = paramHeaderMismatch(declared, message.params.arguments, headers);
  if (!mismatch) return undefined;
  const error = {
    code: HEADER_MISMATCH,
    message: `Bad Request: the request headers and body disagree: ${mismatch.reason}`,
    data: { mismatch: { header: mismatch.header, body: mismatch.reason } },
  };
  return Response.json({ jsonrpc: '2.0', id: message.id ?? null, error }, { status: 400 });
}

/** `GET /metrics` (HEAD too): the text format a Prometheus scrapes; any other method is not allowed. */
async function metricsResponse(
  method: string | undefined,
  metrics: (() => Promise<string>) | undefined,
): Promise<Response> {
  if (method !== 'GET' && method !== 'HEAD')
    return new Response(null, { status: 405, headers: { allow: 'GET, HEAD' } });
  const text = (await metrics?.()) ?? '';
  return new Response(method === 'HEAD' ? null : text, {
    status: 200,
    headers: { 'content-type': PROMETHEUS_CONTENT_TYPE, 'cache-control': 'no-store' },
  });
}

/** The content type of Prometheus's text exposition format (version 0.0.4). */
const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** The fields of a 2026-07-28 request the gateway itself looks at before the SDK dispatches it. */
interface ModernMessage {
  readonly id?: unknown;
  readonly method?: unknown;
  readonly params?: {
    readonly name?: unknown;
    readonly arguments?: unknown;
    readonly notifications?: { readonly resourceSubscriptions?: unknown };
  };
}

function parseMessage(body: Uint8Array): ModernMessage | undefined {
  try {
    const message: unknown = JSON.parse(
      Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8'),
    );
    return message && typeof message === 'object' ? (message as ModernMessage) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A Host header that does not parse must not crash the URL constructor; the guard refuses it.
 * The last origin that parsed is remembered: a client sends the same Host on every request.
 */
function originChecker(): { safe(origin: string): string } {
  let known: string | undefined;
  return {
    safe(origin) {
      if (origin === known) return origin;
      try {
        new URL(origin);
        known = origin;
        return origin;
      } catch {
        return 'http://invalid.invalid';
      }
    },
  };
}

/** Whom a sessionless request counts against: its remote address (a proxy's, behind one). */
function clientAddress(req: IncomingMessage): string {
  return `address ${req.socket.remoteAddress ?? 'unknown'}`;
}

/**
 * `/healthz`: the process is alive (so 200 either way: a liveness probe must not restart every
 * instance because their shared store is down), and, in a fleet, whether the store answers.
 */
function health(fleet: FleetState | undefined, limits: 'fleet' | 'instance' | undefined): string {
  if (!fleet) return '{"ok":true}';
  const { up, error } = fleet.status();
  // `limits`: whether the per-client limits count the fleet's requests or, the store down, this instance's.
  const state = { store: fleet.where, up, ...(error && !up ? { error } : {}), ...(limits ? { limits } : {}) };
  return JSON.stringify({ ok: true, state });
}
