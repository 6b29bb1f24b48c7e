import { performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import { ErrorCode, McpxError } from '../../errors/index.js';
import { type AuthChallenge, parseBearerChallenge } from './auth-challenge.js';
import {
  authRequired,
  describe,
  redirectRefused,
  sessionExpired,
  statusError,
  streamBroken,
  unreachable,
} from './http-failures.js';
import { privacyRank } from './ip-address.js';
import { createPinnedFetch, type FetchLike, type PinnedFetch } from './pinned-fetch.js';
import {
  backoffDelay,
  DEFAULT_HTTP_MAX_RETRIES,
  DEFAULT_HTTP_RETRY_BACKOFF_MS,
  type ExchangeInfo,
  isUnsafeToRepeat,
  networkErrorCode,
  parseRetryAfter,
  RETRYABLE_STATUSES,
  retryDelay,
  shouldRetryNetworkError,
  shouldRetryStatus,
} from './retry-policy.js';
import { discard, inspectBody, mediaType, NO_RPC, type RpcInfo, readCapped, responseId } from './rpc-body.js';
import { assertValidSessionId } from './session-id.js';
import { EventTooLargeError, SseScanner, sseMessage } from './sse-scanner.js';
import {
  CONFIG_URL_POLICY,
  checkAddresses,
  checkResolvedUrl,
  checkUrlSyntax,
  type Resolver,
  systemResolver,
  type UrlPolicy,
} from './ssrf-guard.js';

/** Default cap on one JSON body or one SSE event from a server. */
export const DEFAULT_MAX_MESSAGE_BYTES = 16 * 1024 * 1024;
/** How many recent SSE event ids keep the session they came from (see `#eventSessions`). */
const REMEMBERED_EVENT_IDS = 1_000;
/** While connecting, a retry is only worth it with at least this long left for the answer. */
const CONNECT_ANSWER_MARGIN_MS = 500;
/** The first MCP revision without sessions or GET streams (stateless, per-request `_meta`). */
const MODERN_REVISION_PREFIX = '2026';
/** JSON-RPC error code of a failure mcpx synthesizes for a request whose stream broke. */
export const SYNTHETIC_FAILURE_CODE = -32099;
/** The `error.data` key carrying the id of that failure in the {@link GuardedHttp.failures} registry. */
export const SYNTHETIC_FAILURE_KEY = 'mcpxFailure';

/** One retry, for `--verbose` and logs. */
export interface RetryInfo {
  readonly server: string;
  readonly url: string;
  /** What was being sent: JSON-RPC method(s), `GET stream` or `DELETE session`. */
  readonly what: string;
  /** The attempt that just failed, from 1. */
  readonly attempt: number;
  readonly maxRetries: number;
  readonly delayMs: number;
  /** `HTTP 503 Service Unavailable`, `ECONNRESET`, `response stream dropped`, `session expired`. */
  readonly reason: string;
  readonly status?: number;
}

export interface GuardedHttpOptions {
  readonly serverName: string;
  /** A fetch to use instead of the pinned node:http one (tests); URLs are then checked before each request, without pinning. */
  readonly fetch?: FetchLike;
  readonly resolver?: Resolver;
  readonly maxRetries?: number;
  /** Base delay of the exponential backoff. */
  readonly retryBackoffMs?: number;
  readonly maxMessageBytes?: number;
  readonly onRetry?: (info: RetryInfo) => void;
  /** Let 401/403 through to the SDK (an auth provider answers them); otherwise they fail with AuthRequired. */
  readonly passAuthChallenges?: boolean;
  /**
   * The MCP server's own URL (from the config). A request to any other origin
   * was sent there by the server (OAuth metadata, authorization, token and
   * registration endpoints): it must be https (http only on loopback) and no
   * more private than the server's own address. Absent: every URL is treated
   * as the user's own.
   */
  readonly serverUrl?: string | URL;
  /** Hosts a server may send mcpx to whatever their address class (config `allowed_hosts`). */
  readonly allowHosts?: readonly string[];
  /**
   * Header names meant for the MCP server only (the config's `headers`, such as
   * an API key): the SDK adds them to every request, OAuth ones included, so
   * they are removed from requests to any other origin.
   */
  readonly serverOnlyHeaders?: readonly string[];
  /** Injected for tests. */
  readonly random?: () => number;
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

interface Exchange extends ExchangeInfo {
  readonly url: URL;
  readonly init: RequestInit & { headers: Headers };
  readonly rpc: RpcInfo;
  readonly what: string;
}

/**
 * The fetch every HTTP transport of one server goes through. It is where mcpx
 * wraps the SDK's transports:
 * - SSRF guard on every URL (after DNS, pinned to the checked address) and no redirects;
 * - retries of 429/5xx/network failures with backoff, jitter and `Retry-After`,
 *   never repeating a `tools/call` that may have run;
 * - the session: `Mcp-Session-Id` validated, resent, and on a 404 a new session
 *   (initialize again) with the request retried once;
 * - size caps on JSON bodies and SSE events;
 * - a POST's SSE stream that breaks before its response: re-sent (when safe and
 *   not resumable), or failed at once instead of hanging until the timeout.
 */
export class GuardedHttp {
  readonly fetch: FetchLike;
  /** Failures synthesized into JSON-RPC error responses, by key, for the transport to map back. */
  readonly failures = new Map<string, McpxError>();
  /** The last error this layer raised (an EventSource swallows errors thrown by its fetch). */
  lastFailure: McpxError | undefined;
  /** The server's last 401/403 `WWW-Authenticate` challenge (passed through to an auth provider). */
  lastAuthChallenge: AuthChallenge | undefined;
  readonly #serverOrigin: string | undefined;
  /** Privacy rank of the server's own address, once resolved: the ceiling for URLs it hands out. */
  #serverRank: Promise<number> | undefined;
  #sessionId: string | undefined;
  #initializeBody: string | undefined;
  #initializedBody: string | undefined;
  #reinitializing: Promise<void> | undefined;
  /**
   * The session each recent SSE event id was sent in. The SDK resumes a
   * stream with the last id it saw; after a session renewal that id belongs
   * to the old session, which the new one cannot replay (it refuses the GET).
   */
  readonly #eventSessions = new Map<string, string | undefined>();
  #failureCount = 0;
  /**
   * While connecting: when the connect budget runs out (`performance.now()`
   * time). Until the server first answers 2xx, a 429/5xx is retried for as
   * long as the budget allows, not just `maxRetries` times.
   */
  #connectDeadline: number | undefined;
  /** The last URL checked, by its text: every request of a connection goes to the same one. */
  #checked: { readonly href: string; readonly url: URL } | undefined;
  readonly #base: FetchLike;
  readonly #pinned: PinnedFetch | undefined;
  readonly #resolver: Resolver;
  readonly #maxRetries: number;
  readonly #backoffMs: number;
  readonly #maxMessageBytes: number;
  readonly #sleep: (ms: number, signal?: AbortSignal) => Promise<void>;

  constructor(private readonly options: GuardedHttpOptions) {
    this.#resolver = options.resolver ?? systemResolver;
    this.#maxRetries = Math.max(0, options.maxRetries ?? DEFAULT_HTTP_MAX_RETRIES);
    this.#backoffMs = Math.max(0, options.retryBackoffMs ?? DEFAULT_HTTP_RETRY_BACKOFF_MS);
    this.#maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    this.#sleep = options.sleep ?? ((ms, signal) => delay(ms, undefined, signal ? { signal } : {}));
    this.#serverOrigin = options.serverUrl === undefined ? undefined : new URL(options.serverUrl).origin;
    if (options.fetch) {
      this.#base = options.fetch;
    } else {
      this.#pinned = createPinnedFetch(async (url, hostname) => {
        const addresses = await this.#resolver(hostname);
        checkAddresses(url, addresses, await this.#policyFor(url));
        return addresses;
      });
      this.#base = this.#pinned.fetch;
    }
    this.fetch = (input, init) =>
      this.#fetch(input, init).catch((error: unknown) => {
        if (error instanceof McpxError) this.lastFailure = error;
        throw error;
      });
  }

  /**
   * The connect starts now and may take `budgetMs`: a server that is busy
   * starting up (503/429, with or without `Retry-After`) is waited for within
   * that budget, unless the config set `http_max_retries`.
   */
  beginConnect(budgetMs: number): void {
    this.#connectDeadline = performance.now() + budgetMs;
  }

  /** The session id the server assigned (2025-era Streamable HTTP), if any. */
  get sessionId(): string | undefined {
    return this.#sessionId;
  }

  close(): void {
    this.#pinned?.close();
  }

  /**
   * The rules for a URL: the user's own for the server's origin, the stricter
   * server-supplied ones for anywhere else the server sends mcpx.
   */
  async #policyFor(url: URL): Promise<UrlPolicy> {
    if (this.#serverOrigin === undefined || url.origin === this.#serverOrigin) return CONFIG_URL_POLICY;
    this.#serverRank ??= checkResolvedUrl(
      this.options.serverUrl as string | URL,
      CONFIG_URL_POLICY,
      this.#resolver,
    )
      .then((server) => privacyRank(server.addressClass))
      .catch(() => 0);
    return {
      kind: 'server',
      maxRank: await this.#serverRank,
      ...(this.options.allowHosts ? { allowHosts: this.options.allowHosts } : {}),
    };
  }

  async #fetch(input: string | URL | Request, init: RequestInit = {}): Promise<Response> {
    const href = input instanceof Request ? input.url : typeof input === 'string' ? input : input.href;
    if (this.#checked?.href !== href) this.#checked = { href, url: checkUrlSyntax(href) };
    const { url } = this.#checked;
    const policy = await this.#policyFor(url);
    // An injected fetch resolves on its own: check first. The pinned fetch checks again inside its
    // own lookup (against DNS rebinding), but Node skips that lookup for a literal IP address.
    if (this.options.fetch || policy.kind === 'server') await checkResolvedUrl(url, policy, this.#resolver);
    const httpMethod = (init.method ?? 'GET').toUpperCase();
    const body = typeof init.body === 'string' ? init.body : undefined;
    // Only the MCP endpoint's own exchanges carry JSON-RPC and the session; never an OAuth server's.
    const ownOrigin = policy.kind === 'config';
    const rpc = body === undefined || !ownOrigin ? NO_RPC : inspectBody(body);
    const headers = new Headers(init.headers);
    if (!ownOrigin) for (const name of this.options.serverOnlyHeaders ?? []) headers.delete(name);
    const resumeFrom = headers.get('last-event-id');
    if (resumeFrom !== null && this.#eventSessions.has(resumeFrom)) {
      // An event id from a session that was renewed since: open the stream afresh on the new one.
      if (this.#eventSessions.get(resumeFrom) !== this.#sessionId) headers.delete('last-event-id');
    }
    if (rpc.isInitialize) this.#initializeBody = body;
    else if (this.#sessionId && ownOrigin) headers.set('mcp-session-id', this.#sessionId);
    if (rpc.isInitialized) this.#initializedBody = body;
    const exchange: Exchange = {
      url,
      init: { ...init, method: httpMethod, headers, redirect: 'manual' },
      httpMethod,
      rpcMethods: rpc.methods,
      rpc,
      what: rpc.methods.length
        ? rpc.methods.join(', ')
        : httpMethod === 'GET'
          ? 'GET stream'
          : `${httpMethod} session`,
    };
    const response = await this.#send(exchange);
    const type = mediaType(response.headers.get('content-type'));
    if (response.ok && type === 'text/event-stream' && response.body) {
      return new Response(this.#monitor(exchange, response.body), {
        status: response.status,
        statusText: response.statusText,
        headers: response.headers,
      });
    }
    return response;
  }

  /** One exchange with retries; a 2xx JSON body comes back already read (capped). */
  async #send(exchange: Exchange, renewed = false): Promise<Response> {
    const { url, init } = exchange;
    for (let attempt = 1; ; attempt++) {
      let response: Response;
      try {
        response = await this.#base(url, init);
      } catch (error) {
        if (error instanceof McpxError || init.signal?.aborted) throw error;
        const sent = (error as { requestSent?: boolean }).requestSent;
        if (attempt <= this.#maxRetries && shouldRetryNetworkError(error, exchange, sent)) {
          await this.#pause(exchange, attempt, undefined, networkErrorCode(error) ?? describe(error));
          continue;
        }
        throw this.#unreachable(exchange, error, attempt);
      }
      const { status } = response;
      if (status >= 300 && status < 400) {
        await discard(response);
        throw redirectRefused(exchange, response);
      }
      const sessionId = response.headers.get('mcp-session-id');
      if (sessionId !== null) {
        try {
          assertValidSessionId(sessionId, url.href);
        } catch (error) {
          await discard(response);
          throw error instanceof McpxError ? error.withContext({ server: this.options.serverName }) : error;
        }
        if (exchange.rpc.isInitialize && response.ok) this.#sessionId = sessionId;
      }
      if (
        status === 404 &&
        init.headers.has('mcp-session-id') &&
        this.#initializeBody &&
        !exchange.rpc.isInitialize
      ) {
        await discard(response);
        if (renewed) throw sessionExpired(exchange, this.options.serverName);
        this.options.onRetry?.(this.#retryInfo(exchange, attempt, 0, 'session expired (HTTP 404)', status));
        await this.#renewSession(exchange);
        if (this.#sessionId) init.headers.set('mcp-session-id', this.#sessionId);
        // Its events were the old session's: the new one has nothing to replay.
        init.headers.delete('last-event-id');
        return this.#send(exchange, true);
      }
      if (status === 401 || status === 403) {
        if (!this.options.passAuthChallenges) {
          await discard(response);
          throw authRequired(exchange, response, this.options.serverName);
        }
        const header = response.headers.get('www-authenticate');
        if (header !== null) this.lastAuthChallenge = { status, ...parseBearerChallenge(header) };
      }
      if (RETRYABLE_STATUSES.has(status)) {
        await discard(response);
        const retryAfter = parseRetryAfter(response.headers.get('retry-after'));
        const retryable = shouldRetryStatus(status, exchange);
        const connecting = retryable ? this.#connectWait(attempt, retryAfter) : undefined;
        let wait: number | undefined;
        if (connecting) wait = connecting.waitMs;
        else if (retryable && attempt <= this.#maxRetries)
          wait = retryDelay(attempt, retryAfter, this.#backoff());
        if (wait === undefined) {
          throw statusError(exchange, response, attempt, this.options.serverName, connecting?.remainingMs);
        }
        await this.#pause(exchange, attempt, wait, `HTTP ${status} ${response.statusText}`.trim(), status);
        continue;
      }
      if (response.ok && exchange.rpc.methods.length > 0) this.#connectDeadline = undefined;
      if (
        !response.ok ||
        mediaType(response.headers.get('content-type')) !== 'application/json' ||
        !response.body
      ) {
        return response;
      }
      try {
        const bytes = await readCapped(response.body, this.#maxMessageBytes);
        return new Response(bytes, { status, statusText: response.statusText, headers: response.headers });
      } catch (error) {
        if (error instanceof EventTooLargeError) throw this.#tooLarge(exchange);
        if (init.signal?.aborted) throw error;
        if (attempt <= this.#maxRetries && shouldRetryNetworkError(error, exchange, true)) {
          await this.#pause(
            exchange,
            attempt,
            undefined,
            `response body broke: ${networkErrorCode(error) ?? describe(error)}`,
          );
          continue;
        }
        throw this.#unreachable(exchange, error, attempt);
      }
    }
  }

  /**
   * While connecting (and `http_max_retries` not set): how long to wait before
   * the next attempt — the server's `Retry-After`, else the backoff — or no
   * wait at all when that would outlast the connect budget. Undefined when not
   * connecting.
   */
  #connectWait(
    attempt: number,
    retryAfterMs: number | undefined,
  ): { waitMs: number | undefined; remainingMs: number } | undefined {
    if (this.#connectDeadline === undefined || this.options.maxRetries !== undefined) return undefined;
    const remainingMs = Math.max(0, Math.round(this.#connectDeadline - performance.now()));
    const waitMs = retryAfterMs ?? backoffDelay(attempt, this.#backoff());
    // Leave the server time to answer the attempt after the wait, or it is a wait for nothing.
    return { waitMs: waitMs + CONNECT_ANSWER_MARGIN_MS < remainingMs ? waitMs : undefined, remainingMs };
  }

  #backoff() {
    return { baseMs: this.#backoffMs, ...(this.options.random ? { random: this.options.random } : {}) };
  }

  async #pause(
    exchange: Exchange,
    attempt: number,
    wait: number | undefined,
    reason: string,
    status?: number,
  ) {
    const ms = wait ?? retryDelay(attempt, undefined, this.#backoff()) ?? 0;
    this.options.onRetry?.(this.#retryInfo(exchange, attempt, ms, reason, status));
    await this.#sleep(ms, exchange.init.signal ?? undefined);
  }

  #retryInfo(
    exchange: Exchange,
    attempt: number,
    delayMs: number,
    reason: string,
    status?: number,
  ): RetryInfo {
    return {
      server: this.options.serverName,
      url: exchange.url.href,
      what: exchange.what,
      attempt,
      maxRetries: this.#maxRetries,
      delayMs,
      reason,
      ...(status === undefined ? {} : { status }),
    };
  }

  /**
   * Spec (2025-11-25 transports, session management): a 404 for a request with a
   * session id means the session is gone; start a new one with a fresh
   * `initialize`. SDK 2.4.0 does not, so we do it here, once for all callers.
   */
  #renewSession(exchange: Exchange): Promise<void> {
    this.#reinitializing ??= (async () => {
      const initialize = JSON.parse(this.#initializeBody ?? '{}') as { id?: unknown };
      initialize.id = `mcpx-renew-session-${++this.#failureCount}`;
      const headers = new Headers(exchange.init.headers);
      headers.delete('mcp-session-id');
      headers.delete('last-event-id');
      headers.delete('mcp-method');
      headers.delete('mcp-name');
      headers.set('content-type', 'application/json');
      headers.set('accept', 'application/json, text/event-stream');
      const post = (body: string, rpc: RpcInfo): Exchange => ({
        url: exchange.url,
        init: { method: 'POST', headers: new Headers(headers), body, redirect: 'manual' },
        httpMethod: 'POST',
        rpcMethods: rpc.methods,
        rpc,
        what: rpc.methods.join(', '),
      });
      const body = JSON.stringify(initialize);
      const previous = this.#sessionId;
      const response = await this.#send(post(body, inspectBody(body)));
      await discard(response);
      if (!response.ok || this.#sessionId === previous)
        throw sessionExpired(exchange, this.options.serverName);
      if (this.#initializedBody) {
        headers.set('mcp-session-id', this.#sessionId ?? '');
        await discard(await this.#send(post(this.#initializedBody, inspectBody(this.#initializedBody))));
      }
    })().finally(() => {
      this.#reinitializing = undefined;
    });
    return this.#reinitializing;
  }

  /**
   * Pass an SSE body on event by event, checking sizes and watching for the
   * responses the POST asked for. If the stream ends without them: leave a
   * resumable 2025-era stream to the SDK (GET with Last-Event-ID), re-send a
   * safe request, or fail the requests at once.
   * Long because it is the SSE stream's one transform: the pending ids, the scanner and the end-of-
   * stream decisions share its state.
   */
  #monitor(exchange: Exchange, body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
    const pending = new Set(exchange.rpc.requestIds);
    const scanner = new SseScanner(this.#maxMessageBytes);
    const encoder = new TextEncoder();
    const modern = (exchange.init.headers.get('mcp-protocol-version') ?? '') >= MODERN_REVISION_PREFIX;
    let reader = body.getReader();
    let lastEventId: string | undefined;
    let resends = 0;
    const fail = (controller: ReadableStreamDefaultController<Uint8Array>, error: McpxError) => {
      for (const id of pending) controller.enqueue(encoder.encode(sseMessage(this.#synthesize(id, error))));
      pending.clear();
      controller.close();
    };
    const onDrop = async (controller: ReadableStreamDefaultController<Uint8Array>, error: unknown) => {
      if (pending.size === 0 || exchange.httpMethod !== 'POST') {
        if (error === undefined) controller.close();
        else controller.error(error);
        return;
      }
      // Resumable: the 2025 SDK reconnects with GET + Last-Event-ID and the server replays.
      if (lastEventId !== undefined && !modern && this.#sessionId !== undefined) {
        if (error === undefined) controller.close();
        else controller.error(error);
        return;
      }
      // A listen sent again would reuse its request id, which the spec forbids: the client opens a new one.
      const listen = exchange.rpc.methods.includes('subscriptions/listen');
      if (listen || isUnsafeToRepeat(exchange) || resends >= Math.max(1, this.#maxRetries)) {
        fail(controller, streamBroken(exchange, this.options.serverName, error, resends + 1));
        return;
      }
      resends++;
      this.options.onRetry?.(this.#retryInfo(exchange, resends, 0, 'response stream dropped'));
      scanner.reset();
      let again: Response;
      try {
        again = await this.#send(exchange);
      } catch (sendError) {
        fail(
          controller,
          sendError instanceof McpxError
            ? sendError
            : streamBroken(exchange, this.options.serverName, sendError, resends + 1),
        );
        return;
      }
      const type = mediaType(again.headers.get('content-type'));
      if (again.ok && type === 'text/event-stream' && again.body) {
        reader = again.body.getReader();
        return 'continue';
      }
      if (again.ok && type === 'application/json') {
        const messages = [await again.json()].flat() as { id?: string | number }[];
        for (const message of messages) {
          if (message.id !== undefined) pending.delete(message.id);
          controller.enqueue(encoder.encode(sseMessage(message)));
        }
      }
      await discard(again);
      if (pending.size > 0)
        fail(controller, streamBroken(exchange, this.options.serverName, undefined, resends + 1));
      else controller.close();
      return;
    };
    return new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        for (;;) {
          let chunk: Awaited<ReturnType<typeof reader.read>>;
          try {
            chunk = await reader.read();
          } catch (error) {
            if (exchange.init.signal?.aborted) return controller.error(error);
            if ((await onDrop(controller, error)) === 'continue') continue;
            return;
          }
          if (chunk.done) {
            if ((await onDrop(controller, undefined)) === 'continue') continue;
            return;
          }
          let events: ReturnType<SseScanner['push']>;
          try {
            events = scanner.push(chunk.value);
          } catch {
            await reader.cancel().catch(() => {});
            const error = this.#tooLarge(exchange);
            if (pending.size > 0) return fail(controller, error);
            return controller.error(error);
          }
          if (events.length === 0) continue;
          for (const event of events) {
            if (event.id !== undefined) {
              lastEventId = event.id;
              this.#rememberEventSession(event.id, exchange.init.headers.get('mcp-session-id') ?? undefined);
            }
            const id = responseId(event.data);
            if (id !== undefined) pending.delete(id);
            controller.enqueue(encoder.encode(event.raw));
          }
          return;
        }
      },
      cancel: (reason) => reader.cancel(reason),
    });
  }

  #rememberEventSession(eventId: string, sessionId: string | undefined): void {
    this.#eventSessions.delete(eventId);
    this.#eventSessions.set(eventId, sessionId);
    if (this.#eventSessions.size > REMEMBERED_EVENT_IDS) {
      const oldest = this.#eventSessions.keys().next().value;
      if (oldest !== undefined) this.#eventSessions.delete(oldest);
    }
  }

  /** A JSON-RPC error response for request `id` standing for `error` (the transport fails requests with it). */
  failureResponse(id: string | number, error: McpxError) {
    return this.#synthesize(id, error);
  }

  /** A JSON-RPC error response standing for `error`, registered for the transport's `failureFor`. */
  #synthesize(id: string | number, error: McpxError) {
    const key = `failure-${++this.#failureCount}`;
    this.failures.set(key, error);
    this.lastFailure = error;
    return {
      jsonrpc: '2.0' as const,
      id,
      error: { code: SYNTHETIC_FAILURE_CODE, message: error.message, data: { [SYNTHETIC_FAILURE_KEY]: key } },
    };
  }

  #tooLarge(exchange: Exchange): McpxError {
    return new McpxError(
      ErrorCode.MessageTooLarge,
      `'${this.options.serverName}' sent a message larger than ${this.#maxMessageBytes} bytes in reply to ${exchange.what}`,
      {
        server: this.options.serverName,
        url: exchange.url.href,
        fixes: ['raise the HTTP message size limit if this server legitimately sends such large messages'],
      },
    );
  }

  #unreachable(exchange: Exchange, error: unknown, attempts: number): McpxError {
    const refusedRetry = attempts <= this.#maxRetries && isUnsafeToRepeat(exchange);
    return unreachable(exchange, this.options.serverName, error, attempts, refusedRetry);
  }
}
