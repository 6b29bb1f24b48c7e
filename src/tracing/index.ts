/**
 * Tracing: OpenTelemetry spans for what mcpx does (a connect and its steps, every MCP request,
 * a chat turn and its model call, the gateway's and the daemon's inbound requests) and the W3C
 * trace context carried in each request's `_meta`. Only `@opentelemetry/api` is imported here:
 * with no provider registered every span is a no-op. The SDK and the OTLP exporter are loaded
 * by `startTracing()` (a lazy import of `start.ts`), only when tracing is switched on.
 */
export { recordContent, recordTraceContent, tracesContent } from './content.js';
export { type InSpanOptions, inSpan, inSpanSync } from './in-span.js';
export {
  ATTR_ERROR_TYPE,
  ATTR_GEN_AI_TOOL_CALL_ARGUMENTS,
  ATTR_GEN_AI_TOOL_CALL_RESULT,
  ATTR_JSONRPC_REQUEST_ID,
  ATTR_MCP_PROTOCOL_VERSION,
  ATTR_MCP_SESSION_ID,
  ATTR_MCPX_ERA,
  ATTR_MCPX_HOP,
  ATTR_MCPX_SERVER,
  ATTR_RPC_RESPONSE_STATUS_CODE,
  mcpRequestAttributes,
  mcpSpanName,
  type WireKind,
} from './mcp-attributes.js';
export { contextFromMeta, inboundTraceContext, traceMeta, withoutTraceContext } from './propagation.js';
export {
  type OutgoingRequest,
  type RequestSpan,
  type RequestSpanOptions,
  startRequestSpan,
} from './request-span.js';
export { type Env, OTLP_DEFAULT_TRACES_ENDPOINT, type TracingWanted, tracingWanted } from './switch.js';
export { mcpxTracer, recordFailure, TRACER_NAME, tracingInert } from './tracer.js';
export type { ReadableSpan, StartTracingOptions, Tracing } from './types.js';
export { serverWaterfall, type WaterfallSpan } from './waterfall.js';
