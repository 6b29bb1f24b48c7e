/**
 * Remote MCP servers over HTTP: the SDK's Streamable HTTP and HTTP+SSE client
 * transports, wrapped with what a host needs around them — SSRF guard with
 * DNS pinning, no redirects, retries with backoff, session renewal, size caps,
 * broken-stream recovery and the fallback to HTTP+SSE for old servers.
 */
export { type AuthChallenge, parseBearerChallenge } from './auth-challenge.js';
export { createHttpTransport, guardedHttpOptions, type HttpTransportHooks } from './create-http-transport.js';
export {
  DEFAULT_MAX_MESSAGE_BYTES,
  GuardedHttp,
  type GuardedHttpOptions,
  type RetryInfo,
} from './guarded-fetch.js';
export {
  HttpClientTransport,
  type HttpClientTransportOptions,
  type HttpTransportMode,
} from './http-transport.js';
export { type AddressClass, classifyAddress, privacyRank } from './ip-address.js';
export type { FetchLike } from './pinned-fetch.js';
export {
  backoffDelay,
  DEFAULT_HTTP_MAX_RETRIES,
  DEFAULT_HTTP_RETRY_BACKOFF_MS,
  parseRetryAfter,
  retryDelay,
  shouldRetryNetworkError,
  shouldRetryStatus,
} from './retry-policy.js';
export { assertValidSessionId, isValidSessionId, MAX_SESSION_ID_LENGTH } from './session-id.js';
export {
  type CheckedUrl,
  checkResolvedUrl,
  checkServerSuppliedUrl,
  checkUrlSyntax,
  type Resolver,
  type ServerSuppliedUrlOptions,
  systemResolver,
  type UrlPolicy,
} from './ssrf-guard.js';
