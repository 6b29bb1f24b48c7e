import {
  type AuthProvider,
  InsufficientScopeError,
  isInitializeRequest,
  isJSONRPCErrorResponse,
  isJSONRPCNotification,
  isJSONRPCRequest,
  isJSONRPCResponse,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type OAuthClientProvider,
  ProtocolError,
  ProtocolErrorCode,
  SdkError,
  SdkHttpError,
  SSEClientTransport,
  SseError,
  StreamableHTTPClientTransport,
  type StreamableHTTPReconnectionOptions,
  type Transport,
  type TransportSendOptions,
  UnauthorizedError,
} from '@modelcontextprotocol/client';
import { ErrorCode, McpxError } from '../../errors/index.js';
import { inArrivalOrder } from '../response-order.js';
import type { AuthChallenge } from './auth-challenge.js';
import { GuardedHttp, type GuardedHttpOptions, SYNTHETIC_FAILURE_KEY } from './guarded-fetch.js';
import { type ModernRefusal, modernRefusalError, readModernRefusal } from './modern-refusal.js';
import type { FetchLike } from './pinned-fetch.js';

/** How long `close()` waits for the session's DELETE before giving up on it. */
const TERMINATE_TIMEOUT_MS = 2_000;
/** Statuses with which a pre-2025 server answers a Streamable HTTP POST (spec: backwards compatibility). */
const LEGACY_SIGNAL_STATUSES: ReadonlySet<number> = new Set([400, 404, 405]);

export type HttpTransportMode = 'streamable' | 'sse';

export interface HttpClientTransportOptions extends Omit<GuardedHttpOptions, 'serverName'> {
  readonly serverName: string;
  readonly url: string;
  /** `streamable` (config `type: "http"`, the default) or `sse` (the 2024-11-05 HTTP+SSE transport). */
  readonly mode?: HttpTransportMode;
  /** Streamable mode: switch to HTTP+SSE when `initialize` is answered 400/404/405. Default true. */
  readonly fallbackToSse?: boolean;
  /** Sent with every request (from the config's `headers`). */
  readonly headers?: Readonly<Record<string, string>>;
  /** How the SDK re-opens a broken resumable SSE stream when the server gave no `retry`. */
  readonly reconnection?: Partial<StreamableHTTPReconnectionOptions>;
  /** OAuth: tokens added to requests, refreshed when expired; a 401 goes to it instead of failing. */
  readonly authProvider?: OAuthClientProvider | AuthProvider;
  /**
   * Sign in again inside the running connection when the server refuses the
   * current token: a 403 `insufficient_scope` (step-up, with the scope it asks
   * for) or a 401 the SDK's refresh could not cure (a server that moved to
   * another authorization server). The request is then sent once more.
   * Absent: such a request fails with AUTH_REQUIRED.
   */
  readonly reauthorize?: (challenge: AuthChallenge | undefined) => Promise<void>;
  /**
   * DPoP (RFC 9449): wraps the fetch to present a DPoP-bound token with a fresh proof on each
   * request, and to answer a server's `use_dpop_nonce` challenge (the SDK's `withDpopFromProvider`).
   */
  readonly dpop?: (next: FetchLike) => FetchLike;
}

/**
 * A remote MCP server over HTTP: the SDK's Streamable HTTP client transport
 * (or its HTTP+SSE one) with every request going through {@link GuardedHttp}.
 * Adds what the SDK leaves to the host: the automatic fallback to HTTP+SSE
 * for old servers, `DELETE` of the session on close, and `failureFor`, which
 * turns what the SDK reports back into the McpxError this layer raised.
 */
export class HttpClientTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(
    message: T,
    extra?: Parameters<NonNullable<Transport['onmessage']>>[1],
  ) => void;

  readonly #http: GuardedHttp;
  readonly #url: URL;
  #mode: HttpTransportMode;
  #inner: StreamableHTTPClientTransport | SSEClientTransport;
  #protocolVersion: string | undefined;
  #closed = false;
  /** One re-authorization at a time: requests refused together wait for the same sign-in. */
  #reauthorizing: Promise<void> | undefined;
  /** Completed re-authorizations: a request sent before the latest one just goes again. */
  #signIns = 0;
  /**
   * Requests the server refused, waiting for a sign-in to be sent again, and
   * whether they were cancelled (timed out, aborted) meanwhile: a cancelled
   * one is not sent again, or a tool would run with nobody left for its result.
   */
  readonly #awaitingSignIn = new Map<string | number, { cancelled: boolean }>();
  /** Ids of the `server/discover` probes sent, to recognise the server's answer to them. */
  readonly #probeIds = new Set<string | number>();
  /** The server refused the era probe in 2026-07-28 terms (the SDK may take that for a legacy server). */
  #probeRefusal: ModernRefusal | undefined;
  /** HTTP+SSE: the event stream is open, and the requests whose answers are to come on it. */
  #eventStreamOpen = false;
  readonly #awaitingEvents = new Set<string | number>();
  #closeReason: McpxError | undefined;

  constructor(private readonly options: HttpClientTransportOptions) {
    this.#url = new URL(options.url);
    this.#http = new GuardedHttp({
      serverUrl: this.#url,
      serverOnlyHeaders: Object.keys(options.headers ?? {}),
      ...options,
      ...(options.authProvider ? { passAuthChallenges: true } : {}),
    });
    this.#mode = options.mode ?? 'streamable';
    this.#inner = this.#mode === 'sse' ? this.#createSse() : this.#createStreamable();
  }

  /** `streamable` or `sse`; changes to `sse` after an automatic fallback. */
  get mode(): HttpTransportMode {
    return this.#mode;
  }

  /** Streamable HTTP opens one POST per request (the SDK's 2026-era cancellation relies on it). */
  get hasPerRequestStream(): boolean {
    return this.#mode === 'streamable';
  }

  /** The guarded fetch this transport sends through (a sign-in renewed ahead of a request uses it too). */
  get fetch(): FetchLike {
    return this.#http.fetch;
  }

  get sessionId(): string | undefined {
    return this.#http.sessionId;
  }

  /** See {@link GuardedHttp.beginConnect}. */
  beginConnect(budgetMs: number): void {
    this.#http.beginConnect(budgetMs);
  }

  async start(): Promise<void> {
    if (this.#inner instanceof SSEClientTransport) {
      try {
        await this.#inner.start();
      } catch (error) {
        throw this.failureFor(error) ?? error;
      }
      this.#eventStreamOpen = true;
      return;
    }
    await this.#inner.start();
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if (this.#mode === 'sse' && isJSONRPCRequest(message) && message.method === 'server/discover') {
      // HTTP+SSE predates 2026-07-28: answer the era probe here instead of waiting out its timeout.
      const reply: JSONRPCMessage = {
        jsonrpc: '2.0',
        id: message.id,
        error: { code: -32601, message: 'Method not found' },
      };
      queueMicrotask(() => this.onmessage?.(reply));
      return;
    }
    if (isJSONRPCRequest(message) && message.method === 'server/discover') this.#probeIds.add(message.id);
    const cancelledId = cancelledRequestId(message);
    // A cancelled request gets no answer: stop waiting for one on the event stream.
    if (cancelledId !== undefined) this.#awaitingEvents.delete(cancelledId);
    const parked = cancelledId === undefined ? undefined : this.#awaitingSignIn.get(cancelledId);
    if (parked) {
      // The server never accepted that request: there is nothing to cancel there.
      parked.cancelled = true;
      return;
    }
    if (this.#closeReason) throw this.#closeReason;
    if (this.#mode === 'sse' && isJSONRPCRequest(message)) this.#awaitingEvents.add(message.id);
    const signInsBefore = this.#signIns;
    try {
      await (this.#inner as Transport).send(message, options);
    } catch (error) {
      if (this.#shouldReauthorize(message, error)) {
        await this.#sendAfterSignIn(message as JSONRPCRequest, options, signInsBefore);
        return;
      }
      const refusal = isInitializeRequest(message) ? modernRefusalIn(error) : undefined;
      if (refusal) {
        // A 2026-07-28 server refusing the 2025 handshake is not an HTTP+SSE server: say what it said.
        throw modernRefusalError(this.options.serverName, this.#url.href, refusal, this.#probeRefusal);
      }
      if (!this.#shouldFallBack(message, error)) throw error;
      await this.#switchToSse(error as SdkHttpError);
      await (this.#inner as Transport).send(message, options);
    }
  }

  /**
   * Sign in again — unless a sign-in finished since the request was first
   * sent, which already replaced the refused token — then send the request
   * once more, unless it was cancelled meanwhile (2025 era: a
   * `notifications/cancelled`; 2026 era: the request's own signal).
   */
  async #sendAfterSignIn(
    request: JSONRPCRequest,
    options: TransportSendOptions | undefined,
    signInsBefore: number,
  ): Promise<void> {
    const parked = { cancelled: false };
    this.#awaitingSignIn.set(request.id, parked);
    try {
      if (this.#signIns === signInsBefore) await this.#reauthorize();
    } finally {
      this.#awaitingSignIn.delete(request.id);
    }
    if (parked.cancelled || options?.requestSignal?.aborted) return;
    await (this.#inner as Transport).send(request, options);
  }

  #shouldReauthorize(message: JSONRPCMessage, error: unknown): boolean {
    if (!this.options.reauthorize || !this.options.authProvider || this.#closed) return false;
    if (!isJSONRPCRequest(message)) return false;
    if (error instanceof UnauthorizedError || error instanceof InsufficientScopeError) return true;
    const status = httpStatusOf(error);
    // A plain 403 is a refusal no sign-in changes; only a missing scope is worth asking the person about.
    if (status === 403) return this.#http.lastAuthChallenge?.error === 'insufficient_scope';
    return status === 401 || this.failureFor(error)?.code === ErrorCode.AuthRequired;
  }

  async #reauthorize(): Promise<void> {
    const challenge = this.#http.lastAuthChallenge;
    this.#reauthorizing ??= (async () => {
      try {
        await this.options.reauthorize?.(challenge);
        this.#signIns++;
      } finally {
        this.#reauthorizing = undefined;
      }
    })();
    await this.#reauthorizing;
  }

  /** Why the transport closed on its own (the HTTP+SSE event stream died), if it did. */
  closeReason(): McpxError | undefined {
    return this.#closeReason;
  }

  /**
   * HTTP+SSE has no resumption: once the event stream is gone, so are the
   * answers still to come on it, and a new stream would be a new session
   * nobody initialized. Fail the waiting requests now and close.
   */
  #eventStreamClosed(cause: Error): void {
    this.#eventStreamOpen = false;
    const waiting = [...this.#awaitingEvents];
    this.#awaitingEvents.clear();
    const failure = new McpxError(
      ErrorCode.ConnectionClosed,
      `the event stream of '${this.options.serverName}' (HTTP+SSE) closed${waiting.length > 0 ? `; ${waiting.length} request${waiting.length === 1 ? '' : 's'} waiting for an answer on it failed` : ''}`,
      {
        server: this.options.serverName,
        url: this.#url.href,
        cause,
        causes: [
          'the server restarted or dropped the connection',
          'a proxy closed the long-lived connection (an idle or read timeout)',
        ],
        fixes: [
          'try again (a tool call may already have run: check before calling it again)',
          'if a proxy sits in between, raise its read timeout for this URL',
        ],
      },
    );
    this.#closeReason = failure;
    for (const id of waiting) this.onmessage?.(this.#http.failureResponse(id, failure));
    const inner = this.#inner;
    inner.onclose = undefined;
    inner.onerror = undefined;
    void inner.close().catch(() => {});
    this.onclose?.();
  }

  setProtocolVersion(version: string): void {
    this.#protocolVersion = version;
    this.#inner.setProtocolVersion?.(version);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const inner = this.#inner;
    if (inner instanceof StreamableHTTPClientTransport && inner.sessionId !== undefined) {
      // Spec: a client that no longer needs a session SHOULD DELETE it.
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        inner.terminateSession().catch(() => {}),
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, TERMINATE_TIMEOUT_MS);
        }),
      ]);
      clearTimeout(timer);
    }
    await inner.close().catch(() => {});
    this.#http.close();
  }

  /**
   * The McpxError behind an error the SDK reports, when this layer knows it:
   * one it raised (found in the cause chain), a failure it synthesized into a
   * JSON-RPC error, or the HTTP status the SDK wrapped.
   */
  failureFor(error: unknown): McpxError | undefined {
    for (let current = error, depth = 0; current instanceof Error && depth < 6; depth++) {
      if (current instanceof McpxError) return current;
      current = current.cause;
    }
    if (error instanceof InsufficientScopeError) {
      // A step-up with no one to ask (the SDK's own OAuth is not behind this transport): the same
      // words as auth's `authError`, which the daemon's callers get for it.
      const server = this.options.serverName;
      return new McpxError(
        ErrorCode.AuthRequired,
        `'${server}' requires authorization: it needs you to sign in (or the sign-in expired)`,
        {
          server,
          url: this.#url.href,
          fixes: [
            `sign in with \`mcpx auth ${server}\``,
            'or give a bearer token in the server\'s "headers" in the config',
          ],
        },
      );
    }
    if (error instanceof ProtocolError && error.code === ProtocolErrorCode.UnsupportedProtocolVersion) {
      const refusal = readModernRefusal({
        error: { code: error.code, message: error.message, data: error.data },
      });
      if (refusal) return modernRefusalError(this.options.serverName, this.#url.href, refusal);
    }
    if (error instanceof ProtocolError) {
      const key = (error.data as Record<string, unknown> | undefined)?.[SYNTHETIC_FAILURE_KEY];
      if (typeof key === 'string') return this.#http.failures.get(key);
      return undefined;
    }
    if (error instanceof SseError) return this.#http.lastFailure ?? this.#sseFailure(error);
    const status = httpStatusOf(error);
    if (status !== undefined) {
      return new McpxError(
        status === 401 || status === 403 ? ErrorCode.AuthRequired : ErrorCode.HttpStatus,
        `'${this.options.serverName}' answered HTTP ${status}: ${(error as Error).message}`,
        { server: this.options.serverName, url: this.#url.href, httpStatus: status, cause: error },
      );
    }
    return undefined;
  }

  /** What the SDK sends through: the guarded fetch, signed per request when the tokens are DPoP-bound. */
  get #fetch(): FetchLike {
    return this.options.dpop ? this.options.dpop(this.#http.fetch) : this.#http.fetch;
  }

  #createStreamable(): StreamableHTTPClientTransport {
    const transport = new StreamableHTTPClientTransport(this.#url, {
      fetch: this.#fetch,
      requestInit: { headers: { ...this.options.headers }, redirect: 'manual' },
      // Our fetch refuses every redirect; the SDK must not follow any on its own either.
      redirectPolicy: 'follow',
      ...(this.options.authProvider ? { authProvider: this.options.authProvider } : {}),
      reconnectionOptions: {
        initialReconnectionDelay: 1_000,
        maxReconnectionDelay: 30_000,
        reconnectionDelayGrowFactor: 1.5,
        maxRetries: 3,
        ...this.options.reconnection,
      },
    });
    return this.#wire(transport);
  }

  #createSse(): SSEClientTransport {
    const transport = new SSEClientTransport(this.#url, {
      fetch: this.#fetch,
      requestInit: { headers: { ...this.options.headers }, redirect: 'manual' },
      redirectPolicy: 'follow',
      ...(this.options.authProvider ? { authProvider: this.options.authProvider } : {}),
    });
    return this.#wire(transport);
  }

  #wire<T extends Transport>(transport: T): T {
    const deliver = inArrivalOrder<Parameters<NonNullable<Transport['onmessage']>>[1]>((message, extra) =>
      this.onmessage?.(message, extra),
    );
    transport.onmessage = (message, extra) => {
      if (isJSONRPCResponse(message) && message.id !== undefined) {
        if (this.#probeIds.delete(message.id) && isJSONRPCErrorResponse(message)) {
          this.#probeRefusal = readModernRefusal(message) ?? this.#probeRefusal;
        }
        this.#awaitingEvents.delete(message.id);
      }
      deliver(message, extra);
    };
    transport.onerror = (error) => {
      const open = this.#eventStreamOpen && !this.#closed;
      if (transport instanceof SSEClientTransport && open && error instanceof SseError) {
        this.#eventStreamClosed(error);
        return;
      }
      this.onerror?.(error);
    };
    transport.onclose = () => this.onclose?.();
    return transport;
  }

  #shouldFallBack(message: JSONRPCMessage, error: unknown): boolean {
    if (this.#mode !== 'streamable' || this.options.fallbackToSse === false || this.#closed) return false;
    if (!isInitializeRequest(message)) return false;
    const status = httpStatusOf(error);
    return status !== undefined && LEGACY_SIGNAL_STATUSES.has(status);
  }

  /**
   * Spec (2025-11-25, backwards compatibility): POST initialize failed with
   * 400/404/405, so GET the URL expecting an SSE stream whose first event is
   * `endpoint`. If that fails too, say both things that were tried.
   */
  async #switchToSse(original: SdkHttpError): Promise<void> {
    const streamable = this.#inner;
    streamable.onclose = undefined;
    streamable.onerror = undefined;
    await streamable.close().catch(() => {});
    this.#mode = 'sse';
    this.#http.lastFailure = undefined;
    const sse = this.#createSse();
    this.#inner = sse;
    if (this.#protocolVersion) sse.setProtocolVersion(this.#protocolVersion);
    try {
      await sse.start();
      this.#eventStreamOpen = true;
    } catch (error) {
      const reason = this.failureFor(error);
      if (reason && reason.code !== ErrorCode.HttpStatus) throw reason;
      const status = httpStatusOf(original);
      throw new McpxError(
        ErrorCode.HttpStatus,
        `'${this.options.serverName}' at ${this.#url.href} is neither a Streamable HTTP server (POST initialize: HTTP ${status}) nor an HTTP+SSE one (GET: ${reason?.message ?? (error as Error).message})`,
        {
          server: this.options.serverName,
          url: this.#url.href,
          ...(status === undefined ? {} : { httpStatus: status }),
          cause: error,
          causes: [
            'the URL points at the wrong path (MCP endpoints are often /mcp or /sse)',
            'the service is not an MCP server',
          ],
          fixes: ["check the server's url in the config"],
        },
      );
    }
  }

  #sseFailure(error: SseError): McpxError {
    const status = typeof error.code === 'number' ? error.code : undefined;
    return new McpxError(
      status === 401 || status === 403 ? ErrorCode.AuthRequired : ErrorCode.HttpStatus,
      `'${this.options.serverName}' refused the SSE stream${status === undefined ? '' : ` (HTTP ${status})`}: ${error.message}`,
      {
        server: this.options.serverName,
        url: this.#url.href,
        ...(status === undefined ? {} : { httpStatus: status }),
        cause: error,
      },
    );
  }
}

/** The request a `notifications/cancelled` is about, if the message is one. */
function cancelledRequestId(message: JSONRPCMessage): string | number | undefined {
  if (!isJSONRPCNotification(message) || message.method !== 'notifications/cancelled') return undefined;
  const id = (message.params as { requestId?: unknown } | undefined)?.requestId;
  return typeof id === 'string' || typeof id === 'number' ? id : undefined;
}

/** The 2026-07-28 refusal in the body of an HTTP error the SDK raised, if any. */
function modernRefusalIn(error: unknown): ModernRefusal | undefined {
  if (!(error instanceof SdkHttpError)) return undefined;
  return readModernRefusal((error.data as { text?: unknown } | undefined)?.text);
}

function httpStatusOf(error: unknown): number | undefined {
  if (error instanceof SdkHttpError) {
    const status = (error.data as { status?: unknown } | undefined)?.status;
    return typeof status === 'number' ? status : undefined;
  }
  if (error instanceof SseError && typeof error.code === 'number' && error.code >= 100) return error.code;
  if (error instanceof SdkError) return undefined;
  return undefined;
}
