import type { CallToolResult } from '@modelcontextprotocol/client';
import { ErrorCode, McpxError } from '../errors/index.js';

/**
 * A call a terminal made (`mcpx call`, the shell) and showed, handed to a console so that its
 * link opens the tool's MCP App with that call's input and result — the result the terminal
 * showed, not a second call.
 */
export interface HeldCall {
  readonly server: string;
  readonly tool: string;
  readonly args: Record<string, unknown>;
  readonly result: CallToolResult;
}

/** The most a held call may be, as JSON (a tool result with its images). */
export const HELD_CALL_LIMIT = 16 * 1024 * 1024;

/** A held call from the JSON the terminal's process wrote (`heldCallJson`), checked for its shape. */
export function parseHeldCall(text: string): HeldCall {
  if (text.length > HELD_CALL_LIMIT)
    throw new McpxError(ErrorCode.MessageTooLarge, 'the call handed to the console is larger than 16 MiB');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new McpxError(ErrorCode.Usage, 'the call handed to the console is not JSON');
  }
  const { server, tool, args, result } = (value ?? {}) as Record<string, unknown>;
  if (
    typeof server !== 'string' ||
    typeof tool !== 'string' ||
    !isRecord(args) ||
    !isRecord(result) ||
    !Array.isArray(result.content)
  )
    throw new McpxError(
      ErrorCode.Usage,
      'the call handed to the console needs {"server", "tool", "args": object, "result": a tool result}',
    );
  return { server, tool, args, result: result as CallToolResult };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
