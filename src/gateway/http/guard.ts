import { createHash, timingSafeEqual } from 'node:crypto';
import {
  hostHeaderValidationResponse,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  originValidationResponse,
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
 * Everything a request must pass before the MCP handler sees it, in order:
 * no credential in the query string (400: it would end up in logs and
 * histories), Host and Origin on their allow lists (403: DNS rebinding and
 * cross-site requests; the SDK's own validators), then the bearer token (401),
 * compared in constant time on equal-length digests. Returns the refusal, or
 * undefined to go on.
 */
export function createHttpGuard(options: HttpGuardOptions): (request: Request) => Response | undefined {
  const hosts = [...localhostAllowedHostnames(), ...(options.allowedHosts ?? [])];
  const origins = [...localhostAllowedOrigins(), ...(options.allowedOrigins ?? [])];
  const expected = options.token === undefined ? undefined : digest(options.token);
  return (request) => {
    const url = new URL(request.url);
    for (const name of url.searchParams.keys()) {
      if (QUERY_SECRETS.includes(name.toLowerCase()))
        return refusal(
          400,
          `a credential in the query string ('${name}') is never accepted: send it as "Authorization: Bearer <token>"`,
        );
    }
    const host = hostHeaderValidationResponse(request, hosts);
    if (host) return host;
    const origin = originValidationResponse(request, origins);
    if (origin) return origin;
    if (expected) {
      const header = request.headers.get('authorization') ?? '';
      const match = /^Bearer\s+(.+)$/i.exec(header.trim());
      if (!match || !timingSafeEqual(digest(match[1] as string), expected))
        return refusal(401, 'missing or wrong bearer token', { 'www-authenticate': 'Bearer' });
    }
    return undefined;
  };
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/** A JSON-RPC error body with an HTTP status, as the SDK's validators answer. */
export function refusal(status: number, message: string, headers: Record<string, string> = {}): Response {
  return Response.json({ jsonrpc: '2.0', id: null, error: { code: -32000, message } }, { status, headers });
}
