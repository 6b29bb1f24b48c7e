import { ProtocolError as UpstreamProtocolError } from '@modelcontextprotocol/client';
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { carryError, type McpxError, toMcpxError, withoutCarriedError } from '../errors/index.js';

/**
 * What a client is told when an upstream request failed. A JSON-RPC error the
 * server itself answered passes through with its code and message (the gateway
 * is transparent); anything else (a crash, a timeout, a server that cannot
 * start) becomes an internal error that says what happened and how to fix it,
 * never a stack trace. For the daemon (`carryErrors`) such a failure also
 * carries itself in `data` (`errors/carried.ts`): its CLI reports it as the
 * direct path does (the same message and exit code: a crash, a timeout, a
 * server that cannot start) and, for an authorization failure at a terminal,
 * signs in and sends the request again. A carried error an upstream server
 * wrote is always dropped.
 */
export function toClientError(error: unknown, carryErrors = false): ProtocolError {
  if (error instanceof ProtocolError) {
    const data = withoutCarriedError(error.data);
    return data === error.data ? error : new ProtocolError(error.code, error.message, data);
  }
  const failure = toMcpxError(error);
  const cause = failure.cause;
  // The client and server packages each have their own ProtocolError class.
  if (cause instanceof UpstreamProtocolError || cause instanceof ProtocolError)
    return new ProtocolError(cause.code, cause.message, withoutCarriedError(cause.data));
  return new ProtocolError(
    ProtocolErrorCode.InternalError,
    describe(failure),
    carryErrors ? carryError(failure) : undefined,
  );
}

/** One line for a client: the message, then the fixes. */
export function describe(failure: McpxError): string {
  return [failure.message, ...failure.fixes.map((f) => `fix: ${f}`)].join(' — ');
}

/** `error.type` of a tool's own error result (`isError`), as the MCP semantic conventions name it. */
export const TOOL_ERROR = 'tool_error';

/**
 * A failed request's kind for metrics (`error.type`): a JSON-RPC error's code (the server's
 * own, or the one the client is answered with), else mcpx's error code (`SERVER_CRASHED`,
 * `REQUEST_TIMEOUT`, …). Never a message: a label takes few distinct values.
 */
export function errorTypeOf(error: unknown): string {
  if (error instanceof ProtocolError || error instanceof UpstreamProtocolError) return String(error.code);
  const failure = toMcpxError(error);
  const cause = failure.cause;
  if (cause instanceof UpstreamProtocolError || cause instanceof ProtocolError) return String(cause.code);
  return failure.code;
}
