import { ErrorCode } from '../errors/index.js';
import { forModel } from '../text/index.js';

/** What a label value beyond its cap, or one that is empty once cleaned, is counted as. */
export const OTHER = '_other';

/** Characters kept of one label value: a tool name is short; a longer one is a server's prank. */
export const MAX_LABEL_LENGTH = 128;

/**
 * Distinct values one label may take in the life of the process (the rest count as `_other`).
 * Every one comes from outside mcpx: tool and server names from servers, error types from
 * servers' JSON-RPC error codes, methods from clients. An upstream that lists a fresh tool name
 * every minute, or answers with a code of its own each time, must not make every scrape, and
 * Prometheus's memory, grow without end. Error types and methods mcpx knows
 * ({@link KNOWN_ERROR_TYPES}, {@link KNOWN_METHODS}) are always themselves and take no place
 * under the cap.
 */
export const DEFAULT_LABEL_LIMITS = { server: 100, tool: 500, method: 50, errorType: 50 } as const;

/** `error.type` of a tool's own error result (the MCP semantic conventions'): not a failure of mcpx's. */
export const TOOL_ERROR = 'tool_error';

/**
 * The `error.type` values whose number is mcpx's to fix, kept apart however many others came
 * first: a tool's error result, mcpx's own error codes (`SERVER_CRASHED`, …), and the codes
 * JSON-RPC 2.0 (§5.1) and MCP name (resource not found, a client capability missing, a
 * protocol version unsupported, a URL elicitation required).
 */
export const KNOWN_ERROR_TYPES: readonly string[] = [
  TOOL_ERROR,
  ...Object.values(ErrorCode),
  ...[-32700, -32600, -32601, -32602, -32603, -32002, -32021, -32022, -32042].map(String),
];

/**
 * The MCP methods a client may ask of a server (both eras), kept apart however many made-up
 * methods came first.
 */
export const KNOWN_METHODS: readonly string[] = [
  'initialize',
  'ping',
  'server/discover',
  'tools/list',
  'tools/call',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'resources/subscribe',
  'resources/unsubscribe',
  'subscriptions/listen',
  'prompts/list',
  'prompts/get',
  'completion/complete',
  'logging/setLevel',
  'tasks/get',
  'tasks/result',
  'tasks/list',
  'tasks/cancel',
];

/**
 * The values one label has taken, up to `limit`: each new value is cleaned (terminal controls,
 * invisible and reordering characters, newlines gone; cut at `MAX_LABEL_LENGTH`) and counted;
 * past the limit every new value becomes `_other`. `known` values are themselves always, and
 * take no place under the limit. Quotes and backslashes stay: the exposition format escapes them.
 */
export function boundedLabel(limit: number, known: Iterable<string> = []): (value: string) => string {
  const always = new Set(known);
  const seen = new Map<string, string>();
  return (value) => {
    if (always.has(value)) return value;
    const shown = seen.get(value);
    if (shown !== undefined) return shown;
    if (seen.size >= limit) return OTHER;
    const cleaned = forModel(value)
      .replace(/\p{Cc}/gu, ' ')
      .trim()
      .slice(0, MAX_LABEL_LENGTH);
    const label = cleaned === '' ? OTHER : cleaned;
    seen.set(value, label);
    return label;
  };
}
