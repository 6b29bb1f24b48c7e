import type { JSONRPCMessage, RequestId, Server } from '@modelcontextprotocol/server';
import { CallCancel } from '../client/index.js';
import { mcpxTracer, tracingInert } from '../tracing/index.js';
import { isRelayId } from '../transport/index.js';
import type { DownstreamCall, GatewayCore } from './core.js';
import { errorReply, type PlainCall, plainCall, sessionContext } from './fast-path.js';
import type { RequestEvent } from './session-server.js';
import { errorTypeOf, TOOL_ERROR } from './upstream-error.js';

/** What a session's held calls run on, and report to. */
export interface HeldCallsOptions {
  /** The held server's core (transparent, the daemon's instance). */
  readonly core: GatewayCore;
  /** The session's client name, as its session server has it (the server's questions go back by it). */
  readonly client: string;
  /** The session's SDK server, once its caller has connected. */
  readonly server: () => Server | undefined;
  /** The session server's own `onRequest`: each call told to it as its `tools/call` handler tells it. */
  readonly onRequest?: ((event: RequestEvent) => void) | undefined;
  /** One message to the caller. */
  readonly send: (message: JSONRPCMessage) => Promise<void>;
}

/**
 * The plain calls of another gateway in the same process (the daemon's session of a thin
 * `mcpx serve`), on one held server: the other gateway's fast path has already parsed,
 * routed, audited and let its call through, and its line relay hands the request over (the
 * in-process link, `daemon/in-process-link.ts`); the held server's core runs it from
 * `callAllowed`, straight to the server's own line relay. What the session server's
 * `tools/call` handler adds per call is done here as it does it: the call told to
 * `onRequest` (the daemon's counts and metrics) with the same route, duration, outcome and
 * error type, the call counted as this client's (so a question the server asks during it goes
 * back to this session), its cancellation, and the reply worded as the SDK server words it.
 * What it skips is that handler's wrapping and the fast path's second parse of the request.
 *
 * A call is taken only where the session handler's own fast path would take it and nothing
 * more is owed per call: a plain 2025 call of a relay (`RELAY_ID_PREFIX` id), to a tool known
 * now with no re-listing under way, that the held server's policy lets run unasked, its server
 * connected on the session's revision, no audit trail in this core and no span to open.
 * Everything else goes the session server's way.
 */
export class HeldCalls {
  readonly #options: HeldCallsOptions;
  readonly #inFlight = new Map<RequestId, CallCancel>();
  #taken = 0;
  /** The session server's: with anything recording, its handler opens the call's span (and runs it). */
  readonly #tracer = mcpxTracer();

  constructor(options: HeldCallsOptions) {
    this.#options = options;
  }

  /** Calls taken so far. */
  get taken(): number {
    return this.#taken;
  }

  /** Take `message` (true), or leave it to the session server's fast path and dispatch (false). */
  take(message: JSONRPCMessage): boolean {
    if (!('method' in message)) return false;
    if (!('id' in message))
      return message.method === 'notifications/cancelled' && this.#cancel(message.params);
    if (message.method !== 'tools/call' || !isRelayId(message.id)) return false;
    const { core } = this.#options;
    const server = this.#options.server();
    const version = server?.getNegotiatedProtocolVersion();
    if (!server || version === undefined || version >= '2026') return false;
    const call = plainCall(message);
    if (!call || this.#inFlight.has(call.id) || core.audit !== undefined || !tracingInert(this.#tracer))
      return false;
    const route = core.knownTool(call.name);
    if (!route || core.guard.refusal(route) !== undefined) return false;
    if (core.registry.toolsRefreshing(route.server)) return false;
    if (core.registry.liveConnection(route.server)?.protocolVersion !== version) return false;
    this.#taken += 1;
    void this.#run(server, call, route).then((reply) => {
      if (reply) return this.#options.send(reply).catch(() => {});
    });
    return true;
  }

  async #run(
    server: Server,
    call: PlainCall,
    route: NonNullable<ReturnType<GatewayCore['knownTool']>>,
  ): Promise<JSONRPCMessage | undefined> {
    const { core, client, onRequest } = this.#options;
    const cancel = new CallCancel();
    this.#inFlight.set(call.id, cancel);
    const started = performance.now();
    let outcome: RequestEvent['outcome'] = 'error';
    let errorType: string | undefined;
    try {
      const clientCapabilities = server.getClientCapabilities();
      const clientInfo = server.getClientVersion();
      const downstream: DownstreamCall = {
        client,
        ctx: sessionContext(server, call.id, cancel),
        ...(clientCapabilities ? { clientCapabilities } : {}),
        ...(clientInfo ? { clientInfo: { name: clientInfo.name, version: clientInfo.version } } : {}),
        relay: true,
      };
      const result = await core.callAllowed(route, call.args, downstream);
      outcome = result.isError ? 'tool-error' : 'ok';
      if (result.isError) errorType = TOOL_ERROR;
      if (cancel.aborted) return undefined;
      // The SDK server's key order, as the session's fast path words it.
      return { result, jsonrpc: '2.0', id: call.id } as JSONRPCMessage;
    } catch (error) {
      errorType = errorTypeOf(error);
      if (cancel.aborted) return undefined;
      return errorReply(call.id, error);
    } finally {
      this.#inFlight.delete(call.id);
      onRequest?.({
        client,
        method: 'tools/call',
        server: route.server,
        tool: route.name,
        arguments: call.args,
        durationMs: Math.round((performance.now() - started) * 100) / 100,
        outcome,
        ...(errorType === undefined ? {} : { errorType }),
      });
    }
  }

  /** A `notifications/cancelled` naming a held call: it ends, its answer dropped. */
  #cancel(params: unknown): boolean {
    const { requestId, reason } = (params ?? {}) as { requestId?: RequestId; reason?: unknown };
    const cancel = requestId === undefined ? undefined : this.#inFlight.get(requestId);
    if (!cancel) return false;
    cancel.abort(reason);
    return true;
  }

  /** The caller went away: its calls end as the SDK server ends its handlers'. */
  close(): void {
    for (const cancel of this.#inFlight.values()) cancel.abort(new Error('the client disconnected'));
  }
}
