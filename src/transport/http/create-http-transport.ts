import type { AuthProvider, OAuthClientProvider } from '@modelcontextprotocol/client';
import type { ServerConfig } from '../../config/index.js';
import { ErrorCode, McpxError } from '../../errors/index.js';
import type { AuthChallenge } from './auth-challenge.js';
import type { GuardedHttpOptions, RetryInfo } from './guarded-fetch.js';
import { HttpClientTransport } from './http-transport.js';
import type { FetchLike } from './pinned-fetch.js';
import type { Resolver } from './ssrf-guard.js';

/** What the host may plug into a remote server's transport. */
export interface HttpTransportHooks {
  /** Called before each retry (the CLI prints it with --verbose). */
  readonly onRetry?: (info: RetryInfo) => void;
  /** Largest JSON body or SSE event accepted from the server; 16 MB by default. */
  readonly maxMessageBytes?: number;
  /** Tests: a fetch and a resolver to observe or fake the network. */
  readonly fetch?: FetchLike;
  readonly resolver?: Resolver;
  /** Tests: jitter source and sleep. */
  readonly random?: () => number;
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** OAuth for servers that answer 401 with the MCP authorization flow. */
  readonly authProvider?: OAuthClientProvider | AuthProvider;
  /** Sign in again inside the connection when the server refuses the token (see HttpClientTransportOptions). */
  readonly reauthorize?: (challenge: AuthChallenge | undefined) => Promise<void>;
  /** DPoP-bound tokens: sign each request (see HttpClientTransportOptions). */
  readonly dpop?: (next: FetchLike) => FetchLike;
}

/**
 * What a server's config asks of the guarded fetch: where the server is (any
 * other origin is server-supplied), which headers are its own, the hosts it
 * may send mcpx to, and the retry policy. The transport and `mcpx auth` share it.
 */
export function guardedHttpOptions(server: ServerConfig & { readonly url: string }): GuardedHttpOptions {
  return {
    serverName: server.name,
    serverUrl: server.url,
    serverOnlyHeaders: Object.keys(server.headers),
    ...(server.allowedHosts ? { allowHosts: server.allowedHosts } : {}),
    ...(server.httpMaxRetries === undefined ? {} : { maxRetries: server.httpMaxRetries }),
    ...(server.httpRetryBackoffMs === undefined ? {} : { retryBackoffMs: server.httpRetryBackoffMs }),
  };
}

/**
 * The transport for a `url` server: Streamable HTTP (`type: "http"`, falling
 * back to HTTP+SSE for servers that predate it) or HTTP+SSE (`type: "sse"`),
 * with the config's headers and retry settings.
 *
 * @example
 * connectServer(server, { createTransport: () => createHttpTransport(server, { onRetry }) });
 */
export function createHttpTransport(
  server: ServerConfig,
  hooks: HttpTransportHooks = {},
): HttpClientTransport {
  if (!server.url || (server.transport !== 'http' && server.transport !== 'sse')) {
    throw new McpxError(ErrorCode.ConfigMissingTransport, `'${server.name}' has no url to connect to`, {
      server: server.name,
      origin: server.origin,
    });
  }
  return new HttpClientTransport({
    ...guardedHttpOptions({ ...server, url: server.url }),
    url: server.url,
    mode: server.transport === 'sse' ? 'sse' : 'streamable',
    headers: server.headers,
    ...hooks,
  });
}
