import type {
  CallToolResult,
  JSONRPCMessage,
  LoggingLevel,
  RequestId,
  Server,
  ServerContext,
} from '@modelcontextprotocol/server';
import type { DownstreamCall, GatewayHost } from './host.js';

export interface FastPathOptions {
  readonly host: GatewayHost;
  /** The session the calls belong to (`DownstreamCall.client`). */
  readonly client: string;
  /** The session's SDK server, once the client has connected. */
  readonly server: () => Server | undefined;
  /** One message to the client. */
  readonly send: (message: JSONRPCMessage) => Promise<void>;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The gateway's fast path on stdio: a client's `tools/call` that needs nothing
 * of the SDK server is handed to `GatewayHost.callTool` straight from the line,
 * and the upstream hop is a plain line relay where the connection allows it
 * (`CallToolOptions.relay`). It is the full path minus the two SDK hops, so it
 * is the same by construction: the same route, policy, callers, registry,
 * timeouts, errors and result. It takes a call only when all of these hold;
 * anything else goes to the SDK server as before:
 *
 * - the client finished its handshake on a 2025 revision, and the tool's server
 *   negotiated that same revision (a 2026-07-28 peer has envelopes and rounds);
 * - the request carries only `name` and an object of `arguments` (no `_meta`:
 *   no progress token, no task; the SDK server's schema check would pass it);
 * - the tool is in the catalogue now (no waiting for a server still starting)
 *   and the permission policy lets it run without asking anybody;
 * - the server is connected (a lazy restart goes the full way).
 *
 * A server's questions and log messages during such a call still reach this
 * client (its `DownstreamCall` asks through the session's SDK server, as a
 * handler's context does), a cancellation from the client ends the call and
 * its answer is dropped, as the SDK server drops it.
 */
export class FastPath {
  /** Calls taken so far. */
  #taken = 0;
  readonly #options: FastPathOptions;
  /** The fast calls in flight, by the client's request id. */
  readonly #inFlight = new Map<RequestId, AbortController>();

  constructor(options: FastPathOptions) {
    this.#options = options;
  }

  get taken(): number {
    return this.#taken;
  }

  /** Take `message` (true), or leave it to the SDK server (false). */
  take(message: JSONRPCMessage): boolean {
    if (!('method' in message)) return false;
    if (!('id' in message))
      return message.method === 'notifications/cancelled' && this.#cancel(message.params);
    if (message.method !== 'tools/call') return false;
    const server = this.#options.server();
    const version = server?.getNegotiatedProtocolVersion();
    if (!server || version === undefined || version >= '2026') return false;
    const params = message.params;
    if (!isObject(params) || typeof params.name !== 'string') return false;
    for (const key in params) if (key !== 'name' && key !== 'arguments') return false;
    const args = params.arguments ?? {};
    if (!isObject(args)) return false;
    const { host } = this.#options;
    const route = host.knownTool(params.name);
    if (!route || host.guard.refusal(route) !== undefined) return false;
    const connection = host.registry.status(route.server).connection;
    if (!connection || connection.closed || connection.protocolVersion !== version) return false;
    if (this.#inFlight.has(message.id)) return false; // a reused id: the SDK server's to refuse
    this.#taken += 1;
    void this.#call(server, message.id, params.name, args);
    return true;
  }

  async #call(server: Server, id: RequestId, name: string, args: Record<string, unknown>): Promise<void> {
    const abort = new AbortController();
    this.#inFlight.set(id, abort);
    let reply: JSONRPCMessage;
    try {
      const clientCapabilities = server.getClientCapabilities();
      const call: DownstreamCall = {
        client: this.#options.client,
        ctx: handlerContext(server, id, abort.signal),
        relay: true,
        ...(clientCapabilities ? { clientCapabilities } : {}),
      };
      const result: CallToolResult = await this.#options.host.callTool(name, args, call);
      // The SDK server's key order, so the bytes are the full path's too.
      reply = { result, jsonrpc: '2.0', id } as JSONRPCMessage;
    } catch (error) {
      // As the SDK server answers a handler's error.
      const e = error as { code?: unknown; message?: string; data?: unknown };
      reply = {
        jsonrpc: '2.0',
        id,
        error: {
          code: errorCode(e.code),
          message: e.message ?? 'Internal error',
          ...(e.data !== undefined ? { data: e.data } : {}),
        },
      };
    } finally {
      this.#inFlight.delete(id);
    }
    if (abort.signal.aborted) return;
    await this.#options.send(reply).catch(() => {});
  }

  #cancel(params: unknown): boolean {
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

/** A thrown error's code as the SDK server writes it (its codecs write -32002 as -32602). */
function errorCode(code: unknown): number {
  if (typeof code !== 'number' || !Number.isSafeInteger(code)) return -32603;
  return code === -32002 ? -32602 : code;
}

/**
 * What `GatewayHost` uses of a request handler's context, for a call the SDK
 * server never saw: the session server's own methods, which is what the SDK's
 * handler context calls on stdio (there is no per-request stream to tie them to).
 */
function handlerContext(server: Server, id: RequestId, signal: AbortSignal): ServerContext {
  const mcpReq = {
    id,
    method: 'tools/call',
    signal,
    _meta: undefined,
    notify: (notification: Parameters<Server['notification']>[0]) => server.notification(notification),
    log: (level: LoggingLevel, data: unknown, logger?: string) =>
      server.sendLoggingMessage({ level, data, ...(logger === undefined ? {} : { logger }) }),
    elicitInput: (params: never, options?: never) => server.elicitInput(params, options),
    requestSampling: (params: never, options?: never) => server.createMessage(params, options),
    send: (request: { method: string }, options?: { signal?: AbortSignal }) => {
      if (request.method === 'roots/list') return server.listRoots(undefined, options);
      return Promise.reject(new Error(`mcpx fast path: ${request.method} is not sent from a fast call`));
    },
  };
  return { mcpReq } as unknown as ServerContext;
}
