/**
 * A CLIENT span for every request a connection sends, seen on the wire so that none is
 * missed (the SDK sends its 2026-07-28 probe straight to the transport, not through
 * `request()`): its W3C trace context is injected into the request's `params._meta`,
 * and the span ends with the response, an error, a cancel or the transport's close.
 * The parent is the context active when the request is sent (a connect's handshake, a
 * chat turn, the gateway's inbound request). With tracing off (`tracingInert`) a request
 * goes untouched and unrecorded: no span, no attributes, no entry waiting for its answer.
 */
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import { context, type Span, SpanKind, type Tracer, trace } from '@opentelemetry/api';
import {
  ATTR_ERROR_TYPE,
  ATTR_GEN_AI_TOOL_CALL_ARGUMENTS,
  ATTR_GEN_AI_TOOL_CALL_RESULT,
  ATTR_MCP_PROTOCOL_VERSION,
  ATTR_MCP_SESSION_ID,
  ATTR_MCPX_SERVER,
  ATTR_RPC_RESPONSE_STATUS_CODE,
  mcpRequestAttributes,
  mcpSpanName,
  recordContent,
  recordFailure,
  traceMeta,
  tracingInert,
  type WireKind,
  withoutTraceContext,
} from '../tracing/index.js';
import { tapInbound } from './inbound-tap.js';

export interface TraceRequestsOptions {
  readonly tracer: Tracer;
  readonly server: string;
  readonly wire: WireKind;
  /** The version negotiated so far (known after the handshake). */
  readonly protocolVersion: () => string | undefined;
}

type Id = string | number;

/** Traces every request `transport` sends from now on. */
export function traceRequests(transport: Transport, options: TraceRequestsOptions): void {
  const pending = new Map<Id, { span: Span; method: string }>();
  const end = (id: Id, failure?: { error: unknown; type: string }) => {
    const span = pending.get(id)?.span;
    if (!span) return;
    pending.delete(id);
    if (failure) recordFailure(span, failure.error, failure.type);
    span.end();
  };
  const send = transport.send.bind(transport);
  transport.send = (message, sendOptions) => {
    if ('method' in message && 'id' in message && message.id !== undefined) {
      // Tracing off: the request goes as it is, and nothing waits for its answer here.
      if (tracingInert(options.tracer)) return send(message, sendOptions);
      const traced = startRequest(message, options, transport);
      pending.set(message.id, { span: traced.span, method: message.method });
      const sent = send(traced.message, sendOptions);
      // Over HTTP a refusal (a status, a broken stream) comes back as the send's failure.
      sent.catch((error: unknown) => end(message.id as Id, { error, type: 'transport_error' }));
      return sent;
    }
    if ('method' in message && message.method === 'notifications/cancelled') {
      const id = (message.params as { requestId?: Id } | undefined)?.requestId;
      if (id !== undefined) end(id, { error: new Error('cancelled by the client'), type: 'cancelled' });
    }
    return send(message, sendOptions);
  };
  tapInbound(transport, (message) => {
    if (pending.size === 0 || !('id' in message) || 'method' in message || message.id === undefined)
      return message;
    const request = pending.get(message.id as Id);
    if (!request) return message;
    const { span } = request;
    if ('error' in message) {
      const code = String(message.error.code);
      span.setAttribute(ATTR_RPC_RESPONSE_STATUS_CODE, code);
      end(message.id as Id, { error: message.error, type: code });
      return message;
    }
    const version = options.protocolVersion();
    if (version) span.setAttribute(ATTR_MCP_PROTOCOL_VERSION, version);
    const result = (message as { result?: { isError?: unknown } }).result;
    if (result?.isError === true) span.setAttribute(ATTR_ERROR_TYPE, 'tool_error');
    if (request.method === 'tools/call') recordContent(span, ATTR_GEN_AI_TOOL_CALL_RESULT, result);
    end(message.id as Id);
    return message;
  });
  const close = transport.close.bind(transport);
  transport.close = async () => {
    for (const id of [...pending.keys()])
      end(id, { error: new Error('the connection closed before the answer'), type: 'connection_closed' });
    return close();
  };
}

function startRequest(
  message: JSONRPCMessage & { method: string; id: Id; params?: Record<string, unknown> },
  options: TraceRequestsOptions,
  transport: Transport,
): { span: Span; message: JSONRPCMessage } {
  const { method, params, id } = message;
  const parent = context.active();
  const span = options.tracer.startSpan(
    mcpSpanName(method, params),
    {
      kind: SpanKind.CLIENT,
      attributes: {
        ...mcpRequestAttributes(method, params, id, options.wire),
        [ATTR_MCPX_SERVER]: options.server,
      },
    },
    parent,
  );
  const sessionId = (transport as { sessionId?: unknown }).sessionId;
  if (typeof sessionId === 'string') span.setAttribute(ATTR_MCP_SESSION_ID, sessionId);
  if (method === 'tools/call') recordContent(span, ATTR_GEN_AI_TOOL_CALL_ARGUMENTS, params?.arguments);
  const meta = traceMeta(trace.setSpan(parent, span));
  if (Object.keys(meta).length === 0) return { span, message };
  // This request's own context replaces, as a whole, any a caller passed on untraced
  // (`RequestControl.traceContext`): a `tracestate` never outlives the `traceparent` it went with.
  const inherited = withoutTraceContext(params?._meta as Record<string, unknown> | undefined);
  const withMeta = { ...message, params: { ...params, _meta: { ...inherited, ...meta } } };
  return { span, message: withMeta as JSONRPCMessage };
}
