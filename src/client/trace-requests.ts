/**
 * A CLIENT span for every request a connection sends, seen on the wire so that none is
 * missed (the SDK sends its 2026-07-28 probe straight to the transport, not through
 * `request()`): its W3C trace context is injected into the request's `params._meta`,
 * and the span ends with the response, an error, a cancel or the transport's close.
 * The parent is the context active when the request is sent (a connect's handshake, a
 * chat turn, the gateway's inbound request). With tracing off (`tracingInert`) a request
 * goes untouched and unrecorded: no span, no attributes, no entry waiting for its answer.
 *
 * This module does not import OpenTelemetry: while nothing is registered with its global API
 * and no tracer was given, a request is sent as it is and the tracing code never loads. The
 * first request sent once something is registered loads it, and whatever is sent meanwhile
 * waits behind that request, so the wire keeps the order the messages were sent in.
 */
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import type { Tracer } from '@opentelemetry/api';
import type { RequestSpan, WireKind } from '../tracing/index.js';
import { loadedTracing, loadTracing, otelRegistered } from '../tracing/presence.js';
import { tapInbound } from './inbound-tap.js';

export interface TraceRequestsOptions {
  /** Default: the global API's (a no-op until a provider is registered). */
  readonly tracer?: Tracer;
  readonly server: string;
  readonly wire: WireKind;
  /** The version negotiated so far (known after the handshake). */
  readonly protocolVersion: () => string | undefined;
}

type Id = string | number;
type Request = JSONRPCMessage & { method: string; id: Id; params?: Record<string, unknown> };

const isRequest = (message: JSONRPCMessage): message is Request =>
  'method' in message && 'id' in message && message.id !== undefined;

/** Traces every request `transport` sends from now on. */
export function traceRequests(transport: Transport, options: TraceRequestsOptions): void {
  const pending = new Map<Id, RequestSpan<JSONRPCMessage>>();
  const fail = (id: Id, error: unknown, type: string) => {
    const request = pending.get(id);
    if (!request) return;
    pending.delete(id);
    request.failed(error, type);
  };
  let tracer = options.tracer;
  const send = transport.send.bind(transport);
  const sendNow: Transport['send'] = (message, sendOptions) => {
    if (isRequest(message)) {
      const tracing = loadedTracing();
      tracer ??= tracing?.mcpxTracer();
      // Tracing off: the request goes as it is, and nothing waits for its answer here.
      if (!tracing || !tracer || tracing.tracingInert(tracer)) return send(message, sendOptions);
      const sessionId = (transport as { sessionId?: unknown }).sessionId;
      const span = tracing.startRequestSpan(tracer, message, {
        server: options.server,
        wire: options.wire,
        ...(typeof sessionId === 'string' ? { sessionId } : {}),
      });
      pending.set(message.id, span);
      const sent = send(span.message, sendOptions);
      // Over HTTP a refusal (a status, a broken stream) comes back as the send's failure.
      sent.catch((error: unknown) => fail(message.id, error, 'transport_error'));
      return sent;
    }
    if ('method' in message && message.method === 'notifications/cancelled') {
      const id = (message.params as { requestId?: Id } | undefined)?.requestId;
      if (id !== undefined) fail(id, new Error('cancelled by the client'), 'cancelled');
    }
    return send(message, sendOptions);
  };
  // While the tracing code loads, what is sent waits for it, in the order it was sent.
  let loading: Promise<unknown> | undefined;
  let waiting = 0;
  transport.send = (message, sendOptions) => {
    if (
      loading === undefined &&
      (loadedTracing() !== undefined || !isRequest(message) || (!options.tracer && !otelRegistered()))
    )
      return sendNow(message, sendOptions);
    loading ??= loadTracing().catch(() => undefined);
    waiting++;
    return loading
      .then(() => sendNow(message, sendOptions))
      .finally(() => {
        if (--waiting === 0) loading = undefined;
      });
  };
  tapInbound(transport, (message) => {
    if (pending.size === 0 || !('id' in message) || 'method' in message || message.id === undefined)
      return message;
    const request = pending.get(message.id as Id);
    if (!request) return message;
    pending.delete(message.id as Id);
    request.answered(message, options.protocolVersion());
    return message;
  });
  const close = transport.close.bind(transport);
  transport.close = async () => {
    for (const id of [...pending.keys()])
      fail(id, new Error('the connection closed before the answer'), 'connection_closed');
    return close();
  };
}
