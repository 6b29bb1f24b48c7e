import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** Why a request to the console was refused: the HTTP status and a line for the person. */
export interface Refusal {
  readonly status: 403 | 401;
  readonly reason: string;
}

/** What every console request is checked against: its secret and where it listens. */
export interface RequestCheckOptions {
  /** The random token the page's URL carries. */
  readonly token: string;
  /** The loopback port the console listens on. */
  readonly port: number;
}

/**
 * Whether a request may reach the console: its Host names this loopback port (a DNS-rebound
 * name is refused before anything is read), its Origin, when sent, is the page's own, and it
 * carries the token (in the `token` query parameter, or the `X-Mcpx-Token` header).
 */
export function checkRequest(request: IncomingMessage, options: RequestCheckOptions): Refusal | undefined {
  const allowedHosts = [`127.0.0.1:${options.port}`, `localhost:${options.port}`];
  const host = request.headers.host;
  if (host === undefined || !allowedHosts.includes(host.toLowerCase()))
    return { status: 403, reason: 'this Host is not the console’s own (127.0.0.1 or localhost on its port)' };
  const origin = request.headers.origin;
  // A browser sends Origin on every cross-origin request and on same-origin POSTs: only the page's own passes.
  if (origin !== undefined && origin !== `http://${host.toLowerCase()}`)
    return { status: 403, reason: 'requests from other origins are refused' };
  const url = new URL(request.url ?? '/', `http://${host}`);
  const given = request.headers['x-mcpx-token'] ?? url.searchParams.get('token') ?? '';
  if (typeof given !== 'string' || !sameSecret(given, options.token))
    return { status: 401, reason: 'the console needs the token its URL carries' };
  return undefined;
}

function sameSecret(given: string, token: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}
