import { createHash, timingSafeEqual } from 'node:crypto';
import {
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  validateHostHeader,
  validateOriginHeader,
} from '@modelcontextprotocol/server';

export interface HttpGuardOptions {
  /** The bearer token every request must carry; none on a loopback bind without one. */
  readonly token?: string;
  /** Host names (no port) accepted in `Host` besides localhost, 127.0.0.1 and [::1]. */
  readonly allowedHosts?: readonly string[];
  /** Origin host names accepted besides the localhost ones (`--allowed-origin`). */
  readonly allowedOrigins?: readonly string[];
}

const QUERY_SECRETS = ['token', 'access_token', 'api_key', 'apikey', 'key'];

/**
 * What the guard reads of a request: its URL (an absolute one, or the path and query a
 * node:http request line carries) and its headers. A web `Request` is one.
 */
export interface GuardedRequest {
  readonly url: string;
  readonly headers: { get(name: string): string | null };
}

/**
 * Everything a request must pass before the MCP handler sees it, in order:
 * no credential in the query string (400: it would end up in logs and
 * histories), Host and Origin on their allow lists (403: DNS rebinding and
 * cross-site requests; the SDK's own checks), then the bearer token (401),
 * compared in constant time on equal-length digests. Returns the refusal, or
 * undefined to go on.
 */
export function createHttpGuard(
  options: HttpGuardOptions,
): (request: GuardedRequest) => Response | undefined {
  const hosts = [...localhostAllowedHostnames(), ...(options.allowedHosts ?? [])];
  const origins = [...localhostAllowedOrigins(), ...(options.allowedOrigins ?? [])];
  const expected = options.token === undefined ? undefined : digest(options.token);
  // A client sends the same Host and Origin on every request: the last ones accepted are
  // remembered, so only a new value is checked again (the SDK's check parses a URL).
  let hostAccepted: string | null | undefined;
  let originAccepted: string | null | undefined;
  return (request) => {
    for (const name of queryOf(request.url).keys()) {
      if (QUERY_SECRETS.includes(name.toLowerCase()))
        return refusal(
          400,
          `a credential in the query string ('${name}') is never accepted: send it as "Authorization: Bearer <token>"`,
        );
    }
    const hostHeader = request.headers.get('host');
    if (hostHeader !== hostAccepted) {
      const host = validateHostHeader(hostHeader, hosts);
      if (!host.ok) return forbidden(host.message);
      hostAccepted = hostHeader;
    }
    const originHeader = request.headers.get('origin');
    if (originHeader !== originAccepted) {
      const origin = validateOriginHeader(originHeader, origins);
      if (!origin.ok) return forbidden(origin.message);
      originAccepted = originHeader;
    }
    if (expected) {
      const header = request.headers.get('authorization') ?? '';
      const match = /^Bearer\s+(.+)$/i.exec(header.trim());
      if (!match || !timingSafeEqual(digest(match[1] as string), expected))
        return refusal(401, 'missing or wrong bearer token', { 'www-authenticate': 'Bearer' });
    }
    return undefined;
  };
}

const NO_QUERY = new URLSearchParams();

/** The query of an absolute URL or of a request line's target, as `URL.searchParams` reads it. */
function queryOf(url: string): URLSearchParams {
  const start = url.indexOf('?');
  if (start < 0) return NO_QUERY;
  const end = url.indexOf('#', start);
  return new URLSearchParams(url.slice(start + 1, end < 0 ? undefined : end));
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/** A Host or Origin refused, in the words and shape of the SDK's `hostHeaderValidationResponse`. */
function forbidden(message: string): Response {
  return Response.json(
    { jsonrpc: '2.0', error: { code: -32000, message }, id: null },
    { status: 403, headers: { 'Content-Type': 'application/json' } },
  );
}

/** A JSON-RPC error body with an HTTP status, as the SDK's validators answer. */
export function refusal(status: number, message: string, headers: Record<string, string> = {}): Response {
  return Response.json({ jsonrpc: '2.0', id: null, error: { code: -32000, message } }, { status, headers });
}
