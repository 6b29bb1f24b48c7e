/**
 * When an HTTP exchange with an MCP server is tried again, and after how long.
 * Pure functions: the fetch layer (`guarded-fetch.ts`) applies them.
 */

export const DEFAULT_HTTP_MAX_RETRIES = 3;
export const DEFAULT_HTTP_RETRY_BACKOFF_MS = 1_000;
/** No single wait grows past this, whatever the attempt number. */
export const MAX_RETRY_DELAY_MS = 30_000;
/** A `Retry-After` longer than this is not waited for: the error is reported instead. */
export const MAX_RETRY_AFTER_MS = 60_000;

/** Statuses that say "try again later"; 501 and 505 are permanent. */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 500, 502, 503, 504]);
/** Statuses that promise the request never reached application code. */
const NOT_PROCESSED_STATUSES: ReadonlySet<number> = new Set([429, 503]);
/** Connection errors that happen before any byte of the request left this machine. */
const NOT_SENT_ERROR_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
]);

/** What the fetch layer knows about one HTTP exchange, to decide on a retry. */
export interface ExchangeInfo {
  readonly httpMethod: string;
  /** JSON-RPC methods in the POST body (several for a batch). */
  readonly rpcMethods: readonly string[];
}

/**
 * A `tools/call` may have side effects: once it may have reached the server it
 * is never sent twice. Everything else MCP sends is safe to repeat.
 */
export function isUnsafeToRepeat(exchange: ExchangeInfo): boolean {
  return exchange.httpMethod === 'POST' && exchange.rpcMethods.includes('tools/call');
}

/** Retry this status? 429 and 503 always (the request was not processed); other 5xx only for safe requests. */
export function shouldRetryStatus(status: number, exchange: ExchangeInfo): boolean {
  if (!RETRYABLE_STATUSES.has(status)) return false;
  return !isUnsafeToRepeat(exchange) || NOT_PROCESSED_STATUSES.has(status);
}

/**
 * Retry after a network failure? Always when the request provably never left
 * (`sent === false`, or a connect-phase error code); otherwise only for safe
 * requests — a reset after a `tools/call` body went out may have run the tool.
 */
export function shouldRetryNetworkError(error: unknown, exchange: ExchangeInfo, sent?: boolean): boolean {
  const code = networkErrorCode(error);
  // A name the DNS says does not exist will not appear in the next few seconds (EAI_AGAIN might).
  if (code === 'ENOTFOUND') return false;
  if (sent === false) return true;
  if (code && NOT_SENT_ERROR_CODES.has(code)) return true;
  return !isUnsafeToRepeat(exchange);
}

/** The `code` of a network error, looking through `fetch failed` wrappers. */
export function networkErrorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * `Retry-After` as milliseconds from `now`: delta-seconds or an HTTP date
 * (RFC 9110 §10.2.3). Undefined when absent or unparsable; a date in the past is 0.
 */
export function parseRetryAfter(
  value: string | null | undefined,
  now: number = Date.now(),
): number | undefined {
  if (value === null || value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  if (!/[a-z]/i.test(text)) return undefined;
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

export interface BackoffOptions {
  /** The base delay: the first retry waits between base/2 and base. */
  readonly baseMs: number;
  readonly maxMs?: number;
  /** Injected for tests; returns [0, 1). */
  readonly random?: () => number;
}

/**
 * Exponential backoff with "equal jitter": retry n (1-based) waits between
 * half and all of `base * 2^(n-1)`, capped at `maxMs`. The jitter keeps many
 * clients from retrying in lockstep; the floor keeps the backoff meaningful.
 */
export function backoffDelay(retry: number, options: BackoffOptions): number {
  const { baseMs, maxMs = MAX_RETRY_DELAY_MS, random = Math.random } = options;
  const ceiling = Math.min(maxMs, baseMs * 2 ** Math.max(0, retry - 1));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/**
 * The wait before retry n: the server's `Retry-After` when it gave one (not
 * capped by the backoff, since the server knows best), else the backoff.
 * Undefined means "do not retry": the server asked for a wait beyond `MAX_RETRY_AFTER_MS`.
 */
export function retryDelay(
  retry: number,
  retryAfterMs: number | undefined,
  options: BackoffOptions,
): number | undefined {
  if (retryAfterMs !== undefined) return retryAfterMs > MAX_RETRY_AFTER_MS ? undefined : retryAfterMs;
  return backoffDelay(retry, options);
}
