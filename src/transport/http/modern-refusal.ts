/**
 * 2026-07-28 refusals a server sends as a JSON-RPC error in an HTTP 400 body.
 * The SDK takes some of them for "a legacy server" (-32020 on the era probe)
 * and our HTTP+SSE fallback would take any 400 to `initialize` the same way;
 * reading the body says what really happened.
 */
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/client';
import { ErrorCode, McpxError } from '../../errors/index.js';
import { MODERN_REVISION } from '../revisions.js';

/** The headers do not match the body (`Mcp-Method`, `Mcp-Name`, `Mcp-Protocol-Version`). */
const HEADER_MISMATCH = -32020;
/** The request needs a client capability mcpx did not declare. */
const MISSING_CLIENT_CAPABILITY = -32021;
/** The protocol version is not one the server supports; `data.supported` lists those it does. */
const UNSUPPORTED_PROTOCOL_VERSION = -32022;
const MODERN_REFUSAL_CODES: ReadonlySet<number> = new Set([
  HEADER_MISMATCH,
  MISSING_CLIENT_CAPABILITY,
  UNSUPPORTED_PROTOCOL_VERSION,
]);

export interface ModernRefusal {
  readonly code: number;
  readonly message: string;
  /** -32022: the versions the server supports. */
  readonly supported?: readonly string[];
}

/** A 2026-07-28 refusal in a JSON-RPC error (parsed or as the body's text), if it is one. */
export function readModernRefusal(body: unknown): ModernRefusal | undefined {
  let parsed = body;
  if (typeof body === 'string') {
    try {
      parsed = JSON.parse(body);
    } catch {
      return undefined;
    }
  }
  const error = (parsed as { error?: unknown } | null)?.error as
    | { code?: unknown; message?: unknown; data?: { supported?: unknown } }
    | undefined;
  if (typeof error?.code !== 'number' || !MODERN_REFUSAL_CODES.has(error.code)) return undefined;
  const supported = error.data?.supported;
  return {
    code: error.code,
    message: typeof error.message === 'string' ? error.message.slice(0, 300) : '',
    ...(Array.isArray(supported) && supported.every((v) => typeof v === 'string')
      ? { supported: supported.slice(0, 20) as string[] }
      : {}),
  };
}

/**
 * The error for a server that refused mcpx in 2026-07-28 terms. `probe` is
 * its refusal of the era probe, when the refusal at hand came later (the
 * 2025 handshake the SDK fell back to): that earlier one is the real story.
 */
export function modernRefusalError(
  server: string,
  url: string,
  refusal: ModernRefusal,
  probe?: ModernRefusal,
): McpxError {
  const spoken = [MODERN_REVISION, ...SUPPORTED_PROTOCOL_VERSIONS];
  const context = { server, url, httpStatus: 400 };
  const supported = refusal.supported;
  if (supported && !supported.some((version) => spoken.includes(version))) {
    return new McpxError(
      ErrorCode.ServerRejected,
      `'${server}' supports only protocol version${supported.length === 1 ? '' : 's'} ${supported.join(', ')}, none of which this mcpx speaks (${MODERN_REVISION}, ${SUPPORTED_PROTOCOL_VERSIONS[0]} and older)`,
      {
        ...context,
        causes: ['the server is newer than this mcpx'],
        fixes: ['update mcpx', `or use a version of the server that still supports ${MODERN_REVISION}`],
      },
    );
  }
  const cause = probe ?? refusal;
  const what = `${cause.message || 'refused'} (JSON-RPC ${cause.code})`;
  const prefix =
    probe && supported
      ? `'${server}' speaks only ${supported.join(', ')}, but refused mcpx's era probe: ${what}`
      : `'${server}' refused mcpx's request: ${what}`;
  if (cause.code === HEADER_MISMATCH) {
    return new McpxError(ErrorCode.ServerRejected, prefix, {
      ...context,
      causes: [
        'a proxy between mcpx and the server rewrites or drops the Mcp-Method, Mcp-Name or Mcp-Protocol-Version headers',
        'the server checks those headers wrongly',
      ],
      fixes: [
        'have the proxy pass the Mcp-* headers on unchanged, or connect to the server directly',
        "if nothing sits in between, report it to the server's author",
      ],
    });
  }
  return new McpxError(ErrorCode.ServerRejected, prefix, {
    ...context,
    causes:
      cause.code === MISSING_CLIENT_CAPABILITY
        ? [
            'the server requires a client capability (roots, sampling, elicitation) this mcpx command does not offer',
          ]
        : ['the server and mcpx disagree on the protocol version'],
    fixes: ["report it to the server's author, with the message above"],
  });
}
