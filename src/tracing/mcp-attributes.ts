/**
 * The names OpenTelemetry's semantic conventions give an MCP request's span (the incubating
 * `mcp.*`, `gen_ai.*` and `jsonrpc.*` attributes; pinned with the package), and the ones mcpx
 * adds where the conventions say nothing (`mcpx.*`).
 */
import type { Attributes } from '@opentelemetry/api';
import {
  ATTR_ERROR_TYPE,
  ATTR_NETWORK_PROTOCOL_NAME,
  ATTR_NETWORK_TRANSPORT,
} from '@opentelemetry/semantic-conventions';
import {
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_PROMPT_NAME,
  ATTR_GEN_AI_TOOL_CALL_ARGUMENTS,
  ATTR_GEN_AI_TOOL_CALL_RESULT,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_JSONRPC_REQUEST_ID,
  ATTR_MCP_METHOD_NAME,
  ATTR_MCP_PROTOCOL_VERSION,
  ATTR_MCP_RESOURCE_URI,
  ATTR_MCP_SESSION_ID,
  ATTR_RPC_RESPONSE_STATUS_CODE,
} from '@opentelemetry/semantic-conventions/incubating';

export {
  ATTR_ERROR_TYPE,
  ATTR_GEN_AI_TOOL_CALL_ARGUMENTS,
  ATTR_GEN_AI_TOOL_CALL_RESULT,
  ATTR_JSONRPC_REQUEST_ID,
  ATTR_MCP_PROTOCOL_VERSION,
  ATTR_MCP_SESSION_ID,
  ATTR_RPC_RESPONSE_STATUS_CODE,
};

/** The configured server a span is about (the conventions have no name for it). */
export const ATTR_MCPX_SERVER = 'mcpx.server';
/** The era a connect reached: `modern` (2026-07-28) or `legacy` (2025-11-25 and before). */
export const ATTR_MCPX_ERA = 'mcpx.era';
/** Which mcpx process served an inbound request: `gateway` (`mcpx serve`) or `daemon`. */
export const ATTR_MCPX_HOP = 'mcpx.hop';

/** How a request travels: stdio is a `pipe`, Streamable HTTP is `tcp` carrying `http`. */
export type WireKind = 'stdio' | 'http';

/** `{mcp.method.name} {target}`, the target being the tool or prompt (the conventions' span name). */
export function mcpSpanName(method: string, params: unknown): string {
  const target = requestTarget(method, params);
  return target ? `${method} ${target}` : method;
}

function requestTarget(method: string, params: unknown): string | undefined {
  if (method !== 'tools/call' && method !== 'prompts/get') return undefined;
  const name = (params as { name?: unknown } | undefined)?.name;
  return typeof name === 'string' ? name : undefined;
}

/** The attributes of one MCP request, as its client or its server sees it. */
export function mcpRequestAttributes(
  method: string,
  params: unknown,
  id: string | number | undefined,
  wire?: WireKind,
): Attributes {
  const attributes: Attributes = { [ATTR_MCP_METHOD_NAME]: method };
  if (id !== undefined) attributes[ATTR_JSONRPC_REQUEST_ID] = String(id);
  if (wire) {
    attributes[ATTR_NETWORK_TRANSPORT] = wire === 'stdio' ? 'pipe' : 'tcp';
    if (wire === 'http') attributes[ATTR_NETWORK_PROTOCOL_NAME] = 'http';
  }
  const p = params as { name?: unknown; uri?: unknown } | undefined;
  if (method === 'tools/call' && typeof p?.name === 'string') {
    attributes[ATTR_GEN_AI_TOOL_NAME] = p.name;
    attributes[ATTR_GEN_AI_OPERATION_NAME] = 'execute_tool';
  }
  if (method === 'prompts/get' && typeof p?.name === 'string') attributes[ATTR_GEN_AI_PROMPT_NAME] = p.name;
  if (method === 'resources/read' && typeof p?.uri === 'string') attributes[ATTR_MCP_RESOURCE_URI] = p.uri;
  return attributes;
}
