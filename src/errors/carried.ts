import { ErrorCode } from './codes.js';
import { McpxError } from './mcpx-error.js';

/**
 * An McpxError carried in a JSON-RPC error's `data`, so a failure inside the
 * keep-alive daemon reaches the calling CLI as the error it is (its code, exit
 * code and fixes), not as an internal error. Only the daemon's socket link
 * reads it back (`DaemonSocketTransport#failureFor`); the gateway strips the
 * key from what an upstream server sends, so no server can forge one.
 */
export const CARRIED_ERROR_KEY = 'mcpxError';

const CODES: ReadonlySet<string> = new Set(Object.values(ErrorCode));

export function carryError(error: McpxError): Record<string, unknown> {
  // `cause` is an object graph (maybe an SDK error), not data: it stays behind.
  const { cause: _cause, ...context } = error.context as Record<string, unknown>;
  return {
    [CARRIED_ERROR_KEY]: {
      code: error.code,
      message: error.message,
      context,
      causes: error.causes,
      fixes: error.fixes,
    },
  };
}

export function carriedError(data: unknown): McpxError | undefined {
  const carried = (data as Record<string, unknown> | null | undefined)?.[CARRIED_ERROR_KEY] as
    | { code?: unknown; message?: unknown; context?: unknown; causes?: unknown; fixes?: unknown }
    | undefined;
  if (!carried || typeof carried.code !== 'string' || !CODES.has(carried.code)) return undefined;
  if (typeof carried.message !== 'string') return undefined;
  const lines = (value: unknown) =>
    Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
  const context = typeof carried.context === 'object' && carried.context !== null ? carried.context : {};
  return new McpxError(carried.code as ErrorCode, carried.message, {
    ...context,
    causes: lines(carried.causes),
    fixes: lines(carried.fixes),
  });
}

/** `data` without a carried error: what an upstream server says is passed on, never as ours. */
export function withoutCarriedError(data: unknown): unknown {
  if (typeof data !== 'object' || data === null || !(CARRIED_ERROR_KEY in data)) return data;
  const { [CARRIED_ERROR_KEY]: _dropped, ...rest } = data as Record<string, unknown>;
  return rest;
}
