/** The failures GuardedHttp raises, each saying what was sent, what came back and what to do. */
import { ErrorCode, McpxError } from '../../errors/index.js';
import { type ExchangeInfo, isUnsafeToRepeat, parseRetryAfter } from './retry-policy.js';

/** The request a failure is about: where it went and what it carried. */
export interface FailedExchange extends ExchangeInfo {
  readonly url: URL;
  /** JSON-RPC method(s), `GET stream` or `DELETE session`. */
  readonly what: string;
}

export function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export function redirectRefused(exchange: FailedExchange, response: Response): McpxError {
  const location = response.headers.get('location');
  let target = location ?? '(no Location header)';
  try {
    if (location) target = new URL(location, exchange.url).href;
  } catch {}
  return new McpxError(
    ErrorCode.RedirectRefused,
    `${exchange.url.href} answered HTTP ${response.status} redirecting to ${target}; mcpx does not follow redirects`,
    {
      url: exchange.url.href,
      httpStatus: response.status,
      causes: [
        'the URL moved',
        'a proxy or login page intercepts the request',
        'a server tries to steer mcpx somewhere else',
      ],
      fixes: [`if you trust ${target}, put it in the config as the server's url`],
    },
  );
}

export function statusError(
  exchange: FailedExchange,
  response: Response,
  attempts: number,
  server: string,
): McpxError {
  const status = `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;
  const retryAfter = parseRetryAfter(response.headers.get('retry-after'));
  const unsafe = isUnsafeToRepeat(exchange) && response.status !== 429 && response.status !== 503;
  return new McpxError(
    ErrorCode.HttpStatus,
    `'${server}' answered ${status} to ${exchange.what} after ${attempts} attempt${attempts === 1 ? '' : 's'}${unsafe ? ' (not retried: the tool may already have run)' : ''}`,
    {
      server,
      url: exchange.url.href,
      attempts,
      httpStatus: response.status,
      causes: [
        response.status === 429
          ? 'the server is rate limiting this client'
          : 'the server or a proxy in front of it is failing',
        ...(retryAfter !== undefined ? [`the server asked to wait ${Math.round(retryAfter / 1000)} s`] : []),
      ],
      fixes: ['try again later', 'raise http_max_retries / http_retry_backoff for this server in the config'],
    },
  );
}

export function authRequired(exchange: FailedExchange, response: Response, server: string): McpxError {
  return new McpxError(
    ErrorCode.AuthRequired,
    `'${server}' answered HTTP ${response.status} to ${exchange.what}: it needs ${response.status === 401 ? 'authorization' : 'more permissions'}`,
    {
      server,
      url: exchange.url.href,
      httpStatus: response.status,
      fixes: [
        ...(response.status === 401 ? [`sign in with \`mcpx auth ${server}\` if the server uses OAuth`] : []),
        'or add the credentials the server expects to `headers` in the config, e.g. an Authorization header with a bearer token from an environment variable',
      ],
    },
  );
}

export function sessionExpired(exchange: FailedExchange, server: string): McpxError {
  return new McpxError(
    ErrorCode.SessionExpired,
    `'${server}' ended the session and did not accept a new one (${exchange.what})`,
    {
      server,
      url: exchange.url.href,
      httpStatus: 404,
      causes: ['the server restarted or expires sessions quickly'],
      fixes: ['reconnect; if it keeps happening, report it to the server author'],
    },
  );
}

export function streamBroken(
  exchange: FailedExchange,
  server: string,
  cause: unknown,
  attempts: number,
): McpxError {
  const unsafe = isUnsafeToRepeat(exchange);
  return new McpxError(
    ErrorCode.ConnectionClosed,
    `the response stream for ${exchange.what} from '${server}' broke before the result${unsafe ? '; not re-sent because the tool may already have run' : ''}`,
    {
      server,
      url: exchange.url.href,
      attempts,
      ...(cause === undefined ? {} : { cause }),
      causes: ['the network or a proxy dropped the connection', 'the server crashed or restarted'],
      fixes: unsafe ? ['check whether the tool took effect before calling it again'] : ['try again'],
    },
  );
}
