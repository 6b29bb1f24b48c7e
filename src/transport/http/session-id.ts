import { ErrorCode, McpxError } from '../../errors/index.js';

/** The spec's limit on session ids: visible ASCII (0x21–0x7E); we also cap the length. */
export const MAX_SESSION_ID_LENGTH = 256;
const VISIBLE_ASCII = /^[\x21-\x7e]+$/;

/** True when `id` may be sent back in `Mcp-Session-Id` (visible ASCII only, 1–256 chars). */
export function isValidSessionId(id: string): boolean {
  return id.length > 0 && id.length <= MAX_SESSION_ID_LENGTH && VISIBLE_ASCII.test(id);
}

/**
 * Validate a session id a server assigned; throws InvalidSessionId naming
 * what is wrong (it would otherwise be echoed in every later request header).
 */
export function assertValidSessionId(id: string, url: string): string {
  if (isValidSessionId(id)) return id;
  const what =
    id.length === 0
      ? 'is empty'
      : id.length > MAX_SESSION_ID_LENGTH
        ? `is ${id.length} characters long (at most ${MAX_SESSION_ID_LENGTH})`
        : 'contains characters outside visible ASCII (0x21-0x7E)';
  throw new McpxError(ErrorCode.InvalidSessionId, `the server's Mcp-Session-Id ${what}`, {
    url,
    causes: ['the server does not follow the MCP Streamable HTTP session rules'],
    fixes: ['report this to the server author; mcpx cannot use the session'],
  });
}
