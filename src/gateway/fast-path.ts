import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  type JSONRPCMessage,
  type LoggingLevel,
  PROTOCOL_VERSION_META_KEY,
  type RequestId,
  SERVER_INFO_META_KEY,
  type Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { CallCancel } from '../client/index.js';
import { MODERN_REVISION } from '../transport/index.js';
import type { GatewayCore } from './core.js';
import { withRequestCancel } from './input-rounds.js';
import { type SessionToolCall, sessionToolCall } from './session-server.js';

/**
 * The gateway's fast paths: a client's plain `tools/call` taken off the wire
 * before the SDK server and handed to the session server's own `tools/call`
 * handler (`sessionToolCall`): the same route, policy, consent, rounds, audit,
 * access log, metrics, timeouts, errors and result. What is skipped is the SDK
 * server's dispatch (its schema check of a request already known to be plain,
 * its per-request context) and, over HTTP, the web `Request`/`Response` and
 * stream conversions and (2026-07-28) a fresh SDK server per request. The
 * upstream hop may be a plain line relay where the connection allows it
 * (`CallToolOptions.relay`). A request takes a fast path only when it is plain:
 *
 * - a JSON-RPC request with an id the SDK accepts, `params` holding `name`, an
 *   object of `arguments`, and (2026-07-28 only) the bare envelope: no progress
 *   token, no task, no trace context, no log level, no input responses or state;
 * - on a 2025 session: the client finished its handshake; over HTTP it also
 *   keeps its standalone GET stream open (where the SDK server sends what a
 *   call's server asks or logs: on stdio there is one stream anyway);
 * - over HTTP: its headers are what the SDK's checks would pass (see
 *   `http/listener.ts`); a 2025 session's client declared neither sampling,
 *   elicitation nor roots (so nothing of a call needs the call's own stream; a
 *   2026-07-28 client is asked in `input_required` rounds, run by the handler
 *   the same either way), and no tasks.
 *
 * Everything else goes through the SDK server's dispatch. A cancellation from the
 * client ends a fast call and its answer is dropped, as the SDK server drops it.
 */

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A JSON-RPC id the SDK's message schema accepts. */
const isRequestId = (id: unknown): id is RequestId =>
  typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id));

/** A plain `tools/call` request: what the fast paths take. */
export interface PlainCall {
  readonly id: RequestId;
  readonly name: string;
  readonly args: Record<string, unknown>;
}

/**
 * `message` as a plain `tools/call` of a 2025 session (no `_meta`), or undefined.
 * `allowed`: the `params` keys allowed beside `name` and `arguments`.
 */
export function plainCall(
  message: unknown,
  allowed: ReadonlySet<string> = NO_MORE_KEYS,
): PlainCall | undefined {
  if (!isObject(message) || message.jsonrpc !== '2.0' || message.method !== 'tools/call') return undefined;
  if (!isRequestId(message.id)) return undefined;
  for (const key in message)
    if (key !== 'jsonrpc' && key !== 'id' && key !== 'method' && key !== 'params') return undefined;
  const params = message.params;
  if (!isObject(params) || typeof params.name !== 'string') return undefined;
  for (const key in params) if (key !== 'name' && key !== 'arguments' && !allowed.has(key)) return undefined;
  const args = params.arguments ?? {};
  if (!isObject(args)) return undefined;
  return { id: message.id, name: params.name, args };
}

const NO_MORE_KEYS: ReadonlySet<string> = new Set();
const ENVELOPE_ONLY: ReadonlySet<string> = new Set(['_meta']);
const ENVELOPE_KEYS = new Set([
  PROTOCOL_VERSION_META_KEY,
  CLIENT_INFO_META_KEY,
  CLIENT_CAPABILITIES_META_KEY,
]);

/** Capabilities that let a server's call ask its client something: such a 2025 client takes the full path over HTTP. */
const ASKING_CAPABILITIES = ['sampling', 'elicitation', 'roots', 'tasks'] as const;

/** Whether declared client capabilities leave a call nothing to ask the client. */
export function asksNothing(capabilities: unknown): boolean {
  if (capabilities === undefined) return true;
  if (!isObject(capabilities)) return false;
  return ASKING_CAPABILITIES.every((key) => capabilities[key] === undefined);
}

/** The calls of one client session (stdio, or a 2025-11-25 session over HTTP) that took a fast path. */
export class SessionFastCalls {
  /** Calls taken so far. */
  #taken = 0;
  /** The fast calls in flight, by the client's request id. */
  readonly #inFlight = new Map<RequestId, CallCancel>();
  readonly #server: Server;
  readonly #sessionId: string | undefined;

  /** `server`: the session's SDK server (made by `createSessionServer`); `sessionId`: over HTTP. */
  constructor(server: Server, sessionId?: string) {
    this.#server = server;
    this.#sessionId = sessionId;
  }

  get taken(): number {
    return this.#taken;
  }

  /** Whether the session's client finished a 2025 handshake the session's handler serves. */
  get ready(): boolean {
    const version = this.#server.getNegotiatedProtocolVersion();
    return version !== undefined && version < '2026' && sessionToolCall(this.#server) !== undefined;
  }

  /** The negotiated protocol version (after `ready`). */
  get protocolVersion(): string | undefined {
    return this.#server.getNegotiatedProtocolVersion();
  }

  get clientCapabilities(): unknown {
    return this.#server.getClientCapabilities();
  }

  /** A reused id is the SDK server's to refuse. */
  has(id: RequestId): boolean {
    return this.#inFlight.has(id);
  }

  /**
   * Run `call` as the session server's handler runs it; resolves with the reply, as the SDK
   * server words it, or undefined when the client cancelled it.
   */
  async run(call: PlainCall, relay: boolean): Promise<JSONRPCMessage | undefined> {
    const toolCall = sessionToolCall(this.#server) as SessionToolCall;
    const cancel = new CallCancel();
    this.#taken += 1;
    this.#inFlight.set(call.id, cancel);
    try {
      const ctx = sessionContext(this.#server, call.id, cancel, this.#sessionId);
      const result = await toolCall({ name: call.name, arguments: call.args }, ctx, relay ? { relay } : {});
      if (cancel.aborted) return undefined;
      // The SDK server's key order, so the bytes are the full path's too.
      return { result, jsonrpc: '2.0', id: call.id } as JSONRPCMessage;
    } catch (error) {
      if (cancel.aborted) return undefined;
      return errorReply(call.id, error);
    } finally {
      this.#inFlight.delete(call.id);
    }
  }

  /** A client's `notifications/cancelled`: true when it named a fast call (now ended). */
  cancel(params: unknown): boolean {
    const id = isObject(params) ? params.requestId : undefined;
    const call = id === undefined ? undefined : this.#inFlight.get(id as RequestId);
    if (!call) return false;
    call.abort(isObject(params) ? params.reason : undefined);
    return true;
  }

  /** The client went away: its calls end as the SDK server ends its handlers'. */
  close(): void {
    for (const call of this.#inFlight.values()) call.abort(new Error('the client disconnected'));
  }
}

/** A thrown error as the SDK server answers a handler's (its codecs write -32002 as -32602). */
export function errorReply(id: RequestId, error: unknown): JSONRPCMessage {
  const e = error as { code?: unknown; message?: string; data?: unknown };
  const code = typeof e.code === 'number' && Number.isSafeInteger(e.code) ? e.code : -32603;
  return {
    jsonrpc: '2.0',
    id,
    error: {
      code: code === -32002 ? -32602 : code,
      message: e.message ?? 'Internal error',
      ...(e.data !== undefined ? { data: e.data } : {}),
    },
  };
}

/**
 * What the session handler uses of a request handler's context, for a call the SDK server
 * never saw: the session server's own methods, which is what the SDK's handler context
 * calls on stdio; over HTTP they reach the client on its standalone stream. Made once per
 * call with many in flight, so its methods live on the prototype: a call allocates this
 * object, not a closure per method.
 */
class FastCallRequest {
  readonly method = 'tools/call';
  readonly _meta = undefined;
  readonly id: RequestId;
  readonly #server: Server;
  readonly #cancel: CallCancel;
  readonly #sessionId: string | undefined;

  constructor(server: Server, id: RequestId, cancel: CallCancel, sessionId: string | undefined) {
    this.#server = server;
    this.id = id;
    this.#cancel = cancel;
    this.#sessionId = sessionId;
  }

  /** Made only if something asks: the upstream request watches `cancel` itself. */
  get signal(): AbortSignal {
    return this.#cancel.signal;
  }

  requestState(): undefined {
    return undefined;
  }

  notify(notification: Parameters<Server['notification']>[0]): Promise<void> {
    return this.#server.notification(notification);
  }

  log(level: LoggingLevel, data: unknown, logger?: string): Promise<void> {
    return this.#server.sendLoggingMessage(
      { level, data, ...(logger === undefined ? {} : { logger }) },
      this.#sessionId,
    );
  }

  elicitInput(params: never, options?: never): ReturnType<Server['elicitInput']> {
    return this.#server.elicitInput(params, options);
  }

  requestSampling(params: never, options?: never): ReturnType<Server['createMessage']> {
    return this.#server.createMessage(params, options);
  }

  send(request: { method: string }, options?: { signal?: AbortSignal }): Promise<unknown> {
    if (request.method === 'roots/list') return this.#server.listRoots(undefined, options);
    return Promise.reject(new Error(`mcpx fast path: ${request.method} is not sent from a fast call`));
  }
}

/** A fast call's handler context (see `FastCallRequest`). */
export function sessionContext(
  server: Server,
  id: RequestId,
  cancel: CallCancel,
  sessionId?: string,
): ServerContext {
  const mcpReq = withRequestCancel(new FastCallRequest(server, id, cancel, sessionId), cancel);
  return (sessionId === undefined ? { mcpReq } : { mcpReq, sessionId }) as unknown as ServerContext;
}

export interface FastPathOptions {
  readonly core: GatewayCore;
  /** The session's SDK server, once the client has connected. */
  readonly server: () => Server | undefined;
  /** One message to the client. */
  readonly send: (message: JSONRPCMessage) => Promise<void>;
}

/**
 * The fast path on stdio: a plain `tools/call` from the line, when the tool is in the
 * catalogue now (no waiting for a server still starting), the policy lets it run without
 * asking anybody, and its server is connected on the client's own revision (a 2026-07-28
 * peer has envelopes and rounds; a lazy restart goes the full way). The upstream hop is
 * then a line relay where the connection allows it.
 */
export class FastPath {
  readonly #options: FastPathOptions;
  #calls: SessionFastCalls | undefined;

  constructor(options: FastPathOptions) {
    this.#options = options;
  }

  get taken(): number {
    return this.#calls?.taken ?? 0;
  }

  /** Take `message` (true), or leave it to the SDK server (false). */
  take(message: JSONRPCMessage): boolean {
    if (!('method' in message)) return false;
    const calls = this.#session();
    if (!calls) return false;
    if (!('id' in message))
      return message.method === 'notifications/cancelled' && calls.cancel(message.params);
    if (message.method !== 'tools/call' || !calls.ready) return false;
    const call = plainCall(message);
    if (!call || calls.has(call.id)) return false;
    const { core } = this.#options;
    const route = core.knownTool(call.name);
    if (!route || core.guard.refusal(route) !== undefined) return false;
    const connection = core.registry.liveConnection(route.server);
    if (connection?.protocolVersion !== calls.protocolVersion) return false;
    void calls.run(call, true).then((reply) => {
      if (reply) return this.#options.send(reply).catch(() => {});
    });
    return true;
  }

  #session(): SessionFastCalls | undefined {
    if (this.#calls) return this.#calls;
    const server = this.#options.server();
    if (server) this.#calls = new SessionFastCalls(server);
    return this.#calls;
  }

  /** The client went away: its calls end as the SDK server ends its handlers'. */
  close(): void {
    this.#calls?.close();
  }
}

/** What a 2026-07-28 fast call is answered with: the status and JSON body the SDK would send. */
export interface ModernReply {
  readonly status: number;
  readonly body: string;
}

/** A plain 2026-07-28 `tools/call`: a plain call and its envelope. */
export interface ModernCall extends PlainCall {
  readonly envelope: Record<string, unknown>;
}

/**
 * `message` as a plain 2026-07-28 `tools/call` (the bare envelope: protocol version,
 * client info and capabilities, nothing else; no tasks), or undefined.
 */
export function plainModernCall(message: unknown): ModernCall | undefined {
  const call = plainCall(message, ENVELOPE_ONLY);
  if (!call) return undefined;
  const meta = (message as { params: Record<string, unknown> }).params._meta;
  if (!isObject(meta)) return undefined;
  for (const key in meta) if (!ENVELOPE_KEYS.has(key)) return undefined;
  if (meta[PROTOCOL_VERSION_META_KEY] !== MODERN_REVISION) return undefined;
  const info = meta[CLIENT_INFO_META_KEY];
  if (!isObject(info) || typeof info.name !== 'string' || typeof info.version !== 'string') return undefined;
  for (const key in info) if (key !== 'name' && key !== 'version') return undefined;
  const capabilities = meta[CLIENT_CAPABILITIES_META_KEY];
  // A client that can answer questions is asked in `input_required` rounds, which the session
  // handler runs the same either way; tasks are the SDK's to negotiate.
  if (!isObject(capabilities) || capabilities.tasks !== undefined) return undefined;
  return { ...call, envelope: meta };
}

/**
 * Run a plain 2026-07-28 call (`plainModernCall`) as a fresh per-request session server's
 * handler runs it, and word the answer as the SDK's per-request transport does: the result
 * stamped `resultType: "complete"` and the server's identity in `_meta` (the 2026-07-28
 * codec's encode), an error in-band with 200 (400 for -32021, as the spec asks).
 * `headers`: the request's, for the client's identity (its bearer token); `cancel`: the client
 * hanging up.
 */
export async function runModernCall(
  toolCall: SessionToolCall,
  call: ModernCall,
  headers: { get(name: string): string | null },
  client: string,
  serverInfo: { readonly name: string; readonly version: string },
  cancel: CallCancel,
): Promise<ModernReply> {
  const { envelope } = call;
  const mcpReq = withRequestCancel(
    {
      id: call.id,
      method: 'tools/call',
      get signal() {
        return cancel.signal;
      },
      _meta: envelope,
      envelope,
      requestState: () => undefined,
      // A 2026-07-28 request without a log level asks for no log messages; without a progress
      // token, no progress; its server's questions go in `input_required` rounds, not requests.
      log: () => Promise.resolve(),
      notify: () => Promise.resolve(),
      elicitInput: () => Promise.reject(new Error('mcpx fast path: a 2026-07-28 client is asked in rounds')),
      requestSampling: () =>
        Promise.reject(new Error('mcpx fast path: a 2026-07-28 client is asked in rounds')),
      send: () => Promise.reject(new Error('mcpx fast path: a 2026-07-28 client is asked in rounds')),
    },
    cancel,
  );
  const ctx = { mcpReq, http: { req: { headers } } } as unknown as ServerContext;
  try {
    const result = await toolCall({ name: call.name, arguments: call.args }, ctx, { client, relay: true });
    const encoded = stampServerInfo(stampComplete(result as Record<string, unknown>), serverInfo);
    return { status: 200, body: JSON.stringify({ result: encoded, jsonrpc: '2.0', id: call.id }) };
  } catch (error) {
    const reply = errorReply(call.id, error) as { error: { code: number } };
    return { status: reply.error.code === -32021 ? 400 : 200, body: JSON.stringify(reply) };
  }
}

/** The 2026-07-28 codec's first stamp: a result without `resultType` is `complete`. */
function stampComplete(result: Record<string, unknown>): Record<string, unknown> {
  return result.resultType === undefined ? { ...result, resultType: 'complete' } : result;
}

/** The 2026-07-28 codec's last stamp: the server's identity in the result's `_meta`, unless it names one. */
function stampServerInfo(result: Record<string, unknown>, serverInfo: object): Record<string, unknown> {
  const meta = result._meta;
  if (meta === undefined) return { ...result, _meta: { [SERVER_INFO_META_KEY]: serverInfo } };
  if (!isObject(meta) || meta[SERVER_INFO_META_KEY] !== undefined) return result;
  return { ...result, _meta: { ...meta, [SERVER_INFO_META_KEY]: serverInfo } };
}
