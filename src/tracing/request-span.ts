/**
 * The CLIENT span of one MCP request on the wire (client/trace-requests.ts decides which
 * requests get one and keeps them until their answers): its attributes, the W3C trace context
 * put into the request's `params._meta`, and what its answer or failure records.
 */
import { context, type Span, SpanKind, type Tracer, trace } from '@opentelemetry/api';
import { recordContent } from './content.js';
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
  type WireKind,
} from './mcp-attributes.js';
import { traceMeta, withoutTraceContext } from './propagation.js';
import { recordFailure } from './tracer.js';

/** A JSON-RPC request as it goes out. */
export interface OutgoingRequest {
  readonly method: string;
  readonly id: string | number;
  readonly params?: Record<string, unknown>;
}

export interface RequestSpanOptions {
  readonly server: string;
  readonly wire: WireKind;
  /** The transport's session (Streamable HTTP), when it has one. */
  readonly sessionId?: string | undefined;
}

/** A request's span, started: the request to send in its place, and how the span ends. */
export interface RequestSpan<M> {
  /** The request with this span's trace context in its `_meta` (the same object when none is carried). */
  readonly message: M;
  /** Ends the span with the request's answer (a result or a JSON-RPC error). */
  answered(response: object, protocolVersion: string | undefined): void;
  /** Ends the span as failed (a send refused, a cancel, the connection's close). */
  failed(error: unknown, type: string): void;
}

/**
 * Starts the span of `message` under the active context (a connect's handshake, a chat turn,
 * the gateway's inbound request).
 */
export function startRequestSpan<M extends OutgoingRequest>(
  tracer: Tracer,
  message: M,
  options: RequestSpanOptions,
): RequestSpan<M> {
  const { method, params, id } = message;
  const parent = context.active();
  const span: Span = tracer.startSpan(
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
  if (options.sessionId !== undefined) span.setAttribute(ATTR_MCP_SESSION_ID, options.sessionId);
  if (method === 'tools/call') recordContent(span, ATTR_GEN_AI_TOOL_CALL_ARGUMENTS, params?.arguments);
  const meta = traceMeta(trace.setSpan(parent, span));
  // This request's own context replaces, as a whole, any a caller passed on untraced
  // (`RequestControl.traceContext`): a `tracestate` never outlives the `traceparent` it went with.
  const sent =
    Object.keys(meta).length === 0
      ? message
      : {
          ...message,
          params: {
            ...params,
            _meta: { ...withoutTraceContext(params?._meta as Record<string, unknown> | undefined), ...meta },
          },
        };
  return {
    message: sent,
    answered: (response, protocolVersion) => {
      if ('error' in response) {
        const code = String((response.error as { code?: unknown }).code);
        span.setAttribute(ATTR_RPC_RESPONSE_STATUS_CODE, code);
        recordFailure(span, response.error, code);
        span.end();
        return;
      }
      if (protocolVersion) span.setAttribute(ATTR_MCP_PROTOCOL_VERSION, protocolVersion);
      const result = (response as { result?: { isError?: unknown } }).result;
      if (result?.isError === true) span.setAttribute(ATTR_ERROR_TYPE, 'tool_error');
      if (method === 'tools/call') recordContent(span, ATTR_GEN_AI_TOOL_CALL_RESULT, result);
      span.end();
    },
    failed: (error, type) => {
      recordFailure(span, error, type);
      span.end();
    },
  };
}
